"""Index-expression helpers: ``mgrid``/``ogrid`` (grids from slices), ``r_``/``c_`` (concatenation
from slices, scalars and arrays, with numpy's string directives), ``s_`` and ``index_exp``."""

from __future__ import annotations

import numpy as np

from .. import core
from ._creation import arange, array, linspace, meshgrid
from ._promote import promote_dtypes
from ._shape import concatenate, expand_dims, stack, transpose

s_ = np.s_
index_exp = np.index_exp


def _concrete(v, what):
    if v is None:
        return None
    c = core.concrete_or_error(v, what)
    return c.item() if isinstance(c, np.ndarray) else c


def _grid_1d(s: slice, op: str):
    start = _concrete(s.start, f"slice start of jnp.{op}") or 0
    stop = _concrete(s.stop, f"slice stop of jnp.{op}")
    step = _concrete(s.step, f"slice step of jnp.{op}") or 1
    if np.iscomplex(step):  # an imaginary step counts points, endpoint included
        return linspace(start, stop, int(abs(step)))
    return arange(start, stop, step)


class _Mgrid:
    """``jnp.mgrid[0:2, 0:3]``: dense coordinate grids, stacked (an imaginary step counts points).

    >>> mgrid[0:2, 0:3][1]
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "mgrid")
        axes = promote_dtypes(*(_grid_1d(k, "mgrid") for k in key))
        grids = meshgrid(*axes, indexing="ij", sparse=False)
        return stack(grids, 0) if grids else arange(0)


class _Ogrid:
    """``jnp.ogrid[0:2, 0:3]``: open (broadcastable) coordinate grids.

    >>> [g.shape for g in ogrid[0:2, 0:3]]
    [(2, 1), (1, 3)]
    """

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _grid_1d(key, "ogrid")
        axes = promote_dtypes(*(_grid_1d(k, "ogrid") for k in key))
        return meshgrid(*axes, indexing="ij", sparse=True)


class _AxisConcat:
    axis: int
    ndmin: int
    trans1d: int
    op_name: str

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        params = [self.axis, self.ndmin, self.trans1d, -1]  # axis, ndmin, trans1d, matrix axis
        if isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive == "r":
                params[-1] = 0
            elif directive == "c":
                params[-1] = 1
            else:
                vec: list = directive.split(",")
                vec = vec + params[len(vec) :] if len(vec) < 4 else vec[:3] + [params[-1]]
                try:
                    params = [int(v) for v in vec]
                except ValueError as err:
                    raise ValueError(f"could not understand directive {directive!r}") from err
        axis, ndmin, trans1d, matrix = params
        parts = []
        for item in items:
            if isinstance(item, slice):
                obj, item_ndim = _grid_1d(item, self.op_name), 0
            elif isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            else:
                obj = array(item, copy=False)
                item_ndim = obj.ndim
            obj = array(obj, copy=False, ndmin=ndmin)
            if trans1d != -1 and ndmin - item_ndim > 0:  # where the original axes go in the new shape
                order = tuple(range(ndmin))
                shift = ndmin - abs(ndmin + trans1d + 1) % ndmin
                obj = transpose(obj, order[shift:] + order[:shift])
            parts.append(obj)
        out = concatenate(tuple(parts), axis=axis)
        return expand_dims(out, matrix) if matrix != -1 and out.ndim == 1 else out

    def __len__(self) -> int:
        return 0


class RClass(_AxisConcat):
    """``jnp.r_[...]``: concatenate along the first axis.

    >>> r_[-1:2, 0, jnp.array([5, 6])]
    Array([-1,  0,  1,  0,  5,  6], dtype=int32)
    """

    axis, ndmin, trans1d, op_name = 0, 1, -1, "r_"


class CClass(_AxisConcat):
    """``jnp.c_[...]``: stack as columns (concatenate along the last axis, at least 2-D).

    >>> c_[jnp.array([1, 2]), jnp.array([3, 4])]
    Array([[1, 3],
           [2, 4]], dtype=int32)
    """

    axis, ndmin, trans1d, op_name = -1, 2, 0, "c_"


mgrid = _Mgrid()
ogrid = _Ogrid()
r_ = RClass()
c_ = CClass()
