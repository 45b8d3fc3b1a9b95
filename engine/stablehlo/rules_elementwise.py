"""StableHLO rules for elementwise primitives: one StableHLO or CHLO operation each, as JAX lowers them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..ad import add_jaxvals_p
from ..lax import elementwise as ew
from ..lax import complex_numbers as cn
from ..lax import sorting as so
from ..lax import special
from ..lax.integer_bits import clz_p
from ..narrow_dtypes import kind as dtype_kind
from ..lax import structural as st
from . import literals
from .lowering import RuleContext, register
from .syntax import Printer, Spec, Value, functional_type, same_or_functional


def hlo_op(ctx: RuleContext, name: str, *xs: Value, out_type: str | None = None) -> Value:
    """``stablehlo.<name> %a, %b : type``: an operation printed with one type when all agree."""
    ty = out_type or ctx.out_types[0]
    ins = [x.type for x in xs]
    text_type = same_or_functional(ins, [ty])
    return ctx.emit([ty], lambda p: f"{name} {p.list(xs)} : {text_type}", spec=Spec(name, xs))[0]


def broadcast_operands(ctx: RuleContext, xs: Sequence[Value]) -> list[Value]:
    """JAX's ``multi_broadcast_in_dim``: an operand whose shape is not the output's is broadcast
    to it (trailing dimensions aligned)."""
    shape = ctx.avals_out[0].shape
    out = []
    for x, aval in zip(xs, ctx.avals_in):
        if tuple(aval.shape) != tuple(shape):
            x = broadcast_in_dim(ctx, x, shape, range(len(shape) - len(aval.shape), len(shape)))
        out.append(x)
    return out


def _simple(prim: Any, name: str) -> None:
    register(prim)(lambda ctx, *xs, **_: [hlo_op(ctx, name, *broadcast_operands(ctx, xs))])


def _chlo(prim: Any, name: str) -> None:
    def rule(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
        ty = ctx.out_types[0]
        return ctx.emit([ty], lambda p: f"{name} {p(x)} : {x.type} -> {ty}", spec=Spec(name, [x]))

    register(prim)(rule)


for _prim, _name in [
    (ew.neg_p, "negate"), (ew.sign_p, "sign"), (ew.floor_p, "floor"), (ew.ceil_p, "ceil"),
    (ew.is_finite_p, "is_finite"), (ew.exp_p, "exponential"), (ew.log_p, "log"),
    (ew.log1p_p, "log_plus_one"), (ew.expm1_p, "exponential_minus_one"), (ew.tanh_p, "tanh"),
    (ew.sin_p, "sine"), (ew.cos_p, "cosine"), (ew.tan_p, "tan"),
    (ew.sqrt_p, "sqrt"), (ew.rsqrt_p, "rsqrt"), (ew.cbrt_p, "cbrt"), (ew.abs_p, "abs"),
    (ew.not_p, "not"), (ew.population_count_p, "popcnt"), (clz_p, "count_leading_zeros"),
    (ew.add_p, "add"), (add_jaxvals_p, "add"), (ew.sub_p, "subtract"), (ew.mul_p, "multiply"),
    (ew.div_p, "divide"), (ew.rem_p, "remainder"), (ew.max_p, "maximum"),
    (ew.min_p, "minimum"), (ew.atan2_p, "atan2"), (ew.and_p, "and"), (ew.or_p, "or"),
    (ew.xor_p, "xor"), (ew.shift_left_p, "shift_left"),
    (ew.shift_right_logical_p, "shift_right_logical"),
    (ew.shift_right_arithmetic_p, "shift_right_arithmetic"),
]:  # fmt: skip
    _simple(_prim, "stablehlo." + _name)

for _prim, _name in [
    (ew.asin_p, "asin"), (ew.acos_p, "acos"), (ew.atan_p, "atan"), (ew.sinh_p, "sinh"),
    (ew.cosh_p, "cosh"), (ew.asinh_p, "asinh"), (ew.acosh_p, "acosh"), (ew.atanh_p, "atanh"),
    (ew.erf_p, "erf"), (special.erfc_p, "erfc"), (ew.erf_inv_p, "erf_inv"),
    (special.lgamma_p, "lgamma"), (special.digamma_p, "digamma"),
]:  # fmt: skip
    _chlo(_prim, "chlo." + _name)


@register(ew.square_p)
def _square(ctx: RuleContext, x: Value) -> list[Value]:
    # JAX multiplies integers by themselves; chlo.square is for floats and complex numbers
    if dtype_kind(ctx.avals_in[0].dtype) in "iu":
        return [hlo_op(ctx, "stablehlo.multiply", x, x)]
    ty = ctx.out_types[0]
    return ctx.emit([ty], lambda p: f"chlo.square {p(x)} : {x.type} -> {ty}", spec=Spec("chlo.square", [x]))


@register(ew.nextafter_p)
def _nextafter(ctx: RuleContext, x: Value, y: Value) -> list[Value]:
    ty = ctx.out_types[0]
    return ctx.emit([ty], lambda p: f"chlo.next_after {p(x)}, {p(y)} : {x.type}, {y.type} -> {ty}")


@register(ew.round_p)
def _round(ctx: RuleContext, x: Value, rounding_method: Any = 0) -> list[Value]:
    even = "EVEN" in str(rounding_method).upper() or rounding_method == 1
    return [hlo_op(ctx, "stablehlo.round_nearest_even" if even else "stablehlo.round_nearest_afz", x)]


@register(ew.logistic_p)
def _logistic(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    # JAX's logistic_impl, traced and inlined: 1 / (1 + exp(-x)), each 1 a literal of its own
    aval = ctx.avals_in[0]
    e = named(hlo_op(ctx, "stablehlo.exponential", named(hlo_op(ctx, "stablehlo.negate", x), "neg")), "exp")
    one = named(_literal_operand(ctx, 1, aval), "add")  # (broadcast by the add equation's lowering)
    denominator = named(hlo_op(ctx, "stablehlo.add", one, e), "add")
    one = named(_literal_operand(ctx, 1, aval), "div")
    return [named(hlo_op(ctx, "stablehlo.divide", one, denominator), "div")]


def named(v: Value, primitive: str) -> Value:
    """``v``'s operation as made by an equation of ``primitive`` (JAX's location, which names it in
    HLO): a rule JAX lowers by tracing a function names its operations after that function's."""
    assert v.op is not None
    v.op.source = primitive
    return v


def _literal_operand(ctx: RuleContext, value: Any, aval: Any, user: str | None = None) -> Value:
    """A scalar literal used by an elementwise operation of ``aval``'s shape (broadcast if needed,
    by the operation ``user``, which locates the broadcast)."""
    c = ctx.constant(np.array(value, aval.dtype), aval.dtype)
    return c if aval.shape == () else named(broadcast_in_dim(ctx, c, aval.shape, ()), "broadcast_in_dim")


@register(ew.exp2_p)
def _exp2(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    aval = ctx.avals_in[0]
    log2 = ctx.constant(np.log(2), aval.dtype)
    log2 = broadcast_in_dim(ctx, log2, aval.shape, ())
    return [hlo_op(ctx, "stablehlo.exponential", hlo_op(ctx, "stablehlo.multiply", log2, x))]


def compare_type(dtype: Any, total_order: bool = False) -> str:
    kind = np.dtype(dtype).kind
    if kind in "fc":
        return "TOTALORDER" if total_order else "FLOAT"
    return "SIGNED" if kind == "i" else "UNSIGNED"


def compare(
    ctx: RuleContext, direction: str, x: Value, y: Value, dtype: Any, out_type: str, total_order: bool = False
) -> Value:
    ctype = compare_type(dtype, total_order)
    return ctx.emit(
        [out_type],
        lambda p: (
            f"stablehlo.compare {direction}, {p(x)}, {p(y)}, {ctype} : "
            f"{functional_type([x.type, y.type], [out_type])}"
        ),
        spec=Spec("stablehlo.compare", [x, y], {"direction": direction, "type": ctype}),
    )[0]


def _compare(prim: Any, direction: str, total_order: bool = False) -> None:
    def rule(ctx: RuleContext, x: Value, y: Value) -> list[Value]:
        x, y = broadcast_operands(ctx, [x, y])
        return [compare(ctx, direction, x, y, ctx.avals_in[0].dtype, ctx.out_types[0], total_order)]

    register(prim)(rule)


for _prim, _dir in [
    (ew.eq_p, "EQ"), (ew.ne_p, "NE"), (ew.lt_p, "LT"), (ew.le_p, "LE"), (ew.gt_p, "GT"), (ew.ge_p, "GE"),
]:  # fmt: skip
    _compare(_prim, _dir)
for _prim, _dir in [(so.eq_to_p, "EQ"), (so.le_to_p, "LE"), (so.lt_to_p, "LT")]:
    _compare(_prim, _dir, total_order=True)


def broadcast_in_dim(ctx: RuleContext, x: Value, shape: Any, dims: Any) -> Value:
    """``stablehlo.broadcast_in_dim %x, dims = [...]`` to ``shape`` (x's element type)."""
    ty = "tensor<" + "".join(f"{d}x" for d in shape) + _element_of(x.type) + ">"
    dims_text = ", ".join(str(d) for d in dims)
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.broadcast_in_dim {p(x)}, dims = [{dims_text}] : ({x.type}) -> {ty}",
        spec=Spec("stablehlo.broadcast_in_dim", [x], {"dims": tuple(dims)}),
    )[0]


def _element_of(tensor_type: str) -> str:
    inner = tensor_type[len("tensor<") : -1]
    parts = inner.split("x")
    # the element type may contain an 'x' only inside complex<...>
    if inner.startswith("complex") or "complex" in inner:
        return inner[inner.index("complex") :]
    return parts[-1]


def full_like(ctx: RuleContext, value: Any, aval: Any) -> Value:
    """JAX's ``full_like_aval``: a scalar constant, then ``broadcast_in_dim`` (even to a scalar)."""
    c = ctx.constant(np.array(value, aval.dtype), aval.dtype)
    return broadcast_in_dim(ctx, c, aval.shape, ())


def convert(ctx: RuleContext, x: Value, aval_in: Any, aval_out: Any) -> Value:
    """JAX's ``convert_hlo``: a cast to bool is ``x != 0`` (then converted, as JAX does), a bool's
    too (a ``convert_element_type`` that only drops weak typing)."""
    if np.dtype(aval_out.dtype) == np.bool_:
        zero = full_like(ctx, 0, aval_in)
        x = compare(ctx, "NE", x, zero, aval_in.dtype, literals.tensor_type(aval_in.shape, np.bool_))
    return hlo_op(ctx, "stablehlo.convert", x, out_type=literals.aval_type(aval_out))


@register(st.convert_element_type_p)
def _convert_element_type(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    aval_in = ctx.avals_in[0]
    if np.dtype(aval_in.dtype).kind == "c" and np.dtype(ctx.avals_out[0].dtype).kind != "c":
        real = np.dtype(aval_in.dtype).type(0).real.dtype
        x = hlo_op(ctx, "stablehlo.real", x, out_type=literals.tensor_type(aval_in.shape, real))
        aval_in = aval_in.update(dtype=real)
    return [convert(ctx, x, aval_in, ctx.avals_out[0])]


@register(ew.pow_p)
def _pow(ctx: RuleContext, x: Value, y: Value, **_: Any) -> list[Value]:
    x_aval, y_aval = ctx.avals_in
    if x_aval.dtype != y_aval.dtype:  # (an integer exponent, converted to the base's dtype as JAX does)
        y = convert(ctx, y, y_aval, y_aval.update(dtype=x_aval.dtype))
    return [hlo_op(ctx, "stablehlo.power", *broadcast_operands(ctx, [x, y]))]


@register(ew.integer_pow_p)
def _integer_pow(ctx: RuleContext, x: Value, y: int) -> list[Value]:
    def mul(a: Value, b: Value) -> Value:
        return hlo_op(ctx, "stablehlo.multiply", a, b)

    if y == 1:
        return [x]
    if y == 2:
        return [mul(x, x)]
    if y == 3:
        return [mul(mul(x, x), x)]
    if y == -1:
        return [hlo_op(ctx, "stablehlo.divide", full_like(ctx, 1, ctx.avals_in[0]), x)]
    if y == 0:  # (JAX's lower_fun of lax.full_like: a constant, broadcast when shaped)
        return [_lax_full(ctx, 1, ctx.avals_out[0])]
    # JAX's _integer_pow, traced and inlined: square-and-multiply
    n, acc = abs(y), None
    while n > 0:
        if n & 1:
            acc = x if acc is None else named(mul(acc, x), "mul")
        n >>= 1
        if n > 0:
            x = named(mul(x, x), "mul")
    assert acc is not None
    if y < 0:
        return [named(hlo_op(ctx, "stablehlo.divide", _lax_full(ctx, 1, ctx.avals_out[0]), acc), "div")]
    return [acc]


def _lax_full(ctx: RuleContext, value: Any, aval: Any) -> Value:
    """What ``lax.full`` traces to: a literal, broadcast by an equation when the shape is not ()."""
    c = ctx.constant(np.array(value, aval.dtype), aval.dtype)
    return c if aval.shape == () else named(broadcast_in_dim(ctx, c, aval.shape, ()), "broadcast_in_dim")


def select(ctx: RuleContext, pred: Value, on_true: Value, on_false: Value) -> Value:
    ty = on_true.type

    def render(p: Printer) -> str:
        t = (
            f"{pred.type}, {ty}"
            if on_false.type == ty
            else functional_type([pred.type, ty, on_false.type], [ty])
        )
        return f"stablehlo.select {p(pred)}, {p(on_true)}, {p(on_false)} : {t}"

    return ctx.emit([ty], render, spec=Spec("stablehlo.select", [pred, on_true, on_false]))[0]


@register(st.select_n_p)
def _select_n(ctx: RuleContext, which: Value, *cases: Value) -> list[Value]:
    which_aval = ctx.avals_in[0]
    if np.dtype(which_aval.dtype) == np.bool_:
        return [cases[0] if len(cases) == 1 else select(ctx, which, cases[1], cases[0])]

    def tree(offset: int, cs: Sequence[Value]) -> Value:  # JAX's binary tree of LT comparisons
        if len(cs) == 1:
            return cs[0]
        mid = len(cs) // 2
        bound = full_like(ctx, offset + mid, which_aval)
        pred = compare(
            ctx, "LT", which, bound, which_aval.dtype, literals.tensor_type(which_aval.shape, np.bool_)
        )
        return select(ctx, pred, tree(offset, cs[:mid]), tree(offset + mid, cs[mid:]))

    return [tree(0, cases)]


@register(ew.clamp_p)
def _clamp(ctx: RuleContext, lo: Value, x: Value, hi: Value) -> list[Value]:
    return [hlo_op(ctx, "stablehlo.clamp", *broadcast_operands(ctx, [lo, x, hi]))]


@register(ew.stop_gradient_p)
def _identity(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


# --- complex numbers ----------------------------------------------------------------------------


@register(cn.real_p)
def _real(ctx: RuleContext, x: Value) -> list[Value]:
    return [hlo_op(ctx, "stablehlo.real", x)]


@register(cn.imag_p)
def _imag(ctx: RuleContext, x: Value) -> list[Value]:
    return [hlo_op(ctx, "stablehlo.imag", x)]


def make_complex(ctx: RuleContext, re: Value, im: Value, out_type: str) -> Value:
    # (StableHLO prints only the complex result type when the parts are its element types)
    return ctx.emit([out_type], lambda p: f"stablehlo.complex {p(re)}, {p(im)} : {out_type}")[0]


@register(cn.complex_p)
def _complex(ctx: RuleContext, re: Value, im: Value) -> list[Value]:
    re, im = broadcast_operands(ctx, [re, im])
    return [make_complex(ctx, re, im, ctx.out_types[0])]


@register(cn.conj_p)
def _conj(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    # JAX's _conj_impl, traced and inlined: complex(real(x), -imag(x)), or complex(x, 0) for reals
    aval = ctx.avals_in[0]
    if np.dtype(aval.dtype).kind == "c":
        part = literals.tensor_type(aval.shape, np.dtype(aval.dtype).type(0).real.dtype)
        re = named(hlo_op(ctx, "stablehlo.real", x, out_type=part), "real")
        im = named(
            hlo_op(
                ctx,
                "stablehlo.negate",
                named(hlo_op(ctx, "stablehlo.imag", x, out_type=part), "imag"),
                out_type=part,
            ),
            "neg",
        )
        return [named(make_complex(ctx, re, im, ctx.out_types[0]), "complex")]
    return [named(make_complex(ctx, x, _lax_full(ctx, 0, aval), ctx.out_types[0]), "complex")]
