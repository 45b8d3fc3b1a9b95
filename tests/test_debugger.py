"""``jax.debug.breakpoint``: the debugger (jdb) it enters under ``jit``, driven by commands given as
``stdin``, prints what JAX 0.10.2's does (recorded by tests/debugger/debugger_program.py), and without a
terminal to read commands from the playground says so instead of reading its own input."""

import io
import json
import os
import sys

import pytest

import engine as jax
from engine import compat

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "debugger")
sys.path.insert(0, HERE)
import debugger_program  # noqa: E402

sys.path.remove(HERE)


def test_jdb_session_matches_jax():
    with open(os.path.join(HERE, "expected.json")) as fh:
        want = json.load(fh)
    compat.install()
    try:
        import jax as engine_as_jax

        got = debugger_program.run(engine_as_jax)
    finally:
        compat.uninstall()
    assert got == {k: v for k, v in want.items() if k != "jax_version"}


def test_breakpoint_without_commands_or_terminal_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # (not a terminal)
    f = jax.jit(lambda x: (jax.debug.breakpoint(), x * 2)[1])
    with pytest.raises(NotImplementedError, match="no terminal"):
        f(1.0)


def test_ordered_and_token_are_exclusive():
    with pytest.raises(ValueError, match="mutually exclusive"):
        jax.debug.breakpoint(token=1.0, ordered=True)
