"""jax.scipy.linalg.expm as JAX 0.10.2 computes it (a Pade approximant picked by the 1-norm, then
squarings): values against a float64 Taylor series for each approximant and the squaring path, derivatives against
finite differences, vmap against a loop, jit
against eager, and JAX's NaN when more squarings than max_squarings are needed."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
import engine.scipy.linalg as jsl
from engine.test_util import check_batching, check_grads


def _expm_reference(a):
    """exp(a) in float64 by a 30-term Taylor series of a / 2**s (1-norm below 1/2), squared s times
    (an independent method: no Pade approximant)."""
    a = np.asarray(a, np.float64)
    s = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(axis=-2).max(), 1e-300) / 0.5))))
    x = a / 2.0**s
    term = out = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


# eagerly (numpy, the same steps) and as the staged jnp program JAX traces (under jit)
EAGER_AND_JIT = pytest.mark.parametrize("run", [lambda f: f, engine.jit], ids=["eager", "jit"])
RNG = np.random.default_rng(7)
M = RNG.standard_normal((4, 4))
UNIT = M / np.abs(M).sum(axis=0).max()  # 1-norm 1


# float32: Pade 3 below 1-norm 0.426, 5 below 1.88, 7 up to 3.93, then squarings
@EAGER_AND_JIT
@pytest.mark.parametrize("norm", [0.2, 1.0, 3.0, 40.0])
def test_values_match_reference_float32(norm, run):
    a = (UNIT * norm).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(run(jsl.expm)(a)), _expm_reference(a.astype(np.float64)), rtol=2e-5, atol=2e-5
    )


# float64: Pade 3, 5, 7, 9 and 13, then squarings
@EAGER_AND_JIT
@pytest.mark.parametrize("norm", [0.01, 0.2, 0.8, 2.0, 5.0, 60.0])
def test_values_match_reference_float64(norm, run):
    with engine.enable_x64(True):
        a = jnp.asarray(UNIT * norm, dtype=jnp.float64)
        out = run(jsl.expm)(a)
        assert out.dtype == np.float64
        np.testing.assert_allclose(np.asarray(out), _expm_reference(UNIT * norm), rtol=1e-12, atol=1e-12)


@EAGER_AND_JIT
def test_batched_and_upper_triangular(run):
    a = np.stack([UNIT * 0.3, UNIT * 2.5]).astype(np.float32)
    want = np.stack([_expm_reference(m.astype(np.float64)) for m in a])
    np.testing.assert_allclose(np.asarray(run(jsl.expm)(a)), want, rtol=2e-5, atol=2e-5)
    u = np.triu(UNIT * 2).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(run(lambda m: jsl.expm(m, upper_triangular=True))(u)),
        _expm_reference(u.astype(np.float64)),
        rtol=2e-5,
        atol=2e-5,
    )


@EAGER_AND_JIT
def test_too_many_squarings_give_nan_as_in_jax(run):
    a = (UNIT * 1e6).astype(np.float32)  # log2(1e6 / 3.93) > 16 squarings
    assert np.isnan(np.asarray(run(jsl.expm)(a))).all()
    b = (UNIT * 100).astype(np.float32)  # floor(log2(100 / 3.93)) = 4 squarings
    assert np.isnan(np.asarray(run(lambda m: jsl.expm(m, max_squarings=3))(b))).all()
    np.testing.assert_allclose(
        np.asarray(run(lambda m: jsl.expm(m, max_squarings=4))(b)),
        _expm_reference(b.astype(np.float64)),
        rtol=1e-4,
    )


@pytest.mark.parametrize("norm", [0.3, 1.2, 6.0])
def test_grads_match_finite_differences(norm):
    a = (UNIT * norm).astype(np.float32)
    check_grads(jsl.expm, (a,), order=1, atol=5e-3, rtol=5e-3, eps=1e-3)


def test_vmap_matches_loop_and_jit_matches_eager():
    a = (UNIT * 1.2).astype(np.float32)
    check_batching(jsl.expm, [np.stack([a, a * np.float32(0.5), a * np.float32(4)])], 0, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(engine.jit(jsl.expm)(a)), np.asarray(jsl.expm(a)), rtol=1e-6)


def test_expm_frechet_is_the_jvp():
    a, e = (UNIT * 0.9).astype(np.float32), RNG.standard_normal((4, 4)).astype(np.float32)
    expm_a, frechet = jsl.expm_frechet(a, e)
    h = 1e-6
    fd = (_expm_reference(a + h * e.astype(np.float64)) - _expm_reference(a - h * e.astype(np.float64))) / (
        2 * h
    )
    np.testing.assert_allclose(np.asarray(frechet), fd, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        np.asarray(expm_a), _expm_reference(a.astype(np.float64)), rtol=2e-5, atol=2e-5
    )


# JAX 0.10.2 (float64): sum(V * hessian(f)(UNIT * norm) * U) for f(a) = sum(expm(a) * W), with W, V, U
# drawn as below: Pade 3, 5, 7 and 13 (float64), then squarings.
SECOND_DERIVATIVES = {
    0.3: 7.851433334518811,
    1.2: 4.928797142964021,
    3.0: -0.2707490166226202,
    6.0: -4.183423281610358,
    40.0: -268.82054693481024,
}


@pytest.mark.parametrize("norm", sorted(SECOND_DERIVATIVES))
def test_second_derivatives_match_jax(norm):
    # The cond/scan JVPs carry the LU pivots' and squaring flags' zero (float0) tangents, and under
    # jacfwd (a vmap of the tangents) the scans keep their primal carries unbatched. These raised
    # (NotImplementedError, then a vmap out_axes=None error).
    w, v, u = (np.random.default_rng(s).standard_normal((4, 4)) for s in (11, 12, 13))
    want = SECOND_DERIVATIVES[norm]

    def contracted(h):
        return float(np.einsum("ij,ijkl,kl", v, np.asarray(h, np.float64), u))

    with engine.enable_x64(True):
        a = jnp.asarray(UNIT * norm, dtype=jnp.float64)
        f = lambda a: jnp.sum(jsl.expm(a) * w)  # noqa: E731
        np.testing.assert_allclose(contracted(engine.hessian(f)(a)), want, rtol=1e-9)
        np.testing.assert_allclose(contracted(engine.jacfwd(engine.jacrev(f))(a)), want, rtol=1e-9)
        np.testing.assert_allclose(contracted(engine.jit(engine.hessian(f))(a)), want, rtol=1e-9)
    a32, w32 = (UNIT * norm).astype(np.float32), w.astype(np.float32)
    h32 = engine.hessian(lambda a: jnp.sum(jsl.expm(a) * w32))(a32)
    np.testing.assert_allclose(contracted(h32), want, rtol=2e-4)
