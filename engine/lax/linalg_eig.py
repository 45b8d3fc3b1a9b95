"""``jax.lax.linalg.eig``: the eigendecomposition of a general (non-symmetric) square matrix.

Eigenvalues and eigenvectors are complex (``complex64`` for ``float32`` input), computed as LAPACK's
``geev`` computes them on JAX's CPU backend (numpy calls ``geev``): each eigenvector has unit
2-norm and its largest component real. A matrix that does not factor (non-finite entries) gives
NaNs, as JAX does. Left eigenvectors are the rows of ``inv(vr)``, conjugated and normalized the
same way (``u^H a = w u^H``); LAPACK derives them from the Schur form, so their phases may differ.
"""

from __future__ import annotations

import numpy as np

from .. import ad
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from .linalg import _batch_leading, _check_matrix, _H, _jnp, _T

eig_p = Primitive("eig", multiple_results=True)


def complex_dtype(dtype) -> np.dtype:
    """The complex dtype with ``dtype``'s precision (JAX's ``to_complex_dtype``)."""
    dtype = np.dtype(dtype)
    if dtype_kind(dtype) == "c":
        return dtype
    return np.dtype(np.complex128) if dtype.itemsize >= 8 else np.dtype(np.complex64)


def _geev_normalized(v):
    """Columns scaled to unit 2-norm with the largest-magnitude component real (``geev``'s rule)."""
    if v.size == 0:  # (a 0x0 matrix: no columns to scale; argmax refuses empty axes)
        return v
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    k = np.argmax(np.abs(v), axis=-2)[..., None, :]
    big = np.take_along_axis(v, k, axis=-2)
    return v * (np.conj(big) / np.abs(big))


def _eig_one(m, left: bool):
    if not np.all(np.isfinite(m)):
        nan = np.full(m.shape, np.nan + 1j * np.nan)
        return nan[0], nan, nan
    w, vr = np.linalg.eig(m)
    vl = _geev_normalized(np.conj(np.linalg.inv(vr)).T) if left else None
    return w, vl, vr


def _eig_impl(
    x, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs, implementation
):
    check_lapack_matrix("eig", x)  # (eager calls skip abstract evaluation)
    out_dtype = complex_dtype(x.dtype)
    n = x.shape[-1]
    wide = x.astype(np.complex128 if dtype_kind(x.dtype) == "c" else np.float64)
    flat = wide.reshape(int(np.prod(x.shape[:-2])), n, n)
    w = np.zeros((flat.shape[0], n), out_dtype)
    vl = np.zeros(flat.shape, out_dtype)
    vr = np.zeros(flat.shape, out_dtype)
    with np.errstate(all="ignore"):
        for i, m in enumerate(flat):
            w[i], vl_i, vr[i] = _eig_one(m, compute_left_eigenvectors)
            if compute_left_eigenvectors:
                vl[i] = vl_i
    outs = [w.reshape(x.shape[:-1])]
    if compute_left_eigenvectors:
        outs.append(vl.reshape(x.shape))
    if compute_right_eigenvectors:
        outs.append(vr.reshape(x.shape))
    return outs


eig_p.def_impl(_eig_impl)


def check_lapack_matrix(name, x):
    """JAX's checks for its LAPACK-backed primitives: rank, square shape, and the four dtypes LAPACK has."""
    if x.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got shape={x.shape}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"The input to {name} must be a square matrix. Got shape {x.shape[-2:]}.")
    # (float16 and bfloat16 are staged, and refused when run: engine/lax/lapack_kernels.py)
    if dtype_kind(x.dtype) not in "fc":
        _check_matrix(name, x)


@eig_p.def_abstract_eval
def _eig_abstract(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    check_lapack_matrix("eig", x)
    dtype = complex_dtype(x.dtype)
    count = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return [ShapedArray(x.shape[:-1], dtype)] + [ShapedArray(x.shape, dtype)] * count


def _dot(a, b):
    from .. import lax

    if a.ndim == 2:
        return lax.dot(a, b, precision=lax.Precision.HIGHEST)
    return lax.batch_matmul(a, b, precision=lax.Precision.HIGHEST)


def _solve(a, b):
    from ..numpy.linalg import _solve

    return _solve(a, b)


def _eig_vectors_jvp(w, v, da):
    """First-order perturbation of distinct eigenpairs; the free scale of each ``dv_j`` is fixed by
    geev's normalization (unit norm, real largest component), which the primal outputs obey."""
    from .. import lax

    jnp = _jnp()
    n = w.shape[-1]
    eye = lax.convert_element_type(jnp.eye(n, dtype=bool), w.dtype)
    F = lax.sub(lax.reciprocal(lax.add(eye, lax.sub(w[..., None, :], w[..., None]))), eye)
    P = _dot(_solve(v, da), v)
    dw = jnp.diagonal(P, axis1=-2, axis2=-1)
    U = _dot(v, lax.mul(F, P))
    k = lax.argmax(lax.abs(v), v.ndim - 2, np.dtype("int32"))
    rows = lax.broadcasted_iota(np.dtype("int32"), v.shape, v.ndim - 2)
    mask = lax.convert_element_type(lax.eq(rows, lax.expand_dims(k, (v.ndim - 2,))), v.dtype)
    re = lax.neg(lax.real(jnp.sum(lax.mul(lax.conj(v), U), -2)))
    im = lax.div(lax.neg(lax.imag(jnp.sum(lax.mul(mask, U), -2))), lax.real(jnp.sum(lax.mul(mask, v), -2)))
    c = lax.complex(re, im)
    return dw, lax.add(U, lax.mul(v, lax.expand_dims(c, (v.ndim - 2,))))


def _eig_jvp(primals, tangents, **params):
    (a,), (da,) = primals, tangents
    left, right = params["compute_left_eigenvectors"], params["compute_right_eigenvectors"]
    if (left or right) and not params["enable_eigvec_derivs"]:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input "
            "that JAX cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
            "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
            "https://github.com/jax-ml/jax/issues/2748 for discussion."
        )
    outs = eig_p.bind(a, **dict(params, compute_right_eigenvectors=True))
    w, vr = outs[0], outs[-1]
    from .. import lax

    da = lax.convert_element_type(ad.instantiate_zeros(da), vr.dtype)
    if not (left or right):
        return [w], [_jnp().sum(lax.mul(_solve(vr, da), _T(vr)), -1)]
    dw, dvr = _eig_vectors_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if left:
        _, dvl = _eig_vectors_jvp(lax.conj(w), outs[1], _H(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if right:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


ad.jvp_rules[eig_p] = _eig_jvp
_batch_leading(eig_p)


def eig(
    x,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation=None,
    use_magma=None,
):
    """Eigendecomposition of a general square matrix: ``[w, vl, vr]`` (the vectors requested).

    >>> w, vr = lax.linalg.eig(jnp.array([[0.0, 1.0], [-2.0, -3.0]]), compute_left_eigenvectors=False)
    >>> w
    Array([-1.+0.j, -2.+0.j], dtype=complex64)
    """
    if (
        implementation is not None
        and str(getattr(implementation, "value", implementation)).lower() != "lapack"
    ):
        raise ValueError("Only the lapack implementation is supported on CPU.")
    return eig_p.bind(
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
        implementation=implementation,
    )
