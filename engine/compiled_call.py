"""The checks a compiled executable (``jit(f).lower(...).compile()``) makes on the arguments it is
called with, in JAX's words: the executable runs only the pytree and the argument types it was
compiled for (it would otherwise compute a wrong result, or fail with its backend's own error).

>>> import engine as jax, engine.numpy as jnp
>>> c = jax.jit(lambda x, y: x + y).lower(1.0, jnp.ones(2)).compile()
>>> c(1.0, jnp.ones(3))
Traceback (most recent call last):
...
TypeError: Argument types differ from the types for which this computation was compiled. Perhaps you are calling the compiled executable with a different enable_x64 mode than when it was AOT compiled? The mismatches are:
Argument 'y' compiled with float32[2] and called with float32[3]
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .core import Tracer
from .pytree.equality import equality_errors
from .pytree.treedef import PyTreeDef
from .tree_util import keystr


def check_call_tree(in_tree: PyTreeDef, compiled_tree: PyTreeDef) -> None:
    """JAX's TypeError for a compiled function called with another pytree of arguments than its
    ``(args, kwargs)``."""
    if in_tree == compiled_tree:
        return
    errs = list(equality_errors(in_tree, compiled_tree))
    msg = [
        "Function compiled with input pytree does not match the input pytree it was called with. "
        f"There are {len(errs)} mismatches, including:"
    ]
    for path, now, seen, why in errs:
        first, *rest = path
        base = ("args", "kwargs")[first.idx]
        msg.append(f"    * at {base}{keystr(tuple(rest))}, seen {seen} but now given {now}, so {why}")
    raise TypeError("\n".join(msg))


def check_no_tracers(leaves: Sequence[Any]) -> None:
    """A compiled executable is for one signature: transformations cannot trace through it."""
    for x in leaves:
        if isinstance(x, Tracer):
            raise TypeError(
                "Cannot apply JAX transformations to a function lowered and compiled for a particular "
                f"signature. Detected argument of Tracer type {type(x)}."
            )


def _short(a: Any) -> str:  # (JAX's str_short with full dtype names: ``int32[3]``)
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def check_call_avals(
    compiled: Sequence[Any], given: Sequence[Any], names: Callable[[], list[str]] | None
) -> None:
    """JAX's TypeError for arguments whose shape or dtype is not the compiled one; ``names`` gives
    the arguments' names as JAX's errors spell them (``x``, ``p['a']``)."""
    if len(compiled) != len(given):
        raise TypeError(f"Computation compiled for {len(compiled)} inputs but called with {len(given)}")
    bad = [i for i, (a, b) in enumerate(zip(compiled, given)) if (a.shape, a.dtype) != (b.shape, b.dtype)]
    if not bad:
        return
    spelled = names() if names is not None else []
    if len(spelled) != len(given):
        spelled = [f"{i + 1}/{len(given)}" for i in range(len(given))]
    lines = [
        f"Argument '{spelled[i]}' compiled with {_short(compiled[i])} and called with {_short(given[i])}"
        for i in bad
    ]
    count = "The" if len(bad) < 5 else f"The first 5 of {len(bad)}"
    raise TypeError(
        "Argument types differ from the types for which this computation was compiled. Perhaps you are "
        "calling the compiled executable with a different enable_x64 mode than when it was AOT compiled? "
        f"{count} mismatches are:\n" + "\n".join(lines[:5])
    )
