"""``lax.composite``: an operation named for the compiler, with its meaning given by a
decomposition function.

The decomposition is traced to a jaxpr and bound as one ``composite`` equation (``name``,
``version``, the keyword arguments as ``attributes``), printed and lowered (``stablehlo.composite``
calling a private function of that name) as JAX does. Evaluating or compiling it runs the
decomposition. As in JAX 0.10.2 it has no differentiation or batching rule: ``jvp``/``grad`` raise
ValueError and ``vmap`` NotImplementedError (wrap it in ``custom_jvp``/``custom_vjp`` to
differentiate it).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable

import numpy as np

from .. import ad, core, ir
from ..backends.rows import Special, lowerings
from ..errors import UnexpectedTracerError
from ..ir import eval_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from .control_flow_common import _trace

__all__ = ["composite", "composite_p", "check_composite_name"]

composite_p = core.Primitive("composite", multiple_results=True)


class HashableArray:
    """A numpy attribute of a composite, hashable as an equation parameter must be."""

    __slots__ = ("val",)

    def __init__(self, val: np.ndarray):
        self.val = val

    def __repr__(self) -> str:
        return f"HashableArray({self.val!r})"

    def __hash__(self) -> int:
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashableArray) and np.array_equal(self.val, other.val)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """A function computing ``decomposition`` as one ``composite`` operation called ``name``;
    its positional arguments are the operation's operands, its keyword arguments attributes
    (static: Python values or numpy arrays; those passed as None are left out of the lowering).

    >>> tan = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name="my.tangent")
    >>> tan(jnp.array([0.0, 0.5]))
    Array([0.       , 0.5463025], dtype=float32)
    """

    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        flat_args, in_tree = tree_flatten(args)
        if any(isinstance(v, core.Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as an attribute in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value that is "
                "involved in a JAX transformation. Any values that aren't explicitly known at compile "
                "time must be explicitly passed as arguments to the composite.\n\nNote: If you are "
                "passing jax arrays as attributes, use numpy arrays instead."
            )
        out_trees = []

        def flat(*xs):
            out = decomposition(*tree_unflatten(in_tree, list(xs)), **kwargs)
            leaves, tree = tree_flatten(out)
            out_trees.append(tree)
            return leaves

        jaxpr, consts = _trace(flat, [core.get_aval(x) for x in flat_args])
        attributes = []
        for k, v in kwargs.items():
            leaves, treedef = tree_flatten(v)
            leaves = tuple(HashableArray(x) if isinstance(x, np.ndarray) else x for x in leaves)
            attributes.append((k, leaves, treedef))
        outs = composite_p.bind(
            *consts, *flat_args, name=name, attributes=tuple(attributes), version=version, jaxpr=jaxpr
        )
        return tree_unflatten(out_trees[0], outs)

    return call


def attribute_values(attributes) -> dict[str, Any]:
    """The attributes as the lowering states them: name -> value, those that were None left out."""
    values = {
        k: tree_unflatten(treedef, [getattr(x, "val", x) for x in leaves])
        for k, leaves, treedef in attributes
    }
    return {k: v for k, v in values.items() if v is not None}


def _impl(*args, jaxpr, **_):
    return [
        core.to_numpy(o)
        for o in eval_jaxpr(
            jaxpr.jaxpr, [core.Array(a) if isinstance(a, np.ndarray) else a for a in args], jaxpr.consts
        )
    ]


def _abstract_eval(*avals, jaxpr, **_):
    return list(jaxpr.out_avals)


def _no_jvp(*_, **__):
    raise ValueError(
        "JVP rule for composite not implemented. You can use `jax.custom_jvp` to add support. See "
        "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html"
    )


def _no_transpose(*_, **__):
    raise ValueError(
        "Transpose rule for composite not implemented. You can use`jax.custom_jvp` or `jax.custom_vjp` "
        "to add support. See https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html"
    )


# StableHLO's verifier: a composite is named namespace.op. JAX lowers every jit, so calling a jit of
# a badly named composite fails (evaluated eagerly, the name is never checked).
_NAME = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$")


def check_composite_name(name: object) -> None:
    if not isinstance(name, str):
        raise TypeError(f"composite name must be a str to be lowered, got {type(name).__name__}: {name!r}")
    if not _NAME.fullmatch(name):
        raise ValueError(
            "Cannot lower jaxpr with verifier errors:\n\tname must be a valid namespaced op name, i.e. it "
            f'must match the following regular expression: {_NAME.pattern} e.g. "my_namespace.my_op"'
            f"\n\t\t(the name is {name!r})"
        )


composite_p.def_impl(_impl)
composite_p.def_abstract_eval(_abstract_eval)
composite_p.weak_from_abstract_eval = True  # (the decomposition's outputs say, as its jaxpr's avals)
ad.jvp_rules[composite_p] = _no_jvp
ad.transpose_rules[composite_p] = _no_transpose
lowerings[composite_p] = Special("inline")  # compiled code runs the decomposition
ir.lowering_refusals[composite_p] = lambda eqn: check_composite_name(eqn.params["name"])
