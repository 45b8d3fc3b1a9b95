"""Snippets for the jax.scipy.stats distributions and statistics added with issue 13's second
part (betabinom, gennorm, geom, gumbel_l, gumbel_r, multinomial, nbinom, pareto, truncnorm,
vonmises, wrapcauchy, gaussian_kde, mode, rankdata, sem). Registered in snippets.py."""

S = "from jax.scipy import stats\n"
K = S + "k = jnp.array([-1., 0., 1., 2., 5., 10., 2.5])\n"
X = S + "x = jnp.array([-3., -0.5, 0., 0.4, 1., 2.5, 7., jnp.inf, jnp.nan])\n"
Q = S + "q = jnp.array([-0.1, 0., 1e-4, 0.3, 0.5, 0.9, 1., 1.2, jnp.nan])\n"

STATS_MORE = [
    (
        "betabinom",
        K + "out = (stats.betabinom.logpmf(k, 10., 2., 3.), stats.betabinom.pmf(k, 10., 0.5, 0.7), "
        "stats.betabinom.logpmf(k, 6., jnp.array([-1., 0., 1., 2., 3., 4., 5.]), 2., loc=1.), "
        "stats.betabinom.logpmf(0., 0., 1., 1.), stats.betabinom.pmf(3, 5, 2, 2))",
        2e-5,
    ),
    (
        "geom",
        K
        + "out = (stats.geom.logpmf(k, 0.3), stats.geom.pmf(k, jnp.array([0.1, 0.2, 0.5, 0.9, 1., 0.3, 0.3])), "
        "stats.geom.logpmf(k, 0.4, loc=1.), stats.geom.pmf(2, 0.5))",
        2e-5,
    ),
    (
        "nbinom",
        K
        + "out = (stats.nbinom.logpmf(k, 3., 0.4), stats.nbinom.pmf(k, 2.5, 0.7), stats.nbinom.logpmf(k, 5, 0.3, loc=2), stats.nbinom.pmf(3, 4, 0.5))",
        2e-5,
    ),
    (
        "multinomial",
        S + "x = jnp.array([[1, 2, 0], [3, 0, 0], [1, 1, 1]])\np = jnp.array([0.2, 0.5, 0.3])\n"
        "out = (stats.multinomial.logpmf(x, 3, p), stats.multinomial.pmf(x, 3, p), stats.multinomial.logpmf(jnp.array([2, 2]), 3, jnp.array([0.5, 0.5])))",
        2e-5,
    ),
    (
        "err_multinomial_float",
        S + "out = stats.multinomial.logpmf(jnp.array([1., 2.]), 3., jnp.array([0.5, 0.5]))",
    ),
    (
        "vonmises",
        X
        + "out = (stats.vonmises.logpdf(x, 2.), stats.vonmises.pdf(x, 0.5), stats.vonmises.logpdf(1., jnp.array([-1., 0., 1e-3, 50., 800.])))",
        2e-5,
    ),
    (
        "wrapcauchy",
        X
        + "out = (stats.wrapcauchy.logpdf(x, 0.3), stats.wrapcauchy.pdf(x, 0.8), stats.wrapcauchy.logpdf(1., jnp.array([-0.1, 0., 0.5, 1., 1.5])))",
        2e-5,
    ),
    (
        "gennorm",
        X
        + "out = (stats.gennorm.logpdf(x, 2.), stats.gennorm.pdf(x, 1.), stats.gennorm.cdf(x, 1.5), stats.gennorm.cdf(x, 0.5), stats.gennorm.logpdf(1., jnp.array([0.5, 1., 8.])))",
        2e-5,
    ),
    (
        "gumbel_r",
        X + "d = stats.gumbel_r\n"
        "out = (d.logpdf(x), d.pdf(x, 1., 2.), d.cdf(x), d.logcdf(x, -1., 0.5), d.sf(x), d.logsf(x, 0.5, 3.), d.logpdf(x, 0., -1.), d.ppf(jnp.array([-0.1, 0., 0.2, 0.5, 0.99, 1.]), 1., 2.))",
        2e-5,
    ),
    (
        "gumbel_l",
        X + "d = stats.gumbel_l\n"
        "out = (d.logpdf(x), d.pdf(x, 1., 2.), d.cdf(x), d.logcdf(x, -1., 0.5), d.sf(x), d.logsf(x, 0.5, 3.), d.logpdf(x, 0., -1.), d.ppf(jnp.array([-0.1, 0., 0.2, 0.5, 0.99, 1.]), 1., 2.))",
        2e-5,
    ),
    (
        "pareto",
        X + Q[len(S) :] + "d = stats.pareto\n"
        "out = (d.logpdf(x, 2.), d.pdf(x, 3., -1., 2.), d.cdf(x, 2.), d.logcdf(x, 1.5, 0.5), d.sf(x, 2.), d.logsf(x, 2.5, 0., 0.5), d.ppf(q, 2.), d.ppf(q, 3., 1., 2.))",
        2e-5,
    ),
    (
        "truncnorm",
        X + "d = stats.truncnorm\n"
        "out = (d.logpdf(x, -1., 2.), d.pdf(x, 0.5, 3., 1., 2.), d.cdf(x, -1., 2.), d.logcdf(x, -2., 8.), d.sf(x, -1., 2.), d.logsf(x, 1., 3.), "
        "d.logpdf(x, 2., 1.), d.cdf(x, 3., 6.), d.logpdf(0.5, jnp.array([-jnp.inf, -1., 0.]), jnp.array([jnp.inf, 1., 0.6])))",
        5e-5,
    ),
    (
        "stats_grads",
        S
        + "out = (jax.grad(lambda x: stats.truncnorm.logcdf(x, -1., 2.))(0.3), jax.grad(stats.gumbel_r.logsf)(0.7), "
        "jax.grad(stats.gennorm.cdf, (0, 1))(0.8, 1.5), jax.grad(stats.pareto.logpdf, (0, 1))(2., 3.), "
        "jax.grad(stats.vonmises.logpdf, (0, 1))(0.5, 2.), jax.grad(stats.betabinom.logpmf, (2, 3))(3., 10., 2., 3.), "
        "jax.grad(stats.nbinom.logpmf, (1, 2))(3., 2.5, 0.4))",
        5e-5,
    ),
    (
        "stats_vmap_jit",
        X
        + "out = (jax.vmap(stats.gumbel_l.cdf)(x), jax.jit(stats.truncnorm.logpdf)(x, -1., 2.), jax.jit(jax.vmap(stats.geom.logpmf, (0, None)))(x, 0.3))",
        2e-5,
    ),
    (
        "mode",
        S + "a = jnp.array([[1, 3, 3, 2], [2, 2, 1, 1], [3, 3, 2, 2]])\n"
        "out = (stats.mode(a), stats.mode(a, axis=1), stats.mode(a, axis=None), stats.mode(a, axis=0, keepdims=True), "
        "stats.mode(a, axis=None, keepdims=True), stats.mode(jnp.array([0.5, 2., 0.5, -1.])), stats.mode(4.))",
    ),
    ("err_mode_policy", S + "out = stats.mode(jnp.array([1, 2]), nan_policy='raise')"),
    (
        "rankdata",
        S + "a = jnp.array([3., 1., 4., 1., 5., 9., 2., 6., 5., 3., 5.])\n"
        "out = tuple(stats.rankdata(a, m) for m in ('average', 'min', 'max', 'dense', 'ordinal')) + "
        "(stats.rankdata(jnp.array([[3, 1], [1, 2]]), axis=0), stats.rankdata(jnp.array([[3, 1], [1, 2]]), 'min', axis=1), "
        "stats.rankdata(jnp.array([1., jnp.nan, 2.])), stats.rankdata(jnp.array([2, 2, 1])))",
    ),
    ("err_rankdata_method", S + "out = stats.rankdata(jnp.array([1., 2.]), 'bogus')"),
    (
        "sem",
        S + "a = jnp.array([[1., 2., 4.], [3., jnp.nan, 5.], [0., 1., 1.]])\n"
        "out = (stats.sem(a), stats.sem(a, axis=1), stats.sem(a, axis=None), stats.sem(a, ddof=0), stats.sem(a, nan_policy='omit'), "
        "stats.sem(a, axis=1, keepdims=True, nan_policy='omit'), stats.sem(jnp.arange(5)))",
        2e-6,
    ),
    (
        "gaussian_kde",
        S
        + "r = np.random.RandomState(0)\nd1 = jnp.asarray(r.randn(20), jnp.float32)\nd2 = jnp.asarray(r.randn(2, 15), jnp.float32)\n"
        "k1 = stats.gaussian_kde(d1)\nk2 = stats.gaussian_kde(d2, bw_method='silverman', weights=jnp.arange(1., 16.))\n"
        "k3 = stats.gaussian_kde(d1, bw_method=0.3)\npts = jnp.array([[-1., 0., 0.5], [0.2, 1., -2.]])\n"
        "out = (k1.evaluate(jnp.array([-1., 0., 2.])), k1(0.5), k1.logpdf(jnp.array([0., 8.])), k2.pdf(pts), k2.logpdf(pts), k3.evaluate(jnp.array([0.])), "
        "k1.integrate_box_1d(-0.5, 1.), k2.integrate_gaussian(jnp.zeros(2), jnp.eye(2)), k1.integrate_kde(k3), k1.neff, k2.neff, k2.covariance, k1.d, k1.n)",
        5e-5,
    ),
    (
        "gaussian_kde_transforms",
        S + "d1 = jnp.array([0., 1., 1.5, 3., -0.5])\n"
        "out = (jax.grad(lambda d: stats.gaussian_kde(d).evaluate(jnp.array([0.7]))[0])(d1), jax.jit(lambda k, x: k.logpdf(x))(stats.gaussian_kde(d1), jnp.array([0., 1.])), "
        "jax.vmap(lambda x: stats.gaussian_kde(d1).pdf(x))(jnp.array([[0.], [2.]])))",
        5e-5,
    ),
    ("err_kde_box", S + "out = stats.gaussian_kde(jnp.array([0., 1., 2.])).integrate_box(0., 1.)"),
    ("err_kde_bw", S + "out = stats.gaussian_kde(jnp.array([0., 1., 2.]), bw_method='bogus')"),
]
