"""float32 ``zeta`` (Hurwitz's) and ``polygamma`` as XLA's CPU backend computes them, bit for bit.

JAX lowers both to CHLO, whose decomposition is Euler-Maclaurin summation with ten terms: the sum
of ``(q + k) ** -s`` for k = 0..9 (each a call of the C library's ``powf``, summed in order), the
integral ``a ** -s * a / (s - 1)`` at ``a = q + 10``, and a correction of twelve Bernoulli terms
evaluated as a Horner chain in ``1 / a**2`` whose factors ``(s + 2j + 2) * (s + 2j + 1)`` are
products of the operand (not folded constants). LLVM contracts each multiply-add whose product has
one use into a fused multiply-add (``xla_f32.fma``). ``polygamma(n, x)`` is
``(-1) ** (n + 1) * exp(lgamma(n + 1)) * zeta(n + 1, x)`` with XLA's own ``exp``/``lgamma``
kernels, digamma for ``n = 0``.

Where ``n`` is the constant 1 in a compiled program (the JVP of ``digamma``: ``polygamma(1.0, x)``)
XLA folds the constants before LLVM sees the kernel (``folded``): the factors become numbers, the
highest coefficient is multiplied by the first one (``c0 * 552``), the division by ``s - 1 = 1``
goes, so ``a ** -s * a + sum`` is a fused multiply-add, and the sign times ``exp(lgamma(2))`` is
the evaluator's constant (``constant_folding``'s lgamma and the C library's ``expf``).

Measured against JAX 0.10.2 (tests/jax_reference/ulp_fixes.json: ``polygamma1_*``, ``zeta``).

Example:

  >>> float(zeta(np.float32(2.0), np.float32(1.0)))
  1.644934058189392
"""

from __future__ import annotations

import numpy as np

from . import libm_f32, xla_f32

f32 = np.float32
fma = xla_f32.fma
# B_2k / (2k)!, the highest first (CHLO's table, rounded to float32)
_COEFFS = tuple(
    f32(c)
    for c in (
        -1.39544646e-19, 5.50900303e-18, -2.17486866e-16, 8.58606213e-15, -3.3896803e-13,
        1.33825364e-11, -5.28419031e-10, 2.08767563e-08, -8.26719599e-07, 3.30687835e-05,
        -0.00138888892, 0.0833333358,
    )
)  # fmt: skip
_SMALLEST = np.uint32(1).view(f32)  # the sum is returned when a ** -s is below |sum| * this


def _factor(s, j):
    """``(s + 2j + 2) * (s + 2j + 1)``, the factor of the ``j``-th coefficient from the lowest."""
    return (s + f32(2 * j + 2)) * (s + f32(2 * j + 1))


def zeta(s, q, s_minus_1=None, folded: bool = False, reciprocal: bool = False) -> np.ndarray:
    """XLA's float32 Hurwitz zeta of float32 arrays ``s``, ``q`` (broadcast together);
    ``s_minus_1``: the divisor as the caller has it (polygamma's ``n``); ``folded``: the kernel XLA
    compiles for a constant ``s`` (see the module docstring); ``reciprocal``: the divisor is a
    broadcast scalar, which algsimp makes a product with its reciprocal (then a multiply-add)."""
    s, q = np.broadcast_arrays(xla_f32.ftz(np.asarray(s, f32)), xla_f32.ftz(np.asarray(q, f32)))
    with np.errstate(all="ignore"):
        neg_s = -s
        total = libm_f32.kernel("pow", q, neg_s)
        for k in range(1, 10):
            total = total + libm_f32.kernel("pow", q + f32(k), neg_s)
        a = q + f32(10)
        a_pow = libm_f32.kernel("pow", a, neg_s)
        r = f32(1) / (a * a)
        divisor = s + f32(-1) if s_minus_1 is None else np.asarray(s_minus_1, f32)
        if folded:  # (the factors are numbers: the highest one multiplies its coefficient)
            t = fma(r, _COEFFS[0] * _factor(s, 10), _COEFFS[1])
            for j, c in zip(range(9, -1, -1), _COEFFS[2:]):
                t = fma(r * t, _factor(s, j), c)
            # (algsimp: a division by a constant is a product with its reciprocal; by 1, nothing)
            head = np.where(divisor == f32(1), fma(a_pow, a, total), fma(a_pow * a, f32(1) / divisor, total))
        else:
            t = fma(_factor(s, 10), r * _COEFFS[0], _COEFFS[1])
            for j, c in zip(range(9, -1, -1), _COEFFS[2:]):
                t = fma(_factor(s, j), r * t, c)
            head = fma(a_pow * a, f32(1) / divisor, total) if reciprocal else total + (a_pow * a) / divisor
        t = fma(s / a, t, f32(0.5))
        out = fma(a_pow, t, head)
        out = np.where(np.abs(a_pow) < xla_f32.ftz(np.abs(total) * _SMALLEST), total, out)
        out = np.where(s < f32(1), f32(np.nan), out)
        q_le_0 = q <= f32(0)
        out = np.where(q_le_0 & (s != np.floor(s)), f32(np.nan), out)
        even = (s == np.floor(s)) & (np.fmod(s, f32(2)) == f32(0))
        out = np.where(q_le_0 & (q == np.floor(q)), np.where(even, f32(np.inf), f32(np.nan)), out)
        out = np.where(s == f32(1), f32(np.inf), out)
    return np.asarray(out, f32)


def _folded_scale(n: np.ndarray) -> np.ndarray:
    """``(-1) ** (n + 1) * exp(lgamma(n + 1))`` of a constant ``n >= 0`` as XLA folds it: StableHLO's
    canonicalizer folds Lanczos' sum (exact float32 operations) and its log (in double, rounded),
    algsimp makes ``(z + 7.5) / log_t`` a product with the reciprocal, the evaluator folds the rest
    one rounded operation at a time with the C library's ``log1pf`` and ``expf``."""
    from ..constant_folding import _apply

    def libm(name, v):
        return _apply(name, True, [np.asarray(v, f32)], np.dtype(f32)).astype(f32)

    z = np.asarray(n, f32)
    total = xla_f32._LANCZOS[0] / (z + f32(1)) + f32(1)
    for k, c in enumerate(xla_f32._LANCZOS[1:], 2):
        total = total + c / (z + f32(k))
    log_total = np.log(total.astype(np.float64)).astype(f32)
    log_t = libm("log1p", z * f32(0.13333334)) + xla_f32._LOG_LANCZOS_T
    y = ((z + f32(0.5)) - (z + f32(7.5)) * (f32(1) / log_t)) * log_t + f32(0.918938518)
    sign = np.fmod(z, f32(2)) * f32(2) + f32(-1)
    return np.asarray(sign * libm("exp", y + log_total), f32)


def polygamma(n, x, folded: bool = False) -> np.ndarray:
    """XLA's float32 ``polygamma`` of float32 arrays ``n``, ``x``; ``folded``: the kernel of a
    compiled program whose ``n`` is a constant (measured: n = 1, 2, 4 as JAX's; n = 3 an ulp off
    where its folded ``exp(lgamma(4))`` is, not modelled); a scalar ``n`` of an array ``x`` is
    broadcast, and its division a reciprocal's product."""
    broadcast = np.shape(n) != np.broadcast_shapes(np.shape(n), np.shape(x))
    n, x = np.broadcast_arrays(np.asarray(n, f32), xla_f32.ftz(np.asarray(x, f32)))
    with np.errstate(all="ignore"):
        s = n + f32(1)
        if folded:
            out = _folded_scale(n) * zeta(s, x, s_minus_1=n, folded=True)
        else:
            sign = np.fmod(n, f32(2)) * f32(2) + f32(-1)
            scale = sign * xla_f32.exp(xla_f32.lgamma(s))
            out = scale * zeta(s, x, s_minus_1=n, reciprocal=broadcast)
        out = np.where(n == f32(0), xla_f32.digamma(x), out)
        out = np.where((n != np.floor(n)) | (n < f32(0)), f32(np.nan), out)
    return np.asarray(out, f32)
