"""Exponentially scaled modified Bessel functions of orders 0 and 1 (JAX's lax.bessel_i0e and
lax.bessel_i1e), one primitive each.

The kernels evaluate in float64 — the power series up to |x| = 50 (all terms positive, so no
cancellation), Hankel's asymptotic expansion beyond (its terms shrink until k ~ 2|x|, far past
double precision) — and round to the operand's dtype. Derivatives are JAX's rules.

>>> bessel_i0e(0.0)
Array(1., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import math

import numpy as np

from .. import ad
from . import elementwise as ew
from .special import _vectorized

_SERIES_UP_TO = 50.0


def _scaled_bessel(order: int, x: float) -> float:
    """``exp(-|x|) I_order(x)`` for order 0 or 1."""
    if math.isnan(x):
        return x
    ax = abs(x)
    if math.isinf(ax):
        return 0.0 if order == 0 else math.copysign(0.0, x)
    if ax <= _SERIES_UP_TO:
        half_sq, term = (ax / 2) ** 2, (ax / 2) ** order / math.factorial(order)
        total, k = term, 0
        while term > total * 1e-17:
            k += 1
            term *= half_sq / (k * (k + order))
            total += term
        value = total * math.exp(-ax)
    else:
        mu, term, total, k = 4.0 * order * order, 1.0, 1.0, 0
        while True:
            k += 1
            nxt = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * ax)
            if abs(nxt) >= abs(term) or abs(nxt) < 1e-17 * abs(total):
                break
            term = nxt
            total += term
        value = total / math.sqrt(2 * math.pi * ax)
    return -value if (order == 1 and x < 0) else value


def _i0e(x):
    return _scaled_bessel(0, x)


def _i1e(x):
    return _scaled_bessel(1, x)


bessel_i0e_p = ew.unop("bessel_i0e", _vectorized(_i0e, 1))
bessel_i1e_p = ew.unop("bessel_i1e", _vectorized(_i1e, 1))


def bessel_i0e(x):
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``."""
    return bessel_i1e_p.bind(x)


def _api():
    from . import api

    return api


ad.defjvp2(bessel_i0e_p, lambda g, y, x: ew.mul(g, ew.sub(bessel_i1e(x), ew.mul(_api().sign(x), y))))


def _bessel_i1e_jvp(g, y, x):
    api = _api()
    eps = np.finfo(api._aval(x).dtype).eps
    not_tiny = api.abs(x) > eps  # a scalar literal in the comparison, as JAX's
    safe_x = api.select(not_tiny, x, api.full_like(x, eps))
    dy_dx = ew.sub(bessel_i0e(safe_x), ew.mul(y, ew.add(api.sign(safe_x), api.integer_pow(safe_x, -1))))
    return ew.mul(g, api.select(not_tiny, dy_dx, api.full_like(x, 0.5)))


ad.defjvp2(bessel_i1e_p, _bessel_i1e_jvp)
