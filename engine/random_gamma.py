"""Gamma samples (``jax.random.gamma``/``loggamma``) and the samplers built on them, as JAX 0.10.2
draws them: the ``random_gamma`` primitive runs Marsaglia and Tsang's method per element, each
element with its own key split from the call's key, rejection loops as ``while_loop``s, so the
values are JAX's.

A sample's derivative in ``a`` is ``lax.random_gamma_grad`` (implicit reparameterization), as
in JAX, so ``grad`` through ``gamma``/``beta``/``dirichlet`` works.

Example:

  >>> import engine.random as random
  >>> random.gamma(random.key(0), 2.0, (3,)).shape
  (3,)
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import ad, batching, core, lax, narrow_dtypes
from .core import Array
from .numpy._staged import staged_as_jit
from .sharding import with_out_sharding
from .random import (
    _canon_shape,
    _check_prng_key,
    _check_shape,
    _float_dtype,
    _split,
    exponential,
    normal,
    uniform,
)
from .random_samplers import _param_shape


def _const(like, value) -> Array:
    return Array(np.asarray(value, core.get_aval(like).dtype))


def _gamma_one(key, alpha, log_space: bool, folded=None):
    """One sample of Gamma(alpha) (Marsaglia & Tsang), boosting alpha < 1 to alpha + 1;
    ``folded``: ``log(d)`` as XLA's constant folding computes it for a constant alpha."""
    dtype = core.get_aval(alpha).dtype
    zero, one, two, minus_one = (_const(alpha, v) for v in (0, 1, 2, -1))
    half, third, squeeze = (_const(alpha, v) for v in (0.5, 1.0 / 3.0, 0.0331))
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, third)
    c = lax.div(third, lax.sqrt(d))

    def rejected(state):
        _, X, V, U = state
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(squeeze, lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, half), lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))),
        )

    def draw(state):
        def next_xv(kxv):
            k, sub = _split(kxv[0])
            x = normal(sub, (), dtype)
            return k, x, lax.add(one, lax.mul(x, c))

        k, x_key, u_key = _split(state[0], 3)
        _, x, v = lax.while_loop(lambda kxv: lax.le(kxv[2], zero), next_xv, (x_key, zero, minus_one))
        return k, lax.mul(x, x), lax.mul(lax.mul(v, v), v), uniform(u_key, (), dtype)

    key, subkey = _split(key)
    _, _, V, _ = lax.while_loop(rejected, draw, (key, zero, one, two))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype))
        log_boost = lax.select(
            lax.bitwise_or(boost_mask, log_samples == 0), zero, lax.mul(log_samples, lax.div(one, alpha_orig))
        )
        log_d = lax.log(d) if folded is None else _const(alpha, folded)
        return lax.add(lax.add(log_d, lax.log(V)), log_boost)
    samples = 1 - uniform(subkey, (), dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key, a, *, log_space: bool, folded=None):
    from . import numpy as jnp
    from .api import vmap

    a_shape = tuple(a.shape)
    keys = vmap(_split, in_axes=(0, None))(key.reshape(-1), math.prod(a_shape[key.ndim :])).reshape(-1)
    samples = lax.map(lambda args: _gamma_one(args[0], args[1], log_space, folded), (keys, a.reshape(-1)))
    return jnp.reshape(samples, a_shape)


random_gamma_p = core.Primitive("random_gamma")
random_gamma_p.def_impl(_gamma_impl)
random_gamma_p.def_abstract_eval(lambda key, a, *, log_space, folded=None: core.ShapedArray(a.shape, a.dtype))
# (its impl is lax operations, each rounding to a bfloat16 alpha's dtype as JAX's do: widening the
# whole sampler to float32 drew float32's samples, rounded once)
narrow_dtypes.keeps_narrow.add(random_gamma_p)


def _folded(alpha: np.ndarray) -> float:
    """``log(d)`` of a constant float32 alpha as XLA computes it while compiling (its loop over the
    samples reads the constant, so it folds it): the C library's ``logf``, where at run time it is
    XLA's log kernel, which differs in the last bit for some alphas (loggamma, beta)."""
    from .constant_folding import _apply

    f32 = np.float32
    a = f32(alpha)
    d = (a if a >= 1 else a + f32(1)) - f32(1.0 / 3.0)
    return float(_apply("log", True, [np.array([d], f32)], np.dtype(f32))[0])


def _constant_alpha(eqn, inputs, producer):
    """The simplifier's rule: a float32 alpha that broadcasts a constant samples with its folded
    constants (the program XLA runs)."""
    from .algebraic_simplifier import _constant, _eqn
    from .lax import structural as st

    alpha, broadcast = inputs[1], producer(inputs[1])  # (XLA sinks a broadcast constant into the loop)
    if (
        broadcast is None
        or broadcast.primitive is not st.broadcast_in_dim_p
        or broadcast.inputs[0].aval.shape
    ):
        return None
    if not eqn.params["log_space"] or eqn.params.get("folded") is not None or alpha.aval.dtype != np.float32:
        return None
    value = _constant(broadcast.inputs[0], producer)
    if value is None or not np.isfinite(value) or value <= 0:
        return None
    new, out = _eqn(random_gamma_p, inputs, eqn.out_binders[0].aval, {**eqn.params, "folded": _folded(value)})
    return [new], out


def _register_rule():
    from . import algebraic_simplifier

    algebraic_simplifier.rules[random_gamma_p] = _constant_alpha


_register_rule()


def _gamma_batch(size, args, dims, *, log_space):
    key, a = (batching.bdim_at_front(x, d, size) for x, d in zip(args, dims))
    return random_gamma_p.bind(key, a, log_space=log_space), 0


batching.batch_rules[random_gamma_p] = _gamma_batch


def _gamma_grad(sample, a, *, log_space):
    """d(sample)/d(a), JAX's implicit reparameterization, one element at a time (``lax.map`` over the
    flattened samples, as JAX on CPU); a log-space sample is exponentiated first (an underflow to 0
    becomes the smallest normal float, as in JAX)."""
    from . import numpy as jnp

    samples, alphas = jnp.reshape(sample, -1), jnp.reshape(a, -1)
    if log_space:
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, np.finfo(core.get_aval(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, np.array(0, core.get_aval(sample).dtype)), tiny, samples)

        def grad_one(alpha, x):
            return lax.random_gamma_grad(alpha, x) / x
    else:
        grad_one = lax.random_gamma_grad
    grads = lax.map(lambda args: grad_one(*args), (alphas, samples))
    return grads.reshape(np.shape(a))


def _gamma_jvp(tangent, ans, key, a, *, log_space):
    return lax.mul(tangent, _gamma_grad(ans, a, log_space=log_space))


ad.defjvp2(random_gamma_p, None, _gamma_jvp)


@with_out_sharding
def gamma(key, a, shape: Sequence[int] | None = None, dtype=None):
    """Gamma(``a``) samples (unit scale); ``shape`` defaults to ``a``'s shape."""
    typed, _ = _check_prng_key("gamma", key)
    dtype = _float_dtype(dtype, "gamma")
    return _gamma(typed, a, shape=None if shape is None else _canon_shape(shape), dtype=dtype)


@with_out_sharding
def loggamma(key, a, shape: Sequence[int] | None = None, dtype=None):
    """Logarithms of Gamma(``a``) samples, drawn in log space (accurate for small ``a``)."""
    typed, _ = _check_prng_key("loggamma", key)
    dtype = _float_dtype(dtype, "loggamma")
    shape = None if shape is None else _canon_shape(shape)
    return _gamma(typed, a, shape=shape, dtype=dtype, log_space=True)


@staged_as_jit(static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    from . import numpy as jnp

    if shape is None:
        shape = tuple(np.shape(a))
    else:
        _check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if tuple(np.shape(a)) != shape:
        a = jnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


# --- samplers drawn from gamma samples ---------------------------------------------------------


@with_out_sharding
def beta(key, a, b, shape: Sequence[int] | None = None, dtype=None):
    """Beta(``a``, ``b``) samples: ``Ga / (Ga + Gb)`` from log-gamma draws (no underflow)."""
    typed, _ = _check_prng_key("beta", key)
    dtype = _float_dtype(dtype, "beta")
    return _beta(typed, a, b, shape=_param_shape("beta", shape, a, b), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _beta(key, a, b, shape, dtype):
    from . import numpy as jnp

    a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    key_a, key_b = _split(key)
    a, b = jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


@with_out_sharding
def dirichlet(key, alpha, shape: Sequence[int] | None = None, dtype=None):
    """Dirichlet(``alpha``) samples over ``alpha``'s last axis: a softmax of log-gamma draws."""
    typed, _ = _check_prng_key("dirichlet", key)
    dtype = _float_dtype(dtype, "dirichlet")
    return _dirichlet(typed, alpha, shape=None if shape is None else _canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _dirichlet(key, alpha, shape, dtype):
    from .nn import softmax

    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
    if shape is None:
        shape = tuple(np.shape(alpha)[:-1])
    else:
        _check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    return softmax(loggamma(key, alpha, shape + tuple(np.shape(alpha)[-1:]), dtype), -1)


@with_out_sharding
def t(key, df, shape: Sequence[int] | None = None, dtype=None):
    """Student's t samples with ``df`` degrees of freedom: ``n * sqrt(df / 2 / g)``."""
    typed, _ = _check_prng_key("t", key)
    dtype = _float_dtype(dtype, "t")
    return _t(typed, df, shape=_param_shape("t", shape, df), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _t(key, df, shape, dtype):
    from . import numpy as jnp

    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split(key)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


@with_out_sharding
def chisquare(key, df, shape: Sequence[int] | None = None, dtype=None):
    """Chi-square samples with ``df`` degrees of freedom: twice a Gamma(df / 2) draw."""
    typed, _ = _check_prng_key("chisquare", key)
    dtype = _float_dtype(dtype, "chisquare")
    return _chisquare(typed, df, shape=_param_shape("chisquare", shape, df), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _chisquare(key, df, shape, dtype):
    from . import numpy as jnp

    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, lax.div(df, two), shape, dtype)
    return lax.mul(jnp.exp(log_g), two)


@with_out_sharding
def f(key, dfnum, dfden, shape: Sequence[int] | None = None, dtype=None):
    """F samples: the ratio of two chi-square draws, each over its degrees of freedom."""
    typed, _ = _check_prng_key("f", key)
    dtype = _float_dtype(dtype, "f")
    return _f(typed, dfnum, dfden, shape=_param_shape("f", shape, dfnum, dfden), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


@with_out_sharding
def generalized_normal(key, p, shape: Sequence[int] = (), dtype=None):
    """Generalized normal samples of power ``p``: a random sign times ``Gamma(1/p) ** (1/p)``."""
    typed, _ = _check_prng_key("generalized_normal", key)
    return _generalized_normal(
        typed, p, shape=_canon_shape(shape), dtype=_float_dtype(dtype, "generalized_normal")
    )


@staged_as_jit(static_argnames=("shape", "dtype"))
def _generalized_normal(key, p, shape, dtype):
    from .random import split
    from .random_samplers import rademacher

    keys = split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    return rademacher(keys[1], shape, dtype) * g ** (1 / p)


@with_out_sharding
def ball(key, d: int, p: float = 2, shape: Sequence[int] = (), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d`` (Barthe et al.)."""
    typed, _ = _check_prng_key("ball", key)
    dtype = _float_dtype(dtype, "ball")
    d = int(core.concrete_or_error(d, "The error occurred in jax.random.ball()"))
    return _ball(typed, p, d=d, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("d", "shape", "dtype"))
def _ball(key, p, d, shape, dtype):
    from . import numpy as jnp
    from .random import split

    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]
