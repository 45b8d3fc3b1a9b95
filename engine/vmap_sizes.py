"""The error for arguments whose mapped axes disagree in size, in the words of JAX's vmap: each
size once, the most common first, with an example axis named by the argument it is in (the
function's parameter name and the leaf's key path) and that argument's type.

>>> import numpy as np
>>> print(inconsistent_sizes("vmap", lambda a, b: a, (np.ones(3, np.float32), np.ones(4, np.float32)), {}, [0, 0], None))
vmap got inconsistent sizes for array axes to be mapped:
  * one axis had size 3: axis 0 of argument a of type float32[3];
  * one axis had size 4: axis 0 of argument b of type float32[4]
"""

from __future__ import annotations

import collections
import inspect
from typing import Any, Callable, Sequence

from . import core
from .pytree.flatten import tree_flatten_with_path
from .pytree.keys import keystr


def _type(x: Any) -> str:
    try:  # (the full dtype name, no weak-type mark: ``float32[3]``)
        return str(core.get_aval(x)).lstrip("~")
    except TypeError:
        return "unknown"


def _parameters(fun: Callable, args: tuple, kwargs: dict) -> list[str] | None:
    try:
        return list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        return None


def inconsistent_sizes(
    name: str, fun: Callable, args: tuple, kwargs: dict, dims: Sequence[int | None], axis_size: int | None
) -> str:
    """The message; ``dims`` is each flat leaf's mapped axis (None: not mapped), leaves in
    ``(args, kwargs)`` order."""
    params = _parameters(fun, args, kwargs)

    def arg_name(path: tuple) -> str:
        i = path[0].idx
        if params is None or i >= len(params):  # (a ``*args`` parameter past its first value)
            return f"args{keystr(path)}"
        return f"argument {params[i]}{keystr(path[1:])}"

    leaves = [(f"{arg_name(p)} of type {_type(x)}", x) for p, x in tree_flatten_with_path(args)[0]]
    leaves += [(f"kwargs{keystr(p)} of type {_type(x)}", x) for p, x in tree_flatten_with_path(kwargs)[0]]
    sizes = [None if d is None else core.get_aval(x).shape[d] for (_, x), d in zip(leaves, dims)]
    counts = collections.Counter(s for s in sizes if s is not None).most_common()
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size}"]
    for k, (size, count) in enumerate(counts):
        i = sizes.index(size)  # (the first axis of this size is the example)
        where = f"axis {dims[i]} of {leaves[i][0]}"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {where}")
        else:
            lines.append(
                f"  * {'most' if k == 0 else 'some'} axes ({count} of them) had size {size}, e.g. {where}"
            )
    return f"{name} got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)
