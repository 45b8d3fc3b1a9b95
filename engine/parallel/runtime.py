"""The device runtime: a pool of forked worker processes, one per simulated device.

The host talks to it through five operations (see ``DESIGN.md``): ``start``, ``put`` (an array
into a device's memory), ``run`` (a program on some devices, whose collectives the devices do among
themselves), ``get`` (read a buffer back) and ``shutdown``. Device memory is an ``Arena`` per
device; array data never goes through a pipe.

A run writes each device's command into its mailbox in the shared control block (``sync.Control``;
the worker's socket only for big messages such as a program's first setup), then rings the
doorbell once: the devices sleep on a futex, so the commands wake nobody and the ring wakes them
all. The host sleeps until the last device counts itself done, then reads the replies, which are
already there. A worker that dies or fails makes ``run`` raise ``DeviceError`` (naming the device
and what it ran) after stopping the pool; the next call forks a fresh one. Arenas are the host's,
so arrays already on devices survive. Workers exit with the host however it ends (the
parent-death signal, and an orphan check whenever a wait times out).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import pickle
import signal
import socket
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection

import numpy as np

from collections import OrderedDict

from .. import canonical_dtypes
from . import collectives, host_calls, sync, topology as _devices, worker
from .shm import Allocator, Arena

ARENA_START = 1 << 20
REPLY_TIMEOUT = 5.0  # seconds to let the survivors answer once a device is known dead


class DeviceError(RuntimeError):
    """A device process died or failed while running a program."""


SMALL_PUT_BYTES = 4096  # shards up to this size are copied to a device as bytes


class Buffer:
    """An array in one device's memory. Freed (in the host's allocator) when collected."""

    __slots__ = ("runtime", "device", "offset", "shape", "dtype", "__weakref__")

    def __init__(self, runtime, device, offset, shape, dtype, allocator=None):
        self.runtime, self.device, self.offset = runtime, device, offset
        self.shape, self.dtype = shape, dtype
        (runtime.allocators[device] if allocator is None else allocator).own(self, offset)

    @property
    def nbytes(self):
        return math.prod(self.shape) * self.dtype.itemsize

    def view(self) -> np.ndarray:
        return self.runtime.arenas[self.device].view(self.offset, self.shape, self.dtype)

    def read(self) -> np.ndarray:
        return self.view().copy()

    def read_only_view(self) -> np.ndarray:
        """The data in place, read-only, keeping this buffer (and its mapping) alive for as long
        as the array lives: the host maps device memory, so reading needs no copy (as JAX's CPU
        arrays convert to numpy without one)."""
        a = np.asarray(_Pinned(self))
        # (an array interface's typestr names bfloat16 and ml_dtypes' other types as bytes, "<V2")
        return a if a.dtype == self.dtype else a.view(self.dtype)


class _Pinned:
    """An ``__array_interface__`` on a buffer's bytes that holds the buffer and the mapping."""

    __slots__ = ("buffer", "mm", "__array_interface__")

    def __init__(self, buffer: Buffer):
        arena = buffer.runtime.arenas[buffer.device]
        self.buffer, self.mm = buffer, arena.mm
        self.__array_interface__ = dict(
            shape=buffer.shape, typestr=buffer.dtype.str, version=3, data=(arena.addr + buffer.offset, True)
        )


class _Worker:
    __slots__ = ("pid", "conn", "setups")

    def __init__(self, pid, conn):
        # setups: the (program, placement) ids this worker holds, in its LRU order
        self.pid, self.conn, self.setups = pid, conn, OrderedDict()


class _DeviceDied(Exception):
    pass


@contextlib.contextmanager
def _ctrl_c_deferred():
    """Ctrl-C waits until the block ends, then acts as it would have: a device forked but not yet
    recorded in ``workers`` would be nobody's to stop (it would live on until the host exits).

    (Blocking SIGINT in this thread would not do: with other threads running, the kernel hands the
    signal to one of them and Python still raises it here.)"""
    if threading.current_thread() is not threading.main_thread():
        yield  # (only the main thread runs Python's signal handlers, so none can interrupt here)
        return
    caught: list = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, caught[0])
    elif caught and previous == signal.SIG_DFL:
        os.kill(os.getpid(), signal.SIGINT)


class LocalRuntime:
    """``n`` devices as forked processes on this machine, sharing memory with the host."""

    def __init__(self, n: int):
        self.n = n
        self.arenas = [Arena(ARENA_START) for _ in range(n)]
        self.allocators = [Allocator(a) for a in self.arenas]
        self.exchange = Arena(collectives.HEADER + ARENA_START)
        self.control = sync.Control(n)
        for d, a in enumerate(self.arenas + [self.exchange]):
            self.control.sizes[d] = a.size
        self.workers: list[_Worker | None] = [None] * n
        self.inherited: dict[str, object] = {}  # programs workers get through fork, not pickle
        self.setup_ids: dict = {}
        self.host_pid = os.getpid()
        self.host_blas: list[int] | None = None  # the host's BLAS thread counts before start()
        self.closed = False

    # --- start / stop -------------------------------------------------------------------------
    def start(self, devices=None) -> None:
        """Fork those of ``devices`` (default: all) that are not running. A run forks only the
        devices it is placed on (a fork of a big host costs milliseconds); one forked later
        joins at the current doorbell generation, and barriers count only a run's positions.
        (A program that must be inherited stops them all, so every live device has it.)"""
        missing = [d for d in (range(self.n) if devices is None else devices) if self.workers[d] is None]
        if not missing:
            return
        if not sync.futex_available():
            raise RuntimeError("pmap's device processes need fork and futexes (Linux on x86-64 or arm64)")
        # The devices inherit their BLAS thread count (setting it in a fresh fork would start a
        # spinning thread pool in each); the host keeps it while they run, on the same cores.
        counts = worker.set_blas_threads(worker.blas_threads(self.n))
        if self.host_blas is None:
            self.host_blas = counts
        from ..jit import compiles_paused

        with compiles_paused():  # (the devices must not inherit numba's compiler lock mid-compile)
            with _ctrl_c_deferred():
                for slot in missing:
                    self.workers[slot] = self._fork(slot)

    def _fork(self, slot: int) -> _Worker:
        host_end, dev_end = socket.socketpair()
        sys.stdout.flush(), sys.stderr.flush()
        gen = int(self.control.words[sync.GEN])  # the doorbell as the device first sees it
        pid = os.fork()
        if pid == 0:  # the device process: never return into the host's code
            code = 1
            try:
                host_end.close()
                for w in self.workers:
                    if w is not None:
                        w.conn.close()
                worker.main(self, slot, Connection(dev_end.detach()), self.host_pid, gen)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        dev_end.close()
        return _Worker(pid, Connection(host_end.detach()))

    def stop_workers(self) -> None:
        workers = [w for w in self.workers if w is not None]
        for d, w in enumerate(self.workers):
            if w is not None:
                self.control.post(d, False, pickle.dumps(("exit",)))
        self.workers = [None] * self.n
        if workers:
            self.control.ring(range(self.n))
        deadline = time.monotonic() + 1.0
        for w in workers:
            while not _reap(w.pid):
                if time.monotonic() > deadline:
                    _kill(w.pid)
                    _reap(w.pid, block=True)
                    break
                time.sleep(0.002)
            w.conn.close()

    def shutdown(self, restore_blas: bool = True) -> None:
        if self.closed:
            return
        self.closed = True
        if os.getpid() == self.host_pid:
            self.stop_workers()
            if restore_blas and self.host_blas is not None:
                worker.restore_blas_threads(self.host_blas)

    # --- memory ---------------------------------------------------------------------------------
    def alloc(self, device: int, shape, dtype) -> Buffer:
        return self.alloc_each((device,), shape, dtype)[0]

    def alloc_each(self, devices, shape, dtype) -> list[Buffer]:
        """One uninitialised buffer of ``shape`` and ``dtype`` on each of ``devices``."""
        if type(dtype) is not np.dtype:
            dtype = np.dtype(dtype)
        if type(shape) is not tuple:
            shape = tuple(map(int, shape))
        nbytes = math.prod(shape) * dtype.itemsize
        out = []
        for device in devices:
            allocator = self.allocators[device]
            size = allocator.arena.size
            out.append(Buffer(self, device, allocator.alloc(nbytes), shape, dtype, allocator))
            if allocator.arena.size != size:
                self.control.sizes[device] = allocator.arena.size
        return out

    def put(self, device: int, array) -> Buffer:
        """Copy a host array into ``device``'s memory."""
        array = np.asarray(array)
        return self.put_each((device,), array[None])[0]

    def put_each(self, devices, rows: np.ndarray, index=None) -> list[Buffer]:
        """Copy ``rows[index[k]]`` (``rows[k]`` without ``index``) into ``devices[k]``'s memory."""
        bufs = self.alloc_each(devices, rows.shape[1:], rows.dtype)
        if not bufs:
            return bufs
        n = bufs[0].nbytes
        if n <= SMALL_PUT_BYTES and rows.size * rows.itemsize <= SMALL_PUT_BYTES * len(devices):
            # byte slices of one copy of the rows: no array view of each arena
            data = memoryview(rows.tobytes())
            arenas = self.arenas
            for k, b in enumerate(bufs):
                r = k if index is None else index[k]
                arenas[b.device].mm[b.offset : b.offset + n] = data[r * n : r * n + n]
        else:
            for k, b in enumerate(bufs):
                np.copyto(b.view(), rows[k if index is None else index[k]])
        return bufs

    def get(self, buffer: Buffer) -> np.ndarray:
        return buffer.read()

    def free(self, device: int, offset: int) -> None:
        # (in a forked device process the allocators are private copies: freeing there is moot)
        self.allocators[device].free(offset)

    # --- running ------------------------------------------------------------------------------
    def run(self, program, placement, inputs, out_avals, t0=None, events=False):
        """Run ``program`` on devices ``placement`` (position ``p`` gets ``inputs[p]``, a list of
        Buffers on its device). Returns per-position output Buffers and, with ``events``,
        per-position timing dicts with the device's collective events (else an empty list)."""
        self.start(placement)
        t0 = time.perf_counter() if t0 is None else t0
        self.exchange.grow(collectives.exchange_bytes(len(placement), program.slot_bytes))
        self.control.sizes[self.n] = self.exchange.size
        per_out = [self.alloc_each(placement, a.shape, a.dtype) for a in out_avals]
        outputs = [[bufs[pos] for bufs in per_out] for pos in range(len(placement))]
        key = (program.key, tuple(placement))
        sid = self.setup_ids.get(key)
        if sid is None:
            sid = self.setup_ids[key] = len(self.setup_ids)
        flags = 1 if events else 0
        # where each position's copy of an input operand of a collective is (read in place)
        peers = tuple(inputs[pos][i].offset for i in program.input_operands for pos in range(len(placement)))
        oversized = []  # (worker, message) too large for the device's box: sent through its socket
        for pos, dev in enumerate(placement):
            w = self.workers[dev]
            setup = None
            if sid in w.setups:
                w.setups.move_to_end(sid)
            else:
                info = dict(
                    pos=pos,
                    placement=list(placement),
                    mesh=program.mesh,
                    coords=collectives.mesh_coords(pos, program.mesh),
                    names=program.names,
                    slot=program.slot_bytes,
                    compiled=program.compiled,
                    name=program.name,
                    # (a device forked before jax_enable_x64 was set runs the program as traced)
                    x64=canonical_dtypes.x64_enabled[0],
                )
                setup = (program.key, None if program.key in self.inherited else program.payload, info)
                w.setups[sid] = True
                if len(w.setups) > _worker_cache_size():
                    w.setups.popitem(last=False)
            ins, outs = [b.offset for b in inputs[pos]], [b.offset for b in outputs[pos]]
            if setup is None and self.control.post_run(dev, sid, flags, t0, ins, outs, peers):
                continue
            data = pickle.dumps(("run", sid, setup, ins, outs, t0, flags, peers), pickle.HIGHEST_PROTOCOL)
            if not self.control.post(dev, False, data):
                oversized.append((w, data))
        self.control.ring(placement)
        # After the ring: a device reads its socket once woken, and a message larger than the
        # socket's buffer (a program closing over a large constant) blocked the host before it rang.
        for w, data in oversized:
            try:
                w.conn.send_bytes(data)
            except OSError:
                pass  # a dead worker is found while waiting
        return outputs, self._collect(placement, program, events)

    def _collect(self, placement, program, events=True):
        n = len(placement)
        dead: dict[int, str] = {}
        calls_host = getattr(program, "calls_host", False)

        def check():
            for pos, dev in enumerate(placement):
                if pos not in dead:
                    try:  # (a device asking the host to run a callback may have woken us)
                        host_calls.serve(self.workers[dev].conn)
                    except (EOFError, OSError):
                        pass  # (a dead device: found below)
                    cause = self._death_cause(dev, block=False)
                    if cause:
                        dead[pos] = cause
            if dead:
                raise _DeviceDied

        try:
            try:
                # (a program calling back into Python: its devices' requests are served within 1 ms
                # even when their wake-up came before the host slept; a callback the jaxpr does not
                # show, inside a custom rule's expansion, within the 0.1 s of any check)
                self.control.wait_done(n, check, 0.001 if calls_host else 0.1)
            except _DeviceDied:
                self.control.abort()  # survivors leave their barriers and reply
                deadline = time.monotonic() + REPLY_TIMEOUT
                words = self.control.words
                while words[sync.DONE] < n - len(dead) and time.monotonic() < deadline:
                    time.sleep(0.002)
                    try:
                        check()
                    except _DeviceDied:
                        pass
        except BaseException:
            self.stop_workers()  # interrupted mid-run: the pool's state is unknown
            raise
        if not dead and not events and self.control.plain_replies(placement):
            return []  # every device ran fine and only its timings were asked for
        replies: list = [None] * n
        pending = []
        take, plain = self.control.take, True
        for pos, dev in enumerate(placement):
            if not dead:  # a device replies before it counts itself done: no waiting here
                data = take(dev, True)
                if type(data) is tuple:  # a plain ok: timings only
                    replies[pos] = data
                    continue
            plain = False
            if pos in dead:
                continue
            conn = self.workers[dev].conn
            try:
                words = self.control.words
                if not dead or words[self.control.replied + dev] == words[sync.GEN]:
                    data = self.control.take(dev, True)
                    replies[pos] = (
                        data
                        if type(data) is tuple
                        else pickle.loads(host_calls.receive(conn) if data is None else data)
                    )
                    continue
            except (EOFError, OSError):
                dead[pos] = self._death_cause(dev) or "closed its connection"
                continue
            pending.append(pos)
        if plain:
            return [
                dict(compute_ms=t[0], wait_ms=t[1], start_ms=t[2], total_ms=t[3], events=[])
                for _, t, _, _ in replies
            ]
        prints = {placement[pos]: r[-1] for pos, r in enumerate(replies) if r is not None and r[-1]}
        if prints:
            from .. import debug

            debug.replay_device_prints(prints)
        failures = [(pos, r) for pos, r in enumerate(replies) if r is not None and r[0] == "error"]
        aborted = [pos for pos, r in enumerate(replies) if r is not None and r[0] == "abort"]
        if dead or failures or pending or aborted:
            pids = {pos: self._last_pid(dev) for pos, dev in enumerate(placement)}
            self.stop_workers()  # heal: the next call forks fresh devices
            what = program.describe()
            if dead:
                pos = min(dead)
                raise DeviceError(
                    f"device {placement[pos]} (process {pids[pos]}) "
                    f"{dead[pos]} while running {what}; the device pool was restarted"
                )
            if failures:
                pos, (_, etype, message, tb, _) = failures[0]
                raise _device_exception(
                    etype, f"on device {placement[pos]} while running {what}: {message}", tb
                )
            if pending:
                raise DeviceError(
                    f"devices {[placement[p] for p in pending]} did not answer "
                    f"while running {what}; the device pool was restarted"
                )
            raise DeviceError(
                f"devices {[placement[p] for p in aborted]} were stopped while running "
                f"{what}; the device pool was restarted"
            )
        return [
            dict(compute_ms=t[0], wait_ms=t[1], start_ms=t[2], total_ms=t[3], events=ev or [])
            for _, t, ev, _ in replies
        ]

    def _last_pid(self, dev):
        w = self.workers[dev]
        return w.pid if w is not None else "?"

    def _death_cause(self, dev, block=True) -> str | None:
        w = self.workers[dev]
        if w is None:
            return "was stopped"
        try:
            pid, status = os.waitpid(w.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return "exited"
        if pid == 0:
            if block:
                return "closed its connection"
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


def _worker_cache_size() -> int:
    return worker.PROGRAM_CACHE


def _device_exception(etype: str, message: str, tb: str) -> Exception:
    import builtins
    from .. import errors

    cls = getattr(builtins, etype, None) or getattr(errors, etype, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = DeviceError
    try:
        exc = cls(message + ("\n\nDevice traceback:\n" + tb if tb else ""))
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
_inherited: list[LocalRuntime] = []  # runtimes of the processes this one was forked from
_atexit_registered = False


def get_runtime() -> LocalRuntime:
    """The runtime, created on first use (forks nothing until a program runs)."""
    global _runtime, _atexit_registered
    if _runtime is None or _runtime.closed or _runtime.host_pid != os.getpid():
        if _runtime is not None and _runtime.host_pid != os.getpid():
            # A forked host (e.g. a sandboxed run): the devices are not ours. Their connections'
            # descriptors may already be closed (the sandbox closes what it does not hand over)
            # and their numbers reused, so they are let go of without closing them.
            for w in _runtime.workers:
                if w is not None:
                    w.conn._handle = None  # (Connection.__del__ would close it)
            _runtime.workers = [None] * _runtime.n
            # The same goes for the arenas: a freed mmap object closes the descriptor it holds,
            # which in a sandboxed run is by now a number of the new runtime's arenas (ftruncate
            # then failed with EINVAL on a socket). So the parent's runtime is never freed here.
            _inherited.append(_runtime)
        _runtime = LocalRuntime(_devices.device_count())
        if not _atexit_registered:
            atexit.register(shutdown, restore_blas=False)  # (restoring would start a BLAS pool)
            _atexit_registered = True
    return _runtime


def shutdown(restore_blas: bool = True) -> None:
    """Stop the device processes (they restart on next use) and give the host back its BLAS
    thread count."""
    global _runtime
    if _runtime is not None:
        _runtime.shutdown(restore_blas)
        _runtime = None


def worker_pids() -> list[int]:
    if _runtime is None:
        return []
    return [w.pid for w in _runtime.workers if w is not None]
