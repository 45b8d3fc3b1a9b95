"""Which of two products LLVM fuses into their sum: the one its Reassociate pass puts first.

Before instruction selection contracts ``P1 + P2`` (both products) into a fused multiply-add, LLVM's
Reassociate pass orders the operands of every commutative instruction by rank, the lower first,
even without fast-math flags: a load ranks by its place in its basic block (the blocks of an
outer loop rank below an inner one's), a constant 0, and any other instruction one more than its
highest operand (a negation no more). The contraction then fuses the first operand's product. In
XLA's loop kernels the values that depend on the outer indices only (a per-row ``1 / sigma``
broadcast over a row) are computed in the outer loop's block, and the inner block loads the
full-shape operands in the order the kernel's expression first reads them. So
``cos(x) * w + x * c`` (w, c per row) fuses ``x * c``, whose rank is one more than x's, where
``cos(x) * w`` ranks two more; and layer norm's backward, ``cos(..) * g * (1/sigma) + xm * c``,
fuses ``xm * c`` (both read in JAX 0.10.2's LLVM IR dumps, ``--xla_dump_to``). Equal ranks keep
the written order. In a loop's or a branch's body the order of the loads is not trusted: where
XLA compiles a small loop whole (its small-call hoisting), the engine's kernels of the body are
not XLA's, and two products ranked apart only by their loads' order (a scan's ``roll(a) * 0.5 +
pad(x) * a``, measured) keep the written order. One-loop kernels rank alike (``cos(x) * w + x * c``
on vectors fuses ``x * c``); sin and cos rank as the calls they are, the error functions by the
depth of their expansion (``_CALLS``, ``_DEEP``).
"""

from __future__ import annotations

from collections import Counter

from ..ir import Var
from ..lax import elementwise as ew
from ..lax.structural import broadcast_in_dim_p

_MOVES = frozenset({"reshape", "transpose", "squeeze", "expand_dims"})  # (index arithmetic only)
# How XLA's kernels compute some functions, as LLVM's Reassociate sees them: sin and cos are calls,
# ranked as loads are, by their place in the block (``cos(x) * r + y * s`` keeps the cos product
# first); the error functions are a long inline chain (a rational approximation around an exp),
# ranked that much above their operand (gelu's gradient fuses its exp product, not its erfc one).
_CALLS = frozenset({"sin", "cos"})
_DEEP = dict.fromkeys(("erf", "erfc", "erf_inv"), 32)


def second_first(x0, x1, i: int, eqns: list, kernels: tuple, producer: dict, body: bool = False) -> bool:
    """Whether the sum ``eqns[i]`` of the products ``x0`` and ``x1`` (in that order) has ``x1``
    first once Reassociate has ranked them, in the kernel XLA computes the sum in (``_kernels``).
    ``body``: the equations are a loop's or a branch's body (see above)."""
    ends, _ = kernels
    end = min(ends[i])
    root = eqns[end]
    space = root.inputs[0] if root.primitive.name.startswith("reduce_") else root.out_binders[0]
    if eqns[i].out_binders[0].aval.shape != space.aval.shape:  # (a piece of a concatenation, a
        return False  # slice: the kernel's blocks are not its loop's; the written order is kept)
    inner = _loops(space.aval.shape, space.aval.ndim)
    rank: dict = {}
    depth: dict = {}  # (a rank without the loads' order: instructions from the loads)
    indexed: dict = {}
    loads = Counter()  # block (loop depth) -> loads placed in it so far

    def visit(v, level: int) -> int:
        if type(v) is not Var:
            return 0
        if v in rank:
            return rank[v]
        j = producer.get(v, (None, None))[0]
        d = 0
        if j is not None and _from_indices(v, eqns, producer, indexed):
            r = 0  # (an iota's function: XLA computes it from the loop's indices, below any load)
        elif j is None or end not in ends[j]:  # (computed by another kernel, or an input: a load)
            loads[level] += 1
            r = (level << 16) + loads[level]
        else:
            e = eqns[j]
            if e.primitive is broadcast_in_dim_p and v.aval.ndim == space.aval.ndim:
                operand = e.inputs[0]
                dims = e.params["broadcast_dimensions"]
                used = [d for d, n in zip(dims, operand.aval.shape) if n != 1]
                r = visit(operand, min(level, _loops(v.aval.shape, 1 + max(used, default=-1))))
                d = depth.get(operand, 0)
            elif e.primitive.name in _MOVES or e.primitive is broadcast_in_dim_p:
                r = visit(e.inputs[0], level)
                d = depth.get(e.inputs[0], 0)
            elif e.primitive.name in _CALLS:  # (placed after its operands, as a load is)
                for x in e.inputs:
                    visit(x, level)
                d = max((depth.get(x, 0) for x in e.inputs), default=0) + 1
                loads[level] += 1
                r = (level << 16) + loads[level]
            else:
                r = max((visit(x, level) for x in e.inputs), default=0)
                d = max((depth.get(x, 0) for x in e.inputs), default=0)
                step = 0 if e.primitive is ew.neg_p else _DEEP.get(e.primitive.name, 1)
                r, d = r + step, d + step
        rank[v], depth[v] = r, d
        return r

    for x in root.inputs:  # (XLA's emitter reads the operands in order, each value once)
        visit(x, inner)
    if body:  # (the loads' order is the engine's kernels', not XLA's, in a body)
        return depth[x1] < depth[x0]
    return visit(x1, inner) < visit(x0, inner)


def _from_indices(v, eqns: list, producer: dict, memo: dict) -> bool:
    """Whether ``v`` is computed from iotas and literals only (a one-hot of a Jacobian's basis):
    XLA's kernel computes it from its loop indices wherever the engine's program splits it."""
    if type(v) is not Var:
        return True
    if v not in memo:
        memo[v] = False  # (until shown otherwise)
        j = producer.get(v, (None, None))[0]
        if j is not None:
            e = eqns[j]
            memo[v] = e.primitive.name == "iota" or (
                bool(e.inputs) and all(_from_indices(x, eqns, producer, memo) for x in e.inputs)
            )
    return memo[v]


def _loops(shape: tuple, upto: int) -> int:
    """The loops of XLA's nest over ``shape`` that index its first ``upto`` dimensions (a dimension
    of 1 has none: a broadcast along it is no outer block's value)."""
    return sum(1 for n in shape[:upto] if n != 1)
