"""``jax.nn.initializers``: functions ``init(key, shape, dtype=None) -> Array`` for parameters.

The same draws as JAX (same PRNG calls, same scaling), so a network initialised here starts from
JAX's numbers.

  >>> import engine as jax
  >>> w = jax.nn.initializers.glorot_normal()(jax.random.key(0), (3, 4))
  >>> w.shape
  (3, 4)
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..narrow_dtypes import kind as dtype_kind

from .. import core, narrow_dtypes
from .. import numpy as jnp
from .. import random


def _dtype(dtype):
    return np.dtype("float32") if dtype is None else narrow_dtypes.to_dtype(dtype)


def zeros(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns zeros: ``zeros(key, (2, 3))``."""
    return jnp.zeros(shape, _dtype(dtype), out_sharding=out_sharding)


def ones(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns ones: ``ones(key, (2, 3))``."""
    return jnp.ones(shape, _dtype(dtype), out_sharding=out_sharding)


def constant(value, dtype=None):
    """Builds an initializer that fills with ``value``: ``constant(-7.)(key, (2, 3))``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_dtype(dtype), device=out_sharding)  # (JAX's: as a device)

    return init


def uniform(scale=1e-2, dtype=None):
    """Builds an initializer drawing uniformly from ``[0, scale)``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        return random.uniform(key, shape, d, out_sharding=out_sharding) * jnp.array(scale, d)

    return init


def normal(stddev=1e-2, dtype=None):
    """Builds an initializer drawing from a normal distribution with standard deviation ``stddev``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        return random.normal(key, shape, d, out_sharding=out_sharding) * jnp.array(stddev, d)

    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """Builds an initializer drawing from a normal truncated to ``(lower, upper)``, times ``stddev``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        out = random.truncated_normal(key, lower, upper, shape, d, out_sharding=out_sharding)
        return out * jnp.array(stddev, d)

    return init


def _size(shape, axes):
    return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()):
    """Fan-in and fan-out; axes in none of the three are the receptive field (kernel spatial dims)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(
            f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor with "
            "default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    in_size, out_size, batch_size = _size(shape, in_axis), _size(shape, out_axis), _size(shape, batch_axis)
    receptive_field_size = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field_size, out_size * receptive_field_size


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Builds an initializer with standard deviation ``sqrt(scale / n)``, ``n`` set by ``mode``
    (``fan_in``, ``fan_out``, ``fan_avg``, ``fan_geo_avg``); ``distribution`` is
    ``truncated_normal`` (cut at 2 standard deviations), ``normal`` or ``uniform``.

      >>> init = variance_scaling(2.0, "fan_in", "truncated_normal")
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = tuple(int(s) for s in shape)
        d = _dtype(dtype)
        if dtype_kind(d) != "f":
            raise NotImplementedError(f"variance_scaling: dtype {d} is not supported (only real floats)")
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=d)
        if distribution == "truncated_normal":
            # .8796... is the standard deviation of a standard normal truncated to (-2, 2)
            stddev = jnp.sqrt(variance) / jnp.array(0.87962566103423978, d)
            return random.truncated_normal(key, -2, 2, shape, d, out_sharding=out_sharding) * stddev
        if distribution == "normal":
            return random.normal(key, shape, d, out_sharding=out_sharding) * jnp.sqrt(variance)
        if distribution == "uniform":
            return random.uniform(key, shape, d, -1, out_sharding=out_sharding) * jnp.sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _scaling(scale, mode, distribution):
    def make(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)

    make.__name__ = f"{mode}_{distribution}"
    make.__doc__ = f"``variance_scaling({scale}, {mode!r}, {distribution!r}, ...)``."
    return make


glorot_uniform = xavier_uniform = _scaling(1.0, "fan_avg", "uniform")
glorot_normal = xavier_normal = _scaling(1.0, "fan_avg", "truncated_normal")
lecun_uniform = _scaling(1.0, "fan_in", "uniform")
lecun_normal = _scaling(1.0, "fan_in", "truncated_normal")
he_uniform = kaiming_uniform = _scaling(2.0, "fan_in", "uniform")
he_normal = kaiming_normal = _scaling(2.0, "fan_in", "truncated_normal")


class Initializer:
    """What the functions here return: ``init(key, shape, dtype=None) -> Array`` (a protocol, for
    annotations)."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None):
    """An initializer of (semi-)orthogonal matrices: the array reshaped to (rows, ``column_axis``'s
    size) has orthonormal rows or columns, times ``scale``.

    >>> w = orthogonal()(jax.random.key(0), (3, 3))
    >>> bool(jnp.allclose(w @ w.T, jnp.eye(3), atol=1e-5))
    True
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("out_sharding for the orthogonal initializer")
        dtype = core.default_dtype(float) if dtype is None else dtype
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(dim == 0 for dim in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = random.orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return jnp.array(scale, dtype) * jnp.moveaxis(q, -1, column_axis)

    return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None):
    """An initializer for 1-3-d convolution kernels (3-5-d shapes): zero except an orthogonal
    (in, out) matrix at the spatial centre."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("out_sharding for the delta_orthogonal initializer")
        dtype = core.default_dtype(float) if dtype is None else dtype
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(matrix)

    return init
