"""``clamp(min, x, max)``: a ternary elementwise op whose bounds may be scalars (JAX's shape and
dtype rules and messages), with its derivative and batching rules."""

from __future__ import annotations

import numpy as np

from .. import batching, core
from ..ad import defjvp
from ..core import Primitive
from . import elementwise as ew

clamp_p = Primitive("clamp")


@clamp_p.def_impl
def _clamp_impl(lo, x, hi):
    _check_clamp_shape("min", lo.shape, x.shape)  # (eager evaluation may skip abstract evaluation)
    _check_clamp_shape("max", hi.shape, x.shape)
    return np.minimum(np.maximum(x, lo), hi).astype(x.dtype)


@clamp_p.def_abstract_eval
def _clamp_abstract(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.dtype != x.dtype:
            raise TypeError(
                f"lax.clamp requires arguments to have the same dtypes, got "
                f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}."
            )
        _check_clamp_shape(name, b.shape, x.shape)
    return x


def _check_clamp_shape(name, bound_shape, shape):
    if bound_shape not in ((), shape):
        raise TypeError(
            f"clamp requires {name}.shape == operand.shape or {name}.shape == (), got "
            f"{name}.shape={tuple(bound_shape)}, operand.shape={tuple(shape)}."
        )


def _bcast_like(g, x):
    lax = ew._lax()
    return g if g.shape == x.shape else lax.broadcast_in_dim(g, x.shape, ())


def _clamp_jvp_lo(g, lo, x, hi):
    lax = ew._lax()
    return ew.select(lax.bitwise_and(lax.gt(lo, x), lax.lt(lo, hi)), _bcast_like(g, x), ew.full_like(x, 0))


def _clamp_jvp_x(g, lo, x, hi):
    lax = ew._lax()
    return ew.select(lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi)), g, ew.full_like(x, 0))


def _clamp_jvp_hi(g, lo, x, hi):
    return ew.select(ew._lax().lt(hi, x), _bcast_like(g, x), ew.full_like(x, 0))


defjvp(clamp_p, _clamp_jvp_lo, _clamp_jvp_x, _clamp_jvp_hi)


def _clamp_batch(size, vals, dims):
    lo, x, hi = vals
    dlo, dx, dhi = dims
    if dlo is batching.not_mapped and dhi is batching.not_mapped and np.ndim(lo) == np.ndim(hi) == 0:
        return clamp_p.bind(lo, x, hi), dx  # scalar bounds apply to every batch member
    x = batching.bdim_at_front(x, dx, size)
    shape = core.get_aval(x).shape

    def bound(b, d):
        if d is batching.not_mapped:
            return b if np.ndim(b) == 0 else ew._lax().broadcast_in_dim(b, shape, tuple(range(1, len(shape))))
        b = batching.moveaxis(b, d, 0)
        return b if core.get_aval(b).shape == shape else ew._lax().broadcast_in_dim(b, shape, (0,))

    return clamp_p.bind(bound(lo, dlo), x, bound(hi, dhi)), 0


batching.batch_rules[clamp_p] = _clamp_batch
