"""XLA's HLO text for a lowered program (``jit(f).lower(x).as_text("hlo")``), from the StableHLO
module the engine builds (``engine.stablehlo``), as JAX 0.10.2 prints it.

JAX hands its StableHLO module to XLA, which canonicalizes it (``xla_canonical``: constants
uniqued and hoisted, ``x * 1`` folded, a broadcast constant made a splat) and converts it to HLO.
This module reads the engine's operations (their ``Spec``: name, operands, attributes) and
reproduces that for the programs whose conversion it knows exactly: elementwise operations,
constants, broadcasts, comparisons, selects, converts, reshapes, slices, concatenations, dots,
iotas, FFI custom calls, reductions (a region each), calls of jitted functions (a computation per
callee), conditionals (a computation per branch), gathers and scatters (``xla_hlo_indexing``),
named as XLA names them (``_Module``).
Anything else (loops, folds it does not model, ...) raises NotImplementedError naming
what it cannot print.

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
from typing import Any, Callable, Sequence

import numpy as np

from . import xla_hlo_layouts, xla_hlo_sdy
from .syntax import Op, Value
from .xla_canonical import _Canonical, _op_name, _parse_type, _pure_reshape, _refuse

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
    "stablehlo.count_leading_zeros": "count-leading-zeros",
    "stablehlo.round_nearest_even": "round-nearest-even", "stablehlo.round_nearest_afz": "round-nearest-afz",
}  # fmt: skip
_DTYPES = {"bool": "pred", "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
           "complex64": "c64", "complex128": "c128"}  # fmt: skip


# StableHLO operation -> its converter in another module: (op, name, operands, shape's text,
# _Canonical, _Module) -> the instructions made, the last one its result
RULES: dict[str, Callable[..., list[_Instr]]] = {}


class _Instr:
    """One HLO instruction: its name's root, its shape's text, opcode, operands and attributes' text
    (``name``: as ``_Module`` gives it)."""

    def __init__(self, root: str, aval: str, opcode: str, operands: list, attrs: str = ""):
        self.root, self.aval, self.opcode, self.operands, self.attrs = root, aval, opcode, operands, attrs
        self.frontend: dict[str, str] = {}
        self.sharding = ""  # (``{replicated}``: Shardy's mark, as XLA prints it)
        self.tail = ""  # (attributes printed after the frontend attributes: a LAPACK call's config)
        self.own_layout = False  # (its shape's layout is its own, not derived from its operands')
        self.name = ""


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
    "random_bits", "random_split", "random_fold_in", "random_wrap", "random_unwrap",
    "threefry2x32", "cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp", "igamma", "igammac",
    "igamma_grad_a", "bessel_i0e", "bessel_i1e", "regularized_incomplete_beta",
    "polygamma", "zeta", "erf_inv", "scan",
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
        if arr.dtype == np.bool_:  # (recorded: an array of them prints {1, 0})
            return ("true" if v else "false") if arr.ndim == 0 else str(int(v))
        if arr.dtype.kind in "iu":
            return str(int(v))
        if arr.dtype == np.float16 and abs(v) <= 2048 and float(v) == int(v) and not np.signbit(v):
            return str(int(v))  # (recorded: 2; an integer a half holds exactly prints as one)
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
        if arr.ndim == 1:  # (recorded: x.at[:].set(v)'s indices)
            return "{}"
        raise _refuse("an empty constant of rank > 1")
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
        self.roots: dict[str, str] = {}  # a computation's name -> its root's shape (a call's)
        self.mesh: tuple | None = None  # (the module's mesh: axis names, sizes)
        self.manual_bodies = 0  # (the shard_map bodies converted)

    def fresh(self, root: str) -> str:
        n = self.counts[root]
        self.counts[root] += 1
        return f"{root}.{n}" if n else root

    def instr(self, made: list[_Instr], ins: _Instr) -> _Instr:
        ins.aval = xla_hlo_layouts.assign(ins, self.roots)
        ins.name = self.fresh(ins.root)
        made.append(ins)
        return ins

    def finish(self, name: str, made: list[_Instr], root: _Instr, entry: bool = False) -> str:
        for ins in made:
            ins.name = self.fresh(ins.root)
        title = self.last_title = f"{name}.{len(self.texts) + 1}"
        self.roots[title] = root.aval
        lines = [_line(ins, ins is root) for ins in _post_order(made)]
        self.texts.append(
            ("ENTRY " if entry else "") + title + " {\n" + "".join(f"  {x}\n" for x in lines) + "}\n\n"
        )
        return title


def module_hlo_text(
    module_name: str,
    main: Any,
    outs: Sequence[Value],
    arg_names: Sequence[str],
    ops: Sequence[Op],
    fn_name: str | None = None,
    attrs: tuple[Sequence[str], Sequence[str]] | None = None,
    mesh: tuple | None = None,
) -> str:
    """The HLO text of a module: ``main``'s body ``ops`` returning ``outs``, and the functions it
    calls (``fn_name``: the jitted function's, which locates its literals ``jit(fn_name)``;
    ``attrs``: ``@main``'s argument and result attributes' texts, when it pins some to a mesh)."""
    module = _Module()
    module.mesh = mesh
    marks = xla_hlo_sdy.pinned(*attrs) if attrs is not None else None
    params, root = _computation(
        module, "main", main.body.args, ops, outs, arg_names, entry=True, top=fn_name, marks=marks
    )
    layout = f"{{{_tuple_text([p.aval for p in params])}->{root.aval}}}"
    alias, frontend = xla_hlo_sdy.header(marks, len(outs), mesh)
    head = f"HloModule {module_name}, {alias}entry_computation_layout={layout}{frontend}"
    return head + "\n\n" + "".join(module.texts)


def _computation(
    module: _Module,
    name: str,
    args: Sequence[Value],
    ops: Sequence[Op],
    outs: Sequence[Value],
    arg_names: Sequence[str],
    entry: bool = False,
    top: str | None = None,
    marks: Any = None,
) -> tuple[list[_Instr], _Instr]:
    """Converts one function (its callees first, when their first call is reached): its
    parameters and root."""
    canon = _Canonical(ops, outs, entry, top)
    outs = canon.outs
    made: list[_Instr] = []
    of: dict[Value, _Instr] = {}
    for i, a in enumerate(args):
        of[a] = module.instr(
            made, _Instr(_sanitize(arg_names[i]), shape_text(a.type), "parameter", [], f"({i})")
        )
    params = list(made)
    if marks is not None:
        for p, s in zip(params, marks.args):
            xla_hlo_sdy.parameter(p, s, module.mesh)
    for op in canon.order:
        if op.spec is not None and op.spec.name == "func.call":
            site = canon.top if entry else None  # (in a callee: recorded both ways, not modelled)
            _call(op, [of[v] for v in canon.operands(op)], of, module, made, site)
            continue
        if op.spec is not None and op.spec.name == "stablehlo.case":
            _conditional(op, canon, of, module, made)
            continue
        if op.spec is not None and op.spec.name in xla_hlo_loops.CONVERTERS:
            xla_hlo_loops.CONVERTERS[op.spec.name](op, canon, of, module, made)
            continue
        for ins in _convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]
    if not outs:
        raise _refuse("a function without outputs")
    if marks is not None:
        root = xla_hlo_sdy.results(module, made, [of[v] for v in outs], marks, _Instr)
    elif len(outs) == 1:
        root = of[outs[0]]
    else:
        root = _Instr("tuple", _tuple_text([of[v].aval for v in outs]), "tuple", [of[v] for v in outs])
        module.instr(made, root)
    module.finish(name, made, root, entry=entry)
    return params, root


def _call(
    op: Op,
    ins: list[_Instr],
    of: dict[Value, _Instr],
    module: _Module,
    made: list[_Instr],
    site: str | None = None,
) -> None:
    """A call of a jitted function: the callee's computation (converted at its first call), the
    call named after JAX's location ``jit(<name>)``, and a get-tuple-element per result when the
    callee returns several (all of them, used or not). A call of a cached lowering (argmax's) is
    named after its call site (``site``: the main function's ``jit(f)``, its parameters too; None:
    not known, as in a callee, where JAX names it ``call`` or after the callee)."""
    assert op.spec is not None
    a = op.spec.attrs
    cached = bool(a.get("cached"))
    if cached and (a["transforms"] is None or site is None):
        raise _refuse(
            f"the call of JAX's cached lowering of '{a['name']}' (named after where it is staged, known "
            "for argmax/argmin in the main function under no transformation)"
        )
    if a["transforms"] is None:
        raise _refuse("a call staged where JAX's name for it is not known (under vmap of grad, ...)")
    if cached:
        root = _sanitize(site or "")
    fn = a["callee"]
    title = module.callees.get(fn)
    if title is None:
        n = len(fn.body.args)
        names = [root] * n if cached else [f"Arg_{i}" for i in range(n)]
        body = fn.body.ops[:-1]  # (without its return)
        _computation(module, _sanitize(fn.name), fn.body.args, body, fn.outs, names)
        title = module.callees[fn] = module.last_title
    if not cached:
        location = a.get("location") or f"jit({a['name']})"
        for t in reversed(a["transforms"]):  # (JAX's: jvp(jit(f)), transpose(jvp(jit(f))), ...)
            location = f"{t}({location})"
        root = _sanitize(location)
    shapes = [shape_text(r.type) for r in op.results]
    aval = shapes[0] if len(shapes) == 1 else _tuple_text(shapes)
    call = module.instr(made, _Instr(root, aval, "call", ins, f", to_apply={title}"))
    call.frontend = op.frontend
    _read_results(op, call, shapes, of, module, made)


def _read_results(
    op: Op, out: _Instr, shapes: list[str], of: dict[Value, _Instr], module: _Module, made: list[_Instr]
) -> None:
    """``op``'s results made by ``out``: itself, or (several, a tuple) a get-tuple-element each,
    named after the same root as ``out``."""
    if len(op.results) == 1:
        of[op.results[0]] = out
        return
    for i, r in enumerate(op.results):
        of[r] = module.instr(made, _Instr(out.root, shapes[i], "get-tuple-element", [out], f", index={i}"))


def _conditional(
    op: Op, canon: _Canonical, of: dict[Value, _Instr], module: _Module, made: list[_Instr]
) -> None:
    """``stablehlo.case`` of a computed index: a computation per branch (converted in order), each
    taking the values it uses from outside as its parameter (one value: itself, named after it;
    several: a tuple ``arg_tuple`` read by get-tuple-elements), and the conditional (of several
    results: a tuple, read by a get-tuple-element per result named after the cond)."""
    root = _sanitize(op.source or "cond")
    index = of[canon.value(op.spec.operands[0])] if op.spec else None
    branches, operands = [], []
    for block in op.regions:
        ret = block.ops[-1]
        assert ret.spec is not None and ret.spec.name == "stablehlo.return"
        inner = set(block.ops)
        used: list[Value] = []
        sunk: dict[Value, Value] = {}  # (a constant from outside, as the branch's operations read it)
        for o in block.ops:
            if o.spec is None or o.regions:
                raise _refuse(f"'{_op_name(o)}' in a conditional's branch")
            for raw in o.spec.operands:
                v = canon.value(raw)
                if v.op in inner:
                    continue
                if canon.constant(v) is not None:
                    sunk[raw] = v
                elif v not in used:
                    used.append(v)
        # (XLA sinks a constant a branch uses into it, a copy first there; several, or a splat, whose
        # order there is not modelled, are refused)
        if len(set(sunk.values())) > 1 or any(not _is_plain_constant(v) for v in sunk.values()):
            raise _refuse("a branch using several constants, or a splat, from outside")
        if not used and (sunk or any(o.spec.name != "stablehlo.constant" for o in block.ops[:-1])):
            raise _refuse("a branch using no value from outside, other than returning constants")
        captured = [of[v] for v in used]
        if not captured:  # (the converter passes it an empty tuple)
            operands.append(module.instr(made, _Instr(root, "()", "tuple", [])))
        elif len(captured) == 1:
            operands.append(captured[0])
        else:
            shapes = _tuple_text([c.aval for c in captured])
            operands.append(module.instr(made, _Instr(root, shapes, "tuple", captured)))
        branches.append((block, used, captured, sunk))
    titles = []
    for block, used, captured, sunk in branches:
        ops, ret = block.ops[:-1], block.ops[-1]
        assert ret.spec is not None
        titles.append(_branch(module, ops, ret.spec.operands, used, captured, sunk))
    assert index is not None
    shapes = [shape_text(r.type) for r in op.results]
    aval = shapes[0] if len(shapes) == 1 else _tuple_text(shapes)
    out = _Instr(root, aval, "conditional", [index, *operands])
    out.attrs = ", branch_computations={" + ", ".join(titles) + "}"
    out.frontend = op.frontend
    module.instr(made, out)
    _read_results(op, out, shapes, of, module, made)


def _is_plain_constant(v: Value) -> bool:
    return v.op is not None and v.op.spec is not None and v.op.spec.name == "stablehlo.constant"


def _branch(
    module: _Module,
    ops: Sequence[Op],
    outs: Sequence[Value],
    used: list[Value],
    captured: list[_Instr],
    sunk: dict[Value, Value],
) -> str:
    k = module.regions
    module.regions += 1
    given: dict[Value, Value] = {}
    for c in set(sunk.values()):  # (its copy first in the branch)
        assert c.op is not None
        copy = Op([c.type], c.op.render)
        copy.spec = c.op.spec
        ops = [copy, *ops]
        given.update({raw: copy.results[0] for raw, v in sunk.items() if v is c})
    canon = _Canonical(ops, outs, entry=False, given=given)
    made: list[_Instr] = []
    of: dict[Value, _Instr] = {}
    if not used:
        module.instr(made, _Instr("arg_empty_tuple", "()", "parameter", [], "(0)"))
    elif len(used) == 1:  # (named after it; a callee's parameter Arg_1 without its digits, recorded)
        root = re.sub(r"(?<=^Arg_)\d+$", "", captured[0].root)
        of[used[0]] = module.instr(made, _Instr(root, captured[0].aval, "parameter", [], "(0)"))
    else:
        shapes = _tuple_text([c.aval for c in captured])
        param = module.instr(made, _Instr("arg_tuple", shapes, "parameter", [], "(0)"))
        for i, (v, c) in enumerate(zip(used, captured)):
            of[v] = module.instr(
                made, _Instr("get-tuple-element", c.aval, "get-tuple-element", [param], f", index={i}")
            )
    # (a branch of constants alone: XLA numbers them last to first, recorded from cholesky_update)
    for op in canon.order if used else reversed(canon.order):
        if op.spec is None or op.spec.name in ("func.call", "stablehlo.case", "stablehlo.reduce"):
            raise _refuse(f"'{_op_name(op)}' in a conditional's branch")
        for ins in _convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]
    if not canon.outs or any(v not in of for v in canon.outs) or any(i.opcode == "transpose" for i in made):
        raise _refuse("a branch returning nothing, or a value it does not have, or transposing")
    if len(canon.outs) == 1:
        root = of[canon.outs[0]]
    else:
        shapes = _tuple_text([of[v].aval for v in canon.outs])
        root = module.instr(made, _Instr("tuple", shapes, "tuple", [of[v] for v in canon.outs]))
    return module.finish(f"region_{k}", made, root)


def _convert(op: Op, canon: _Canonical, of: dict[Value, _Instr], module: _Module) -> list[_Instr]:
    spec = op.spec
    assert spec is not None
    ty = shape_text(op.results[0].type)
    if op in canon.folded:
        return [_Instr("constant", ty, "constant", [], f"({literal_text(canon.folded[op])})")]
    if op in canon.splats:
        scalar, _ = canon.splats[op]
        dims = _parse_type(op.results[0].type)[0]
        if int(np.prod(dims)) == 1:  # (one element: the converter writes it out, {1} or { {1} })
            return [_Instr("constant", ty, "constant", [], f"({literal_text(np.full(dims, scalar))})")]
        c = _Instr("constant", shape_text(f"tensor<{_parse_type(op.results[0].type)[1]}>"), "constant", [])
        c.attrs = f"({literal_text(np.asarray(scalar))})"
        b = _Instr("broadcast", ty, "broadcast", [c], ", dimensions={}")
        return [c, b]
    if spec.name != "stablehlo.constant" and 0 in _parse_type(op.results[0].type)[0]:
        raise _refuse("an operation computing an empty array (XLA removes those)")
    ins = [of[v] for v in canon.operands(op)]
    if op.source in _TRACED_LOWERINGS:
        raise _refuse(f"the operations of '{op.source}' (JAX names them after the function it traces)")
    name = _sanitize(canon.names.get(op) or op.source or "constant")  # (no equation's: a literal's constant)
    a = spec.attrs
    if spec.name == "stablehlo.constant":
        out = _Instr("constant", ty, "constant", [])
        out.attrs = f"({literal_text(a['value'])})"
    elif spec.name in RULES:
        return RULES[spec.name](op, name, ins, ty, canon, module)
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
    elif spec.name == "chlo.erf" and _parse_type(op.results[0].type)[1] == "f32":
        out = _Instr(name, ty, "erf", ins)  # (recorded: XLA keeps it one operation, for f32)
    elif spec.name == "stablehlo.broadcast_in_dim":
        if op in canon.merged:  # (a broadcast of a broadcast: one, of the inner one's operand)
            return _broadcast(op, name, ins, canon.merged[op], canon.operands(op)[0].type)
        return _broadcast(op, name, ins, a["dims"])
    elif spec.name == "stablehlo.compare":
        total = a["type"] == "TOTALORDER"  # (a float comparison's default type is FLOAT)
        if total and not _parse_type(spec.operands[0].type)[1].startswith(("f", "bf")):
            raise _refuse("a TOTALORDER compare of integers")
        out = _Instr(
            name, ty, "compare", ins, f", direction={a['direction']}" + (", type=TOTALORDER" if total else "")
        )
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
    elif spec.name == "stablehlo.dynamic_update_slice":
        out = _Instr(name, ty, "dynamic-update-slice", ins)
    elif spec.name == "stablehlo.pad":
        text = "x".join("_".join(str(int(v)) for v in (c if c[2] else c[:2])) for c in a["config"])
        out = _Instr(name, ty, "pad", ins, f", padding={text}")
    elif spec.name == "stablehlo.transpose":  # (its layout makes it a bitcast of its operand's)
        perm = list(a["perm"])
        if perm == sorted(perm) or ins[0].opcode == "transpose":
            raise _refuse("an identity transpose, or a transpose of a transpose (XLA folds them)")
        shape = _parse_type(spec.operands[0].type)[0]
        moved = [d for d in perm if shape[d] != 1]
        if moved == sorted(moved):  # (recorded: hessian_quadratic's, then merged with a reshape)
            raise _refuse("a transpose moving only unit dimensions (XLA makes it a reshape)")
        inverse = [perm.index(d) for d in range(len(perm))]
        layout = "{" + ",".join(str(inverse[d]) for d in reversed(range(len(perm)))) + "}"
        out = _Instr(name, ty[: ty.index("{")] + layout, "transpose", ins, f", dimensions={{{_ints(perm)}}}")
    elif spec.name == "stablehlo.custom_call":
        out = _Instr(name, ty, "custom-call", ins, _custom_call_attrs(a, [v.type for v in spec.operands]))
    else:
        raise _refuse(f"'{spec.name}'")
    out.frontend = op.frontend
    return [out]


def _broadcast(op: Op, name: str, ins: list[_Instr], dims: Sequence[int], t_in: str = "") -> list[_Instr]:
    """XLA's BroadcastInDim: a broadcast to the output's shape with the operand's sizes at ``dims``;
    where the operand has a 1 the output has not, that is reshaped away and broadcast again."""
    t_in, t_out = t_in or (op.spec.operands[0].type if op.spec else ""), op.results[0].type
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
    if a.get("has_side_effect") or a.get("aliases") or a.get("lapack"):
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
    if ins.sharding:
        body += f", sharding={ins.sharding}"
    if ins.frontend:
        body += (
            ", frontend_attributes={" + ",".join(f'{k}="{v}"' for k, v in sorted(ins.frontend.items())) + "}"
        )
    body += ins.tail
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


from . import xla_hlo_indexing  # noqa: E402,F401  (registers its converters in RULES)
from . import xla_hlo_loops  # noqa: E402  (loops, sorts, barriers: converters of several results)
from . import xla_hlo_spmd  # noqa: E402  (shard_maps, collectives, sharding constraints)

from . import xla_hlo_lapack  # noqa: E402  (LAPACK's custom calls)

xla_hlo_loops.CONVERTERS["sdy.manual_computation"] = xla_hlo_spmd.convert_manual
xla_hlo_loops.CONVERTERS["stablehlo.custom_call"] = xla_hlo_lapack.convert_custom_call
