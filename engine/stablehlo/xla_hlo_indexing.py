"""XLA's HLO text for the operations that read windows of an operand: gathers, scatters, dynamic
slices and convolutions (``xla_hlo`` calls in here through its ``RULES`` table), as JAX 0.10.2
prints them (recorded in tests/hlo_text).

A gather prints its dimension numbers, slice sizes and (when set) ``indices_are_sorted``; a
scatter its dimension numbers, ``indices_are_sorted`` / ``unique_indices`` when set, and its update
computation: a region converted just before the scatter is made, its two parameters named after
the scatter (``scatter-add.2``), its operations after the equations JAX lowered into it (``add``
for scatter-add's combiner, the function's for ``.at[].apply``).
"""

from __future__ import annotations

from typing import Any, Sequence

from . import xla_hlo as hlo
from .syntax import Op, Value
from .xla_canonical import _Canonical, _op_name, _parse_type, _refuse


def _dims(name: str, xs: Sequence[int]) -> str:
    return f"{name}={{{','.join(str(int(x)) for x in xs)}}}"


def _gather(op: Op, name: str, ins: list, ty: str, canon: _Canonical, module: Any) -> list:
    """``gather(operand, indices), offset_dims=..., slice_sizes=...``: XLA's
    GatherDimensionNumbersToString (batching dimensions only when there are some)."""
    assert op.spec is not None
    a = op.spec.attrs
    indices = canon.constant(canon.value(op.spec.operands[1]))
    if indices is not None and indices.ndim <= 1:
        raise _refuse("a gather at constant indices of rank <= 1 (XLA makes it a slice)")
    parts = [
        _dims("offset_dims", a["offset_dims"]),
        _dims("collapsed_slice_dims", a["collapsed_slice_dims"]),
        _dims("start_index_map", a["start_index_map"]),
    ]
    if len(a["operand_batching_dims"]):
        parts += [
            _dims("operand_batching_dims", a["operand_batching_dims"]),
            _dims("start_indices_batching_dims", a["start_indices_batching_dims"]),
        ]
    parts += [f"index_vector_dim={a['index_vector_dim']}", _dims("slice_sizes", a["slice_sizes"])]
    if a["indices_are_sorted"]:
        parts.append("indices_are_sorted=true")
    out = hlo._Instr(name, ty, "gather", ins, ", " + ", ".join(parts))
    out.frontend = op.frontend
    return [out]


def _scatter(op: Op, name: str, ins: list, ty: str, canon: _Canonical, module: Any) -> list:
    """``scatter(operand, indices, updates), update_window_dims=..., to_apply=region_k``: one
    operand; its update computation converted first."""
    assert op.spec is not None
    a = op.spec.attrs
    if len(op.results) != 1 or len(ins) != 3:
        raise _refuse("a scatter of several operands")
    region = _update_computation(op, name, module)
    parts = [
        _dims("update_window_dims", a["update_window_dims"]),
        _dims("inserted_window_dims", a["inserted_window_dims"]),
        _dims("scatter_dims_to_operand_dims", a["scatter_dims_to_operand_dims"]),
    ]
    if len(a["input_batching_dims"]):
        parts += [
            _dims("input_batching_dims", a["input_batching_dims"]),
            _dims("scatter_indices_batching_dims", a["scatter_indices_batching_dims"]),
        ]
    parts.append(f"index_vector_dim={a['index_vector_dim']}")
    if a["indices_are_sorted"]:
        parts.append("indices_are_sorted=true")
    if a["unique_indices"]:
        parts.append("unique_indices=true")
    parts.append(f"to_apply={region}")
    out = hlo._Instr(name, ty, "scatter", ins, ", " + ", ".join(parts))
    out.frontend = op.frontend
    return [out]


def _update_computation(op: Op, name: str, module: Any) -> str:
    """The scatter's region as a computation ``region_k``: its parameters named after the scatter,
    its operations converted as a function's (they use nothing from outside the region)."""
    (block,) = op.regions
    ret = block.ops[-1]
    if ret.spec is None or ret.spec.name != "stablehlo.return" or len(ret.spec.operands) != 1:
        raise _refuse("a scatter's region without one returned value")
    body = block.ops[:-1]
    inner = set(body)
    for o in body:
        if o.spec is None or o.regions:
            raise _refuse(f"'{_op_name(o)}' in a scatter's update computation")
        if any(v.op not in inner if v.op is not None else v not in block.args for v in o.spec.operands):
            raise _refuse("a scatter's update computation using a value from outside it")
    k = module.regions
    module.regions += 1
    canon = _Canonical(body, ret.spec.operands, entry=False)
    made: list = []
    of: dict[Value, Any] = {}
    for i, arg in enumerate(block.args):
        of[arg] = module.instr(made, hlo._Instr(name, hlo.shape_text(arg.type), "parameter", [], f"({i})"))
    for o in canon.order:
        for ins in hlo._convert(o, canon, of, module):
            module.instr(made, ins)
        of[o.results[0]] = made[-1]
    root = of[canon.outs[0]]
    return module.finish(f"region_{k}", made, root)


def _dynamic_slice(op: Op, name: str, ins: list, ty: str, canon: _Canonical, module: Any) -> list:
    """A dynamic-slice; at constant start indices a slice (XLA's canonicalization), each start
    clamped to where the whole slice fits, as the dynamic-slice would."""
    assert op.spec is not None
    sizes = [int(n) for n in op.spec.attrs["sizes"]]
    starts = [canon.constant(canon.value(v)) for v in op.spec.operands[1:]]
    if any(s is None for s in starts):
        out = hlo._Instr(name, ty, "dynamic-slice", ins, f", {_dims('dynamic_slice_sizes', sizes)}")
    else:
        dims = _parse_type(op.spec.operands[0].type)[0]
        begin = [min(max(int(s), 0), d - n) for s, d, n in zip(starts, dims, sizes)]  # type: ignore[arg-type]
        text = ", ".join(f"[{b}:{b + n}]" for b, n in zip(begin, sizes))
        out = hlo._Instr(name, ty, "slice", ins, f", slice={{{text}}}")
    out.frontend = op.frontend
    return [out]


def _convolution(op: Op, name: str, ins: list, ty: str, canon: _Canonical, module: Any) -> list:
    """``convolution(lhs, rhs), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01``: XLA's
    window_util::ToString (a field only when some dimension differs from its default), then group
    counts other than 1 and a precision other than the default."""
    assert op.spec is not None
    a = op.spec.attrs
    rhs_dims = _parse_type(op.spec.operands[1].type)[0]
    sizes = [rhs_dims[d] for d in a["rhs_spec"][2:]]
    fields = [("size", [str(n) for n in sizes])]
    if any(s != 1 for s in a["strides"]):
        fields.append(("stride", [str(s) for s in a["strides"]]))
    if any(p != 0 for pair in a["padding"] for p in pair):
        fields.append(("pad", [f"{lo}_{hi}" for lo, hi in a["padding"]]))
    if any(s != 1 for s in a["lhs_dilation"]):
        fields.append(("lhs_dilate", [str(s) for s in a["lhs_dilation"]]))
    if any(s != 1 for s in a["rhs_dilation"]):
        fields.append(("rhs_dilate", [str(s) for s in a["rhs_dilation"]]))
    parts = ["window={" + " ".join(f"{k}={'x'.join(v)}" for k, v in fields) + "}"] if sizes else []
    labels = [_labels(a["lhs_spec"], "bf"), _labels(a["rhs_spec"], "oi"), _labels(a["out_spec"], "bf")]
    parts.append(f"dim_labels={labels[0]}_{labels[1]}->{labels[2]}")
    for k in ("feature_group_count", "batch_group_count"):
        if a[k] != 1:
            parts.append(f"{k}={a[k]}")
    precision = a["precision"]
    if any(p != "DEFAULT" for p in precision):
        if any(p not in ("DEFAULT", "HIGH", "HIGHEST") for p in precision):
            raise _refuse(f"a convolution of precision {precision}")
        parts.append("operand_precision={" + ",".join(p.lower() for p in precision) + "}")
    out = hlo._Instr(name, ty, "convolution", ins, ", " + ", ".join(parts))
    out.frontend = op.frontend
    return [out]


def _labels(spec: Sequence[int], first_two: str) -> str:
    """``bf01``: the letter or spatial index each position of an operand holds."""
    if len(spec) > 12:
        raise _refuse("a convolution of more than 10 spatial dimensions")
    out = [""] * len(spec)
    out[spec[0]], out[spec[1]] = first_two[0], first_two[1]
    for k, d in enumerate(spec[2:]):
        out[d] = str(k)
    return "".join(out)


hlo.RULES.update(
    {
        "stablehlo.gather": _gather,
        "stablehlo.scatter": _scatter,
        "stablehlo.dynamic_slice": _dynamic_slice,
        "stablehlo.convolution": _convolution,
    }
)
