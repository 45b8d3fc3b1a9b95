"""``custom_jvp`` and ``custom_vjp``: user-defined derivative rules, as call primitives.

The primal function is staged to a jaxpr (so jit, vmap and the debugger see it); the rule is kept
as a Python callable in the equation's params and used when a JVP trace reaches the equation.
"""

from __future__ import annotations

import functools
import inspect as _pyinspect

import numpy as np

from . import ad, batching, core, ir, tape
from .backends.rows import Special, lowerings
from .ir import ClosedJaxpr, Jaxpr, eval_jaxpr
from .staging import trace_to_jaxpr
from .state.checks import arg_names
from .custom_jvp_checks import check_jvp_rule_outputs, rule_pair
from .sharded_types import tangents_typed_as
from .tree_util import tree_flatten, tree_map, tree_unflatten
from . import symbolic_zeros as sz
from .custom_rule_closures import captured_tracers, cells_holding

custom_jvp_call_p = core.Primitive("custom_jvp_call", multiple_results=True)
custom_vjp_call_p = core.Primitive("custom_vjp_call", multiple_results=True)


# The params are JAX's. Where JAX keeps traced-jaxpr thunks the engine keeps its flat Python rules:
# ``jvp_jaxpr_fun`` is ``(primals, tangents, consts=None) -> (outs, tangents_out)`` and
# ``fwd_jaxpr_thunk`` is ``(*primals, perturbed=, consts=, consts_perturbed=) -> (outs, residuals)``
# (``bwd`` is ``(residuals, cotangents) -> input cotangents``), each named as the user's rule and
# carrying the custom function's name as ``fun_name`` (JAX's printer reads both from debug info);
# ``out_trees`` is a thunk of the output and residual trees (the latter known once fwd has run).


def _named(rule, like, default: str, fun_name: str):
    rule.__name__ = getattr(like, "__name__", default)  # printed as jvp=/fwd=/bwd=<the rule's name>
    rule.fun_name = fun_name  # printed as name=<the custom function's name>
    return rule


def _custom_jvp_pp_params(eqn):
    p = eqn.params
    return [
        ("name", p["jvp_jaxpr_fun"].fun_name),
        ("call_jaxpr", p["call_jaxpr"]),
        ("jvp", p["jvp_jaxpr_fun"]),
        *([("num_consts", p["num_consts"])] if p["num_consts"] else []),
        ("symbolic_zeros", p["symbolic_zeros"]),
    ]


def _custom_vjp_pp_params(eqn):
    p = eqn.params
    return [
        ("name", p["fwd_jaxpr_thunk"].fun_name),
        ("bwd", p["bwd"]),
        ("call_jaxpr", p["call_jaxpr"]),
        ("fwd", p["fwd_jaxpr_thunk"]),
        *([("num_consts", p["num_consts"])] if p["num_consts"] else []),
        ("symbolic_zeros", p["symbolic_zeros"]),
    ]


ir.pp_params_rules[custom_jvp_call_p] = _custom_jvp_pp_params
ir.pp_params_rules[custom_vjp_call_p] = _custom_vjp_pp_params
custom_lin_p = core.Primitive("custom_lin", multiple_results=True)
# Compiled code inlines the primal body (the rules only matter to transformations).
lowerings[custom_jvp_call_p] = lowerings[custom_vjp_call_p] = Special("inline")
_in_rule: set = set()  # custom functions whose rule is running now


def _eval_call(*args, call_jaxpr: ClosedJaxpr, **_):
    return [
        core.to_numpy(o) if not isinstance(o, core.Array) else o
        for o in eval_jaxpr(
            call_jaxpr.jaxpr,
            [core.Array(a) if isinstance(a, np.ndarray) else a for a in args],  # (refs pass as they are)
            call_jaxpr.consts,
        )
    ]


for _p in (custom_jvp_call_p, custom_vjp_call_p):
    _p.def_impl(_eval_call)
    _p.def_abstract_eval(lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals))


def _resolve_args(fun, args, kwargs):
    # Positional, with defaults filled in as JAX does: a defaulted nondiff argument has an index.
    try:
        sig = _pyinspect.signature(fun)
    except (TypeError, ValueError):  # a builtin or callable without a signature
        if kwargs:
            raise
        return args
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.args


def _stop_traced(x):
    from .lax.elementwise import stop_gradient_p

    return tree_map(lambda leaf: stop_gradient_p.bind(leaf) if isinstance(leaf, core.Tracer) else leaf, x)


def _stage(fun, nondiff_argnums, args, traced_for):
    """Flatten the differentiable args, trace ``fun`` on them: (closed, leaves, in_tree, out_tree, rebuild).
    Errors about its traced values name it ``for custom_jvp fun`` (the arguments by name) or ``for
    custom_vjp fun`` (whose arguments JAX leaves unnamed)."""
    nondiff = {i: args[i] for i in nondiff_argnums}
    dyn = [a for i, a in enumerate(args) if i not in nondiff]
    leaves, in_tree = tree_flatten(dyn)
    out_store = []

    def rebuild(dyn_leaves):
        d = iter(tree_unflatten(in_tree, list(dyn_leaves)))
        return [nondiff[i] if i in nondiff else next(d) for i in range(len(args))]

    def flat(*xs):
        out = fun(*rebuild(xs))
        out_leaves, out_tree = tree_flatten(out)
        out_store[:] = [out_tree]
        return out_leaves

    names = (lambda: arg_names(fun, args, {}, nondiff_argnums)) if traced_for == "custom_jvp fun" else None
    closed = trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves], None, (fun, traced_for, names))
    # Every constant the function closes over (arrays and outer transformations' tracers alike)
    # becomes a leading argument, counted by num_consts, as JAX converts the call's constvars.
    j = closed.jaxpr
    hoisted = list(closed.consts)
    closed = ClosedJaxpr(Jaxpr([], [*j.constvars, *j.in_binders], j.eqns, j.outs), [])
    return closed, hoisted, leaves, in_tree, out_store[0], rebuild, nondiff


def _nondiff_from_consts(nondiff, hoisted):
    """The nondiff arguments a staged call's rule takes, given the call's constant operands.

    A traced nondiff argument (a jit's tracer, say) is one of the call's constants: the function
    closes over it. The rule reads it from the operands it is applied to, not from its closure,
    whose tracer is dead once the trace that staged the call has ended (JVP of that jit's jaxpr,
    as in grad(grad(expn)), applies the rule later, to that jit's operands' tracers)."""
    slots = {id(c): k for k, c in enumerate(hoisted) if isinstance(c, core.Tracer)}
    flat = {i: tree_flatten(a) for i, a in nondiff.items()}
    if not any(id(leaf) in slots for leaves, _ in flat.values() for leaf in leaves):
        return lambda consts: nondiff

    def at(consts):
        return {
            i: tree_unflatten(tree, [consts[slots[id(x)]] if id(x) in slots else x for x in leaves])
            for i, (leaves, tree) in flat.items()
        }

    return at


def _with_unused_operands(closed: ClosedJaxpr, at: int, values) -> ClosedJaxpr:
    """``closed`` taking ``values``' avals as extra (unused) operands at position ``at``."""
    j = closed.jaxpr
    extra = [ir.Var(core.raise_to_shaped(core.get_aval(v))) for v in values]
    binders = [*j.in_binders[:at], *extra, *j.in_binders[at:]]
    return ClosedJaxpr(Jaxpr(j.constvars, binders, j.eqns, j.outs), closed.consts)


def _innermost_trace(args, nondiff_argnums):
    """None when nothing is traced (plain evaluation), else the trace that would process a call."""
    leaves = tree_flatten([a for i, a in enumerate(args) if i not in nondiff_argnums])[0]
    trace = core.find_top_trace(leaves)
    if trace.main.level == 0:
        return None
    return trace


def _on_tape(custom, trace, args):
    nd = custom.nondiff_argnums
    nondiff = {i: args[i] for i in nd}
    leaves, in_tree = tree_flatten([a for i, a in enumerate(args) if i not in nd])
    out_tree = []

    def flat(*xs):
        d = iter(tree_unflatten(in_tree, list(xs)))
        out_leaves, t = tree_flatten(
            custom(*[nondiff[i] if i in nondiff else next(d) for i in range(len(args))])
        )
        out_tree[:] = [t]
        return out_leaves

    outs = trace.process_function(flat, leaves)
    return tree_unflatten(out_tree[0], outs)


class _Wrapping:
    """What custom_jvp and custom_vjp share: the attributes of the function they decorate read
    through them (a custom_vmap's def_vmap under a custom_vjp), as in JAX."""

    def __getattr__(self, name):
        fun = self.__dict__.get("fun")
        if fun is None:
            raise AttributeError(name)
        return getattr(fun, name)


def _wrap(self, fun, nondiff_argnums):
    functools.update_wrapper(self, fun)
    self.fun = fun
    self.nondiff_argnums = tuple(nondiff_argnums)
    self.symbolic_zeros = False


class custom_jvp(_Wrapping):
    """A function with a user-defined JVP rule.

    >>> @custom_jvp
    ... def f(x): return jnp.sin(x)
    >>> @f.defjvp
    ... def f_jvp(primals, tangents): (x,), (t,) = primals, tangents; return f(x), jnp.cos(x) * t
    """

    def __init__(self, fun, nondiff_argnums=()):
        _wrap(self, fun, nondiff_argnums)
        self.jvp = None
        self.shares_traces, self._traces = False, {}

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp, self.symbolic_zeros = jvp, bool(symbolic_zeros)
        return jvp

    def defjvps(self, *jvps):
        """One JVP rule per argument (None: no dependence); the tangent is their sum (``add_any``,
        as JAX sums tangents)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            out = self(*primals)
            zeros = tree_map(lambda x: ad.Zero(ad.tangent_aval(core.get_aval(x))), out)
            contribs = [fn(t, out, *primals) if fn is not None else zeros for fn, t in zip(jvps, tangents)]
            return out, tree_map(lambda _, x, *xs: functools.reduce(ad.add_tangents, xs, x), out, *contribs)

        self.jvp = jvp

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
        if self in _in_rule and not any(isinstance(x, core.Tracer) for x in tree_flatten((args, kwargs))[0]):
            # The rule calling its own function on concrete values computes the primal output
            # directly. On traced ones it binds the call again, at the outer level, as JAX does:
            # staged, that is what the jaxpr shows; differentiated again, the rule applies again.
            return self.fun(*args, **kwargs)
        args = _resolve_args(self.fun, args, kwargs)
        trace = _innermost_trace(args, self.nondiff_argnums)
        if trace is None:  # plain evaluation: just the function, as JAX calls it
            return self.fun(*args)
        if self.nondiff_argnums:  # a traced nondiff argument passes through stop_gradient (as JAX's)
            args = tuple(_stop_traced(a) if i in self.nondiff_argnums else a for i, a in enumerate(args))
        if isinstance(trace, ad.JVPTrace):  # differentiation: just the rule, never the function
            return self._jvp_directly(trace, args)
        if type(trace) is tape.TapeTrace:  # eager grad: differentiated as one operation (by the rule)
            return _on_tape(self, trace, args)
        closed, hoisted, leaves, in_tree, out_tree, rebuild, nondiff = _stage(
            self.fun, self.nondiff_argnums, args, "custom_jvp fun"
        )
        if getattr(self, "shares_traces", False) and not hoisted and not self.nondiff_argnums:
            # (a jnp function JAX wraps in jit(inline=True): that jit's trace cache hands every call
            # on the same avals the same traced body, so its calls print one shared jaxpr)
            key = (in_tree, tuple((a.shape, a.dtype, a.weak_type) for a in map(core.get_aval, leaves)))
            closed = self._traces.setdefault(key, closed)
        user_jvp, nd, symbolic = self.jvp, self.nondiff_argnums, self.symbolic_zeros
        nondiff_at = _nondiff_from_consts(nondiff, hoisted)
        # Traced values the rule closes over are operands too: it reads them from there when applied.
        cells, captured = captured_tracers([user_jvp], trace.main.level)
        first_captured, n_captured = len(hoisted), len(captured)
        if captured:
            closed = _with_unused_operands(closed, first_captured, captured)
            hoisted = [*hoisted, *captured]

        def jvp_flat(primal_leaves, tangent_leaves, consts=None):
            tangent_leaves = [sz.rule_tangent(t, None, symbolic) for t in tangent_leaves]
            primals = rebuild(primal_leaves)
            tangents = [t for i, t in enumerate(rebuild(tangent_leaves)) if i not in nondiff]
            dyn_primals = [p for i, p in enumerate(primals) if i not in nondiff]
            static = nondiff if consts is None else nondiff_at(consts)
            now = None if consts is None else consts[first_captured : first_captured + n_captured]
            _in_rule.add(self)
            try:
                with cells_holding(cells, now), tangents_typed_as(dyn_primals, tangents):
                    if nd:
                        result = user_jvp(*[static[i] for i in nd], tuple(dyn_primals), tuple(tangents))
                    else:
                        result = user_jvp(tuple(dyn_primals), tuple(tangents))
                    out, tout = rule_pair(user_jvp, self.__name__, result)
            finally:
                _in_rule.discard(self)
            check_jvp_rule_outputs(user_jvp, self.__name__, out, tout)
            return tree_flatten(out)[0], tree_flatten(tout)[0]

        _named(jvp_flat, user_jvp, "jvp", self.__name__)
        return self._bind(closed, hoisted, leaves, out_tree, jvp_flat)

    def _jvp_directly(self, trace, args):
        nd = self.nondiff_argnums
        dyn = [trace.full_raise(a) if core.is_array_like(a) else a for i, a in enumerate(args) if i not in nd]
        dyn_leaves, dyn_tree = tree_flatten(dyn)
        dyn_leaves = [trace.full_raise(x) for x in dyn_leaves]
        primals = tree_unflatten(dyn_tree, [x.primal for x in dyn_leaves])
        symbolic = self.symbolic_zeros
        tangents = tree_unflatten(dyn_tree, [sz.rule_tangent(x.tangent, None, symbolic) for x in dyn_leaves])
        _in_rule.add(self)
        try:
            with tangents_typed_as(tree_flatten(primals)[0], tree_flatten(tangents)[0]):
                if nd:
                    result = self.jvp(*[args[i] for i in nd], tuple(primals), tuple(tangents))
                else:
                    result = self.jvp(tuple(primals), tuple(tangents))
            out, tout = rule_pair(self.jvp, self.__name__, result)
        finally:
            _in_rule.discard(self)
        check_jvp_rule_outputs(self.jvp, self.__name__, out, tout)
        outs, out_tree = tree_flatten(out)
        touts = tree_flatten(tout, is_leaf=lambda x: x is None)[0]
        result = [
            trace.tracer_type(trace, o, _float0_as_zero(sz.from_rule(t, core.get_aval(o))))
            for o, t in zip(outs, touts)
        ]
        return tree_unflatten(out_tree, result)

    def _bind(self, closed, hoisted, leaves, out_tree, jvp_flat):
        outs = custom_jvp_call_p.bind(
            *hoisted,
            *leaves,
            call_jaxpr=closed,
            jvp_jaxpr_fun=jvp_flat,
            num_consts=len(hoisted),
            symbolic_zeros=self.symbolic_zeros,
        )
        return tree_unflatten(out_tree, outs)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp_jaxpr_fun, num_consts, symbolic_zeros):
    ps = primals[num_consts:]
    ts = list(tangents[num_consts:])  # (zeros stay symbolic: the rule's wrapper decides)
    if not symbolic_zeros:
        ts = [ad.instantiate_zeros(t) for t in ts]
    outs, touts = jvp_jaxpr_fun(ps, ts, consts=primals[:num_consts])
    return outs, [_float0_as_zero(sz.from_rule(t, core.get_aval(o))) for o, t in zip(outs, touts)]


def _float0_as_zero(t):
    """A float0 tangent (an integer output's, as frexp's exponent) is a zero, as in JAX's
    maybe_jvp_tracer: nothing carries it, so no linearized jit closes over it, and one the caller
    asks for is made anew."""
    if type(t) is not ad.Zero and core.get_aval(t).dtype == core.float0:
        return ad.Zero(core.get_aval(t))
    return t


def _custom_jvp_call_batch(axis_size, vals, dims, *, call_jaxpr, jvp_jaxpr_fun, num_consts, symbolic_zeros):
    # As JAX's batch_subtrace: each operand's batch dimension stays where it is and each result's is
    # where the batched function leaves it (no transpose around the call); where a result would be
    # unbatched, all move to the front, results batched there (the rule's tangents may be batched).
    # Unbatched arguments (the constants above all) stay unbatched, as JAX batches the call.
    mapped = [d is not batching.not_mapped and d is not None for d in dims]
    in_place = [d if m else batching.not_mapped for d, m in zip(dims, mapped)]
    with ir.as_traced():
        batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_size, in_place, keep_out_dims=True)
    if any(d is batching.not_mapped for d in out_dims):
        vals = [batching.bdim_at_front(v, d, axis_size) if m else v for v, d, m in zip(vals, dims, mapped)]
        in_place = [0 if m else batching.not_mapped for m in mapped]
        with ir.as_traced():
            batched, _ = batching.batch_jaxpr(
                call_jaxpr, axis_size, in_place, force_out=[True] * len(call_jaxpr.out_avals)
            )
        out_dims = [0] * len(call_jaxpr.out_avals)
    n = len(vals) - num_consts
    const_dims, arg_dims = in_place[:num_consts], in_place[num_consts:]
    const_avals, in_avals = call_jaxpr.in_avals[:num_consts], call_jaxpr.in_avals[num_consts:]

    def batched_jvp(ps, ts, consts=None):
        # (the primals come as the call's operands do, their tangents alike; an operand with its
        # unbatched shape is unmapped)
        cs = [] if consts is None else list(consts)
        # (symbolic zero tangents, which a rule with symbolic_zeros sees, stay out of the batched
        # call: the rule gets zeros of the unbatched type)
        live = [i for i, t in enumerate(ts) if type(t) is not ad.Zero]
        args = [*cs, *ps, *[ts[i] for i in live]]
        avals = [*const_avals[: len(cs)], *in_avals, *[in_avals[i] for i in live]]
        dims_ = [*const_dims[: len(cs)], *arg_dims, *[arg_dims[i] for i in live]]
        in_dims = [
            None if d is batching.not_mapped or core.get_aval(x).shape == a.shape else d
            for x, a, d in zip(args, avals, dims_)
        ]

        def both(*cpt):
            c, pt = cpt[: len(cs)], cpt[len(cs) :]
            given = dict(zip(live, pt[n:]))
            t_in = [given[i] if i in given else ad.Zero(in_avals[i]) for i in range(n)]
            o, t = jvp_jaxpr_fun(list(pt[:n]), t_in, consts=list(c) if consts is not None else None)
            return [*o, *[ad.instantiate_zeros(x) if type(x) is ad.Zero else x for x in t]]

        outs = batching.vmap_flat(both, axis_size, None, in_dims, args, lambda k: [*out_dims, *out_dims])
        m = len(outs) // 2
        return outs[:m], outs[m:]

    _named(batched_jvp, jvp_jaxpr_fun, "jvp", jvp_jaxpr_fun.fun_name)
    outs = custom_jvp_call_p.bind(
        *vals,
        call_jaxpr=batched,
        jvp_jaxpr_fun=batched_jvp,
        num_consts=num_consts,
        symbolic_zeros=symbolic_zeros,
    )
    return outs, list(out_dims)


def _custom_jvp_call_retraced(eqn):
    # Retraced as a known equation (JAX's partial_eval_jaxpr_nounits), the call's constants are
    # operands like the others (num_consts 0); its rule still sees only the original arguments.
    k, jvp = eqn.params["num_consts"], eqn.params["jvp_jaxpr_fun"]
    if not k:
        return eqn

    def lifted(ps, ts, consts=None):
        return jvp(list(ps)[k:], list(ts)[k:], consts=list(ps)[:k])

    _named(lifted, jvp, "jvp", jvp.fun_name)
    return eqn._replace(params=dict(eqn.params, jvp_jaxpr_fun=lifted, num_consts=0))


ad.jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp
ad.known_eqn_rules[custom_jvp_call_p] = _custom_jvp_call_retraced
batching.batch_rules[custom_jvp_call_p] = _custom_jvp_call_batch


def _flat_cts(cts, primal_args) -> list:
    """A bwd rule's cotangents, flat: a None for an argument (no cotangent: zero, or a ref it
    only plumbs data through) stands for each of that argument's leaves."""
    if not isinstance(cts, (tuple, list)) or len(cts) != len(primal_args):  # (JAX takes a list too)
        raise TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) structure "
            "as the args tuple of the primal function, and in particular must produce a tuple of "
            "length equal to the number of arguments to the primal function, but got bwd output "
            f"structure {tree_flatten(tuple(cts) if isinstance(cts, list) else cts)[1]} for primal input structure "
            f"{tree_flatten(tuple(primal_args))[1]}."
        )
    flat: list = []
    for ct, arg in zip(cts, primal_args):
        if ct is None or isinstance(ct, sz.SymbolicZero):
            flat += [None] * len(tree_flatten(arg)[0])
        else:
            leaves = tree_flatten(ct, is_leaf=lambda x: x is None or isinstance(x, sz.SymbolicZero))[0]
            flat += [None if isinstance(c, sz.SymbolicZero) else c for c in leaves]
    _check_ct_shapes(flat, primal_args)
    return flat


def _check_ct_shapes(flat, primal_args) -> None:
    """A cotangent must have its input's shape (JAX's typecompat; its dtype may differ for a float
    input, and an integer input's is ignored), or the rule's error would surface far from it."""
    from .pytree.keys import keystr
    from .tree_util import tree_flatten_with_path

    paths = tree_flatten_with_path(tuple(primal_args))[0]
    for ct, (path, arg) in zip(flat, paths):
        if ct is None:
            continue
        a, c = core.get_aval(arg), core.get_aval(ct)
        if a.shape == c.shape or ad.tangent_aval(a).dtype == core.float0:
            continue
        what = ["the dtypes do not match"] if a.dtype != c.dtype else []
        what.append("the shapes do not match")
        raise ValueError(
            "Custom VJP bwd rule must produce an output with the same type as the args tuple of the "
            f"primal function, but at output{keystr(path)} the bwd rule produced an output of type "
            f"{_type_str(c)} corresponding to an input of type {_type_str(a)}, so {', and '.join(what)}"
        )


def _type_str(aval) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


class CustomVJPException(Exception):
    """JAX's error for differentiating a custom_vjp function with respect to a value it closes over."""

    def __init__(self):
        super().__init__(
            "Detected differentiation of a custom_vjp function with respect to a closed-over value. "
            "That isn't supported because the custom VJP rule only specifies how to differentiate the "
            "custom_vjp function with respect to explicit input parameters. Try passing the closed-over "
            "value into the custom_vjp function as an argument, and adapting the custom_vjp fwd and bwd "
            "rules."
        )


class custom_vjp(_Wrapping):
    """A function with a user-defined VJP rule: ``f.defvjp(fwd, bwd)``.

    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, cotangent) -> tuple of input cotangents``.
    """

    def __init__(self, fun, nondiff_argnums=()):
        _wrap(self, fun, nondiff_argnums)
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Set the forward and backward rules. ``optimize_remat`` (JAX's experimental flag for an
        opaque ``fwd`` under ``remat``) is accepted: the values are the same; JAX's jaxprs show
        the forward rule as a ``remat_opt`` equation, the engine's as ``custom_vjp_call``."""
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError("remat optimization for custom_vjp does not support symbolic zeros")
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, bool(symbolic_zeros)

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.__name__} using defvjp.")
        args = _resolve_args(self.fun, args, kwargs)
        trace = _innermost_trace(args, self.nondiff_argnums)
        if trace is None:  # plain evaluation: just the function, as JAX calls it
            return self.fun(*args)
        if isinstance(trace, ad.JVPTrace):  # differentiation: fwd now, bwd when transposed; never fun
            return self._vjp_directly(trace, args)
        if type(trace) is tape.TapeTrace:  # eager grad: differentiated as one operation (by fwd/bwd)
            return _on_tape(self, trace, args)
        closed, hoisted, leaves, in_tree, out_tree, rebuild, nondiff = _stage(
            self.fun, self.nondiff_argnums, args, "custom_vjp fun"
        )
        fwd, bwd, nd, symbolic = self.fwd, self.bwd, self.nondiff_argnums, self.symbolic_zeros
        res_tree_store = []
        # Traced values fwd and bwd close over are operands too (see custom_rule_closures).
        cells, captured = captured_tracers([fwd, bwd], trace.main.level)
        n_fun_consts, n_captured = len(hoisted), len(captured)
        if captured:
            closed = _with_unused_operands(closed, n_fun_consts, captured)
            hoisted = [*hoisted, *captured]

        def fwd_flat(*primal_leaves, perturbed=None, consts=None, consts_perturbed=()):
            if any(consts_perturbed[:n_fun_consts]):  # (the captured values' tangents are ignored)
                raise CustomVJPException()
            if symbolic:  # (the fwd rule sees which arguments are differentiated)
                flags = perturbed if perturbed is not None else [True] * len(primal_leaves)
                primal_leaves = [sz.CustomVJPPrimal(p, bool(f)) for p, f in zip(primal_leaves, flags)]
            primals = rebuild(primal_leaves)
            now = captured if consts is None else list(consts[n_fun_consts : n_fun_consts + n_captured])
            with cells_holding(cells, None if consts is None else now):
                out, res = fwd(*primals)
            res_leaves, res_tree = tree_flatten(res)
            res_tree_store[:] = [res_tree]
            return tree_flatten(out)[0], [*res_leaves, *now]  # (bwd reads the captured values last)

        def bwd_flat(res_leaves, ct_leaves):
            res_leaves, now = list(res_leaves), []
            if n_captured:
                res_leaves, now = res_leaves[:-n_captured], res_leaves[-n_captured:]
            res = tree_unflatten(res_tree_store[0], res_leaves)
            ct = tree_unflatten(out_tree, [sz.rule_tangent(c, None, symbolic) for c in ct_leaves])
            with cells_holding(cells, now or None):
                cts = bwd(*[nondiff[i] for i in nd], res, ct) if nd else bwd(res, ct)
            return _flat_cts(cts, [a for i, a in enumerate(args) if i not in nd])

        _named(fwd_flat, fwd, "fwd", self.__name__)
        _named(bwd_flat, bwd, "bwd", self.__name__)

        def out_trees():
            return out_tree, res_tree_store[0] if res_tree_store else None

        return self._bind(closed, hoisted, leaves, fwd_flat, bwd_flat, out_trees)

    def _vjp_directly(self, trace, args):
        nd = self.nondiff_argnums
        nondiff = {i: args[i] for i in nd}
        dyn = [a for i, a in enumerate(args) if i not in nd]
        dyn_leaves, dyn_tree = tree_flatten(dyn)
        dyn_leaves = [trace.full_raise(x) for x in dyn_leaves]
        primal_leaves = [x.primal for x in dyn_leaves]
        in_zeros = [type(x.tangent) is ad.Zero for x in dyn_leaves]
        tangents = [x.tangent for x, z in zip(dyn_leaves, in_zeros) if not z]

        def rebuild(leaves):
            d = iter(tree_unflatten(dyn_tree, list(leaves)))
            return [nondiff[i] if i in nondiff else next(d) for i in range(len(args))]

        symbolic = self.symbolic_zeros
        fwd_args = primal_leaves
        if symbolic:  # (the fwd rule sees which arguments are differentiated)
            fwd_args = [
                sz.CustomVJPPrimal(p, type(x.tangent) is not ad.Zero)
                for p, x in zip(primal_leaves, dyn_leaves)
            ]
        out, res = self.fwd(*rebuild(fwd_args))
        outs, out_tree = tree_flatten(out)
        res_leaves, res_tree = tree_flatten(res)
        bwd = self.bwd

        def bwd_flat(res_in, ct_leaves):
            r = tree_unflatten(res_tree, list(res_in))
            ct = tree_unflatten(out_tree, [sz.rule_tangent(c, None, symbolic) for c in ct_leaves])
            cts = bwd(*[nondiff[i] for i in nd], r, ct) if nd else bwd(r, ct)
            return _flat_cts(cts, dyn)

        _named(bwd_flat, bwd, "bwd", self.__name__)
        touts = custom_lin_p.bind(
            *res_leaves,
            *tangents,
            num_res=len(res_leaves),
            bwd=bwd_flat,
            out_avals=tuple(ad.tangent_aval(core.get_aval(o)) for o in outs),
            symbolic_zeros=symbolic,
            in_zeros=in_zeros,
        )
        return tree_unflatten(out_tree, [trace.tracer_type(trace, o, t) for o, t in zip(outs, touts)])

    def _bind(self, closed, hoisted, leaves, fwd_flat, bwd_flat, out_trees):
        outs = custom_vjp_call_p.bind(
            *hoisted,
            *leaves,
            call_jaxpr=closed,
            fwd_jaxpr_thunk=fwd_flat,
            bwd=bwd_flat,
            num_consts=len(hoisted),
            out_trees=out_trees,
            symbolic_zeros=self.symbolic_zeros,
        )
        return tree_unflatten(out_trees()[0], outs)


def _custom_vjp_call_jvp(
    primals, tangents, *, call_jaxpr, fwd_jaxpr_thunk, bwd, num_consts, out_trees, symbolic_zeros
):
    outs, res = fwd_jaxpr_thunk(
        *primals[num_consts:],
        perturbed=[type(t) is not ad.Zero for t in tangents[num_consts:]],
        consts=primals[:num_consts],
        consts_perturbed=[type(t) is not ad.Zero for t in tangents[:num_consts]],
    )
    in_zeros = [type(t) is ad.Zero for t in tangents[num_consts:]]
    ts = [t for t, z in zip(tangents[num_consts:], in_zeros) if not z]
    out_avals = [core.get_aval(o) for o in outs]
    touts = custom_lin_p.bind(
        *res,
        *ts,
        num_res=len(res),
        bwd=bwd,
        out_avals=tuple(ad.tangent_aval(a) for a in out_avals),
        symbolic_zeros=symbolic_zeros,
        in_zeros=in_zeros,
    )
    return outs, touts


def _custom_vjp_call_batch(
    axis_size, vals, dims, *, call_jaxpr, fwd_jaxpr_thunk, bwd, num_consts, out_trees, symbolic_zeros
):
    """The call again, one level out, with its function, fwd and bwd batched (as JAX's
    process_custom_vjp_call): differentiated later, the rules still apply, not the function."""
    trace = batching.current_batch_trace()
    axis_name = trace.axis_name if trace is not None else None
    if any(d is not batching.not_mapped for d in dims[:num_consts]):
        # The rules close over the batched constants themselves (not the call's arguments), so
        # they cannot be batched apart from the function: batch the primal function inline.
        with ir.as_traced():
            batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_size, dims, axis_name)
        return eval_jaxpr(batched.jaxpr, vals, batched.consts), out_dims
    with ir.as_traced():
        batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_size, dims, axis_name)
    in_dims = [None if d is batching.not_mapped else d for d in dims[num_consts:]]
    res_dims: list = []
    fwd, name = fwd_jaxpr_thunk, fwd_jaxpr_thunk.fun_name

    def fwd_batched(*primals, perturbed=None, **consts):
        def outs_and_res(*xs):
            outs, res = fwd(*xs, perturbed=perturbed, **consts)  # (the constants are unbatched)
            return [*outs, *res]

        n_out = len(out_dims)
        outs, got = batching.vmap_traced(outs_and_res, axis_size, axis_name, in_dims, primals)
        for i, (d, want) in enumerate(zip(got[:n_out], out_dims)):
            if want is batching.not_mapped and d is not batching.not_mapped:
                raise ValueError(
                    f"custom_vjp function {name}: under vmap, the fwd rule's output {i} is batched "
                    "where the function's is not."
                )
            if want is not batching.not_mapped:
                outs[i] = batching.bdim_at_front(outs[i], d, axis_size)
        res_dims[:] = got[n_out:]
        return outs[:n_out], outs[n_out:]

    def bwd_batched(res, cts):
        cts = list(cts)
        zero = [type(c) is ad.Zero for c in cts]
        live = [c for c, z in zip(cts, zero) if not z]
        live_dims = [None if d is batching.not_mapped else d for d, z in zip(out_dims, zero) if not z]
        # A zero cotangent stays symbolic, with the unbatched shape the rule sees.
        zeros = [ad.Zero(a) for a, z in zip(call_jaxpr.out_avals, zero) if z]
        nones: list = []

        def one(*xs):
            r, live_cts = xs[: len(res)], iter(xs[len(res) :])
            z = iter(zeros)
            got = bwd(r, [next(z) if is_zero else next(live_cts) for is_zero in zero])
            nones[:] = [g is None for g in got]
            return [g for g in got if g is not None]

        rdims = [None if d is batching.not_mapped else d for d in res_dims]
        outs, got_dims = batching.vmap_traced(one, axis_size, axis_name, [*rdims, *live_dims], [*res, *live])
        outs_it = iter(zip(outs, got_dims))
        flat = []
        for is_none, want in zip(nones, in_dims):
            if is_none:
                flat.append(None)
                continue
            ct, d = next(outs_it)
            flat.append(_match_ct_axis(ct, d, want, axis_size))
        return flat

    _named(fwd_batched, fwd, "fwd", name)
    _named(bwd_batched, bwd, "bwd", name)
    outs = custom_vjp_call_p.bind(
        *vals,
        call_jaxpr=batched,
        fwd_jaxpr_thunk=fwd_batched,
        bwd=bwd_batched,
        num_consts=num_consts,
        out_trees=out_trees,  # (the trees of one member's outputs and residuals)
        symbolic_zeros=symbolic_zeros,
    )
    return outs, out_dims


def _match_ct_axis(ct, src, dst, axis_size):
    """An input's cotangent from a batched bwd, with the batch axis where the input has it:
    summed over when the input is unbatched (one value served the whole batch)."""
    from . import lax

    if dst is None:
        return ct if src is batching.not_mapped else lax.reduce_sum(ct, (src,))
    return batching.moveaxis(batching.bdim_at_front(ct, src, axis_size), 0, dst)


@custom_lin_p.def_impl
def _custom_lin_impl(*args, **_):
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


def _custom_lin_batch(axis_size, vals, dims, **_):
    # Tangents batched: forward mode (jacfwd's vmap of a jvp), which a custom_vjp refuses.
    raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")


custom_lin_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, symbolic_zeros, in_zeros):
    res = args[:num_res]
    cts_in = bwd(res, list(cts))  # (zero cotangents stay symbolic: the rule's wrapper decides)
    return [None] * num_res + [c for c, z in zip(cts_in, in_zeros) if not z]


def _custom_lin_pp_params(eqn):
    # (JAX's: out_avals not shown, bwd by the user's rule's name)
    p = eqn.params
    return [(k, p["bwd"].__name__ if k == "bwd" else p[k]) for k in sorted(p) if k != "out_avals"]


ad.jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp
batching.batch_rules[custom_vjp_call_p] = _custom_vjp_call_batch
batching.batch_rules[custom_lin_p] = _custom_lin_batch
ad.transpose_rules[custom_lin_p] = _custom_lin_transpose
ir.pp_params_rules[custom_lin_p] = _custom_lin_pp_params


from .closure_conversion import closure_convert, custom_gradient  # noqa: E402,F401  (jax.custom_derivatives)
from .linear_call import linear_call  # noqa: E402,F401  (jax.custom_derivatives)
from .symbolic_zeros import (  # noqa: E402,F401  (jax.custom_derivatives)
    CustomVJPPrimal,
    SymbolicZero,
    custom_vjp_primal_tree_values,
    zero_from_primal,
)
from . import custom_jvp_split  # noqa: E402, F401  (its partial_eval_jaxpr row)
from . import custom_jvp_dce  # noqa: E402, F401  (its DCE row)
