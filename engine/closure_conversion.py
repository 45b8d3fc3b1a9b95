"""``custom_gradient`` and ``closure_convert``: custom derivatives for functions that close over values.

Both trace a Python function to a jaxpr and hoist the values it closes over into explicit
arguments (residuals), which is what ``custom_vjp`` needs to differentiate through them.

>>> import engine as jax
>>> @jax.custom_gradient
... def f(x):
...     return x ** 2, lambda g: (g * x,)
>>> jax.grad(f)(3.0)
Array(3., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from . import core
from .custom_derivatives import custom_vjp
from .ir import eval_jaxpr
from .staging import trace_to_jaxpr
from .tree_util import register_pytree_node_class, tree_flatten, tree_unflatten, treedef_is_leaf

__all__ = ["closure_convert", "custom_gradient"]


def _traced(fun, in_tree, in_avals):
    """``fun`` on flat arguments of ``in_avals``, staged: (closed jaxpr, output tree)."""
    out_trees = []

    def flat(*xs):
        out_leaves, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, list(xs))))
        out_trees.append(out_tree)
        return out_leaves

    closed = trace_to_jaxpr(flat, in_avals)
    return closed, out_trees[0]


def _aval(x):
    return core.raise_to_shaped(core.get_aval(x))


@register_pytree_node_class
class _Residuals:
    """The backward function of ``custom_gradient``, staged: its constants are the residual leaves."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts

    def tree_flatten(self):
        return self.consts, (self.jaxpr, self.in_tree, self.out_tree)

    @classmethod
    def tree_unflatten(cls, aux, consts):
        return cls(*aux, list(consts))


def custom_gradient(fun):
    """Define a function's gradient alongside its value, as TensorFlow's ``tf.custom_gradient``.

    ``fun`` returns ``(value, vjp)`` where ``vjp`` maps the output's cotangent to a tuple of
    cotangents, one per argument. ``vjp`` may close over values ``fun`` computed; it may not branch
    in Python on them (it is traced once, on the forward pass).

    >>> import engine as jax
    >>> @custom_gradient
    ... def f(x, y):
    ...     return x * y, lambda g: (g * y, g * x)
    >>> jax.grad(f, argnums=(0, 1))(3.0, 4.0)
    (Array(4., dtype=float32, weak_type=True), Array(3., dtype=float32, weak_type=True))
    """

    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        ans_leaves, out_tree = tree_flatten((ans,))
        ct_avals = [_aval(x) for x in ans_leaves]
        closed, ct_tree = _traced(rule, out_tree, ct_avals)
        return ans, _Residuals(closed.jaxpr, ct_tree, out_tree, list(closed.consts))

    def bwd(res, ct):
        ct_leaves, ct_tree = tree_flatten((ct,))
        if ct_tree != res.out_tree:
            raise TypeError(f"{res.out_tree}\n!=\n{ct_tree}")
        cts_in = tree_unflatten(res.in_tree, eval_jaxpr(res.jaxpr, ct_leaves, res.consts))
        return (cts_in,) if treedef_is_leaf(res.in_tree) else cts_in

    wrapped.defvjp(fwd, bwd)
    return wrapped


def closure_convert(fun, *example_args):
    """``fun`` specialized to ``example_args``' types, with the arrays it closes over hoisted out.

    Returns ``(converted, hoisted)``: ``converted(*args, *hoisted)`` computes ``fun(*args)``, and
    ``hoisted`` lists the closed-over values that a transformation may be tracing (constants stay
    inside), so a ``custom_vjp`` taking ``converted`` can differentiate with respect to them.

    >>> import engine.numpy as jnp
    >>> c = jnp.float32(2.0)
    >>> f, hoisted = closure_convert(lambda x: x * c, 1.0)
    >>> f(3.0, *hoisted)
    Array(6., dtype=float32)
    """
    leaves, in_tree = tree_flatten(example_args)
    closed, out_tree = _traced(lambda *a: fun(*a), in_tree, [_aval(x) for x in leaves])
    consts = list(closed.consts)
    traced = [i for i, c in enumerate(consts) if isinstance(c, core.Tracer)]
    hoisted = [consts[i] for i in traced]
    # (the hoisted tracers are not kept in the closure: they arrive as arguments, and a custom_jvp
    # rule closing over ``converted`` must not be seen to close over live tracers)
    kept = [None if isinstance(c, core.Tracer) else c for c in consts]
    del consts

    def converted(*args_and_hoisted):
        n = len(args_and_hoisted) - len(traced)
        args, extra = args_and_hoisted[:n], args_and_hoisted[n:]
        all_consts = list(kept)
        for i, v in zip(traced, extra):
            all_consts[i] = v
        arg_leaves, tree = tree_flatten(tuple(args))
        if tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same Pytree "
                f"structure as the example arguments passed when closure_convert was called. "
                f"Expected {in_tree}, but got {tree}"
            )
        return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, arg_leaves, all_consts))

    return converted, hoisted
