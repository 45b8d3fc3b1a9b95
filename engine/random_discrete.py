"""``jax.random``'s counting samplers (poisson, binomial, multinomial), as JAX 0.10.2 draws them:
the same algorithms (Knuth's product of uniforms and Hörmann's transformed rejection for Poisson;
geometric-sum inversion and BTRS for the binomial; a scan of binomials for the multinomial), the
same key splits and ``while_loop``s over whole arrays, so the values are JAX's.

Example:

  >>> import engine.random as random
  >>> random.poisson(random.key(0), 3.0, (2,)).dtype
  dtype('int32')
"""

from __future__ import annotations

from .canonical_dtypes import to_dtype, user_dtype

from typing import Sequence

import numpy as np

from . import core, lax
from . import random_keys as rk
from .numpy._staged import staged_as_jit
from .sharding import with_out_sharding
from .random import _canon_shape, _check_prng_key, _check_shape, _split, split, uniform


def _jnp():
    from . import numpy as jnp

    return jnp


def _isnan(x):
    return lax.ne(x, x)


# --- Poisson ---------------------------------------------------------------------------------


@with_out_sharding
def poisson(key, lam, shape: Sequence[int] | None = None, dtype=None):
    """Poisson(``lam``) counts (int32 by default); ``shape`` defaults to ``lam``'s shape."""
    jnp = _jnp()
    typed, _ = _check_prng_key("poisson", key)
    dtype = core.default_dtype(int) if dtype is None else user_dtype(to_dtype(dtype))
    if typed.dtype != rk.key_dtype:
        raise NotImplementedError(
            f"`poisson` is only implemented for the threefry2x32 RNG, not {typed.dtype}"
        )
    shape = tuple(np.shape(lam)) if shape is None else _canon_shape(shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return _poisson(typed, lam, shape=shape, dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype", "max_iters"))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    jnp = _jnp()

    def body(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + jnp.log(u)

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        return (log_prod > -lam).any() & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, np.float32, shape)
    k = lax.while_loop(cond, body, (0, k_init, key, log_rate_init))[1]
    return (k - 1).astype(dtype)


@staged_as_jit(static_argnames=("shape", "dtype", "max_iters"))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split(key, 3)
        u = uniform(subkey_0, shape, lam.dtype) - 0.5
        v = uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, _, accepted, _ = carry
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype("bool"), shape)
    return lax.while_loop(cond, body, (0, k_init, accepted, key))[1].astype(dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _poisson(key, lam, shape, dtype):
    jnp = _jnp()
    # Knuth below 10, transformed rejection above (as TensorFlow and NumPy)
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(np.iinfo(dtype).max)
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters),
    )
    return lax.select(lam == 0, jnp.zeros_like(result), result)


# --- binomial --------------------------------------------------------------------------------

_STIRLING_TAIL = [
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
]


def _stirling_approx_tail(k):
    jnp = _jnp()
    tail = jnp.array(_STIRLING_TAIL, dtype=k.dtype)
    use_tail_values = k <= 9
    k = lax.clamp(core.Array(np.asarray(0.0, k.dtype)), k, core.Array(np.asarray(9.0, k.dtype)))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_tail_values, tail[jnp.asarray(k, dtype="int32")], approx)


def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    jnp = _jnp()
    log1minusprob = jnp.log1p(-prob)

    def body(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        geom_sum = geom_sum + geom
        return i + 1, num_geom_out, geom_sum, key

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        return (geom_sum <= count).any() & (i < max_iters)

    num_geom_init = lax.full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = lax.full_like(prob, 0, prob.dtype, shape)
    k = lax.while_loop(cond, body, (0, num_geom_init, geom_sum_init, key))[1]
    return (k - 1).astype(dtype)


def _btrs(key, count, prob, shape, dtype, max_iters):
    """Hörmann's transformed rejection with squeeze (BTRS)."""
    jnp = _jnp()
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split(key, 3)
        u = uniform(subkey_0, shape, prob.dtype)
        v = uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = (
            (m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
            + _stirling_approx_tail(m)
            + _stirling_approx_tail(count - m)
            - _stirling_approx_tail(k)
            - _stirling_approx_tail(count - k)
        )
        accept2 = v <= ub
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond(carry):
        i, accepted = carry[0], carry[2]
        return (~accepted).any() & (i < max_iters)

    k_init = lax.full_like(prob, -1, prob.dtype, shape)
    carry = (0, k_init, jnp.full(shape, False, bool), key)
    return lax.while_loop(cond, body, carry)[1].astype(dtype)


def binomial(key, n, p, shape: Sequence[int] | None = None, dtype=None):
    """Binomial(``n``, ``p``) counts, as floats (float32 by default)."""
    typed, _ = _check_prng_key("binomial", key)
    dtype = core.default_dtype(float) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    return _binomial(typed, n, p, None if shape is None else _canon_shape(shape), dtype)


def _binomial(key, count, prob, shape, dtype):  # (JAX inlines its jit: no call staged)
    from .numpy._promote import promote_dtypes_inexact

    jnp = _jnp()
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(count), np.shape(prob)))
    else:
        _check_shape("binomial", shape, np.shape(count), np.shape(prob))
    (prob,) = promote_dtypes_inexact(prob)
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)  # as numpy's binomial for a float count
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(np.finfo(dtype).max)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
        _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters),
    )
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(
        p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples, count.astype(dtype) - samples
    )


def multinomial(key, n, p, *, shape: Sequence[int] | None = None, dtype=None, unroll: int | bool = 1):
    """Multinomial counts of ``n`` trials over the categories of ``p``'s last axis: a scan of
    binomial draws, each of the remaining trials at the category's share of the remaining mass."""
    from .numpy._promote import promote_dtypes_inexact

    jnp = _jnp()
    typed, _ = _check_prng_key("multinomial", key)
    n, p = promote_dtypes_inexact(n, p)
    shape = tuple(p.shape) if shape is None else _canon_shape(shape)
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)

    def draw(remainder, ratio_key):
        ratio, k = ratio_key
        count = binomial(k, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
    keys = split(typed, ratios.shape[0])
    _, counts = lax.scan(draw, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(core.default_dtype(float) if dtype is None else dtype)
