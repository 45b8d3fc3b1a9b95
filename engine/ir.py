"""The IR: jaxprs (variables, literals, equations with source lines), printing, evaluation, DCE."""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np

from . import core
from .core import ShapedArray, SourceInfo


class Var:
    __slots__ = ("aval", "count")
    _counter = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        self.count = next(Var._counter)

    def __repr__(self):
        return f"Var({self.aval.str_short()}#{self.count})"


class Literal:
    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val})"


Atom = Var | Literal


class JaxprEqn(NamedTuple):
    primitive: core.Primitive
    inputs: list
    params: dict
    out_binders: list
    source_info: SourceInfo | None = None


class Jaxpr:
    """A typed, first-order program: ``{ lambda consts ; args . let eqns in outs }``."""

    __slots__ = ("constvars", "in_binders", "eqns", "outs", "__weakref__")

    def __init__(self, constvars, in_binders, eqns, outs):
        self.constvars = list(constvars)
        self.in_binders = list(in_binders)
        self.eqns = list(eqns)
        self.outs = list(outs)

    @property
    def in_avals(self):
        return [v.aval for v in self.in_binders]

    @property
    def out_avals(self):
        return [v.aval for v in self.outs]

    def __str__(self):
        return pp_jaxpr(self, [])

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr with its constants bound: what ``make_jaxpr`` returns."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts):
        assert not jaxpr.constvars or len(jaxpr.constvars) == len(consts)
        self.jaxpr = jaxpr
        self.consts = list(consts)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)
    eqns = property(lambda self: self.jaxpr.eqns)

    def __str__(self):
        return pp_jaxpr(self.jaxpr, self.consts)

    __repr__ = __str__

    def pretty_print(self, **_):
        return str(self)


# ---------------------------------------------------------------------------------------------
# Pretty-printing in the spirit of `jax.make_jaxpr` output.


def _var_names():
    for n in itertools.count(1):
        for combo in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=n):
            yield "".join(combo)


class _Names:
    def __init__(self):
        self.names: dict[Var, str] = {}
        self.gen = _var_names()

    def __call__(self, v) -> str:
        if isinstance(v, Literal):
            return pp_literal(v)
        if v not in self.names:
            self.names[v] = next(self.gen)
        return self.names[v]


def pp_literal(lit: Literal) -> str:
    val = np.asarray(core.to_numpy(lit.val))
    if val.dtype == np.bool_:
        s = "True" if val else "False"
    elif np.issubdtype(val.dtype, np.floating):
        s = repr(float(val))
        if s in ("inf", "-inf", "nan"):
            s = s
    else:
        s = str(val.item())
    return f"{s}:{lit.aval.str_short()}"


def pp_param(value, names: _Names, indent: int) -> str:
    if isinstance(value, ClosedJaxpr):
        return _pp_jaxpr_body(value.jaxpr, names.__class__(), indent + 2)
    if isinstance(value, Jaxpr):
        return _pp_jaxpr_body(value, names.__class__(), indent + 2)
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (ClosedJaxpr, Jaxpr)) for v in value):
        return (
            "(\n"
            + "".join(" " * (indent + 2) + pp_param(v, names, indent + 2) + "\n" for v in value)
            + " " * indent
            + ")"
        )
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return str(value)


def _pp_jaxpr_body(jaxpr: Jaxpr, names: _Names, indent: int) -> str:
    def binder(v):
        return f"{names(v)}:{v.aval.str_short()}"

    consts = " ".join(binder(v) for v in jaxpr.constvars)
    args = " ".join(binder(v) for v in jaxpr.in_binders)
    pad = " " * (indent + 4)
    lines = []
    for eqn in jaxpr.eqns:
        lhs = " ".join(binder(v) for v in eqn.out_binders) or "_"
        params = ""
        if eqn.params:
            params = (
                "["
                + " ".join(f"{k}={pp_param(v, names, indent + 4)}" for k, v in sorted(eqn.params.items()))
                + "]"
            )
        rhs = " ".join(names(x) for x in eqn.inputs)
        lines.append(f"{pad}{lhs} = {eqn.primitive.name}{params} {rhs}".rstrip())
    outs = " ".join(names(v) for v in jaxpr.outs)
    outs = f"({outs},)" if len(jaxpr.outs) == 1 else f"({outs})"
    head = f"{{ lambda {consts}; {args}. let"
    if not lines:
        return f"{head} in {outs} }}"
    return head + "\n" + "\n".join(lines) + "\n" + " " * (indent + 2) + f"in {outs} }}"


def pp_jaxpr(jaxpr: Jaxpr, consts=()) -> str:
    return _pp_jaxpr_body(jaxpr, _Names(), 0)


# ---------------------------------------------------------------------------------------------
# Evaluation: replay equations through `bind`, so evaluating a jaxpr under a transformation
# transforms it. Equations keep their source line while replayed.


def eval_jaxpr(jaxpr: Jaxpr, args, consts=()) -> list:
    env: dict[Var, Any] = {}

    def read(x):
        return x.val if type(x) is Literal else env[x]

    for v, val in zip(jaxpr.constvars, consts):
        env[v] = val
    for v, val in zip(jaxpr.in_binders, args):
        env[v] = val
    for eqn in jaxpr.eqns:
        with core.source_info_context(eqn.source_info):
            outs = eqn.primitive.bind(*[read(x) for x in eqn.inputs], **eqn.params)
        if eqn.primitive.multiple_results:
            for v, o in zip(eqn.out_binders, outs):
                env[v] = o
        else:
            env[eqn.out_binders[0]] = outs
    return [read(x) for x in jaxpr.outs]


def eval_closed(closed: ClosedJaxpr, *args) -> list:
    return eval_jaxpr(closed.jaxpr, args, closed.consts)


def jaxpr_as_fun(closed: ClosedJaxpr):
    return lambda *args: eval_closed(closed, *args)


# ---------------------------------------------------------------------------------------------
# Checking and cleaning.


class JaxprTypeError(TypeError):
    pass


def typecheck_jaxpr(jaxpr: Jaxpr) -> None:
    env: set[Var] = set()
    for v in (*jaxpr.constvars, *jaxpr.in_binders):
        if v in env:
            raise JaxprTypeError(f"variable bound twice: {v}")
        env.add(v)
    for eqn in jaxpr.eqns:
        for x in eqn.inputs:
            if type(x) is Var and x not in env:
                raise JaxprTypeError(f"unbound variable {x} in {eqn.primitive}")
        in_avals = [x.aval for x in eqn.inputs]
        out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        for v, a in zip(eqn.out_binders, outs):
            if v.aval.shape != a.shape or v.aval.dtype != a.dtype:
                raise JaxprTypeError(f"{eqn.primitive}: binder {v.aval} but rule says {a}")
            env.add(v)
    for x in jaxpr.outs:
        if type(x) is Var and x not in env:
            raise JaxprTypeError(f"unbound output {x}")


effectful: set[core.Primitive] = set()  # primitives DCE must keep even when unused (debug.print)


def dce_jaxpr(jaxpr: Jaxpr, used_outputs=None) -> Jaxpr:
    """Drop equations whose outputs nothing uses."""
    outs = jaxpr.outs if used_outputs is None else [o for o, u in zip(jaxpr.outs, used_outputs) if u]
    live = {x for x in outs if type(x) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if eqn.primitive in effectful or any(v in live for v in eqn.out_binders):
            kept.append(eqn)
            live.update(x for x in eqn.inputs if type(x) is Var)
    kept.reverse()
    return Jaxpr(jaxpr.constvars, jaxpr.in_binders, kept, outs)


def subjaxprs(eqn: JaxprEqn):
    """The sub-jaxprs an equation carries in its params (jit, cond branches, scan bodies...)."""
    for v in eqn.params.values():
        if isinstance(v, ClosedJaxpr):
            yield v.jaxpr
        elif isinstance(v, Jaxpr):
            yield v
        elif isinstance(v, (tuple, list)):
            for w in v:
                if isinstance(w, ClosedJaxpr):
                    yield w.jaxpr
                elif isinstance(w, Jaxpr):
                    yield w
