"""Mutable array references (``jax.new_ref``, ``jax.Ref``, ``jax.ref``): types in ``types``,
primitives and their rules in ``primitives``."""

from .. import core
from .primitives import (  # noqa: F401
    STATE_PRIMITIVES,
    addupdate_p,
    freeze,
    freeze_p,
    get_p,
    new_ref,
    new_ref_p,
    ref_addupdate,
    ref_get,
    ref_set,
    ref_swap,
    swap_p,
)
from .types import AbstractRef, Ref, is_ref  # noqa: F401
from . import jvp, transpose, vmap  # noqa: F401,E402  (the JVP, transpose and batching rules)

core.pytype_aval_mappings[Ref] = lambda r: r.aval
