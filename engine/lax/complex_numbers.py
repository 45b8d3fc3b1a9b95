"""Complex-number primitives: ``real``, ``imag``, ``conj`` and ``complex``, with JAX's rules.

All four are linear over the reals. Their transposes follow JAX's convention (no conjugation in
the transpose of ``mul`` or ``dot_general``; ``real``'s transpose embeds a real cotangent as
``ct + 0j``), so ``vjp`` and ``grad`` of functions of complex values give JAX's numbers, e.g.
``grad(lambda z: abs(z) ** 2)(3 + 4j) == 6 - 8j``.
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind

_REAL_OF: dict[np.dtype, np.dtype] = {
    np.dtype("complex64"): np.dtype("float32"),
    np.dtype("complex128"): np.dtype("float64"),
}
_COMPLEX_OF: dict[np.dtype, np.dtype] = {
    np.dtype("float32"): np.dtype("complex64"),
    np.dtype("float64"): np.dtype("complex128"),
}


def real_dtype(dtype) -> np.dtype:
    """float32 for complex64 (and float64 for complex128)."""
    return _REAL_OF[np.dtype(dtype)]


def complex_dtype(dtype) -> np.dtype:
    """complex64 for float32 and for complex64; other dtypes have no complex counterpart here."""
    dtype = np.dtype(dtype)
    if dtype_kind(dtype) == "c":
        return dtype
    if dtype not in _COMPLEX_OF:
        raise TypeError(f"no complex dtype for {dtype.name}: convert to float32 first.")
    return _COMPLEX_OF[dtype]


def _require_complex(name, aval):
    if dtype_kind(aval.dtype) != "c":
        raise TypeError(
            f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are subtypes of complexfloating."
        )


def _part(name, np_fn):
    p = Primitive(name)

    def impl(x):
        if dtype_kind(x.dtype) != "c":
            _require_complex(name, core.get_aval(x))
        return np.array(np_fn(x))

    p.def_impl(impl)

    @p.def_abstract_eval
    def _abstract(x):
        _require_complex(name, x)
        return ShapedArray(x.shape, real_dtype(x.dtype), x.weak_type)

    batching.vectorized_batcher(p)
    return p


real_p = _part("real", np.real)
imag_p = _part("imag", np.imag)

conj_p = Primitive("conj")


# (JAX's dtypes for conj and complex: float16 and bfloat16 have no complex counterpart)
_REAL_PARTS = (np.dtype(np.float32), np.dtype(np.float64))


@conj_p.def_impl
def _conj_impl(x, *, input_dtype):
    if dtype_kind(x.dtype) != "c":
        _conj_abstract(
            core.get_aval(x), input_dtype=input_dtype
        )  # a real value's conjugate is itself, with a +0 imaginary part
        return x.astype(complex_dtype(x.dtype))
    return np.conj(x)


@conj_p.def_abstract_eval
def _conj_abstract(x, *, input_dtype):
    if dtype_kind(x.dtype) != "c" and x.dtype not in _REAL_PARTS:
        raise TypeError(
            f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of float32, "
            "complexfloating, float64."
        )
    return ShapedArray(x.shape, complex_dtype(x.dtype), x.weak_type)


batching.vectorized_batcher(conj_p)

complex_p = Primitive("complex")


@complex_p.def_impl
def _complex_impl(x, y):
    if x.dtype not in _REAL_PARTS or y.dtype not in _REAL_PARTS:
        _complex_abstract(core.get_aval(x), core.get_aval(y))
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), complex_dtype(x.dtype))
    out.real, out.imag = x, y
    return out


@complex_p.def_abstract_eval
def _complex_abstract(x, y):
    for i, a in enumerate((x, y)):
        if a.dtype not in _REAL_PARTS:
            raise TypeError(
                f"complex does not accept dtype {a.dtype.name} at position {i}. Accepted dtypes at "
                f"position {i} are subtypes of float32, float64."
            )
    if x.dtype != y.dtype:
        raise TypeError(
            f"lax.complex requires arguments to have the same dtypes, got {x.dtype.name}, {y.dtype.name}."
        )
    if x.shape != y.shape and x.shape and y.shape:
        raise TypeError(
            f"lax.complex requires arguments to have the same shape, got {x.shape} and {y.shape}."
        )
    return ShapedArray(x.shape or y.shape, complex_dtype(x.dtype), x.weak_type and y.weak_type)


batching.broadcast_batcher(complex_p)


# ---------------------------------------------------------------------------------------------
# Public wrappers (jax.lax.real, imag, conj, complex).


def real(x):
    """The real part of a complex array (float32 for complex64)."""
    return real_p.bind(x)


def imag(x):
    """The imaginary part of a complex array (float32 for complex64)."""
    return imag_p.bind(x)


def conj(x):
    """The complex conjugate; a real input is first made complex (as ``jax.lax.conj`` does)."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)


def complex(x, y):
    """``x + 1j * y`` for two real arrays of one dtype (a Python scalar takes the other's dtype).

    >>> lax.complex(1.0, 2.0)
    Array(1.+2.j, dtype=complex64, weak_type=True)
    """
    from .api import _binary_args

    x, y = _binary_args(x, y, "complex", strict=False)
    return complex_p.bind(x, y)


def _zeros(like):
    # A strong zero (JAX builds it with np.zeros), so cotangents of weak inputs come back strong.
    return core.Array(np.zeros((), core.get_aval(like).dtype))


# ---------------------------------------------------------------------------------------------
# Derivatives: all four are R-linear, so each JVP is the op applied to the tangent.

ad.deflinear(real_p, lambda ct, x: [complex(ct, _zeros(ct))])
ad.deflinear(imag_p, lambda ct, x: [complex(_zeros(ct), _neg(ct))])


def _complex_transpose(ct, x, y):
    from .elementwise import _unbroadcast

    return [_unbroadcast(real(ct), x), _unbroadcast(imag(_neg(ct)), y)]


ad.deflinear(complex_p, _complex_transpose)


def _neg(x):
    from . import api

    return api.neg(x)


def _conj_jvp(primals, tangents, *, input_dtype):
    (x,), (t,) = primals, tangents
    return conj_p.bind(x, input_dtype=input_dtype), conj_p.bind(
        ad.instantiate_zeros(t), input_dtype=input_dtype
    )


def _conj_transpose(ct, x, *, input_dtype):
    if dtype_kind(np.dtype(input_dtype)) == "c":
        return [conj(ct)]
    return [real(ct)]


ad.jvp_rules[conj_p] = _conj_jvp
ad.transpose_rules[conj_p] = _conj_transpose


def complex_picks_x(x, y, greater: bool):
    """JAX's complex max/min (mlir._minmax_hlo): real parts compared, imaginary parts on a tie; x
    where that comparison holds, else y (so a NaN part picks y: numpy's maximum would propagate it)."""
    cmp = np.greater if greater else np.less
    with np.errstate(invalid="ignore"):
        return np.where(np.real(x) == np.real(y), cmp(np.imag(x), np.imag(y)), cmp(np.real(x), np.real(y)))


def complex_sign(x):
    """XLA's sign of complex values."""
    with np.errstate(all="ignore"):  # (XLA's z / |z|, a zero kept as it is: -0-0j keeps its signs)
        mag = np.abs(x)  # (each part divided by the real magnitude: inf+1j gives nan+0j, as XLA)
        out = np.empty_like(x)
        out.real, out.imag = x.real / mag, x.imag / mag
        return np.where(x == 0, x, out)
