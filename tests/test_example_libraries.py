"""``jax.example_libraries`` (stax, optimizers), ``jax.nn.initializers`` and JAX's example programs,
against values recorded from JAX 0.10.2 (``tests/jax_examples/record.py`` -> ``recorded.json``)."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import ROOT
from engine import compat

HERE = ROOT / "tests" / "jax_examples"
RECORDED = json.loads((HERE / "recorded.json").read_text())


pytestmark = pytest.mark.usefixtures("test_kernel_cache")


@pytest.fixture(scope="module")
def cases():
    compat.install()
    sys.path.insert(0, str(HERE))
    try:
        import jax
        import library_cases

        yield library_cases.all_cases(jax)
    finally:
        sys.path.remove(str(HERE))
        sys.modules.pop("library_cases", None)
        compat.uninstall()


def assert_tree_close(actual, expected, path="", tol=(2e-5, 2e-6)):
    if isinstance(expected, dict):
        assert sorted(actual) == sorted(expected), path
        for k in expected:
            assert_tree_close(actual[k], expected[k], f"{path}/{k}", tol)
    elif isinstance(expected, list) and expected and isinstance(expected[0], (list, dict)):
        assert len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_tree_close(a, e, f"{path}[{i}]", tol)
    else:
        np.testing.assert_allclose(
            np.asarray(actual), np.asarray(expected), rtol=tol[0], atol=tol[1], err_msg=path
        )


@pytest.mark.parametrize(
    "group", ["optimizers", "schedules", "utilities", "stax", "initializers", "conv_stax", "lax_windows"]
)
def test_library_matches_jax(cases, group):
    # convolution gradients sum many products in another order than XLA: float32 noise is larger
    tol = (1e-4, 2e-5) if group in ("conv_stax", "lax_windows") else (2e-5, 2e-6)
    assert_tree_close(cases[group], RECORDED["library"][group], group, tol)


def test_optimizer_state_is_a_pytree_with_static_structure():
    import engine as jax
    from engine.example_libraries import optimizers

    opt_init, opt_update, get_params = optimizers.adam(0.1)
    state = opt_init({"w": jax.numpy.ones(3), "b": (jax.numpy.zeros(()),)})
    assert len(jax.tree.leaves(state)) == 6  # (x, m, v) per parameter; tree defs are aux data
    with pytest.raises(TypeError, match="did not match the parameter tree structure"):
        opt_update(0, {"w": jax.numpy.ones(3)}, state)


def test_dropout_without_rng_says_how_to_call_it():
    import engine as jax
    from engine.example_libraries import stax

    init, apply = stax.Dropout(0.5)
    with pytest.raises(ValueError, match="PRNG key"):
        apply((), jax.numpy.ones(3))


# The example programs: each runs unchanged under `python -m engine run`, printing what JAX printed.

_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+")
_NEEDS = {  # engine modules a program needs beyond this issue's, skipped with the reason until they land
    "mnist_classifier_fromscratch": ["engine.scipy.special"],
    "advi": ["engine.scipy.stats"],
    "spmd_mnist_classifier_fromscratch": ["engine.scipy.special"],
}


def _missing(modules):
    for name in modules:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except ModuleNotFoundError:
            return name
    return None


def run_program(name, *extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # ENGINE_CACHE_DIR: the private one
    env.pop("XLA_FLAGS", None)
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", *extra, f"{name}.py"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _shape_of_text(text: str) -> str:
    # numbers out, and the padding numpy puts between array entries (it depends on their digits)
    return re.sub(r" *([\[\]]) *", r"\1", re.sub(r" +", " ", _NUMBER.sub("#", text)))


def assert_same_output(actual: str, expected: str):
    """Same text, and every number within 1e-3 (relative above 1)."""
    assert _shape_of_text(actual) == _shape_of_text(expected), f"{actual}\n---- JAX printed:\n{expected}"
    got = [float(x) for x in _NUMBER.findall(actual)]
    want = [float(x) for x in _NUMBER.findall(expected)]
    for g, w in zip(got, want):
        assert abs(g - w) <= 1e-3 * max(1.0, abs(w)), f"{g} != {w}\n{actual}\n---- JAX printed:\n{expected}"


SPMD = "spmd_mnist_classifier_fromscratch"
# Longest first (each compiles its jitted steps with numba: 10 s to minutes of CPU).
PROGRAMS = ["differentially_private_sgd", "mnist_vae", "mnist_classifier", SPMD]
PROGRAMS += ["mnist_classifier_fromscratch", "advi"]


@pytest.fixture(scope="module")
def program_runs(request, tmp_path_factory, test_kernel_cache):
    """The selected example programs, started at once two at a time (the machine's two cores;
    pytest waits meanwhile), each a ``python -m engine run`` process of its own as before: name
    -> future of its CompletedProcess. Each test waits for its own program only."""
    selected = {
        item.callspec.params["name"]
        if item.originalname == "test_example_program_prints_jax_values"
        else SPMD
        for item in request.session.items
        if item.module is request.module
        and item.originalname
        in ("test_example_program_prints_jax_values", "test_spmd_example_trains_on_every_device")
    }
    report = tmp_path_factory.mktemp("spmd") / "report.json"
    pool = ThreadPoolExecutor(2)
    runs = {
        name: pool.submit(run_program, name, *(("--report", str(report)) if name == SPMD else ()))
        for name in PROGRAMS
        if name in selected and not _missing(_NEEDS.get(name, []))
    }
    yield runs, report
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize(
    "name",
    ["mnist_classifier", "mnist_vae", "differentially_private_sgd", "mnist_classifier_fromscratch", "advi"],
)
def test_example_program_prints_jax_values(name, program_runs):
    missing = _missing(_NEEDS.get(name, []))
    if missing:
        pytest.skip(f"{missing} is not in the engine yet")
    proc = program_runs[0][name].result()
    assert proc.returncode == 0, proc.stderr
    assert_same_output(proc.stdout, RECORDED["programs"][name])


def test_spmd_example_trains_on_every_device(program_runs):
    name = SPMD
    missing = _missing(_NEEDS[name])
    if missing:
        pytest.skip(f"{missing} is not in the engine yet")
    runs, report = program_runs
    proc = runs[name].result()
    assert proc.returncode == 0, proc.stderr
    assert_same_output(proc.stdout, RECORDED["programs"][name])
    steps = [c for c in json.loads(report.read_text())["calls"] if c["function"] == "train_step"]
    assert len(steps) == 4  # 512 examples / batch 128
    for call in steps:
        devices = call["pmap"]["devices"]
        assert [d["id"] for d in devices] == [0, 1, 2, 3] and all(d["compute_ms"] > 0 for d in devices)
        assert any(e["primitive"] == "psum" for e in call["pmap"]["collectives"])
