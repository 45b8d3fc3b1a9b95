"""What the fifth differential fuzz (issue 13: jax.scipy.special and jax.scipy.stats on edge
inputs) found: betainc raised OverflowError (math.exp of the log prefactor) when a and b were both
huge (jax.scipy.stats.beta.cdf/sf/logcdf/logsf at a = b = 1e30), and returned NaN where XLA's
boundary table gives values: a = 0 or b = inf is a point mass at 0, b = 0 or a = inf one at 1
(beta.cdf with shape 0 was NaN for every x). The Hurwitz zeta (so polygamma, and the gradient
of digamma) raised ZeroDivisionError where a negative q's terms cancel (polygamma(2, -0.5)),
at q = inf, and OverflowError at q = -inf, and gave inf at every pole where XLA's table gives NaN
for odd s (polygamma(2, 0)). Registered in snippets.py."""

_Q = "q = jnp.array([0.0, -0.0, 1.0, -1.0, -3.0, 2.5, -1e30, jnp.inf, -jnp.inf, jnp.nan, 0.5, -0.5, -2.5])\n"
_X = "x = jnp.array([0.0, 0.25, 0.5, 1.0, -0.5, 1.5, jnp.nan])\n"

FUZZ5 = [
    # betainc's boundary table: point masses at 0 / 1, both at once NaN, outside [0, 1] NaN
    *[
        (f"betainc_boundary_{name}", _X + f"out = jsp.special.betainc({a}, {b}, x)", 1e-6)
        for name, a, b in [
            ("a0", "0.0", "1.0"),
            ("b0", "2.0", "0.0"),
            ("a0_b0", "0.0", "0.0"),
            ("a_inf", "jnp.inf", "2.0"),
            ("b_inf", "0.5", "jnp.inf"),
            ("a_inf_b_inf", "jnp.inf", "jnp.inf"),
            ("a0_b_inf", "0.0", "jnp.inf"),
            ("negative", "-1.0", "2.0"),
        ]
    ],
    # beta's cdf family at shape 0 and at huge shapes (the latter raised OverflowError)
    *[
        (f"beta_{m}_edges", _X + f"out = [jsp.stats.beta.{m}(x, a, b) for a, b in {pairs}]", 1e-6)
        for m in ("cdf", "sf", "logcdf", "logsf")
        for pairs in ["[(0.0, 1.0), (1.0, 0.0), (2, 3), (1e30, 1e30)]"]
    ],
    ("beta_cdf_int", "out = jsp.stats.beta.cdf(jnp.arange(-1, 3)[:, None], jnp.arange(3), 1)", 1e-6),
    (
        "beta_cdf_jit_vmap",
        _X
        + "out = (jax.jit(jsp.stats.beta.cdf)(x, 0.0, 2.0), jax.vmap(jsp.stats.beta.sf)(x, 0 * x, 1e30 + 0 * x))",
        1e-6,
    ),
    # zeta's domain table (poles: inf for even s, NaN for odd; q = inf NaN; negative q needs integer s)
    *[
        (f"zeta_edges_s{s}", _Q + f"out = jsp.special.zeta({s}, q)", 1e-5)
        for s in ["1.0", "2.0", "3.0", "2.5", "0.5", "4.0", "jnp.nan"]
    ],
    ("polygamma_edges", _Q + "out = [jsp.special.polygamma(n, q) for n in (1, 2, 3)]", 1e-5),
    (
        "digamma_grad_edges",
        _Q
        + "out = (jax.vmap(jax.grad(jsp.special.digamma))(q), jax.jit(jax.grad(jsp.special.digamma))(-0.5))",
        1e-5,
    ),
]
