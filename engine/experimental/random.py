"""``jax.experimental.random``: a stateful PRNG, numpy-``Generator`` style, on a typed key and a
counter held in a :class:`jax.Ref`.

Each draw folds the counter into the base key and increments the counter, so draws are
reproducible from the seed and differ from one another; the state is updated implicitly, also
inside ``jit`` (through the ref).

  >>> rng = stateful_rng(0)
  >>> rng.key()
  Array((), dtype=key<fry>) overlaying:
  [1797259609 2579123966]
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Sequence

import numpy as np

from .. import random
from ..state import Ref, new_ref
from ..tree_util import register_dataclass


def _size(size: int | Sequence[int] | None, *args: Any) -> tuple[int, ...]:
    if size is None:
        return tuple(np.broadcast_shapes(*(np.shape(a) for a in args)))
    if isinstance(size, (int, np.integer)):
        return (operator.index(size),)
    return tuple(operator.index(s) for s in size)


@register_dataclass
@dataclasses.dataclass(frozen=True, slots=True)
class StatefulPRNG:
    """A random generator whose state (a counter in a ref) advances with every draw; make one with
    :func:`stateful_rng`. ``split(n)`` gives a generator mapped over ``n`` for ``jax.vmap``."""

    _base_key: Any
    _counter: Any

    def key(self, shape: int | Sequence[int] = ()) -> Any:
        """A fresh typed key (or ``shape`` of them), advancing the state."""
        if self._base_key.shape:
            raise ValueError("cannot operate on split stateful generator")
        k = random.fold_in(self._base_key, self._counter[...])
        self._counter.addupdate(1)  # (JAX adds in place: an addupdate, not a swap)
        shape = _size(shape)
        return random.split(k, shape) if shape else k

    def random(self, size: int | Sequence[int] | None = None, dtype: Any = float) -> Any:
        """Floats uniform in [0, 1)."""
        return random.uniform(self.key(), shape=_size(size), dtype=dtype)

    def uniform(self, low: Any = 0, high: Any = 1, size: Any = None, *, dtype: Any = float) -> Any:
        return random.uniform(self.key(), _size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def normal(self, loc: Any = 0, scale: Any = 1, size: Any = None, *, dtype: Any = float) -> Any:
        import engine.numpy as jnp

        z = random.normal(self.key(), _size(size, loc, scale), dtype)
        return (jnp.asarray(loc) + jnp.asarray(scale) * z).astype(dtype)

    def integers(self, low: Any, high: Any = None, size: Any = None, *, dtype: Any = int) -> Any:
        if high is None:
            low, high = 0, low
        return random.randint(self.key(), _size(size, low, high), minval=low, maxval=high, dtype=dtype)

    def split(self, num: int | Sequence[int]) -> StatefulPRNG:
        """One generator mapped over ``num`` (for ``jax.vmap``), from a fresh key of this one."""
        import engine.numpy as jnp

        return StatefulPRNG(self.key(num), new_ref(jnp.zeros(num, dtype=int)))

    def spawn(self, n_children: int) -> list[StatefulPRNG]:
        """``n_children`` independent generators, as a list."""
        return [StatefulPRNG(k, new_ref(0)) for k in self.key(n_children)]


def stateful_rng(seed: Any = None, *, impl: Any = None) -> StatefulPRNG:
    """A :class:`StatefulPRNG` seeded with ``seed`` (numpy's entropy when None).

    >>> rng = stateful_rng(42)
    >>> rng.integers(0, 10, 3).shape
    (3,)
    """
    if seed is None:
        seed = np.random.default_rng().integers(np.iinfo(np.int32).max)
    base = random.key(seed) if impl is None else random.key(seed, impl=impl)
    return StatefulPRNG(base, new_ref(0))


__all__ = ["Ref", "StatefulPRNG", "stateful_rng"]
