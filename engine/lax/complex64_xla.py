"""complex64 elementwise functions as JAX 0.10.2 on XLA's CPU backend computes them, bit for bit.

XLA computes a complex function from float32 pieces: JAX's lowering and XLA's passes expand most of
them into real ops (``exp(x + iy) = e**x cos y + i e**x sin y``, with ``e**(x/2)`` squared where
``e**x`` overflows; ``sin``/``cos`` from ``expm1`` of the imaginary part; ``sinh``/``cosh`` from
two complex ``exp`` at ``z - ln 2`` and ``-ln 2 - z``), whose float32 kernels are XLA's own
(``xla_f32.py``: exp, log, expm1, ...) or the C library's (``libm_f32.py``: sinf, cosf). numpy's
complex64 functions are other algorithms (``np.sin`` of complex64 differs in the last bit for
~24% of inputs). Each function here does XLA's steps on float32 arrays in XLA's order, with
denormals read and written as zero as XLA's arithmetic does (and a fused multiply-add where LLVM
contracts one). The jitted kernels leave complex dtypes to these rules, so eager and jit agree.
"""

from __future__ import annotations

import numpy as np

from . import libm_f32, xla_f32

f32 = np.float32
_INF, _LN2 = f32(np.inf), f32(0.693147182)  # (XLA's constant for log(2))


def _ftz(a):
    return xla_f32.ftz(np.asarray(a, f32))


def _parts(z):
    return _ftz(z.real), _ftz(z.imag)


def _c(re, im):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), np.complex64)
    out.real, out.imag = re, im
    return out


def _mul(a, b):
    return _ftz(np.multiply(a, b, dtype=f32))


def _add(a, b):
    return _ftz(np.add(a, b, dtype=f32))


def _sub(a, b):
    return _ftz(np.subtract(a, b, dtype=f32))


def _xla(name, x):
    return xla_f32.kernel(name, np.asarray(x, f32))


def _libm(name, *xs):
    return libm_f32.kernel(name, *xs)


def _exp_parts(x, y):
    """XLA's complex exp of ``x + iy`` as two float32 arrays: where ``e**x`` overflows, the real
    and imaginary parts are ``(e**(x/2) * cos y) * e**(x/2)`` (finite when cos y is small)."""
    e, h = _xla("exp", x), _xla("exp", _mul(x, f32(0.5)))
    big = e == _INF
    c, s = _libm("cos", y), _libm("sin", y)
    re = np.where(big, _mul(_mul(h, c), h), _mul(e, c))
    im = np.where(y == 0, f32(0), np.where(big, _mul(_mul(h, s), h), _mul(e, s)))
    return re, im


def exp(z):
    return _c(*_exp_parts(*_parts(z)))


def _cosh_sinh_halves(y):
    """``cosh y`` and ``sinh y`` as JAX's complex sin/cos lowering computes them: from XLA's
    ``expm1(y)`` and ``expm1(-y)``, ``((e1 + e2) + 2) / 2`` and ``(e1 - e2) / 2``."""
    e1, e2 = _xla("expm1", y), _xla("expm1", -y)
    half = f32(0.5)
    return _mul(_add(_add(e1, e2), f32(2)), half), _mul(_sub(e1, e2), half)


def sin(z):
    x, y = _parts(z)
    ch, sh = _cosh_sinh_halves(y)
    im = _mul(_libm("cos", x), sh)
    return _c(np.where(x == 0, f32(0), _mul(_libm("sin", x), ch)), im)


def cos(z):
    x, y = _parts(z)
    ch, sh = _cosh_sinh_halves(y)
    re = _mul(_libm("cos", x), ch)
    return _c(re, np.where(x == 0, f32(0), _mul(-_libm("sin", x), sh)))


def _exp_pair(x, y):
    """``exp(z - ln 2)`` and ``exp(-ln 2 - z)`` (complex adds: ``y + 0`` and ``0 - y``)."""
    a = _exp_parts(_sub(x, _LN2), _add(y, f32(0)))
    b = _exp_parts(_sub(-_LN2, x), _sub(f32(0), y))
    return a, b


def sinh(z):
    (ar, ai), (br, bi) = _exp_pair(*_parts(z))
    return _c(_sub(ar, br), _sub(ai, bi))


def cosh(z):
    (ar, ai), (br, bi) = _exp_pair(*_parts(z))
    return _c(_add(ar, br), _add(ai, bi))


def _fma(a, b, c):
    return _ftz(xla_f32.fma(a, b, c))


def multiply(z, w):
    """XLA's ``(a c - b d) + i(b c + a d)``, LLVM fusing the first product of each into its add."""
    a, b = _parts(z)
    c, d = _parts(w)
    return _c(_fma(a, c, -_mul(b, d)), _fma(b, c, _mul(a, d)))


def _div(a, b):
    return _ftz(np.divide(a, b, dtype=f32))


def divide(z, w):
    """Smith's algorithm as XLA emits it (the ratio of the smaller part of ``w`` to the larger;
    each multiply-add fused), then XLA's fixes where the quotient is nan+nanj: a zero divisor
    (``copysign(inf, c) * z``), an infinite dividend, an infinite divisor."""
    a_r, a_i = _parts(z)
    b_r, b_i = _parts(w)
    r1 = _div(b_r, b_i)
    d1 = _fma(r1, b_r, b_i)
    r2 = _div(b_i, b_r)
    d2 = _fma(r2, b_i, b_r)
    small_r = np.abs(b_r) < np.abs(b_i)
    c_r = np.where(small_r, _div(_fma(r1, a_r, a_i), d1), _div(_fma(r2, a_i, a_r), d2))
    c_i = np.where(small_r, _div(_fma(r1, a_i, -a_r), d1), _div(_fma(-r2, a_r, a_i), d2))
    one, zero, inf = f32(1), f32(0), _INF
    zero_den = (b_r == 0) & (b_i == 0) & (~np.isnan(a_r) | ~np.isnan(a_i))
    s = np.copysign(inf, b_r)
    z_r, z_i = _mul(s, a_r), _mul(s, a_i)
    fin = lambda v: np.abs(v) != inf  # (ordered: nan is neither finite nor infinite here)  # noqa: E731
    infinite = lambda v: np.abs(v) == inf  # noqa: E731
    inf_num = (infinite(a_r) | infinite(a_i)) & fin(b_r) & fin(b_i) & ~np.isnan(b_r) & ~np.isnan(b_i)
    ar_s = np.copysign(np.where(infinite(a_r), one, zero), a_r)
    ai_s = np.copysign(np.where(infinite(a_i), one, zero), a_i)
    n_r = _mul(inf, _fma(ar_s, b_r, _mul(ai_s, b_i)))
    n_i = _mul(inf, _fma(ai_s, b_r, -_mul(ar_s, b_i)))
    inf_den = (infinite(b_r) | infinite(b_i)) & fin(a_r) & fin(a_i) & ~np.isnan(a_r) & ~np.isnan(a_i)
    br_s = np.copysign(np.where(infinite(b_r), one, zero), b_r)
    bi_s = np.copysign(np.where(infinite(b_i), one, zero), b_i)
    f_r = _mul(zero, _fma(a_r, br_s, _mul(a_i, bi_s)))
    f_i = _mul(zero, _fma(a_i, br_s, -_mul(a_r, bi_s)))
    fix_r = np.where(zero_den, z_r, np.where(inf_num, n_r, np.where(inf_den, f_r, c_r)))
    fix_i = np.where(zero_den, z_i, np.where(inf_num, n_i, np.where(inf_den, f_i, c_i)))
    bad = np.isnan(c_r) & np.isnan(c_i)
    return _c(np.where(bad, fix_r, c_r), np.where(bad, fix_i, c_i))


def square(z):
    """JAX's lowering of complex ``square``: ``(x - y)(x + y) + 2xy i``, a zero real part where
    ``|x| == |y|`` for finite x."""
    x, y = _parts(z)
    re = np.where(np.isfinite(x) & (np.abs(x) == np.abs(y)), f32(0), _mul(_sub(x, y), _add(x, y)))
    return _c(re, _mul(_mul(x, y), f32(2)))


def integer_pow(z, n: int):
    """JAX's lowering: repeated squaring with XLA's complex multiply, ``1 / z**-n`` for n < 0
    (``(z*z)*z`` for n = 3, which JAX's lowering writes out: the operand order decides which
    product LLVM fuses)."""
    acc, x, k = None, z, abs(n)
    if k == 0:
        return np.ones_like(z)
    if n == 3:
        return multiply(multiply(z, z), z)
    while k > 0:
        if k & 1:
            acc = x if acc is None else multiply(acc, x)
        k >>= 1
        if k > 0:
            x = multiply(x, x)
    return acc if n >= 0 else divide(np.ones_like(acc), acc)


_COSM1_P = tuple(
    f32(c)
    for c in (
        4.737750719085304e-14, -1.1470284791426089e-11, 2.0876753659138103e-09, -2.755731998149713e-07,
        2.4801587642286904e-05, -0.0013888889225199819, 0.0416666679084301,
    )
)  # fmt: skip


def _cosm1(b):
    """XLA's ``cos(b) - 1``: a polynomial in b**2 below |b| ~ 0.785, else the C library's cosf - 1."""
    b2 = _mul(b, b)
    p = _fma(b2, _COSM1_P[0], _COSM1_P[1])
    for c in _COSM1_P[2:]:
        p = _fma(p, b2, c)
    small = _fma(_mul(b2, b2), p, -_mul(b2, f32(0.5)))
    return np.where(b2 >= f32(0.61685), _sub(_libm("cos", b), f32(1)), small)


def expm1(z):
    """XLA's ``(expm1(a) cos b + cosm1(b)) + i e**a sin b``."""
    a, b = _parts(z)
    em1 = _xla("expm1", a)
    cm1 = _cosm1(b)
    re = _fma(em1, _add(cm1, f32(1)), cm1)
    return _c(re, np.where(b == 0, f32(0), _mul(_libm("sin", b), _add(em1, f32(1)))))


def _tanh_parts(a, b):
    """XLA's complex tanh of ``a + ib``: ``(e2a - e-2a + 4i cos b sin b) / (e2a + e-2a + 4cos²b)``
    from ``expm1(±2a)``, with its limits where the denominator overflows and its nan cases."""
    two_a = _add(a, a)
    e1, e2 = _xla("expm1", two_a), _xla("expm1", -two_a)
    cb, sb = _libm("cos", b), _libm("sin", b)
    im_num = _mul(f32(4), _mul(cb, sb))
    sum_m2 = _add(e1, e2)
    denom = _fma(_mul(cb, cb), f32(4), sum_m2)
    re = np.where(sum_m2 == _INF, np.copysign(f32(1), a), _div(_sub(e1, e2), denom))
    im = _div(im_num, denom)
    a_inf, sin_nan = np.abs(a) == _INF, np.isnan(im_num)
    re = np.where(sin_nan & ~a_inf, f32(np.nan), re)
    im = np.where((b == 0) | (a_inf & sin_nan), f32(0), im)
    return re, im


def tanh(z):
    return _c(*_tanh_parts(*_parts(z)))


def tan(z):
    """``tan(x + iy) = -i tanh(-y + ix)``, as XLA emits it."""
    x, y = _parts(z)
    re, im = _tanh_parts(-y, x)
    return _c(im, -re)


def _abs_parts(x, y):
    """XLA's |x + iy|: ``max * sqrt(1 + (min/max)**2)`` (``min`` where that is nan: zeros,
    infinities, nan); returns min, max and the square root."""
    ax, ay = np.abs(x), np.abs(y)
    mx = np.where(np.isnan(ax) | np.isnan(ay), f32(np.nan), np.maximum(ax, ay))
    mn = np.where(np.isnan(ax) | np.isnan(ay), f32(np.nan), np.minimum(ax, ay))
    q = _div(mn, mx)
    return mn, mx, _ftz(np.sqrt(_fma(q, q, f32(1))))


def abs_(z):
    mn, mx, s = _abs_parts(*_parts(z))
    r = _mul(mx, s)
    return np.where(np.isnan(r), mn, r)


def sign(z):
    """``z / |z|`` part by part; a zero magnitude keeps ``z`` as it is (signed zeros, denormals)."""
    x, y = _parts(z)
    r = abs_(z)
    return np.where(r == 0, z, _c(_div(x, r), _div(y, r)))


STEPS = {
    "exp": exp, "sin": sin, "cos": cos, "sinh": sinh, "cosh": cosh, "square": square,
    "expm1": expm1, "tanh": tanh, "tan": tan, "abs": abs_, "sign": sign,
}  # fmt: skip


def complex64_or(name, f):
    """``f``, but XLA's steps for complex64 (where known: a key of ``STEPS``)."""
    steps = STEPS.get(name)
    if steps is None:
        return f

    def g(*xs, **params):
        if all(getattr(x, "dtype", None) == np.complex64 for x in xs):
            with np.errstate(all="ignore"):
                return steps(*xs)
        return f(*xs, **params)

    g.__name__ = name
    return g
