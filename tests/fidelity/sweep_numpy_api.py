"""The sweep's jax.numpy cases beyond the ufuncs and reductions of sweep.py: sorting and searching,
set operations, histograms, polynomials, window functions, einsum paths, contractions, indexing
helpers, array manipulation and creation, cumulative ops with dtypes, where=/initial= reductions,
interp, bincount, clip and rounding -- each on typical and less common arguments, and the
differentiable ones under grad, vmap, jit(grad) and jvp.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_programs import _f32, _pos, _spd, _transformed, resolve
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_programs import _f32, _pos, _spd, _transformed, resolve  # type: ignore[no-redef]

CASES: dict = {}


def transformed(make, kind):
    """``sweep_programs._transformed`` plus ``jvp``: the forward derivative along the first
    argument, the others held fixed, with a tangent of ones."""
    if kind != "jvp":
        return _transformed(make, kind)

    def tmake(jax):
        fun, args = make(jax)
        first, rest = args[0], args[1:]
        tangent = np.ones_like(np.asarray(first, np.float32))
        return (lambda x, t: jax.jvp(lambda v: fun(v, *rest), (x,), (t,))), (first, tangent)

    return tmake


def register(cases, prefix):
    """``add(name, call, *args, t="grad vmap")``: the case ``PREFIX.name`` calling
    ``call(module, *args)``, where ``module`` is ``jax.PREFIX``'s module, and its listed
    transformations ``kind(PREFIX.name)``."""

    def add(name, call, *args, t=""):
        def make(jax):
            mod = resolve(jax, prefix)
            return (lambda *a: call(mod, *a)), args

        full = f"{prefix}.{name}"
        cases[full] = make
        for kind in t.split():
            cases[f"{kind}({full})"] = transformed(make, kind)

    return add


_n = register(CASES, "numpy")
ALL = "grad vmap jit_grad jvp"
_i = lambda *shape: np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)  # noqa: E731
_dup = np.array([3.0, 1.0, 2.0, 3.0, 1.0, 5.0], np.float32)
_idup = np.array([4, 1, 1, 3, 4, 0], np.int32)

# --- sorting and searching --------------------------------------------------------------------
_n("sort[axis0]", lambda m, x: m.sort(x, axis=0), _f32(3, 4), t=ALL)
_n("sort[axis_none]", lambda m, x: m.sort(x, axis=None), _f32(2, 3), t="grad")
_n("sort[descending]", lambda m, x: m.sort(x, descending=True), _f32(2, 5), t="grad vmap")
_n("sort[unstable]", lambda m, x: m.sort(x, stable=False), _f32(5))
_n("sort[int]", lambda m, x: m.sort(x), _idup)
_n("argsort[f32]", lambda m, x: m.argsort(x), _f32(2, 5), t="vmap")
_n("argsort[descending]", lambda m, x: m.argsort(x, descending=True), _dup)
_n("argsort[unstable]", lambda m, x: m.argsort(x, stable=False), _dup)
_n("argsort[axis0]", lambda m, x: m.argsort(x, axis=0), _f32(3, 2))
_n("argsort[axis_none]", lambda m, x: m.argsort(x, axis=None), _f32(2, 3))
_n("lexsort[two_keys]", lambda m, a, b: m.lexsort((a, b)), _idup, _dup)
_n("lexsort[axis0]", lambda m, a: m.lexsort(a, axis=0), _f32(3, 2))
_n("partition[kth2]", lambda m, x: m.partition(x, 2), _dup, t="grad")
_n("argpartition[kth2]", lambda m, x: m.argpartition(x, 2), _dup)
_n("partition[axis0]", lambda m, x: m.partition(x, 1, axis=0), _f32(3, 4))
_n("sort_complex[c64]", lambda m, x: m.sort_complex(x), np.array([1 + 2j, 1 - 1j, -2j], np.complex64))
_n("searchsorted[left]", lambda m, a, v: m.searchsorted(a, v), np.sort(_f32(6)), _f32(3, seed=1))
_n("searchsorted[int]", lambda m, a, v: m.searchsorted(a, v, side="right"), np.sort(_idup), np.int32(3))
_n("digitize[right]", lambda m, x, b: m.digitize(x, b, right=True), _f32(4), np.sort(_f32(3, seed=1)))
_n("argmax[keepdims]", lambda m, x: m.argmax(x, axis=1, keepdims=True), _f32(2, 3))
_n("argmin[axis_none]", lambda m, x: m.argmin(x), _f32(2, 3))
_n("nonzero[size]", lambda m, x: m.nonzero(x, size=4), np.array([[0, 1, 2], [3, 0, 5]], np.int32))
_n("nonzero[fill]", lambda m, x: m.nonzero(x > 0, size=5, fill_value=-1), _f32(2, 3))
_n("flatnonzero[size]", lambda m, x: m.flatnonzero(x, size=3), _idup)
_n("argwhere[size]", lambda m, x: m.argwhere(x > 0, size=3), _f32(2, 3))
_n("where[one_arg_size]", lambda m, x: m.where(x > 0, size=4), _f32(6))
_n("where[three]", lambda m, x, y: m.where(x > 0, x, y), _f32(2, 3), _f32(2, 3, seed=1), t=ALL)
_n("where[scalar_branch]", lambda m, x: m.where(x > 0, x, 0.0), _f32(2, 3), t="grad vmap")
_n("extract[size]", lambda m, x: m.extract(x > 0, x, size=3), _f32(6))
_n(
    "compress[size]",
    lambda m, c, x: m.compress(c, x, axis=0, size=2),
    np.array([True, False, True]),
    _f32(3, 2),
)
_n("select[f32]", lambda m, x: m.select([x < -0.5, x > 0.5], [x * 2, x**2], default=-1.0), _f32(5), t=ALL)
_n(
    "piecewise[f32]",
    lambda m, x: m.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v**2]),
    _f32(5),
    t="grad",
)
_n(
    "choose[clip]",
    lambda m, i, x, y: m.choose(i, [x, y], mode="clip"),
    np.array([0, 1, 2], np.int32),
    _f32(3),
    _f32(3, seed=1),
)
_n("count_nonzero[axis]", lambda m, x: m.count_nonzero(x, axis=1), _f32(2, 3))

# --- set operations -----------------------------------------------------------------------------
_n("unique[size]", lambda m, x: m.unique(x, size=6), _dup)
_n("unique[size_fill]", lambda m, x: m.unique(x, size=6, fill_value=-1), _idup)
_n("unique[counts]", lambda m, x: m.unique(x, return_counts=True, size=4), _idup)
_n("unique[index_inverse]", lambda m, x: m.unique(x, return_index=True, return_inverse=True, size=5), _dup)
_n("unique[axis0]", lambda m, x: m.unique(x, axis=0, size=2), np.array([[1, 2], [1, 2], [0, 3]], np.int32))
_n("unique[no_size]", lambda m, x: m.unique(x), _dup)
_n("unique_values[size]", lambda m, x: m.unique_values(x, size=4), _idup)
_n("unique_counts[size]", lambda m, x: m.unique_counts(x, size=4), _idup)
_n("unique_inverse[size]", lambda m, x: m.unique_inverse(x, size=4), _idup)
_n("unique_all[size]", lambda m, x: m.unique_all(x, size=4), _idup)
_n("isin[f32]", lambda m, x, y: m.isin(x, y), _idup, np.array([1, 4], np.int32))
_n("isin[invert]", lambda m, x, y: m.isin(x, y, invert=True), _idup, np.array([1, 4], np.int32))
_n("intersect1d[size]", lambda m, x, y: m.intersect1d(x, y, size=3), _idup, np.array([1, 4, 7], np.int32))
_n(
    "intersect1d[indices]",
    lambda m, x, y: m.intersect1d(x, y, return_indices=True, size=2),
    _idup,
    np.array([1, 4, 7], np.int32),
)
_n("union1d[size]", lambda m, x, y: m.union1d(x, y, size=6), _idup, np.array([1, 4, 7], np.int32))
_n("setdiff1d[size]", lambda m, x, y: m.setdiff1d(x, y, size=3), _idup, np.array([1, 4, 7], np.int32))
_n("setxor1d[size]", lambda m, x, y: m.setxor1d(x, y, size=4), _idup, np.array([1, 4, 7], np.int32))
_n(
    "setdiff1d[assume_unique]",
    lambda m, x, y: m.setdiff1d(x, y, assume_unique=True, size=2),
    np.array([1, 2, 5], np.int32),
    np.array([2], np.int32),
)

# --- histograms and counting ----------------------------------------------------------------------
_n("histogram[bins5]", lambda m, x: m.histogram(x, bins=5), _f32(10))
_n("histogram[range_density]", lambda m, x: m.histogram(x, bins=4, range=(-2.0, 2.0), density=True), _f32(10))
_n(
    "histogram[edges_weights]",
    lambda m, x, w: m.histogram(x, bins=np.array([-1.0, 0.0, 1.0], np.float32), weights=w),
    _f32(10),
    _pos(10),
)
_n("histogram_bin_edges[f32]", lambda m, x: m.histogram_bin_edges(x, bins=4), _f32(10))
_n("histogram2d[f32]", lambda m, x, y: m.histogram2d(x, y, bins=3), _f32(8), _f32(8, seed=1))
_n("histogramdd[f32]", lambda m, x: m.histogramdd(x, bins=2), _f32(8, 2))
_n("bincount[length]", lambda m, x: m.bincount(x, length=6), _idup)
_n("bincount[weights]", lambda m, x, w: m.bincount(x, w, length=5), _idup, _pos(6), t="")
_n("bincount[minlength]", lambda m, x: m.bincount(x, minlength=3, length=7), _idup)

# --- polynomials --------------------------------------------------------------------------------
_c3 = np.array([1.0, -2.0, 0.5], np.float32)
_n("polyval[f32]", lambda m, p, x: m.polyval(p, x), _c3, _f32(4), t=ALL)
_n("polyval[unroll]", lambda m, p, x: m.polyval(p, x, unroll=2), _c3, _f32(4))
_n("polyfit[deg2]", lambda m, x, y: m.polyfit(x, y, 2), np.linspace(0, 1, 6).astype(np.float32), _f32(6))
_n(
    "polyfit[weights]",
    lambda m, x, y, w: m.polyfit(x, y, 1, w=w),
    np.linspace(0, 1, 6).astype(np.float32),
    _f32(6),
    _pos(6),
)
_n("polyadd[f32]", lambda m, a, b: m.polyadd(a, b), _c3, _f32(2), t="grad")
_n("polysub[f32]", lambda m, a, b: m.polysub(a, b), _c3, _f32(4))
_n("polymul[f32]", lambda m, a, b: m.polymul(a, b), _c3, _f32(2), t="grad")
_n("polydiv[f32]", lambda m, a, b: m.polydiv(a, b), _c3, np.array([1.0, 2.0], np.float32))
_n("polyder[m2]", lambda m, p: m.polyder(p, 2), _f32(4), t="grad")
_n("polyint[k]", lambda m, p: m.polyint(p, k=1.5), _f32(3), t="grad")
_n("poly[roots]", lambda m, r: m.poly(r), _f32(3))
_n(
    "roots[strip_false]",
    lambda m, p: m.roots(p, strip_zeros=False),
    np.array([0.0, 1.0, -3.0, 2.0], np.float32),
)
_n("vander[f32]", lambda m, x: m.vander(x, 3), _f32(4), t="grad")
_n("vander[increasing]", lambda m, x: m.vander(x, increasing=True), _f32(3))

# --- window functions (a constant scaled by the argument) ---------------------------------------
for _w in ("bartlett", "blackman", "hamming", "hanning"):
    _n(f"{_w}[6]", lambda m, x, _w=_w: getattr(m, _w)(6) * x, np.float32(2.0))
_n("kaiser[6]", lambda m, x: m.kaiser(6, 5.0) * x, np.float32(2.0))
_n("kaiser[beta_arg]", lambda m, b: m.kaiser(4, b), np.float32(3.0))

# --- einsum and contractions -----------------------------------------------------------------
_A, _B, _C = _f32(2, 3), _f32(3, 4, seed=1), _f32(4, 2, seed=2)
_n("einsum[matmul]", lambda m, a, b: m.einsum("ij,jk->ik", a, b), _A, _B, t=ALL)
_n("einsum[trace]", lambda m, a: m.einsum("ii->", a), _spd(3), t="grad")
_n("einsum[diag]", lambda m, a: m.einsum("ii->i", a), _spd(3), t="grad vmap")
_n("einsum[sum_all]", lambda m, a: m.einsum("ij->", a), _A)
_n("einsum[transpose]", lambda m, a: m.einsum("ij->ji", a), _A)
_n(
    "einsum[batch]",
    lambda m, a, b: m.einsum("bij,bjk->bik", a, b),
    _f32(2, 2, 3),
    _f32(2, 3, 4),
    t="grad vmap",
)
_n("einsum[dot]", lambda m, a, b: m.einsum("i,i->", a, b), _f32(3), _f32(3, seed=1), t=ALL)
_n("einsum[outer]", lambda m, a, b: m.einsum("i,j->ij", a, b), _f32(3), _f32(2, seed=1))
_n("einsum[hadamard]", lambda m, a, b: m.einsum("ij,ij->ij", a, b), _A, _f32(2, 3, seed=1))
_n(
    "einsum[chain_greedy]",
    lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c, optimize="greedy"),
    _A,
    _B,
    _C,
    t="grad",
)
_n(
    "einsum[chain_optimal]",
    lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c, optimize="optimal"),
    _A,
    _B,
    _C,
)
_n(
    "einsum[chain_unoptimized]",
    lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c, optimize=False),
    _A,
    _B,
    _C,
)
_n("einsum[ellipsis]", lambda m, a, b: m.einsum("...ij,...jk->...ik", a, b), _f32(2, 2, 3), _f32(3, 2))
_n("einsum[implicit]", lambda m, a, b: m.einsum("ij,jk", a, b), _A, _B)
_n("einsum[repeated_sum]", lambda m, a, b: m.einsum("ij,kj->i", a, b), _A, _f32(4, 3))
_n(
    "einsum[pref]",
    lambda m, a, b: m.einsum("ij,jk->ik", a, b, preferred_element_type=np.float32),
    _i(2, 3),
    _i(3, 2),
)
_n("einsum[highest]", lambda m, a, b: m.einsum("ij,jk->ik", a, b, precision="highest"), _A, _B)
_n("tensordot[axes1]", lambda m, a, b: m.tensordot(a, b, axes=1), _A, _B, t="grad vmap")
_n("tensordot[pairs]", lambda m, a, b: m.tensordot(a, b, axes=((0,), (1,))), _A, _f32(4, 2), t="grad")
_n("tensordot[axes0]", lambda m, a, b: m.tensordot(a, b, axes=0), _f32(2), _f32(3))
_n("inner[f32]", lambda m, a, b: m.inner(a, b), _A, _f32(4, 3), t="grad")
_n("outer[f32]", lambda m, a, b: m.outer(a, b), _f32(3), _f32(2, seed=1), t="grad vmap")
_n("kron[f32]", lambda m, a, b: m.kron(a, b), _f32(2, 2), _f32(2, 1, seed=1), t="grad")
_n("vdot[f32]", lambda m, a, b: m.vdot(a, b), _A, _f32(2, 3, seed=1), t="grad")
_n(
    "vdot[c64]",
    lambda m, a, b: m.vdot(a, b),
    np.array([1 + 1j, 2], np.complex64),
    np.array([1j, 3], np.complex64),
)
_n("vecdot[f32]", lambda m, a, b: m.vecdot(a, b), _A, _f32(2, 3, seed=1), t="grad")
_n("matvec[f32]", lambda m, a, b: m.matvec(a, b), _A, _f32(3, seed=1), t="grad")
_n("vecmat[f32]", lambda m, a, b: m.vecmat(a, b), _f32(2), _A, t="grad")
_n("matmul[batched]", lambda m, a, b: m.matmul(a, b), _f32(2, 2, 3), _f32(3, 4), t=ALL)
_n("matmul[vec]", lambda m, a, b: m.matmul(a, b), _f32(3), _B, t="grad")
_n("dot[scalar]", lambda m, a: m.dot(a, 2.0), _A, t="grad")
_n("dot[nd]", lambda m, a, b: m.dot(a, b), _f32(2, 2, 3), _f32(3, 4), t="grad")
_n("dot[pref]", lambda m, a, b: m.dot(a, b, preferred_element_type=np.float32), _i(2, 3), _i(3, 2))
_n("cross[3]", lambda m, a, b: m.cross(a, b), _f32(2, 3), _f32(2, 3, seed=1), t="grad vmap")
_n("cross[2]", lambda m, a, b: m.cross(a, b), _f32(2), _f32(2, seed=1))
_n("matrix_transpose[f32]", lambda m, a: m.matrix_transpose(a), _f32(2, 3, 4))
_n("trace[offset]", lambda m, a: m.trace(a, offset=1), _f32(3, 4), t="grad")

# --- signal-like and calculus -------------------------------------------------------------------
for _mode in ("full", "same", "valid"):
    _n(
        f"convolve[{_mode}]",
        lambda m, a, b, _mode=_mode: m.convolve(a, b, mode=_mode),
        _f32(5),
        _f32(3, seed=1),
        t="grad",
    )
    _n(
        f"correlate[{_mode}]",
        lambda m, a, b, _mode=_mode: m.correlate(a, b, mode=_mode),
        _f32(5),
        _f32(3, seed=1),
    )
_n(
    "convolve[c64]",
    lambda m, a, b: m.convolve(a, b),
    np.array([1 + 1j, 2, -1j], np.complex64),
    np.array([1, 1j], np.complex64),
)
_n("cov[f32]", lambda m, x: m.cov(x), _f32(3, 5), t="grad")
_n("cov[rowvar_false_ddof]", lambda m, x: m.cov(x, rowvar=False, ddof=0), _f32(5, 2))
_n("corrcoef[f32]", lambda m, x: m.corrcoef(x), _f32(3, 5), t="grad")
_n("diff[n2]", lambda m, x: m.diff(x, n=2), _f32(2, 5), t=ALL)
_n("diff[prepend]", lambda m, x: m.diff(x, axis=0, prepend=0.0), _f32(3, 2))
_n("ediff1d[to_end]", lambda m, x: m.ediff1d(x, to_end=np.array([9.0], np.float32)), _f32(4))
_n("gradient[f32]", lambda m, x: m.gradient(x), _f32(5), t="grad")
_n("gradient[2d_spacing]", lambda m, x: m.gradient(x, 0.5, axis=1), _f32(3, 4))
_n("trapezoid[f32]", lambda m, y: m.trapezoid(y), _f32(5), t="grad")
_n("trapezoid[x]", lambda m, y, x: m.trapezoid(y, x), _f32(5), np.sort(_f32(5, seed=1)))
_n("trapezoid[dx_axis]", lambda m, y: m.trapezoid(y, dx=0.5, axis=0), _f32(3, 2))
_xp = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
_n(
    "interp[f32]",
    lambda m, x, xp, fp: m.interp(x, xp, fp),
    _f32(5) + 2,
    _xp,
    _f32(4, seed=1),
    t="grad vmap jvp",
)
_n(
    "interp[left_right]",
    lambda m, x, xp, fp: m.interp(x, xp, fp, left=-1.0, right=9.0),
    _f32(5) * 3,
    _xp,
    _f32(4, seed=1),
)
_n(
    "interp[extrapolate]",
    lambda m, x, xp, fp: m.interp(x, xp, fp, left="extrapolate", right="extrapolate"),
    _f32(5) * 3,
    _xp,
    _f32(4, seed=1),
)
_n("interp[period]", lambda m, x, xp, fp: m.interp(x, xp, fp, period=4.0), _f32(5) * 3, _xp, _f32(4, seed=1))
_n("unwrap[f32]", lambda m, p: m.unwrap(p), np.array([0.0, 3.0, 6.5, 0.5, 7.0], np.float32), t="grad")
_n(
    "unwrap[period]",
    lambda m, p: m.unwrap(p, period=4.0, discont=3.0),
    np.array([0.0, 3.0, 6.5, 0.5], np.float32),
)

# --- cumulative ops, reductions with where=/initial=/dtype ----------------------------------------
_n("cumsum[dtype_f32]", lambda m, x: m.cumsum(x, dtype=np.float32), _i(2, 3))
_n("cumsum[axis_none]", lambda m, x: m.cumsum(x), _f32(2, 3), t="grad")
_n("cumprod[dtype_int]", lambda m, x: m.cumprod(x, axis=1, dtype=np.int32), _f32(2, 3))
_n("cumsum[bool]", lambda m, x: m.cumsum(x, axis=0), _f32(3, 2) > 0)
_n(
    "cumulative_sum[include_initial]",
    lambda m, x: m.cumulative_sum(x, axis=1, include_initial=True),
    _f32(2, 3),
    t="grad",
)
_n("cumulative_prod[f32]", lambda m, x: m.cumulative_prod(x, axis=0), _f32(3, 2), t="grad vmap")
_n("cumulative_sum[1d_dtype]", lambda m, x: m.cumulative_sum(x, dtype=np.float32), _i(4))
_n(
    "nancumsum[axis1]",
    lambda m, x: m.nancumsum(x, axis=1),
    np.array([[1.0, np.nan, 2.0]], np.float32),
    t="grad",
)
_n("sum[where]", lambda m, x: m.sum(x, where=x > 0), _f32(2, 3), t=ALL)
_n("sum[dtype_int]", lambda m, x: m.sum(x, dtype=np.int32), _f32(2, 3))
_n("sum[initial]", lambda m, x: m.sum(x, axis=0, initial=1.0), _f32(2, 3))
_n("mean[where]", lambda m, x: m.mean(x, axis=1, where=x > 0), _f32(2, 3), t="grad vmap")
_n("max[initial_where]", lambda m, x: m.max(x, axis=1, initial=-1.0, where=x < 1), _f32(2, 3), t="grad")
_n("min[axis_tuple]", lambda m, x: m.min(x, axis=(0, 2)), _f32(2, 3, 2), t="grad")
_n("var[ddof_where]", lambda m, x: m.var(x, ddof=1, where=x > -1), _f32(2, 3), t="grad")
_n("std[correction]", lambda m, x: m.std(x, axis=0, correction=1), _f32(3, 2), t="grad")
_n("prod[int_keep]", lambda m, x: m.prod(x, axis=1, keepdims=True), _i(2, 3))
_n("any[where]", lambda m, x: m.any(x > 0, where=x < 1), _f32(2, 3))
_n("nansum[where]", lambda m, x: m.nansum(x, where=x > 0), _f32(2, 3))
_n(
    "nanmean[keepdims]",
    lambda m, x: m.nanmean(x, axis=0, keepdims=True),
    np.array([[1.0, np.nan], [3.0, 4.0]], np.float32),
    t="grad",
)
_n("average[weights]", lambda m, x, w: m.average(x, axis=1, weights=w), _f32(2, 3), _pos(3), t="grad vmap")
_n("average[returned]", lambda m, x, w: m.average(x, weights=w, returned=True), _f32(4), _pos(4))
_n("median[axis_keep]", lambda m, x: m.median(x, axis=0, keepdims=True), _f32(3, 2), t="grad")
_n(
    "quantile[methods]",
    lambda m, x: [m.quantile(x, 0.3, method=k) for k in ("lower", "higher", "nearest", "midpoint")],
    _f32(7),
)
_n(
    "percentile[q_array]",
    lambda m, x: m.percentile(x, np.array([10.0, 90.0], np.float32), axis=1),
    _f32(2, 5),
    t="grad",
)
_n("ptp[axis]", lambda m, x: m.ptp(x, axis=1), _f32(2, 3), t="grad")

# --- clip, rounding --------------------------------------------------------------------------------
_n("clip[min_max]", lambda m, x: m.clip(x, -0.5, 0.5), _f32(2, 3), t=ALL)
_n("clip[max_only]", lambda m, x: m.clip(x, max=0.2), _f32(2, 3), t="grad")
_n("clip[arrays]", lambda m, x, lo: m.clip(x, lo, 1.0), _f32(2, 3), -_pos(3), t="grad vmap")
_n("clip[int]", lambda m, x: m.clip(x, 1, 4), _i(2, 3))
_n("round[decimals2]", lambda m, x: m.round(x, 2), _f32(2, 3) * 10, t="grad")
_n("round[decimals_neg]", lambda m, x: m.round(x, -1), _f32(2, 3) * 100)
_n("round[int_decimals_neg]", lambda m, x: m.round(x, -1), _i(2, 3) * 7)
_n("round[c64]", lambda m, x: m.round(x, 1), np.array([1.26 + 2.34j], np.complex64))
_n("around[f32]", lambda m, x: m.around(x, 1), _f32(3) * 5)
_n("floor_divide[neg]", lambda m, x: m.floor_divide(x, -3), _i(2, 3) - 2)
_n("isclose[f32]", lambda m, a, b: m.isclose(a, b, rtol=0.1, atol=0.0), _f32(4), _f32(4) * 1.05)
_n(
    "isclose[equal_nan]",
    lambda m, a, b: m.isclose(a, b, equal_nan=True),
    np.array([np.nan, 1.0], np.float32),
    np.array([np.nan, 1.0], np.float32),
)
_n("allclose[f32]", lambda m, a, b: m.allclose(a, b), _f32(4), _f32(4))
_n("array_equal[f32]", lambda m, a, b: m.array_equal(a, b), _f32(4), _f32(4))
_n("array_equiv[bcast]", lambda m, a, b: m.array_equiv(a, b), _f32(2, 3), _f32(3))
_n(
    "nan_to_num[args]",
    lambda m, x: m.nan_to_num(x, nan=0.5, posinf=9.0, neginf=-9.0),
    np.array([np.nan, np.inf, -np.inf, 1], np.float32),
)
_n("bitwise_count[int]", lambda m, x: m.bitwise_count(x), _idup)
_n("packbits[bool]", lambda m, x: m.packbits(x), np.array([1, 0, 1, 1, 0, 0, 0, 1, 1], bool))
_n(
    "packbits[little_axis]",
    lambda m, x: m.packbits(x, axis=1, bitorder="little"),
    np.array([[1, 0, 1], [0, 1, 1]], np.uint8),
)
_n("unpackbits[uint8]", lambda m, x: m.unpackbits(x), np.array([5, 255], np.uint8))
_n(
    "unpackbits[count_little]",
    lambda m, x: m.unpackbits(x, count=5, bitorder="little"),
    np.array([5, 3], np.uint8),
)
_n("sinc[grad_at_zero]", lambda m, x: m.sinc(x), np.array([0.0, 0.5], np.float32), t="grad jvp")
_n(
    "logaddexp[inf]",
    lambda m, a, b: m.logaddexp(a, b),
    np.array([-np.inf, 1.0], np.float32),
    np.array([-np.inf, 2.0], np.float32),
    t="grad",
)
_n("power[int_exp]", lambda m, x: m.power(x, 3), _f32(2, 3), t=ALL)
_n("power[neg_int_exp]", lambda m, x: m.power(x, -2), _pos(3), t="grad")
_n("power[int_int]", lambda m, x: m.power(x, 2), _i(2, 3))
_n("float_power[f32]", lambda m, x: m.float_power(x, 1.5), _pos(3))
_n("pow[f32]", lambda m, x, y: m.pow(x, y), _pos(3), _f32(3), t="grad")
