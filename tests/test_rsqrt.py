"""``rsqrt`` gives JAX 0.10.2's bits (XLA's CPU estimate and Newton steps, engine/lax/xla_rsqrt.py):
float32 and float64, eager and jit, numba's loops and numpy's steps, the narrow floats through
float32, special values (signed zeros, infinities, denormals read as zero, NaN payloads), and the
divisions by a root XLA rewrites to ``rsqrt`` in jitted programs; against values recorded from JAX
(tests/jax_reference/record_rsqrt.py)."""

from __future__ import annotations

import base64
import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.lax import xla_rsqrt

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_rsqrt import PROGRAMS  # noqa: E402

RECORDED = json.loads((pathlib.Path(__file__).resolve().parent / "jax_reference" / "rsqrt.json").read_text())


def unpack(s: str, dtype, shape=None) -> np.ndarray:
    a = np.frombuffer(base64.b64decode(s), dtype)
    return a.reshape(shape) if shape is not None else a


INPUTS = {k: unpack(v, np.float64 if k == "f64" else np.float32) for k, v in RECORDED["inputs"].items()}
X = INPUTS["x"].reshape(16, 32)


def assert_bits(got, want):
    got, want = np.asarray(got).ravel(), want.ravel()
    assert got.dtype == want.dtype
    differ = np.nonzero(got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}"))[0]
    assert differ.size == 0, f"{differ.size} of {want.size} differ, e.g. at {differ[:5]}"


@pytest.mark.parametrize("mode", ["eager", "jit", "numpy steps"])
def test_float32_bits(mode):
    x = INPUTS["f32"]
    want = unpack(RECORDED["f32"]["jit" if mode == "jit" else "eager"], np.float32)
    got = {"eager": lax.rsqrt, "jit": jax.jit(lax.rsqrt), "numpy steps": xla_rsqrt.rsqrt_f32}[mode](x)
    assert_bits(got, want)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_float64_bits(mode):
    x = INPUTS["f64"]
    with jax.enable_x64(True):
        got = (lax.rsqrt if mode == "eager" else jax.jit(lax.rsqrt))(x)
        assert_bits(got, unpack(RECORDED["f64"][mode], np.float64))


def test_float64_numpy_steps_are_within_an_ulp():
    # (long double fused multiply-adds round twice now and then: numba's are exact)
    want = unpack(RECORDED["f64"]["eager"], np.float64)
    got = xla_rsqrt.rsqrt_f64(INPUTS["f64"])
    ulps = np.abs(got.view(np.int64) - want.view(np.int64))
    assert np.all((ulps <= 1) | (np.isnan(got) & np.isnan(want))) and np.mean(ulps != 0) < 1e-2


def test_narrow_floats_round_the_float32_result():
    x = INPUTS["narrow"]
    with np.errstate(over="ignore"):
        assert_bits(lax.rsqrt(x.astype(np.float16)), unpack(RECORDED["float16"], np.float16))
    got = np.asarray(lax.rsqrt(jnp.asarray(x).astype(jnp.bfloat16)), np.float32)
    assert_bits(got, unpack(RECORDED["bfloat16"], np.float32))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jitted_divisions_by_roots(name):
    f = eval(PROGRAMS[name], {"jax": jax, "jnp": jnp, "lax": lax})
    assert_bits(jax.jit(f)(X), unpack(RECORDED["programs"][name], np.float32, X.shape))


@pytest.mark.parametrize("name", ["div_sqrt", "div_rsqrt", "one_over_sqrt"])
def test_jitted_divisions_by_roots_float64(name):
    f = eval(PROGRAMS[name], {"jax": jax, "jnp": jnp, "lax": lax})
    with jax.enable_x64(True):
        got = jax.jit(f)(X.astype(np.float64))
        assert_bits(got, unpack(RECORDED["programs64"][name], np.float64, X.shape))


def test_rsqrt_is_not_one_over_sqrt():
    # the reason for all this: about a third of float32 results are an ulp from 1 / sqrt(y)
    y = np.abs(INPUTS["f32"][np.isfinite(INPUTS["f32"])]) + np.float32(1)
    assert np.mean(np.asarray(lax.rsqrt(y)) != np.float32(1) / np.sqrt(y)) > 0.2
