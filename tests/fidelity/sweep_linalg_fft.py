"""The sweep's jax.numpy.linalg and jax.numpy.fft cases beyond the square-matrix set of sweep.py:
norm orders, matrix_power, pinv / lstsq / matrix_rank tolerances, eigh / svd / qr modes, slogdet,
cond, tensorsolve / tensorinv, the array-API additions (vector_norm, matrix_norm, svdvals,
diagonal, outer, cross, vecdot), batched inputs; and every fft transform with n / axes / norm.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_numpy_api import register
    from .sweep_programs import _c64, _f32, _spd
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_numpy_api import register  # type: ignore[no-redef]
    from sweep_programs import _c64, _f32, _spd  # type: ignore[no-redef]

CASES: dict = {}
_l = register(CASES, "numpy.linalg")
_f = register(CASES, "numpy.fft")
ALL = "grad vmap jit_grad jvp"
_S, _N, _R = _spd(3), _f32(3, 3, seed=5), _f32(4, 3, seed=7)

# --- norms ------------------------------------------------------------------------------------
for _ord in (None, 1, 2, np.inf, -np.inf, 0, 3, -1):
    _l(
        f"norm[vec_ord={_ord}]",
        lambda m, x, _ord=_ord: m.norm(x, ord=_ord),
        _f32(4) + 0.1,
        t="grad" if _ord != 0 else "",
    )
for _ord in ("fro", "nuc", 1, -1, 2, -2, np.inf):
    _l(
        f"norm[mat_ord={_ord}]",
        lambda m, x, _ord=_ord: m.norm(x, ord=_ord),
        _N,
        t="grad" if _ord in ("fro", 1, np.inf) else "",
    )
_l("norm[axis_keepdims]", lambda m, x: m.norm(x, axis=1, keepdims=True), _R, t=ALL)
_l("norm[axes_pair]", lambda m, x: m.norm(x, axis=(0, 1)), _f32(2, 3, 2), t="grad")
_l("norm[c64]", lambda m, x: m.norm(x), _c64(3))
_l("vector_norm[ord1_axis]", lambda m, x: m.vector_norm(x, ord=1, axis=0), _R, t="grad")
_l("vector_norm[all]", lambda m, x: m.vector_norm(x), _R)
_l("matrix_norm[nuc]", lambda m, x: m.matrix_norm(x, ord="nuc"), _N)
_l("matrix_norm[fro_batched]", lambda m, x: m.matrix_norm(x), _f32(2, 3, 3), t="grad")

# --- powers, inverses, solves ------------------------------------------------------------------
for _p in (0, 1, 2, 5, -1, -3):
    _l(
        f"matrix_power[{_p}]",
        lambda m, x, _p=_p: m.matrix_power(x, _p),
        _S,
        t="grad" if _p in (2, -1) else "",
    )
_l("matrix_power[batched]", lambda m, x: m.matrix_power(x, 3), _f32(2, 2, 2), t="vmap")
_l("inv[batched]", lambda m, x: m.inv(x), np.stack([_S, _S * 2]), t="grad vmap jvp")
_l("pinv[rect]", lambda m, x: m.pinv(x), _R, t="grad")
_l("pinv[rtol]", lambda m, x: m.pinv(x, rtol=0.1), _R)
_l("pinv[hermitian]", lambda m, x: m.pinv(x, hermitian=True), _S)
_l("solve[matrix_rhs]", lambda m, a, b: m.solve(a, b), _S, _f32(3, 2, seed=1), t=ALL)
_l("solve[batched]", lambda m, a, b: m.solve(a, b), np.stack([_S, _S]), _f32(2, 3, 2, seed=1))
_l("lstsq[f32]", lambda m, a, b: m.lstsq(a, b), _R, _f32(4, seed=1))
_l("lstsq[rcond]", lambda m, a, b: m.lstsq(a, b, rcond=1e-3)[0], _R, _f32(4, 2, seed=1), t="grad")
_l(
    "tensorsolve[f32]",
    lambda m, a, b: m.tensorsolve(a, b),
    _f32(2, 3, 6, seed=2) + np.eye(6, dtype=np.float32).reshape(2, 3, 6),
    _f32(2, 3),
)
_l("tensorinv[f32]", lambda m, a: m.tensorinv(a, ind=1), _S.reshape(3, 3))
_l("matrix_rank[f32]", lambda m, x: m.matrix_rank(x), _R)
_l("matrix_rank[rtol]", lambda m, x: m.matrix_rank(x, rtol=0.5), _R)
_l("matrix_rank[tol]", lambda m, x: m.matrix_rank(x, tol=0.1), _N)
_l("cond[f32]", lambda m, x: m.cond(x), _S, t="grad")
_l("cond[p_fro]", lambda m, x: m.cond(x, p="fro"), _N)
_l("cond[p_inf]", lambda m, x: m.cond(x, p=np.inf), _N)
_l("det[batched]", lambda m, x: m.det(x), np.stack([_S, _N]), t="grad vmap jvp")
_l("det[2x2]", lambda m, x: m.det(x), _f32(2, 2), t="grad")
_l("slogdet[nonsym]", lambda m, x: m.slogdet(x), _N, t="grad")
_l("slogdet[qr]", lambda m, x: m.slogdet(x, method="qr"), _N)
_l(
    "multi_dot[three]",
    lambda m, a, b, c: m.multi_dot([a, b, c]),
    _f32(2, 3),
    _f32(3, 4, seed=1),
    _f32(4, 2, seed=2),
    t="grad",
)

# --- decompositions ---------------------------------------------------------------------------
_l("eigh[upper]", lambda m, x: m.eigh(x, UPLO="U"), _S)
_l("eigh[symmetrize_false]", lambda m, x: m.eigh(x, symmetrize_input=False), _S)
_l("eigh[vals_grad]", lambda m, x: m.eigh(x)[0], _S, t="grad vmap jvp")
_l("eigh[vecs_grad]", lambda m, x: m.eigh(x)[1][:, 0] ** 2, _S, t="grad")
_l("eigvalsh[upper]", lambda m, x: m.eigvalsh(x, UPLO="U"), _S, t="grad")
_l("svd[reduced]", lambda m, x: m.svd(x, full_matrices=False), _R)
_l("svd[no_uv]", lambda m, x: m.svd(x, compute_uv=False), _R, t="grad vmap jvp")
_l("svd[hermitian]", lambda m, x: m.svd(x, hermitian=True, compute_uv=False), _S)
_l("svd[uv_grad]", lambda m, x: m.svd(x, full_matrices=False)[0] ** 2, _R, t="grad")
_l("svdvals[f32]", lambda m, x: m.svdvals(x), _R, t="grad")
for _mode in ("reduced", "complete", "r", "raw"):
    _l(f"qr[{_mode}]", lambda m, x, _mode=_mode: m.qr(x, mode=_mode), _R)
_l("qr[grad]", lambda m, x: m.qr(x)[1], _R, t="grad vmap jvp")
# complex matrices (real outputs under grad: JAX's grad needs a real scalar; no jvp here: its
# tangent of ones is float32, which JAX refuses for a complex primal)
_CT, _CS = _c64(4, 3, seed=11), _c64(3, 3, seed=13)
_l("svd[c64_no_uv]", lambda m, x: m.svd(x, compute_uv=False), _CT, t="grad vmap")
_l("svd[c64_reduced]", lambda m, x: m.svd(x, full_matrices=False), _CT)
_l("qr[c64]", lambda m, x: m.qr(x), _CT, t="vmap")
_l("qr[c64_r_real]", lambda m, x: m.qr(x)[1].real, _CT, t="grad")
_l("norm[c64_mat_2]", lambda m, x: m.norm(x, 2), _CS, t="grad")
_l("pinv[c64]", lambda m, x: m.pinv(x), _CT, t="vmap")
_l("lstsq[c64]", lambda m, a, b: m.lstsq(a, b)[0], _CT, _c64(4, seed=17))
_l("matrix_rank[c64]", lambda m, x: m.matrix_rank(x), _CS)
_l("cholesky[upper]", lambda m, x: m.cholesky(x, upper=True), _S, t="grad")
_l("cholesky[batched]", lambda m, x: m.cholesky(x), np.stack([_S, _S * 2]), t="grad vmap")
_l("eig[grad_vals]", lambda m, x: m.eigvals(x).real, _N)
_l("diagonal[offset]", lambda m, x: m.diagonal(x, offset=-1), _N)
_l("outer[f32]", lambda m, a, b: m.outer(a, b), _f32(3), _f32(2, seed=1))
_l("cross[f32]", lambda m, a, b: m.cross(a, b), _f32(3), _f32(3, seed=1), t="grad")
_l("vecdot[axis0]", lambda m, a, b: m.vecdot(a, b, axis=0), _R, _f32(4, 3, seed=1))
_l("matmul[f32]", lambda m, a, b: m.matmul(a, b), _R, _N)
_l("trace[offset]", lambda m, a: m.trace(a, offset=1), _N, t="grad")
_l("tensordot[axes2]", lambda m, a, b: m.tensordot(a, b, axes=2), _f32(2, 3), _f32(2, 3, seed=1))
_l("matrix_transpose[f32]", lambda m, a: m.matrix_transpose(a), _f32(2, 3, 4))

# --- fft -----------------------------------------------------------------------------------------
_X, _CX = _f32(2, 8), _c64(2, 8)
_f("fft[c64]", lambda m, x: m.fft(x), _CX)
_f("fft[n_pad]", lambda m, x: m.fft(x, n=10), _CX)
_f("fft[n_crop_axis0]", lambda m, x: m.fft(x, n=1, axis=0), _CX)
_f("fft[norm_ortho]", lambda m, x: m.fft(x, norm="ortho"), _CX)
_f("fft[norm_forward]", lambda m, x: m.fft(x, norm="forward"), _X)
_f("ifft[c64]", lambda m, x: m.ifft(x), _CX)
_f("ifft[n_norm]", lambda m, x: m.ifft(x, n=6, norm="ortho"), _CX)
_f("fft2[c64]", lambda m, x: m.fft2(x), _CX)
_f("fft2[s_axes]", lambda m, x: m.fft2(x, s=(3, 4), axes=(1, 0)), _CX)
_f("ifft2[c64]", lambda m, x: m.ifft2(x, norm="forward"), _CX)
_f("fftn[3d]", lambda m, x: m.fftn(x), _c64(2, 3, 4))
_f("fftn[axes]", lambda m, x: m.fftn(x, axes=(0,)), _c64(2, 3, 4))
_f("ifftn[s]", lambda m, x: m.ifftn(x, s=(2, 2)), _CX)
_f("rfft2[f32]", lambda m, x: m.rfft2(x), _X)
_f("irfft2[c64]", lambda m, x: m.irfft2(x, s=(2, 6)), _c64(2, 4))
_f("rfftn[axes]", lambda m, x: m.rfftn(x, axes=(0, 2), norm="ortho"), _f32(4, 3, 6))
_f("irfftn[c64]", lambda m, x: m.irfftn(x), _c64(3, 4))
_f("rfft[int]", lambda m, x: m.rfft(x), np.arange(8, dtype=np.int32))
_f("hfft[n]", lambda m, x: m.hfft(x, n=7), _c64(5))
_f("ihfft[n_norm]", lambda m, x: m.ihfft(x, n=4, norm="ortho"), _f32(6))
_f("fftshift[f32]", lambda m, x: m.fftshift(x), _X)
_f("fftshift[axes]", lambda m, x: m.fftshift(x, axes=1), _X)
_f("ifftshift[f32]", lambda m, x: m.ifftshift(x), _f32(5))
_f("fftfreq[d]", lambda m, x: m.fftfreq(6, d=0.1) * x, np.float32(2.0))
_f("fftfreq[dtype]", lambda m: m.fftfreq(4, dtype=np.float32))
_f("rfftfreq[odd]", lambda m, x: m.rfftfreq(7) * x, np.float32(2.0))
_f("fft[real_abs]", lambda m, x: abs(m.fft(x)), _X, t=ALL)
_f("ifft[real_part]", lambda m, x: m.ifft(x).real, _X, t="grad vmap")
_f("fft2[real_abs]", lambda m, x: abs(m.fft2(x)), _X, t="grad")
_f("fftn[real_imag]", lambda m, x: m.fftn(x).imag, _f32(2, 3, 4), t="grad")
_f("irfft[real_grad]", lambda m, x: m.irfft(x * (1 + 1j)), _f32(2, 5), t="grad jvp")
_f("rfft2[abs_grad]", lambda m, x: abs(m.rfft2(x)), _X, t="grad vmap")
_f("hfft[grad]", lambda m, x: m.hfft(x * (1 + 1j)), _f32(5), t="grad")
_f("ihfft[grad]", lambda m, x: m.ihfft(x).real, _f32(6), t="grad")
_f("fftshift[grad]", lambda m, x: m.fftshift(x), _X, t="grad vmap")

# --- lax.linalg's tridiagonal pair, symmetric_product, cholesky_update, qdwh ------------------
_la = register(CASES, "lax.linalg")
_dl, _d, _du = _f32(4, seed=11), _f32(4, seed=12) + 4, _f32(4, seed=13)
_la("tridiagonal[lower]", lambda m, x: m.tridiagonal(x), _S, t="vmap")
_la("tridiagonal[upper_c64]", lambda m, x: m.tridiagonal(x, lower=False), _c64(3, 3))
_la(
    "tridiagonal_solve[f32]",
    lambda m, b, dl, d, du: m.tridiagonal_solve(dl, d, du, b),
    _f32(4, 2),
    _dl,
    _d,
    _du,
    t=ALL,
)
_la(
    "tridiagonal_solve[diag]",
    lambda m, d, dl, du, b: m.tridiagonal_solve(dl, d, du, b),
    _d,
    _dl,
    _du,
    _f32(4, 2),
    t=ALL,
)
_la(
    "symmetric_product[ab]",
    lambda m, a, c: m.symmetric_product(a, c, alpha=2.0, beta=0.5),
    _R,
    _spd(4),
    t="vmap",
)
_la("symmetric_product[sym]", lambda m, a, c: m.symmetric_product(a, c, symmetrize_output=True), _R, _spd(4))
_la("cholesky_update[f32]", lambda m, r, w: m.cholesky_update(r, w), _spd(3), _f32(3, seed=14))
_la("qdwh[f32]", lambda m, x: m.qdwh(x), _R)
