"""No jitted program leaves compiled code unnoticed: whatever the numba backend does not compile
(a whole program the interpreter runs, an equation whose rule runs on the host) is noted on its
executable (``jit_runtime.not_compiled``), which the run report lists under the jit call and
``jax.log_compiles`` logs; and a program that compiled is what warm calls run directly (jit's fast
path). Checked over the fidelity corpus and the examples gallery: each exception is listed here
with its reason, so a new one fails until it is fixed or listed."""

import logging

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from conftest import numba_backend
from engine import jit_runtime, lax, nn, random, random_lowering
from engine.backends import rows
from engine.inspect.run import run_code
from engine.inspect.schema import RunRequest

numba_backend()
pytestmark = pytest.mark.usefixtures("test_kernel_cache")

# Equations compiled code hands to their rules although their primitive has a lowering row (the
# row declines them), by primitive; the primitives without a row are in rows.INTERPRETER_ONLY.
DECLINED = rows.DECLINED
# Programs whose equations are declined for their dtype, not their primitive.
DECLINED_DTYPES = {"astype_float16": "float16 is not among the kernels' types (lowering._NB_TYPES)"}
# Programs the interpreter runs whole (``why_interpreted``), and why.
INTERPRETED = {
    "refs_jit_internal_ref": "a ref made and used inside a nested jit stays a Ref when discharged",
}
# Programs jit runs as one program per device of a mesh (engine/parallel/partition.run_sharded):
# no executable of the host's; the device processes compile their programs.
SHARDED_PREFIXES = ("shard_map_", "explicit_sharding_", "sharding_constraint_", "sharded_jit_")
# Warm calls that take jit's general path by design, not its fast path.
GENERAL_PATH = {
    "random_key": "typed-key results are wrapped by the general path",
    "refs_closed_over_slices_and_arrays": "closes over refs: hoisted constants go through the general path",
    "refs_jit_closed_over_indexed_add": "closes over refs",
    "refs_scan_closed_over": "closes over refs",
    "refs_fori_loop_closed_over": "closes over refs",
    "refs_while_loop_closed_over": "closes over refs",
}


def _silent(exe) -> bool:
    """An executable that is neither compiled code nor noted as interpreted: a silent fallback."""
    return getattr(exe, "source", None) is None and not getattr(exe, "why_interpreted", None)


def _unlisted(name: str, exe) -> list[str]:
    out = []
    for f in jit_runtime.not_compiled(exe):
        if f.startswith("interpreter: "):
            if name not in INTERPRETED:
                out.append(f)
            continue
        prim = f.split(": ")[-1]  # ("body: reduce_sum": an equation of a loop's body)
        if prim not in rows.INTERPRETER_ONLY and prim not in DECLINED and name not in DECLINED_DTYPES:
            out.append(f)
    return out


def test_fidelity_corpus_never_falls_back_silently(monkeypatch):
    from tests.fidelity import programs

    programs.bind(engine, jnp, lax, random, nn)
    monkeypatch.setattr(jit_runtime, "TIERED", False)  # (compiled by the first call: no tier)
    jit_runtime.wait_for_compiles()  # (an earlier test's background compile lands in no program's loop)
    silent, unlisted, no_exe, slow, interpreted = {}, {}, [], [], set()
    for name, build in programs.PROGRAMS.items():
        before = {id(e) for e in jit_runtime._executables.values()}
        f, args = build()
        g = engine.jit(f)
        # jit's caches are per function (lax.add's are shared with every earlier jit(lax.add)): the
        # first entry must be this call's, so an earlier test's signature is not the one checked
        g.clear_cache()
        g(*args)
        g(*args)
        new = [e for e in jit_runtime._executables.values() if id(e) not in before]
        closed = next(iter(g._cache.values()))[0]
        exe = jit_runtime._executables.get(jit_runtime.compiled_form(closed))
        if exe is None and not name.startswith(SHARDED_PREFIXES):
            no_exe.append(name)
        for e in [*new, *([exe] if exe is not None else [])]:
            if _silent(e):
                silent[name] = e
            if getattr(e, "why_interpreted", None):
                interpreted.add(name)
            if _unlisted(name, e):
                unlisted[name] = _unlisted(name, e)
        key = g._fast_key(args)
        if key is not None and key not in g._fast and not name.startswith(SHARDED_PREFIXES):
            slow.append(name)
    assert not silent, f"run by the interpreter without a reason noted: {sorted(silent)}"
    assert not unlisted, f"fallbacks neither fixed nor listed: {unlisted}"
    assert not no_exe, f"no executable for: {no_exe}"
    assert interpreted == set(INTERPRETED), "INTERPRETED is stale or incomplete"
    assert sorted(slow) == sorted(GENERAL_PATH), "warm calls not on the fast path"


@pytest.fixture(autouse=True)
def fresh_devices():
    """The corpora's pmaps start device processes; later tests (x64 on) get fresh ones."""
    from engine.parallel import runtime

    yield
    runtime.shutdown()


def test_gallery_examples_never_fall_back_silently():
    from server.examples import EXAMPLES

    for example in EXAMPLES:
        req = RunRequest(code=example.code, function=example.function, stack=example.stack, args=example.args)
        before = {id(e) for e in jit_runtime._executables.values()}
        report, error = run_code(req)
        assert error is None and report.ok, example.id
        jit_runtime.wait_for_compiles()
        new = [e for e in jit_runtime._executables.values() if id(e) not in before]
        assert not [e for e in new if _silent(e)], example.id
        assert not [f for e in new for f in _unlisted(example.id, e)], example.id
        for call in report.calls:  # (a first call runs interpreted while its kernels compile)
            if call.jit is not None:
                assert call.jit.fallbacks == [], (example.id, call.label)


def test_a_program_the_backend_gives_up_on_says_so(monkeypatch, caplog):
    """A program whose lowering fails runs on the interpreter, and every report of it says why:
    its executable, jit's tier, jax.log_compiles and the run report's jit facts."""

    def refuse(closed):
        raise NotImplementedError("no rule for a test's key op")

    monkeypatch.setattr(random_lowering, "physical_program", refuse)
    monkeypatch.setattr(jit_runtime, "TIERED", False)
    f = engine.jit(lambda k, x: x + random.normal(k, (3,)) * 3.0)
    k, x = random.key(1), np.ones(3, np.float32)
    with caplog.at_level(logging.WARNING), engine.log_compiles():
        f(k, x)
    closed = next(iter(f._cache.values()))[0]
    exe = jit_runtime._executables[jit_runtime.compiled_form(closed)]
    assert exe.why_interpreted == "no rule for a test's key op"
    assert jit_runtime.not_compiled(exe) == ["interpreter: no rule for a test's key op"]
    assert "runs partly or wholly on the interpreter: interpreter: no rule" in caplog.text
    code = (
        "import jax, jax.numpy as jnp\n"
        "f = jax.jit(lambda k, x: x + jax.random.normal(k, (3,)) * 5.0)\n"
        "f(jax.random.key(2), jnp.ones(3))\n"
    )
    report, error = run_code(RunRequest(code=code))
    assert error is None
    (call,) = [c for c in report.calls if c.jit is not None]
    assert call.jit.fallbacks == ["interpreter: no rule for a test's key op"]
    assert call.jit.tier == "interpreter"


def test_the_report_says_why_a_designed_fallback_runs_interpreted(monkeypatch):
    """An equation a row declines on purpose (a float32 sum in XLA's order) is listed with its
    reason in the run report, not as a primitive without a lowering rule."""
    monkeypatch.setattr(jit_runtime, "TIERED", False)  # (compiled by the first call)
    code = "import jax, jax.numpy as jnp\nf = jax.jit(lambda x: jnp.sum(x))\nf(jnp.ones(5000))\n"
    report, error = run_code(RunRequest(code=code))
    assert error is None
    (call, *_) = [c for c in report.calls if c.jit is not None]
    assert call.jit.fallbacks == [f"reduce_sum ({rows.DECLINED['reduce_sum']})"]
    assert rows.explained(["body: nextafter", "twice"]) == [
        f"body: nextafter ({rows.INTERPRETER_ONLY['nextafter']})",
        "twice (no lowering rule)",
    ]
