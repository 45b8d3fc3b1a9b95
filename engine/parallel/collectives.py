"""The device side of collectives: each device process writes its operand into its slot of a
shared exchange area, meets the others at a barrier, and reads what it needs from their slots.
The host never sees the data.

Layout of the exchange arena: two regions used alternately by successive collectives, so that a
collective never overwrites slots a slower device may still be reading (every collective has a
barrier after its writes). Each region has one slot per participating device. Barriers and the
abort flag live in the pool's ``sync.Control`` block.

Large ``psum``s avoid copies: an operand that already lives in device memory (a program input) is
read where it is, and a result that is a program output is written straight into the output
buffer. Each device publishes where its operand and its destination are (``Control.desc``), then
device ``k`` of the group sums chunk ``k`` of every operand and writes it into chunk ``k`` of every
destination: each device reads and writes about its operand's size once. A second barrier follows
unless the result is only read by the host (which waits for every device anyway).
"""

from __future__ import annotations

import math
import os
import time
from contextlib import contextmanager

import numpy as np

HEADER = 0
BIG_PSUM = 1 << 16  # bytes; above this psum splits the reduction over the devices
PSUM_BLOCK = 1 << 20  # bytes of the partial sums a device keeps in cache at a time

_current: "DeviceContext | None" = None


def current() -> "DeviceContext | None":
    """The context of the program this device process is running, else None (on the host)."""
    return _current


class DeviceAbort(RuntimeError):
    """Another device failed during a collective; this one stops too."""


class Barrier:
    """All positions of a run meet here: one atomic add per arrival (the last one wakes the rest
    with the same syscall), then a short spin and a futex sleep. Three rotating counters, reset by
    the first position one episode ahead, so no episode reuses a counter someone still reads.
    Waiters check the abort flag and the host on every wake-up, so a dead peer cannot hang them."""

    def __init__(self, control, host_pid: int):
        from . import sync

        self.control, self.host_pid, self._bar0, self._abort = control, host_pid, sync.BAR0, sync.ABORT
        self._yield_s = sync.YIELD_S

    def wait(self, episode: int, n: int, first: bool) -> float:
        t0 = time.perf_counter()
        words, c = self.control.words, self._bar0 + episode % 3
        if n > 1:
            if first:
                words[self._bar0 + (episode + 1) % 3] = 0
            self.control.arrive(c, n)
            self.control.wait_at_least(c, n, self._check, yield_s=self._yield_s)
        self._check_abort()
        return time.perf_counter() - t0

    def _check_abort(self):
        if self.control.words[self._abort]:
            raise DeviceAbort("another device failed during a collective")

    def _check(self):
        self._check_abort()
        if os.getppid() != self.host_pid:
            os._exit(1)  # the host is gone: never linger as an orphan


class DeviceContext:
    """What a device knows while it runs one program: its place in the mesh, the axis names bound
    so far, and the exchange area. Records every collective for the debugger. Made once per
    (program, placement) on each device and ``reset`` for every run."""

    def __init__(
        self,
        *,
        me,
        pos,
        placement,
        mesh,
        coords,
        names,
        exchange,
        barrier,
        slot_bytes,
        t0=0.0,
        arenas=(),
        control=None,
        input_operands=(),
    ):
        self.me, self.pos, self.placement = me, pos, list(placement)
        # program input -> its place in ``peers``: where every position's copy of it is, this run
        self.operand_index = {i: k for k, i in enumerate(input_operands)}
        self.peers: tuple = ()
        self.inputs: list = []  # this run's program inputs (views of my arena)
        self.peer_views: dict = {}  # (offsets, group, shape, dtype) -> views of those copies, a stack
        self.mesh, self.coords = tuple(mesh), tuple(coords)
        self.base_names = dict(names)  # axis name -> mesh dimension
        self.exchange, self.barrier, self.slot_bytes = exchange, barrier, slot_bytes
        self.arenas, self.control = arenas, control
        self.groups: dict = {}
        self.slots: dict = {}  # views of exchange slots, while the mapping stays
        self.slots_of = None
        self.record = True  # keep the collective events (for the debugger)
        self.reset(t0)

    def reset(self, t0, record=True):
        self.record = record
        self.names = dict(self.base_names)
        self.depth = 1  # mesh dimensions entered by (nested) pmaps so far
        self.seq = 0  # collectives so far (picks the exchange region)
        self.episode = 0  # barriers so far
        self.events: list[dict] = []
        self.wait_s = 0.0
        self.t0 = t0
        self.dests: list = []  # output buffers the next psum results may be written to
        self.sources: list = []  # which program input each operand of the next collective is

    # --- names ------------------------------------------------------------------------------
    def has_axis(self, name) -> bool:
        return name in self.names

    def axis_size(self, name) -> int:
        return self.mesh[self.names[name]]

    def axis_names(self):
        return list(self.names)

    @contextmanager
    def enter_dim(self, names, dim: int):
        """A nested pmap runs over mesh dimension ``dim``: bind its names there."""
        saved = {n: self.names[n] for n in names if n in self.names}
        for n in names:
            self.names[n] = dim
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            for n in names:
                del self.names[n]
            self.names.update(saved)

    def _group(self, dims):
        """Positions (in program order) of my group along mesh ``dims``, and my rank in it."""
        found = self.groups.get(dims)
        if found is not None:
            return found
        group = []
        for rank_coords in np.ndindex(*[self.mesh[d] for d in dims]):
            c = list(self.coords)
            for d, v in zip(dims, rank_coords):
                c[d] = v
            group.append(int(np.ravel_multi_index(c, self.mesh)))
        rank = int(np.ravel_multi_index([self.coords[d] for d in dims], [self.mesh[d] for d in dims]))
        self.groups[dims] = found = (group, rank)
        return found

    # --- the exchange -----------------------------------------------------------------------
    def _slot(self, region, pos, shape, dtype, at=0):
        if self.slots_of is not self.exchange.mm:
            self.slots.clear()
            self.slots_of = self.exchange.mm
        key = (region, pos, shape, dtype, at)
        view = self.slots.get(key)
        if view is None:
            base = HEADER + region * (len(self.placement) * self.slot_bytes)
            view = self.exchange.view(base + pos * self.slot_bytes + at, shape, dtype)
            if len(self.slots) > 256:
                self.slots.clear()
            self.slots[key] = view
        return view

    def _stack(self, region, group, shape, dtype, at=0):
        """The group's slots (from byte ``at`` of each) as one strided array (group members are
        evenly spaced positions)."""
        key = (
            "stack",
            region,
            group[0],
            len(group),
            group[1] - group[0] if len(group) > 1 else 0,
            shape,
            dtype,
            at,
        )
        view = self.slots.get(key)
        if view is None:
            step = key[4]
            if any(b - a != step for a, b in zip(group, group[1:])):
                return np.stack([self._slot(region, p, shape, dtype, at) for p in group])
            dtype = np.dtype(dtype)
            base = HEADER + region * (len(self.placement) * self.slot_bytes) + group[0] * self.slot_bytes + at
            inner = np.empty(shape, dtype).strides if shape else ()
            view = np.ndarray(
                (len(group), *shape),
                dtype,
                buffer=self.exchange.mm,
                offset=base,
                strides=(step * self.slot_bytes, *inner),
            )
            self.slots[key] = view
        return view

    def _sync(self):
        w = self.barrier.wait(self.episode, len(self.placement), self.pos == 0)
        self.episode += 1
        self.wait_s += w
        return w

    def collective(self, kind, x, axes, groups=None, **params):
        names = self.names
        dims = (names[axes[0]],) if len(axes) == 1 else tuple(names[a] for a in axes)
        group, rank = self._group(dims)
        if groups is not None:  # (axis_index_groups: the exchange is within my group of indices)
            mine = next(g for g in groups if rank in g)
            group, rank = [group[i] for i in mine], mine.index(rank)
        start = time.perf_counter()
        wait0 = self.wait_s
        if kind == "axis_index":
            out = np.asarray(rank, np.int32)
            nbytes, shape, dtype = 0, [], "int32"
        else:
            x = np.asarray(x)
            if x.nbytes > self.slot_bytes:
                raise RuntimeError(
                    f"{kind} operand of {x.nbytes} bytes exceeds the exchange slot of "
                    f"{self.slot_bytes} bytes (engine bug: slot sizing)"
                )
            dest = self._take_dest(x) if kind == "psum" else None
            source = self.sources.pop(0) if self.sources else None
            if source is not None and kind in _REDUCERS and self.inputs[source] is x:
                out = self._reduce_inputs(kind, x, group, source, dest)
            else:
                out = self._exchange(kind, x, group, rank, dest, params)
                self.seq += 1  # (only exchanges: regions alternate between barriers)
            nbytes, shape, dtype = x.nbytes, x.shape, x.dtype
        if self.record:
            self._event(kind, axes, group, start, wait0, nbytes, shape, dtype, params)
        return out

    def gather_outputs(self, xs, out_axes, axis):
        """A nested pmap's outputs, each all-gathered over ``axis`` (stacked at its out axis; an
        output whose axis is None is kept as it is), in one exchange: all of them go into my slot
        one after another, one barrier, then each is stacked from the group's slots. (One
        barrier, not one per output: under grad a nested pmap returns many residuals, and each
        barrier has to get every device process scheduled.)"""
        group, rank = self._group((self.names[axis],))
        start = time.perf_counter()
        wait0 = self.wait_s
        xs = [np.asarray(x) for x in xs]
        places, total = [], 0
        for x, oa in zip(xs, out_axes):
            places.append(None if oa is None else total)
            if oa is not None:
                total += gathered_bytes(x.nbytes)
        if total > self.slot_bytes:
            raise RuntimeError(
                f"gathered outputs of {total} bytes exceed the exchange slot of "
                f"{self.slot_bytes} bytes (engine bug: slot sizing)"
            )
        region = self.seq % 2
        for x, at in zip(xs, places):
            if at is not None:
                np.copyto(self._slot(region, self.pos, x.shape, x.dtype, at), x)
        if any(at is not None for at in places):
            self._sync()
            self.seq += 1
        outs = []
        for x, oa, at in zip(xs, out_axes, places):
            if at is None:
                outs.append(x)
                continue
            stack = self._stack(region, group, x.shape, x.dtype, at)
            outs.append(np.ascontiguousarray(np.moveaxis(stack, 0, oa)) if oa else stack.copy())
            if self.record:
                self._event(
                    "all_gather",
                    (axis,),
                    group,
                    start,
                    wait0,
                    x.nbytes,
                    x.shape,
                    x.dtype,
                    dict(axis=oa, tiled=False),
                )
                # the one barrier's wait goes with the first output; each output's event times its
                # own stacking, so a device's events never count the same time twice
                start, wait0 = time.perf_counter(), self.wait_s
        return outs

    def _event(self, kind, axes, group, start, wait0, nbytes, shape, dtype, params):
        self.events.append(
            dict(
                seq=len(self.events),
                primitive=kind,
                axis_name=",".join(map(str, axes)),
                devices=[self.placement[p] for p in group],
                start_ms=(start - self.t0) * 1e3,
                duration_ms=(time.perf_counter() - start) * 1e3,
                wait_ms=(self.wait_s - wait0) * 1e3,
                nbytes=int(nbytes),
                shape=list(shape),
                dtype=np.dtype(dtype).name,
                perm=[list(p) for p in params["perm"]] if "perm" in params else None,
            )
        )

    def _exchange(self, kind, x, group, rank, dest, params):
        """Through the exchange region of this collective: each member's operand in its slot,
        a barrier, then the group's slots read (or a split psum for big operands)."""
        region = self.seq % 2
        if kind == "psum" and x.nbytes >= BIG_PSUM and len(group) > 1:
            return self._split_psum(x, group, rank, region, dest)
        np.copyto(self._slot(region, self.pos, x.shape, x.dtype), x)
        self._sync()
        stack = self._stack(region, group, x.shape, x.dtype)
        if kind in _REDUCERS:
            return _reduce_in_order(kind, stack, dest[0] if dest is not None else None)
        return getattr(self, "_" + kind)(x, list(stack), rank, group, region, **params)

    def _reduce_inputs(self, kind, x, group, source, dest):
        """A reduction of a program input: every member's copy was written before the run
        started, so it is read where it is, with no exchange slot and no barrier. (Stacked in
        group order first, so the sum is the same as through the slots.)"""
        n = len(self.placement)
        at = self.operand_index[source] * n
        peers = self.peers
        # (the input fixes shape and dtype; a group is one list object per set of mesh dimensions)
        key = (source, id(group), peers[at : at + n])
        found = self.peer_views.get(key)
        if found is None:
            if len(self.peer_views) > 64:
                self.peer_views.clear()
            views = [
                self._peer_view(None, p, (self.placement[p], peers[at + p]), x.shape, x.dtype) for p in group
            ]
            found = self.peer_views[key] = (views, np.empty((len(group), *x.shape), x.dtype))
        views, stack = found
        for j, v in enumerate(views):
            stack[j] = v
        return _reduce_in_order(kind, stack, dest[0] if dest is not None else None)

    def _take_dest(self, x):
        """The output buffer this psum result may be written into (set by the program runner for
        a psum whose result is a program output), and whether nothing on the device reads it."""
        if self.dests:
            dest = self.dests.pop(0)
            if dest is not None and dest[0].shape == x.shape and dest[0].dtype == x.dtype:
                return dest
        return None

    def _where(self, a: np.ndarray):
        """``(device, offset)`` of ``a`` when it is a contiguous array in a device's memory."""
        if not a.flags.c_contiguous:
            return None
        arena = self.arenas[self.me]
        off = a.__array_interface__["data"][0] - arena.addr
        if 0 <= off and off + a.nbytes <= arena.size:
            return self.me, off
        return None

    def _peer_view(self, region, pos, where, shape, dtype):
        dev, off = int(where[0]), int(where[1])
        if dev < 0:
            return self._slot(region, pos, shape, dtype)
        arena = self.arenas[dev]
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        if off + nbytes > arena.size:
            arena.remap(int(self.control.sizes[dev]))
        return arena.view(off, shape, dtype)

    def _split_psum(self, x, group, rank, region, dest):
        """Each device of the group reduces one chunk of every member's operand and writes it into
        every member's destination (operands and destinations read/written where they are)."""
        src = self._where(x)
        if src is None:
            np.copyto(self._slot(region, self.pos, x.shape, x.dtype), x)
            src = (-1, 0)
        dst = self._where(dest[0]) if dest is not None else None
        if dst is None:
            dest, dst = None, (-1, 0)  # into my slot (chunk k is read, then written, by device k)
        desc = self.control.desc
        desc[region, self.pos] = (src[0], src[1], dst[0], dst[1])
        self._sync()
        n = x.size
        lo, hi = n * rank // len(group), n * (rank + 1) // len(group)
        if hi > lo:
            srcs = [
                self._peer_view(region, p, desc[region, p, :2], x.shape, x.dtype).reshape(-1) for p in group
            ]
            dsts = [
                self._peer_view(region, p, desc[region, p, 2:], x.shape, x.dtype).reshape(-1) for p in group
            ]
            # In cache-sized blocks: the partial sum stays in cache, memory sees each operand
            # chunk read once and each destination chunk written once.
            step = max(1, PSUM_BLOCK // x.dtype.itemsize)
            acc_buf = np.empty(min(step, hi - lo), x.dtype)
            for a in range(lo, hi, step):
                b = min(a + step, hi)
                acc = acc_buf[: b - a]
                np.add(srcs[0][a:b], srcs[1][a:b], out=acc)
                for s in srcs[2:]:
                    np.add(acc, s[a:b], out=acc)
                for d in dsts:
                    d[a:b] = acc
        if dest is None:
            self._sync()
            return self._slot(region, self.pos, x.shape, x.dtype).copy()
        if not dest[1]:
            self._sync()  # the device reads the total itself: wait until every chunk is in
        return dest[0]

    def _all_gather(self, x, slots, rank, group, region, *, axis, tiled):
        return np.concatenate(slots, axis) if tiled else np.stack(slots, axis)

    def _psum_scatter(self, x, slots, rank, group, region, *, axis, tiled):
        n = len(slots)
        size = x.shape[axis] // n
        index = [slice(None)] * x.ndim
        index[axis] = slice(rank * size, (rank + 1) * size) if tiled else rank
        index = tuple(index)
        acc = slots[0][index].copy()
        for s in slots[1:]:
            acc += s[index]
        return acc

    def _ppermute(self, x, slots, rank, group, region, *, perm):
        for src, dst in perm:
            if dst == rank:
                return slots[src].copy()
        return np.zeros_like(x)

    def _all_to_all(self, x, slots, rank, group, region, *, split_axis, concat_axis):
        n = len(slots)
        size = x.shape[split_axis] // n
        index = [slice(None)] * x.ndim
        index[split_axis] = slice(rank * size, (rank + 1) * size)
        return np.concatenate([s[tuple(index)] for s in slots], concat_axis)


_REDUCERS = {"psum": np.add, "pmax": np.maximum, "pmin": np.minimum}


def _reduce_in_order(kind: str, stack: np.ndarray, out: np.ndarray | None) -> np.ndarray:
    """The members' operands (stacked in group order) combined one after another, as XLA's CPU
    all-reduce adds them: a float32 psum of scalars over 8 devices rounds differently summed as a
    tree (numpy's reduce of a 1-d stack is pairwise)."""
    acc = out if out is not None else np.empty(stack.shape[1:], stack.dtype)
    np.copyto(acc, stack[0])
    for s in stack[1:]:
        _REDUCERS[kind](acc, s, out=acc)
    return acc


@contextmanager
def running(ctx: DeviceContext):
    global _current
    prev, _current = _current, ctx
    try:
        yield ctx
    finally:
        _current = prev


def mesh_coords(pos: int, mesh) -> tuple:
    return tuple(int(c) for c in np.unravel_index(pos, mesh)) if mesh else ()


def gathered_bytes(nbytes: int) -> int:
    """Room one output takes in a slot for ``gather_outputs`` (16-byte aligned)."""
    return (nbytes + 15) // 16 * 16


def region_bytes(n_devices: int, slot_bytes: int) -> int:
    return n_devices * slot_bytes


def exchange_bytes(n_devices: int, slot_bytes: int) -> int:
    return HEADER + 2 * region_bytes(n_devices, slot_bytes)


del math
