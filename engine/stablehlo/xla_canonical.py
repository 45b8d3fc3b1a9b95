"""What XLA's canonicalization does to a function's StableHLO operations before they are converted
to HLO (``xla_hlo``), as far as the engine models it: constants uniqued and hoisted, splats,
identities folded, operands of commutative operations swapped, dead operations erased; anything
else that would change is refused (NotImplementedError naming it)."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from .syntax import Op, Value
from .xla_folds import LATE, Unknown, evaluate, location_name

_KEEPS_INTEGER_CONSTANTS = {
    "stablehlo.reduce", "stablehlo.dynamic_slice", "stablehlo.dynamic_update_slice", "stablehlo.pad",
    "stablehlo.compare", "stablehlo.select", "stablehlo.concatenate", "stablehlo.gather", "stablehlo.scatter",
    "stablehlo.clamp",
    "stablehlo.add", "stablehlo.subtract",
}  # fmt: skip
_WITH_REGIONS = (
    "stablehlo.reduce",
    "stablehlo.case",
    "stablehlo.scatter",
    "stablehlo.while",
    "stablehlo.sort",
    "stablehlo.reduce_window",
    "sdy.manual_computation",
    "stablehlo.all_reduce",
    "stablehlo.reduce_scatter",
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


def _unsigned_one(c: np.ndarray | None) -> bool:
    return c is not None and c.dtype.kind == "u" and c.ndim == 0 and int(c) == 1


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
    2. rewrites, forward: a broadcast of a constant of equal elements becomes a splat constant in
       its place; a binary operation of constants is evaluated in its place (``xla_folds``);
       ``x * 1``, ``x + 0``, ``x - 0`` become ``x``; a commutative operation takes its constant
       operand second, its location fused with the constant's (which can rename it);
    3. the same again, now also evaluating unary operations of constants (recorded: ``log(2) * 1``
       is the log's constant, ``2 * 1`` a new one at the multiply); constants left unused are erased;
    4. the constants are uniqued and hoisted again, in the block's order then.

    What it does not model (merged reshapes and broadcasts, ...) is refused."""

    def __init__(
        self,
        ops: Sequence[Op],
        outs: Sequence[Value],
        entry: bool = True,
        top: str | None = None,
        given: dict[Value, Value] | None = None,  # (values known to be others: a region's sunk constant)
    ):
        self.entry = entry  # (the main function: a callee's literals have other locations)
        self.top = f"jit({top})" if entry and top is not None else None  # (a literal's location)
        self.replaced: dict[Value, Value] = dict(given or {})
        self.splats: dict[Op, tuple[np.ndarray, str]] = {}  # splat constant -> (scalar, type)
        self.folded: dict[Op, np.ndarray] = {}  # an operation of constants, evaluated in its place
        self.locs: dict[Op, tuple[str, ...] | None] = {}  # locations changed (None: not known)
        self.names: dict[Op, str] = {}  # HLO names given by a changed location
        self.args: dict[Op, list[Value]] = {}  # operands reordered by a rewrite
        self.inlined: set[Op] = set()  # constants of a case's branch, inlined
        self.sliced: set[Op] = set()  # dynamic slices at constant indices (slices of their operand)
        self.late = False  # (the second pass of rewrites)
        self.ambiguous: dict[Op, str] = {}  # an identity of evaluated constants (its name): kept, refused
        self.merged: dict[Op, list[int]] = {}  # a broadcast of a broadcast -> its dims from the inner operand
        block = self._inline_constant_cases(ops)
        # (a function constraining shardings: Shardy's import keeps its broadcasts of constants)
        self.constrained = any(o.spec is not None and o.spec.name == "sdy.sharding_constraint" for o in ops)
        from .xla_chlo import expand  # (CHLO operations XLA expands first)

        block, expanded = expand(block, self.replaced, self.value, self.splats)
        for op in block:
            if op.spec is None or (op.regions and op.spec.name not in _WITH_REGIONS):
                raise _refuse(f"'{_op_name(op)}'")
        self.outs = list(outs)
        self._unique_and_hoist(block)
        for self.late in (False, True):  # (the unary operations of constants are evaluated later)
            for op in list(block):
                if op in block and not self._is_constant(op):
                    self._rewrite(block, op)
        self._erase_dead(block)
        for op in block:
            if op in self.ambiguous:
                raise _refuse(f"a '{self.ambiguous[op]}' of evaluated constants that is an identity")
        # (where the canonicalizer puts an expansion's constants among others, or another
        # expansion's: not modelled; its own are placed as recorded)
        owners = {expanded.get(op, -1) for op in block if self._is_constant(op)}
        if expanded and len(owners) > 1:
            raise _refuse("the constants of an expanded CHLO operation among other constants")
        if len({self._key(op) for op in block if self._evaluated(op)}) > 1:
            raise _refuse("several constants XLA evaluates (the order it makes them in is not modelled)")
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
                self.locs[known[key]] = ()  # (recorded: a merged constant has no location left)
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
        arr = self.constant(op.results[0])  # (equal attributes: a splat is its elements)
        assert arr is not None
        return (op.results[0].type, arr.dtype.str, np.ascontiguousarray(arr).tobytes())

    def loc(self, op: Op | None) -> tuple[str, ...] | None:
        """``op``'s location, as the names of its parts (``jit(f)/.../prim``; a literal: ``jit(f)``)."""
        if op is None:
            return None
        if op in self.locs:
            return self.locs[op]
        if op.source is not None:
            return (f"/{op.source}",)
        return (self.top,) if self.top is not None else None

    def _fold(self, op: Op, consts: list[np.ndarray]) -> bool:
        """``op`` of constants evaluated in its place, as the canonicalizer does (False: it keeps it)."""
        assert op.spec is not None
        dims, el = _parse_type(op.results[0].type)
        if op.spec.name == "stablehlo.reshape":  # (its elements, in the new shape)
            self._in_place(op, np.asarray(consts[0]).reshape(dims))
            return True
        try:
            value = evaluate(op.spec.name, op.spec.attrs, consts, _numpy_dtype(el))
        except Unknown as e:
            raise _refuse(f"'{op.spec.name}' of constants ({e}; XLA folds it)") from None
        if value is None:
            return False
        self._in_place(op, np.broadcast_to(value, dims))
        return True

    def _in_place(self, op: Op, value: np.ndarray) -> None:
        """``op`` made the constant ``value`` (a splat when it has several equal elements)."""
        flat = value.reshape(-1)
        if value.size > 1 and all(v.tobytes() == flat[0].tobytes() for v in flat):
            self.splats[op] = (np.asarray(flat[0]), op.results[0].type)  # (printed as a broadcast)
        else:
            self.folded[op] = np.array(value)

    def _fold_broadcast(self, op: Op, c: np.ndarray) -> None:
        """A broadcast that only adds unit dimensions to a constant of unequal elements: the reshaped
        constant in its place (recorded: named ``constant``)."""
        assert op.spec is not None
        dims = [int(d) for d in op.spec.attrs["dims"]]
        out = _parse_type(op.results[0].type)[0]
        if c.dtype == np.bool_:
            raise _refuse("a folded constant of booleans")
        at = [1] * len(out)
        for i, d in enumerate(dims):
            at[d] = c.shape[i]
        value = np.transpose(c, np.argsort(dims)).reshape(at)
        self.folded[op] = np.array(np.broadcast_to(value, out))

    def _rewrite(self, block: list[Op], op: Op) -> None:
        spec = op.spec
        assert spec is not None
        ins = [self.value(v) for v in spec.operands]
        consts = [self.constant(v) for v in ins]
        name, result = spec.name, op.results[0]
        if name in ("func.call", "stablehlo.case"):  # (not folded; a case's branches are converted apart)
            return
        if name == "stablehlo.iota":  # (of one element along its dimension: zeros, recorded)
            dims, el = _parse_type(result.type)
            if dims[spec.attrs["dimension"]] == 1:
                self._in_place(op, np.zeros(dims, _numpy_dtype(el)))
            return
        if name == "stablehlo.while":  # (a loop-invariant carry's result is its operand: xla_hlo_loops)
            from .xla_hlo_loops import invariant_carries

            fixed = invariant_carries(op)
            for k in fixed:
                self.replaced[result.op.results[k]] = ins[k]
            sunk = [k for k in fixed if ins[k].op is not None and ins[k].op in block and _is_plain(ins[k].op)]
            if sunk:  # (a constant carried unchanged is sunk into the regions: the loop does not use it)
                self.args[op] = [v for k, v in enumerate(ins) if k not in sunk]
            return
        if name == "stablehlo.broadcast_in_dim" and consts[0] is not None:
            if self.constrained:  # (recorded: kept, named after its location, beside a sharding constraint)
                if not _is_plain(ins[0].op):
                    raise _refuse("a broadcast of a folded constant beside a sharding constraint")
                return
            if not _all_equal(consts[0]):  # (MLIR holds a constant of equal elements as a splat)
                dims = list(spec.attrs["dims"])
                if dims != sorted(dims):
                    raise _refuse("a broadcast that transposes a constant")
                if _pure_reshape(ins[0].type, result.type, dims):  # (a reshape of a constant: folded)
                    self._fold_broadcast(op, consts[0])
                return  # (recorded: a broadcast of the constant is kept)
            self.splats[op] = (consts[0].reshape(-1)[0], result.type)  # (in the broadcast's place)
            if ins[0].op in self.splats:  # (recorded: a broadcast of a splat keeps the splat's location)
                self.locs[op] = self.loc(ins[0].op)
            return
        if name in ("stablehlo.slice", "stablehlo.dynamic_slice") and all(c is not None for c in consts):
            if not _all_equal(consts[0]):
                raise _refuse(f"'{name}' of a constant of unequal elements (XLA folds it)")
            self.splats[op] = (consts[0].reshape(-1)[0], result.type)  # (recorded: a splat in its place)
            return
        # (recorded: a scatter or a pad of constants is kept; a convert to the same type goes below)
        same_type = name == "stablehlo.convert" and result.type == ins[0].type
        kept = ("stablehlo.select", "stablehlo.scatter", "stablehlo.pad")
        if consts and all(c is not None for c in consts) and name not in kept and not same_type:
            identity = len(ins) == 2 and any(self._folds(name, c, i == 0) for i, c in enumerate(consts))
            if identity and any(v.op is None or v.op in self.splats or v.op in self.folded for v in ins):
                # (recorded: 3 * 1 of two constants is evaluated, at the multiply, but 3 * (1 * 1)
                # is the 3: not modelled; its value is the same either way, so what only folds it
                # further, or drops it, does not tell: refused if it is left, below)
                if any(v.op is None for v in ins):
                    raise _refuse(f"a '{name}' of evaluated constants that is an identity")
                self.ambiguous[op] = name
            if self.late or name not in LATE:
                self._fold(op, consts)  # (evaluated in its place, or kept as it is)
            return
        if name in _COMMUTATIVE and len(ins) == 2 and consts[0] is not None and consts[1] is None:
            if not self._folds(name, consts[0], first=True):
                # (swapped, the operation's location is fused with the constant's, which names it:
                # mul_jit_f_ with a literal, neg with a folded negate, mul with its own broadcast)
                here, there = self.loc(op), self.loc(ins[0].op)
                if here is None or there is None:
                    raise _refuse(f"'{name}' with a constant first operand of an unknown location")
                self.locs[op] = here + there
                if location_name(here + there) != location_name(here):
                    self.names[op] = location_name(here + there)
                ins, consts = ins[::-1], consts[::-1]
                self.args[op] = ins
        for kept, c, first in (
            ((ins[0], consts[1], False), (ins[1], consts[0], True)) if len(ins) == 2 else ()
        ):
            if c is not None and self._folds(name, c, first):
                self.replaced[result] = kept
                block.remove(op)
                return
        if name == "stablehlo.select" and consts[0] is not None and _all_equal(consts[0]):
            if ins[0].op in self.folded or ins[0].op in self.splats:  # (how constants are then hoisted)
                raise _refuse("a select of an evaluated predicate")
            chosen = ins[1] if bool(consts[0].reshape(-1)[0]) else ins[2]  # (recorded: the branch)
            self.replaced[result] = chosen
            block.remove(op)
            return
        if name == "stablehlo.select" and ins[1] is ins[2]:  # (both branches the same value)
            self.replaced[result] = ins[1]
            block.remove(op)
            return
        if name == "stablehlo.concatenate" and op not in self.args and any(_empty(v.type) for v in ins):
            # (MLIR drops a concatenate's empty operands; of one left, it is that one: a fully
            # unrolled scan's stacked outputs, recorded)
            ins = [v for v in ins if not _empty(v.type)]
            if len(ins) == 1:
                self.replaced[result] = ins[0]
                block.remove(op)
                return
            self.args[op] = list(ins)
            if any(_is_op(v.op, name) for v in ins if v.op is not None):
                raise _refuse("a concatenate of a concatenate and empty arrays")
            return
        inner = [v.op for v in ins if v.op is not None and v.op.spec is not None and v.op.spec.name == name]
        if name == "stablehlo.concatenate" and inner and op in self.args:  # (merged in the first pass)
            return
        if name == "stablehlo.concatenate" and inner:
            # (recorded: jnp.concatenate of 20 arrays, concatenates of 16 and 4 concatenated, is one
            # concatenate of the 20, named as the outer one); an inner one used elsewhere, or along
            # another dimension, is refused
            uses = [u for o in block for u in self.operands(o)] + self.outs
            if any(
                o.spec is None
                or o.spec.attrs["dimension"] != spec.attrs["dimension"]
                or sum(u is o.results[0] for u in uses) != 1
                or o.frontend
                for o in inner
            ):
                raise _refuse("a concatenate of a concatenate (XLA merges them)")
            self.args[op] = [w for v in ins for w in (self.operands(v.op) if v.op in inner else [v])]
            return
        if name == "stablehlo.compare" and any(c is not None and c.dtype == np.bool_ for c in consts):
            # (recorded: b != false is b, count_nonzero of booleans; b == true too, checked against JAX)
            c, d = consts[1], spec.attrs["direction"]
            if consts[0] is None and c is not None and _all_equal(c) and result.type == ins[0].type:
                if (d, bool(c.reshape(-1)[0])) in (("NE", False), ("EQ", True)):
                    self.replaced[result] = ins[0]
                    block.remove(op)
                    return
            raise _refuse("a comparison with a boolean constant (XLA may fold it)")
        # (a select of a constant predicate, or of boolean constants, may fold; of constant numbers, not)
        if name == "stablehlo.select" and (
            all(c is not None for c in consts)
            or (result.type.endswith("i1>") and any(c is not None for c in consts))
        ):
            raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
        if name == "stablehlo.power" and any(c is not None for c in consts):
            # (recorded: x ** 2.5 and |x| ** 0.5 are kept; an integer exponent, a negative one, or a
            # constant base, may be simplified: not known)
            e = consts[1]
            if consts[0] is not None or e is None or e.dtype.kind != "f" or not _all_equal(e):
                raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
            v = float(e.reshape(-1)[0])
            if not np.isfinite(v) or v <= 0 or v == int(v):
                raise _refuse(f"'{name}' of a constant (XLA may simplify it)")
        if name == "stablehlo.dynamic_slice" and all(c is not None for c in consts[1:]):
            self.sliced.add(op)  # (XLA makes it a slice: its indices are no longer used)
        if name == "stablehlo.dynamic_update_slice" and ins[1].type == ins[0].type:
            raise _refuse("a dynamic_update_slice of the whole operand (XLA folds it)")
        if name == "stablehlo.slice" and ins[0].op is not None and _is_op(ins[0].op, "stablehlo.concatenate"):
            # (recorded: PRNGKey(s)[0] is the first operand's; along another dimension it is kept)
            d = ins[0].op.spec.attrs["dimension"] if ins[0].op.spec is not None else 0
            if (spec.attrs["start"][d], spec.attrs["limit"][d]) != (0, _parse_type(ins[0].type)[0][d]):
                raise _refuse("a slice of a concatenate along its dimension (XLA may slice its operands)")
        if name == "stablehlo.pad" and all(c == 0 for cfg in spec.attrs["config"] for c in cfg):
            raise _refuse("a pad of nothing (XLA removes it)")
        # (arithmetic and bitwise identities; comparisons, selects, indices and inits are kept)
        # (recorded: an unsigned x / 1 and x % 1, axis_index's arithmetic on partition-id, are kept)
        kept_divide = (
            name in ("stablehlo.divide", "stablehlo.remainder")
            and consts[0] is None
            and _unsigned_one(consts[1])
        )
        if (
            name not in _KEEPS_INTEGER_CONSTANTS
            and not kept_divide
            and any(c is not None and _special_integer(c) for c in consts)
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
            if dims is not None and list(dims) != sorted(dims):  # (XLA makes it a transpose, with a layout)
                raise _refuse("a broadcast_in_dim that transposes")
            if (
                name == "stablehlo.broadcast_in_dim"
                and before == "stablehlo.broadcast_in_dim"
                and not reshapes
                and producer is not None
            ):
                self._merge_broadcasts(op, producer, list(dims))
                return
            if name == "stablehlo.reshape" and before == "stablehlo.reshape" and producer is not None:
                self._merge_reshapes(block, op, producer)
                return
            if reshapes and before == "stablehlo.reshape" and producer is not None:
                source = self.operands(producer)[0]
                if source.type == result.type:  # (recorded: a squeeze undone, all_gather's untiled axis)
                    self.replaced[result] = source
                    block.remove(op)
                    return
            if name == "stablehlo.reshape" and before == "stablehlo.broadcast_in_dim":
                return  # (recorded: a reshape of a broadcast adding other dimensions is kept, jnp.repeat)
            if before == "stablehlo.broadcast_in_dim" or (reshapes and before == "stablehlo.reshape"):
                raise _refuse(f"'{name}' of a '{before}' (XLA merges them)")

    def _merge_broadcasts(self, op: Op, inner: Op, dims: list[int]) -> None:
        """A broadcast of a broadcast is one broadcast of the inner one's operand, its location
        fused with the inner one's (recorded)."""
        assert inner.spec is not None
        composed = [dims[d] for d in self.merged.get(inner, inner.spec.attrs["dims"])]
        if composed != sorted(composed):
            raise _refuse("a broadcast of a broadcast that transposes")
        here, there = self.loc(op), self.loc(inner)
        if here is None or there is None:
            raise _refuse("a broadcast of a broadcast of an unknown location")
        self.locs[op] = here + there
        if location_name(here + there) != location_name(here):
            self.names[op] = location_name(here + there)
        self.args[op] = [self.operands(inner)[0]]
        self.merged[op] = composed

    def _merge_reshapes(self, block: list[Op], op: Op, inner: Op) -> None:
        """A reshape of a reshape is one reshape of the inner one's operand, its location fused
        with the inner one's (recorded: broadcast_in_dim.1 = reshape(x)); one back to the operand's
        shape is removed."""
        source = self.operands(inner)[0]
        if source.type == op.results[0].type:  # (recorded: the operation keeps its name, jacfwd_scalar)
            self.replaced[op.results[0]] = source
            block.remove(op)
            return
        here, there = self.loc(op), self.loc(inner)
        if here is None or there is None:
            raise _refuse("a reshape of a reshape of an unknown location")
        self.locs[op] = here + there
        if location_name(here + there) != location_name(here):
            self.names[op] = location_name(here + there)
        self.args[op] = [source]

    @staticmethod
    def _folds(name: str, c: np.ndarray, first: bool) -> bool:
        """``x * 1``, ``1 * x``, ``x + 0``, ``0 + x``, ``x - 0``, ``x & ~0``: the canonicalizer's
        identities."""
        if name == "stablehlo.multiply":
            return _is_splat(c, 1)
        if name == "stablehlo.add" or (name == "stablehlo.subtract" and not first):
            return _is_splat(c, 0)
        if name == "stablehlo.and" and c.dtype.kind in "iu":  # (recorded: PRNGKey's x & 0xFFFFFFFF)
            return _is_splat(c, np.iinfo(c.dtype).max if c.dtype.kind == "u" else -1)
        return False

    def _erase_dead(self, block: list[Op]) -> None:
        """Operations left unused by the rewrites are erased (pure ones: a call, or a loop making one,
        is kept, recorded in slogdet's unused pivots-to-permutation loop)."""
        self.outs = [self.value(v) for v in self.outs]
        while True:
            used = {id(u) for op in block for u in self.operands(op)} | {id(o) for o in self.outs}
            live = [op for op in block if _calls(op) or any(id(r) in used for r in op.results)]
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
        if op in self.folded:
            return self.folded[op]
        if op.spec.name == "stablehlo.constant":
            return op.spec.attrs["value"]
        return None

    def _is_constant(self, op: Op) -> bool:
        return self._evaluated(op) or op in self.splats or _is_op(op, "stablehlo.constant")

    def _evaluated(self, op: Op) -> bool:
        """An operation of constants the canonicalizer evaluated (not a broadcast of a constant)."""
        return op in self.folded or (
            op in self.splats
            and not _is_op(op, "stablehlo.broadcast_in_dim")
            and not _is_op(op, "stablehlo.constant")
        )  # (a splat constant: an expanded CHLO operation's, xla_chlo)

    def operands(self, op: Op) -> list[Value]:
        if op in self.splats or op in self.folded:
            return []
        if op in self.args:
            return [self.value(v) for v in self.args[op]]
        assert op.spec is not None
        if op in self.sliced:
            return [self.value(op.spec.operands[0])]
        if op.spec.name != "stablehlo.case":
            return [self.value(v) for v in op.spec.operands]
        inner = [v for b in op.regions for o in b.ops if o.spec is not None for v in o.spec.operands]
        # (and what its branches use, but a constant: sunk into the branches, xla_hlo._conditional)
        inner = [v for v in map(self.value, inner) if self.constant(v) is None]
        return [self.value(v) for v in op.spec.operands] + inner


def _numpy_dtype(el: str) -> np.dtype:
    kinds = {"i1": np.bool_, "f32": np.float32, "f64": np.float64, "f16": np.float16}
    if el in kinds:
        return np.dtype(kinds[el])
    m = re.fullmatch(r"(ui|i)(8|16|32|64)", el)
    if m is None:
        raise _refuse(f"a constant of type {el}")
    return np.dtype(("uint" if m.group(1) == "ui" else "int") + m.group(2))


def _is_op(op: Op, name: str) -> bool:
    return op.spec is not None and op.spec.name == name


def _empty(t: str) -> bool:
    return 0 in _parse_type(t)[0]


def _is_call(op: Op) -> bool:
    return op.spec is not None and op.spec.name == "func.call"


def _calls(op: Op) -> bool:
    """A call, or an operation whose regions make one: MLIR knows no call's effects, so keeps it."""
    return _is_call(op) or any(_calls(o) for block in op.regions for o in block.ops)


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


def _is_plain(op: Op) -> bool:
    return op.spec is not None and op.spec.name == "stablehlo.constant"
