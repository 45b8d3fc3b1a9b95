"""``jax.nn.dot_product_attention``: softmax(Q K^T * scale + bias, masked) V, with grouped heads.

Written with einsums, ``where`` and ``softmax`` (JAX's 'xla' implementation), so it traces,
differentiates and batches; the cuDNN implementation is refused with a clear error.
"""

from __future__ import annotations

import functools

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


def _large_negative(dtype):
    # (capped at float32's range: the softmax runs in float32 and must not see -inf)
    biggest = min(float(jnp.finfo(dtype).max), float(jnp.finfo(np.float32).max))
    return jnp.asarray(-0.7 * biggest, dtype=dtype)


def _masked(logits, mask, is_causal, q_len, kv_len, window):
    """``logits`` (B, N, T, S) with the logits no mask keeps replaced by a large negative number."""
    if mask is None and not is_causal and q_len is None and kv_len is None and window is None:
        return logits
    keep = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        keep = jnp.logical_and(keep, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        keep = jnp.logical_and(keep, jnp.tril(jnp.ones((T, S), dtype=bool))[None, None, :, :])
    if window is not None:
        q_pos, k_pos = jnp.array(range(T)), jnp.array(range(S))
        left, right = window
        near_left = q_pos[..., None] <= k_pos[..., None, :] + left
        near_right = q_pos[..., None] >= k_pos[..., None, :] - right
        keep = jnp.logical_and(keep, jnp.logical_and(near_right, near_left)[None, None, :, :])
    if q_len is not None or kv_len is not None:
        padding = _padding_keep(T, S, q_len, kv_len)
        keep = jnp.logical_and(keep, padding)
    return jnp.where(keep, logits, _large_negative(logits.dtype))


def _padding_keep(T, S, q_len, kv_len):
    q_keep: object = True
    kv_keep: object = True
    if q_len is not None:
        q_keep = jnp.arange(0, T)[None, :, None] < q_len[:, None, None]
    if kv_len is not None:
        kv_keep = jnp.arange(0, S)[None, None, :] < kv_len[:, None, None]
    return jnp.logical_and(q_keep, kv_keep)[:, None, :, :]


def _attention_core(query, key, value, bias, mask, *, is_causal, scale, q_len, kv_len, window, residual):
    """One group of query heads: (B, T, K, H) queries against (B, S, K, H) keys and values."""
    from . import logsumexp, softmax

    logits_dtype = jnp.promote_types(query.dtype, np.float32)
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits *= jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    logits = _masked(logits, mask, is_causal, q_len, kv_len, window).astype(np.float32)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_len is not None:
        keep = (jnp.arange(0, encoded.shape[1])[None, :] < q_len[:, None])[:, :, None, None]
        encoded *= keep.astype(encoded.dtype)
    if not residual:
        return encoded
    lse = jnp.transpose(logsumexp(logits, axis=-1).astype(key.dtype), (0, 2, 1))  # B N T -> B T N
    return encoded, lax.stop_gradient(lse)


def _attention_xla(query, key, value, bias, mask, **static):
    """JAX's 'xla' implementation: the core mapped (vmap) over the G query heads of each K head."""
    from ..api import vmap

    B, T, N, H = query.shape
    K = key.shape[2]
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def grouped(t):  # (B|1, N|1, T|1, S|1) -> (B|1, K|1, G, T|1, S|1), query head n = k * G + g
        if t is None:
            return t
        tB, tN, tT, tS = t.shape
        if tN == 1:
            return jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
        return jnp.reshape(t, (tB, K, G, tT, tS))

    core = functools.partial(_attention_core, **static)
    out = vmap(core, in_axes=(3, None, None, 2, 2), out_axes=3)(
        query, key, value, grouped(bias), grouped(mask)
    )
    if static["residual"]:
        encoded, lse = out
        return jnp.reshape(encoded, (B, T, N, H)), jnp.reshape(lse, (B, T, N))
    return jnp.reshape(out, (B, T, N, H))


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
    if q.shape[-2] % K != 0:
        raise ValueError(
            f"The number of query heads must be a multiple of key/value heads, but got {q.shape[-2]} vs {K}"
        )
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    static = dict(
        is_causal=is_causal,
        scale=scale,
        q_len=q_len,
        kv_len=kv_len,
        window=local_window_size,
        residual=return_residual,
    )
    out = _attention_xla(q, k, v, bias, mask, **static)
    if not return_residual:
        return jnp.reshape(out, out_shape)
    encoded, lse = out
    return jnp.reshape(encoded, out_shape), jnp.reshape(lse, out_shape[:-1])
