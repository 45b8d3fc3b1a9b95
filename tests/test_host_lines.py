"""A compiled program's host code runs at the user's lines (engine/backends/host_lines.py): a stack
taken inside a jitted call (a limit's interrupt, faulthandler's dump) has the line of the loop that
runs, and of the body's operation, as its innermost user frames, not only the line of the call."""

import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from conftest import numba_backend

nb_jit = numba_backend()
pytestmark = pytest.mark.usefixtures("test_kernel_cache")

HERE = __file__.removesuffix("c")


def _lines_of_this_file() -> list[int]:
    """This file's lines on the caller's stack, innermost first (this helper's caller excluded)."""
    out, frame = [], sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == HERE:
            out.append(frame.f_lineno)
        frame = frame.f_back
    return out


def _line_of(fn, text: str) -> int:
    lines, first = __import__("inspect").getsourcelines(fn)
    return first + next(i for i, t in enumerate(lines) if text in t)


def _loop_with_a_probe():
    """A fori_loop whose body's callback records this file's lines on the stack at each step; and
    the lines of the callback (in the body) and of the loop, innermost first as a stack has them."""
    seen: list[list[int]] = []

    def probe(x):
        seen.append(_lines_of_this_file())
        return x

    def body(i, x):
        y = jnp.sin(x)
        return jax.pure_callback(probe, jax.ShapeDtypeStruct(y.shape, y.dtype), y)  # the body's line

    def f(x):
        return lax.fori_loop(0, 3, body, jnp.cos(x))  # the loop's line

    return f, seen, [_line_of(body, "pure_callback(probe"), _line_of(f, "lax.fori_loop(")]


def test_a_stack_inside_a_compiled_loop_names_the_loop_and_its_body():
    f, seen, lines = _loop_with_a_probe()
    backend = nb_jit.NumbaBackend()
    exe = backend.compile(jax.make_jaxpr(f)(jnp.ones(2)), "f")
    assert exe.source is not None  # compiled, not interpreted
    [out] = exe(np.ones(2, np.float32))
    np.testing.assert_allclose(out, np.sin(np.sin(np.sin(np.cos(1.0)))) * np.ones(2), rtol=1e-6)
    assert len(seen) == 3
    # innermost first: the body's program at its callback, then the loop (then this test's call)
    assert seen[0][:2] == lines, seen[0]


def test_a_program_compiled_on_another_thread_parses_nothing_there(monkeypatch):
    # CPython 3.11's ast.parse keeps one depth count per interpreter, so a parse on the background
    # compile thread could collide with one on the caller's (engine/backends/source_ast.py): the
    # compile thread reads code objects, and the host function is built at its first call.
    import ast
    import threading

    threads: list[str] = []
    parse = ast.parse
    monkeypatch.setattr(
        ast, "parse", lambda *a, **k: threads.append(threading.current_thread().name) or parse(*a, **k)
    )
    f, seen, lines = _loop_with_a_probe()
    closed = jax.make_jaxpr(f)(jnp.ones(2))
    exes = []
    worker = threading.Thread(
        target=lambda: exes.append(nb_jit.NumbaBackend().compile(closed, "f")), name="compiler"
    )
    worker.start()
    worker.join()
    assert exes and "compiler" not in threads
    exes[0](np.ones(2, np.float32))
    assert "compiler" not in threads and len(seen) == 3
    assert seen[0][:2] == lines, seen[0]
