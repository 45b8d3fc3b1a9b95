"""Shape, dtype, reduction and contraction primitives, with their rules."""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..batching import not_mapped, moveaxis
from ..core import Primitive, ShapedArray
from .. import ir


def _lax():
    from . import api

    return api


# --- convert_element_type ----------------------------------------------------------------------

convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_impl
def _convert_impl(x, *, new_dtype, weak_type=False):
    if x.dtype.kind == "f" and np.dtype(new_dtype).kind in "iu":
        with np.errstate(invalid="ignore"):
            x = np.trunc(x)
            info = np.iinfo(new_dtype)
            x = np.clip(np.nan_to_num(x, nan=0), info.min, info.max)
    return x.astype(new_dtype)


convert_element_type_p.def_abstract_eval(
    lambda x, *, new_dtype, weak_type=False: ShapedArray(x.shape, new_dtype, weak_type)
)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False):
    (x,) = primals
    (g,) = tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if np.issubdtype(np.dtype(new_dtype), np.inexact) and np.issubdtype(x.dtype, np.inexact):
        return out, convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type)
    return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))


ad.jvp_rules[convert_element_type_p] = _convert_jvp
ad.transpose_rules[convert_element_type_p] = lambda ct, x, **_: [
    convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type)
]
batching.vectorized_batcher(convert_element_type_p)


# --- broadcast_in_dim --------------------------------------------------------------------------

broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


# The shape is the binder's type; trivial broadcast dimensions are not shown (as in JAX).
ir.pp_params_rules[broadcast_in_dim_p] = lambda eqn: (
    [("broadcast_dimensions", eqn.params["broadcast_dimensions"])]
    if eqn.params["broadcast_dimensions"]
    else []
)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            f"broadcast_in_dim: operand rank {x.ndim} does not match "
            f"broadcast_dimensions {broadcast_dimensions}"
        )
    if any(not 0 <= d < len(shape) for d in broadcast_dimensions) or any(
        a >= b for a, b in zip(broadcast_dimensions, broadcast_dimensions[1:])
    ):
        raise TypeError(
            f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must be "
            f"strictly increasing and within the output rank {len(shape)}"
        )
    for i, d in enumerate(broadcast_dimensions):
        if not (x.shape[i] == 1 or x.shape[i] == shape[d]):
            raise TypeError(
                f"broadcast_in_dim: operand shape {x.shape} cannot be broadcast to "
                f"{shape} along dimensions {broadcast_dimensions}"
            )
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    lax = _lax()
    in_shape = x.aval.shape
    unit = [i for i, s in enumerate(in_shape) if s == 1 and shape[broadcast_dimensions[i]] != 1]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in kept)
    summed = lax.reduce_sum(ct, axes) if axes else ct
    return [lax.reshape(summed, in_shape) if summed.shape != in_shape else summed]


def _broadcast_in_dim_batch(size, vals, dims, *, shape, broadcast_dimensions):
    (x,) = vals
    x = moveaxis(x, dims[0], 0)
    new_shape = (size, *shape)
    new_dims = (0, *np.add(1, broadcast_dimensions).astype(np.int64))  # numpy ints, as JAX prints them
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims), 0


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.batch_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch


# --- reshape -----------------------------------------------------------------------------------

reshape_p = Primitive("reshape")
reshape_p.def_impl(lambda x, *, new_sizes, dimensions=None: np.reshape(x, new_sizes))
ir.pp_params_rules[reshape_p] = lambda eqn: sorted(
    {"dimensions": None, **eqn.params, "sharding": None}.items()
)


@reshape_p.def_abstract_eval
def _reshape_abstract(x, *, new_sizes, dimensions=None):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(
            f"cannot reshape array of shape {x.shape} (size {x.size}) into shape "
            f"{tuple(new_sizes)} (size {int(np.prod(new_sizes, dtype=np.int64))})"
        )
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


ad.deflinear(reshape_p, lambda ct, x, **_: [_lax().reshape(ct, x.aval.shape)])


def _reshape_batch(size, vals, dims, *, new_sizes, dimensions=None):
    x = moveaxis(vals[0], dims[0], 0)
    return reshape_p.bind(x, new_sizes=(size, *new_sizes), dimensions=None), 0


batching.batch_rules[reshape_p] = _reshape_batch


# --- transpose ---------------------------------------------------------------------------------

transpose_p = Primitive("transpose")
transpose_p.def_impl(lambda x, *, permutation: np.transpose(x, permutation))
transpose_p.def_abstract_eval(
    lambda x, *, permutation: ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)
)
ad.deflinear(
    transpose_p, lambda ct, x, *, permutation: [_lax().transpose(ct, tuple(np.argsort(permutation)))]
)


def _transpose_batch(size, vals, dims, *, permutation):
    x = moveaxis(vals[0], dims[0], 0)
    return transpose_p.bind(x, permutation=(0, *[p + 1 for p in permutation])), 0


batching.batch_rules[transpose_p] = _transpose_batch


# --- squeeze -----------------------------------------------------------------------------------

squeeze_p = Primitive("squeeze")
squeeze_p.def_impl(lambda x, *, dimensions: np.squeeze(x, dimensions) if dimensions else x)


@squeeze_p.def_abstract_eval
def _squeeze_abstract(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(
                f"cannot select an axis to squeeze out which has size not equal to "
                f"one, got shape={x.shape} and dimensions={dimensions}"
            )
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)


# JAX transposes squeeze to expand_dims (a broadcast_in_dim).
ad.deflinear(squeeze_p, lambda ct, x, *, dimensions: [_lax().expand_dims(ct, dimensions)])


def _squeeze_batch(size, vals, dims, *, dimensions):
    x = moveaxis(vals[0], dims[0], 0)
    return squeeze_p.bind(x, dimensions=tuple(d + 1 for d in dimensions)), 0


batching.batch_rules[squeeze_p] = _squeeze_batch


# --- select_n ----------------------------------------------------------------------------------

select_n_p = Primitive("select_n")


@select_n_p.def_impl
def _select_n_impl(which, *cases):
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0]) if len(cases) == 2 else cases[0]
    return np.choose(which, cases)


@select_n_p.def_abstract_eval
def _select_n_abstract(which, *cases):
    c0 = cases[0]
    for c in cases[1:]:
        if c.shape != c0.shape or c.dtype != c0.dtype:
            raise TypeError(
                f"select_n cases must have the same shapes and dtypes, got {[c.str_short() for c in cases]}"
            )
    if which.shape not in ((), c0.shape):
        raise TypeError(f"select_n predicate shape {which.shape} must be scalar or {c0.shape}")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    _, *tcases = tangents
    out = select_n_p.bind(which, *cases)
    if all(type(t) is ad.Zero for t in tcases):
        return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
    return out, select_n_p.bind(which, *[ad.instantiate_zeros(t) for t in tcases])


def _select_n_transpose(ct, which, *cases):
    assert not ad.is_undefined(which)
    zeros = _lax().full_like(ct, 0)
    return [None] + [
        select_n_p.bind(which, *[ct if j == i else zeros for j in range(len(cases))])
        if ad.is_undefined(c)
        else None
        for i, c in enumerate(cases)
    ]


def _select_n_batch(size, vals, dims):
    which, *cases = vals
    wdim, *cdims = dims
    lax = _lax()
    if wdim is not_mapped and core.get_aval(which).ndim == 0:
        # A scalar predicate applies to whole cases: align the cases only.
        out_cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, cdims)]
        return select_n_p.bind(which, *out_cases), 0
    vals2 = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    w = vals2[0]
    full_shape = core.get_aval(vals2[1]).shape
    if core.get_aval(w).shape != full_shape:
        w = lax.broadcast_in_dim(w, full_shape, (0,))
    return select_n_p.bind(w, *vals2[1:]), 0


ad.jvp_rules[select_n_p] = _select_n_jvp
ad.transpose_rules[select_n_p] = _select_n_transpose
batching.batch_rules[select_n_p] = _select_n_batch


# --- reductions --------------------------------------------------------------------------------


def _reduce_abstract(x, *, axes, **_):
    for a in axes:
        if not 0 <= a < x.ndim:
            raise ValueError(f"reduction axis {a} out of bounds for array of rank {x.ndim}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype, x.weak_type)


def _reduce_batch(prim):
    def rule(size, vals, dims, *, axes, **params):
        x, d = vals[0], dims[0]
        new_axes = tuple(np.int64(a) for a in sorted(_shift_axes(axes, d)))  # numpy ints, as JAX's rule makes
        out_dim = d - sum(1 for a in new_axes if a < d)
        return prim.bind(x, axes=new_axes, **params), out_dim

    return rule


def _shift_axes(axes, bdim):
    return [a if a < bdim else a + 1 for a in axes]


def accumulating(np_fn):
    """A numpy sum/product that accumulates floats below 64 bits in float64 and rounds once, as
    the compiled kernels do, where numpy would add one row at a time: along a non-contiguous axis
    (a float32 mean over 10000 rows was off by ~1e-5 relative, and differed from jit's result).
    Along trailing axes of a C-contiguous array numpy sums pairwise, accurately and 3x faster."""

    def impl(x, *, axes):
        trailing = sorted(axes) == list(range(x.ndim - len(axes), x.ndim)) and x.flags.c_contiguous
        if x.dtype.kind in "fc" and x.dtype.itemsize < (8 if x.dtype.kind == "f" else 16) and not trailing:
            wide = np.float64 if x.dtype.kind == "f" else np.complex128
            return np.asarray(np_fn(x, axis=tuple(axes), dtype=wide)).astype(x.dtype)
        return np.asarray(np_fn(x, axis=tuple(axes), dtype=x.dtype))

    return impl


reduce_sum_p = Primitive("reduce_sum")
reduce_sum_p.def_impl(accumulating(np.sum))
reduce_sum_p.def_abstract_eval(_reduce_abstract)


def _reduce_sum_transpose(ct, x, *, axes):
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [_lax().broadcast_in_dim(ct, shape, kept)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)
batching.batch_rules[reduce_sum_p] = _reduce_batch(reduce_sum_p)
ir.pp_params_rules[reduce_sum_p] = lambda eqn: [*sorted(eqn.params.items()), ("out_sharding", None)]


def _reduce_chooser_jvp(prim):
    # The derivative flows to the elements that attain the extreme, shared equally among ties.
    def rule(primals, tangents, *, axes):
        (x,) = primals
        (g,) = tangents
        lax = _lax()
        ans = prim.bind(x, axes=axes)
        shape = core.get_aval(x).shape
        # JAX's formulation: ans reshaped with size-1 reduced axes, compared by broadcasting.
        ones = tuple(1 if i in axes else d for i, d in enumerate(shape))
        location = lax.convert_element_type(lax.eq(x, lax.reshape(ans, ones)), g.dtype)
        counts = lax.reduce_sum(location, axes)
        return ans, lax.div(lax.reduce_sum(lax.mul(g, location), axes), counts)

    return rule


def _reduce_identity_impl(np_fn, largest: bool):
    # Reducing an empty axis gives the identity (-inf for max, +inf for min), as XLA does.
    def impl(x, *, axes):
        if x.dtype.kind == "f":
            ident = np.inf if largest else -np.inf
        elif x.dtype.kind == "c":  # numpy's (and XLA's) lexicographic order on (real, imag)
            ident = complex(np.inf if largest else -np.inf, 0)
        elif x.dtype.kind == "b":
            ident = bool(largest)
        else:
            info = np.iinfo(x.dtype)
            ident = info.max if largest else info.min
        return np.asarray(np_fn(x, axis=tuple(axes), initial=ident)).astype(x.dtype, copy=False)

    return impl


reduce_max_p = Primitive("reduce_max")
reduce_max_p.def_impl(_reduce_identity_impl(np.max, largest=False))
reduce_max_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_max_p] = _reduce_chooser_jvp(reduce_max_p)
batching.batch_rules[reduce_max_p] = _reduce_batch(reduce_max_p)

reduce_min_p = Primitive("reduce_min")
reduce_min_p.def_impl(_reduce_identity_impl(np.min, largest=True))
reduce_min_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_min_p] = _reduce_chooser_jvp(reduce_min_p)
batching.batch_rules[reduce_min_p] = _reduce_batch(reduce_min_p)


# --- dot_general -------------------------------------------------------------------------------

dot_general_p = Primitive("dot_general")


def _dot_general_impl(x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    xf = [i for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [i for i in range(y.ndim) if i not in yc and i not in yb]
    bshape = [x.shape[i] for i in xb]
    xt = np.transpose(x, [*xb, *xf, *xc]).reshape(
        int(np.prod(bshape, dtype=np.int64)),
        int(np.prod([x.shape[i] for i in xf], dtype=np.int64)),
        int(np.prod([x.shape[i] for i in xc], dtype=np.int64)),
    )
    yt = np.transpose(y, [*yb, *yc, *yf]).reshape(
        xt.shape[0], xt.shape[2], int(np.prod([y.shape[i] for i in yf], dtype=np.int64))
    )
    out = np.matmul(xt, yt)
    dtype = preferred_element_type or x.dtype
    return out.reshape([*bshape, *[x.shape[i] for i in xf], *[y.shape[i] for i in yf]]).astype(
        dtype, copy=False
    )


dot_general_p.def_impl(_dot_general_impl)


@dot_general_p.def_abstract_eval
def _dot_general_abstract(x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    if [x.shape[i] for i in xc] != [y.shape[i] for i in yc]:
        raise TypeError(
            f"dot_general requires contracting dimensions to have the same shape, got "
            f"{tuple(x.shape[i] for i in xc)} and {tuple(y.shape[i] for i in yc)}."
        )
    if [x.shape[i] for i in xb] != [y.shape[i] for i in yb]:
        raise TypeError(
            f"dot_general requires lhs batch dimensions and rhs batch dimensions to have "
            f"the same shape, got {tuple(x.shape[i] for i in xb)} and "
            f"{tuple(y.shape[i] for i in yb)}."
        )
    if x.dtype != y.dtype and preferred_element_type is None:
        raise TypeError(
            f"dot_general requires operands of the same dtype, got {x.dtype.name} and {y.dtype.name}."
        )
    xf = [x.shape[i] for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [y.shape[i] for i in range(y.ndim) if i not in yc and i not in yb]
    shape = [x.shape[i] for i in xb] + xf + yf
    return ShapedArray(shape, preferred_element_type or x.dtype, x.weak_type and y.weak_type)


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(original, *removed_lists):
    removed = set(i for r in removed_lists for i in r)
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(g, x_aval, y, *, dimension_numbers, preferred_element_type=None, swap_ans=False):
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
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y)
    res = lax.dot_general(g, y, dims, preferred_element_type=preferred_element_type)
    res = lax.transpose(res, tuple(int(a) for a in out_axes))
    if res.dtype != x_aval.dtype:
        res = lax.convert_element_type(res, x_aval.dtype)
    return res


def _dot_transpose(ct, x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    pet = preferred_element_type
    if ad.is_undefined(x):
        return [
            _dot_transpose_lhs(
                ct, x.aval, y, dimension_numbers=dimension_numbers, preferred_element_type=pet
            ),
            None,
        ]
    swapped = ((yc, xc), (yb, xb))
    return [
        None,
        _dot_transpose_lhs(
            ct, y.aval, x, dimension_numbers=swapped, preferred_element_type=pet, swap_ans=True
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


def _dot_batch(size, vals, dims, *, dimension_numbers, precision=None, preferred_element_type=None):
    x, y = vals
    xd, yd = dims
    (xc, yc), (xb, yb) = dimension_numbers
    shift = lambda ds: tuple(d + 1 for d in ds)
    params = dict(precision=precision, preferred_element_type=preferred_element_type)
    if xd is not not_mapped and yd is not not_mapped:
        x, y = moveaxis(x, xd, 0), moveaxis(y, yd, 0)
        dn = ((shift(xc), shift(yc)), ((0, *shift(xb)), (0, *shift(yb))))
        return dot_general_p.bind(x, y, dimension_numbers=dn, **params), 0
    if xd is not not_mapped:
        x = moveaxis(x, xd, 0)
        dn = ((shift(xc), yc), (shift(xb), yb))
        return dot_general_p.bind(x, y, dimension_numbers=dn, **params), len(xb)
    y = moveaxis(y, yd, 0)
    dn = ((xc, shift(yc)), (xb, shift(yb)))
    x_free = core.get_aval(x).ndim - len(xc) - len(xb)
    return dot_general_p.bind(x, y, dimension_numbers=dn, **params), len(xb) + x_free


ad.jvp_rules[dot_general_p] = _dot_jvp


def _dot_general_pp_params(eqn):
    # As JAX shows it: dimension numbers as lists, precision and preferred type only when set.
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    params = {k: v for k, v in eqn.params.items() if v is not None}
    params["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    return sorted(params.items())


ir.pp_params_rules[dot_general_p] = _dot_general_pp_params
ad.transpose_rules[dot_general_p] = _dot_transpose
batching.batch_rules[dot_general_p] = _dot_batch


# --- iota --------------------------------------------------------------------------------------

iota_p = Primitive("iota")


@iota_p.def_impl
def _iota_impl(*, dtype, shape, dimension, sharding=None):
    ramp = np.arange(shape[dimension], dtype=dtype).reshape(
        [s if i == dimension else 1 for i, s in enumerate(shape)]
    )
    return np.broadcast_to(ramp, shape)


@iota_p.def_abstract_eval
def _iota_abstract(*, dtype, shape, dimension, sharding=None):
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be in range [0, {len(shape)}), got {dimension}")
    if np.dtype(dtype).kind not in "iuf":
        raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}")
    return ShapedArray(shape, dtype, False)


# --- rev ---------------------------------------------------------------------------------------

rev_p = Primitive("rev")
rev_p.def_impl(lambda x, *, dimensions: np.flip(x, dimensions) if dimensions else x)


@rev_p.def_abstract_eval
def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < x.ndim for d in dimensions):
        raise ValueError(f"rev dimensions must be unique and in [0, {x.ndim}), got {dimensions}")
    return x


ad.deflinear(rev_p, lambda ct, x, *, dimensions: [rev_p.bind(ct, dimensions=dimensions)])
batching.batch_rules[rev_p] = lambda size, vals, dims, *, dimensions: (
    rev_p.bind(vals[0], dimensions=tuple(_shift_axes(dimensions, dims[0]))),
    dims[0],
)


# --- concatenate -------------------------------------------------------------------------------

concatenate_p = Primitive("concatenate")
concatenate_p.def_impl(lambda *xs, dimension: np.concatenate(xs, axis=dimension))


@concatenate_p.def_abstract_eval
def _concatenate_abstract(*xs, dimension):
    if not xs:
        raise TypeError("concatenate requires a non-empty sequence of operands")
    x0 = xs[0]
    if not 0 <= dimension < x0.ndim:
        raise ValueError(f"concatenate dimension out of bounds: dimension {dimension} for shape {x0.shape}")
    for x in xs[1:]:
        if x.dtype != x0.dtype:
            raise TypeError(
                f"concatenate requires operands of the same dtype, got {[x.dtype.name for x in xs]}"
            )
        if x.ndim != x0.ndim or any(
            a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape)) if i != dimension
        ):
            raise TypeError(
                f"concatenate operands must have equal shapes except in dimension "
                f"{dimension}, got {[x.shape for x in xs]}"
            )
    shape = list(x0.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


def _concatenate_transpose(ct, *xs, dimension):
    # One split into every operand's piece, as JAX (pieces of known operands go unused).
    sizes = [(x.aval if ad.is_undefined(x) else core.get_aval(x)).shape[dimension] for x in xs]
    pieces = _lax().split(ct, sizes, dimension)
    return [p if ad.is_undefined(x) else None for p, x in zip(pieces, xs)]


def _concatenate_batch(size, vals, dims, *, dimension):
    xs = [batching.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    return concatenate_p.bind(*xs, dimension=dimension + 1), 0


ad.deflinear(concatenate_p, _concatenate_transpose)
batching.batch_rules[concatenate_p] = _concatenate_batch


# --- split (the inverse of concatenate; one primitive with several outputs, as in JAX) --------

split_p = Primitive("split", multiple_results=True)


@split_p.def_impl
def _split_impl(x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


@split_p.def_abstract_eval
def _split_abstract(x, *, sizes, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"split axis {axis} out of bounds for shape {x.shape}")
    if sum(sizes) != x.shape[axis] or any(s < 0 for s in sizes):
        raise ValueError(
            f"split sizes {sizes} must be non-negative and sum to the dimension size "
            f"{x.shape[axis]} of axis {axis}"
        )
    return [x.update(shape=x.shape[:axis] + (s,) + x.shape[axis + 1 :]) for s in sizes]


def _split_transpose(cts, x, *, sizes, axis):
    lax = _lax()
    shape = x.aval.shape
    parts = [
        lax.full(shape[:axis] + (s,) + shape[axis + 1 :], 0, x.aval.dtype) if type(ct) is ad.Zero else ct
        for ct, s in zip(cts, sizes)
    ]
    return [lax.concatenate(parts, axis)]


ad.deflinear(split_p, _split_transpose)
batching.batch_rules[split_p] = lambda size, vals, dims, *, sizes, axis: (
    split_p.bind(vals[0], sizes=sizes, axis=axis + (axis >= dims[0])),
    [dims[0]] * len(sizes),
)


# --- stack / unstack / tile (JAX 0.10.2's own primitives, so programs print as JAX's) -------

stack_p = Primitive("stack")
stack_p.def_impl(lambda *xs, axis: np.stack(xs, axis=axis))


@stack_p.def_abstract_eval
def _stack_abstract(*xs, axis):
    if not xs:
        raise TypeError("stack requires a non-empty sequence of operands")
    x0 = xs[0]
    if not 0 <= axis <= x0.ndim:
        raise ValueError(f"stack axis {axis} out of bounds for operands of shape {x0.shape}")
    if any(x.dtype != x0.dtype for x in xs):
        raise TypeError(f"stack requires operands of the same dtype, got {[x.dtype.name for x in xs]}")
    if any(x.shape != x0.shape for x in xs):
        raise TypeError(f"stack operands must have equal shapes, got {[x.shape for x in xs]}")
    shape = (*x0.shape[:axis], len(xs), *x0.shape[axis:])
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


def _stack_transpose(ct, *xs, axis):
    pieces = unstack_p.bind(ct, axis=axis)
    return [p if ad.is_undefined(x) else None for p, x in zip(pieces, xs)]


def _stack_batch(size, vals, dims, *, axis):
    d0 = dims[0]
    if d0 is not not_mapped and all(d == d0 for d in dims):
        out_axis, out_dim = (axis, d0 + 1) if axis <= d0 else (axis + 1, d0)
        return stack_p.bind(*vals, axis=out_axis), out_dim
    xs = [batching.bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    return stack_p.bind(*xs, axis=axis + 1), 0


ad.deflinear(stack_p, _stack_transpose)
batching.batch_rules[stack_p] = _stack_batch

unstack_p = Primitive("unstack", multiple_results=True)
unstack_p.def_impl(lambda x, *, axis: [np.take(x, i, axis=axis) for i in range(x.shape[axis])])


@unstack_p.def_abstract_eval
def _unstack_abstract(x, *, axis):
    if x.ndim == 0:
        raise ValueError(
            f"unstack requires arrays with rank > 0, however a scalar array of shape {x.shape} was passed."
        )
    return [x.update(shape=x.shape[:axis] + x.shape[axis + 1 :])] * x.shape[axis]


def _unstack_transpose(cts, x, *, axis):
    return [stack_p.bind(*[ad.instantiate_zeros(ct) for ct in cts], axis=axis)]


def _unstack_batch(size, vals, dims, *, axis):
    (d,) = dims
    out_axis, out_dim = (axis, d - 1) if axis < d else (axis + 1, d)
    outs = unstack_p.bind(vals[0], axis=out_axis)
    return outs, [out_dim] * len(outs)


ad.deflinear(unstack_p, _unstack_transpose)
batching.batch_rules[unstack_p] = _unstack_batch

tile_p = Primitive("tile")
tile_p.def_impl(lambda x, *, reps: np.tile(x, reps))


@tile_p.def_abstract_eval
def _tile_abstract(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and x.ndim={x.ndim}."
        )
    return x.update(shape=tuple(int(n * r) for n, r in zip(x.shape, reps)))


def _tile_transpose(ct, x, *, reps):
    # Each copy is one (rep, dim) pair of axes: sum the rep axes away.
    lax = _lax()
    pairs = lax.reshape(ct, tuple(k for pair in zip(reps, x.aval.shape) for k in pair))
    return [lax.reduce_sum(pairs, tuple(2 * i for i in range(x.aval.ndim)))]


def _tile_batch(size, vals, dims, *, reps):
    (d,) = dims
    return tile_p.bind(vals[0], reps=(*reps[:d], 1, *reps[d:])), d


ad.deflinear(tile_p, _tile_transpose)
batching.batch_rules[tile_p] = _tile_batch


# --- pad (low, high and interior padding; negative low/high padding crops) -------------------

pad_p = Primitive("pad")


@pad_p.def_impl
def _pad_impl(x, padding_value, *, padding_config):
    out = x
    for axis, (lo, hi, interior) in enumerate(padding_config):
        n = out.shape[axis]
        if interior > 0 and n > 1:
            shape = list(out.shape)
            shape[axis] = n + (n - 1) * interior
            spread = np.full(shape, padding_value, dtype=x.dtype)
            idx = [slice(None)] * out.ndim
            idx[axis] = slice(None, None, interior + 1)
            spread[tuple(idx)] = out
            out = spread
        crop = [slice(None)] * out.ndim
        crop[axis] = slice(max(-lo, 0), out.shape[axis] - max(-hi, 0))
        out = out[tuple(crop)]
        widths = [(0, 0)] * out.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=padding_value)
    return out


@pad_p.def_abstract_eval
def _pad_abstract(x, padding_value, *, padding_config):
    if padding_value.shape != ():
        raise TypeError(f"pad padding_value must be a scalar, got shape {padding_value.shape}")
    if padding_value.dtype != x.dtype:
        raise TypeError(
            f"pad operand and padding_value must have the same dtype, got "
            f"{x.dtype.name} and {padding_value.dtype.name}"
        )
    if len(padding_config) != x.ndim:
        raise ValueError(
            f"pad: padding_config {padding_config} must have one (lo, hi, interior) "
            f"triple per dimension of the operand of shape {x.shape}"
        )
    shape = []
    for n, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise ValueError(f"pad: interior padding must be non-negative, got {padding_config}")
        size = lo + hi + n + max(n - 1, 0) * interior
        if size < 0:
            raise ValueError(
                f"pad: negative padding {padding_config} crops more than the operand shape {x.shape} holds"
            )
        shape.append(size)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_transpose(ct, x, padding_value, *, padding_config):
    lax = _lax()
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    unpadded = pad_p.bind(
        ct, lax.full((), 0, ct.dtype), padding_config=tuple((-a, -b, 0) for a, b in zip(lo, hi))
    )
    t_x = lax.slice(unpadded, (0,) * len(lo), unpadded.shape, tuple(i + 1 for i in interior))
    t_pad = None
    if ad.is_undefined(padding_value):
        all_axes = tuple(range(len(lo)))
        t_pad = lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(t_x, all_axes))
    return [t_x if ad.is_undefined(x) else None, t_pad]


def _pad_batch(size, vals, dims, *, padding_config):
    lax = _lax()
    x, pv = vals
    dx, dpv = dims
    x = batching.bdim_at_front(x, dx, size)
    config = ((0, 0, 0), *padding_config)
    if dpv is not_mapped:
        return pad_p.bind(x, pv, padding_config=config), 0
    # A batched padding value: pad with zeros, then select the padding positions per member.
    padded = pad_p.bind(x, lax.full((), 0, x.dtype), padding_config=config)
    inside = pad_p.bind(
        lax.full(core.get_aval(x).shape, True, np.bool_), lax.full((), False, np.bool_), padding_config=config
    )
    pv = lax.broadcast_in_dim(batching.moveaxis(pv, dpv, 0), core.get_aval(padded).shape, (0,))
    return lax.select(inside, padded, pv), 0


ad.deflinear(pad_p, _pad_transpose)
batching.batch_rules[pad_p] = _pad_batch


# --- bitcast_convert_type ----------------------------------------------------------------------

bitcast_convert_type_p = Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x, *, new_dtype):
    new_dtype = np.dtype(new_dtype)
    x = np.array(x, order="C")  # views need contiguity; ascontiguousarray would make 0-d 1-d
    if new_dtype.itemsize == x.dtype.itemsize:
        return x.view(new_dtype)
    if new_dtype.itemsize < x.dtype.itemsize:  # a new trailing dimension holds the pieces
        ratio = x.dtype.itemsize // new_dtype.itemsize
        return x.reshape(*x.shape, 1).view(new_dtype).reshape(*x.shape, ratio)
    return x.view(new_dtype).reshape(x.shape[:-1])


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract(x, *, new_dtype):
    new_dtype = np.dtype(new_dtype)
    old, new = x.dtype.itemsize, new_dtype.itemsize
    if (x.dtype == np.bool_) != (new_dtype == np.bool_) and old != new:
        raise TypeError("bitcast_convert_type cannot change the size of a bool")
    if old == new:
        return ShapedArray(x.shape, new_dtype, False)
    if new < old:
        return ShapedArray((*x.shape, old // new), new_dtype, False)
    if not x.shape or x.shape[-1] != new // old:
        raise TypeError(
            f"bitcast_convert_type from {x.dtype.name} to {new_dtype.name} needs a last "
            f"dimension of size {new // old}, got shape {x.shape}"
        )
    return ShapedArray(x.shape[:-1], new_dtype, False)


ad.defzero(bitcast_convert_type_p)
batching.batch_rules[bitcast_convert_type_p] = lambda size, vals, dims, *, new_dtype: (
    bitcast_convert_type_p.bind(moveaxis(vals[0], dims[0], 0), new_dtype=new_dtype),
    0,
)
