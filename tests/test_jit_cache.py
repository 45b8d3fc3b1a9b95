"""Compile cache: in memory, on disk across processes (atomic), and its reporting."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import numba_backend

nb_jit = numba_backend()
from engine.core import Array  # noqa: E402
import engine as jax  # noqa: E402
from engine import jit_runtime, lax  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = textwrap.dedent("""
    import importlib, json, numpy as np, engine as jax
    from engine import lax
    from engine.core import Array
    J = importlib.import_module('engine.jit')
    f = jax.jit(lambda x: lax.add(lax.mul(x, x), lax.mul(x, {c})))
    out = f(Array(np.ones((4, 5), np.float32)))
    J.wait_for_compiles()  # (a first call runs interpreted while its kernels compile)
    exe = J._executables[next(iter(f._cache.values()))[0]]
    print(json.dumps(dict(cache=exe.cache, value=float(np.asarray(out)[0, 0]))))
""")


@pytest.fixture(autouse=True)
def _no_compiles_left_running():
    # (an earlier test's background compile would write its files into the cache directory a test
    # here points ENGINE_CACHE_DIR at, and be counted as this test's)
    jit_runtime.wait_for_compiles()


def run_fresh(cache_dir, c=2.0):
    env = dict(os.environ, ENGINE_CACHE_DIR=str(cache_dir), NUMBA_THREADING_LAYER="workqueue")
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM.format(c=c)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    import json

    return json.loads(out.stdout.strip().splitlines()[-1])


def test_second_process_loads_from_disk(tmp_path):
    first = run_fresh(tmp_path)
    assert first == dict(cache="miss", value=3.0)
    second = run_fresh(tmp_path)
    assert second == dict(cache="disk", value=3.0)
    files = sorted(f.split("_")[0] for f in os.listdir(tmp_path) if f.endswith(".py"))
    assert files == ["engine", "kernel"]  # the program's module, and its one (shared) kernel's
    assert not any(f.startswith(".tmp") for f in os.listdir(tmp_path))
    other = run_fresh(tmp_path, c=3.0)  # different constant, different source: compiled anew
    assert other == dict(cache="miss", value=4.0)


def _kernels(exe):
    return {id(v) for v in vars(exe.module).values() if isinstance(v, nb_jit.nb.core.registry.CPUDispatcher)}


def test_programs_with_equal_loop_nests_share_their_kernels(tmp_path, monkeypatch):
    # A kernel is compiled once per text, whatever program it is in: the same function under
    # another name and at other shapes is another program (module) with the same loop nest.
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    backend = nb_jit.NumbaBackend()
    f = lambda x: lax.add(lax.mul(x, x), lax.exp(x))  # noqa: E731
    x, y = np.ones(3, np.float32), np.full((6, 7), 2.0, np.float32)
    a = backend.compile(jax.jit(f).lower(Array(x)).jaxpr, "f")
    b = backend.compile(jax.jit(f).lower(Array(y)).jaxpr, "g")
    assert a.source != b.source and a.module is not b.module
    assert _kernels(a) == _kernels(b) and len(_kernels(a)) == 1
    files = sorted(f.split("_")[0] for f in os.listdir(tmp_path) if f.endswith(".py"))
    assert files == ["engine", "engine", "kernel"]
    np.testing.assert_allclose(b(y)[0], y * y + np.exp(y), rtol=1e-6)
    np.testing.assert_allclose(a(x)[0], x * x + np.exp(x), rtol=1e-6)
    # (the source shown keeps its kernels: only the module written to the cache binds shared ones)
    assert "_kernel(" not in a.source


def test_memory_hit_for_same_source(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    backend = nb_jit.NumbaBackend()
    closed = jax.jit(lambda x: lax.exp(x)).lower(Array(np.ones(3, np.float32))).jaxpr
    a = backend.compile(closed, "f")
    b = backend.compile(closed, "f")
    assert a.cache in ("miss", "disk") and b.cache == "hit"
    assert a.source == b.source
    np.testing.assert_allclose(b(np.ones(3, np.float32))[0], np.exp(np.ones(3, np.float32)), rtol=1e-6)


def test_cache_dir_default_under_user_cache_home(monkeypatch, tmp_path):
    monkeypatch.delenv("ENGINE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert nb_jit.cache_dir() == os.path.join(str(tmp_path), "jaxplay-engine")


def test_concurrent_writers_leave_a_whole_file(tmp_path):
    path = str(tmp_path / "engine_x.py")
    import threading

    texts = [f"# writer {i}\n" + "x = 1\n" * 2000 for i in range(4)]
    ts = [threading.Thread(target=nb_jit._write_atomic, args=(path, t)) for t in texts]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert open(path).read() in texts
    assert [f for f in os.listdir(tmp_path)] == ["engine_x.py"]


def test_jit_cache_miss_on_new_shape_and_stage_timings():
    f = jax.jit(lambda x: lax.mul(x, 2.0))
    f(Array(np.ones(3, np.float32)))
    assert set(f.timings) >= {"trace", "execute"}
    f(Array(np.ones(4, np.float32)))
    assert len(f._cache) == 2


def test_monitoring_events_for_every_stage(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    import importlib

    J = importlib.import_module("engine.jit")
    from engine import monitoring

    J.set_backend(nb_jit.NumbaBackend())
    monkeypatch.setattr(
        importlib.import_module("engine.jit_runtime"), "TIERED", False
    )  # compiles in the call (tests/test_jit_tiers.py: tiered)
    try:
        kinds = []
        with monitoring.listen(lambda k, d: kinds.append((k, d.get("seconds") is not None))):
            jax.jit(lambda x: lax.sin(x))(Array(np.ones(3, np.float32)))
        got = [k for k, _ in kinds]
        for want in ("jit_trace", "jit_lower", "jit_compile", "jit_execute"):
            assert want in got
        assert all(has for _, has in kinds)
    finally:
        J.set_backend(None)
