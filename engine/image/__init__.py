"""``jax.image``: resizing and affine resampling of arrays (images, volumes, signals) with
separable kernels: each resized axis is contracted with a weight matrix, so the functions trace,
differentiate and batch.

>>> from engine import image
>>> image.resize(jnp.array([0.0, 1.0]), (4,), 'linear')
Array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
"""

from __future__ import annotations

import enum
import math

import numpy as np

from .. import core, lax
from .. import numpy as jnp
from ..numpy._promote import as_operand, canonicalize_axis, promote_dtypes_inexact
from ..numpy._staged import staged_as_jit

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """The interpolation kernels: nearest, (bi/tri)linear, Lanczos with radius 3 or 5, Keys cubic,
    OpenCV/PyTorch's cubic, and area averaging."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> "ResizeMethod":
        names = {
            "nearest": ResizeMethod.NEAREST,
            "linear": ResizeMethod.LINEAR,
            "bilinear": ResizeMethod.LINEAR,
            "trilinear": ResizeMethod.LINEAR,
            "triangle": ResizeMethod.LINEAR,
            "lanczos3": ResizeMethod.LANCZOS3,
            "lanczos5": ResizeMethod.LANCZOS5,
            "cubic": ResizeMethod.CUBIC,
            "bicubic": ResizeMethod.CUBIC,
            "tricubic": ResizeMethod.CUBIC,
            "cubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
            "bicubic-pytorch": ResizeMethod.CUBIC_PYTORCH,
            "area": ResizeMethod.AREA,
        }
        if s not in names:
            raise ValueError(f'Unknown resize method "{s}"')
        return names[s]


def _lanczos(radius, x):
    y = radius * jnp.sin(np.pi * x) * jnp.sin(np.pi * x / radius)
    out = jnp.where(x > 1e-3, jnp.divide(y, jnp.where(x != 0, np.pi**2 * x**2, 1)), 1)
    return jnp.where(x > radius, 0.0, out)


def _keys_cubic(x):
    out = ((1.5 * x - 2.5) * x) * x + 1.0
    out = jnp.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _opencv_cubic(x):
    a = -0.75
    out = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    out = jnp.where(x >= 1.0, ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a, out)
    return jnp.where(x >= 2.0, 0.0, out)


def _triangle(x):
    return jnp.maximum(0, 1 - jnp.abs(x))


_AREA = object()
_KERNELS = {  # method -> (radius, kernel)
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, lambda x: _lanczos(3.0, x)),
    ResizeMethod.LANCZOS5: (5, lambda x: _lanczos(5.0, x)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalized(weights):
    total = jnp.sum(weights, axis=0, keepdims=True)
    tiny = 1000.0 * float(np.finfo(np.float32).eps)
    return jnp.where(jnp.abs(total) > tiny, jnp.divide(weights, jnp.where(total != 0, total, 1)), 0)


def _weights(in_size, out_size, scale, translation, kernel, antialias, edge_padding, radius):
    """The (in_size, out_size) matrix taking an axis of ``in_size`` samples to ``out_size``."""
    dtype = jnp.result_type(scale, translation)
    inv_scale = 1.0 / scale
    kernel_scale = jnp.maximum(inv_scale, 1.0) if antialias else 1.0
    sample_f = (jnp.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    if edge_padding:
        if antialias:
            s = core.concrete_or_error(scale, "Antialiasing with edge padding requires a static scale.")
            k = math.ceil(radius * max(1.0 / float(s), 1.0))
        else:
            k = radius
    else:
        k = 0
    positions = jnp.arange(-k, in_size + k, dtype=dtype)
    if kernel is _AREA:
        left = jnp.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        right = left + inv_scale
        cell = jnp.arange(in_size, dtype=dtype)
        weights = jnp.maximum(
            0.0, jnp.minimum(right[None, :], cell[:, None] + 1.0) - jnp.maximum(left[None, :], cell[:, None])
        )
    else:
        weights = kernel(jnp.abs(sample_f[None, :] - positions[:, None]) / kernel_scale)
    if edge_padding:  # samples past the edges take the edge pixel's value
        clamped = jnp.clip(positions.astype(jnp.int32), 0, in_size - 1)
        columns = lax.broadcast_in_dim(jnp.arange(out_size), (positions.shape[0], out_size), (1,))
        mat = jnp.zeros((in_size, out_size), dtype=dtype).at[clamped[:, None], columns].add(weights)
        return _normalized(mat)
    weights = _normalized(weights)
    inside = jnp.logical_and(sample_f >= -0.5, sample_f <= in_size - 0.5)
    return jnp.where(inside[None, :], weights, 0)


def _apply(x, shape, dims, scale, translation, kernel, antialias, precision, edge_padding=False, radius=None):
    """``x`` with each axis ``dims[i]`` contracted with its weight matrix: one einsum over all of
    them (as JAX's, so the contraction order is einsum's path, not one tensordot per axis)."""
    if len(dims) == 0:
        return x
    operands, out_labels = [], list(range(x.ndim))
    for i, d in enumerate(dims):
        d = canonicalize_axis(d, x.ndim)
        w = _weights(x.shape[d], shape[d], scale[i], translation[i], kernel, antialias, edge_padding, radius)
        operands += [w.astype(x.dtype), [d, x.ndim + i]]
        out_labels[d] = x.ndim + i
    return jnp.einsum(x, list(range(x.ndim)), *operands, out_labels, precision=precision)


def scale_and_translate(image, shape, spatial_dims, scale, translation, method, antialias: bool = True,
                        precision=lax.Precision.HIGHEST):  # fmt: skip
    """Resample ``image`` to ``shape``: output pixel ``o`` along ``spatial_dims[i]`` samples input
    position ``(o + 0.5 - translation[i]) / scale[i] - 0.5``, with ``method``'s kernel (widened
    when downsampling, if ``antialias``).

    >>> scale_and_translate(jnp.arange(4.0), (2,), (0,), jnp.array([0.5]), jnp.array([0.0]), 'linear')
    Array([0.71428573, 2.2857146 ], dtype=float32)
    """
    image, shape, method = _checked(image, shape, method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for scale_and_translate.")
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    (image,) = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(as_operand(scale), as_operand(translation))
    if len(spatial_dims) == 0:
        return image
    edge = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    return _apply(image, shape, spatial_dims, scale, translation, kernel, antialias, precision, edge, radius)


def _checked(image, shape, method):
    """The image as an array, the target shape as ints (one per axis), the method as a ResizeMethod."""
    shape = tuple(int(s) for s in shape)
    image = as_operand(image)
    if len(shape) != image.ndim:
        raise ValueError(
            f"shape must have length equal to the number of dimensions of x;  {shape} vs {image.shape}"
        )
    return image, shape, ResizeMethod.from_string(method) if isinstance(method, str) else method


def _resize_nearest(x, shape):
    for d in [i for i in range(x.ndim) if x.shape[i] != shape[i]]:
        m, n = x.shape[d], shape[d]
        offsets = jnp.floor(((jnp.arange(n, dtype=np.float32) + 0.5) * m / n).astype(np.float32)).astype(
            np.int32
        )
        index = [slice(None)] * x.ndim
        index[d] = offsets
        x = x[tuple(index)]
    return x


@staged_as_jit(name="_resize", static_argnames=("shape", "method", "antialias", "precision"))
def _resize(image, shape, method, antialias, precision):
    """The resize, staged as JAX's ``_resize`` jit (the shape, method and options static)."""
    image, shape, method = _checked(image, shape, method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    (image,) = promote_dtypes_inexact(image)
    # axes keeping their size are skipped: every kernel interpolates, so an identity warp is exact
    dims = tuple(i for i in range(len(shape)) if image.shape[i] != shape[i])
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC
    radius, kernel = _KERNELS[method]
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in dims]
    edge = method == ResizeMethod.CUBIC_PYTORCH and not antialias
    return _apply(image, shape, dims, scale, [0.0] * len(dims), kernel, antialias, precision, edge, radius)


def resize(image, shape, method, antialias: bool = True, precision=lax.Precision.HIGHEST):
    """``image`` resized to ``shape`` with ``method`` ('nearest', 'linear', 'lanczos3',
    'lanczos5', 'cubic', 'cubic-pytorch', 'area' or a :class:`ResizeMethod`); downsampling
    antialiases by default.

    >>> resize(jnp.arange(4.0), (2,), 'nearest')
    Array([1., 3.], dtype=float32)
    """
    return _resize(image, tuple(int(s) for s in shape), method, antialias, precision)
