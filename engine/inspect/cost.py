"""Estimated cost of equations: FLOPs and bytes moved, from shapes and primitives alone.

Counted the way XLA's HLO cost analysis counts: an elementwise op costs one FLOP per output
element (transcendentals included, and counted apart too), a reduction one per input element
beyond the first of each output, ``integer_pow`` its multiplies, ``dot_general`` and
``conv_general_dilated`` two per multiply-add, data movement (broadcasts, transposes, slices,
gathers) none; bytes are what an unfused equation reads and writes (its inputs and outputs). Control flow costs its bodies: a scan
``length`` times its body, a while loop one trip (the count is not known before running), a cond
its dearest branch. These are estimates of work, not measurements: fusion under ``jit`` removes
most intermediate bytes, and a transcendental costs far more than an add on real hardware.

One rule per primitive, in ``cost_rules``; a primitive without a rule is counted as elementwise.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Callable, Iterator

from engine.ir import ClosedJaxpr, Jaxpr, Literal

from .schema import EqnCost, StageCost


class Cost:
    """``flops`` counts every operation, transcendental ones too (XLA reports those apart:
    ``flops - transcendentals`` is its ``flops``)."""

    __slots__ = ("flops", "bytes", "transcendentals")

    def __init__(self, flops: float = 0.0, bytes: float = 0.0, transcendentals: float = 0.0):
        self.flops, self.bytes, self.transcendentals = flops, bytes, transcendentals

    def __add__(self, other: "Cost") -> "Cost":
        return Cost(
            self.flops + other.flops, self.bytes + other.bytes, self.transcendentals + other.transcendentals
        )

    def scaled(self, k: float) -> "Cost":
        return Cost(self.flops * k, self.bytes * k, self.transcendentals * k)


def _size(aval) -> int:
    return math.prod(aval.shape)


def _nbytes(aval) -> int:
    return _size(aval) * aval.dtype.itemsize


def _aval(x):
    return x.aval


def _io_bytes(eqn) -> float:
    return float(
        sum(_nbytes(_aval(x)) for x in eqn.inputs if not isinstance(x, Literal))
        + sum(_nbytes(v.aval) for v in eqn.out_binders)
    )


def _out_elements(eqn) -> int:
    return sum(_size(v.aval) for v in eqn.out_binders)


def elementwise(eqn) -> Cost:
    return Cost(float(_out_elements(eqn)), _io_bytes(eqn))


# the elementwise primitives XLA counts as transcendentals (one HLO operation each)
TRANSCENDENTAL = frozenset("exp log log1p expm1 sin cos tan tanh sqrt rsqrt cbrt pow erf atan2 atan".split())


def transcendental(eqn) -> Cost:
    n = float(_out_elements(eqn))
    return Cost(n, _io_bytes(eqn), n)


def integer_pow(eqn) -> Cost:
    """The multiplies of JAX's lowering (square and multiply), one per element each, and a divide
    for a negative power."""
    y = abs(eqn.params["y"])
    muls = max(y.bit_length() - 1, 0) + max(bin(y).count("1") - 1, 0)
    return Cost(float(_out_elements(eqn) * (muls + (eqn.params["y"] < 0))), _io_bytes(eqn))


def reduction(eqn) -> Cost:
    """One operation per input element beyond the first of each output (XLA's count)."""
    n_in = sum(_size(_aval(x)) for x in eqn.inputs[:1])
    return Cost(float(max(n_in - _size(eqn.out_binders[0].aval), 0)), _io_bytes(eqn))


def scan_like(eqn) -> Cost:
    """cumsum and friends: one op per input element."""
    return reduction(eqn)


def movement(eqn) -> Cost:
    return Cost(0.0, _io_bytes(eqn))


def free(eqn) -> Cost:
    """Reshapes are bitcasts in XLA: no work, no traffic."""
    return Cost()


def dot_general(eqn) -> Cost:
    (lhs_contract, _), _ = eqn.params["dimension_numbers"]
    lhs = _aval(eqn.inputs[0])
    contract = math.prod(lhs.shape[d] for d in lhs_contract)
    return Cost(2.0 * _out_elements(eqn) * contract, _io_bytes(eqn))


def conv_general_dilated(eqn) -> Cost:
    """Two FLOPs per multiply-add: each output element sums one group's input features times the
    kernel's window."""
    rhs = _aval(eqn.inputs[1])
    rhs_spec = eqn.params["dimension_numbers"].rhs_spec
    window = math.prod(rhs.shape[d] for d in rhs_spec[1:])  # in features (per group) x spatial
    return Cost(2.0 * _out_elements(eqn) * window, _io_bytes(eqn))


def _jaxpr_of(v) -> Jaxpr:
    return v.jaxpr if isinstance(v, ClosedJaxpr) else v


def scan(eqn) -> Cost:
    return jaxpr_cost(_jaxpr_of(eqn.params["jaxpr"])).scaled(eqn.params.get("length", 1))


def call(eqn) -> Cost:
    """jit, pmap, custom rules: the cost of the jaxpr they run (once)."""
    total = Cost()
    for k in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        if k in eqn.params:
            total = total + jaxpr_cost(_jaxpr_of(eqn.params[k]))
            break
    return total


def while_loop(eqn) -> Cost:
    body = eqn.params.get("body_jaxpr")
    cond = eqn.params.get("cond_jaxpr")
    total = Cost()
    for j in (body, cond):
        if j is not None:
            total = total + jaxpr_cost(_jaxpr_of(j))
    return total


def cond(eqn) -> Cost:
    costs = [jaxpr_cost(_jaxpr_of(b)) for b in eqn.params["branches"]]
    return max(costs, key=lambda c: (c.flops, c.bytes), default=Cost())


def pmap(eqn) -> Cost:
    """Every device runs the body: the total is the body times the number of devices."""
    return call(eqn).scaled(eqn.params.get("axis_size", 1))


def shard_map(eqn) -> Cost:
    """Every device of the mesh runs the body."""
    return call(eqn).scaled(eqn.params["mesh"].size)


cost_rules: dict[str, Callable] = {
    "dot_general": dot_general,
    "conv_general_dilated": conv_general_dilated,
    "scan": scan,
    "while": while_loop,
    "cond": cond,
    "xla_pmap": pmap,
    "shard_map": shard_map,
}
for _name in ("jit", "custom_jvp_call", "custom_vjp_call", "custom_lin", "remat2"):
    cost_rules[_name] = call
cost_rules["composite"] = call
for _name in (
    "reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or reduce_xor argmax argmin "
    "psum pmax pmin reduce_scatter"
).split():
    cost_rules[_name] = reduction
for _name in "cumsum cumprod cummax cummin sort top_k".split():
    cost_rules[_name] = scan_like
for _name in (
    "broadcast_in_dim transpose slice dynamic_slice dynamic_update_slice concatenate pad gather "
    "rev copy iota split all_gather all_to_all ppermute select_n_copy"
).split():
    cost_rules[_name] = movement
_FREE = "reshape squeeze bitcast_convert_type stop_gradient axis_index debug_callback debug_print dce_sink"
for _name in _FREE.split():
    cost_rules[_name] = free
for _name in TRANSCENDENTAL:
    cost_rules[_name] = transcendental
cost_rules["integer_pow"] = integer_pow
cost_rules["select_n"] = movement  # (XLA counts no operation for a select)


# id(eqn) -> (eqn, its cost) while ``memoized`` is active: a report asks for the cost of every
# equation of a stage several times (its graph node, each enclosing jit's or loop's node, the stage's
# total and its per-line costs). Costs are never changed in place, so one can be handed out again.
_memo: dict[int, tuple[object, Cost]] | None = None


@contextmanager
def memoized() -> Iterator[None]:
    """Inside, each equation's cost is computed once (the equations must not change meanwhile)."""
    global _memo
    previous, _memo = _memo, {}
    try:
        yield
    finally:
        _memo = previous


def eqn_cost(eqn) -> Cost:
    """The estimated cost of one equation (its sub-jaxprs included)."""
    memo = _memo
    if memo is not None:
        hit = memo.get(id(eqn))
        if hit is not None and hit[0] is eqn:
            return hit[1]
    rule = cost_rules.get(eqn.primitive.name, elementwise)
    try:
        cost = rule(eqn)
    except Exception:  # noqa: BLE001 - an odd equation costs what an elementwise one would
        cost = elementwise(eqn)
    if memo is not None:
        memo[id(eqn)] = (eqn, cost)
    return cost


def jaxpr_cost(jaxpr: Jaxpr) -> Cost:
    total = Cost()
    for eqn in jaxpr.eqns:
        total = total + eqn_cost(eqn)
    return total


def _bodies(eqn) -> list[tuple[Jaxpr, float]]:
    """The sub-jaxprs an equation runs and how many times, for attributing cost to their lines."""
    p = eqn.params
    name = eqn.primitive.name
    if name == "scan":
        return [(_jaxpr_of(p["jaxpr"]), float(p.get("length", 1)))]
    if name == "while":
        return [(_jaxpr_of(p[k]), 1.0) for k in ("cond_jaxpr", "body_jaxpr") if k in p]
    if name == "cond":
        branches = [_jaxpr_of(b) for b in p["branches"]]
        costs = [jaxpr_cost(b) for b in branches]
        i = max(range(len(branches)), key=lambda j: (costs[j].flops, costs[j].bytes))
        return [(branches[i], 1.0)]
    for k in ("jaxpr", "call_jaxpr"):
        if k in p and isinstance(p[k], (ClosedJaxpr, Jaxpr)):
            return [(_jaxpr_of(p[k]), float(p.get("axis_size", 1)) if name == "xla_pmap" else 1.0)]
    return []


def _by_line(jaxpr: Jaxpr, scale: float, user_file: str, out: dict[int, Cost]) -> None:
    for eqn in jaxpr.eqns:
        bodies = _bodies(eqn)
        if bodies:
            for body, k in bodies:
                _by_line(body, scale * k, user_file, out)
            continue
        info = eqn.source_info
        if info is None or info.file != user_file:
            continue
        out[info.line] = out.get(info.line, Cost()) + eqn_cost(eqn).scaled(scale)


def as_eqn_cost(c: Cost) -> EqnCost:
    return EqnCost(flops=c.flops, bytes=c.bytes)


def stage_cost(jaxpr: Jaxpr, user_file: str) -> StageCost:
    """The stage's estimated total, and per user source line (loop bodies counted per trip)."""
    lines: dict[int, Cost] = {}
    _by_line(jaxpr, 1.0, user_file, lines)
    total = jaxpr_cost(jaxpr)
    return StageCost(
        flops=total.flops,
        bytes=total.bytes,
        by_line={line: as_eqn_cost(c) for line, c in sorted(lines.items())},
    )


def cost_analysis(jaxpr: Jaxpr) -> dict[str, float]:
    """``Lowered.cost_analysis()``'s dict, as JAX reports XLA's: ``flops`` without the
    transcendentals, ``transcendentals`` when there are any, ``bytes accessed``. Exact (equal to
    XLA's) for dot_general, reductions and the elementwise operations XLA runs as one HLO operation;
    an operation XLA expands into several (logistic, erf_inv, lgamma, the inverse trigonometric
    ones, cumulative ones, sorts) counts as one per element here. ``bytes accessed`` sums each
    equation's operands and results, constants excepted (XLA's HLO also counts the broadcasts of
    scalar constants, so its figure can be higher)."""
    total = jaxpr_cost(jaxpr)
    out = {"flops": float(total.flops - total.transcendentals)}
    if total.transcendentals:
        out["transcendentals"] = float(total.transcendentals)
    out["bytes accessed"] = float(total.bytes)
    return out
