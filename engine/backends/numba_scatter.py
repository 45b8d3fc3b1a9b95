"""Scatter (``x.at[idx].set/add/...``) for the numba code generator: one kernel over the updates
that combines each into its operand element, after the operand is copied. ``numba_codegen``
registers it as a ``Special`` lowering (import that module, not this one)."""

from __future__ import annotations


from . import lowering as L
from .numba_codegen import Codegen

_SCATTER_COMBINE = {
    "scatter": None,
    "scatter-add": "+",
    "scatter-sub": "-",
    "scatter-mul": "*",
    "scatter-min": "min",
    "scatter-max": "max",
}


def _lower_scatter(gen: "Codegen", eqn) -> bool:
    """A serial kernel over the updates writing into a copy of the operand (duplicates
    combine in order, as the interpreter's ``ufunc.at`` does)."""
    from ..lax.slicing import GatherScatterMode

    x, indices, upd = eqn.inputs
    dn, dt = eqn.params["dimension_numbers"], x.aval.dtype
    if not all(L.supported(v.aval.dtype) for v in eqn.inputs) or x.aval.ndim == 0:
        return False
    if eqn.primitive.name == "scatter" and eqn.params.get("update_jaxpr") is not None:
        return False  # scatter_apply's combiner: the interpreter runs it
    shape, ushape = x.aval.shape, upd.aval.shape
    clip = eqn.params["mode"] == GatherScatterMode.CLIP
    scatter_dims = [d for d in range(len(ushape)) if d not in dn.update_window_dims]
    window_of = {}  # operand dim -> updates dim
    pos = 0
    for d in range(len(shape)):
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims:
            window_of[d] = dn.update_window_dims[pos]
            pos += 1
    u = [f"i{d}" for d in range(len(ushape))]
    b = [u[d] for d in scatter_dims]
    at, conds, starts = [], [], []
    for d, n in enumerate(shape):
        size = ushape[window_of[d]] if d in window_of else 1
        if d in dn.scatter_dims_to_operand_dims:
            k = dn.scatter_dims_to_operand_dims.index(d)
            st = f"st{d}"
            starts.append(f"{st} = np.int64(q[{', '.join([*b, str(k)])}])")
            if clip:
                starts.append(f"{st} = min(max({st}, 0), {max(n - size, 0)})")
            else:
                conds.append(f"0 <= {st} <= {n - size}")
        elif d in dn.operand_batching_dims:
            st = b[dn.scatter_indices_batching_dims[dn.operand_batching_dims.index(d)]]
        else:
            st = "0"
        at.append(f"{st} + {u[window_of[d]]}" if d in window_of else st)
    op = _SCATTER_COMBINE[eqn.primitive.name]
    tgt, val = f"out[{', '.join(at)}]", "v[" + ", ".join(u) + "]" if ushape else "v[()]"
    if op is None:
        stmt = f"{tgt} = {val}"
    elif op in ("min", "max"):
        fn = f"rt.f{op}" if dt.kind == "f" else op
        stmt = f"{tgt} = {fn}({tgt}, {val})"
    elif dt.kind == "b":
        stmt = f"{tgt} = {tgt} or {val}" if op == "+" else f"{tgt} = {tgt} and {val}"
    else:
        stmt = f"{tgt} = {L.cast(dt)}({tgt} {op} {val})"
    kid = gen.fresh("k")
    src = [
        f"@nb.njit(nb.void(nb.int64, nb.int64, A({L.nb_type(dt)}, {len(shape)}), "
        f"R({L.nb_type(indices.aval.dtype)}, {indices.aval.ndim}), R({L.nb_type(dt)}, {len(ushape)})), **_KW)",
        f"def {kid}(lo, hi, out, q, v):",
    ]
    ind = "    "
    for d, n in enumerate(ushape):
        src.append(ind + f"for i{d} in {'range(lo, hi)' if d == 0 else f'range({n})'}:")
        ind += "    "
    src += [ind + line for line in starts]
    if conds:
        src.append(ind + f"if {' and '.join(conds)}:")
        ind += "    "
    src.append(ind + stmt)
    names = [gen.host_name(v) for v in eqn.inputs]
    gen.kernels.append("\n".join(src))
    out = gen.fresh("a")
    gen.host.append(f"{out} = {gen.alloc(shape, dt)}")
    gen.host.append(f"np.copyto({out}, {names[0]})")
    if ushape and 0 not in ushape:
        gen.host.append(f"{kid}(0, {ushape[0]}, {out}, {names[1]}, {names[2]})")
    elif not ushape:
        gen.host.append(f"{kid}(0, 0, {out}, {names[1]}, {names[2]})")
    gen.names[eqn.out_binders[0]] = out
    return True
