"""``lax.conv_general_dilated``: XLA's convolution as one primitive, with JAX's rules.

A convolution is a cross-correlation of ``lhs`` (batch, feature, spatial...) with ``rhs`` (out
feature, in feature, spatial...), laid out as ``dimension_numbers`` say, with window strides,
``(low, high)`` padding (negative crops), ``lhs_dilation`` (zeros between input elements: a
transposed convolution), ``rhs_dilation`` (holes in the kernel: atrous) and grouped features or
batches. The numpy implementation gathers the windows as a strided view and contracts them with
the kernel, float32 in XLA's order (``conv_order``). Derivatives are JAX's: bilinear, each operand's
transpose is another convolution (``_transpose_lhs``/``_transpose_rhs``); batching folds the
mapped axis into the batch or feature dimension, as JAX's rule does. jit runs the same
implementation (numba has no convolution lowering).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np

from .. import ad, batching, core
from ..batching import not_mapped
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from . import conv_order


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions of a convolution are.

    ``lhs_spec`` and ``out_spec`` are ``(batch dim, feature dim, spatial dims...)``, ``rhs_spec``
    is ``(out feature dim, in feature dim, spatial dims...)``, as dimension indices.
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


def _lax():
    from . import api

    return api


def _shape(x) -> tuple:
    return tuple(core.get_aval(x).shape)


def _dilate_dim(d: int, dilation: int) -> int:
    return 0 if d == 0 else 1 + dilation * (d - 1)


def _stride_dim(d: int, window: int, stride: int) -> int:
    return max(0, (d - window) // stride + 1)


# ---------------------------------------------------------------------------------------------
# Dimension numbers and padding.


def conv_general_permutations(dimension_numbers):
    """The ``(lhs, rhs, out)`` permutations to canonical layout for string dimension numbers;
    spatial dimensions are ordered as they appear in the kernel's string."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' "
                f"exactly once, got {dimension_numbers[i]}."
            )
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(
                f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                f"got {dimension_numbers[i]}."
            )
    if not (set(lhs_spec) - set("NC") == set(rhs_spec) - set("OI") == set(out_spec) - set("NC")):
        raise TypeError(
            f"convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {tuple(dimension_numbers)}."
        )

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial)

    return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """Convert ``None``, a ``ConvDimensionNumbers`` or three layout strings to ``ConvDimensionNumbers``.

    >>> lax.conv_dimension_numbers((1, 8, 8, 3), (3, 3, 3, 16), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}."
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(
            f"convolution dimension_numbers must be tuple/list or None, got {type(dimension_numbers)}."
        )
    if len(dimension_numbers) != 3:
        raise TypeError(
            f"convolution dimension_numbers list/tuple must be length 3, got {len(dimension_numbers)}."
        )
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(
            f"convolution dimension_numbers elements must be strings, got "
            f"{tuple(map(type, dimension_numbers))}."
        )
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, "
                f"got {len(spec)} for lhs and rhs shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}."
            )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list[tuple[int, int]]:
    """``'SAME'``, ``'SAME_LOWER'`` or ``'VALID'`` as explicit ``(low, high)`` pads per dimension
    (``'SAME'`` puts an odd pad's extra element at the end, ``'SAME_LOWER'`` at the start).

    >>> lax.padtype_to_pads((5,), (3,), (2,), "SAME")
    [(1, 1)]
    """
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise RuntimeError(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
        )
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        total = max(0, (-(-int(n) // int(s)) - 1) * int(s) + int(w) - int(n))
        lo = total // 2 if kind == "SAME" else total - total // 2
        pads.append((lo, total - lo))
    return pads


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of canonical-layout (N, C, spatial...) shapes."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, got {len(pads)}."
        )
    padded = [int(n) + int(lo) + int(hi) for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError(
            f"Negative padding is larger than the size of the corresponding dimension: got "
            f"padding={tuple(tuple(p) for p in pads)} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    spatial = tuple(_stride_dim(p, int(k), int(s)) for p, k, s in zip(padded, rhs_shape[2:], strides))
    return (int(lhs_shape[0]) // batch_group_count, int(rhs_shape[0]), *spatial)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of ``conv_general_dilated`` without dilation, in ``out_spec`` layout."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(
        np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm), window_strides, padding
    )
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """The output shape of ``conv_transpose`` in ``out_spec`` layout."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs_t[2:], window_strides)]
    spatial = [
        (i - 1) * s - k + 2 + int(np.sum(p))
        for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)
    ]
    out = (lhs_t[0], rhs_t[0], *spatial)
    return tuple(int(d) for d in np.take(out, np.argsort(out_perm)))


# ---------------------------------------------------------------------------------------------
# The primitive.

conv_general_dilated_p = Primitive("conv_general_dilated")


def _conv_impl(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    # Eager calls skip abstract evaluation: check shapes and dtypes here too.
    _conv_abstract(
        ShapedArray(lhs.shape, lhs.dtype),
        ShapedArray(rhs.shape, rhs.dtype),
        window_strides=window_strides,
        padding=padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dimension_numbers,
        feature_group_count=feature_group_count,
        batch_group_count=batch_group_count,
        preferred_element_type=preferred_element_type,
    )
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    out_dtype = np.dtype(preferred_element_type or np.result_type(lhs.dtype, rhs.dtype))
    # Accumulate in at least single precision (numpy has no bfloat16 matmul, float16 loses bits).
    acc = out_dtype if dtype_kind(out_dtype) in "fc" and out_dtype.itemsize >= 4 else np.dtype(np.float32)
    if dtype_kind(out_dtype) in "iub":
        acc = np.dtype(np.int64) if dtype_kind(out_dtype) != "b" else np.dtype(np.int32)
    x = np.transpose(lhs, lhs_spec).astype(acc, copy=False)  # (N, C, spatial...)
    w = np.transpose(rhs, rhs_spec).astype(acc, copy=False)  # (O, I, window...)
    nsp = x.ndim - 2
    sp = tuple(range(2, 2 + nsp))
    if any(d != 1 for d in lhs_dilation):
        dilated = np.zeros((*x.shape[:2], *map(_dilate_dim, x.shape[2:], lhs_dilation)), acc)
        dilated[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dilation))] = x
        x = dilated
    # Negative padding crops, positive pads with zeros.
    crop = tuple(slice(max(0, -lo), n - max(0, -hi)) for n, (lo, hi) in zip(x.shape[2:], padding))
    x = np.pad(
        x[(slice(None), slice(None), *crop)],
        [(0, 0), (0, 0)] + [(max(0, lo), max(0, hi)) for lo, hi in padding],
    )
    window = [_dilate_dim(k, d) for k, d in zip(w.shape[2:], rhs_dilation)]
    out_sp = [_stride_dim(n, k, s) for n, k, s in zip(x.shape[2:], window, window_strides)]
    n, c = x.shape[:2]
    o, i = w.shape[:2]
    groups = feature_group_count * batch_group_count
    n_out = n // batch_group_count
    if 0 in out_sp or 0 in w.shape[2:] or n_out == 0 or o == 0:
        canonical = np.zeros((n_out, o, *out_sp), out_dtype)
    else:
        patches = np.lib.stride_tricks.sliding_window_view(x, window, axis=sp)
        patches = patches[
            (
                slice(None),
                slice(None),
                *(slice(None, None, s) for s in window_strides),
                *(slice(None, None, d) for d in rhs_dilation),
            )
        ]  # (N, C, out spatial..., window...)
        if batch_group_count > 1:  # (G, N/G, C, ...): each batch group meets its own kernels
            patches = patches.reshape(groups, n_out, c, *patches.shape[2:])
        else:  # (N, G, C/G, ...) -> (G, N, C/G, ...)
            patches = np.moveaxis(patches.reshape(n, groups, c // groups, *patches.shape[2:]), 1, 0)
        # (G, N', out spatial..., window..., C') -> one product per group, the contraction
        # index ordered as XLA's convolution sums it (window positions, then input features)
        order = (0, 1, *range(3, 3 + nsp), *range(3 + nsp, 3 + 2 * nsp), 2)
        k = i * math.prod(w.shape[2:])
        cols = np.transpose(patches, order).reshape(groups, n_out * math.prod(out_sp), k)
        kernel = np.moveaxis(w, 1, -1).reshape(groups, o // groups, k).transpose(0, 2, 1)
        shapes = (tuple(np.take(lhs.shape, lhs_spec)), w.shape, (n_out, o, *out_sp))
        conv = (window_strides, padding, lhs_dilation, groups, batch_group_count, rhs_dilation)
        out = conv_order.contract(cols, kernel, i, shapes, conv)
        out = out.reshape(groups, n_out, *out_sp, o // groups)
        # (G, N', spatial..., O/G) -> (N', G*O/G, spatial...)
        out = np.moveaxis(out, 0, -2).reshape(n_out, *out_sp, o)
        canonical = np.moveaxis(out, -1, 1).astype(out_dtype, copy=False)
    return np.ascontiguousarray(np.transpose(canonical, np.argsort(out_spec)))


conv_general_dilated_p.def_impl(_conv_impl)


def _check_conv(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                feature_group_count, batch_group_count, **_):  # fmt: skip
    """JAX's shape checks, with its messages and error classes."""
    if lhs.ndim != rhs.ndim:
        raise ValueError(
            f"conv_general_dilated lhs and rhs must have the same number of dimensions, but got "
            f"{lhs.shape} and {rhs.shape}."
        )
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    if feature_group_count <= 0:
        raise ValueError(
            f"conv_general_dilated feature_group_count must be a positive integer, got {feature_group_count}."
        )
    features = lhs.shape[lhs_spec[1]]
    quot, rem = divmod(features, feature_group_count)
    if rem:
        raise ValueError(
            f"conv_general_dilated feature_group_count must divide lhs feature dimension size, but "
            f"{feature_group_count} does not divide {features}."
        )
    if quot != rhs.shape[rhs_spec[1]]:
        raise ValueError(
            f"conv_general_dilated lhs feature dimension size divided by feature_group_count must "
            f"equal the rhs input feature dimension size, but {features} // {feature_group_count} "
            f"!= {rhs.shape[rhs_spec[1]]}."
        )
    if rhs.shape[rhs_spec[0]] % feature_group_count:
        raise ValueError(
            f"conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"feature_group_count, but {rhs.shape[rhs_spec[0]]} is not a multiple of {feature_group_count}."
        )
    if batch_group_count <= 0:
        raise ValueError(
            f"conv_general_dilated batch_group_count must be a positive integer, got {batch_group_count}."
        )
    batch = lhs.shape[lhs_spec[0]]
    if batch_group_count > 1 and batch % batch_group_count:
        raise ValueError(
            f"conv_general_dilated batch_group_count must divide lhs batch dimension size, but "
            f"{batch_group_count} does not divide {batch}."
        )
    if rhs.shape[rhs_spec[0]] % batch_group_count:
        raise ValueError(
            f"conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"batch_group_count, but {rhs.shape[rhs_spec[0]]} is not a multiple of {batch_group_count}."
        )
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError(
            f"At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={batch_group_count} and feature_group_count={feature_group_count}"
        )
    if len(rhs_spec) - 2 != len(window_strides):
        raise ValueError(
            f"conv_general_dilated window and window_strides must have the same number of "
            f"dimensions, but got {len(rhs_spec) - 2} and {len(window_strides)}"
        )
    for dil in (lhs_dilation, rhs_dilation):
        if any(d <= 0 for d in dil):
            raise TypeError(f"All dilations must be positive, got {tuple(dil)}.")
    if any(s <= 0 for s in window_strides):
        raise TypeError(f"conv_general_dilated window_strides must be positive, got {tuple(window_strides)}.")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract(lhs, rhs, **params):
    _check_conv(lhs, rhs, **params)
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"lax.conv_general_dilated requires arguments to have the same dtypes, got "
            f"{lhs.dtype.name}, {rhs.dtype.name}."
        )
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    lhs_t = [lhs.shape[lhs_spec[0]], lhs.shape[lhs_spec[1]]] + [
        _dilate_dim(lhs.shape[d], k) for d, k in zip(lhs_spec[2:], params["lhs_dilation"])
    ]
    rhs_t = [rhs.shape[rhs_spec[0]], rhs.shape[rhs_spec[1]]] + [
        _dilate_dim(rhs.shape[d], k) for d, k in zip(rhs_spec[2:], params["rhs_dilation"])
    ]
    out_t = conv_shape_tuple(
        lhs_t, rhs_t, params["window_strides"], params["padding"], params["batch_group_count"]
    )
    shape = tuple(out_t[i] for i in np.argsort(out_spec))
    dtype = params.get("preferred_element_type") or lhs.dtype
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


# ---------------------------------------------------------------------------------------------
# Differentiation: bilinear, each operand's transpose is a convolution (JAX's rules).


def _conv_jvp(primals, tangents, **params):
    lhs, rhs = primals
    dlhs, drhs = tangents
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    acc = ad.Zero(ad.tangent_aval(core.get_aval(out)))
    if type(dlhs) is not ad.Zero:
        acc = ad.add_tangents(acc, conv_general_dilated_p.bind(dlhs, rhs, **params))
    if type(drhs) is not ad.Zero:
        acc = ad.add_tangents(acc, conv_general_dilated_p.bind(lhs, drhs, **params))
    return out, acc


def _spec_transpose(spec):
    return (spec[1], spec[0], *spec[2:])


def _reshape_axis_into(src, dst, x):
    """Merge axis ``src`` into axis ``dst`` (as its major part)."""
    shape = _shape(x)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [d for i, d in enumerate(shape) if i != src]
    new_shape[dst] *= shape[src]
    return _lax().reshape(x, new_shape, perm)


def _reshape_axis_out_of(src, size1, x):
    """Split axis ``src`` into ``(size1, rest)``."""
    shape = list(_shape(x))
    shape[src : src + 1] = [size1, shape[src] // size1]
    return _lax().reshape(x, shape)


def _vjp_lhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    lhs_d = [_dilate_dim(n, d) for n, d in zip(in_shape, lhs_dilation)]
    rhs_d = [_dilate_dim(k, d) for k, d in zip(window, rhs_dilation)]
    out_d = [_dilate_dim(o, s) for o, s in zip(out_shape, strides)]
    before = [r - lo - 1 for r, (lo, _) in zip(rhs_d, padding)]
    after = [a + r - 1 - o - b for a, r, o, b in zip(lhs_d, rhs_d, out_d, before)]
    return tuple(zip(before, after))


def _vjp_rhs_padding(in_shape, window, strides, out_shape, padding, lhs_dilation, rhs_dilation):
    if not in_shape:
        return ()
    lhs_d = [_dilate_dim(n, d) for n, d in zip(in_shape, lhs_dilation)]
    rhs_d = [_dilate_dim(k, d) for k, d in zip(window, rhs_dilation)]
    out_d = [_dilate_dim(o, s) for o, s in zip(out_shape, strides)]
    los = [lo for lo, _ in padding]
    his = [(o - a) + (r - lo - 1) for o, a, r, lo in zip(out_d, lhs_d, rhs_d, los)]
    return tuple(zip(los, his))


def _transpose_lhs(g, rhs, lhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):  # fmt: skip
    lax = _lax()
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    rhs_shape = _shape(rhs)
    if feature_group_count > 1:  # the group moves from the kernel's in features to its out features
        rhs = _reshape_axis_out_of(rhs_spec[0], feature_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
    elif batch_group_count > 1:
        rhs = _reshape_axis_out_of(rhs_spec[0], batch_group_count, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = batch_group_count
    trans_dn = ConvDimensionNumbers(out_spec, _spec_transpose(rhs_spec), lhs_spec)
    pads = _vjp_lhs_padding(
        [lhs_aval.shape[d] for d in lhs_spec[2:]],
        [rhs_shape[d] for d in rhs_spec[2:]],
        window_strides,
        [_shape(g)[d] for d in out_spec[2:]],
        padding,
        lhs_dilation,
        rhs_dilation,
    )
    revd = lax.rev(rhs, rhs_spec[2:])
    if core.get_aval(g).dtype != core.get_aval(revd).dtype:
        revd = lax.convert_element_type(revd, core.get_aval(g).dtype)
    out = conv_general_dilated(
        g,
        revd,
        window_strides=lhs_dilation,
        padding=pads,
        lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation,
        dimension_numbers=trans_dn,
        feature_group_count=feature_group_count,
        batch_group_count=1,
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )
    if core.get_aval(out).dtype != lhs_aval.dtype:
        out = lax.convert_element_type(out, lhs_aval.dtype)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _transpose_rhs(g, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision=None,
                   preferred_element_type=None, out_sharding=None):  # fmt: skip
    lax = _lax()
    if math.prod(_shape(g)) == 0:  # a degenerate convolution whose kernel would have no extent
        return ad.Zero(rhs_aval)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = _shape(lhs)
    if batch_group_count > 1:
        feature_group_count, batch_group_count = batch_group_count, 1
    elif feature_group_count > 1:
        feature_group_count, batch_group_count = 1, feature_group_count
    trans_dn = ConvDimensionNumbers(
        _spec_transpose(lhs_spec), _spec_transpose(out_spec), _spec_transpose(rhs_spec)
    )
    pads = _vjp_rhs_padding(
        [lhs_shape[d] for d in lhs_spec[2:]],
        [rhs_aval.shape[d] for d in rhs_spec[2:]],
        window_strides,
        [_shape(g)[d] for d in out_spec[2:]],
        padding,
        lhs_dilation,
        rhs_dilation,
    )
    if core.get_aval(g).dtype != core.get_aval(lhs).dtype:
        lhs = lax.convert_element_type(lhs, core.get_aval(g).dtype)
    out = conv_general_dilated(
        lhs,
        g,
        window_strides=rhs_dilation,
        padding=pads,
        lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides,
        dimension_numbers=trans_dn,
        feature_group_count=feature_group_count,
        batch_group_count=batch_group_count,
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )
    if core.get_aval(out).dtype != rhs_aval.dtype:
        out = lax.convert_element_type(out, rhs_aval.dtype)
    return out


def _conv_transpose_rule(ct, lhs, rhs, **params):
    if type(ct) is ad.Zero:
        return [None, None]
    if ad.is_undefined(lhs):
        return [_transpose_lhs(ct, rhs, lhs.aval, **params), None]
    return [None, _transpose_rhs(ct, lhs, rhs.aval, **params)]


ad.jvp_rules[conv_general_dilated_p] = _conv_jvp
ad.transpose_rules[conv_general_dilated_p] = _conv_transpose_rule


# ---------------------------------------------------------------------------------------------
# Batching: the mapped axis joins the batch or feature dimension (JAX's rule).


def _conv_batch(axis_size, vals, dims, **params):
    lhs, rhs = vals
    lhs_bdim, rhs_bdim = (None if d is not_mapped else d for d in dims)
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    rest = {k: v for k, v in params.items() if k not in ("feature_group_count", "batch_group_count")}

    def bind(x, w, feature_group_count=fgc, batch_group_count=bgc):
        return conv_general_dilated_p.bind(
            x, w, feature_group_count=feature_group_count, batch_group_count=batch_group_count, **rest
        )

    if lhs_bdim is not None and rhs_bdim is not None:
        if bgc > 1:
            new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[0], lhs)
            out = bind(
                new_lhs, _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs), batch_group_count=bgc * axis_size
            )
        else:
            new_lhs = _reshape_axis_into(lhs_bdim, lhs_spec[1], lhs)
            out = bind(
                new_lhs, _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs), feature_group_count=fgc * axis_size
            )
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    if lhs_bdim is not None:
        if bgc == 1:
            out = bind(_reshape_axis_into(lhs_bdim, lhs_spec[0], lhs), rhs)
        else:
            new_lhs = _reshape_axis_out_of(lhs_spec[0] + int(lhs_bdim <= lhs_spec[0]), bgc, lhs)
            new_lhs = _reshape_axis_into(lhs_bdim + int(lhs_spec[0] < lhs_bdim), lhs_spec[0] + 1, new_lhs)
            new_lhs = _reshape_axis_into(lhs_spec[0], lhs_spec[0], new_lhs)
            out = bind(new_lhs, rhs)
        return _reshape_axis_out_of(out_spec[0], axis_size, out), out_spec[0]
    if fgc == 1 and bgc == 1:
        out = bind(lhs, _reshape_axis_into(rhs_bdim, rhs_spec[0], rhs))
        return _reshape_axis_out_of(out_spec[1], axis_size, out), out_spec[1]
    # Groups must stay outermost in the kernel's out features: factor them out, fold the batch
    # into the rest, put them back; the output is unfolded the same way.
    groups = fgc if fgc > 1 else bgc
    new_rhs = _reshape_axis_out_of(rhs_spec[0] + int(rhs_bdim <= rhs_spec[0]), groups, rhs)
    new_rhs = _reshape_axis_into(rhs_bdim + int(rhs_spec[0] < rhs_bdim), rhs_spec[0] + 1, new_rhs)
    new_rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[0], new_rhs)
    out = bind(lhs, new_rhs)
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, axis_size, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


batching.batch_rules[conv_general_dilated_p] = _conv_batch


# ---------------------------------------------------------------------------------------------
# Public API (jax.lax signatures).


def conv_general_dilated(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    """General n-dimensional convolution (XLA's Conv): strides, padding (``'SAME'``,
    ``'SAME_LOWER'``, ``'VALID'`` or ``(low, high)`` pairs), input and kernel dilation, layouts
    given by ``dimension_numbers`` (e.g. ``('NHWC', 'HWIO', 'NHWC')``; default NCHW/OIHW/NCHW),
    and feature or batch groups.

    >>> x = jnp.arange(5.).reshape(1, 1, 5)
    >>> lax.conv_general_dilated(x, jnp.ones((1, 1, 2)), (1,), "VALID")
    Array([[[1., 3., 5., 7.]]], dtype=float32)
    """
    if out_sharding is not None:
        raise NotImplementedError("conv_general_dilated: out_sharding is not supported by the engine.")
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * nsp
    elif isinstance(padding, str) and tuple(lhs_dilation) != (1,) * len(lhs_dilation):
        raise ValueError(
            "String padding is not implemented for transposed convolution using this op. Please "
            "either exactly specify the required padding or use conv_transpose."
        )
    if rhs_dilation is None:
        rhs_dilation = (1,) * nsp
    if isinstance(padding, str):
        window = [_dilate_dim(rhs_shape[d], r) for d, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads([lhs_shape[d] for d in dnums.lhs_spec[2:]], window, window_strides, padding)
    else:
        try:
            padding = tuple((int(lo), int(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError(
                f"padding argument to conv_general_dilated should be a string or a sequence of "
                f"(low, high) pairs, got {padding}"
            ) from e
    if preferred_element_type is not None:
        preferred_element_type = core.canonical_dtype(preferred_element_type)
        _check_preferred_element_type(core.get_aval(lhs).dtype, preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs,
        rhs,
        window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(int(d) for d in lhs_dilation),
        rhs_dilation=tuple(int(d) for d in rhs_dilation),
        dimension_numbers=ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dnums)),
        feature_group_count=int(feature_group_count),
        batch_group_count=int(batch_group_count),
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )


def _check_preferred_element_type(input_dtype: np.dtype, preferred: np.dtype) -> None:
    """JAX's rule: an integer input may accumulate in floats; otherwise the kind (and sign) stays,
    and the accumulator is never narrower (with x64, int64 inputs refuse int32)."""
    if not (input_dtype.kind in "iu" and preferred.kind == "f"):
        kinds = ("iu", "f", "c")
        if any(input_dtype.kind in k and preferred.kind not in k for k in kinds):
            raise TypeError(
                "Input type is incompatible with `preferred_element_type`. The compatible combinations "
                "of (input_type, preferred_element_type) are (integral, integral), (integral, floating), "
                "(floating, floating), (complex, complex."
            )
        if input_dtype.kind == "i" and preferred.kind != "i":
            raise TypeError("`preferred_element_type` must have the same signedness as the original type.")
    if preferred.itemsize < input_dtype.itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` in NCHW/OIHW layout with ``'SAME'``/``'VALID'`` padding.

    >>> lax.conv(jnp.ones((1, 1, 4, 4)), jnp.ones((1, 1, 3, 3)), (1, 1), "VALID")[0, 0]
    Array([[9., 9.],
           [9., 9.]], dtype=float32)
    """
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, precision=precision, preferred_element_type=preferred_element_type
    )


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None,
                              preferred_element_type=None):  # fmt: skip
    """``conv_general_dilated`` in NCHW/OIHW layout with explicit padding and dilations.

    >>> lax.conv_with_general_padding(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 2)), (1,), [(1, 1)], None, None)
    Array([[[1., 2., 2., 1.]]], dtype=float32)
    """
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )


def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of one dimension of a transposed convolution."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return int(pad_a), int(pad_len - pad_a)


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel: bool = False, precision=None, preferred_element_type=None,
                   use_consistent_padding: bool = False):  # fmt: skip
    """The N-d "transposed convolution": a fractionally strided convolution (``lhs_dilation`` =
    ``strides``); layouts default to TensorFlow's (``'NHWC', 'HWIO', 'NHWC'`` in 2-d).

    >>> lax.conv_transpose(jnp.ones((1, 2, 1)), jnp.ones((2, 1, 1)), (2,), "VALID")[0, :, 0]
    Array([1., 1., 1., 1.], dtype=float32)
    """
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    ndims = len(lhs_shape)
    if ndims != len(rhs_shape) or ndims < 2:
        raise ValueError(
            f"conv_transpose needs lhs and rhs of the same rank >= 2, got {lhs_shape} and {rhs_shape}."
        )
    if dimension_numbers is None:
        defaults = {
            2: ("NC", "IO", "NC"),
            3: ("NHC", "HIO", "NHC"),
            4: ("NHWC", "HWIO", "NHWC"),
            5: ("NHWDC", "HWDIO", "NHWDC"),
        }
        if ndims not in defaults:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = defaults[ndims]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    k_sdims = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndims - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        effective = [_dilate_dim(k, r) for k, r in zip(k_sdims, rhs_dilation)]
        replicated = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(effective, strides, replicated))
    else:
        pads = padding
    if transpose_kernel:  # flip the spatial axes and swap the kernel's in/out features
        lax = _lax()
        rhs = lax.rev(rhs, dn.rhs_spec[2:])
        perm = list(range(ndims))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = lax.transpose(rhs, perm)
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * (ndims - 2),
        pads,
        strides,
        rhs_dilation,
        dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=None,
    )


__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_p",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "padtype_to_pads",
]
