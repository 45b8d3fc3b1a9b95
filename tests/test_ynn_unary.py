"""YNNPACK's exp, expm1, tanh, log, log1p (engine/lax/ynn_unary.py; in compiled kernels
numba_math.ynn_*_f32) where XLA fuses them into a large sum (engine/backends/ynn_fusion.py), bit
for bit against JAX 0.10.2 (tests/jax_reference/record_ynn_unary.py)."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.lax import ynn_unary

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_xla_f32 import unpack  # noqa: E402
from record_ynn_unary import NEUTRAL, PATH, SAMPLE, digest, inputs, operand, programs  # noqa: E402

RECORDED = json.loads(PATH.read_text())
X = inputs()
PROGRAMS = programs(jax, jnp)


def same_bits(got, want) -> np.ndarray:
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    return (got.view(np.int32) == want.view(np.int32)) | (np.isnan(got) & np.isnan(want))


def check_function(name, y):
    y = np.asarray(y, np.float32) + np.float32(0)  # (the recorded sum added 0 to each value)
    want = RECORDED["functions"][name]
    bad = ~same_bits(y[:SAMPLE], unpack(want["sample"]))
    assert not bad.any(), (name, X[:SAMPLE][bad][:3], y[:SAMPLE][bad][:3])
    assert digest(y) == want["sha256"], name


@pytest.mark.parametrize("name", list(NEUTRAL))
def test_numpy_functions_give_ynnpacks_bits(name):
    check_function(name, getattr(ynn_unary, name)(X))


@pytest.mark.parametrize("name", list(NEUTRAL))
def test_numba_kernels_give_ynnpacks_bits(name):
    nb = pytest.importorskip("numba")
    f = getattr(importlib.import_module("engine.backends.numba_math"), f"ynn_{name}_f32")

    @nb.njit
    def each(a):
        out = np.empty_like(a)
        for i in range(a.size):
            out[i] = f(a[i])
        return out

    check_function(name, each(X))


@pytest.fixture(params=["interpreted", "compiled"])
def tier(request, monkeypatch):
    """The interpreter tier (a first call) and compiled kernels both evaluate the rewrite."""
    runtime = importlib.import_module("engine.jit_runtime")
    if request.param == "compiled":
        monkeypatch.setattr(runtime, "TIERED", False)
    else:
        monkeypatch.setattr(runtime, "INTERPRET_MAX_SECONDS", float("inf"))
        monkeypatch.setattr(runtime, "_submit", lambda job: None)  # (never compiled: interpreted)
    return request.param


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jitted_fused_sums_give_jax_bits(name, tier):
    shape, f = PROGRAMS[name]
    got = jax.jit(f)(operand(shape))
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, RECORDED["programs"][name], strict=True):
        g = np.asarray(g, np.float32).ravel()
        bad = ~same_bits(g, unpack(w))
        assert not bad.any(), (name, f"{bad.sum()} of {bad.size} differ", g[bad][:3], unpack(w)[bad][:3])


def test_the_rewrite_leaves_values_with_other_uses_and_small_sums_alone():
    from engine.backends.flat_program import FlatProgram

    def prims(f, x):
        return [e.primitive.name for e in FlatProgram(jax.make_jaxpr(f)(x)).eqns]

    x = operand((128, 100))
    assert prims(lambda v: jnp.log(1 + jnp.exp(v)).sum(1), x).count("ynn_unary") == 2
    assert "ynn_unary" not in prims(PROGRAMS["tanh also an output"][1], x)
    assert "ynn_unary" not in prims(lambda v: jnp.tanh(v).sum(1), operand((40, 100)))  # (XLA's loop)
