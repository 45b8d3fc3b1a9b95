"""Snippets for jax.scipy.linalg's special matrices and jax.scipy.special.comb (issue 13).
Registered in snippets.py."""

L = "import jax.scipy.linalg as L\n"

LINALG_MATRICES = [
    (
        "toeplitz",
        L
        + "out = (L.toeplitz(jnp.array([1, 2, 3])), L.toeplitz(jnp.array([1., 2., 3.]), jnp.array([9., 5.])))",
    ),
    ("toeplitz_complex", L + "out = L.toeplitz(jnp.array([1., 2+1j, 1+2j]))"),
    ("toeplitz_batch", L + "out = L.toeplitz(jnp.array([[1, 2, 3], [4, 5, 6]]), jnp.array([7, 8]))"),
    (
        "hankel",
        L + "out = (L.hankel(jnp.array([1, 2, 3]), jnp.array([3, 4, 5, 6])), L.hankel(jnp.array([1., 2.])))",
    ),
    ("circulant", L + "out = (L.circulant(jnp.array([1., 2, 3])), L.circulant(jnp.array([[1, 2], [3, 4]])))"),
    ("leslie", L + "out = L.leslie(jnp.array([0.1, 2., 1., 0.1]), jnp.array([0.2, 0.8, 0.7]))"),
    ("err_leslie", L + "out = L.leslie(jnp.array([0.1, 2.]), jnp.array([0.2, 0.8]))"),
    (
        "companion",
        L + "out = (L.companion(jnp.array([1., -10., 31., -30.])), L.companion(jnp.array([2, 4])))",
    ),
    ("fiedler", L + "out = L.fiedler(jnp.array([1., 4., 12., 45.]))"),
    (
        "fiedler_companion",
        L + "out = (L.fiedler_companion(jnp.array([1., -16., 86., -176., 105.])), "
        "L.fiedler_companion(jnp.array([2., 3.])), L.fiedler_companion(jnp.array([1., 2., 3., 4., 5., 6.])))",
    ),
    (
        "convolution_matrix",
        L + "a = jnp.array([-1., 4., -2.])\n"
        "out = [L.convolution_matrix(a, n, mode=m) for n in (2, 5) for m in ('full', 'same', 'valid')]",
    ),
    ("err_convolution_mode", L + "out = L.convolution_matrix(jnp.ones(3), 4, mode='wide')"),
    ("hilbert_invhilbert", L + "out = (L.hilbert(3), L.invhilbert(4))"),
    ("pascal", L + "out = (L.pascal(4), L.pascal(3, 'upper'), L.pascal(3, 'lower'))"),
    ("invpascal", L + "out = (L.invpascal(4), L.invpascal(3, 'upper'), L.invpascal(3, 'lower'))"),
    ("err_pascal_kind", L + "out = L.pascal(3, 'diagonal')"),
    ("helmert", L + "out = (L.helmert(4), L.helmert(3, full=True))"),
    ("hadamard", L + "out = (L.hadamard(4), L.hadamard(2, dtype=jnp.float32))"),
    ("err_hadamard", L + "out = L.hadamard(6)"),
    ("dft", L + "out = (L.dft(3), L.dft(4, 'sqrtn'), L.dft(2, 'n'))"),
    ("err_dft_dtype", L + "out = L.dft(3, dtype=jnp.float32)"),
    ("toeplitz_grad", L + "out = jax.jacfwd(lambda c: L.toeplitz(c).sum(0))(jnp.array([1., 2., 3.]))"),
    ("toeplitz_vmap_jit", L + "out = jax.jit(jax.vmap(L.circulant))(jnp.arange(6.).reshape(2, 3))"),
    (
        "comb",
        "from jax.scipy.special import comb\n"
        "out = (comb(jnp.array([5., 10., 3., 4.]), jnp.array([2., 3., 5., -1.])), comb(4., 2., repetition=True))",
    ),
]
