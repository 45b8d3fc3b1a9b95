"""float32 exp, log, tanh, expm1, log1p, logistic, exp2, sinh, cosh, asinh, acosh, atanh, erf,
erf_inv, lgamma and digamma give JAX's bits: the numpy steps, numba's loop, eager jnp (small and big
arrays) and compiled jit kernels; log2 and log10 eager and jitted (XLA's log times the reciprocal
of log(2): tests/test_division.py); against values recorded from JAX 0.10.2
(tests/jax_reference/record_xla_f32.py)."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.lax import xla_f32

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_xla_f32 import COMPOSED, FUNCTIONS, LAX, unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "xla_f32.json").read_text()
)
X = unpack(RECORDED["x"])


def assert_bits(name: str, got) -> None:
    got, want = np.asarray(got, np.float32), unpack(RECORDED[name])
    same = (got.view(np.int32) == want.view(np.int32)) | (np.isnan(got) & np.isnan(want))
    bad = np.nonzero(~same)[0]
    assert bad.size == 0, (
        f"{name}: {bad.size} of {got.size} differ, e.g. at {bad[:3]} got {got[bad[:3]]} want {want[bad[:3]]}"
    )


def _function(name):
    return getattr(lax, name) if name in LAX else getattr(jnp, name)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_numpy_steps(name):
    with np.errstate(all="ignore"):
        assert_bits(name, getattr(xla_f32, name)(X))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_numba_loop(name):
    numba_math = pytest.importorskip("engine.backends.numba_math")
    with np.errstate(all="ignore"):
        assert_bits(name, numba_math.apply(name, X))
        assert_bits(name, numba_math.apply(name, X[::-1].reshape(1, -1))[0, ::-1])  # (a strided view)


@pytest.mark.parametrize("name", FUNCTIONS + COMPOSED)
def test_eager(name):
    f = _function(name)
    assert_bits(name, f(X))
    # (small arrays as rows: a vector of 5 or 6 elements is, for exp and log, partly the C library's
    # in JAX, libm_f32.TAILS, tested in jax_reference's real_programs)
    chunks = [np.asarray(f(c.reshape(1, -1))).reshape(-1) for c in np.array_split(X, 2000)]
    assert_bits(name, np.concatenate(chunks))


@pytest.mark.parametrize("name", FUNCTIONS + COMPOSED)
def test_compiled_kernel(name, monkeypatch, tmp_path):
    pytest.importorskip("numba")
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    f = _function(name)
    assert_bits(name, jax.jit(lambda v: f(v) * 1.0)(X))  # (a fused loop, not one numpy call)


def test_narrow_floats_round_the_float32_kernel():
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    for dtype in (jnp.float16, jnp.bfloat16):
        got = np.asarray(jnp.exp(jnp.asarray(x, dtype)), np.float32)
        want = (
            np.asarray(xla_f32.exp(np.asarray(jnp.asarray(x, dtype), np.float32)))
            .astype(dtype)
            .astype(np.float32)
        )
        np.testing.assert_array_equal(got, want)
