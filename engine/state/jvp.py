"""Forward-mode differentiation of refs, as JAX's: a ref made inside ``jvp`` is a pair of refs, the
primal's and the tangent's (a ``JVPTracer`` whose primal and tangent are refs), and each state
primitive acts on both, so ``make_jaxpr(jvp(f))`` prints ``new_ref`` / ``freeze`` lines and the
reads and writes of both refs (JAX's ``_ref_jvp``, ``_get_jvp``, ``_swap_jvp``,
``addupdate_jvp_rule``, and ``freeze``'s ``defjvp``).

``grad`` / ``linearize`` / ``vjp`` (a ``LinearizeTrace`` over partial evaluation) make the same
pairs, the tangent ref staged in the linear program (``transpose`` transposes it, as JAX's
backward pass does); the eager tape keeps the functional refs of ``primitives``. Refs made inside
``vmap`` are batched refs (``vmap``).

A call or control-flow primitive given a ref of ``jvp`` (a ``jit`` called on it, a ``scan`` body
closing over it) is differentiated by its JVP rule, both refs passed into the body as JAX does
(``passes_refs``; under ``grad`` a ``jit`` too). Given another transformation's ref it reads its
value, runs its functional discharge (``discharge``) and writes the final value back
(``as_functional``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import ad, backward_pass, core
from ..core import Tracer, Value
from ..staging import JaxprTrace
from .allocation import empty_ref_p, free_ref_p
from .primitives import _write_error, addupdate_p, discharging, freeze_p, get_p, new_ref_p, swap_p
from .types import WHOLE, AbstractRef, Ref

# Levels of the JVP traces whose new_ref rule is running: the refs its rule makes belong below.
_busy: list[int] = []


def innermost(stack: Sequence[Any]) -> Any:
    """The innermost transformation a ``new_ref`` made now belongs to (None: none, eager), skipping
    the JVP traces whose rule is running."""
    from ..batching import _trace_ctx

    limit = min(_busy, default=None)
    # A vmap whose batching rule is running (cond's batched-predicate rule vmaps each branch) is
    # no context either: its rule works on the values below it, so a ref made there is theirs.
    running = {t.main.level for t in _trace_ctx}
    for m in reversed(stack[1:]):
        if (limit is not None and m.level >= limit) or m.level in running:
            continue
        return m
    return None


def is_forward_mode(main: Any) -> bool:
    """A ``jvp`` or ``linearize`` trace above any discharge: its refs are pairs of refs. A ``jit``'s
    JVP rule under ``grad`` traces its body with a plain JVP trace, to be split and transposed, so
    its refs are pairs too; under the eager tape, or a partial evaluation that is not a
    linearization, refs stay functional."""
    if not issubclass(main.trace_type, ad.JVPTrace) or main.level <= max(discharging, default=0):
        return False
    from ..tape import TapeTrace

    kinds = [m.trace_type for m in core._state.stack]
    if TapeTrace in kinds:
        return False
    return ad.LinearizeTrace in kinds or ad.PartialEvalTrace not in kinds


def linearizing(below: int | None = None) -> bool:
    """A ``grad`` / ``linearize`` / ``vjp`` is being traced or taped (by a trace below level
    ``below``: one the transformation at that level is inside)."""
    from ..tape import TapeTrace

    kinds = (ad.LinearizeTrace, ad.PartialEvalTrace, TapeTrace)
    stack = core._state.stack if below is None else core._state.stack[:below]
    return any(m.trace_type in kinds for m in stack)


def _tangent_trace(main: Any) -> ad.PartialEvalTrace:
    """The partial evaluation whose tracers a ``LinearizeTrace``'s tangents are: ``linearize_flat``
    opens it right below."""
    below = core._state.stack[main.level - 1]
    assert below.trace_type is ad.PartialEvalTrace, below
    return below.trace or ad.PartialEvalTrace(below)


def new_ref_jvp(main: Any, x: Value, params: dict[str, Any]) -> Value:
    """JAX's ``_ref_jvp``, run whatever the tangent (JAX's JVP trace sends every new_ref through
    its rule): a zero tangent gets a tangent ref of zeros."""
    trace = main.trace or main.trace_type(main)
    t = trace.full_raise(x)
    if main.trace_type is ad.LinearizeTrace:  # the tangent ref is staged in the linear program
        pe = _tangent_trace(main)
        _busy.append(pe.main.level)
        try:
            primal = new_ref_p.bind(t.primal, **params)
        finally:
            _busy.pop()
        if type(t.tangent) is ad.Zero:  # (JAX instantiates it in the tangent trace)
            tangent_in = pe.stage_zeros(t.tangent.aval)
        else:
            tangent_in = pe.instantiate_const(pe.full_raise(t.tangent))
        tangent = pe.default_process_primitive(new_ref_p, [tangent_in], params)
        return trace.tracer_type(trace, primal, tangent)
    _busy.append(main.level)
    try:
        primal = new_ref_p.bind(t.primal, **params)
        tangent = new_ref_p.bind(ad.instantiate_zeros(t.tangent), **params)
    finally:
        _busy.pop()
    return ad.JVPTracer(trace, primal, tangent)


def empty_ref_pair(main: Any, params: dict[str, Any]) -> Value:
    """JAX's ``_empty_ref_jvp`` / ``_empty_ref_lin``: an ``empty_ref`` of the program being staged
    and one of its tangent type (staged in the linear program under a linearization)."""
    trace = main.trace or main.trace_type(main)
    primal = core.Primitive.bind(empty_ref_p, **params)
    t_params = dict(params, ty=ad.tangent_aval(params["ty"]))
    if main.trace_type is ad.LinearizeTrace:
        tangent = _tangent_trace(main).default_process_primitive(empty_ref_p, [], t_params)
    else:
        tangent = core.Primitive.bind(empty_ref_p, **t_params)
    return trace.tracer_type(trace, primal, tangent)


def _free_ref_jvp(primals: Sequence[Value], tangents: Sequence[Any]) -> Any:
    free_ref_p.bind(primals[0])
    if type(tangents[0]) is not ad.Zero:
        free_ref_p.bind(tangents[0])
    return [], []


def _zero_like(out: Value) -> ad.Zero:
    return ad.Zero(ad.tangent_aval(core.get_aval(out)))


def _get_jvp(primals: Sequence[Value], tangents: Sequence[Any], **params: Any) -> Any:
    ref, *idx = primals
    out = get_p.bind(ref, *idx, **params)
    if type(tangents[0]) is ad.Zero:
        return out, _zero_like(out)
    return out, get_p.bind(tangents[0], *idx, **params)


def _swap_jvp(primals: Sequence[Value], tangents: Sequence[Any], **params: Any) -> Any:
    ref, x, *idx = primals
    rt, xt = tangents[0], tangents[1]
    out = swap_p.bind(ref, x, *idx, **params)  # (JAX writes the primal before it refuses the tangent)
    if type(rt) is ad.Zero:
        if type(xt) is not ad.Zero:
            raise _write_error(swap_p, core.get_aval(ref), "grad")
        return out, _zero_like(out)
    return out, swap_p.bind(rt, ad.instantiate_zeros_where(xt, [rt]), *idx, **params)


def _addupdate_jvp(primals: Sequence[Value], tangents: Sequence[Any], **params: Any) -> Any:
    ref, x, *idx = primals
    rt, xt = tangents[0], tangents[1]
    if type(rt) is ad.Zero:
        if type(xt) is not ad.Zero:
            raise _write_error(addupdate_p, core.get_aval(ref), "grad")
        return addupdate_p.bind(ref, x, *idx, **params), []
    addupdate_p.bind(ref, x, *idx, **params)
    addupdate_p.bind(rt, ad.instantiate_zeros_where(xt, [rt]), *idx, **params)
    return [], []


def _freeze_jvp(primals: Sequence[Value], tangents: Sequence[Any]) -> Any:
    out = freeze_p.bind(primals[0])
    if type(tangents[0]) is ad.Zero:
        return out, _zero_like(out)
    return out, freeze_p.bind(tangents[0])


ad.jvp_rules[get_p] = _get_jvp
ad.jvp_rules[swap_p] = _swap_jvp
ad.jvp_rules[addupdate_p] = _addupdate_jvp
ad.jvp_rules[freeze_p] = _freeze_jvp
ad.jvp_rules[free_ref_p] = _free_ref_jvp


# ---------------------------------------------------------------------------------------------
# Calls and control flow on a first-class ref of a transformation.


def is_transformed_ref(x: object) -> bool:
    """A ref of a non-staging transformation (a JVPTracer of refs, a batched ref of vmap), not a
    functional ``Ref``."""
    return (
        isinstance(x, Tracer) and type(x.aval) is AbstractRef and not isinstance(x._trace, JaxprTrace)  # type: ignore[attr-defined]
    )


def passes_refs(prim: Any, x: Tracer) -> bool:
    """Whether ``prim`` given the transformed ref ``x`` takes it as a ref operand. A ref of a plain
    ``jvp`` (a primal ref and a tangent ref) goes to the primitive's JVP rule, which passes both
    refs into the differentiated body, where reads and writes come in pairs (JAX's ``jvp_jaxpr``
    on ``Ref`` operands). Under ``grad`` / ``linearize`` so do those whose transpose takes the
    cotangent ref (``backward_pass.takes_accumulators``: a ``jit``); others run their discharge."""
    if type(x._trace) is ad.JVPTrace:  # type: ignore[attr-defined]
        return True
    return (
        isinstance(x._trace, (ad.LinearizeTrace, ad.PartialEvalTrace))  # type: ignore[attr-defined]
        and prim in backward_pass.takes_accumulators
    )


def as_functional(
    rule: Callable[..., list[Value]], args: Sequence[Value], params: dict[str, Any]
) -> list[Value]:
    """``rule`` (a functional discharge rule) run with each transformed ref among ``args`` as a
    functional ref over its value, which is written back afterwards."""
    boxes: dict[int, Ref] = {}
    new_args: list[Value] = []
    for a in args:
        if is_transformed_ref(a):
            if id(a) not in boxes:
                boxes[id(a)] = Ref(get_p.bind(a, tree=WHOLE), a.aval.inner_aval, traced=True)  # type: ignore[attr-defined]
            new_args.append(boxes[id(a)])
        else:
            new_args.append(a)
    outs = rule(*new_args, **params)
    written = {id(a): a for a in args if is_transformed_ref(a)}
    for k, box in boxes.items():
        swap_p.bind(written[k], box._traced, tree=WHOLE)
    return outs
