"""Errors as the report shows them: the user's line and column, the transformation layer that
raised, and a suggested fix.

The layer is attached to the exception while it propagates out of the instrumented
transformations (``tag_layer``): errors raised inside the user's function while it is being
transformed belong to the transformation whose tracer caused them (or the innermost active one);
errors raised by a transformation's own machinery (a vmap size check) belong to that transformation.
"""

from __future__ import annotations

import traceback
from types import TracebackType

from engine import errors as jerr
from engine.parallel.shm import DeviceMemoryError

from .schema import Frame, RunError
from .transforms import TRANSFORMS

USER_FILE = "<user>"
FRAME_CAP = 60
MESSAGE_CAP = 4000
_LAYER_ATTR = "__jaxplay_layer__"
_INPUT_ATTR = "__jaxplay_input__"

# Which tracer types each family of transformations creates.
_TRACE_FAMILY = {
    "JVPTrace": "ad",
    "LinearizeTrace": "ad",
    "PartialEvalTrace": "ad",
    "BatchTrace": "vmap",
    "JaxprTrace": "jit",
}
_FAMILY = {name: t.family for name, t in TRANSFORMS.items()}


def tag_input(exc: BaseException, where: str, example: str) -> None:
    """Mark ``exc`` as raised while evaluating one of the page's inputs (an argument or an option
    expression), named by ``where`` ("argument 1 (x)"): the report names it instead of a code line."""
    try:
        setattr(exc, _INPUT_ATTR, (where, example))
    except (AttributeError, TypeError):
        pass


def _input_suggestion(exc: BaseException, where: str, example: str) -> str:
    name = getattr(exc, "name", None) if isinstance(exc, NameError) else None
    if name:
        return (
            f"{name!r} is not defined when {where} is evaluated: define it in the code, or write the "
            f"value itself (e.g. {example})."
        )
    return (
        f"Fix {where}: it is a Python expression, evaluated after the code ran, with the code's names "
        f"in scope (e.g. {example})."
    )


def layer_of(exc: BaseException) -> str | None:
    return getattr(exc, _LAYER_ATTR, None)


def tag_layer(exc: BaseException, layer: str) -> None:
    """Attach ``layer`` unless a more inner frame already did."""
    if layer_of(exc) is None:
        try:
            setattr(exc, _LAYER_ATTR, layer)
        except (AttributeError, TypeError):
            pass


def layer_for_user_error(exc: BaseException, active: list[str]) -> str | None:
    """The active transformation whose tracer ``exc`` is about, else the innermost active one."""
    if not active:
        return None
    tracer = getattr(exc, "tracer", None)
    for _ in range(64):  # the innermost tracer is the one whose value is unknown (jit's, under grad)
        inner = getattr(tracer, "primal", None)
        inner = getattr(tracer, "val", None) if inner is None else inner
        if inner is None or not hasattr(inner, "_trace"):
            break
        tracer = inner
    trace = getattr(tracer, "_trace", None)
    main = getattr(trace, "main", None)
    family = _TRACE_FAMILY.get(getattr(getattr(main, "trace_type", None), "__name__", ""), None)
    if family is not None:
        for name in reversed(active):
            if _FAMILY.get(name) == family:
                return name
    return active[-1]


PRINT_LESS = (
    "Print less: a summary (x.shape, x[:5], jnp.mean(x)) instead of whole arrays, and inside a loop "
    "only every Nth step (if i % 100 == 0: print(...))."
)


class OutputLimitExceeded(BaseException):
    """Raised by the print that takes a run's output past its limit (``ENGINE_OUTPUT_BYTES``).

    A BaseException, as KeyboardInterrupt, so that user code's ``except Exception`` does not
    swallow it and go on printing."""


def suggestion_for(exc: BaseException, layer: str | None) -> str | None:
    """A one-line fix for the usual mistakes with transformations."""
    msg = str(exc)
    if isinstance(exc, OutputLimitExceeded):
        return PRINT_LESS
    if isinstance(exc, IndentationError):
        return (
            "Indent the lines of each block (after def, if, for, with, ...) by the same number of "
            "spaces, one level deeper than the line that opens it; do not mix tabs and spaces."
        )
    if isinstance(exc, SyntaxError):
        return (
            "Fix the Python syntax where the editor marks it: look there, and at the end of the line "
            "before, for an unfinished expression, an unclosed bracket or quote, or a missing ':'."
        )
    if isinstance(exc, DeviceMemoryError):
        return (
            "pmap and sharded arrays keep each device's arrays in one shared-memory file, which this "
            "run's limits bound: make the arrays on each device smaller (fewer or smaller shards), "
            "drop ones no longer needed (del x), or run the program locally for larger ones."
        )
    bound = getattr(exc, "bound_axis_names", None)
    if isinstance(exc, NameError) and bound is not None:
        return (
            "A collective names an axis that pmap(axis_name=...), vmap(axis_name=...) or shard_map's "
            f"mesh binds around it; the names bound where it ran: {bound}. Check the spelling."
        )
    staged = layer in ("jit", "pmap", "checkify")  # (checkify stages the function as jit does)
    if isinstance(exc, jerr.TracerBoolConversionError):
        if staged:
            return (
                "Python `if`/`while` cannot branch on a traced value under jit. Use "
                "jnp.where(cond, a, b) or lax.cond(cond, f_true, f_false, x), or, if the value "
                "is a configuration flag, mark that argument static: jax.jit(f, static_argnums=(i,))."
            )
        return (
            "Python `if`/`while` cannot branch on a batched value: each example may go a different "
            "way. Use jnp.where(cond, a, b) or lax.cond/lax.select to compute both sides and pick."
        )
    if isinstance(exc, jerr.TracerIntegerConversionError):
        return (
            "A traced value was used as a Python int (a shape, range bound or index). Mark it static "
            "with jax.jit(f, static_argnums=(i,)), or use lax.dynamic_slice / jnp.take."
        )
    if isinstance(exc, jerr.TracerArrayConversionError):
        return "Use jax.numpy (jnp.sin, jnp.sum, ...) instead of numpy inside transformed functions."
    if isinstance(exc, jerr.ConcretizationTypeError):
        if staged:
            return (
                "This value is only known when the compiled function runs. Mark the argument that "
                "decides it static: jax.jit(f, static_argnums=(i,)) or static_argnames=('name',)."
            )
        return "Use jnp.where or lax.cond instead of Python control flow on traced values."
    if isinstance(exc, jerr.UnexpectedTracerError):
        return (
            "A traced value escaped its transformation (stored in a global or closure). Return it "
            "from the function instead."
        )
    if isinstance(exc, ValueError) and (
        "inconsistent sizes" in msg or "map its argument along axis" in msg or "in_axes" in msg
    ):
        return (
            "Check in_axes: give one entry per argument, and None for arguments that are shared "
            "rather than mapped, e.g. in_axes=(None, 0)."
        )
    if isinstance(exc, (TypeError, ValueError)) and (
        "Incompatible shapes for broadcasting" in msg or "incompatible shapes for broadcasting" in msg
    ):
        return (
            "Elementwise operations need shapes that broadcast: axis by axis from the right, sizes "
            "equal or 1. Check the arguments' shapes, or add an axis to one (x[:, None]) or reshape it."
        )
    if isinstance(exc, TypeError) and "contracting dimensions" in msg:
        return (
            "jnp.dot and @ contract the last axis of the first operand with the first axis of a "
            "vector (second-to-last of a matrix): those sizes must match. Check the shapes, or "
            "transpose an operand (x.T)."
        )
    if layer == "pmap" and isinstance(exc, ValueError):
        return (
            "pmap maps over the leading axis of every argument, whose size must not exceed the "
            "device count; pass in_axes=(0, None) for arguments that are shared."
        )
    if "scalar-output" in msg or "Gradient only defined for scalar" in msg:
        return (
            "grad needs a scalar output: reduce it (jnp.sum, jnp.mean), or use jax.jacrev / "
            "jax.vmap(jax.grad(f)) for per-example gradients."
        )
    if "grad requires real- or complex-valued inputs" in msg:
        return "Pass float inputs to grad, e.g. 1.0 instead of 1, or use jnp.asarray(x, jnp.float32)."
    if "sorting pytree dictionary keys" in msg:
        return "A dict in a pytree needs keys of one orderable type (e.g. all str): JAX sorts them."
    if "requires ndarray or scalar arguments" in msg:
        return (
            "jax.numpy functions take arrays, not Python lists or tuples: wrap them first, jnp.array([...])."
        )
    if "Non-hashable static arguments" in msg:
        return "Static arguments must be hashable: pass a tuple instead of a list or array, or make it a regular argument."
    return None


def _positions(tb: TracebackType):
    """``(line, end_line, column, end_column)`` of the instruction a traceback entry points at."""
    code, lasti = tb.tb_frame.f_code, tb.tb_lasti
    try:
        for i, pos in enumerate(code.co_positions()):
            if 2 * i == lasti:
                line, end_line, col, end_col = pos
                if line is not None:
                    return (
                        line,
                        end_line,
                        (col + 1 if col is not None else None),
                        (end_col + 1 if end_col is not None else None),
                    )
                break
    except Exception:  # noqa: BLE001 - positions are a nicety
        pass
    return tb.tb_lineno, None, None, None


def run_error(
    exc: BaseException,
    user_file: str = USER_FILE,
    source_lines: list[str] | None = None,
    fallback_line: int | None = None,
) -> RunError:
    """The report's view of an exception raised by user code (columns are 1-based).

    ``fallback_line`` is used when no frame of the user's file is on the traceback (a transformation
    rejected the call before running the function: point at the function).
    """
    tbs = []
    tb = exc.__traceback__
    while tb is not None:
        tbs.append(tb)
        tb = tb.tb_next
    frames = []
    user_tb = None
    for tb in tbs:
        fs_file = tb.tb_frame.f_code.co_filename
        if fs_file.startswith(__file__.rsplit("/", 1)[0]):
            continue  # the report machinery is not part of the user's story
        user = fs_file == user_file
        text = None
        if user and source_lines and 0 < tb.tb_lineno <= len(source_lines):
            text = source_lines[tb.tb_lineno - 1].strip()
        elif not user:
            import linecache

            text = linecache.getline(fs_file, tb.tb_lineno).strip() or None
        frames.append(
            Frame(file=fs_file, line=tb.tb_lineno, function=tb.tb_frame.f_code.co_name, text=text, user=user)
        )
        if user:
            user_tb = tb
    if len(frames) > FRAME_CAP:
        frames = frames[: FRAME_CAP // 2] + frames[-FRAME_CAP // 2 :]
    message = str(exc) if not isinstance(exc, KeyError) else repr(exc.args[0]) if exc.args else ""
    layer = layer_of(exc)
    err = RunError(
        type=type(exc).__name__,
        mro=[c.__name__ for c in type(exc).__mro__],
        message=message[:MESSAGE_CAP],
        layer=layer,
        suggestion=suggestion_for(exc, layer),
        traceback=frames,
    )
    if isinstance(exc, SyntaxError) and exc.filename == user_file:
        err.message = exc.msg
        err.line, err.column = exc.lineno, exc.offset
        end_line, end_col = getattr(exc, "end_lineno", None), getattr(exc, "end_offset", None)
        if end_line and end_col and end_col > 0:
            err.end_line, err.end_column = end_line, end_col
    elif getattr(getattr(exc, "staged_at", None), "file", None) == user_file:
        # (raised for a staged line when the program ran: that line, not the call that ran it)
        info = exc.staged_at  # type: ignore[attr-defined]
        column = info.column
        err.line, err.column = info.line, (column + 1 if column is not None else None)
    elif user_tb is not None:
        err.line, err.end_line, err.column, err.end_column = _positions(user_tb)
    elif not hasattr(exc, _INPUT_ATTR):
        err.line = fallback_line
    if hasattr(exc, _INPUT_ATTR):
        # Raised by an argument or option expression, not by a line of the code (unless the
        # expression called the code, whose line is then kept).
        where, example = getattr(exc, _INPUT_ATTR)
        text = exc.msg if isinstance(exc, SyntaxError) else message
        err.message = f"In {where}: {text}"[:MESSAGE_CAP]
        err.suggestion = _input_suggestion(exc, where, example)
    if isinstance(exc, MemoryError):
        err.limit = "memory"
    elif isinstance(exc, OutputLimitExceeded):
        err.limit = "output"
    return err


def format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
