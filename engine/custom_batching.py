"""``jax.custom_batching``: ``custom_vmap`` (a function with its own vmap rule) and ``sequential_vmap``.

The function is staged to a jaxpr and bound as one ``custom_vmap_call`` equation (printed as JAX
prints it: ``call``, ``in_tree``, ``out_tree``, ``rule``). Evaluating or compiling it runs the
jaxpr; ``vmap`` reaching it calls the rule ``rule(axis_size, in_batched, *args) -> (out,
out_batched)``; ``jvp`` makes another ``custom_vmap_call`` of the jvp of the jaxpr, whose rule is
the jvp of the user's rule (vmapped over the dimensions only primals or only tangents have). It
has no reverse mode: linearizing it fails as in JAX (wrap it in ``custom_vjp`` for ``grad``).
"""

from __future__ import annotations

import functools
import re

from . import ad, batching, core, ir
from .backends.rows import Special, lowerings
from .custom_derivatives import _eval_call, _resolve_args
from .ir import ClosedJaxpr
from .lax.control_flow_common import _jvp_closed, _trace
from .tree_util import tree_flatten, tree_map, tree_structure, tree_unflatten

custom_vmap_p = core.Primitive("custom_vmap_call", multiple_results=True)
custom_vmap_p.weak_from_abstract_eval = True  # (the function's outputs say, as its jaxpr's avals)


class custom_vmap:
    """Customize how ``jax.vmap`` batches a function: ``f.def_vmap(rule)`` with
    ``rule(axis_size, in_batched, *args) -> (out, out_batched)``; ``in_batched`` says which
    arguments carry the batch axis (at the front) and ``out_batched`` which outputs do.

    >>> @jax.custom_batching.custom_vmap
    ... def f(x, y):
    ...     return x + y
    >>> @f.def_vmap
    ... def f_rule(axis_size, in_batched, xs, ys):
    ...     return xs * ys, True
    >>> jax.vmap(f)(jnp.arange(3), jnp.arange(1, 4))
    Array([0, 2, 6], dtype=int32)
    """

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule = None

    def def_vmap(self, vmap_rule):
        """Set the batching rule; returns it unchanged (so it can decorate)."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args, **kwargs):
        name = getattr(self.fun, "__name__", "<unnamed function>")
        try:
            args = tuple(_resolve_args(self.fun, args, kwargs))
        except TypeError as e:
            raise TypeError(
                "The input arguments to the custom_vmap-decorated function "
                f"{name} could not be resolved to positional-only arguments. Binding failed with "
                f"the error:\n{e}"
            ) from e
        if not self.vmap_rule:
            raise AttributeError(f"No batching rule defined for custom_vmap function {name} using def_vmap.")
        leaves, args_tree = tree_flatten(args)
        out_trees = []

        def flat(*xs):
            out_leaves, out_tree = tree_flatten(self.fun(*tree_unflatten(args_tree, list(xs))))
            out_trees.append(out_tree)
            return out_leaves

        call, consts = _trace(flat, [core.get_aval(x) for x in leaves])
        in_tree = tree_structure((list(consts), args))
        outs = custom_vmap_p.bind(
            *consts,
            *leaves,
            call=call,
            rule=ClosedRule(self.vmap_rule),
            in_tree=in_tree,
            out_tree=out_trees[0],
        )
        return tree_unflatten(out_trees[0], outs)


class ClosedRule:
    """The user's rule as the equation holds it: it takes the closed-over constants (never
    batched) beside the arguments, and prints as the user's function."""

    def __init__(self, rule):
        functools.update_wrapper(self, rule)
        self.rule = rule

    def __call__(self, axis_size, all_in_batched, consts, args):
        consts_batched, in_batched = all_in_batched
        if any(tree_flatten(consts_batched)[0]):
            raise NotImplementedError(
                "custom_vmap: the function closes over a value batched by this vmap; pass it as an argument"
            )
        return _call_rule(self.rule, axis_size, in_batched, args)

    def __str__(self):
        return str(self.rule)


def _call_rule(rule, axis_size, in_batched, args):
    return rule(axis_size, list(in_batched), *args)


def _rule_name(rule):
    return getattr(rule, "__name__", "<unnamed rule>")


def _check_rule_trees(rule, original_out_tree, out_tree, out_batched_tree):
    if out_tree != out_batched_tree:
        raise ValueError(
            "structure of output value and output batching specification returned by custom vmap "
            f"rule ({_rule_name(rule)}) do not match.\nOutput values: {out_tree}\n"
            f"Batching spec: {out_batched_tree}"
        )
    if out_tree != original_out_tree:
        raise ValueError(
            f"structure of output returned by custom vmap rule ({_rule_name(rule)}) does not match "
            f"that of original custom-vmapped function.\nOriginal output: {original_out_tree}\n"
            f"Rule output: {out_tree}"
        )


def _front(x, bdim):
    """``x`` with its batch axis moved to the front; an unbatched value as it is (no broadcast)."""
    return x if bdim is None or bdim is batching.not_mapped else batching.moveaxis(x, bdim, 0)


def _impl(*args, call, rule, in_tree, out_tree):
    # (numpy out: the evaluation takes the weak types from the jaxpr's avals, not from ``args``)
    return [core.to_numpy(o) for o in _eval_call(*args, call_jaxpr=call)]


def _abstract_eval(*avals, call, **_):
    return list(call.out_avals)


def _batch(axis_size, vals, dims, *, call, rule, in_tree, out_tree):
    mapped = [d is not batching.not_mapped and d is not None for d in dims]
    vals = [_front(v, d) for v, d in zip(vals, dims)]
    args = tree_unflatten(in_tree, vals)
    in_batched = tree_unflatten(in_tree, mapped)
    out, out_batched = _call_rule(rule, axis_size, in_batched, args)
    outs, tree1 = tree_flatten(out)
    flat_batched, tree2 = tree_flatten(out_batched)
    _check_rule_trees(rule, out_tree, tree1, tree2)
    return outs, [0 if b else batching.not_mapped for b in flat_batched]


def _vmap_unrestricted(f, args, in_dims, axis_size):
    """``f`` (flat) batched over the args whose ``in_dims`` is 0: its outputs and where their batch
    axes ended up (``None``: not batched), as the batch trace left them."""
    frame = batching.AxisFrame(None, axis_size, None)
    with core.new_main(batching.BatchTrace, frame) as main:
        frame.main = main
        trace = batching.BatchTrace(main)
        ins = [x if d is None else batching.BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
        outs = [trace.full_raise(o) for o in f(*ins)]
        dims = [None if o.batch_dim is batching.not_mapped else o.batch_dim for o in outs]
        return [o.val for o in outs], dims


def custom_vmap_jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    def jvp_of_rule_rule(axis_size, in_batched, primals, tangents):
        # Batched in both: the rule's own business. Batched in only one: vmapped over here.
        in_batched_ps, in_batched_ts = in_batched
        both = tree_map(lambda p, t: p and t, in_batched_ps, in_batched_ts)
        extra_ps = tree_map(lambda p, t: 0 if p and not t else None, in_batched_ps, in_batched_ts)
        extra_ts = tree_map(lambda p, t: 0 if t and not p else None, in_batched_ps, in_batched_ts)
        flat_ps_ts, tree_ps_ts = tree_flatten((primals, tangents))
        flat_extra = tree_flatten((extra_ps, extra_ts), is_leaf=lambda x: x is None)[0]
        both_out = []
        out_trees = []

        def to_jvp(*ps):
            out, out_batched = _call_rule(rule, axis_size, both, ps)
            _check_rule_trees(rule, out_tree, tree_structure(out), tree_structure(out_batched))
            both_out[:] = [out_batched]
            return out

        def flat_jvp(*xs):
            ps, ts = tree_unflatten(tree_ps_ts, list(xs))
            from .api import jvp

            out = jvp(to_jvp, tuple(ps), tuple(ts))
            leaves, tree = tree_flatten(out)
            out_trees[:] = [tree]
            return leaves

        outs, out_dims = _vmap_unrestricted(flat_jvp, flat_ps_ts, flat_extra, axis_size)
        n = len(outs) // 2
        outs = [_front(o, d) for o, d in zip(outs, out_dims)]
        extra = [d is not None for d in out_dims]
        out_ps, out_ts = tree_unflatten(out_trees[0], outs)
        extra_out_ps, extra_out_ts = tree_unflatten(out_trees[0], extra[:n] + extra[n:])
        batched_ps = tree_map(lambda a, b: a or b, both_out[0], extra_out_ps)
        batched_ts = tree_map(lambda a, b: a or b, both_out[0], extra_out_ts)
        return (out_ps, out_ts), (batched_ps, batched_ts)

    tangents = [ad.instantiate_zeros(t) for t in tangents]
    jvp_call = _jvp_call(call)
    outs = custom_vmap_p.bind(
        *primals,
        *tangents,
        call=jvp_call,
        rule=jvp_of_rule_rule,
        in_tree=tree_structure((tree_unflatten(in_tree, [0] * in_tree.num_leaves),) * 2),
        out_tree=tree_structure((tree_unflatten(out_tree, [0] * out_tree.num_leaves),) * 2),
    )
    n = len(outs) // 2
    return outs[:n], outs[n:]


def _jvp_call(call: ClosedJaxpr) -> ClosedJaxpr:
    """The jvp of ``call``: primals and (all nonzero) tangents in, outputs and tangents out."""
    return _jvp_closed(call, [True] * len(call.in_avals), True)[0]


def _pp_params(eqn):
    p = eqn.params
    rule = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), str(p["rule"]))
    return [("call", p["call"]), ("in_tree", p["in_tree"]), ("out_tree", p["out_tree"]), ("rule", rule)]


custom_vmap_p.def_impl(_impl)
custom_vmap_p.def_abstract_eval(_abstract_eval)
batching.batch_rules[custom_vmap_p] = _batch
ad.jvp_rules[custom_vmap_p] = custom_vmap_jvp
ad.partial_eval_rules[custom_vmap_p] = ad.linearize_refused
ir.pp_params_rules[custom_vmap_p] = _pp_params
lowerings[custom_vmap_p] = Special("inline")  # compiled code runs the function's own jaxpr


def sequential_vmap(f):
    """A ``custom_vmap`` whose rule maps ``f`` over the batch sequentially (with ``lax.map``), for
    functions that cannot batch themselves.

    >>> @jax.custom_batching.sequential_vmap
    ... def f(x):
    ...     return x + 1
    >>> jax.vmap(f)(jnp.arange(3))
    Array([1, 2, 3], dtype=int32)
    """
    from .lax import map as lax_map

    f = custom_vmap(f)

    @f.def_vmap
    def rule(axis_size, in_batched, *args):
        # the batched arguments (a None where one is not) are mapped over; the others are kept
        mapped = tree_map(lambda b, x: x if b else None, in_batched, list(args))
        kept = tree_map(lambda b, x: None if b else x, in_batched, list(args))

        def one(mapped_args):
            return f(*tree_map(lambda b, m, k: m if b else k, in_batched, mapped_args, kept))

        out = lax_map(one, mapped)
        return out, tree_map(lambda _: True, out)

    return f
