"""The numba backend's code generator: a closed jaxpr to the source of a Python module with one
*host* function and one numba *kernel* per fused loop nest (see ``numba_jit`` for the whole
design: fusion, deferred re-indexing, kernels over ``[lo, hi)`` ranges, no allocation in kernels).

``Codegen`` walks the flattened jaxpr (``flat_program.FlatProgram``: nested jit calls inlined) and lowers each equation
by its row in ``lowering.lowerings``: scalar rules join an open loop nest, index rules are deferred
into their consumers' loads, reductions close a nest, and ``Special`` rows (control flow, scatter:
``numba_loops``, ``numba_scatter``) and primitives without a lowering run from the host.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Callable

import numpy as np

from .. import core
from ..core import ShapedArray
from ..ir import ClosedJaxpr, JaxprEqn, Literal, Var
from ..lax import sum_order
from . import lowering as L
from .flat_program import FlatProgram
from .numba_runtime import POOL_MIN_BYTES, _c

PARALLEL_MIN = 1 << 20  # elements per loop nest above which the outer axis is split over threads (a
#                          pool launch costs ~50-70 us; on this shared 2-core machine splitting only
#                          paid off from a few MB)
RELAYOUT_MIN = 1 << 14  # elements from which an input view is worth a program of its own rather
#                        than a copy (dispatching on its layout costs a few microseconds)


# ---------------------------------------------------------------------------------------------
# Code generation.


class _Group:
    """One loop nest under construction over ``shape``."""

    def __init__(self, gid, shape):
        self.id, self.shape = gid, tuple(shape)
        self.lines: list[str] = []
        self.members: dict[Var, str] = {}  # values computed in the loop -> scalar name
        self.loads: dict[tuple, str] = {}  # (var, index expressions) -> scalar name
        self.arrays: dict[Var, str] = {}  # loaded arrays -> kernel parameter name
        self.inline: set[tuple] = set()  # loads emitted in the body (data-dependent index)
        self.reduces: list[tuple] = []  # (out var, op, scalar, kept axes)
        self.guards: list[str] = []  # int32 expressions: nonzero -> rerun with libm
        self.forced: set[Var] = set()  # members written out whatever their uses
        self.indexed = False  # the body uses loop indices itself (no flattening)
        self.eqn_ids: set[int] = set()
        self.fused: set[int] = set()  # deferred equations composed into this nest's loads


class Launch:
    """One kernel call of the host program: which kernel, the flat equations it computes (those
    whose values it defines and the deferred re-indexings composed into its loads), and the bytes
    it reads and writes (each array once: what fusion leaves of the equations' traffic)."""

    __slots__ = ("kernel", "eqns", "read_bytes", "write_bytes", "host_line")

    def __init__(self, kernel: str, eqns: list[int], read_bytes: int, write_bytes: int, host_line: int):
        self.kernel, self.eqns = kernel, eqns
        self.read_bytes, self.write_bytes, self.host_line = read_bytes, write_bytes, host_line


class Codegen:
    def __init__(self, backend, closed: ClosedJaxpr, name: str, layouts=None):
        self.backend = backend
        self.layouts = layouts  # per input: see ``layout_of``; None: the C-contiguous program
        self.strided: set[Var] = set()  # inputs passed with their own strides (``RA`` params)
        self.flat = FlatProgram(closed)
        self.name = name
        self.kernels: list[str] = []
        self.kernel_ids: dict[str, str] = {}  # canonical kernel text -> kernel name
        self.host: list[str] = []
        self.env: dict[str, object] = {}
        self.fallbacks: list[str] = []
        self.names: dict[Var, str] = {}  # materialized values -> host name
        self.group_of: dict[Var, _Group] = {}  # values living in an open loop nest
        self.open: dict[tuple, _Group] = {}
        # deferred ops: var -> (expand(read, idx) -> scalar expression, uses loop indices?)
        self.lazy: dict[Var, tuple] = {}
        self.lazy_eqn: dict[Var, int] = {}  # deferred value -> the flat equation defining it
        self.launches: list[Launch] = []
        # host steps: (flat equation, first host line, end) of the code an equation no kernel
        # computes runs on the host (a BLAS matmul, a loop, a fallback), timed like launches
        self.host_steps: list[tuple[int, int, int]] = []
        # host line -> where its equation came from (``host_lines`` gives ``run`` the user's lines)
        self.host_origin: dict[int, object] = {}
        self._closed_at = 0  # end of the host lines the last closed loop nest wrote
        self.source = ""  # set by NumbaBackend.lower_program
        self._run_parts: tuple[list, list, list] = ([], [], [])  # run's arguments, checks, outputs
        self._n = 0
        self.uses: dict[Var, set[int]] = {}
        for i, eqn in enumerate(self.flat.eqns):
            for x in eqn.inputs:
                if type(x) is Var:
                    self.uses.setdefault(x, set()).add(i)
        self.out_set = {x for x in self.flat.outs if type(x) is Var}

    def fresh(self, prefix):
        self._n += 1
        return f"{prefix}{self._n}"

    # --- materialized values ---------------------------------------------------------------

    def host_name(self, x) -> str:
        """The host-side name of ``x``, closing the loop nest that computes it if need be."""
        if type(x) is Literal:
            name = self.fresh("lit")
            self.env[name] = np.asarray(core.to_numpy(x.val), x.aval.dtype)
            return name
        if x in self.lazy and x not in self.names:
            self.materialize(x)
        if x not in self.names:
            g = self.group_of.get(x)
            assert g is not None, f"unbound {x}"
            self.close(g)
        return self.names[x]

    def materialize(self, x):
        """Write a deferred op out (it is a program output or a host op's operand)."""
        shape = x.aval.shape
        g = self.prepare(shape, [x], [_ident(len(shape))])
        expr = self.load(g, x, _ident(len(shape)))
        g = self.group(shape)
        s = self.fresh("s")
        g.lines.append(f"{s} = {expr}")
        g.members[x] = s
        g.forced.add(x)
        self.group_of[x] = g
        self.close(g)

    def bind_host(self, var, expr):
        name = self.fresh("a")
        self.host.append(f"{name} = {expr}")
        self.names[var] = name
        return name

    def alloc(self, shape, dtype) -> str:
        """An expression allocating an uninitialized host buffer (pooled when large)."""
        dtype = np.dtype(dtype)
        if int(np.prod(shape, dtype=np.int64)) * dtype.itemsize < POOL_MIN_BYTES:
            return f"np.empty({tuple(shape)!r}, np.{dtype.name})"
        if "_bufs" not in self.env:
            self.env["_bufs"] = []
        self.env["_bufs"].append(None)
        return f"_buf(_bufs, {len(self.env['_bufs']) - 1}, {tuple(shape)!r}, np.{dtype.name})"

    # --- loop nests ------------------------------------------------------------------------

    def group(self, shape) -> _Group:
        g = self.open.get(tuple(shape))
        if g is None:
            g = self.open[tuple(shape)] = _Group(self.fresh("k"), shape)
        return g

    def load(self, g: _Group, x, idx) -> str:
        """The scalar name of ``x[idx]`` inside loop nest ``g``; ``idx`` holds one index
        expression per axis of ``x`` (loop variables ``i0, i1, ...``, constants, arithmetic)."""
        if type(x) is Literal:
            return L.literal(x.val, x.aval.dtype)
        lazy = self.lazy.get(x)
        if lazy is not None:  # a deferred op: composed into this load, never materialized
            expand, indexed = lazy
            g.indexed |= indexed
            if x in self.lazy_eqn:
                g.fused.add(self.lazy_eqn[x])
            return expand(lambda y, yidx: self.load(g, y, yidx), list(idx))
        idx = tuple(idx)
        if x in g.members and x.aval.shape == g.shape and idx == _ident(len(g.shape)):
            return g.members[x]
        self.host_name(x)
        key = (x, idx)
        if key not in g.loads:
            lname = g.loads[key] = self.fresh("l")
            if x not in g.arrays:
                g.arrays[x] = self.fresh("p")
            if _COMPUTED.search(" ".join(idx)):
                # The index depends on a value computed in this loop body: load in place.
                g.lines.append(f"{lname} = {g.arrays[x]}[{', '.join(idx)}]")
                g.inline.add(key)
        return g.loads[key]

    def leaves(self, x, idx, out):
        """Collect the (materialized or member value, index) pairs a load of ``x[idx]`` reads."""
        lazy = self.lazy.get(x) if type(x) is Var else None
        if lazy is None:
            out.append((x, tuple(idx)))
            return "l0"
        return lazy[0](lambda y, yidx: self.leaves(y, yidx, out), list(idx))

    def prepare(self, shape, operands, idxs=None):
        """Materialize operands that live in other loop nests (or in this one, when read
        re-indexed); returns the nest for ``shape``."""
        target = self.open.get(tuple(shape))
        ident = _ident(len(shape))
        for k, x in enumerate(operands):
            if type(x) is not Var:
                continue
            idx = idxs[k] if idxs is not None else (ident if x.aval.shape == tuple(shape) else ())
            found = []
            self.leaves(x, idx, found)
            for y, yidx in found:
                if type(y) is not Var or y in self.names:
                    continue
                g = self.group_of[y]
                same = g is target and y in g.members and y.aval.shape == tuple(shape) and yidx == ident
                if not same and self.open.get(g.shape) is g:
                    self.close(g)
                    target = self.open.get(tuple(shape))
        return self.group(shape)

    def close(self, g: _Group):
        del self.open[g.shape]
        escaping = [
            v
            for v in g.members
            if v in self.out_set or v in g.forced or not self.uses.get(v, set()) <= g.eqn_ids
        ]
        for v in [*g.members, *(r[0] for r in g.reduces)]:
            self.group_of.pop(v, None)
        if not escaping and not g.reduces:
            return
        ident = lambda k: k[1] == _ident(len(g.shape)) and k[0].aval.shape == g.shape
        plain = not g.indexed and all(ident(k) or k[0].aval.ndim == 0 for k in g.loads)
        flat = plain and not g.reduces and len(g.shape) > 1
        shape = (int(np.prod(g.shape, dtype=np.int64)),) if flat else g.shape
        nd = len(shape)
        # A 1-d nest indexed only by i0 runs it unsigned: with a signed index starting at ``lo``,
        # numba's negative-index wraparound stays in the loop and the kernel ran 3x slower
        # (measured: 33 ms vs 10 ms for x*x + x*2 over 25M floats).
        outer = "range(np.uint64(lo), np.uint64(hi))" if plain and nd == 1 else "range(lo, hi)"

        def index(idx, ndim_full):
            if ndim_full == 0:
                return "[()]"
            if flat:
                return "[i0]"
            return "[" + ", ".join(idx) + "]"

        params, sig, call = [], [], []
        body = []
        for x, p in g.arrays.items():
            params.append(p)
            ra = "RA" if x in self.strided else "R"
            sig.append(f"{ra}({L.nb_type(x.aval.dtype)}, {1 if flat and x.aval.ndim else x.aval.ndim})")
            hn = self.names[x]
            call.append(f"{hn}.reshape(-1)" if flat and x.aval.ndim else hn)
        for (x, idx), lname in g.loads.items():
            if (x, idx) not in g.inline:
                body.append(f"{lname} = {g.arrays[x]}{index(idx, x.aval.ndim)}")
        body += g.lines
        post = []
        for v in escaping:
            p = self.fresh("o")
            params.append(p)
            sig.append(f"A({L.nb_type(v.aval.dtype)}, {nd})")
            hn = self.fresh("a")
            self.names[v] = hn
            self.host.append(f"{hn} = {self.alloc(g.shape, v.aval.dtype)}")
            call.append(f"{hn}.reshape(-1)" if flat else hn)
            body.append(f"{p}{index(_ident(nd), nd)} = {g.members[v]}")
        parallel_ok = nd > 0 and int(np.prod(shape)) >= PARALLEL_MIN and shape[0] > 1
        for v, op, s, kept in g.reduces:
            p = self.fresh("r")
            params.append(p)
            dt = v.aval.dtype
            acc = np.dtype("float64") if (op in ("sum", "prod") and dt.kind == "f") else dt
            sig.append(f"A({L.nb_type(acc)}, {len(kept)})")
            hn = self.fresh("a")
            init = _reduce_init(op, acc)
            if op == "sum" and acc.kind == "f" and v.aval.size == int(np.prod(shape)):
                init = "-0.0"  # (over dimensions of length 1 only: XLA reshapes, so -0. stays -0.)
            self.host.append(f"{hn} = np.full({v.aval.shape!r}, {init}, np.{acc.name})")
            call.append(hn)
            idx = "[()]" if not kept else "[" + ", ".join(f"i{a}" for a in kept) + "]"
            if op in _REDUCE_OPS:
                body.append(f"{p}{idx} {_REDUCE_OPS[op]}= {s}")
            else:
                fn = {"max": "rt.fmax", "min": "rt.fmin"}[op] if dt.kind == "f" else op
                body.append(f"{p}{idx} = {fn}({p}{idx}, {s})")
            if acc != dt:
                post.append(f"{hn} = {hn}.astype(np.{dt.name})")
            self.names[v] = hn
            parallel_ok = parallel_ok and 0 in kept
        src = [
            f"@nb.njit(nb.void(nb.int64, nb.int64, {', '.join(sig)}), **_KW)",
            f"def {g.id}(lo, hi, {', '.join(params)}):",
        ]

        def nest(lines, ind="    "):
            for d in range(nd):
                bound = outer if d == 0 else f"range({shape[d]})"
                src.append(ind + f"for i{d} in {bound}:")
                ind += "    "
            src.extend(ind + line for line in lines)

        if g.guards and not g.reduces:
            # Fast (vectorized) pass that also ORs the guards; rerun with libm if any fired.
            # (an int32 OR with an explicit cast: numba's int64 promotion stops LLVM vectorizing)
            src.append("    huge = np.int32(0)")
            nest(body + [f"huge = np.int32(huge | {e})" for e in g.guards])
            src.append("    if huge:")
            nest([_libm(line) for line in body], "        ")
        else:  # (a reduction cannot be rerun: it would accumulate twice)
            nest([_libm(line) for line in body] if g.guards else body)
        kid = self.add_kernel(g.id, src)
        n0 = shape[0] if nd else 0
        nbytes = lambda v: int(v.aval.size) * int(v.aval.dtype.itemsize)  # noqa: E731
        read = sum((nbytes(x) for x in g.arrays), 0)
        written = sum((nbytes(v) for v in [*escaping, *(r[0] for r in g.reduces)]), 0)
        eqns = sorted(g.eqn_ids | g.fused)
        self.launches.append(Launch(kid, eqns, read, written, len(self.host)))
        if parallel_ok:
            self.host.append(f"_par({kid}, {n0}, {', '.join(call)})")
        else:
            self.host.append(f"{kid}(0, {n0}, {', '.join(call)})")
        self.host += post
        self._closed_at = len(self.host)

    def add_kernel(self, kid: str, src: list) -> str:
        """Add a kernel, or reuse an identical one (each costs ~0.1-0.3 s to compile): local names
        are renumbered in order of appearance, so equal loop nests have equal text."""
        names = {}
        text = _LOCAL.sub(
            lambda m: names.setdefault(m.group(0), f"{m.group(1)}{len(names)}"),
            "\n".join(src).replace(f"def {kid}(", "def KERNEL("),
        )
        if text not in self.kernel_ids:
            self.kernel_ids[text] = kid
            self.kernels.append(text.replace("def KERNEL(", f"def {kid}("))
        return self.kernel_ids[text]

    # --- equations -------------------------------------------------------------------------

    def lower_eqn(self, i: int, eqn: JaxprEqn):
        n0 = len(self.host)
        self._lower_eqn(i, eqn)
        # the lines after any loop nest this equation had to close (its operands' kernels)
        start = max(n0, self._closed_at)
        if start < len(self.host) and not self.host[start].startswith(" "):
            self.host_steps.append((i, start, len(self.host)))
        for k in range(start, len(self.host)):
            self.host_origin[k] = eqn.source_info

    def _lower_eqn(self, i: int, eqn: JaxprEqn):
        p = eqn.primitive
        rule = L.lowerings.get(p)
        dtypes_ok = all(L.supported(x.aval.dtype) for x in [*eqn.inputs, *eqn.out_binders])
        kind = getattr(rule, "kind", None)
        if (
            kind == "scalar"
            and dtypes_ok
            and rule.fn(eqn, *[f"_x{j}" for j in range(len(eqn.inputs))]) is not None
        ):
            return self.lower_scalar(i, eqn, rule)
        if kind == "mapped" and dtypes_ok:
            m = rule.fn(eqn)
            if m is not None:
                return self.lower_mapped(i, eqn, *m)
            rule, kind = L.host_fallback_of_mapped.get(p), "host"
        if kind == "index" and dtypes_ok:
            expand = rule.fn(eqn)
            if expand is not None:
                return self.lower_index(i, eqn, expand)
        if kind == "reduce" and dtypes_ok and not _ordered_sum(eqn, rule.op):
            return self.lower_reduce(i, eqn, rule.op)
        if kind == "special":
            handler = _specials.get(rule.name)
            if handler is not None and handler(self, eqn):
                return
        if kind == "host" and rule is not None:
            names = [self.host_name(x) for x in eqn.inputs]
            expr = rule.fn(eqn, *names)
            if expr is not None:
                return self.bind_outs(eqn, expr)
        self.lower_fallback(eqn)

    def define(self, g: _Group, i: int, eqn, exprs):
        g.eqn_ids.add(i)
        for v, e in zip(eqn.out_binders, exprs):
            s = self.fresh("s")
            g.lines.append(f"{s} = {L.cast(v.aval.dtype)}({e})")
            g.members[v] = s
            self.group_of[v] = g

    def _multi(self, g, eqn, expr):
        if len(eqn.out_binders) == 1 and not eqn.primitive.multiple_results:
            return [expr]
        t = self.fresh("t")
        g.lines.append(f"{t} = {expr}")
        return [f"{t}[{k}]" for k in range(len(eqn.out_binders))]

    def lower_scalar(self, i, eqn, rule):
        shape = eqn.out_binders[0].aval.shape
        g = self.prepare(shape, eqn.inputs)
        ins = [
            self.load(g, x, _ident(x.aval.ndim))
            if type(x) is Var and x.aval.shape == shape
            else self.load(g, x, ())
            for x in eqn.inputs
        ]
        g = self.group(shape)
        guard = rule.guard and rule.guard(eqn, *ins)
        if guard:
            g.guards.append(guard)
        self.define(g, i, eqn, self._multi(g, eqn, rule.fn(eqn, *ins)))

    def lower_mapped(self, i, eqn, maps, combine):
        to_idx = lambda m, idx: tuple("0" if a is None else idx[a] for a in m)
        if len(eqn.out_binders) == 1 and not eqn.primitive.multiple_results:
            # Deferred: each consumer composes the re-indexing into its own loads, so
            # broadcasts, transposes and outer products are never written out on their own.
            def expand(read, idx, ins=list(zip(eqn.inputs, maps)), dt=eqn.out_binders[0].aval.dtype):  # noqa: B006, B008  (bound now, on purpose)
                exprs = [read(x, to_idx(m, idx)) for x, m in ins]
                return exprs[0] if combine is None else f"{L.cast(dt)}({combine.format(*exprs)})"

            self.lazy[eqn.out_binders[0]] = (expand, False)
            self.lazy_eqn[eqn.out_binders[0]] = i
            return
        shape = eqn.out_binders[0].aval.shape
        ident = _ident(len(shape))
        g = self.prepare(shape, eqn.inputs, [to_idx(m, ident) for m in maps])
        ins = [self.load(g, x, to_idx(m, ident)) for x, m in zip(eqn.inputs, maps)]
        g = self.group(shape)
        expr = ins[0] if combine is None else combine.format(*ins)
        self.define(g, i, eqn, self._multi(g, eqn, expr))

    def lower_index(self, i, eqn, expand):
        """An ``Index`` row: deferred like a re-indexing op; its expansion may use loop indices."""
        self.lazy[eqn.out_binders[0]] = (expand, True)
        self.lazy_eqn[eqn.out_binders[0]] = i

    def lower_reduce(self, i, eqn, op):
        x = eqn.inputs[0]
        shape = x.aval.shape
        axes = eqn.params["axes"]
        g = self.prepare(shape, [x])
        s = self.load(g, x, _ident(len(shape)))
        g = self.group(shape)
        g.eqn_ids.add(i)
        kept = [d for d in range(len(shape)) if d not in axes]
        out = eqn.out_binders[0]
        g.reduces.append((out, op, s, kept))
        self.group_of[out] = g

    def bind_outs(self, eqn, expr):
        if eqn.primitive.multiple_results:
            tmp = self.fresh("t")
            self.host.append(f"{tmp} = {expr}")
            for k, v in enumerate(eqn.out_binders):
                self.bind_host(v, f"_h({tmp}[{k}], np.{v.aval.dtype.name})")
        else:
            self.bind_host(eqn.out_binders[0], expr)

    def lower_fallback(self, eqn):
        names = [self.host_name(x) for x in eqn.inputs]
        fb = self.fresh("fb")
        self.env[fb] = partial(core.impl_rules[eqn.primitive], **eqn.params)
        self.fallbacks.append(eqn.primitive.name)
        if eqn.primitive.multiple_results:
            self.bind_outs(eqn, f"{fb}({', '.join(names)})")
        else:
            v = eqn.out_binders[0]
            self.bind_host(v, f"_h({fb}({', '.join(names)}), np.{v.aval.dtype.name})")

    def input_view(self, v: Var, arg: str, layout: tuple):
        """Input ``v`` as a deferred re-indexing of the array it views, which is bound as is:
        a broadcast reads its compact source (a scalar, for jnp.ones), a transpose its
        C-contiguous base; any other strides are read in place by kernels typed ``RA``."""
        kind = layout[0]
        shape = v.aval.shape
        if kind == "b":
            kept = layout[1]
            src = Var(ShapedArray(tuple(shape[d] for d in kept), v.aval.dtype))
            pick = tuple(slice(None) if d in kept else 0 for d in range(len(shape)))
            self.bind_host(src, f"_c({arg}[{_index_text(pick)}])")
            expand = lambda read, idx: read(src, [idx[d] for d in kept])  # noqa: E731
            indexed = False
        elif kind == "t":
            perm = layout[1]
            src = Var(ShapedArray(tuple(shape[p] for p in perm), v.aval.dtype))
            self.bind_host(src, f"np.transpose({arg}, {perm!r})")
            expand = lambda read, idx: read(src, [idx[p] for p in perm])  # noqa: E731
            indexed = False
        elif kind == "s":
            # Constant strides (in elements) over the 1-d span of memory the view covers: the
            # kernel's index arithmetic is known to LLVM, so unit inner strides still vectorize.
            steps = layout[1]
            span = sum((n - 1) * st for n, st in zip(shape, steps)) + 1
            src = Var(ShapedArray((span,), v.aval.dtype))
            self.bind_host(src, f"_span({arg}, {span})")
            expand = lambda read, idx: read(  # noqa: E731
                src, [" + ".join(f"np.uint64({i}) * np.uint64({st})" for i, st in zip(idx, steps))]
            )
            indexed = True
        else:
            src = Var(v.aval)
            self.bind_host(src, arg)
            self.strided.add(src)
            expand = lambda read, idx: read(src, idx)  # noqa: E731
            indexed = True  # (a flattened loop would reshape, that is copy, the view)
        self.lazy[v] = (expand, indexed)

    # --- the whole module ------------------------------------------------------------------

    def generate(self) -> str:
        args = []
        for k, v in enumerate(self.flat.inputs):
            a = self.fresh("x")
            args.append(a)
            layout = self.layouts[k] if self.layouts else None
            if layout is None:
                self.bind_host(v, f"_c({a})")
            else:
                self.input_view(v, a, layout)
        for v, c in self.flat.consts.items():
            cname = self.fresh("c")
            self.env[cname] = _c(c)
            self.names[v] = cname
        for i, eqn in enumerate(self.flat.eqns):
            self.lower_eqn(i, eqn)
        outs = [self.host_name(x) for x in self.flat.outs]
        check = []
        large = [a for a, v in zip(args, self.flat.inputs) if v.aval.size >= RELAYOUT_MIN]
        if self.layouts is None and large:
            # Large views (a stride-0 broadcast from jnp.ones, a transpose, a slice) go to a
            # program specialised on their layout instead of being copied here.
            self.env["_relayout"] = None  # set by NumbaBackend.compile
            check = [
                f"        if not ({' and '.join(f'{a}.flags.c_contiguous' for a in large)}):",
                f"            return _relayout({', '.join(args)})",
            ]
        lines = [
            "# Generated by engine.backends.numba_jit; do not edit.",
            "import numpy as np",
            "import numba as nb",
            "from engine.backends import numba_rt as rt",
            "from engine.backends.numba_runtime import _KW, A, R, RA, _buf, _c, _h, _par, _matmul, _span, _xla_scan, _xla_logaddexp",
            f"NAME = {self.name!r}",
            "",
        ]
        for kernel in self.kernels:
            lines += [kernel, ""]
        self._run_parts = args, check, outs
        return "\n".join(lines + self.build_lines()) + "\n"

    def build_lines(self, timed: bool = False, at_line: dict[int, int] | None = None) -> list[str]:
        """``build(env)``, which binds the environment and returns the host function ``run``;
        ``timed``: a ``run`` that also times each kernel launch into ``env['_launch_*']`` lists and
        each host step into ``env['_host_*']`` (executed by the backend in the loaded module's
        namespace, so the module stays as is). ``at_line`` is given each host line's (1-based) line."""
        args, check, outs = self._run_parts
        lines = ["def build(env):"]
        for key in self.env:
            lines.append(f"    {key} = env[{key!r}]")
        if timed:
            lines.append(
                "    _ls, _ln, _lm = env['_launch_seconds'], env['_launch_counts'], env['_launch_min']"
            )
            lines.append("    _hs, _hn, _hm = env['_host_seconds'], env['_host_counts'], env['_host_min']")
        lines.append(f"    def run({', '.join(args)}):")
        lines += check
        at = {launch.host_line: j for j, launch in enumerate(self.launches)} if timed else {}
        starts = {a: j for j, (_, a, _) in enumerate(self.host_steps)} if timed else {}
        ends = {b - 1: j for j, (_, _, b) in enumerate(self.host_steps)} if timed else {}
        for k, h in enumerate(self.host):
            if k in starts:
                lines.append("        _th = _pc()")
            j = at.get(k)
            if at_line is not None:
                at_line[k] = len(lines) + 1 + (j is not None)
            if j is None:
                lines.append("        " + h)
            else:
                lines += [
                    "        _t = _pc()",
                    "        " + h,
                    "        _t = _pc() - _t",
                    f"        _ls[{j}] += _t",
                    f"        _ln[{j}] += 1",
                    f"        if _t < _lm[{j}]: _lm[{j}] = _t",
                ]
            j = ends.get(k)
            if j is not None:
                lines += [
                    "        _th = _pc() - _th",
                    f"        _hs[{j}] += _th",
                    f"        _hn[{j}] += 1",
                    f"        if _th < _hm[{j}]: _hm[{j}] = _th",
                ]
        lines.append(f"        return [{', '.join(outs)}]")
        lines.append("    return run")
        return lines


_FAST = re.compile(r"\brt\.(sin_f32|cos_f32)\(")


def _libm(line: str) -> str:
    return _FAST.sub(lambda m: f"rt.{m.group(1)}_libm(", line)


_LOCAL = re.compile(r"\b([plosrt])\d+\b")  # kernel-local names (params, loads, scalars, temps)
_COMPUTED = re.compile(r"\b[st]\d+\b")  # names of values computed in a loop body


def _index_text(pick) -> str:
    return ", ".join(":" if type(p) is slice else str(p) for p in pick) + ("," if len(pick) == 1 else "")


def _ident(nd) -> tuple:
    """The index expressions of an element at the current position of an ``nd``-deep loop nest."""
    return tuple(f"i{d}" for d in range(nd))


_REDUCE_OPS = {"sum": "+", "prod": "*", "and": "&", "or": "|", "xor": "^"}


def _ordered_sum(eqn, op) -> bool:
    """A sum (or float32 product) XLA computes in its own order (engine/lax/sum_order.py,
    sum_order_ynn.py): computed by the primitive's rule on the kernel's materialized input, not
    accumulated in the loop nest."""
    x = eqn.inputs[0].aval
    if op == "prod":
        return x.dtype == np.float32 and 0 < x.size < sum_order.TREE_LIMIT
    return op == "sum" and sum_order.xla_ordered(x.dtype, x.size)


def _reduce_init(op, dtype):
    if op in ("sum", "or", "xor"):
        return "False" if dtype.kind == "b" else "0"
    if op == "prod":
        return "1"
    if op == "and":
        return "True" if dtype.kind == "b" else ("-1" if dtype.kind == "i" else str(np.iinfo(dtype).max))
    if dtype.kind == "f":
        return "-np.inf" if op == "max" else "np.inf"
    if dtype.kind == "b":
        return "False" if op == "max" else "True"
    info = np.iinfo(dtype)
    return str(info.min if op == "max" else info.max)


# Special(name) rows: fn(codegen, eqn) -> handled? Control flow runs its bodies as compiled
# sub-executables from the host loop. Imported last: those modules use the code generator above.
from .numba_loops import (  # noqa: E402
    _lower_callback,
    _lower_cond,
    _lower_general_reduce,
    _lower_scan,
    _lower_while,
)
from .numba_scatter import _lower_scatter  # noqa: E402

_specials: dict[str, Callable[["Codegen", JaxprEqn], bool]] = {
    "cond": _lower_cond,
    "while": _lower_while,
    "scan": _lower_scan,
    "callback": _lower_callback,
    "reduce": _lower_general_reduce,
    "scatter": _lower_scatter,
    "compile_time": lambda gen, eqn: True,  # (work done when the program compiled: nothing to run)
}
