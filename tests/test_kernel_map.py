"""Which equations each fused kernel computes, its estimated cost, and its measured launches."""

from __future__ import annotations

import importlib

import numpy as np
from conftest import numba_backend

import engine as jax
import engine.numpy as jnp
from engine import monitoring
from engine.inspect import record, run_request
from engine.inspect.cost import eqn_cost
from engine.inspect.kernels import kernel_steps
from engine.inspect.schema import RunRequest

nb_jit = numba_backend()


def _program(f, *args):
    closed = jax.make_jaxpr(f)(*args)
    return closed, nb_jit.NumbaBackend().lower_program(closed, "f")


def test_elementwise_chain_is_one_kernel_covering_every_equation():
    closed, prog = _program(lambda x, y: jnp.sin(x) * y + 1.0, np.ones(8, np.float32), np.ones(8, np.float32))
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["sin", "mul", "add"]
    assert len(prog.launches) == 1
    (launch,) = prog.launches
    assert [prog.flat.paths[i] for i in launch.eqns] == [(0,), (1,), (2,)]
    # fused traffic: x and y read once (32 B each), the result written once
    assert (launch.read_bytes, launch.write_bytes) == (64, 32)
    (step,) = kernel_steps(prog)
    assert step.kind == "kernel" and step.eqns == ["n0", "n1", "n2"]
    assert step.flops == sum(eqn_cost(e).flops for e in closed.jaxpr.eqns) == 24
    assert step.launches == 0 and step.measured_ms is None  # lowered, never run


def test_matmul_runs_on_the_host_between_kernels():
    def f(w, x):
        return jnp.sum(jnp.tanh(x @ w + 1.0))

    closed, prog = _program(f, np.ones((4, 3), np.float32), np.ones((2, 4), np.float32))
    steps = kernel_steps(prog)
    prims = {f"n{i}": e.primitive.name for i, e in enumerate(closed.jaxpr.eqns)}
    assert steps[0].kind == "host" and steps[0].name == "host: dot_general" and steps[0].eqns == ["n0"]
    assert steps[0].flops == 2 * 2 * 3 * 4  # two per multiply-add
    kernels = [s for s in steps if s.kind == "kernel"]
    assert kernels and {prims[e] for k in kernels for e in k.eqns} >= {"add", "tanh"}
    # a float32 sum of under 4096 elements is added in XLA's order on the host (engine/lax/sum_order.py)
    assert steps[-1].kind == "host" and prims[steps[-1].eqns[0]] == "reduce_sum"
    # every equation that does work is in exactly one step
    covered = [e for s in steps for e in s.eqns]
    assert len(covered) == len(set(covered))
    assert {e for e, p in prims.items() if eqn_cost(closed.jaxpr.eqns[int(e[1:])]).flops} <= set(covered)


def test_inlined_calls_map_to_nested_equation_paths():
    inner = jax.jit(lambda x: jnp.exp(x) * 2.0)
    closed, prog = _program(lambda x: inner(x) + 1.0, np.ones(5, np.float32))
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["jit", "add"]
    (step,) = kernel_steps(prog)
    assert step.eqns == ["n0/n0", "n0/n1", "n1"]


def test_profiled_program_times_each_launch_and_computes_the_same():
    f = jax.jit(lambda x: jnp.cos(x) * x)
    x = np.linspace(0, 1, 1000, dtype=np.float32)
    closed = jax.make_jaxpr(f)(x).jaxpr.eqns[0].params["jaxpr"]
    with monitoring.profile_kernels():
        exe = nb_jit.NumbaBackend().compile(closed, "f")
    plain = nb_jit.NumbaBackend().compile(closed, "f")
    assert plain.launch_seconds is None
    for _ in range(3):
        (out,) = exe(x)
    np.testing.assert_array_equal(out, plain(x)[0])
    assert exe.launch_counts == [3]
    (step,) = kernel_steps(exe)
    assert step.launches == 3 and 0 < step.measured_ms <= step.total_ms


def test_run_report_carries_kernels_of_the_jit_stage(monkeypatch):
    # the call runs interpreted while its kernels compile; the report then runs them once to time them
    monkeypatch.setattr(record, "KERNEL_WAIT_SECONDS", 120.0)
    code = "import jax.numpy as jnp\ndef f(w, x):\n    return jnp.sum(jnp.tanh(x @ w) ** 2)\n"
    stack = [{"name": "grad"}, {"name": "jit"}]
    r = run_request(
        RunRequest(code=code, function="f", stack=stack, args=["jnp.ones((3, 3))", "jnp.ones((2, 3))"])
    )
    assert r.ok, r.error
    jit = r.calls[0].jit
    assert jit.kernel_stage == "jit(grad(f))" == r.calls[0].stages[-1].name
    inner = r.calls[0].stages[-1].graph.nodes[0]
    assert inner.primitive == "jit"
    ids = {n.id.removeprefix(f"{inner.id}/") for n in inner.subgraphs[0].nodes}
    assert jit.kernels and all(set(k.eqns) <= ids for k in jit.kernels)
    assert any(k.kind == "kernel" for k in jit.kernels) and any(
        k.name == "host: dot_general" for k in jit.kernels
    )
    assert sum(k.flops for k in jit.kernels) > 0
    for k in jit.kernels:
        # kernels and host steps (the BLAS matmuls) are both timed
        assert k.launches >= 1 and 0 < k.measured_ms <= k.total_ms, k


FIRST_CALL_INTERPRETED = """import jax, jax.numpy as jnp
from engine import jit_runtime

def loss(w, x):
    h = jnp.tanh(x @ w + 1.0)
    return jnp.sum(h * h)

g = jax.jit(jax.grad(loss))
w, x = jnp.ones((4, 4)) * 0.1, jnp.ones((2, 4))
g(w, x)
for job in list(jit_runtime._jobs.values()):  # (the test's stand-in for a loop running long enough)
    job.done.wait(120)
g(w, x)
"""


def test_kernels_of_a_first_call_that_ran_interpreted_keep_their_measured_times(monkeypatch):
    # A script's first call ran interpreted while its kernels compiled, so the report lowered the
    # program itself: the traced one, where jit runs its simplified form. Its kernels had other
    # names than those that ran (k21 for k19), and the run's end dropped their measured times: the
    # IR panel showed "—" for every kernel (the e2e test, on CI's cold kernel cache).
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", True)
    r = run_request(RunRequest(code=FIRST_CALL_INTERPRETED))
    assert r.ok, r.error
    first = r.calls[0]
    assert any("interpreted while compiling" in e.name for e in first.timings), first.timings
    jit = first.jit
    assert any(k.kind == "kernel" for k in jit.kernels), jit.kernels
    for k in jit.kernels:
        assert k.launches >= 1 and k.measured_ms is not None and 0 < k.measured_ms <= k.total_ms, k


def test_a_report_takes_the_compiled_programs_source_instead_of_lowering_it_again(monkeypatch):
    # The outer jit's program ran compiled: its executable holds the source, launches and equations
    # the report shows, so lower_program hands it back (no second code generation), and what the
    # report shows is exactly what lowering it again gives.
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)
    code = "import jax, jax.numpy as jnp\ndef f(x, y):\n    return jnp.sum(jnp.sin(x) * y + 1.0)\n"
    args = ["jnp.arange(6.0).reshape(2, 3)", "jnp.ones(3)"]
    generated = []
    real = nb_jit.NumbaBackend.lower_program

    def counted(self, closed, name, compiled=None):
        program = real(self, closed, name, compiled)
        generated.append(program is not compiled)
        return program

    monkeypatch.setattr(nb_jit.NumbaBackend, "lower_program", counted)
    r = run_request(RunRequest(code=code, function="f", stack=[{"name": "jit"}], args=args))
    assert r.ok, r.error
    (call,) = r.calls
    assert generated == [False]  # the executable's own program
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    closed = jax.make_jaxpr(lambda x, y: jnp.sum(jnp.sin(x) * y + 1.0))(x, np.ones(3, np.float32))
    lowered = real(nb_jit.NumbaBackend(), closed, "f")
    assert call.jit.source == lowered.source
    assert [k.eqns for k in call.jit.kernels] == [k.eqns for k in kernel_steps(lowered)]


def test_lower_program_lowers_again_for_another_program_or_name():
    backend = nb_jit.NumbaBackend()
    x = np.ones(8, np.float32)
    closed = jax.make_jaxpr(lambda x: jnp.cos(x) * 2.0)(x)
    ran = backend.compile(closed, "g")
    assert backend.lower_program(closed, "g", ran) is ran
    # the same text traced again is another program object: never taken for the one that ran
    again = jax.make_jaxpr(lambda x: jnp.cos(x) * 2.0)(x)
    assert str(again) == str(closed)
    fresh = backend.lower_program(again, "g", ran)
    assert fresh is not ran and fresh.source == ran.source
    renamed = backend.lower_program(closed, "h", ran)
    assert renamed is not ran and renamed.source != ran.source
    changed = jax.make_jaxpr(lambda x: jnp.cos(x) * 3.0)(x)
    assert backend.lower_program(changed, "g", ran).source != ran.source
