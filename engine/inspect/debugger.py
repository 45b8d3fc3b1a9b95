"""The debugger: the final stage of a recorded call evaluated equation by equation (stepping into
jit calls), each step's inputs and outputs summarized, bounded in steps and data."""

from __future__ import annotations

import numpy as np

from engine import core
from engine.core import Array
from engine.ir import ClosedJaxpr, Jaxpr

from .graph import source_of
from .schema import DebugStep, DebugTrace
from .values import nbytes, summarize_array

DEBUG_STEP_CAP = 500  # equations stepped by the debugger
DEBUG_DATA_CAP = 256  # elements of data per stepped value
DEBUG_WORK_BYTES = 256 << 20  # stop stepping after producing this much data


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


def _step_jaxpr(jaxpr: Jaxpr, consts, args, prefix, trace: DebugTrace, budget) -> list:
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
            outs = _step_jaxpr(inner.jaxpr, list(inner.consts), ins, f"{node}/", trace, budget)
        else:
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
                )
            )
            if nonfinite and trace.first_nonfinite is None:
                trace.first_nonfinite = trace.steps[-1].index
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]
