"""The primitives JAX runs on CPU as LAPACK kernels (potrf, getrf, syevd, geev, gesdd, geqrf, orgqr,
ormqr, gehrd, gees, sytrd, gtsv). LAPACK has float32/64 and complex64/128 only: for float16 or bfloat16 the
kernel lookup fails when the call is lowered, eagerly or under jit (make_jaxpr still stages it),
with jaxlib's NotImplementedError; numpy would compute such a matrix (or upcast it) instead.
triangular_solve is not here: JAX lowers it to plain HLO outside LAPACK's dtypes."""

from __future__ import annotations

import numpy as np

from .. import core, narrow_dtypes
from . import linalg


def _refusing_narrow(impl):
    def checked(*args, **params):
        for x in args:
            dtype = np.dtype(x.dtype)
            if dtype not in _LAPACK_DTYPES and narrow_dtypes.kind(dtype) in "fc":
                key = KeyError(dtype.type)
                raise NotImplementedError(key, f"Unsupported dtype {dtype.name}.") from key
        return impl(*args, **params)

    return checked


_LAPACK_DTYPES = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}

for _p in (
    linalg.cholesky_p,
    linalg.lu_p,
    linalg.eigh_p,
    linalg.eig_p,
    linalg.svd_p,
    linalg.qr_p,
    linalg.geqrf_p,
    linalg.householder_product_p,
    linalg.ormqr_p,
    linalg.hessenberg_p,
    linalg.schur_p,
    linalg.tridiagonal_p,  # (sytrd/hetrd)
    linalg.tridiagonal_solve_p,  # (gtsv)
):
    core.impl_rules[_p] = _refusing_narrow(core.impl_rules[_p])
    narrow_dtypes.keeps_narrow.add(_p)  # (so the check sees bfloat16 before it is widened)
