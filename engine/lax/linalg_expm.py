"""``expm``: the matrix exponential of the last two axes (scaling and squaring with Pade 13,
Higham 2005), and its Frechet derivative L(a, e), linear in e, which is expm's JVP.
L(a, .)^T = L(a^T, .). Computed in float64 by numpy, as the other factorizations (numba has no
lowering for them)."""

from __future__ import annotations

import numpy as np

from .. import ad
from ..core import Primitive
from .linalg import _batch_leading, _check_matrix, _real_only, _T


_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)


def _expm_one(a):
    n = a.shape[-1]
    norm = np.abs(a).sum(0).max() if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 5.371920351148152)))) if norm > 0 else 0
    a = a / 2.0**s
    b = _PADE13
    ident = np.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def _expm_np(x):
    x64 = x.astype(np.float64)
    flat = x64.reshape(-1, *x.shape[-2:])
    out = np.stack([_expm_one(m) for m in flat]) if flat.shape[0] else flat
    return out.reshape(x.shape)


def _expm_impl(x):
    with np.errstate(all="ignore"):
        return _expm_np(x).astype(x.dtype)


def _expm_frechet_impl(a, e):
    n = a.shape[-1]
    block = np.zeros((*a.shape[:-2], 2 * n, 2 * n))
    block[..., :n, :n] = a
    block[..., n:, n:] = a
    block[..., :n, n:] = e
    with np.errstate(all="ignore"):
        return _expm_np(block)[..., :n, n:].astype(e.dtype)


expm_p = Primitive("expm")
expm_p.def_impl(_real_only("expm", _expm_impl))
expm_frechet_p = Primitive("expm_frechet")
expm_frechet_p.def_impl(_real_only("expm_frechet", _expm_frechet_impl))


@expm_p.def_abstract_eval
def _expm_abstract(x):
    _check_matrix("expm", x)
    return x.strip_weak_type()


@expm_frechet_p.def_abstract_eval
def _expm_frechet_abstract(a, e):
    _check_matrix("expm_frechet", a)
    if a.shape != e.shape or a.dtype != e.dtype:
        raise TypeError(f"expm_frechet requires a and e of one shape and dtype, got {a} and {e}.")
    return e.strip_weak_type()


def _expm_jvp(primals, tangents):
    (a,), (e,) = primals, tangents
    return expm_p.bind(a), expm_frechet_p.bind(a, ad.instantiate_zeros(e))


def _expm_frechet_jvp(primals, tangents):
    a, e = primals
    ta, te = tangents
    out = expm_frechet_p.bind(a, e)
    if type(ta) is not ad.Zero:
        raise NotImplementedError(
            "expm: derivatives of second order (through the Frechet derivative) are not implemented."
        )
    return out, expm_frechet_p.bind(a, ad.instantiate_zeros(te))


def _expm_frechet_transpose(ct, a, e):
    assert not ad.is_undefined(a) and ad.is_undefined(e)
    if type(ct) is ad.Zero:
        return [None, ad.Zero(e.aval)]
    return [None, expm_frechet_p.bind(_T(a), ct)]


ad.jvp_rules[expm_p] = _expm_jvp
ad.jvp_rules[expm_frechet_p] = _expm_frechet_jvp
ad.transpose_rules[expm_frechet_p] = _expm_frechet_transpose
_batch_leading(expm_p)
_batch_leading(expm_frechet_p)


def expm(x):
    """The matrix exponential ``sum_k x^k / k!`` of the last two axes."""
    return expm_p.bind(x)
