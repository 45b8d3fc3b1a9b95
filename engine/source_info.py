"""Source information: the user line (and calling functions, and ``jax.named_scope`` names) that
every staged equation remembers, found by walking the stack past the engine and the standard
library. ``engine.core`` re-exports these names."""

from __future__ import annotations

import os
import sys
import sysconfig
import threading
import types
from contextlib import contextmanager
from typing import Any, Iterator

_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))
_SKIP_PREFIXES = tuple(
    {
        p
        for p in (
            _ENGINE_DIR,
            sysconfig.get_paths().get("stdlib"),
            sysconfig.get_paths().get("purelib"),
            sysconfig.get_paths().get("platlib"),
        )
        if p
    }
)


class SourceInfo:
    """Where an equation came from: the user's line and function, the user functions that called
    it (``callers``, outermost first, from the same file) and the ``jax.named_scope`` /
    ``jax.named_call`` names around it (``scope``, ``"outer/inner"``; JAX's name stack)."""

    __slots__ = (
        "file",
        "line",
        "function",
        "callers",
        "scope",
        "position",
        "xla_metadata",
        "frames",
        "by_rule",
    )

    def __init__(
        self,
        file: str,
        line: int,
        function: str,
        callers: tuple[str, ...] = (),
        scope: str = "",
        position: tuple[types.CodeType, int] | int | None = None,
        xla_metadata: tuple[tuple[str, str], ...] = (),
        frames: tuple[tuple[types.CodeType, int], ...] = (),
        by_rule: bool = False,
    ):
        self.file, self.line, self.function = file, line, function
        self.callers, self.scope = callers, scope
        # the ``set_xla_metadata`` context around the equation: (key, value text) pairs, JAX's
        # JaxprEqnContext.xla_metadata, put on the operations of its outputs as frontend attributes
        self.xla_metadata = xla_metadata
        # (code, last instruction offset): the column, looked up when asked; or the column itself.
        self.position = position
        # the user's frames from this one outward (code, last instruction), the first few: what
        # JAX's leaked-tracer error lists (engine.tracer_origins)
        self.frames = frames
        # staged by the engine's own rules while a backward pass ran (``in_backward``), not by the
        # user's code: JAX's sharding-type checks are not applied to it (they would judge how the
        # engine's transpose rules compute, which do not say the out_sharding JAX's do)
        self.by_rule = by_rule

    def made_by_rule(self) -> SourceInfo:
        """This line, for an equation a backward pass staged."""
        if self.by_rule:
            return self
        return SourceInfo(
            self.file, self.line, self.function, self.callers, self.scope, self.position,
            self.xla_metadata, self.frames, True,
        )  # fmt: skip

    @property
    def column(self) -> int | None:
        """The 0-based column of the call on ``line`` (JAX's ``file:line:col``), when known."""
        if self.position is None or isinstance(self.position, int):
            return self.position
        code, lasti = self.position
        for k, pos in enumerate(code.co_positions()):
            if 2 * k == lasti:
                return pos[2]
        return None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Code objects do not pickle, and pmap ships jaxprs to its device processes: send the column.
        return (
            SourceInfo,
            (
                self.file,
                self.line,
                self.function,
                self.callers,
                self.scope,
                self.column,
                self.xla_metadata,
                (),
                self.by_rule,
            ),  # fmt: skip
        )

    def __repr__(self) -> str:
        return f"{self.file}:{self.line} ({self.function})"


# JAX's ``new_source_info()``: an equation a rule makes for no line of the user's (the device_puts
# of an offloaded residual); it prints as no location, and equations replayed from it keep it.
NO_SOURCE = SourceInfo("", 0, "")


def raised_for(exc: BaseException, info: SourceInfo | None) -> BaseException:
    """``exc``, raised for a staged equation when its program runs (a sharding-type error found by
    the partitioner), marked with the user's line that staged it (``exc.staged_at``; JAX raises
    these while tracing, with that line on the traceback): the report points there."""
    if info is not None and info.file and getattr(exc, "staged_at", None) is None:
        try:
            exc.staged_at = info  # type: ignore[attr-defined]
        except AttributeError:
            return exc
    return exc


# >0 while a backward pass runs (``vjp_function``): what it stages or runs eagerly is the engine's
# transpose rules' work, which JAX's sharding-type checks do not judge (see ``SourceInfo.by_rule``)
in_backward = [0]

_source_override = threading.local()


def current_source_info() -> SourceInfo | None:
    """The innermost frame outside the engine and the standard library: the user's line."""
    override: SourceInfo | None = getattr(_source_override, "value", None)
    if override is not None:
        return override
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not _skipped(code):
            callers, frames = _callers(frame)
            return SourceInfo(
                code.co_filename,
                frame.f_lineno,
                code.co_name,
                callers,
                "/".join(_scopes()),
                (code, frame.f_lasti),
                xla_metadata[0],
                frames,
            )
        frame = frame.f_back
    return None


def _skipped(code: types.CodeType) -> bool:
    """Whether frames of ``code`` are the engine's or the standard library's (not the user's)."""
    seen = _skip_code.get(id(code))
    if seen is not None and seen[0] is code:
        return seen[1]
    fname = code.co_filename
    skip = fname.startswith(_SKIP_PREFIXES) or fname.startswith("<frozen")
    _skip_code[id(code)] = (code, skip)
    return skip


KEPT_FRAMES = 5  # (JAX's leaked-tracer error lists this many)


def _callers(frame: types.FrameType) -> tuple[tuple[str, ...], tuple[tuple[types.CodeType, int], ...]]:
    """The functions of the user's file that called ``frame``'s, outermost first (the module body
    and comprehensions left out: they are not functions a user would group by); and the first
    ``KEPT_FRAMES`` user frames from ``frame`` outward."""
    file = frame.f_code.co_filename
    names = []
    frames = [(frame.f_code, frame.f_lasti)]
    f = frame.f_back
    while f is not None:
        code = f.f_code
        if code.co_filename == file and not code.co_name.startswith("<"):
            names.append(code.co_name)
        if len(frames) < KEPT_FRAMES and not _skipped(code):
            frames.append((code, f.f_lasti))
        f = f.f_back
    return tuple(reversed(names)), tuple(frames)


_name_stack = threading.local()

# the ``jax.experimental.xla_metadata.set_xla_metadata`` context: sorted (key, value text) pairs
# (one slot, set and restored by the context manager; read by every traced equation)
xla_metadata: list[tuple[tuple[str, str], ...]] = [()]


def _scopes() -> list[str]:
    stack = getattr(_name_stack, "names", None)
    if stack is None:
        stack = _name_stack.names = []
    return stack


@contextmanager
def named_scope(name: str) -> Iterator[None]:
    """Equations staged inside carry ``name`` in their source info's ``scope`` (nested scopes join
    with ``/``), as JAX's ``jax.named_scope`` puts it on their name stack.

    >>> import engine as jax
    >>> def f(x):
    ...     with jax.named_scope("dense"):
    ...         return jax.numpy.sin(x)
    >>> jax.make_jaxpr(f)(1.0).jaxpr.eqns[0].source_info.scope
    'dense'
    """
    if not isinstance(name, str):
        raise TypeError(f"named_scope name must be a string, got {type(name).__name__}: {name!r}")
    stack = _scopes()
    stack.append(name)
    try:
        yield
    finally:
        stack.pop()


# id(code) -> (code, whether frames of it are skipped). By id: hashing a code object hashes its
# bytecode and constants, at every frame of every traced equation (the code is kept, so the id is its own).
_skip_code: dict[int, tuple[types.CodeType, bool]] = {}


@contextmanager
def source_info_context(info: SourceInfo | None) -> Iterator[None]:
    """While replaying an equation (transposing, batching a jaxpr...), new equations inherit its line."""
    prev = getattr(_source_override, "value", None)
    _source_override.value = info if info is not None else prev
    try:
        yield
    finally:
        _source_override.value = prev
