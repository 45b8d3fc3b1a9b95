"""The order in which a compiled program runs its unordered debug callbacks (``jax.debug.print``,
``jax.debug.callback`` without ``ordered=True``).

An unordered callback has no token: XLA may run it anywhere after its operands. XLA's CPU backend
schedules each computation (the program, a loop body, a branch) breadth-first over its fused HLO
graph (Kahn's algorithm, first in first out: ``BFScheduler``), so a print runs at its depth in
that graph, not at its place in the program. Measured on JAX 0.10.2 (``tests/jax_reference``
group ``print_order``): under ``jit`` prints of the arguments come before prints of values
computed from them; in a ``lax.map`` body ``print(x); print(sin(x))`` prints ``sin(x)`` first.

The graph modelled here is XLA's after fusion: elementwise work, slicing and reductions fuse into
one node per printed value whose parents are the computation's inputs (a loop body's carried
values, read through a copy where the old value is still read after the new one may be written:
copy insertion); dots, sorts and nested loops are nodes of their own. A body's inputs are popped
last-index first (the order of XLA's tuple reads), a scan's per-iteration slice is a fusion of the
stacked array and the iteration counter; a program's arguments are popped in order, one returned
as it is read through its copy. Where several nodes wait on one parent, the order of that
parent's users is program order, with two measured exceptions in loop bodies (XLA's in-place edits
of user lists): the counter's first two users trade places (the raw slice counted first), and
several prints of one value run last one first.

Only the relative order of unordered prints changes, within the stretches between other effects
(ordered prints, io_callbacks, loops that print): those keep program order, as tokens keep JAX's.
The rule is applied once to a compiled program (``jit_runtime.compiled_form``) and to an eager
loop's bodies (``control_flow_eager.apply``), so the interpreter and numba run the same order.
"""

from __future__ import annotations

import weakref
from typing import Any

from . import ir
from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var

# Primitives XLA's CPU backend does not fuse into the consumer's loop (each is its own node).
_UNFUSED = frozenset(
    {
        "dot_general", "conv_general_dilated", "sort", "fft", "cumsum", "cumprod", "cummax", "cummin",
        "cumlogsumexp", "cholesky", "lu", "qr", "eigh", "eig", "svd", "triangular_solve", "schur",
        "pure_callback", "io_callback", "rng_bit_generator", "threefry2x32",
    }
)  # fmt: skip
_LOOPS = frozenset({"while", "scan", "cond"})


class _Scheduled(dict):
    """The params of a print already put in schedule order: passes that rebuild a jaxpr (DCE) keep
    its equations, so a program scheduled once is never scheduled again (rotations don't undo)."""


_done: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()  # input -> scheduled
_scheduled: "weakref.WeakSet[Any]" = weakref.WeakSet()  # outputs (scheduling them is a no-op)


def _unordered(eqn: JaxprEqn) -> bool:
    from .debug import DebugEffect, debug_callback_p, debug_print_p

    if eqn.primitive is debug_print_p:
        return not eqn.params["ordered"]
    return eqn.primitive is debug_callback_p and type(eqn.params["effect"]) is DebugEffect


def _effectful(eqn: JaxprEqn) -> bool:
    return eqn.primitive in ir.effectful or any(_has_effects(j) for j in ir.subjaxprs(eqn))


def _has_effects(jaxpr: Jaxpr) -> bool:
    return any(_effectful(e) for e in jaxpr.eqns)


class _Node:
    __slots__ = ("parents", "users", "eqn")

    def __init__(self, parents: list[_Node], eqn: JaxprEqn | None = None):
        self.parents, self.users, self.eqn = [], [], eqn
        for p in parents:
            if p not in self.parents:
                self.parents.append(p)
                p.users.append(self)


def _effect_order(jaxpr: Jaxpr, kind: str, nconsts: int = 0, ncarry: int = 0) -> list[JaxprEqn]:
    """The unordered prints of ``jaxpr`` in the order XLA's breadth-first schedule runs them.
    ``kind``: "top" (a program, a branch), "while" or "scan" (a body: consts, carries, slices)."""
    ins = jaxpr.in_binders
    body = kind != "top"
    uses: dict[Var, int] = {}
    for e in jaxpr.eqns:
        for a in e.inputs:
            if isinstance(a, Var):
                uses[a] = uses.get(a, 0) + 1
    for a in jaxpr.outs:
        if isinstance(a, Var):
            uses[a] = uses.get(a, 0) + 1
    roots = [_Node([]) for _ in ins]
    node: dict[Var, _Node] = {}
    leaves: dict[Var, list[_Node]] = {}
    slices: set[Var] = set()
    counter = _Node([]) if kind == "scan" else None
    counter_copy = _Node([counter]) if counter is not None else None
    for k, (v, r) in enumerate(zip(ins, roots)):
        carry = body and nconsts <= k < nconsts + ncarry
        if kind == "scan" and k >= nconsts + ncarry:
            leaves[v] = [r, counter_copy]  # type: ignore[list-item]
            slices.add(v)
        elif carry and jaxpr.outs[k - nconsts] is not v and uses.get(v, 0) >= 2:
            node[v] = _Node([r])  # copy insertion: the old value is read beside the new one
        elif not body and any(o is v for o in jaxpr.outs):
            node[v] = _Node([r])  # an argument returned as it is: its readers read the output's copy
        else:
            node[v] = r
    fused: dict[Var, _Node] = {}

    def parents_of(a) -> list[_Node]:
        if isinstance(a, Literal):
            return []
        return [node[a]] if a in node else leaves.get(a, [])

    def materialize(a) -> list[_Node]:
        if isinstance(a, Literal):
            return []
        if a in node:
            return [node[a]]
        if a not in fused:
            fused[a] = _Node(leaves.get(a, []))
        return [fused[a]]

    effects: list[_Node] = []
    token: list[_Node] = []  # the last other effect: they run in program order (tokens)
    for e in jaxpr.eqns:
        if _unordered(e):
            effects.append(_Node([p for a in e.inputs for p in materialize(a)], e))
        elif e.primitive.name in _UNFUSED or _effectful(e) or e.primitive.name in _LOOPS:
            mine = _effectful(e)
            n = _Node([p for a in e.inputs for p in materialize(a)] + (token if mine else []))
            if e.primitive.name in _LOOPS:
                n = _Node([n])  # (a loop's operands are first gathered in a tuple)
            if mine:
                n.eqn, token = e, [n]
                effects.append(n)
            for o in e.out_binders:
                node[o] = n
        else:
            ps: list[_Node] = []
            for a in e.inputs:
                ps += [p for p in parents_of(a) if p not in ps]
            for o in e.out_binders:
                leaves[o] = ps
    if body:
        for n in {id(f): f for f in fused.values()}.values():
            if len(n.users) > 1:  # several prints of one value: the last first
                n.users.insert(0, n.users.pop())
        if counter_copy is not None:
            raw = [fused[v] for v in slices if v in fused]
            us = [u for u in counter_copy.users if u in raw] + [u for u in counter_copy.users if u not in raw]
            if len(us) > 1:
                us[0], us[1] = us[1], us[0]
            counter_copy.users[:] = us
    queue = roots[::-1] if body else roots[:]  # (a body's tuple is read last element first)
    if counter is not None:
        queue.append(counter)
    waiting = {}
    order: list[JaxprEqn] = []
    head = 0
    while head < len(queue):
        n = queue[head]
        head += 1
        if n.eqn is not None:
            order.append(n.eqn)
        for u in n.users:
            left = waiting.get(id(u), len(u.parents)) - 1
            waiting[id(u)] = left
            if left == 0:
                queue.append(u)
    seen = {id(e) for e in order}
    return order + [p.eqn for p in effects if id(p.eqn) not in seen]  # type: ignore[misc]


def _reorder(jaxpr: Jaxpr, kind: str, nconsts: int = 0, ncarry: int = 0) -> Jaxpr:
    """``jaxpr`` with its bodies scheduled and its unordered prints in XLA's order, each stretch
    between other effects ending with its prints."""
    if jaxpr in _scheduled:
        return jaxpr
    found = _done.get(jaxpr)
    if found is not None:
        return found
    eqns = [_eqn_scheduled(e) for e in jaxpr.eqns]
    mine = [e for e in eqns if _unordered(e)]
    others = sum(1 for e in eqns if _effectful(e) and not _unordered(e))
    if mine and len(mine) + others > 1 and not all(type(e.params) is _Scheduled for e in mine):
        eqns = [e._replace(params=_Scheduled(e.params)) if _unordered(e) else e for e in eqns]
        order = _effect_order(
            Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs), kind, nconsts, ncarry
        )
        eqns = _placed(eqns, order) or _stretches(eqns, order)
    new = jaxpr
    if any(a is not b for a, b in zip(eqns, jaxpr.eqns)):
        new = _done[jaxpr] = Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs)
    _scheduled.add(new)  # (an unchanged jaxpr is no value of _done: that would keep its key alive)
    return new


def _placed(eqns: list[JaxprEqn], order: list[JaxprEqn]) -> list[JaxprEqn] | None:
    """``eqns`` with their effects in ``order``, each after the pure equations it reads (in
    program order); None where ``order`` would run an effect before one whose result it reads."""
    made = {v: i for i, e in enumerate(eqns) for v in e.out_binders}
    where = {id(e): i for i, e in enumerate(eqns)}
    effect = {id(e) for e in order}
    done = [False] * len(eqns)
    out: list[JaxprEqn] = []
    for e in order:
        need: set[int] = set()
        stack = [e]
        while stack:
            for a in stack.pop().inputs:
                i = made.get(a) if isinstance(a, Var) else None
                if i is None or done[i] or i in need:
                    continue
                if id(eqns[i]) in effect:
                    return None
                need.add(i)
                stack.append(eqns[i])
        for i in sorted(need):
            done[i] = True
            out.append(eqns[i])
        done[where[id(e)]] = True
        out.append(e)
    return out + [q for i, q in enumerate(eqns) if not done[i]]


def _stretches(eqns: list[JaxprEqn], order: list[JaxprEqn]) -> list[JaxprEqn]:
    """The fallback: other effects keep their places, the unordered prints between two of them
    run at the end of their stretch in schedule order."""
    rank = {id(e): i for i, e in enumerate(order)}
    out: list[JaxprEqn] = []
    stretch: list[JaxprEqn] = []
    for e in eqns:
        if _unordered(e):
            stretch.append(e)
            continue
        if _effectful(e):
            out += sorted(stretch, key=lambda s: rank[id(s)])
            stretch = []
        out.append(e)
    return out + sorted(stretch, key=lambda s: rank[id(s)])


def _closed(c: ClosedJaxpr, kind: str, nconsts: int = 0, ncarry: int = 0) -> ClosedJaxpr:
    j = _reorder(c.jaxpr, kind, nconsts, ncarry)
    return c if j is c.jaxpr else ClosedJaxpr(j, c.consts)


def body_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """A loop's or cond's params with its bodies scheduled (the same dict where nothing moves)."""
    new = dict(params)
    if name == "scan":
        new["jaxpr"] = _closed(params["jaxpr"], "scan", params["num_consts"], params["num_carry"])
    elif name == "while":
        n = params["body_nconsts"]
        new["body_jaxpr"] = _closed(
            params["body_jaxpr"], "while", n, len(params["body_jaxpr"].jaxpr.in_binders) - n
        )
    elif name == "cond":
        new["branches"] = tuple(_closed(b, "top") for b in params["branches"])
    else:
        for k, v in params.items():
            if isinstance(v, ClosedJaxpr):
                new[k] = _closed(v, "top")
            elif isinstance(v, Jaxpr):
                new[k] = _reorder(v, "top")
    return new if any(new[k] is not params[k] for k in params) else params


def _eqn_scheduled(e: JaxprEqn) -> JaxprEqn:
    if not any(_has_effects(j) for j in ir.subjaxprs(e)):
        return e
    p = body_params(e.primitive.name, e.params)
    return e if p is e.params else e._replace(params=p)


def schedule(closed: ClosedJaxpr) -> ClosedJaxpr:
    """A compiled program with its unordered prints in the order XLA's schedule runs them."""
    if closed in _scheduled:
        return closed
    found = _done.get(closed)
    if found is None:
        found = _closed(closed, "top") if _has_effects(closed.jaxpr) else closed
        if found is not closed:
            _done[closed] = found
        _scheduled.add(found)
    return found
