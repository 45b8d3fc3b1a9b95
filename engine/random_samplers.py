"""More of ``jax.random``'s samplers: each a transformation of ``uniform``, ``normal``,
``exponential`` or ``bernoulli`` draws, computed as JAX 0.10.2 computes it (the same draws, the same
arithmetic, a nested jit of the same name), so values and printed programs are JAX's.

Example:

  >>> import engine.random as random
  >>> random.laplace(random.key(0), (2,)).shape
  (2,)
"""

from __future__ import annotations

from .canonical_dtypes import to_dtype, user_dtype

from typing import Sequence

import numpy as np

from . import core, lax
from .core import Array, Tracer
from .numpy._staged import staged_as_jit
from .sharding import with_out_sharding
from .random import (
    _canon_shape,
    _check_prng_key,
    _check_shape,
    _float_dtype,
    _operand,
    _split,
    bernoulli,
    exponential,
    normal,
    uniform,
)


def _const(value, dtype) -> Array:
    return Array(np.asarray(value, dtype))


def _param_shape(name: str, shape, *params) -> tuple[int, ...]:
    """``shape`` checked against the parameters' shapes; their broadcast shape when None."""
    shapes = [np.shape(p) if not isinstance(p, (Array, Tracer)) else p.shape for p in params]
    if shape is None:
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
    shape = _canon_shape(shape)
    _check_shape(name, shape, *shapes)
    return shape


def _as(x, dtype):
    """``x`` in ``dtype``: a concrete parameter converted in numpy (a constant, as JAX folds it)."""
    return lax.convert_element_type(x, dtype) if isinstance(x, Tracer) else _operand(x, dtype)


def _broadcast(x, shape):
    from . import numpy as jnp

    return jnp.broadcast_to(x, shape)


@with_out_sharding
def cauchy(key, shape: Sequence[int] = (), dtype=None):
    """Standard Cauchy samples: ``tan(pi * (u - 1/2))`` with ``u`` uniform in ``[eps, 1)``."""
    typed, _ = _check_prng_key("cauchy", key)
    return _cauchy(typed, shape=_canon_shape(shape), dtype=_float_dtype(dtype, "cauchy"))


@staged_as_jit(static_argnames=("shape", "dtype"))
def _cauchy(key, shape, dtype):
    u = uniform(key, shape, dtype, minval=_const(np.finfo(dtype).eps, dtype), maxval=1.0)
    return lax.tan(lax.mul(_const(np.pi, dtype), lax.sub(u, _const(0.5, dtype))))


@with_out_sharding
def laplace(key, shape: Sequence[int] = (), dtype=None):
    """Standard Laplace samples: ``sign(u) * log1p(-|u|)`` with ``u`` uniform in ``(-1, 1)``."""
    typed, _ = _check_prng_key("laplace", key)
    return _laplace(typed, shape=_canon_shape(shape), dtype=_float_dtype(dtype, "laplace"))


@staged_as_jit(static_argnames=("shape", "dtype"))
def _laplace(key, shape, dtype):
    lo = _const(-1.0 + np.finfo(dtype).epsneg, dtype)
    u = uniform(key, shape, dtype, minval=lo, maxval=1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


@with_out_sharding
def logistic(key, shape: Sequence[int] = (), dtype=None):
    """Standard logistic samples: ``log(u) - log1p(-u)`` with ``u`` uniform in ``[tiny, 1)``."""
    typed, _ = _check_prng_key("logistic", key)
    return _logistic(typed, shape=_canon_shape(shape), dtype=_float_dtype(dtype, "logistic"))


@staged_as_jit(static_argnames=("shape", "dtype"))
def _logistic(key, shape, dtype):
    x = uniform(key, shape, dtype, minval=_const(np.finfo(dtype).tiny, dtype), maxval=1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


@with_out_sharding
def pareto(key, b, shape: Sequence[int] | None = None, dtype=None):
    """Pareto samples of shape parameter ``b``: ``exp(e / b)`` for standard exponential ``e``."""
    typed, _ = _check_prng_key("pareto", key)
    dtype = _float_dtype(dtype, "pareto")
    return _pareto(typed, b, shape=_param_shape("pareto", shape, b), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _pareto(key, b, shape, dtype):
    b = _as(b, dtype)
    return lax.exp(exponential(key, shape, dtype) / b)


@with_out_sharding
def rademacher(key, shape: Sequence[int] = (), dtype=None):
    """-1 or 1 with equal probability (integers by default)."""
    typed, _ = _check_prng_key("rademacher", key)
    dtype = core.default_dtype(int) if dtype is None else user_dtype(to_dtype(dtype))
    return _rademacher(typed, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _rademacher(key, shape, dtype):
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * b - 1).astype(dtype)


@with_out_sharding
def maxwell(key, shape: Sequence[int] = (), dtype=None):
    """Maxwell samples: the norm of three standard normal draws."""
    typed, _ = _check_prng_key("maxwell", key)
    return _maxwell(typed, shape=_canon_shape(shape), dtype=_float_dtype(dtype, "maxwell"))


@staged_as_jit(static_argnames=("shape", "dtype"))
def _maxwell(key, shape, dtype):
    from .numpy import linalg

    return linalg.norm(normal(key, (*shape, 3), dtype), axis=-1)


def double_sided_maxwell(key, loc, scale, shape: Sequence[int] = (), dtype=None):
    """Maxwell samples with a random sign, scaled by ``scale`` around ``loc``; the output has
    ``shape`` followed by the parameters' broadcast shape."""
    typed, _ = _check_prng_key("double_sided_maxwell", key)
    dtype = _float_dtype(dtype, "double_sided_maxwell")
    return _double_sided_maxwell(typed, loc, scale, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params = tuple(np.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = (shape or params) + params
    maxwell_key, sign_key = _split(key)
    rvs = maxwell(maxwell_key, shape, dtype)
    return rademacher(sign_key, shape, dtype) * rvs * scale + loc


def weibull_min(key, scale, concentration, shape: Sequence[int] = (), dtype=None):
    """Weibull samples by the inverse CDF: ``(-log1p(-u)) ** (1 / concentration) * scale``."""
    typed, _ = _check_prng_key("weibull_min", key)
    dtype = _float_dtype(dtype, "weibull_min")
    return _weibull_min(typed, scale, concentration, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _weibull_min(key, scale, concentration, shape, dtype):
    from . import numpy as jnp

    u = uniform(key, shape, dtype, minval=0, maxval=1)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


@with_out_sharding
def rayleigh(key, scale, shape: Sequence[int] | None = None, dtype=None):
    """Rayleigh samples: ``scale * sqrt(-2 log u)``."""
    typed, _ = _check_prng_key("rayleigh", key)
    dtype = _float_dtype(dtype, "rayleigh")
    return _rayleigh(typed, scale, shape=_param_shape("rayleigh", shape, scale), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = _broadcast(_as(scale, dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(-2, dtype))))


@with_out_sharding
def wald(key, mean, shape: Sequence[int] | None = None, dtype=None):
    """Wald (inverse Gaussian) samples of mean ``mean`` (Michael, Schucany and Haas's method)."""
    typed, _ = _check_prng_key("wald", key)
    dtype = _float_dtype(dtype, "wald")
    return _wald(typed, mean, shape=_param_shape("wald", shape, mean), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _wald(key, mean, shape, dtype):
    k1, k2 = _split(key, 2)
    mean = _broadcast(_as(mean, dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


@with_out_sharding
def geometric(key, p, shape: Sequence[int] | None = None, dtype=None):
    """The number of Bernoulli(``p``) trials up to the first success (integers by default)."""
    typed, _ = _check_prng_key("geometric", key)
    dtype = core.default_dtype(int) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype.kind not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    return _geometric(typed, p, shape=_param_shape("geometric", shape, p), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _geometric(key, p, shape, dtype):
    from . import numpy as jnp

    p = jnp.asarray(p)
    if p.dtype.kind != "f":
        p = p.astype(core.default_dtype(float))
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)  # JAX maps u == 0 to 1 (no log(0)), keeping the other draws
    log_u = lax.log(u)
    log_one_minus_p = _broadcast(lax.log1p(-p), shape)
    return (lax.floor(lax.div(log_u, log_one_minus_p)) + 1).astype(dtype)


@with_out_sharding
def triangular(key, left, mode, right, shape: Sequence[int] | None = None, dtype=None):
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (inverse CDF)."""
    typed, _ = _check_prng_key("triangular", key)
    dtype = _float_dtype(dtype, "triangular")
    shape = _param_shape("triangular", shape, left, mode, right)
    return _triangular(typed, left, mode, right, shape=shape, dtype=dtype)


def _triangular(key, left, mode, right, shape, dtype):  # (JAX inlines its jit: no call staged)
    left, right, mode = (_broadcast(_as(v, dtype), shape) for v in (left, right, mode))
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    below = left + lax.sqrt(u * (right - left) * (mode - left))
    above = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, below, above)


@with_out_sharding
def lognormal(key, sigma=1.0, shape: Sequence[int] | None = None, dtype=None):
    """Log-normal samples: ``exp(sigma * n)`` for standard normal ``n``."""
    typed, _ = _check_prng_key("lognormal", key)
    dtype = _float_dtype(dtype, "lognormal")
    return _lognormal(typed, sigma, shape=_param_shape("lognormal", shape, sigma), dtype=dtype)


def _lognormal(key, sigma, shape, dtype):  # (JAX inlines its jit: no call staged)
    sigma = _as(sigma, dtype)
    return lax.exp(normal(key, shape, dtype) * sigma)


@with_out_sharding
def multivariate_normal(
    key, mean, cov, shape: Sequence[int] | None = None, dtype=None, method: str = "cholesky"
):
    """Samples of N(``mean``, ``cov``): ``mean + factor @ n`` with ``factor`` the Cholesky factor
    of ``cov`` (or from its ``'svd'``/``'eigh'``) and ``n`` standard normal."""
    from .numpy._promote import promote_dtypes_inexact

    typed, _ = _check_prng_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else user_dtype(to_dtype(dtype))
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dtype}")
    shape = None if shape is None else _canon_shape(shape)
    return _multivariate_normal(typed, mean, cov, shape=shape, dtype=dtype, method=method)


@staged_as_jit(static_argnames=("shape", "dtype", "method"))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    from . import numpy as jnp

    if not np.ndim(mean) >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got cov.shape == {np.shape(cov)}."
        )
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp.linalg.svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = jnp.linalg.eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = jnp.linalg.cholesky(cov)
    samples = normal(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, samples)


@with_out_sharding
def orthogonal(key, n: int, shape: Sequence[int] = (), dtype=None, m: int | None = None):
    """A matrix uniform on the orthogonal group O(``n``) (semi-orthogonal ``n`` x ``m``): the Q
    of a QR factorization of normal draws, columns signed by R's diagonal (Mezzadri)."""
    typed, _ = _check_prng_key("orthogonal", key)
    dtype = _float_dtype(dtype, "orthogonal")
    n = int(core.concrete_or_error(n, "The error occurred in jax.random.orthogonal()"))
    m = n if m is None else int(core.concrete_or_error(m, "The error occurred in jax.random.orthogonal()"))
    return _orthogonal(typed, n=n, m=m, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("n", "m", "shape", "dtype"))
def _orthogonal(key, n, m, shape, dtype):
    from . import numpy as jnp

    z = normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp.linalg.qr(z)
    x = q * jnp.expand_dims(jnp.sign(jnp.linalg.diagonal(r)), -2)
    return x.mT if n < m else x
