"""Why ``jit`` traced a function again: of the signatures it had traced the function for, the
closest one and what differs from it, told in JAX 0.10.2's words (what ``jax_explain_cache_misses``
logs) and kept for the playground's report.

``jit`` asks only on a miss, and only while someone listens (the report) or the flag is on: a
cache hit never comes here. As in JAX, "closest" is the smallest (severity, number of differences,
message) over the seen signatures, severities ranked: tracing context (0), input pytree (1), input
types (3), nothing found (4). Static arguments stand in the input tree at their positions, as JAX's
``Static`` nodes do, so a changed static value is a pytree difference.

>>> import engine as jax, numpy as np
>>> from engine import monitoring
>>> reasons = []
>>> def on_event(kind, data):
...     if kind == "jit_trace" and data["cache"] == "miss":
...         reasons.append(data["reason"])
>>> f = jax.jit(lambda x: x * 2)
>>> with monitoring.listen(on_event):
...     _ = f(np.ones(3, np.float32)), f(np.ones(4, np.float32))
>>> print(reasons[1])
different input types:
* at x, now f32[4] and before f32[3]
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .avals import ShapedArray, dtype_short
from .pytree.equality import Node, node, structure_errors
from .pytree.keys import DictKey, SequenceKey, keystr
from .source_info import _SKIP_PREFIXES, current_source_info

__all__ = ["CacheMiss", "explain"]

WEAK_TYPES_URL = "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"

# What the staged key's extra entries stand for: JAX's trace-context names, in JAX's order, with
# the value a key without the entry has. ("replaying" is the engine's: a replayed equation.)
_CONTEXT_DEFAULTS = {"replaying": False, "jax_threefry_partitionable": True, "jax_enable_x64": False}

# Call sites where a function never seen before was traced: a second one there is a function made
# anew each time (JAX's "maybe the function is being re-defined repeatedly").
_callsites_with_new_functions: set[str] = set()


def forget_call_sites() -> None:
    """A new program starts (the playground's next run, in a process that ran one before): no call
    site of it has traced a new function yet."""
    _callsites_with_new_functions.clear()


@dataclass(frozen=True)
class CacheMiss:
    """One miss explained. ``kind``: ``never_seen`` (a function traced for the first time),
    ``redefined`` (the same, at a call site that traced another new function before), ``context``,
    ``pytree``, ``types`` or ``unknown`` (which part of the closest seen signature differs)."""

    kind: str
    function: str  # its name
    defined_at: str  # " defined at FILE:LINE", or "" when its source is unknown
    function_id: int
    message: str  # JAX's text of the difference ("different input types:\n  * at x, ...")
    callsite: str  # the user's line that called the function: FILE:LINE:COL (FUNCTION)

    def log_text(self) -> str:
        """The whole message JAX logs (at WARNING, on ``jax._src.interpreters.partial_eval``)."""
        head = f"TRACING CACHE MISS at {self.callsite}:"
        if self.kind in ("never_seen", "redefined"):
            return (
                f"{head}\n  never seen function:\n    {self.function} id={self.function_id}{self.defined_at}"
                + (
                    "\n  but seen another function defined on the same line; maybe the function is\n"
                    "  being re-defined repeatedly, preventing caching?"
                    if self.kind == "redefined"
                    else ""
                )
            )
        return (
            f"{head}\n  for {self.function}{self.defined_at}\n"
            "  all previously seen cache keys differ. For the closest previous key:\n"
            f"  {self.message}"
        )

    @property
    def reason(self) -> str:
        """The difference for a reader who sees the call already (the report): JAX's lines without
        its heading, the weak-type link on a line of its own."""
        if self.kind in ("never_seen", "redefined"):
            line = self.defined_at.rpartition(":")[2] if self.defined_at else ""
            text = f"never seen function: {self.function}" + (f" defined at line {line}" if line else "")
            if self.kind == "redefined":
                text += (
                    "\nbut seen another function defined on the same line; maybe the function is "
                    "being re-defined repeatedly, preventing caching?"
                )
            return text
        text = self.message.replace("\n  * ", "\n* ")
        if text.endswith(WEAK_TYPES_URL):
            text = text[: -len(WEAK_TYPES_URL)] + "\n(see " + WEAK_TYPES_URL + ")"
        return text


def explain(
    fun: Callable[..., Any],
    seen: Mapping[Any, Any],
    key: Any,
    arg_names: Callable[[], Sequence[str]],
) -> CacheMiss | None:
    """Why ``key`` (a staged key of ``jit``: (statics and context, input tree, input types)) missed
    among the ``seen`` keys of ``fun``; ``arg_names()`` names the argument leaves of this call. None
    for a function of the engine's own (JAX explains only the user's functions)."""
    name, file, line = _definition(fun)
    if file is not None and file.startswith(_SKIP_PREFIXES):
        return None
    defined_at = f" defined at {file}" + (f":{line}" if line else "") if file else ""
    site = callsite()
    if not seen:
        kind = "redefined" if site in _callsites_with_new_functions else "never_seen"
        _callsites_with_new_functions.add(site)
        return CacheMiss(kind, name, defined_at, id(fun), "", site)
    names: list[Sequence[str]] = []  # (computed once, when a type difference needs them)

    def leaf_names() -> Sequence[str]:
        if not names:
            names.append(arg_names())
        return names[0]

    try:
        severity, _, message = min(_difference(key, old, leaf_names) for old in seen)
    except Exception:  # noqa: BLE001 - explaining must never fail the call it explains
        severity, message = 4, "cache miss explanation unavailable"
    kind = ("context", "pytree", "unknown", "types", "unknown")[severity]  # (2, debug info: never here)
    return CacheMiss(kind, name, defined_at, id(fun), message, site)


def callsite() -> str:
    """The user's line calling ``jit``, as JAX writes it: ``FILE:LINE:COL (FUNCTION)``."""
    info = current_source_info()
    if info is None:
        return "unknown"
    col = info.column
    return f"{info.file}:{info.line}{f':{col}' if col else ''} ({info.function})"


def _definition(fun: Callable[..., Any]) -> tuple[str, str | None, int | None]:
    while isinstance(fun, functools.partial):
        fun = fun.func
    try:
        fun = inspect.unwrap(fun)
    except ValueError:  # (a cycle of __wrapped__)
        pass
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", type(fun).__name__)
    if code is None:
        return name, None, None
    return name, code.co_filename, code.co_firstlineno


def _difference(new: Any, old: Any, arg_names: Callable[[], Sequence[str]]) -> tuple[int, int, str]:
    (new_keyed, new_tree, new_avals), (old_keyed, old_tree, old_avals) = new, old
    found = (
        _context_difference(new_keyed, old_keyed)
        or _tree_difference(new_keyed, new_tree, old_keyed, old_tree)
        or _type_difference(
            arg_names,
            list(zip(new_avals, _shardings(new_keyed, len(new_avals)))),
            list(zip(old_avals, _shardings(old_keyed, len(old_avals)))),
        )
    )
    return found or (4, 0, "cache miss explanation unavailable")


def _context(keyed: Sequence[tuple[str, Any, Any]]) -> dict[str, Any]:
    values = dict(_CONTEXT_DEFAULTS)
    values.update({name: v for name, _, v in keyed if name in values})
    return values


def _context_difference(new_keyed, old_keyed) -> tuple[int, int, str] | None:
    new, old = _context(new_keyed), _context(old_keyed)
    diffs = [f"  * {n} differs: now {new[n]} and before {old[n]}" for n in new if new[n] != old[n]]
    if not diffs:
        return None
    msg = "Tracing context doesn't match, e.g. due to config or context manager."
    return 0, len(diffs), msg + "\n" + "\n".join(diffs)


# -- the input tree, as JAX sees it: (args tuple, kwargs dict), static arguments as Static nodes --
# Built from the treedefs (never calling a custom node's unflatten on stand-in leaves).


class _StaticType(type):
    def __repr__(cls) -> str:  # (the class JAX's message names)
        return "<class 'jax._src.tree_util.Static'>"


class _Static(metaclass=_StaticType):
    """The type of a static argument's place in an input tree."""


def _input_tree(keyed: Sequence[tuple[str, Any, Any]], tree: Any) -> Node:
    args_td, kwargs_td = tree.children()
    positional = {k: v for kind, k, v in keyed if kind == "pos"}
    dynamic = iter(node(c) for c in args_td.children())
    args = [
        Node(_Static, data=f"Static(val={positional[i]!r})") if i in positional else next(dynamic)
        for i in range(len(args_td.children()) + len(positional))
    ]
    kwargs = {k: node(c) for k, c in zip(kwargs_td.node_data()[1], kwargs_td.children())}
    kwargs.update({k: Node(_Static, data=f"Static(val={v!r})") for kind, k, v in keyed if kind == "kw"})
    names = sorted(kwargs)
    return Node(
        tuple,
        (
            (SequenceKey(0), Node(tuple, tuple((SequenceKey(i), a) for i, a in enumerate(args)))),
            (SequenceKey(1), Node(dict, tuple((DictKey(k), kwargs[k]) for k in names), tuple(names))),
        ),
    )


def _tree_difference(new_keyed, new_tree, old_keyed, old_tree) -> tuple[int, int, str] | None:
    new_static = [s for s in new_keyed if s[0] in ("pos", "kw")]
    old_static = [s for s in old_keyed if s[0] in ("pos", "kw")]
    if new_tree == old_tree and new_static == old_static:
        return None
    diffs = [
        f"  * at input path {keystr(path)}, now {now} and before {before}, so {why}"
        for path, now, before, why in structure_errors(
            (), _input_tree(new_static, new_tree), _input_tree(old_static, old_tree)
        )
    ]
    if not diffs:
        return None
    return 1, len(diffs), "different input pytree:\n" + "\n".join(diffs)


def _shardings(keyed: Sequence[tuple[str, Any, Any]], n: int) -> list[Any]:
    """Each argument leaf's sharding (None off a mesh): part of the key only when one is on a mesh."""
    for name, _, value in keyed:
        if name == "shardings":
            return list(value)
    return [None] * n


def _type_difference(
    arg_names: Callable[[], Sequence[str]], new: Sequence[tuple[Any, Any]], old: Sequence[tuple[Any, Any]]
) -> tuple[int, int, str] | None:
    """Per argument leaf whose (type, sharding) differs: JAX's line. A sharding shows as JAX's types
    show it (explicit mesh axes on the dimensions: ``f32[8@i]``) and, when the two differ there,
    with their meshes' axis types (``({Explicit: ('i',)})``, ``({})`` off a mesh; so does a change of
    rank, whose shardings differ in JAX)."""
    if tuple(new) == tuple(old):
        return None
    diffs = []
    weak_hint = False
    names = arg_names()
    for i, ((now, now_sh), (before, before_sh)) in enumerate(zip(new, old)):
        if now == before and now_sh == before_sh:
            continue
        now_s, before_s = _short(now, now_sh), _short(before, before_sh)
        if type(now) is type(before) is ShapedArray:
            seen_now, seen_before = _typed_sharding(now, now_sh), _typed_sharding(before, before_sh)
            if seen_now != seen_before or now.ndim != before.ndim:
                now_s, before_s = now_s + _mesh_axis_types(now_sh), before_s + _mesh_axis_types(before_sh)
            elif now == before:  # (the engine keys the whole sharding; JAX's type, its explicit axes)
                now_s, before_s = now_s + _spec(now_sh), before_s + _spec(before_sh)
            if now.weak_type != before.weak_type:
                weak_hint = True
                now_s += f"{{weak_type={now.weak_type}}}"
                before_s += f"{{weak_type={before.weak_type}}}"
        name = names[i] if i < len(names) else f"args[{i}]"
        diffs.append(f"  * at {name}, now {now_s} and before {before_s}")
    if not diffs:
        return None
    return (
        3,
        len(diffs),
        "different input types:\n" + "\n".join(diffs) + (WEAK_TYPES_URL if weak_hint else ""),
    )


def _typed_sharding(aval: ShapedArray, sharding: Any) -> Any:
    """What of a sharding is in JAX's type: the mesh's axes and their types, and per dimension the
    explicit axes it is split over."""
    if not _on_mesh(sharding):
        return None
    mesh = sharding.mesh
    explicit = set(mesh.explicit_axes)
    dims = tuple(tuple(a for a in axes if a in explicit) for axes in sharding._normalized(aval.ndim))
    return mesh.axis_names, mesh.axis_types, dims


def _spec(sharding: Any) -> str:
    return f"{{spec={sharding.spec!r}}}" if _on_mesh(sharding) else f"{{sharding={sharding!r}}}"


def _on_mesh(sharding: Any) -> bool:
    from .sharding import NamedSharding  # (sharding imports jit, which imports this module)

    return isinstance(sharding, NamedSharding)


def _mesh_axis_types(sharding: Any) -> str:
    if not _on_mesh(sharding):
        return "({})"
    groups: dict[str, list[str]] = {}
    for name, axis_type in zip(sharding.mesh.axis_names, sharding.mesh.axis_types):
        groups.setdefault(axis_type.name, []).append(name)
    return "({" + ", ".join(f"{t}: {tuple(names)!r}" for t, names in groups.items()) + "})"


def _short(aval: Any, sharding: Any = None) -> str:
    """``f32[8]``; on an explicit mesh axis ``f32[8@i]``."""
    if _on_mesh(sharding) and isinstance(aval, ShapedArray):
        (_, _, dims) = _typed_sharding(aval, sharding)
        shape = [
            f"{n}@{axes[0] if len(axes) == 1 else '(' + ','.join(axes) + ')'}" if axes else str(n)
            for n, axes in zip(aval.shape, dims)
        ]
        return f"{dtype_short(aval.dtype)}{aval._space()}[{','.join(shape)}]"
    short = getattr(aval, "str_short", None)
    return short() if short is not None else str(aval)
