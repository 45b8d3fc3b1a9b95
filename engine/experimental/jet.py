"""``jax.experimental.jet``: Taylor-mode higher-order differentiation. A truncated Taylor
polynomial of each input is pushed through the function at once, one rule per primitive
(``jet_rules``, as the engine's other transformations keep theirs), instead of nesting first-order
JVPs.

Inside, a value is its primal and its Taylor coefficients ``x_1 .. x_K`` (``x(t) = x_0 + x_1 t +
... + x_K t^K``); ``jet`` scales the series given and returned by factorials (derivatives in, and
out) unless ``factorial_scaled=False``. The rules are the classic recurrences (Griewank & Walther,
*Evaluating Derivatives*, ch. 13): a product is a Cauchy product, ``exp``/``log``/``sin``... follow
from their ODEs, and what is neither composes (``sqrt`` as ``x ** 0.5``). A call (``jit``, a custom
JVP/VJP function) runs its body on the series, its own derivative rules ignored, as JAX's does.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import core, fused_rules, lax
from ..ad import PrimalTracer
from ..core import Trace
from ..ir import eval_jaxpr
from ..tree_util import tree_flatten, tree_structure, tree_unflatten, treedef_is_leaf

__all__ = ["jet", "jet_rules"]

# primitive -> rule(primals, series, **params) -> (primal out, series out: K terms, or None for
# zeros); multiple-results primitives return lists of both
jet_rules: dict[core.Primitive, Callable[..., Any]] = {}


def jet(fun: Callable, primals: Sequence, series: Sequence, factorial_scaled: bool = True, **_):
    r"""Taylor-mode higher-order automatic differentiation: ``fun``'s truncated Taylor polynomial
    at ``primals`` along ``series`` (for each argument, its derivatives of order 1..K along a
    direction, or its Taylor coefficients when ``factorial_scaled=False``).

    >>> import engine as jax, engine.numpy as jnp
    >>> f0, (f1, f2) = jax.experimental.jet.jet(jnp.sin, (0.5,), ((1.0, 0.0),))
    >>> print(f0, f1, f2)
    0.47942555 0.87758255 -0.47942567
    """
    try:
        (order,) = set(map(len, series))
    except ValueError:
        raise ValueError("jet terms have inconsistent lengths for different arguments") from None
    for i, (x, terms) in enumerate(zip(primals, series)):
        if not treedef_is_leaf(tree_structure(x)):
            raise ValueError(f"primal value at position {i} is not an array")
        for j, t in enumerate(terms):
            if not treedef_is_leaf(tree_structure(t)):
                raise ValueError(f"term {j} for argument {i} is not an array")
    if factorial_scaled:
        series = [[t / _fact(k + 1) for k, t in enumerate(terms)] for terms in series]
    outs, tree, out_terms = _jet_flat(fun, list(primals), [list(s) for s in series], order)
    if factorial_scaled:
        out_terms = [[t * _fact(k + 1) for k, t in enumerate(terms)] for terms in out_terms]
    return tree_unflatten(tree, outs), tree_unflatten(tree, out_terms)


def jet2(fun: Callable, primals: Sequence, series: Sequence):
    """``jet`` of Taylor coefficients (no factorials), for rules written as compositions."""
    return jet(fun, primals, series, factorial_scaled=False)


def _fact(n: int):
    # (JAX's factorials: exp(lgamma(n + 1)) in float32, so its series round alike)
    return lax.exp(lax.lgamma(n + 1.0))


def _jet_flat(fun, primals, series, order):
    fused_rules.jet_active[0] += 1
    try:
        return _jet_traced(fun, primals, series, order)
    finally:
        fused_rules.jet_active[0] -= 1


def _jet_traced(fun, primals, series, order):
    with core.new_main(JetTrace, global_data=order) as main:
        trace = JetTrace(main)
        outs = fun(*[JetTracer(trace, p, s) for p, s in zip(primals, series)])
        leaves, tree = tree_flatten(outs)
        raised = [trace.full_raise(o) for o in leaves]
        primals_out = [t.primal for t in raised]
        terms_out = [_instantiated(t.primal, t.terms, order) for t in raised]
    return primals_out, tree, terms_out


def _instantiated(primal, terms, order):
    if terms is not None:
        return list(terms)
    zero = lax.full_like(primal, 0) if isinstance(primal, (core.Array, core.Tracer)) else _zeros(primal)
    return [zero] * order


def _zeros(x):
    from .. import numpy as jnp

    return jnp.zeros(np.shape(x), dtype=jnp.result_type(x))


def jitted_body_call(fn: Callable, args: Sequence):
    """``fn(*args)``, the body of a function JAX jits (a jnp function), on the Taylor series of a
    ``jet`` trace: its series computed by one program, compiled as XLA compiles it (its
    multiply-adds fused), as JAX's jet of a jit is. None when no argument is a jet value."""
    from ..fused_rules import compiled
    from ..staging import trace_to_jaxpr

    tracers = [a for a in args if isinstance(a, JetTracer)]
    if not tracers or any(isinstance(a, core.Tracer) and not isinstance(a, JetTracer) for a in args):
        return None
    trace = max((t._trace for t in tracers), key=lambda tr: tr.main.level)
    if core.find_top_trace(args).main is not trace.main:
        return None
    order = trace.main.global_data
    primals = [a.primal if isinstance(a, JetTracer) else a for a in args]
    series = [a.terms if isinstance(a, JetTracer) and a.terms is not None else None for a in args]
    if any(
        not isinstance(p, (core.Array, np.ndarray, np.generic, float, int, bool, complex)) for p in primals
    ):
        return None  # (a primal traced by an outer transformation: op by op)
    series = [[_zeros(p)] * order if s is None else s for p, s in zip(primals, series)]
    flat = [*primals, *[t for s in series for t in s]]
    n = len(primals)
    tree: list = []

    def program(*xs):
        ss = [list(xs[n + i * order : n + (i + 1) * order]) for i in range(n)]
        outs, out_tree, terms = _jet_traced(fn, list(xs[:n]), ss, order)
        tree.append(out_tree)
        return [*outs, *[t for ts in terms for t in ts]]

    closed = compiled(trace_to_jaxpr(program, [core.get_aval(x) for x in flat]))
    values = eval_jaxpr(closed.jaxpr, flat, closed.consts)
    k = tree[0].num_leaves
    outs, rest = values[:k], values[k:]
    jets = [JetTracer(trace, o, list(rest[i * order : (i + 1) * order])) for i, o in enumerate(outs)]
    return tree_unflatten(tree[0], jets)


@core.jax_class_path("jax.experimental.jet.JetTracer")
class JetTracer(PrimalTracer):
    """A value with its Taylor coefficients (``terms``; None: all zero)."""

    __slots__ = ("terms",)

    def __init__(self, trace: JetTrace, primal: Any, terms: list | None):
        self._trace, self.primal, self.terms, self._aval = trace, primal, terms, None

    def full_lower(self):
        return core.full_lower(self.primal) if self.terms is None else self


class JetTrace(Trace):
    def pure(self, val):
        return JetTracer(self, val, None)

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        primals = [t.primal for t in tracers]
        series = [t.terms for t in tracers]
        if all(s is None for s in series):
            out = primitive.bind(*primals, **params)
            if primitive.multiple_results:
                return [JetTracer(self, o, None) for o in out]
            return JetTracer(self, out, None)
        order = self.main.global_data
        rule = jet_rules.get(primitive) or _call_rule(primitive, params)
        if rule is None:
            raise NotImplementedError(
                f"Taylor-mode rule (jax.experimental.jet) for '{primitive}' not implemented"
            )
        series = [[_zeros(p)] * order if s is None else s for p, s in zip(primals, series)]
        out, terms = rule(primals, series, **params)
        if primitive.multiple_results:
            return [JetTracer(self, o, t) for o, t in zip(out, terms)]
        return JetTracer(self, out, terms)


def _call_rule(primitive, params):
    """A call's rule: its body (``jaxpr``/``call_jaxpr``) run on the series, consts first."""
    body = params.get("call_jaxpr", params.get("jaxpr"))
    if body is None or not hasattr(body, "jaxpr") or primitive.name not in _CALLS:
        return None

    def run(primals, series):
        order = len(series[0]) if series else 0
        outs, _, terms = _jet_flat(
            lambda *xs: eval_jaxpr(body.jaxpr, list(xs), body.consts), primals, series, order
        )
        return outs, terms

    if primitive.name not in ("jit", "pjit"):
        return lambda primals, series, **_: run(primals, series)

    def compiled(primals, series, **_):
        # (a jit's body: its series computed by one compiled program too, as JAX's jet of a jit
        # is; XLA's fused arithmetic rounds otherwise than one operation at a time)
        from ..jit import jit

        return jit(run, inline=bool(params.get("inline", False)))(list(primals), [list(s) for s in series])

    return compiled


_CALLS = frozenset({"jit", "pjit", "closed_call", "core_call", "custom_jvp_call", "custom_vjp_call", "remat"})


# --- rules ------------------------------------------------------------------------------------


def _zero(prim):
    def rule(primals, series, **params):
        return prim.bind(*primals, **params), None

    jet_rules[prim] = rule


def _linear(prim):
    def rule(primals, series, **params):
        out = prim.bind(*primals, **params)
        terms = [prim.bind(*ts, **params) for ts in zip(*series)]
        if prim.multiple_results:  # (per output, its terms)
            return out, [list(t) for t in zip(*terms)] if terms else [[] for _ in out]
        return out, terms

    jet_rules[prim] = rule


def _of_operand(prim, n_operands: int = 1):
    """A primitive linear in its first ``n_operands`` operands, the rest (indices) fixed."""

    def rule(primals, series, **params):
        fixed = primals[n_operands:]
        terms = [prim.bind(*ts[:n_operands], *fixed, **params) for ts in zip(*series)]
        return prim.bind(*primals, **params), terms

    jet_rules[prim] = rule


def _bilinear(prim):
    def rule(primals, series, **params):
        (x, y), (xs, ys) = primals, series
        u, w = [x, *xs], [y, *ys]
        v = [_sum(prim.bind(u[j], w[k - j], **params) for j in range(k + 1)) for k in range(len(u))]
        return v[0], v[1:]

    jet_rules[prim] = rule


def _sum(terms):
    out = None
    for t in terms:
        out = t if out is None else out + t
    return out


def _from_derivative_of_log(primal_out, u, c):
    """``v`` with ``v' = v * g'`` where ``g`` has coefficients ``u`` (``exp``, ``pow``):
    ``k v_k = sum_j j u_j v_(k-j)``."""
    v = [primal_out] + [None] * (len(u) - 1)
    for k in range(1, len(v)):
        v[k] = _sum(j * v[k - j] * u[j] for j in range(1, k + 1)) / k
    return v


def _exp(primals, series, **_):
    (x,), (xs,) = primals, series
    v = _from_derivative_of_log(lax.exp(x), [x, *xs], None)
    return v[0], v[1:]


def _log(primals, series, **_):
    (x,), (xs,) = primals, series
    u = [x, *xs]
    v = [lax.log(x)] + [None] * len(xs)
    for k in range(1, len(v)):  # (x v' = x': k x_0 v_k = k x_k - sum_(j<k) j v_j x_(k-j))
        conv = _sum(j * v[j] * u[k - j] for j in range(1, k))
        v[k] = (u[k] - (0 if conv is None else conv / k)) / u[0]
    return v[0], v[1:]


def _div(primals, series, **_):
    (x, y), (xs, ys) = primals, series
    u, w = [x, *xs], [y, *ys]
    v: list = [None] * len(u)
    for k in range(len(v)):  # (v w = u: v_k = (u_k - sum_(j<k) v_j w_(k-j)) / w_0)
        conv = _sum(v[j] * w[k - j] for j in range(k))
        v[k] = (u[k] if conv is None else u[k] - conv) / w[0]
    return v[0], v[1:]


def _sinusoid(sign: int, pair, which: int):
    """sin/cos (``sign`` -1) or sinh/cosh (+1): ``s' = c x'``, ``c' = sign * s x'``."""

    def rule(primals, series, **_):
        (x,), (xs,) = primals, series
        u = [x, *xs]
        s = [pair[0](x)] + [None] * len(xs)
        c = [pair[1](x)] + [None] * len(xs)
        for k in range(1, len(s)):
            s[k] = _sum(j * u[j] * c[k - j] for j in range(1, k + 1)) / k
            c[k] = _sum(j * u[j] * s[k - j] for j in range(1, k + 1)) / k * sign
        out = (s, c)[which]
        return out[0], out[1:]

    return rule


def _logistic(primals, series, **_):
    (x,), (xs,) = primals, series
    u = [x, *xs]
    v = [lax.logistic(x)] + [None] * len(xs)
    e = [v[0] * (1 - v[0])] + [None] * len(xs)  # (the coefficients of v' / x' = v (1 - v))
    for k in range(1, len(v)):
        v[k] = _sum(j * e[k - j] * u[j] for j in range(1, k + 1)) / k
        e[k] = (1 - v[0]) * v[k] - _sum(v[j] * v[k - j] for j in range(1, k + 1))
    return v[0], v[1:]


def _tanh(primals, series, **_):
    # tanh(x) = 2 logistic(2x) - 1
    (x,), (xs,) = primals, series
    out, terms = _logistic([2 * x], [[2 * t for t in xs]])
    return 2 * out - 1, [2 * t for t in terms]


def _power_by_squaring(x, n: int):
    if n < 0:
        return _power_by_squaring(1 / x, -n)
    if n == 0:
        return 1
    if n % 2 == 0:
        return _power_by_squaring(x * x, n // 2)
    return x * _power_by_squaring(x * x, (n - 1) // 2)


def _integer_pow(primals, series, *, y):
    from .. import numpy as jnp

    f = jnp.ones_like if y == 0 else (lambda x: _power_by_squaring(x, y))
    return jet2(f, primals, series)


def _pow(primals, series, **_):
    base, exponent = primals
    g, gs = jet2(lambda x, y: lax.mul(y, lax.log(x)), primals, series)  # (v = exp(y log x))
    v = _from_derivative_of_log(base**exponent, [g, *gs], None)
    return v[0], v[1:]


def _from_derivative(prim, derivative):
    """A unary primitive by its derivative's series ``c``: ``k v_k = sum_j j c_(k-j) x_j``."""

    def rule(primals, series, **params):
        (x,), (xs,) = primals, series
        c0, cs = jet2(derivative, primals, series)
        c, u = [c0, *cs], [x, *xs]
        v = [prim.bind(x, **params)] + [None] * len(xs)
        for k in range(1, len(v)):
            v[k] = _sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k
        return v[0], v[1:]

    jet_rules[prim] = rule


def _atan2(primals, series, **_):
    # atan2(x, y) = atan(x / y): the quotient's series q, and d atan(q) = dq / (1 + q^2)
    q, qs = jet2(lax.div, primals, series)
    c0, cs = jet2(lambda q: lax.div(np.float32(1), 1 + lax.square(q)), (q,), (qs,))
    c, u = [c0, *cs], [q, *qs]
    v = [lax.atan2(*primals)] + [None] * len(qs)
    for k in range(1, len(v)):
        v[k] = _sum(j * c[k - j] * u[j] for j in range(1, k + 1)) / k
    return v[0], v[1:]


def _composed(prim, composition):
    jet_rules[prim] = lambda primals, series, **params: jet2(composition, primals, series)


def _abs(primals, series, **params):
    (x,) = primals
    signs = lax.select(lax.lt(x, lax.full_like(x, 0, shape=())), lax.full_like(x, -1), lax.full_like(x, 1.0))
    return lax.abs_p.bind(x, **params), [signs * t for (t,) in zip(*series)]


def _select_n(primals, series, **_):
    which, *cases = primals
    return lax.select_n(which, *cases), [lax.select_n(which, *ts) for _, *ts in zip(*series)]


def _extremum(pick):
    """max/min: the picked operand's terms, their mean where the operands tie."""

    def rule(primals, series, **_):
        from .. import numpy as jnp

        x, y = jnp.broadcast_arrays(*primals)
        picked, tie = pick(x, y), x == y
        out = []
        for xt, yt in zip(*series):
            xt, yt = jnp.broadcast_arrays(xt, yt)
            out.append(lax.select(tie, (xt + yt) / 2, lax.select(picked, xt, yt)))
        return lax.select(picked, x, y), out

    return rule


def _reduce_chooser(reduce):
    """reduce_max/min: each term averaged over the positions that attain the extreme."""

    def rule(primals, series, *, axes, **params):
        (x,), (xs,) = primals, series
        out = reduce(x, axes=axes, **params)
        kept = [1 if i in axes else d for i, d in enumerate(np.shape(x))]
        at = lax.convert_element_type(lax.eq(x, lax.reshape(out, kept)), xs[0].dtype)
        counts = lax.reduce_sum(at, axes)
        return out, [lax.div(lax.reduce_sum(lax.mul(t, at), axes), counts) for t in xs]

    return rule


def _install() -> None:
    from ..ad import add_jaxvals_p
    from ..lax import complex_numbers as cx, joining, slicing, special
    from ..lax.clamp import clamp_p
    from ..lax.dot_general import dot_general_p
    from ..lax.dynamic_slicing import dynamic_slice_p, dynamic_update_slice_p
    from ..lax.fft import fft_p
    from ..lax.gather_scatter import gather_p
    from ..lax import elementwise as ew, reductions as red, structural as st

    for name in ("le", "lt", "gt", "ge", "eq", "ne", "not", "and", "or", "xor", "floor", "ceil", "round",
                 "sign", "is_finite", "shift_left", "shift_right_arithmetic", "shift_right_logical"):  # fmt: skip
        _zero(getattr(ew, f"{name}_p"))
    _zero(ew.stop_gradient_p)
    _zero(st.bitcast_convert_type_p)
    for p in (ew.neg_p, cx.real_p, cx.imag_p, cx.conj_p, cx.complex_p, ew.add_p, add_jaxvals_p, ew.sub_p,
              st.convert_element_type_p, st.broadcast_in_dim_p, st.concatenate_p, joining.split_p,
              joining.stack_p, joining.unstack_p, st.reshape_p, st.squeeze_p, st.rev_p, st.transpose_p,
              slicing.slice_p, red.reduce_sum_p, fft_p, ew.copy_p, red.cumsum_p):  # fmt: skip
        _linear(p)
    _linear(st.pad_p)  # (its padding value's terms are zeros)
    _of_operand(dynamic_slice_p)
    _of_operand(dynamic_update_slice_p, 2)
    _of_operand(gather_p)
    for p in (ew.mul_p, dot_general_p):
        _bilinear(p)
    jet_rules[ew.exp_p] = _exp
    jet_rules[ew.log_p] = _log
    jet_rules[ew.div_p] = _div
    jet_rules[ew.sin_p] = _sinusoid(-1, (lax.sin, lax.cos), 0)
    jet_rules[ew.cos_p] = _sinusoid(-1, (lax.sin, lax.cos), 1)
    jet_rules[ew.sinh_p] = _sinusoid(1, (lax.sinh, lax.cosh), 0)
    jet_rules[ew.cosh_p] = _sinusoid(1, (lax.sinh, lax.cosh), 1)
    jet_rules[ew.logistic_p] = _logistic
    jet_rules[ew.tanh_p] = _tanh
    jet_rules[ew.integer_pow_p] = _integer_pow
    jet_rules[ew.pow_p] = _pow
    jet_rules[ew.abs_p] = _abs
    jet_rules[ew.atan2_p] = _atan2
    jet_rules[st.select_n_p] = _select_n
    jet_rules[ew.max_p] = _extremum(lax.gt)
    jet_rules[ew.min_p] = _extremum(lax.lt)
    jet_rules[red.reduce_max_p] = _reduce_chooser(red.reduce_max_p.bind)
    jet_rules[red.reduce_min_p] = _reduce_chooser(red.reduce_min_p.bind)
    _from_derivative(
        ew.erf_p, lambda x: lax.mul(np.float32(2 / np.sqrt(np.pi)), lax.exp(lax.neg(lax.square(x))))
    )
    _composed(ew.expm1_p, lambda x: lax.exp(x) - 1)
    _composed(ew.log1p_p, lambda x: lax.log(1 + x))
    _composed(ew.sqrt_p, lambda x: x**0.5)
    _composed(ew.square_p, lambda x: x * x)
    _composed(ew.rsqrt_p, lambda x: x**-0.5)
    _composed(ew.asinh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) + 1)))
    _composed(ew.acosh_p, lambda x: lax.log(x + lax.sqrt(lax.square(x) - 1)))
    _composed(ew.atanh_p, lambda x: 0.5 * lax.log(lax.div(1 + x, 1 - x)))
    _composed(special.erfc_p, lambda x: 1 - lax.erf(x))
    _composed(ew.rem_p, lambda x, y: x - y * lax.floor(x / y))
    _composed(clamp_p, lambda a, x, b: lax.min(lax.max(a, x), b))


_install()
