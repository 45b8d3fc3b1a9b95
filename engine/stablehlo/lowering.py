"""Lowering a jaxpr to StableHLO text, one rule per primitive (``rules``), as JAX's ``mlir.py``.

A rule is ``rule(ctx, *operands, **params) -> list[Value]``: it emits operations into
``ctx.block`` with ``ctx.emit`` and returns one value per equation output. Literals become a
``stablehlo.constant`` at each use, constants of a closed jaxpr one each at the function's start,
and each ``jit`` call a private function (shared by calls of the same jaxpr), as JAX lowers them.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from .. import core, staging
from ..ir import ClosedJaxpr, Jaxpr, Literal, Var
from . import literals
from .syntax import Block, Op, Printer, Render, Spec, Value, functional_type

Rule = Callable[..., Sequence[Value]]
# primitive -> lowering rule (the rule modules add their rows on import)
rules: dict[core.Primitive, Rule] = {}


def register(prim: core.Primitive) -> Callable[[Rule], Rule]:
    def add(rule: Rule) -> Rule:
        rules[prim] = rule
        return rule

    return add


class Function:
    """One ``func.func``: its name, signature and body."""

    def __init__(self, name: str, public: bool | None, arg_types: Sequence[str]):
        self.name, self.public = name, public  # (None: no visibility, a function JAX builds itself)
        self.body = Block(arg_types, function_body=True)
        self.result_types: list[str] = []
        self.result_attrs: list[str] = []
        self.arg_attrs: list[str] = []
        self.outs: list[Value] = []  # (what its return returns, for the HLO printer)

    def text(self) -> str:
        p = Printer(self.body)
        args = []
        for i, a in enumerate(self.body.args):
            attr = self.arg_attrs[i] if i < len(self.arg_attrs) else ""
            args.append(f"{p(a)}: {a.type}" + (f" {{{attr}}}" if attr else ""))
        visibility = {True: "public ", False: "private ", None: ""}[self.public]
        sig = f"func.func {visibility}{symbol_ref(self.name)}({', '.join(args)})"
        if self.result_attrs:
            outs = [f"{t} {{{a}}}" if a else t for t, a in zip(self.result_types, self.result_attrs)]
            sig += f" -> ({', '.join(outs)})"
        elif len(self.result_types) == 1:
            sig += f" -> {self.result_types[0]}"
        elif self.result_types:
            sig += f" -> ({', '.join(self.result_types)})"
        return f"  {sig} {{\n{p.block(self.body, '    ')}  }}\n"


class Module:
    """The functions of one module, in the order JAX creates them (main first)."""

    def __init__(self) -> None:
        self.functions: list[Function] = []
        self._calls: dict[tuple[Any, ...], Function] = {}
        self._keep: list[Any] = []
        self._uniquing = 0
        self.callbacks = 0  # host callbacks emitted (each has its index; the module then has a mesh)  # (the jaxprs keyed by id stay alive while this module is built)
        self.mesh: tuple[tuple[str, ...], tuple[int, ...]] | None = None  # (axis names, sizes): @mesh
        self.manual: list[tuple[tuple[str, ...], tuple[int, ...]]] = []  # the shard_maps being lowered

    def add_function(
        self, name: str, public: bool | None, arg_types: Sequence[str], first: bool = False
    ) -> Function:
        """A new function (renamed as MLIR's symbol table renames a taken name), last in the module
        or, with ``first``, before all others (what JAX inserts at the module's beginning)."""
        taken = {f.name for f in self.functions}
        if name in taken:  # MLIR's SymbolTable: one counter for the whole module
            while f"{name}_{self._uniquing}" in taken:
                self._uniquing += 1
            name = f"{name}_{self._uniquing}"
            self._uniquing += 1
        fn = Function(name, public, arg_types)
        self.functions.insert(0 if first else len(self.functions), fn)
        return fn

    def private_function(self, closed: ClosedJaxpr | Jaxpr, name: str) -> Function:
        """The private function computing ``closed`` (made once per jaxpr and name)."""
        jaxpr = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
        consts = closed.consts if isinstance(closed, ClosedJaxpr) else []
        self._keep.append(closed)
        return self.function(
            (id(closed), name),
            name,
            [literals.aval_type(v.aval) for v in jaxpr.in_binders],
            lambda block: lower_jaxpr(self, block, jaxpr, consts, block.args),
        )

    def function(
        self,
        key: tuple[Any, ...],
        name: str,
        arg_types: Sequence[str],
        body: Callable[[Block], Sequence[Value]],
    ) -> Function:
        """The private function ``body`` emits, made once per ``key`` (JAX's cached lowerings)."""
        fn = self._calls.get(key)
        if fn is None:
            fn = self.add_function(name, False, arg_types)
            self._calls[key] = fn
            outs = list(body(fn.body))
            fn.result_types = [v.type for v in outs]
            fn.outs = outs
            emit(fn.body, [], _return_render("return", outs))
        return fn


def symbol_ref(name: str) -> str:
    """``@name``, quoted when the name is not a bare MLIR identifier (``@"<lambda>"``)."""
    if re.fullmatch(r"[A-Za-z_][\w$.]*", name):
        return "@" + name
    return '@"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _return_render(op_name: str, outs: Sequence[Value]) -> Render:
    def render(p: Printer) -> str:
        if not outs:
            return op_name
        return f"{op_name} {p.list(outs)} : {', '.join(v.type for v in outs)}"

    return render


def emit(
    block: Block,
    result_types: Sequence[str],
    render: Render,
    regions: Sequence[Block] = (),
    hint: str | None = None,
    arg_hint: str | None = None,
    result_hints: Sequence[str] | None = None,
    spec: Spec | None = None,
) -> list[Value]:
    op = Op(result_types, render, regions, hint, arg_hint)
    op.result_hints = result_hints
    op.spec = spec
    block.ops.append(op)
    return op.results


def constant(block: Block, value: Any, dtype: Any, shape: Sequence[int] | None = None) -> Value:
    """A ``stablehlo.constant`` (``%c`` for integers and booleans, ``%cst`` otherwise)."""
    arr = np.asarray(value, dtype=dtype)
    if shape is not None and arr.shape != tuple(shape):
        arr = np.broadcast_to(arr, shape)
    ty = literals.tensor_type(arr.shape, arr.dtype)
    text = f"stablehlo.constant {literals.dense_text(arr, arr.dtype)} : {ty}"
    hint = "c" if arr.dtype.kind in "biu" else "cst"
    spec = Spec("stablehlo.constant", [], {"value": arr})
    return emit(block, [ty], lambda p: text, hint=hint, spec=spec)[0]


class RuleContext:
    """What a rule is told: where to emit, the equation's types, and the module (for calls)."""

    def __init__(
        self, module: Module, block: Block, avals_in: Sequence[Any], avals_out: Sequence[Any], prim: Any
    ):
        self.module, self.block = module, block
        self.avals_in, self.avals_out = avals_in, avals_out
        self.primitive = prim

    @property
    def out_types(self) -> list[str]:
        return [literals.aval_type(a) for a in self.avals_out]

    def emit(
        self,
        result_types: Sequence[str],
        render: Render,
        regions: Sequence[Block] = (),
        hint: str | None = None,
        arg_hint: str | None = None,
        result_hints: Sequence[str] | None = None,
        spec: Spec | None = None,
    ) -> list[Value]:
        return emit(self.block, result_types, render, regions, hint, arg_hint, result_hints, spec)

    def constant(self, value: Any, dtype: Any, shape: Sequence[int] | None = None) -> Value:
        return constant(self.block, value, dtype, shape)

    def call(self, fn: Function, args: Sequence[Value]) -> list[Value]:
        """``call @fn(args)`` (``func.call`` inside a region of another operation)."""
        op = "call" if self.block.function_body else "func.call"
        types = functional_type([a.type for a in args], fn.result_types)
        return self.emit(fn.result_types, lambda p: f"{op} {symbol_ref(fn.name)}({p.list(args)}) : {types}")

    def cached_call(
        self,
        name: str,
        args: Sequence[Value],
        body: Callable[["RuleContext", Sequence[Value]], Sequence[Value]],
        key: Any = (),
    ) -> list[Value]:
        """JAX's ``cache_lowering``: the rule's operations in a private function named after the
        primitive, made once per signature and ``key``, and a call to it."""
        types = [a.type for a in args]
        fn = self.module.function(
            ("cached", name, tuple(types), key), name, types, lambda block: body(self.at(block), block.args)
        )
        outs = self.call(fn, args)
        if outs:  # (what the HLO printer reads; transforms: lower_jaxpr's, when the staging is known)
            attrs = {"callee": fn, "name": name, "transforms": None, "cached": True}
            outs[0].op.spec = Spec("func.call", list(args), attrs)  # type: ignore[union-attr]
        return outs

    def at(self, block: Block) -> "RuleContext":
        """The same context emitting into another block (a region's body)."""
        return RuleContext(self.module, block, self.avals_in, self.avals_out, self.primitive)

    def lower_jaxpr(
        self, block: Block, jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Value], consts: Sequence[Any] = ()
    ) -> list[Value]:
        """Lower a sub-jaxpr inline into ``block`` (region bodies)."""
        if isinstance(jaxpr, ClosedJaxpr):
            jaxpr, consts = jaxpr.jaxpr, jaxpr.consts
        return lower_jaxpr(self.module, block, jaxpr, consts, args)


def op_text(name: str, operands: Sequence[Value], result_types: Sequence[str], attrs: str = "") -> Render:
    """An operation in MLIR's generic form: ``"stablehlo.case"(%0) ... : (types) -> type``."""

    def render(p: Printer) -> str:
        a = f" {{{attrs}}}" if attrs else ""
        return (
            f'"{name}"({p.list(operands)}){a} : {functional_type([v.type for v in operands], result_types)}'
        )

    return render


def lower_jaxpr(
    module: Module, block: Block, jaxpr: Jaxpr, consts: Sequence[Any], args: Sequence[Value]
) -> list[Value]:
    """Emit ``jaxpr``'s equations into ``block``; returns the values of its outputs."""
    env: dict[Var, Value] = {}
    for v, c in zip(jaxpr.constvars, consts):
        env[v] = _const_value(block, c, v.aval)
    for v, a in zip(jaxpr.in_binders, args):
        env[v] = a

    def read(x: Any) -> Value:
        if type(x) is Literal:
            return constant(block, x.val, x.aval.dtype, x.aval.shape)
        return env[x]

    for eqn in jaxpr.eqns:
        rule = rules.get(eqn.primitive)
        if rule is None:  # (a primitive a user lowers with engine.extend.mlir: what the rule builds)
            from .rules_user import user_rule

            rule = user_rule(eqn.primitive)
        if rule is None:
            raise NotImplementedError(
                f"StableHLO text for primitive '{eqn.primitive.name}' is not implemented in the engine "
                "(Lowered.as_text() prints the module JAX would; this program uses a primitive it "
                "cannot print yet)"
            )
        ins = [read(x) for x in eqn.inputs]
        ctx = RuleContext(
            module, block, [x.aval for x in eqn.inputs], [v.aval for v in eqn.out_binders], eqn.primitive
        )
        first = len(block.ops)
        outs = list(rule(ctx, *ins, **eqn.params))
        assert len(outs) == len(eqn.out_binders), (eqn.primitive, len(outs))
        for op in block.ops[first:]:  # (JAX's location: the equation's primitive names them in HLO)
            if op.source is None:
                op.source = eqn.primitive.name
        call = outs[0].op.spec if outs and outs[0].op is not None else None
        if call is not None and call.attrs.get("cached"):  # (staged under no transformation: named jit(f))
            plain = all(v.count in staging.plain_stagings for v in eqn.out_binders)
            call.attrs["transforms"] = () if plain else None
        if call is not None and call.attrs.get("transforms") and getattr(eqn.source_info, "scope", ""):
            call.attrs["transforms"] = None  # (a named scope inside a transformation: jvp(scope)/...)
        metadata = eqn.source_info.xla_metadata if eqn.source_info is not None else ()
        if metadata:  # JAX's wrap_xla_metadata_in_place: on the operations computing the outputs
            for o in outs:
                if o.op is not None:
                    o.op.frontend = {**dict(metadata), **o.op.frontend}
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


def _const_value(block: Block, c: Any, aval: Any) -> Value:
    from ..state import is_ref

    if is_ref(c) or not isinstance(aval, core.ShapedArray):
        raise NotImplementedError(
            f"StableHLO text for a closed-over {type(c).__name__} ({aval}) is not implemented in the engine"
        )
    return constant(block, np.asarray(c), aval.dtype, aval.shape)
