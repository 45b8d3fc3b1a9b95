"""``jax.typing``: the annotations JAX code uses for array-like and dtype-like arguments.

>>> from engine.typing import ArrayLike
>>> def double(x: ArrayLike): return 2 * x
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from .basearray import Array

__all__ = ["ArrayLike", "DTypeLike"]

# As in JAX: a jax.Array (concrete or traced), a numpy array or scalar, or a Python scalar.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]
# A dtype, a name for one ("float32"), a scalar type (np.float32, float), or anything with ``.dtype``.
DTypeLike = Union[str, type[Any], np.dtype, Any]
