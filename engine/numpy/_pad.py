"""``jnp.pad``: a table of padding modes, each building its padding one axis at a time.

Every mode but a callable one runs under one ``jit[name=_pad]`` taking the array and the
constant fill as its arguments (the other options are static), as JAX's does, so a jaxpr shows
the same nested jit and the same slices, repeats, flips and concatenations inside it.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import core, lax, transfers
from ..narrow_dtypes import kind as dtype_kind
from ._promote import as_operand, check_arraylike, convert
from ._staged import staged_as_jit


def _pairs(values, nd: int, name: str) -> tuple:
    """``values`` as ``nd`` (before, after) pairs: numpy's shapes (nd, 2), (1, 2), (2,), (1,), ()."""

    def concrete(v):
        if isinstance(v, (list, tuple)):
            return [concrete(x) for x in v]
        return core.concrete_or_error(v, f"{name} argument of jnp.pad") if isinstance(v, core.Tracer) else v

    try:
        values = np.asarray(concrete(values))
    except ValueError as e:
        raise TypeError(f"`{name}` entries must be the same shape: {values}") from e
    if values.shape == (nd, 2):
        return tuple((v[0], v[1]) for v in values)
    if values.shape in ((1, 2), (2,)):
        pair = tuple(values.reshape(2))
        return (pair,) * nd
    if values.shape in ((1,), ()):
        v = values.reshape(())[()]
        return ((v, v),) * nd
    raise ValueError(
        f"jnp.pad: {name} with nd={nd} has unsupported shape {values.shape}. "
        f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ()."
    )


def _refuse_empty_axis(widths, mode: str):
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _edge(a, axis, before: bool):
    """The first (last) element along ``axis``, the axis kept."""
    return lax.slice_in_dim(a, 0, 1, axis=axis) if before else lax.slice_in_dim(a, -1, None, axis=axis)


def _pad_constant(a, pad_width, constant_values):
    from ._creation import asarray

    fill = convert(asarray(constant_values), a.dtype, a.weak_type)
    if fill.ndim == 0:
        return lax.pad(a, fill, [(lo, hi, 0) for lo, hi in pad_width])
    if fill.ndim == 1 and fill.shape[-1] == 1:
        from ._shape import squeeze

        return lax.pad(a, squeeze(fill), [(lo, hi, 0) for lo, hi in pad_width])
    if fill.ndim == 1 and fill.shape[-1] != 2:
        raise ValueError(
            f"jnp.pad: constant_values has unsupported shape {fill.shape}. If the shape is 1D or 2D, "
            "the last dimension must be of size 1 or 2."
        )
    from ._shape import broadcast_to

    fill = broadcast_to(fill, (a.ndim, 2))
    for i, (lo, hi) in enumerate(pad_width):
        for side, width in ((0, lo), (1, hi)):
            if width != 0:
                config = [(0, 0, 0)] * a.ndim
                config[i] = (width, 0, 0) if side == 0 else (0, width, 0)
                a = lax.pad(a, fill[i, side], config)
    return a


def _pad_wrap(a, pad_width):
    for i, (lo, hi) in enumerate(pad_width):
        n = a.shape[i]
        if n == 0:
            _refuse_empty_axis((lo, hi), "wrap")
            continue
        (lo_repeats, lo_rest), (hi_repeats, hi_rest) = divmod(lo, n), divmod(hi, n)
        parts = [lax.slice_in_dim(a, n - lo_rest, n, axis=i)] if lo_rest > 0 else []
        parts += [a] * (lo_repeats + hi_repeats + 1)
        parts += [lax.slice_in_dim(a, 0, hi_rest, axis=i)] if hi_rest > 0 else []
        a = lax.concatenate(parts, i)
    return a


def _reflected(a, axis, n, width, before, mode, odd):
    """``a`` with ``width`` mirrored elements joined before (after) it along ``axis``: mirror images
    of at most the unpadded length ``n`` at a time, each of the array grown so far (numpy's order)."""
    from ._shape import flip

    offset = 1 if (mode == "reflect" and n > 1) else 0  # 'reflect' leaves the edge out of the mirror
    edge = _edge(a, axis, before)
    while width > 0:
        step = builtins.min(width, n - offset)
        width -= step
        if before:
            x = lax.slice_in_dim(a, offset, offset + step, axis=axis)
        else:
            stop = None if (mode == "symmetric" or n == 1) else -1
            x = lax.slice_in_dim(a, -(step + offset), stop, axis=axis)
        x = flip(x, axis=axis)
        if odd:  # reflect_type='odd': the mirror image reflected through the edge value too
            x = 2 * edge - x
            if n > 1:
                edge = _edge(x, axis, before)
        a = lax.concatenate([x, a] if before else [a, x], axis)
    return a


def _pad_reflect(mode):
    def build(a, pad_width, reflect_type):
        for i, (lo, hi) in enumerate(pad_width):
            if a.shape[i] == 0:
                _refuse_empty_axis((lo, hi), mode)
                continue
            if lo == 0 and hi == 0:
                continue
            n = a.shape[i]
            a = _reflected(a, i, n, lo, True, mode, reflect_type == "odd")
            a = _reflected(a, i, n, hi, False, mode, reflect_type == "odd")
        return a

    return build


def _pad_edge(a, pad_width):
    from ._shape import repeat

    for i, (lo, hi) in enumerate(pad_width):
        if a.shape[i] == 0:
            _refuse_empty_axis((lo, hi), "edge")
            continue
        n = a.shape[i]
        before = repeat(lax.slice_in_dim(a, 0, 1, axis=i), lo, axis=i)
        after = repeat(lax.slice_in_dim(a, n - 1, n, axis=i), hi, axis=i)
        a = lax.concatenate([before, a, after], i)
    return a


def _pad_linear_ramp(a, pad_width, end_values):
    """Ramps from each end value up to (excluding) the edge, linspace along the padded axis."""
    from ._creation import linspace
    from ._shape import flip, squeeze

    for i, (lo, hi) in enumerate(pad_width):
        edges = (_edge(a, i, True), _edge(a, i, False))
        ramps = []
        for side, width in ((0, lo), (1, hi)):
            ramp = linspace(
                end_values[i][side], squeeze(edges[side], i), width, endpoint=False, dtype=a.dtype, axis=i
            )
            ramps.append(convert(ramp, ramp.dtype, a.weak_type))
        a = lax.concatenate([ramps[0], a, flip(ramps[1], i)], i)
    return a


def _stat(mode):
    from . import _reductions, _statistics

    return {
        "maximum": _reductions.max,
        "minimum": _reductions.min,
        "mean": _reductions.mean,
        "median": _statistics.median,
    }[mode]


def _pad_stats(mode):
    """The padding before (after) repeats a statistic of the first (last) ``stat_length`` elements
    (all of them by default); integer arrays round it."""

    def build(a, pad_width, stat_length):
        from ._shape import repeat
        from ._ufuncs import round as round_

        stat = _stat(mode)
        for i, (lo, hi) in enumerate(pad_width):
            if stat_length is None:
                first = last = stat(a, axis=i, keepdims=True)
            else:
                n_first, n_last = stat_length[i]
                if n_first == 0 or n_last == 0:
                    raise ValueError("stat_length of 0 yields no value for padding")
                n_first, n_last = builtins.min(n_first, a.shape[i]), builtins.min(n_last, a.shape[i])
                head, tail = (
                    lax.slice_in_dim(a, 0, n_first, axis=i),
                    lax.slice_in_dim(a, -n_last, None, axis=i),
                )
                first, last = stat(head, axis=i, keepdims=True), stat(tail, axis=i, keepdims=True)
            if dtype_kind(a.dtype) in "iu":
                first, last = round_(first), round_(last)
            first, last = (convert(s, a.dtype, a.weak_type) for s in (first, last))
            a = lax.concatenate([repeat(first, lo, axis=i), a, repeat(last, hi, axis=i)], i)
        return a

    return build


def _pad_empty(a, pad_width):
    """JAX's empty arrays are zeros."""
    from ._creation import empty_like

    for i, (lo, hi) in enumerate(pad_width):
        before = empty_like(a, shape=a.shape[:i] + (lo,) + a.shape[i + 1 :])
        after = empty_like(a, shape=a.shape[:i] + (hi,) + a.shape[i + 1 :])
        a = lax.concatenate([before, a, after], i)
    return a


# mode -> (builder(array, pad_width, option), the option's keyword and default)
_MODES = {
    "constant": (None, "constant_values", 0),
    "wrap": (lambda a, pw, _: _pad_wrap(a, pw), None, None),
    "edge": (lambda a, pw, _: _pad_edge(a, pw), None, None),
    "empty": (lambda a, pw, _: _pad_empty(a, pw), None, None),
    "reflect": (_pad_reflect("reflect"), "reflect_type", "even"),
    "symmetric": (_pad_reflect("symmetric"), "reflect_type", "even"),
    "linear_ramp": (None, "end_values", 0),
    **{stat: (_pad_stats(stat), "stat_length", None) for stat in ("maximum", "minimum", "mean", "median")},
}


@staged_as_jit(static_argnames=("pad_width", "mode", "stat_length", "end_values", "reflect_type"))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    a = as_operand(array)
    if a.ndim == 0:
        return a
    pad_width = _pairs(pad_width, a.ndim, "pad_width")
    if np.any(np.asarray(pad_width) < 0):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(a, pad_width, constant_values)
    if mode == "linear_ramp":
        return _pad_linear_ramp(a, pad_width, _pairs(end_values, a.ndim, "end_values"))
    build, option, _ = _MODES[mode]
    if option == "stat_length" and stat_length is not None:
        stat_length = _pairs(stat_length, a.ndim, "stat_length")
    return build(a, pad_width, {"stat_length": stat_length, "reflect_type": reflect_type}.get(option))


def _pad_with_function(a, pad_width, function, kwargs):
    """numpy's callable ``mode``: the zero-padded array, then each axis in turn,
    ``function(row, (before, after), axis, kwargs)`` rewriting every 1-D slice along it."""
    from ._shape import apply_along_axis

    padded = _pad_constant(a, pad_width, 0)
    for axis in range(padded.ndim):
        padded = apply_along_axis(function, axis, padded, pad_width[axis], axis, kwargs)
    return padded


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, (list, tuple, np.ndarray)) else v


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad with a constant (``mode='constant'``), by repeating edges or mirroring (``'edge'``,
    ``'wrap'``, ``'reflect'``, ``'symmetric'``), with ramps to end values (``'linear_ramp'``),
    with a statistic of each edge (``'mean'``, ``'median'``, ``'maximum'``, ``'minimum'``), with
    zeros (``'empty'``) or with a function of each padded 1-D slice (``mode`` callable).

    >>> jnp.pad(jnp.array([10, 20, 30, 40]), 1, mode='mean')
    Array([25, 10, 20, 30, 40, 25], dtype=int32)
    """
    check_arraylike("pad", array)
    a = as_operand(array)
    pad_width = _pairs(pad_width, a.ndim, "pad_width")
    if pad_width and not all(isinstance(v, (int, np.integer)) for pair in pad_width for v in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_with_function(a, pad_width, mode, kwargs)
    if mode not in _MODES:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    option = _MODES[mode][1]
    unsupported = set(kwargs) - ({option} if option else set())
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if transfers.active[0] and mode != "constant":  # (the unused fill is pruned from JAX's program)
        transfers.entering(array)
        with transfers.inside_program():
            return _pad_jitted(a, pad_width, mode, kwargs)
    return _pad_jitted(a, pad_width, mode, kwargs)


def _pad_jitted(a, pad_width, mode, kwargs):
    return _pad(
        a,
        pad_width,
        mode,
        kwargs.get("constant_values", 0),
        _hashable(kwargs.get("stat_length")),
        _hashable(kwargs.get("end_values", 0)),
        kwargs.get("reflect_type", "even"),
    )
