"""The sweep's jax.numpy indexing helpers, array manipulation and creation: take / take_along_axis /
put, diag* / tri*, meshgrid / ix_ / indices, the index arithmetic (ravel_multi_index ...), joins
and splits, pad modes, rolls and flips, and the creation functions a learner starts with.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_numpy_api import register
    from .sweep_programs import _f32, _pos
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_numpy_api import register  # type: ignore[no-redef]
    from sweep_programs import _f32, _pos  # type: ignore[no-redef]

CASES: dict = {}
_n = register(CASES, "numpy")
ALL = "grad vmap jit_grad jvp"
_ix = np.array([2, 0, 1, 2], np.int32)

# --- take / take_along_axis / put and friends -------------------------------------------------
_n("take[axis0]", lambda m, x, i: m.take(x, i, axis=0), _f32(3, 2), _ix, t=ALL)
_n("take[flat]", lambda m, x, i: m.take(x, i), _f32(2, 3), _ix, t="grad")
_n("take[clip]", lambda m, x, i: m.take(x, i, axis=1, mode="clip"), _f32(2, 3), np.array([5, -1], np.int32))
_n("take[wrap]", lambda m, x, i: m.take(x, i, mode="wrap"), _f32(4), np.array([5, -1], np.int32))
_n(
    "take[fill]",
    lambda m, x, i: m.take(x, i, mode="fill", fill_value=-9.0),
    _f32(4),
    np.array([5, 1], np.int32),
)
_n(
    "take_along_axis[f32]",
    lambda m, x, i: m.take_along_axis(x, i, axis=1),
    _f32(2, 3),
    np.array([[2, 0], [1, 1]], np.int32),
    t=ALL,
)
_n(
    "take_along_axis[argsort]",
    lambda m, x: m.take_along_axis(x, m.argsort(x, axis=0), axis=0),
    _f32(3, 2),
    t="grad",
)
_n(
    "take_along_axis[none]",
    lambda m, x, i: m.take_along_axis(x, i, axis=None),
    _f32(2, 2),
    np.array([3, 0], np.int32),
)
_n(
    "put[not_inplace]",
    lambda m, x, v: m.put(x, np.array([0, 3]), v, inplace=False),
    _f32(2, 3),
    _f32(2, seed=1),
    t="grad",
)
_n("put[clip]", lambda m, x: m.put(x, np.array([9]), 5.0, mode="clip", inplace=False), _f32(4))
_n(
    "put_along_axis[f32]",
    lambda m, x, v: m.put_along_axis(x, np.array([[1], [0]]), v, axis=1, inplace=False),
    _f32(2, 3),
    _f32(2, 1, seed=1),
    t="grad",
)
_n(
    "place[not_inplace]",
    lambda m, x, v: m.place(x, x > 0, v, inplace=False),
    _f32(5),
    np.array([9.0, 8.0], np.float32),
)
_n("fill_diagonal[f32]", lambda m, x: m.fill_diagonal(x, 7.0, inplace=False), _f32(3, 3), t="grad")
_n("fill_diagonal[wrap]", lambda m, x: m.fill_diagonal(x, 7.0, wrap=True, inplace=False), _f32(7, 3))
_n("at_set[f32]", lambda m, x, v: x.at[1].set(v), _f32(3, 2), _f32(2, seed=1), t=ALL)
_n(
    "at_add[dup_idx]",
    lambda m, x, v: x.at[np.array([0, 0, 2])].add(v),
    _f32(3),
    _f32(3, seed=1),
    t="grad vmap",
)
_n("at_mul[slice]", lambda m, x: x.at[1:].multiply(3.0), _f32(4), t="grad")
_n(
    "at_min_max[f32]",
    lambda m, x, v: x.at[np.array([1, 2])].min(v).at[0].max(v[0]),
    _f32(3),
    _f32(2, seed=1),
    t="grad",
)
_n("at_get[fill]", lambda m, x: x.at[np.array([1, 7])].get(mode="fill", fill_value=-1.0), _f32(3))
_n("at_divide_power[f32]", lambda m, x: x.at[0].divide(2.0).at[1].power(2.0), _pos(3), t="grad")
_n("at_set[bool_mask_where]", lambda m, x: m.where(x > 0, 0.0, x), _f32(2, 3), t="grad")
_n("at_apply[f32]", lambda m, x: x.at[1].apply(m.sin), _f32(3), t="grad")

# --- diagonals and triangles --------------------------------------------------------------------
_n("diag[from_vec]", lambda m, v: m.diag(v), _f32(3), t="grad vmap")
_n("diag[k1]", lambda m, v: m.diag(v, k=1), _f32(3))
_n("diag[of_mat]", lambda m, a: m.diag(a, k=-1), _f32(3, 4), t="grad")
_n("diagonal[offset]", lambda m, a: m.diagonal(a, offset=1), _f32(3, 4), t="grad vmap")
_n("diagonal[axes]", lambda m, a: m.diagonal(a, axis1=0, axis2=2), _f32(3, 2, 3))
_n("diagflat[f32]", lambda m, v: m.diagflat(v, k=-1), _f32(2, 2), t="grad")
_n("diag_indices[3]", lambda m, a: a[m.diag_indices(3)], _f32(3, 3))
_n("diag_indices_from[f32]", lambda m, a: a.at[m.diag_indices_from(a)].set(0.0), _f32(3, 3))
_n("tril[f32]", lambda m, a: m.tril(a), _f32(3, 3), t="grad vmap")
_n("triu[k1]", lambda m, a: m.triu(a, k=1), _f32(3, 4), t="grad")
_n("tril[batched]", lambda m, a: m.tril(a, k=-1), _f32(2, 3, 3))
_n("tri[f32]", lambda m, x: m.tri(3, 4, k=1) * x, np.float32(2.0))
_n("tri[int]", lambda m: m.tri(3, dtype=np.int32))
_n("tril_indices[3]", lambda m, a: a[m.tril_indices(3)], _f32(3, 3))
_n("triu_indices[k1_m]", lambda m, a: a[m.triu_indices(3, k=1, m=4)], _f32(3, 4))
_n("tril_indices_from[f32]", lambda m, a: a[m.tril_indices_from(a, k=-1)], _f32(3, 3))
_n("triu_indices_from[f32]", lambda m, a: a[m.triu_indices_from(a)], _f32(3, 3), t="grad")
_n("mask_indices[triu]", lambda m, a: a[m.mask_indices(3, m.triu)], _f32(3, 3))

# --- grids and index arithmetic ---------------------------------------------------------------
_n("meshgrid[xy]", lambda m, a, b: m.meshgrid(a, b), _f32(3), _f32(2, seed=1), t="grad")
_n(
    "meshgrid[ij_sparse]",
    lambda m, a, b: m.meshgrid(a, b, indexing="ij", sparse=True),
    _f32(3),
    _f32(2, seed=1),
)
_n("ix_[f32]", lambda m, a: a[m.ix_(np.array([0, 2]), np.array([1, 3]))], _f32(3, 4), t="grad")
_n("ix_[arrays]", lambda m, i, j: m.ix_(i, j), np.array([0, 2], np.int32), np.array([1, 3, 0], np.int32))
_n("indices[2d]", lambda m, x: m.indices((2, 3)) * x, np.int32(2))
_n("indices[sparse]", lambda m: m.indices((2, 3), sparse=True))
_n("mgrid[f32]", lambda m, x: m.mgrid[0:2, 0:3] * x, np.float32(2.0))
_n("ogrid[step]", lambda m, x: m.ogrid[0:1:3j] * x, np.float32(2.0))
_n("r_[concat]", lambda m, a, b: m.r_[a, 0.0, b], _f32(2), _f32(3, seed=1))
_n("c_[columns]", lambda m, a, b: m.c_[a, b], _f32(2), _f32(2, seed=1))
_n(
    "ravel_multi_index[f32]",
    lambda m, i, j: m.ravel_multi_index((i, j), (3, 4)),
    np.array([0, 2], np.int32),
    np.array([1, 3], np.int32),
)
_n(
    "ravel_multi_index[wrap]",
    lambda m, i, j: m.ravel_multi_index((i, j), (3, 4), mode="wrap"),
    np.array([4, 2], np.int32),
    np.array([1, 5], np.int32),
)
_n("unravel_index[int]", lambda m, i: m.unravel_index(i, (3, 4)), np.array([0, 5, 11], np.int32))
_n("unravel_index[scalar]", lambda m, i: m.unravel_index(i, (2, 3, 4)), np.int32(17))

# --- joins, splits, stacking -------------------------------------------------------------------
_A, _B = _f32(2, 3), _f32(2, 3, seed=1)
_n("concatenate[axis1]", lambda m, a, b: m.concatenate([a, b], axis=1), _A, _B, t="grad vmap")
_n("concatenate[axis_none]", lambda m, a, b: m.concatenate([a, b], axis=None), _A, _f32(4, seed=1))
_n(
    "concatenate[dtype]",
    lambda m, a, b: m.concatenate([a, b], dtype=np.float32),
    _A,
    np.ones((1, 3), np.int32),
)
_n("concat[f32]", lambda m, a, b: m.concat([a, b]), _A, _B)
_n("stack[axis1]", lambda m, a, b: m.stack([a, b], axis=1), _A, _B, t="grad vmap")
_n("stack[neg_axis]", lambda m, a, b: m.stack((a, b), axis=-1), _f32(3), _f32(3, seed=1))
_n("hstack[f32]", lambda m, a, b: m.hstack([a, b]), _A, _B, t="grad")
_n("hstack[1d]", lambda m, a, b: m.hstack([a, b]), _f32(2), _f32(3, seed=1))
_n("vstack[1d]", lambda m, a, b: m.vstack([a, b]), _f32(3), _f32(3, seed=1), t="grad")
_n("dstack[f32]", lambda m, a, b: m.dstack([a, b]), _A, _B)
_n("column_stack[f32]", lambda m, a, b: m.column_stack([a, b]), _f32(3), _f32(3, 2, seed=1))
_n("block[f32]", lambda m, a, b: m.block([[a, b], [b, a]]), _f32(2, 2), _f32(2, 2, seed=1), t="grad")
_n("append[axis]", lambda m, a, b: m.append(a, b, axis=0), _A, _B)
_n("append[flat]", lambda m, a: m.append(a, 1.0), _A)
_n("insert[f32]", lambda m, a: m.insert(a, 1, 9.0, axis=1), _A, t="grad")
_n("insert[indices]", lambda m, a, v: m.insert(a, np.array([0, 2]), v), _f32(4), _f32(2, seed=1))
_n("delete[int]", lambda m, a: m.delete(a, 1, axis=0), _f32(3, 2), t="grad")
_n("delete[array]", lambda m, a: m.delete(a, np.array([0, 2])), _f32(5))
_n("delete[slice]", lambda m, a: m.delete(a, slice(1, None, 2), axis=1), _f32(2, 5))
_n("split[sections]", lambda m, a: m.split(a, 3, axis=1), _f32(2, 6), t="grad")
_n("split[indices]", lambda m, a: m.split(a, [1, 4]), _f32(6), t="vmap")
_n("array_split[uneven]", lambda m, a: m.array_split(a, 3), _f32(7))
_n("hsplit[f32]", lambda m, a: m.hsplit(a, 2), _f32(2, 4))
_n("vsplit[f32]", lambda m, a: m.vsplit(a, [1]), _f32(3, 2))
_n("dsplit[f32]", lambda m, a: m.dsplit(a, 2), _f32(2, 2, 4))
_n("unstack[axis1]", lambda m, a: m.unstack(a, axis=1), _A, t="grad")
_n("broadcast_arrays[f32]", lambda m, a, b: m.broadcast_arrays(a, b), _f32(2, 1), _f32(3, seed=1), t="grad")
_n("broadcast_to[f32]", lambda m, a: m.broadcast_to(a, (2, 2, 3)), _f32(3), t="grad vmap")

# --- reshaping, reordering -------------------------------------------------------------------
_n("reshape[neg1]", lambda m, a: m.reshape(a, (-1, 2)), _f32(2, 3), t="grad vmap")
_n("reshape[order_f]", lambda m, a: m.reshape(a, (3, 2), order="F"), _f32(2, 3), t="grad")
_n("ravel[order_f]", lambda m, a: m.ravel(a, order="F"), _f32(2, 3))
_n("transpose[axes]", lambda m, a: m.transpose(a, (2, 0, 1)), _f32(2, 3, 4), t="grad")
_n("permute_dims[f32]", lambda m, a: m.permute_dims(a, (1, 0)), _A)
_n("moveaxis[f32]", lambda m, a: m.moveaxis(a, 0, -1), _f32(2, 3, 4), t="grad vmap")
_n("moveaxis[multi]", lambda m, a: m.moveaxis(a, (0, 1), (2, 0)), _f32(2, 3, 4))
_n("swapaxes[f32]", lambda m, a: m.swapaxes(a, 0, 2), _f32(2, 3, 4))
_n("rollaxis[f32]", lambda m, a: m.rollaxis(a, 2), _f32(2, 3, 4))
_n("expand_dims[tuple]", lambda m, a: m.expand_dims(a, (0, 3)), _A, t="grad")
_n("squeeze[axis]", lambda m, a: m.squeeze(a, axis=1), _f32(2, 1, 3), t="grad")
_n("squeeze[all]", lambda m, a: m.squeeze(a), _f32(1, 3, 1))
_n("atleast_1d[scalar]", lambda m, a: m.atleast_1d(a), np.float32(2.0))
_n("atleast_2d[vec]", lambda m, a: m.atleast_2d(a), _f32(3))
_n("atleast_3d[two]", lambda m, a, b: m.atleast_3d(a, b), _f32(3), _A)
_n("roll[shift]", lambda m, a: m.roll(a, 2), _A, t="grad vmap")
_n("roll[axis]", lambda m, a: m.roll(a, -1, axis=1), _A, t="grad")
_n("roll[multi]", lambda m, a: m.roll(a, (1, 2), axis=(0, 1)), _A)
_n("roll[traced_shift]", lambda m, a, s: m.roll(a, s), _f32(5), np.int32(2))
_n("rot90[k1]", lambda m, a: m.rot90(a), _A, t="grad")
_n("rot90[k3_axes]", lambda m, a: m.rot90(a, 3, axes=(1, 0)), _A)
_n("flip[none]", lambda m, a: m.flip(a), _A, t="grad vmap")
_n("flip[axis]", lambda m, a: m.flip(a, axis=1), _A)
_n("fliplr[f32]", lambda m, a: m.fliplr(a), _A)
_n("flipud[f32]", lambda m, a: m.flipud(a), _A)
_n("tile[reps]", lambda m, a: m.tile(a, (2, 1)), _A, t="grad vmap")
_n("tile[int]", lambda m, a: m.tile(a, 3), _f32(2))
_n("repeat[scalar]", lambda m, a: m.repeat(a, 2, axis=0), _A, t="grad vmap")
_n("repeat[flat]", lambda m, a: m.repeat(a, 2), _A)
_n("repeat[array]", lambda m, a: m.repeat(a, np.array([1, 0, 2]), axis=1), _A, t="grad")
_n(
    "repeat[total_length]",
    lambda m, a, r: m.repeat(a, r, total_repeat_length=5),
    _f32(3),
    np.array([1, 2, 2], np.int32),
)
_n("resize[larger]", lambda m, a: m.resize(a, (3, 3)), _A)
_n("trim_zeros[concrete]", lambda m: m.trim_zeros(np.array([0.0, 1.0, 2.0, 0.0], np.float32)))

# --- pad modes -------------------------------------------------------------------------------
for _mode in (
    "constant",
    "edge",
    "reflect",
    "symmetric",
    "wrap",
    "linear_ramp",
    "mean",
    "maximum",
    "minimum",
    "median",
    "empty",
):
    _n(f"pad[{_mode}]", lambda m, a, _mode=_mode: m.pad(a, ((1, 2), (2, 1)), mode=_mode), _A)
_n("pad[constant_value]", lambda m, a: m.pad(a, 1, constant_values=-1.0), _A, t=ALL)
_n("pad[reflect_odd]", lambda m, a: m.pad(a, 2, mode="reflect", reflect_type="odd"), _f32(4), t="grad")
_n("pad[edge_grad]", lambda m, a: m.pad(a, ((0, 0), (1, 3)), mode="edge"), _A, t="grad")
_n("pad[wrap_large]", lambda m, a: m.pad(a, 5, mode="wrap"), _f32(3))
_n("pad[stat_length]", lambda m, a: m.pad(a, 2, mode="mean", stat_length=2), _f32(5))
_n("pad[ramp_end]", lambda m, a: m.pad(a, (2, 1), mode="linear_ramp", end_values=(5.0, -1.0)), _f32(3))
_n("pad[callable]", lambda m, a: m.pad(a, 1, mode=lambda v, w, i, k: v), _f32(3))

# --- creation ------------------------------------------------------------------------------------
_n("arange[stop]", lambda m: m.arange(5))
_n("arange[float_step]", lambda m: m.arange(0.0, 1.0, 0.25))
_n("arange[dtype]", lambda m, x: m.arange(2, 8, 2, dtype=np.float32) * x, np.float32(2.0))
_n("linspace[f32]", lambda m, x: m.linspace(0.0, 1.0, 5) * x, np.float32(2.0))
_n("linspace[traced_stop]", lambda m, b: m.linspace(0.0, b, 4), np.float32(3.0), t="grad")
_n(
    "linspace[endpoint_retstep]",
    lambda m, a: m.linspace(a, 2.0, 4, endpoint=False, retstep=True),
    np.float32(1.0),
)
_n("linspace[arrays_axis]", lambda m, a, b: m.linspace(a, b, 3, axis=1), _f32(2), _f32(2, seed=1))
_n("logspace[f32]", lambda m, a: m.logspace(a, 2.0, 4), np.float32(0.0), t="grad")
_n("logspace[base2]", lambda m: m.logspace(0.0, 3.0, 4, base=2.0))
_n("geomspace[f32]", lambda m, a: m.geomspace(a, 8.0, 4), np.float32(1.0), t="grad")
_n("eye[k]", lambda m, x: m.eye(3, 4, k=1) * x, np.float32(2.0))
_n("eye[dtype_int]", lambda m: m.eye(2, dtype=np.int32))
_n("identity[f32]", lambda m, x: m.identity(3) * x, np.float32(2.0))
_n("zeros[dtype]", lambda m: m.zeros((2, 3), np.int32))
_n("ones[int_shape]", lambda m, x: m.ones(3) + x, np.float32(2.0))
_n("full[array_fill]", lambda m, v: m.full((2, 3), v), _f32(3), t="grad")
_n("full[scalar_dtype]", lambda m: m.full((2,), 7, dtype=np.float32))
_n("full_like[f32]", lambda m, a: m.full_like(a, 3.0), _A)
_n("zeros_like[shape]", lambda m, a: m.zeros_like(a, shape=(3,)), _A)
_n("ones_like[dtype]", lambda m, a: m.ones_like(a, dtype=np.int32), _A)
_n("empty_like[f32]", lambda m, a: m.empty_like(a), _A)
_n("empty[f32]", lambda m: m.empty((2, 2)))
_n("array[list_of_tracers]", lambda m, a, b: m.array([a, b, 1.0]), np.float32(1.0), np.float32(2.0), t="grad")
_n("array[nested]", lambda m, a: m.array([[a, a], [2.0, 3.0]]), np.float32(1.0))
_n("array[dtype_copy]", lambda m, a: m.array(a, dtype=np.int32, copy=True), _A)
_n("asarray[f32]", lambda m, a: m.asarray(a, dtype=np.float16), _A)
_n("astype[f32]", lambda m, a: m.astype(a, np.int32), _A)
_n("copy[f32]", lambda m, a: m.copy(a), _A, t="grad")
_n(
    "fromfunction[f32]",
    lambda m, x: m.fromfunction(lambda i, j: i + j * x, (2, 3), dtype=np.float32),
    np.float32(2.0),
)
_n("frombuffer[bytes]", lambda m: m.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8))
_n("apply_along_axis[f32]", lambda m, a: m.apply_along_axis(lambda v: v.sum() * v, 1, a), _A, t="grad")
_n("apply_over_axes[f32]", lambda m, a: m.apply_over_axes(m.sum, a, [0, 1]), _f32(2, 3, 2))
_n(
    "vectorize[f32]",
    lambda m, a, b: m.vectorize(lambda u, v: u * v + 1.0)(a, b),
    _A,
    _f32(3, seed=1),
    t="grad",
)
_n("vectorize[signature]", lambda m, a: m.vectorize(lambda v: v.sum(), signature="(n)->()")(a), _A, t="grad")
_n("vectorize[excluded]", lambda m, a: m.vectorize(lambda v, p: v**p, excluded={1})(a, 2), _A)
_n(
    "frompyfunc[outer]",
    lambda m, a, b: m.frompyfunc(lambda u, v: u * v, 2, 1).outer(a, b),
    _f32(2),
    _f32(3, seed=1),
)
_n("ufunc_reduce[add]", lambda m, a: m.add.reduce(a, axis=0), _A, t="grad")
_n("ufunc_accumulate[multiply]", lambda m, a: m.multiply.accumulate(a, axis=1), _A)
_n("ufunc_outer[subtract]", lambda m, a, b: m.subtract.outer(a, b), _f32(2), _f32(3, seed=1), t="grad")
_n(
    "ufunc_at[add]",
    lambda m, a, v: m.add.at(a, np.array([0, 0, 2]), v, inplace=False),
    _f32(3),
    _f32(3, seed=1),
)
_n("ufunc_reduceat[add]", lambda m, a: m.add.reduceat(a, np.array([0, 2, 3])), _f32(5))
_n("result_type[in_jit]", lambda m, a: a.astype(m.result_type(a, 1.0, np.int8)), _A)
_n("iinfo_finfo[consts]", lambda m, a: m.clip(a, m.finfo(np.float32).min, m.iinfo(np.int32).max), _A)
_n("shape_size_ndim[f32]", lambda m, a: a * (m.size(a) + m.ndim(a) + m.shape(a)[0]), _A)
_n("isscalar_iscomplexobj[f32]", lambda m, a: a * m.isscalar(a) + m.iscomplexobj(a), _A)
