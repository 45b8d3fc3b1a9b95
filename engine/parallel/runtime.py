"""The device runtime: a pool of forked worker processes, one per simulated device.

The host talks to it through five operations (see ``DESIGN.md``): ``start``, ``put`` (an array
into a device's memory), ``run`` (a program on some devices, whose collectives the devices do among
themselves), ``get`` (read a buffer back) and ``shutdown``. Device memory is an ``Arena`` per
device; commands and timings go over a socketpair per worker, array data never does.

A worker that dies or fails makes ``run`` raise ``DeviceError`` (naming the device and what it
ran) after stopping the pool; the next call forks a fresh one. Arenas are the host's, so arrays
already on devices survive. Workers exit with the host however it ends (EOF on their socket, the
parent-death signal, and an orphan check while waiting at a barrier).
"""
from __future__ import annotations

import atexit
import math
import multiprocessing
import os
import pickle
import signal
import socket
import sys
import time
import traceback
import weakref
from multiprocessing.connection import Connection, wait

import numpy as np

from . import collectives, topology as _devices
from .shm import Allocator, Arena

ARENA_START = 1 << 20
REPLY_TIMEOUT = 5.0  # seconds to let the survivors answer once a device is known dead


class DeviceError(RuntimeError):
    """A device process died or failed while running a program."""


class Buffer:
    """An array in one device's memory. Freed (in the host's allocator) when collected."""
    __slots__ = ('runtime', 'device', 'offset', 'shape', 'dtype', '__weakref__')

    def __init__(self, runtime, device, offset, shape, dtype):
        self.runtime, self.device, self.offset = runtime, device, offset
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        weakref.finalize(self, runtime.free, device, offset)

    @property
    def nbytes(self):
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def view(self) -> np.ndarray:
        return self.runtime.arenas[self.device].view(self.offset, self.shape, self.dtype)

    def read(self) -> np.ndarray:
        return self.view().copy()


class _Worker:
    __slots__ = ('pid', 'conn', 'programs')

    def __init__(self, pid, conn):
        self.pid, self.conn, self.programs = pid, conn, set()


class LocalRuntime:
    """``n`` devices as forked processes on this machine, sharing memory with the host."""

    def __init__(self, n: int):
        self.n = n
        self.arenas = [Arena(ARENA_START) for _ in range(n)]
        self.allocators = [Allocator(a) for a in self.arenas]
        self.exchange = Arena(collectives.HEADER + ARENA_START)
        self.header = self.exchange.view(0, (8,), np.int64)
        self.workers: list[_Worker | None] = [None] * n
        self.inherited: dict[str, object] = {}  # programs workers get through fork, not pickle
        self.sync_arrive = self.sync_sems = None
        self.host_pid = os.getpid()
        self.closed = False

    # --- start / stop -------------------------------------------------------------------------
    def start(self) -> None:
        """Fork the workers that are not running (all of them: they share barrier state)."""
        if all(w is not None for w in self.workers):
            return
        self.stop_workers()
        ctx = multiprocessing.get_context('fork')
        self.sync_arrive = ctx.Semaphore(0)
        self.sync_sems = [ctx.Semaphore(0) for _ in range(self.n)]
        self.header[:] = 0
        for slot in range(self.n):
            self.workers[slot] = self._fork(slot)

    def _fork(self, slot: int) -> _Worker:
        host_end, dev_end = socket.socketpair()
        sys.stdout.flush(), sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the device process: never return into the host's code
            code = 1
            try:
                host_end.close()
                for w in self.workers:
                    if w is not None:
                        w.conn.close()
                from . import worker
                worker.main(self, slot, Connection(dev_end.detach()), self.host_pid)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        dev_end.close()
        return _Worker(pid, Connection(host_end.detach()))

    def stop_workers(self) -> None:
        workers = [w for w in self.workers if w is not None]
        self.workers = [None] * self.n
        for w in workers:
            try:
                w.conn.send_bytes(pickle.dumps(('exit',)))
            except OSError:
                pass
        deadline = time.monotonic() + 1.0
        for w in workers:
            while not _reap(w.pid):
                if time.monotonic() > deadline:
                    _kill(w.pid)
                    _reap(w.pid, block=True)
                    break
                time.sleep(0.002)
            w.conn.close()

    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        if os.getpid() == self.host_pid:
            self.stop_workers()

    # --- memory ---------------------------------------------------------------------------------
    def alloc(self, device: int, shape, dtype) -> Buffer:
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return Buffer(self, device, self.allocators[device].alloc(nbytes), shape, dtype)

    def put(self, device: int, array) -> Buffer:
        """Copy a host array into ``device``'s memory."""
        array = np.asarray(array)
        buf = self.alloc(device, array.shape, array.dtype)
        np.copyto(buf.view(), array)
        return buf

    def get(self, buffer: Buffer) -> np.ndarray:
        return buffer.read()

    def free(self, device: int, offset: int) -> None:
        if os.getpid() == self.host_pid:
            self.allocators[device].free(offset)

    # --- running ------------------------------------------------------------------------------
    def run(self, program, placement, inputs, out_avals, t0=None):
        """Run ``program`` on devices ``placement`` (position ``p`` gets ``inputs[p]``, a list of
        Buffers on its device). Returns per-position output Buffers and per-position timing dicts."""
        self.start()
        t0 = time.perf_counter() if t0 is None else t0
        n_pos = len(placement)
        self.exchange.grow(collectives.exchange_bytes(n_pos, program.slot_bytes))
        self.header[collectives._ABORT] = 0
        outputs = [[self.alloc(dev, a.shape, a.dtype) for a in out_avals] for dev in placement]
        pending = {}
        for pos, dev in enumerate(placement):
            w = self.workers[dev]
            send_payload = program.key not in w.programs and program.key not in self.inherited
            info = dict(pos=pos, placement=list(placement), mesh=program.mesh,
                        coords=collectives.mesh_coords(pos, program.mesh), names=program.names,
                        arena=self.arenas[dev].size, exchange=self.exchange.size,
                        slot=program.slot_bytes, t0=t0)
            msg = ('run', program.key, program.payload if send_payload else None,
                   [(b.offset, b.shape, b.dtype.str) for b in inputs[pos]],
                   [(b.offset, b.shape, b.dtype.str) for b in outputs[pos]], info)
            try:
                w.conn.send_bytes(pickle.dumps(msg, pickle.HIGHEST_PROTOCOL))
            except OSError:
                pass  # a dead worker shows as EOF below
            w.programs.add(program.key)
            pending[w.conn] = pos
        replies = self._collect(pending, placement, program)
        return outputs, replies

    def _collect(self, pending, placement, program):
        replies: list = [None] * len(placement)
        dead: dict[int, str] = {}
        deadline = None
        try:
            while pending:
                ready = wait(list(pending), timeout=0.25)
                for conn in ready:
                    pos = pending.pop(conn)
                    try:
                        replies[pos] = pickle.loads(conn.recv_bytes())
                    except (EOFError, OSError):
                        dead[pos] = self._death_cause(placement[pos])
                if not ready:
                    for conn, pos in list(pending.items()):
                        cause = self._death_cause(placement[pos], block=False)
                        if cause:
                            dead[pos] = cause
                            del pending[conn]
                if dead and deadline is None:
                    self._abort_all()
                    deadline = time.monotonic() + REPLY_TIMEOUT
                if deadline is not None and time.monotonic() > deadline:
                    break
        except BaseException:
            self.stop_workers()  # interrupted mid-run: the pool's state is unknown
            raise
        failures = [(pos, r) for pos, r in enumerate(replies) if r is not None and r[0] == 'error']
        if dead or failures or pending:
            pids = {pos: self._last_pid(dev) for pos, dev in enumerate(placement)}
            self.stop_workers()  # heal: the next call forks fresh devices
            what = program.describe()
            if dead:
                pos = min(dead)
                raise DeviceError(f"device {placement[pos]} (process {pids[pos]}) "
                                  f"{dead[pos]} while running {what}; the device pool was restarted")
            if failures:
                pos, (_, etype, message, tb) = failures[0]
                raise _device_exception(etype, f"on device {placement[pos]} while running {what}: "
                                               f"{message}", tb)
            raise DeviceError(f"devices {[placement[p] for p in pending.values()]} did not answer "
                              f"while running {what}; the device pool was restarted")
        return [r[1] for r in replies]

    def _abort_all(self):
        self.header[collectives._ABORT] = 1
        for s in self.sync_sems:
            s.release()
        for _ in range(self.n):
            self.sync_arrive.release()

    def _last_pid(self, dev):
        w = self.workers[dev]
        return w.pid if w is not None else '?'

    def _death_cause(self, dev, block=True) -> str | None:
        w = self.workers[dev]
        if w is None:
            return 'was stopped'
        try:
            pid, status = os.waitpid(w.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return 'exited'
        if pid == 0:
            if block:
                return 'closed its connection'
            return None
        self.workers[dev] = _Worker(w.pid, w.conn)  # keep for stop_workers, but it's reaped
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = str(sig)
            return f"was killed by signal {sig} ({name})"
        return f"exited with status {os.WEXITSTATUS(status)}"


def _device_exception(etype: str, message: str, tb: str) -> Exception:
    import builtins
    from .. import errors
    cls = getattr(builtins, etype, None) or getattr(errors, etype, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = DeviceError
    try:
        exc = cls(message + ("\n\nDevice traceback:\n" + tb if tb else ''))
    except Exception:
        exc = DeviceError(message)
    return exc


def _reap(pid, block=False) -> bool:
    try:
        done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        return done != 0
    except ChildProcessError:
        return True


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# ---------------------------------------------------------------------------------------------
# The process-wide runtime.

_runtime: LocalRuntime | None = None
_atexit_registered = False


def get_runtime() -> LocalRuntime:
    """The runtime, created on first use (forks nothing until a program runs)."""
    global _runtime, _atexit_registered
    if _runtime is None or _runtime.closed or _runtime.host_pid != os.getpid():
        if _runtime is not None and _runtime.host_pid != os.getpid():
            _runtime.workers = [None] * _runtime.n  # forked host (e.g. a sandboxed run): not ours
        _runtime = LocalRuntime(_devices.device_count())
        if not _atexit_registered:
            atexit.register(shutdown)
            _atexit_registered = True
    return _runtime


def shutdown() -> None:
    """Stop the device processes (they restart on next use)."""
    global _runtime
    if _runtime is not None:
        _runtime.shutdown()
        _runtime = None


def worker_pids() -> list[int]:
    if _runtime is None:
        return []
    return [w.pid for w in _runtime.workers if w is not None]


del math
