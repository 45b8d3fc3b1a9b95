"""Control flow called outside ``jit`` (``while``, ``scan``, ``cond``) runs as a compiled program
of its one equation where interpreting it would be slow, as JAX's ``apply_primitive`` jits every
primitive it applies eagerly: the body is one numba kernel (or compiled bodies driven by a host
loop) instead of an equation-by-equation interpretation per iteration (eager grad of
``random.gamma`` on 200 samples, whose ``random_gamma_grad`` iterates two ``while_loop``\\ s per
sample: about 0.75 s interpreted, a few ms compiled, warm).

Which way a loop runs is decided by its structure and its arguments, never by time, so a call
gives the same values however often or fast anything ran before. A ``scan`` or ``cond`` whose
interpreter estimate (``jit_runtime.interpret_seconds``) is over ``COMPILE_OVER_SECONDS`` is
compiled (a long scan; one holding a while loop), the others (a short ``fori_loop``, a ``cond`` of
a few operations) are interpreted, as ``jit``'s first tier interprets such programs. A while loop,
whose trip count is unknown, is interpreted for as many iterations as that estimate allows; one
that has not ended by then runs compiled from its start instead (its body has no effects: the
interpreted iterations are simply dropped), and one whose body holds a while loop is compiled at
once. A compiled loop is ``jit``'s compiled program of it, the same executable ``jax.jit`` of the
loop runs: its values are ``jit``'s (numba's float32 exp, log, tanh... are the engine's own
polynomials, within an ulp or two of numpy's), as in JAX, where an eager loop and a jitted one
are one XLA computation. ``ENGINE_EAGER_LOOPS_COMPILED=0`` (or ``ENABLED[0] = False``) interprets
every loop.

The program is looked up by its structure (the equation's primitive, its bodies' equations and
the argument types), not by the identity of its jaxprs: a ``while_loop`` traces its body again at
every call, and a second call must not compile again. The loop runs as before, interpreted by its
own impl, where a compiled form would change what is observed: without numba (the interpreter
would run the same loop), under ``disable_jit`` or the debugging flags that check each operation
(``debug_nans``, key reuse, the transfer guard), for bodies with effects or callbacks (prints
and errors come from the body as it runs), and inside programs this module or an interpreted
tier is already running.
"""

from __future__ import annotations

import math
import os
import threading
from typing import Any, Callable, Sequence

import numpy as np

from .. import core, effect_schedule, invalid_values, ir, jit_runtime, key_reuse, transfers
from ..config import config as _config
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from ..jit_runtime import INTERPRET_MAX_SECONDS, _tier, compiled_form, executable, interpret_seconds

ENABLED = [os.environ.get("ENGINE_EAGER_LOOPS_COMPILED", "1") != "0"]
_running = threading.local()  # .on: a program of this module runs (its loops run their own impl)

# Loops the interpreter is estimated to run in more than this are compiled (jit's threshold for
# interpreting a first call: below it a compile costs more than it saves).
COMPILE_OVER_SECONDS = INTERPRET_MAX_SECONDS


class _Program:
    """The one-equation program of a structure and its executable, compiled at its first call."""

    __slots__ = ("closed", "name", "exe")

    def __init__(self, closed: ClosedJaxpr, name: str):
        self.closed, self.name, self.exe = closed, name, None

    def executable(self) -> Any:
        if self.exe is None:
            _running.on = True  # (a fallback interpreter compiles nothing: its loops run their impls)
            try:
                self.exe = executable(self.closed, self.name)
            finally:
                _running.on = False
        return self.exe

    def run(self, values: Sequence[Any]) -> list[Any]:
        exe = self.executable()
        last = getattr(_tier, "last", None)
        _running.on = True
        try:
            return exe(*values)
        finally:
            _running.on = False
            _tier.last = last


# structure key -> its program
_programs: dict[Any, _Program] = {}
_PROGRAMS_MAX = 256  # (a long session of distinct loops: the oldest programs are forgotten)
_raw_names = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print", "check"})


def apply(prim: core.Primitive, interpret: Callable[..., Any], args: Sequence[Any], params: dict[str, Any]):
    """``prim`` applied to ``args`` (an impl's numpy arguments): compiled where its structure says
    interpreting it would be slow, else by ``interpret``, the loop's own impl. Its bodies' prints
    run in the order of XLA's schedule (``effect_schedule``), as JAX compiles an eager loop."""
    params = effect_schedule.body_params(prim.name, params)
    program = _program(prim, args, params)
    if program is None:
        return interpret(*args, **params)
    steps = _steps_interpreted(prim, params)
    if steps:  # (a while loop that ends within them runs interpreted; else compiled from its start)
        outs = interpret(*args, max_steps=steps, **params)
        if outs is not None:
            return outs
    return program.run([a._value if isinstance(a, core.Array) else a for a in args])


def _steps_interpreted(prim: core.Primitive, params: dict[str, Any]) -> int:
    """How many iterations of a while loop are interpreted before it is run compiled instead: as
    many as the interpreter is estimated to run in ``COMPILE_OVER_SECONDS`` (none where its body
    holds a while loop itself)."""
    if prim.name != "while":
        return 0
    step = interpret_seconds(params["cond_jaxpr"].jaxpr) + interpret_seconds(params["body_jaxpr"].jaxpr)
    return int(COMPILE_OVER_SECONDS // step) if 0 < step < math.inf else 0


def estimate(prim: core.Primitive, params: dict[str, Any]) -> float:
    """The interpreter's estimated time for one application (inf for a while loop)."""
    return interpret_seconds(Jaxpr([], [], [JaxprEqn(prim, [], params, [], None)], []))


def _program(prim: core.Primitive, args: Sequence[Any], params: dict[str, Any]) -> _Program | None:
    if (
        not ENABLED[0]
        or getattr(_running, "on", False)
        or getattr(_tier, "interpreting", 0)
        or _config.values["jax_disable_jit"]
        or invalid_values.active[0]
        or key_reuse.active[0]
        or transfers.active[0]
        or (jit_runtime._backend is not None and not hasattr(jit_runtime._backend, "lower_source"))
        or estimate(prim, params) <= COMPILE_OVER_SECONDS
    ):  # (the backend is chosen, numba imported, when a program first compiles)
        return None
    avals = tuple(_aval(a) for a in args)
    if not all(type(a) is core.ShapedArray for a in avals):
        return None
    structure = _params_key(params)
    if structure is None:
        return None
    key = (prim, structure, avals)
    program = _programs.get(key)
    if program is None:
        closed = _one_equation(prim, avals, params)
        if closed is None:
            return None
        if len(_programs) >= _PROGRAMS_MAX:
            del _programs[next(iter(_programs))]
        program = _programs[key] = _Program(closed, prim.name)
    return program


def _aval(x: Any) -> Any:
    """The type of an impl's argument (numpy, or key storage for typed keys), weak or not alike."""
    if isinstance(x, np.ndarray):
        return core.ShapedArray(x.shape, core.extended_dtypes.get(x.dtype) or x.dtype)
    try:
        return core.get_aval(x).update(weak_type=False)
    except (TypeError, AttributeError):
        return None


def _one_equation(prim: core.Primitive, avals: Sequence[core.ShapedArray], params: dict[str, Any]):
    eqn_params = dict(params)
    if any(_runs_raw(j) for j in ir.subjaxprs(JaxprEqn(prim, [], eqn_params, [], None))):
        return None
    ins = [Var(a) for a in avals]
    out_avals = prim.abstract_eval(*avals, **params)
    outs = [Var(a) for a in (out_avals if prim.multiple_results else [out_avals])]
    jaxpr = Jaxpr([], ins, [JaxprEqn(prim, list(ins), eqn_params, outs, None)], list(outs))
    return compiled_form(ClosedJaxpr(jaxpr, []))


def _runs_raw(jaxpr: Jaxpr) -> bool:
    """A body with effects, callbacks or primitives defined outside the engine (what they do is
    observed as the body runs) or with state."""
    for e in jaxpr.eqns:
        p = e.primitive
        if p in ir.effectful or p.name in _raw_names or p.defined_outside_engine or p in ir.ref_effects:
            return True
        if any(_runs_raw(j) for j in ir.subjaxprs(e)):
            return True
    return False


# --- structure keys -----------------------------------------------------------------------------


def _params_key(params: dict[str, Any]) -> Any:
    items = []
    for k in sorted(params):
        v = _value_key(params[k])
        if v is None and params[k] is not None:
            return None
        items.append((k, v))
    return tuple(items)


_ARRAY_KEY_MAX = 4096  # bytes of a constant keyed by value; larger ones are not keyed (run raw)


def _value_key(v: Any) -> Any:
    if isinstance(v, ClosedJaxpr):
        consts = tuple(_value_key(c) for c in v.consts)
        if any(c is None for c in consts):
            return None
        body = _jaxpr_key(v.jaxpr)
        return None if body is None else ("closed", body, consts)
    if isinstance(v, Jaxpr):
        return _jaxpr_key(v)
    if isinstance(v, (np.ndarray, np.generic, core.Array)):
        a = np.asarray(core.to_numpy(v))
        if a.dtype == object or a.nbytes > _ARRAY_KEY_MAX:
            return None
        weak = bool(getattr(v, "weak_type", False))
        return ("array", a.shape, a.dtype.str, a.tobytes(), weak)
    if isinstance(v, (tuple, list)):
        parts = tuple(_value_key(w) for w in v)
        if any(p is None and w is not None for p, w in zip(parts, v)):
            return None
        return (type(v).__name__, parts)
    if callable(v) and not isinstance(v, type):  # (a function: a callback's, a rule's)
        return None
    if isinstance(v, (float, complex)):  # (by their digits: -0.0 == 0.0, yet programs differ)
        return ("value", type(v), repr(v))
    try:
        hash(v)
    except TypeError:
        return None
    return ("value", type(v), v)


def _jaxpr_key(jaxpr: Jaxpr) -> Any:
    names: dict[Var, int] = {}

    def atom(x: Any) -> Any:
        if type(x) is Literal:
            return _value_key(x.val), x.aval
        return names.setdefault(x, len(names)), x.aval

    parts: list[Any] = [tuple(atom(v) for v in (*jaxpr.constvars, *jaxpr.in_binders))]
    for e in jaxpr.eqns:
        p = _params_key(e.params)
        if p is None:
            return None
        parts.append(
            (e.primitive, tuple(atom(x) for x in e.inputs), p, tuple(atom(v) for v in e.out_binders))
        )
    parts.append(tuple(atom(x) for x in jaxpr.outs))
    return tuple(parts)
