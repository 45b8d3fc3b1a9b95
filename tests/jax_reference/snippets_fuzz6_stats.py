"""What the sixth differential fuzz (issue 13: the jax.scipy.stats distributions on edge inputs,
eager, under jit, vmap and grad) found. The regularized incomplete gamma raised ZeroDivisionError
where ``a`` and ``x`` are both past ``1 / eps`` of float32 (gammainc, so chi2 and gamma's
cdf/sf/logcdf/logsf at 1e30): there JAX's float32 loop stalls (``r + 1 == r``) and its value is
set by float32 rounding (0, 1, ``2**23 / a``, NaN); the engine now replays that loop in the
operand's dtype. chi2.pdf/logcdf/logsf went through gamma's (xlogy, so x = 0 with df = 2 gave 0.5
where JAX's exp(chi2.logpdf) has 0 * log 0 = NaN; gamma.logsf's unclamped x) instead of chi2's own.
lax.igamma_grad_a gave 0 at x = inf and x < 0 where JAX's gives NaN (so grad of chi2.sf in df at
scale 0). logistic.ppf/isf named their argument ``q`` where JAX says ``x``. Registered in
snippets.py."""

_A = "a = jnp.array([1e30, 2e30, 1e20, 1e10, 3e38, 1e31, 2.0**24, 1e8, 1e15, 0.5])\n"
_X = "x = jnp.array([1e30, 1.0001e30, 0.9999e30, 1e29, 1e31, 3e38, 1e20, 1e10, 0.5, 2.0**24, 1.5e8, 2.0])\n"
_GRID = _A + _X + "a, x = a[:, None], x[None, :]\n"
_PAIRS = (
    "x = jnp.array([1e30, 1e30, 2e30, 1e20, 1e10, 3e38, 1e30, 1e31, 1e9])\n"
    "a = jnp.array([1e30, 2e30, 1e30, 1e20, 1e10, 3e38, 1e31, 1e30, 1e9])\n"
)

FUZZ6_STATS = [
    # past 1 / eps: JAX's stalled float32 series and continued fraction, step for step
    ("gammainc_stalled", _GRID + "out = jsp.special.gammainc(a, x)", 1e-5),
    ("gammaincc_stalled", _GRID + "out = jsp.special.gammaincc(a, x)", 1e-5),
    (
        "igamma_stalled_jit_vmap",
        _PAIRS
        + "out = (jax.jit(lax.igamma)(a, x), jax.vmap(lax.igammac)(a, x), lax.igamma(*(v.astype(jnp.float16) for v in (a, x))))",
        1e-5,
    ),
    *[
        (f"{d}_{m}_huge", _PAIRS + f"out = jsp.stats.{d}.{m}(x, {arg})", 1e-5)
        for d, arg in (("gamma", "a"), ("chi2", "2 * a"))
        for m in ("cdf", "sf", "logcdf", "logsf")
    ],
    # chi2's own logpdf / cdf / sf under pdf / logcdf / logsf, as JAX composes them
    *[
        (
            f"chi2_{m}_edges",
            "x = jnp.array([0.0, -0.0, 0.5, 1.0, 2.0, -1.0, jnp.inf, -jnp.inf, jnp.nan, 1e30])[:, None]\n"
            f"out = [jsp.stats.chi2.{m}(x, jnp.array([2.0, 1.0, 3.0, 0.5, 0.0]), loc, scale)"
            " for loc, scale in ((0, 1), (1.0, 2.0), (0.0, 0.0), (0.0, -1.0))]",
            1e-5,
        )
        for m in ("pdf", "logcdf", "logsf")
    ],
    (
        "igamma_grad_a_edges",
        "a = jnp.array([1.0, 2.0, 0.5, 1.0, 1.0, 0.0, -1.0, 1e30, 3.0])\n"
        "x = jnp.array([jnp.inf, jnp.inf, -1.0, 0.0, 2.0, 1.0, 1.0, jnp.inf, 0.5])\n"
        "out = (lax.igamma_grad_a(a, x), jax.vmap(jax.grad(jsp.special.gammaincc))(a, x),"
        " jax.grad(jsp.stats.chi2.sf, argnums=1)(1.0, 3.0, 0.0, 0.0))",
        1e-5,
    ),
    (
        "logistic_ppf_isf_keyword",
        "q = jnp.array([0.1, 0.5, 0.9])\n"
        "out = (jsp.stats.logistic.ppf(x=q, loc=1.0), jsp.stats.logistic.isf(x=q, scale=2.0))",
        1e-6,
    ),
]
