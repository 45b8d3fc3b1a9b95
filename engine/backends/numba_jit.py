"""The numba backend: lower a closed jaxpr to Python source, compile its loop nests with numba.

The generated module has one *host* function (plain Python on numpy arrays: allocates every
output, calls kernels, runs matmuls through numpy's BLAS, calls the interpreter for primitives
without a lowering) and one numba *kernel* per fused loop nest. Fusion: consecutive elementwise
equations over the same shape and reductions of them (as the loop's tail) share one loop nest
that reads each input once and writes each escaping value once. Re-indexing and indexing ops
(broadcast, transpose, outer product, slice, gather, pad, concatenate, iota, ...) are deferred:
each consumer composes them into its own loads as index expressions, so they are never written
out on their own (a per-example gradient's transposed outer product is written once).
Kernels take a ``[lo, hi)`` range of their outer axis; large ones are split over a thread pool
(``nogil`` kernels), small ones run serially: a pool launch costs tens of microseconds, and
serial compiles are 2x faster than numba's ``parallel=True``. Identical loop nests compile once.

Kernels never allocate (outputs are numpy allocations passed in; large ones come from a per-site
pool and are reused once nothing references them, which saves the page faults of a fresh mmap),
compile with ``error_model='numpy'`` (so loops vectorize) and for C-contiguous arrays with
explicit signatures, eagerly, so compile time is measured where it happens. Loops (``while``,
``scan``, ``fori_loop``) whose bodies are scalar code, or elementwise over equal-shaped arrays,
compile whole into one kernel (the array case blocked: every iteration runs on a block of
elements in L1); other loops run compiled bodies from a host loop. The module is written to the
disk cache directory (``ENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/jaxplay-engine``) under a hash
of its source and the numba/numpy versions, atomically, and imported from there so that numba's
``cache=True`` works and a fresh process loads instead of compiling.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Callable

import numba as nb
import numpy as np

from .. import core, monitoring
from ..core import ShapedArray
from ..lax.elementwise import implicitly_broadcasting
from ..lax.structural import broadcast_in_dim_p
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from . import lowering as L
from . import numba_math, numba_rt

PARALLEL_MIN = 1 << 20  # elements per loop nest above which the outer axis is split over threads (a
#                          pool launch costs ~50-70 us; on this shared 2-core machine splitting only
#                          paid off from a few MB)
_KW = dict(cache=True, nogil=True, error_model="numpy")
_RUNTIME_HASH = hashlib.sha256(
    b"".join(open(m.__file__, "rb").read() for m in (numba_rt, numba_math, L))
).hexdigest()[:16]


def A(dtype, ndim):
    return nb.types.Array(dtype, ndim, "C")


def R(dtype, ndim):
    """Kernel inputs are typed read-only: engine Arrays are, and numba accepts writable ones too."""
    return nb.types.Array(dtype, ndim, "C", readonly=True)


def RA(dtype, ndim):
    """A read-only input of any strides (a strided view passed as it is, not copied)."""
    return nb.types.Array(dtype, ndim, "A", readonly=True)


# ---------------------------------------------------------------------------------------------
# Runtime helpers the generated host functions call.


def _c(x):
    """A C-contiguous canonical numpy array (what every kernel signature expects)."""
    if type(x) is np.ndarray and x.flags.c_contiguous:
        return x
    x = core.to_numpy(x)  # (np.ascontiguousarray would turn 0-d into 1-d)
    return x if x.flags.c_contiguous else x.copy(order="C")


def _h(x, dtype):
    x = _c(x)
    return x if x.dtype == dtype else x.astype(dtype)


_pool = None
_pool_lock = threading.Lock()


def _par(kernel, n, *args):
    """Run ``kernel(lo, hi, *args)`` over ``[0, n)`` split across the cores."""
    global _pool
    workers = max(1, min(os.cpu_count() or 1, 8, n))
    if workers == 1:
        return kernel(0, n, *args)
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(workers, thread_name_prefix="engine-kernel")
    bounds = [n * i // workers for i in range(workers + 1)]
    futs = [_pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(1, workers)]
    kernel(bounds[0], bounds[1], *args)
    for f in futs:
        f.result()


RELAYOUT_MIN = 1 << 14  # elements from which an input view is worth a program of its own rather
#                        than a copy (dispatching on its layout costs a few microseconds)

POOL_MIN_BYTES = 1 << 20  # buffers at least this large are reused across calls


def _buf(bufs, k, shape, dtype):
    """The buffer of allocation site ``k``: the previous call's if nothing references it any more.

    A fresh 100 MB allocation is mmapped and page-faulted on every call (as slow as the kernel
    itself here); reusing the last one, as XLA's allocator does, saves that. Any live Array,
    view or memoryview of a buffer holds a reference to it, so it is never reused under one.
    """
    b = bufs[k]
    if b is not None and sys.getrefcount(b) == 3:  # bufs[k], b, getrefcount's argument
        b.flags.writeable = True
        return b
    b = bufs[k] = np.empty(shape, dtype)
    return b


def _matmul(x, y, dtype):
    out = np.matmul(x, y)
    return out if out.dtype == dtype else out.astype(dtype)


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


class _Flat:
    """A jaxpr with nested ``jit`` calls inlined and every variable renamed apart."""

    def __init__(self, closed: ClosedJaxpr):
        self.eqns: list[JaxprEqn] = []
        self.consts: dict[Var, object] = {}
        j = closed.jaxpr
        cvars = [self._const(c, v.aval) for v, c in zip(j.constvars, closed.consts)]
        self.inputs = [Var(v.aval) for v in j.in_binders]
        self.outs = self._inline(j, cvars, self.inputs)

    def _const(self, val, aval):
        v = Var(aval)
        self.consts[v] = val
        return v

    def _inline(self, jaxpr: Jaxpr, const_atoms, in_atoms):
        from ..jit import jit_p

        inline = (jit_p, *_call_prims())
        sub = dict(zip(jaxpr.constvars, const_atoms))
        sub.update(zip(jaxpr.in_binders, in_atoms))
        read = lambda x: sub.get(x, x) if type(x) is Var else x
        for eqn in jaxpr.eqns:
            ins = [read(x) for x in eqn.inputs]
            if eqn.primitive in inline:
                inner = eqn.params["jaxpr" if eqn.primitive is jit_p else "call_jaxpr"]
                cs = [self._const(c, v.aval) for v, c in zip(inner.jaxpr.constvars, inner.consts)]
                outs = self._inline(inner.jaxpr, cs, ins)
            else:
                if eqn.primitive in implicitly_broadcasting:
                    ins = self._explicit_broadcasts(eqn, ins)
                outs = [Var(v.aval) for v in eqn.out_binders]
                self.eqns.append(JaxprEqn(eqn.primitive, ins, eqn.params, outs, eqn.source_info))
            sub.update(zip(eqn.out_binders, outs))
        return [read(x) for x in jaxpr.outs]

    def _explicit_broadcasts(self, eqn, ins):
        """Size-1 axes a binary op broadcasts implicitly become a broadcast_in_dim (fused as a load)."""
        shape = eqn.out_binders[0].aval.shape
        out = []
        for x in ins:
            s = x.aval.shape
            if s and s != shape:
                v = Var(ShapedArray(shape, x.aval.dtype, x.aval.weak_type))
                params = dict(shape=shape, broadcast_dimensions=tuple(range(len(s))))
                self.eqns.append(JaxprEqn(broadcast_in_dim_p, [x], params, [v], eqn.source_info))
                x = v
            out.append(x)
        return out


def _call_prims():
    """custom_jvp/custom_vjp calls: evaluation is their ``call_jaxpr`` (the rules are for AD)."""
    from .. import custom_derivatives as cd

    return cd.custom_jvp_call_p, cd.custom_vjp_call_p


class Codegen:
    def __init__(self, backend, closed: ClosedJaxpr, name: str, layouts=None):
        self.backend = backend
        self.layouts = layouts  # per input: see ``layout_of``; None: the C-contiguous program
        self.strided: set[Var] = set()  # inputs passed with their own strides (``RA`` params)
        self.flat = _Flat(closed)
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
        if parallel_ok:
            self.host.append(f"_par({kid}, {n0}, {', '.join(call)})")
        else:
            self.host.append(f"{kid}(0, {n0}, {', '.join(call)})")
        self.host += post

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
        if kind == "reduce" and dtypes_ok:
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
            "from engine.backends.numba_jit import _KW, A, R, RA, _buf, _c, _h, _par, _matmul, _span",
            f"NAME = {self.name!r}",
            "",
        ]
        for kernel in self.kernels:
            lines += [kernel, ""]
        lines.append("def build(env):")
        for key in self.env:
            lines.append(f"    {key} = env[{key!r}]")
        lines.append(f"    def run({', '.join(args)}):")
        lines += check
        lines += ["        " + h for h in self.host]
        lines.append(f"        return [{', '.join(outs)}]")
        lines.append("    return run")
        return "\n".join(lines) + "\n"


_FAST = re.compile(r"\brt\.(sin_f32|cos_f32)\(")


def _libm(line: str) -> str:
    return _FAST.sub(lambda m: f"rt.{m.group(1)}_libm(", line)


_LOCAL = re.compile(r"\b([plosrt])\d+\b")  # kernel-local names (params, loads, scalars, temps)
_COMPUTED = re.compile(r"\b[st]\d+\b")  # names of values computed in a loop body


def _index_text(pick) -> str:
    return ", ".join(":" if type(p) is slice else str(p) for p in pick) + ("," if len(pick) == 1 else "")


def layout_of(x, aval) -> tuple | None:
    """How a non-C-contiguous input is laid out, for a program specialised on it, or None (the
    input is copied to C order): ``("b", kept axes)`` a broadcast (stride 0 on the other axes),
    ``("t", perm)`` a transpose of a C-contiguous array, ``("s", strides)`` positive strides (in
    elements), ``("a",)`` other strides."""
    if type(x) is not np.ndarray or x.flags.c_contiguous or x.size == 0:
        return None
    if x.dtype != aval.dtype or x.shape != aval.shape or not L.supported(x.dtype) or x.ndim == 0:
        return None
    st, sh = x.strides, x.shape
    if 0 in st:
        return ("b", tuple(d for d in range(x.ndim) if st[d] != 0 and sh[d] != 1))
    perm = tuple(sorted(range(x.ndim), key=lambda d: (-abs(st[d]), d)))
    if np.transpose(x, perm).flags.c_contiguous:
        return ("t", perm)
    size = x.itemsize
    if all(st > 0 and st % size == 0 for st in x.strides):
        return ("s", tuple(st // size for st in x.strides))
    return ("a",)


def _span(x, n):
    """The ``n`` elements of memory from ``x``'s first one on, as a 1-d contiguous view."""
    return np.lib.stride_tricks.as_strided(x, (n,), (x.itemsize,))


def _elementwise_shape(closed: ClosedJaxpr):
    """The one shape of an elementwise program (every equation a scalar lowering, every value of
    that shape or 0-d), else None. Such a program computes the same elements whatever order they
    are laid out in, so a transposed input can run through the contiguous program as it is."""
    flat = _Flat(closed)
    shapes = {v.aval.shape for v in flat.inputs} | {x.aval.shape for x in flat.outs}
    for eqn in flat.eqns:
        rule = L.lowerings.get(eqn.primitive)
        if getattr(rule, "kind", None) != "scalar" or eqn.primitive.multiple_results:
            return None
        shapes |= {x.aval.shape for x in [*eqn.inputs, *eqn.out_binders]}
    shapes.discard(())
    return shapes.pop() if len(shapes) == 1 and not flat.consts else None


def _ident(nd) -> tuple:
    """The index expressions of an element at the current position of an ``nd``-deep loop nest."""
    return tuple(f"i{d}" for d in range(nd))


_REDUCE_OPS = {"sum": "+", "prod": "*", "and": "&", "or": "|", "xor": "^"}


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


def _sub(gen: "Codegen", closed: ClosedJaxpr, what: str) -> str:
    """A body jaxpr compiled as its own executable (its own module, cached alike)."""
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
        flat = _Flat(closed)
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


_ScalarBody.cond = _scalar_cond


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
    if _while_scalar(gen, eqn) or _while_elementwise(gen, eqn):
        return True
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    names = [gen.host_name(x) for x in eqn.inputs]
    cs, bs, carry = names[:nc], names[nc : nc + nb], names[nc + nb :]
    cf, bf = _sub(gen, p["cond_jaxpr"], "cond"), _sub(gen, p["body_jaxpr"], "body")
    c = gen.fresh("carry")
    gen.host.append(f"{c} = [{', '.join(carry)}]")
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
    read = lambda k: f"a{k}[b0 + j]" if shaped[k] else f"a{k}[()]"
    carry = [f"b{k}[j]" if shaped[k] else gen.fresh("v") for k in init]
    body = _ScalarBody(gen, body_jaxpr, [*[read(k) for k in consts[1]], *carry], shape)
    cond = (
        None if cond_jaxpr is None else _ScalarBody(gen, cond_jaxpr, [*[read(k) for k in consts[0]], *carry])
    )
    if not body.ok or (cond is not None and not cond.ok):
        return False
    dts = [x.aval.dtype for x in ins]
    lines = [f"b{k} = np.empty({SCAN_BLOCK}, np.{dts[k].name})" for k in init if shaped[k]]
    # (unsigned indices: a signed ``b0 + j`` keeps numba's negative-index wraparound in the loop)
    lines.append(f"for b0 in range(np.uint64(lo), np.uint64(hi), np.uint64({SCAN_BLOCK})):")
    lines.append(f"    m = min(np.uint64({SCAN_BLOCK}), np.uint64(hi) - b0)")
    for k, c in zip(init, carry):
        lines += (
            ["    for j in range(m):", f"        b{k}[j] = a{k}[b0 + j]"]
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
            ["    for j in range(m):", f"        o{o}[b0 + j] = b{k}[j]"]
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
    split = size >= PARALLEL_MIN // 8 and size >= 2 * SCAN_BLOCK
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
    if _scan_scalar(gen, eqn) or _scan_elementwise(gen, eqn):
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


# Special(name) rows: fn(codegen, eqn) -> handled? Control flow runs its bodies as compiled
# sub-executables from the host loop.
_specials: dict[str, Callable[["Codegen", JaxprEqn], bool]] = {
    "cond": _lower_cond,
    "while": _lower_while,
    "scan": _lower_scan,
    "callback": _lower_callback,
    "scatter": _lower_scatter,
}


def _safe_name(name) -> str:
    s = str(name)
    return s if len(s) < 200 else s[:200]


# ---------------------------------------------------------------------------------------------
# Disk cache and the backend.


def cache_dir() -> str:
    d = os.environ.get("ENGINE_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "jaxplay-engine")
    return d


def _write_atomic(path: str, text: str):
    d = os.path.dirname(path)
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)  # atomic: readers see the old file, none, or the whole new one
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class NumbaBackend:
    name = "numba"

    def __init__(self):
        self._modules: dict[str, object] = {}
        self._lock = threading.Lock()

    def lower_source(self, closed: ClosedJaxpr, name: str) -> str:
        return Codegen(self, closed, _safe_name(name)).generate()

    def _load(self, source: str):
        key = hashlib.sha256(
            "\n".join([source, nb.__version__, np.__version__, _RUNTIME_HASH, sys.version]).encode()
        ).hexdigest()[:32]
        mod = self._modules.get(key)
        if mod is not None:
            return mod, "hit"
        with self._lock:
            mod = self._modules.get(key)
            if mod is not None:
                return mod, "hit"
            path = os.path.join(cache_dir(), f"engine_{key}.py")
            existed = os.path.exists(path)
            if existed:
                with open(path) as f:
                    existed = f.read() == source
            if not existed:
                _write_atomic(path, source)
            spec = importlib.util.spec_from_file_location(f"engine_kernels_{key}", path)
            mod = importlib.util.module_from_spec(spec)
            # Registered first: numba's cache records (and on load re-imports) the module by name.
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)  # compiles (or loads from numba's cache) every kernel
            kernels = [v for v in vars(mod).values() if isinstance(v, nb.core.registry.CPUDispatcher)]
            loaded = existed and all(sum(k.stats.cache_hits.values()) > 0 for k in kernels)
            self._modules[key] = mod
            return mod, ("disk" if loaded else "miss")

    def compile(self, closed: ClosedJaxpr, name: str, layouts=None):
        t0 = time.perf_counter()
        gen = Codegen(self, closed, _safe_name(name), layouts)
        source = gen.generate()
        t1 = time.perf_counter()
        listening = monitoring.listening()
        if listening:  # now, so listeners see when lowering ended (compiling starts)
            monitoring.emit(
                "jit_lower", name=name, seconds=t1 - t0, source=source, fallbacks=list(gen.fallbacks)
            )
        t1 = time.perf_counter()
        mod, status = self._load(source)
        t2 = time.perf_counter()
        if "_relayout" in gen.env:
            variants = {}
            gen.env["_relayout"] = partial(self._relayout, closed, name, variants)
        run = mod.build(gen.env)
        if "_relayout" in gen.env:
            variants[None] = run
            run.variants = variants
        run.source = source
        run.fallbacks = gen.fallbacks
        run.cache = status
        run.lower_time, run.backend_compile_time = t1 - t0, t2 - t1
        run.compiled_text = partial(_compiled_text, mod)
        run.module = mod
        if listening:
            monitoring.emit("jit_compile", name=name, seconds=t2 - t1, cache=status)
        return run

    def _relayout(self, closed: ClosedJaxpr, name: str, variants: dict, *args):
        """Run a program on inputs that are not all C-contiguous: through the contiguous program
        when that is exact (an elementwise program on inputs transposed alike: the outputs come
        back transposed alike), else through a program compiled for the inputs' layouts."""
        # (the program fixes shapes and dtypes: strides tell the layouts, and are cheap to key on)
        strides = tuple([getattr(x, "strides", None) for x in args])
        run = variants.get(strides)
        if run is None:
            layouts = tuple(layout_of(x, a) for x, a in zip(args, closed.in_avals))
            run = variants.get(layouts)
            if run is None:
                run = variants[layouts] = self._variant(closed, name, variants, layouts)
            variants[strides] = run
        return run(*args)

    def _variant(self, closed: ClosedJaxpr, name: str, variants: dict, layouts: tuple):
        if all(lay is None for lay in layouts):
            return partial(_contiguous_call, variants[None])
        perm = _common_transpose(layouts, closed.in_avals)
        if perm is not None and _elementwise_shape(closed):
            return partial(_transposed_call, variants[None], perm)
        return self.compile(closed, name, layouts)

    def specialise(self, run, closed: ClosedJaxpr, name: str, args) -> None:
        """Compile ahead the program for the layouts of ``args`` (a call's arguments), if they are
        not all C-contiguous (a background compile does, so the next call finds it ready)."""
        variants = getattr(run, "variants", None)
        if variants is None or all(type(x) is not np.ndarray or x.flags.c_contiguous for x in args):
            return
        layouts = tuple(layout_of(x, a) for x, a in zip(args, closed.in_avals))
        if layouts not in variants:
            variants[layouts] = self._variant(closed, name, variants, layouts)


def _contiguous_call(run, *args):
    return run(*[_c(x) for x in args])


def _common_transpose(layouts, avals):
    """The permutation every array input is transposed by, if they share one (0-d ones aside)."""
    perms = {
        lay[1] if lay is not None and lay[0] == "t" else None for lay, a in zip(layouts, avals) if a.ndim
    }
    return perms.pop() if len(perms) == 1 and None not in perms else None


def _transposed_call(run, perm, *args):
    # Each input's C-contiguous base, reinterpreted in the program's shape (no copy); the
    # outputs, reinterpreted back and transposed, are views laid out as the inputs were.
    inv = tuple(np.argsort(perm))
    ins = [np.transpose(x, perm).reshape(x.shape) if x.ndim else x for x in args]
    outs = run(*ins)
    return [np.transpose(o.reshape(tuple(o.shape[p] for p in perm)), inv) if o.ndim else o for o in outs]


def _compiled_text(mod, kind="llvm") -> str:
    parts = []
    for name, k in vars(mod).items():
        if not isinstance(k, nb.core.registry.CPUDispatcher):
            continue
        for sig in k.signatures:
            try:
                text = k.inspect_llvm(sig) if kind == "llvm" else k.inspect_asm(sig)
            except Exception:  # cached libraries may not keep their IR
                try:
                    text = k.inspect_asm(sig)
                except Exception as e:
                    text = f"; {type(e).__name__}: compiled code not available ({e})"
            parts.append(f"; ---- kernel {name}{sig}\n{text}")
    return "\n".join(parts) if parts else "; no kernels: the program is host calls only"
