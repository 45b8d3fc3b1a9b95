"""float32 and float64 ``rsqrt`` as XLA's CPU backend computes them, bit for bit.

XLA does not divide: it takes the CPU's reciprocal square root estimate and refines it by Newton's
method, ``r + (r/2) * (1 - y*r*r)`` with fused multiply-adds (``fma(r * 0.5, fma(-(y * r), r, 1), r)``):
float32 from ``rsqrtss`` (12 bits) with one step, float64 from AVX-512's ``vrsqrt14sd`` (14 bits)
with two. The estimate is ``(rsqrt(m) of the top 12 (float64: 15) bits of the significand and the
exponent's parity) * 2**-(exponent // 2)``, so two tables give it for every input: measured from an
AMD EPYC's instructions (``tests/jax_reference/record_rsqrt.py estimates``), which JAX 0.10.2's
results on that machine match on every input tried (``tests/test_rsqrt.py``). About a third of
float32 results differ from ``1 / sqrt(y)`` by an ulp, so a jitted ``x / jnp.sqrt(y)`` (which XLA
rewrites to ``x * rsqrt(y)``), ``lax.rsqrt`` and ``jax.nn.standardize`` printed other last digits
than JAX's. A CPU whose estimate instructions differ (other vendors' ``rsqrtss`` is not specified
to the bit) gives JAX other last bits there; the engine keeps these tables' on every machine.

Special values come from the estimate (the Newton step would make NaNs of them): ``rsqrt(+-0) =
+-inf``, ``rsqrt(inf) = 0``, negative inputs give the default NaN and NaNs stay (quieted); subnormal
inputs read as zero, as XLA runs with denormals flushed.
"""

from __future__ import annotations

import base64
import zlib

import numpy as np

f32, f64 = np.float32, np.float64

# Differences of consecutive entries, zlib-compressed: float32 estimates (their bits) for the 2 x 4096
# inputs 1.m and 2 * 1.m in [1, 4), by the top 12 bits of m; float64 likewise (bits >> 36: the
# estimate has 16 significant bits), 2 x 32768 entries by the top 15 bits of m.
_T32 = (
    "eNrtmkuOwyAQRH2zOdpcmaV3GWUxUjQaA+ZXlPtZighqHlXdtomTcJzfX8f5el2+3kcunjKxFfwp1lf7P4P7j873xnvnS4v9"
    "7qZPPHa81HfS/y92Nb52bIlPYn14Lf8Zx/8++i3rTAufxPrwWv6Kwf8a/XSDu/t+Be/uHz42/3so/df6nBFHX6uvjkfPf4d4"
    "bnzr+hOFd6+f2j/6xzb+c8yd2Eo+mfuH9+Y/7z9X/zVz5eZR8mr/6Hvr49/XOy2tuh3xGbp7fj3rR6/GbH13/+h76+/g3y3n"
    "kXzu95QI+cNz/ZfY3rVjJv837uaf+uF/J/3aeUrPH7U8+t76+H+Wf+dcIvKcP/gRfKte9Dj1o37u+Tvvs05i/RG1jMy710/t"
    "f/S93DKfkk/m/t350ndh8vfWL8VSJ6/eL+nuHx5+Bd/yX+JdTQWv9u+uj39v/617hGhpR7Tu15/a/wh95T6J6PrR/ZO/nm/Z"
    "M8T+ymfw0c+/e/4r/d95/li1vqF/4D+w/1H5syeFOHG/eO0a0HvPtz6bzOZbmV38u+fvXv/o9evVp34H/gP7f0L9qDc8fEy+"
    "V692DPWew0evv3v++Kd+6KOv9p8bP7Ov1se/t3/yJ3/OH/Wg39T/ATyZMaI="
)
_T64 = (
    "eNrt3WFr3DoQheGF/v//2w+N1RQaCEtrS7Ika6THcNnY0pw55x1twpbc9vVKP36mlI4b/6Wb9aN1I3rGGAu6WGCMMV0sMMaC"
    "LhYYY9xDN93QiVYrD8by8ISxPPJgLA/G8vCEsTyr5/nIqEkVe3prRanjnXeZeZeZd969T3jnXWbeZeZ9Bu8pQzPi2mp5zMSa"
    "mVjDwUysmYmZWDMT87JmJnfW0sm+VJhdnTp1seqwUKdOHRbq1HmPq1Onbq+61GF/j7XV+vAgq6w8yCor3rLiLausPMgq60gP"
    "Z/tKX1tqreSFJ57w4YknfHjChyee8OGJJ3ye9HSmU6PZa++M+jLLLLPM9GWWWWaZZZZZZvoyR8o84tnIXrzzzvv63jHmnXfe"
    "eeeddz//eeed9za6OV+PrqMxpwYGZkEDA7OggYF50jALGhiYxfwapfWt96nBSm6ssJIbK6ywUiM3VljJjVX/mtfnlatZ0pNW"
    "Xy18zI0WPuZGy9ywpmVutPAxN1ol938+/+fWPb0ngkc8MMMDM3vwkBUzPDDDAzPM8IjosfR5r70888yz3DzzzDPPPPPMs9w8"
    "88xzfb/SOmvWrFmztsYaNtasWbNmzZqf/9b2Wvv++/+l56ZkX6s9+sXuh4EZ62fG+pmxfs6Ufmasnxnr90y/s8//tR6frIvg"
    "EUss1WFpBuowwRJLLNXJZgZYjq4r+fzfy88s+itkwAgjGTAyZxkwMmcZMDJnGcwZo39dLT//73IdEJiNy1zMxmUu5uIyG5e5"
    "mI0r2Fwif/7nnW/Meecbc94x551vzHnHHHPeY+buwZFHHnnkkUeZeeSRRx555JFHc9nd49GgpxoczEiNGZmRGrzNSI0ZqTEj"
    "M1ITi3cLPfvssy/uPmzss88+bOyzz3vdPvvsW3/fVc3q6xhggAEGGMiIAQYYYIABBhjIuOr61/Oz+pFrfPDozPHII1Y88ogV"
    "j84cjzxixWN7j1ef/3s+f6In7zLxLpNM5iGTTOYhE+8yOWMy7Zjp6vf/73rsUR9Fkyc5sefJeeBJTux5wh57npwHnqLmjFIX"
    "2bt58S4z77zLzLuzxjvvMvPOu8yt6z4ya2q8RK7hlVdnnFde5ePVueGVV/l45VW+Fb228Os+9j0G7jEwc/fOgHtnwL0z4N7M"
    "3a99v3otNtjgig022GCDjVpscMUGG2x2Z/O/v/8/V3uE/xXWZJJXXpnklUleM5RJXnllklemJ/P++nw9vj073l5Tw3WaNGnS"
    "pDmPJjY0adKkSZOmn/8099I8TtZztGu+phtTFxO6dOliQpeu9zRdunTpYhJXt+Tzf0lfWn218DE3WviYGy1zw5qWudHCx9xo"
    "tb6/86ylFq9YYIEFFlhggYW58YoFFlhggUXbZ08+54knnnjiiSee8OCJJ5544oknntr3TjdqjgEa+sisjz76+J6hjz76yKyP"
    "Pvr4nqHPvT7v/yZAzZ8TjK6L4HH1OkywxBJLdbJhaQbqsMQSS3Wxs/XW4mM9H5jwwYf3Lh988OF7CB988OG9y8f8PmY6h67x"
    "1/vvf7hczqrL5ay6nFOXy1l1udY8q2c+e2eIro+RDPRlwIi+DBjRlwEjGTDCKEqGXJ2afrUeR/VSY0Z4qzEjM1JjRmpwwFuN"
    "GZmRmrb7Wu3RDwP9nCn9zFg/DPTDQD9nSj8z1q/dntr/L+AJXX7W8YOBmfDjjPDjjPDjjPCDAT/OCD99/ByZNZ577vk+z7Hw"
    "3HPvec8999z3As8999x7fvQzvdftja/eMuqtt4x6O9N66y2j3nqP7/O+nqNR27tnXVTt3fJiKS+WWMpLW15nR155scRS3rHa"
    "X19f1d29H9HjiZ566CGXHs6ZHno4y3roIZcezpkeEXq8/l4t9WjhgzUtmbCmZW608MGaFj5Y05prblef/61dr+FgJtbMxEys"
    "mZeZWDMTaziYibXZ55XTp7U3NXJjhRVWWMmNFVZYyY0VVljJPb5mRK8ZvuZbBr755ht7vvnmWwa++fYexX5X37W/B3C3bvc+"
    "GMpmVvrIhiGGGOojm1npg6FsT/RprR9hrzyyyyO7PLLLI7s8sssjuzyy7zTLnjxo0qRJkyZNmntoYkOTJk2aNGnG0Czt29Pz"
    "Ks/klFNOmeSUU06zk1NOOWWSU85ZctbqtPBC43kN/Gg41zRoOJM0nEkaNJxrGjT2OZN3+45em92fNWsyW3NmrVlzLq1Zw8Oa"
    "M2ttxrWzfRH3rJbHnOwxJzPAxZzsMQNzsseczMAec+q1J6dupr1Rfdu7/l487HU27bXXObbX2bTXXmfT3gjnokUtDRo0aNCY"
    "TwMXGjRo0KBBw89/GntpfL9anaWR51ZPTM1RT0zNUU9zxFRPc9QTU3PUM6/XExlXf8UAU2wxxQJTTDH1iim2mHrFdKbX363X"
    "xk8="
)


def _table(packed: str) -> np.ndarray:
    return np.frombuffer(zlib.decompress(base64.b64decode(packed)), np.int32).cumsum(dtype=np.int64)


T32 = _table(_T32).astype(np.uint32)
T64 = _table(_T64).astype(np.uint64) << np.uint64(36)


def estimate_f32(y: np.ndarray) -> np.ndarray:
    """``rsqrtss`` of float32 ``y`` (denormals flushed)."""
    b = np.ascontiguousarray(y, f32).view(np.uint32)
    e = (b >> 23) & 0xFF
    odd = (e & 1) ^ 1  # (exponent - 127) & 1: 1.m * 2**odd in [1, 4), times 4**q
    q = (e.astype(np.int64) - 127 - odd) >> 1
    r = (T32[(odd << 12) | ((b >> 11) & 0xFFF)].astype(np.int64) - (q << 23)).astype(np.uint32).view(f32)
    return _specials(b.view(f32), r, e == 0, e == 0xFF, b >> 31, np.uint32(0x00400000))


def estimate_f64(y: np.ndarray) -> np.ndarray:
    """``vrsqrt14sd`` of float64 ``y`` (denormals flushed)."""
    b = np.ascontiguousarray(y, f64).view(np.uint64)
    e = ((b >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    odd = (e & 1) ^ 1
    q = (e - 1023 - odd) >> 1
    idx = (odd << 15) | ((b >> np.uint64(37)) & np.uint64(0x7FFF)).astype(np.int64)
    r = (T64[idx].view(np.int64) - (q << 52)).view(f64)
    return _specials(b.view(f64), r, e == 0, e == 0x7FF, b >> np.uint64(63), np.uint64(1 << 51))


def _specials(y, r, zero, top, sign, quiet_bit):
    isnan = np.isnan(y)
    inf, nan = np.asarray(np.inf, r.dtype), np.asarray(-np.nan, r.dtype)  # (x86's default NaN is negative)
    r = np.where(zero, np.where(sign == 1, -inf, inf), r)
    r = np.where(top & (sign == 0), np.zeros((), r.dtype), r)
    r = np.where((sign == 1) & ~zero, nan, r)
    return np.where(isnan, (y.view(quiet_bit.dtype) | quiet_bit).view(r.dtype), r)


def _refine(y, r, fma):
    return fma(r * r.dtype.type(0.5), fma(-(y * r), r, r.dtype.type(1)), r)


def rsqrt(y: np.ndarray) -> np.ndarray:
    """XLA's ``rsqrt`` of a float32 or float64 array: by the numba loops where numba is installed,
    else by numpy's steps.

      >>> float(rsqrt(np.float32(2.0)))
      0.7071067690849304
    """
    y = np.asarray(y)
    try:
        from ..backends.numba_rsqrt import rsqrt_array
    except ImportError:
        return rsqrt_f32(y) if y.dtype == f32 else rsqrt_f64(y)
    return rsqrt_array(y)


def rsqrt_f32(y: np.ndarray) -> np.ndarray:
    """The estimate and one Newton step, in numpy."""
    y = np.asarray(y, f32)
    with np.errstate(all="ignore"):
        r = estimate_f32(y)
        return np.where(np.isfinite(r) & (r != 0), _refine(y, r, _fma32), r)


def rsqrt_f64(y: np.ndarray) -> np.ndarray:
    """The estimate and two Newton steps, in numpy (long double fused multiply-adds, which round
    twice on ~1 input in 2500: numba's loops are exact)."""
    y = np.asarray(y, f64)
    with np.errstate(all="ignore"):
        r = estimate_f64(y)
        return np.where(np.isfinite(r) & (r != 0), _refine(y, _refine(y, r, _fma64), _fma64), r)


def _fma32(a, b, c):
    # the float32 product is exact in float64, so only the sum rounds (a true fma's bits but on
    # about one input in 2**29, where rounding twice differs)
    return (np.asarray(a, f64) * np.asarray(b, f64) + np.asarray(c, f64)).astype(f32)


def _fma64(a, b, c):
    ld = np.longdouble
    return (np.asarray(a, ld) * np.asarray(b, ld) + np.asarray(c, ld)).astype(f64)
