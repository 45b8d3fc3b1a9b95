"""What the sixth differential fuzz (issue 13: linear algebra, continued) found: polar and
hessenberg promoted integer matrices where JAX refuses them (qdwh's finfo ValueError, the svd and
hessenberg dtype TypeErrors), while lax.linalg.cholesky and eigh refused integer and bool matrices
that JAX symmetrizes into float32 and factors; the dtype refusals now read as JAX's. geqrf gave
NaN where LAPACK's reflector with nothing below is tau = 0 and its larf leaves rows past the
reflector's last nonzero alone (qr(mode='raw') and slogdet(method='qr') of matrices with inf);
pivoted QR broke ties among equal-norm columns otherwise than geqp3's downdated norms; the
ConcretizationTypeErrors of jnp.nonzero (and argwhere, flatnonzero, where(x)), unique,
intersect1d/setxor1d and repeat under jit named other tracers and texts than JAX's; cholesky,
eigh and svd factored float32 matrices in float64 (numpy's np.linalg does), so a PSD matrix
singular in float32 factored where JAX's potrf gives NaNs, and degenerate eigen/singular vectors
came out as another basis. Registered in snippets.py."""

_INT = "a = jnp.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], jnp.int32)\n"
_BOOL = "a = jnp.eye(3, dtype=bool)\n"
_U8 = "a = jnp.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], jnp.uint8)\n"


def _message(call):
    """The class and the first two lines of what ``call`` raises, but JAX's line naming the traced
    function (which the engine does not write)."""
    return (
        "try:\n"
        f"    {call}\n"
        "    out = None\n"
        "except Exception as e:\n"
        "    lines = [t for t in str(e).split('\\n') if not t.startswith('The error occurred while')]\n"
        "    out = (type(e).__name__, lines[:2])\n"
    )


_INF_MATS = {
    "diag": "[[jnp.inf, 1.5, 0.5], [1.5, jnp.inf, 1.0], [0.5, 1.0, jnp.inf]]",
    "corner": "[[jnp.inf, 1.0, 2.0], [3.0, 4.0, 5.0], [1.0, 2.0, 7.0]]",
    "below": "[[1.0, 2.0, 3.0], [jnp.inf, 4.0, 5.0], [1.0, 2.0, 7.0]]",
    "middle": "[[1.0, 2.0, 3.0], [4.0, jnp.inf, 5.0], [1.0, 2.0, 7.0]]",
    "last": "[[1.0, 2.0, 3.0], [4.0, 1.0, 5.0], [1.0, 2.0, -jnp.inf]]",
    "lastnan": "[[1.0, 2.0, 3.0], [4.0, 1.0, 5.0], [1.0, 2.0, jnp.nan]]",
    "isolated": "[[jnp.inf, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 3.0, 4.0]]",
    "zerocol": "[[0.0, 2.0, 3.0], [0.0, 5.0, jnp.inf], [0.0, 0.0, 0.0]]",
    "wide": "[[1.0, 2.0, 3.0], [jnp.inf, 0.0, 1.0]]",
    "tall": "[[1.0, 2.0], [jnp.inf, 0.0], [0.0, 3.0]]",
}

_PIVOT_MATS = {
    "rank2": "[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]]",
    "scaled_eye": "[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]",
    "perm_eye": "[[1.0, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 2, 0, 0], [0, 0, 0, 2, 0], [0, 0, 0, 0, 1]]",
    "dup_cols": "[[1.0, 1, 1, 1, 1], [-1, -1, 3, -1, 3], [-3, -3, -1, -3, -1]]",
    "zeros_ones": "[[0.0, 0, 1, 1, 1], [1, 1, 0, 1, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]]",
    "signs": "[[2.0, 1, -2, 1, -2], [1, -1, 0, 2, -2]]",
    "ones": "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]",
}

_SINGULAR_PSD = {
    # b @ b.T for b singular in exact arithmetic: float32's potrf fails (NaN) or finds a tiny
    # pivot, as its rounding goes, where float64's does the other
    "dupcol": "b = jnp.array([[1.0, 1, 2], [2, 2, 1], [3, 3, 0]])\n",
    "duprow": "b = jnp.array([[1.0, 2, 3], [1, 2, 3], [0, 1, 5]])\n",
    "int_sing": "b = jnp.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 9]])\n",
    "hilb8": "b = jnp.linalg.cholesky(1.0 / (jnp.arange(8.0)[:, None] + jnp.arange(8.0) + 1))\n",
}

FUZZ6_LINALG = [
    # integer matrices: what JAX refuses, and what it symmetrizes into float32 and factors
    *[
        (f"int_{name}_{m}", setup + _message(call))
        for m, setup in [("i32", _INT), ("bool", _BOOL), ("u8", _U8)]
        for name, call in [
            ("polar_qdwh", "jax.scipy.linalg.polar(a)"),
            ("polar_qdwh_jit", "jax.jit(jax.scipy.linalg.polar)(a)"),
            ("polar_svd", "jax.scipy.linalg.polar(a, method='svd')"),
            ("polar_left", "jax.scipy.linalg.polar(a, side='left', method='svd')"),
            ("hessenberg", "jax.scipy.linalg.hessenberg(a)"),
            ("hessenberg_q", "jax.scipy.linalg.hessenberg(a, calc_q=True)"),
            ("schur", "jax.scipy.linalg.schur(a)"),
            ("funm", "jax.scipy.linalg.funm(a, jnp.exp)"),
            ("lax_svd", "lax.linalg.svd(a)"),
            ("lax_qr", "lax.linalg.qr(a)"),
            ("lax_lu", "jax.jit(lax.linalg.lu)(a)"),
            ("lax_eig", "lax.linalg.eig(a)"),
            ("lax_hessenberg", "lax.linalg.hessenberg(a)"),
            ("lax_householder", "lax.linalg.householder_product(a, jnp.ones(3, a.dtype))"),
            ("lax_tri_solve", "lax.linalg.triangular_solve(a, a)"),
        ]
    ],
    *[
        (f"int_{name}_{m}", setup + f"out = ({call}, jax.jit(lambda x: {call.replace('(a', '(x')})(a))")
        for m, setup in [("i32", _INT), ("bool", _BOOL), ("u8", _U8)]
        for name, call in [
            ("lax_cholesky", "lax.linalg.cholesky(a)"),
            ("lax_eigh_w", "lax.linalg.eigh(a)[1]"),
            ("lax_eigh_v", "jnp.abs(lax.linalg.eigh(a)[0])"),
        ]
    ],
    # geqrf on non-finite matrices: LAPACK's tau = 0 for a reflector with nothing below, and
    # larf's span (rows up to the reflector's last nonzero, columns up to the last nonzero one)
    *[
        (
            f"geqrf_{name}",
            f"a = jnp.array({mat})\n"
            "h, tau = jnp.linalg.qr(a, mode='raw')\n"
            "out = (h, tau, jnp.linalg.qr(a, mode='r'), jax.jit(lambda x: jnp.linalg.qr(x, mode='raw'))(a))"
            + (
                ", jnp.linalg.slogdet(a, method='qr'), jax.jit(lambda x: jnp.linalg.slogdet(x, method='qr'))(a)"
                if name not in ("wide", "tall")
                else ""
            ),
        )
        for name, mat in _INF_MATS.items()
    ],
    # pivoted QR: geqp3's choice among columns whose partial norms tie in exact arithmetic
    *[
        (
            f"qr_pivot_{name}",
            f"a = jnp.array({mat})\n"
            "out = (lax.linalg.qr(a, pivoting=True)[2], jax.scipy.linalg.qr(a, pivoting=True)[2], "
            "jax.jit(lambda x: jax.scipy.linalg.qr(x, pivoting=True, mode='economic'))(a)[2], "
            "jnp.abs(jnp.diagonal(jax.scipy.linalg.qr(a, pivoting=True)[1])))",
            1e-4,
        )
        for name, mat in _PIVOT_MATS.items()
    ],
    # what is not concrete under jit: JAX's tracer and text
    *[
        (f"traced_{name}", "x = jnp.array([1, 0, 2])\nm = jnp.array([[1, 0], [0, 3]])\n" + _message(call))
        for name, call in [
            ("nonzero", "jax.jit(jnp.nonzero)(x)"),
            ("nonzero_bool", "jax.jit(lambda x: jnp.nonzero(x > 0))(x)"),
            ("nonzero_2d", "jax.jit(lambda x: jnp.nonzero(m + x[0]))(x)"),
            ("nonzero_method", "jax.jit(lambda x: x.nonzero())(x)"),
            ("nonzero_traced_size", "jax.jit(lambda x: jnp.nonzero(x, size=x[0]))(x)"),
            ("nonzero_0d", "jax.jit(lambda x: jnp.nonzero(x[0]))(x)"),
            ("nonzero_0d_eager", "jnp.nonzero(jnp.int32(3))"),
            ("argwhere", "jax.jit(jnp.argwhere)(x)"),
            ("argwhere_2d", "jax.jit(lambda x: jnp.argwhere(m + x[0]))(x)"),
            ("flatnonzero", "jax.jit(jnp.flatnonzero)(x)"),
            ("where_one_arg", "jax.jit(lambda x: jnp.where(x))(x)"),
            ("where_one_arg_bool", "jax.jit(lambda x: jnp.where(x > 0))(x)"),
            ("unique", "jax.jit(jnp.unique)(x)"),
            ("unique_2d", "jax.jit(lambda x: jnp.unique(m + x[0]))(x)"),
            ("unique_counts", "jax.jit(jnp.unique_counts)(x)"),
            ("unique_inverse", "jax.jit(lambda x: jnp.unique(x, return_inverse=True))(x)"),
            ("unique_traced_size", "jax.jit(lambda x: jnp.unique(x, size=x[0]))(x)"),
            ("intersect1d", "jax.jit(lambda x: jnp.intersect1d(x, x))(x)"),
            ("intersect1d_2d", "jax.jit(lambda x: jnp.intersect1d(m + x[0], x))(x)"),
            ("intersect1d_unique", "jax.jit(lambda x: jnp.intersect1d(x, x, assume_unique=True))(x)"),
            ("setxor1d", "jax.jit(lambda x: jnp.setxor1d(x, x))(x)"),
            ("setxor1d_unique", "jax.jit(lambda x: jnp.setxor1d(x, x, assume_unique=True))(x)"),
            ("setdiff1d", "jax.jit(lambda x: jnp.setdiff1d(x, x))(x)"),
            ("union1d", "jax.jit(lambda x: jnp.union1d(x, x))(x)"),
            ("repeat", "jax.jit(lambda x: jnp.repeat(x, x))(x)"),
            ("delete", "jax.jit(lambda x: jnp.delete(x, x))(x)"),
            ("extract", "jax.jit(lambda x: jnp.extract(x > 0, x))(x)"),
            ("mask", "jax.jit(lambda x: x[x > 0])(x)"),
        ]
    ],
    # float32 matrices factored in float32, as JAX's LAPACK calls are
    *[
        (
            f"f32_cholesky_{name}",
            setup + "out = (jnp.linalg.cholesky(b @ b.T), jax.jit(jnp.linalg.cholesky)(b @ b.T))",
        )
        for name, setup in _SINGULAR_PSD.items()
    ],
    (
        "f32_cholesky_batch_mixed",
        "b = jnp.array([[1.0, 1, 2], [2, 2, 1], [3, 3, 0]])\n"
        "out = jnp.linalg.cholesky(jnp.stack([b @ b.T, jnp.eye(3), b.T @ b]))",
    ),
    *[
        (
            f"f32_eigh_{name}",
            f"a = jnp.array({mat}, jnp.float32)\n"
            "out = (jnp.linalg.eigh(a), jax.jit(lax.linalg.eigh)(a), jax.scipy.linalg.eigh(a))",
            1e-4,
        )
        for name, mat in [
            ("cyclic", "[[0, 1, 1], [1, 0, 1], [1, 1, 0]]"),
            ("ints", "[[2, -1, 0, 1], [-1, 2, -1, 0], [0, -1, 2, -1], [1, 0, -1, 2]]"),
            ("repeated", "[[2, 0, 0], [0, 2, 0], [0, 0, 1]]"),
            ("rank1", "[[1, 2, 3], [2, 4, 6], [3, 6, 9]]"),
            ("perm", "[[0, 0, 2, 0], [0, 0, 0, 1], [2, 0, 0, 0], [0, 1, 0, 0]]"),
        ]
    ],
    *[
        (
            f"f32_svd_{name}",
            f"a = jnp.array({mat}, jnp.float32)\n"
            "out = (jnp.linalg.svd(a, full_matrices=False), jax.jit(jnp.linalg.svd)(a), jax.scipy.linalg.svd(a))",
            1e-4,
        )
        for name, mat in [
            ("ints", "[[1, -2, 0, 2], [0, 1, 1, -1], [2, 0, -2, 1]]"),
            ("tall_ints", "[[1, 1], [1, -1], [0, 2], [2, 0]]"),
            ("rank1", "[[1, 2, 3], [2, 4, 6]]"),
            ("eye_scaled", "[[2, 0, 0], [0, 2, 0], [0, 0, 1]]"),
        ]
    ],
]
