"""``jax.debug_key_reuse``: a typed PRNG key drawn from (``random_bits``) or split once is consumed;
using it again raises ``jax.errors.KeyReuseError``, with JAX's messages.

Eagerly, the engine's samplers draw from concrete keys: each draw or split consumes its key. A
``jit`` call consumes the key arguments its program draws from or splits (found in its jaxpr,
nested ``jit`` calls included), and a program that consumes one of its arguments twice is refused
when called. ``fold_in`` and ``key_data`` do not consume, as in JAX. Raw ``uint32`` keys are not
tracked. Off (the default), each hook is one list read.
"""

from __future__ import annotations

import weakref

from .errors import KeyReuseError

# jax_debug_key_reuse, kept here by config.update.
active = [False]
_CONSUMING = frozenset({"random_bits", "random_split"})
_consumed: dict[int, weakref.ref] = {}  # id(key) -> the consumed key (arrays are unhashable)


def _is_consumed(key) -> bool:
    ref = _consumed.get(id(key))
    return ref is not None and ref() is key


def _consume(key) -> None:
    k = id(key)
    _consumed[k] = weakref.ref(key, lambda _r: _consumed.pop(k, None))


def _typed_concrete(x) -> bool:
    from .random_keys import PRNGKeyArray

    return isinstance(x, PRNGKeyArray)


# The jax.random functions JAX does not jit: a consumed key reaches their primitive, which names itself.
_NOT_JITTED = frozenset({"bits", "split", "fold_in", "key_data"})


def sampler_entry(name: str, key) -> None:
    """``key`` enters the jax.random function ``name`` (a jitted sampler in JAX: its argument 0)."""
    if name not in _NOT_JITTED and _typed_concrete(key) and _is_consumed(key):
        raise KeyReuseError("Previously-consumed key passed to jit-compiled function at index 0")


def eager_use(primitive: str, key) -> None:
    """A concrete key is drawn from or split now (by the primitive named ``primitive``)."""
    if not _typed_concrete(key):
        return
    if _is_consumed(key):
        raise KeyReuseError(f"Previously-consumed key passed to {primitive} at index 0")
    _consume(key)


def jit_call(jaxpr, leaves, num_hoisted: int) -> None:
    """A ``jit`` program is called on ``leaves``: refuse consumed keys it would consume, then mark them."""
    consumed = consumed_inputs(jaxpr.jaxpr)
    for i, x in enumerate(leaves):
        if num_hoisted + i in consumed and _typed_concrete(x) and _is_consumed(x):
            raise KeyReuseError(f"Previously-consumed key passed to jit-compiled function at index {i}")
    for i, x in enumerate(leaves):
        if num_hoisted + i in consumed and _typed_concrete(x):
            _consume(x)


def consumed_inputs(jaxpr) -> set[int]:
    """The positions of ``jaxpr``'s inputs it draws from or splits; an input consumed twice is a
    KeyReuseError (JAX's "In jit, argument i is already consumed.")."""
    inputs = {v: i for i, v in enumerate(jaxpr.in_binders)}
    used: set = set()
    for eqn in jaxpr.eqns:
        inner = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
        if eqn.primitive.name in _CONSUMING:
            operands = [eqn.inputs[0]]
        elif inner is not None:
            inner_jaxpr = getattr(inner, "jaxpr", inner)
            operands = [eqn.inputs[j] for j in sorted(consumed_inputs(inner_jaxpr))]
        else:
            continue
        for v in operands:
            if v in used and v in inputs:
                raise KeyReuseError(f"In jit, argument {inputs[v]} is already consumed.")
            used.add(v)
    return {inputs[v] for v in used if v in inputs}
