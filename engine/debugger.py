"""``jax.debug.breakpoint``: stop at a line of traced code and inspect the values there.

It is staged as JAX stages it: a ``debug_callback`` whose operands are the traced values (tracers)
among the local variables of the user's frames, so ``make_jaxpr`` prints JAX's equation and the
callback runs, with those values concrete, wherever the compiled program reaches the breakpoint.
There it hands the frames to the debugger backend (``jdb``, a small command line: ``p expr``,
``pp``, ``up``/``down``, ``list``, ``where``, ``continue``, ``quit``), which reads its commands from
``stdin=`` when given (``jax.debug.breakpoint(stdin=io.StringIO("p x\\nc\\n"))``), else from the
terminal. The playground has no terminal to read from: there a breakpoint without ``stdin=`` says
so instead of reading the sandbox's own input.

  >>> import io, engine as jax
  >>> out = io.StringIO()
  >>> def f(x):
  ...     y = x * 2
  ...     jax.debug.breakpoint(stdin=io.StringIO("p y\\nc\\n"), stdout=out)
  ...     return y
  >>> _ = jax.jit(f)(1.5)
  >>> print(out.getvalue().rstrip())
  Entering jdb:
  (jdb) Array(3., dtype=float32)
  (jdb)
"""

from __future__ import annotations

import cmd
import dataclasses
import inspect
import os
import pprint
import sys
import threading
import traceback
from typing import Any, Callable, Hashable

from .core import Tracer
from .tree_util import register_pytree_node_class, tree_flatten, tree_leaves, tree_unflatten

_ENGINE_DIR = os.path.dirname(os.path.abspath(__file__))


@register_pytree_node_class
class _Entries:
    """A dict's values as a pytree in the dict's own order (keys are never compared)."""

    def __init__(self, keys: list[Hashable], values: list[Any]):
        self.keys, self.values = keys, values

    def tree_flatten(self):
        return self.values, self.keys

    @classmethod
    def tree_unflatten(cls, keys, values):
        return cls(keys, list(values))


class _Unflattenable:
    def __repr__(self):
        return "<cant_flatten>"


_unflattenable = _Unflattenable()


def _flatten_dict(d: dict) -> tuple[list, Any]:
    keys, values = [], []
    for k, v in d.items():
        try:
            tree_leaves(v)
        except Exception:  # (a value the pytree machinery refuses is shown as a placeholder)
            v = _unflattenable
        keys.append(k)
        values.append(v)
    return tree_flatten(_Entries(keys, values))


@register_pytree_node_class
@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One Python frame at the breakpoint: its file, line, source and local variables. As a pytree
    its leaves are the locals that are traced values (the callback's operands); the others ride
    along unchanged."""

    filename: str
    locals: dict[str, Any]
    globals: dict[str, Any]
    code_context: Any
    source: list[str]
    lineno: int
    offset: int | None

    def tree_flatten(self):
        local_leaves, locals_tree = _flatten_dict(self.locals)
        global_leaves, globals_tree = _flatten_dict(self.globals)
        leaves = local_leaves + global_leaves
        traced = [isinstance(x, Tracer) for x in leaves]
        others = [x for x, t in zip(leaves, traced) if not t]
        aux = (traced, others, locals_tree, globals_tree, len(local_leaves))
        return [x for x, t in zip(leaves, traced) if t], (
            aux,
            self.filename,
            self.code_context,
            self.source,
            self.lineno,
            self.offset,
        )

    @classmethod
    def tree_unflatten(cls, aux, values):
        (traced, others, locals_tree, globals_tree, n_locals), filename, context, source, lineno, offset = aux
        vals, rest = iter(values), iter(others)
        leaves = [next(vals) if t else next(rest) for t in traced]
        local_vars = tree_unflatten(locals_tree, leaves[:n_locals])
        global_vars = tree_unflatten(globals_tree, leaves[n_locals:])
        return cls(
            filename,
            dict(zip(local_vars.keys, local_vars.values)),
            dict(zip(global_vars.keys, global_vars.values)),
            context,
            source,
            lineno,
            offset,
        )

    @classmethod
    def from_frameinfo(cls, info: inspect.FrameInfo) -> DebuggerFrame:
        try:
            lines, start = inspect.getsourcelines(info.frame)
            source = "".join(lines).split("\n")
            offset: int | None = info.lineno - max(start, 1)  # (start is 0 for a module's frame)
            if offset is None or offset >= len(source):  # (source from eval() can disagree)
                source, offset = [], None
        except (OSError, TypeError):
            source, offset = [], None
        return cls(
            info.filename, dict(info.frame.f_locals), {}, info.code_context, source, info.lineno, offset
        )


class CliDebugger(cmd.Cmd):
    """``jdb``: JAX's command-line debugger over the frames of a breakpoint (innermost first)."""

    prompt = "(jdb) "

    def __init__(self, frames: list[DebuggerFrame], thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None
        self.frames, self.frame_index, self.thread_id = frames, 0, thread_id
        self.intro = "Entering jdb:"

    def evaluate(self, expr: str):
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})

    def _show(self, expr: str, fmt: Callable[[Any], str]) -> None:
        try:
            self.stdout.write(fmt(self.evaluate(expr)) + "\n")
        except Exception:
            exc = sys.exc_info()
            self.stdout.write("*** " + traceback.format_exception_only(exc[0], exc[1])[-1].strip() + "\n")

    def default(self, line):
        """Evaluates an expression."""
        self._show(line, repr)

    def do_p(self, arg):
        """p expression: evaluate and print the value of an expression"""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: evaluate and pretty-print the value of an expression"""
        self._show(arg, pprint.pformat)

    def print_context(self, num_lines: int = 2) -> None:
        frame = self.frames[self.frame_index]
        out = [f"> {frame.filename}({frame.lineno})"]
        for i, line in enumerate(frame.source):
            assert frame.offset is not None
            if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                out.append(("->  " if i == frame.offset else "    ") + line)
        self.stdout.write("\n".join(out) + "\n")

    def do_up(self, arg):
        """u(p): move up a stack frame"""
        if self.frame_index == len(self.frames) - 1:
            self.stdout.write("At topmost frame.\n")
        else:
            self.frame_index += 1
        self.print_context()

    def do_down(self, arg):
        """d(own): move down a stack frame"""
        if self.frame_index == 0:
            self.stdout.write("At bottommost frame.\n")
        else:
            self.frame_index -= 1
        self.print_context()

    def do_list(self, arg):
        """l(ist): list the source around the current line"""
        self.print_context(num_lines=5)

    def do_continue(self, arg):
        """c(ont(inue)): continue the program"""
        return True

    def do_quit(self, arg):
        """q(uit), exit: quit the debugger; the program exits"""
        sys.exit(0)

    def do_where(self, arg):
        """w(here), bt: print the stack, most recent frame last"""
        out = ["Traceback:"]
        for frame in reversed(self.frames):
            out.append(f'  File "{frame.filename}", line {frame.lineno}')
            out.append(
                "    <no source>" if frame.offset is None else "    " + frame.source[frame.offset].strip()
            )
        self.stdout.write("\n".join(out) + "\n")

    do_u, do_d, do_l = do_up, do_down, do_list
    do_c = do_cont = do_continue
    do_q = do_EOF = do_exit = do_quit
    do_w = do_bt = do_where

    def run(self) -> None:
        while True:
            try:
                self.cmdloop()
                return
            except KeyboardInterrupt:
                sys.stdout.write("--KeyboardInterrupt--\n")


def run_cli_debugger(frames: list[DebuggerFrame], thread_id: int | None, **kwargs: Any) -> None:
    if kwargs.get("stdin") is None and not _interactive():
        raise NotImplementedError(
            "jax.debug.breakpoint reached, but there is no terminal to read debugger commands from "
            "(the playground has none): pass them as stdin=io.StringIO('p x\\nc\\n'), or use "
            "jax.debug.print, or the debugger pane's per-equation values."
        )
    CliDebugger(frames, thread_id, **kwargs).run()


def _interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


_debuggers: dict[str, tuple[int, Callable[..., None]]] = {}


def register_debugger(name: str, debugger: Callable[..., None], priority: int) -> None:
    if name in _debuggers:
        raise ValueError(f'Debugger with name "{name}" already registered.')
    _debuggers[name] = (priority, debugger)


def get_debugger(backend: str | None = None) -> Callable[..., None]:
    if backend is not None and backend in _debuggers:
        return _debuggers[backend][1]
    if not _debuggers:
        raise ValueError("No debuggers registered!")
    return max(_debuggers.values(), key=lambda pd: pd[0])[1]


register_debugger("cli", run_cli_debugger, -1)
_lock = threading.Lock()


def _user_frame(frame) -> bool:
    return not frame.f_code.co_filename.startswith(_ENGINE_DIR)


def breakpoint(  # noqa: A001 - JAX's name
    *,
    backend: str | None = None,
    filter_frames: bool = True,
    num_frames: int | None = None,
    ordered: bool = False,
    token=None,
    **kwargs,
):
    """Enter the debugger here when the (possibly compiled) program runs; ``kwargs`` go to the
    debugger (``stdin=``, ``stdout=``). With ``token`` the breakpoint runs once the token's value
    is computed, and the token is returned unchanged."""
    from . import lax
    from .callbacks import pure_callback
    from .debug import debug_callback

    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    infos = inspect.stack()[1:]
    frames = [DebuggerFrame.from_frameinfo(i) for i in infos if not filter_frames or _user_frame(i.frame)]
    if num_frames is not None:
        frames = frames[:num_frames]
    flat_args, frames_tree = tree_flatten(frames)

    def _breakpoint_callback(*flat):
        here = tree_unflatten(frames_tree, list(flat))
        thread_id = None if threading.current_thread() is threading.main_thread() else threading.get_ident()
        with _lock:
            get_debugger(backend)(here, thread_id, **kwargs)

    if token is None:
        debug_callback(_breakpoint_callback, *flat_args, ordered=ordered)
        return None

    def _breakpoint_callback_wrapper(x, *flat):
        _breakpoint_callback(*flat)
        return x

    token, flat_args = lax.stop_gradient((token, flat_args))
    return pure_callback(_breakpoint_callback_wrapper, token, token, *flat_args)
