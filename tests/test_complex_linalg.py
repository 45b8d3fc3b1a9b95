"""Complex matrices through the SVD and QR primitives and what is built on them (matrix norms, cond,
pinv, lstsq, polar): derivatives against float64 finite differences with JAX's convention (check_grads)
and vmap against a loop. Values, jit, vmap, gradients and printed jaxprs against JAX 0.10.2 itself are
in test_jax_reference.py and test_x64.py (topic 'complex_linalg')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
import engine.scipy.linalg as jsl
from engine import lax
from engine.test_util import check_batching, check_grads

RNG = np.random.default_rng(1)


def _z(*shape):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(np.complex64)


C, T, W, V = _z(3, 3), _z(4, 3), _z(3, 4), _z(4)


def _canon(u):
    """Singular vectors with their first row's phase divided out: a function of the matrix alone
    (unlike ``u``, whose column phases the factorization picks), so finite differences apply."""
    return u * (jnp.abs(u[:1]) / u[:1])


CASES = {
    "svdvals_square": (jnp.linalg.svdvals, (C,)),
    "svdvals_tall": (lambda a: lax.linalg.svd(a, compute_uv=False), (T,)),
    "svd_reconstruction": (
        lambda a: (lambda u, s, vh: u @ (s[:, None] * vh))(*jnp.linalg.svd(a, False)),
        (T,),
    ),
    "svd_u_tall": (lambda a: _canon(jnp.linalg.svd(a, full_matrices=False)[0]), (T,)),
    "svd_vh_wide": (lambda a: jnp.abs(jnp.linalg.svd(a, full_matrices=False)[2]), (W,)),
    "norm_2": (lambda a: jnp.linalg.norm(a, 2), (C,)),
    "norm_nuc": (lambda a: jnp.linalg.norm(a, "nuc"), (T,)),
    "cond": (jnp.linalg.cond, (C,)),
    "pinv": (jnp.linalg.pinv, (T,)),
    "lstsq": (lambda a, b: jnp.linalg.lstsq(a, b)[0], (T, V)),
    "qr_tall": (jnp.linalg.qr, (T,)),
    "qr_wide": (jnp.linalg.qr, (W,)),
    "qr_complete": (lambda a: jnp.linalg.qr(a, mode="complete"), (T,)),
    "qr_pivoted": (lambda a: jsl.qr(a, mode="economic", pivoting=True)[:2], (T,)),
    "polar_svd": (lambda a: jsl.polar(a, method="svd"), (C,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args = CASES[name]
    check_grads(f, args, order=1, atol=2e-2, rtol=2e-2, eps=1e-3)


@pytest.mark.parametrize("name", ["svdvals_square", "qr_tall", "norm_2"])
def test_second_order(name):
    f, args = CASES[name]
    check_grads(f, args, order=2, atol=5e-2, rtol=5e-2, eps=1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop(name):
    f, args = CASES[name]
    stacked = [np.stack([a, a * np.complex64(1.5 - 0.5j)]) for a in args]
    check_batching(f, stacked, 0, atol=1e-4, rtol=1e-4)


def test_complex128_factors_are_complex128_with_real_singular_values():
    with engine.enable_x64():
        a = jnp.asarray(C.astype(np.complex128))
        u, s, vh = jnp.linalg.svd(a)
        q, r = jnp.linalg.qr(a)
        dtypes = [x.dtype for x in (u, s, vh, q, r)]
        assert dtypes == [np.complex128, np.float64, np.complex128, np.complex128, np.complex128]
        np.testing.assert_allclose(
            np.asarray(s), np.linalg.svd(C.astype(np.complex128), compute_uv=False), rtol=1e-12
        )
        np.testing.assert_allclose(np.asarray(q @ r), C, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["svd", "qr", "lu"])
def test_integer_matrices_are_refused_naming_the_dtype(name):
    # (eagerly the impl runs without abstract evaluation: it used to factor an int32 matrix in
    # float64 and cast the factors back, or fail in numpy's finfo)
    f = getattr(lax.linalg, name)
    x = jnp.eye(3, dtype=jnp.int32)
    for g in (f, engine.jit(f)):
        with pytest.raises(TypeError, match="int32 at position 0"):
            g(x)


@pytest.mark.parametrize("name", ["cholesky", "eigh"])
def test_integer_matrices_symmetrized_to_float(name):
    # JAX symmetrizes first with array arithmetic, (x + x^T) / 2: an int32 (or bool) matrix comes
    # out float32, and is factored as that float matrix
    f = getattr(lax.linalg, name)
    x = jnp.array([[4, 1, 0], [2, 3, 1], [0, 1, 2]], jnp.int32)
    want = f((x + x.T) / 2)
    for g in (f, engine.jit(f)):
        got = g(x)
        for a, b in zip(engine.tree_util.tree_leaves(got), engine.tree_util.tree_leaves(want)):
            assert a.dtype == jnp.float32
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
