"""The sweep's second differential-fuzz module: the surfaces sweep_fuzz crosses thinly, at the
inputs users of the docs hit. jax.scipy.special / jax.scipy.stats at their edges (tails, 0,
negatives, nan / inf, int and float16 / bfloat16 inputs, broadcast parameters) and their grads;
jnp.linalg / jax.scipy.linalg on batched, singular, non-square, complex and float16 inputs and
their grads / vmap; jax.random samplers at unusual shapes, dtypes and parameters with both key
styles; vmap with in_axes / out_axes variations and of indexing, scatter, sort, cumsum, top_k;
jnp keyword corners (keepdims, axis tuples, dtype=, ddof, nan* variants, decimals, take modes, pad
modes, interp / searchsorted / histogram / percentile edges).

Not yet registered in sweep.py's ``all_cases``: its ~990 cases pushed test_fidelity's text sweep past
its 600 s timeout on a loaded machine. Run it with ``sweep.py dump PATH [--engine] --only=fuzz2.``
after registering it.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``; ``call(jax, *args)`` here,
and every case is also swept under ``jit`` by ``sweep.py dump`` (its ``jit_value``).
"""

from __future__ import annotations

import numpy as np

CASES: dict = {}
NAN, INF = float("nan"), float("inf")


def _add(name, call, *args):
    def make(jax):
        return (lambda *a: call(jax, *a)), args

    CASES[f"fuzz2.{name}"] = make


def _add_built(name, call, *builders):
    """A case whose arguments are made with the running framework (bfloat16 arrays, typed keys)."""

    def make(jax):
        return (lambda *a: call(jax, *a)), tuple(b(jax) for b in builders)

    CASES[f"fuzz2.{name}"] = make


def _arr(values, dtype):
    def build(jax):
        return jax.numpy.asarray(np.asarray(values), dtype=dtype)

    return build


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


# --- jax.scipy.special at its edges ---------------------------------------------------------------
_EDGE = np.array([-INF, -30.0, -1.5, -0.0, 0.0, 1e-30, 0.5, 1.0, 3.0, 30.0, 1e10, INF, NAN], np.float32)
_UNITEDGE = np.array([-1.0, -0.999, -0.5, 0.0, 1e-8, 0.5, 0.999, 1.0, 1.5, NAN], np.float32)
_PROBEDGE = np.array([0.0, 1e-30, 1e-8, 0.5, 1 - 1e-7, 1.0, -0.1, 1.1, NAN], np.float32)
_INTS = np.array([-3, -1, 0, 1, 2, 5], np.int32)
SPECIAL_EDGE = "erf erfc expit gammaln digamma ndtr log_ndtr entr i0 i0e i1 i1e gamma erfcx".split()
for _fn in SPECIAL_EDGE:
    _add(f"special.{_fn}[edge]", lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x), _EDGE)
    _add(f"special.{_fn}[int]", lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x), _INTS)
    _add_built(
        f"special.{_fn}[f16]",
        lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x),
        _arr([-2.0, 0.0, 0.5, 3.0], "float16"),
    )
    _add_built(
        f"special.{_fn}[bf16]",
        lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x),
        _arr([-2.0, 0.0, 0.5, 3.0], "bfloat16"),
    )
for _fn in ("erfinv", "ndtri", "logit"):
    _src = _UNITEDGE if _fn == "erfinv" else _PROBEDGE
    _add(f"special.{_fn}[edge]", lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x), _src)
    _add_built(
        f"special.{_fn}[f16]",
        lambda jax, x, f=_fn: getattr(jax.scipy.special, f)(x),
        _arr([0.1, 0.5, 0.9], "float16"),
    )
_XA = np.array([0.0, 0.0, 1.0, 2.0, NAN, INF], np.float32)
_YA = np.array([0.0, -1.0, 0.0, INF, 1.0, 2.0], np.float32)
_add("special.xlogy[edge]", lambda jax, x, y: jax.scipy.special.xlogy(x, y), _XA, _YA)
_add("special.xlog1py[edge]", lambda jax, x, y: jax.scipy.special.xlog1py(x, y), _XA, _YA - 1)
_add(
    "special.xlogy[int]", lambda jax, x, y: jax.scipy.special.xlogy(x, y), np.array([0, 2]), np.array([0, 3])
)
_add("special.kl_div[edge]", lambda jax, x, y: jax.scipy.special.kl_div(x, y), _XA, _YA)
_add("special.rel_entr[edge]", lambda jax, x, y: jax.scipy.special.rel_entr(x, y), _XA, _YA)
_A = np.array([0.5, 1.0, 2.0, 10.0, 0.0, -1.0, NAN], np.float32)
_X = np.array([0.0, 1.0, 3.0, 100.0, 1.0, 1.0, 1.0], np.float32)
for _fn in ("gammainc", "gammaincc"):
    _add(f"special.{_fn}[edge]", lambda jax, a, x, f=_fn: getattr(jax.scipy.special, f)(a, x), _A, _X)
    _add(
        f"special.{_fn}[bcast]",
        lambda jax, a, x, f=_fn: getattr(jax.scipy.special, f)(a, x),
        np.array([[0.5], [2.0]], np.float32),
        np.array([0.1, 1.0, 5.0], np.float32),
    )
    _add(
        f"special.{_fn}[x_inf]", lambda jax, a, f=_fn: getattr(jax.scipy.special, f)(a, INF), np.float32(2.0)
    )
_add(
    "special.betainc[edge]",
    lambda jax, a, b, x: jax.scipy.special.betainc(a, b, x),
    np.array([1.0, 2.0, 0.5, 5.0, 1.0, 1.0], np.float32),
    np.array([1.0, 3.0, 0.5, 1.0, 1.0, 1.0], np.float32),
    np.array([0.0, 0.5, 1.0, 0.3, -0.1, 1.5], np.float32),
)
_add(
    "special.betaln[edge]",
    lambda jax, a, b: jax.scipy.special.betaln(a, b),
    np.array([1.0, 0.5, 100.0, 1e-3], np.float32),
    np.array([1.0, 0.5, 100.0, 1e3], np.float32),
)
_add(
    "special.polygamma[orders]",
    lambda jax, n, x: jax.scipy.special.polygamma(n, x),
    np.array([0, 1, 2, 3], np.int32),
    np.array([0.5, 1.0, 2.5, 10.0], np.float32),
)
_add(
    "special.zeta[edge]",
    lambda jax, s, q: jax.scipy.special.zeta(s, q),
    np.array([2.0, 1.0, 3.0, 0.5, 2.0], np.float32),
    np.array([1.0, 1.0, 0.5, 1.0, -1.0], np.float32),
)
_add("special.multigammaln[d3]", lambda jax, a: jax.scipy.special.multigammaln(a, 3), np.float32(2.5))
_add(
    "special.logsumexp[neg_inf]",
    lambda jax, x: jax.scipy.special.logsumexp(x),
    np.array([-INF, -INF], np.float32),
)
_add(
    "special.logsumexp[inf_and_neg]",
    lambda jax, x: jax.scipy.special.logsumexp(x),
    np.array([INF, -INF, 1.0], np.float32),
)
_add(
    "special.logsumexp[b_negative]",
    lambda jax, x, b: jax.scipy.special.logsumexp(x, b=b, return_sign=True),
    np.array([1.0, 2.0, 3.0], np.float32),
    np.array([1.0, -1.0, 0.5], np.float32),
)
_add(
    "special.logsumexp[b_zero_axis_keep]",
    lambda jax, x, b: jax.scipy.special.logsumexp(x, axis=1, b=b, keepdims=True),
    _f32(2, 3),
    np.array([0.0, 1.0, 0.0], np.float32),
)
_add(
    "special.logsumexp[axis_tuple]",
    lambda jax, x: jax.scipy.special.logsumexp(x, axis=(0, 2)),
    _f32(2, 3, 2),
)
_add("special.logsumexp[int]", lambda jax, x: jax.scipy.special.logsumexp(x), np.array([1, 2, 3], np.int32))
_add("special.logsumexp[empty]", lambda jax, x: jax.scipy.special.logsumexp(x), np.zeros((0,), np.float32))
_add(
    "special.softmax[neg_inf_row]",
    lambda jax, x: jax.nn.softmax(x, axis=-1),
    np.array([[-INF, -INF], [0.0, -INF]], np.float32),
)
_add(
    "special.factorial[edge]",
    lambda jax, n: jax.scipy.special.factorial(n),
    np.array([-1.0, 0.0, 1.0, 5.0, 2.5, 171.0], np.float32),
)
_add(
    "special.poch[edge]",
    lambda jax, z, m: jax.scipy.special.poch(z, m),
    np.array([1.0, 2.0, -1.0, 0.5], np.float32),
    np.array([0.0, 3.0, 2.0, 1.5], np.float32),
)
_add(
    "special.expn[orders]",
    lambda jax, n, x: jax.scipy.special.expn(n, x),
    np.array([0, 1, 2, 3]),
    np.array([0.5, 0.0, 1.0, 50.0], np.float32),
)
_add("special.sinc_zero", lambda jax, x: jax.numpy.sinc(x), np.array([0.0, -0.0, 1e-20, 1.0], np.float32))
_add("special.i0[large]", lambda jax, x: jax.scipy.special.i0(x), np.array([50.0, 100.0, -100.0], np.float32))
_add("special.bernoulli[n]", lambda jax: jax.scipy.special.bernoulli(6))
_add("special.ndtri[f64_weak]", lambda jax: jax.scipy.special.ndtri(0.975))
_add(
    "special.gammasgn[edge]",
    lambda jax, x: jax.scipy.special.gammasgn(x),
    np.array([-2.5, -1.5, -1.0, 0.0, -0.0, 2.0], np.float32),
)

# grads of the special functions at ordinary points
_GRADS = {
    "gammaln": (lambda s, x: s.gammaln(x), np.array([0.5, 2.0, 10.0], np.float32)),
    "digamma": (lambda s, x: s.digamma(x), np.array([0.5, 2.0, 10.0], np.float32)),
    "erfinv": (lambda s, x: s.erfinv(x), np.array([-0.9, 0.0, 0.5], np.float32)),
    "ndtri": (lambda s, x: s.ndtri(x), np.array([0.01, 0.5, 0.9], np.float32)),
    "log_ndtr_tail": (lambda s, x: s.log_ndtr(x), np.array([-30.0, -5.0, 0.0, 5.0], np.float32)),
    "erfcx": (lambda s, x: s.erfcx(x), np.array([-1.0, 0.5, 10.0], np.float32)),
    "i0e": (lambda s, x: s.i0e(x), np.array([-1.0, 0.5, 10.0], np.float32)),
    "i1e": (lambda s, x: s.i1e(x), np.array([-1.0, 0.5, 10.0], np.float32)),
    "entr_zero": (lambda s, x: s.entr(x), np.array([0.5, 1.0, 2.0], np.float32)),
    "xlogy_x0": (lambda s, x: s.xlogy(x, 2.0), np.array([0.0, 1.0], np.float32)),
    "xlogy_y": (lambda s, y: s.xlogy(np.float32(0.0), y), np.array([1.0, 2.0], np.float32)),
    "gammainc_x": (lambda s, x: s.gammainc(np.float32(2.0), x), np.array([0.5, 1.0, 3.0], np.float32)),
    "gammainc_a": (lambda s, a: s.gammainc(a, np.float32(2.0)), np.array([0.5, 1.0, 3.0], np.float32)),
    "betainc_x": (
        lambda s, x: s.betainc(np.float32(2.0), np.float32(3.0), x),
        np.array([0.2, 0.5], np.float32),
    ),
    "logsumexp_b": (
        lambda s, x: s.logsumexp(x, b=np.array([1.0, 2.0, 0.0], np.float32)),
        np.array([1.0, 2.0, 3.0], np.float32),
    ),
    "logsumexp_neg_inf": (lambda s, x: s.logsumexp(x), np.array([-INF, 0.0, 1.0], np.float32)),
    "zeta_q": (lambda s, q: s.zeta(np.float32(3.0), q), np.array([1.0, 2.5], np.float32)),
    "polygamma1": (lambda s, x: s.polygamma(1, x), np.array([1.0, 2.5], np.float32)),
    "expit": (lambda s, x: s.expit(x), np.array([-100.0, 0.0, 100.0], np.float32)),
    "logit": (lambda s, x: s.logit(x), np.array([0.1, 0.5], np.float32)),
    "i1": (lambda s, x: s.i1(x), np.array([0.0, 1.0, -2.0], np.float32)),
    "betaln": (lambda s, a: s.betaln(a, np.float32(2.0)), np.array([0.5, 3.0], np.float32)),
    "spence": (lambda s, x: s.spence(x), np.array([0.5, 3.0], np.float32)),
    "multigammaln": (lambda s, a: s.multigammaln(a, 2), np.float32(3.0)),
}
for _fn, (_call, _x) in _GRADS.items():
    _add(
        f"special.grad[{_fn}]",
        lambda jax, x, c=_call: jax.grad(lambda v: c(jax.scipy.special, v).sum())(x),
        _x,
    )
    _add(
        f"special.vmap_grad[{_fn}]",
        lambda jax, x, c=_call: jax.vmap(jax.grad(lambda v: c(jax.scipy.special, v).sum()))(x),
        np.stack([_x, _x]) if np.ndim(_x) else np.array([_x, _x]),
    )

# --- jax.scipy.stats at its edges -------------------------------------------------------------
_SX = np.array([-INF, -40.0, -5.0, 0.0, 5.0, 40.0, INF, NAN], np.float32)
for _m in ("norm", "logistic", "cauchy", "laplace", "t_df3"):
    for _f in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        if _m == "t_df3":
            if _f not in ("logpdf", "pdf", "cdf", "sf"):
                continue
            _add(f"stats.t.{_f}[edge]", lambda jax, x, f=_f: getattr(jax.scipy.stats.t, f)(x, 3.0), _SX)
            continue
        _add(
            f"stats.{_m}.{_f}[edge]",
            lambda jax, x, m=_m, f=_f: getattr(getattr(jax.scipy.stats, m), f)(x),
            _SX,
        )
for _m in ("norm", "logistic", "cauchy", "laplace"):
    _add(f"stats.{_m}.ppf[edge]", lambda jax, q, m=_m: getattr(jax.scipy.stats, m).ppf(q), _PROBEDGE)
_add("stats.norm.isf[edge]", lambda jax, q: jax.scipy.stats.norm.isf(q), _PROBEDGE)
_add(
    "stats.norm.logpdf[bcast]",
    lambda jax, x, loc, scale: jax.scipy.stats.norm.logpdf(x, loc, scale),
    np.array([0.0, 1.0, 2.0], np.float32),
    np.array([[0.0], [1.0]], np.float32),
    np.array([1.0, 2.0, 0.0], np.float32),
)
_add(
    "stats.norm.cdf[neg_scale]",
    lambda jax, x: jax.scipy.stats.norm.cdf(x, 0.0, -1.0),
    np.array([0.0, 1.0], np.float32),
)
_add("stats.norm.logpdf[int]", lambda jax, x: jax.scipy.stats.norm.logpdf(x, 1, 2), _INTS)
_add_built(
    "stats.norm.logpdf[f16]", lambda jax, x: jax.scipy.stats.norm.logpdf(x), _arr([0.0, 3.0], "float16")
)
_add_built(
    "stats.norm.cdf[bf16]", lambda jax, x: jax.scipy.stats.norm.cdf(x), _arr([-3.0, 0.0, 3.0], "bfloat16")
)
_add(
    "stats.expon.logpdf[edge]",
    lambda jax, x: jax.scipy.stats.expon.logpdf(x),
    np.array([-1.0, 0.0, 1.0, INF], np.float32),
)
_add(
    "stats.expon.cdf[edge]",
    lambda jax, x: jax.scipy.stats.expon.cdf(x, scale=2.0),
    np.array([-1.0, 0.0, 1.0, INF], np.float32),
)
_add(
    "stats.uniform.logpdf[bounds]",
    lambda jax, x: jax.scipy.stats.uniform.logpdf(x, 0.0, 2.0),
    np.array([-0.1, 0.0, 1.0, 2.0, 2.1], np.float32),
)
_add(
    "stats.uniform.cdf[bounds]",
    lambda jax, x: jax.scipy.stats.uniform.cdf(x, 1.0, 2.0),
    np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32),
)
_add("stats.uniform.ppf[edge]", lambda jax, q: jax.scipy.stats.uniform.ppf(q, 1.0, 2.0), _PROBEDGE)
_BX = np.array([-0.1, 0.0, 0.5, 1.0, 1.1], np.float32)
for _ab in ((1.0, 1.0), (0.5, 0.5), (2.0, 3.0), (1.0, 3.0)):
    _add(
        f"stats.beta.logpdf[{_ab[0]}_{_ab[1]}]",
        lambda jax, x, ab=_ab: jax.scipy.stats.beta.logpdf(x, *ab),
        _BX,
    )
_add("stats.beta.cdf[edge]", lambda jax, x: jax.scipy.stats.beta.cdf(x, 2.0, 3.0), _BX)
_GX = np.array([-1.0, 0.0, 0.5, 3.0, INF], np.float32)
for _a in (0.5, 1.0, 2.0):
    _add(f"stats.gamma.logpdf[a{_a}]", lambda jax, x, a=_a: jax.scipy.stats.gamma.logpdf(x, a), _GX)
_add("stats.gamma.cdf[edge]", lambda jax, x: jax.scipy.stats.gamma.cdf(x, 2.0, scale=3.0), _GX)
_add("stats.gamma.sf[edge]", lambda jax, x: jax.scipy.stats.gamma.sf(x, 2.0), _GX)
_add("stats.chi2.logpdf[edge]", lambda jax, x: jax.scipy.stats.chi2.logpdf(x, 2.0), _GX)
_add("stats.chi2.cdf[edge]", lambda jax, x: jax.scipy.stats.chi2.cdf(x, 3.0), _GX)
_K = np.array([-1, 0, 1, 3, 10], np.int32)
_add("stats.poisson.logpmf[mu0]", lambda jax, k: jax.scipy.stats.poisson.logpmf(k, 0.0), _K)
_add("stats.poisson.logpmf[mu2]", lambda jax, k: jax.scipy.stats.poisson.logpmf(k, 2.0), _K)
_add(
    "stats.poisson.pmf[float_k]",
    lambda jax, k: jax.scipy.stats.poisson.pmf(k, 2.0),
    np.array([0.5, 1.0, 2.0], np.float32),
)
_add("stats.poisson.cdf[edge]", lambda jax, k: jax.scipy.stats.poisson.cdf(k, 2.0), _K)
for _p in (0.0, 1.0, 0.3):
    _add(
        f"stats.bernoulli.logpmf[p{_p}]",
        lambda jax, k, p=_p: jax.scipy.stats.bernoulli.logpmf(k, p),
        np.array([-1, 0, 1, 2], np.int32),
    )
    _add(
        f"stats.geom.logpmf[p{_p}]",
        lambda jax, k, p=_p: jax.scipy.stats.geom.logpmf(k, p),
        np.array([0, 1, 2, 5], np.int32),
    )
    _add(
        f"stats.binom.logpmf[p{_p}]",
        lambda jax, k, p=_p: jax.scipy.stats.binom.logpmf(k, 5, p),
        np.array([-1, 0, 2, 5, 6], np.int32),
    )
_add(
    "stats.bernoulli.cdf[edge]",
    lambda jax, k: jax.scipy.stats.bernoulli.cdf(k, 0.3),
    np.array([-1.0, 0.0, 0.5, 1.0, 2.0], np.float32),
)
_add(
    "stats.nbinom.logpmf[edge]",
    lambda jax, k: jax.scipy.stats.nbinom.logpmf(k, 3, 0.5),
    np.array([-1, 0, 2, 10], np.int32),
)
_add(
    "stats.multivariate_normal.logpdf[batched]",
    lambda jax, x, m, c: jax.scipy.stats.multivariate_normal.logpdf(x, m, c),
    _f32(4, 2),
    np.zeros(2, np.float32),
    np.array([[2.0, 0.5], [0.5, 1.0]], np.float32),
)
_add(
    "stats.multivariate_normal.logpdf[singular]",
    lambda jax, x, m, c: jax.scipy.stats.multivariate_normal.logpdf(x, m, c),
    _f32(2),
    np.zeros(2, np.float32),
    np.ones((2, 2), np.float32),
)
_add(
    "stats.dirichlet.logpdf[edge]",
    lambda jax, x, a: jax.scipy.stats.dirichlet.logpdf(x, a),
    np.array([0.2, 0.3, 0.5], np.float32),
    np.array([1.0, 2.0, 0.5], np.float32),
)
_add(
    "stats.dirichlet.logpdf[boundary]",
    lambda jax, x, a: jax.scipy.stats.dirichlet.logpdf(x, a),
    np.array([0.0, 0.5, 0.5], np.float32),
    np.array([1.0, 2.0, 2.0], np.float32),
)
_add(
    "stats.truncnorm.logpdf[edge]",
    lambda jax, x: jax.scipy.stats.truncnorm.logpdf(x, -1.0, 2.0),
    np.array([-2.0, -1.0, 0.0, 2.0, 3.0], np.float32),
)
_add(
    "stats.truncnorm.cdf[tail]",
    lambda jax, x: jax.scipy.stats.truncnorm.cdf(x, 5.0, 10.0),
    np.array([4.0, 5.5, 7.0, 11.0], np.float32),
)
_add(
    "stats.pareto.logpdf[edge]",
    lambda jax, x: jax.scipy.stats.pareto.logpdf(x, 3.0),
    np.array([0.5, 1.0, 2.0], np.float32),
)
_add(
    "stats.vonmises.logpdf[edge]",
    lambda jax, x: jax.scipy.stats.vonmises.logpdf(x, 2.0),
    np.array([0.0, 3.14159, 10.0], np.float32),
)
_add(
    "stats.gennorm.logpdf[edge]",
    lambda jax, x: jax.scipy.stats.gennorm.logpdf(x, 1.5),
    np.array([0.0, -2.0, 30.0], np.float32),
)
_add(
    "stats.logistic.ppf[bcast]",
    lambda jax, q, loc: jax.scipy.stats.logistic.ppf(q, loc),
    np.array([0.1, 0.9], np.float32),
    np.array([[0.0], [5.0]], np.float32),
)
_add(
    "stats.norm.ppf[tails]",
    lambda jax, q: jax.scipy.stats.norm.ppf(q),
    np.array([1e-30, 1e-10, 1 - 1e-6], np.float32),
)
_add(
    "stats.norm.logcdf[deep_tail]",
    lambda jax, x: jax.scipy.stats.norm.logcdf(x),
    np.array([-50.0, -20.0, -9.0], np.float32),
)
_add(
    "stats.rankdata[ties]",
    lambda jax, x: jax.scipy.stats.rankdata(x),
    np.array([3.0, 1.0, 3.0, NAN, 2.0], np.float32),
)
for _meth in ("average", "min", "max", "dense", "ordinal"):
    _add(
        f"stats.rankdata[{_meth}]",
        lambda jax, x, m=_meth: jax.scipy.stats.rankdata(x, method=m),
        np.array([3, 1, 3, 2, 1], np.int32),
    )
_add("stats.mode[ties]", lambda jax, x: jax.scipy.stats.mode(x), np.array([3, 1, 3, 1, 2], np.int32))
_add(
    "stats.mode[axis1]",
    lambda jax, x: jax.scipy.stats.mode(x, axis=1),
    np.array([[1, 2, 2], [3, 3, 1]], np.int32),
)
_add("stats.entropy[zero]", lambda jax, p: jax.scipy.stats.entropy(p), np.array([0.0, 0.5, 0.5], np.float32))
_add(
    "stats.entropy[qk]",
    lambda jax, p, q: jax.scipy.stats.entropy(p, q, base=2),
    np.array([0.2, 0.8], np.float32),
    np.array([0.5, 0.5], np.float32),
)
_add(
    "stats.zscore[ddof]",
    lambda jax, x: jax.scipy.stats.zscore(x, ddof=1),
    np.array([1.0, 2.0, 4.0], np.float32),
)
_add("stats.sem[basic]", lambda jax, x: jax.scipy.stats.sem(x), np.array([1.0, 2.0, 4.0], np.float32))
# grads of stats at ordinary points
_SGRADS = {
    "norm.logpdf_scale": lambda st, s: st.norm.logpdf(np.float32(1.0), 0.0, s),
    "norm.logcdf_tail": lambda st, x: st.norm.logcdf(x),
    "t.logpdf_df": lambda st, d: st.t.logpdf(np.float32(1.0), d),
    "beta.logpdf_a": lambda st, a: st.beta.logpdf(np.float32(0.3), a, 2.0),
    "gamma.logpdf_a": lambda st, a: st.gamma.logpdf(np.float32(2.0), a),
    "poisson.logpmf_mu": lambda st, mu: st.poisson.logpmf(3, mu),
    "bernoulli.logpmf_p": lambda st, p: st.bernoulli.logpmf(1, p * 0.3),
    "gamma.cdf_x": lambda st, x: st.gamma.cdf(x, 2.0),
    "logistic.cdf": lambda st, x: st.logistic.cdf(x),
    "laplace.logpdf_loc0": lambda st, x: st.laplace.logpdf(x),
}
_SG_ARGS = {
    "norm.logcdf_tail": np.array([-20.0, -3.0, 2.0], np.float32),
    "laplace.logpdf_loc0": np.array([0.0, 1.0, -1.0], np.float32),
}
for _fn, _call in _SGRADS.items():
    _x = _SG_ARGS.get(_fn, np.array([1.5, 2.5], np.float32))
    _add(f"stats.grad[{_fn}]", lambda jax, x, c=_call: jax.grad(lambda v: c(jax.scipy.stats, v).sum())(x), _x)

# --- linear algebra: batched, singular, non-square, complex, float16 -------------------------------
_SING = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
_B3 = np.stack([np.eye(3, dtype=np.float32) * 2, _f32(3, 3) + 3 * np.eye(3, dtype=np.float32)])
_NS = _f32(3, 2)
_C = (_f32(2, 2) + 1j * _f32(2, 2, seed=1)).astype(np.complex64) + 2 * np.eye(2, dtype=np.complex64)
_HERM = (_C @ _C.conj().T).astype(np.complex64)
_LIN = {
    "det_batched": lambda L, a: L.det(a),
    "slogdet_batched": lambda L, a: L.slogdet(a),
    "inv_batched": lambda L, a: L.inv(a),
    "solve_batched": lambda L, a: L.solve(a, np.ones((2, 3, 1), np.float32)),
    "solve_batched_vec": lambda L, a: L.solve(a, np.ones((2, 3), np.float32)),
    "eigh_batched": lambda L, a: L.eigh(a + np.swapaxes(a, -1, -2)),
    "svd_batched": lambda L, a: L.svd(a, compute_uv=False),
    "qr_batched": lambda L, a: L.qr(a)[1],
    "cholesky_batched": lambda L, a: L.cholesky(a @ np.swapaxes(a, -1, -2)),
    "norm_batched_fro": lambda L, a: L.norm(a, axis=(-2, -1)),
    "norm_batched_2": lambda L, a: L.norm(a, ord=2, axis=(1, 2)),
    "matrix_rank_batched": lambda L, a: L.matrix_rank(a),
    "pinv_batched": lambda L, a: L.pinv(a),
    "matrix_power_neg": lambda L, a: L.matrix_power(a, -2),
    "matrix_power_0": lambda L, a: L.matrix_power(a, 0),
    "trace_batched": lambda L, a: L.trace(a),
    "diagonal_offset": lambda L, a: L.diagonal(a, offset=1),
    "eigvalsh_upper": lambda L, a: L.eigvalsh(a + np.swapaxes(a, -1, -2), UPLO="U"),
    "cond_batched": lambda L, a: L.cond(a),
    "tensorinv": lambda L, a: L.tensorinv(a.reshape(2, 3, 3)[0].reshape(3, 3), ind=1),
    "matrix_norm_nuc": lambda L, a: L.matrix_norm(a, ord="nuc"),
    "vector_norm_axis_none": lambda L, a: L.vector_norm(a),
    "vector_norm_ord0": lambda L, a: L.vector_norm(a, ord=0, axis=-1),
    "vector_norm_ord_neg_inf": lambda L, a: L.vector_norm(a, ord=-np.inf, axis=-1, keepdims=True),
    "vecdot": lambda L, a: L.vecdot(a, a),
    "matmul": lambda L, a: L.matmul(a, a),
    "outer": lambda L, a: L.outer(a[0, 0], a[1, 1]),
    "svdvals": lambda L, a: L.svdvals(a),
    "diagonal_neg": lambda L, a: L.diagonal(a, offset=-2),
}
for _fn, _call in _LIN.items():
    _add(f"linalg.{_fn}", lambda jax, a, c=_call: c(jax.numpy.linalg, a), _B3)
_SINGULAR = {
    "det": lambda L, a: L.det(a),
    "slogdet": lambda L, a: L.slogdet(a),
    "inv": lambda L, a: L.inv(a),
    "solve": lambda L, a: L.solve(a, np.ones(2, np.float32)),
    "matrix_rank": lambda L, a: L.matrix_rank(a),
    "pinv": lambda L, a: L.pinv(a),
    "cholesky_not_pd": lambda L, a: L.cholesky(a - 3 * np.eye(2, dtype=np.float32)),
    "cond": lambda L, a: L.cond(a),
    "eigvalsh": lambda L, a: L.eigvalsh(a),
    "lstsq": lambda L, a: L.lstsq(a, np.ones(2, np.float32))[0],
    "matrix_power_neg": lambda L, a: L.matrix_power(a, -1),
    "norm_neg2": lambda L, a: L.norm(a, ord=-2),
    "det_zero_matrix": lambda L, a: L.det(a * 0),
    "slogdet_zero_matrix": lambda L, a: L.slogdet(a * 0),
}
for _fn, _call in _SINGULAR.items():
    _add(f"linalg.singular[{_fn}]", lambda jax, a, c=_call: c(jax.numpy.linalg, a), _SING)
_NONSQ = {
    "svd_full": lambda L, a: L.svd(a)[0].shape and L.svd(a)[1],
    "svd_reduced_u": lambda L, a: L.svd(a, full_matrices=False)[0] * 0 + 1,
    "qr_complete": lambda L, a: L.qr(a, mode="complete")[1],
    "qr_r": lambda L, a: L.qr(a, mode="r"),
    "pinv": lambda L, a: L.pinv(a),
    "pinv_rtol": lambda L, a: L.pinv(a, rtol=0.9),
    "lstsq": lambda L, a: L.lstsq(a, np.arange(3.0, dtype=np.float32)),
    "lstsq_under": lambda L, a: L.lstsq(a.T, np.arange(2.0, dtype=np.float32))[0],
    "matrix_rank": lambda L, a: L.matrix_rank(a),
    "norm_2": lambda L, a: L.norm(a, 2),
    "norm_nuc": lambda L, a: L.norm(a, "nuc"),
    "norm_inf": lambda L, a: L.norm(a, np.inf),
    "norm_neg1": lambda L, a: L.norm(a, -1),
    "det_raises": lambda L, a: L.det(a),
    "inv_raises": lambda L, a: L.inv(a),
    "cholesky_raises": lambda L, a: L.cholesky(a),
    "eigh_raises": lambda L, a: L.eigh(a),
    "cond_nonsq": lambda L, a: L.cond(a),
    "solve_raises": lambda L, a: L.solve(a, np.ones(3, np.float32)),
    "slogdet_raises": lambda L, a: L.slogdet(a),
}
for _fn, _call in _NONSQ.items():
    _add(f"linalg.nonsquare[{_fn}]", lambda jax, a, c=_call: c(jax.numpy.linalg, a), _NS)
_CPLX = {
    "det": lambda L, a: L.det(a),
    "slogdet": lambda L, a: L.slogdet(a),
    "inv": lambda L, a: L.inv(a),
    "solve": lambda L, a: L.solve(a, np.array([1.0, 1j], np.complex64)),
    "svdvals": lambda L, a: L.svd(a, compute_uv=False),
    "eigvalsh": lambda L, a: L.eigvalsh(a @ a.conj().T),
    "cholesky": lambda L, a: L.cholesky(a @ a.conj().T),
    "norm": lambda L, a: L.norm(a),
    "norm_2": lambda L, a: L.norm(a, 2),
    "pinv": lambda L, a: L.pinv(a),
    "matrix_rank": lambda L, a: L.matrix_rank(a),
    "qr_r_abs": lambda L, a: abs(L.qr(a)[1]),
    "eigvals_abs": lambda L, a: jax_sorted_abs(L.eigvals(a)),
    "matrix_power3": lambda L, a: L.matrix_power(a, 3),
    "vecdot_conj": lambda L, a: L.vecdot(a, a),
    "trace": lambda L, a: L.trace(a),
}


def jax_sorted_abs(v):
    return abs(v).sort()


for _fn, _call in _CPLX.items():
    _add(f"linalg.complex[{_fn}]", lambda jax, a, c=_call: c(jax.numpy.linalg, a), _C)
_F16M = np.array([[2.0, 1.0], [1.0, 3.0]], np.float16)
for _fn in (
    "det",
    "inv",
    "slogdet",
    "cholesky",
    "eigh",
    "svd",
    "qr",
    "solve",
    "norm",
    "pinv",
    "matrix_rank",
    "eigvalsh",
):
    _add(
        f"linalg.f16[{_fn}]",
        lambda jax, a, f=_fn: (
            jax.numpy.linalg.solve(a, a[0]) if f == "solve" else getattr(jax.numpy.linalg, f)(a)
        ),
        _F16M,
    )
_INTM = np.array([[2, 1], [1, 3]], np.int32)
for _fn in (
    "det",
    "inv",
    "slogdet",
    "cholesky",
    "eigvalsh",
    "norm",
    "pinv",
    "matrix_rank",
    "svdvals",
    "solve",
):
    _add(
        f"linalg.int[{_fn}]",
        lambda jax, a, f=_fn: (
            jax.numpy.linalg.solve(a, a[0]) if f == "solve" else getattr(jax.numpy.linalg, f)(a)
        ),
        _INTM,
    )
_add("linalg.empty[det]", lambda jax, a: jax.numpy.linalg.det(a), np.zeros((0, 0), np.float32))
_add("linalg.empty[inv]", lambda jax, a: jax.numpy.linalg.inv(a), np.zeros((0, 0), np.float32))
_add("linalg.empty[slogdet]", lambda jax, a: jax.numpy.linalg.slogdet(a), np.zeros((2, 0, 0), np.float32))
_add("linalg.empty[norm]", lambda jax, a: jax.numpy.linalg.norm(a), np.zeros((0, 3), np.float32))
_add(
    "linalg.empty[svdvals]",
    lambda jax, a: jax.numpy.linalg.svd(a, compute_uv=False),
    np.zeros((0, 3), np.float32),
)
_add("linalg.empty[eigvalsh]", lambda jax, a: jax.numpy.linalg.eigvalsh(a), np.zeros((0, 0), np.float32))
_add(
    "linalg.empty[matrix_rank]", lambda jax, a: jax.numpy.linalg.matrix_rank(a), np.zeros((0, 3), np.float32)
)
_add(
    "linalg.norm[vec_ords]",
    lambda jax, v: [jax.numpy.linalg.norm(v, o) for o in (0, 1, 2, 3, np.inf, -np.inf, -1, 0.5)],
    np.array([3.0, -4.0, 0.0], np.float32),
)
_add(
    "linalg.norm[keepdims]",
    lambda jax, a: jax.numpy.linalg.norm(a, axis=(0, 1), keepdims=True),
    _f32(2, 3, 2),
)
_add("linalg.norm[int]", lambda jax, a: jax.numpy.linalg.norm(a), np.array([3, 4], np.int32))
_add(
    "linalg.norm[vec_nan]", lambda jax, v: jax.numpy.linalg.norm(v, np.inf), np.array([1.0, NAN], np.float32)
)
_add(
    "linalg.multi_dot[three]",
    lambda jax, a, b, c: jax.numpy.linalg.multi_dot([a, b, c]),
    _f32(3),
    _f32(3, 2),
    _f32(2),
)
_add("linalg.cross[batched]", lambda jax, a, b: jax.numpy.linalg.cross(a, b), _f32(2, 3), _f32(3, seed=1))
_add(
    "linalg.tensorsolve",
    lambda jax, a, b: jax.numpy.linalg.tensorsolve(a, b),
    (np.eye(6, dtype=np.float32) * 2).reshape(2, 3, 6),
    np.ones((2, 3), np.float32),
)
# jax.scipy.linalg
_SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
_SL = {
    "lu_p": lambda S, a: S.lu(a)[0],
    "lu_u": lambda S, a: S.lu(a)[2],
    "lu_permute_l": lambda S, a: S.lu(a, permute_l=True)[0],
    "lu_factor": lambda S, a: S.lu_factor(a),
    "lu_solve": lambda S, a: S.lu_solve(S.lu_factor(a), np.ones(3, np.float32)),
    "lu_solve_trans1": lambda S, a: S.lu_solve(S.lu_factor(a), np.ones(3, np.float32), trans=1),
    "cho_factor_lower": lambda S, a: S.cho_factor(a, lower=True)[0],
    "cho_solve": lambda S, a: S.cho_solve(S.cho_factor(a), np.arange(3.0, dtype=np.float32)),
    "cholesky_upper": lambda S, a: S.cholesky(a),
    "cholesky_lower": lambda S, a: S.cholesky(a, lower=True),
    "solve_pos": lambda S, a: S.solve(a, np.ones(3, np.float32), assume_a="pos"),
    "solve_sym": lambda S, a: S.solve(a, np.ones((3, 2), np.float32), assume_a="sym"),
    "solve_lower": lambda S, a: S.solve(a, np.ones(3, np.float32), lower=True, assume_a="pos"),
    "solve_triangular_lower": lambda S, a: S.solve_triangular(a, np.ones(3, np.float32), lower=True),
    "solve_triangular_upper_trans": lambda S, a: S.solve_triangular(a, np.ones(3, np.float32), trans="T"),
    "solve_triangular_unit": lambda S, a: S.solve_triangular(a, np.ones(3, np.float32), unit_diagonal=True),
    "solve_triangular_trans2": lambda S, a: S.solve_triangular(
        a, np.ones((3, 2), np.float32), trans=2, lower=True
    ),
    "det": lambda S, a: S.det(a),
    "inv": lambda S, a: S.inv(a),
    "expm": lambda S, a: S.expm(a * 0.1),
    "expm_zero": lambda S, a: S.expm(a * 0),
    "eigh_vals_only": lambda S, a: S.eigh(a, eigvals_only=True),
    "eigh_lower_false": lambda S, a: S.eigh(a, lower=False, eigvals_only=True),
    "svd_vals": lambda S, a: S.svd(a, compute_uv=False),
    "qr_economic_r": lambda S, a: S.qr(a, mode="economic")[1],
    "qr_r": lambda S, a: S.qr(a, mode="r"),
    "qr_pivoting_p": lambda S, a: S.qr(a, pivoting=True)[2],
    "schur_t_diag": lambda S, a: S.schur(a)[0].diagonal().sort(),
    "polar_u": lambda S, a: S.polar(a)[0],
    "hessenberg": lambda S, a: abs(S.hessenberg(a)),
    "logm_diag": lambda S, a: S.expm(a * 0.1).trace(),
    "block_diag": lambda S, a: S.block_diag(a[:1, :2], np.float32(5.0), a[:2, :1]),
    "toeplitz": lambda S, a: S.toeplitz(a[0]),
    "toeplitz_rc": lambda S, a: S.toeplitz(a[0], a[1]),
    "circulant_like": lambda S, a: S.hilbert(3),
    "expm_frechet": lambda S, a: S.expm_frechet(a * 0.1, a * 0, compute_expm=False),
    "funm_none": lambda S, a: S.cho_solve((S.cholesky(a, lower=True), True), np.ones(3, np.float32)),
}
for _fn, _call in _SL.items():
    _add(f"scipy.linalg.{_fn}", lambda jax, a, c=_call: c(jax.scipy.linalg, a), _SPD)
_add("scipy.linalg.lu[nonsquare]", lambda jax, a: jax.scipy.linalg.lu(a), _NS)
_add("scipy.linalg.lu[batched]", lambda jax, a: jax.scipy.linalg.lu(a)[2], _B3)
_add("scipy.linalg.lu[singular]", lambda jax, a: jax.scipy.linalg.lu(a), _SING)
_add("scipy.linalg.lu_factor[singular]", lambda jax, a: jax.scipy.linalg.lu_factor(a), _SING)
_add("scipy.linalg.solve[singular]", lambda jax, a: jax.scipy.linalg.solve(a, np.ones(2, np.float32)), _SING)
_add("scipy.linalg.det[complex]", lambda jax, a: jax.scipy.linalg.det(a), _C)
_add(
    "scipy.linalg.solve_triangular[complex_trans2]",
    lambda jax, a: jax.scipy.linalg.solve_triangular(a, np.ones(2, np.complex64), trans=2),
    _C,
)
_add("scipy.linalg.eigh[complex]", lambda jax, a: jax.scipy.linalg.eigh(a, eigvals_only=True), _HERM)
_add("scipy.linalg.expm[batched]", lambda jax, a: jax.scipy.linalg.expm(a * 0.1), _B3)
_add(
    "scipy.linalg.cholesky[not_pd]",
    lambda jax, a: jax.scipy.linalg.cholesky(a),
    _SING - 3 * np.eye(2, dtype=np.float32),
)
_add(
    "scipy.linalg.solve_triangular[singular]",
    lambda jax, a: jax.scipy.linalg.solve_triangular(a, np.ones(2, np.float32)),
    np.array([[1.0, 2.0], [0.0, 0.0]], np.float32),
)
_add(
    "scipy.linalg.solve_triangular[batched]",
    lambda jax, a, b: jax.scipy.linalg.solve_triangular(a, b, lower=True),
    np.tril(_B3),
    np.ones((2, 3), np.float32),
)
# grads and vmaps of linalg
_LGRAD = {
    "det": lambda L, a: L.det(a),
    "slogdet": lambda L, a: L.slogdet(a)[1],
    "inv": lambda L, a: L.inv(a),
    "solve_a": lambda L, a: L.solve(a, np.array([1.0, 2.0, 3.0], np.float32)),
    "eigh_w": lambda L, a: L.eigh(a)[0] * np.array([1.0, 2.0, 3.0], np.float32),
    "eigvalsh": lambda L, a: L.eigvalsh(a) ** 2,
    "svd_s": lambda L, a: L.svd(a, compute_uv=False) * np.array([1.0, 2.0, 3.0], np.float32),
    "cholesky": lambda L, a: L.cholesky(a),
    "qr_r": lambda L, a: L.qr(a)[1],
    "qr_q": lambda L, a: L.qr(a)[0] * np.arange(9.0, dtype=np.float32).reshape(3, 3),
    "norm_fro": lambda L, a: L.norm(a),
    "norm_nuc": lambda L, a: L.norm(a, "nuc"),
    "norm_2": lambda L, a: L.norm(a, 2),
    "pinv": lambda L, a: L.pinv(a),
    "matrix_power3": lambda L, a: L.matrix_power(a, 3),
    "matrix_power_neg": lambda L, a: L.matrix_power(a, -1),
    "lstsq": lambda L, a: L.lstsq(a, np.ones(3, np.float32))[0],
    "cond": lambda L, a: L.cond(a),
    "eigvals_real": lambda L, a: L.eigvals(a).real,
}
for _fn, _call in _LGRAD.items():
    _add(
        f"linalg.grad[{_fn}]",
        lambda jax, a, c=_call: jax.grad(lambda m: c(jax.numpy.linalg, m).sum())(a),
        _SPD,
    )
    _add(
        f"linalg.vmap[{_fn}]",
        lambda jax, a, c=_call: jax.vmap(lambda m: c(jax.numpy.linalg, m))(a),
        np.stack([_SPD, _SPD * 2 + np.eye(3, dtype=np.float32)]),
    )
_add(
    "linalg.grad[det_singular]",
    lambda jax, a: jax.grad(jax.numpy.linalg.det)(a),
    _SING,
)
_add(
    "linalg.grad[det_complex_real]",
    lambda jax, a: jax.grad(lambda m: jax.numpy.linalg.det(m).real)(a),
    _C,
)
_add(
    "linalg.grad[norm_zero]",
    lambda jax, a: jax.grad(lambda m: jax.numpy.linalg.norm(m))(a * 0),
    _SPD,
)
_add(
    "linalg.grad[vector_norm_zero]",
    lambda jax, a: jax.grad(lambda m: jax.numpy.linalg.norm(m[0]))(a * 0),
    _SPD,
)
_SLGRAD = {
    "solve_triangular": lambda S, a: S.solve_triangular(a, np.ones(3, np.float32), lower=True),
    "cho_solve": lambda S, a: S.cho_solve((S.cholesky(a, lower=True), True), np.ones(3, np.float32)),
    "lu_solve": lambda S, a: S.lu_solve(S.lu_factor(a), np.ones(3, np.float32)),
    "expm": lambda S, a: S.expm(a * 0.1),
    "det": lambda S, a: S.det(a),
    "lu_u": lambda S, a: S.lu(a)[2],
    "eigh_vals": lambda S, a: S.eigh(a, eigvals_only=True),
}
for _fn, _call in _SLGRAD.items():
    _add(
        f"scipy.linalg.grad[{_fn}]",
        lambda jax, a, c=_call: jax.grad(lambda m: c(jax.scipy.linalg, m).sum())(a),
        _SPD,
    )
_add(
    "linalg.vmap[solve_in_axes_0_none]",
    lambda jax, a, b: jax.vmap(jax.numpy.linalg.solve, in_axes=(0, None))(a, b),
    _B3,
    np.ones(3, np.float32),
)
_add(
    "linalg.vmap[solve_in_axes_none_1]",
    lambda jax, a, b: jax.vmap(jax.numpy.linalg.solve, in_axes=(None, 1))(a, b),
    _SPD,
    np.arange(6.0, dtype=np.float32).reshape(3, 2),
)
_add(
    "linalg.vmap[solve_triangular_b]",
    lambda jax, a, b: jax.vmap(lambda v: jax.scipy.linalg.solve_triangular(a, v, lower=True))(b),
    np.tril(_SPD),
    np.arange(6.0, dtype=np.float32).reshape(2, 3),
)
_add(
    "linalg.vmap[det_axis1]",
    lambda jax, a: jax.vmap(jax.numpy.linalg.det, in_axes=1)(a),
    np.stack([_SPD, _SPD * 2], axis=1),
)
_add(
    "linalg.vmap[eigh_out_axes1]",
    lambda jax, a: jax.vmap(jax.numpy.linalg.eigvalsh, out_axes=1)(a),
    np.stack([_SPD, _SPD * 2]),
)
_add(
    "linalg.vmap[grad_slogdet]",
    lambda jax, a: jax.vmap(jax.grad(lambda m: jax.numpy.linalg.slogdet(m)[1]))(a),
    np.stack([_SPD, _SPD * 2]),
)
_add(
    "linalg.jvp[inv]",
    lambda jax, a: jax.jvp(jax.numpy.linalg.inv, (a,), (np.eye(3, dtype=np.float32),)),
    _SPD,
)
_add(
    "linalg.jvp[eigh_vectors_abs]",
    lambda jax, a: jax.jvp(lambda m: jax.numpy.linalg.eigh(m)[0], (a,), (np.eye(3, dtype=np.float32),)),
    _SPD,
)


# --- jax.random at unusual shapes, dtypes and parameters, with both key styles ---------------------
def _rnd(name, sample, *args):
    for typed in (False, True):

        def make(jax, typed=typed):
            def f(seed, *a):
                k = jax.random.key(seed) if typed else jax.random.PRNGKey(seed)
                out = sample(jax, k, *a)
                return jax.tree_util.tree_map(
                    lambda v: (
                        jax.random.key_data(v) if jax.dtypes.issubdtype(v.dtype, jax.dtypes.prng_key) else v
                    ),
                    out,
                )

            return f, (np.int32(3), *args)

        CASES[f"fuzz2.random.{name}[{'typed' if typed else 'raw'}]"] = make


_R = {
    "normal_shape_scalar": lambda r, k: r.normal(k, ()),
    "normal_shape_empty": lambda r, k: r.normal(k, (0,)),
    "normal_shape_0x3": lambda r, k: r.normal(k, (0, 3)),
    "uniform_f16": lambda r, k: r.uniform(k, (5,), "float16"),
    "uniform_bf16_bounds": lambda r, k: r.uniform(k, (5,), "bfloat16", -2.0, 3.0),
    "uniform_minval_eq_maxval": lambda r, k: r.uniform(k, (3,), minval=1.0, maxval=1.0),
    "uniform_bcast_bounds": lambda r, k: r.uniform(
        k, (2, 3), minval=np.zeros((2, 1), np.float32), maxval=np.arange(1.0, 4.0, dtype=np.float32)
    ),
    "uniform_inf_bound": lambda r, k: r.uniform(k, (2,), minval=0.0, maxval=INF),
    "normal_bf16": lambda r, k: r.normal(k, (4,), "bfloat16"),
    "normal_f16_scalar": lambda r, k: r.normal(k, (), "float16"),
    "randint_int8_extremes": lambda r, k: r.randint(k, (6,), -128, 127, dtype="int8"),
    "randint_int8_out_of_range": lambda r, k: r.randint(k, (6,), -1000, 1000, dtype="int8"),
    "randint_uint8_full": lambda r, k: r.randint(k, (6,), 0, 256, dtype="uint8"),
    "randint_min_gt_max": lambda r, k: r.randint(k, (4,), 5, 2),
    "randint_min_eq_max": lambda r, k: r.randint(k, (4,), 5, 5),
    "randint_int32_full": lambda r, k: r.randint(k, (4,), -(2**31), 2**31 - 1),
    "randint_bcast": lambda r, k: r.randint(k, (2, 3), np.array([[0], [10]]), np.array([1, 5, 100])),
    "randint_int16": lambda r, k: r.randint(k, (5,), -5, 5, dtype="int16"),
    "randint_uint32_big": lambda r, k: r.randint(k, (4,), 0, 2**32 - 1, dtype="uint32"),
    "randint_shape_empty": lambda r, k: r.randint(k, (0,), 0, 3),
    "bernoulli_p0": lambda r, k: r.bernoulli(k, 0.0, (5,)),
    "bernoulli_p1": lambda r, k: r.bernoulli(k, 1.0, (5,)),
    "bernoulli_p_array_shape": lambda r, k: r.bernoulli(k, np.array([0.0, 1.0, 0.5], np.float32), (2, 3)),
    "bernoulli_shape_scalar": lambda r, k: r.bernoulli(k),
    "bernoulli_p_int": lambda r, k: r.bernoulli(k, 1, (3,)),
    "categorical_neg_inf": lambda r, k: r.categorical(
        k, np.array([-INF, 0.0, -INF, 1.0], np.float32), shape=(6,)
    ),
    "categorical_axis0": lambda r, k: r.categorical(
        k, np.log(np.array([[0.1, 0.9], [0.9, 0.1], [0.0, 0.0]], np.float32) + 1e-30), axis=0
    ),
    "categorical_batched_shape": lambda r, k: r.categorical(k, np.zeros((2, 3), np.float32), shape=(4, 2)),
    "categorical_one_hot_logit": lambda r, k: r.categorical(
        k, np.array([[0.0, -INF], [-INF, 0.0]], np.float32)
    ),
    "choice_no_replace": lambda r, k: r.choice(k, 5, (5,), replace=False),
    "choice_no_replace_p": lambda r, k: r.choice(
        k, 4, (3,), replace=False, p=np.array([0.1, 0.0, 0.6, 0.3], np.float32)
    ),
    "choice_p_zero": lambda r, k: r.choice(k, 3, (6,), p=np.array([0.0, 1.0, 0.0], np.float32)),
    "choice_array_axis1": lambda r, k: r.choice(k, np.arange(12).reshape(3, 4), (2,), axis=1),
    "choice_shape_scalar": lambda r, k: r.choice(k, 7),
    "choice_too_many": lambda r, k: r.choice(k, 3, (4,), replace=False),
    "choice_2d_shape": lambda r, k: r.choice(k, np.arange(5.0), (2, 2)),
    "permutation_int": lambda r, k: r.permutation(k, 6),
    "permutation_axis1": lambda r, k: r.permutation(k, np.arange(12).reshape(3, 4), axis=1),
    "permutation_axis_neg": lambda r, k: r.permutation(
        k, np.arange(12).reshape(3, 4), axis=-1, independent=True
    ),
    "permutation_independent": lambda r, k: r.permutation(
        k, np.arange(12).reshape(3, 4), axis=0, independent=True
    ),
    "permutation_empty": lambda r, k: r.permutation(k, np.zeros((0,), np.float32)),
    "permutation_scalar_raises": lambda r, k: r.permutation(k, np.float32(3.0)),
    "split_num0": lambda r, k: r.split(k, 0),
    "split_shape": lambda r, k: r.split(k, (2, 2)),
    "fold_in_neg": lambda r, k: r.fold_in(k, -1),
    "fold_in_big": lambda r, k: r.fold_in(k, 2**31 - 1),
    "gamma_small_a": lambda r, k: r.gamma(k, np.array([1e-3, 0.1, 1.0], np.float32)),
    "gamma_bf16": lambda r, k: r.gamma(k, 2.0, (3,), "bfloat16"),
    "beta_small": lambda r, k: r.beta(k, 0.01, 0.01, (4,)),
    "dirichlet_small": lambda r, k: r.dirichlet(k, np.array([0.01, 0.01, 1.0], np.float32)),
    "poisson_lam0": lambda r, k: r.poisson(k, 0.0, (4,)),
    "poisson_big": lambda r, k: r.poisson(k, np.array([1e3, 1e5], np.float32)),
    "poisson_int16": lambda r, k: r.poisson(k, 3.0, (3,), dtype="int16"),
    "exponential_shape_empty": lambda r, k: r.exponential(k, (0, 2)),
    "truncated_normal_inf": lambda r, k: r.truncated_normal(k, -INF, INF, (4,)),
    "truncated_normal_tail": lambda r, k: r.truncated_normal(k, 5.0, 6.0, (4,)),
    "truncated_normal_bf16": lambda r, k: r.truncated_normal(k, -1.0, 1.0, (3,), "bfloat16"),
    "bits_uint8": lambda r, k: r.bits(k, (5,), "uint8"),
    "bits_uint16": lambda r, k: r.bits(k, (3,), "uint16"),
    "bits_scalar": lambda r, k: r.bits(k),
    "rademacher_int8": lambda r, k: r.rademacher(k, (5,), "int8"),
    "geometric": lambda r, k: r.geometric(k, np.array([1.0, 0.5, 0.01], np.float32)),
    "binomial_edges": lambda r, k: r.binomial(
        k, np.array([0.0, 5.0, 5.0, 10.0], np.float32), np.array([0.5, 0.0, 1.0, 0.3], np.float32)
    ),
    "multivariate_normal_batched": lambda r, k: r.multivariate_normal(
        k, np.zeros((2, 2), np.float32), np.eye(2, dtype=np.float32), (3, 2)
    ),
    "laplace_f16": lambda r, k: r.laplace(k, (3,), "float16"),
    "gumbel_mode": lambda r, k: r.gumbel(k, (3,), mode="high"),
    "weibull_min": lambda r, k: r.weibull_min(k, 2.0, 1.5, (3,)),
    "pareto": lambda r, k: r.pareto(k, 3.0, (3,)),
    "triangular": lambda r, k: r.triangular(k, 0.0, 0.5, 1.0, (3,)),
    "lognormal": lambda r, k: r.lognormal(k, 0.5, (3,)),
    "chisquare": lambda r, k: r.chisquare(k, 2.0, (3,)),
    "f": lambda r, k: r.f(k, 2.0, 3.0, (3,)),
    "wald": lambda r, k: r.wald(k, 1.0, (3,)),
    "rayleigh": lambda r, k: r.rayleigh(k, 2.0, (3,)),
    "maxwell": lambda r, k: r.maxwell(k, (3,)),
    "double_sided_maxwell": lambda r, k: r.double_sided_maxwell(k, 0.0, 1.0, (3,)),
    "loggamma_small": lambda r, k: r.loggamma(k, 0.01, (3,)),
    "orthogonal_n1": lambda r, k: r.orthogonal(k, 1),
    "ball_d1": lambda r, k: r.ball(k, 1, 2, (3,)),
    "normal_c64_shape": lambda r, k: r.normal(k, (2,), "complex64"),
    "shuffle_like_permutation_2d": lambda r, k: r.permutation(k, np.arange(6.0).reshape(3, 2)),
    "uniform_int_dtype_raises": lambda r, k: r.uniform(k, (2,), "int32"),
    "normal_int_dtype_raises": lambda r, k: r.normal(k, (2,), "int32"),
    "randint_float_dtype_raises": lambda r, k: r.randint(k, (2,), 0, 3, dtype="float32"),
    "key_data_split_vmap": lambda r, k: r.split(k, 3)[1],
}
for _fn, _call in _R.items():
    _rnd(_fn, lambda jax, k, c=_call: c(jax.random, k))
_add(
    "random.vmap_split",
    lambda jax, seeds: jax.vmap(lambda s: jax.random.normal(jax.random.PRNGKey(s), (2,)))(seeds),
    np.array([0, 1, 2], np.int32),
)
_add(
    "random.vmap_typed_uniform",
    lambda jax, seeds: jax.vmap(lambda s: jax.random.uniform(jax.random.key(s)))(seeds),
    np.array([0, 1, 2], np.int32),
)
_add(
    "random.vmap_randint_bounds",
    lambda jax, hi: jax.vmap(lambda h: jax.random.randint(jax.random.PRNGKey(0), (3,), 0, h))(hi),
    np.array([1, 5, 1000], np.int32),
)
_add(
    "random.vmap_bernoulli_p",
    lambda jax, p: jax.vmap(lambda q: jax.random.bernoulli(jax.random.PRNGKey(0), q, (4,)))(p),
    np.array([0.0, 0.5, 1.0], np.float32),
)
_add(
    "random.grad_normal_loc",
    lambda jax, m: jax.grad(lambda v: (v + jax.random.normal(jax.random.PRNGKey(0), (3,))).sum())(m),
    np.float32(1.0),
)
_add(
    "random.grad_gamma_a",
    lambda jax, a: jax.grad(lambda v: jax.random.gamma(jax.random.PRNGKey(0), v).sum())(a),
    np.array([0.5, 2.0], np.float32),
)

# --- vmap with in_axes / out_axes variations and of indexing, scatter, sort ------------------------
_M = np.arange(12.0, dtype=np.float32).reshape(3, 4)
_M3 = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
_IDX = np.array([2, 0, 1], np.int32)
_V = {
    "in_axes_neg1": lambda jax, x: jax.vmap(lambda v: v * 2, in_axes=-1)(x),
    "in_axes_neg2_out_neg1": lambda jax, x: jax.vmap(lambda v: v.sum(), in_axes=-2, out_axes=-1)(x),
    "out_axes_1": lambda jax, x: jax.vmap(lambda v: v[:, None] * v, out_axes=1)(x),
    "out_axes_neg1": lambda jax, x: jax.vmap(lambda v: jax.numpy.outer(v, v), out_axes=-1)(x),
    "out_axes_none": lambda jax, x: jax.vmap(lambda v: (v * 2, np.float32(1.0)), out_axes=(0, None))(x),
    "out_axes_none_closed": lambda jax, x: jax.vmap(lambda v: (v, x.sum()), out_axes=(0, None))(x),
    "out_axes_none_batched_raises": lambda jax, x: jax.vmap(lambda v: v, out_axes=None)(x),
    "in_axes_dict": lambda jax, x: jax.vmap(lambda d: d["a"] + d["b"], in_axes=({"a": 0, "b": None},))(
        {"a": x, "b": x[0]}
    ),
    "in_axes_dict_out_dict": lambda jax, x: jax.vmap(
        lambda d: {"s": d["a"].sum(), "t": d["a"]}, in_axes=({"a": 1},), out_axes={"s": 0, "t": 1}
    )({"a": x}),
    "in_axes_nested_tuple": lambda jax, x: jax.vmap(lambda p: p[0] * p[1][0], in_axes=((0, (1,)),))(
        (x[:, 0], (x,))
    ),
    "in_axes_list_prefix": lambda jax, x: jax.vmap(lambda a, b: a + b, in_axes=[0, None])(x, x[0]),
    "in_axes_none_all_axis_size": lambda jax, x: jax.vmap(lambda a: a * 2, in_axes=None, axis_size=3)(x),
    "axis_size_no_args": lambda jax, x: jax.vmap(lambda: np.float32(1.0), axis_size=2)(),
    "axis_size_mismatch_raises": lambda jax, x: jax.vmap(lambda a, b: a + b)(x, x[:2]),
    "in_axes_out_of_range_raises": lambda jax, x: jax.vmap(lambda a: a, in_axes=2)(x),
    "nested_in_axes": lambda jax, x: jax.vmap(jax.vmap(lambda a: a * 2, in_axes=0), in_axes=1)(x),
    "nested_out_axes": lambda jax, x: jax.vmap(jax.vmap(lambda a: a + 1, out_axes=0), out_axes=1)(x),
    "getitem_batched_index": lambda jax, x: jax.vmap(lambda v, i: v[i])(x, _IDX),
    "getitem_batched_slice_index": lambda jax, x: jax.vmap(lambda i: x[i, 1:])(_IDX),
    "getitem_unbatched_operand_neg": lambda jax, x: jax.vmap(lambda i: x[:, i])(
        np.array([-1, 0, 3], np.int32)
    ),
    "getitem_out_of_bounds": lambda jax, x: jax.vmap(lambda i: x[i])(np.array([5, -7, 1], np.int32)),
    "at_set_batched_idx": lambda jax, x: jax.vmap(lambda v, i: v.at[i].set(-1.0))(x, _IDX),
    "at_add_batched_value": lambda jax, x: jax.vmap(lambda c: x[0].at[np.array([1, 1])].add(c))(x[:, 0]),
    "at_set_in_axes1": lambda jax, x: jax.vmap(lambda v: v.at[0].set(9.0), in_axes=1, out_axes=1)(x),
    "at_min_batched": lambda jax, x: jax.vmap(lambda v, i: v.at[i].min(-5.0))(x, _IDX),
    "at_mul_repeated": lambda jax, x: jax.vmap(lambda v: v.at[np.array([0, 0, 2])].mul(2.0))(x),
    "at_get_fill": lambda jax, x: jax.vmap(lambda v, i: v.at[i + 3].get(mode="fill", fill_value=-1.0))(
        x, _IDX
    ),
    "at_set_drop": lambda jax, x: jax.vmap(lambda v, i: v.at[i * 3].set(0.0, mode="drop"))(x, _IDX),
    "at_set_clip": lambda jax, x: jax.vmap(lambda v, i: v.at[i * 3].set(0.0, mode="clip"))(x, _IDX),
    "at_set_2d_batched": lambda jax, x: jax.vmap(lambda v, i: v.at[i, 1].set(0.0), in_axes=(None, 0))(
        x, np.array([0, 2], np.int32)
    ),
    "sort_axis0": lambda jax, x: jax.vmap(lambda v: jax.numpy.sort(v, axis=0), in_axes=1)(x[::-1]),
    "sort_descending": lambda jax, x: jax.vmap(lambda v: jax.numpy.sort(v, descending=True))(x),
    "argsort_axis0_out1": lambda jax, x: jax.vmap(lambda v: jax.numpy.argsort(-v), in_axes=1, out_axes=1)(x),
    "argsort_ties_stable": lambda jax, x: jax.vmap(lambda v: jax.numpy.argsort(v // 4, stable=True))(x),
    "cumsum_axis_neg": lambda jax, x: jax.vmap(lambda v: jax.numpy.cumsum(v, axis=-1))(x),
    "cumsum_in_axes1": lambda jax, x: jax.vmap(lambda v: jax.numpy.cumsum(v), in_axes=1)(x),
    "cumprod_reverse_lax": lambda jax, x: jax.vmap(lambda v: jax.lax.cumprod(v + 1, reverse=True))(x),
    "cummax_axis0": lambda jax, x: jax.vmap(lambda v: jax.lax.cummax(v[::-1], axis=0))(x),
    "cumlogsumexp": lambda jax, x: jax.vmap(lambda v: jax.lax.cumlogsumexp(v), in_axes=1)(x),
    "top_k": lambda jax, x: jax.vmap(lambda v: jax.lax.top_k(v, 2))(x[:, ::-1]),
    "top_k_in_axes1": lambda jax, x: jax.vmap(lambda v: jax.lax.top_k(v, 3), in_axes=1)(x),
    "take_along_axis": lambda jax, x: jax.vmap(lambda v, i: jax.numpy.take_along_axis(v, i, axis=0))(
        x, np.array([[3, 0], [1, 1], [2, 3]], np.int32)
    ),
    "take_batched_idx": lambda jax, x: jax.vmap(lambda i: jax.numpy.take(x, i, axis=1))(_IDX),
    "searchsorted_batched_sorted": lambda jax, x: jax.vmap(lambda s: jax.numpy.searchsorted(s, 5.5))(x),
    "searchsorted_batched_query": lambda jax, x: jax.vmap(
        lambda q: jax.numpy.searchsorted(x[1], q, side="right")
    )(np.array([4.0, 5.0, 100.0], np.float32)),
    "dynamic_slice_batched": lambda jax, x: jax.vmap(lambda i: jax.lax.dynamic_slice(x, (i, 1), (2, 2)))(
        _IDX
    ),
    "dynamic_update_slice_batched": lambda jax, x: jax.vmap(
        lambda v, i: jax.lax.dynamic_update_slice(v, np.array([-1.0, -2.0], np.float32), (i,))
    )(x, _IDX),
    "roll_batched_shift": lambda jax, x: jax.vmap(lambda v, s: jax.numpy.roll(v, s))(x, _IDX),
    "argmax_keepdims": lambda jax, x: jax.vmap(lambda v: jax.numpy.argmax(v, keepdims=True), in_axes=1)(x),
    "where_one_arg": lambda jax, x: jax.vmap(lambda v: jax.numpy.where(v > 5, size=2, fill_value=-1))(x),
    "nonzero_size": lambda jax, x: jax.vmap(lambda v: jax.numpy.nonzero(v % 3 == 0, size=2))(x),
    "unique_size": lambda jax, x: jax.vmap(lambda v: jax.numpy.unique(v // 3, size=3, fill_value=0))(x),
    "psum_axis_name": lambda jax, x: jax.vmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(x),
    "pmax_axis_name_in_axes1": lambda jax, x: jax.vmap(
        lambda v: jax.lax.pmax(v, "i"), in_axes=1, axis_name="i"
    )(x),
    "axis_index": lambda jax, x: jax.vmap(lambda v: v * jax.lax.axis_index("i"), axis_name="i")(x),
    "all_gather": lambda jax, x: jax.vmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")(x[:, :2]),
    "pmean_nested": lambda jax, x: jax.vmap(
        jax.vmap(lambda v: jax.lax.pmean(v, ("i", "j")), axis_name="j"), axis_name="i"
    )(x),
    "cond_batched_pred": lambda jax, x: jax.vmap(
        lambda v: jax.lax.cond(v.sum() > 10, lambda u: u * 2, lambda u: -u, v)
    )(x),
    "scan_in_axes1": lambda jax, x: jax.vmap(
        lambda v: jax.lax.scan(lambda c, e: (c + e, c * e), 0.0, v), in_axes=1
    )(x),
    "while_batched_bound": lambda jax, x: jax.vmap(
        lambda n: jax.lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))
    )(np.array([0, 3, 5], np.int32)),
    "fori_batched": lambda jax, x: jax.vmap(lambda v: jax.lax.fori_loop(0, 3, lambda i, c: c + v[i], 0.0))(x),
    "grad_of_vmap_out_axes1": lambda jax, x: jax.grad(
        lambda m: jax.vmap(lambda v: v**2, out_axes=1)(m).sum()
    )(x),
    "vmap_of_grad_in_axes1": lambda jax, x: jax.vmap(jax.grad(lambda v: (v**3).sum()), in_axes=1, out_axes=1)(
        x
    ),
    "jacfwd_vmap": lambda jax, x: jax.vmap(jax.jacfwd(lambda v: jax.numpy.cumsum(v)))(x[:, :2]),
    "jacrev_out_axes": lambda jax, x: jax.vmap(jax.jacrev(lambda v: jax.numpy.sort(v)), out_axes=2)(x[:, :3]),
    "vmap_matmul_in_axes": lambda jax, x: jax.vmap(jax.numpy.matmul, in_axes=(1, None))(x, x.T),
    "vmap_einsum": lambda jax, x: jax.vmap(
        lambda a: jax.numpy.einsum("i,j->ij", a, a), in_axes=1, out_axes=-1
    )(x),
    "vmap_concatenate_unbatched": lambda jax, x: jax.vmap(lambda v: jax.numpy.concatenate([v, x[0]]))(x),
    "vmap_stack_axis1": lambda jax, x: jax.vmap(lambda v: jax.numpy.stack([v, v * 2], axis=1))(x),
    "vmap_reshape_order": lambda jax, x: jax.vmap(lambda v: v.reshape(2, 2, order="F"))(x),
    "vmap_transpose": lambda jax, x: jax.vmap(lambda v: v.reshape(2, 2).T.ravel())(x),
    "vmap_pad_batched_values": lambda jax, x: jax.vmap(lambda v, c: jax.numpy.pad(v, 1, constant_values=c))(
        x, x[:, 0]
    ),
    "vmap_diag": lambda jax, x: jax.vmap(jax.numpy.diag)(x),
    "vmap_tril_k": lambda jax, x: jax.vmap(lambda v: jax.numpy.tril(jax.numpy.outer(v, v), k=-1))(x),
    "vmap_bincount": lambda jax, x: jax.vmap(lambda v: jax.numpy.bincount(v.astype("int32") % 3, length=3))(
        x
    ),
    "vmap_histogram": lambda jax, x: jax.vmap(lambda v: jax.numpy.histogram(v, bins=2, range=(0.0, 12.0))[0])(
        x
    ),
    "vmap_interp": lambda jax, x: jax.vmap(lambda q: jax.numpy.interp(q, x[0], x[1]))(
        np.array([-1.0, 1.5, 9.0], np.float32)
    ),
    "vmap_clip_batched_bounds": lambda jax, x: jax.vmap(lambda v, lo: jax.numpy.clip(v, lo, 6.0))(x, x[:, 1]),
    "vmap_percentile": lambda jax, x: jax.vmap(lambda v: jax.numpy.percentile(v, 30.0, method="lower"))(x),
    "vmap_median_axis1": lambda jax, x: jax.vmap(lambda v: jax.numpy.median(v), in_axes=1)(x),
    "vmap_split": lambda jax, x: jax.vmap(lambda v: jax.numpy.split(v, 2))(x),
    "vmap_argwhere": lambda jax, x: jax.vmap(lambda v: jax.numpy.argwhere(v > 4, size=2, fill_value=9))(x),
    "vmap_scatter_apply": lambda jax, x: jax.vmap(lambda v: v.at[1].apply(jax.numpy.sin))(x),
    "vmap_segment_sum": lambda jax, x: jax.vmap(
        lambda v: jax.ops.segment_sum(v, np.array([0, 0, 2, 1]), num_segments=3)
    )(x),
    "vmap_segment_max_batched_ids": lambda jax, x: jax.vmap(
        lambda v, i: jax.ops.segment_max(v, i, num_segments=3)
    )(x, np.array([[0, 0, 1, 1], [2, 2, 2, 2], [0, 1, 1, 5]], np.int32)),
    "vmap_gather_3d": lambda jax, x: jax.vmap(lambda m, i: m[i, :, i], in_axes=(0, 0))(
        np.stack([_M3, _M3 + 1]), np.array([1, 0], np.int32)
    ),
    "vmap_at_set_3d_in_axes2": lambda jax, x: jax.vmap(lambda m: m.at[:, 1].set(0.0), in_axes=2, out_axes=2)(
        _M3
    ),
    "vmap_dot_general_out_neg": lambda jax, x: jax.vmap(lambda a, b: a @ b, in_axes=(0, 2), out_axes=-1)(
        _M3, np.swapaxes(_M3, 0, 2)
    ),
    "vmap_cumsum_3d": lambda jax, x: jax.vmap(lambda m: jax.numpy.cumsum(m, axis=0), in_axes=2)(_M3),
    "vmap_sort_3d_axis1": lambda jax, x: jax.vmap(
        lambda m: jax.numpy.sort(-m, axis=1), in_axes=1, out_axes=0
    )(_M3),
    "vmap_top_k_3d": lambda jax, x: jax.vmap(lambda m: jax.lax.top_k(m, 1)[1], in_axes=1)(_M3),
}
for _fn, _call in _V.items():
    _add(f"vmap.{_fn}", _call, _M)

# --- jnp keyword corners ---------------------------------------------------------------------
_W = np.array([[1.0, NAN, 3.0, -2.0], [4.0, 5.0, NAN, 0.5], [-1.0, 2.0, 2.0, 8.0]], np.float32)
_KW = {
    "sum_axis_tuple_keep": lambda j, x: j.sum(x, axis=(0, 1), keepdims=True),
    "sum_axis_neg_tuple": lambda j, x: j.sum(x, axis=(-1,)),
    "sum_dtype_int": lambda j, x: j.sum(j.nan_to_num(x), dtype=j.int32),
    "sum_dtype_f16": lambda j, x: j.sum(x, axis=1, dtype=j.float16),
    "mean_dtype_f16_keep": lambda j, x: j.mean(j.nan_to_num(x), axis=0, dtype=j.float16, keepdims=True),
    "prod_axis_none_keep": lambda j, x: j.prod(j.nan_to_num(x), keepdims=True),
    "max_axis_tuple": lambda j, x: j.max(j.nan_to_num(x), axis=(0, 1)),
    "max_initial_where": lambda j, x: j.max(x, axis=1, initial=0.0, where=~j.isnan(x)),
    "min_empty_initial": lambda j, x: j.min(x[:, :0], axis=1, initial=3.0),
    "var_ddof": lambda j, x: j.var(j.nan_to_num(x), ddof=1, axis=0),
    "var_ddof_too_big": lambda j, x: j.var(j.nan_to_num(x), ddof=3, axis=0),
    "std_ddof_keep": lambda j, x: j.std(j.nan_to_num(x), ddof=1, axis=1, keepdims=True),
    "var_correction": lambda j, x: j.var(j.nan_to_num(x), correction=1),
    "var_complex": lambda j, x: j.var(j.nan_to_num(x) * (1 + 1j)),
    "var_int_dtype": lambda j, x: j.var(j.arange(5), dtype=j.float16),
    "nanvar_ddof": lambda j, x: j.nanvar(x, ddof=1, axis=1),
    "nanstd_keep": lambda j, x: j.nanstd(x, axis=0, keepdims=True),
    "nanmean_axis_tuple": lambda j, x: j.nanmean(x, axis=(0, 1)),
    "nansum_dtype": lambda j, x: j.nansum(x, dtype=j.float16),
    "nanprod_axis": lambda j, x: j.nanprod(x, axis=0),
    "nanmax_keep": lambda j, x: j.nanmax(x, axis=1, keepdims=True),
    "nanmin_initial": lambda j, x: j.nanmin(x, initial=-5.0),
    "nanargmin_axis": lambda j, x: j.nanargmin(x, axis=1),
    "nanargmax_keepdims": lambda j, x: j.nanargmax(x, axis=0, keepdims=True),
    "nancumsum_axis": lambda j, x: j.nancumsum(x, axis=0),
    "nancumprod_none": lambda j, x: j.nancumprod(x),
    "nanmedian_axis": lambda j, x: j.nanmedian(x, axis=1),
    "nanmedian_keep": lambda j, x: j.nanmedian(x, axis=0, keepdims=True),
    "nanpercentile_q_array": lambda j, x: j.nanpercentile(
        x, np.array([0.0, 50.0, 100.0], np.float32), axis=1
    ),
    "nanquantile_method": lambda j, x: j.nanquantile(x, 0.3, axis=0, method="higher"),
    "median_axis_tuple": lambda j, x: j.median(j.nan_to_num(x), axis=(0, 1)),
    "median_nan": lambda j, x: j.median(x, axis=1),
    "cumsum_dtype": lambda j, x: j.cumsum(j.nan_to_num(x), axis=1, dtype=j.int32),
    "cumprod_axis_none": lambda j, x: j.cumprod(j.nan_to_num(x)),
    "cumulative_sum_include_initial": lambda j, x: j.cumulative_sum(
        j.nan_to_num(x), axis=1, include_initial=True
    ),
    "cumulative_prod": lambda j, x: j.cumulative_prod(j.nan_to_num(x), axis=0),
    "count_nonzero_axis_keep": lambda j, x: j.count_nonzero(x, axis=0, keepdims=True),
    "any_axis_tuple": lambda j, x: j.any(x > 4, axis=(0, 1), keepdims=True),
    "all_where": lambda j, x: j.all(x > 0, where=~j.isnan(x)),
    "average_axis_weights": lambda j, x: j.average(
        j.nan_to_num(x), axis=1, weights=np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    ),
    "average_returned": lambda j, x: j.average(j.nan_to_num(x), axis=0, returned=True),
    "average_keepdims": lambda j, x: j.average(j.nan_to_num(x), axis=1, keepdims=True),
    "ptp_axis_keep": lambda j, x: j.ptp(x, axis=1, keepdims=True),
    "argmax_keepdims_none": lambda j, x: j.argmax(j.nan_to_num(x), keepdims=True),
    "argmin_nan": lambda j, x: j.argmin(x, axis=1),
    # rounding
    "round_decimals_2": lambda j, x: j.round(x * 1.23456, 2),
    "round_decimals_neg": lambda j, x: j.round(x * 123.0, -2),
    "round_half_even": lambda j, x: j.round(np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)),
    "round_decimals_half": lambda j, x: j.round(np.array([0.25, 0.35, 1.005, -0.125], np.float32), 2),
    "round_int_decimals_pos": lambda j, x: j.round(np.array([15, -25], np.int32), 1),
    "round_int8_neg": lambda j, x: j.round(np.array([15, -25, 125], np.int8), -1),
    "round_complex": lambda j, x: j.round(np.array([1.25 + 2.35j], np.complex64), 1),
    "around_bf16": lambda j, x: j.around(j.asarray(x, j.bfloat16), 1),
    "round_big_float": lambda j, x: j.round(np.array([1e20, 3e38], np.float32), 2),
    "floor_int": lambda j, x: j.floor(np.array([3, -3], np.int32)),
    "ceil_bool": lambda j, x: j.ceil(np.array([True, False])),
    "trunc_neg": lambda j, x: j.trunc(-x),
    # take / take_along_axis modes
    "take_clip": lambda j, x: j.take(x, np.array([-1, 0, 20]), mode="clip"),
    "take_wrap": lambda j, x: j.take(x, np.array([-1, 0, 20]), mode="wrap"),
    "take_fill": lambda j, x: j.take(x, np.array([-1, 0, 20]), mode="fill"),
    "take_fill_value": lambda j, x: j.take(x, np.array([-13, 0, 12]), mode="fill", fill_value=-7.0),
    "take_default": lambda j, x: j.take(x, np.array([-1, 0, 20])),
    "take_axis_wrap": lambda j, x: j.take(x, np.array([-5, 4]), axis=1, mode="wrap"),
    "take_int_fill": lambda j, x: j.take(np.arange(4), np.array([5, -5, 1]), mode="fill"),
    "take_unique_sorted": lambda j, x: j.take(
        x, np.array([0, 2]), axis=0, unique_indices=True, indices_are_sorted=True
    ),
    "take_along_axis_fill": lambda j, x: j.take_along_axis(
        x, np.array([[0], [4], [-1]]), axis=1, mode="fill"
    ),
    "take_along_axis_clip": lambda j, x: j.take_along_axis(
        x, np.array([[0], [4], [-9]]), axis=1, mode="clip"
    ),
    "take_along_axis_default_oob": lambda j, x: j.take_along_axis(x, np.array([[0], [4], [-9]]), axis=1),
    "take_along_axis_none": lambda j, x: j.take_along_axis(x, np.array([0, 11, 5]), axis=None),
    "take_along_axis_bcast": lambda j, x: j.take_along_axis(x, np.array([[1, 0]]), axis=1),
    "take_along_axis_neg": lambda j, x: j.take_along_axis(x, np.array([[-1], [-2], [0]]), axis=-1),
    "put_mode_clip": lambda j, x: j.put(
        j.nan_to_num(x), np.array([0, 30]), np.array([9.0, 8.0], np.float32), mode="clip", inplace=False
    ),
    "put_mode_wrap": lambda j, x: j.put(j.nan_to_num(x), np.array([-1, 13]), 7.0, mode="wrap", inplace=False),
    "put_along_axis": lambda j, x: j.put_along_axis(
        j.nan_to_num(x), np.array([[0], [3], [1]]), -1.0, axis=1, inplace=False
    ),
    "choose_clip": lambda j, x: j.choose(np.array([0, 3, -1]), [np.arange(3.0), np.ones(3)], mode="clip"),
    "choose_wrap": lambda j, x: j.choose(np.array([0, 3, -1]), [np.arange(3.0), np.ones(3)], mode="wrap"),
    "compress_axis": lambda j, x: j.compress(np.array([True, False, True]), x, axis=0),
    "extract": lambda j, x: j.extract(j.nan_to_num(x) > 2, x, size=5, fill_value=-1),
    # pad modes
    "pad_reflect": lambda j, x: j.pad(j.nan_to_num(x), ((1, 2), (3, 0)), mode="reflect"),
    "pad_reflect_odd": lambda j, x: j.pad(j.arange(4.0), 5, mode="reflect", reflect_type="odd"),
    "pad_symmetric": lambda j, x: j.pad(j.arange(3.0), (4, 2), mode="symmetric"),
    "pad_symmetric_odd": lambda j, x: j.pad(j.arange(3.0), (2, 5), mode="symmetric", reflect_type="odd"),
    "pad_wrap_big": lambda j, x: j.pad(j.arange(3.0), (5, 7), mode="wrap"),
    "pad_edge": lambda j, x: j.pad(j.nan_to_num(x), ((0, 1), (2, 2)), mode="edge"),
    "pad_linear_ramp": lambda j, x: j.pad(j.arange(1.0, 4.0), (2, 3), mode="linear_ramp", end_values=(5, -1)),
    "pad_linear_ramp_int": lambda j, x: j.pad(j.arange(1, 4), 3, mode="linear_ramp"),
    "pad_maximum": lambda j, x: j.pad(j.nan_to_num(x), 1, mode="maximum"),
    "pad_minimum_stat_length": lambda j, x: j.pad(j.arange(5.0), 2, mode="minimum", stat_length=2),
    "pad_mean_int": lambda j, x: j.pad(j.arange(1, 5), (1, 2), mode="mean"),
    "pad_median": lambda j, x: j.pad(j.arange(5.0), 2, mode="median", stat_length=((1, 3),)),
    "pad_empty_mode": lambda j, x: j.pad(j.arange(3.0), 2, mode="empty").shape,
    "pad_constant_tuple": lambda j, x: j.pad(
        j.nan_to_num(x), ((1, 0), (0, 2)), constant_values=((1.5, 2.5), (-1, -2))
    ),
    "pad_constant_int_float": lambda j, x: j.pad(j.arange(3), 1, constant_values=2.7),
    "pad_callable": lambda j, x: j.pad(j.arange(3.0), 2, mode=lambda v, w, i, k: None),
    "pad_reflect_size1": lambda j, x: j.pad(j.array([5.0]), 3, mode="reflect"),
    "pad_negative_raises": lambda j, x: j.pad(j.arange(3.0), -1),
    "pad_dict_axis": lambda j, x: j.pad(j.nan_to_num(x), {1: (1, 1)}),
    # interp edges
    "interp_left_right": lambda j, x: j.interp(
        np.array([-5.0, 0.5, 10.0], np.float32),
        np.array([0.0, 1.0]),
        np.array([1.0, 3.0]),
        left=-1.0,
        right=NAN,
    ),
    "interp_period": lambda j, x: j.interp(
        np.array([-1.0, 370.0, 180.0], np.float32),
        np.array([0.0, 90.0, 270.0]),
        np.array([0.0, 1.0, 2.0]),
        period=360,
    ),
    "interp_repeated_xp": lambda j, x: j.interp(
        np.array([1.0, 1.5], np.float32), np.array([0.0, 1.0, 1.0, 2.0]), np.array([0.0, 1.0, 5.0, 6.0])
    ),
    "interp_complex_fp": lambda j, x: j.interp(
        np.array([0.5], np.float32), np.array([0.0, 1.0]), np.array([1j, 2.0])
    ),
    "interp_int": lambda j, x: j.interp(np.array([1, 3]), np.array([0, 2, 4]), np.array([0, 10, 20])),
    "interp_inf_x": lambda j, x: j.interp(
        np.array([INF, -INF, NAN], np.float32), np.array([0.0, 1.0]), np.array([1.0, 3.0])
    ),
    "interp_single_point": lambda j, x: j.interp(
        np.array([-1.0, 0.0, 1.0], np.float32), np.array([0.0]), np.array([7.0])
    ),
    # searchsorted
    "searchsorted_left": lambda j, x: j.searchsorted(
        np.array([1.0, 2.0, 2.0, 3.0], np.float32), np.array([0.0, 2.0, 2.5, 5.0, NAN], np.float32)
    ),
    "searchsorted_right": lambda j, x: j.searchsorted(
        np.array([1.0, 2.0, 2.0, 3.0], np.float32),
        np.array([0.0, 2.0, 2.5, 5.0, NAN], np.float32),
        side="right",
    ),
    "searchsorted_nan_in_a": lambda j, x: j.searchsorted(
        np.array([1.0, 2.0, NAN], np.float32), np.array([NAN, 3.0], np.float32)
    ),
    "searchsorted_sorter": lambda j, x: j.searchsorted(
        np.array([3.0, 1.0, 2.0], np.float32), np.array([2.0, 2.5]), sorter=np.array([1, 2, 0])
    ),
    "searchsorted_int_float_query": lambda j, x: j.searchsorted(np.array([1, 2, 3]), np.array([1.5, 2.0])),
    "searchsorted_empty": lambda j, x: j.searchsorted(np.zeros((0,), np.float32), np.array([1.0])),
    "searchsorted_2d_query": lambda j, x: j.searchsorted(
        np.array([1.0, 2.0, 3.0]), np.array([[0.0, 2.0], [3.0, 4.0]]), side="right"
    ),
    "searchsorted_signed_zero": lambda j, x: j.searchsorted(
        np.array([-0.0, 0.0, 1.0], np.float32), np.array([0.0, -0.0], np.float32)
    ),
    "searchsorted_scalar_query": lambda j, x: j.searchsorted(np.array([1.0, 2.0]), 1.5),
    "digitize_right": lambda j, x: j.digitize(
        np.array([1.0, 2.0, 3.5]), np.array([1.0, 2.0, 3.0]), right=True
    ),
    "digitize_decreasing": lambda j, x: j.digitize(np.array([1.0, 2.0, 3.5]), np.array([3.0, 2.0, 1.0])),
    # histogram
    "histogram_bins_array": lambda j, x: j.histogram(
        np.array([0.0, 1.0, 1.0, 2.0, 5.0]), bins=np.array([0.0, 1.0, 2.0, 3.0])
    ),
    "histogram_density": lambda j, x: j.histogram(np.array([0.0, 1.0, 1.0, 2.0, 5.0]), bins=3, density=True),
    "histogram_weights": lambda j, x: j.histogram(
        np.array([0.0, 1.0, 1.0, 2.0]), bins=2, weights=np.array([1.0, 2.0, 3.0, 4.0])
    ),
    "histogram_range_outside": lambda j, x: j.histogram(
        np.array([-1.0, 0.5, 1.0, 3.0]), bins=2, range=(0.0, 1.0)
    ),
    "histogram_const": lambda j, x: j.histogram(np.array([2.0, 2.0, 2.0]), bins=4),
    "histogram_int": lambda j, x: j.histogram(np.array([1, 2, 2, 3, 9]), bins=4),
    "histogram_bin_edges": lambda j, x: j.histogram_bin_edges(np.array([1.0, 7.0]), bins=3),
    "histogram2d": lambda j, x: j.histogram2d(np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.0, 2.0]), bins=2),
    "histogramdd": lambda j, x: j.histogramdd(np.array([[0.0, 1.0], [2.0, 2.0], [1.0, 0.0]]), bins=2),
    "histogram_nan_raises_or": lambda j, x: j.histogram(np.array([1.0, NAN, 2.0]), bins=2, range=(0.0, 3.0)),
    # percentile / quantile methods
    **{
        f"percentile_{m}": (
            lambda j, x, m=m: j.percentile(
                j.arange(5.0), np.array([0.0, 10.0, 37.5, 50.0, 100.0], np.float32), method=m
            )
        )
        for m in (
            "linear",
            "lower",
            "higher",
            "nearest",
            "midpoint",
            "inverted_cdf",
            "averaged_inverted_cdf",
            "closest_observation",
            "interpolated_inverted_cdf",
            "hazen",
            "weibull",
            "median_unbiased",
            "normal_unbiased",
        )
    },
    "quantile_axis_tuple": lambda j, x: j.quantile(j.nan_to_num(x), 0.25, axis=(0, 1)),
    "quantile_keepdims": lambda j, x: j.quantile(
        j.nan_to_num(x), np.array([0.1, 0.9]), axis=1, keepdims=True
    ),
    "quantile_q_out_of_range": lambda j, x: j.quantile(j.arange(4.0), 1.5),
    "quantile_int": lambda j, x: j.quantile(j.arange(5), 0.3),
    "quantile_int_nearest": lambda j, x: j.quantile(j.arange(5), 0.3, method="nearest"),
    "percentile_nan": lambda j, x: j.percentile(x, 50.0, axis=1),
    "nanpercentile_lower": lambda j, x: j.nanpercentile(x, 40.0, axis=1, method="lower"),
    "quantile_2d_q": lambda j, x: j.quantile(j.arange(5.0), np.array([[0.1], [0.9]])),
    "percentile_bf16": lambda j, x: j.percentile(j.arange(5.0, dtype=j.bfloat16), 30.0),
    "quantile_weights": lambda j, x: j.quantile(
        j.arange(4.0), 0.5, method="inverted_cdf", weights=np.array([1.0, 0.0, 1.0, 2.0])
    ),
    # dtype= corners of creation / conversion
    "arange_dtype_f16": lambda j, x: j.arange(0, 1, 0.25, dtype=j.float16),
    "linspace_int_dtype": lambda j, x: j.linspace(0, 10, 4, dtype=j.int32),
    "linspace_endpoint_false": lambda j, x: j.linspace(0.0, 1.0, 4, endpoint=False, retstep=True),
    "linspace_num1": lambda j, x: j.linspace(2.0, 5.0, 1),
    "logspace_base": lambda j, x: j.logspace(0, 3, 4, base=2.0),
    "geomspace_neg": lambda j, x: j.geomspace(-1.0, -1000.0, 4),
    "eye_k_dtype": lambda j, x: j.eye(3, 4, k=-1, dtype=j.int8),
    "full_like_dtype": lambda j, x: j.full_like(x, 2.7, dtype=j.int32),
    "zeros_like_shape": lambda j, x: j.zeros_like(x, shape=(2,)),
    "asarray_copy_dtype": lambda j, x: j.asarray(np.array([1.7, -1.7]), dtype=j.int8),
    "astype_bool": lambda j, x: x.astype(bool),
    "astype_uint8_neg": lambda j, x: j.array([-1.0, 256.5, 3.9]).astype(j.uint8),
    "diff_n2_prepend": lambda j, x: j.diff(j.nan_to_num(x), n=2, axis=1, prepend=0.0),
    "diff_n0": lambda j, x: j.diff(x, n=0),
    "gradient_spacing": lambda j, x: j.gradient(j.arange(5.0) ** 2, 2.0),
    "gradient_edge_order2": lambda j, x: j.gradient(j.arange(5.0) ** 2, edge_order=2),
    "gradient_axis": lambda j, x: j.gradient(j.nan_to_num(x), axis=1),
    "trapezoid_dx": lambda j, x: j.trapezoid(j.arange(4.0), dx=0.5),
    "unique_counts": lambda j, x: j.unique(
        np.array([3, 1, 3, 2, 1]), return_counts=True, return_index=True, return_inverse=True
    ),
    "unique_nan": lambda j, x: j.unique(np.array([NAN, 1.0, NAN])),
    "unique_equal_nan_false": lambda j, x: j.unique(np.array([NAN, 1.0, NAN]), equal_nan=False),
    "unique_axis": lambda j, x: j.unique(np.array([[1, 2], [1, 2], [0, 5]]), axis=0),
    "sort_nan_descending": lambda j, x: j.sort(x, axis=1, descending=True),
    "argsort_nan": lambda j, x: j.argsort(x, axis=None),
    "lexsort": lambda j, x: j.lexsort((np.array([1, 0, 1]), np.array([2, 2, 1]))),
    "partition": lambda j, x: j.partition(np.array([5.0, 1.0, 4.0, 2.0]), 2)[2],
    "argpartition_kth": lambda j, x: j.sort(j.argpartition(np.array([5.0, 1.0, 4.0, 2.0]), 1)[:2]),
    "sort_complex_nan": lambda j, x: j.sort_complex(np.array([1 + 1j, NAN, 1 - 1j], np.complex64)),
    "isclose_nan": lambda j, x: j.isclose(x, x, equal_nan=True),
    "allclose_inf": lambda j, x: j.allclose(np.array([INF, 1.0]), np.array([INF, 1.0 + 1e-9])),
    "array_equal_nan": lambda j, x: j.array_equal(x, x, equal_nan=True),
    "clip_nan_bounds": lambda j, x: j.clip(x, NAN, 2.0),
    "clip_lo_gt_hi": lambda j, x: j.clip(x, 3.0, 1.0),
    "nan_to_num_kw": lambda j, x: j.nan_to_num(x * INF, nan=-1.0, posinf=9.0, neginf=-9.0),
    "cov_ddof_aweights": lambda j, x: j.cov(
        np.array([[1.0, 2.0, 4.0], [0.0, 1.0, 0.5]]), aweights=np.array([1.0, 2.0, 1.0]), ddof=0
    ),
    "corrcoef_rowvar_false": lambda j, x: j.corrcoef(
        np.array([[1.0, 2.0], [2.0, 1.0], [4.0, 0.0]]), rowvar=False
    ),
    "correlate_modes": lambda j, x: [
        j.correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0]), mode=m)
        for m in ("valid", "same", "full")
    ],
    "convolve_same_even": lambda j, x: j.convolve(
        np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 1.0]), mode="same"
    ),
    "tensordot_axes_int": lambda j, x: j.tensordot(j.nan_to_num(x), j.nan_to_num(x).T, axes=1),
    "einsum_ellipsis": lambda j, x: j.einsum("...i,...i->...", j.nan_to_num(x), j.nan_to_num(x)),
    "einsum_repeated_index_diag": lambda j, x: j.einsum("ii->i", j.nan_to_num(x)[:, :3]),
    "inner_scalar": lambda j, x: j.inner(2.0, j.arange(3.0)),
    "vdot_complex": lambda j, x: j.vdot(np.array([1j, 2.0]), np.array([1j, 1.0])),
    "polyval_int": lambda j, x: j.polyval(np.array([1, 2, 3]), np.array([0.5, 2.0])),
    "polyfit_deg1": lambda j, x: j.polyfit(np.arange(4.0), np.array([1.0, 3.0, 5.0, 7.0]), 1),
    "roots_leading_zero": lambda j, x: j.sort(j.roots(np.array([0.0, 1.0, -3.0, 2.0])).real),
    "bincount_weights_minlength": lambda j, x: j.bincount(
        np.array([0, 2, 2]), weights=np.array([0.5, 1.0, 2.0]), minlength=5
    ),
    "bincount_length_smaller": lambda j, x: j.bincount(np.array([0, 2, 5]), length=3),
    "repeat_array_repeats": lambda j, x: j.repeat(
        np.array([1, 2, 3]), np.array([0, 2, 1]), total_repeat_length=3
    ),
    "repeat_total_short": lambda j, x: j.repeat(np.array([1, 2, 3]), 2, total_repeat_length=4),
    "tile_zero": lambda j, x: j.tile(np.array([1, 2]), (2, 0)),
    "roll_axis_tuple": lambda j, x: j.roll(x, (1, -1), axis=(0, 1)),
    "roll_none_axis": lambda j, x: j.roll(x, 5),
    "rot90_k_neg": lambda j, x: j.rot90(x, k=-1, axes=(1, 0)),
    "flip_axis_tuple": lambda j, x: j.flip(x, axis=(0, 1)),
    "moveaxis_multi": lambda j, x: j.moveaxis(j.zeros((2, 3, 4)), (0, 1), (-1, 0)).shape,
    "squeeze_axis_raises": lambda j, x: j.squeeze(x, axis=0),
    "expand_dims_tuple": lambda j, x: j.expand_dims(x, (0, -1)).shape,
    "swapaxes_neg": lambda j, x: j.swapaxes(x, -1, -2),
    "split_indices": lambda j, x: j.split(j.arange(6), [2, 10]),
    "array_split_uneven": lambda j, x: j.array_split(j.arange(7), 3),
    "triu_indices_k": lambda j, x: j.triu_indices(3, k=1, m=4),
    "tril_indices_from": lambda j, x: j.tril_indices_from(x, k=-1),
    "diag_indices_ndim": lambda j, x: j.diag_indices(2, ndim=3),
    "fill_diagonal_wrap": lambda j, x: j.fill_diagonal(j.zeros((5, 2)), 1.0, wrap=True, inplace=False),
    "indices_sparse": lambda j, x: j.indices((2, 3), sparse=True),
    "meshgrid_ij": lambda j, x: j.meshgrid(j.arange(2), j.arange(3), indexing="ij"),
    "ravel_multi_index_clip": lambda j, x: j.ravel_multi_index(
        (np.array([0, 5]), np.array([1, -1])), (3, 4), mode="clip"
    ),
    "ravel_multi_index_wrap": lambda j, x: j.ravel_multi_index(
        (np.array([0, 5]), np.array([1, -1])), (3, 4), mode="wrap"
    ),
    "unravel_index_oob": lambda j, x: j.unravel_index(np.array([3, 12, -1]), (3, 4)),
    "where_scalar_branches": lambda j, x: j.where(j.isnan(x), 0, 1),
    "select_default_weak": lambda j, x: j.select([x > 3], [x], default=0),
    "cumsum_bool": lambda j, x: j.cumsum(x > 2, axis=1),
    "cumsum_uint8_overflow": lambda j, x: j.cumsum(j.full(3, 200, j.uint8)),
    "cumsum_uint8_dtype_none": lambda j, x: j.cumsum(j.full(3, 200, j.uint8), dtype=j.uint8),
    "sum_bool_axis_dtype": lambda j, x: j.sum(x > 2, axis=0, dtype=j.int8),
    "sum_promote_integers_false": lambda j, x: j.sum(j.full(3, 100, j.int8), promote_integers=False),
    "sum_uint8_promote": lambda j, x: j.sum(j.full(3, 100, j.uint8)),
    "prod_uint16": lambda j, x: j.prod(j.full(3, 100, j.uint16)),
    "max_uint8_empty_initial": lambda j, x: j.max(j.zeros((0,), j.uint8), initial=7),
    "logaddexp_inf": lambda j, x: j.logaddexp(
        np.array([INF, -INF, INF], np.float32), np.array([INF, -INF, -INF], np.float32)
    ),
    "logaddexp2_neg_inf": lambda j, x: j.logaddexp2(
        np.array([-INF], np.float32), np.array([-INF], np.float32)
    ),
    "trim_zeros": lambda j, x: j.trim_zeros(np.array([0, 0, 1, 0, 2, 0]), trim="b"),
    "fmax_nan": lambda j, x: j.fmax(x, NAN),
    "nextafter_inf": lambda j, x: j.nextafter(
        np.array([INF, 0.0], np.float32), np.array([0.0, -1.0], np.float32)
    ),
    "heaviside_nan": lambda j, x: j.heaviside(x, 0.5),
    "float_power_neg_int": lambda j, x: j.float_power(np.array([2, -2]), -1),
    "cbrt_inf": lambda j, x: j.cbrt(np.array([-INF, -8.0, -0.0], np.float32)),
    "sign_nan_zero": lambda j, x: j.sign(np.array([NAN, -0.0, 0.0], np.float32)),
    "signbit_nan": lambda j, x: j.signbit(np.array([-NAN, NAN, -0.0], np.float32)),
    "copysign_int": lambda j, x: j.copysign(np.array([1, 2]), np.array([-0.0, 1.0])),
    "ldexp_neg_big": lambda j, x: j.ldexp(np.float32(1.0), np.array([-150, -149, 128])),
    "frexp_denormal": lambda j, x: j.frexp(np.array([1e-40, 0.0, -3.0], np.float32)),
    "mod_neg_zero": lambda j, x: j.mod(
        np.array([-0.0, 0.0, -6.0], np.float32), np.array([3.0, -3.0, 3.0], np.float32)
    ),
    "divmod_float_neg": lambda j, x: j.divmod(
        np.array([-7.5, 7.5], np.float32), np.array([2.0, -2.0], np.float32)
    ),
    "power_int_zero_neg": lambda j, x: j.power(
        np.array([0, 1, -1], np.int32), np.array([0, -3, -3], np.int32)
    ),
    "arctan2_zeros": lambda j, x: j.arctan2(
        np.array([0.0, -0.0, 0.0, -0.0], np.float32), np.array([0.0, 0.0, -0.0, -0.0], np.float32)
    ),
    "hypot_big": lambda j, x: j.hypot(np.float32(3e38), np.float32(3e38)),
    "expm1_small": lambda j, x: j.expm1(np.array([1e-10, -1e-10], np.float32)),
    "log1p_neg1": lambda j, x: j.log1p(np.array([-1.0, -1.5], np.float32)),
    "sqrt_neg_zero": lambda j, x: j.sqrt(np.array([-0.0], np.float32)),
    "exp_f16_overflow": lambda j, x: j.exp(np.array([12.0], np.float16)),
    "tanh_big": lambda j, x: j.tanh(np.array([100.0, -100.0], np.float32)),
    "arccosh_lt1": lambda j, x: j.arccosh(np.array([0.5, 1.0], np.float32)),
    "i0_neg": lambda j, x: j.i0(np.array([-3.0, 0.0], np.float32)),
    "sinc_inf": lambda j, x: j.sinc(np.array([INF], np.float32)),
}
for _fn, _call in _KW.items():
    _add(f"kw.{_fn}", lambda jax, x, c=_call: c(jax.numpy, x), _W)
