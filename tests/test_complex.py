"""Complex numbers: the real/imag/conj/complex primitives' rules, and the elementwise ops that
accept complex64, checked against float64 finite differences (JAX's AD convention) and a loop
for vmap. Values against JAX itself are in test_jax_reference.py (topic 'complex')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine import lax
from engine.test_util import check_batching, check_grads


def _z(rng, *shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


RNG = np.random.default_rng(7)
Z = _z(RNG, 4) * 0.5 + 0.7
X, Y = RNG.standard_normal(4).astype(np.float32), RNG.standard_normal(4).astype(np.float32)

GRAD_CASES = {
    "real": (lax.real, (Z,)),
    "imag": (lax.imag, (Z,)),
    "conj": (lax.conj, (Z,)),
    "conj_of_real": (lax.conj, (X,)),
    "complex": (lax.complex, (X, Y)),
    "abs": (lax.abs, (Z,)),
    "mul": (lambda a, b: a * b, (Z, Z[::-1].copy())),
    "div": (lambda a, b: a / b, (Z, Z[::-1].copy())),
    "exp_log": (lambda z: jnp.exp(z) * jnp.log(z), (Z,)),
    "trig": (lambda z: jnp.sin(z) + jnp.cos(z) * jnp.tanh(z), (Z,)),
    "sqrt_pow": (lambda z: jnp.sqrt(z) + z**3, (Z,)),
    "z_conj_z": (lambda z: z * jnp.conj(z), (Z,)),
    "angle": (jnp.angle, (Z,)),
    "matmul": (lambda a, b: jnp.outer(a, b) @ a, (Z, Z[::-1].copy())),
    "sum_abs": (lambda z: jnp.sum(jnp.abs(z) ** 2), (Z,)),
    "real_to_complex": (lambda x: jnp.exp(1j * x), (X,)),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_grads_match_finite_differences(name):
    f, args = GRAD_CASES[name]
    check_grads(f, args, order=2, atol=5e-3, rtol=5e-3, eps=1e-3)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_vmap_matches_loop(name):
    f, args = GRAD_CASES[name]
    stacked = [np.stack([a, a * np.asarray(1.5, a.dtype)]) for a in args]
    check_batching(f, stacked, 0, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", ["real", "imag", "conj", "complex", "abs", "z_conj_z"])
def test_staged_under_jit_and_make_jaxpr(name):
    f, args = GRAD_CASES[name]
    eager = np.asarray(f(*args))
    np.testing.assert_allclose(np.asarray(engine.jit(f)(*args)), eager, rtol=1e-6)
    closed = engine.make_jaxpr(f)(*args)
    assert closed.out_avals[0].dtype == eager.dtype


def test_vjp_of_z_conj_z_is_jax_convention():
    # JAX: the transpose of mul does not conjugate, so this cotangent is 2 - 4j (not 2 + 4j).
    (ct,) = engine.vjp(lambda z: z * jnp.conj(z), 1 + 2j)[1](1.0 + 0j)
    assert complex(ct) == 2 - 4j


def test_grad_of_real_function_of_complex_input_is_conjugate():
    assert complex(engine.grad(lambda z: jnp.abs(z) ** 2)(3 + 4j)) == pytest.approx(6 - 8j)


def test_holomorphic_grad_is_the_complex_derivative():
    z = 0.3 + 0.8j
    got = complex(engine.grad(jnp.sin, holomorphic=True)(z))
    assert got == pytest.approx(complex(np.cos(z)), rel=1e-6)


@pytest.mark.parametrize(
    "op", [lax.floor, lax.ceil, lax.round, lax.is_finite, lax.cbrt, lax.erf, lax.erf_inv]
)
def test_real_only_ops_refuse_complex_eagerly_and_staged(op):
    z = np.complex64(1 + 2j)
    with pytest.raises(TypeError, match="complex64"):
        op(z)
    with pytest.raises(TypeError, match="complex64"):
        engine.jit(op)(z)


@pytest.mark.parametrize("op", [lax.rem, lax.nextafter, lax.lt, lax.ge])
def test_real_only_binary_ops_refuse_complex(op):
    z = np.complex64(1 + 2j)
    with pytest.raises(TypeError, match="complex64"):
        op(z, z)
    with pytest.raises(TypeError, match="complex64"):
        engine.jit(op)(z, z)


def test_real_imag_refuse_real_inputs_in_lax():
    with pytest.raises(TypeError, match="complex"):
        lax.real(np.float32(1))


@pytest.mark.parametrize(
    "name,f",
    [
        ("fft", lambda z: jnp.fft.fft(z)),
        ("ifft2", lambda z: jnp.fft.ifft2(z.reshape(2, 2))),
        ("rfft", lambda x: jnp.fft.rfft(jnp.real(x))),
        ("irfft", lambda z: jnp.fft.irfft(z, 6)),
        # odd lengths: no Nyquist frequency, so the transposes' masks differ from even ones
        ("rfft_odd", lambda x: jnp.fft.rfft(jnp.real(x), n=5, norm="ortho")),
        ("rfft_odd_input", lambda x: jnp.fft.rfft(jnp.concatenate([jnp.real(x), jnp.imag(x[:1])]))),
        ("irfft_odd", lambda z: jnp.fft.irfft(z, 5)),
        ("irfft_odd_padded", lambda z: jnp.fft.irfft(z, 7, norm="forward")),
        ("rfftn", lambda x: jnp.fft.rfftn(jnp.real(x)[:, None] * jnp.imag(x)[:3] ** 2)),
        ("irfftn", lambda z: jnp.fft.irfftn(z.reshape(2, 2), s=(2, 3))),
        ("irfft2_axes", lambda z: jnp.fft.irfft2(jnp.stack([z, z * 2j]), axes=(1, 0))),
    ],
)
def test_fft_rules(name, f):
    check_grads(f, (Z,), order=2, atol=5e-3, rtol=5e-3, eps=1e-3)
    check_batching(f, [np.stack([Z, Z * np.complex64(1.5)])], 0, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(engine.jit(f)(Z)), np.asarray(f(Z)), rtol=1e-6, atol=1e-6)
