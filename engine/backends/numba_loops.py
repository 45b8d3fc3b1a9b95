"""Control flow and host callbacks for the numba code generator: ``cond`` as compiled branches,
``while``/``scan``/``fori_loop`` compiled whole when their bodies are scalar code or elementwise
over equal-shaped arrays (blocked: every step runs on a block in L1), scans over small arrays
unrolled to scalars (``numba_unrolled``), else compiled bodies driven from a host loop. ``numba_codegen`` registers these as its ``Special`` lowerings (import that
module, not this one: they share the code generator's helpers)."""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import core
from ..ir import ClosedJaxpr, Literal
from . import lowering as L
from . import numba_codegen
from .flat_program import FlatProgram
from .numba_codegen import Codegen, _libm


def _sub(gen: "Codegen", closed: ClosedJaxpr, what: str) -> str:
    """A body jaxpr compiled as its own executable (its own module, cached alike), its sums of
    products contracted as a body's first (contracting them again changes nothing)."""
    from ..fused_rules import _compile

    closed = _compile(closed, simplify=False, body=True)[0]
    name = gen.fresh("sub")
    gen.env[name] = gen.backend.compile(closed, f"{gen.name}/{what}")
    gen.fallbacks += [f"{what}: {f}" for f in gen.env[name].fallbacks]
    return name


def _lower_cond(gen: "Codegen", eqn) -> bool:
    names = [gen.host_name(x) for x in eqn.inputs]
    subs = [_sub(gen, b, "branch") for b in eqn.params["branches"]]
    tab = gen.fresh("br")
    gen.host.append(f"{tab} = ({', '.join(subs)},)")
    n = len(subs)
    gen.bind_outs(eqn, f"{tab}[min(max(int({names[0]}), 0), {n - 1})]({', '.join(names[1:])})")
    return True


class _ScalarBody:
    """A body jaxpr over 0-d values as straight-line scalar code (for loops compiled whole).

    With ``shape``, values of that shape are allowed too, as long as every operation on them is
    elementwise: the code then computes one element of them (the loop runs per element).
    """

    def __init__(self, gen: "Codegen", closed: ClosedJaxpr, in_exprs, shape=None):
        self.gen, self.lines, self.ok = gen, [], True
        self.shapes = {(), tuple(shape)} if shape is not None else {()}
        self.elementwise: list[bool] = []  # per line: computes an element of a shaped value?
        flat = FlatProgram(closed, sums=False, body=True)  # (a body is its own computation: contracted alone)
        env = dict(zip(flat.inputs, in_exprs))
        for v, c in flat.consts.items():
            env[v] = L.literal(c, v.aval.dtype) if np.ndim(core.to_numpy(c)) == 0 else None
        read = lambda x: L.literal(x.val, x.aval.dtype) if type(x) is Literal else env.get(x)
        for eqn in flat.eqns:
            outs = self.eqn(eqn, [read(x) for x in eqn.inputs])
            if outs is None:
                self.ok = False
                return
            env.update(zip(eqn.out_binders, outs))
        self.outs = [read(x) for x in flat.outs]
        self.ok = all(o is not None for o in self.outs)

    def eqn(self, eqn, ins):
        vs = [*eqn.inputs, *eqn.out_binders]
        if (
            None in ins
            or any(v.aval.shape not in self.shapes for v in vs)
            or not all(L.supported(v.aval.dtype) for v in vs)
        ):
            return None
        if eqn.primitive.name == "cond":
            return self.cond(eqn, ins)
        if eqn.primitive.name == "while":
            return self.loop(eqn, ins)
        rule = L.lowerings.get(eqn.primitive)
        kind = getattr(rule, "kind", None)
        if kind == "scalar":
            expr = rule.fn(eqn, *ins)
        elif kind == "mapped" and rule.fn(eqn) is not None:
            maps, combine = rule.fn(eqn)
            out_nd = eqn.out_binders[0].aval.ndim
            if any(x.aval.ndim and list(m) != list(range(out_nd)) for x, m in zip(eqn.inputs, maps)):
                return None  # a real re-indexing: not elementwise
            expr = ins[0] if combine is None else combine.format(*ins)
        elif kind == "reduce" and not eqn.params.get("axes"):
            expr = ins[0]  # (over no axes: the operand; a while's cond reduces its predicate so)
        else:
            return None
        if expr is None:
            return None
        shaped = any(v.aval.ndim for v in eqn.out_binders)
        if not shaped:
            expr = _libm(expr)  # scalar code does not vectorize: the exact trig is as fast
        elif "rt.sin_f32(" in expr or "rt.cos_f32(" in expr:
            return None  # (no huge-argument guard in these loops)
        if len(eqn.out_binders) > 1 or eqn.primitive.multiple_results:
            t = self.gen.fresh("t")
            self.lines.append(f"{t} = {expr}")
            self.elementwise.append(shaped)
            expr = [f"{t}[{k}]" for k in range(len(eqn.out_binders))]
        else:
            expr = [expr]
        names = []
        for v, e in zip(eqn.out_binders, expr):
            n = self.gen.fresh("s")
            self.lines.append(f"{n} = {L.cast(v.aval.dtype)}({e})")
            self.elementwise.append(shaped)
            names.append(n)
        return names


def _scalar_cond(self, eqn, ins):
    """``cond`` on scalars as an if/elif/else chain (branches are scalar bodies themselves)."""
    if any(v.aval.ndim for v in [*eqn.inputs, *eqn.out_binders]):
        return None
    index, *args = ins
    branches = [_ScalarBody(self.gen, br, args) for br in eqn.params["branches"]]
    if not all(b.ok for b in branches):
        return None
    outs = [self.gen.fresh("s") for _ in eqn.out_binders]
    for k, b in enumerate(branches):
        head = "else:" if k == len(branches) - 1 else f"{'if' if k == 0 else 'elif'} {index} == {k}:"
        body = b.lines + [
            f"{o} = {L.cast(v.aval.dtype)}({e})" for o, v, e in zip(outs, eqn.out_binders, b.outs)
        ]
        self.lines += [head] + ["    " + line for line in body]
        self.elementwise += [False] * (len(body) + 1)
    return outs


def _scalar_while(self, eqn, ins):
    """``while`` on scalars as a ``while True:`` loop in the code around it (a loop in a scan's
    body: random_gamma_grad's series under ``lax.map``)."""
    p = eqn.params
    if p["cond_jaxpr"].out_avals[0].shape != () or any(v.aval.ndim for v in [*eqn.inputs, *eqn.out_binders]):
        return None
    nc, nb_ = p["cond_nconsts"], p["body_nconsts"]
    carry = [self.gen.fresh("v") for _ in eqn.out_binders]
    cond = _ScalarBody(self.gen, p["cond_jaxpr"], [*ins[:nc], *carry])
    body = _ScalarBody(self.gen, p["body_jaxpr"], [*ins[nc : nc + nb_], *carry])
    if not (cond.ok and body.ok):
        return None
    casts = [L.cast(v.aval.dtype) for v in eqn.out_binders]
    lines = [f"{v} = {c}({e})" for v, c, e in zip(carry, casts, ins[nc + nb_ :])]
    lines += [
        "while True:",
        *("    " + line for line in cond.lines),
        f"    if not {cond.outs[0]}:",
        "        break",
    ]
    lines += ["    " + line for line in body.lines]
    lines += [f"    {v} = {c}({e})" for v, c, e in zip(carry, casts, body.outs)]
    self.lines += lines
    self.elementwise += [False] * len(lines)
    return carry


_ScalarBody.cond = _scalar_cond
_ScalarBody.loop = _scalar_while


def _loop_kernel(gen: "Codegen", eqn, ins, lines, outs) -> None:
    """Kernel ``kN(inputs..., outputs...)`` over 0-d (and 1-d scan) arrays, called from the host."""
    kid = gen.fresh("w")
    sig = [f"R({L.nb_type(x.aval.dtype)}, {x.aval.ndim})" for x in ins]
    sig += [f"A({L.nb_type(v.aval.dtype)}, {v.aval.ndim})" for v in eqn.out_binders]
    params = [f"a{k}" for k in range(len(ins))] + [f"o{k}" for k in range(len(eqn.out_binders))]
    src = [f"@nb.njit(nb.void({', '.join(sig)}), **_KW)", f"def {kid}({', '.join(params)}):"]
    src += ["    " + line for line in lines]
    src += [
        f"    o{k}{'[()]' if v.aval.ndim == 0 else '[:]'} = {e}"
        for k, (v, e) in enumerate(zip(eqn.out_binders, outs))
        if e is not None
    ]
    gen.kernels.append("\n".join(src))
    names = [gen.host_name(x) for x in ins]
    outs_h = []
    for v in eqn.out_binders:
        hn = gen.fresh("a")
        gen.host.append(f"{hn} = np.empty({v.aval.shape!r}, np.{v.aval.dtype.name})")
        gen.names[v] = hn
        outs_h.append(hn)
    gen.host.append(f"{kid}({', '.join([*names, *outs_h])})")


def _while_scalar(gen: "Codegen", eqn) -> bool:
    """A while loop over scalars, compiled whole: no host round trip per iteration."""
    p = eqn.params
    nc, nb_ = p["cond_nconsts"], p["body_nconsts"]
    ins = list(eqn.inputs)
    if any(x.aval.ndim for x in ins) or not all(L.supported(x.aval.dtype) for x in ins):
        return False
    a = [f"a{k}[()]" for k in range(len(ins))]
    carry = [gen.fresh("v") for _ in ins[nc + nb_ :]]
    cond = _ScalarBody(gen, p["cond_jaxpr"], [*a[:nc], *carry])
    body = _ScalarBody(gen, p["body_jaxpr"], [*a[nc : nc + nb_], *carry])
    if not (cond.ok and body.ok):
        return False
    lines = [f"{v} = {L.cast(x.aval.dtype)}({e})" for v, x, e in zip(carry, ins[nc + nb_ :], a[nc + nb_ :])]
    lines.append("while True:")
    lines += ["    " + line for line in cond.lines]
    lines.append(f"    if not {cond.outs[0]}:")
    lines.append("        break")
    lines += ["    " + line for line in body.lines]
    lines += [f"    {v} = {L.cast(x.aval.dtype)}({e})" for v, x, e in zip(carry, ins[nc + nb_ :], body.outs)]
    _loop_kernel(gen, eqn, ins, lines, carry)
    return True


def _scan_scalar(gen: "Codegen", eqn) -> bool:
    """A scan whose per-step values are scalars (fori_loop with static bounds), compiled whole."""
    p = eqn.params
    nc, nk, n = p["num_consts"], p["num_carry"], p["length"]
    ins = list(eqn.inputs)
    xs = ins[nc + nk :]
    if (
        any(x.aval.ndim for x in ins[: nc + nk])
        or any(x.aval.ndim != 1 for x in xs)
        or any(v.aval.ndim != 1 for v in eqn.out_binders[nk:])
        or not all(L.supported(x.aval.dtype) for x in [*ins, *eqn.out_binders])
    ):
        return False
    a = [f"a{k}[()]" for k in range(nc + nk)] + [f"a{k}[i]" for k in range(nc + nk, len(ins))]
    carry = [gen.fresh("v") for _ in range(nk)]
    body = _ScalarBody(gen, p["jaxpr"], [*a[:nc], *carry, *a[nc + nk :]])
    if not body.ok:
        return False
    lines = [
        f"{v} = {L.cast(x.aval.dtype)}({e})" for v, x, e in zip(carry, ins[nc : nc + nk], a[nc : nc + nk])
    ]
    lines.append(f"for i in {f'range({n} - 1, -1, -1)' if p['reverse'] else f'range({n})'}:")
    lines += ["    " + line for line in body.lines]
    lines += [f"    o{nk + k}[i] = {e}" for k, e in enumerate(body.outs[nk:])]
    lines += [
        f"    {v} = {L.cast(x.aval.dtype)}({e})" for v, x, e in zip(carry, ins[nc : nc + nk], body.outs[:nk])
    ]
    _loop_kernel(gen, eqn, ins, lines, [*carry, *[None] * (len(eqn.out_binders) - nk)])
    return True


def _lower_while(gen: "Codegen", eqn) -> bool:
    p = eqn.params
    batched_pred = p["cond_jaxpr"].out_avals[0].shape != ()  # a vmapped while (JAX's form)
    if not batched_pred and (_while_scalar(gen, eqn) or _while_elementwise(gen, eqn)):
        return True
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    names = [gen.host_name(x) for x in eqn.inputs]
    cs, bs, carry = names[:nc], names[nc : nc + nb], names[nc + nb :]
    cf, bf = _sub(gen, p["cond_jaxpr"], "cond"), _sub(gen, p["body_jaxpr"], "body")
    c = gen.fresh("carry")
    gen.host.append(f"{c} = [{', '.join(carry)}]")
    if batched_pred:  # loop while any example runs; finished ones keep their carry
        pr = gen.fresh("pred")
        gen.host.append("while True:")
        gen.host.append(f"    {pr} = np.asarray({cf}({', '.join([*cs, f'*{c}'])})[0])")
        gen.host.append(f"    if not {pr}.any():")
        gen.host.append("        break")
        gen.host.append(
            f"    {c} = [np.where({pr}.reshape({pr}.shape + (1,) * (np.ndim(n) - {pr}.ndim)), n, o) "
            f"for n, o in zip({bf}({', '.join([*bs, f'*{c}'])}), {c})]"
        )
    else:
        gen.host.append(f"while {cf}({', '.join([*cs, f'*{c}'])})[0]:")
        gen.host.append(f"    {c} = {bf}({', '.join([*bs, f'*{c}'])})")
    gen.bind_outs(eqn, c)
    return True


SCAN_BLOCK = 512  # elements kept in registers/L1 while every step runs over them


def _blocked_loop(gen: "Codegen", eqn, ins, consts, init, body_jaxpr, loop, cond_jaxpr=None) -> bool:
    """One kernel for a loop whose carries are equal-shaped arrays (and scalars) and whose body
    is elementwise, interchanged and blocked: ``SCAN_BLOCK`` elements at a time run every
    iteration (a vectorized loop per iteration over a block in L1) before moving on, instead of
    one pass over memory per iteration. Scalar carries (they cannot depend on the arrays without
    a reduction, which is not elementwise) are recomputed per block, identically.

    ``consts``/``init`` index ``ins``; ``loop`` is the iteration header line (``for step in ...``
    or ``while True:``); a while loop's ``cond_jaxpr`` reads its consts and the carries.
    """
    nk = len(init)
    shapes = {x.aval.shape for x in ins if x.aval.ndim}
    if len(shapes) != 1 or len(eqn.out_binders) != nk or not all(L.supported(x.aval.dtype) for x in ins):
        return False
    shape = shapes.pop()
    size = int(np.prod(shape))
    if size == 0:
        return False
    shaped = [x.aval.ndim > 0 for x in ins]
    read = lambda k: f"a{k}[base + j]" if shaped[k] else f"a{k}[()]"
    carry = [f"b{k}[j]" if shaped[k] else gen.fresh("v") for k in init]
    body = _ScalarBody(gen, body_jaxpr, [*[read(k) for k in consts[1]], *carry], shape)
    cond = (
        None if cond_jaxpr is None else _ScalarBody(gen, cond_jaxpr, [*[read(k) for k in consts[0]], *carry])
    )
    if not body.ok or (cond is not None and not cond.ok):
        return False
    dts = [x.aval.dtype for x in ins]
    lines = [f"b{k} = np.empty({SCAN_BLOCK}, np.{dts[k].name})" for k in init if shaped[k]]
    # (unsigned indices: a signed ``base + j`` keeps numba's negative-index wraparound in the loop;
    # ``base``, not a ``b<k>`` name: those are the carries' block buffers)
    lines.append(f"for base in range(np.uint64(lo), np.uint64(hi), np.uint64({SCAN_BLOCK})):")
    lines.append(f"    m = min(np.uint64({SCAN_BLOCK}), np.uint64(hi) - base)")
    for k, c in zip(init, carry):
        lines += (
            ["    for j in range(m):", f"        b{k}[j] = a{k}[base + j]"]
            if shaped[k]
            else [f"    {c} = {L.cast(dts[k])}(a{k}[()])"]
        )
    lines.append("    " + loop)
    if cond is not None:
        lines += ["        " + line for line in cond.lines]
        lines += [f"        if not {cond.outs[0]}:", "            break"]
    lines += ["        " + line for line, el in zip(body.lines, body.elementwise) if not el]
    updates = [(c, dts[k], shaped[k], e) for c, k, e in zip(carry, init, body.outs)]
    el = [line for line, e in zip(body.lines, body.elementwise) if e]
    el += [f"{c} = {L.cast(dt)}({e})" for c, dt, sh, e in updates if sh]
    if el:
        lines += ["        for j in range(m):"] + ["            " + line for line in el]
    lines += [f"        {c} = {L.cast(dt)}({e})" for c, dt, sh, e in updates if not sh]
    for o, (k, c) in enumerate(zip(init, carry)):
        lines += (
            ["    for j in range(m):", f"        o{o}[base + j] = b{k}[j]"]
            if shaped[k]
            else [f"    o{o}[()] = {c}"]
        )
    kid = gen.fresh("w")
    sig = [f"R({L.nb_type(x.aval.dtype)}, {int(sh)})" for x, sh in zip(ins, shaped)]
    sig += [f"A({L.nb_type(v.aval.dtype)}, {int(v.aval.ndim > 0)})" for v in eqn.out_binders]
    params = [f"a{k}" for k in range(len(ins))] + [f"o{k}" for k in range(nk)]
    src = [
        f"@nb.njit(nb.void(nb.int64, nb.int64, {', '.join(sig)}), **_KW)",
        f"def {kid}(lo, hi, {', '.join(params)}):",
    ]
    gen.kernels.append("\n".join(src + ["    " + line for line in lines]))
    names = [gen.host_name(x) + (".reshape(-1)" if sh else "") for x, sh in zip(ins, shaped)]
    outs = []
    for v in eqn.out_binders:
        hn = gen.fresh("a")
        gen.host.append(f"{hn} = {gen.alloc(v.aval.shape, v.aval.dtype)}")
        gen.names[v] = hn
        outs.append(hn + (".reshape(-1)" if v.aval.ndim else ""))
    args = ", ".join([*names, *outs])
    split = size >= numba_codegen.PARALLEL_MIN // 8 and size >= 2 * SCAN_BLOCK
    gen.host.append(f"_par({kid}, {size}, {args})" if split else f"{kid}(0, {size}, {args})")
    return True


def _scan_elementwise(gen: "Codegen", eqn) -> bool:
    """A scan without xs/ys over arrays with an elementwise body (``fori_loop`` over arrays)."""
    p = eqn.params
    nc, nk = p["num_consts"], p["num_carry"]
    ins = list(eqn.inputs)
    if len(ins) != nc + nk:
        return False
    loop = f"for step in range({p['length']}):"
    return _blocked_loop(gen, eqn, ins, ([], range(nc)), list(range(nc, nc + nk)), p["jaxpr"], loop)


def _while_elementwise(gen: "Codegen", eqn) -> bool:
    """A while loop over arrays with an elementwise body and a scalar condition."""
    p = eqn.params
    nc, nb_ = p["cond_nconsts"], p["body_nconsts"]
    ins = list(eqn.inputs)
    return _blocked_loop(
        gen,
        eqn,
        ins,
        (range(nc), range(nc, nc + nb_)),
        list(range(nc + nb_, len(ins))),
        p["body_jaxpr"],
        "while True:",
        p["cond_jaxpr"],
    )


def _lower_scan(gen: "Codegen", eqn) -> bool:
    from .numba_unrolled import lower_scan as _scan_unrolled  # (it imports numba_codegen's helpers)

    if _scan_scalar(gen, eqn) or _scan_elementwise(gen, eqn) or _scan_unrolled(gen, eqn):
        return True
    p = eqn.params
    nc, nk, n = p["num_consts"], p["num_carry"], p["length"]
    names = [gen.host_name(x) for x in eqn.inputs]
    cs, carry, xs = names[:nc], names[nc : nc + nk], names[nc + nk :]
    bf = _sub(gen, p["jaxpr"], "body")
    c, ys, i, o = gen.fresh("carry"), gen.fresh("ys"), gen.fresh("i"), gen.fresh("o")
    y_avals = p["jaxpr"].out_avals[nk:]
    gen.host.append(f"{c} = [{', '.join(carry)}]")
    gen.host.append(
        f"{ys} = [" + ", ".join(f"np.empty({(n, *a.shape)!r}, np.{a.dtype.name})" for a in y_avals) + "]"
    )
    order = f"range({n} - 1, -1, -1)" if p["reverse"] else f"range({n})"
    gen.host.append(f"for {i} in {order}:")
    gen.host.append(f"    {o} = {bf}({', '.join([*cs, f'*{c}', *[f'{x}[{i}]' for x in xs]])})")
    gen.host.append(f"    {c} = {o}[:{nk}]")
    gen.host.append(f"    for _y, _v in zip({ys}, {o}[{nk}:]): _y[{i}] = _v")
    gen.bind_outs(eqn, f"[*{c}, *{ys}]")
    return True


def _lower_callback(gen: "Codegen", eqn) -> bool:
    # A host call at the equation's place: callbacks run in program order, after their operands.
    names = [gen.host_name(x) for x in eqn.inputs]
    cb = gen.fresh("cb")
    gen.env[cb] = partial(core.impl_rules[eqn.primitive], **eqn.params)
    gen.host.append(f"{cb}({', '.join(names)})")
    return True


def _lower_general_reduce(gen: "Codegen", eqn) -> bool:
    """``reduce`` with a scalar computation: a kernel folding each row of elements left to right
    (skipping a window's padding), driven level by level from the host in the order XLA's CPU
    backend folds (``general_reduce.fold``): no interpreter step per element."""
    from ..lax import general_reduce

    n = len(eqn.out_binders)
    ins = list(eqn.inputs)
    if not all(L.supported(x.aval.dtype) for x in ins):
        return False
    acc, tmp = [gen.fresh("v") for _ in range(n)], [gen.fresh("v") for _ in range(n)]
    body = _ScalarBody(gen, eqn.params["jaxpr"], [*acc, *[f"a{k}[r, c]" for k in range(n)]])
    if not body.ok:
        return False
    dts = [x.aval.dtype for x in ins[:n]]
    kid = gen.fresh("w")
    sig = [f"R({L.nb_type(d)}, 2)" for d in dts] + ["R(nb.boolean, 2)"]
    sig += [f"R({L.nb_type(d)}, 0)" for d in dts] + [f"A({L.nb_type(d)}, 1)" for d in dts]
    params = (
        [f"a{k}" for k in range(n)] + ["valid"] + [f"i{k}" for k in range(n)] + [f"o{k}" for k in range(n)]
    )
    lines = [
        f"@nb.njit(nb.void({', '.join(sig)}), **_KW)",
        f"def {kid}({', '.join(params)}):",
        "    for r in range(a0.shape[0]):",
        "        m = r % valid.shape[0]",
        *[f"        {v} = {L.cast(d)}(i{k}[()])" for k, (v, d) in enumerate(zip(acc, dts))],
        "        for c in range(a0.shape[1]):",
        "            if valid[m, c]:",
        *["                " + line for line in body.lines],
        *[f"                {t} = {L.cast(d)}({e})" for t, d, e in zip(tmp, dts, body.outs)],
        *[f"                {v} = {t}" for v, t in zip(acc, tmp)],
        *[f"        o{k}[r] = {v}" for k, v in enumerate(acc)],
    ]
    gen.kernels.append("\n".join(lines))
    fold = gen.fresh("fold")
    gen.env[fold] = partial(_fold_with_kernel, general_reduce.fold)
    names = [gen.host_name(x) for x in ins]
    dims = tuple(eqn.params["dimensions"])
    gen.bind_outs(eqn, f"{fold}({kid}, [{', '.join(names[:n])}], [{', '.join(names[n:])}], {dims!r})")
    return True


def _fold_with_kernel(fold, kernel, operands, inits, dims):
    def rows(xs, valid, inits_):
        width = xs[0].shape[1]
        valid = np.ones((1, width), np.bool_) if valid is None else np.ascontiguousarray(valid)
        outs = [np.empty(xs[0].shape[0], x.dtype) for x in xs]
        kernel(*[np.ascontiguousarray(x) for x in xs], valid, *inits_, *outs)
        return outs

    inits = [np.asarray(i, x.dtype) for i, x in zip(inits, operands)]
    return fold([np.asarray(x) for x in operands], inits, dims, rows)
