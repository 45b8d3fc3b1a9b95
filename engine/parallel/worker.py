"""The loop a device process runs: receive a command, run a program on arrays that live in shared
memory, write the results back in place, reply with timings (never with data)."""
from __future__ import annotations

import importlib
import os
import pickle
import signal
import sys
import time
import traceback
from collections import OrderedDict

import numpy as np

from . import collectives, programs

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
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def main(runtime, slot: int, conn, host_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the host's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_host()
    try:  # ENGINE_WORKER_NICE>0 lets the host finish dispatching before a device preempts it
        os.nice(int(os.environ.get("ENGINE_WORKER_NICE", "0")))
    except OSError:
        pass
    _reset_engine_state()
    arena = runtime.arenas[slot]
    exchange = runtime.exchange
    header = exchange.view(0, (8,), np.int64)
    barrier = collectives.Barrier(runtime.sync_arrive, runtime.sync_sems, header, host_pid)
    cache: OrderedDict = OrderedDict()
    while True:
        try:
            msg = conn.recv_bytes()
        except (EOFError, OSError):
            os._exit(0)
        cmd = pickle.loads(msg)
        if cmd[0] == 'exit':
            os._exit(0)
        if cmd[0] == 'run':
            reply = _run(cmd, slot, arena, exchange, barrier, cache, runtime)
        elif cmd[0] == 'ping':
            reply = ('ok', os.getpid())
        else:
            reply = ('error', 'RuntimeError', f"unknown command {cmd[0]!r}", '')
        conn.send_bytes(pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))


def _run(cmd, slot, arena, exchange, barrier, cache, runtime):
    _, key, payload, ins, outs, info = cmd
    t_start = time.perf_counter()
    try:
        prog = cache.get(key)
        if prog is None:
            prog = runtime.inherited.get(key) if payload is None else programs.loads(payload)
            if prog is None:
                raise RuntimeError(f"program {key} was neither sent nor inherited")
            cache[key] = prog
            if len(cache) > PROGRAM_CACHE:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        arena.remap(info['arena'])
        exchange.remap(info['exchange'])
        from ..core import Array
        weak = [a.weak_type for a in prog.jaxpr.in_avals]
        args = [Array(arena.view(off, shape, dtype), w) for (off, shape, dtype), w in zip(ins, weak)]
        ctx = collectives.DeviceContext(
            me=slot, pos=info['pos'], placement=info['placement'], mesh=info['mesh'],
            coords=info['coords'], names=info['names'], exchange=exchange, barrier=barrier,
            slot_bytes=info['slot'], t0=info['t0'])
        t0 = time.perf_counter()
        with collectives.running(ctx):
            results = programs.execute(prog, args)
        t1 = time.perf_counter()
        for r, (off, shape, dtype) in zip(results, outs):
            r = np.asarray(r)
            if r.shape != tuple(shape):
                raise RuntimeError(f"device result has shape {r.shape}, expected {tuple(shape)}")
            np.copyto(arena.view(off, shape, dtype), r, casting='unsafe')
        return ('ok', dict(compute_ms=(t1 - t0 - ctx.wait_s) * 1e3, wait_ms=ctx.wait_s * 1e3,
                           start_ms=(t0 - info['t0']) * 1e3, total_ms=(time.perf_counter() - t_start) * 1e3,
                           events=ctx.events))
    except collectives.DeviceAbort as e:
        return ('abort', type(e).__name__, str(e), '')
    except BaseException as e:  # report, and stop the others waiting in a barrier for us
        barrier.header[collectives._ABORT] = 1
        for s in runtime.sync_sems:
            s.release()
        for _ in runtime.sync_sems:
            runtime.sync_arrive.release()
        return ('error', type(e).__name__, str(e), traceback.format_exc())


def import_modules(names):
    for name in names:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except Exception:
                pass
