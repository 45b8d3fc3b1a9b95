"""State discharge for calls and control flow whose operands include refs made inside ``grad`` or
``vmap`` (refs holding a transformation's tracer, ``Ref.is_traced``).

Such a ref is functional: its value is threaded through the program. When a ``scan``, ``while``,
``cond`` or ``jit`` body reads or writes one, the body's ref operand becomes a value operand (a
carry of a loop, an extra output of a branch or call), the body is run with a functional ref over
that value, and the ref takes the final value afterwards: JAX's discharge of state effects, done
as the primitive is bound, so every transformation sees pure primitives.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import core, ir
from ..core import Value
from ..ir import ClosedJaxpr, Jaxpr, Var, eval_jaxpr, has_ref_effects
from ..staging import trace_to_jaxpr
from .primitives import bound_inside_vmap, discharging
from .types import AbstractRef, Ref


def is_functional_ref(x: object) -> bool:
    return type(x) is Ref and x.is_traced


class RefOperandPrimitive(core.Primitive):
    """A call or control-flow primitive: bound with a functional ref among its operands, it runs
    its discharge rule instead (the rule binds the same primitive on values)."""

    def bind(self, *args: Value, **params: Any) -> Any:
        for a in args:
            if type(a) is Ref and a.is_traced:
                return discharge_rules[self.name](*args, **params)
            if isinstance(a, core.Tracer) and type(a.aval) is AbstractRef:
                from .jvp import as_functional, is_transformed_ref, passes_refs

                # A ref of jvp is a pair of refs the primitive's JVP rule passes on as ref operands
                # (JAX's); others (vmap's, most of grad's) have their value threaded through.
                if is_transformed_ref(a) and not passes_refs(self, a):
                    return as_functional(discharge_rules[self.name], args, params)
        return core.Primitive.bind(self, *args, **params)


def run_discharged(
    closed: ClosedJaxpr, args: Sequence[Value], refs: Sequence[bool]
) -> tuple[list[Value], list[Value]]:
    """Evaluate ``closed`` with the ``refs`` positions of ``args`` (their values) as functional refs;
    returns the outputs and those refs' final values."""
    boxes = [
        Ref(a, closed.in_avals[k].inner_aval, traced=True) if r else None  # type: ignore[attr-defined]
        for k, (a, r) in enumerate(zip(args, refs))
    ]
    discharging.append(core._state.stack[-1].level)  # (refs the body makes are functional too)
    try:
        outs = eval_jaxpr(
            closed.jaxpr, [b if b is not None else a for a, b in zip(args, boxes)], closed.consts
        )
    finally:
        discharging.pop()
    if any(b is not None and b.freed for b in boxes):
        # A ref argument freed (or frozen) inside: JAX's discharge has no final value for it, and
        # indexes past the end of its list of them.
        err = IndexError("list index out of range")
        err.refused_by_discharge = True  # type: ignore[attr-defined]
        raise err
    return outs, [b._traced for b in boxes if b is not None]


def discharge_program(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[bool]] | None:
    """A program taking refs as a pure one: each ref argument becomes its value, and its final
    value an extra output (after the program's own). None where some state stays (a ref inside a
    body this module does not discharge): that program runs on the interpreter."""
    closed = _without_unused_freezes(closed)
    mask = [type(a) is AbstractRef for a in closed.in_avals]
    in_avals = [a.inner_aval if m else a for a, m in zip(closed.in_avals, mask)]  # type: ignore[attr-defined]

    def pure(*args: Value) -> list[Value]:
        outs, finals = run_discharged(closed, args, mask)
        return [*outs, *finals]

    try:
        functional = trace_to_jaxpr(pure, in_avals)
    except Exception as e:  # noqa: BLE001 - the interpreter runs the program as it is (and raises what it raises)
        if getattr(e, "refused_by_discharge", False):
            raise
        return None
    j = functional.jaxpr
    if has_ref_effects(j) or any(isinstance(c, Ref) for c in functional.consts):
        return None
    return functional, mask


def _without_unused_freezes(closed: ClosedJaxpr) -> ClosedJaxpr:
    """JAX's jit drops dead code before it discharges the program: a ``freeze`` or a read whose
    value nothing uses, so such a freeze does not end its ref's life there, nor does a read of a
    freed ref (the primal read of ``jit(grad(f))``, whose value only the forward pass computed)
    refuse."""
    j = closed.jaxpr
    live = {x for x in j.outs if type(x) is Var}
    kept = []
    for e in reversed(j.eqns):
        if (
            any(v in live for v in e.out_binders)
            or (e.primitive in ir.effectful and e.primitive.name not in ("freeze", "get"))
            or any(ir.has_effects(s) or ir.has_ref_effects(s) for s in ir.subjaxprs(e))
        ):
            kept.append(e)
            live.update(x for x in e.inputs if type(x) is Var)
    if len(kept) == len(j.eqns):
        return closed
    kept.reverse()
    return ClosedJaxpr(Jaxpr(j.constvars, j.in_binders, kept, j.outs), closed.consts)


def _substitute(ops: Sequence[Value], refs: list[Ref], values: Sequence[Value]) -> list[Value]:
    """``ops`` with each functional ref replaced by its carried value."""
    where = {id(r): k for k, r in enumerate(refs)}
    return [values[where[id(o)]] if id(o) in where else o for o in ops]


def _unique_refs(ops: Sequence[Value]) -> list[Ref]:
    seen: dict[int, Ref] = {}
    for o in ops:
        if is_functional_ref(o):
            seen.setdefault(id(o), o)  # type: ignore[arg-type]
    return list(seen.values())


def _scan(
    *args: Value, jaxpr: ClosedJaxpr, num_consts: int, num_carry: int, length: int, reverse: bool, unroll: int
) -> list[Value]:
    from ..lax.scan import scan

    consts, carry, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )
    refs = _unique_refs(consts)
    mask = [is_functional_ref(c) for c in consts] + [False] * (num_carry + len(xs))

    def body(c: Any, x: Any) -> Any:
        values, carry_in = c
        full = [*_substitute(consts, refs, values), *carry_in, *x]
        outs, finals = run_discharged(jaxpr, full, mask)
        return (_by_ref(consts, refs, values, finals), list(outs[:num_carry])), list(outs[num_carry:])

    (finals, carry_out), ys = scan(
        body,
        ([r._traced for r in refs], list(carry)),
        list(xs),
        length=length,
        reverse=reverse,
        unroll=unroll,
    )
    _store(refs, finals)
    return [*carry_out, *ys]


def _by_ref(
    ops: Sequence[Value], refs: list[Ref], values: Sequence[Value], finals: Sequence[Value]
) -> list[Value]:
    """The new value of each of ``refs``: its final value where ``ops`` held it, else unchanged."""
    out = list(values)
    it = iter(finals)
    where = {id(r): k for k, r in enumerate(refs)}
    for o in ops:
        if is_functional_ref(o):
            out[where[id(o)]] = next(it)
    return out


def _store(refs: list[Ref], finals: Sequence[Value]) -> None:
    for r, v in zip(refs, finals):
        r._traced = v


def _while(
    *args: Value, cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, cond_nconsts: int, body_nconsts: int
) -> list[Value]:
    from ..lax.loops import while_loop

    cc, bc = args[:cond_nconsts], args[cond_nconsts : cond_nconsts + body_nconsts]
    carry = args[cond_nconsts + body_nconsts :]
    refs = _unique_refs([*cc, *bc])
    cmask = [is_functional_ref(c) for c in cc] + [False] * len(carry)
    bmask = [is_functional_ref(c) for c in bc] + [False] * len(carry)

    def cond_fun(c: Any) -> Any:
        values, carry_in = c
        return run_discharged(cond_jaxpr, [*_substitute(cc, refs, values), *carry_in], cmask)[0][0]

    def body_fun(c: Any) -> Any:
        values, carry_in = c
        outs, finals = run_discharged(body_jaxpr, [*_substitute(bc, refs, values), *carry_in], bmask)
        return _by_ref(bc, refs, values, finals), list(outs)

    finals, carry_out = while_loop(cond_fun, body_fun, ([r._traced for r in refs], list(carry)))
    _store(refs, finals)
    return list(carry_out)


def _cond(
    index: Value, *ops: Value, branches: tuple[ClosedJaxpr, ...], branches_platforms: Any = None
) -> list[Value]:
    from ..lax.cond import refuse_vmap_of_ref_cond, switch

    if bound_inside_vmap():  # (a jit's body batched, its cond too)
        refuse_vmap_of_ref_cond(branches)
    refs = _unique_refs(ops)
    mask = [is_functional_ref(o) for o in ops]

    def branch(closed: ClosedJaxpr) -> Callable[..., Any]:
        def run(values: Any, rest: Any) -> Any:
            outs, finals = run_discharged(closed, _substitute(ops, refs, values), mask)
            return list(outs), _by_ref(ops, refs, values, finals)

        return run

    outs, finals = switch(index, [branch(b) for b in branches], [r._traced for r in refs], None)
    _store(refs, finals)
    return list(outs)


def _jit(*args: Value, jaxpr: ClosedJaxpr, **_: Any) -> list[Value]:
    refs = [a for a in args if is_functional_ref(a)]
    outs, finals = run_discharged(
        jaxpr, [a._traced if is_functional_ref(a) else a for a in args], [is_functional_ref(a) for a in args]
    )  # type: ignore[union-attr]
    _store(refs, finals)  # type: ignore[arg-type]
    return outs


discharge_rules: dict[str, Callable[..., list[Value]]] = {
    "scan": _scan,
    "while": _while,
    "cond": _cond,
    "jit": _jit,
}


def ref_buffers(args: Sequence[Any], mask: Sequence[bool]) -> list[Any]:
    # Copies: the program may hand its input back as an output (``r[...]``), and an Array the
    # user holds must not change when the ref is written later.
    return [a._buf.copy() if m else a for a, m in zip(args, mask)]


def in_place(inner: Callable[..., list[Any]], mask: Sequence[bool]) -> Callable[..., list[Any]]:
    """``inner`` (a discharged program's executable) called on refs: their buffers go in, and their
    final values (its last outputs) are written back into the same buffers."""
    n_refs = sum(mask)

    def run(*args: Any) -> list[Any]:
        outs = inner(*ref_buffers(args, mask))
        n = len(outs) - n_refs
        for ref, final in zip([a for a, m in zip(args, mask) if m], outs[n:]):
            ref._buf[...] = final
            ref._written = True
        return list(outs[:n])

    for note in ("source", "fallbacks", "job", "compile_time", "lower_time", "compiled_text"):
        if hasattr(inner, note):
            setattr(run, note, getattr(inner, note))
    return run
