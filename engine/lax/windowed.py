"""Window reductions: ``reduce_window`` (max/sum/min/product pooling).

Built from existing primitives (``pad``, strided ``slice``, ``concatenate``, reductions), so
differentiation and batching come from their rules: every window offset's strided slice of the
(padded, dilated) input is stacked and reduced. Their jaxprs therefore show those primitives, not
JAX's single ``reduce_window_max`` equations. (Convolutions are the ``conv_general_dilated``
primitive, in ``convolution.py``.)

  >>> reduce_window(jnp.arange(4.), -jnp.inf, lax.max, (2,), (1,), "VALID")
  Array([1., 2., 3.], dtype=float32)
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import core
from . import api
from .convolution import padtype_to_pads


def _out_size(n, k, s):
    return (n - k) // s + 1 if n >= k else 0


def _window_patches(x, window, strides, dilation):
    """``x`` (N, C, *S) -> (N, C, prod(window), *O): every window offset's strided slice."""
    shape = core.get_aval(x).shape
    spatial = shape[2:]
    eff = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    out = [_out_size(n, e, s) for n, e, s in zip(spatial, eff, strides)]
    patches = []
    for offset in itertools.product(*[range(k) for k in window]):
        start = [o * d for o, d in zip(offset, dilation)]
        limit = [st + (m - 1) * s + 1 if m else st for st, m, s in zip(start, out, strides)]
        piece = api.slice(x, (0, 0, *start), (shape[0], shape[1], *limit), (1, 1, *strides))
        patches.append(api.expand_dims(piece, (2,)))
    return api.concatenate(patches, 2) if len(patches) > 1 else patches[0]


# --- reduce_window -------------------------------------------------------------------------------


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding, base_dilation=None,
                              window_dilation=None):  # fmt: skip
    """The output shape of ``reduce_window`` with explicit ``(low, high)`` padding."""
    nd = len(operand_shape)
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    out = []
    for n, k, s, (lo, hi), bd, wd in zip(
        operand_shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    ):
        out.append(_out_size((n - 1) * bd + 1 + lo + hi, (k - 1) * wd + 1, s))
    return tuple(out)


def _monoid(computation):
    """The reduction primitive for a known binary ``computation`` (as JAX specialises them)."""
    if computation is api.max:
        return api.reduce_max
    if computation is api.add:
        return api.reduce_sum
    if computation is api.min:
        return api.reduce_min
    if computation is api.mul:
        return api.reduce_prod
    raise NotImplementedError(
        f"reduce_window: only lax.add, lax.max, lax.min and lax.mul computations are supported, got {computation!r}"
    )


def reduce_window(
    operand, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
    base_dilation=None, window_dilation=None,
):  # fmt: skip
    """Reduce every window of ``operand`` with ``computation`` (``lax.max`` for max pooling,
    ``lax.add`` for sum pooling), starting from ``init_value``.

    >>> reduce_window(jnp.arange(4.), -jnp.inf, lax.max, (2,), (1,), "VALID")
    Array([1., 2., 3.], dtype=float32)
    """
    if isinstance(operand, (list, tuple)):
        raise NotImplementedError(
            "reduce_window over a pytree of operands is not supported by the engine yet"
        )
    reduce = _monoid(computation)
    shape = core.get_aval(operand).shape
    nd = len(shape)
    window_dimensions = tuple(window_dimensions)
    window_strides = tuple(window_strides or (1,) * nd)  # (default: every window, as JAX)
    base_dilation = tuple(base_dilation or (1,) * nd)
    window_dilation = tuple(window_dilation or (1,) * nd)
    dilated = [(n - 1) * d + 1 for n, d in zip(shape, base_dilation)]
    eff = [(k - 1) * d + 1 for k, d in zip(window_dimensions, window_dilation)]
    pads = padtype_to_pads(dilated, eff, window_strides, padding)
    dtype = core.get_aval(operand).dtype
    init = init_value if isinstance(init_value, (core.Tracer, core.Array)) else np.asarray(init_value, dtype)
    x = operand
    if any(lo or hi for lo, hi in pads) or any(d != 1 for d in base_dilation):
        x = api.pad(x, init, [(lo, hi, d - 1) for (lo, hi), d in zip(pads, base_dilation)])
    # Two leading unit dimensions give the (N, C, *S) layout the window gatherer expects.
    x = api.reshape(x, (1, 1, *core.get_aval(x).shape))
    windows = _window_patches(x, window_dimensions, window_strides, window_dilation)  # (1, 1, K, *O)
    out = reduce(windows, (0, 1, 2))
    identity = {api.reduce_max: -np.inf, api.reduce_sum: 0, api.reduce_min: np.inf, api.reduce_prod: 1}[
        reduce
    ]
    if isinstance(init, np.ndarray) and init == identity:
        return out  # the identity changes nothing
    return computation(out, init)
