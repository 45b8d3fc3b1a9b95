"""The sweep's second half: API that takes more than one array argument set (jax.scipy.special and
jax.scipy.stats beyond the unary functions, jnp.linalg.eig, jax.scipy.linalg/signal/optimize,
sparse.linalg solvers, custom_batching), the transformations users stack on them (grad, vmap, jit
of grad), and control-flow / AD programs (scan under grad, while_loop under vmap, cond under grad,
remat, custom_vjp under vmap, pmap collectives).

Each case is ``make(jax) -> (fun, args)``, written against whichever ``jax`` runs it (JAX 0.10.2
when recording, the engine through ``engine.compat`` when testing). A transformed case
``grad(NAME)``, ``vmap(NAME)`` or ``jit_grad(NAME)`` differentiates the sum of the first output
with respect to the first argument, or maps over a stacked first argument.
"""

from __future__ import annotations

import numpy as np


def _f32(*shape, seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def _pos(*shape, seed=0):
    return (np.abs(_f32(*shape, seed=seed)) + 0.5).astype(np.float32)


def _unit(*shape, seed=0):
    return np.tanh(_f32(*shape, seed=seed)).astype(np.float32)


def _prob(*shape, seed=0):
    return (0.5 + 0.4 * _unit(*shape, seed=seed)).astype(np.float32)


def _c64(*shape, seed=0):
    return (_f32(*shape, seed=seed) + 1j * _f32(*shape, seed=seed + 1)).astype(np.complex64)


def _spd(n, seed=3):
    a = _f32(n, n, seed=seed)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


def _f(path):
    """``make`` of a function at ``jax.<path>`` called on fixed args and kwargs."""

    def bind(args, **kwargs):
        def make(jax):
            fn = resolve(jax, path)
            return (lambda *a: fn(*a, **kwargs)), args()

        return make

    return bind


CASES: dict = {}
# The cases whose grad / vmap / jit-of-grad are swept too (JAX's own rejections are recorded as
# errors and not compared).
TRANSFORMED: list[str] = []


def _add(name, make, transformed=False):
    CASES[name] = make
    if transformed:
        TRANSFORMED.append(name)


# --- jax.scipy.special: the functions added with the erf/expint/hypergeometric families, the
# binary ones, and the common unary ones under transformations ---------------------------------
_sp = "scipy.special."
_add(
    "special.wofz[complex]",
    _f(_sp + "wofz")(lambda: (np.array([0.5 + 0.3j, -1 + 2j, 0.1 - 0.2j], np.complex64),)),
)
_add("special.expn[int_n]", _f(_sp + "expn")(lambda: (np.array([0, 1, 3], np.int32), _pos(3))))
_add("special.hyp1f1[f32]", _f(_sp + "hyp1f1")(lambda: (_pos(3), _pos(3, seed=1) + 1, _unit(3))), True)
_add(
    "special.hyp2f1[f32]",
    _f(_sp + "hyp2f1")(lambda: (_pos(3), _pos(3, seed=1), _pos(3, seed=2) + 1, 0.5 * _unit(3))),
)
_add("special.bernoulli[5]", lambda jax: ((lambda: jax.scipy.special.bernoulli(5)), ()))
_add("special.bessel_jn[v2]", _f(_sp + "bessel_jn")(lambda: (_pos(3),), v=2))
_add(
    "special.sph_harm_y[n_max3]",
    _f(_sp + "sph_harm_y")(
        lambda: (np.array([1, 2, 3], np.int32), np.array([0, 1, -1], np.int32), _pos(3), _unit(3)), n_max=3
    ),
)
for _name in "xlogy xlog1py rel_entr kl_div gammainc gammaincc beta betaln boxcox boxcox1p poch zeta".split():
    _add(f"special.{_name}[f32]", _f(_sp + _name)(lambda: (_pos(3), _pos(3, seed=1))), True)
_add(
    "special.polygamma[f32]", _f(_sp + "polygamma")(lambda: (np.array([0.0, 1.0, 2.0], np.float32), _pos(3)))
)
_add("special.betainc[f32]", _f(_sp + "betainc")(lambda: (_pos(3), _pos(3, seed=1), _prob(3))), True)
_add(
    "special.multigammaln[d3]", lambda jax: ((lambda a: jax.scipy.special.multigammaln(a, 3)), (_pos(3) + 2,))
)
_add("special.factorial[f32]", _f(_sp + "factorial")(lambda: (np.array([0.0, 3.0, 4.5], np.float32),)))
_add(
    "special.comb[f32]",
    _f(_sp + "comb")(lambda: (np.array([5.0, 6.0, 7.0], np.float32), np.array([2.0, 3.0, 1.0], np.float32))),
)
for _name in """erf erfc erfinv gammaln digamma ndtr ndtri log_ndtr entr gamma expit logit erfcx dawsn
exp1 expi spence i0 i0e i1 i1e""".split():
    _arg = _prob if _name in ("ndtri", "logit", "erfinv") else _pos
    _add(f"special.{_name}[vec]", _f(_sp + _name)(lambda _arg=_arg: (_arg(3),)), True)

# --- jax.scipy.stats ------------------------------------------------------------------------------
_st = "scipy.stats."
_STATS = {
    "betabinom.logpmf": lambda: (
        np.array([1.0, 3.0, 5.0], np.float32),
        10.0,
        _pos(3) + 1,
        _pos(3, seed=1) + 1,
    ),
    "gennorm.logpdf": lambda: (_unit(3), _pos(3)),
    "gennorm.cdf": lambda: (_unit(3), _pos(3)),
    "geom.logpmf": lambda: (np.array([1.0, 2.0, 4.0], np.float32), _prob(3)),
    "gumbel_l.logpdf": lambda: (_unit(3),),
    "gumbel_r.logpdf": lambda: (_unit(3),),
    "gumbel_r.cdf": lambda: (_unit(3),),
    "gumbel_l.ppf": lambda: (_prob(3),),
    "multinomial.logpmf": lambda: (
        np.array([1.0, 2.0, 1.0], np.float32),
        4.0,
        np.array([0.2, 0.3, 0.5], np.float32),
    ),
    "nbinom.logpmf": lambda: (np.array([1.0, 2.0, 4.0], np.float32), _pos(3) + 1, _prob(3)),
    "pareto.logpdf": lambda: (_pos(3) + 1, _pos(3, seed=1)),
    "truncnorm.logpdf": lambda: (_unit(3), -1.0, 2.0),
    "truncnorm.cdf": lambda: (_unit(3), -1.0, 2.0),
    "vonmises.logpdf": lambda: (_unit(3), _pos(3)),
    "wrapcauchy.logpdf": lambda: (_pos(3), _prob(3)),
    "norm.logpdf": lambda: (_f32(3),),
    "norm.cdf": lambda: (_f32(3),),
    "norm.logcdf": lambda: (_f32(3),),
    "norm.ppf": lambda: (_prob(3),),
    "t.logpdf": lambda: (_f32(3), 3.0),
    "beta.logpdf": lambda: (_prob(3), 2.0, 3.0),
    "gamma.logpdf": lambda: (_pos(3), 2.0),
    "poisson.logpmf": lambda: (np.array([0.0, 2.0, 5.0], np.float32), _pos(3)),
    "bernoulli.logpmf": lambda: (np.array([0.0, 1.0, 1.0], np.float32), _prob(3)),
    "binom.logpmf": lambda: (np.array([0.0, 2.0, 5.0], np.float32), 6.0, _prob(3)),
    "logistic.logpdf": lambda: (_f32(3),),
    "laplace.logpdf": lambda: (_f32(3),),
    "cauchy.logpdf": lambda: (_f32(3),),
    "uniform.logpdf": lambda: (_prob(3),),
    "expon.logpdf": lambda: (_pos(3),),
    "chi2.logpdf": lambda: (_pos(3), 3.0),
    "multivariate_normal.logpdf": lambda: (_f32(3), np.zeros(3, np.float32), _spd(3)),
    "dirichlet.logpdf": lambda: (np.array([0.2, 0.3, 0.5], np.float32), _pos(3)),
}
for _name, _args in _STATS.items():
    _add(f"stats.{_name}[f32]", _f(_st + _name)(_args), True)
_add(
    "stats.gaussian_kde.logpdf[f32]",
    lambda jax: ((lambda d, x: jax.scipy.stats.gaussian_kde(d).logpdf(x)), (_f32(8), _f32(3, seed=1))),
)
_add("stats.mode[f32]", _f(_st + "mode")(lambda: (np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 1.0]], np.float32),)))
_add("stats.rankdata[f32]", _f(_st + "rankdata")(lambda: (_f32(5),)))
_add("stats.sem[f32]", _f(_st + "sem")(lambda: (_f32(2, 3),)), True)

# --- linear algebra ------------------------------------------------------------------------------
_NONSYM = lambda: (_f32(3, 3, seed=5),)  # noqa: E731
_add("linalg.eig[f32]", _f("numpy.linalg.eig")(_NONSYM))
_add("linalg.eigvals[f32]", _f("numpy.linalg.eigvals")(_NONSYM))
_add(
    "jnp.roots[f32]", _f("numpy.roots")(lambda: (np.array([1.0, -3.0, 2.0], np.float32),), strip_zeros=False)
)
for _name in "det inv slogdet cholesky eigh eigvalsh svd qr pinv norm matrix_power".split():
    _kw = {"n": 3} if _name == "matrix_power" else {}
    _add(f"linalg.{_name}[spd]", _f("numpy.linalg." + _name)(lambda: (_spd(3),), **_kw), True)
_add("linalg.solve[spd]", _f("numpy.linalg.solve")(lambda: (_spd(3), _f32(3, seed=1))), True)
# searchsorted's methods (a scan of total-order comparisons by default) and digitize over them
_sorted = lambda: (np.array([-1.0, -0.0, 0.5, 0.5, 2.0], np.float32), _f32(2, 3, seed=1))  # noqa: E731
for _method in ("scan", "compare_all", "sort"):
    _add(f"jnp.searchsorted[{_method}]", _f("numpy.searchsorted")(_sorted, side="right", method=_method))
_add(
    "jnp.searchsorted[sorter]",
    lambda jax: (
        (lambda a, v, s: jax.numpy.searchsorted(a, v, sorter=s)),
        (_f32(5), np.float32(0.1), np.arange(5)),
    ),
)
_add("jnp.digitize[f32]", lambda jax: ((lambda x, b: jax.numpy.digitize(x, b)), _sorted()[::-1]))
_sl = "scipy.linalg."
_add("scipy.linalg.schur[f32]", _f(_sl + "schur")(_NONSYM))
_add("scipy.linalg.hessenberg[f32]", _f(_sl + "hessenberg")(_NONSYM))
_add("scipy.linalg.hessenberg[calc_q]", _f(_sl + "hessenberg")(_NONSYM, calc_q=True))
_add("scipy.linalg.sqrtm[spd]", _f(_sl + "sqrtm")(lambda: (_spd(3),)))
_add("scipy.linalg.polar[f32]", _f(_sl + "polar")(_NONSYM))
_add(
    "scipy.linalg.funm[exp]",
    lambda jax: ((lambda a: jax.scipy.linalg.funm(a, jax.numpy.exp)), (_spd(3) / 4,)),
)
_add(
    "scipy.linalg.solve_sylvester[f32]",
    _f(_sl + "solve_sylvester")(lambda: (_spd(3), _spd(2, seed=4), _f32(3, 2, seed=6))),
)
_add(
    "scipy.linalg.expm_frechet[f32]",
    _f(_sl + "expm_frechet")(lambda: (_f32(3, 3, seed=5) / 3, _f32(3, 3, seed=6))),
)
_add("scipy.linalg.expm[f32]", _f(_sl + "expm")(lambda: (_f32(3, 3, seed=5) / 3,)), True)
_add(
    "scipy.linalg.cho_solve[spd]",
    lambda jax: (
        (lambda a, b: jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(a), b)),
        (_spd(3), _f32(3, seed=1)),
    ),
    True,
)
_add(
    "scipy.linalg.solve_triangular[f32]",
    _f(_sl + "solve_triangular")(lambda: (np.tril(_spd(3)), _f32(3, seed=1)), lower=True),
    True,
)
_add("scipy.linalg.lu_factor[f32]", _f(_sl + "lu_factor")(_NONSYM))

# --- signal, optimize, sparse solvers, custom_batching ----------------------------------------
_add("scipy.signal.stft[f32]", _f("scipy.signal.stft")(lambda: (_f32(32),), nperseg=8))
_add("scipy.signal.welch[f32]", _f("scipy.signal.welch")(lambda: (_f32(32),), nperseg=8))
_add("scipy.signal.istft[c64]", _f("scipy.signal.istft")(lambda: (_c64(5, 9),), nperseg=8))


# --- jnp.fft: the real transforms stage fft_p's RFFT / IRFFT types (and their transposes) ------
def _fft_real(path):
    """``make`` of a transform whose output is weighted by ``1+2j`` and made real (so that grad of
    the sum reaches the real and imaginary parts through the transpose)."""

    def bind(args, **kwargs):
        def make(jax):
            fn = resolve(jax, path)
            return (lambda *a: jax.numpy.real(fn(*a, **kwargs) * (1 + 2j))), args()

        return make

    return bind


_add("numpy.fft.rfft[f32]", _f("numpy.fft.rfft")(lambda: (_f32(2, 6),)))
_add("numpy.fft.rfft[real]", _fft_real("numpy.fft.rfft")(lambda: (_f32(2, 6),)), True)
_add(
    "numpy.fft.rfft[n_axis_ortho]",
    _fft_real("numpy.fft.rfft")(lambda: (_f32(5, 3),), n=7, axis=0, norm="ortho"),
    True,
)
_add("numpy.fft.irfft[c64]", _f("numpy.fft.irfft")(lambda: (_c64(2, 4),)), True)
_add("numpy.fft.irfft[n_odd]", _f("numpy.fft.irfft")(lambda: (_c64(2, 4),), n=5, norm="forward"), True)
_add("numpy.fft.rfftn[real]", _fft_real("numpy.fft.rfftn")(lambda: (_f32(3, 4),)), True)
_add("numpy.fft.irfftn[s]", _f("numpy.fft.irfftn")(lambda: (_c64(3, 4),), s=(2, 5)), True)
_add("numpy.fft.fft[real]", _fft_real("numpy.fft.fft")(lambda: (_f32(2, 6),)), True)
_add("numpy.abs[c64]", _f("numpy.abs")(lambda: (_c64(2, 3),)), True)  # (complex abs: its own JVP)
_add("numpy.fft.hfft[c64]", _f("numpy.fft.hfft")(lambda: (_c64(4),)))
_add("numpy.fft.ihfft[f32]", _f("numpy.fft.ihfft")(lambda: (_f32(6),)))
_add("numpy.fft.rfftfreq[8]", lambda jax: ((lambda x: jax.numpy.fft.rfftfreq(8, 0.5) * x), (np.float32(2),)))
_add("numpy.fft.fftfreq[7]", lambda jax: ((lambda x: jax.numpy.fft.fftfreq(7) * x), (np.float32(2),)))


def _minimize(method):
    def make(jax):
        jnp = jax.numpy
        w = np.array([1.0, 2.0, 3.0], np.float32)
        loss = lambda x: jnp.sum(w * (x - 1.0) ** 2)  # noqa: E731
        return (lambda x0: jax.scipy.optimize.minimize(loss, x0, method=method).x), (np.zeros(3, np.float32),)

    return make


_add("scipy.optimize.minimize[BFGS]", _minimize("BFGS"))
_add(
    "sparse.linalg.cg[spd]",
    lambda jax: ((lambda a, b: jax.scipy.sparse.linalg.cg(a, b)[0]), (_spd(3), _f32(3, seed=1))),
)
_add(
    "sparse.linalg.gmres[spd]",
    lambda jax: ((lambda a, b: jax.scipy.sparse.linalg.gmres(a, b)[0]), (_spd(3), _f32(3, seed=1))),
)
_add(
    "sparse.linalg.cg[matvec_grad]",
    lambda jax: (
        jax.grad(lambda b, a: jax.numpy.sum(jax.scipy.sparse.linalg.cg(lambda v: a @ v, b)[0])),
        (_f32(3, seed=1), _spd(3)),
    ),
)


def _custom_vmap_sin(jax):
    @jax.custom_batching.custom_vmap
    def f(x):
        return jax.numpy.sin(x)

    @f.def_vmap
    def rule(axis_size, in_batched, x):
        return jax.numpy.sin(x), in_batched[0]

    return f


_add("custom_batching.custom_vmap[plain]", lambda jax: (_custom_vmap_sin(jax), (_f32(3),)))
_add("custom_batching.custom_vmap[vmap]", lambda jax: (jax.vmap(_custom_vmap_sin(jax)), (_f32(2, 3),)))
_add(
    "custom_batching.custom_vmap[jit_vmap]",
    lambda jax: (jax.jit(jax.vmap(_custom_vmap_sin(jax))), (_f32(2, 3),)),
)
_add(
    "custom_batching.sequential_vmap[vmap]",
    lambda jax: (
        jax.vmap(jax.custom_batching.sequential_vmap(lambda x: jax.numpy.sum(x) * x)),
        (_f32(2, 3),),
    ),
)


# --- control flow and AD as users write them ---------------------------------------------------
def _program(name):
    def register(build):
        CASES[f"program.{name}"] = build
        return build

    return register


@_program("scan_rnn_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def loss(w, xs):
        def step(h, x):
            h = jnp.tanh(w @ h + x)
            return h, jnp.sum(h)

        h, ys = lax.scan(step, jnp.zeros(3), xs)
        return jnp.sum(ys) + jnp.sum(h**2)

    return jax.grad(loss), (_f32(3, 3), _f32(4, 3, seed=1))


@_program("scan_jvp")
def _(jax):
    lax = jax.lax

    def f(x):
        return lax.scan(lambda c, a: (c * a + 1.0, c), x, x + 1.0)

    return (lambda x, t: jax.jvp(f, (x,), (t,))), (_f32(3), _f32(3, seed=1))


@_program("vmap_grad_scan_pytree")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def loss(p, xs):
        def step(c, x):
            a, b = c
            return (a * x + b, jnp.sin(b) * p["w"]), a

        (a, b), ys = lax.scan(step, (p["w"], p["b"]), xs)
        return a + b + jnp.sum(ys)

    g = jax.grad(loss)
    return jax.vmap(g, in_axes=(None, 0)), ({"w": np.float32(0.5), "b": np.float32(0.1)}, _f32(2, 4))


@_program("scan_remat_body_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    body = jax.checkpoint(lambda c, x: (jnp.sin(c) * x, jnp.cos(c)))
    return jax.grad(lambda c, xs: jnp.sum(lax.scan(body, c, xs)[1])), (np.float32(0.3), _f32(5))


@_program("while_loop_vmap_batched_pred")
def _(jax):
    lax = jax.lax

    def f(x):
        return lax.while_loop(lambda c: c[0] < 10.0, lambda c: (c[0] * 2.0 + 1.0, c[1] + 1), (x, 0))

    return jax.vmap(f), (_pos(4),)


@_program("while_loop_vmap_unbatched_pred")
def _(jax):
    lax = jax.lax

    def f(x, n):
        return lax.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 1.5, c[1] + 1), (x, 0))[0]

    return jax.vmap(f, in_axes=(0, None)), (_pos(4), 3)


@_program("fori_loop_jvp_vmap")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def f(x):
        return lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) + i, x)

    return jax.vmap(lambda x, t: jax.jvp(f, (x,), (t,))), (_f32(3), _f32(3, seed=1))


@_program("while_loop_grad_rejected")
def _(jax):
    lax = jax.lax
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    return jax.grad(f), (np.float32(1.0),)


def _while_sin(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * c[1]), (0, x))[1]


# linearize of a while: the known loop, then the whole loop staged again on the unknown side
@_program("while_loop_linearize")
def _(jax):
    return jax.linearize(_while_sin(jax), 1.3)[1], (np.float32(1.0),)


@_program("while_loop_linearize_traced")
def _(jax):
    f = _while_sin(jax)
    return (lambda x, t: jax.linearize(f, x)[1](t)), (np.float32(1.3), np.float32(1.0))


@_program("while_loop_linearize_body_consts")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def f(w, x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, jnp.tanh(c[1] * w) + x), (0, x))[1]

    return jax.linearize(f, _unit(3), _f32(3, seed=1))[1], (_f32(3, seed=2), _f32(3, seed=3))


@_program("while_loop_linearize_float_cond")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 1.7 + jnp.sin(c), x)  # noqa: E731
    return jax.linearize(f, 1.1)[1], (np.float32(1.0),)


@_program("fori_loop_jit_dynamic_linearize")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    g = jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * jnp.cos(c) + i, x))

    def f(x, n, t):
        return jax.linearize(lambda x: g(x, n), x)[1](t)

    return f, (np.float32(0.7), np.int32(4), np.float32(1.0))


# vmap / jacfwd / hessian over jitted functions whose batch axis lands off the front: the jit's
# outputs keep the axis where its batched body puts it (JAX's pjit batching, batch_jaxpr2)
@_program("jit_vmap_in_axis_1")
def _(jax):
    return jax.vmap(jax.jit(jax.numpy.sin), in_axes=1), (_f32(2, 3),)


@_program("jit_vmap_in_axis_2_reduce")
def _(jax):
    jnp = jax.numpy
    return jax.vmap(jax.jit(lambda x: jnp.sum(jnp.exp(x), axis=0) * 2.0), in_axes=2), (_f32(2, 3, 4),)


@_program("jit_vmap_out_axes_1")
def _(jax):
    f = jax.jit(lambda x: jax.numpy.sin(x) + 1.0)
    return jax.vmap(f, in_axes=1, out_axes=1), (_f32(2, 3),)


@_program("jit_vmap_unmapped_out_axes_1")
def _(jax):
    jnp = jax.numpy
    f = jax.jit(lambda x, y: (jnp.cos(x), y * 2.0))
    return jax.vmap(f, in_axes=(0, None), out_axes=1), (_f32(4, 3), _f32(3, seed=1))


@_program("jit_nested_vmap_in_axis_1")
def _(jax):
    f = jax.jit(lambda x, y: jax.numpy.tanh(x) * y)
    inner = jax.vmap(f, in_axes=(1, None))
    return jax.vmap(inner, in_axes=(2, 0)), (_f32(2, 3, 4), _f32(4, 2))


@_program("jit_jacfwd_transposed")
def _(jax):
    jnp = jax.numpy
    return jax.jacfwd(jax.jit(lambda x: jnp.sin(x).T @ x)), (_f32(3, 2),)


@_program("jit_hessian_matmul")
def _(jax):
    jnp = jax.numpy
    f = jax.jit(lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2))
    return jax.hessian(f), (_f32(2, 3), _f32(3, 2, seed=1))


@_program("hessian_expm")
def _(jax):
    import jax.scipy.linalg as jsl

    return jax.hessian(lambda x: jax.numpy.sum(jsl.expm(x))), (_f32(2, 2, seed=5) / 3,)


@_program("cond_grad_two_branches")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def f(x, y):
        return lax.cond(x > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: jnp.cos(b) - a, x, y)

    return jax.grad(f, argnums=(0, 1)), (np.float32(0.5), np.float32(2.0))


@_program("cond_vmap_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    f = lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)  # noqa: E731
    return jax.vmap(jax.grad(f)), (_f32(4),)


@_program("cond_inside_scan_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def loss(x):
        def step(c, a):
            c = lax.cond(a > 0, lambda v: v * a, lambda v: v - a, c)
            return c, c

        return jnp.sum(lax.scan(step, x, jnp.arange(-2.0, 2.0))[1])

    return jax.grad(loss), (np.float32(0.7),)


@_program("switch_jit_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    branches = [jnp.sin, jnp.cos, lambda x: x**3]
    return jax.jit(jax.grad(lambda x, i: lax.switch(i, branches, x))), (np.float32(0.5), 2)


@_program("remat_policy_dots_grad")
def _(jax):
    jnp = jax.numpy

    def mlp(w, x):
        return jnp.sum(jnp.tanh(jnp.tanh(x @ w) @ w))

    f = jax.checkpoint(mlp, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return jax.grad(f), (_f32(3, 3), _f32(2, 3, seed=1))


@_program("remat_vmap_grad")
def _(jax):
    jnp = jax.numpy
    f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    return jax.vmap(jax.grad(f)), (_f32(4),)


@_program("vmap_jit_direct_and_nested")
def _(jax):
    # JAX batches a jit called directly under vmap and the same jit inside a batched jit's body in
    # different contexts: two batched jaxprs (a custom_vjp's function counts as called directly)
    jnp = jax.numpy
    inner = jax.jit(lambda c: jnp.floor(c) % 2)
    outer = jax.jit(lambda c: inner(c) + 1)
    both = jax.vmap(lambda c: (c % 1, inner(c), outer(c), jax.scipy.special.log_ndtr(c)))
    return both, (_f32(3),)


@_program("remat_prevent_cse_false_scan")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    body = jax.checkpoint(lambda c, x: (c + jnp.exp(x * c), None), prevent_cse=False)
    return jax.grad(lambda c, xs: lax.scan(body, c, xs)[0]), (np.float32(0.1), _f32(3))


def _clip_vjp(jax):
    @jax.custom_vjp
    def f(x, lo):
        return jax.numpy.clip(x, lo, 1.0)

    f.defvjp(lambda x, lo: (f(x, lo), (x, lo)), lambda res, g: (g * (res[0] > res[1]), None))
    return f


@_program("custom_vjp_vmap")
def _(jax):
    return jax.vmap(_clip_vjp(jax), in_axes=(0, None)), (_f32(4), np.float32(-0.5))


@_program("custom_vjp_jit_vmap_grad")
def _(jax):
    f = _clip_vjp(jax)
    return jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None))), (_f32(4), np.float32(-0.5))


@_program("custom_jvp_vmap")
def _(jax):
    jnp = jax.numpy

    @jax.custom_jvp
    def f(x):
        return jnp.log1p(jnp.exp(x))

    f.defjvps(lambda t, ans, x: t * jax.nn.sigmoid(x))
    return jax.vmap(jax.value_and_grad(f)), (_f32(4),)


@_program("custom_jvp_int_output_jvp")
def _(jax):
    # The integer output's tangent: the rule's float0 zeros are dropped, and jvp's are a broadcast
    # of the float0 literal (not a constant).
    jnp = jax.numpy

    @jax.custom_jvp
    def f(x):
        return x * 2.0, jnp.floor(x).astype(jnp.int32)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), (2.0 * t, jnp.zeros(jnp.shape(x), jax.dtypes.float0))

    return (lambda x, t: jax.jvp(f, (x,), (t,))), (_f32(3), _f32(3, seed=1))


@_program("frexp_jvp")
def _(jax):
    return (lambda x, t: jax.jvp(jax.numpy.frexp, (x,), (t,))), (_pos(3), _f32(3, seed=1))


def _cond_int_output(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.cond(
        x.sum() > 0, lambda x: (x * 2, jnp.argmax(x)), lambda x: (jnp.sin(x), jnp.argmin(x)), x
    )


@_program("cond_int_output_jvp")
def _(jax):
    # The integer output's tangent is a symbolic zero, not an output of the cond (JAX's out_nz).
    f = _cond_int_output(jax)
    return (lambda x, t: jax.jvp(f, (x,), (t,))), (_f32(3), _f32(3, seed=1))


@_program("cond_int_output_jacfwd")
def _(jax):
    f = _cond_int_output(jax)
    return jax.jacfwd(lambda x: f(x)[0]), (_f32(3),)


@_program("scan_int_carry_jvp")
def _(jax):
    lax = jax.lax

    def body(c, a):
        v, k = c
        return (v * a, k + 1), (v, k)

    return (lambda x, t: jax.jvp(lambda x: lax.scan(body, (1.0, 0), x), (x,), (t,))), (
        _f32(3),
        _f32(3, seed=1),
    )


@_program("pmap_psum_normalize")
def _(jax):
    lax = jax.lax
    return jax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i"), (_pos(4),)


@_program("pmap_grad_pmean")
def _(jax):
    lax, jnp = jax.lax, jax.numpy

    def step(w, x):
        g = jax.grad(lambda w: jnp.sum((x * w - 1.0) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "batch")

    return jax.pmap(step, axis_name="batch", in_axes=(None, 0)), (np.float32(0.5), _f32(4, 3))


@_program("pmap_all_gather_axis_index")
def _(jax):
    lax = jax.lax

    def f(x):
        return lax.all_gather(x, "i") * lax.axis_index("i")

    return jax.pmap(f, axis_name="i"), (_f32(4, 2),)


@_program("pmap_vmap_psum")
def _(jax):
    lax = jax.lax
    f = jax.vmap(lambda x: lax.psum(x, ("i", "j")), axis_name="j")
    return jax.pmap(f, axis_name="i"), (_f32(2, 3),)


@_program("pmap_ppermute")
def _(jax):
    lax = jax.lax
    perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
    return jax.pmap(lambda x: lax.ppermute(x, "i", perm), axis_name="i"), (_f32(4, 2),)


@_program("associative_scan_grad")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    return jax.grad(lambda x: jnp.sum(lax.associative_scan(jnp.add, x))), (_f32(5),)


@_program("lax_map_jit")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    return jax.jit(lambda xs: lax.map(lambda r: jnp.dot(r, r), xs)), (_f32(4, 3),)


@_program("hessian_of_scan")
def _(jax):
    lax, jnp = jax.lax, jax.numpy
    f = lambda x: jnp.sum(lax.scan(lambda c, a: (c * jnp.sin(a), c), 1.0, x)[1])  # noqa: E731
    return jax.hessian(f), (_f32(3),)


# --- transformations stacked on the cases listed in TRANSFORMED --------------------------------
def _transformed(make, kind):
    def tmake(jax):
        fun, args = make(jax)

        def scalar(*a):
            return jax.numpy.sum(jax.tree_util.tree_leaves(fun(*a))[0])

        if kind == "grad":
            return jax.grad(scalar), args
        if kind == "jit_grad":
            return jax.jit(jax.grad(scalar)), args
        first = np.asarray(args[0])
        scale = 0.9 if first.dtype.kind in "fc" else 1
        stacked = np.stack([first, (first * scale).astype(first.dtype)])
        return jax.vmap(fun, in_axes=(0,) + (None,) * (len(args) - 1)), (stacked, *args[1:])

    return tmake


for _name in TRANSFORMED:
    for _kind in ("grad", "vmap", "jit_grad"):
        CASES[f"{_kind}({_name})"] = _transformed(CASES[_name], _kind)

# Modules a case reaches as attributes of ``jax`` (JAX imports them only on request).
MODULES = """scipy.special scipy.stats scipy.linalg scipy.signal scipy.optimize scipy.sparse.linalg
numpy.linalg numpy.fft custom_batching scipy.spatial.transform scipy.ndimage scipy.integrate image
nn.initializers flatten_util""".split()


def resolve(jax, path):
    """``jax.<path>``, importing the module part of ``path`` first."""
    import importlib

    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module("jax." + ".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)
