"""What ``jit`` makes of its ``static_argnums``/``static_argnames`` and ``donate_argnums``/
``donate_argnames`` against the function's signature, as JAX does: numbers inferred from names
and names from numbers, and a ``ValueError`` at ``jit`` time for a number past the positional
parameters or a name the function does not take (JAX's words), rather than a call that silently
treats no argument as static.

    >>> def f(x, n):
    ...     return x * n
    >>> resolve(signature(f), 1, None)
    ((1,), ('n',))
    >>> resolve(signature(f), 3, None)
    Traceback (most recent call last):
    ...
    ValueError: Jitted function has static_argnums=(3,), but only accepts 2 positional arguments.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_KEYWORD = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def signature(fun: Callable[..., Any]) -> inspect.Signature | None:
    """``fun``'s signature, or None for a callable whose signature Python cannot tell."""
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def resolve(
    sig: inspect.Signature | None,
    argnums: int | Sequence[int] | None,
    argnames: str | Sequence[str] | None,
    what: str = "static",
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """``{what}_argnums`` and ``{what}_argnames`` completed from each other through the function's
    signature ``sig`` and checked against it (neither when the signature is unknown: None)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums or ())
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames or ())
    if sig is None:
        return nums, names
    params = list(sig.parameters.values())
    either = [i for i, p in enumerate(params) if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    if names and not nums:  # (given one, JAX infers the other; given both, neither)
        nums = tuple(i for i in either if params[i].name in names)
    elif nums and not names:
        names = tuple(params[i].name for i in either if i in nums)
    positional = [p.name for p in params if p.kind in _POSITIONAL]
    if not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params) and nums:
        if -min(nums) > len(positional) or max(nums) >= len(positional):
            raise ValueError(
                f"Jitted function has {what}_argnums={nums}, but only accepts {len(positional)} positional arguments."
            )
    positional_only = {p.name for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY} & set(names)
    if positional_only:
        raise ValueError(
            f"Jitted function has invalid argnames {positional_only} in {what}_argnames. These are positional-only"
        )
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        unknown = set(names) - {p.name for p in params if p.kind in _KEYWORD}
        if unknown:
            raise ValueError(
                f"Jitted function has invalid argnames {unknown} in {what}_argnames. Function does not take these args."
            )
    return nums, names
