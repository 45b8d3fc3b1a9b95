"""How an array prints: JAX's ``Array.__repr__`` layout."""

from __future__ import annotations

import numpy as np


def array_repr(v: np.ndarray, dtype: str, prefix: str = "Array(") -> str:
    """``Array([...], dtype=...)`` laid out as JAX's repr lays it out: numpy's lines for the values
    (an empty array says its shape), and where the last line leaves no room for ``dtype``, the
    prefix's width of spaces before it, on the same line (JAX's own quirk)."""
    width = np.get_printoptions()["linewidth"]
    if v.size == 0:
        s = f"[], shape={v.shape}"
    else:
        s = np.array2string(v, prefix=prefix, suffix=",", separator=", ", max_line_width=width)
    last_line = len(s) - s.rfind("\n") + 1
    sep = " " * len(prefix) if last_line + len(dtype) + 2 > width else " "
    return f"{prefix}{s},{sep}{dtype})"
