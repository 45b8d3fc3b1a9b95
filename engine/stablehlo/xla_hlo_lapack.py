"""XLA's HLO text for JAX's LAPACK custom calls (``lu``, ``triangular_solve``, ...: JAX's
``_linalg_ffi_lowering``), as JAX 0.10.2 prints it (recorded in tests/hlo_text): the call's
result in its column-major layout (several results: a tuple, read by a get-tuple-element per
result carrying the call's frontend attributes too), its operands' layouts as constraints, the
result aliasing its operand, the typed-FFI API, the frontend attributes (batch dimensions,
Shardy's sharding rule) and then the backend config of its LAPACK options."""

from __future__ import annotations

from typing import Any

from . import xla_hlo as hlo
from .syntax import Op, Value
from .xla_canonical import _Canonical, _parse_type


def _with_layout(t: str, layout: Any) -> str:
    dims, el = _parse_type(t)
    lay = "{" + ",".join(str(int(d)) for d in layout) + "}" if dims else ""
    return f"{hlo._element(el)}[{','.join(map(str, dims))}]{lay}"


def convert_custom_call(op: Op, canon: _Canonical, of: dict[Value, Any], module: Any, made: list) -> None:
    """``op`` (a ``stablehlo.custom_call``) converted into ``made``: a LAPACK call as above; another
    (an FFI call of one result) as ``xla_hlo`` converts it."""
    assert op.spec is not None
    a = op.spec.attrs
    if not a.get("lapack"):
        for ins in hlo._convert(op, canon, of, module):
            module.instr(made, ins)
        of[op.results[0]] = made[-1]
        return
    name = hlo._sanitize(canon.names.get(op) or op.source or "custom-call")
    operands = [of[v] for v in canon.operands(op)]
    shapes = [_with_layout(r.type, lay) for r, lay in zip(op.results, a["result_layouts"])]
    aval = shapes[0] if len(shapes) == 1 else hlo._tuple_text(shapes)
    constraints = ", ".join(
        _with_layout(v.type, lay) for v, lay in zip(op.spec.operands, a["operand_layouts"])
    )
    aliases = ", ".join(f"{{{'' if o is None else o}}}: ({i}, {{}})" for i, o in a["output_aliases"])
    attrs = f', custom_call_target="{a["target"]}", operand_layout_constraints={{{constraints}}}'
    if aliases:
        attrs += f", output_to_operand_aliasing={{{aliases}}}"
    attrs += ", api_version=API_VERSION_TYPED_FFI"
    call = hlo._Instr(name, aval, "custom-call", operands, attrs)
    call.frontend = dict(a["frontend"])
    call.tail = f", backend_config={a['backend_config']}"
    call.own_layout = True
    module.instr(made, call)
    if len(op.results) == 1:
        of[op.results[0]] = call
        return
    for i, r in enumerate(op.results):
        g = module.instr(made, hlo._Instr(name, shapes[i], "get-tuple-element", [call], f", index={i}"))
        g.frontend = dict(a["frontend"])
        of[r] = g
