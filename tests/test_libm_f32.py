"""float32 sin, cos, tan, arctan, arctan2, pow, cbrt, arcsin and arccos give JAX's bits (XLA's kernels
call the C library for these): the numpy steps, numba's loops, eager jnp and compiled jit kernels,
against values recorded from JAX 0.10.2 (tests/jax_reference/record_libm_f32.py)."""

from __future__ import annotations

import importlib
import json
import pathlib
import platform
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.lax import libm_f32

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_libm_f32 import BINARY, UNARY  # noqa: E402
from record_xla_f32 import unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "libm_f32.json").read_text()
)
X, Y = unpack(RECORDED["x"]), unpack(RECORDED["y"])
KERNEL = {"arctan": "atan", "arctan2": "atan2", "arcsin": "asin", "arccos": "acos"}


# tan, atan, atan2, pow, cbrt (and sin/cos from 120 on) are the host C library's own calls, as in
# JAX: with another C library than the recording's they round as that library does.
OTHER_LIBC = tuple(RECORDED["libc"]) != platform.libc_ver()
host_libm = pytest.mark.skipif(
    OTHER_LIBC, reason=f"recorded with {RECORDED['libc']}, this is {platform.libc_ver()}"
)


# (arctan is recorded as JAX computes scalars: atanf, as XLA does a long 1-d array but for its
# elements past the last multiple of 4, which the tests of arrays leave out: lax/libm_f32)
WHOLE = {"arctan": slice(0, X.size - X.size % 4)}


def args(name, where=slice(None)):
    return (X[where],) if name in UNARY else (X[where], Y[where])


def assert_bits(name, got, where=slice(None)) -> None:
    got, want = np.asarray(got, np.float32), unpack(RECORDED[name])[where]
    same = (got.view(np.int32) == want.view(np.int32)) | (np.isnan(got) & np.isnan(want))
    bad = np.nonzero(~same)[0]
    assert bad.size == 0, (
        f"{name}: {bad.size} of {got.size} differ, e.g. x={X[where][bad[:3]]} got {got[bad[:3]]} want {want[bad[:3]]}"
    )


def _function(name):
    return lax.pow if name == "pow" else getattr(jnp, name)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_numpy_steps_of_sin_and_cos(name):
    small = np.abs(X) < 120  # (beyond, glibc reduces with its 4/pi table: see the next test)
    assert_bits(name, getattr(libm_f32, name)(X[small]), small)


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_numpy_fallback_is_within_an_ulp(name):
    # Without numba these are numpy's float64 functions rounded once (sin and cos from 120 on):
    # the library's value or its neighbour, for normal operands (the library reads denormal ones as
    # zero).
    normal = np.all([(np.abs(a) >= 1.2e-38) | (a == 0) for a in args(name)], axis=0)
    with np.errstate(all="ignore"):
        got = libm_f32._STEPS[KERNEL.get(name, name)](*args(name, normal))
    want = unpack(RECORDED[name])[normal]
    finite = np.isfinite(want)
    assert (np.isnan(got) == np.isnan(want)).all()
    ulps = np.abs(got[finite].view(np.int32).astype(np.int64) - want[finite].view(np.int32).astype(np.int64))
    assert ulps.max() <= 1


@host_libm
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_numba_loop(name):
    numba_libm = pytest.importorskip("engine.backends.numba_libm")
    where = WHOLE.get(name, slice(None))
    assert_bits(name, numba_libm.apply(KERNEL.get(name, name), *args(name, where)), where)


@host_libm
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_eager(name):
    f = _function(name)
    where = WHOLE.get(name, slice(None))
    assert_bits(name, f(*args(name, where)), where)
    assert_bits(
        name, [float(f(*(a[i] for a in args(name)))) for i in range(0, X.size, 97)], slice(0, None, 97)
    )


@host_libm
@pytest.mark.parametrize("name", UNARY + BINARY)
def test_compiled_kernel(name, monkeypatch, tmp_path):
    pytest.importorskip("numba")
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    f = jax.jit(lambda *a: _function(name)(*a) * 1.0)  # (a fused loop, not one numpy call)
    where = WHOLE.get(name, slice(None))
    assert_bits(name, f(*args(name, where)), where)
    if name in ("sin", "cos"):  # only arguments the vectorized path takes (no rerun with the library)
        small = np.abs(X) < 120
        assert_bits(name, f(X[small]), small)


def test_sin_of_one_prints_as_in_jax():
    assert str(jnp.sin(jnp.float32(1.0))) == "0.84147096"
    assert str(jax.jit(jnp.sin)(1.0)) == "0.84147096"
