"""Tiered jit: a new program's first call runs interpreted while its kernels compile in the
background; calls switch to the kernels once they are ready, and the run report says which tier
ran each call and when the kernels became ready."""

import gc
import importlib

import numpy as np
import pytest

from conftest import numba_backend

import engine as jax
import engine.numpy as jnp
from engine import monitoring
from engine.core import Array

numba_backend()  # fails if numba is broken; skips only under JAXPLAY_TESTS_WITHOUT_NUMBA=1
J = importlib.import_module("engine.jit")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    J.set_backend(None)
    yield
    J.wait_for_compiles()


def tiers_of(f, *args):
    seen = []

    def listener(kind, data):
        if kind == "jit_execute" and data["tier"] is not None:  # (None: staged into an outer jit)
            seen.append(data["tier"])

    with monitoring.listen(listener):
        out = f(*args)
    return out, seen


def test_first_call_interpreted_then_compiled():
    x = Array(np.linspace(-1, 1, 50, dtype=np.float32))
    f = jax.jit(lambda x: jnp.sin(x) * jnp.exp(-x) + 0.25)
    first, tiers = tiers_of(f, x)
    assert tiers == ["interpreter"]
    np.testing.assert_allclose(np.asarray(first), np.sin(x._value) * np.exp(-x._value) + 0.25, rtol=1e-6)
    J.wait_for_compiles()
    later, tiers = tiers_of(f, x)
    assert tiers == ["compiled"]
    np.testing.assert_allclose(np.asarray(later), np.asarray(first), rtol=1e-6)
    assert f._fast  # the warm-call path holds the kernels now


def test_expensive_programs_compile_in_the_call():
    # 3 ops over 25M elements: the interpreter would take longer than it saves
    x = Array(np.ones((5000, 5000), np.float32))
    f = jax.jit(lambda x: x * x + x * 2.0)
    assert (
        J.interpret_seconds(f.lower(x).jaxpr.jaxpr)
        > importlib.import_module("engine.jit_runtime").INTERPRET_MAX_SECONDS
    )
    _, tiers = tiers_of(f, x)
    assert tiers == ["compiled"]


def test_while_loops_are_never_interpreted_for_speed():
    f = jax.jit(lambda n: jax.lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5), (0, 1.0)))
    assert J.interpret_seconds(f.lower(10).jaxpr.jaxpr) == float("inf")
    out, tiers = tiers_of(f, 10)
    assert tiers == ["compiled"] and out[0] == 10


def test_nested_jit_inside_an_interpreted_program():
    inner = jax.jit(lambda x: x * 3.0)
    f = jax.jit(lambda x: inner(x) + 1.0)
    x = Array(np.arange(4, dtype=np.float32))
    out, tiers = tiers_of(f, x)
    assert tiers == ["interpreter"]
    np.testing.assert_array_equal(np.asarray(out), np.arange(4) * 3.0 + 1.0)
    J.wait_for_compiles()
    np.testing.assert_array_equal(np.asarray(f(x)), np.arange(4) * 3.0 + 1.0)


def test_compile_of_a_queued_program_waits_for_its_job():
    x = Array(np.ones(3, np.float32))
    f = jax.jit(lambda x: x - 0.75)
    f(x)
    compiled = f.lower(x).compile()  # blocks until the kernels exist
    np.testing.assert_array_equal(np.asarray(compiled(x)), np.full(3, 0.25, np.float32))


def test_run_report_says_which_tier_ran_and_when_kernels_were_ready():
    from engine.inspect import run_request
    from engine.inspect.schema import RunRequest

    code = (
        "import importlib, jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda x: jnp.cos(x) * 2.0 + 0.125)\n"
        "a = f(jnp.arange(5.0))\n"
        "importlib.import_module('engine.jit').wait_for_compiles()\n"
        "b = f(jnp.arange(5.0))\n"
    )
    report = run_request(RunRequest(code=code))
    assert report.ok, report.error
    first, second = report.calls[0], report.calls[1]
    assert first.jit.tier == "interpreter" and second.jit.tier == "compiled"
    assert first.jit.compiled_ready_ms is not None
    assert second.jit.compiled_ready_ms is None
    background = [e for e in first.timings if e.background]
    assert len(background) == 1 and background[0].category == "compile" and background[0].duration_ms > 0
    assert not any(e.background for e in second.timings)
    assert background[0].start_ms + background[0].duration_ms == pytest.approx(
        first.jit.compiled_ready_ms, abs=0.01
    )
    executes = [e.tier for c in report.calls for e in c.timings if e.category == "execute"]
    assert executes == ["interpreter", "compiled"]


def test_a_program_gone_before_its_compile_is_not_compiled():
    # (a session that calls many programs once queued compiles that no call could ever use)
    jr = importlib.import_module("engine.jit_runtime")

    def called_once_then_dropped(x):
        return jnp.cos(x) * 3.0

    f = jax.jit(called_once_then_dropped)
    with J.compiles_paused():  # (its compile waits in the queue until the block ends)
        _, tiers = tiers_of(f, Array(np.ones(4, np.float32)))
        (job,) = [j for j in list(jr._jobs.values()) if j.name == "called_once_then_dropped"]

        def kept_alive(x):
            return x - 1.0

        kept = jax.jit(kept_alive)
        kept(Array(np.ones(4, np.float32)))
        (kept_job,) = [j for j in list(jr._jobs.values()) if j.name == "kept_alive"]
        del f, called_once_then_dropped
        gc.collect()
    J.wait_for_compiles()
    assert tiers == ["interpreter"] and job.skipped and job.exe is None and job.error is None
    assert not kept_job.skipped and kept_job.exe is not None  # (a live program still compiles)
