"""The eager tape's cached jaxprs as straight-line steps on numpy values.

The tape (``tape.py``) evaluates a small forward jaxpr per operation as the function runs and a
backward one per operation in the pullback. Through ``EvalTrace`` each equation pays for checks
that depend only on the dtypes and weak types of its operands (narrow dtypes, the output's weak
type, wrapping into an ``Array``): about 4 us, where numpy's own work on a scalar is under 1 us.
Given the dtypes and weak types of a jaxpr's inputs, those checks are decided once, when its
*plan* is made: each step then calls the primitive's impl on the values and checks only that the
impl returned the dtype the jaxpr says (else the whole jaxpr is evaluated the general way, which
then decides everything per equation, as before). Only the jaxpr's outputs become ``Array``s,
with the weak types ``EvalTrace`` would give them (the same rule, applied to the planned types).

Plans are kept per input signature on the jaxpr's owner (the tape's cache entry) and made only for
jaxprs whose values all have plain numpy dtypes (no narrow or extended dtypes) and whose
primitives take numpy operands and decide weak types from them (``EvalTrace``'s common case).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import core
from .core import Array, ShapedArray, impl_rules, made_held
from .invalid_values import active as _debug_values
from .ir import ClosedJaxpr, Literal
from .narrow_dtypes import kind as dtype_kind
from .transfers import active as _transfer_guarded

_SCALARS = (bool, int, float, complex)
_new = object.__new__
_PLAIN_KINDS = "biufc"  # numpy's kinds that need no narrow or extended handling


class Plan:
    """Steps over a list of slots: the jaxpr's consts and literals first, then its inputs
    (``init[in_start:in_stop]``), then each equation's outputs. ``outs``: per output,
    ``(_WRAP, slot, aval)`` (the ``Array.aval`` it will have, if its shape is the jaxpr's), or ``(_INPUT, i, None)`` / ``(_CONST, value, None)`` for an input or
    a const handed back as it was given (as the general evaluation hands them back), or
    ``(_SAME, j, None)`` for a value that output ``j`` already hands back."""

    __slots__ = ("init", "in_start", "in_stop", "steps", "outs")

    def __init__(self, init, in_start, in_stop, steps, outs):
        self.init, self.in_start, self.in_stop, self.steps, self.outs = init, in_start, in_stop, steps, outs


_WRAP, _INPUT, _CONST, _SAME = 0, 1, 2, 3


class _Unplanned(Exception):
    """An impl returned something its plan did not foresee: evaluate the general way."""


def _keeps_dtype(out: np.dtype, first: np.dtype) -> bool:
    # EvalTrace's _keeps_dtype: equal dtypes, or both inexact
    return out == first or (dtype_kind(out) in "fc" and dtype_kind(first) in "fc")


def make_plan(closed: ClosedJaxpr, sig: tuple) -> Plan | None:
    """The plan of ``closed`` for inputs of ``sig`` (``(dtype, weak)`` each), or None where some
    equation needs ``EvalTrace``'s per-call decisions."""
    jaxpr = closed.jaxpr
    slot: dict[Any, int] = {}  # Var, or id() of a Literal -> slot
    init: list[Any] = []
    types: list[tuple[np.dtype, bool]] = []

    def const_slot(v) -> int | None:
        if type(v) is Array:
            val, weak = v._value, v.weak_type
        elif type(v) in _SCALARS or type(v) is np.ndarray or isinstance(v, np.generic):
            val, weak = core.to_numpy(v), core.is_weak(v)
        else:
            return None
        if dtype_kind(val.dtype) not in _PLAIN_KINDS:
            return None
        init.append(val)
        types.append((val.dtype, weak))
        return len(init) - 1

    consts = {}
    for var, c in zip(jaxpr.constvars, closed.consts):
        i = const_slot(c)
        if i is None:
            return None
        slot[var], consts[var] = i, c
    for eqn in jaxpr.eqns:
        for x in eqn.inputs:
            if type(x) is Literal and id(x) not in slot:
                i = const_slot(x.val)
                if i is None:
                    return None
                slot[id(x)] = i
    in_start = len(init)
    for var, (dtype, weak) in zip(jaxpr.in_binders, sig):
        if dtype_kind(dtype) not in _PLAIN_KINDS:
            return None
        slot[var] = len(init)
        types.append((dtype, weak))
        init.append(None)
    in_stop = len(init)
    steps = []
    for eqn in jaxpr.eqns:
        p = eqn.primitive
        impl = impl_rules.get(p)
        if (
            impl is None
            or p.takes_arrays
            or p.weak_from_abstract_eval
            or p.defined_outside_engine
            or any(dtype_kind(v.aval.dtype) not in _PLAIN_KINDS for v in eqn.out_binders)
        ):
            return None
        idx = tuple(slot[id(x)] if type(x) is Literal else slot[x] for x in eqn.inputs)
        weak = eqn.params.get("weak_type")
        if weak is None:  # EvalTrace's rule: weak where every operand is
            weak = bool(idx) and all(types[i][1] for i in idx)
        outs = []
        for v in eqn.out_binders:
            d = v.aval.dtype
            keep = bool(weak) and (
                (p.keeps_weak_type and not p.multiple_results) or _keeps_dtype(d, types[idx[0]][0])
            )
            slot[v] = len(init)
            types.append((d, keep))
            init.append(None)
            outs.append((slot[v], d))
        # (the first two operands' slots apart: most impls take one or two, called without a list)
        a0, a1 = (idx + (0, 0))[:2]
        steps.append((impl, len(idx), a0, a1, idx, eqn.params, p.multiple_results, tuple(outs)))
    in_pos = {var: k for k, var in enumerate(jaxpr.in_binders)}
    out_plan: list[tuple[int, Any, Any]] = []
    wrapped: dict[int, int] = {}  # slot -> the output wrapping it
    for x in jaxpr.outs:
        if type(x) is Literal:
            return None
        if x in in_pos:
            out_plan.append((_INPUT, in_pos[x], None))
        elif x in consts:
            out_plan.append((_CONST, consts[x], None))
        elif slot[x] in wrapped:  # (one Array, as the general way's)
            out_plan.append((_SAME, wrapped[slot[x]], None))
        else:
            wrapped[slot[x]] = len(out_plan)
            dtype, weak = types[slot[x]]
            out_plan.append((_WRAP, slot[x], ShapedArray(x.aval.shape, dtype, weak)))
    return Plan(init, in_start, in_stop, steps, out_plan)


def run(closed: ClosedJaxpr, plans: dict, args) -> list | None:
    """``closed`` evaluated on the concrete ``args`` as ``EvalTrace`` would, by its plan for their
    types (made on first use, kept in ``plans``); None where the general way must do it."""
    if _transfer_guarded[0] or _debug_values[0]:
        return None
    vals = []
    sig = []
    for a in args:
        t = type(a)
        if t is Array:
            v = a._value
            sig.append((v.dtype, a.weak_type))
        elif t in _SCALARS or t is np.ndarray:
            v = core.to_numpy(a)
            sig.append((v.dtype, t in _WEAK_SCALARS))
        else:
            return None
        vals.append(v)
    key = tuple(sig)
    plan = plans.get(key, False)
    if plan is False:
        if len(plans) >= 8:
            plans.clear()
        plan = plans[key] = make_plan(closed, key)
    if plan is None:
        return None
    env = list(plan.init)
    env[plan.in_start : plan.in_stop] = vals
    try:  # (loops written out: in this hot path a comprehension costs a call of its own)
        for impl, n, a0, a1, idx, params, multiple, outs in plan.steps:
            if n == 1:
                r = impl(env[a0], **params)
            elif n == 2:
                r = impl(env[a0], env[a1], **params)
            else:
                r = impl(*[env[i] for i in idx], **params)
            if not multiple:
                r = (r,)
            elif len(r) != len(outs):
                raise _Unplanned
            for (i, d), o in zip(outs, r):
                if type(o) is not np.ndarray:
                    if not isinstance(o, np.generic):
                        raise _Unplanned
                    o = np.asarray(o)
                if o.dtype != d:
                    raise _Unplanned
                env[i] = o
    except _Unplanned:
        return None
    results = []
    for k, a, b in plan.outs:
        if k == _WRAP:
            # An impl's result of the planned (canonical) dtype: nothing for Array.__init__ to
            # check; its value is marked read-only when handed out, as the eager operators' are.
            # Its aval is the planned one, as Array.aval would make it, unless the shape differs.
            out = _new(Array)
            value = out._value = env[a]
            out.weak_type, out._aval = b.weak_type, b if value.shape == b.shape else None
            out.held = made_held()
        else:
            out = args[a] if k == _INPUT else results[a] if k == _SAME else a
        results.append(out)
    return results


_WEAK_SCALARS = (int, float, complex)
