"""Bit-level sweep of ~200 public functions (jnp elementwise, reductions, cumulative, sorting, linear
algebra, jax.nn, jax.scipy.special, jax.scipy.stats, jax.random samplers) on float32 inputs that
include the special values (0, -0, inf, nan, denormals, huge), eager, jit, vmap and grad, against
JAX 0.10.2, reporting each differing case with its largest distance in ulps:

    /work/main/.jax-venv/bin/python tests/fidelity/sweep.py ulp-dump /tmp/jax_ulp.pkl
    PYTHONPATH=$PWD .venv/bin/python tests/fidelity/sweep.py ulp-dump /tmp/engine_ulp.pkl --engine
    python tests/fidelity/sweep.py ulp-compare /tmp/jax_ulp.pkl /tmp/engine_ulp.pkl

Each case is ``make(jax) -> (fun, args)`` as in the other sweep modules; ``variants`` adds the jit,
vmap and grad of each (vmap over a stack of the first argument, grad of the sum of the first
output). The cases are values only (their jaxpr texts are swept elsewhere); what they found is
recorded as JAX's bits in tests/jax_reference/ (record_ulp_fixes.py) for tests without JAX.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32

# The special values every elementwise function meets, then ordinary ones of several magnitudes.
SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-39, 1.17549435e-38, 1e-30, 3.4e38,
            -3.4e38, 0.5, -0.5, 1.0, -1.0, 2.0, 0.1, 3.7, -2.3, 8.0, 10.0, -10.0, 30.0, 50.0, 88.7,
            -88.7, 100.0, -103.0, 1e10]  # fmt: skip


def inputs() -> np.ndarray:
    rng = np.random.default_rng(7)
    typical = np.concatenate([rng.normal(size=40) * 3, rng.uniform(0, 1, 20), rng.uniform(-30, 30, 6)])
    return np.concatenate([SPECIALS, typical]).astype(f32)  # 96 elements


def second() -> np.ndarray:
    return np.random.default_rng(8).normal(size=inputs().size).astype(f32) * f32(2)


def positive() -> np.ndarray:
    rng = np.random.default_rng(9)
    return np.concatenate([[0.0, 1e-40, 1e-20, 0.5, 1.0, 2.0, 100.0, np.inf, np.nan],
                           np.exp(rng.uniform(-5, 5, 55))]).astype(f32)  # fmt: skip


def unit() -> np.ndarray:
    rng = np.random.default_rng(10)
    return np.concatenate([[0.0, 1e-40, 0.5, 1.0, 1 - 2**-24, 2**-24], rng.uniform(0, 1, 58)]).astype(f32)


def matrix() -> np.ndarray:
    return np.random.default_rng(11).normal(size=(6, 40)).astype(f32)


def spd(n=5) -> np.ndarray:
    a = np.random.default_rng(12).normal(size=(n, n)).astype(f32)
    return (a @ a.T + n * np.eye(n)).astype(f32)


JNP_UNARY = """abs negative sign floor ceil round rint trunc exp exp2 expm1 log log2 log10 log1p sqrt cbrt
square reciprocal sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad
rad2deg sinc i0 nan_to_num fabs spacing signbit isfinite frexp modf""".split()
JNP_BINARY = """add subtract multiply divide floor_divide power float_power mod remainder fmod maximum
minimum fmax fmin arctan2 hypot logaddexp logaddexp2 copysign nextafter heaviside""".split()
JNP_REDUCE = """sum prod max min mean var std median ptp nansum nanprod nanmean nanvar nanstd nanmax
nanmin cumsum cumprod nancumsum nancumprod sort argsort average""".split()
LINALG = "det inv cholesky eigh eigvalsh svd qr slogdet pinv norm matrix_rank".split()
NN = """relu relu6 sigmoid softplus soft_sign silu log_sigmoid elu leaky_relu hard_tanh celu selu gelu
log_softmax softmax standardize hard_sigmoid hard_silu sparse_plus squareplus mish logsumexp""".split()
SPECIAL = """erf erfc erfinv expit logit gammaln digamma ndtr ndtri log_ndtr entr i0 i0e i1 i1e gamma
erfcx exp1 expi spence sinc""".split()
SPECIAL_BINARY = "xlogy xlog1py betaln gammainc gammaincc zeta rel_entr kl_div".split()
# jax.scipy.stats distributions: (name, methods, fixed parameters)
STATS = [
    ("norm", "logpdf pdf cdf logcdf sf logsf ppf", (0.3, 1.7)),
    ("t", "logpdf pdf", (3.0,)),
    ("gamma", "logpdf pdf cdf logcdf sf", (2.5,)),
    ("beta", "logpdf pdf cdf", (2.0, 3.0)),
    ("expon", "logpdf pdf cdf sf", ()),
    ("laplace", "logpdf pdf cdf", (0.2, 1.5)),
    ("logistic", "logpdf pdf cdf sf isf ppf", ()),
    ("cauchy", "logpdf pdf cdf", (0.1, 2.0)),
    ("chi2", "logpdf pdf cdf", (3.0,)),
    ("uniform", "logpdf pdf cdf", (-1.0, 3.0)),
    ("pareto", "logpdf pdf", (2.0,)),
    ("gennorm", "logpdf pdf cdf", (1.5,)),
    ("truncnorm", "logpdf pdf", (-1.0, 2.0)),
    ("vonmises", "logpdf pdf", (2.0,)),
    ("poisson", "logpmf pmf cdf", (3.0,)),
    ("geom", "logpmf", (0.3,)),
    ("nbinom", "logpmf", (5.0, 0.4)),
    ("betabinom", "logpmf", (10.0, 2.0, 3.0)),
    ("binom", "logpmf", (10.0, 0.3)),
    ("bernoulli", "logpmf", (0.3,)),
    ("rayleigh", "logpdf", ()),
    ("lognorm", "logpdf", (0.8,)),
]
# jax.random samplers: name -> extra arguments after the key (then a shape of (64,))
RANDOM = {
    "uniform": (), "normal": (), "exponential": (), "laplace": (), "logistic": (), "cauchy": (),
    "gumbel": (), "rayleigh": (1.5,), "maxwell": (), "double_sided_maxwell": (0.5, 2.0),
    "weibull_min": (1.5, 2.0), "pareto": (3.0,), "lognormal": (0.5,), "triangular": (0.0, 0.3, 1.0),
    "truncated_normal": (-1.0, 2.0), "gamma": (2.0,), "loggamma": (0.5,), "beta": (2.0, 3.0),
    "chisquare": (3.0,), "t": (4.0,), "f": (3.0, 5.0), "generalized_normal": (1.5,),
    "bernoulli": (0.3,), "poisson": (3.5,), "binomial": (10.0, 0.3), "geometric": (0.2,),
    "rademacher": (), "randint": (0, 10), "wald": (1.5,),
}  # fmt: skip
# Functions whose outputs are not float (compared as they are) or whose grad JAX rejects.
NO_GRAD = set("""sign floor ceil round rint trunc signbit isfinite frexp modf spacing floor_divide mod
remainder fmod nextafter heaviside copysign argsort median sort ptp nanmax nanmin max min
matrix_rank nan_to_num""".split())  # fmt: skip


def _call(path, *fixed, **kw):
    """``make`` of ``jax.<path>`` applied to the sweep's arrays then ``fixed`` arguments."""

    def bind(*arrays):
        def make(jax):
            from sweep_programs import resolve

            fn = resolve(jax, path)
            return (lambda *a: fn(*a, *fixed, **kw)), [x() for x in arrays]

        return make

    return bind


def _random(name, extra):
    def make(jax):
        fn = getattr(jax.random, name)

        def draw(seed):
            return (
                fn(jax.random.key(seed), *extra, shape=(64,))
                if name != "rademacher"
                else fn(jax.random.key(seed), (64,))
            )

        return draw, [np.uint32(3)]

    return make


def base_cases() -> dict:
    cases: dict = {}
    for fn in JNP_UNARY:
        cases[f"jnp.{fn}"] = _call(f"numpy.{fn}")(inputs)
    for fn in JNP_BINARY:
        cases[f"jnp.{fn}"] = _call(f"numpy.{fn}")(inputs, second)
    for fn in JNP_REDUCE:
        cases[f"jnp.{fn}[axis1]"] = _call(f"numpy.{fn}", axis=1)(matrix)
        cases[f"jnp.{fn}[specials]"] = _call(f"numpy.{fn}")(inputs)
    cases["jnp.cumsum[rev]"] = _call("lax.cumsum", axis=1, reverse=True)(matrix)
    cases["jnp.cumprod[rev]"] = _call("lax.cumprod", axis=1, reverse=True)(matrix)
    cases["jnp.cumprod[long]"] = _call("numpy.cumprod")(lambda: (1 + 0.01 * inputs()[30:]).repeat(4))
    cases["jnp.cumlogsumexp"] = _call("lax.cumlogsumexp", axis=1)(matrix)
    cases["jnp.cummax"] = _call("lax.cummax", axis=1)(matrix)
    for fn in LINALG:
        cases[f"linalg.{fn}"] = _call(f"numpy.linalg.{fn}")(spd)
    cases["linalg.solve"] = _call("numpy.linalg.solve")(spd, lambda: matrix()[:5, :3].copy())
    cases["jnp.matmul"] = _call("numpy.matmul")(matrix, lambda: matrix().T.copy())
    for fn in NN:
        cases[f"nn.{fn}"] = _call(f"nn.{fn}")(inputs)
    cases["nn.gelu[exact]"] = _call("nn.gelu", approximate=False)(inputs)
    cases["nn.softmax[axis1]"] = _call("nn.softmax", axis=1)(matrix)
    for fn in SPECIAL:
        cases[f"special.{fn}"] = _call(f"scipy.special.{fn}")(inputs)
    for fn in SPECIAL_BINARY:
        cases[f"special.{fn}"] = _call(f"scipy.special.{fn}")(positive, lambda: positive()[::-1].copy())
    cases["special.polygamma"] = _call("scipy.special.polygamma")(lambda: f32(1), positive)
    cases["special.multigammaln"] = _call("scipy.special.multigammaln", 3)(lambda: positive() + 2)
    cases["special.logsumexp"] = _call("scipy.special.logsumexp", axis=1)(matrix)
    cases["special.betainc"] = _call("scipy.special.betainc")(lambda: f32(2.0), lambda: f32(3.0), unit)
    for dist, methods, params in STATS:
        for m in methods.split():
            data = unit if m in ("ppf", "isf") else inputs
            cases[f"stats.{dist}.{m}"] = _call(f"scipy.stats.{dist}.{m}", *params)(data)
    cases["stats.multivariate_normal.logpdf"] = _call("scipy.stats.multivariate_normal.logpdf")(
        lambda: matrix()[:, :5], lambda: np.zeros(5, f32), spd
    )
    for name, extra in RANDOM.items():
        cases[f"random.{name}"] = _random(name, extra)
    return cases


def _variant(make, kind):
    def tmake(jax):
        fun, args = make(jax)
        if kind == "vmap":
            first = np.asarray(args[0])
            stacked = (
                np.stack([first, (first * f32(0.75)).astype(first.dtype)])
                if first.ndim
                else (np.array([3, 5], first.dtype))
            )
            return jax.vmap(fun, in_axes=(0,) + (None,) * (len(args) - 1)), [stacked, *args[1:]]

        def scalar(*a):
            return jax.numpy.sum(jax.tree_util.tree_leaves(fun(*a))[0])

        return jax.grad(scalar), args

    return tmake


def cases() -> dict:
    """Every case and its vmap and grad (jit is run for each case by the dump itself)."""
    out = {}
    for name, make in base_cases().items():
        out[f"ulp.{name}"] = make
        out[f"ulp.vmap({name})"] = _variant(make, "vmap")
        fn = name.split(".")[-1].split("[")[0]
        if not name.startswith(("random.", "linalg.")) and fn not in NO_GRAD:
            out[f"ulp.grad({name})"] = _variant(make, "grad")
    return out


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in float32 (or float64) steps between ``a`` and ``b`` (NaNs equal, a
    shape or dtype mismatch -1, a difference in non-float values 1)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return -1
    if a.dtype.kind != "f" or a.dtype.itemsize not in (2, 4, 8):
        return int(np.any(a != b))
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(x):
        i = x.view(ints).astype(np.int64)
        return np.where(i < 0, -(i & ((1 << (8 * a.dtype.itemsize - 1)) - 1)), i)

    d = np.where(np.isnan(a) & np.isnan(b), 0, np.abs(ordered(a) - ordered(b)))
    return int(d.max()) if d.size else 0
