"""Loops over small arrays compiled whole: a ``scan``/``fori_loop`` body whose values are all
small (an ODE's state ``f32[2]``, a vmapped one's ``f32[5, 2]``, an RNN's few hidden units)
becomes straight-line scalar code, every element of every value its own scalar, and the loop one
kernel holding its carries in registers.

Why: such a body, compiled as its own program (``numba_loops._sub``), is a handful of kernels for
the body, each a numba compile (a first call of an RK4 loop paid ~8 of them, seconds under
load), driven by a host loop that calls a few dozen tiny kernels per step. Unrolled, the loop is
one kernel to compile and its steps cost nanoseconds.

Values are numpy object arrays of scalar expressions, shaped as the value. Each row kind of the
lowering table (``lowering``) has its rule here, applied at constant indices: ``Scalar`` rows per
element (rounded per operation, as the loop nests of the body's own program are), ``Mapped`` and
``Index`` rows (slices, broadcasts, pads, concatenations) pick elements at indices their
expansion evaluates to constants (an index that depends on a computed value declines), and a
float ``reduce_sum`` accumulates in float64 in the order of the loop nest's reduction. Anything
else declines, and the loop is compiled as before.
"""

from __future__ import annotations

import re

import numpy as np

from .. import core
from ..lax import structural as st
from ..ir import ClosedJaxpr, Literal
from . import lowering as L
from .flat_program import FlatProgram
from .numba_codegen import _FAST, _ordered_sum
from .numba_loops import _loop_kernel

MAX_ELEMENTS = 64  # per value: beyond, unrolled code grows faster than a loop nest compiles
# Per body, after dropping dead lines: numba compiles ~300 lines a second, the body's own
# program a few kernels (~0.2 s each); beyond, the loop is compiled as before.
MAX_LINES = 500


class _Decline(Exception):
    pass


def _const_index(expr: str) -> int:
    """An index expression of constants (``min(max(0 + 1, 0), 1)``) as its value; generated
    text only (indices, never user strings), so evaluating it is safe."""
    try:
        return int(eval(expr, {"__builtins__": {}, "min": min, "max": max, "np": np}))  # noqa: S307
    except Exception as e:
        raise _Decline from e


class UnrolledBody:
    """A body jaxpr over small arrays as straight-line scalar code in ``lines``; ``outs`` holds
    each output as an object array of element expressions. ``ok`` is False when some equation
    has no unrolled rule (the caller compiles the loop otherwise)."""

    def __init__(self, gen, closed: ClosedJaxpr, in_vals: list[np.ndarray]):
        self.gen, self.lines, self.ok, self.outs = gen, [], False, []
        self._seen: dict[str, str] = {}  # expression -> the name it was given
        flat = FlatProgram(closed, body=True)  # (as the body's own program is flattened: same contractions)
        env = dict(zip(flat.inputs, in_vals))
        try:
            for v, c in flat.consts.items():
                env[v] = self._literal(core.to_numpy(c), v.aval)
            read = lambda x: self._literal(x.val, x.aval) if type(x) is Literal else env[x]
            for eqn in flat.eqns:
                outs = self.eqn(eqn, [read(x) for x in eqn.inputs])
                env.update(zip(eqn.out_binders, outs))
                if len(self.lines) > 4 * MAX_LINES:  # (before dead lines are dropped)
                    raise _Decline
            self.outs = [read(x) for x in flat.outs]
            self.lines = _live(self.lines, self.outs)
            if len(self.lines) > MAX_LINES:
                raise _Decline
        except _Decline:
            return
        self.ok = True

    def _literal(self, val, aval) -> np.ndarray:
        if not L.supported(aval.dtype) or aval.size > MAX_ELEMENTS:
            raise _Decline
        vals = np.broadcast_to(
            np.asarray(core.to_numpy(val) if isinstance(val, core.Array) else val), aval.shape
        )
        out = np.empty(aval.shape, object)
        for idx in np.ndindex(*aval.shape):
            out[idx] = L.literal(vals[idx], aval.dtype)
        return out

    def _define(self, expr: str, dtype) -> str:
        line = f"{L.cast(dtype)}({expr})"
        if line not in self._seen:  # (the same pure expression again, e.g. each RK stage's -k: named once)
            self._seen[line] = self.gen.fresh("s")
            self.lines.append(f"{self._seen[line]} = {line}")
        return self._seen[line]

    def eqn(self, eqn, ins: list[np.ndarray]) -> list[np.ndarray]:
        vs = [*eqn.inputs, *eqn.out_binders]
        if any(v.aval.size > MAX_ELEMENTS or not L.supported(v.aval.dtype) for v in vs):
            raise _Decline
        move = _MOVES.get(eqn.primitive)
        if move is not None:
            return move(eqn, *ins)
        rule = L.lowerings.get(eqn.primitive)
        kind = getattr(rule, "kind", None)
        rule_of = _RULES.get(kind)
        if rule_of is None:
            raise _Decline
        return rule_of(self, eqn, rule, ins)


def _scalar(body: UnrolledBody, eqn, rule, ins):
    shape = eqn.out_binders[0].aval.shape
    n_out = len(eqn.out_binders)
    multi = n_out > 1 or eqn.primitive.multiple_results
    if any(x.shape not in (shape, ()) for x in ins):
        raise _Decline
    outs = [np.empty(shape, object) for _ in range(n_out)]
    for idx in np.ndindex(*shape):
        # (operands of another shape are 0-d: the loop nest loads them at index ())
        args = [x[idx] if x.shape == shape else x[()] for x in ins]
        expr = rule.fn(eqn, *args)
        if expr is None:
            raise _Decline
        if rule.guard is not None or _FAST.search(expr):
            raise _Decline  # (the body's own program runs these fast, guarded, rerun if need be)
        if multi:
            t = body.gen.fresh("t")
            body.lines.append(f"{t} = {expr}")
            exprs = [f"{t}[{k}]" for k in range(n_out)]
        else:
            exprs = [expr]
        for o, v, e in zip(outs, eqn.out_binders, exprs):
            o[idx] = body._define(e, v.aval.dtype)
    return outs


def _mapped(body: UnrolledBody, eqn, rule, ins):
    m = rule.fn(eqn)
    if m is None or len(eqn.out_binders) != 1:
        raise _Decline
    maps, combine = m
    v = eqn.out_binders[0]
    out = np.empty(v.aval.shape, object)
    for idx in np.ndindex(*v.aval.shape):
        exprs = [x[tuple(0 if a is None else idx[a] for a in mp)] for x, mp in zip(ins, maps)]
        out[idx] = exprs[0] if combine is None else body._define(combine.format(*exprs), v.aval.dtype)
    return [out]


class _Element:
    """An element read by an ``Index`` expansion, while evaluating which one it picks."""

    def __init__(self, expr: str):
        self.expr = expr


def _index(body: UnrolledBody, eqn, rule, ins):
    expand = rule.fn(eqn)
    if expand is None or len(eqn.out_binders) != 1:
        raise _Decline
    by_var = {id(x): val for x, val in zip(eqn.inputs, ins)}
    v = eqn.out_binders[0]
    out = np.empty(v.aval.shape, object)
    for idx in np.ndindex(*v.aval.shape):
        out[idx] = _expand_at(body, expand, by_var, idx, v.aval.dtype)
    return [out]


def _expand_at(body: UnrolledBody, expand, by_var: dict, idx: tuple, dtype) -> str:
    """The element ``idx`` of an ``Index`` row's output. At constant indices an expansion is
    mostly a select on constant conditions (a slice, pad, concatenate): the element it picks,
    named again, not computed."""
    picked: list[str] = []

    def read(x, xidx):
        picked.append(by_var[id(x)][tuple(_const_index(str(i)) for i in xidx)])
        return f"_e{len(picked) - 1}"

    expr = expand(read, [str(i) for i in idx])
    try:
        got = eval(expr, {"__builtins__": {}}, {f"_e{k}": _Element(e) for k, e in enumerate(picked)})  # noqa: S307
    except Exception:
        got = None
    if type(got) is _Element:
        return got.expr
    return body._define(_PICKED.sub(lambda m: picked[int(m.group(1))], expr), dtype)


_PICKED = re.compile(r"\b_e(\d+)\b")
_NAME = re.compile(r"\b[stv]\d+\b")  # (the names ``UnrolledBody`` defines: scalars, temps, carries)


def _live(lines: list[str], outs) -> list[str]:
    """The lines the outputs need (a multiply a multiply-add took over is not computed)."""
    used = set(_NAME.findall(" ".join(e for o in outs for e in o.flat)))
    kept = []
    for line in reversed(lines):
        target, expr = line.split(" = ", 1)
        if target in used:
            kept.append(line)
            used.update(_NAME.findall(expr))
    return kept[::-1]


def _reduce(body: UnrolledBody, eqn, rule, ins):
    """A float sum as the loop nest's reduction computes it: a float64 accumulator from 0,
    adding the elements in C order, rounded once at the end."""
    x, v = eqn.inputs[0], eqn.out_binders[0]
    if rule.op != "sum" or v.aval.dtype.kind != "f":
        raise _Decline
    trivial = x.aval.size == v.aval.size  # (over dimensions of length 1 only: XLA's reshape)
    if _ordered_sum(eqn, rule.op):  # (XLA's order: only a sum of one element is plain here)
        if not trivial:
            raise _Decline
        out = np.empty(v.aval.shape, object)
        for e, idx in zip(ins[0].flat, np.ndindex(*v.aval.shape)):
            out[idx] = body._define(f"{e}", v.aval.dtype)  # (-0. stays -0., as the rule's)
        return [out]
    axes = eqn.params["axes"]
    kept = [d for d in range(x.aval.ndim) if d not in axes]
    zero = "np.float64(-0.0)" if trivial else "np.float64(0)"  # (-0. + x is x, -0. included)
    acc: dict[tuple, str] = {}
    for idx in np.ndindex(*x.aval.shape):
        key = tuple(idx[d] for d in kept)
        a = body.gen.fresh("s")
        body.lines.append(f"{a} = np.float64({acc.get(key, zero)} + {ins[0][idx]})")
        acc[key] = a
    out = np.empty(v.aval.shape, object)
    for idx in np.ndindex(*v.aval.shape):
        out[idx] = body._define(acc.get(idx, "np.float64(0)"), v.aval.dtype)
    return [out]


def _reshape(eqn, x):
    if eqn.params.get("dimensions") is not None:
        raise _Decline
    return [x.reshape(eqn.out_binders[0].aval.shape)]


# Ops that only move elements (the body's own program runs them on the host, as numpy calls):
# here they rename element expressions, no code.
_MOVES = {
    st.reshape_p: _reshape,
    st.squeeze_p: lambda eqn, x: [x.reshape(eqn.out_binders[0].aval.shape)],
    st.split_p: lambda eqn, x: np.split(x, np.cumsum(eqn.params["sizes"])[:-1], eqn.params["axis"]),
}

_RULES = {"scalar": _scalar, "mapped": _mapped, "index": _index, "reduce": _reduce}


def elements(name: str, shape, lead: str = "") -> np.ndarray:
    """The element expressions of array ``name`` (``lead``: a leading index, a scan's step)."""
    out = np.empty(shape, object)
    for idx in np.ndindex(*shape):
        parts = [lead] * bool(lead) + [str(i) for i in idx]
        out[idx] = f"{name}[{', '.join(parts) or '()'}]"
    return out


def lower_scan(gen, eqn) -> bool:
    """A scan over small arrays (consts, carries, per-step slices and outputs) as one kernel."""
    p = eqn.params
    nc, nk, n = p["num_consts"], p["num_carry"], p["length"]
    ins, outs = list(eqn.inputs), list(eqn.out_binders)
    step_shapes = [x.aval.shape[1:] for x in ins[nc + nk :]] + [v.aval.shape[1:] for v in outs[nk:]]
    if any(int(np.prod(s, dtype=np.int64)) > MAX_ELEMENTS for s in step_shapes) or not all(
        L.supported(x.aval.dtype) for x in [*ins, *outs]
    ):
        return False
    if any(x.aval.size > MAX_ELEMENTS for x in ins[: nc + nk]):
        return False
    a = [elements(f"a{k}", x.aval.shape) for k, x in enumerate(ins[: nc + nk])]
    a += [elements(f"a{k}", x.aval.shape[1:], "i") for k, x in enumerate(ins[nc + nk :], nc + nk)]
    carry = []
    for x in ins[nc : nc + nk]:
        c = np.empty(x.aval.shape, object)
        for idx in np.ndindex(*x.aval.shape):
            c[idx] = gen.fresh("v")
        carry.append(c)
    body = UnrolledBody(gen, p["jaxpr"], [*a[:nc], *carry, *a[nc + nk :]])
    if not body.ok:
        return False
    cast = lambda x: L.cast(x.aval.dtype)
    lines = [
        f"{c} = {cast(x)}({e})"
        for x, cs, es in zip(ins[nc : nc + nk], carry, a[nc : nc + nk])
        for c, e in zip(cs.flat, es.flat)
    ]
    lines.append(f"for i in {f'range({n} - 1, -1, -1)' if p['reverse'] else f'range({n})'}:")
    lines += ["    " + line for line in body.lines]
    for k, (v, e) in enumerate(zip(outs[nk:], body.outs[nk:]), nk):
        dst = elements(f"o{k}", v.aval.shape[1:], "i")
        lines += [f"    {d} = {s}" for d, s in zip(dst.flat, e.flat)]
    # (all new carries computed before any is assigned: the body reads the old ones throughout)
    new = [
        (c, x, e)
        for x, cs, es in zip(ins[nc : nc + nk], carry, body.outs[:nk])
        for c, e in zip(cs.flat, es.flat)
    ]
    tmp = [gen.fresh("s") for _ in new]
    lines += [f"    {t} = {cast(x)}({e})" for t, (c, x, e) in zip(tmp, new)]
    lines += [f"    {c} = {t}" for t, (c, x, e) in zip(tmp, new)]
    for k, (v, cs) in enumerate(zip(outs[:nk], carry)):
        dst = elements(f"o{k}", v.aval.shape)
        lines += [f"{d} = {c}" for d, c in zip(dst.flat, cs.flat)]
    _loop_kernel(gen, eqn, ins, lines, [None] * len(eqn.out_binders))  # (the lines write the outputs)
    return True
