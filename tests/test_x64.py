"""``jax_enable_x64``: 64-bit types, as in JAX 0.10.2 with the flag on. Values, dtypes, weak types and
printed jaxprs are compared with JAX's (recorded in tests/jax_reference/x64.json by
record_x64.py); gradients with float64 finite differences; and the flag's switches (config.update,
``jax.enable_x64``, ``JAX_ENABLE_X64``) turn it on and back off."""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine import core
from engine.test_util import check_grads
from conftest import numba_backend

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record import encode, run  # noqa: E402
from snippets import SNIPPETS, WEAK_TYPE_DIFFERS  # noqa: E402
from x64_snippets import X64_SNIPPETS  # noqa: E402

sys.path.remove(str(HERE))
RECORDED = json.loads((HERE / "x64.json").read_text())
# tests/jax_reference/snippets.py answered by JAX with x64 on.
REFERENCE = json.loads((HERE / "x64_reference.json").read_text())
# Where JAX with x64 differs for reasons that are not x64's (topic/name -> why).
REFERENCE_DIFFERS = {
    "debug_nans/debug_nans": "JAX with x64 returns NaN from an eager jnp.array(0.) / jnp.array(0.) unchecked",
    "debug_nans/debug_infs": "JAX with x64 returns inf from an eager jnp.array(1.) / jnp.array(0.) unchecked",
    "special_more/err_bessel_jn_complex": "JAX with x64 refuses a complex128 input with ValueError ('complex "
    "input not supported.'), complex64 with TypeError from rem; the engine raises TypeError for both",
    "host_arrays/scan": "JAX with x64 returns scan's ys forwarded from a numpy xs without a copy (its CPU "
    "client's zero-copy transfer: later writes to the numpy array show in it); without x64 it copies, "
    "as the engine does in both",
    **{
        f"optimize/{name}": "a bit-for-bit snippet, and with x64 float64 sums and dots are not added in "
        "XLA's order (not modelled): the fit, on data it nearly separates, drifts from JAX's"
        for name in ("bfgs_logistic_bits", "bfgs_logistic_steps_bits", "lbfgs_logistic_bits")
    },
}
ROOT = HERE.parent.parent


def _compare(got, want, path="out", rtol=None, weak_differs=False):
    """``rtol`` None: 64-bit values agree to a few ulps (float32 ones to 1e-6)."""
    (kind,) = want.keys() if len(want) == 1 else ("array",)
    if kind in ("tuple", "list"):
        assert len(got[kind]) == len(want[kind]), path
        for i, (g, w) in enumerate(zip(got[kind], want[kind])):
            _compare(g, w, f"{path}[{i}]", rtol, weak_differs)
        return
    if kind == "dict":
        assert set(got["dict"]) == set(want["dict"]), path
        for k in want["dict"]:
            _compare(got["dict"][k], want["dict"][k], f"{path}[{k!r}]", rtol, weak_differs)
        return
    if kind in ("py", "opaque"):
        assert got == want, f"{path}: got\n{got}\nJAX gave\n{want}"
        return
    assert "dtype" in got, f"{path}: got {got}, JAX gave an array"
    keys = ("dtype", "shape") if weak_differs else ("dtype", "shape", "weak_type")
    assert [got[k] for k in keys] == [want[k] for k in keys], (
        f"{path}: got {got['dtype']}{got['shape']} weak={got['weak_type']}, JAX gave "
        f"{want['dtype']}{want['shape']} weak={want['weak_type']}"
    )
    # 64-bit through and through: agreement to a few ulps, not float32's 1e-7.
    tight = 1e-13 if want["dtype"] in ("float64", "complex128") else 1e-6
    rtol, atol = (tight, 0.0) if rtol is None else (rtol, rtol)
    if "re" in want:
        g = np.asarray(got["re"]) + 1j * np.asarray(got["im"])
        w = np.asarray(want["re"]) + 1j * np.asarray(want["im"])
        np.testing.assert_allclose(g, w, rtol=rtol, atol=max(atol, 1e-15), equal_nan=True, err_msg=path)
    elif want["dtype"].startswith("float"):
        g = np.asarray([float(v) for v in got["values"]])
        w = np.asarray([float(v) for v in want["values"]])
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
    else:
        assert got["values"] == want["values"], f"{path}: got {got['values']}, JAX gave {want['values']}"


@pytest.mark.parametrize("name,code", X64_SNIPPETS, ids=[n for n, _ in X64_SNIPPETS])
def test_snippet_matches_jax_with_x64(name, code, jax_on_engine):
    jax = jax_on_engine
    with jax.enable_x64(True):
        got = encode(run(code, {"jax": jax, "jnp": jnp, "np": np}))
    assert not core.x64_enabled[0]
    _compare(got, RECORDED[name]["value"])


def _reference_params():
    for topic, cases in SNIPPETS.items():
        if topic == "special_values":  # (tests/test_special_values.py compares their bits)
            continue
        for name, code, *tol in cases:
            key = f"{topic}/{name}"
            differs = REFERENCE_DIFFERS.get(key)
            marks = [pytest.mark.xfail(reason=differs, strict=True)] if differs else []
            yield pytest.param(
                key, code, tol[0] if tol else 1e-5, name in WEAK_TYPE_DIFFERS, id=key, marks=marks
            )


@pytest.mark.parametrize("key,code,rtol,weak_differs", list(_reference_params()))
def test_reference_snippet_matches_jax_with_x64(key, code, rtol, weak_differs, jax_on_engine):
    """Every snippet of tests/jax_reference/snippets.py, run with x64 on, gives JAX's x64 answer."""
    jax = jax_on_engine
    want = REFERENCE.get(key)
    if want is None:  # (a snippet added since: record_x64.py records it)
        pytest.skip("no x64 answer recorded: run tests/jax_reference/record_x64.py under JAX")
    ns = {"jax": jax, "jnp": jnp, "lax": engine.lax, "np": np, "jsp": importlib.import_module("jax.scipy")}
    with jax.enable_x64(True):
        if "error" in want:
            with pytest.raises(Exception) as info:
                run(code, ns)
            assert type(info.value).__name__ == want["error"], (want["message"], info.value)
            return
        got = encode(run(code, ns))
    _compare(got, want["value"], rtol=rtol, weak_differs=weak_differs)


def test_flag_switches_on_and_back_off():
    assert engine.config.jax_enable_x64 is False and jnp.zeros(1).dtype == np.float32
    engine.config.update("jax_enable_x64", True)
    try:
        assert engine.config.x64_enabled and jnp.array(1.0).dtype == np.float64
        assert jnp.asarray(np.float64(0.1)).item() == 0.1  # no trip through float32
    finally:
        engine.config.update("jax_enable_x64", False)
    assert jnp.array(1.0).dtype == np.float32 and jnp.asarray(np.float64(0.1)).dtype == np.float32
    with engine.enable_x64():
        assert jnp.arange(2).dtype == np.int64
        with engine.enable_x64(False):
            assert jnp.arange(2).dtype == np.int32
        assert jnp.arange(2).dtype == np.int64
    assert jnp.arange(2).dtype == np.int32


def test_env_var_turns_it_on_at_import():
    code = "import engine, engine.numpy as jnp; print(engine.config.jax_enable_x64, jnp.zeros(1).dtype)"
    env = {**os.environ, "JAX_ENABLE_X64": "true", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "float64"]
    env["JAX_ENABLE_X64"] = "maybe"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert "invalid truth value 'maybe'" in bad.stderr


@pytest.mark.parametrize(
    "f",
    [
        lambda x: jnp.sum(jnp.sin(x) * jnp.exp(x / 3)),
        lambda x: jnp.prod(jnp.tanh(x) + 2) / jnp.linalg.norm(x),
        lambda x: jnp.sum(jnp.cumsum(x**3) * jnp.log1p(x * x)),
    ],
)
def test_float64_gradients_match_finite_differences(f):
    with engine.enable_x64():
        x = jnp.array([0.3, -1.2, 0.7])
        assert x.dtype == np.float64
        # float64 central differences are good to ~1e-9, so the tolerance can be far below float32's.
        check_grads(f, (x,), order=2, modes=("fwd", "rev"), eps=1e-6, atol=1e-6, rtol=1e-6)


@pytest.mark.usefixtures("test_kernel_cache")
def test_jit_compiles_float64_and_int64_kernels():
    """numba kernels typed f64/i64 (ints beyond int32's range survive), float64-exact results."""
    nb_jit = numba_backend()
    jit_mod = importlib.import_module("engine.jit")
    x = np.linspace(0.0, 1.0, 7)
    n = np.arange(7) + 2**33
    jit_mod.set_backend(nb_jit.NumbaBackend())
    try:
        with engine.enable_x64():
            f = engine.jit(lambda x, n: jnp.sin(x) * (n - 2**33) + x / 3 + jnp.sum(x**2) + (n // 2**33))
            args = jnp.asarray(x), jnp.asarray(n)
            source = f.lower(*args).source()
            out = f(*args)
    finally:
        jit_mod.set_backend(None)
    assert "nb.float64" in source and "nb.int64" in source and "float32" not in source
    assert out.dtype == np.float64
    want = np.sin(x) * np.arange(7) + x / 3 + np.sum(x**2) + 1
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-14)


def test_transfer_guard_refusals_with_x64_say_what_jax_says(jax_on_engine):
    """With x64 on, a refused transfer names the aval JAX's names (the 64-bit default types, what
    jnp.tri transfers for its offset, and what indexing transfers: int64 for an int or a boolean
    index, int32 for a dynamic slice's start indices over several dimensions), word for word."""
    ns = {"jax": jax_on_engine, "jnp": jnp, "lax": engine.lax, "np": np}
    checked = 0
    for name, code, *_ in SNIPPETS["transfer_guard_matrix"]:
        want = REFERENCE.get(f"transfer_guard_matrix/{name}")
        if want is None or want.get("error") != "JaxRuntimeError":
            continue
        with jax_on_engine.enable_x64(True), pytest.raises(Exception) as info:
            run(code, ns)
        assert str(info.value).split("\n")[0][:300] == want["message"], name
        checked += 1
    assert checked == 137


def test_pmap_devices_started_without_x64_run_a_program_traced_with_it(jax_on_engine):
    """The simulated devices are processes started by the first pmap: one started with x64 off
    runs a program traced with it on as traced (its int64 constants are not made int32 there)."""
    jax = jax_on_engine
    jax.pmap(lambda x: x + 1)(jnp.ones((1, 2)))  # (the devices start with x64 off)
    with jax.enable_x64(True):
        out = jax.pmap(lambda i, x: jnp.where(i > 0, i, 3) + x.astype(jnp.int64))(
            jnp.array([-5]), jnp.ones((1,))
        )
    assert out.dtype == np.int64 and out.tolist() == [4]
