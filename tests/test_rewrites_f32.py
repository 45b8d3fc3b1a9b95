"""float32 results that depend on how XLA rewrites a program, bit for bit as JAX 0.10.2's: constant
factors folded and moved onto a broadcast operand, ln(sqrt(x)) as 0.5 * ln(x) under jit
(engine/algebraic_simplifier.py), and eager jnp.linspace as XLA's kernel for it computes
(engine/numpy/_creation.py). Against results recorded from JAX (tests/jax_reference/record_rewrites_f32.py)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_rewrites_f32 import jit_cases, linspace_cases, operands  # noqa: E402
from record_xla_f32 import unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "rewrites_f32.json").read_text()
)
X, Y = operands()
JIT = jit_cases(jnp, lax)


def _same_bits(got, want):
    got = np.asarray(got, np.float32).ravel()
    bad = got.view(np.int32) != want.view(np.int32)
    assert not bad.any(), (np.nonzero(bad)[0][:5], got[bad][:3], want[bad][:3])


@pytest.mark.parametrize("name", list(JIT))
def test_jit_rounds_as_jax(name):
    _same_bits(jax.jit(JIT[name])(X, Y), unpack(RECORDED[f"jit {name}"]))


@pytest.mark.parametrize("a, b, n, endpoint", linspace_cases())
def test_linspace_is_xlas_kernel(a, b, n, endpoint):
    values, step = jnp.linspace(np.float32(a), np.float32(b), n, endpoint=endpoint, retstep=True)
    _same_bits(np.append(np.asarray(values), step), unpack(RECORDED[f"linspace {a!r} {b!r} {n} {endpoint}"]))


def test_rewrites_leave_the_printed_program_and_eager_values_alone():
    f = lambda x, s: s * (x * 0.1)  # noqa: E731
    assert "mul b c" in str(jax.make_jaxpr(f)(X, Y[0, 0]))  # (as traced: JAX prints it so)
    eager = np.asarray(f(jnp.asarray(X), jnp.asarray(Y[0, 0])))
    assert (eager == Y[0, 0] * (X * np.float32(0.1))).all()  # (each operation rounded, as JAX's eager)
    pi = np.float32(np.pi)
    jitted = float(jax.jit(lambda x: jnp.log(jnp.sqrt(x)))(pi))
    assert jitted == float(np.float32(0.5) * np.asarray(jnp.log(pi)))
    assert jitted != float(jnp.log(jnp.sqrt(pi)))  # (the FAQ's example: JAX prints 0.5723649 and 0.572365)
