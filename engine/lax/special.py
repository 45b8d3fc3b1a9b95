"""Special-function primitives (JAX's lax.lgamma, digamma, igamma, ...), one row per operation.

The implementations evaluate in float64 (Python's ``math`` module and classic series and
continued fractions: Cephes' Hurwitz zeta, Numerical Recipes' incomplete gamma and beta, AS241 for
the normal quantile) and round to the operand's dtype, so float32 results are correctly rounded
in practice; float32 lgamma and digamma are XLA's kernels instead (``xla_f32.py``: JAX's bits), and
float32 zeta and polygamma XLA's decomposition of them (``xla_zeta.py``).
Derivatives are JAX's formulas, written with the public wrappers so they compose.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ad, batching, narrow_dtypes
from ..core import Primitive, ShapedArray
from . import elementwise as ew
from . import xla_zeta
from .float32_impls import xla_kernel_or

# ---------------------------------------------------------------------------------------------
# Scalar float64 kernels.


def _lgamma(x):
    if math.isnan(x):
        return x
    if x <= 0 and (math.isinf(x) or x == math.floor(x)):  # math.floor(-inf) raises
        return math.inf
    try:
        return math.lgamma(x)
    except OverflowError:
        return math.inf


def _digamma(x):
    if math.isnan(x):
        return x
    if x <= 0 and (math.isinf(x) or x == math.floor(x)):  # math.floor(-inf) raises
        return math.nan
    if x < 0:  # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
        return _digamma(1 - x) - math.pi / math.tan(math.pi * x)
    return digamma_series(x)


def digamma_series(x):
    """psi(x) for x > 0: the recurrence up to 6, then the asymptotic series. Compiled code runs
    this very function (engine.backends.numba_special), so its digamma is the interpreter's."""
    acc = 0.0
    while x < 6:
        acc -= 1 / x
        x += 1
    x2 = 1 / (x * x)
    series = x2 * (1 / 12 - x2 * (1 / 120 - x2 * (1 / 252 - x2 * (1 / 240 - x2 * (1 / 132)))))
    return acc + math.log(x) - 0.5 / x - series


# Cephes' Euler-Maclaurin coefficients for the Hurwitz zeta function: (2k)! / B_2k.
_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)


def _zeta(s, q):
    """Hurwitz zeta sum_k (k + q)^-s (Cephes' algorithm), with XLA's (chlo's) domain table: s = 1
    diverges (inf, whatever q), s < 1 is NaN; at a pole q = 0, -1, ..., -inf the limit is inf for
    even s and NaN otherwise; other q <= 0 need an integer s; q = inf is NaN."""
    if s == 1:
        return math.inf
    if math.isnan(s) or math.isnan(q) or s < 1 or q == math.inf:
        return math.nan
    if q <= 0:
        if q == -math.inf or q == math.floor(q):
            return math.inf if s % 2 == 0 else math.nan
        if s != math.floor(s):
            return math.nan
    total = q**-s
    a, i, b = q, 0, 0.0
    while i < 9 or a <= 9:
        i += 1
        a += 1
        b = a**-s
        total += b
        if abs(b) < 1e-17 * abs(total):  # (a negative q's terms can cancel the sum to 0)
            return total
    w = a
    total += b * w / (s - 1) - 0.5 * b
    fac, k = 1.0, 0.0
    for coef in _ZETA_A:
        fac *= s + k
        b /= w
        t = fac * b / coef
        total += t
        if abs(t / total) < 1e-17:
            break
        k += 1
        fac *= s + k
        b /= w
        k += 1
    return total


def _polygamma(n, x):
    n = int(round(n))
    if n == 0:
        return _digamma(x)
    return (-1) ** (n + 1) * math.factorial(n) * _zeta(n + 1, x)


def _igamma(a, x):
    """Regularized lower incomplete gamma P(a, x)."""
    if math.isnan(a) or math.isnan(x) or a <= 0 or x < 0:
        # a = 0: JAX's 1 - 0 * fraction for x >= 1, its series' 1 * 0 / a = 0 / 0 below
        return 1.0 if a == 0 and x >= 1 else math.nan
    if x == 0:
        return 0.0
    if math.isinf(x):
        return 1.0
    if x < a + 1:
        return _gamma_series(a, x)
    return 1.0 - _gamma_cf(a, x)


def _igammac(a, x):
    if math.isnan(a) or math.isnan(x) or a <= 0 or x < 0:
        return math.nan if not (a == 0 and x > 0) else 0.0
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    if x < a + 1:
        return 1.0 - _gamma_series(a, x)
    return _gamma_cf(a, x)


def _gamma_prefactor(a, x):
    return math.exp(-x + a * math.log(x) - math.lgamma(a))


def _gamma_series(a, x):
    ap, total = a, 1.0 / a
    term = total
    for _ in range(10000):
        ap += 1
        term *= x / ap
        total += term
        if abs(term) < abs(total) * 1e-17:
            break
    return total * _gamma_prefactor(a, x)


def _gamma_cf(a, x):
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return h * _gamma_prefactor(a, x)


def _igamma_grad_a(a, x):
    """d/da P(a, x), by a central difference of the float64 series (error ~1e-9, far below
    float32's resolution). NaN off JAX's domain (x < 0, a <= 0) and at x = inf (where JAX's
    continued fraction starts from inf / inf); 0 at x = 0."""
    if math.isnan(a) or math.isnan(x) or a <= 0 or x < 0 or x == math.inf:
        return math.nan
    if x == 0:
        return 0.0
    h = 1e-5 * max(1.0, a)
    return (_igamma(a + h, x) - _igamma(a - h, x)) / (2 * h)


def _betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b) (Numerical Recipes' continued fraction), with XLA's
    boundary table: a = 0 or b = inf puts all mass at 0 (I = 1 for x > 0), b = 0 or a = inf at 1
    (I = 0 for x < 1); both at once, a negative parameter or x outside [0, 1] is NaN."""
    a_zero, b_zero = a == 0 or b == math.inf, b == 0 or a == math.inf
    if math.isnan(a) or math.isnan(b) or math.isnan(x) or a < 0 or b < 0 or x < 0 or x > 1:
        return math.nan
    if a_zero and b_zero:
        return math.nan
    if a_zero or b_zero:
        return 1.0 if (a_zero and x != 0) or (b_zero and x == 1) else 0.0
    if x == 0 or x == 1:
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front) if log_front < 709 else math.inf  # math.exp raises past that
    if x < (a + 1) / (a + b + 2):
        return front * _beta_cf(a, b, x) / a
    return 1 - front * _beta_cf(b, a, 1 - x) / b


def _beta_cf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1 / d
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return h


def _erfc(x):
    return math.erfc(x)


def _vectorized(kernel, nin):
    ufunc = np.frompyfunc(kernel, nin, 1)

    def impl(*xs, **params):
        dtype = xs[-1].dtype
        with np.errstate(all="ignore"):
            out = ufunc(*[np.asarray(x, np.float64) for x in xs])
            return np.asarray(out, np.float64).astype(dtype)

    impl.__name__ = kernel.__name__.lstrip("_")
    return impl


# ---------------------------------------------------------------------------------------------
# Primitives.

_F = (ew._FLOAT,)
# (float32: XLA's Lanczos kernels, JAX's bits; see xla_f32.py)
lgamma_p = ew.unop("lgamma", xla_kernel_or("lgamma", _vectorized(_lgamma, 1)))
digamma_p = ew.unop("digamma", xla_kernel_or("digamma", _vectorized(_digamma, 1)))
erfc_p = ew.unop("erfc", xla_kernel_or("erfc", _vectorized(_erfc, 1)))


def _igamma_impl(kernel, upper):
    """The float64 kernel, except where JAX's float loop stalls (``a >= 1 / eps``): there its
    answer is set by the operand dtype's rounding, so it is replayed in that dtype."""
    from .igamma_stalled import igamma_stalled, stalled

    by_kernel = _vectorized(kernel, 2)

    def impl(a, x, **params):
        a, x = np.broadcast_arrays(a, x)
        # JAX computes float16 and bfloat16 in float32
        work = np.float32 if x.dtype.itemsize < 4 else x.dtype
        with np.errstate(all="ignore"):
            wa, wx = a.astype(work), x.astype(work)
        odd = stalled(wa, wx)
        if not odd.any():
            return by_kernel(a, x)
        out = by_kernel(np.where(odd, 1, a).astype(a.dtype), np.where(odd, 1, x).astype(x.dtype))
        out[odd] = igamma_stalled(wa[odd], wx[odd], upper).astype(out.dtype)
        return out

    impl.__name__ = kernel.__name__.lstrip("_")
    return impl


igamma_p = ew.binop("igamma", _igamma_impl(_igamma, False), _F)
igammac_p = ew.binop("igammac", _igamma_impl(_igammac, True), _F)
igamma_grad_a_p = ew.binop("igamma_grad_a", _vectorized(_igamma_grad_a, 2), _F)


def _float32_or(kernel, fallback):
    """``kernel`` (XLA's float32 decomposition: xla_zeta.py) for float32 operands, else ``fallback``."""

    def impl(a, b, **params):
        if a.dtype == np.float32 and b.dtype == np.float32:
            return kernel(a, b, **params)
        return fallback(a, b)

    impl.__name__ = fallback.__name__
    return impl


polygamma_p = ew.binop("polygamma", _float32_or(xla_zeta.polygamma, _vectorized(_polygamma, 2)), _F)
zeta_p = ew.binop("zeta", _float32_or(xla_zeta.zeta, _vectorized(_zeta, 2)), _F)

regularized_incomplete_beta_p = Primitive("regularized_incomplete_beta")
regularized_incomplete_beta_p.def_impl(_vectorized(_betainc, 3))


@regularized_incomplete_beta_p.def_abstract_eval
def _betainc_abstract(a, b, x):
    for v in (a, b, x):
        ew._check_kind("regularized_incomplete_beta", v, _F)
    if not (a.dtype == b.dtype == x.dtype):
        raise TypeError(
            f"lax.betainc requires arguments to have the same dtypes, got {a.dtype.name}, "
            f"{b.dtype.name}, {x.dtype.name}."
        )
    # scalars and size-1 axes broadcast (as JAX's naryop shape rule; a vmap leaves them so)
    shape = ew._broadcast_size_one("regularized_incomplete_beta", a.shape, b.shape)
    shape = ew._broadcast_size_one("regularized_incomplete_beta", shape, x.shape)
    return ShapedArray(shape, x.dtype, a.weak_type and b.weak_type and x.weak_type)


batching.broadcast_batcher(regularized_incomplete_beta_p, size_one=True)
ew.implicitly_broadcasting.add(regularized_incomplete_beta_p)

# ---------------------------------------------------------------------------------------------
# Public wrappers (jax.lax spellings).


def _lax():
    from . import api

    return api


def lgamma(x):
    """log |Gamma(x)|."""
    return lgamma_p.bind(x)


def digamma(x):
    """The logarithmic derivative of Gamma."""
    return digamma_p.bind(x)


def erfc(x):
    """The complementary error function ``1 - erf(x)``, accurate where erf(x) is near 1."""
    return erfc_p.bind(x)


def _bind2(p, x, y):
    from .api import _binary_args

    x, y = _binary_args(x, y, p.name)
    return p.bind(x, y)


# (parameters named as JAX names them, so keyword calls work)
def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    return _bind2(igamma_p, a, x)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _bind2(igammac_p, a, x)


def igamma_grad_a(a, x):
    """The derivative of ``igamma(a, x)`` with respect to ``a``."""
    return _bind2(igamma_grad_a_p, a, x)


def polygamma(m, x):
    """The ``m``-th derivative of the digamma function at ``x``."""
    return _bind2(polygamma_p, m, x)


def zeta(x, q):
    """The Hurwitz zeta function: the sum over ``n >= 0`` of ``(n + q) ** -x``."""
    return _bind2(zeta_p, x, q)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    return regularized_incomplete_beta_p.bind(a, b, x)


# ---------------------------------------------------------------------------------------------
# Derivatives (JAX's rules).

mul, div, sub, neg, exp, log = ew.mul, ew.div, ew.sub, ew.neg, ew.exp, ew.log

ad.defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))
ad.defjvp(digamma_p, lambda g, x: mul(g, polygamma_p.bind(ew._const(x, 1), x)))  # (a scalar order, as JAX)
ad.defjvp(erfc_p, lambda g, x: mul(ew._const(x, -2.0 / np.sqrt(np.pi)), mul(g, exp(neg(ew.square(x))))))


def _igamma_dx(g, a, x):
    # d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a)) (JAX's operations, in its order).
    return mul(g, exp(sub(ew.add(neg(x), mul(sub(a, _lax().full_like(a, 1)), log(x))), lgamma(a))))


ad.defjvp(igamma_p, lambda g, a, x: mul(g, igamma_grad_a(a, x)), _igamma_dx)
ad.defjvp(
    igammac_p, lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))), lambda g, a, x: neg(_igamma_dx(g, a, x))
)


def _not_differentiable(name, arg):
    def rule(g, *primals):
        raise NotImplementedError(f"{name}: differentiation with respect to {arg} is not implemented.")

    return rule


ad.defjvp(
    igamma_grad_a_p,
    _not_differentiable("igamma_grad_a", "a"),
    _not_differentiable("igamma_grad_a", "x"),
)
ad.defjvp(
    polygamma_p,
    _not_differentiable("polygamma", "n (an integer order)"),
    lambda g, n, x: mul(g, polygamma(ew.add(n, 1.0), x)),
)
# (zeta_p has no JVP, as JAX's: its derivative is jax.scipy.special.zeta's custom_jvp; lax.zeta
# under grad raises "Differentiation rule for 'zeta' not implemented")


def _betainc_dx(g, a, b, x):
    # x^(a-1) (1-x)^(b-1) / B(a, b)
    # Python operators as JAX's rule: on a constant a, b (numpy) they compute rather than stage
    lbeta = lgamma(a) + lgamma(b) - lgamma(a + b)
    return exp((b - 1) * _lax().log1p(-x) + (a - 1) * log(x) - lbeta) * g


def _betainc_dab(g, a, b, x):
    # JAX 0.10.2 refuses these derivatives (not a NotImplementedError: its rule raises ValueError).
    raise ValueError("Betainc gradient with respect to a and b not supported.")


ad.defjvp(regularized_incomplete_beta_p, _betainc_dab, _betainc_dab, _betainc_dx)


def random_gamma_grad(a, x):
    """d(sample)/d(a) for a Gamma(a, 1) sample ``x`` (implicit reparameterization: the sample's
    CDF P(a, x) held fixed), ``-(dP/da) / (dP/dx)``; 0 at ``x == 0``, NaN outside the domain.

    >>> lax.random_gamma_grad(2.0, 2.0)
    Array(1.0862086, dtype=float32, weak_type=True)
    """
    api = _lax()
    a, x = api._binary_args(a, x, "random_gamma_grad")
    shape = np.broadcast_shapes(api._aval(a).shape, api._aval(x).shape)
    a, x = (api.broadcast_in_dim(v, shape, range(len(shape) - api._aval(v).ndim, len(shape))) for v in (a, x))
    with np.errstate(all="ignore"):  # (eagerly, the lanes each branch masks off divide by zero)
        return _random_gamma_grad_upcast(a, x, api._aval(a).dtype)


def _random_gamma_grad_upcast(a, x, dtype):
    api = _lax()
    from .igamma_derivative import random_gamma_grad_impl

    if dtype == np.float16 or dtype == narrow_dtypes.to_dtype("bfloat16"):  # (computed in float32, as JAX)
        f32 = np.dtype(np.float32)
        out = random_gamma_grad_impl(api.convert_element_type(a, f32), api.convert_element_type(x, f32), f32)
        return api.convert_element_type(out, dtype)
    return random_gamma_grad_impl(a, x, dtype)
