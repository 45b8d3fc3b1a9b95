"""Why a staged value is a tracer: the lines JAX adds to its errors about traced values (a
``ConcretizationTypeError``, ``bool(x)`` under ``jit``, a traced shape...). The function traced and
what the value depends on: the arguments it derives from, or else the operations on constants that
made tracers of known values.

Nothing is recorded for it while tracing (besides what each trace already keeps: its equations and
a name for the function): the dependencies are found by walking the trace's equations back from the
value, only when an error message is being written.
"""

from __future__ import annotations

import inspect
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence

from . import core
from .errors import ConcretizationTypeError
from .ir import JaxprEqn, Literal, Var
from .source_info import KEPT_FRAMES

if TYPE_CHECKING:
    from .source_info import SourceInfo
    from .staging import JaxprBuilder

_SHOWN_LINES = 5  # JAX names at most this many operations


class TraceDebug(NamedTuple):
    """What a staging trace says of itself in an error: the function (named as JAX's debug info
    names it, ``f at file:line``), what it is traced for (``jit``, ``cond``...) and the flat
    arguments' names (computed only when asked: ``x``, ``p['w']``)."""

    fun: Callable[..., Any]
    traced_for: str
    arg_names: Callable[[], Sequence[str]] | None = None


# A function the engine wraps around the user's before tracing it (fori_loop's loop body) is named
# as the user's: the wrapper maps to the user function's TraceDebug.
_wrapped: weakref.WeakKeyDictionary[Callable[..., Any], TraceDebug] = weakref.WeakKeyDictionary()


def debug_info(
    traced_for: str, fun: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any] | None = None
) -> TraceDebug:
    """``fun`` traced for ``traced_for`` on ``args`` (pytrees whose leaves are its flat arguments);
    their names are found only if an error asks for them."""
    try:
        saved = _wrapped.get(fun)
    except TypeError:
        saved = None
    if saved is not None:
        return saved
    from .state.checks import arg_names

    return TraceDebug(fun, traced_for, lambda: arg_names(fun, args, kwargs or {}))


def save_wrapped(wrapper: Callable[..., Any], debug: TraceDebug) -> None:
    try:
        _wrapped[wrapper] = debug
    except TypeError:
        pass


def staged_origin_msg(builder: JaxprBuilder, tracer: object) -> str:
    debug: TraceDebug | None = getattr(builder, "debug", None)
    if debug is None:
        return ""
    from .state.checks import func_src_info

    var = builder.tracer_to_var.get(id(tracer))
    positions, eqns = _progenitors(builder, var, _finished(tracer)) if var is not None else ([], [])
    origin = (
        f"The error occurred while tracing the function {func_src_info(debug.fun)} for {debug.traced_for}. "
    )
    if positions:
        try:
            all_names = list(debug.arg_names()) if debug.arg_names is not None else None
            names = [all_names[i] if all_names is not None else "unknown" for i in positions]
        except IndexError:
            return ""
        origin += (
            "This concrete value was not available in Python because it depends on "
            f"the value{'s' if len(names) > 1 else ''} of {_argument_list(names)}."
        )
    elif eqns:
        shown = [
            f"  operation {_literal_eqn(builder, e)!r}\n    from line {summarize(e.source_info)}"
            for e in eqns[:_SHOWN_LINES]
        ]
        origin += "This value became a tracer due to JAX operations on these lines:\n\n" + "\n\n".join(shown)
        if len(eqns) > _SHOWN_LINES:
            origin += "\n\n(Additional originating lines are not shown.)"
    return "\n" + origin


def leaked_tracer_msg(tracer: Any) -> str:
    """JAX's error for a tracer used after its transformation finished. A staged value's says
    which function was being traced for what, and where the value was made (the line, and the
    user's frames from the traced function in, most recent last)."""
    a = tracer.aval
    msg = (
        "Encountered an unexpected tracer. A function transformed by JAX had a side effect, allowing for a "
        f"reference to an intermediate value with type {a.dtype.name}[{','.join(map(str, a.shape))}] wrapped "
        f"in a {type(tracer).__name__} to escape the scope of the transformation.\nJAX transformations "
        "require that functions explicitly return their outputs, and disallow saving intermediate values to "
        "global state."
    )
    trace = getattr(tracer, "_trace", None)
    debug: TraceDebug | None = getattr(getattr(trace, "builder", None), "debug", None)
    if debug is not None:
        from .state.checks import func_src_info

        msg += f"\nThe function being traced when the value leaked was {func_src_info(debug.fun)} traced for {debug.traced_for}."
        info = _made_at(trace.builder, tracer)
        divider = "\n" + "-" * 30 + "\n"
        msg += (
            f"{divider}The leaked intermediate value was created on line {summarize(info) if info else ''}. "
        )
        msg += (
            f"{divider}When the value was created, the final {KEPT_FRAMES} stack frames (most recent last) "
            f"excluding JAX-internal frames were:{divider}{_frames_in(info, debug.fun)}{divider}"
        )
    return (
        msg + "\nTo catch the leak earlier, try setting the environment variable JAX_CHECK_TRACER_LEAKS "
        "or using the `jax.checking_leaks` context manager."
    )


def _made_at(builder: JaxprBuilder, tracer: object) -> SourceInfo | None:
    """The source info of the equation that made ``tracer`` (None for an argument)."""
    var = builder.tracer_to_var.get(id(tracer))
    eqn = next((e for e in reversed(builder.eqns) if var in e.out_binders), None) if var is not None else None
    return eqn.source_info if eqn is not None else None


def _frames_in(info: SourceInfo | None, fun: Callable[..., Any]) -> str:
    """The user's frames of ``info``, innermost first up to the traced function's (JAX lists no
    frame outside the function traced), printed most recent last."""
    if info is None:
        return ""
    code = getattr(inspect.unwrap(fun), "__code__", None)
    shown = []
    for frame_code, lasti in info.frames:
        line, col = _position(frame_code, lasti)
        where = f"{frame_code.co_filename}:{line}:{col}" if col else f"{frame_code.co_filename}:{line}"
        shown.append(f"{where} ({frame_code.co_qualname})")
        if frame_code is code:
            break
    return "\n".join(reversed(shown))


def _position(code: Any, lasti: int) -> tuple[int | None, int | None]:
    for k, pos in enumerate(code.co_positions()):
        if 2 * k == lasti:
            return pos[0], pos[2]
    return None, None


def _argument_list(names: list[str]) -> str:
    if len(names) == 1:
        return f"the argument {names[0]}"
    if len(names) == 2:
        return f"the arguments {names[0]} and {names[1]}"
    return f"the arguments {', '.join(names[:-1])}, and {names[-1]}"


def _finished(tracer: Any) -> bool:
    """Whether ``tracer``'s trace has ended (a leaked value)."""
    main = tracer._trace.main
    stack = core._state.stack
    return main.level >= len(stack) or stack[main.level] is not main


def _progenitors(builder: JaxprBuilder, var: Var, finished: bool) -> tuple[list[int], list[JaxprEqn]]:
    """The positions of the arguments ``var`` depends on, and (JAX's choice, whatever ``var``
    depends on) the trace's equations so far that read a constant. A finished trace (a leaked
    value) has no equations left to follow, as JAX's: only an argument itself is still known."""
    consts = builder.constvals
    if var in consts:  # a constant itself (JAX's literal): no operation made it a tracer
        return [], []
    active = {var}
    if finished:
        return [i for i, v in enumerate(builder.arg_vars) if v in active], []
    for eqn in reversed(builder.eqns):
        if any(v in active for v in eqn.out_binders):
            active.difference_update(eqn.out_binders)
            active.update(x for x in eqn.inputs if isinstance(x, Var))
    positions = [i for i, v in enumerate(builder.arg_vars) if v in active]
    const_eqns = [e for e in builder.eqns if any(isinstance(x, Var) and x in consts for x in e.inputs)]
    return positions, const_eqns


def _literal_eqn(builder: JaxprBuilder, eqn: JaxprEqn) -> JaxprEqn:
    """The equation as the built jaxpr prints it: scalar constants inlined as literals."""
    from .staging import inlines_as_literal

    consts = builder.constvals
    inputs = [
        Literal(consts[x], x.aval)
        if isinstance(x, Var) and x in consts and inlines_as_literal(consts[x])
        else x
        for x in eqn.inputs
    ]
    return JaxprEqn(eqn.primitive, inputs, eqn.params, eqn.out_binders, eqn.source_info)


def summarize(info: SourceInfo | None) -> str:
    """``file:line:col (function)``, as JAX names a line."""
    if info is None:
        return "unknown"
    col = info.column
    if col is None or not isinstance(info.position, tuple):
        return repr(info)
    return f"{info.file}:{info.line}:{col} ({info.position[0].co_qualname})"


@contextmanager
def checkpoint_hint() -> Iterator[None]:
    """A checkpointed function's trace: a value of its own it needed concrete is refused with JAX's
    hint to make that argument static (the origin says ``for checkpoint``; an outer trace's value
    gets no hint)."""
    try:
        yield
    except ConcretizationTypeError as e:
        msg = e.args[0] if len(e.args) == 1 else None
        if isinstance(msg, str) and "for checkpoint" in msg:
            e.args = (
                msg + "\n\nConsider using the `static_argnums` parameter for `jax.remat` or "
                "`jax.checkpoint`. See the `jax.checkpoint` docstring and its example involving "
                "`static_argnums`:\nhttps://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n",
            )
        raise
