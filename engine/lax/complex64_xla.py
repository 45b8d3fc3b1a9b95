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
Others are XLA's emitter formulas (multiply, Smith's divide, tan/tanh, expm1, abs, pow) or
StableHLO's decompositions (log and log1p with exact sums of squares, Kahan's sqrt, atanh, and
Hull et al.'s asin/acos kernel, which asinh and acosh reuse).

Checked against JAX 0.10.2 on 100256 inputs per function (random parts over 1e-8..1e8, every pair
of special parts): identical, except pow with a literal exponent of 0.5 under jit (LLVM turns
powf(r, 0.5) into sqrt(r): 44 inputs differ by an ulp).
Not here yet: rsqrt (XLA's float32 rsqrt is the CPU's approximation and a Newton step).
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
    """A true float32 fused multiply-add. The product of two float32 is exact in float64, but the
    float64 sum rounds; where it lands exactly halfway between two float32 (``(1 - 9189377)² +
    5.6e-14``), its rounding error (two-sum) says which way the exact sum lies."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    s = p + c
    bv = s - p
    err = (p - (s - bv)) + (c - bv)
    tie = (s.view(np.int64) & np.int64((1 << 29) - 1)) == np.int64(1 << 28)
    s = np.where(tie & (err != 0), np.nextafter(s, np.copysign(np.inf, err)), s)
    return _ftz(s.astype(f32))


_numba_complex = None  # backends/numba_complex once loaded; False without numba


def _numba(name, z, w):
    """``name`` by the numba loops (the same steps, ~50x less overhead), or None without numba."""
    global _numba_complex
    if _numba_complex is None:
        try:
            from ..backends import numba_complex
        except ImportError:
            _numba_complex = False
        else:
            _numba_complex = numba_complex
    if not _numba_complex:
        return None
    z, w = np.broadcast_arrays(np.asarray(z, np.complex64), np.asarray(w, np.complex64))
    return _numba_complex.apply(name, z, w)


def multiply(z, w):
    """XLA's ``(a c - b d) + i(b c + a d)``, LLVM fusing the first product of each into its add."""
    out = _numba("multiply", z, w)
    if out is not None:
        return out
    return _multiply(z, w)


def _multiply(z, w):
    a, b = _parts(z)
    c, d = _parts(w)
    return _c(_fma(a, c, -_mul(b, d)), _fma(b, c, _mul(a, d)))


def _div(a, b):
    return _ftz(np.divide(a, b, dtype=f32))


def divide(z, w):
    """Smith's algorithm as XLA emits it (the ratio of the smaller part of ``w`` to the larger;
    each multiply-add fused), then XLA's fixes where the quotient is nan+nanj: a zero divisor
    (``copysign(inf, c) * z``), an infinite dividend, an infinite divisor."""
    out = _numba("divide", z, w)
    if out is not None:
        return out
    return _divide(z, w)


def _divide(z, w):
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
    if n == 0:
        return np.ones_like(z)
    if n == 3:
        return multiply(multiply(z, z), z)
    acc = by_squaring(z, abs(n), multiply)
    return acc if n >= 0 else divide(np.ones_like(acc), acc)


def by_squaring(x, k: int, mul):
    """``x ** k`` (k > 0) as JAX's integer_pow lowering multiplies: ``mul`` by repeated squaring."""
    acc = None
    while k > 0:
        if k & 1:
            acc = x if acc is None else mul(acc, x)
        k >>= 1
        if k > 0:
            x = mul(x, x)
    return acc


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


def _square_error(v):
    """``v*v - round(v*v)`` by Veltkamp's split (``v * 4097``) and Dekker's product, with the
    multiply-adds LLVM fuses (a product with one use)."""
    c = _mul(v, f32(4097))
    hi = _add(c, _sub(v, c))
    lo = _sub(v, hi)
    hl = _mul(hi, lo)
    return _fma(lo, lo, _add(_add(_fma(hi, hi, -_mul(v, v)), hl), hl))


def _log_abs(x, y):
    """The real part of JAX's complex log (StableHLO's decomposition): ``log1p(x² + y² - 1) / 2``
    with x² + y² - 1 summed exactly (each square's rounding error added back, two-sum
    corrections) where that is under 1/2, else ``log(max) + log1p((min/max)²) / 2``."""
    xx, yy = _mul(x, x), _mul(y, y)
    gt = yy > xx
    big, small = np.where(gt, yy, xx), np.where(gt, xx, yy)
    b1 = _add(big, f32(-1))
    s1 = _add(b1, small)
    ey, ex = _square_error(y), _square_error(x)
    s2 = _add(s1, ey)
    s3 = _add(s2, ex)
    c = _add(_sub(big, big), _sub(small, _sub(s1, b1)))
    c = _add(c, _sub(ey, _sub(s2, s1)))
    c = _add(c, _sub(ex, _sub(s3, s2)))
    t = _add(s3, c)
    half = f32(0.5)
    near_one = _mul(_xla("log1p", t), half)
    ax, ay = np.abs(x), np.abs(y)
    mx = np.where(np.isnan(ax) | np.isnan(ay), f32(np.nan), np.maximum(ax, ay))
    mn = np.where(np.isnan(ax) | np.isnan(ay), f32(np.nan), np.minimum(ax, ay))
    r = np.where(mn == mx, f32(1), _div(mn, mx))
    far = _fma(_xla("log1p", _mul(r, r)), half, _xla("log", mx))
    return np.where(np.abs(t) < half, near_one, far)


def log(z):
    x, y = _parts(z)
    return _c(_log_abs(x, y), _libm("atan2", z.imag, z.real))  # (its own denormal handling)


def exp2(z):
    """``exp(z * (ln 2 + 0j))``: JAX lowers exp2 so (a complex multiply: inf * 0 makes nan)."""
    return exp(multiply(z, np.full_like(z, _LN2)))


def _two_sum_error(s, a, b):
    """The rounding error of ``s = a + b`` (Knuth's two-sum)."""
    bv = _sub(s, a)
    return _add(_sub(a, _sub(s, bv)), _sub(b, bv))


def log1p(z):
    """JAX's complex log1p (StableHLO's decomposition): the real part is ``log1p(2x + x² + y²) / 2``
    with that sum carried exactly (square errors, two-sum errors); ``log(|1 + z|)`` near -1 (where
    |x + 1| + |y| < 0.2); ``log(max) + log1p((min/max)²) / 2`` beyond 2**64. The imaginary part
    is ``atan2(y, x + 1)``."""
    x, y = _parts(z)
    half = f32(0.5)
    ax, ay = np.abs(x), np.abs(y)
    nan = np.isnan(ax) | np.isnan(ay)
    mx = np.where(nan, f32(np.nan), np.maximum(ax, ay))
    mn = np.where(nan, f32(np.nan), np.minimum(ax, ay))
    r = _div(mn, mx)
    huge = _fma(_xla("log1p", np.where(mn == mx, f32(1), _mul(r, r))), half, _xla("log", mx))
    x1 = _add(x, f32(1))
    yy, xx = _mul(y, y), _mul(x, x)
    near_minus_one = _mul(_xla("log", _fma(x1, x1, yy)), half)
    x2 = _add(x, x)
    s1 = _add(x2, yy)
    s2 = _add(s1, xx)
    ey, ex = _square_error(y), _square_error(x)
    s3 = _add(s2, ey)
    s4 = _add(s3, ex)
    c = _add(_two_sum_error(s1, x2, yy), _two_sum_error(s2, s1, xx))
    c = _add(c, _two_sum_error(s3, s2, ey))
    c = _add(c, _two_sum_error(s4, s3, ex))
    main = _mul(_xla("log1p", _add(s4, c)), half)
    re = np.where(
        mx > f32(1.84467419e17), huge, np.where(_add(np.abs(x1), ay) < f32(0.2), near_minus_one, main)
    )
    return _c(re, _libm("atan2", z.imag, x1))


def _max(a, b):  # (XLA's maximum and minimum propagate nan)
    return np.where(np.isnan(a) | np.isnan(b), f32(np.nan), np.maximum(a, b))


def _min(a, b):
    return np.where(np.isnan(a) | np.isnan(b), f32(np.nan), np.minimum(a, b))


def _hypot(mx, mn):
    """StableHLO's hypot of ``mx >= mn >= 0``: ``mx * sqrt(1 + (mn/mx)²)``, ``mx + mx (mn/mx)² / 2``
    where that square root rounds to 1, ``mx * sqrt 2`` where they are equal."""
    q = _div(mn, mx)
    qq = _mul(q, q)
    r = _ftz(np.sqrt(_add(qq, f32(1))))
    h = np.where((r == 1) & (qq > 0), _fma(_mul(mx, qq), f32(0.5), mx), _mul(mx, r))
    return np.where(mx == mn, _mul(mx, _SQRT2), h)


_SQRT2, _SQRT_HALF = f32(1.41421354), f32(0.707106769)


def sqrt(z):
    """JAX's complex sqrt (StableHLO's decomposition, after Kahan): with ``a = |x|, b = |y|`` and
    ``u`` the smaller over the larger, ``t = sqrt((|z| + a) / 2)`` computed without overflow
    (through ``sqrt(a) sqrt((1 + hypot(u, 1)) / 2)`` or ``sqrt(b) sqrt((u + hypot(u, 1)) / 2)``
    where ``t`` is 0 or inf), the other part ``b / 2t``; placed by the signs of x and y."""
    x, y = _parts(z)
    ax, ay = np.abs(x), np.abs(y)
    eq = ax == ay
    u = np.where(eq, f32(1), np.where(ax < ay, _div(ax, ay), _div(ay, ax)))  # (fusions of their own)
    mx, mn = _max(ax, ay), _min(ax, ay)
    sx, sy = _ftz(np.sqrt(ax)), _ftz(np.sqrt(ay))
    t = _ftz(np.sqrt(_fma(_hypot(mx, mn), f32(0.5), _mul(ax, f32(0.5)))))
    au = np.abs(u)
    hu = _hypot(_max(au, f32(1)), _min(au, f32(1)))
    s1 = _ftz(np.sqrt(_add(hu, f32(1))))
    s2 = _ftz(np.sqrt(_add(u, hu)))
    x_big = ax > ay
    edge = (t == 0) | (t == _INF)
    a = np.where(x_big, _mul(sx, _mul(s1, _SQRT_HALF)), _mul(sy, _mul(s2, _SQRT_HALF)))
    a = np.where(eq, _mul(sx, f32(1.09868407)), np.where(edge, a, t))
    ratio = np.where(eq, f32(1), np.where(ax < ay, _div(sx, sy), _div(sy, sx)))
    b_edge = np.where(x_big, _div(_mul(sy, ratio), _mul(s1, _SQRT2)), _div(sy, _mul(s2, _SQRT2)))
    b = np.where(edge, b_edge, _div(ay, _mul(t, f32(2))))
    b = np.where(eq, _mul(sy, f32(0.455089867)), b)
    re = np.where(x >= 0, a, b)
    neg_y = y < 0
    im = np.where(x < 0, np.where(neg_y, -a, a), np.where(neg_y, -b, b))
    return _c(re, im)


def power(z, w):
    """XLA's complex pow: ``|z|**c * exp(-d arg z) * (cos q + i sin q)``, ``q = c arg z + d log|z|``
    (``w = c + id``; the C library's powf, XLA's exp and log), then XLA's special cases:
    ``0**w`` for real c >= 0, ``z**0``, ``1**w``, ``inf**c`` for real c."""
    a, b = _parts(z)
    c, d = _parts(w)
    r = abs_(z)
    t = _libm("atan2", z.imag, z.real)
    coeff = _mul(_xla("exp", _mul(-d, t)), _libm("pow", r, c))
    q = _fma(c, t, _mul(d, _xla("log", r)))
    re, im = _mul(coeff, _libm("cos", q)), _mul(coeff, _libm("sin", q))
    one, zero = f32(1), f32(0)
    real_c = d == 0
    cut0 = (r == 0) & real_c & (c >= 0)
    re = np.where(cut0, np.where(c == 0, one, zero), re)
    im = np.where(cut0, zero, im)
    ones = (real_c & (c == 0)) | ((a == 1) & (b == 0))
    inf_base = (a == _INF) & (b == 0) & real_c
    re = np.where(ones, one, re)
    re = np.where(inf_base & (c > 0), _INF, np.where(inf_base & (c < 0), zero, re))
    im = np.where(ones | (inf_base & ((c > 0) | (c < 0))), zero, im)
    return _c(re, im)


def _atanh_parts(x, y):
    """StableHLO's complex atanh: ``sign(x) log1p(4|x| / ((1 - |x|)² + y²)) / 4`` (with its
    asymptotic forms beyond 2**48 and where y is tiny against x) and ``atan2(2y, (1 - |x|)(1 + |x|)
    - y²) / 2`` (``±pi/2`` beyond 2**48)."""
    one = f32(1)
    ax, ay = np.abs(x), np.abs(y)
    big = f32(2.81475044e14)
    safe = (ax < big) & (ay < big)
    d1 = _sub(one, ax)
    yy = _mul(y, y)
    r = _div(ax, _fma(d1, d1, yy))
    inf_any = (np.abs(x) == _INF) | (np.abs(y) == _INF)
    far = np.where(inf_any, f32(0), _div(one, _mul(_add(_div(ax, y), _div(y, ax)), y)))
    r = np.where(safe, r, np.where(_mul(ay, f32(16777218)) < ax, _div(one, ax), far))
    sgn = np.where(x >= 0, one, -one)
    re = _mul(_mul(sgn, _xla("log1p", _mul(r, f32(4)))), f32(0.25))
    ang = _libm("atan2", _add(y, y), _fma(d1, _add(ax, one), -yy))
    im = _mul(np.where(safe, ang, _mul(np.where(y >= 0, one, -one), f32(3.14159274))), f32(0.5))
    return re, im


def atanh(z):
    return _c(*_atanh_parts(*_parts(z)))


def atan(z):
    """``atan(z) = -i atanh(iz)``, as JAX's lowering writes it out."""
    x, y = _parts(z)
    re, im = _atanh_parts(-y, x)
    return _c(im, -re)


def _hypot_of(m, q, sq, mn):
    """StableHLO's hypot from ``m = max``, ``q = min/max``, ``sq = sqrt(1 + q²)`` and ``mn = min``
    (the asin kernel computes the first three in fusions of their own)."""
    qq = _mul(q, q)
    h = np.where((sq == 1) & (qq > 0), _fma(_mul(m, qq), f32(0.5), m), _mul(m, sq))
    return np.where(m == mn, _mul(m, _SQRT2), h)


def _asin_kernel(x, y):
    """StableHLO's asin/acos kernel (Hull et al., as in Pearu Peterson's functional algorithms) for
    ``z = x + iy``: the real angle ``atan2(x, ...)`` and the imaginary part ``log1p(am1 + sqrt(am1
    (A + 1)))``, with ``A = (|z + 1| + |z - 1|) / 2``, ``am1 = A - 1`` carried without
    cancellation, and the forms for huge |z| (``log(2 max) + log1p((min/max)²)/2``) and tiny y."""
    one, half = f32(1), f32(0.5)
    ax, ay = np.abs(x), np.abs(y)
    xp1, xm1 = _add(ax, one), _add(ax, f32(-1))
    hyp = []
    for v in (xp1, xm1):  # (each max, ratio and root a fusion of its own: materialized)
        av = np.abs(v)
        m, mn = _max(av, ay), _min(av, ay)
        q = _div(mn, m)
        hyp.append(_hypot_of(m, q, _ftz(np.sqrt(_fma(q, q, one))), mn))
    r, s = hyp
    tiny = (ay < f32(4.33680869e-19)) & (ax < one)
    yy = _mul(y, y)
    d = _div(_mul(yy, half), _add(r, xp1))
    a = _mul(_add(r, s), half)
    am1 = np.where(
        ax >= one,
        _fma(_add(s, xm1), half, d),
        np.where(a <= f32(1.5), _add(d, _div(_mul(yy, half), _sub(s, xm1))), _add(a, f32(-1))),
    )
    am1 = np.where(tiny, -_div(_mul(xp1, xm1), _add(a, one)), am1)
    half_apx = _mul(_add(a, ax), half)
    rp = _add(r, xp1)
    inner = _ftz(np.sqrt(_mul(half_apx, _add(_div(yy, rp), _sub(s, xm1)))))
    outer = _mul(ay, _ftz(np.sqrt(_add(_div(half_apx, rp), _div(half_apx, _add(s, xm1))))))
    den = np.where(_max(ax, ay) >= f32(2.30584287e18), ay, np.where(ax <= one, inner, outer))
    lim = np.where(ax < f32(2.30584285e30), f32(2.30584274e12), f32(2.30584283e20))
    by_y = ay >= lim
    big = np.where(by_y, ay, ax)
    huge = big >= np.where(by_y, lim, f32(2.30584287e18))
    ratio = np.where(by_y & (ay != _INF), _div(ax, ay), f32(0))
    far = _fma(_xla("log1p", _mul(ratio, ratio)), half, _add(_xla("log", big), _LN2))
    root = _ftz(np.sqrt(_mul(am1, _add(a, one))))
    im = np.where(huge, far, np.where(tiny, _div(ay, root), _xla("log1p", _add(am1, root))))
    return den, im


def _signed(v, negative):
    return np.where(negative, -v, v)


def asin(z):
    x, y = _parts(z)
    den, im = _asin_kernel(x, y)
    return _c(_libm("atan2", z.real, den), _signed(im, y < 0))


def acos(z):
    x, y = _parts(z)
    den, im = _asin_kernel(x, y)
    return _c(_libm("atan2", den, z.real), _signed(im, ~(y < 0)))


def asinh(z):
    """``asinh(z) = -i asin(iz)``, as JAX's lowering writes it out."""
    x, y = _parts(z)
    den, re = _asin_kernel(-y, x)
    return _c(_signed(re, x < 0), _libm("atan2", z.imag, den))


def acosh(z):
    """From acos's parts, as JAX's lowering writes it: ``|Im acos z| + i sign(y) Re acos z``."""
    x, y = _parts(z)
    den, re = _asin_kernel(x, y)
    out = _c(re, _signed(_libm("atan2", den, z.real), y < 0))
    return np.where(re < 0, -out, out)


def atan2(y, x):
    """XLA's complex ``atan2(y, x) = -i log((x + i y) / sqrt(x**2 + y**2))``; the products with
    ``i`` and ``-i`` as swaps of parts (signs of zero as XLA's: ``atan2(0.5, -2j)`` is +pi)."""
    y, x = np.broadcast_arrays(y, x)
    xr, xi, yr, yi = _ftz(x.real), _ftz(x.imag), _ftz(y.real), _ftz(y.imag)
    xx, yy = _multiply(x, x), _multiply(y, y)
    den = sqrt(_c(_add(xx.real, yy.real), _add(xx.imag, yy.imag)))
    lg = log(_divide(_c(_sub(xr, yi), _add(xi, yr)), den))
    return _c(lg.imag, -lg.real)


STEPS = {
    "exp": exp, "sin": sin, "cos": cos, "sinh": sinh, "cosh": cosh, "square": square,
    "expm1": expm1, "tanh": tanh, "tan": tan, "abs": abs_, "sign": sign,
    "log": log, "exp2": exp2, "log1p": log1p, "sqrt": sqrt,
    "atanh": atanh, "atan": atan, "asin": asin, "acos": acos, "asinh": asinh,
    "acosh": acosh, "atan2": atan2,
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
