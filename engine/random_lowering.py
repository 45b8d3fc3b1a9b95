"""Programs on typed keys, rewritten for compiled code: every ``key<fry>[s]`` value becomes its
``u32[s, 2]`` data, and every equation on keys the same computation on that data.

The numba backend's kernels know numeric dtypes only. A program whose jaxpr has key values is
re-traced here before code generation: the key primitives run their physical rules
(``random_primitives.physical_rules``: ``threefry2x32`` and lax on the data), structural
operations on keys (slicing, reshaping, broadcasting, stacking, selecting) gain a trailing axis of
size 2, and nested ``jit`` calls are inlined (the backend inlines them anyway). A program with an
operation on keys that has no rule here raises ``NotImplementedError``, and the backend runs that
program with the interpreter. Control flow (``cond``, ``while``, ``scan``) carries key data in its
physical bodies.

  >>> import engine as jax
  >>> closed = jax.make_jaxpr(lambda k: jax.random.bits(k, (2,)))(jax.random.key(0))
  >>> physical_program(closed).jaxpr.in_avals
  [ShapedArray(uint32[2])]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import core, ir, lax
from . import random_keys as rk
from .ir import ClosedJaxpr, Jaxpr, Literal
from .lax import slicing, structural as st
from .random_primitives import physical_rules
from .staging import trace_to_jaxpr

_U32 = np.dtype(np.uint32)


def has_keys(jaxpr: Jaxpr, is_key=rk.is_key_aval) -> bool:
    """Whether any value of ``jaxpr`` (or of a jaxpr nested in it) is a typed key (``is_key``)."""
    if any(is_key(v.aval) for v in jaxpr.in_binders):
        return True
    for eqn in jaxpr.eqns:
        if any(is_key(v.aval) for v in eqn.out_binders):
            return True
        for sub in ir.subjaxprs(eqn):
            if has_keys(sub, is_key):
                return True
    return False


def _is_bit_generator_key(aval) -> bool:
    return rk.is_key_aval(aval) and aval.dtype != rk.key_dtype


def physical_aval(aval):
    return core.ShapedArray((*aval.shape, 2), _U32) if rk.is_key_aval(aval) else aval


def physical_value(x):
    """A key array's data (as an ``Array``); anything else as it is."""
    if isinstance(x, rk.PRNGKeyArray):
        return core.Array(x.data)
    return x


def physical_program(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program on key data: inputs and outputs that were keys are their ``uint32[..., 2]`` data."""
    jaxpr = closed.jaxpr
    if has_keys(jaxpr, _is_bit_generator_key):
        raise NotImplementedError("rbg and unsafe_rbg keys (XLA's bit generator) have no compiled code")
    consts = [physical_value(c) for c in closed.consts]

    def run(*args):
        return _eval(jaxpr, consts, list(args))

    return trace_to_jaxpr(run, [physical_aval(v.aval) for v in jaxpr.in_binders])


def _eval(jaxpr: Jaxpr, consts, args) -> list:
    env: dict = {}

    def read(x):
        return physical_value(x.val) if type(x) is Literal else env[x]

    for v, val in zip(jaxpr.constvars, consts):
        env[v] = val
    for v, val in zip(jaxpr.in_binders, args):
        env[v] = val
    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        with core.source_info_context(eqn.source_info):
            outs = _physical_eqn(eqn, ins)
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


def _physical_eqn(eqn, ins) -> list:
    p = eqn.primitive
    keyed = any(rk.is_key_aval(v.aval) for v in (*eqn.inputs, *eqn.out_binders))
    subs = list(ir.subjaxprs(eqn))
    if not keyed and not any(has_keys(s) for s in subs):
        outs = p.bind(*ins, **eqn.params)
        return outs if p.multiple_results else [outs]
    if p.name == "jit":  # inline the call: its body runs on the same data
        inner = eqn.params["jaxpr"]
        return _eval(inner.jaxpr, [physical_value(c) for c in inner.consts], ins)
    if p in physical_rules:
        return [physical_rules[p](*ins, **eqn.params)]
    if p in _structural_rules:
        return [_structural_rules[p](eqn, *ins)]
    if subs:  # control flow (cond, while, scan): the same equation over physical bodies
        params = {k: _physical_param(p, v) for k, v in eqn.params.items()}
        outs = p.bind(*ins, **params)
        return outs if p.multiple_results else [outs]
    raise NotImplementedError(f"no rule for {p.name} on typed PRNG keys in compiled code")


def _physical_param(p, v):
    if isinstance(v, (tuple, list)):
        return type(v)(_physical_param(p, w) for w in v)
    if isinstance(v, Jaxpr):
        if has_keys(v):
            raise NotImplementedError(f"no rule for {p.name} with an open body on typed PRNG keys")
        return v
    if not isinstance(v, ClosedJaxpr) or not has_keys(v.jaxpr):
        return v
    physical = physical_program(v)
    if len(physical.consts) != len(v.consts):  # (bodies whose constants are operands stay so)
        raise NotImplementedError(f"no rule for {p.name} whose body gains constants on key data")
    return physical


def _trail(dims) -> tuple:
    return (*dims, len(dims))


def _slice(eqn, x):
    pr = eqn.params
    strides = pr.get("strides")
    return slicing.slice_p.bind(
        x,
        start_indices=(*pr["start_indices"], 0),
        limit_indices=(*pr["limit_indices"], 2),
        strides=None if strides is None else (*strides, 1),
    )


def _broadcast_in_dim(eqn, x):
    shape = eqn.params["shape"]
    return lax.broadcast_in_dim(x, (*shape, 2), (*eqn.params["broadcast_dimensions"], len(shape)))


def _select_n(eqn, which, *cases):
    shape = core.get_aval(cases[0]).shape
    if core.get_aval(which).shape:
        which = lax.broadcast_in_dim(which, shape, tuple(range(len(shape) - 1)))
    return lax.select_n(which, *cases)


def _dynamic_slice(eqn, x, *idx):
    zero = core.Array(np.zeros((), core.get_aval(idx[0]).dtype if idx else np.int32))
    return slicing.dynamic_slice_p.bind(x, *idx, zero, slice_sizes=(*eqn.params["slice_sizes"], 2))


def _dynamic_update_slice(eqn, x, update, *idx):
    zero = core.Array(np.zeros((), core.get_aval(idx[0]).dtype if idx else np.int32))
    return slicing.dynamic_update_slice_p.bind(x, update, *idx, zero)


def _gather(eqn, x, idx):
    pr = eqn.params
    dn = pr["dimension_numbers"]
    out_rank = len(eqn.out_binders[0].aval.shape)
    dn = dn._replace(offset_dims=(*dn.offset_dims, out_rank))
    return slicing.gather_p.bind(
        x, idx, **{**pr, "dimension_numbers": dn, "slice_sizes": (*pr["slice_sizes"], 2)}
    )


def _scatter(eqn, x, idx, updates):
    pr = eqn.params
    dn = pr["dimension_numbers"]
    rank = len(eqn.inputs[2].aval.shape)  # the updates' key axes; the key data axis follows them
    dn = dn._replace(update_window_dims=(*dn.update_window_dims, rank))
    return slicing.scatter_p.bind(x, idx, updates, **{**pr, "dimension_numbers": dn})


def _equality(eqn, x, y):
    """Keys are equal where all their words are (JAX's ``eq``/``ne`` of keys)."""
    shape = (*eqn.out_binders[0].aval.shape, 2)
    x, y = (
        lax.broadcast_in_dim(v, shape, tuple(range(len(shape) - core.get_aval(v).ndim, len(shape))))
        for v in (x, y)
    )
    if eqn.primitive is lax.eq_p:
        return lax.reduce_and(lax.eq(x, y), (len(shape) - 1,))
    return lax.reduce_or(lax.ne(x, y), (len(shape) - 1,))


_structural_rules: dict[core.Primitive, Callable] = {
    lax.eq_p: _equality,
    lax.ne_p: _equality,
    slicing.slice_p: _slice,
    st.squeeze_p: lambda eqn, x: lax.squeeze(x, eqn.params["dimensions"]),
    st.reshape_p: lambda eqn, x: lax.reshape(
        x,
        (*eqn.params["new_sizes"], 2),
        _trail(eqn.params["dimensions"]) if eqn.params.get("dimensions") else None,
    ),
    st.broadcast_in_dim_p: _broadcast_in_dim,
    st.transpose_p: lambda eqn, x: lax.transpose(x, _trail(eqn.params["permutation"])),
    st.concatenate_p: lambda eqn, *xs: lax.concatenate(list(xs), eqn.params["dimension"]),
    st.select_n_p: _select_n,
    st.rev_p: lambda eqn, x: lax.rev(x, eqn.params["dimensions"]),
    lax.copy_p: lambda eqn, x: x,
    slicing.dynamic_slice_p: _dynamic_slice,
    slicing.dynamic_update_slice_p: _dynamic_update_slice,
    slicing.gather_p: _gather,
    slicing.scatter_p: _scatter,
}
