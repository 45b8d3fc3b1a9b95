"""JAX's rules against aliasing refs at a ``jit`` boundary: a ref may not be passed twice, both
closed over and passed, or returned. The messages name the function and the arguments as JAX's do.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

from ..pytree.keys import keystr
from ..tree_util import tree_flatten_with_path
from .types import AbstractRef, Ref


def func_src_info(fun: Callable[..., Any]) -> str:
    while isinstance(fun, functools.partial):
        fun = fun.func
    fun = inspect.unwrap(fun)  # the user's function, not a decorator's wrapper (as JAX names it)
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", "fun")
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def arg_names(
    fun: Callable[..., Any], args: Sequence[Any], dyn_kwargs: dict[str, Any], static: Sequence[int] = ()
) -> list[str]:
    """A name per flat argument: the parameter's name and the leaf's path in it (``x``, ``p['w']``)."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)  # (*args: args[0], ...)
    names: list[str] = []
    for i, a in enumerate(args):
        if i in static:
            continue
        j = i - len(positional)
        base = positional[i] if j < 0 else f"{rest}[{j}]" if rest else f"args[{i}]"
        names += [base + keystr(path) for path, _ in tree_flatten_with_path(a)[0]]
    for k in sorted(dyn_kwargs):
        names += [k + keystr(path) for path, _ in tree_flatten_with_path(dyn_kwargs[k])[0]]
    return names


def check_no_aliased_args(
    fun: Callable[..., Any], leaves: Sequence[Any], names: Callable[[], list[str]]
) -> None:
    seen: dict[int, int] = {}
    for i, x in enumerate(leaves):
        if isinstance(x, Ref):
            first = seen.setdefault(id(x), i)
            if first != i:
                n = names()
                raise ValueError(
                    "only one reference to a mutable array may be passed as an argument to a function, "
                    f"but when tracing {func_src_info(fun)} for jit the mutable array reference of type "
                    f"{x.aval} appeared at both {n[first]} and {n[i]}."
                )


def check_no_closed_over_args(
    fun: Callable[..., Any], consts: Sequence[Any], leaves: Sequence[Any], names: Callable[[], list[str]]
) -> None:
    closed = {id(c) for c in consts if isinstance(c, Ref)}
    for i, x in enumerate(leaves):
        if id(x) in closed:
            raise ValueError(
                f"when tracing {func_src_info(fun)} for jit, a mutable array reference of type "
                f"{x.aval} was both closed over and passed as the argument {names()[i]}"
            )


def check_no_returned_refs(
    fun: Callable[..., Any],
    out: Any,
    in_tracers: Sequence[Any],
    names: Callable[[], list[str]],
) -> None:
    paths_leaves = tree_flatten_with_path(out)[0]
    for path, leaf in paths_leaves:
        aval = getattr(leaf, "aval", None)
        if type(aval) is not AbstractRef:
            continue
        loc = f" at output tree path result{keystr(path)}" if len(paths_leaves) > 1 else ""
        origin = ""
        position = next((k for k, t in enumerate(in_tracers) if t is leaf), None)
        made = _made_on_line(leaf)
        if position is not None:
            origin = f"\n\nThe returned mutable array was passed in as the argument {names()[position]}."
        elif made is not None:
            origin = f"\n\nThe returned mutable array was created on line {made}."
        raise ValueError(
            f"function {func_src_info(fun)} traced for jit returned a mutable array reference of type "
            f"{aval}{loc}, but mutable array references cannot be returned.{origin}"
        )


def _made_on_line(tracer: Any) -> str | None:
    """``file:line:col (function)`` of the ``new_ref`` that made a staged ref, as JAX names it."""
    builder = getattr(getattr(tracer, "_trace", None), "builder", None)
    var = builder.tracer_to_var.get(id(tracer)) if builder is not None else None
    eqn = next((e for e in builder.eqns if var in e.out_binders), None) if var is not None else None
    info = eqn.source_info if eqn is not None else None
    if info is None:
        return None
    col = info.column
    return f"{info.file}:{info.line}{'' if col is None else f':{col}'} ({info.function})"


def check_valid_outputs(fun: Callable[..., Any], traced_for: str, out: Any) -> None:
    """JAX's refusal of a traced function's output that is no array (a string, an object): the
    function, what it was traced for, and where in the output the value is."""
    from ..core import is_array_like

    for path, leaf in tree_flatten_with_path(out)[0]:
        if not is_array_like(leaf):
            where = f" at output component {keystr(path)}" if path else ""
            raise TypeError(
                f"function {func_src_info(fun)} traced for {traced_for} returned a value of type "
                f"{type(leaf)}{where}, which is not a valid JAX type"
            )
