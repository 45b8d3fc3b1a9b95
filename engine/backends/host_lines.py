"""A compiled program's host function ``run``, its lines the user's.

``run`` is plain Python driving the kernels: the host loops of ``while``/``scan``/``fori_loop``
and the kernel launches of each equation. Built from text, its frame would read ``<string>``
(or the kernel module's file), so a stack taken while a jitted call runs (a limit's interrupt, a
crash, ``faulthandler``) had the line that called the jitted function as its innermost user line.
Built here, each statement an equation wrote carries that equation's source line, in the user's
file: the innermost user frame of such a stack is the line of the loop (or operation) running,
and a loop body compiled as its own program adds its own frame, at the body's line.
"""

from __future__ import annotations

import ast
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable

from . import source_ast

if TYPE_CHECKING:
    from .numba_codegen import Codegen


def _user_lines(gen: Codegen, at_line: dict[int, int]) -> tuple[str, dict[int, int]]:
    """The file most of the host lines came from, and each build line's line in that file: the
    line of the equation that wrote it, or for a kernel launch, of the first equation it computes
    (a fused kernel is often launched where a later equation needs its values)."""
    origin = {k: (info.file, info.line) for k, info in gen.host_origin.items() if info and info.line > 0}
    for launch in gen.launches:
        infos = [gen.flat.eqns[i].source_info for i in launch.eqns]
        first = next((info for info in infos if info and info.line > 0), None)
        if first is not None:
            origin[launch.host_line] = (first.file, first.line)
    if not origin:
        return "", {}
    [(file, _)] = Counter(f for f, _ in origin.values()).most_common(1)
    return file, {at_line[k]: line for k, (f, line) in origin.items() if f == file and k in at_line}


def build_run(namespace: dict[str, Any], gen: Codegen, env: dict[str, Any], timed: bool) -> Callable | None:
    """``build(env)`` of ``gen``'s host code with the user's lines, run in ``namespace`` (the
    kernel module's); None when no host line came from a line of the user's."""
    at_line: dict[int, int] = {}
    text = "\n".join(gen.build_lines(timed=timed, at_line=at_line))
    file, lines = _user_lines(gen, at_line)
    if not lines:
        return None
    if threading.current_thread() is threading.main_thread():
        return _build(namespace, env, text, file, lines)
    # On the background compile thread a parse could collide with one on the caller's thread
    # (source_ast), so the host function is built at its first call, on the caller's.
    built: list[Callable] = []

    def run(*args):
        if not built:
            built.append(_build(namespace, env, text, file, lines))
        return built[0](*args)

    return run


def _build(namespace: dict[str, Any], env: dict[str, Any], text: str, file: str, lines: dict[int, int]):
    tree = source_ast.parse(text)
    run = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "run")
    # A line no equation wrote (an argument's copy, the timing around a launch, the return) reads
    # as the nearest line above it that one did (or the first one, above them all).
    mapped = sorted(lines)
    for node in ast.walk(run):
        if not hasattr(node, "lineno"):
            continue
        below = [b for b in mapped if b <= node.lineno]
        line = lines[below[-1]] if below else lines[mapped[0]]
        node.lineno = node.end_lineno = line  # type: ignore[attr-defined]
    ns = dict(namespace)
    exec(compile(tree, file, "exec"), ns)  # noqa: S102 - our own generated code
    return ns["build"](env)
