"""float32 division rounds as JAX 0.10.2's: XLA turns a division by a constant or by a broadcast
divisor into a multiplication by the rounded reciprocal (engine/algebraic_simplifier.py under jit;
lax.div and jnp.divide eagerly; jnp.mean's count), and keeps x / y of equal shapes a division.
Against results recorded from JAX (tests/jax_reference/record_division.py)."""

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
from record_division import cases, operands  # noqa: E402
from record_xla_f32 import unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "division.json").read_text()
)
X, Y = operands()
CASES = cases(jnp, lax)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", list(CASES))
def test_division_rounds_as_in_jax(name, mode):
    f = CASES[name]
    got = np.asarray(
        f(jnp.asarray(X), jnp.asarray(Y)) if mode == "eager" else jax.jit(f)(X, Y), np.float32
    ).ravel()
    want = unpack(RECORDED[f"{mode} {name}"])
    assert (got.view(np.int32) == want.view(np.int32)).all(), (got[got != want][:3], want[got != want][:3])


def test_the_reciprocal_is_rounded_once_and_multiplied():
    x = np.float32(7.0)
    assert float(jax.jit(lambda v: v / 3.0)(x)) == float(x * (np.float32(1) / np.float32(3)))
    assert float(jnp.asarray(x) / jnp.asarray(np.float32(3.0))) == float(
        x / np.float32(3)
    )  # (scalars: divided)


def test_printed_program_keeps_the_division():
    text = str(jax.make_jaxpr(lambda v: jnp.mean(v))(np.ones(3, np.float32)))
    assert "div b 3.0:f32[]" in text
