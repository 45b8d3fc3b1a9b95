"""``jax.empty_ref`` and ``jax.free_ref``: a ref of a given type whose initial values nobody should
read (zeros in the engine, as JAX's discharge makes them), and the end of a ref's life.

As in JAX, ``empty_ref`` has no eager rule: it is for staged programs (``jit``, ``make_jaxpr``),
where it is an ``empty_ref`` equation; a program with one is discharged into a pure one (the ref a
zeros value threaded through it) before it is compiled. Outside any staging (eagerly, or under
``grad``/``vmap``/``jvp`` alone) it is refused, as JAX refuses it. Inside a non-staging
transformation that something stages (``jit(grad(f))``) the ref is functional, as refs made there
are (``engine.state.primitives``), but inside ``jvp`` or ``grad`` it is a pair, a primal and a
tangent ``empty_ref`` (``state.jvp``, as JAX's linearization makes them); made inside a ``vmap`` it is unbatched there (JAX's vmap leaves
an ``empty_ref`` to its parent), so any write into it is refused with JAX's words.

``free_ref`` stages a ``free_ref`` equation (kept although it has no outputs). Eagerly it does
nothing, as in JAX; a jitted program's discharge forgets the ref there (and at a ``freeze`` whose
value is read), so a later use is refused as JAX's discharge refuses it (``primitives.check_live``).
A ref made inside a ``vmap`` is batched, and ``free_ref`` has no batching rule in JAX: refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core, ir
from ..core import ShapedArray, Value
from . import primitives
from .types import AbstractRef, Ref, is_ref


class _AllocationPrimitive(core.Primitive):
    """Binds by where the ref is made, as ``new_ref`` does (see ``engine.state.primitives``)."""

    def bind(self, *args: Value, **params: Any) -> Any:
        if self is empty_ref_p and len(core._state.stack) > 1 and not primitives._staging_innermost():
            from .jvp import empty_ref_pair, innermost, is_forward_mode

            main = innermost(core._state.stack)
            if main is not None and is_forward_mode(main):  # (jvp, grad: a primal and a tangent ref)
                return empty_ref_pair(main, params)
            return _functional_empty_ref(**params)  # (vmap, a discharge: a functional ref of zeros)
        if self is free_ref_p and isinstance(args[0], Ref) and args[0].is_traced:
            ref = args[0]
            if ref.vmapped == "batched":
                raise NotImplementedError("Batching rule for 'free_ref' not implemented")
            primitives.check_live(self, ref)
            ref.freed = ref.level in primitives.discharging  # (a jitted program's discharge forgets it)
            return []  # (a functional ref: nothing to free)
        return core.Primitive.bind(self, *args, **params)


empty_ref_p = _AllocationPrimitive("empty_ref")
free_ref_p = _AllocationPrimitive("free_ref", multiple_results=True)
for _p in (empty_ref_p, free_ref_p):
    ir.effectful.add(_p)  # never dropped as dead code: their effect is the point
    ir.ref_effects.add(_p)


def _zeros(ty: ShapedArray) -> np.ndarray:
    return np.zeros(ty.shape, ty.dtype)


def _functional_empty_ref(*, ty: ShapedArray, memory_space: Any) -> Ref:
    from .. import lax

    ref = Ref(lax.full(ty.shape, 0, ty.dtype, weak_type=ty.weak_type), ty, traced=True)
    if primitives.vmap_inside_program():
        ref.vmapped = "unbatched"  # (JAX's empty_ref has no batching rule: the vmap's parent makes it)
    return ref


# The interpreter's rules (a program whose state could not be discharged runs on it).
empty_ref_p.def_impl(lambda *, ty, memory_space: Ref(_zeros(ty), ty))
free_ref_p.def_impl(lambda ref: [])
empty_ref_p.def_abstract_eval(lambda *, ty, memory_space: AbstractRef(ty))
free_ref_p.def_abstract_eval(lambda ref: [])


def empty_ref(ty: Any, memory_space: Any = None) -> Any:
    """A new ref of type ``ty`` (a ``ShapeDtypeStruct``, an array's ``jax.typeof``, an array),
    its initial values unspecified; inside ``jit`` (JAX has no eager rule for it either).

    >>> import engine as jax, engine.numpy as jnp
    >>> def f(x):
    ...     r = jax.empty_ref(jax.typeof(x))
    ...     r[...] = x * 2
    ...     return jax.freeze(r)
    >>> jax.jit(f)(jnp.arange(3.))
    Array([0., 2., 4.], dtype=float32)
    """
    from ..jit import abstractify

    if is_ref(ty) or isinstance(ty, AbstractRef):
        raise ValueError("Cannot make a Ref of a Ref (no higher-order refs).")
    aval = ty if isinstance(ty, ShapedArray) else abstractify(ty)
    aval = ShapedArray(aval.shape, aval.dtype, aval.weak_type)  # (a typeof's sharded type: its plain one)
    if core._state.dynamic is None:  # (eager, or only non-staging transformations: grad, vmap)
        raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented")
    return empty_ref_p.bind(ty=aval, memory_space=memory_space)


def free_ref(ref: Any) -> tuple:
    """End ``ref``'s life: it should not be used afterwards. Returns ``()``, as JAX's.

    >>> import engine as jax
    >>> jax.free_ref(jax.new_ref(1.0))
    ()
    """
    free_ref_p.bind(ref)
    return ()
