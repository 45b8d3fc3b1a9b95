"""Symbolic zeros in custom derivative rules (``jax.custom_derivatives``): ``SymbolicZero``,
``CustomVJPPrimal``, ``zero_from_primal`` and ``custom_vjp_primal_tree_values``.

With ``defjvp(..., symbolic_zeros=True)`` a JVP rule gets a ``SymbolicZero`` for each input whose
tangent is known to be zero (and may return one); with ``defvjp(..., symbolic_zeros=True)`` the
fwd rule gets each argument as ``CustomVJPPrimal(value, perturbed)``, and the bwd rule gets
``SymbolicZero`` cotangents for outputs nothing depends on and may return ``SymbolicZero``/None.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import ad, core
from .tree_util import tree_map


class SymbolicZero:
    """A tangent or cotangent known to be zero, of type ``aval`` (not materialized).

    >>> z = SymbolicZero(jax.core.ShapedArray((2,), jnp.float32))
    >>> z.shape, z.dtype
    ((2,), dtype('float32'))
    """

    def __init__(self, aval: core.ShapedArray):
        self.aval = aval

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "SymbolicZero"  # (as JAX prints it)

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: int(core.np.prod(self.aval.shape)))

    def instantiate(self) -> Any:
        return ad.zeros_like_aval(self.aval)


class CustomVJPPrimal(NamedTuple):
    """An argument as a symbolic-zeros fwd rule gets it: its value, and whether it is perturbed
    (has a nonzero tangent, i.e. is differentiated)."""

    value: Any
    perturbed: bool


def zero_from_primal(val, symbolic_zeros: bool = False):
    """Zero tangents for the primal pytree ``val`` (``SymbolicZero``s if ``symbolic_zeros``).

    >>> zero_from_primal(jnp.ones(2))
    Array([0., 0.], dtype=float32)
    """

    def zero(x):
        primal = core.get_aval(x)
        aval = ad.tangent_aval(primal)
        weak = primal.weak_type and aval.dtype == primal.dtype
        return SymbolicZero(aval) if symbolic_zeros else core.array_of(ad.zeros_like_aval(aval), weak)

    return tree_map(zero, val)


def custom_vjp_primal_tree_values(tree):
    """The values of a pytree of ``CustomVJPPrimal``s."""

    def value(x):
        if not isinstance(x, CustomVJPPrimal):
            raise TypeError(f"unexpected leaf type {type(x)}")
        return x.value

    return tree_map(value, tree, is_leaf=lambda x: isinstance(x, CustomVJPPrimal))


def rule_tangent(t, aval, symbolic: bool):
    """A tangent as a rule gets it: a zero is a ``SymbolicZero`` for a symbolic-zeros rule, else
    materialized."""
    if type(t) is ad.Zero:
        return SymbolicZero(t.aval) if symbolic else ad.instantiate_zeros(t)
    return t


def from_rule(t, aval):
    """A rule's tangent back: ``SymbolicZero`` (and None) are ``ad.Zero``."""
    if t is None or isinstance(t, SymbolicZero):
        return ad.Zero(ad.tangent_aval(aval))
    return t
