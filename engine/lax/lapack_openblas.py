"""LAPACK's ``getrf`` and BLAS's ``trsm`` in single precision, from the OpenBLAS numpy's wheels ship.

JAX's CPU ``lu`` and ``triangular_solve`` call ``sgetrf``/``cgetrf`` and ``strsm``/``ctrsm`` of the
OpenBLAS scipy's wheels bundle, in the matrix's own precision. OpenBLAS's ``getrf`` is its own
(left-looking ``getf2`` panels of dot products and ``gemv``, the column scaled by the pivot's
reciprocal, recursive halves past 17 columns) and its kernels' sums (FMA chains, vector lanes)
decide the last bits: only that code rounds as JAX does, and on a singular float32 matrix only
float32 arithmetic leaves the exact zero pivot that makes ``inv``/``solve`` infinite. numpy's wheels
link the same library (ILP64, symbols ``scipy_sgetrf_64_`` or, before numpy 2, ``sgetrf_64_``):
ctypes calls it here, with denormals flushed as XLA runs its kernels (read and written as zero).
Checked against JAX 0.10.2 (OpenBLAS 0.3.30; numpy's 0.3.31): identical factors and solves for
float32 and complex64 matrices of 2 to 256 rows, rectangular, singular and non-finite ones (its
float64 kernels differ, so float64 stays on the engine's own elimination). ``available`` is False
when numpy links another LAPACK: the callers then compute in numpy.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import glob
import os
import platform
import sys

import numpy as np

_I64 = ctypes.c_int64
_FNS: dict | None = None  # {"sgetrf": fn, ...}, looked up once per process ({} when not found)
_NAMES = ("sgetrf", "cgetrf", "strsm", "ctrsm")


def _library_paths():
    base = os.path.dirname(np.__file__)
    for pattern in (base + ".libs/*openblas64*", os.path.join(base, ".dylibs", "*openblas64*")):
        yield from sorted(glob.glob(pattern))


def _fns() -> dict:
    global _FNS
    if _FNS is None:
        _FNS = {}
        for path in _library_paths():
            try:
                lib = ctypes.CDLL(path)  # (already loaded by numpy.linalg: the same handle)
            except OSError:
                continue
            for prefix in ("scipy_", ""):  # (only the 64-bit-integer symbols: their ints are int64)
                fns = {k: getattr(lib, f"{prefix}{k}_64_", None) for k in _NAMES}
                if all(fns.values()):
                    for k, fn in fns.items():  # (every argument a pointer, passed as an int)
                        fn.argtypes, fn.restype = [ctypes.c_void_p] * (6 if k.endswith("getrf") else 11), None
                    _FNS = fns
                    return _FNS
    return _FNS


def corename() -> str | None:
    """The CPU kernels OpenBLAS chose at load ("SkylakeX", "Haswell", ...): they decide the last
    bits, so results are JAX's on a machine whose OpenBLAS (scipy's, in JAX's case) picks the same."""
    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return None


def available(dtype) -> bool:
    return np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) and bool(_fns())


# XLA's CPU runtime sets MXCSR's flush-to-zero and denormals-are-zero bits around the kernels it
# calls: a subnormal entry is a zero pivot candidate there. glibc's fenv_t on x86-64 is 32 bytes,
# MXCSR the last 4 (fesetenv loads it whole).
_MXCSR_FTZ_DAZ = 0x8040
_LIBM = None
if sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64"):
    with contextlib.suppress(OSError, TypeError):
        _LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


def _flush_denormals():
    """Set MXCSR's two bits; returns the environment to restore (None when nothing was set)."""
    if _LIBM is None:
        return None
    saved = (ctypes.c_uint32 * 8)()
    if _LIBM.fegetenv(saved) != 0:
        return None
    flushed = (ctypes.c_uint32 * 8)(*saved)
    flushed[7] |= _MXCSR_FTZ_DAZ
    _LIBM.fesetenv(flushed)
    return saved


def _restore(saved):
    if saved is not None:
        _LIBM.fesetenv(saved)


def getrf(flat):
    """``(lu, pivots)`` of a stack ``(batch, m, n)`` of float32/complex64 matrices as LAPACK's
    ``getrf`` leaves them (a singular matrix factored all the same: ``info`` is not an error in
    JAX's lowering either), pivots 0-based int32."""
    fn = _fns()["cgetrf" if flat.dtype.kind == "c" else "sgetrf"]
    _, m, n = flat.shape
    lu = np.array(np.swapaxes(flat, -1, -2), order="C")  # (each matrix column-major, factored in place)
    piv = np.zeros((len(flat), min(m, n)), np.int64)
    if flat.size:
        ints = (_I64 * 4)(m, n, max(m, 1), 0)  # (m, n, lda, info)
        i = ctypes.addressof(ints)  # (a ctypes array's address is cheap; an ndarray's costs 2 us)
        a, p = lu.ctypes.data, piv.ctypes.data
        saved = _flush_denormals()
        try:
            for k in range(len(flat)):
                fn(i, i + 8, a + k * lu.strides[0], i + 16, p + k * piv.strides[0], i + 24)
        finally:
            _restore(saved)
    piv -= 1
    return np.swapaxes(lu, -1, -2), piv.astype(np.int32)


_ONE = 0x3F800000  # (float32 1.0 in the low bytes of an int64: the complex64 1 + 0j as well)


def trsm(flat_a, flat_b, *, left_side, lower, trans, unit_diagonal):
    """``op(a) x = b`` (``left_side``) or ``x op(a) = b`` for stacks of triangular ``a`` and of
    ``b`` (only ``a``'s ``lower``/upper triangle is read, and its diagonal not when
    ``unit_diagonal``); ``trans`` is BLAS's ``"N"``, ``"T"`` or ``"C"``."""
    fn = _fns()["ctrsm" if flat_b.dtype.kind == "c" else "strsm"]
    _, m, n = flat_b.shape
    k = flat_a.shape[-1]
    a_cols = np.array(np.swapaxes(flat_a, -1, -2), order="C")
    x = np.array(np.swapaxes(flat_b, -1, -2), order="C")  # (solved in place)
    if flat_b.size:
        chars = (
            ("L" if left_side else "R") + ("L" if lower else "U") + trans + ("U" if unit_diagonal else "N")
        )
        # (side, uplo, trans, diag as four bytes; m, n, lda, ldb; alpha = 1)
        ints = (_I64 * 6)(int.from_bytes(chars.encode(), "little"), m, n, max(k, 1), max(m, 1), _ONE)
        i = ctypes.addressof(ints)
        a, b = a_cols.ctypes.data, x.ctypes.data
        saved = _flush_denormals()
        try:
            for j in range(len(x)):
                fn(
                    i,
                    i + 1,
                    i + 2,
                    i + 3,
                    i + 8,
                    i + 16,
                    i + 40,
                    a + j * a_cols.strides[0],
                    i + 24,
                    b + j * x.strides[0],
                    i + 32,
                )
        finally:
            _restore(saved)
    return np.swapaxes(x, -1, -2)
