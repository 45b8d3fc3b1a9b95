"""What XLA's canonicalization does to a function's StableHLO operations before they are converted
to HLO (``xla_hlo``), as far as the engine models it: constants uniqued and hoisted, splats,
identities folded, operands of commutative operations swapped, dead operations erased; anything
else that would change is refused (NotImplementedError naming it)."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from .syntax import Op, Value

_KEEPS_INTEGER_CONSTANTS = {
    "stablehlo.reduce", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.pad",
    "stablehlo.compare", "stablehlo.select", "stablehlo.concatenate", "stablehlo.gather", "stablehlo.scatter",
    "stablehlo.add", "stablehlo.subtract",
}  # fmt: skip
_WITH_REGIONS = (
    "stablehlo.reduce",
    "stablehlo.case",
    "stablehlo.scatter",
    "stablehlo.while",
    "stablehlo.sort",
)
_COMMUTATIVE = {"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum",
                "stablehlo.and", "stablehlo.or", "stablehlo.xor"}  # fmt: skip


def _refuse(what: str) -> NotImplementedError:
    return NotImplementedError(f"HLO text for {what} is not implemented in the engine")


def _parse_type(t: str) -> tuple[tuple[int, ...], str]:
    m = re.fullmatch(r"tensor<((?:\d+x)*)([a-z0-9]+)>", t)
    if m is None:
        raise _refuse(f"a value of type {t}")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


def _pure_reshape(t_in: str, t_out: str, dims: Sequence[int] | None) -> bool:
    """A broadcast_in_dim that only adds unit dimensions (XLA's canonicalizer makes it a reshape)."""
    a, b = _parse_type(t_in)[0], _parse_type(t_out)[0]
    return dims is not None and int(np.prod(a)) == int(np.prod(b))


def _special_integer(c: np.ndarray) -> bool:
    if c.dtype.kind not in "biu":
        return False
    ones = np.iinfo(c.dtype).max if c.dtype.kind == "u" else -1
    return any(_is_splat(c, v) for v in (0, 1, -1, ones))


def _all_equal(arr: np.ndarray) -> bool:
    """Every element the same bits (a scalar too; not an empty array)."""
    if arr.size == 0 or arr.dtype.itemsize not in (1, 2, 4, 8):
        return False
    bits = np.ascontiguousarray(arr).reshape(-1).view(f"u{arr.dtype.itemsize}")
    return bool(np.all(bits == bits[0]))


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
        self.names: dict[Op, str] = {}  # an operation XLA names after another's location
        self.sliced: set[Op] = set()  # dynamic slices at constant indices (slices of their operand)
        block = self._inline_constant_cases(ops)
        for op in block:
            if op.spec is None or (op.regions and op.spec.name not in _WITH_REGIONS):
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
            if index is None:  # (a conditional: converted with its branches)
                out.append(op)
                continue
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
        if name in ("func.call", "stablehlo.case"):  # (not folded; a case's branches are converted apart)
            return
        if name == "stablehlo.while":  # (a loop-invariant carry's result is its operand: xla_hlo_loops)
            from .xla_hlo_loops import invariant_carries

            for k in invariant_carries(op):
                self.replaced[result.op.results[k]] = ins[k]
            return
        if name == "stablehlo.broadcast_in_dim" and consts[0] is not None:
            if not _all_equal(consts[0]):  # (MLIR holds a constant of equal elements as a splat)
                raise _refuse("a broadcast of a constant of unequal elements")
            self.splats[op] = (consts[0].reshape(-1)[0], result.type)  # (in the broadcast's place)
            return
        if name in ("stablehlo.slice", "stablehlo.dynamic_slice") and all(c is not None for c in consts):
            if not _all_equal(consts[0]):
                raise _refuse(f"'{name}' of a constant of unequal elements (XLA folds it)")
            self.splats[op] = (consts[0].reshape(-1)[0], result.type)  # (recorded: a splat in its place)
            return
        # (recorded: a scatter or a pad of constants is kept; a convert to the same type goes below)
        same_type = name == "stablehlo.convert" and result.type == ins[0].type
        if (
            consts
            and all(c is not None for c in consts)
            and name not in ("stablehlo.scatter", "stablehlo.pad")
        ):
            if not same_type:
                raise _refuse(f"'{name}' of constants (XLA folds it)")
        if name in _COMMUTATIVE and len(ins) == 2 and consts[0] is not None:
            if not self._folds(name, consts[0], first=True):
                # (the swapped operation takes its constant's location: a splat made from a
                # broadcast names it after the broadcast's equation, broadcast_in_dim.1 = add(x, c),
                # recorded; for these others it keeps its name; an add of another constant: not modelled)
                splat = ins[0].op in self.splats
                if splat:
                    made_by = spec.operands[0].op  # (its own splat: through removed ops, not uniquing)
                    while (
                        made_by not in self.splats
                        and made_by is not None
                        and made_by.results[0] in self.replaced
                    ):
                        made_by = self.replaced[made_by.results[0]].op
                    if made_by not in self.splats or made_by.source is None:
                        raise _refuse(f"'{name}' swapped with a splat whose location is not known")
                    self.names[op] = made_by.source
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
        # (a select of a constant predicate, or of boolean constants, may fold; of constant numbers, not)
        if name == "stablehlo.select" and (
            consts[0] is not None or (result.type.endswith("i1>") and any(c is not None for c in consts))
        ):
            raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
        if name == "stablehlo.power" and any(c is not None for c in consts):
            raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
        if name == "stablehlo.dynamic_slice" and all(c is not None for c in consts[1:]):
            self.sliced.add(op)  # (XLA makes it a slice: its indices are no longer used)
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
        if op in self.sliced:
            return [self.value(op.spec.operands[0])]
        if op.spec.name != "stablehlo.case":
            return [self.value(v) for v in op.spec.operands]
        inner = [v for b in op.regions for o in b.ops if o.spec is not None for v in o.spec.operands]
        return [self.value(v) for v in [*op.spec.operands, *inner]]  # (and what its branches use)


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
