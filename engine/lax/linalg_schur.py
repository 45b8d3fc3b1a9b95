"""``jax.lax.linalg``'s Householder family: ``hessenberg``, ``householder_product``, ``geqrf``,
``ormqr`` and ``schur``, as primitives with JAX's names, parameters and output shapes.

Their implementations are LAPACK's algorithms in numpy (engine/lax/householder_numpy.py), run in
the operand's precision so the factors carry LAPACK's sign conventions. As in JAX, none has a
differentiation rule (differentiating raises NotImplementedError naming the primitive); they map
over leading batch axes. ``schur`` gives NaNs for a matrix whose QR iteration does not converge.
"""

from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from . import householder_numpy as hh
from .linalg import _batch_leading
from .linalg_eig import check_lapack_matrix


def _check_operand(name, x, i=0):
    if x.ndim < 2:
        raise TypeError(f"Input {i} to {name} must have rank at least 2, but got shape={x.shape}")
    # (float16 and bfloat16 are staged, and refused when run: engine/lax/lapack_kernels.py)
    if (
        np.dtype(x.dtype) not in (np.float32, np.float64, np.complex64, np.complex128)
        and dtype_kind(x.dtype) not in "fc"
    ):
        raise TypeError(
            f"{name} does not accept dtype {np.dtype(x.dtype).name} at position {i}. Accepted dtypes "
            f"at position {i} are subtypes of floating, complexfloating."
        )


def _check_same_dtypes(name, *xs):
    if len({np.dtype(x.dtype) for x in xs}) > 1:
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got "
            + ", ".join(np.dtype(x.dtype).name for x in xs)
            + "."
        )


def _per_matrix(fn, *arrays, batch_ndim):
    """Apply ``fn`` to each matrix of the leading batch axes; ``fn`` returns a tuple of arrays."""
    batch = arrays[0].shape[:batch_ndim]
    count = int(np.prod(batch))
    flat = [a.reshape(count, *a.shape[batch_ndim:]) for a in arrays]
    outs = [fn(*(f[i] for f in flat)) for i in range(count)]
    return outs, batch


def _stack(parts, batch, shape, dtype):
    out = np.stack(parts) if parts else np.zeros((0, *shape), dtype)
    return out.reshape(*batch, *shape).astype(dtype)


# --- hessenberg: (packed, taus) of the reduction a = Q H Q^H (LAPACK's gehrd) ---------------------

hessenberg_p = Primitive("hessenberg", multiple_results=True)


def _hessenberg_impl(a):
    _check_operand("hessenberg", a)
    n = a.shape[-1]
    outs, batch = _per_matrix(hh.gehd2, a, batch_ndim=a.ndim - 2)
    return [
        _stack([o[0] for o in outs], batch, (n, n), a.dtype),
        _stack([o[1] for o in outs], batch, (max(n - 1, 0),), a.dtype),
    ]


hessenberg_p.def_impl(_hessenberg_impl)


@hessenberg_p.def_abstract_eval
def _hessenberg_abstract(a):
    _check_operand("hessenberg", a)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to Hessenberg reduction must have shape [..., n, n], got shape {a.shape}")
    return [a.strip_weak_type(), ShapedArray((*a.shape[:-2], a.shape[-1] - 1), a.dtype)]


_batch_leading(hessenberg_p)


def hessenberg(a):
    """``(a, taus)``: the upper Hessenberg form in the upper triangle and first subdiagonal of ``a``,
    the Householder reflectors below it and their scalar factors in ``taus``."""
    return hessenberg_p.bind(a)  # (a list, as JAX returns it)


# --- geqrf / householder_product / ormqr: QR as packed reflectors and their uses -----------------

geqrf_p = Primitive("geqrf", multiple_results=True)


def _geqrf_impl(a):
    _check_operand("geqrf", a)
    m, n = a.shape[-2:]
    outs, batch = _per_matrix(hh.geqr2, a, batch_ndim=a.ndim - 2)
    return [
        _stack([o[0] for o in outs], batch, (m, n), a.dtype),
        _stack([o[1] for o in outs], batch, (min(m, n),), a.dtype),
    ]


geqrf_p.def_impl(_geqrf_impl)


@geqrf_p.def_abstract_eval
def _geqrf_abstract(a):
    _check_operand("geqrf", a)
    return [a.strip_weak_type(), ShapedArray((*a.shape[:-2], min(a.shape[-2:])), a.dtype)]


_batch_leading(geqrf_p)


def geqrf(a):
    """``(a, taus)``: LAPACK's packed QR, ``r`` in the upper triangle, reflectors below."""
    packed, taus = geqrf_p.bind(a)
    return packed, taus


householder_product_p = Primitive("householder_product")


def _householder_product_impl(a, taus):
    _check_operand("householder_product", a)
    outs, batch = _per_matrix(lambda x, t: (hh.orgqr(x, t),), a, taus, batch_ndim=a.ndim - 2)
    return _stack([o[0] for o in outs], batch, a.shape[-2:], a.dtype)


householder_product_p.def_impl(_householder_product_impl)


@householder_product_p.def_abstract_eval
def _householder_product_abstract(a, taus):
    _check_operand("householder_product", a)
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(
            "The first argument to householder_product must have at least as many rows as columns, "
            f"got shape {a.shape}"
        )
    if taus.shape[-1] > min(m, n) or taus.shape[:-1] != a.shape[:-2]:
        raise ValueError(
            "The second argument to householder_product must not have more rows than the minimum of "
            "the first argument's rows and columns."
        )
    return a.strip_weak_type()


_batch_leading(householder_product_p, 2)


def householder_product(a, taus):
    """The unitary matrix ``H_0 H_1 ... H_{k-1}`` (``a``'s shape) of the reflectors below ``a``'s
    diagonal with scalar factors ``taus`` (LAPACK's ``orgqr``)."""
    return householder_product_p.bind(a, taus)


ormqr_p = Primitive("ormqr")


def _ormqr_impl(a, taus, c, *, left, transpose):
    _check_operand("ormqr", a)
    _check_same_dtypes("ormqr", a, taus, c)
    outs, batch = _per_matrix(
        lambda x, t, y: (hh.ormqr(x, t, y, left, transpose),), a, taus, c, batch_ndim=a.ndim - 2
    )
    return _stack([o[0] for o in outs], batch, c.shape[-2:], c.dtype)


ormqr_p.def_impl(_ormqr_impl)


@ormqr_p.def_abstract_eval
def _ormqr_abstract(a, taus, c, *, left, transpose):
    _check_operand("ormqr", a)
    _check_same_dtypes("ormqr", a, taus, c)
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError(
            "ormqr with left=True expects c to have the same number of rows as the Householder "
            f"matrix a. Got a shape {a.shape[-2:]} and c shape {c.shape[-2:]}."
        )
    if not left and c.shape[-1] != m:
        raise ValueError(
            "ormqr with left=False expects c to have the same number of columns as the Householder "
            f"matrix a has rows. Got a shape {a.shape[-2:]} and c shape {c.shape[-2:]}."
        )
    return c.strip_weak_type()


_batch_leading(ormqr_p, 3)


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """``Q @ c`` (``left``), ``c @ Q`` otherwise, ``Q^H`` instead of ``Q`` when ``transpose``, for the
    ``Q`` of ``geqrf``'s reflectors, without forming ``Q``."""
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


# --- schur: a = Z T Z^H, T (quasi-)upper triangular (LAPACK's gees, no sorting) ------------------

schur_p = Primitive("schur", multiple_results=True)


def _schur_one(m):
    out = hh.schur(m)
    if out is None or not np.all(np.isfinite(m)):
        nan = np.full(m.shape, np.nan, m.dtype)
        return nan, nan
    return out


def _schur_impl(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    check_lapack_matrix("schur", x)
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    with np.errstate(all="ignore"):
        outs, batch = _per_matrix(_schur_one, x, batch_ndim=x.ndim - 2)
    t = _stack([o[0] for o in outs], batch, x.shape[-2:], x.dtype)
    if not compute_schur_vectors:
        return [t]
    return [t, _stack([o[1] for o in outs], batch, x.shape[-2:], x.dtype)]


schur_p.def_impl(_schur_impl)


@schur_p.def_abstract_eval
def _schur_abstract(x, *, compute_schur_vectors, sort_eig_vals, select_callable):
    check_lapack_matrix("schur", x)
    return [x.strip_weak_type()] * (2 if compute_schur_vectors else 1)


_batch_leading(schur_p)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False, select_callable=None):
    """The Schur decomposition ``x = Q U Q^H``: ``[U, Q]``, or ``[U]`` (a list, as JAX returns it).

    >>> U, Q = lax.linalg.schur(jnp.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> U
    Array([[2., 1.],
           [0., 3.]], dtype=float32)
    """
    return schur_p.bind(
        x,
        compute_schur_vectors=bool(compute_schur_vectors),
        sort_eig_vals=bool(sort_eig_vals),
        select_callable=select_callable,
    )
