"""Checks before an eager primitive runs: a primitive in ``core.eager_checked`` has its abstract
evaluation run first, as JAX runs every eager operation through its shape rules (numpy would
clamp a slice that does not fit, or promote dtypes, where JAX raises)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .core import Primitive


def check_eagerly(
    primitive: "Primitive", vals: Sequence[Any], args: Sequence[Any], params: dict[str, Any]
) -> None:
    """``primitive``'s abstract evaluation, once per operand types and params: what passed it once
    passes again (a gather in an eager loop pays for its checks on the first step only)."""
    try:
        key = (primitive, *[(a.shape, a.dtype) for a in args], *params.items())
        if key in _checked_eagerly:
            return
    except TypeError:  # (a param that is no key, e.g. a list: checked each time)
        key = None
    from .core import get_aval

    primitive.abstract_eval(*[get_aval(v) for v in vals], **params)
    if key is not None:
        if len(_checked_eagerly) > 4096:
            _checked_eagerly.clear()
        _checked_eagerly.add(key)


_checked_eagerly: set[tuple[object, ...]] = set()
