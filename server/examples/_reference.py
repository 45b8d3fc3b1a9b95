"""Helpers for writing examples: expected values come from plain numpy references."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.inspect.schema import TransformSpec

from ..models import ExpectedLeaf


def leaf(value: npt.ArrayLike, rtol: float = 2e-4, atol: float = 2e-5) -> ExpectedLeaf:
    a = np.asarray(value, dtype=np.float64)
    return ExpectedLeaf(shape=list(a.shape), data=a.ravel().tolist(), rtol=rtol, atol=atol)


def t(name: str, **options: str) -> TransformSpec:
    """A stack layer; options are Python expressions, as in code: ``t('vmap', in_axes='(None, 0)')``."""
    return TransformSpec(name=name, options=options)
