"""A warm kernel cache in the report: jit's compile step that compiled nothing is a "load" event
named for what it did, and the call's ``jit.cache`` says what the timeline shows.

The page showed a 46 ms "compile jit(loss)" bar for a run its "Traces and compiles" table counted as
"0 compiled, 1 from the kernel cache": the step was ``NumbaBackend._load`` importing the generated
module and numba reading and linking each kernel's cached machine code (no type inference, no LLVM
optimisation). Each program runs in a fresh process on a fresh ``ENGINE_CACHE_DIR``, twice: the
first compiles, the second loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import numba_backend

numba_backend()
from engine.inspect import jit_timings  # noqa: E402
from engine.inspect.schema import JitInfo, TimingEvent, TransformedCall  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The page's MLP example under jit (loops: compiled in the call, nested programs each a step), and a
# small program whose first call runs interpreted while its kernels compile in the background.
PROGRAM = textwrap.dedent('''
    import json
    from engine.inspect import run_request
    from engine.inspect.schema import RunRequest

    from bench.bench_ir_page import NESTED_MLP_CODE as MLP
    SMALL = """import jax
    import jax.numpy as jnp

    def loss(w, x):
        return jnp.sum(jnp.tanh(w * x) ** 2)

    print(jax.jit(loss)(1.0, jnp.arange(5.0)))
    from engine import jit_runtime
    jit_runtime.wait_for_compiles()  # (settled when the run ends)
    """
    out = {}
    for key, request in [
        ("mlp", RunRequest(code=MLP, function="loss", stack=[{"name": "jit", "options": {}}],
                           args=["params", "jnp.ones((5, 3))"])),
        ("background", RunRequest(code=SMALL)),
    ]:
        report = run_request(request)
        assert report.ok, report.error
        call = report.calls[0]
        out[key] = dict(
            cache=call.jit.cache,
            steps=[[e.name, e.category, e.cache, e.background] for e in call.timings
                   if e.category in ("compile", "load")],
        )
    print(json.dumps(out))
''')


def run_fresh(cache_dir) -> dict:
    env = dict(os.environ, ENGINE_CACHE_DIR=str(cache_dir), NUMBA_THREADING_LAYER="workqueue")
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cold_and_warm(tmp_path_factory):
    cache = tmp_path_factory.mktemp("kernels")
    return run_fresh(cache), run_fresh(cache)


def test_a_cold_cache_compiles_and_says_so(cold_and_warm):
    cold, _ = cold_and_warm
    mlp = cold["mlp"]
    assert mlp["cache"] == "miss"
    assert mlp["steps"] and all(cat == "compile" and cache == "miss" for _, cat, cache, _ in mlp["steps"])
    assert "compile jit(loss)" in [name for name, *_ in mlp["steps"]]
    assert cold["background"]["cache"] == "miss"
    assert cold["background"]["steps"] == [["compile jit(loss) in the background", "compile", "miss", True]]


def test_a_warm_cache_loads_and_says_so(cold_and_warm):
    _, warm = cold_and_warm
    mlp = warm["mlp"]
    assert mlp["cache"] == "disk"
    names = [name for name, *_ in mlp["steps"]]
    assert (
        "load kernels jit(loss) (disk cache)" in names and "load kernels jit(loss/body) (disk cache)" in names
    )
    # nothing compiled: no step of the call is a compile, whatever its nested programs
    assert all(cat == "load" and cache == "disk" for _, cat, cache, _ in mlp["steps"]), mlp["steps"]
    # a first call run interpreted while its kernels load on the background thread: loaded, not
    # compiled, and counted as a kernel-cache load (its table row said "first compile")
    background = warm["background"]
    assert background["steps"] == [
        ["load kernels jit(loss) (disk cache) in the background", "load", "disk", True]
    ]
    assert background["cache"] == "disk"


def _call(*steps: tuple[str, str | None]) -> TransformedCall:
    call = TransformedCall(id=0, label="jit(f)", function="f")
    call.jit = JitInfo(backend="numba", cache="miss")
    for category, cache in steps:
        call.timings.append(TimingEvent(name="x", category=category, start_ms=0, duration_ms=1, cache=cache))
    return call


@pytest.mark.parametrize(
    "steps, cache",
    [
        ([("load", "disk")], "disk"),
        ([("load", "disk"), ("load", "hit")], "disk"),
        ([("load", "disk"), ("compile", "miss")], "miss"),  # a nested program compiled: not "loaded"
        ([("load", "hit")], "miss"),  # in memory: nothing came from the disk cache
        ([], "miss"),
    ],
)
def test_a_call_is_a_kernel_cache_load_only_when_nothing_compiled(steps, cache):
    call = _call(*steps)
    jit_timings.kernels_cache(call)
    assert call.jit.cache == cache
