"""``dot_general``: the general contraction primitive (batch and contracting dimensions), with its
rules."""

from __future__ import annotations

import enum
import math
from typing import Union

import numpy as np

from .. import ad, batching, core, ir
from ..batching import not_mapped
from ..core import Primitive, ShapedArray
from .dot_algorithms import DotAlgorithm, DotAlgorithmPreset, algorithm_operands, is_algorithm
from .dot_order import dot_layout, xla_dot


def _lax():
    from . import api

    return api


# --- dot_general -------------------------------------------------------------------------------


class Precision(enum.Enum):
    """The precision of a contraction on accelerators (``lax.Precision.HIGHEST``...). The engine
    computes in the operands' precision whatever is asked; the param is kept, as JAX shows it."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    __str__ = __repr__


# What a contraction's ``precision=`` takes (an annotation).
PrecisionLike = Union[
    None, str, Precision, tuple[str, str], tuple[Precision, Precision], DotAlgorithm, DotAlgorithmPreset
]

# The strings a precision may be given as (JAX's table), besides a preset's name.
PRECISION_STRINGS = {
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    None: Precision.DEFAULT,
}


def canonicalize_precision(precision):
    """``None``, a ``(lhs, rhs)`` pair of ``Precision`` (one value or string stands for both), or a
    dot algorithm (a ``DotAlgorithm``, a ``DotAlgorithmPreset`` or a preset's name)."""
    from .dot_algorithms import DotAlgorithmPreset, is_algorithm

    if precision is None:
        return None
    if isinstance(precision, str):
        if precision in PRECISION_STRINGS:
            return (PRECISION_STRINGS[precision],) * 2
        if precision in DotAlgorithmPreset.__members__:
            return DotAlgorithmPreset[precision]
    elif isinstance(precision, Precision):
        return (precision, precision)
    elif is_algorithm(precision):
        return precision
    elif isinstance(precision, (tuple, list)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return tuple(canonicalize_precision(p)[0] for p in precision)
    raise ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(PRECISION_STRINGS)},\n"
        "- a lax.Precision value,\n- a tuple of two lax.Precision values or strings,\n"
        "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
        f"- a lax.DotAlgorithm value;\nbut got {precision}."
    )


dot_general_p = Primitive("dot_general")


def _dot_general_impl(
    x, y, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    (xc, yc), (xb, yb) = dimension_numbers
    _check_shapes(x.shape, y.shape, dimension_numbers)  # (eager evaluation may skip abstract evaluation)
    xf = [i for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [i for i in range(y.ndim) if i not in yc and i not in yb]
    bshape = [x.shape[i] for i in xb]
    # (math.prod of the extents: np.prod costs 4 us a call, 4 calls an eager product)
    xt = np.transpose(x, [*xb, *xf, *xc]).reshape(
        math.prod(bshape), math.prod([x.shape[i] for i in xf]), math.prod([x.shape[i] for i in xc])
    )
    yt = np.transpose(y, [*yb, *yc, *yf]).reshape(
        xt.shape[0], xt.shape[2], math.prod([y.shape[i] for i in yf])
    )
    # (preferred_element_type was checked by abstract eval; numerical checks rerun this at float64)
    dtype = np.dtype(preferred_element_type or result_dtype(x.dtype, y.dtype))
    if is_algorithm(precision):  # (rounded and accumulated as the algorithm says, then converted)
        xt, yt, acc = algorithm_operands(precision, xt, yt, dtype)
        return _contracted(xt, yt, x, y, xb, xf, yf, dtype, ordered=False)
    if x.dtype != dtype or y.dtype != dtype:  # mixed or narrower operands are computed in the result's
        # dtype (JAX's CPU lowering: float16 products with a float32 preferred type accumulate in float32)
        # (a complex operand of a real result converts as XLA does: its real part)
        xt, yt = (np.real(t) if dtype.kind != "c" else t for t in (xt, yt))
        xt, yt = xt.astype(dtype), yt.astype(dtype)
    return _contracted(xt, yt, x, y, xb, xf, yf, dtype, layout=dot_layout(x.ndim, y.ndim, dimension_numbers))


def _contracted(xt, yt, x, y, xb, xf, yf, dtype, ordered=True, layout=(False, False)):
    # (float32 in XLA's order where it is known, else BLAS; the kernel XLA picks depends on which
    # operand dimension is minor in memory: eagerly, the last of each row-major operand)
    out = None
    if ordered and xt.shape[2] == 1 and dtype.kind == "f":
        # (contracted dimensions of size 1, or none: XLA's strength reduction makes the dot the
        # product of its operands' broadcasts, as ``simplifier_dots._dot`` does under jit, whose
        # x * -0 keeps its sign where BLAS's sum from +0 does not: ``vmap(grad)`` of ``x @ w``)
        out = xt * yt
    elif ordered:
        out = xla_dot(xt, yt, layout)
    if out is None:
        out = np.matmul(xt, yt)
    shape = [*(x.shape[i] for i in xb), *(x.shape[i] for i in xf), *(y.shape[i] for i in yf)]
    return out.reshape(shape).astype(dtype, copy=False)


dot_general_p.def_impl(_dot_general_impl)


def _check_shapes(x_shape, y_shape, dimension_numbers):
    (xc, yc), (xb, yb) = dimension_numbers
    for side, shape, batch, contracting in (("lhs", x_shape, xb, xc), ("rhs", y_shape, yb, yc)):
        if not all(0 <= d < len(shape) for d in (*contracting, *batch)):
            raise TypeError(
                f"dot_general requires {side} dimension numbers to be nonnegative and less than the "
                f"number of axes of the {side} value, got {side}_batch of {batch} and {side}_contracting "
                f"of {contracting} for {side} of rank {len(shape)}"
            )
    if len(xb) != len(yb):
        raise TypeError(
            f"dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch "
            f"{xb} and rhs_batch {yb}."
        )
    for what, dims in (("batch", (("lhs", xb), ("rhs", yb))), ("contracting", (("lhs", xc), ("rhs", yc)))):
        for side, d in dims:
            if len(set(d)) != len(d):
                raise TypeError(
                    f"dot_general requires {side} {what} dimensions to be distinct, got {side}_{what} {d}."
                )
    for side, batch, contracting in (("lhs", xb, xc), ("rhs", yb, yc)):
        if set(batch) & set(contracting):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from contracting "
                f"dimensions, got {side}_batch {batch} and {side}_contracting {contracting}."
            )
    if [x_shape[i] for i in xb] != [y_shape[i] for i in yb]:
        raise TypeError(
            f"dot_general requires lhs batch dimensions and rhs batch dimensions to have "
            f"the same shape, got {tuple(x_shape[i] for i in xb)} and "
            f"{tuple(y_shape[i] for i in yb)}."
        )
    if [x_shape[i] for i in xc] != [y_shape[i] for i in yc]:
        raise TypeError(
            f"dot_general requires contracting dimensions to have the same shape, got "
            f"{tuple(x_shape[i] for i in xc)} and {tuple(y_shape[i] for i in yc)}."
        )


@dot_general_p.def_abstract_eval
def _dot_general_abstract(
    x, y, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    (xc, yc), (xb, yb) = dimension_numbers
    _check_shapes(x.shape, y.shape, dimension_numbers)
    xf = [x.shape[i] for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [y.shape[i] for i in range(y.ndim) if i not in yc and i not in yb]
    shape = [x.shape[i] for i in xb] + xf + yf
    dtype = result_dtype(x.dtype, y.dtype, preferred_element_type)
    return ShapedArray(shape, dtype, x.weak_type and y.weak_type)


def _type_rank(dtype) -> tuple:
    # XLA's HigherPrecisionType order (as JAX's dot_general dtype rule): complex over real, then
    # exponent range, mantissa, bit width, signed over unsigned.
    from ..numpy._dtypes import finfo, iinfo, issubdtype

    dtype = np.dtype(dtype)
    real = np.dtype(dtype.type(0).real.dtype) if dtype.kind == "c" else dtype
    floating = issubdtype(real, np.floating)
    fi = finfo(real) if floating else None
    bits = fi.bits if fi is not None else (1 if real == np.bool_ else iinfo(real).bits)
    return (
        dtype.kind == "c",
        fi.maxexp if fi is not None else -1,
        fi.nmant if fi is not None else -1,
        bits,
        real.kind != "u",
    )


def result_dtype(x_dtype, y_dtype, preferred_element_type=None):
    """The dtype of a contraction of mixed operands: the wider of the two (JAX lets them differ,
    XLA's rule picks the result), or ``preferred_element_type`` when one is asked for (not narrower
    than that for integers)."""
    x_dtype, y_dtype = np.dtype(x_dtype), np.dtype(y_dtype)
    xr, yr = _type_rank(x_dtype), _type_rank(y_dtype)
    if xr == yr and x_dtype != y_dtype:
        raise TypeError(f"lax.dot_general argument type error: {x_dtype}, {y_dtype}")
    out = x_dtype if xr >= yr else y_dtype
    if preferred_element_type is None or np.dtype(preferred_element_type) == out:
        return out
    pet = np.dtype(preferred_element_type)
    out_rank = _type_rank(out)
    if (out_rank[0] or out_rank[1] == -1) and _type_rank(pet)[3] < out_rank[3]:
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {pet} for result type of {out}."
        )
    return pet


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(original, *removed_lists):
    removed = set(i for r in removed_lists for i in r)
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(
    g, x_aval, y, *, dimension_numbers, precision=None, preferred_element_type=None, swap_ans=False
):
    lax = _lax()
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim = x_aval.ndim
    y_ndim = core.get_aval(y).ndim
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract))) if x_contract else []
    unsorted = list(x_batch) + x_kept + x_contract_sorted_by_y
    out_axes = np.argsort(unsorted)
    typed = getattr(x_aval, "sharding", None)  # (the primal's layout when its type says one, as JAX's)
    if typed is not None:
        from ..sharding import NamedSharding, PartitionSpec, spec_entry

        spec, held = typed._normalized(x_ndim), typed.spec
        # (the cotangent's type: unreduced where the primal is reduced, and the other way round)
        entries = [spec_entry(spec[o]) for o in unsorted]
        typed = NamedSharding(
            typed.mesh, PartitionSpec(*entries, unreduced=held.reduced, reduced=held.unreduced)
        )
    res = lax.dot_general(
        g, y, dims, precision=precision, preferred_element_type=preferred_element_type, out_sharding=typed
    )
    res = lax.transpose(res, tuple(int(a) for a in out_axes))
    if res.dtype != x_aval.dtype:
        res = lax.convert_element_type(res, x_aval.dtype)
    return res


def _dot_transpose(
    ct, x, y, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    # (a cotangent takes its primal's layout: given where the primal's type says one)
    (xc, yc), (xb, yb) = dimension_numbers
    pet = preferred_element_type
    if ad.is_undefined(x):
        return [
            _dot_transpose_lhs(
                ct,
                x.aval,
                y,
                dimension_numbers=dimension_numbers,
                precision=precision,
                preferred_element_type=pet,
            ),
            None,
        ]
    swapped = ((yc, xc), (yb, xb))
    return [
        None,
        _dot_transpose_lhs(
            ct,
            y.aval,
            x,
            dimension_numbers=swapped,
            precision=precision,
            preferred_element_type=pet,
            swap_ans=True,
        ),
    ]


def _dot_jvp(primals, tangents, **params):
    x, y = primals
    gx, gy = tangents
    out = dot_general_p.bind(x, y, **params)
    acc = ad.Zero(ad.tangent_aval(core.get_aval(out)))
    if type(gx) is not ad.Zero:
        acc = ad.add_tangents(acc, dot_general_p.bind(gx, y, **params))
    if type(gy) is not ad.Zero:
        acc = ad.add_tangents(acc, dot_general_p.bind(x, gy, **params))
    return out, acc


def batch_dim_nums(ndims, bdims, dimension_numbers):
    """The dimension numbers of a contraction whose operands have gained the mapped axes ``bdims``
    (``not_mapped`` or an axis each), and the result's mapped axis (JAX's
    ``_dot_general_batch_dim_nums``): no operand moves. Two mapped axes become one more batch
    dimension (first in the result); one mapped axis is one more free dimension of its side."""
    x_ndim, y_ndim = ndims
    xd, yd = bdims
    (xc, yc), (xb, yb) = dimension_numbers

    def bump(ds, b):
        return tuple(int(d) + (int(d) >= b) for d in ds)

    if xd is not not_mapped and yd is not not_mapped:
        xb, yb = (xd, *bump(xb, xd)), (yd, *bump(yb, yd))
        xc, yc = bump(xc, xd), bump(yc, yd)
        out_dim = 0
    elif xd is not not_mapped:
        x_free = [d for d in range(x_ndim) if d not in xb and d not in xc]
        out_dim = len(xb) + sum(d < xd for d in x_free)
        xb, xc = bump(xb, xd), bump(xc, xd)
    else:
        y_free = [d for d in range(y_ndim) if d not in yb and d not in yc]
        out_dim = x_ndim - len(xc) + sum(d < yd for d in y_free)
        yb, yc = bump(yb, yd), bump(yc, yd)
    return ((tuple(xc), tuple(yc)), (tuple(xb), tuple(yb))), out_dim


def _dot_batch(
    size, vals, dims, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    x, y = vals
    ndims = (core.get_aval(x).ndim, core.get_aval(y).ndim)
    dn, out_dim = batch_dim_nums(ndims, dims, dimension_numbers)
    params = dict(precision=precision, preferred_element_type=preferred_element_type, out_sharding=None)
    if out_sharding is not None:  # the batch dimension is not split
        spec = list(out_sharding.spec.partitions) + [None] * (len(out_sharding.spec) <= out_dim)
        spec.insert(out_dim, None)
        params["out_sharding"] = out_sharding.with_spec(spec[: max(len(spec), out_dim + 1)])
    return dot_general_p.bind(x, y, dimension_numbers=dn, **params), out_dim


ad.jvp_rules[dot_general_p] = _dot_jvp


def _dot_general_pp_params(eqn):
    # As JAX shows it: dimension numbers as lists, precision and preferred type only when set.
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    # (out_sharding shows in the result's type in JAX, not as a parameter)
    params = {k: v for k, v in eqn.params.items() if v is not None and k != "out_sharding"}
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return sorted(params.items())


ir.pp_params_rules[dot_general_p] = _dot_general_pp_params
ad.transpose_rules[dot_general_p] = _dot_transpose
batching.batch_rules[dot_general_p] = _dot_batch
