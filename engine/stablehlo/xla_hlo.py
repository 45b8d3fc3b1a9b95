"""XLA's HLO text for a lowered program (``jit(f).lower(x).as_text("hlo")``), from the StableHLO
module the engine builds (``engine.stablehlo``), as JAX 0.10.2 prints it.

JAX hands its StableHLO module to XLA, which canonicalizes it (MLIR's greedy rewriter: constants
uniqued and hoisted, ``x * 1`` folded, a broadcast constant made a splat) and converts it to HLO.
This module reads the engine's operations (their ``Spec``: name, operands, attributes) and
reproduces that for the programs whose conversion it knows exactly: one computation of
elementwise operations, constants, broadcasts, comparisons, selects, converts, reshapes, slices,
concatenations, dots, iotas and FFI custom calls. Anything else (regions, calls, several constants
whose hoisting order would decide their names, folds it does not model) raises
NotImplementedError naming what it cannot print.

>>> import engine as jax, engine.numpy as jnp
>>> print(jax.jit(lambda x, y: jnp.sin(x) * y).lower(1.0, 2.0).as_text("hlo"))
HloModule jit__lambda, entry_computation_layout={(f32[], f32[])->f32[]}
<BLANKLINE>
ENTRY main.1 {
  x.1 = f32[] parameter(0)
  sin.1 = f32[] sine(x.1)
  y.1 = f32[] parameter(1)
  ROOT mul.1 = f32[] multiply(sin.1, y.1)
}
<BLANKLINE>
<BLANKLINE>
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

import numpy as np

from .syntax import Op, Value

# StableHLO operation -> HLO opcode, for the operations printed as ``opcode(operands)`` alone
_PLAIN = {
    **{f"stablehlo.{n}": n for n in [
        "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "atan2", "and",
        "or", "xor", "negate", "sign", "floor", "ceil", "exponential", "log", "tanh", "sine", "cosine",
        "tan", "sqrt", "rsqrt", "cbrt", "abs", "not", "power", "convert", "select", "clamp", "reshape",
        "real", "imag", "complex",
    ]},
    "stablehlo.log_plus_one": "log-plus-one", "stablehlo.exponential_minus_one": "exponential-minus-one",
    "stablehlo.is_finite": "is-finite", "stablehlo.shift_left": "shift-left",
    "stablehlo.shift_right_logical": "shift-right-logical",
    "stablehlo.shift_right_arithmetic": "shift-right-arithmetic", "stablehlo.popcnt": "popcnt",
    "stablehlo.round_nearest_even": "round-nearest-even", "stablehlo.round_nearest_afz": "round-nearest-afz",
}  # fmt: skip
_KEEPS_INTEGER_CONSTANTS = {
    "stablehlo.reduce", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.pad",
    "stablehlo.compare", "stablehlo.select", "stablehlo.concatenate",
}  # fmt: skip
_COMMUTATIVE = {"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
                "stablehlo.and", "stablehlo.or", "stablehlo.xor"}  # fmt: skip
_DTYPES = {"bool": "pred", "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
           "complex64": "c64", "complex128": "c128"}  # fmt: skip


class _Instr:
    """One HLO instruction: its name's root, its shape's text, opcode, operands and attributes' text
    (``name``: as ``_Module`` gives it)."""

    def __init__(self, root: str, aval: str, opcode: str, operands: list, attrs: str = ""):
        self.root, self.aval, self.opcode, self.operands, self.attrs = root, aval, opcode, operands, attrs
        self.frontend: dict[str, str] = {}
        self.name = ""


def _refuse(what: str) -> NotImplementedError:
    return NotImplementedError(f"HLO text for {what} is not implemented in the engine")


def _parse_type(t: str) -> tuple[tuple[int, ...], str]:
    m = re.fullmatch(r"tensor<((?:\d+x)*)([a-z0-9]+)>", t)
    if m is None:
        raise _refuse(f"a value of type {t}")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


def _element(mlir: str) -> str:
    if mlir == "i1":
        return "pred"
    m = re.fullmatch(r"(ui|i|f|bf)(\d+)", mlir)
    if m is None:
        raise _refuse(f"elements of type {mlir}")
    kind = {"ui": "u", "i": "s", "f": "f", "bf": "bf"}[m.group(1)]
    return kind + m.group(2)


def shape_text(t: str) -> str:
    """``f32[2,3]{1,0}``: the type with XLA's default (major-to-minor) layout."""
    dims, el = _parse_type(t)
    layout = "{" + ",".join(str(d) for d in reversed(range(len(dims)))) + "}" if dims else ""
    return f"{_element(el)}[{','.join(map(str, dims))}]{layout}"


def _tuple_text(shapes: Sequence[str]) -> str:
    parts = [("/*index=%d*/" % i if i and i % 5 == 0 else "") + s for i, s in enumerate(shapes)]
    return "(" + ", ".join(parts) + ")"


# Primitives JAX lowers by tracing a function (mlir.lower_fun): their operations are named after the
# traced function's primitives, which the engine's rules do not record.
_TRACED_LOWERINGS = {
    "random_seed", "random_bits", "random_split", "random_fold_in", "random_wrap", "random_unwrap",
    "threefry2x32", "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "igamma", "igammac",
    "igamma_grad_a", "random_gamma_grad", "bessel_i0e", "bessel_i1e", "regularized_incomplete_beta",
    "polygamma", "zeta", "erf_inv",
}  # fmt: skip


def _sanitize(name: str) -> str:
    """XLA's NameUniquer: characters other than letters, digits, ``_``, ``.``, ``-`` become ``_``."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    if re.search(r"\.\d+$", name) or not name:
        raise _refuse(f"an instruction named {name!r}")
    return name


def literal_text(arr: np.ndarray) -> str:
    """An HLO literal: ``2``, ``0.5``, ``1e-06``, ``inf``, ``true``; arrays ``{1, 2}``, ``{ { 1, 2 }, { 3, 4 } }``,
    ``{ {1}, {3} }`` (recorded from XLA's printer)."""

    def one(v: Any) -> str:
        if arr.dtype == np.bool_:
            return "true" if v else "false"
        if arr.dtype.kind in "iu":
            return str(int(v))
        if arr.dtype.kind != "f" or arr.dtype.itemsize < 4:
            raise _refuse(f"a constant of dtype {arr.dtype}")
        return _float_text(arr.dtype.type(v))

    def nested(a: np.ndarray, top: bool) -> str:  # (an inner row of one element has no spaces)
        if a.ndim > 1:
            return "{ " + ", ".join(nested(sub, False) for sub in a) + " }"
        inner = ", ".join(one(v) for v in a)
        return "{" + inner + "}" if top or len(a) == 1 else "{ " + inner + " }"

    if arr.ndim == 0:
        return one(arr[()])
    if arr.size == 0:
        raise _refuse("an empty constant")
    return nested(arr, True)


def _float_text(v: np.floating) -> str:
    """TSL's FloatToBuffer/DoubleToBuffer: ``%.6g`` (``%.15g``) when it reads back as the same value,
    else ``%.9g`` (``%.17g``)."""
    if np.isnan(v):
        return "nan" if not np.signbit(v) else "-nan"
    short, full = (6, 9) if v.dtype == np.float32 else (15, 17)
    text = "%.*g" % (short, float(v))
    if v.dtype.type(float(text)) != v:
        text = "%.*g" % (full, float(v))
    return text


def _pure_reshape(t_in: str, t_out: str, dims: Sequence[int] | None) -> bool:
    """A broadcast_in_dim that only adds unit dimensions (XLA's canonicalizer makes it a reshape)."""
    a, b = _parse_type(t_in)[0], _parse_type(t_out)[0]
    return dims is not None and int(np.prod(a)) == int(np.prod(b))


def _special_integer(c: np.ndarray) -> bool:
    if c.dtype.kind not in "biu":
        return False
    ones = np.iinfo(c.dtype).max if c.dtype.kind == "u" else -1
    return any(_is_splat(c, v) for v in (0, 1, -1, ones))


def _is_splat(arr: np.ndarray, value: Any) -> bool:
    return (
        arr.size > 0 and bool(np.all(arr == value)) and not (arr.dtype.kind == "f" and np.signbit(arr).any())
    )


class _Canonical:
    """The main function's operations after what XLA's canonicalization does to them, as far as
    this module models it (recorded from JAX 0.10.2 in tests/hlo_text):

    1. each constant is uniqued (later equal ones use the first) and hoisted, walking the block
       forward: moved to the block's start unless it is first or follows one already hoisted;
    2. rewrites, forward: a broadcast of a scalar constant becomes a splat constant in its place,
       ``x * 1``, ``x + 0``,
       ``x - 0`` become ``x``, a commutative operation takes its constant operand second; constants
       left unused are erased;
    3. the constants are uniqued and hoisted again, in the block's order then.

    What it does not model (folds of constants, merged reshapes and broadcasts, ...) is refused."""

    def __init__(self, ops: Sequence[Op], outs: Sequence[Value], entry: bool = True):
        self.entry = entry  # (the main function: a callee's literals have other locations)
        self.replaced: dict[Value, Value] = {}
        self.splats: dict[Op, tuple[np.ndarray, str]] = {}  # splat constant -> (scalar, type)
        self.args: dict[Op, list[Value]] = {}  # operands reordered by a rewrite
        self.inlined: set[Op] = set()  # constants of a case's branch, inlined
        block = self._inline_constant_cases(ops)
        for op in block:
            if op.spec is None or (op.regions and op.spec.name != "stablehlo.reduce"):
                raise _refuse(f"'{_op_name(op)}'")
        self.outs = list(outs)
        self._unique_and_hoist(block)
        for op in list(block):
            if op in block and not self._is_constant(op):
                self._rewrite(block, op)
        self._erase_dead(block)
        if any(op in self.inlined for op in block):  # (hoisted from the case's region: not modelled)
            raise _refuse("a constant of a stablehlo.case branch XLA inlines")
        self._unique_and_hoist(block)
        self.order = block
        self.outs = [self.value(v) for v in self.outs]

    def _inline_constant_cases(self, ops: Sequence[Op]) -> list[Op]:
        """A ``stablehlo.case`` of a constant index is its branch's operations (an index out of
        range takes the last branch), as XLA's canonicalizer inlines it."""
        out: list[Op] = []
        for op in ops:
            if op.spec is None or op.spec.name != "stablehlo.case":
                out.append(op)
                continue
            index = self.constant(self.value(op.spec.operands[0]))
            if index is None:
                raise _refuse("'stablehlo.case' (a conditional)")
            k, n = int(index), len(op.regions)
            body = op.regions[k if 0 <= k < n else n - 1].ops
            ret = body[-1]
            assert ret.spec is not None and ret.spec.name == "stablehlo.return"
            inner = self._inline_constant_cases(body[:-1])
            self.inlined.update(o for o in inner if self._is_constant(o))
            out += inner
            for r, v in zip(op.results, ret.spec.operands):
                self.replaced[r] = self.value(v)
        return out

    def _unique_and_hoist(self, block: list[Op]) -> None:
        known: dict[tuple, Op] = {}
        owned: set[Op] = set()
        for op in [o for o in block if self._is_constant(o)]:
            key = self._key(op)
            if key in known:
                self.replaced[op.results[0]] = known[key].results[0]
                block.remove(op)
                continue
            i = block.index(op)
            if i > 0 and block[i - 1] not in owned:
                block.remove(op)
                block.insert(0, op)
            known[key] = op
            owned.add(op)

    def _key(self, op: Op) -> tuple:
        if op in self.splats:
            scalar, ty = self.splats[op]
            return (ty, "splat", scalar.dtype.str, scalar.tobytes())
        assert op.spec is not None
        arr = op.spec.attrs["value"]
        return (op.results[0].type, arr.dtype.str, arr.tobytes())

    def _rewrite(self, block: list[Op], op: Op) -> None:
        spec = op.spec
        assert spec is not None
        ins = [self.value(v) for v in spec.operands]
        consts = [self.constant(v) for v in ins]
        name, result = spec.name, op.results[0]
        if name == "func.call":  # (a call is not folded, nor erased)
            return
        if name == "stablehlo.broadcast_in_dim" and consts[0] is not None:
            if consts[0].ndim != 0:
                raise _refuse("a broadcast of a non-scalar constant")
            self.splats[op] = (consts[0], result.type)  # (in the broadcast's place)
            return
        if consts and all(c is not None for c in consts):
            raise _refuse(f"'{name}' of constants (XLA folds it)")
        if name in _COMMUTATIVE and len(ins) == 2 and consts[0] is not None:
            if not self._folds(name, consts[0], first=True):
                # (the swapped operation keeps its name for these; an add of a constant that is
                # not a splat made from a broadcast takes the constant's location too: not modelled)
                splat = ins[0].op in self.splats
                if name not in ("stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum") and not (
                    name == "stablehlo.add" and splat
                ):
                    raise _refuse(f"'{name}' with a constant first operand (XLA swaps and may rename it)")
                # (a multiply swapped with a constant that is not a splat made from a broadcast is
                # renamed after both, mul_jit_f_, when other operations use it; recorded: kept when
                # it is only an output of the main function)
                if name == "stablehlo.multiply" and not splat:
                    if not self.entry or self._used_by_operations(block, result):
                        raise _refuse("a multiply swapped with a constant, used further (XLA renames it)")
                ins, consts = ins[::-1], consts[::-1]
                self.args[op] = ins
        for kept, c, first in (
            ((ins[0], consts[1], False), (ins[1], consts[0], True)) if len(ins) == 2 else ()
        ):
            if c is not None and self._folds(name, c, first):
                if self._renamed(kept.op):
                    raise _refuse(
                        f"a folded '{name}' of an operation swapped with a constant (XLA renames it)"
                    )
                self.replaced[result] = kept
                block.remove(op)
                return
        if name == "stablehlo.select" and ins[1] is ins[2]:  # (both branches the same value)
            kept_op = ins[1].op
            if self._renamed(kept_op):
                raise _refuse("a folded select of an operation swapped with a constant (XLA renames it)")
            self.replaced[result] = ins[1]
            block.remove(op)
            return
        if name == "stablehlo.concatenate" and any(
            v.op is not None and v.op.spec is not None and v.op.spec.name == name for v in ins
        ):
            raise _refuse("a concatenate of a concatenate (XLA merges them)")
        if name == "stablehlo.compare" and any(c is not None and c.dtype == np.bool_ for c in consts):
            raise _refuse("a comparison with a boolean constant (XLA may fold it)")
        if name in ("stablehlo.power", "stablehlo.select") and any(c is not None for c in consts[:2]):
            raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
        if name == "stablehlo.dynamic_slice" and all(c is not None for c in consts[1:]):
            raise _refuse("a dynamic_slice at constant indices (XLA makes it a slice)")
        if name == "stablehlo.dynamic_update_slice" and ins[1].type == ins[0].type:
            raise _refuse("a dynamic_update_slice of the whole operand (XLA folds it)")
        if name == "stablehlo.pad" and all(c == 0 for cfg in spec.attrs["config"] for c in cfg):
            raise _refuse("a pad of nothing (XLA removes it)")
        # (arithmetic and bitwise identities; comparisons, selects, indices and inits are kept)
        if name not in _KEEPS_INTEGER_CONSTANTS and any(
            c is not None and _special_integer(c) for c in consts
        ):
            raise _refuse(f"'{name}' of an integer constant 0, 1, -1 or all ones (XLA may simplify it)")
        if name in (
            "stablehlo.convert",
            "stablehlo.reshape",
            "stablehlo.broadcast_in_dim",
            "stablehlo.slice",
        ):
            dims = spec.attrs.get("dims")
            if result.type == ins[0].type and (dims is None or list(dims) == list(range(len(dims)))):
                kept_op = ins[0].op  # (an operation to its operand's type: removed)
                if self._renamed(kept_op):
                    raise _refuse(
                        f"a removed '{name}' of an operation swapped with a constant (XLA renames it)"
                    )
                self.replaced[result] = ins[0]
                block.remove(op)
                return
            if name in ("stablehlo.convert", "stablehlo.slice"):
                return
            producer = ins[0].op
            before = producer.spec.name if producer is not None and producer.spec is not None else ""
            if before == "stablehlo.broadcast_in_dim" and producer is not None and producer.spec is not None:
                if _pure_reshape(producer.spec.operands[0].type, ins[0].type, producer.spec.attrs["dims"]):
                    before = "stablehlo.reshape"  # (canonicalized first: a reshape by now)
            reshapes = name == "stablehlo.reshape" or _pure_reshape(ins[0].type, result.type, dims)
            if before == "stablehlo.broadcast_in_dim" or (reshapes and before == "stablehlo.reshape"):
                raise _refuse(f"'{name}' of a '{before}' (XLA merges them)")
            if dims is not None and reshapes and list(dims) != sorted(dims):
                raise _refuse("a broadcast_in_dim that transposes")

    def _used_by_operations(self, block: list[Op], v: Value) -> bool:
        return any(v in (o.spec.operands if o.spec else []) for o in block)

    def _renamed(self, kept_op: Op | None) -> bool:
        """An operation a rewrite swapped with a constant that is not a splat made from a broadcast
        (recorded: when a fold or a removal then keeps it in another's place, XLA names it after
        both locations, mul_jit_f_)."""
        swapped = self.args.get(kept_op) if kept_op is not None else None
        return swapped is not None and (swapped[1].op is None or swapped[1].op not in self.splats)

    @staticmethod
    def _folds(name: str, c: np.ndarray, first: bool) -> bool:
        """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``: the canonicalizer's identities."""
        if name == "stablehlo.multiply":
            return _is_splat(c, 1)
        if name == "stablehlo.add" or (name == "stablehlo.subtract" and not first):
            return _is_splat(c, 0)
        return False

    def _erase_dead(self, block: list[Op]) -> None:
        """Operations left unused by the rewrites are erased (all are pure: no side effects here)."""
        self.outs = [self.value(v) for v in self.outs]
        while True:
            used = {id(u) for op in block for u in self.operands(op)} | {id(o) for o in self.outs}
            live = [op for op in block if _is_call(op) or any(id(r) in used for r in op.results)]
            if len(live) == len(block):
                return
            block[:] = live

    def value(self, v: Value) -> Value:
        while v in self.replaced:
            v = self.replaced[v]
        return v

    def constant(self, v: Value) -> np.ndarray | None:
        op = v.op
        if op is None or op.spec is None:
            return None
        if op in self.splats:
            scalar, ty = self.splats[op]
            return np.broadcast_to(scalar, _parse_type(ty)[0])
        if op.spec.name == "stablehlo.constant":
            return op.spec.attrs["value"]
        return None

    def _is_constant(self, op: Op) -> bool:
        return op in self.splats or (op.spec is not None and op.spec.name == "stablehlo.constant")

    def operands(self, op: Op) -> list[Value]:
        if op in self.splats:
            return []
        if op in self.args:
            return [self.value(v) for v in self.args[op]]
        assert op.spec is not None
        return [self.value(v) for v in op.spec.operands]


def _is_call(op: Op) -> bool:
    return op.spec is not None and op.spec.name == "func.call"


def _op_name(op: Op) -> str:
    """The operation's name, read from the start of its text (for an operation with no ``Spec``)."""
    if op.spec is not None:
        return op.spec.name
    text = op.render(_AnyNames())  # type: ignore[arg-type]
    return text.split("(")[0].split()[0].strip('"')


class _AnyNames:
    """A stand-in for the StableHLO printer that names every value ``%_`` (to read an op's name)."""

    indent = ""

    def __call__(self, v: Value) -> str:
        return "%_"

    def list(self, vs: Sequence[Value]) -> str:
        return ", ".join("%_" for _ in vs)

    def block(self, block: Any, indent: str) -> str:
        return ""


class _Module:
    """XLA's naming as the converter and the module give it (recorded from JAX 0.10.2): every name
    comes from one counter per root (``add``, ``add.1``, ...); an instruction is named when the
    converter makes it, and each computation, once converted (a region or callee first, when the
    operation using it is reached), names all its instructions again in the order they were made;
    computations are numbered in the order they are finished (``region_0.1``, ``main.2``)."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.texts: list[str] = []
        self.regions = 0  # (the next region's index)
        self.callees: dict[Any, str] = {}  # a called function -> its computation's name
        self.last_title = ""

    def fresh(self, root: str) -> str:
        n = self.counts[root]
        self.counts[root] += 1
        return f"{root}.{n}" if n else root

    def instr(self, made: list[_Instr], ins: _Instr) -> _Instr:
        ins.name = self.fresh(ins.root)
        made.append(ins)
        return ins

    def finish(self, name: str, made: list[_Instr], root: _Instr, entry: bool = False) -> str:
        for ins in made:
            ins.name = self.fresh(ins.root)
        title = self.last_title = f"{name}.{len(self.texts) + 1}"
        lines = [_line(ins, ins is root) for ins in _post_order(made)]
        self.texts.append(
            ("ENTRY " if entry else "") + title + " {\n" + "".join(f"  {x}\n" for x in lines) + "}\n\n"
        )
        return title


def module_hlo_text(
    module_name: str, main: Any, outs: Sequence[Value], arg_names: Sequence[str], ops: Sequence[Op]
) -> str:
    """The HLO text of a module: ``main``'s body ``ops`` returning ``outs``, and the functions it calls."""
    module = _Module()
    params, root = _computation(module, "main", main.body.args, ops, outs, arg_names, entry=True)
    layout = f"{{{_tuple_text([p.aval for p in params])}->{root.aval}}}"
    return f"HloModule {module_name}, entry_computation_layout={layout}\n\n" + "".join(module.texts)


def _computation(
    module: _Module,
    name: str,
    args: Sequence[Value],
    ops: Sequence[Op],
    outs: Sequence[Value],
    arg_names: Sequence[str],
    entry: bool = False,
) -> tuple[list[_Instr], _Instr]:
    """Converts one function (its callees first, when their first call is reached): its
    parameters and root."""
    canon = _Canonical(ops, outs, entry)
    outs = canon.outs
    made: list[_Instr] = []
    of: dict[Value, _Instr] = {}
    for i, a in enumerate(args):
        of[a] = module.instr(
            made, _Instr(_sanitize(arg_names[i]), shape_text(a.type), "parameter", [], f"({i})")
        )
    params = list(made)
    for op in canon.order:
        if op.spec is not None and op.spec.name == "func.call":
            _call(op, [of[v] for v in canon.operands(op)], of, module, made)
            continue
        for ins in _convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]
    if not outs:
        raise _refuse("a function without outputs")
    if len(outs) == 1:
        root = of[outs[0]]
    else:
        root = _Instr("tuple", _tuple_text([of[v].aval for v in outs]), "tuple", [of[v] for v in outs])
        module.instr(made, root)
    for t in (i for i in made if i.opcode == "transpose"):  # (how layouts propagate: not modelled)
        if not entry or any(t in i.operands and not (i is root and i.opcode == "tuple") for i in made):
            raise _refuse("a transpose whose result is used (its layout would propagate)")
    module.finish(name, made, root, entry=entry)
    return params, root


def _call(op: Op, ins: list[_Instr], of: dict[Value, _Instr], module: _Module, made: list[_Instr]) -> None:
    """A call of a jitted function: the callee's computation (converted at its first call), the
    call named after JAX's location ``jit(<name>)``, and a get-tuple-element per result when the
    callee returns several (all of them, used or not)."""
    assert op.spec is not None
    a = op.spec.attrs
    if a["transforms"] is None:
        raise _refuse("a call staged where JAX's name for it is not known (under vmap of grad, ...)")
    fn = a["callee"]
    title = module.callees.get(fn)
    if title is None:
        names = [f"Arg_{i}" for i in range(len(fn.body.args))]
        body = fn.body.ops[:-1]  # (without its return)
        _computation(module, _sanitize(fn.name), fn.body.args, body, fn.outs, names)
        title = module.callees[fn] = module.last_title
    location = f"jit({a['name']})"
    for t in reversed(a["transforms"]):  # (JAX's: jvp(jit(f)), transpose(jvp(jit(f))), ...)
        location = f"{t}({location})"
    root = _sanitize(location)
    shapes = [shape_text(r.type) for r in op.results]
    aval = shapes[0] if len(shapes) == 1 else _tuple_text(shapes)
    call = module.instr(made, _Instr(root, aval, "call", ins, f", to_apply={title}"))
    call.frontend = op.frontend
    if len(op.results) == 1:
        of[op.results[0]] = call
        return
    for i, r in enumerate(op.results):
        of[r] = module.instr(made, _Instr(root, shapes[i], "get-tuple-element", [call], f", index={i}"))


def _convert(op: Op, canon: _Canonical, of: dict[Value, _Instr], module: _Module) -> list[_Instr]:
    spec = op.spec
    assert spec is not None
    ty = shape_text(op.results[0].type)
    if op in canon.splats:
        scalar, _ = canon.splats[op]
        dims = _parse_type(op.results[0].type)[0]
        if int(np.prod(dims)) == 1:  # (one element: the converter writes it out, {1} or { {1} })
            return [_Instr("constant", ty, "constant", [], f"({literal_text(np.full(dims, scalar))})")]
        c = _Instr("constant", shape_text(f"tensor<{_parse_type(op.results[0].type)[1]}>"), "constant", [])
        c.attrs = f"({literal_text(np.asarray(scalar))})"
        b = _Instr("broadcast", ty, "broadcast", [c], ", dimensions={}")
        return [c, b]
    ins = [of[v] for v in canon.operands(op)]
    if op.source in _TRACED_LOWERINGS:
        raise _refuse(f"the operations of '{op.source}' (JAX names them after the function it traces)")
    name = _sanitize(op.source or "constant")  # (an operation no equation made: a literal's constant)
    a = spec.attrs
    if spec.name == "stablehlo.constant":
        out = _Instr("constant", ty, "constant", [])
        out.attrs = f"({literal_text(a['value'])})"
    elif spec.name == "stablehlo.select" and _rank(spec.operands[0]) < _rank(op.results[0]):
        # (a scalar predicate: the converter broadcasts it, under the select's name)
        pred = _Instr(
            name, ty.replace(ty[: ty.index("[")], "pred", 1), "broadcast", [ins[0]], ", dimensions={}"
        )
        out = _Instr(name, ty, "select", [pred, *ins[1:]])
        out.frontend = op.frontend
        return [pred, out]
    elif spec.name in _PLAIN:
        out = _Instr(name, ty, _PLAIN[spec.name], ins)
    elif spec.name == "chlo.square" and _parse_type(op.results[0].type)[1].startswith("f"):
        out = _Instr(name, ty, "multiply", [ins[0], ins[0]])  # (XLA's expansion for real numbers)
    elif spec.name == "stablehlo.broadcast_in_dim":
        return _broadcast(op, name, ins, a["dims"])
    elif spec.name == "stablehlo.compare":
        if a["type"] == "TOTALORDER":
            raise _refuse("a TOTALORDER compare")
        out = _Instr(name, ty, "compare", ins, f", direction={a['direction']}")
    elif spec.name == "stablehlo.slice":
        parts = zip(a["start"], a["limit"], a["strides"])
        strided = any(s != 1 for s in a["strides"])
        text = ", ".join(f"[{b}:{e}:{s}]" if strided else f"[{b}:{e}]" for b, e, s in parts)
        out = _Instr(name, ty, "slice", ins, f", slice={{{text}}}")
    elif spec.name == "stablehlo.concatenate":
        out = _Instr(name, ty, "concatenate", ins, f", dimensions={{{a['dimension']}}}")
    elif spec.name == "stablehlo.iota":
        dims, el = _parse_type(op.results[0].type)
        d = a["dimension"]
        if dims[d] == 1:
            raise _refuse("an iota of one element (XLA makes it a constant)")
        if len(dims) > 1:  # (XLA's canonical iota is one-dimensional, broadcast to the others)
            line = _Instr(name, shape_text(f"tensor<{dims[d]}x{el}>"), "iota", [], ", iota_dimension=0")
            if int(np.prod(dims)) == dims[d]:  # (only unit dimensions added: a reshape)
                out = _Instr(name, ty, "reshape", [line])
            else:
                out = _Instr(name, ty, "broadcast", [line], f", dimensions={{{d}}}")
            out.frontend = op.frontend
            return [line, out]
        out = _Instr(name, ty, "iota", [], f", iota_dimension={d}")
    elif spec.name == "stablehlo.dot_general":
        out = _Instr(name, ty, "dot", ins, _dot_attrs(a))
    elif spec.name == "stablehlo.reduce":
        return [_reduce(op, name, ins, ty, module)]
    elif spec.name == "stablehlo.reverse":
        out = _Instr(name, ty, "reverse", ins, f", dimensions={{{_ints(a['dims'])}}}")
    elif spec.name == "stablehlo.dynamic_slice":
        out = _Instr(name, ty, "dynamic-slice", ins, f", dynamic_slice_sizes={{{_ints(a['sizes'])}}}")
    elif spec.name == "stablehlo.dynamic_update_slice":
        out = _Instr(name, ty, "dynamic-update-slice", ins)
    elif spec.name == "stablehlo.pad":
        text = "x".join("_".join(str(int(v)) for v in (c if c[2] else c[:2])) for c in a["config"])
        out = _Instr(name, ty, "pad", ins, f", padding={text}")
    elif spec.name == "stablehlo.transpose":  # (its layout makes it a bitcast of its operand's)
        perm = list(a["perm"])
        if perm == sorted(perm) or ins[0].opcode == "transpose":
            raise _refuse("an identity transpose, or a transpose of a transpose (XLA folds them)")
        inverse = [perm.index(d) for d in range(len(perm))]
        layout = "{" + ",".join(str(inverse[d]) for d in reversed(range(len(perm)))) + "}"
        out = _Instr(name, ty[: ty.index("{")] + layout, "transpose", ins, f", dimensions={{{_ints(perm)}}}")
    elif spec.name == "stablehlo.custom_call":
        out = _Instr(name, ty, "custom-call", ins, _custom_call_attrs(a, [v.type for v in spec.operands]))
    else:
        raise _refuse(f"'{spec.name}'")
    out.frontend = op.frontend
    return [out]


def _broadcast(op: Op, name: str, ins: list[_Instr], dims: Sequence[int]) -> list[_Instr]:
    """XLA's BroadcastInDim: a broadcast to the output's shape with the operand's sizes at ``dims``;
    where the operand has a 1 the output has not, that is reshaped away and broadcast again."""
    t_in, t_out = op.spec.operands[0].type if op.spec else "", op.results[0].type
    (shape_in, el), shape_out = _parse_type(t_in), _parse_type(t_out)[0]
    if _pure_reshape(t_in, t_out, dims):
        out = [_Instr(name, shape_text(t_out), "reshape", ins)]
    elif not shape_in:
        out = [_Instr(name, shape_text(t_out), "broadcast", ins, ", dimensions={}")]
    else:
        at = list(shape_out)
        for i, d in enumerate(dims):
            at[d] = shape_in[i]
        tensor = lambda shape: "tensor<" + "".join(f"{d}x" for d in shape) + el + ">"  # noqa: E731
        first = _Instr(name, shape_text(tensor(at)), "broadcast", ins, f", dimensions={{{_ints(dims)}}}")
        if at == list(shape_out):
            out = [first]
        else:
            kept = [i for i, (m, n) in enumerate(zip(at, shape_out)) if m == n]
            reshaped = _Instr(name, shape_text(tensor([at[i] for i in kept])), "reshape", [first])
            last = _Instr(name, shape_text(t_out), "broadcast", [reshaped], f", dimensions={{{_ints(kept)}}}")
            out = [first, reshaped, last]
    out[-1].frontend = op.frontend
    return out


def _reduce(op: Op, name: str, ins: list[_Instr], ty: str, module: _Module) -> _Instr:
    """A one-operand reduction: its region (parameters and root named after the reduction),
    converted before the reduce that applies it."""
    assert op.spec is not None
    a = op.spec.attrs
    if a["op"] not in _PLAIN or len(ins) != 2:
        raise _refuse(f"a reduction applying '{a['op']}'")
    k = module.regions
    module.regions += 1
    scalar = ins[1].aval
    made: list[_Instr] = []
    p0 = module.instr(made, _Instr(name, scalar, "parameter", [], "(0)"))
    p1 = module.instr(made, _Instr(name, scalar, "parameter", [], "(1)"))
    root = module.instr(made, _Instr(name, scalar, _PLAIN[a["op"]], [p0, p1]))
    region = module.finish(f"region_{k}", made, root)
    out = _Instr(name, ty, "reduce", ins, f", dimensions={{{_ints(a['dims'])}}}, to_apply={region}")
    out.frontend = op.frontend
    return out


def _rank(v: Value) -> int:
    return len(_parse_type(v.type)[0])


def _ints(xs: Sequence[int]) -> str:
    return ",".join(str(int(x)) for x in xs)


def _dot_attrs(a: dict) -> str:
    (lc, rc), (lb, rb) = a["contracting"], a["batch"]
    if not lc:
        raise _refuse("a dot_general without contracting dimensions")
    text = ""
    if lb:
        text += f", lhs_batch_dims={{{_ints(lb)}}}"
    text += f", lhs_contracting_dims={{{_ints(lc)}}}"
    if rb:
        text += f", rhs_batch_dims={{{_ints(rb)}}}"
    text += f", rhs_contracting_dims={{{_ints(rc)}}}"
    precision = a.get("precision") or ("DEFAULT", "DEFAULT")
    if any(p != "DEFAULT" for p in precision):
        if any(p not in ("DEFAULT", "HIGH", "HIGHEST") for p in precision):
            raise _refuse(f"a dot_general of precision {precision}")
        text += ", operand_precision={" + ",".join(p.lower() for p in precision) + "}"
    return text


def _custom_call_attrs(a: dict, operand_types: Sequence[str]) -> str:
    if a.get("has_side_effect") or a.get("aliases"):
        raise _refuse("a custom call with side effects or aliased operands")
    constraints = []
    for t, layout in zip(operand_types, a["operand_layouts"]):
        dims, el = _parse_type(t)
        lay = "{" + ",".join(str(int(d)) for d in layout) + "}" if dims else ""
        constraints.append(f"{_element(el)}[{','.join(map(str, dims))}]{lay}")
    return (
        f', custom_call_target="{a["target"]}", operand_layout_constraints={{{", ".join(constraints)}}}, '
        f"api_version=API_VERSION_TYPED_FFI, backend_config={a['backend_config']}"
    )


def _line(ins: _Instr, is_root: bool) -> str:
    if ins.opcode in ("parameter", "constant"):
        body = f"{ins.opcode}{ins.attrs}"
    else:
        body = f"{ins.opcode}({', '.join(o.name for o in ins.operands)}){ins.attrs}"
    if ins.frontend:
        body += (
            ", frontend_attributes={" + ",".join(f'{k}="{v}"' for k, v in sorted(ins.frontend.items())) + "}"
        )
    return f"{'ROOT ' if is_root else ''}{ins.name} = {ins.aval} {body}"


def _post_order(instrs: Sequence[_Instr]) -> list[_Instr]:
    """XLA's MakeInstructionPostOrder: from each instruction no other uses (in creation order), its
    operands first, left to right."""
    users = {id(o) for ins in instrs for o in ins.operands}
    done: set[int] = set()
    out: list[_Instr] = []

    def visit(ins: _Instr) -> None:
        if id(ins) in done:
            return
        done.add(id(ins))
        for o in ins.operands:
            visit(o)
        out.append(ins)

    for ins in instrs:
        if id(ins) not in users:
            visit(ins)
    return out
