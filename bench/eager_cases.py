"""Common eager (un-jitted) ``jnp`` operations on small arrays, written once for the engine, the real
JAX (in the side venv) and numpy: ``eager_op(module, op)`` returns the callable timed as ``op``.
Both JAX-like sides block on the result (JAX dispatches asynchronously; the engine's eager arrays
are ready already, its ``block_until_ready`` returns itself).
"""

from __future__ import annotations

import numpy as np


def _inputs(np_like):
    rng = np.random.default_rng(0)
    v = rng.normal(size=100).astype(np.float32)
    m = rng.normal(size=(32, 32)).astype(np.float32)
    n = rng.normal(size=(32, 32)).astype(np.float32)
    return np_like.asarray(v), np_like.asarray(m), np_like.asarray(n)


# op -> (description, f(jnp-like, nn-like, v: f32[100], m: f32[32,32], n: f32[32,32]))
OPS = {
    "sum": ("jnp.sum(v), f32[100]", lambda np_, nn, v, m, n: np_.sum(v)),
    "mean": ("jnp.mean(m), f32[32,32]", lambda np_, nn, v, m, n: np_.mean(m)),
    "max": ("jnp.max(m, axis=1), f32[32,32]", lambda np_, nn, v, m, n: np_.max(m, axis=1)),
    "matmul": ("m @ n, f32[32,32]", lambda np_, nn, v, m, n: m @ n),
    "softmax": ("jax.nn.softmax(m), f32[32,32]", lambda np_, nn, v, m, n: nn.softmax(m)),
    "log_softmax": ("jax.nn.log_softmax(m), f32[32,32]", lambda np_, nn, v, m, n: nn.log_softmax(m)),
    "where": ("jnp.where(v > 0, v, 0.0), f32[100]", lambda np_, nn, v, m, n: np_.where(v > 0, v, 0.0)),
    "clip": ("jnp.clip(v, -1.0, 1.0), f32[100]", lambda np_, nn, v, m, n: np_.clip(v, -1.0, 1.0)),
    "reshape_t": ("m.reshape(16, 64).T, f32[32,32]", lambda np_, nn, v, m, n: m.reshape(16, 64).T),
    "index": ("m[3], f32[32,32]", lambda np_, nn, v, m, n: m[3]),
    "slice": ("m[:, 1:], f32[32,32]", lambda np_, nn, v, m, n: m[:, 1:]),
    "concat": ("jnp.concatenate([v, v]), f32[100]", lambda np_, nn, v, m, n: np_.concatenate([v, v])),
    "exp": ("jnp.exp(v), f32[100]", lambda np_, nn, v, m, n: np_.exp(v)),
    "astype": ("v.astype(int32), f32[100]", lambda np_, nn, v, m, n: v.astype(np.int32)),
}


def eager_op(jax, op: str):
    """``OPS[op]`` on the engine or JAX, blocking on the result."""
    v, m, n = _inputs(jax.numpy)
    v, m, n = v + 0, m + 0, n + 0  # materialized arrays on both sides
    f = OPS[op][1]
    jnp, nn = jax.numpy, jax.nn
    return lambda: f(jnp, nn, v, m, n).block_until_ready()


def _np_softmax(m):
    e = np.exp(m - m.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _np_log_softmax(m):
    s = m - m.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


class _NumpyNN:
    softmax = staticmethod(_np_softmax)
    log_softmax = staticmethod(_np_log_softmax)


def numpy_op(jax=None, op: str = "sum"):
    """numpy's own ``OPS[op]`` (engine side only: the floor of each row)."""
    v, m, n = _inputs(np)
    f = OPS[op][1]
    return lambda: f(np, _NumpyNN, v, m, n)
