"""``log Gamma`` and ``Gamma`` of complex arguments (``jax.scipy.special.loggamma``/``gamma``), as JAX
0.10.2 computes them: the Lanczos approximation (g = 7, nine terms: the coefficients GSL publishes),
with the reflection formula left of Re z = 1/2.

``loggamma`` is scipy's principal branch, cut along the negative real axis only: it first moves z right
by n (to Re z >= 1/2) and subtracts log z + log(z + 1) + ... + log(z + n - 1), so the imaginary part
accumulates continuously instead of wrapping. Poles (0, -1, -2, ...) and NaNs give nan + nan j.
``lax.lgamma`` takes real arguments only, as in JAX.
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..jit import jit
from ..lax.igamma_stalled import LANCZOS as _C
from ..lax.igamma_stalled import LANCZOS_G as _G


def _lanczos_loggamma(z):
    """log Gamma(z) by Lanczos for Re z >= 1/2, by reflection (pi / (sin(pi z) Gamma(1 - z))) left of it."""
    dtype = z.dtype
    reflect = jnp.real(z) < 0.5
    w = jnp.where(reflect, 1.0 - z, z) - 1.0
    terms = jnp.asarray(np.array(_C[1:]), dtype) / (w[..., None] + jnp.arange(1, len(_C), dtype=dtype))
    series = _C[0] + jnp.sum(terms, axis=-1)
    t = w + _G + 0.5
    half_log_2pi = jnp.asarray(0.5 * np.log(2.0 * np.pi), dtype)  # (a numpy float64 would promote z)
    right = half_log_2pi + (w + 0.5) * jnp.log(t) - t + jnp.log(series)
    # (z in the other branch is replaced so that its unused value is finite: no NaN leaks into gradients)
    z_left = jnp.where(reflect, z, jnp.full_like(z, 0.5))
    left = jnp.log(jnp.asarray(np.pi, dtype)) - jnp.log(jnp.sin(np.pi * z_left)) - right
    return jnp.where(reflect, left, right)


def _nan_at_poles(z):
    """Where z is NaN or a pole of Gamma (a non-positive integer), and z with those replaced by 1."""
    pole = (jnp.imag(z) == 0) & (jnp.real(z) == jnp.floor(jnp.real(z))) & (jnp.real(z) <= 0)
    bad = pole | jnp.isnan(z)
    return bad, jnp.where(bad, jnp.ones_like(z), z)


@jit
def complex_loggamma(z):
    """scipy's principal branch of log Gamma(z) for complex z (see the module docstring)."""
    bad, z = _nan_at_poles(z)
    shift = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(z)).astype(int))

    def more(state):
        return jnp.any(state[0] < shift)

    def add_log(state):
        k, logs = state
        active = k < shift
        zk = jnp.where(active, z + k, jnp.ones_like(z))
        return k + 1, logs + jnp.where(active, jnp.log(zk), jnp.zeros_like(logs))

    _, logs = lax.while_loop(more, add_log, (0, jnp.zeros_like(z)))
    out = _lanczos_loggamma(z + shift) - logs
    return jnp.where(bad, jnp.array(complex(np.nan, np.nan), z.dtype), out)


def complex_gamma(z):
    """Gamma(z) for complex z: exp of the Lanczos log Gamma; nan + nan j at the poles and NaNs."""
    bad, z = _nan_at_poles(z)
    return jnp.where(bad, jnp.array(complex(np.nan, np.nan), z.dtype), jnp.exp(_lanczos_loggamma(z)))
