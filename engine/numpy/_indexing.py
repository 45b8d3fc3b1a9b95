"""numpy-style indexing (``x[idx]``) and functional updates (``x.at[idx].set(v)``), as JAX does them.

An index expression is first normalized: ``None`` axes are inserted by a reshape, ``Ellipsis`` is
expanded, boolean masks become integer arrays (only outside tracing). Then:

* static ints and slices lower to ``lax.slice`` / ``lax.rev`` / ``lax.squeeze`` (lean jaxprs);
* traced scalar indices lower to ``lax.dynamic_slice`` (which clamps, like JAX);
* integer arrays lower to one ``lax.gather`` (clamped by default) placing the broadcast index
  dimensions where numpy's advanced-indexing rule puts them;
* updates lower to ``lax.scatter*`` with out-of-bounds updates dropped.
"""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ..errors import NonConcreteBooleanIndexError
from ._promote import as_operand, broadcast_shapes, convert, shape_of

_INT32 = np.dtype("int32")


# --- normalization ---------------------------------------------------------------------------


def _is_int_scalar(i):
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _is_bool_array(i):
    return isinstance(i, (Tracer, Array, np.ndarray)) and i.dtype == np.bool_


def _static_index_value(i):
    """A numpy array for a concrete index array-like, or None for a traced one."""
    if isinstance(i, Tracer):
        v = i.concrete_value()
        return None if v is None else np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v)
    if isinstance(i, Array):
        return core.to_numpy(i)
    return np.asarray(i)


def _expand_index(shape, idx):
    """Entries, one per axis of the operand with ``None`` axes inserted, plus that expanded shape.

    Entry kinds: ('slice', start, stop, step), ('int', k), ('scalar', tracer), ('array', arr).
    """
    if not isinstance(idx, tuple):
        idx = (idx,)
    if any(isinstance(i, list) for i in idx):
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            "`arr[tuple(seq)]` for several indices or `arr[jnp.array(seq)]` for an index array."
        )
    # Boolean masks become integer arrays first (they may span several axes).
    flat = []
    for i in idx:
        if isinstance(i, (bool, np.bool_)):
            flat.append(None)  # x[True] adds a unit axis, as in numpy; False is not supported
            if not i:
                raise IndexError("Boolean scalar index False is not supported (its result is empty)")
            continue
        if _is_bool_array(i):
            if np.ndim(i) == 0 if not isinstance(i, Tracer) else i.ndim == 0:
                raise IndexError("0-d boolean array indices are not supported")
            v = _static_index_value(i)
            if v is None:
                raise NonConcreteBooleanIndexError(i)
            flat.extend(Array(a.astype(np.int32)) for a in np.nonzero(v))
            continue
        flat.append(i)
    n_ell = sum(1 for i in flat if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for i in flat if i is not None and i is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {used} were indexed")
    if n_ell:
        k = flat.index(Ellipsis)
        flat = flat[:k] + [slice(None)] * (len(shape) - used) + flat[k + 1 :]
    else:
        flat = flat + [slice(None)] * (len(shape) - used)
    entries, expanded = [], []
    axis = 0
    for i in flat:
        if i is None:
            expanded.append(1)
            entries.append(("slice", 0, 1, 1))
            continue
        n = shape[axis]
        axis += 1
        expanded.append(n)
        if isinstance(i, slice):
            start, stop, step = (_static_slice_part(p) for p in (i.start, i.stop, i.step))
            if step == 0:
                raise ValueError("slice step cannot be zero")
            entries.append(("slice",) + slice(start, stop, step).indices(n))
        elif _is_int_scalar(i):
            entries.append(_static_int_entry(int(i), n))
        else:
            entries.append(_array_entry(i, n, axis - 1))
    return entries, tuple(expanded)


def _static_slice_part(p):
    if p is None:
        return None
    if isinstance(p, Tracer):
        v = p.concrete_value()
        if v is None:
            raise IndexError(
                "Array slice indices must have static start/stop/step to be used with numpy "
                "indexing syntax; use lax.dynamic_slice (or jnp.take) for traced offsets."
            )
        return int(np.asarray(core.to_numpy(v)))
    return int(p.__index__()) if not isinstance(p, int) else p


def _static_int_entry(k, n):
    """An in-bounds int indexes statically; an out-of-bounds one becomes a 0-d index array, so
    that gathers clamp it (or fill) and scatters drop it, as in JAX (which never raises)."""
    if -n <= k < n:
        return ("int", k % n)
    return ("array", np.asarray(k, np.int32))


def _array_entry(i, n, axis):
    if hasattr(i, "__jax_array__"):
        i = i.__jax_array__()
    if isinstance(i, Tracer):
        if i.dtype.kind not in "iu":
            raise TypeError(
                f"Indexer must have integer or boolean type, got indexer with type {i.dtype.name} "
                f"at position {axis}"
            )
        return ("scalar", i) if i.ndim == 0 else ("array", i)
    if isinstance(i, (Array, np.ndarray, np.generic)):
        v = core.to_numpy(i) if isinstance(i, Array) else np.asarray(i)
        if v.dtype.kind not in "iu":
            raise TypeError(
                f"Indexer must have integer or boolean type, got indexer with type "
                f"{v.dtype.name} at position {axis}"
            )
        if v.ndim == 0:
            return _static_int_entry(int(v), n)
        return ("array", v.astype(np.int32) if v.dtype != np.int32 else v)
    raise TypeError(
        f"Indexing with {type(i).__name__} is not supported; use ints, slices, None, "
        f"Ellipsis, or integer/boolean arrays."
    )


def _normalize_array_index(arr, n):
    """Negative indices count from the end (concrete ones in numpy, traced ones with a select)."""
    if isinstance(arr, np.ndarray):
        return Array(np.where(arr < 0, arr + n, arr).astype(np.int32))
    arr = convert(arr, _INT32) if arr.dtype != _INT32 else arr
    # Scalar literals, as JAX; its `index + size` (jnp promotion) makes a weak index strong first.
    negative = lax.lt(arr, np.int32(0))
    return lax.select(negative, lax.add(convert(arr, _INT32), np.int32(n)), arr)


def _advanced_layout(entries):
    """Positions of advanced entries, and whether numpy keeps them in place (contiguous) or in front."""
    has_array = any(e[0] == "array" for e in entries)
    adv = [k for k, e in enumerate(entries) if e[0] in ("array", "int", "scalar")] if has_array else []
    contiguous = bool(adv) and adv == list(range(adv[0], adv[-1] + 1))
    return adv, contiguous


# --- gather (x[idx]) ---------------------------------------------------------------------------


def _apply_slices(x, entries):
    """Static slices via one lax.slice plus a lax.rev for negative steps; other axes untouched."""
    starts, limits, strides, rev = [], [], [], []
    new_entries = []
    for ax, e in enumerate(entries):
        n = x.shape[ax]
        if e[0] == "slice":
            start, stop, step = e[1:]
            m = len(range(start, stop, step))
            if step > 0:
                lo, hi, st = start, stop if m else start, step  # JAX slices up to the stop given
            else:
                lo = start + (m - 1) * step if m else 0
                hi, st = (start + 1 if m else 0), -step
                if m > 1:
                    rev.append(ax)
            starts.append(lo)
            limits.append(hi)
            strides.append(st)
            new_entries.append(("slice", 0, m, 1))
        elif e[0] == "int" and not any(f[0] == "array" for f in entries):
            starts.append(e[1])
            limits.append(e[1] + 1)
            strides.append(1)
            new_entries.append(("int", 0))
        else:
            starts.append(0)
            limits.append(n)
            strides.append(1)
            new_entries.append(e)
    if starts != [0] * x.ndim or limits != list(x.shape) or strides != [1] * x.ndim:
        x = lax.slice(x, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev:
        x = lax.rev(x, tuple(rev))
    return x, new_entries


_GATHER_MODES = {None: None, "clip": "clip", "promise_in_bounds": "clip", "fill": "fill", "drop": "fill"}
_SCATTER_MODES = {
    None: "drop",
    "drop": "drop",
    "fill": "drop",
    "clip": "clip",
    "promise_in_bounds": "promise_in_bounds",
}


def _gather_mode(mode):
    key = getattr(mode, "name", mode)
    key = key.lower() if isinstance(key, str) else key
    key = {"fill_or_drop": "fill"}.get(key, key)
    if key not in _GATHER_MODES:
        raise ValueError(f'Unknown gather mode "{mode}"')
    return _GATHER_MODES[key]


def _scatter_mode(mode):
    key = getattr(mode, "name", mode)
    key = key.lower() if isinstance(key, str) else key
    key = {"fill_or_drop": "drop"}.get(key, key)
    if key not in _SCATTER_MODES:
        raise ValueError(f'Unknown scatter mode "{mode}"')
    return _SCATTER_MODES[key]


def rewriting_take(arr, idx, *, mode=None, fill_value=None, unique_indices=False, indices_are_sorted=False):
    """``arr[idx]`` with numpy semantics, lowered to lax as described in the module docstring."""
    x = as_operand(arr)
    entries, expanded = _expand_index(x.shape, idx)
    if expanded != x.shape:  # None entries: new size-1 axes, a broadcast_in_dim as in JAX
        dims, j = [], 0
        for d in x.shape:
            while expanded[j] != d:
                j += 1
            dims.append(j)
            j += 1
        x = lax.broadcast_in_dim(x, expanded, tuple(dims))
    x, entries = _apply_slices(x, entries)
    mode = _gather_mode(mode)
    if mode == "fill":  # a traced scalar index must fill too, not clamp as dynamic_slice does
        entries = [("array", e[1]) if e[0] == "scalar" else e for e in entries]
    scalars = [k for k, e in enumerate(entries) if e[0] == "scalar"]
    has_array = any(e[0] == "array" for e in entries)
    if not has_array:
        if scalars:
            # lax.dynamic_slice counts negative starts from the end and clamps, as JAX's does.
            starts = [entries[k][1] if k in scalars else 0 for k in range(x.ndim)]
            sizes = [1 if k in scalars else x.shape[k] for k in range(x.ndim)]
            x = lax.dynamic_slice(x, starts, sizes)
        drop = tuple(k for k, e in enumerate(entries) if e[0] in ("int", "scalar"))
        return lax.squeeze(x, drop) if drop else x
    return _gather(x, entries, mode, fill_value, unique_indices, indices_are_sorted)


def _index_arrays(x, entries, adv):
    """The advanced indices, normalized, as int32 operands, and their broadcast shape."""
    arrs = []
    for k in adv:
        e = entries[k]
        n = x.shape[k]
        if e[0] == "int":
            arrs.append(Array(np.asarray(e[1], np.int32)))
        else:
            arrs.append(_normalize_array_index(e[1], n))
    bshape = broadcast_shapes(*[a.shape for a in arrs])
    from ._promote import broadcast_to_shape

    return [broadcast_to_shape(a, bshape) for a in arrs], bshape


def _stack_last(arrs, bshape):
    cols = [lax.expand_dims(a, (len(bshape),)) for a in arrs]  # a broadcast_in_dim, as in JAX
    if all(type(c) is Array for c in cols):
        return Array(np.concatenate([c._value for c in cols], axis=-1))
    return lax.concatenate(cols, len(bshape)) if len(cols) > 1 else cols[0]


def _gather(x, entries, mode, fill_value, unique_indices, indices_are_sorted):
    adv, contiguous = _advanced_layout(entries)
    arrs, bshape = _index_arrays(x, entries, adv)
    indices = _stack_last(arrs, bshape)
    rest = [k for k in range(x.ndim) if k not in adv]
    nb = len(bshape)
    if contiguous:
        before = sum(1 for k in rest if k < adv[0])
        offset_dims = tuple(range(before)) + tuple(range(before + nb, nb + len(rest)))
    else:
        offset_dims = tuple(range(nb, nb + len(rest)))
    dn = lax.GatherDimensionNumbers(
        offset_dims=offset_dims, collapsed_slice_dims=tuple(adv), start_index_map=tuple(adv)
    )
    slice_sizes = tuple(1 if k in adv else x.shape[k] for k in range(x.ndim))
    mode = "clip" if mode is None else mode
    return lax.gather(
        x,
        indices,
        dn,
        slice_sizes,
        mode=mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
    )


# --- scatter (x.at[idx].op(v)) ------------------------------------------------------------------


def scatter_update(
    x,
    idx,
    y,
    scatter_fn,
    *,
    mode=None,
    unique_indices=False,
    indices_are_sorted=False,
    normalize_indices=True,
):
    """``x`` with ``y`` combined into ``x[idx]`` by ``scatter_fn`` (a ``lax.scatter*``)."""
    x = as_operand(x)
    y = convert(as_operand(y), x.dtype, x.weak_type)
    if x.ndim == 0:  # x.at[()] / x.at[...]: a one-element vector has an axis to scatter along
        _expand_index((), idx)
        out = scatter_update(lax.reshape(x, (1,)), 0, y, scatter_fn, mode=mode)
        return lax.reshape(out, ())
    entries, expanded = _expand_index(x.shape, idx)
    xe = lax.reshape(x, expanded) if expanded != x.shape else x
    adv, contiguous = _advanced_layout(entries)
    # Every non-full slice and every int/scalar index becomes an indexed dimension; full slices are
    # windows. Indexed slices contribute an iota along their own result dimension.
    result_shape, slots = _result_layout(entries, adv, contiguous)
    windows = [
        k for k, e in enumerate(entries) if e[0] == "slice" and k not in adv and e[1:] == (0, xe.shape[k], 1)
    ]
    if len(windows) == xe.ndim and windows:
        windows = windows[1:]  # scatter needs an index dimension: take axis 0 as an iota
    indexed = [k for k in range(xe.ndim) if k not in windows]
    window_result_dims = [slots[k] for k in windows]
    scatter_shape = tuple(d for r, d in enumerate(result_shape) if r not in window_result_dims)
    # Result dims (minus windows) -> scatter-batch dims, for placing each index array.
    to_batch = {
        r: b for b, r in enumerate(r for r in range(len(result_shape)) if r not in window_result_dims)
    }
    adv_arrs, bshape = _index_arrays(xe, entries, adv) if adv else ([], ())
    cols = []
    for k in indexed:
        e = entries[k]
        if k in adv:
            a = adv_arrs[adv.index(k)]
            first = to_batch[slots["adv"]] if bshape else None
            dims = tuple(range(first, first + len(bshape))) if bshape else ()
            cols.append(lax.broadcast_in_dim(a, scatter_shape, dims))
        elif e[0] == "slice":
            start, stop, step = e[1:]
            ramp = Array(np.arange(start, stop, step, dtype=np.int32))
            cols.append(lax.broadcast_in_dim(ramp, scatter_shape, (to_batch[slots[k]],)))
        elif e[0] == "int":
            cols.append(lax.full(scatter_shape, e[1], _INT32))
        else:  # a traced scalar index without any array index
            s = _normalize_array_index(e[1], xe.shape[k])
            cols.append(lax.broadcast_in_dim(s, scatter_shape, ()))
    indices = _stack_last(cols, scatter_shape)
    try:
        from ._promote import broadcast_to_shape

        y = broadcast_to_shape(y, result_shape)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for update: value of shape {y.shape} cannot be broadcast to "
            f"the indexed shape {result_shape}"
        ) from None
    dn = lax.ScatterDimensionNumbers(
        update_window_dims=tuple(window_result_dims),
        inserted_window_dims=tuple(indexed),
        scatter_dims_to_operand_dims=tuple(indexed),
    )
    # Static integer indices (and whole-axis windows) address one sorted, unique location (JAX).
    static = all(entries[k][0] == "int" for k in indexed)
    out = scatter_fn(
        xe,
        indices,
        y,
        dn,
        indices_are_sorted=indices_are_sorted or static,
        unique_indices=unique_indices or static,
        mode=_scatter_mode(mode),
    )
    return lax.reshape(out, x.shape) if expanded != x.shape else out


def _result_layout(entries, adv, contiguous):
    """Shape of ``x[idx]`` (numpy rules) and where each kept slice (and the advanced block) lands."""
    bshape = ()
    if adv:
        bshape = broadcast_shapes(
            *[() if entries[k][0] in ("int",) else shape_of(entries[k][1]) for k in adv]
        )
    shape, slots = [], {}
    if adv and not contiguous:
        slots["adv"] = 0
        shape.extend(bshape)
    for k, e in enumerate(entries):
        if adv and contiguous and k == adv[0]:
            slots["adv"] = len(shape)
            shape.extend(bshape)
        if k in adv:
            continue
        if e[0] == "slice":
            slots[k] = len(shape)
            shape.append(len(range(*e[1:])))
    return tuple(shape), slots


# --- take, take_along_axis, the .at[] helper -------------------------------------------------


def take(
    a,
    indices,
    axis: int | None = None,
    out=None,
    mode=None,
    unique_indices=False,
    indices_are_sorted=False,
    fill_value=None,
):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None); out of bounds gives
    ``fill_value`` (NaN for floats) unless ``mode='clip'`` or ``'wrap'``.

    >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
    Array([30, 10], dtype=int32)
    """
    from ._shape import ravel
    from ._promote import canonicalize_axis

    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    idx = as_operand(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"take indices must be integers, got {idx.dtype.name}")
    n = a.shape[ax]
    if mode == "wrap":
        idx = lax.rem(
            lax.add(
                lax.rem(convert(idx, _INT32), lax.full_like(convert(idx, _INT32), n)),
                lax.full(idx.shape, n, _INT32),
            ),
            lax.full(idx.shape, n, _INT32),
        )
        mode = "clip"
    elif mode == "clip":  # as numpy's take: negative indices clip to 0 (they do not count from the end)
        idx = convert(idx, _INT32)
        idx = lax.clamp(lax.full((), 0, _INT32), idx, lax.full((), max(n - 1, 0), _INT32))
    key = (slice(None),) * ax + (idx,)
    return rewriting_take(
        a,
        key,
        mode="fill" if mode in (None, "fill") else mode,
        fill_value=fill_value,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
    )


def take_along_axis(arr, indices, axis: int | None, mode=None, fill_value=None):
    """Pick ``arr`` values at ``indices`` along ``axis``; the other axes are matched (broadcast).

    >>> x = jnp.array([[3, 1], [0, 5]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    Array([[1, 3],
           [0, 5]], dtype=int32)
    """
    from ._shape import ravel
    from ._promote import canonicalize_axis

    a = as_operand(arr)
    idx = as_operand(indices)
    if axis is None:
        a, axis = ravel(a), 0
        idx = ravel(idx)
    if idx.ndim != a.ndim:
        raise ValueError(f"indices and arr must have the same number of dimensions; {idx.ndim} vs {a.ndim}")
    ax = canonicalize_axis(axis, a.ndim)
    key = []
    for k in range(a.ndim):
        if k == ax:
            key.append(idx)
        else:
            shp = [1] * a.ndim
            shp[k] = a.shape[k]
            # Axes where indices have size 1 broadcast; mismatched sizes are an error, as in numpy.
            if idx.shape[k] not in (1, a.shape[k]) and a.shape[k] != 1:
                raise ValueError(
                    f"take_along_axis: indices shape {idx.shape} does not match array shape {a.shape}"
                )
            key.append(Array(np.arange(a.shape[k], dtype=np.int32).reshape(shp)))
    return rewriting_take(
        a, tuple(key), mode="fill" if mode in (None, "fill") else mode, fill_value=fill_value
    )


class _IndexUpdateHelper:
    """``x.at``: indexable, giving an ``_IndexUpdateRef`` with the update methods."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[idx]``: functional updates returning a new array (out-of-bounds updates are dropped).

    >>> jnp.zeros(3).at[1].set(5.0)
    Array([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None):
        return rewriting_take(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
        )

    def _update(self, fn, values, indices_are_sorted, unique_indices, mode):
        return scatter_update(
            self.array,
            self.index,
            values,
            fn,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(lax.scatter, values, indices_are_sorted, unique_indices, mode)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(lax.scatter_add, values, indices_are_sorted, unique_indices, mode)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        from ._ufuncs import negative

        return self._update(lax.scatter_add, negative(values), indices_are_sorted, unique_indices, mode)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(lax.scatter_mul, values, indices_are_sorted, unique_indices, mode)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        from ._creation import ones_like
        from ._ufuncs import divide

        x = as_operand(self.array)
        denom = scatter_update(
            ones_like(x),
            self.index,
            values,
            lax.scatter_mul,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )
        return divide(x, denom)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        from ._creation import ones_like
        from ._ufuncs import power

        x = as_operand(self.array)
        expo = scatter_update(
            ones_like(x),
            self.index,
            values,
            lax.scatter_mul,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
        )
        return power(x, expo)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(lax.scatter_min, values, indices_are_sorted, unique_indices, mode)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None):
        return self._update(lax.scatter_max, values, indices_are_sorted, unique_indices, mode)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``func`` applied once to each indexed element (duplicate indices apply it once)."""
        return self.set(
            func(self.get(mode=mode)),
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
