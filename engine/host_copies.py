"""A caller's numpy arrays as the engine holds them. JAX copies a host array to its device, so the
caller's later writes change nothing the engine holds, and the caller's array stays writable (an
``Array`` freezes what it holds): the engine copies one while the caller can still write to it."""

from __future__ import annotations

from typing import Any

import numpy as np


def host_copy(x: np.ndarray) -> np.ndarray:
    """``x``, copied if it is writable."""
    return x.copy() if x.flags.writeable else x


def host_operand(given: Any, x: Any) -> Any:
    """A primitive's operand ``given`` as a host value, in numpy (``x``): copied if it is the
    caller's writable numpy array, since results may alias it (a reshape) or hold it."""
    return host_copy(x) if x is given and type(x) is np.ndarray else x
