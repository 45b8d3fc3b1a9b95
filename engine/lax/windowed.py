"""Convolutions and window reductions: ``conv_general_dilated``, ``conv``, ``reduce_window``.

Built from existing primitives (``pad``, strided ``slice``, ``concatenate``, ``dot_general``,
reductions), so differentiation and batching come from their rules: a convolution gathers every
kernel offset's strided window of the (padded, dilated) input into one patches array and contracts
it with the kernel in a single ``dot_general``; a window reduction reduces the stacked windows.
Their jaxprs therefore show those primitives, not JAX's single ``conv_general_dilated`` /
``reduce_window_max`` equations.

  >>> x = jnp.ones((1, 5, 5, 1)); w = jnp.ones((3, 3, 1, 2))
  >>> conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")).shape
  (1, 5, 5, 2)
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple, Sequence

import numpy as np

from .. import core
from . import api


class ConvDimensionNumbers(NamedTuple):
    """Where the batch/feature/spatial dimensions are: ``lhs_spec = (N, C, spatial...)``,
    ``rhs_spec = (O, I, spatial...)``, ``out_spec = (N, C, spatial...)`` as dimension indices."""

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """Normalise ``None``, a ``ConvDimensionNumbers`` or a triple of strings like
    ``("NHWC", "HWIO", "NHWC")`` (spatial dimensions ordered as in the kernel's string)."""
    nd = len(lhs_shape)
    if len(rhs_shape) != nd:
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}"
        )
    if dimension_numbers is None:
        iota = tuple(range(nd))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    lhs, rhs, out = dimension_numbers
    if not all(isinstance(s, str) for s in (lhs, rhs, out)):
        return ConvDimensionNumbers(tuple(lhs), tuple(rhs), tuple(out))
    for spec, need in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if len(spec) != nd or any(c not in spec for c in need):
            raise TypeError(f"convolution dimension_numbers {dimension_numbers} do not fit rank {nd}")
    rhs_spatial = [c for c in rhs if c not in "OI"]

    def perm(spec, first, second):
        spatial = sorted(
            (i for i, c in enumerate(spec) if c not in (first, second)),
            key=lambda i: rhs_spatial.index(spec[i]),
        )
        return (spec.index(first), spec.index(second), *spatial)

    return ConvDimensionNumbers(perm(lhs, "N", "C"), perm(rhs, "O", "I"), perm(out, "N", "C"))


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """``'SAME'``/``'SAME_LOWER'``/``'VALID'`` as explicit ``(low, high)`` pads per dimension."""
    if not isinstance(padding, str):
        return [tuple(p) for p in padding]
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise TypeError(f"Unknown padding type: {padding}.")
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        total = max(0, (out - 1) * s + w - n)
        lo = total // 2 if kind == "SAME" else total - total // 2
        pads.append((lo, total - lo))
    return pads


def _out_size(n, k, s):
    return (n - k) // s + 1 if n >= k else 0


def _canonical(shape, spec):
    return tuple(shape[i] for i in spec)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of ``conv_general_dilated`` (no dilation), laid out as ``out_spec``."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs, rhs = _canonical(lhs_shape, dn.lhs_spec), _canonical(rhs_shape, dn.rhs_spec)
    pads = padtype_to_pads(lhs[2:], rhs[2:], window_strides, padding)
    spatial = [
        _out_size(n + lo + hi, k, s) for n, k, s, (lo, hi) in zip(lhs[2:], rhs[2:], window_strides, pads)
    ]
    canonical = (lhs[0], rhs[0], *spatial)
    out = [0] * len(canonical)
    for pos, dim in enumerate(dn.out_spec):
        out[dim] = canonical[pos]
    return tuple(out)


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


def conv_general_dilated(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding,
    lhs_dilation=None,
    rhs_dilation=None,
    dimension_numbers=None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision=None,
    preferred_element_type=None,
):
    """General n-d convolution (cross-correlation, as XLA's): strides, ``'SAME'``/``'VALID'`` or
    explicit padding, input (``lhs_dilation``) and kernel (``rhs_dilation``) dilation.

    >>> conv_general_dilated(jnp.ones((1, 1, 4)), jnp.ones((1, 1, 2)), (1,), "VALID")
    Array([[[2., 2., 2.]]], dtype=float32)
    """
    if feature_group_count != 1 or batch_group_count != 1:
        raise NotImplementedError(
            "conv_general_dilated: feature_group_count/batch_group_count other than 1 are not supported "
            "by the engine yet"
        )
    lhs_shape, rhs_shape = core.get_aval(lhs).shape, core.get_aval(rhs).shape
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nspatial = len(lhs_shape) - 2
    window_strides = tuple(window_strides) or (1,) * nspatial
    lhs_dilation = tuple(lhs_dilation or (1,) * nspatial)
    rhs_dilation = tuple(rhs_dilation or (1,) * nspatial)
    x = api.transpose(lhs, dn.lhs_spec)  # (N, C, *S)
    w = api.transpose(rhs, dn.rhs_spec)  # (O, I, *K)
    xs, ws = core.get_aval(x).shape, core.get_aval(w).shape
    if xs[1] != ws[1]:
        raise TypeError(
            f"conv_general_dilated: lhs feature dimension ({xs[1]}) must equal the rhs input feature "
            f"dimension ({ws[1]}); lhs shape {lhs_shape}, rhs shape {rhs_shape}"
        )
    dilated = [(n - 1) * d + 1 for n, d in zip(xs[2:], lhs_dilation)]
    eff = [(k - 1) * d + 1 for k, d in zip(ws[2:], rhs_dilation)]
    pads = padtype_to_pads(dilated, eff, window_strides, padding)
    if any(lo or hi for lo, hi in pads) or any(d != 1 for d in lhs_dilation):
        zero = np.zeros((), core.get_aval(x).dtype)
        config = [(0, 0, 0), (0, 0, 0)] + [(lo, hi, d - 1) for (lo, hi), d in zip(pads, lhs_dilation)]
        x = api.pad(x, zero, config)
    patches = _window_patches(x, ws[2:], window_strides, rhs_dilation)  # (N, C, K, *O)
    kernel = api.reshape(w, (ws[0], ws[1], math.prod(ws[2:])))  # (O, I, K)
    out = api.dot_general(
        patches,
        kernel,
        (((1, 2), (1, 2)), ((), ())),
        precision=precision,
        preferred_element_type=preferred_element_type,
    )  # (N, *O, O_feat)
    nd = len(lhs_shape)
    canonical = api.transpose(out, (0, nd - 1, *range(1, nd - 1)))  # (N, O_feat, *O)
    inverse = tuple(int(i) for i in np.argsort(dn.out_spec))
    return api.transpose(canonical, inverse)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in NCHW/OIHW layout without dilation."""
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, precision=precision, preferred_element_type=preferred_element_type
    )


def conv_with_general_padding(
    lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None, preferred_element_type=None
):
    """``conv_general_dilated`` in NCHW/OIHW layout."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


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
    operand, init_value, computation, window_dimensions, window_strides, padding, base_dilation=None,
    window_dilation=None,
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
    window_dimensions, window_strides = tuple(window_dimensions), tuple(window_strides)
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
