"""Jaxprs as report graphs: equations are nodes, variables are typed edges, sub-jaxprs nest.

Variable ids are the names the jaxpr printer gives them (``a``, ``b``, ...), so the graph and the
stage's text name the same values. A node is ``added`` when its stage's transformation introduced
it: the previous stage has no unmatched equation with the same primitive and source line. Each
node carries its ``origin`` (the first stage's equation it descends from), which the page uses to
diff any two stages, and its estimated ``cost``.
"""

from __future__ import annotations

from collections import deque

from engine import ir
from engine.ir import ClosedJaxpr, Jaxpr, Literal

from .cost import as_eqn_cost, eqn_cost
from .schema import IRAtom, IRGraph, IRNode, IRVar, SourceInfo

NODE_CAP = 3000  # nodes per stage graph, nested ones included
TEXT_CAP = 200_000  # characters of jaxpr text per stage
PARAM_CAP = 300  # characters per printed param


def source_of(info) -> SourceInfo | None:
    if info is None or not info.file:  # (no line: an equation a rule made, as JAX's new_source_info)
        return None
    return SourceInfo(
        file=info.file,
        line=info.line,
        function=info.function,
        callers=list(info.callers),
        scope=info.scope or None,
    )


_DTYPE_NAMES: dict[int, tuple[object, str]] = {}  # id(dtype) -> (dtype, str(dtype))


def _dtype_name(dtype) -> str:
    """``str(dtype)``, remembered: numpy computes a dtype's name in Python on every call."""
    hit = _DTYPE_NAMES.get(id(dtype))
    if hit is None or hit[0] is not dtype:
        hit = _DTYPE_NAMES[id(dtype)] = (dtype, str(dtype))
    return hit[1]


def _literal_text(lit: Literal) -> str:
    return ir.pp_literal(lit).rsplit(":", 1)[0]


def _sub_jaxprs(eqn) -> list[tuple[str, Jaxpr]]:
    out = []
    for k, v in sorted(eqn.params.items()):
        if isinstance(v, (ClosedJaxpr, Jaxpr)):
            out.append((k, v.jaxpr if isinstance(v, ClosedJaxpr) else v))
        elif isinstance(v, (tuple, list)):
            for i, w in enumerate(v):
                if isinstance(w, (ClosedJaxpr, Jaxpr)):
                    out.append((f"{k}[{i}]", w.jaxpr if isinstance(w, ClosedJaxpr) else w))
    return out


def _is_jaxpr_param(v) -> bool:
    return isinstance(v, (ClosedJaxpr, Jaxpr)) or (
        isinstance(v, (tuple, list)) and bool(v) and all(isinstance(w, (ClosedJaxpr, Jaxpr)) for w in v)
    )


def _param_text(v) -> str:
    try:
        text = ir.pp_param(v)
    except Exception:  # noqa: BLE001 - an odd param must not break the report
        text = repr(v)
    return text if len(text) <= PARAM_CAP else text[:PARAM_CAP] + "…"


def jaxpr_graph(
    jaxpr: Jaxpr,
    name: str,
    prefix: str = "",
    budget: list[int] | None = None,
    names: dict | None = None,
    types: dict | None = None,
) -> IRGraph:
    """The graph of ``jaxpr``; node ids are ``n0, n1, ...``, nested ones ``n3/n0`` (``n3/1/n0`` in
    the second of several sub-jaxprs), unique in the graph."""
    budget = [NODE_CAP] if budget is None else budget
    names = ir.printed_names(jaxpr) if names is None else names  # the text's names, so ids match it
    types = ir.sharded_types.get(jaxpr, {}) if types is None else types  # (the top's covers bodies)
    g = IRGraph(name=name)

    def var(v) -> str:
        n = "_" if type(v) is ir.DropVar else names.get(v) or f"?{v.count}"
        if n not in g.vars:
            g.vars[n] = IRVar(
                id=n,
                shape=list(v.aval.shape),
                dtype=_dtype_name(v.aval.dtype),
                weak_type=v.aval.weak_type,
                type=types.get(v, ""),
            )
        return n

    def atom(x) -> IRAtom:
        return IRAtom(literal=_literal_text(x)) if isinstance(x, Literal) else IRAtom(var=var(x))

    g.constvars = [var(v) for v in jaxpr.constvars]
    g.invars = [var(v) for v in jaxpr.in_binders]
    for i, eqn in enumerate(jaxpr.eqns):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        node_id = f"{prefix}n{i}"
        outputs = [var(v) for v in eqn.out_binders]
        node = IRNode(
            id=node_id,
            primitive=eqn.primitive.name,
            # (the params the text shows: JAX's hidden defaults, accuracy=None ..., are no noise here)
            params={k: _param_text(v) for k, v in ir.eqn_display_params(eqn) if not _is_jaxpr_param(v)},
            inputs=[atom(x) for x in eqn.inputs],
            outputs=outputs,
            source=source_of(eqn.source_info),
            cost=as_eqn_cost(eqn_cost(eqn)),
        )
        subs = _sub_jaxprs(eqn)
        # One sub-jaxpr (jit, scan, custom_jvp): "n3/n0", the path the kernel map names too. Several
        # (a while's cond and body, a cond's branches) are told apart by position: "n3/1/n0".
        node.subgraphs = [
            jaxpr_graph(
                sub, key, f"{node_id}/" if len(subs) == 1 else f"{node_id}/{k}/", budget, names, types
            )
            for k, (key, sub) in enumerate(subs)
        ]
        g.nodes.append(node)
    g.outvars = [atom(x) for x in jaxpr.outs]
    return g


def _key(node: IRNode):
    return node.primitive, node.source.line if node.source else None


def _all_nodes(graph: IRGraph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs:
            yield from _all_nodes(sub)


def mark_added(graph: IRGraph, previous: IRGraph | None) -> None:
    """Link ``graph``'s equations to ``previous``'s and flag the ones this stage added.

    Equations are matched in order by (primitive, source line): a match inherits the previous
    equation's ``origin``; an equation left without one is ``added`` and takes the origin of the
    last matched equation on its line (the forward equation it was derived from), else the first
    on that line in ``previous``. In the first stage every equation is its own origin.
    """
    nodes = list(_all_nodes(graph))
    if previous is None:
        for node in nodes:
            node.origin = node.id
        return
    pool: dict = {}
    first_on_line: dict = {}
    for p in _all_nodes(previous):
        pool.setdefault(_key(p), deque()).append(p)
        first_on_line.setdefault(_key(p)[1], p.origin)
    last_on_line: dict = {}
    for node in nodes:
        k = _key(node)
        match = pool.get(k)
        if match:
            node.origin = match.popleft().origin
            last_on_line[k[1]] = node.origin
        else:
            node.added = True
            node.origin = last_on_line.get(k[1]) or first_on_line.get(k[1])


def jaxpr_text_and_names(closed) -> tuple[str, dict]:
    """The text of a stage (capped) and its variables' names, for ``jaxpr_graph``'s ``names``."""
    text, names = ir.pp_jaxpr_and_names(closed.jaxpr)
    return (text if len(text) <= TEXT_CAP else text[:TEXT_CAP] + "\n… (truncated)"), names
