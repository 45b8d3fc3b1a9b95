"""Shape, dtype, reduction and contraction primitives, with their rules."""
from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..batching import not_mapped, moveaxis
from ..core import Primitive, ShapedArray


def _lax():
    from . import api
    return api


# --- convert_element_type ----------------------------------------------------------------------

convert_element_type_p = Primitive('convert_element_type')


@convert_element_type_p.def_impl
def _convert_impl(x, *, new_dtype, weak_type=False):
    if x.dtype.kind == 'f' and np.dtype(new_dtype).kind in 'iu':
        with np.errstate(invalid='ignore'):
            x = np.trunc(x)
            info = np.iinfo(new_dtype)
            x = np.clip(np.nan_to_num(x, nan=0), info.min, info.max)
    return x.astype(new_dtype)


convert_element_type_p.def_abstract_eval(
    lambda x, *, new_dtype, weak_type=False: ShapedArray(x.shape, new_dtype, weak_type))


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False):
    x, = primals
    g, = tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type)
    if np.issubdtype(np.dtype(new_dtype), np.inexact) and np.issubdtype(x.dtype, np.inexact):
        return out, convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type)
    return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))


ad.jvp_rules[convert_element_type_p] = _convert_jvp
ad.transpose_rules[convert_element_type_p] = lambda ct, x, **_: [
    convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type)]
batching.vectorized_batcher(convert_element_type_p)


# --- broadcast_in_dim --------------------------------------------------------------------------

broadcast_in_dim_p = Primitive('broadcast_in_dim')


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim: operand rank {x.ndim} does not match "
                        f"broadcast_dimensions {broadcast_dimensions}")
    for i, d in enumerate(broadcast_dimensions):
        if not (x.shape[i] == 1 or x.shape[i] == shape[d]):
            raise TypeError(f"broadcast_in_dim: operand shape {x.shape} cannot be broadcast to "
                            f"{shape} along dimensions {broadcast_dimensions}")
    return ShapedArray(shape, x.dtype, x.weak_type)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    lax = _lax()
    in_shape = x.aval.shape
    unit = [i for i, s in enumerate(in_shape) if s == 1 and shape[broadcast_dimensions[i]] != 1]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in kept)
    summed = lax.reduce_sum(ct, axes) if axes else ct
    return [lax.reshape(summed, in_shape) if summed.shape != in_shape else summed]


def _broadcast_in_dim_batch(size, vals, dims, *, shape, broadcast_dimensions):
    x, = vals
    x = moveaxis(x, dims[0], 0)
    new_shape = (size, *shape)
    new_dims = (0, *[d + 1 for d in broadcast_dimensions])
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims), 0


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.batch_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch


# --- reshape -----------------------------------------------------------------------------------

reshape_p = Primitive('reshape')
reshape_p.def_impl(lambda x, *, new_sizes, dimensions=None: np.reshape(x, new_sizes))


@reshape_p.def_abstract_eval
def _reshape_abstract(x, *, new_sizes, dimensions=None):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise TypeError(f"cannot reshape array of shape {x.shape} (size {x.size}) into shape "
                        f"{tuple(new_sizes)} (size {int(np.prod(new_sizes, dtype=np.int64))})")
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


ad.deflinear(reshape_p, lambda ct, x, **_: [_lax().reshape(ct, x.aval.shape)])


def _reshape_batch(size, vals, dims, *, new_sizes, dimensions=None):
    x = moveaxis(vals[0], dims[0], 0)
    return reshape_p.bind(x, new_sizes=(size, *new_sizes), dimensions=None), 0


batching.batch_rules[reshape_p] = _reshape_batch


# --- transpose ---------------------------------------------------------------------------------

transpose_p = Primitive('transpose')
transpose_p.def_impl(lambda x, *, permutation: np.transpose(x, permutation))
transpose_p.def_abstract_eval(lambda x, *, permutation: ShapedArray(
    tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type))
ad.deflinear(transpose_p, lambda ct, x, *, permutation: [
    _lax().transpose(ct, tuple(np.argsort(permutation)))])


def _transpose_batch(size, vals, dims, *, permutation):
    x = moveaxis(vals[0], dims[0], 0)
    return transpose_p.bind(x, permutation=(0, *[p + 1 for p in permutation])), 0


batching.batch_rules[transpose_p] = _transpose_batch


# --- squeeze -----------------------------------------------------------------------------------

squeeze_p = Primitive('squeeze')
squeeze_p.def_impl(lambda x, *, dimensions: np.squeeze(x, dimensions) if dimensions else x)


@squeeze_p.def_abstract_eval
def _squeeze_abstract(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise ValueError(f"cannot select an axis to squeeze out which has size not equal to "
                             f"one, got shape={x.shape} and dimensions={dimensions}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)


ad.deflinear(squeeze_p, lambda ct, x, **_: [_lax().reshape(ct, x.aval.shape)])


def _squeeze_batch(size, vals, dims, *, dimensions):
    x = moveaxis(vals[0], dims[0], 0)
    return squeeze_p.bind(x, dimensions=tuple(d + 1 for d in dimensions)), 0


batching.batch_rules[squeeze_p] = _squeeze_batch


# --- select_n ----------------------------------------------------------------------------------

select_n_p = Primitive('select_n')


@select_n_p.def_impl
def _select_n_impl(which, *cases):
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0]) if len(cases) == 2 else cases[0]
    return np.choose(which, cases)


@select_n_p.def_abstract_eval
def _select_n_abstract(which, *cases):
    c0 = cases[0]
    for c in cases[1:]:
        if c.shape != c0.shape or c.dtype != c0.dtype:
            raise TypeError(f"select_n cases must have the same shapes and dtypes, got "
                            f"{[c.str_short() for c in cases]}")
    if which.shape not in ((), c0.shape):
        raise TypeError(f"select_n predicate shape {which.shape} must be scalar or {c0.shape}")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    _, *tcases = tangents
    out = select_n_p.bind(which, *cases)
    if all(type(t) is ad.Zero for t in tcases):
        return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
    return out, select_n_p.bind(which, *[ad.instantiate_zeros(t) for t in tcases])


def _select_n_transpose(ct, which, *cases):
    assert not ad.is_undefined(which)
    zeros = _lax().full_like(ct, 0)
    return [None] + [select_n_p.bind(which, *[ct if j == i else zeros for j in range(len(cases))])
                     if ad.is_undefined(c) else None for i, c in enumerate(cases)]


def _select_n_batch(size, vals, dims):
    which, *cases = vals
    wdim, *cdims = dims
    lax = _lax()
    if wdim is not_mapped and core.get_aval(which).ndim == 0:
        # A scalar predicate applies to whole cases: align the cases only.
        out_cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, cdims)]
        return select_n_p.bind(which, *out_cases), 0
    vals2 = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    w = vals2[0]
    full_shape = core.get_aval(vals2[1]).shape
    if core.get_aval(w).shape != full_shape:
        w = lax.broadcast_in_dim(w, full_shape, (0,))
    return select_n_p.bind(w, *vals2[1:]), 0


ad.jvp_rules[select_n_p] = _select_n_jvp
ad.transpose_rules[select_n_p] = _select_n_transpose
batching.batch_rules[select_n_p] = _select_n_batch


# --- reductions --------------------------------------------------------------------------------

def _reduce_abstract(x, *, axes, **_):
    for a in axes:
        if not 0 <= a < x.ndim:
            raise ValueError(f"reduction axis {a} out of bounds for array of rank {x.ndim}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype, x.weak_type)


def _reduce_batch(prim):
    def rule(size, vals, dims, *, axes, **params):
        x, d = vals[0], dims[0]
        new_axes = tuple(sorted(_shift_axes(axes, d)))
        out_dim = d - sum(1 for a in new_axes if a < d)
        return prim.bind(x, axes=new_axes, **params), out_dim
    return rule


def _shift_axes(axes, bdim):
    return [a if a < bdim else a + 1 for a in axes]


reduce_sum_p = Primitive('reduce_sum')
reduce_sum_p.def_impl(lambda x, *, axes: np.asarray(np.sum(x, axis=tuple(axes), dtype=x.dtype)))
reduce_sum_p.def_abstract_eval(_reduce_abstract)


def _reduce_sum_transpose(ct, x, *, axes):
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [_lax().broadcast_in_dim(ct, shape, kept)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)
batching.batch_rules[reduce_sum_p] = _reduce_batch(reduce_sum_p)


def _reduce_chooser_jvp(prim):
    # The derivative flows to the elements that attain the extreme, shared equally among ties.
    def rule(primals, tangents, *, axes):
        x, = primals
        g, = tangents
        lax = _lax()
        ans = prim.bind(x, axes=axes)
        shape = core.get_aval(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        location = lax.convert_element_type(lax.eq(x, lax.broadcast_in_dim(ans, shape, kept)), g.dtype)
        counts = lax.reduce_sum(location, axes)
        return ans, lax.div(lax.reduce_sum(lax.mul(g, location), axes), counts)
    return rule


def _reduce_identity_impl(np_fn):
    def impl(x, *, axes):
        return np.asarray(np_fn(x, axis=tuple(axes)))
    return impl


reduce_max_p = Primitive('reduce_max')
reduce_max_p.def_impl(_reduce_identity_impl(np.max))
reduce_max_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_max_p] = _reduce_chooser_jvp(reduce_max_p)
batching.batch_rules[reduce_max_p] = _reduce_batch(reduce_max_p)

reduce_min_p = Primitive('reduce_min')
reduce_min_p.def_impl(_reduce_identity_impl(np.min))
reduce_min_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_min_p] = _reduce_chooser_jvp(reduce_min_p)
batching.batch_rules[reduce_min_p] = _reduce_batch(reduce_min_p)


# --- dot_general -------------------------------------------------------------------------------

dot_general_p = Primitive('dot_general')


def _dot_general_impl(x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    xf = [i for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [i for i in range(y.ndim) if i not in yc and i not in yb]
    bshape = [x.shape[i] for i in xb]
    xt = np.transpose(x, [*xb, *xf, *xc]).reshape(
        int(np.prod(bshape, dtype=np.int64)), int(np.prod([x.shape[i] for i in xf], dtype=np.int64)),
        int(np.prod([x.shape[i] for i in xc], dtype=np.int64)))
    yt = np.transpose(y, [*yb, *yc, *yf]).reshape(
        xt.shape[0], xt.shape[2], int(np.prod([y.shape[i] for i in yf], dtype=np.int64)))
    out = np.matmul(xt, yt)
    dtype = preferred_element_type or x.dtype
    return out.reshape([*bshape, *[x.shape[i] for i in xf], *[y.shape[i] for i in yf]]).astype(dtype, copy=False)


dot_general_p.def_impl(_dot_general_impl)


@dot_general_p.def_abstract_eval
def _dot_general_abstract(x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    if [x.shape[i] for i in xc] != [y.shape[i] for i in yc]:
        raise TypeError(f"dot_general requires contracting dimensions to have the same shape, got "
                        f"{tuple(x.shape[i] for i in xc)} and {tuple(y.shape[i] for i in yc)}.")
    if [x.shape[i] for i in xb] != [y.shape[i] for i in yb]:
        raise TypeError(f"dot_general requires lhs batch dimensions and rhs batch dimensions to have "
                        f"the same shape, got {tuple(x.shape[i] for i in xb)} and "
                        f"{tuple(y.shape[i] for i in yb)}.")
    if x.dtype != y.dtype and preferred_element_type is None:
        raise TypeError(f"dot_general requires operands of the same dtype, got {x.dtype.name} and "
                        f"{y.dtype.name}.")
    xf = [x.shape[i] for i in range(x.ndim) if i not in xc and i not in xb]
    yf = [y.shape[i] for i in range(y.ndim) if i not in yc and i not in yb]
    shape = [x.shape[i] for i in xb] + xf + yf
    return ShapedArray(shape, preferred_element_type or x.dtype, x.weak_type and y.weak_type)


def _ranges_like(*xs):
    start = 0
    for x in xs:
        yield tuple(range(start, start + len(x)))
        start += len(x)


def _remaining(original, *removed_lists):
    removed = set(i for r in removed_lists for i in r)
    return [i for i in original if i not in removed]


def _dot_transpose_lhs(g, x_aval, y, *, dimension_numbers, preferred_element_type=None, swap_ans=False):
    lax = _lax()
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_ndim = x_aval.ndim
    y_ndim = core.get_aval(y).ndim
    x_kept = _remaining(range(x_ndim), x_contract, x_batch)
    y_kept = _remaining(range(y_ndim), y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    dims = ((ans_y, tuple(y_kept)), (ans_batch, tuple(y_batch)))
    x_contract_sorted_by_y = list(np.take(x_contract, np.argsort(y_contract))) if x_contract else []
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_sorted_by_y)
    res = lax.dot_general(g, y, dims, preferred_element_type=None)
    res = lax.transpose(res, tuple(int(a) for a in out_axes))
    if res.dtype != x_aval.dtype:
        res = lax.convert_element_type(res, x_aval.dtype)
    return res


def _dot_transpose(ct, x, y, *, dimension_numbers, precision=None, preferred_element_type=None):
    (xc, yc), (xb, yb) = dimension_numbers
    if ad.is_undefined(x):
        return [_dot_transpose_lhs(ct, x.aval, y, dimension_numbers=dimension_numbers), None]
    swapped = ((yc, xc), (yb, xb))
    return [None, _dot_transpose_lhs(ct, y.aval, x, dimension_numbers=swapped, swap_ans=True)]


def _dot_jvp(primals, tangents, **params):
    x, y = primals
    gx, gy = tangents
    out = dot_general_p.bind(x, y, **params)
    acc = ad.Zero(ad.tangent_aval(core.get_aval(out)))
    if type(gx) is not ad.Zero:
        acc = ad.add_tangents(acc, dot_general_p.bind(gx, y, **params))
    if type(gy) is not ad.Zero:
        acc = ad.add_tangents(acc, dot_general_p.bind(x, gy, **params))
    return out, acc


def _dot_batch(size, vals, dims, *, dimension_numbers, precision=None, preferred_element_type=None):
    x, y = vals
    xd, yd = dims
    (xc, yc), (xb, yb) = dimension_numbers
    shift = lambda ds: tuple(d + 1 for d in ds)
    params = dict(precision=precision, preferred_element_type=preferred_element_type)
    if xd is not not_mapped and yd is not not_mapped:
        x, y = moveaxis(x, xd, 0), moveaxis(y, yd, 0)
        dn = ((shift(xc), shift(yc)), ((0, *shift(xb)), (0, *shift(yb))))
        return dot_general_p.bind(x, y, dimension_numbers=dn, **params), 0
    if xd is not not_mapped:
        x = moveaxis(x, xd, 0)
        dn = ((shift(xc), yc), (shift(xb), yb))
        return dot_general_p.bind(x, y, dimension_numbers=dn, **params), len(xb)
    y = moveaxis(y, yd, 0)
    dn = ((xc, shift(yc)), (xb, shift(yb)))
    x_free = core.get_aval(x).ndim - len(xc) - len(xb)
    return dot_general_p.bind(x, y, dimension_numbers=dn, **params), len(xb) + x_free


ad.jvp_rules[dot_general_p] = _dot_jvp
ad.transpose_rules[dot_general_p] = _dot_transpose
batching.batch_rules[dot_general_p] = _dot_batch
