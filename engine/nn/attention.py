"""``jax.nn.dot_product_attention``: softmax(Q K^T * scale + bias, masked) V, with grouped heads.

Written with einsums, ``where`` and ``softmax`` (JAX's 'xla' implementation), so it traces,
differentiates and batches; the cuDNN implementation is refused with a clear error.
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp

__all__ = ["dot_product_attention"]


def _as_4d(t):
    t = jnp.asarray(t)
    return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t


def _check(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want != -1 and got != want for got, want in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def _keep_mask(B, N, T, S, mask, is_causal, window, q_len, kv_len):
    """The (B|1, N|1, T, S) boolean of logits kept, or None when all are."""
    keep = None

    def both(m):
        return m if keep is None else jnp.logical_and(keep, m)

    if mask is not None:
        keep = both(mask)
    if is_causal:
        keep = both(jnp.tril(jnp.ones((T, S), dtype=bool))[None, None])
    if window is not None:
        left, right = window
        q, k = jnp.arange(T)[:, None], jnp.arange(S)[None, :]
        keep = both(jnp.logical_and(q >= k - right, q <= k + left)[None, None])
    if q_len is not None or kv_len is not None:
        m = jnp.ones((1, T, S), dtype=bool)
        if q_len is not None:
            m = jnp.logical_and(m, jnp.arange(T)[None, :, None] < q_len[:, None, None])
        if kv_len is not None:
            m = jnp.logical_and(m, jnp.arange(S)[None, None, :] < kv_len[:, None, None])
        keep = both(m[:, None])
    return keep


def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    *,
    scale=None,
    is_causal: bool = False,
    query_seq_lengths=None,
    key_value_seq_lengths=None,
    local_window_size=None,
    implementation=None,
    return_residual: bool = False,
):
    """Scaled dot-product attention, as ``jax.nn.dot_product_attention``.

    Shapes: ``query`` (B, T, N, H), ``key``/``value`` (B, S, K, H) with N a multiple of K (grouped
    query attention), or the same without the batch dimension. ``bias`` and boolean ``mask``
    broadcast to (B, N, T, S); ``scale`` defaults to ``1/sqrt(H)``. ``query_seq_lengths`` /
    ``key_value_seq_lengths`` (int32, shape (B,)) mask padding; ``local_window_size`` (left, right)
    keeps keys near each query. With ``return_residual`` the log-sum-exp of the logits (B, T, N)
    is returned too.

    >>> q = jnp.ones((1, 2, 1, 4))
    >>> dot_product_attention(q, q, jnp.arange(8.0).reshape(1, 2, 1, 4), is_causal=True)[0, :, 0]
    Array([[0., 1., 2., 3.],
           [2., 3., 4., 5.]], dtype=float32)
    """
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("implementation='cudnn' needs an NVIDIA GPU; the engine runs 'xla'")
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out_shape = jnp.asarray(query).shape
    q, k, v = _as_4d(query), _as_4d(key), _as_4d(value)
    bias = _as_4d(bias) if bias is not None else None
    mask = _as_4d(mask) if mask is not None else None
    q_len = jnp.asarray(query_seq_lengths) if query_seq_lengths is not None else None
    kv_len = jnp.asarray(key_value_seq_lengths) if key_value_seq_lengths is not None else None
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_len, [B], np.dtype("int32"), "query_seq_lengths")
    _check(kv_len, [B], np.dtype("int32"), "key_value_seq_lengths")
    T, N = q.shape[1], q.shape[2]
    if N % K != 0:
        raise ValueError(
            f"The number of query heads must be a multiple of key/value heads, but got {N} vs {K}"
        )
    G = N // K
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    logits_dtype = jnp.promote_types(q.dtype, np.float32)
    qg = jnp.reshape(q, (B, T, K, G, H))
    logits = jnp.einsum("BTKGH,BSKH->BKGTS", qg, k).astype(logits_dtype)
    logits = logits * jnp.array(scale, dtype=logits.dtype)

    def grouped(t):  # (B|1, N|1, T|1, S|1) -> (B|1, K|1, G|1, T|1, S|1), query head n = k * G + g
        if t.shape[1] == 1:
            return t[:, :, None]
        return jnp.reshape(t, (t.shape[0], K, G) + t.shape[2:])

    if bias is not None:
        logits = (logits + grouped(bias)).astype(logits.dtype)
    keep = _keep_mask(B, N, T, S, mask, is_causal, local_window_size, q_len, kv_len)
    if keep is not None:
        big_negative = jnp.asarray(-0.7 * jnp.finfo(logits.dtype).max, dtype=logits.dtype)
        logits = jnp.where(grouped(keep), logits, big_negative)
    logits = logits.astype(np.float32)
    from . import logsumexp, softmax

    probs = softmax(logits, axis=-1).astype(k.dtype)
    encoded = jnp.einsum("BKGTS,BSKH->BTKGH", probs, v)
    if q_len is not None:
        encoded = encoded * (jnp.arange(T)[None, :] < q_len[:, None])[:, :, None, None, None].astype(
            encoded.dtype
        )
    encoded = jnp.reshape(encoded, out_shape)
    if not return_residual:
        return encoded
    lse = logsumexp(logits, axis=-1).astype(k.dtype)  # (B, K, G, T)
    lse = jnp.reshape(jnp.moveaxis(lse, 3, 1), (B, T, N))
    return encoded, jnp.reshape(lax.stop_gradient(lse), out_shape[:-1])
