"""The debugger: the final stage of a recorded call evaluated equation by equation (stepping into
jit calls, and into the bodies of scan and while loops and the branch a cond takes), each step's
inputs and outputs summarized, bounded in steps and data."""

from __future__ import annotations

import numpy as np

from engine import core
from engine.core import Array
from engine.ir import ClosedJaxpr, Jaxpr, eval_jaxpr

from .graph import source_of
from .schema import DebugStep, DebugTrace
from .values import nbytes, summarize_array

DEBUG_STEP_CAP = 500  # equations stepped by the debugger
DEBUG_DATA_CAP = 256  # elements of data per stepped value
DEBUG_WORK_BYTES = 256 << 20  # stop stepping after producing this much data
LOOP_ITERATIONS_STEPPED = 10  # iterations of a scan or while body stepped into (the loop's outputs cover all)


def debug_trace(closed: ClosedJaxpr, args: list, name: str) -> DebugTrace:
    """Evaluate ``closed`` one equation at a time (stepping into jit calls), bounded in size."""
    trace = DebugTrace(graph=name)
    budget = {"steps": DEBUG_STEP_CAP, "bytes": DEBUG_WORK_BYTES}
    try:
        with np.errstate(all="ignore"):
            _step_jaxpr(closed.jaxpr, list(closed.consts), [_concrete(a) for a in args], "", trace, budget)
    except _Stop:
        trace.truncated = True
    except Exception:  # noqa: BLE001 - a failing equation ends the trace; the call's error says why
        trace.truncated = True
    return trace


class _Stop(Exception):
    pass


def _concrete(x):
    return x if isinstance(x, Array) else Array(core.to_numpy(x), core.is_weak(x))


def _step_jaxpr(jaxpr: Jaxpr, consts, args, prefix, trace: DebugTrace, budget, within=None) -> list:
    from engine.ir import Literal

    env = {}
    read = lambda x: x.val if type(x) is Literal else env[x]  # noqa: E731
    for v, val in zip(jaxpr.constvars, consts):
        env[v] = val
    for v, val in zip(jaxpr.in_binders, args):
        env[v] = val
    for i, eqn in enumerate(jaxpr.eqns):
        node = f"{prefix}n{i}"
        ins = [read(x) for x in eqn.inputs]
        inner = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
        if isinstance(inner, ClosedJaxpr):
            outs = _step_jaxpr(inner.jaxpr, list(inner.consts), ins, f"{node}/", trace, budget, within)
        else:
            step_into = _STEP_INTO.get(eqn.primitive.name)
            if step_into is not None:
                # The body's equations first, as the loop ran them (for their lines and values);
                # the loop's own step then gives its outputs, computed by the primitive itself.
                _step_into(step_into, eqn.params, ins, node, trace, budget, within)
            if budget["steps"] <= 0 or budget["bytes"] <= 0:
                raise _Stop
            budget["steps"] -= 1
            with core.source_info_context(eqn.source_info):
                outs = eqn.primitive.bind(*ins, **eqn.params)
            outs = outs if eqn.primitive.multiple_results else [outs]
            summaries = [s for s in (summarize_array(o, DEBUG_DATA_CAP) for o in outs) if s is not None]
            budget["bytes"] -= sum(nbytes(o) for o in outs)
            nonfinite = any(s.nan_count or s.inf_count for s in summaries)
            trace.steps.append(
                DebugStep(
                    index=len(trace.steps),
                    node=node,
                    primitive=eqn.primitive.name,
                    source=source_of(eqn.source_info),
                    outputs=summaries,
                    nonfinite=nonfinite,
                    within=within,
                )
            )
            if nonfinite and trace.first_nonfinite is None:
                trace.first_nonfinite = trace.steps[-1].index
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


# ---- stepping into control flow ----------------------------------------------------------------
# Each rule replays a control-flow equation's body on the equation's inputs, one stepped equation
# at a time, labelling the steps with where they ran ("scan iteration 2 of 5"). Only the steps are
# kept: the equation's outputs come from binding it, so a replay can never change a value.


def _step_into(rule, params, ins, node, trace: DebugTrace, budget, within):
    """Step into a control-flow body with at most half of what is left of the budget, so that a
    long loop leaves steps for the equations after it; running out only ends the stepping in."""
    share = {"steps": budget["steps"] // 2, "bytes": budget["bytes"] // 2}
    before = dict(share)
    try:
        rule(params, ins, node, trace, share, within)
    except Exception:  # noqa: BLE001 - out of budget, or a body that fails replayed: stop stepping in
        pass
    budget["steps"] -= before["steps"] - share["steps"]
    budget["bytes"] -= before["bytes"] - share["bytes"]


def _inside(within, here: str) -> str:
    return f"{within} › {here}" if within else here


def _slice(x, i):
    return Array(core.to_numpy(x)[i], core.is_weak(x))


def _step_scan(params, ins, node, trace, budget, within):
    body: ClosedJaxpr = params["jaxpr"]
    nc, nk, length = params["num_consts"], params["num_carry"], params["length"]
    consts, carry, xs = ins[:nc], list(ins[nc : nc + nk]), ins[nc + nk :]
    for k in range(min(length, LOOP_ITERATIONS_STEPPED)):
        i = length - 1 - k if params["reverse"] else k
        here = _inside(within, f"scan iteration {k + 1} of {length}")
        outs = _step_jaxpr(
            body.jaxpr,
            list(body.consts),
            [*consts, *carry, *[_slice(x, i) for x in xs]],
            f"{node}/i{i}/",
            trace,
            budget,
            here,
        )
        carry = outs[:nk]


def _step_while(params, ins, node, trace, budget, within):
    cond: ClosedJaxpr = params["cond_jaxpr"]
    body: ClosedJaxpr = params["body_jaxpr"]
    if cond.out_avals[0].shape != ():
        return  # a batched predicate: the examples' iterations differ, there is no one body to show
    ncc, nbc = params["cond_nconsts"], params["body_nconsts"]
    cc, bc, carry = ins[:ncc], ins[ncc : ncc + nbc], list(ins[ncc + nbc :])
    k = 0
    while k < LOOP_ITERATIONS_STEPPED and bool(
        core.to_numpy(eval_jaxpr(cond.jaxpr, [*cc, *carry], cond.consts)[0])
    ):
        k += 1
        here = _inside(within, f"while iteration {k}")
        carry = _step_jaxpr(
            body.jaxpr, list(body.consts), [*bc, *carry], f"{node}/i{k - 1}/", trace, budget, here
        )


def _step_cond(params, ins, node, trace, budget, within):
    branches = params["branches"]
    index = core.to_numpy(ins[0])
    if index.shape != ():
        return
    b = int(np.clip(int(index), 0, len(branches) - 1))
    here = _inside(within, f"cond branch {b}")
    _step_jaxpr(
        branches[b].jaxpr, list(branches[b].consts), list(ins[1:]), f"{node}/b{b}/", trace, budget, here
    )


_STEP_INTO = {"scan": _step_scan, "while": _step_while, "cond": _step_cond}
