"""The device side of collectives: each device process writes its operand into its slot of a
shared exchange area, meets the others at a barrier, and reads what it needs from their slots.
The host never sees the data.

Layout of the exchange arena: a header (barrier counter, participant count, abort flag), then two
regions used alternately by successive collectives, so that a collective never overwrites slots a
slower device may still be reading (every collective has a barrier after its writes). Each region
has one slot per participating device.

Large ``psum``s reduce-scatter: device ``k`` of a group sums chunk ``k`` of every member's slot
into the first member's slot, a second barrier follows, and everyone copies the total, so each
device touches ~3x its operand instead of n x.
"""
from __future__ import annotations

import math
import os
import time
from contextlib import contextmanager

import numpy as np

HEADER = 4096
_ABORT = 2  # header word the host or a failing device sets to stop everyone
BIG_PSUM = 1 << 18  # bytes; above this psum reduce-scatters

_current: 'DeviceContext | None' = None


def current() -> 'DeviceContext | None':
    """The context of the program this device process is running, else None (on the host)."""
    return _current


class DeviceAbort(RuntimeError):
    """Another device failed during a collective; this one stops too."""


class Barrier:
    """The first participant coordinates: the others post its semaphore and sleep on their own;
    once it has collected every arrival it wakes them. No shared lock, so a descheduled process
    never blocks the others (8 processes on few cores make lock convoys costly). Waiters poll the
    abort flag, so a dead or failed peer cannot hang them."""

    def __init__(self, arrive, sems, header: np.ndarray, host_pid: int):
        self.arrive, self.sems, self.header, self.host_pid = arrive, sems, header, host_pid

    def wait(self, me: int, participants) -> float:
        t0 = time.perf_counter()
        if me == participants[0]:
            for _ in range(len(participants) - 1):
                while not self.arrive.acquire(timeout=0.5):
                    self._check()
            for p in participants[1:]:
                self.sems[p].release()
        else:
            self.arrive.release()
            while not self.sems[me].acquire(timeout=0.5):
                self._check()
        self._check()
        return time.perf_counter() - t0

    def _check(self):
        if self.header[_ABORT]:
            raise DeviceAbort("another device failed during a collective")
        if os.getppid() != self.host_pid:
            os._exit(1)  # the host is gone: never linger as an orphan


class DeviceContext:
    """What a device knows while it runs one program: its place in the mesh, the axis names bound
    so far, and the exchange area. Records every collective for the debugger."""

    def __init__(self, *, me, pos, placement, mesh, coords, names, exchange, barrier, slot_bytes, t0):
        self.me, self.pos, self.placement = me, pos, list(placement)
        self.mesh, self.coords = tuple(mesh), tuple(coords)
        self.names = dict(names)          # axis name -> mesh dimension
        self.depth = 1                    # mesh dimensions entered by (nested) pmaps so far
        self.exchange, self.barrier, self.slot_bytes = exchange, barrier, slot_bytes
        self.seq = 0
        self.events: list[dict] = []
        self.wait_s = 0.0
        self.t0 = t0

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
        group = []
        for rank_coords in np.ndindex(*[self.mesh[d] for d in dims]):
            c = list(self.coords)
            for d, v in zip(dims, rank_coords):
                c[d] = v
            group.append(int(np.ravel_multi_index(c, self.mesh)))
        rank = int(np.ravel_multi_index([self.coords[d] for d in dims], [self.mesh[d] for d in dims]))
        return group, rank

    # --- the exchange -----------------------------------------------------------------------
    def _slot(self, region, pos, shape, dtype):
        base = HEADER + region * (len(self.placement) * self.slot_bytes)
        return self.exchange.view(base + pos * self.slot_bytes, shape, dtype)

    def _sync(self):
        self.wait_s += (w := self.barrier.wait(self.me, self.placement))
        return w

    def collective(self, kind, x, axes, **params):
        dims = tuple(self.names[a] for a in axes)
        group, rank = self._group(dims)
        start = time.perf_counter()
        wait0 = self.wait_s
        if kind == 'axis_index':
            out = np.asarray(rank, np.int32)
            nbytes, shape, dtype = 0, [], 'int32'
        else:
            x = np.asarray(x)
            if x.nbytes > self.slot_bytes:
                raise RuntimeError(f"{kind} operand of {x.nbytes} bytes exceeds the exchange slot of "
                                   f"{self.slot_bytes} bytes (engine bug: slot sizing)")
            region = self.seq % 2
            mine = self._slot(region, self.pos, x.shape, x.dtype)
            np.copyto(mine, x)
            self._sync()
            slots = [self._slot(region, p, x.shape, x.dtype) for p in group]
            out = getattr(self, '_' + kind)(x, slots, rank, group, region, **params)
            nbytes, shape, dtype = x.nbytes, list(x.shape), x.dtype.name
        self.seq += 1
        self.events.append(dict(
            seq=len(self.events), primitive=kind, axis_name=','.join(map(str, axes)),
            devices=[self.placement[p] for p in group], start_ms=(start - self.t0) * 1e3,
            duration_ms=(time.perf_counter() - start) * 1e3, wait_ms=(self.wait_s - wait0) * 1e3,
            nbytes=int(nbytes), shape=shape, dtype=dtype,
            perm=[list(p) for p in params['perm']] if 'perm' in params else None))
        return out

    def _psum(self, x, slots, rank, group, region):
        n = len(slots)
        if x.nbytes < BIG_PSUM or n == 1:
            acc = slots[0].copy()
            for s in slots[1:]:
                acc += s
            return acc
        flat = [s.reshape(-1) for s in slots]
        bounds = np.linspace(0, flat[0].size, n + 1).astype(np.int64)
        lo, hi = bounds[rank], bounds[rank + 1]
        acc = flat[0][lo:hi].copy()
        for f in flat[1:]:
            acc += f[lo:hi]
        flat[0][lo:hi] = acc          # only this device reads chunk `rank`, so this is safe
        self._sync()
        return slots[0].copy()

    def _pmax(self, x, slots, *_):
        return np.maximum.reduce([s for s in slots]) if len(slots) > 1 else slots[0].copy()

    def _pmin(self, x, slots, *_):
        return np.minimum.reduce([s for s in slots]) if len(slots) > 1 else slots[0].copy()

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


def region_bytes(n_devices: int, slot_bytes: int) -> int:
    return n_devices * slot_bytes


def exchange_bytes(n_devices: int, slot_bytes: int) -> int:
    return HEADER + 2 * region_bytes(n_devices, slot_bytes)


del math
