"""Linear algebra primitives (engine.lax.linalg) and jnp.linalg on top of them: derivatives
against float64 finite differences (orders 1 and 2), vmap against a loop, jit of the gradient.
Values against JAX itself are in test_jax_reference.py (topic 'linalg')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
import engine.scipy.linalg
from engine import lax
from engine.test_util import check_batching, check_grads

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 3)).astype(np.float32)
S = (A @ A.T + 3 * np.eye(3)).astype(np.float32)
B = RNG.standard_normal((3, 2)).astype(np.float32)
R = RNG.standard_normal((4, 3)).astype(np.float32)
W = RNG.standard_normal((3, 4)).astype(np.float32)

CASES = {
    "cholesky": (jnp.linalg.cholesky, (S,)),
    "triangular_solve_left_lower": (
        lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
        (S, B),
    ),
    "triangular_solve_right_upper_transposed": (
        lambda a, b: lax.linalg.triangular_solve(a, b.T, lower=False, transpose_a=True),
        (S, B),
    ),
    "triangular_solve_unit_diagonal": (
        lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True, unit_diagonal=True),
        (S, B),
    ),
    "triangular_solve_left_wide_rhs": (
        lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
        (S, W),
    ),
    "triangular_solve_right_tall_lhs": (lambda a, b: lax.linalg.triangular_solve(a, b, lower=True), (S, R)),
    "scipy_solve_triangular_trans": (
        lambda a, b: engine.scipy.linalg.solve_triangular(a, b, trans="T", lower=True),
        (S, B[:, 0].copy()),
    ),
    # (symmetric perturbations only: the factorization reads one triangle, its JVP assumes symmetry)
    "scipy_cho_solve": (
        lambda a, b: engine.scipy.linalg.cho_solve(engine.scipy.linalg.cho_factor((a + a.T) / 2), b),
        (S, B),
    ),
    "lu": (lambda a: lax.linalg.lu(a)[0], (A,)),
    "lu_tall": (lambda r: lax.linalg.lu(r)[0], (R,)),
    "lu_wide": (lambda w: lax.linalg.lu(w)[0], (W,)),
    "scipy_lu_solve": (
        lambda a, b: engine.scipy.linalg.lu_solve(engine.scipy.linalg.lu_factor(a), b),
        (A, B),
    ),
    "scipy_lu_solve_transposed": (
        lambda a, b: engine.scipy.linalg.lu_solve(engine.scipy.linalg.lu_factor(a), b[:, 0], trans=1),
        (A, B),
    ),
    "slogdet_qr": (lambda a: jnp.linalg.slogdet(a, method="qr").logabsdet, (A,)),
    "solve": (jnp.linalg.solve, (A, B)),
    "inv": (jnp.linalg.inv, (A,)),
    "det": (jnp.linalg.det, (A,)),
    "slogdet": (lambda a: jnp.linalg.slogdet(a).logabsdet, (A,)),
    "eigh_values": (lambda s: jnp.linalg.eigh(s).eigenvalues, (S,)),
    "eigh_vectors": (lambda s: jnp.abs(jnp.linalg.eigh(s).eigenvectors), (S,)),
    "svd_values": (lambda r: jnp.linalg.svd(r, compute_uv=False), (R,)),
    "svd_vectors_tall": (lambda r: [jnp.abs(m) for m in jnp.linalg.svd(r, full_matrices=False)], (R,)),
    "svd_vectors_wide": (lambda r: [jnp.abs(m) for m in jnp.linalg.svd(r, full_matrices=False)], (W,)),
    "qr": (lambda r: jnp.linalg.qr(r), (R,)),
    "qr_wide": (lambda w: jnp.linalg.qr(w), (W,)),
    "qr_complete_square": (lambda a: jnp.linalg.qr(a, mode="complete"), (A,)),
    "qr_complete_tall": (lambda r: jnp.linalg.qr(r, mode="complete"), (R,)),
    "pinv": (jnp.linalg.pinv, (R,)),
    "lstsq": (lambda a, b: jnp.linalg.lstsq(a, b)[0], (R, R[:, :2].copy())),
    "matrix_power": (lambda a: jnp.linalg.matrix_power(a, 3), (A,)),
    "matrix_power_negative": (lambda a: jnp.linalg.matrix_power(a, -2), (A,)),
    "matrix_power_squarings": (lambda a: jnp.linalg.matrix_power(a / 2, 6), (A,)),
    "norm_2": (lambda a: jnp.linalg.norm(a, 2), (A,)),
    "norm_nuc": (lambda a: jnp.linalg.norm(a, "nuc"), (A,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args = CASES[name]
    check_grads(f, args, order=2, atol=1e-2, rtol=1e-2, eps=1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop(name):
    f, args = CASES[name]
    check_batching(f, [np.stack([a, a * np.float32(1.1)]) for a in args], 0, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_of_grad_matches_eager(name):
    f, args = CASES[name]

    def loss(*xs):
        return sum(jnp.sum(jnp.sin(o)) for o in engine.tree_util.tree_leaves(f(*xs)))

    g = engine.grad(loss, argnums=tuple(range(len(args))))
    for a, b in zip(g(*args), engine.jit(g)(*args)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-5, atol=1e-5)


def test_unbatched_operand_broadcasts_in_vmap():
    xs = np.stack([B, 2 * B])
    got = engine.vmap(jnp.linalg.solve, in_axes=(None, 0))(A, xs)
    np.testing.assert_allclose(np.asarray(got), np.linalg.solve(A, xs), rtol=1e-5, atol=1e-5)


def test_cholesky_of_indefinite_matrix_is_nan():
    # JAX 0.10.2 prints [[nan 0.] [nan nan]]: NaN factor, zeros above the diagonal (its tril mask).
    out = np.asarray(jnp.linalg.cholesky(jnp.array([[1.0, 2.0], [2.0, 1.0]])))
    np.testing.assert_array_equal(np.isnan(out), [[True, False], [True, True]])
    assert out[0, 1] == 0.0


def test_complex_lu_solves_inverts_and_takes_determinants():
    # (values against JAX 0.10.2 in tests/jax_reference/linalg_eig.json: complex_*)
    c = (RNG.standard_normal((4, 4)) + 1j * RNG.standard_normal((4, 4))).astype(np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.linalg.inv(c)), np.linalg.inv(c), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(jnp.linalg.det(c)), np.linalg.det(c), rtol=1e-4)
    sign, logabsdet = jnp.linalg.slogdet(c)
    np.testing.assert_allclose(np.asarray(sign), np.linalg.slogdet(c)[0], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(logabsdet), np.linalg.slogdet(c)[1], rtol=1e-5)


@pytest.mark.parametrize("lapack", [True, False], ids=["numpy_openblas", "numpy_fallback"])
def test_float32_lu_stays_float32_so_singular_matrices_invert_to_inf(lapack, monkeypatch):
    # (JAX's bits are in tests/jax_reference/linalg_f32.json; this checks the path that runs
    # when numpy links no OpenBLAS: float32 elimination, still an exact zero pivot)
    from engine.lax import lapack_openblas

    if not lapack:
        monkeypatch.setattr(lapack_openblas, "_FNS", {})
    elif not lapack_openblas.available(np.float32):
        pytest.skip("numpy links no OpenBLAS")
    s = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32)
    lu, piv, perm = lax.linalg.lu(s)
    assert lu.dtype == np.float32 and np.asarray(lu)[2, 2] == 0  # (float64 leaves 1.1e-16)
    assert not np.isfinite(np.asarray(jnp.linalg.inv(s))).any()
    assert tuple(map(float, jnp.linalg.slogdet(s))) == (0.0, -np.inf)
    a = RNG.standard_normal((2, 7, 7)).astype(np.float32) + 1j * RNG.standard_normal((2, 7, 7)).astype(
        np.float32
    )
    lu, piv, perm = map(np.asarray, lax.linalg.lu(a))
    assert lu.dtype == np.complex64 and piv.shape == (2, 7)
    l_ = np.tril(lu, -1) + np.eye(7)
    np.testing.assert_allclose(l_ @ np.triu(lu), np.take_along_axis(a, perm[..., None], 1), atol=1e-5)
    x = lax.linalg.triangular_solve(lu, a, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    np.testing.assert_allclose(np.swapaxes(np.triu(lu), -1, -2).conj() @ np.asarray(x), a, atol=1e-4)


# --- lax.custom_linear_solve (its rules: jvp, transpose, batching) --------------------------------

M = np.array([[4.0, 1.0, 0.5], [0.2, 3.0, 0.1], [0.3, 0.4, 5.0]], np.float32)


def _cls(a, b):
    return lax.custom_linear_solve(
        lambda x: a @ x,
        b,
        solve=lambda _, x: jnp.linalg.solve(a, x),
        transpose_solve=lambda _, x: jnp.linalg.solve(a.T, x),
    )


def test_custom_linear_solve_value_and_derivatives():
    b = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_allclose(np.asarray(_cls(M, b)), np.linalg.solve(M, b), rtol=1e-5)
    check_grads(_cls, (M, b), order=2, atol=1e-2, rtol=1e-2, eps=1e-3)


def test_custom_linear_solve_batches_over_operator_and_rhs():
    bs = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]], np.float32)
    ms = np.stack([M, 2 * M])
    np.testing.assert_allclose(
        np.asarray(engine.vmap(_cls, (None, 0))(M, bs)), np.linalg.solve(M, bs.T).T, rtol=1e-5
    )
    np.testing.assert_allclose(
        np.asarray(engine.vmap(_cls, (0, None))(ms, bs[0])),
        [np.linalg.solve(m, bs[0]) for m in ms],
        rtol=1e-5,
    )
    grads = engine.vmap(engine.grad(lambda b: jnp.sum(_cls(M, b) ** 2)))(bs)
    want = [engine.grad(lambda b: jnp.sum(_cls(M, b) ** 2))(b) for b in bs]
    np.testing.assert_allclose(np.asarray(grads), np.asarray(want), rtol=1e-5)


def test_custom_linear_solve_reverse_mode_needs_transpose_solve():
    def f(b):
        return jnp.sum(lax.custom_linear_solve(lambda x: M @ x, b, solve=lambda _, x: jnp.linalg.solve(M, x)))

    b = np.ones(3, np.float32)
    np.testing.assert_allclose(
        np.asarray(engine.jvp(f, (b,), (b,))[1]), np.sum(np.linalg.solve(M, b)), rtol=1e-5
    )
    with pytest.raises(TypeError, match="transpose_solve required"):
        engine.grad(f)(b)


def _cls_aux(a, b):
    return lax.custom_linear_solve(
        lambda x: a @ x,
        b,
        solve=lambda _, x: (jnp.linalg.solve(a, x), {"n": jnp.sum(x**2)}),
        transpose_solve=lambda _, x: (jnp.linalg.solve(a.T, x), {"n": jnp.max(x)}),
        has_aux=True,
    )


def test_custom_linear_solve_has_aux_returns_the_aux_with_zero_derivatives():
    # Values recorded from JAX 0.10.2.
    b = np.array([1.0, -2.0, 0.5], np.float32)
    x, aux = _cls_aux(M, b)
    np.testing.assert_allclose(np.asarray(x), [0.40814233, -0.69825524, 0.13137187], rtol=1e-5)
    assert float(aux["n"]) == 5.25
    grad_a = engine.grad(lambda a, b: jnp.sum(_cls_aux(a, b)[0] ** 2))(M, b)
    np.testing.assert_allclose(np.asarray(grad_a)[0], [-0.09320938, 0.15946382, -0.03000201], rtol=1e-4)
    check_grads(lambda a, b: _cls_aux(a, b)[0], (M, b), order=1, atol=1e-2, rtol=1e-2, eps=1e-3)
    assert float(engine.jvp(lambda b: _cls_aux(M, b)[1]["n"], (b,), (b,))[1]) == 0.0
    bs = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 2.0]], np.float32)
    xs, auxs = engine.vmap(_cls_aux, (None, 0))(M, bs)
    np.testing.assert_allclose(np.asarray(xs), np.linalg.solve(M, bs.T).T, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(auxs["n"]), [5.25, 5.0])


def test_symmetric_custom_linear_solve_transposes_with_its_solve():
    # As JAX: symmetric=True without transpose_solve uses solve for reverse mode.
    s = (M + M.T).astype(np.float32)
    b = np.array([1.0, -2.0, 0.5], np.float32)

    def f(b):
        return jnp.sum(
            lax.custom_linear_solve(lambda x: s @ x, b, lambda _, x: jnp.linalg.solve(s, x), symmetric=True)
        )

    np.testing.assert_allclose(np.asarray(engine.grad(f)(b)), np.linalg.solve(s, np.ones(3)), rtol=1e-5)


# --- det past 3x3: JAX's custom JVP through the adjugate, finite for singular matrices ------------
# (values recorded from JAX 0.10.2)

_SINGULAR_DET_GRADS = {
    # rank n-1: the gradient is the (nonzero) adjugate's transpose, where det(a) * inv(a) is undefined
    "rank_3_diagonal": (
        np.diag([1.0, 2.0, 3.0, 0.0]),
        [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 6]],
    ),
    "rank_3_pivoted": (
        [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5.5], [1, 0, 0, 1]],
        [[-1, 1.5, -2, 1], [2, -5, 5.5, -2], [-1, 3, -3, 1], [0.5, -1, 0.5, 0]],
    ),
    # rank < n-1: the adjugate is zero
    "rank_2": (np.diag([1.0, 2.0, 0.0, 0.0]), np.zeros((4, 4))),
    "rank_1": (np.ones((4, 4)), np.zeros((4, 4))),
}


@pytest.mark.parametrize("name", sorted(_SINGULAR_DET_GRADS))
def test_det_gradient_of_singular_matrices_is_the_adjugate(name):
    a, want = _SINGULAR_DET_GRADS[name]
    got = engine.grad(jnp.linalg.det)(np.asarray(a, np.float32))
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), atol=2e-5)


def test_det_and_slogdet_of_larger_matrices_against_jax_and_finite_differences():
    a = np.random.RandomState(3).standard_normal((5, 5)).astype(np.float32)
    sign, logdet = jnp.linalg.slogdet(a)
    assert float(sign) == -1.0 and abs(float(logdet) - 1.685293197631836) < 1e-5
    want_row0 = [0.38583, 0.49795, 0.06026, 0.02108, -0.45427]
    got = engine.grad(lambda a: jnp.linalg.slogdet(a)[1])(a)
    np.testing.assert_allclose(np.asarray(got)[0], want_row0, atol=1e-4)
    # (finite differences from numpy in float64: eval_float64 rounds custom_jvp outputs to float32)
    t = np.random.RandomState(4).standard_normal((5, 5)).astype(np.float32)
    a64, t64, eps = a.astype(np.float64), t.astype(np.float64), 1e-4
    fd = (np.linalg.det(a64 + eps * t64) - np.linalg.det(a64 - eps * t64)) / (2 * eps)
    _, jvp = engine.jvp(jnp.linalg.det, (a,), (t,))
    np.testing.assert_allclose(float(jvp), fd, rtol=1e-4)
    check_grads(jnp.linalg.det, (a,), order=2, modes=("rev",))
    check_grads(lambda a: jnp.linalg.slogdet(a).logabsdet, (a,), order=2, modes=("fwd", "rev"))
    check_batching(jnp.linalg.det, (np.stack([a, 2 * a]),), 0)
    sign, logdet = jnp.linalg.slogdet(np.ones((4, 4), np.float32))
    assert float(sign) == 0.0 and float(logdet) == -np.inf


def test_triangular_solve_of_a_singular_matrix_gives_inf_not_an_error():
    # XLA's substitution divides by the zero pivot; so does the engine (JAX's det gradient relies on it).
    a = np.triu(np.ones((3, 3), np.float32)) - np.diag([0, 0, 1]).astype(np.float32)
    out = lax.linalg.triangular_solve(a, np.ones(3, np.float32), left_side=True, lower=False)
    assert out.shape == (3,) and not np.all(np.isfinite(np.asarray(out)))


def _swaps_applied(pivots, size):
    """The permutation LAPACK's row swaps make, swap by swap (the definition)."""
    rows = list(range(size))
    for i, j in enumerate(pivots):
        rows[i], rows[j] = rows[j], rows[i]
    return rows


def test_lu_pivots_to_permutation_applies_the_swaps_in_order_and_maps_over_batches():
    pivots = RNG.integers(0, 5, (2, 3, 4)).astype(np.int32)
    pivots = np.maximum(pivots, np.arange(4, dtype=np.int32))  # (LAPACK's: row i swaps with a row >= i)
    want = np.array([[_swaps_applied(p, 6) for p in batch] for batch in pivots.tolist()], np.int32)
    got = lax.linalg.lu_pivots_to_permutation(pivots, 6)
    assert got.dtype == np.int32 and got.shape == (2, 3, 6)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(
        np.asarray(engine.jit(lambda p: lax.linalg.lu_pivots_to_permutation(p, 6))(pivots)), want
    )
    vmapped = engine.vmap(lambda p: lax.linalg.lu_pivots_to_permutation(p, 6), in_axes=1)(pivots)
    np.testing.assert_array_equal(np.asarray(vmapped), want.transpose(1, 0, 2))
    with pytest.raises(ValueError, match="permutation size"):
        lax.linalg.lu_pivots_to_permutation(pivots, 3)


def test_scipy_lu_solve_solves_each_transpose_and_lu_factors_reconstruct():
    lu_piv = engine.scipy.linalg.lu_factor(A)
    for trans, m in ((0, A), (1, A.T), (2, A.T)):
        got = engine.scipy.linalg.lu_solve(lu_piv, B, trans=trans)
        np.testing.assert_allclose(np.asarray(got), np.linalg.solve(m, B), rtol=1e-4, atol=1e-5)
    p, l, u = (np.asarray(x) for x in engine.scipy.linalg.lu(R))
    np.testing.assert_allclose(p @ l @ u, R, rtol=1e-5, atol=1e-6)
    pl, u2 = engine.scipy.linalg.lu(R, permute_l=True)
    np.testing.assert_allclose(np.asarray(pl), p @ l, rtol=1e-6, atol=1e-6)


def test_slogdet_qr_matches_numpy_and_scipy_qr_r_mode_is_full():
    for a in (A, S, -S):
        sign, logdet = jnp.linalg.slogdet(a, method="qr")
        want_sign, want_logdet = np.linalg.slogdet(a.astype(np.float64))
        assert float(sign) == want_sign
        np.testing.assert_allclose(float(logdet), want_logdet, rtol=1e-5)
    (r,) = engine.scipy.linalg.qr(R, mode="r")  # (scipy's 'r' is the complete R: (4, 3))
    assert r.shape == (4, 3)
    np.testing.assert_allclose(np.abs(np.asarray(r)), np.abs(np.linalg.qr(R, mode="complete")[1]), atol=1e-5)


def test_pivoted_qr_orders_columns_by_remaining_norm_and_differentiates():
    # (values against JAX 0.10.2 in the sweep: scipy.linalg.qr[pivoting])
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32) * np.array([1.0, 5.0, 2.0], np.float32)
    q, r, p = lax.linalg.qr(x, pivoting=True)
    assert p.dtype == np.int32 and p.shape == (2, 3)
    for b in range(2):
        np.testing.assert_allclose(np.asarray(q[b] @ r[b]), x[b][:, np.asarray(p[b])], rtol=1e-5, atol=1e-5)
        assert np.all(np.diff(np.abs(np.diag(np.asarray(r[b])))) <= 1e-6)  # non-increasing
    q2, r2, p2 = engine.scipy.linalg.qr(x[0], mode="economic", pivoting=True)
    assert q2.shape == (4, 3) and r2.shape == (3, 3)
    check_grads(
        lambda a: lax.linalg.qr(a, pivoting=True)[1], (x[0],), order=1, atol=1e-2, rtol=1e-2, eps=1e-3
    )
