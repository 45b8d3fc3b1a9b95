"""Buffer donation: ``jit(f, donate_argnums=...)`` hands the donated arguments' buffers to the call.

As XLA's CPU client does, a donated array whose buffer an output of the same shape and dtype can
take is deleted by the call (each output takes one buffer, donated arguments in order); using it
afterwards raises ``RuntimeError: Array has been deleted with shape=float32[2,3].``. Donated
arrays no output can take stay alive, with JAX's warning. Donation applies to concrete arrays
only: a jit called while tracing is inlined, and donates nothing.

    >>> import engine as jax, engine.numpy as jnp
    >>> y = jnp.ones(3)
    >>> z = jax.jit(lambda x, y: x + y, donate_argnums=1)(jnp.ones(3), y)
    >>> y.is_deleted()
    True
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

from . import core


def _type_name(aval: core.ShapedArray) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _gone(self: core.Array) -> Any:
    raise RuntimeError(f"Array has been deleted with shape={_type_name(self._aval)}.")


_deleted_types: dict[tuple[type, bool], type] = {}


def _deletable(x: Any) -> bool:
    from .parallel.sharded import ShardedArray  # (arrays on devices are donated as well)

    return type(x) is core.Array or type(x) is ShardedArray


def delete(x: core.Array, donated: bool = False) -> None:
    """Free ``x``'s buffer: any later use of ``x`` raises a RuntimeError, as in JAX. The array keeps
    its type (shape, dtype) and its class name; its class becomes a subclass whose value raises."""
    if not _deletable(x):
        raise TypeError(f"cannot delete a {type(x).__name__}")
    cls = type(x)
    deleted = _deleted_types.get((cls, donated))
    if deleted is None:
        attrs = {"__slots__": (), "__module__": cls.__module__, "_value": property(_gone), "is_deleted": _yes}
        attrs.update(_TYPE_ATTRS, donated=donated)
        deleted = _deleted_types[cls, donated] = type(cls.__name__, (cls,), attrs)
    x._aval = x.aval
    if cls is core.Array:
        del x._value
    else:
        x._buffers, x._cache = [], None  # type: ignore[attr-defined]
    x.__class__ = deleted


def _yes(self: core.Array) -> bool:
    return True


# what a deleted array still answers (from its type, as JAX's do)
_TYPE_ATTRS = {
    "shape": property(lambda self: self._aval.shape),
    "dtype": property(lambda self: self._aval.dtype),
    "ndim": property(lambda self: len(self._aval.shape)),
    "size": property(lambda self: self._aval.size),
}


def check_not_donated(leaves: Sequence[Any]) -> None:
    """A donated array passed to a program compiled before raises as XLA's runtime does there
    (JAX's dispatch checks deletion only when it traces; its runtime sees the donated buffer)."""
    for i, x in enumerate(leaves):
        if getattr(type(x), "donated", False):
            raise ValueError(
                f"INVALID_ARGUMENT: Invalid buffer passed to Execute() as argument {i} to replica 0: "
                "INVALID_ARGUMENT: Buffer has been deleted or donated."
            )


core.Array.delete = delete  # type: ignore[attr-defined]
core.Array.is_deleted = lambda self: False  # type: ignore[attr-defined]


def donate(donated: Sequence[Any], outs: Sequence[Any]) -> None:
    """Delete the ``donated`` arrays an output of ``outs`` can reuse; warn about the others."""
    free: dict[tuple, int] = {}
    for o in outs:
        if isinstance(o, core.Array):
            free[o.shape, o.dtype] = free.get((o.shape, o.dtype), 0) + 1
    unusable = []
    for x in donated:
        if not _deletable(x):
            continue
        if free.get((x.shape, x.dtype)):
            free[x.shape, x.dtype] -= 1
            delete(x, donated=True)
        else:
            unusable.append(_type_name(x.aval))
    if unusable:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unusable)}.\n"
            "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            stacklevel=3,
        )


def argnums_and_names(
    argnums: int | Sequence[int] | None, argnames: str | Sequence[str] | None, params: Sequence[str] | None
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """``jit``'s ``donate_argnums`` with the positions of ``donate_argnames`` added (so a named
    argument passed by position is donated too), and the names (for arguments passed by keyword)."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums or ())
    names = (argnames,) if isinstance(argnames, str) else tuple(argnames or ())
    nums += tuple(params.index(n) for n in names if params is not None and n in params)
    return tuple(dict.fromkeys(nums)), names


def of_call(jitted: Any, args: Sequence[Any], kwargs: dict, skip: Sequence[int]) -> list[bool] | None:
    """``flags`` of a call of ``jitted`` (a jit function), None where it donates nothing."""
    if not (jitted.donate_argnums or jitted.donate_argnames):
        return None
    return flags(jitted.donate_argnums, jitted.donate_argnames, args, kwargs, skip)


def flags(
    argnums: Sequence[int],
    argnames: Sequence[str],
    args: Sequence[Any],
    kwargs: dict,
    skip: Sequence[int] = (),
) -> list[bool]:
    """Whether each argument leaf is donated: the positional ones (those not in ``skip``, the
    static ones) in order, then the keyword ones by sorted name, as the call flattens them."""
    from .tree_util import tree_leaves

    pos = [i in argnums for i, a in enumerate(args) if i not in skip for _ in tree_leaves(a)]
    return pos + [k in argnames for k in sorted(kwargs) for _ in tree_leaves(kwargs[k])]
