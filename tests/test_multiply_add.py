"""Jitted float32 multiply-adds round once where XLA's CPU compiler fuses them (a product whose
only use is a sum: backends/multiply_add.py), in compiled kernels and on the interpreter tier a
first call runs on, against results recorded from JAX 0.10.2 (record_multiply_add.py); eager
operations round twice, as JAX's do."""

from __future__ import annotations

import importlib
import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_multiply_add import cases, operands  # noqa: E402
from record_xla_f32 import unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "multiply_add.json").read_text()
)
A, B, C = operands()
CASES = cases(jnp)


def _same(got, name):
    got, want = np.asarray(got, np.float32).ravel(), unpack(RECORDED[name])
    bad = got.view(np.int32) != want.view(np.int32)
    assert not bad.any(), (name, int(bad.sum()), got[bad][:3], want[bad][:3])


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_kernels_fuse_as_xla(name, monkeypatch, tmp_path):
    pytest.importorskip("numba")
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    _same(jax.jit(CASES[name])(A, B, C), name)


@pytest.mark.parametrize("name", list(CASES))
def test_the_interpreter_tier_fuses_them_too(name):
    runtime = importlib.import_module("engine.jit_runtime")
    program = runtime.compiled_form(jax.make_jaxpr(CASES[name])(A, B, C))  # (as jit runs it)
    _same(runtime.Interpreter().compile(program, "")(A, B, C)[0], name)


def test_eager_operations_round_twice():
    got = np.asarray(jnp.asarray(A) * jnp.asarray(B) + jnp.asarray(C))
    assert (got == A * B + C).all()
