"""The lowering table: how each primitive becomes generated code. Adding an op = adding a row.

``lowerings[p]`` is one of:
- ``Scalar(fn)``: an elementwise op; ``fn(eqn, *in_exprs)`` returns the Python expression of one
  output element from the input elements' expressions (a list of expressions, or one
  tuple-valued expression, for multiple results). Fused into loop nests by the code generator.
- ``Mapped(fn)``: an op that only re-indexes its operands (broadcast, transpose, outer product);
  ``fn(eqn)`` returns, per operand, the loop axis that indexes each operand axis (None: index 0),
  and the combining scalar rule. Fused as loads of the loop nest.
- ``Index(fn)``: an op whose element is an expression of other values' elements at computed
  positions (slice, rev, pad, concatenate, gather, dynamic_slice, iota, ...); ``fn(eqn)``
  returns ``expand(read, idx) -> expression``, where ``idx`` holds the output element's index
  expressions and ``read(x, x_idx)`` gives the scalar name of ``x[x_idx]``. Deferred and
  composed into consumers' loads like ``Mapped``. Every read must be in bounds whatever the
  branch taken (loads are hoisted), so indices are clamped and selects pick the valid one.
- ``Reduce(kind)``: a reduction, fused as the tail of the loop nest over its operand.
- ``Host(fn)``: a call in the generated host function on numpy arrays; ``fn(eqn, *in_names)``
  returns one expression (or, for multiple results, an expression giving a sequence).
- ``Special(name)``: handled by the code generator itself (inlined ``jit``, control flow).

``fn`` may return ``None`` to decline (e.g. an unsupported dtype); the equation then runs through
the interpreter's numpy rule (a *fallback*, reported by the compiled executable).
Expressions never embed user strings; literal values come from ``literal``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ad, core
from . import multiply_add, ynn_fusion
from ..lax import array_creation
from ..lax import elementwise as ew
from ..lax import libm_f32
from ..lax.dot_algorithms import is_algorithm
from ..lax.dot_order import dot_layout
from ..lax import reductions as rd
from ..lax import slicing as sl
from ..lax import special
from ..lax import sorting as so
from ..lax import structural as st

from .rows import INTERPRETER_ONLY, Host, Index, Mapped, Reduce, Scalar, Special, lowerings  # noqa: F401


# dtypes the kernels handle; anything else (float16, complex, ...) falls back.
_NB_TYPES = {
    "float32": "float32",
    "float64": "float64",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int64": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "boolean",
}


def supported(dtype) -> bool:
    """Whether numba computes with ``dtype`` (a PRNG key's is no numpy dtype: not here)."""
    try:
        return np.dtype(dtype).name in _NB_TYPES
    except TypeError:
        return False


def nb_type(dtype) -> str:
    return "nb." + _NB_TYPES[np.dtype(dtype).name]


def cast(dtype) -> str:
    """The scalar constructor that converts (with wrap-around) to ``dtype`` inside numba."""
    name = np.dtype(dtype).name
    return "np.bool_" if name == "bool" else f"np.{name}"


def literal(val, dtype) -> str:
    """A constant as typed Python source: numbers only, so no user text reaches the code."""
    dtype = np.dtype(dtype)
    v = np.asarray(core.to_numpy(val) if isinstance(val, core.Array) else val).astype(dtype).item()
    if dtype == np.bool_:
        return "True" if v else "False"
    if dtype.kind == "f":
        if math.isnan(v):
            return f"{cast(dtype)}(np.nan)"
        if math.isinf(v):
            return f"{cast(dtype)}({'' if v > 0 else '-'}np.inf)"
        return f"{cast(dtype)}({float(v)!r})"
    return f"{cast(dtype)}({int(v)})"


def _in_dtype(eqn, i=0):
    return eqn.inputs[i].aval.dtype


def _kind(eqn, i=0):
    return _in_dtype(eqn, i).kind


def _float_only(template):
    def fn(eqn, *xs):
        return template.format(*xs) if _kind(eqn) == "f" else None

    return Scalar(fn)


def _any(template):
    return Scalar(lambda eqn, *xs: template.format(*xs))


_FLOAT_UNARY = {
    ew.floor_p: "np.floor({0})",
    ew.ceil_p: "np.ceil({0})",
    ew.is_finite_p: "np.isfinite({0})",
    ew.exp_p: "np.exp({0})",
    ew.exp2_p: "np.exp2({0})",
    ew.log_p: "np.log({0})",
    ew.log1p_p: "np.log1p({0})",
    ew.expm1_p: "np.expm1({0})",
    ew.tanh_p: "np.tanh({0})",
    ew.logistic_p: "rt.logistic({0})",
    ew.sin_p: "np.sin({0})",
    ew.cos_p: "np.cos({0})",
    ew.tan_p: "np.tan({0})",
    ew.asin_p: "np.arcsin({0})",
    ew.acos_p: "np.arccos({0})",
    ew.atan_p: "np.arctan({0})",
    ew.sinh_p: "np.sinh({0})",
    ew.cosh_p: "np.cosh({0})",
    ew.asinh_p: "np.arcsinh({0})",
    ew.acosh_p: "np.arccosh({0})",
    ew.atanh_p: "np.arctanh({0})",
    ew.sqrt_p: "np.sqrt({0})",
    ew.cbrt_p: "np.cbrt({0})",
    ew.erf_p: "rt.erf({0})",
    special.lgamma_p: "rt.lgamma(np.float64({0}))",  # (in float64, then rounded: the interpreter's bits)
    special.digamma_p: "rt.digamma(np.float64({0}))",
    ew.atan2_p: "np.arctan2({0}, {1})",
    ew.pow_p: "np.power({0}, {1})",
}
for _p, _t in _FLOAT_UNARY.items():
    lowerings[_p] = _float_only(_t)


def _fast_f32(name, template):
    """float32: the vectorizable ``rt.<name>_f32`` (numba_math); float64: ``template`` (libm)."""

    def fn(eqn, x):
        dt = _in_dtype(eqn)
        return f"rt.{name}_f32({x})" if dt == np.float32 else (template.format(x) if dt.kind == "f" else None)

    return fn


def _trig_guard(eqn, x):
    return f"rt.trig_huge({x})" if _in_dtype(eqn) == np.float32 else None


for _p, _n in (
    (ew.exp_p, "exp"),
    (ew.exp2_p, "exp2"),
    (ew.sinh_p, "sinh"),
    (ew.cosh_p, "cosh"),
    (ew.asinh_p, "asinh"),
    (ew.acosh_p, "acosh"),
    (ew.atanh_p, "atanh"),
    (special.lgamma_p, "lgamma"),
    (special.digamma_p, "digamma"),
    (ew.log_p, "log"),
    (ew.tanh_p, "tanh"),
    (ew.expm1_p, "expm1"),
    (ew.log1p_p, "log1p"),
    (ew.logistic_p, "logistic"),
    (ew.erf_p, "erf"),
    (ew.tan_p, "tan"),  # (these five: the C library's, as XLA calls it; numba_libm)
    (ew.atan_p, "atan"),
    (ew.cbrt_p, "cbrt"),
    (ew.asin_p, "asin"),
    (ew.acos_p, "acos"),
):
    lowerings[_p] = Scalar(_fast_f32(_n, _FLOAT_UNARY[_p]))


def _atan(eqn, x):
    # (XLA's own arctangent where its loop over the array stays scalar, else atanf: lax/libm_f32)
    if _in_dtype(eqn) == np.float32 and libm_f32.xla_atan_elements(eqn.out_binders[0].aval.shape):
        return f"rt.atan_xla_f32({x})"
    return _fast_f32("atan", _FLOAT_UNARY[ew.atan_p])(eqn, x)


lowerings[ew.atan_p] = Scalar(_atan)
# XLA's estimate and Newton steps (lax/xla_rsqrt.py), float32 and float64
_RSQRT = {np.dtype(np.float32): "rt.rsqrt_f32({0})", np.dtype(np.float64): "rt.rsqrt_f64({0})"}
lowerings[ew.rsqrt_p] = Scalar(
    lambda eqn, x: _RSQRT[_in_dtype(eqn)].format(x) if _in_dtype(eqn) in _RSQRT else None
)
# (float64 exp: XLA's own, and cosh made of it: lax/xla_f64)
lowerings[ew.exp_p] = Scalar(_fast_f32("exp", "rt.exp_f64({0})"))
lowerings[ew.cosh_p] = Scalar(_fast_f32("cosh", "rt.cosh_f64({0})"))
lowerings[ew.sin_p] = Scalar(_fast_f32("sin", _FLOAT_UNARY[ew.sin_p]), guard=_trig_guard)
lowerings[ew.cos_p] = Scalar(_fast_f32("cos", _FLOAT_UNARY[ew.cos_p]), guard=_trig_guard)


# The functions YNNPACK computes for the ops XLA fuses into a YNN sum (ynn_fusion.rewrite)
lowerings[ynn_fusion.ynn_unary_p] = Scalar(lambda eqn, x: f"rt.ynn_{eqn.params['fn']}_f32({x})")


def _libm_binary(name, template):
    def fn(eqn, x, y):
        dt = _in_dtype(eqn)
        return (
            f"rt.{name}_f32({x}, {y})"
            if dt == np.float32
            else (template.format(x, y) if dt.kind == "f" else None)
        )

    return Scalar(fn)


lowerings[ew.pow_p] = _libm_binary("pow", _FLOAT_UNARY[ew.pow_p])
lowerings[ew.atan2_p] = _libm_binary("atan2", _FLOAT_UNARY[ew.atan2_p])


def _multiply_add(eqn, a, b, c):
    dt = eqn.out_binders[0].aval.dtype
    if dt not in (np.float32, np.float64):
        return None
    a = f"-({a})" if eqn.params["neg_product"] else a
    c = f"-({c})" if eqn.params["neg_addend"] else c
    return f"rt.fma_{'f32' if dt == np.float32 else 'f64'}({a}, {b}, {c})"


lowerings[multiply_add.fma_p] = Scalar(_multiply_add)
lowerings[ew.erf_inv_p] = Scalar(
    lambda eqn, x: f"rt.erf_inv_f32({x})" if _in_dtype(eqn) == np.float32 else None
)
lowerings[ew.neg_p] = _any("-{0}")
lowerings[ew.abs_p] = _any("abs({0})")
lowerings[ew.sign_p] = Scalar(lambda eqn, x: f"rt.fsign({x})" if _kind(eqn) == "f" else f"rt.isign({x})")
lowerings[ew.round_p] = Scalar(
    lambda eqn, x: f"rt.round_away({x})" if eqn.params.get("rounding_method", 0) == 0 else f"np.rint({x})"
)
lowerings[ew.not_p] = Scalar(lambda eqn, x: f"(not {x})" if _kind(eqn) == "b" else f"~{x}")

for _p, _op in ((ew.add_p, "+"), (ew.sub_p, "-"), (ad.add_jaxvals_p, "+")):
    lowerings[_p] = Scalar(lambda eqn, x, y, op=_op: None if _kind(eqn) == "b" else f"{x} {op} {y}")
lowerings[ew.mul_p] = Scalar(lambda eqn, x, y: f"({x} and {y})" if _kind(eqn) == "b" else f"{x} * {y}")
lowerings[ew.max_p] = Scalar(
    lambda eqn, x, y: f"rt.fmax({x}, {y})" if _kind(eqn) == "f" else f"max({x}, {y})"
)
lowerings[ew.min_p] = Scalar(
    lambda eqn, x, y: f"rt.fmin({x}, {y})" if _kind(eqn) == "f" else f"min({x}, {y})"
)
for _p, _op in ((ew.and_p, "&"), (ew.or_p, "|"), (ew.xor_p, "^")):
    lowerings[_p] = _any("({0} %s {1})" % _op)
for _p, _op in (
    (ew.eq_p, "=="),
    (ew.ne_p, "!="),
    (ew.lt_p, "<"),
    (ew.le_p, "<="),
    (ew.gt_p, ">"),
    (ew.ge_p, ">="),
):
    lowerings[_p] = _any("({0} %s {1})" % _op)


def _total_order(op):
    """lt_to / le_to / eq_to: floats compared by their TOTALORDER keys (numba_rt), others as usual."""

    def lower(eqn, x, y):
        if _kind(eqn) != "f":
            return f"({x} {op} {y})"
        key = f"rt.total_order_{_in_dtype(eqn).itemsize * 8}"
        return f"({key}({x}) {op} {key}({y}))"

    return Scalar(lower)


for _p, _op in ((so.eq_to_p, "=="), (so.le_to_p, "<="), (so.lt_to_p, "<")):
    lowerings[_p] = _total_order(_op)


def _bits(eqn):
    return _in_dtype(eqn).itemsize * 8


def _unsigned(eqn):
    return cast(np.dtype(f"u{_in_dtype(eqn).itemsize}"))


lowerings[ew.shift_left_p] = Scalar(lambda eqn, x, y: f"rt.shl({x}, {y}, {_bits(eqn)})")


def _shr_arith(eqn, x, y):
    if _kind(eqn) == "u":  # the top bit is shifted in as a sign bit whatever the type, as in XLA
        signed = cast(np.dtype(f"i{_in_dtype(eqn).itemsize}"))
        return f"{cast(_in_dtype(eqn))}(rt.shr_arith({signed}({x}), {y}, {_bits(eqn)}))"
    return f"rt.shr_arith({x}, {y}, {_bits(eqn)})"


lowerings[ew.shift_right_arithmetic_p] = Scalar(_shr_arith)
lowerings[ew.shift_right_logical_p] = Scalar(
    lambda eqn, x, y: f"rt.shr_logical({_unsigned(eqn)}({x}), {y}, {_bits(eqn)})"
)


def _div(eqn, x, y):
    k = _kind(eqn)
    return f"{x} / {y}" if k == "f" else (f"rt.idiv({x}, {y})" if k == "i" else f"rt.udiv({x}, {y})")


def _rem(eqn, x, y):
    k = _kind(eqn)
    return f"rt.frem({x}, {y})" if k == "f" else (f"rt.irem({x}, {y})" if k == "i" else f"rt.urem({x}, {y})")


lowerings[ew.div_p] = Scalar(_div)
lowerings[ew.rem_p] = Scalar(_rem)


def _integer_pow(eqn, x):
    y = int(eqn.params["y"])
    if y == 0:
        return "1"
    n, acc, base = abs(y), None, x
    # Exponentiation by squaring, spelled out: x**5 -> (x*x)*(x*x)*x.
    while n:
        if n & 1:
            acc = base if acc is None else f"({acc} * {base})"
        n >>= 1
        if n:
            base = f"({base} * {base})"
    if y < 0:
        return None if _kind(eqn) in "iu" else f"1 / {acc}"
    return acc


lowerings[ew.integer_pow_p] = Scalar(_integer_pow)
lowerings[ew.square_p] = Scalar(lambda eqn, x: f"({x} * {x})")


def _convert(eqn, x):
    src, dst = _in_dtype(eqn), np.dtype(eqn.params["new_dtype"])
    if dst == np.bool_:
        return f"({x} != 0)"
    if src.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        return f"rt.f2i({x}, {float(info.min)!r}, {float(info.max)!r})"
    return x


lowerings[st.convert_element_type_p] = Scalar(_convert)


def _bitcast(eqn, x):
    # Same-width bitcasts only: the others add or drop an axis (they run from the host).
    src, dst = _in_dtype(eqn), np.dtype(eqn.params["new_dtype"])
    if src.itemsize != dst.itemsize or np.dtype(np.bool_) in (src, dst):
        return None
    return x if src == dst else f"rt.bitcast_{dst.name}({cast(src)}({x}))"


lowerings[st.bitcast_convert_type_p] = Scalar(_bitcast)


def _select_n(eqn, which, *cases):
    if len(cases) == 1:
        return cases[0]
    if _kind(eqn) == "b":
        return f"({cases[1]} if {which} else {cases[0]})"
    expr = cases[-1]
    for i in range(len(cases) - 2, -1, -1):
        expr = f"({cases[i]} if {which} == {i} else {expr})"
    return expr


lowerings[st.select_n_p] = Scalar(_select_n)


# --- re-indexing ops: per operand, which loop axis indexes each of its axes (None -> 0) -------


def _broadcast_map(eqn):
    x = eqn.inputs[0].aval
    shape, bd = eqn.params["shape"], eqn.params["broadcast_dimensions"]
    return [[d if x.shape[i] == shape[d] else None for i, d in enumerate(bd)]], None


def _transpose_map(eqn):
    perm = eqn.params["permutation"]
    inv = [0] * len(perm)
    for j, p in enumerate(perm):
        inv[p] = j
    return [inv], None


def _outer_product_map(eqn):
    # dot_general without contraction is an elementwise product of two re-indexed operands.
    (xc, yc), (xb, yb) = eqn.params["dimension_numbers"]
    pet = eqn.params.get("preferred_element_type")
    if xc or _in_dtype(eqn, 1) != _in_dtype(eqn) or pet not in (None, _in_dtype(eqn)):
        return None
    if is_algorithm(eqn.params.get("precision")):  # (operands rounded, or refused: numpy's rule)
        return None
    x, y = eqn.inputs[0].aval, eqn.inputs[1].aval
    xf = [i for i in range(x.ndim) if i not in xb]
    yf = [i for i in range(y.ndim) if i not in yb]
    xmap, ymap = [None] * x.ndim, [None] * y.ndim
    for k, (i, j) in enumerate(zip(xb, yb)):
        xmap[i], ymap[j] = k, k
    for k, i in enumerate(xf):
        xmap[i] = len(xb) + k
    for k, j in enumerate(yf):
        ymap[j] = len(xb) + len(xf) + k
    rule = "({0} and {1})" if _kind(eqn) == "b" else "{0} * {1}"
    return [xmap, ymap], rule


lowerings[st.broadcast_in_dim_p] = Mapped(_broadcast_map)
lowerings[st.transpose_p] = Mapped(_transpose_map)


def _slice(eqn):
    x = eqn.inputs[0]
    starts, strides = eqn.params["start_indices"], eqn.params["strides"] or (1,) * x.aval.ndim
    return lambda read, idx: read(x, [_affine(a, s, e) for a, s, e in zip(starts, strides, idx)])


def _affine(offset, scale, e):
    """``offset + scale * e`` as source, simplified."""
    term = e if scale == 1 else f"{scale} * {e}"
    return term if offset == 0 else f"({offset} + {term})"


def _rev(eqn):
    x = eqn.inputs[0]
    dims, shape = eqn.params["dimensions"], x.aval.shape
    return lambda read, idx: read(
        x, [f"({shape[d] - 1} - {e})" if d in dims else e for d, e in enumerate(idx)]
    )


def _iota(eqn):
    dt, dim = np.dtype(eqn.params["dtype"]), eqn.params["dimension"]
    return lambda read, idx: f"{cast(dt)}({idx[dim]})"


def _clip(e, hi) -> str:
    return f"min(max({e}, 0), {hi})"


def _pad(eqn):
    x, padval = eqn.inputs
    config, shape = eqn.params["padding_config"], x.aval.shape

    def expand(read, idx):
        fill = read(padval, ())
        if 0 in shape:
            return fill
        src, conds = [], []
        for (lo, _hi, interior), n, e in zip(config, shape, idx):
            t = f"({e} - {lo})" if lo else e
            step = interior + 1
            q = t if step == 1 else f"({t} // {step})"
            src.append(_clip(q, n - 1))
            conds.append(f"0 <= {t}" + (f" and {t} % {step} == 0" if step > 1 else "") + f" and {q} < {n}")
        return f"({read(x, src)} if ({' and '.join(conds)}) else {fill})"

    return expand


def _concatenate(eqn):
    dim, xs = eqn.params["dimension"], [x for x in eqn.inputs if x.aval.shape[eqn.params["dimension"]]]

    def expand(read, idx):
        if not xs:
            return "0"
        offs, off = [], 0
        for x in xs:
            offs.append(off)
            off += x.aval.shape[dim]
        e = idx[dim]
        expr = None
        for x, o in reversed(list(zip(xs, offs))):
            at = list(idx)
            at[dim] = _clip(f"({e} - {o})" if o else e, x.aval.shape[dim] - 1)
            v = read(x, at)
            expr = v if expr is None else f"({v} if {e} < {o + x.aval.shape[dim]} else {expr})"
        return expr

    return expand


def _stack(eqn):
    """Output ``[..., k, ...]`` (``k`` on ``axis``) is operand ``k``'s element at the other indices."""
    axis, xs = eqn.params["axis"], eqn.inputs

    def expand(read, idx):
        at = [e for d, e in enumerate(idx) if d != axis]
        expr = read(xs[-1], at)
        for k in range(len(xs) - 2, -1, -1):
            expr = f"({read(xs[k], at)} if {idx[axis]} == {k} else {expr})"
        return expr

    return expand


def _tile(eqn):
    """Each output index is the operand's at that index modulo the operand's extent."""
    (x,) = eqn.inputs
    shape = x.aval.shape
    if 0 in shape:
        return None
    reps = eqn.params["reps"]
    return lambda read, idx: read(
        x, [e if r == 1 else "0" if n == 1 else f"({e} % {n})" for e, n, r in zip(idx, shape, reps)]
    )


def _dynamic_slice(eqn):
    x, *starts = eqn.inputs
    sizes, shape = eqn.params["slice_sizes"], x.aval.shape
    if 0 in shape:
        return None
    return lambda read, idx: read(
        x, [f"({_clip(read(st_, ()), n - s)} + {e})" for st_, n, s, e in zip(starts, shape, sizes, idx)]
    )


def _dynamic_update_slice(eqn):
    x, upd, *starts = eqn.inputs
    shape, ushape = x.aval.shape, upd.aval.shape

    def expand(read, idx):
        base = read(x, idx)
        if 0 in ushape:
            return base
        at, conds = [], []
        for st_, n, u, e in zip(starts, shape, ushape, idx):
            t = f"({e} - {_clip(read(st_, ()), n - u)})"
            at.append(_clip(t, u - 1))
            conds.append(f"0 <= {t} < {u}")
        return f"({read(upd, at)} if ({' and '.join(conds)}) else {base})"

    return expand


def _gather(eqn):
    from ..lax.slicing import GatherScatterMode

    x, indices = eqn.inputs
    dn, sizes, shape = eqn.params["dimension_numbers"], eqn.params["slice_sizes"], x.aval.shape
    if 0 in shape or x.aval.ndim == 0:
        return None
    fill_mode = eqn.params["mode"] == GatherScatterMode.FILL_OR_DROP
    out_rank = eqn.out_binders[0].aval.ndim
    batch_dims = [d for d in range(out_rank) if d not in dn.offset_dims]
    window = [
        d
        for d in range(x.aval.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]

    def expand(read, idx):
        b = [idx[d] for d in batch_dims]
        w = dict(zip(window, [idx[d] for d in dn.offset_dims]))
        at, conds = [], []
        for d, (n, s) in enumerate(zip(shape, sizes)):
            if d in dn.start_index_map:
                start = read(indices, (*b, str(dn.start_index_map.index(d))))
                if fill_mode:
                    conds.append(f"0 <= {start} <= {n - s}")
                start = _clip(start, n - s)
            elif d in dn.operand_batching_dims:
                start = b[dn.start_indices_batching_dims[dn.operand_batching_dims.index(d)]]
            else:
                start = "0"
            at.append(f"({start} + {w[d]})" if d in w else start)
        v = read(x, at)
        if not conds:
            return v
        fill = eqn.params["fill_value"]
        fill = (
            literal(0 if fill is None else fill, x.aval.dtype)
            if x.aval.dtype != np.bool_
            else literal(bool(fill), np.bool_)
        )
        return f"({v} if ({' and '.join(conds)}) else {fill})"

    return expand


def _clamp(eqn, lo, x, hi):
    if _kind(eqn, 1) == "f":
        return f"rt.fmin(rt.fmax({x}, {lo}), {hi})"
    return f"min(max({x}, {lo}), {hi})"


lowerings[sl.slice_p] = Index(_slice)
lowerings[st.rev_p] = Index(_rev)
lowerings[st.iota_p] = Index(_iota)
lowerings[st.empty2_p] = Index(lambda eqn: lambda read, idx: literal(0, eqn.params["dtype"]))
lowerings[array_creation.empty_p] = Index(
    lambda eqn: lambda read, idx: literal(0, eqn.out_binders[0].aval.dtype)
)
lowerings[st.pad_p] = Index(_pad)
lowerings[st.concatenate_p] = Index(_concatenate)
lowerings[st.stack_p] = Index(_stack)
lowerings[st.tile_p] = Index(_tile)
lowerings[sl.dynamic_slice_p] = Index(_dynamic_slice)
lowerings[sl.dynamic_update_slice_p] = Index(_dynamic_update_slice)
lowerings[sl.gather_p] = Index(_gather)
lowerings[ew.clamp_p] = Scalar(_clamp)
lowerings[ew.copy_p] = _any("{0}")
lowerings[ew.stop_gradient_p] = _any("{0}")

lowerings[st.reduce_sum_p] = Reduce("sum")
lowerings[rd.reduce_prod_p] = Reduce("prod")
lowerings[rd.reduce_and_p] = Reduce("and")
lowerings[rd.reduce_or_p] = Reduce("or")
lowerings[rd.reduce_xor_p] = Reduce("xor")
lowerings[st.reduce_max_p] = Reduce("max")
lowerings[st.reduce_min_p] = Reduce("min")


# --- host ops on numpy arrays -----------------------------------------------------------------


def _reshape(eqn, x):
    if eqn.params.get("dimensions") is not None:
        x = f"np.transpose({x}, {tuple(eqn.params['dimensions'])!r})"
    return f"{x}.reshape({tuple(eqn.params['new_sizes'])!r})"


def _squeeze(eqn, x):
    return f"{x}.reshape({tuple(eqn.out_binders[0].aval.shape)!r})"


def _dot_general(eqn, x, y):
    """Every matmul as eager ``dot_general`` computes it (``numba_runtime._matmul``: float32 in
    XLA's summation order where known, lax/dot_order.py, else numpy's BLAS), on both operands
    transposed to (batch, free, contract)."""
    (xc, yc), (xb, yb) = eqn.params["dimension_numbers"]
    xa, ya = eqn.inputs[0].aval, eqn.inputs[1].aval
    out = eqn.out_binders[0].aval
    complex_to_real = out.dtype.kind != "c" and "c" in xa.dtype.kind + ya.dtype.kind  # (left to numpy)
    if not supported(out.dtype) or complex_to_real or is_algorithm(eqn.params.get("precision")):
        return None
    xf = [i for i in range(xa.ndim) if i not in xc and i not in xb]
    yf = [i for i in range(ya.ndim) if i not in yc and i not in yb]
    nb_ = int(np.prod([xa.shape[i] for i in xb], dtype=np.int64))
    nx = int(np.prod([xa.shape[i] for i in xf], dtype=np.int64))
    ny = int(np.prod([ya.shape[i] for i in yf], dtype=np.int64))
    nc = int(np.prod([xa.shape[i] for i in xc], dtype=np.int64))
    xt = f"np.transpose({x}, {tuple([*xb, *xf, *xc])!r}).reshape({(nb_, nx, nc)!r})"
    yt = f"np.transpose({y}, {tuple([*yb, *yc, *yf])!r}).reshape({(nb_, nc, ny)!r})"
    dt = np.dtype(out.dtype).name
    if xa.dtype != out.dtype or ya.dtype != out.dtype:  # mixed or narrower operands: in the result's dtype
        xt, yt = f"{xt}.astype(np.dtype({dt!r}))", f"{yt}.astype(np.dtype({dt!r}))"
    layout = dot_layout(xa.ndim, ya.ndim, eqn.params["dimension_numbers"])  # (the kernel XLA picks)
    return f"_matmul({xt}, {yt}, np.dtype({dt!r}), {layout!r}).reshape({tuple(out.shape)!r})"


def _arg_reduce(fn):
    def rule(eqn, x):
        rd.refuse_complex(fn, eqn.inputs[0].aval.dtype)  # (as JAX's lowering refuses it)
        dt = np.dtype(eqn.params["index_dtype"]).name
        return f"np.asarray(np.{fn}({x}, axis={eqn.params['axes'][0]})).astype(np.{dt})"

    return Host(rule)


def _cumulative(ufunc):
    def rule(eqn, x):  # numpy's accumulate: the same association order as the interpreter
        a, dt = eqn.params["axis"], eqn.inputs[0].aval.dtype
        if eqn.inputs[0].aval.shape[a] == 0:
            return f"{x}.copy()"
        if ufunc in ("np.add", "np.multiply") and dt == np.float32:  # (XLA's order: reductions.xla_scan)
            return f"_xla_scan({x}, {a}, {eqn.params['reverse']}, {ufunc}, {float(ufunc == 'np.multiply')})"
        if ufunc == "np.logaddexp" and dt == np.float32:
            return f"_xla_scan({x}, {a}, {eqn.params['reverse']}, _xla_logaddexp, float('-inf'))"
        src = f"np.flip({x}, {a})" if eqn.params["reverse"] else x
        acc = f"{ufunc}.accumulate({src}, axis={a}, dtype=np.{dt.name})"
        return f"np.ascontiguousarray(np.flip({acc}, {a}))" if eqn.params["reverse"] else acc

    return Host(rule)


def _split(eqn, x):
    cuts = np.cumsum(eqn.params["sizes"])[:-1].tolist()
    return f"[np.ascontiguousarray(p) for p in np.split({x}, {cuts!r}, axis={eqn.params['axis']})]"


def _unstack(eqn, x):
    """Each slice along ``axis``, copied (as ``_split``: each output a buffer of its own)."""
    a = eqn.params["axis"]
    return f"[np.ascontiguousarray(p) for p in np.moveaxis({x}, {a}, 0)]"


def _unit_reshape_map(eqn):
    """A reshape that only inserts/removes size-1 axes is a re-indexing (so it fuses)."""
    src = eqn.inputs[0].aval.shape
    dst = eqn.out_binders[0].aval.shape
    if eqn.params.get("dimensions") is not None or [n for n in src if n != 1] != [n for n in dst if n != 1]:
        return None
    out_axes = iter([d for d, n in enumerate(dst) if n != 1])
    return [[None if n == 1 else next(out_axes) for n in src]], None


lowerings[st.reshape_p] = Mapped(_unit_reshape_map)
lowerings[st.squeeze_p] = Mapped(_unit_reshape_map)
lowerings[rd.argmax_p] = _arg_reduce("argmax")
lowerings[rd.argmin_p] = _arg_reduce("argmin")
lowerings[rd.cumsum_p] = _cumulative("np.add")
lowerings[rd.cumprod_p] = _cumulative("np.multiply")
lowerings[rd.cummax_p] = _cumulative("np.maximum")
lowerings[rd.cummin_p] = _cumulative("np.minimum")
lowerings[rd.cumlogsumexp_p] = _cumulative("np.logaddexp")
lowerings[st.split_p] = Host(_split)
lowerings[st.unstack_p] = Host(_unstack)
lowerings[st.dot_general_p] = Mapped(_outer_product_map)
host_fallback_of_mapped = {
    st.dot_general_p: Host(_dot_general),
    st.reshape_p: Host(_reshape),
    st.squeeze_p: Host(_squeeze),
}


for _p in (
    sl.scatter_p,
    sl.scatter_add_p,
    sl.scatter_sub_p,
    sl.scatter_mul_p,
    sl.scatter_min_p,
    sl.scatter_max_p,
):
    lowerings[_p] = Special("scatter")
