"""``jax.scipy.interpolate``: ``RegularGridInterpolator``, linear or nearest-neighbour
interpolation on a rectilinear grid (each axis strictly increasing), traceable in its points and
values.

>>> from engine.scipy.interpolate import RegularGridInterpolator
>>> f = RegularGridInterpolator((jnp.array([1, 2, 3]), jnp.array([4, 5, 6])),
...                             jnp.array([[10, 20, 30], [40, 50, 60], [70, 80, 90]]))
>>> f(jnp.array([[1.5, 4.5], [2.2, 5.8]]))
Array([30., 64.], dtype=float32)
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import numpy as jnp
from ..numpy._promote import as_operand, check_arraylike, promote_dtypes_inexact
from ..tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]


def _points_array(xi, ndim):
    """Query points as an array (..., ndim): from a tuple of coordinate arrays, or as given."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        parts = jnp.broadcast_arrays(*[as_operand(p) for p in xi])
        return jnp.stack([p.astype(float) for p in parts], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", xi)
    xi = as_operand(xi)
    return xi[:, None] if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolate ``values`` given on the grid ``points`` (one increasing array per axis).

    Args:
      points: the grid's coordinates, one 1-d array per leading axis of ``values``.
      values: the values on the grid (trailing axes are carried along).
      method: 'linear' or 'nearest'.
      bounds_error: must be False (no errors can be raised under ``jit``).
      fill_value: the value outside the grid (NaN by default; None extrapolates).
    """

    def __init__(self, points, values, method="linear", bounds_error=False, fill_value=np.nan):
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        values = as_operand(values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has {values.ndim} dimensions")
        (values,) = promote_dtypes_inexact(values)
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = as_operand(fill_value)
            if not jnp.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(as_operand(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(
                f"the requested sample points xi have dimension {xi.shape[1]}, but this "
                f"RegularGridInterpolator has dimension {ndim}"
            )
        shape = xi.shape
        xi = xi.reshape(-1, shape[-1])
        cells, fractions, outside = self._locate(xi.T)
        if method == "linear":
            result = self._linear(cells, fractions)
        else:
            result = self.values[tuple(jnp.where(t <= 0.5, i, i + 1) for i, t in zip(cells, fractions))]
        if self.fill_value is not None:
            result = jnp.where(
                outside.reshape(result.shape[:1] + (1,) * (result.ndim - 1)), self.fill_value, result
            )
        return result.reshape(shape[:-1] + self.values.shape[ndim:])

    def _linear(self, cells, fractions):
        trailing = (slice(None),) + (None,) * (self.values.ndim - len(cells))
        out = jnp.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in cells]):  # the cell's 2**ndim corners
            weight = jnp.asarray(1.0)
            for c, i, t in zip(corner, cells, fractions):
                weight = weight * jnp.where(c == i, 1 - t, t)
            out = out + self.values[corner] * weight[trailing]
        return out

    def _locate(self, xi):
        """Per axis: the cell left of each point, the point's fraction across it; and which
        points lie outside the grid."""
        cells, fractions = [], []
        outside = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            cells.append(i)
            fractions.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return cells, fractions, outside


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(children[0], children[1], aux[0], aux[1], children[2]),
)
