"""The IR: jaxprs (variables, literals, equations with source lines), printing, evaluation, DCE."""

from __future__ import annotations

import itertools
import re
import weakref
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence, TypeGuard, final

import numpy as np

from . import core, transfers
from . import source_info as _source_info
from . import pretty_printer as pp
from .core import Params, ShapedArray, SourceInfo, Value
from .errors import JaxprTypeError

# JAX's paths for the classes a jaxpr holds (the abstract values and primitives are core's)
core.jax_class_path("jax._src.core.Primitive")(core.Primitive)
core.jax_class_path("jax._src.core.ShapedArray")(ShapedArray)


@core.jax_class_path("jax._src.core.Var")
class Var:
    __slots__ = ("aval", "count")
    _counter = itertools.count()

    def __init__(self, aval: ShapedArray):
        self.aval = aval
        self.count = next(Var._counter)

    def __repr__(self) -> str:  # JAX's: its identity and type (a weak type unmarked)
        return f"Var(id={id(self)}):{str(self.aval).removeprefix('~')}"


@final  # so that ``type(x) is Literal`` (faster than isinstance) tells a checker the rest are Vars
@core.jax_class_path("jax._src.core.Literal")
class Literal:
    __slots__ = ("val", "aval")

    def __init__(self, val: Value, aval: ShapedArray):
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        # (JAX keeps a weakly typed scalar as a TypedInt / TypedFloat / TypedComplex, whose str is
        # its repr but for TypedFloat's, a float's)
        dtype = getattr(self.aval, "dtype", None)
        if getattr(self.aval, "weak_type", False) and isinstance(dtype, np.dtype) and not np.shape(self.val):
            kind, name = dtype.kind, dtype.name
            if kind in "iu":
                return f"Literal(TypedInt({int(self.val)}, dtype={name}))"
            if kind == "c":
                return f"Literal(TypedComplex({complex(self.val)}, dtype={name}))"
        return f"Literal({self.val})"


Atom = Var | Literal


@core.jax_class_path("jax._src.core.JaxprEqn")
class JaxprEqn(NamedTuple):
    primitive: core.Primitive
    inputs: list[Atom]
    params: Params
    out_binders: list[Var]
    source_info: SourceInfo | None = None

    # JAX's names, for interpreters written against jax.extend.core
    @property
    def invars(self) -> list[Atom]:
        return self.inputs

    @property
    def outvars(self) -> list[Var]:
        return self.out_binders

    def __repr__(self) -> str:  # as JAX prints one equation: its own names, outputs first
        return _pp_eqn(self, PpContext()).format(PP_WIDTH)  # (str() too)


@core.jax_class_path("jax._src.core.Jaxpr")
class Jaxpr:
    """A typed, first-order program: ``{ lambda consts ; args . let eqns in outs }``."""

    __slots__ = ("constvars", "in_binders", "eqns", "outs", "__weakref__")

    def __init__(
        self,
        constvars: Iterable[Var],
        in_binders: Iterable[Var],
        eqns: Iterable[JaxprEqn],
        outs: Iterable[Atom],
    ):
        self.constvars = list(constvars)
        self.in_binders = list(in_binders)
        self.eqns = list(eqns)
        self.outs = list(outs)

    # JAX's names, for interpreters written against jax.extend.core
    @property
    def invars(self) -> list[Var]:
        return self.in_binders

    @property
    def outvars(self) -> list[Atom]:
        return self.outs

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.in_binders]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.outs]

    def __str__(self) -> str:
        return pp_jaxpr(self, [])

    __repr__ = __str__


def with_fresh_vars(jaxpr: Jaxpr, deep: bool = False) -> Jaxpr:
    """``jaxpr`` with a new Var for each of its binders (``deep``: its equations' sub-jaxprs' too).
    A jaxpr split from another (a partial evaluation's unknown part) or a copy of one (a remat's
    recomputation) shares Vars with it, and the printer names a Var once: fresh ones print with
    fresh names, as JAX's, which traces each part anew, do."""
    new: dict[Var, Var] = {}

    def fresh(v: Var) -> Var:
        if type(v) is not Var:
            return v  # (a DropVar prints as _ wherever it is)
        return new.setdefault(v, Var(v.aval))

    def read(x: Atom) -> Atom:
        return new.get(x, x) if type(x) is Var else x

    constvars, in_binders = [fresh(v) for v in jaxpr.constvars], [fresh(v) for v in jaxpr.in_binders]
    eqns = [
        (with_fresh_subjaxprs(e) if deep else e)._replace(
            inputs=[read(x) for x in e.inputs], out_binders=[fresh(v) for v in e.out_binders]
        )
        for e in jaxpr.eqns
    ]
    return Jaxpr(constvars, in_binders, eqns, [read(x) for x in jaxpr.outs])


def inline_jaxpr(
    jaxpr: Jaxpr, args: Sequence[Atom], out_binders: Sequence[Var] = ()
) -> tuple[list[JaxprEqn], list[Atom]] | None:
    """``jaxpr``'s equations reading ``args``, its first outputs written to ``out_binders`` and the
    rest to fresh Vars: ``(equations, the other outputs)``; None when a named output is not one
    equation's own result (an input, a literal, or written twice)."""
    named = jaxpr.outs[: len(out_binders)]
    produced = {v for e in jaxpr.eqns for v in e.out_binders}
    if any(type(v) is not Var or v not in produced or named.count(v) > 1 for v in named):
        return None
    env: dict[Var, Atom] = dict(zip(jaxpr.in_binders, args))
    target: dict[Var, Var] = dict(zip(named, out_binders))  # type: ignore[arg-type]

    def read(x: Atom) -> Atom:
        return env.get(x, x) if type(x) is Var else x

    eqns = []
    for e in jaxpr.eqns:
        outs = [target.get(v) or Var(v.aval) for v in e.out_binders]
        eqns.append(e._replace(inputs=[read(x) for x in e.inputs], out_binders=outs))
        env.update(zip(e.out_binders, outs))
    return eqns, [read(x) for x in jaxpr.outs[len(out_binders) :]]


def with_fresh_subjaxprs(eqn: JaxprEqn) -> JaxprEqn:
    """``eqn`` with fresh Vars throughout the sub-jaxprs of its params (a copy of the equation
    bound elsewhere, as a remat recomputes a known one, then prints apart from the original)."""

    def fresh(v: Any) -> Any:
        if isinstance(v, ClosedJaxpr):
            return ClosedJaxpr(with_fresh_vars(v.jaxpr, deep=True), v.consts)
        if isinstance(v, Jaxpr):
            return with_fresh_vars(v, deep=True)
        if isinstance(v, tuple) and any(isinstance(w, (ClosedJaxpr, Jaxpr)) for w in v):
            return tuple(fresh(w) for w in v)
        return v

    if not any(True for _ in subjaxprs(eqn)):
        return eqn
    return eqn._replace(params={k: fresh(v) for k, v in eqn.params.items()})


@core.jax_class_path("jax._src.core.ClosedJaxpr")
class ClosedJaxpr:
    """A jaxpr with its constants bound: what ``make_jaxpr`` returns."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Value]):
        assert not jaxpr.constvars or len(jaxpr.constvars) == len(consts)
        self.jaxpr = jaxpr
        self.consts = list(consts)

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self.jaxpr.in_avals

    @property
    def literals(self) -> list[object]:
        """JAX 0.10's name for the bound constants."""
        return self.consts

    @property
    def out_avals(self) -> list[ShapedArray]:
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> list[JaxprEqn]:
        return self.jaxpr.eqns

    def __str__(self) -> str:
        return pp_jaxpr(self.jaxpr, self.consts)

    __repr__ = __str__

    def pretty_print(self, **_: object) -> str:
        return str(self)


# ---------------------------------------------------------------------------------------------
# Pretty-printing as JAX prints: the same documents (engine.pretty_printer), the same variable
# naming (one context over nested jaxprs; a jit's inner variables take their outer names), the
# same parameter display rules, and jaxprs used twice (or long nested ones) printed once up front.


def _encode_name(n: int) -> str:
    s = ""
    while not s or n:
        n, i = divmod(n, 26)
        s = chr(97 + i) + s
    return s


# jaxpr -> {var: its type with the mesh axes splitting it, "f32[8@X,4]"}: set for jaxprs of values
# on an explicit mesh (engine.parallel.partition.annotate_types), which JAX prints with shardings.
sharded_types: "weakref.WeakKeyDictionary[Jaxpr, dict[Var, str]]" = weakref.WeakKeyDictionary()


class PpContext:
    """Names of variables (and of shared jaxprs) while printing one jaxpr."""

    def __init__(self) -> None:
        self.var_names: dict[Var, str] = {}
        self.shared_jaxprs: dict[Jaxpr, str] = {}
        self.shared_names: set[str] = set()  # (fresh variable names skip them, as JAX's do)
        self._count = 0
        self.types: dict[Var, str] = {}
        # (the top-level jaxpr's equations: JAX names its unread outputs _ when printing it, where
        # a sub-jaxpr shows _ only for a binder its partial evaluation dropped, a DropVar)
        self.top_level: set[int] = set()

    def type_str(self, v: Atom) -> str:
        t = self.types.get(v) if self.types and type(v) is not Literal else None
        if t is not None:
            return t
        typed = getattr(v.aval, "jaxpr_str", None)  # (a value typed on an explicit mesh)
        return typed() if typed is not None else v.aval.str_short()

    def name(self, v: Var) -> str:
        if type(v) is DropVar:
            return "_"
        n = self.var_names.get(v)
        if n is None:
            n = _encode_name(self._count)
            self._count += 1
            while n in self.shared_names:
                n = _encode_name(self._count)
                self._count += 1
            self.var_names[v] = n
        return n

    def suggest_same_names(self, for_vars: Sequence[Atom], like_vars: Sequence[Atom]) -> None:
        """Name ``for_vars`` (a sub-jaxpr's binders) like the atoms they alias, as JAX does."""
        if len(for_vars) != len(like_vars):
            return
        used: set[Var] = set()
        for f, like in zip(for_vars, like_vars):
            if isinstance(like, Var) and like not in used and isinstance(f, Var) and f not in self.var_names:
                used.add(like)
                self.var_names[f] = self.name(like)


@core.jax_class_path("jax._src.core.DropVar")
class DropVar(Var):
    """An output binder nothing reads; prints as ``_``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_"


def pp_literal(lit: Literal) -> str:
    python_value = getattr(lit.val, "python_value", None)  # (a Python scalar given to a lax op)
    if python_value is not None:
        return f"{python_value}:{lit.aval.str_short()}"
    if type(lit.val) in (bool, int, float, complex):  # (a Python scalar staged as an operand, as written)
        return f"{lit.val}:{lit.aval.str_short()}"
    val = np.asarray(core.to_numpy(lit.val))
    s = str(val.item()) if val.ndim == 0 else "[...]"
    return f"{s}:{lit.aval.str_short()}"


def pp_param(value: object) -> str:
    """The text of a parameter value that is not a jaxpr."""
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, type) and issubclass(value, np.generic):
        return np.dtype(value).name
    if isinstance(value, frozenset):
        return f"frozenset({{{', '.join(repr(e) for e in sorted(value))}}})"
    if callable(value) and hasattr(value, "__name__") and not isinstance(value, type):
        return str(value.__name__)
    return _masked(str(value))


def _masked(text: str) -> str:
    """``text`` with memory addresses masked, as JAX prints parameters (``at 0xXXXXXXXXXXXX``)."""
    return _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), text) if " at 0x" in text else text


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


class AsJaxPrintsIt:
    """A parameter JAX prints as its ``str`` with memory addresses masked (a function, a callback
    object), where :func:`pp_param` would print a callable by its name."""

    def __init__(self, value: object):
        self.value = value

    def __str__(self) -> str:
        return _masked(str(self.value))


# primitive -> eqn -> [(name, value)]: the parameters JAX shows for it, in its order (default:
# all of them, sorted by name). Modules defining primitives add rows.
ParamsDisplay = Sequence[tuple[str, Any]]
pp_params_rules: dict[core.Primitive, Callable[[JaxprEqn], ParamsDisplay]] = {}


# primitive -> (eqn, ctx) -> the whole equation's document, for equations JAX prints in a syntax
# of their own (state: ``c:f32[] <- a[1]``, ``a[...] <- b``, ``a[i] += b``).
pp_eqn_rules: dict[core.Primitive, Callable[[JaxprEqn, PpContext], pp.Doc]] = {}


def _pp_atom(x: Atom, ctx: PpContext) -> str:
    return pp_literal(x) if type(x) is Literal else ctx.name(x)


def _pp_vars(vs: Sequence[Atom], ctx: PpContext, separator: str = "", print_shapes: bool = False) -> pp.Doc:
    if print_shapes:
        items = [pp.text(f"{_pp_atom(v, ctx)}:{ctx.type_str(v)}") for v in vs]
    else:
        items = [pp.text(_pp_atom(v, ctx)) for v in vs]
    return pp.nest(2, pp.group(pp.join(pp.text(separator) + pp.group(pp.brk()), items)))


def _is_jaxpr(v: object) -> TypeGuard[Jaxpr | ClosedJaxpr]:
    return isinstance(v, (Jaxpr, ClosedJaxpr))


def _pp_kv_pair(k: str, v: object, ctx: PpContext) -> pp.Doc:
    if type(v) is tuple and v and all(_is_jaxpr(j) for j in v):
        body = _pp_jaxprs(v, ctx)
    elif _is_jaxpr(v):
        body = _pp_jaxpr(v.jaxpr if isinstance(v, ClosedJaxpr) else v, ctx)
    else:
        body = pp.text(pp_param(v))
    return pp.text(f"{k}=") + body


def _pp_kv_pairs(pairs: ParamsDisplay, ctx: PpContext) -> pp.Doc:
    if not pairs:
        return pp.nil()
    return pp.group(
        pp.concat(
            [
                pp.nest(
                    2,
                    pp.concat(
                        [
                            pp.text("["),
                            pp.brk(""),
                            pp.join(pp.brk(), [_pp_kv_pair(k, v, ctx) for k, v in pairs]),
                        ]
                    ),
                ),
                pp.brk(""),
                pp.text("]"),
            ]
        )
    )


def eqn_display_params(eqn: JaxprEqn) -> ParamsDisplay:
    """The (name, value) parameters JAX prints for ``eqn``, in its order."""
    rule = pp_params_rules.get(eqn.primitive)
    return rule(eqn) if rule is not None else sorted(eqn.params.items())


def _pp_eqn_flat(eqn: JaxprEqn, pairs: ParamsDisplay, ctx: PpContext) -> str:
    lhs = " ".join(f"{ctx.name(v)}:{ctx.type_str(v)}" for v in eqn.out_binders)
    params = "[" + " ".join(f"{k}={pp_param(v)}" for k, v in pairs) + "]" if pairs else ""
    rhs = f"{eqn.primitive.name}{params} " + " ".join(_pp_atom(x, ctx) for x in eqn.inputs)
    return f"{lhs} = {rhs}" if eqn.out_binders else rhs


def _pp_eqn(eqn: JaxprEqn, ctx: PpContext, indent: int | None = None) -> pp.Doc:
    """``indent``: where the equation's line starts when its jaxpr breaks into lines, if known. An
    equation without sub-jaxprs that fits there is laid out flat, so it is built as one text (fast)."""
    rule = pp_eqn_rules.get(eqn.primitive)
    if rule is not None:
        return rule(eqn, ctx)
    if indent is None or any(_has_jaxpr(v) for v in eqn.params.values()):
        return _pp_eqn_doc(eqn, None, ctx)
    pairs = eqn_display_params(eqn)
    if any(_has_jaxpr(v) for _, v in pairs):
        return _pp_eqn_doc(eqn, pairs, ctx)
    flat = _pp_eqn_flat(eqn, pairs, ctx)
    if indent + len(flat) <= PP_WIDTH and "\n" not in flat:
        return pp.text(flat)
    return _pp_eqn_doc(eqn, pairs, ctx)


def _has_jaxpr(v: object) -> bool:
    return _is_jaxpr(v) or (type(v) is tuple and any(_is_jaxpr(w) for w in v))


def _pp_eqn_doc(eqn: JaxprEqn, pairs: ParamsDisplay | None, ctx: PpContext) -> pp.Doc:
    sub = eqn.params.get("jaxpr")
    if eqn.primitive.name == "jit" and _is_jaxpr(sub):  # (JAX names a jit's body as its caller's)
        sub = sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub
        if sub not in ctx.shared_jaxprs:
            ctx.suggest_same_names(sub.in_binders, eqn.inputs)
            ctx.suggest_same_names(sub.outs, eqn.out_binders)
    pairs = eqn_display_params(eqn) if pairs is None else pairs
    lhs = _pp_vars(eqn.out_binders, ctx, print_shapes=True)
    rhs = [pp.text(eqn.primitive.name), _pp_kv_pairs(pairs, ctx), pp.text(" ") + _pp_vars(eqn.inputs, ctx)]
    if eqn.out_binders:
        return pp.concat([lhs, pp.text(" = "), *rhs])
    return pp.concat(rhs)


def _pp_skeleton(jaxpr: Jaxpr, ctx: PpContext, eqn_indent: int | None = None) -> pp.Doc:
    if sharded_types:
        ctx.types.update(sharded_types.get(jaxpr, {}))
    constvars = _pp_vars(jaxpr.constvars, ctx, print_shapes=True)
    invars = _pp_vars(jaxpr.in_binders, ctx, print_shapes=True)
    eqns = pp.join(pp.brk("; "), [_pp_eqn(e, ctx, eqn_indent) for e in jaxpr.eqns])
    outs = pp.concat(
        [
            pp.text("("),
            _pp_vars(jaxpr.outs, ctx, separator=","),
            pp.text(")" if len(jaxpr.outs) != 1 else ",)"),
        ]
    )
    body = [
        pp.text("{ "),
        pp.text("lambda "),
        constvars,
        pp.text("; "),
        invars,
        pp.text(". "),
        pp.text("let"),
    ]
    body += [pp.nest(2, pp.brk() + eqns), pp.brk(), pp.text("in "), outs]
    return pp.group(pp.nest(2, pp.concat(body)) + pp.text(" }"))


def _pp_jaxpr(jaxpr: Jaxpr, ctx: PpContext) -> pp.Doc:
    name = ctx.shared_jaxprs.get(jaxpr)
    return pp.text(name) if name is not None else _pp_skeleton(jaxpr, ctx)


def _pp_jaxprs(jaxprs: Sequence[Jaxpr | ClosedJaxpr], ctx: PpContext) -> pp.Doc:
    docs = [_pp_jaxpr(j.jaxpr if isinstance(j, ClosedJaxpr) else j, ctx) for j in jaxprs]
    inner = pp.nest(2, pp.concat([pp.text("("), pp.brk(""), pp.join(pp.brk(), docs)]))
    return pp.group(pp.concat([inner, pp.brk(""), pp.text(")")]))


def _shared_jaxprs(top: Jaxpr) -> list[tuple[str, Jaxpr]]:
    """Jaxprs printed once up front: those used more than once, and nested ones over 10 equations."""
    counts: dict[Jaxpr, int] = {}
    names: dict[Jaxpr, str] = {}
    queue = [top]
    while queue:
        j = queue.pop(0)
        counts[j] = counts.get(j, 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            # (JAX's printer names shared jaxprs from a ``name`` parameter: custom_jvp_call and
            # custom_vjp_call show a name but have no such parameter)
            name = eqn.params.get("name")
            subs = list(subjaxprs(eqn))
            queue.extend(subs)
            if isinstance(name, str):
                for s in subs:
                    names.setdefault(s, name.strip("<>"))
    taken: dict[str, int] = {}
    shared = []
    for j, c in counts.items():
        if c == 1:
            continue
        name = names.get(j, "jaxpr")
        count = taken.get(name, 0)
        taken[name] = count + 1
        if count:
            name += str(count)
            taken[name] = taken.get(name, 0) + 1
        shared.append((name, j))
    return shared


def pp_toplevel(jaxpr: Jaxpr, ctx: PpContext | None = None) -> pp.Doc:
    ctx = PpContext() if ctx is None else ctx
    docs = []
    if sharded_types:  # (the types of shared bodies' variables are the top-level program's)
        ctx.types.update(sharded_types.get(jaxpr, {}))
    for name, j in _shared_jaxprs(jaxpr):
        ctx.shared_jaxprs[j] = name
        ctx.shared_names.add(name)
    for j, name in list(ctx.shared_jaxprs.items()):
        docs.append(pp.concat([pp.text(f"let {name} = "), _pp_skeleton(j, ctx, 4), pp.text(" in"), pp.brk()]))
    ctx.top_level = {id(e) for e in jaxpr.eqns}
    docs.append(_pp_skeleton(jaxpr, ctx, 4))  # top-level equations start at column 4
    return pp.concat(docs)


PP_WIDTH = 80  # JAX's default width


def pp_jaxpr(jaxpr: Jaxpr, consts: Sequence[Value] = ()) -> str:
    return pp_toplevel(jaxpr).format(PP_WIDTH)


def pp_jaxpr_and_names(jaxpr: Jaxpr) -> tuple[str, dict[Var, str]]:
    """``str(jaxpr)`` and the names it gives the variables (sub-jaxprs included): one printing
    for views that show both, which must agree."""
    ctx = PpContext()
    return pp_toplevel(jaxpr, ctx).format(PP_WIDTH), ctx.var_names


def printed_names(jaxpr: Jaxpr) -> dict[Var, str]:
    """Var -> the name ``str(jaxpr)`` gives it (sub-jaxprs included), for views that must agree."""
    ctx = PpContext()
    pp_toplevel(jaxpr, ctx)
    return ctx.var_names


# ---------------------------------------------------------------------------------------------
# Evaluation: replay equations through `bind`, so evaluating a jaxpr under a transformation
# transforms it. Equations keep their source line while replayed.


# How many jaxprs are being replayed (``eval_jaxpr``) right now. JAX replays each equation in the
# context it was traced in (``eqn.ctx``), which sets the abstract mesh; its transformation caches
# key on that context, so a jitted function batched while a jaxpr is replayed (inside another
# batched jit) gets a jaxpr of its own, apart from the same function batched by ``vmap`` directly.
replaying = [0]


class as_traced:
    """Replay a jaxpr as JAX would trace the Python function it stands for (a custom_jvp or
    custom_vjp function under vmap: JAX calls the function, the engine replays its jaxpr): its
    equations see the caller's context, not a replay's."""

    def __enter__(self) -> None:
        self.saved = replaying[0]
        if self.saved == 0:
            replaying[0] = -1  # (eval_jaxpr's own count brings it back to 0)

    def __exit__(self, *exc: object) -> None:
        replaying[0] = self.saved


def eval_jaxpr(jaxpr: Jaxpr, args: Sequence[Value], consts: Sequence[Value] = ()) -> list[Value]:
    if transfers.active[0]:  # (a program's constants and literals are not transfers)
        with transfers.inside_program():
            return eval_jaxpr(jaxpr, args, consts)
    replaying[0] += 1
    try:
        return _eval_jaxpr(jaxpr, args, consts)
    finally:
        replaying[0] -= 1


def eval_jaxpr_with_consts(
    jaxpr: Jaxpr, consts: Sequence[Value], *args: Value, propagate_source_info: bool = True
) -> list[Value]:
    """JAX's ``jax.core.eval_jaxpr(jaxpr, consts, *args)`` (each equation runs under its own source
    line whatever ``propagate_source_info`` says)."""
    del propagate_source_info
    return eval_jaxpr(jaxpr, list(args), list(consts))


def _eval_jaxpr(jaxpr: Jaxpr, args: Sequence[Value], consts: Sequence[Value]) -> list[Value]:
    env: dict[Var, Value] = {}

    def read(x: Atom) -> Value:
        return x.val if type(x) is Literal else env[x]

    for v, val in zip(jaxpr.constvars, consts):
        env[v] = val
    for v, val in zip(jaxpr.in_binders, args):
        env[v] = val
    # Each equation runs under its own source line (``core.source_info_context``), set here directly:
    # the context manager's generator cost about a microsecond per interpreted equation.
    override = _source_info._source_override
    prev = getattr(override, "value", None)
    try:
        for eqn in jaxpr.eqns:
            info = eqn.source_info
            override.value = info if info is not None else prev
            outs = eqn.primitive.bind(*[read(x) for x in eqn.inputs], **eqn.params)
            if eqn.primitive.multiple_results:
                for v, o in zip(eqn.out_binders, outs):
                    env[v] = o
            else:
                env[eqn.out_binders[0]] = outs
    finally:
        override.value = prev
    return [read(x) for x in jaxpr.outs]


def eval_closed(closed: ClosedJaxpr, *args: Value) -> list[Value]:
    return eval_jaxpr(closed.jaxpr, args, closed.consts)


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Value]]:
    return lambda *args: eval_closed(closed, *args)


# ---------------------------------------------------------------------------------------------
# Checking and cleaning.


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
# Effects on mutable array refs: an equation whose sub-jaxprs hold one (a scan writing a ref it
# closes over) is kept too, though nothing reads its outputs.
ref_effects: set[core.Primitive] = set()


def has_ref_effects(jaxpr: Jaxpr) -> bool:
    return any(
        e.primitive in ref_effects or any(has_ref_effects(j) for j in subjaxprs(e)) for e in jaxpr.eqns
    )


def has_effects(jaxpr: Jaxpr) -> bool:
    """Whether an ``effectful`` equation is in ``jaxpr`` or its sub-jaxprs: a loop or branch that
    prints is kept, as JAX keeps an equation with effects, though nothing uses its outputs."""
    return any(e.primitive in effectful or any(has_effects(j) for j in subjaxprs(e)) for e in jaxpr.eqns)


# Equations staged code cannot run: ``rule(eqn)`` raises why (a bare ``checkify.check`` under jit).
lowering_refusals: dict[core.Primitive, Callable[[JaxprEqn], None]] = {}


def check_lowerable(jaxpr: Jaxpr) -> None:
    """Raise the refusal of the first equation (nested jaxprs included) staged code cannot run."""
    if not lowering_refusals:
        return
    for eqn in jaxpr.eqns:
        rule = lowering_refusals.get(eqn.primitive)
        if rule is not None:
            rule(eqn)
        for sub in subjaxprs(eqn):
            check_lowerable(sub)


# Per-primitive DCE of a kept equation: ``rule(eqn, used_outputs) -> eqn`` may drop dead equations
# of its sub-jaxprs and outputs nothing uses (scan drops unused carries, cond dead branch code).
dce_rules: dict[core.Primitive, Callable[[JaxprEqn, list[bool]], JaxprEqn]] = {}


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None, whole: bool = False) -> Jaxpr:
    """Drop equations whose outputs nothing uses; ``whole``: keep the equations left as they are
    (no DCE rule prunes their bodies), as a trace keeps the equations its outputs reach."""
    outs = jaxpr.outs if used_outputs is None else [o for o, u in zip(jaxpr.outs, used_outputs) if u]
    live = {x for x in outs if type(x) is Var}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if (
            eqn.primitive in effectful
            or any(v in live for v in eqn.out_binders)
            or any(has_effects(j) or (ref_effects and has_ref_effects(j)) for j in subjaxprs(eqn))
        ):
            rule = None if whole else dce_rules.get(eqn.primitive)
            if rule is not None:
                eqn = rule(eqn, [v in live for v in eqn.out_binders])
            kept.append(eqn)
            live.update(x for x in eqn.inputs if type(x) is Var)
    kept.reverse()
    return same_types(Jaxpr(jaxpr.constvars, jaxpr.in_binders, kept, outs), jaxpr)


def prune_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool]) -> tuple[Jaxpr, list[bool]]:
    """``dce_jaxpr``, then the inputs nothing reads any more dropped too (JAX's ``pe.dce_jaxpr``,
    a call primitive's DCE rule): the pruned jaxpr and which inputs it keeps."""
    body = dce_jaxpr(jaxpr, used_outputs)
    read = {x for e in body.eqns for x in e.inputs if type(x) is Var}
    read.update(x for x in body.outs if type(x) is Var)
    used_inputs = [v in read for v in body.in_binders]
    pruned = Jaxpr(
        body.constvars, [v for v, u in zip(body.in_binders, used_inputs) if u], body.eqns, body.outs
    )
    return same_types(pruned, jaxpr), used_inputs


def prune_residuals(j1: Jaxpr, j2: Jaxpr, num_res: int, whole: bool = False) -> tuple[Jaxpr, Jaxpr, int]:
    """Drop residuals the unknown side never reads (JAX DCEs the unknown jaxpr's inputs); tangent
    work that reaches no output (a ``stop_gradient``'s operand) is dead first, as in JAX's
    auto-DCE'd tangent trace, so the known side computes no residuals for it."""
    j2 = dce_jaxpr(j2, whole=whole)
    used = {x for e in j2.eqns for x in e.inputs if type(x) is Var} | {x for x in j2.outs if type(x) is Var}
    keep = [k for k, v in enumerate(j2.in_binders[:num_res]) if v in used]
    if len(keep) == num_res:
        return j1, j2, num_res
    n_known = len(j1.outs) - num_res
    res = j1.outs[n_known:]
    j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_known], *[res[k] for k in keep]])
    j2 = Jaxpr(j2.constvars, [*[j2.in_binders[k] for k in keep], *j2.in_binders[num_res:]], j2.eqns, j2.outs)
    return j1, j2, len(keep)


def same_types(new: Jaxpr, old: Jaxpr) -> Jaxpr:
    """``new``, a rewrite of ``old`` keeping its variables, printed with the same types (the
    shardings or varying axes ``sharded_types`` shows for them)."""
    types = sharded_types.get(old)
    if types is not None and new is not old:
        sharded_types[new] = types
    return new


def drop_unused_binders(jaxpr: Jaxpr) -> Jaxpr:
    """The same program with outputs nothing reads bound to ``_`` (as JAX's top-level traces are)."""
    used = {x for e in jaxpr.eqns for x in e.inputs if type(x) is Var}
    used.update(x for x in jaxpr.outs if type(x) is Var)
    eqns = [
        e
        if all(v in used for v in e.out_binders)
        else e._replace(out_binders=[v if v in used else DropVar(v.aval) for v in e.out_binders])
        for e in jaxpr.eqns
    ]
    return Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs)


def holds_jaxprs(params: dict[str, Any]) -> bool:
    """Whether equation ``params`` carry a body over its operands (a call's, control flow's; a
    scatter's ``update_jaxpr`` only combines two scalars: its operands are typed as any op's)."""

    def holds(v: Any) -> bool:
        return isinstance(v, (ClosedJaxpr, Jaxpr)) or (isinstance(v, (tuple, list)) and any(map(holds, v)))

    return any(holds(v) for k, v in params.items() if k != "update_jaxpr")


def subjaxprs(eqn: JaxprEqn) -> Iterator[Jaxpr]:
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
