"""The vectorizable float32 sin and cos (numba_math) through jit: accuracy in ulps against
float64 numpy over the whole float32 range, special values, the libm rerun for huge sin/cos
arguments, and that the fused loop really vectorizes."""

import importlib
import re

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp

from conftest import numba_backend

numba_jit = numba_backend()


@pytest.fixture(autouse=True)
def compiled_calls(monkeypatch):
    """These tests measure the kernels: every call compiled, none interpreted while compiling
    (an interpreted first call computes with numpy's functions, as eager code does)."""
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)


rng = np.random.default_rng(1)
SPECIAL = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        1e-45,
        -1e-45,
        1e-40,
        -1e-40,
        1.17549435e-38,
        3.4028235e38,
        -3.4028235e38,
        1.0,
        -1.0,
        0.5,
        88.72,
        -88.72,
        89.0,
        -104.0,
        0.625,
        -0.625,
        1.25,
        -1.25,
        np.pi / 2,
        np.pi,
        1e-7,
    ],
    np.float32,
)


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kernels"))


def samples(lo, hi, n=100_000):
    """A uniform grid over [lo, hi], log-uniform magnitudes of both signs, and the specials."""
    top = max(abs(lo), abs(hi))
    mags = np.exp(rng.uniform(np.log(1e-38), np.log(top), n))
    signs = np.where(rng.random(n) < 0.5, -1.0, 1.0) if lo < 0 else 1.0
    x = np.concatenate([np.linspace(lo, hi, n), signs * mags]).astype(np.float32)
    return np.concatenate([x, SPECIAL])


def ulp_error(got, x, ref):
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
        w32 = want.astype(np.float32)
        finite = np.isfinite(w32)
        spacing = np.spacing(np.abs(w32[finite])).astype(np.float64)
        err = np.abs(got[finite].astype(np.float64) - want[finite]) / spacing
    # Non-finite results (inf, nan) must match exactly.
    g, w = got[~finite], w32[~finite]
    assert np.array_equal(g, w, equal_nan=True), (x[~finite], g, w)
    return err


# (exp, exp2, log, tanh, expm1, log1p, logistic, sinh and cosh are XLA's kernels: test_xla_f32.py checks their
# bits against JAX's)
CASES = [
    ("sin", jnp.sin, np.sin, -1e6, 1e6, 2.0),
    ("cos", jnp.cos, np.cos, -1e6, 1e6, 2.0),
]


@pytest.mark.parametrize("name,f,ref,lo,hi,max_ulp", CASES, ids=[c[0] for c in CASES])
def test_float32_accuracy(name, f, ref, lo, hi, max_ulp):
    x = samples(lo, hi)
    got = np.asarray(jax.jit(f)(x))
    assert got.dtype == np.float32
    err = ulp_error(got, x, ref)
    assert err.max() <= max_ulp, (name, err.max(), x[np.isfinite(ref(x.astype(np.float64)))][err.argmax()])


@pytest.mark.parametrize("f,ref", [(jnp.sin, np.sin), (jnp.cos, np.cos)], ids=["sin", "cos"])
def test_trig_huge_arguments_rerun_with_libm(f, ref):
    # From 120 on glibc reduces with its 4/pi table: the loop nest reruns with the library, also when the
    # huge value sits in the middle of a large array that is split over threads.
    x = samples(-1e6, 1e6, 300_000)
    x[123_456] = 3.0e38
    x[7] = -(2.0**29)
    got = np.asarray(jax.jit(lambda v: f(v) * 2.0)(x))
    # (a subnormal sine times 2 is 0, as in JAX: XLA's kernels flush subnormals, denormal_flags)
    normal = (np.abs(x) >= np.finfo(np.float32).tiny) | (x == 0)
    assert ulp_error(got[normal] / 2, x[normal], ref).max() <= 2.0
    # near multiples of pi/2 (the hardest inputs for the reduction)
    k = np.arange(1, 20000, dtype=np.float64)
    y = np.concatenate(
        [np.nextafter(np.float32(k * np.pi / 2), np.float32(np.inf)), np.float32(k * np.pi / 2)]
    ).astype(np.float32)
    assert ulp_error(np.asarray(jax.jit(f)(y)), y, ref).max() <= 2.0


def test_trig_inside_reduction_uses_libm():
    x = np.array([1.0, 3.0e38, -5.0], np.float32)
    got = jax.jit(lambda v: jnp.sum(jnp.sin(v)))(x)
    np.testing.assert_allclose(got, np.sin(x.astype(np.float64)).sum(), rtol=1e-6)


def test_chain_vectorizes(tmp_path, monkeypatch):
    # A fresh cache so the kernel is compiled here (numba cannot show the assembly of cached code).
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    jit_mod = importlib.import_module("engine.jit")
    jit_mod.set_backend(numba_jit.NumbaBackend())
    try:
        x = np.ones(1000, np.float32)
        g = jax.jit(lambda x: jnp.tanh(x) * jnp.exp(-x * x) + jnp.sin(x) / 2)
        g(x)
        ir = g.lower(x).compile().as_text()
    finally:
        jit_mod.set_backend(None)
    # The fast loop works on float vectors (<8 x float> with AVX, <4 x float> with SSE): tanh's
    # division, the polynomials, and the OR-reduction of the huge-argument guard are all vector
    # ops; no libm call but the rerun loop's sin.
    for op in (r"fdiv <(4|8|16) x float>", r"fmul <(4|8|16) x float>", r"or <(4|8|16) x i32>"):
        assert re.search(op, ir), (op, ir[:2000])
    assert "@tanhf" not in ir and "@expf" not in ir
