"""The tangents and cotangents of operands an elementwise operation broadcasts implicitly (a scalar,
a size-1 dimension): broadcast to the result (JAX's ``_maybe_broadcast``) and summed back
(``_unbroadcast``), and on an explicit mesh laid out as JAX's types say (a tangent as its result,
a cotangent as its operand)."""

from __future__ import annotations

from .. import ad, backward_pass, core


def _lax():
    from . import api

    return api


def to_shape(t, shape, primal=None, out=None):
    """A scalar (or size-1 broadcast) operand's tangent, broadcast to the result's shape; given
    the ``primal`` operand and the result ``out`` on an explicit mesh, laid out as the result is
    (JAX's ``_maybe_broadcast`` to ``typeof(out).sharding``: a ``reshard`` where only that differs)."""
    t_shape = core.get_aval(t).shape
    layout = _result_layout(primal, out) if isinstance(out, core.Tracer) else None
    lax = _lax()
    if t_shape == shape:
        if layout is None or layout == _staged_layout(primal):
            return t
        from ..sharding import reshard

        return reshard(t, layout)
    if not t_shape:
        return lax.broadcast_in_dim(t, shape, (), out_sharding=layout)
    # (JAX's _maybe_broadcast: the size-1 axes reshaped away, the rest mapped)
    dims = tuple(i for i, (a, b) in enumerate(zip(t_shape, shape)) if a == b)
    return lax.broadcast_in_dim(
        lax.reshape(t, tuple(t_shape[i] for i in dims)), shape, dims, out_sharding=layout
    )


def _staged_layout(x):
    from ..sharded_types import staged_layout  # (a cycle if imported at the top)

    return staged_layout(x) if isinstance(x, core.Tracer) else getattr(x, "sharding", None)


def _result_layout(primal, out):
    """The layout of ``out`` where it may differ from its operand ``primal``'s, on an explicit mesh."""
    from ..sharding import get_abstract_mesh

    if not get_abstract_mesh().explicit_axes:
        return None
    return _staged_layout(out)


def unbroadcast(ct, operand):
    """The cotangent of an operand that was implicitly broadcast: summed back to its shape (JAX's)."""
    aval = operand.aval if ad.is_undefined(operand) else core.get_aval(operand)
    ct_shape = core.get_aval(ct).shape
    lax = _lax()
    if aval.shape == ct_shape:
        # (on an explicit mesh, laid out as the operand where the result's layout differs: JAX's
        # reshape to the operand's type)
        layout, have = getattr(aval, "sharding", None), backward_pass.out_layout()
        if layout is None or have is None or layout._normalized(aval.ndim) == have._normalized(aval.ndim):
            return ct
        return lax.reshape(ct, aval.shape, out_sharding=layout)
    if not aval.shape:
        return lax.reduce_sum(ct, tuple(range(len(ct_shape))))
    dims = tuple(i for i, (a, b) in enumerate(zip(ct_shape, aval.shape)) if a != b)
    from ..sharded_types import context_sharding  # (a cycle if imported at the top)

    # (laid out as the operand, when its type says a layout: JAX's out_sharding=aval.sharding)
    layout = getattr(aval, "sharding", None) or context_sharding(len(aval.shape))
    return lax.reshape(lax.reduce_sum(ct, dims), aval.shape, out_sharding=layout)
