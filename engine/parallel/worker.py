"""The loop a device process runs: sleep on the pool's doorbell, read its command, run a program
on arrays that live in shared memory, write the results in place, reply with timings (never with
data), and count itself done.

A program's setup (the pickled program, the device's place in the mesh, buffer shapes) comes once
per (program, placement); each run's command then carries only buffer offsets and a start time.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import os
import pickle
import signal
import sys
import time
import traceback
from collections import OrderedDict

import numpy as np

from .. import canonical_dtypes, debug
from . import collectives, host_calls, programs, sync

PROGRAM_CACHE = 256


def _reset_engine_state():
    """The fork copied the host mid-call (maybe inside a trace); start from a clean slate."""
    from .. import batching, core, monitoring
    from ..lax import parallel as lax_parallel

    core._state.stack = [core.MainTrace(0, core.EvalTrace)]
    core._state.dynamic = None
    batching._trace_ctx.clear()
    monitoring._listeners.clear()
    lax_parallel._pmap_axes.clear()
    collectives._current = None


def _die_with_host():
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def blas_threads(n_devices: int) -> int:
    """BLAS threads per device: the cores shared out among the devices (at least one), so that
    eight devices on two cores do not run sixteen spinning BLAS threads."""
    value = os.environ.get("ENGINE_DEVICE_BLAS_THREADS")
    if value:
        return max(1, int(value))
    return max(1, (os.cpu_count() or 1) // max(1, n_devices))


_openblas_fns: list | None = None  # [(get, set)] per OpenBLAS loaded, found once per process


def _openblas() -> list:
    """The thread-count functions of the OpenBLAS libraries numpy loaded (found in this
    process's maps: the env variables are read only when the library loads)."""
    global _openblas_fns
    if _openblas_fns is None:
        _openblas_fns = []
        try:
            with open("/proc/self/maps") as f:
                paths = {ln.split()[-1] for ln in f if "openblas" in ln.lower() and "/" in ln}
        except OSError:
            paths = set()
        for path in sorted(paths):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for name in (
                "openblas_{}_num_threads",
                "scipy_openblas_{}_num_threads64_",
                "scipy_openblas_{}_num_threads_64_",
                "openblas_{}_num_threads64_",
            ):
                get = getattr(lib, name.format("get"), None)
                set_ = getattr(lib, name.format("set"), None)
                if get is not None and set_ is not None:
                    _openblas_fns.append((get, set_))
                    break
    return _openblas_fns


def set_blas_threads(n: int) -> list[int]:
    """Set OpenBLAS's thread count to ``n`` where it differs; returns the previous counts.

    Setting a count (re)starts OpenBLAS's thread pool when it is not running, as in any freshly
    forked process, and pool threads spin for ~0.1 s before they sleep. So the host sets the
    devices' count before forking them: they inherit it, find it set, and never start a pool
    (a single-threaded count runs BLAS on the calling thread)."""
    before = []
    for get, set_ in _openblas():
        before.append(int(get()))
        if before[-1] != n:
            set_(int(n))
    return before


def restore_blas_threads(counts: list[int]) -> None:
    for (get, set_), n in zip(_openblas(), counts):
        if int(get()) != n:
            set_(int(n))


def device_cpus(slot: int, n_devices: int, cpus: list[int]) -> list[int]:
    """The cores device ``slot`` runs on: its share of ``cpus`` (round robin when devices outnumber
    cores). Pinned, the devices a run wakes spread over the cores at once; left to the scheduler,
    they were often woken onto the waker's core and migrated later, and on this 2-core machine
    shared with other work a pmap call with a collective took 2-10x longer (bench_pmap)."""
    if len(cpus) >= n_devices:
        per = len(cpus) // n_devices
        return cpus[slot * per : (slot + 1) * per]
    return [cpus[slot % len(cpus)]]


def _pin(slot: int, n_devices: int) -> None:
    if os.environ.get("ENGINE_DEVICE_PIN", "1") == "0" or not hasattr(os, "sched_setaffinity"):
        return
    try:
        os.sched_setaffinity(0, device_cpus(slot, n_devices, sorted(os.sched_getaffinity(0))))
    except OSError:
        pass


class _Setup:
    """What a device keeps for one (program, placement): the runner and its collective context."""

    __slots__ = ("runner", "ctx", "ins", "outs", "views", "views_of", "prints", "x64")

    def __init__(self, runner, ctx, ins, outs, prints, x64=False):
        self.runner, self.ctx, self.ins, self.outs = runner, ctx, ins, outs
        self.x64 = x64  # (jax_enable_x64 where the program was traced: its constants' types)
        # whether the program calls back into Python (jax.debug.print...): only then are prints
        # collected (two context managers per run otherwise wasted)
        self.prints = prints
        self.views: dict = {}  # (input offsets, output offsets) -> the arena views
        self.views_of = None  # ... of this mapping of the arena

    def buffers(self, arena, ins, outs):
        if self.views_of is not arena.mm:
            self.views.clear()
            self.views_of = arena.mm
        key = (tuple(ins), tuple(outs))
        found = self.views.get(key)
        if found is None:
            found = (
                [arena.view(off, shape, dtype) for off, (shape, dtype) in zip(ins, self.ins)],
                [arena.view(off, shape, dtype) for off, (shape, dtype) in zip(outs, self.outs)],
            )
            if len(self.views) >= 16:
                self.views.pop(next(iter(self.views)))
            self.views[key] = found
        return found


def _drop_inherited_descriptors(runtime, conn) -> None:
    """Keep only the shared memory and this device's socket; stdin/stdout/stderr become
    /dev/null. A device must not hold the host's pipes: whoever reads the host's output (a
    sandbox supervisor, ``subprocess.run``) sees it end only when every holder closed it, which
    would otherwise wait for the devices to be torn down after the host is done. (Device
    output reaches the host in replies: prints, errors and their tracebacks.)"""
    keep = {conn.fileno(), runtime.exchange.fd, runtime.control.arena.fd}
    keep.update(a.fd for a in runtime.arenas)
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
    except OSError:
        return
    low = 3
    for fd in sorted(keep) + [None]:
        if fd is None:
            os.closerange(low, 1 << 16)
            break
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1


def main(runtime, slot: int, conn, host_pid: int, last: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the host's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_host()
    try:  # ENGINE_WORKER_NICE>0 lets the host finish dispatching before a device preempts it
        os.nice(int(os.environ.get("ENGINE_WORKER_NICE", "0")))
    except OSError:
        pass
    _pin(slot, runtime.n)
    set_blas_threads(blas_threads(runtime.n))  # normally inherited from the host: a no-op
    _reset_engine_state()
    _drop_inherited_descriptors(runtime, conn)
    host_calls.connect(conn, lambda: sync._wake(runtime.control.addr(sync.DONE)))  # (callbacks run there)
    # The host's heap came along with the fork: keep the collector from ever scanning it (full
    # collections would take milliseconds and copy every page they touch).
    gc.freeze()
    control = runtime.control
    barrier = collectives.Barrier(control, host_pid)
    setups: OrderedDict = OrderedDict()
    words = control.words

    def check_host():
        if os.getppid() != host_pid:
            os._exit(1)

    while True:
        last = control.wait_ring(last, check_host)
        if words[sync.RUN_GEN + slot] != last:
            continue  # a run without this device
        try:
            data = control.take(slot, False)
            cmd = data if type(data) is tuple else pickle.loads(conn.recv_bytes() if data is None else data)
            del data
        except (EOFError, OSError):
            os._exit(0)
        if cmd[0] == "exit":
            os._exit(0)
        reply = _run(cmd, slot, runtime, barrier, setups)
        oversized = None
        if reply[0] == "ok" and reply[2] is None and reply[3] is None:
            control.post_timing(slot, reply[1])
        else:
            reply = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
            if not control.post(slot, True, reply):
                oversized = reply
        words[control.replied + slot] = last
        control.arrive(sync.DONE, int(words[sync.NPOS]))
        if oversized is not None:  # (after arriving: the host reads sockets once every device is done)
            try:
                conn.send_bytes(oversized)
            except OSError:
                os._exit(0)


def _setup(cmd, slot, runtime, barrier, setups):
    _, sid, setup, ins, outs, t0, flags, peers = cmd
    if setup is None:
        raise RuntimeError(f"program setup {sid} was never sent to this device")
    key, payload, info = setup
    canonical_dtypes.set_x64(info.get("x64", False))
    prog = runtime.inherited.get(key) if payload is None else programs.loads(payload)
    if prog is None:
        raise RuntimeError(f"program {key} was neither sent nor inherited")
    ctx = collectives.DeviceContext(
        input_operands=programs.input_operands(prog.jaxpr),
        me=slot,
        pos=info["pos"],
        placement=info["placement"],
        mesh=info["mesh"],
        coords=info["coords"],
        names=info["names"],
        exchange=runtime.exchange,
        barrier=barrier,
        slot_bytes=info["slot"],
        arenas=runtime.arenas,
        control=runtime.control,
    )
    runner = None
    if info.get("compiled"):
        try:
            runner = programs.CompiledRunner(prog, info.get("name", "fun"))
        except Exception:
            runner = None  # interpret it
    s = setups[sid] = _Setup(
        runner or programs.Runner(prog),
        ctx,
        [(tuple(a.shape), _buffer_dtype(a.dtype)) for a in prog.in_avals],
        [(tuple(a.shape), _buffer_dtype(a.dtype)) for a in prog.out_avals],
        programs.calls_python(prog.jaxpr),
        info.get("x64", False),
    )
    if len(setups) > PROGRAM_CACHE:
        setups.popitem(last=False)
    return s


def _buffer_dtype(dtype) -> np.dtype:
    """How a value of ``dtype`` sits in a buffer: typed PRNG keys as their words (a structured
    dtype, as the host stores them)."""
    return getattr(dtype, "numpy_dtype", None) or np.dtype(dtype)


def _run(cmd, slot, runtime, barrier, setups):
    t_start = time.perf_counter()
    _, sid, setup, ins, outs, t0, flags, peers = cmd
    prints = None
    try:
        s = setups.get(sid)
        if s is None:
            s = _setup(cmd, slot, runtime, barrier, setups)
        else:
            setups.move_to_end(sid)
        canonical_dtypes.set_x64(s.x64)
        arena, sizes = runtime.arenas[slot], runtime.control.sizes
        arena.remap(int(sizes[slot]))
        runtime.exchange.remap(int(sizes[runtime.n]))
        args, dests = s.buffers(arena, ins, outs)
        ctx = s.ctx
        ctx.reset(t0, bool(flags & 1))
        ctx.peers = peers
        t1 = time.perf_counter()
        collectives._current = ctx
        try:
            if s.prints:
                with debug.device_prints(slot) as prints:
                    results = s.runner(args, dests, ctx)
            else:
                results = s.runner(args, dests, ctx)
        finally:
            collectives._current = None
        t2 = time.perf_counter()
        for r, d in zip(results, dests):
            if r is d:
                continue  # written in place
            r = np.asarray(r)
            if r.shape != d.shape:
                raise RuntimeError(f"device result has shape {r.shape}, expected {d.shape}")
            np.copyto(d, r, casting="unsafe")
        timing = (
            (t2 - t1 - ctx.wait_s) * 1e3,
            ctx.wait_s * 1e3,
            (t1 - t0) * 1e3,
            (time.perf_counter() - t_start) * 1e3,
        )
        return ("ok", timing, ctx.events if flags & 1 else None, prints or None)
    except collectives.DeviceAbort as e:
        return ("abort", type(e).__name__, str(e), "", prints)
    except BaseException as e:  # report, and stop the others waiting in a barrier for us
        runtime.control.abort()
        return ("error", type(e).__name__, str(e), traceback.format_exc(), prints)


def import_modules(names):
    for name in names:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass
