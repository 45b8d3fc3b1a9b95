"""XLA's HLO text for ``stablehlo.while`` (``lax.while_loop``, ``fori_loop``, ``scan``), as JAX 0.10.2
prints it (recorded in tests/hlo_text): the rule ``xla_hlo`` follows for a loop.

1. The canonicalizer makes each loop-invariant carry (the body returns its argument unchanged) an
   implicit capture: the loop's result is the operand itself, and the regions read the operand
   from outside.
2. The converter packs the carries left, then the captured values (in the order the condition,
   then the body, first use them), into one tuple named after the loop (``while``), and reads each
   carried result back with a get-tuple-element named after it too (all of them, used or not);
   a loop of one value carries it alone.
3. Each region becomes a computation (the body first, ``region_N`` numbered when its conversion
   starts), taking the tuple as ``arg_tuple`` read by a get-tuple-element per element in order
   (one value: a parameter named after the loop); the body returns the tuple of the new carries
   and the captured values as they came.

What it does not know (a constant carried unchanged, operations whose JAX location it cannot name)
it refuses, raising NotImplementedError naming it.
"""

from __future__ import annotations

from typing import Sequence

from . import xla_hlo as hlo
from .syntax import Block, Op, Value
from .xla_canonical import _Canonical, _op_name, _refuse


def invariant_carries(op: Op) -> list[int]:
    """The carries the body, canonicalized, returns unchanged (MLIR's while canonicalization makes
    them captures)."""
    body = op.regions[1]
    outs = _Canonical(body.ops[:-1], _returned(body), entry=False).outs
    return [k for k, (a, r) in enumerate(zip(body.args, outs)) if r is a]


def convert_while(
    op: Op, canon: _Canonical, of: dict[Value, hlo._Instr], module: hlo._Module, made: list[hlo._Instr]
) -> None:
    """``op`` (a ``stablehlo.while`` of the computation ``canon``) converted into ``made``: its
    regions' computations, the tuple of its operands, the loop and its results read back."""
    assert op.spec is not None
    if op.source != "while":
        raise _refuse(f"a while loop JAX locates as {op.source!r}")
    used = {v for o in canon.order for v in canon.operands(o)} | set(canon.outs)
    if not any(r in used for r in op.results):  # (kept, as it calls; MLIR then prunes its carries)
        raise _refuse("a while loop whose results are unused")
    cond, body = op.regions
    init = [canon.value(v) for v in op.spec.operands]
    fixed = set(invariant_carries(op))
    explicit = [k for k in range(len(init)) if k not in fixed]
    cond_canon = _Canonical(cond.ops[:-1], _returned(cond), entry=False)
    body_canon = _Canonical(body.ops[:-1], _returned(body), entry=False)
    if not explicit:
        raise _refuse("a while loop whose carries are all invariant")
    outside = {b.args[k]: init[k] for k in fixed for b in (cond, body)}
    captured: list[Value] = []
    uses: list[set[Value]] = []  # (the outside values each region uses)
    for c, returned in ((cond_canon, cond_canon.outs), (body_canon, [body_canon.outs[k] for k in explicit])):
        uses.append(set())
        for v in [v for o in c.order for v in c.operands(o)] + list(returned):
            if v in outside:
                uses[-1].add(outside[v])
                if outside[v] not in captured:
                    captured.append(outside[v])
    # (a constant captured is sunk into the regions using it: a copy first in each, not carried)
    sunk = [v for v in captured if canon.constant(v) is not None]
    if len(sunk) > 1 or any(
        v.op is None or v.op.spec is None or v.op.spec.name != "stablehlo.constant" for v in sunk
    ):
        raise _refuse("several constants, or a splat, carried unchanged through a while loop (sunk into it)")
    captured = [v for v in captured if v not in sunk]
    if sunk:
        cond_canon, body_canon = (
            _with_constant(b, sunk[0], [b.args[k] for k in fixed if init[k] is sunk[0]])
            if sunk[0] in used
            else c
            for b, c, used in ((cond, cond_canon, uses[0]), (body, body_canon, uses[1]))
        )
    carried = [init[k] for k in explicit] + captured
    shapes = [of[v].aval for v in carried]
    index = {}  # each region's block argument -> its element of the tuple
    for b in (cond, body):
        index.update({b.args[k]: i for i, k in enumerate(explicit)})
        index.update(
            {b.args[k]: len(explicit) + captured.index(init[k]) for k in fixed if init[k] in captured}
        )
    name = "while"
    body_title = _region(
        module, body, body_canon, index, shapes, name, [body_canon.outs[k] for k in explicit]
    )
    cond_title = _region(module, cond, cond_canon, index, shapes, name, None)
    attrs = f", condition={cond_title}, body={body_title}"
    if len(carried) == 1:
        out = module.instr(made, hlo._Instr(name, shapes[0], "while", [of[carried[0]]], attrs))
        out.frontend = op.frontend
        of[op.results[explicit[0]]] = out
        return
    aval = hlo._tuple_text(shapes)
    packed = module.instr(made, hlo._Instr(name, aval, "tuple", [of[v] for v in carried]))
    out = module.instr(made, hlo._Instr(name, aval, "while", [packed], attrs))
    out.frontend = op.frontend
    for i, k in enumerate(explicit):
        of[op.results[k]] = module.instr(
            made, hlo._Instr(name, shapes[i], "get-tuple-element", [out], f", index={i}")
        )


def _with_constant(block: Block, constant: Value, args: list[Value]) -> _Canonical:
    """A region's canonical operations with a copy of ``constant`` first, in place of ``args``."""
    assert constant.op is not None and constant.op.spec is not None
    copy = Op([constant.type], constant.op.render)
    copy.spec = constant.op.spec
    given = {a: copy.results[0] for a in args}
    return _Canonical([copy, *block.ops[:-1]], _returned(block), entry=False, given=given)


def _returned(block: Block) -> list[Value]:
    ret = block.ops[-1]
    assert ret.spec is not None and ret.spec.name == "stablehlo.return"
    return list(ret.spec.operands)


def _region(
    module: hlo._Module,
    block: Block,
    canon: _Canonical,
    index: dict[Value, int],
    shapes: Sequence[str],
    name: str,
    new_carries: list[Value] | None,
) -> str:
    """One region's computation (the body when ``new_carries`` are given, else the condition)."""
    k = module.regions
    module.regions += 1
    made: list[hlo._Instr] = []
    if len(shapes) == 1:
        elements = [module.instr(made, hlo._Instr(name, shapes[0], "parameter", [], "(0)"))]
    else:
        param = module.instr(made, hlo._Instr("arg_tuple", hlo._tuple_text(shapes), "parameter", [], "(0)"))
        elements = [
            module.instr(
                made, hlo._Instr("get-tuple-element", s, "get-tuple-element", [param], f", index={i}")
            )
            for i, s in enumerate(shapes)
        ]
    of = {a: elements[i] for a, i in index.items() if a in block.args}
    convert_block(canon, of, module, made)
    if new_carries is None:
        (pred,) = canon.outs
        if canon.constant(pred) is not None or pred not in of:
            raise _refuse("a while loop's condition that is a constant")
        root = of[pred]
    else:
        if any(v not in of for v in new_carries):
            raise _refuse("a while loop's body returning a value it does not have")
        values = [of[v] for v in new_carries] + elements[len(new_carries) :]
        if len(values) == 1:
            root = values[0]
        else:
            root = module.instr(made, hlo._Instr("tuple", hlo._tuple_text(shapes), "tuple", values))
    if root.opcode == "parameter" or any(i.opcode == "transpose" for i in made):
        raise _refuse("a while loop's region returning its parameter, or transposing")
    return module.finish(f"region_{k}", made, root)


def convert_block(
    canon: _Canonical, of: dict[Value, hlo._Instr], module: hlo._Module, made: list[hlo._Instr]
) -> None:
    """A region's operations, after canonicalization, converted into ``made`` (as ``xla_hlo`` does
    a function's)."""
    for op in canon.order:
        spec = op.spec
        assert spec is not None
        if spec.name == "func.call":
            hlo._call(op, [of[v] for v in canon.operands(op)], of, module, made)
            continue
        if spec.name in CONVERTERS:
            CONVERTERS[spec.name](op, canon, of, module, made)
            continue
        if spec.name == "stablehlo.case":
            raise _refuse("a conditional in a while loop")
        if op.source is None and spec.name != "stablehlo.constant" and op not in canon.splats:
            raise _refuse(f"'{_op_name(op)}' in a while loop, which JAX names after a function it traces")
        for ins in hlo._convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]


def convert_sort(
    op: Op, canon: _Canonical, of: dict[Value, hlo._Instr], module: hlo._Module, made: list[hlo._Instr]
) -> None:
    """A ``stablehlo.sort``: its comparator a computation (``region_N``) of the scalar parameters
    named after the sort, then the sort (of several operands: a tuple, read by a get-tuple-element
    per result named after it)."""
    assert op.spec is not None
    a = op.spec.attrs
    if not a["is_stable"]:
        raise _refuse("an unstable sort")
    name = hlo._sanitize(op.source or "sort")
    title = _scalar_region(op, name, module)
    shapes = [hlo.shape_text(r.type) for r in op.results]
    aval = shapes[0] if len(shapes) == 1 else hlo._tuple_text(shapes)
    attrs = f", dimensions={{{a['dimension']}}}, is_stable=true, to_apply={title}"
    out = module.instr(made, hlo._Instr(name, aval, "sort", [of[v] for v in canon.operands(op)], attrs))
    out.frontend = op.frontend
    hlo._read_results(op, out, shapes, of, module, made)


def convert_barrier(
    op: Op, canon: _Canonical, of: dict[Value, hlo._Instr], module: hlo._Module, made: list[hlo._Instr]
) -> None:
    """An optimization barrier: the tuple of its operands, the ``opt-barrier`` and a
    get-tuple-element per result, all named after it (JAX's location: remat2)."""
    name = hlo._sanitize(op.source or "opt-barrier")
    ins = [of[v] for v in canon.operands(op)]
    shapes = [i.aval for i in ins]
    if len(ins) < 2:
        raise _refuse("an optimization barrier of one value")
    aval = hlo._tuple_text(shapes)
    packed = module.instr(made, hlo._Instr(name, aval, "tuple", ins))
    out = module.instr(made, hlo._Instr(name, aval, "opt-barrier", [packed]))
    out.frontend = op.frontend
    hlo._read_results(op, out, shapes, of, module, made)


def _reduce_precision(
    op: Op, name: str, ins: list[hlo._Instr], ty: str, canon: _Canonical, module: hlo._Module
) -> list[hlo._Instr]:
    assert op.spec is not None
    a = op.spec.attrs
    attrs = f", exponent_bits={a['exponent_bits']}, mantissa_bits={a['mantissa_bits']}"
    out = hlo._Instr(name, ty, "reduce-precision", ins, attrs)
    out.frontend = op.frontend
    return [out]


def convert_reduce(
    op: Op, canon: _Canonical, of: dict[Value, hlo._Instr], module: hlo._Module, made: list[hlo._Instr]
) -> None:
    """A ``stablehlo.reduce`` or ``reduce_window`` of a jaxpr's computation (``lax.reduce``): its
    region a computation of scalar parameters named after it and operations named after the
    computation's equations, then the reduction (of several operands: a tuple, read back by a
    get-tuple-element per result). A reduction of one operation (``jnp.sum``, ...) is ``xla_hlo``'s."""
    assert op.spec is not None
    a = op.spec.attrs
    if op.spec.name == "stablehlo.reduce" and a["op"] is not None:
        for ins in hlo._convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]
        return
    name = hlo._sanitize(op.source or "reduce")
    title = _scalar_region(op, name, module)
    if op.spec.name == "stablehlo.reduce":
        attrs = f", dimensions={{{hlo._ints(a['dims'])}}}, to_apply={title}"
        opcode = "reduce"
    else:
        attrs = f", window={{{_window_text(a)}}}, to_apply={title}"
        opcode = "reduce-window"
    shapes = [hlo.shape_text(r.type) for r in op.results]
    aval = shapes[0] if len(shapes) == 1 else hlo._tuple_text(shapes)
    out = module.instr(made, hlo._Instr(name, aval, opcode, [of[v] for v in canon.operands(op)], attrs))
    out.frontend = op.frontend
    hlo._read_results(op, out, shapes, of, module, made)


def _scalar_region(op: Op, name: str, module: hlo._Module) -> str:
    """The computation of ``op``'s one region (a reducer, a comparator): parameters named ``name``
    in order, its operations, and what it returns (several values: a tuple)."""
    (block,) = op.regions
    region = _Canonical(block.ops[:-1], _returned(block), entry=False)
    k = module.regions
    module.regions += 1
    inner: list[hlo._Instr] = []
    params = {
        arg: module.instr(inner, hlo._Instr(name, hlo.shape_text(arg.type), "parameter", [], f"({i})"))
        for i, arg in enumerate(block.args)
    }
    convert_block(region, params, module, inner)
    outs = region.outs
    if any(region.constant(v) is not None or v in block.args or v not in params for v in outs):
        raise _refuse("a region returning a constant or a parameter")
    if len(outs) == 1:
        root = params[outs[0]]
    else:
        shapes = [params[v].aval for v in outs]
        values = [params[v] for v in outs]
        root = module.instr(inner, hlo._Instr("tuple", hlo._tuple_text(shapes), "tuple", values))
    return module.finish(f"region_{k}", inner, root)


def _window_text(a: dict) -> str:
    """XLA's window: its size, and its strides, paddings (low_high) and dilations when not trivial."""
    text = "size=" + "x".join(str(d) for d in a["size"])
    if any(s != 1 for s in a["stride"]):
        text += " stride=" + "x".join(str(s) for s in a["stride"])
    if any(p != (0, 0) for p in a["pad"]):
        text += " pad=" + "x".join(f"{lo}_{hi}" for lo, hi in a["pad"])
    for key in ("lhs_dilate", "rhs_dilate"):
        if any(d != 1 for d in a[key]):
            text += f" {key}=" + "x".join(str(d) for d in a[key])
    return text


CONVERTERS = {
    "stablehlo.reduce": convert_reduce,
    "stablehlo.reduce_window": convert_reduce,
    "stablehlo.while": convert_while,
    "stablehlo.sort": convert_sort,
    "stablehlo.optimization_barrier": convert_barrier,
}
hlo.RULES["stablehlo.reduce_precision"] = _reduce_precision
