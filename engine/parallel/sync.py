"""Synchronisation between the host and the device processes through futexes in shared memory.

One ``Control`` block (a small arena of its own, so its address never moves) holds:

- the *doorbell*: a generation word the host bumps to start a run, waking every sleeping device
  with one ``FUTEX_WAKE`` (one syscall, instead of a socket write per device, each of which could
  preempt the host to run the device it wakes); ``run_gen[d]`` says which devices take part;
- the *done* counter: each device adds 1 with ``FUTEX_WAKE_OP`` (an atomic add that also wakes
  the host, but only when the old value says it was the last), so the host sleeps once per run;
- three rotating *barrier* counters used the same way between the devices of a run;
- the abort flag, and the current size of every arena (devices remap when they grow).

Waiters spin briefly (a few microseconds of polling), then sleep in ``FUTEX_WAIT`` with a timeout
so they can notice an abort, a dead host, or a dead device.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import time

import numpy as np

from .shm import Arena

_SYS_FUTEX = {"x86_64": 202, "aarch64": 98, "arm64": 98}.get(platform.machine())
FUTEX_WAIT, FUTEX_WAKE, FUTEX_WAKE_OP = 0, 1, 5
_ALL = 0x7FFFFFFF
# FUTEX_WAKE_OP encoding: op ADD (1) with oparg 1, compare EQ (0) against cmparg.
_ADD1_IF_EQ = (1 << 28) | (0 << 24) | (1 << 12)

# Control words (int32 indices).
GEN, ABORT, DONE, DUMMY, BAR0, NPOS = 0, 1, 2, 3, 4, 7  # BAR0..BAR0+2: rotating barrier counters
RUN_GEN = 16  # int32 per device from here
MAIL = 16384  # bytes of each device's command and reply mailboxes (bigger messages use its socket)
SPIN_S = float(os.environ.get("ENGINE_DEVICE_SPIN_US", "5")) * 1e-6
# At a barrier every participant is about to run: waiters hand their core over (sched_yield) for
# this long before sleeping, so the last arrival wakes nobody and no one pays a futex wake-up.
YIELD_S = float(os.environ.get("ENGINE_DEVICE_YIELD_US", "300")) * 1e-6
_RUN, _TIMING = -2, -3  # mailbox kinds besides a pickle's length: a warm run, a plain ok reply
_RUN_FORMATS: dict = {}  # number of offsets -> the packed layout of a warm run's command


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def futex_available() -> bool:
    return _SYS_FUTEX is not None and _syscall is not None and hasattr(os, "fork")


_syscall.argtypes = [ctypes.c_long] * 7  # (fixed types: no per-call ctypes objects)


def _wait(addr: int, expected: int, timeout: float) -> None:
    ts = _Timespec(int(timeout), int((timeout % 1) * 1e9))
    _syscall(_SYS_FUTEX, addr, FUTEX_WAIT, expected, ctypes.addressof(ts), 0, 0)


def _wake(addr: int, n: int = _ALL) -> None:
    _syscall(_SYS_FUTEX, addr, FUTEX_WAKE, n, 0, 0, 0)


def _add_and_wake_if(addr: int, dummy: int, last_old: int) -> None:
    """Atomically ``*addr += 1``; wake every waiter on ``addr`` if the old value was ``last_old``."""
    _syscall(_SYS_FUTEX, dummy, FUTEX_WAKE_OP, 0, _ALL, addr, _ADD1_IF_EQ | (last_old & 0xFFF))


class Control:
    """The shared control block of one device pool (see the module docstring)."""

    def __init__(self, n_devices: int):
        self.n = n_devices
        self.replied = RUN_GEN + n_devices  # int32 per device: the generation it last replied to
        n_words = RUN_GEN + 2 * n_devices
        sizes_at = 4 * (n_words + 1) // 8 * 8
        desc_at = sizes_at + 8 * (n_devices + 1)
        self.mail_at = (desc_at + 64 * n_devices + 63) // 64 * 64
        self.arena = Arena(self.mail_at + 2 * MAIL * n_devices)
        self.mv = memoryview(self.arena.mm)
        self.words = self.arena.view(0, (n_words,), np.int32)
        # current size of each device arena, then of the exchange arena (devices remap to it)
        self.sizes = self.arena.view(sizes_at, (n_devices + 1,), np.int64)
        # per region and position of a split psum: (operand device, offset, result device, offset)
        self.desc = self.arena.view(desc_at, (2, n_devices, 4), np.int64)
        self.base = self.words.ctypes.data
        # the first word of each device's reply box: a plain reply's kind, else a length
        self.reply_kinds = np.ndarray(
            (n_devices,), np.int64, buffer=self.arena.mm, offset=self.mail_at + MAIL, strides=(2 * MAIL,)
        )

    def addr(self, word: int) -> int:
        return self.base + 4 * word

    # --- mailboxes: small commands and replies go through shared memory, not the sockets --------
    def post(self, device: int, reply: bool, data: bytes) -> bool:
        """Put ``data`` in the device's command (or reply) box; False if it does not fit."""
        off = self.mail_at + (2 * device + reply) * MAIL
        if len(data) > MAIL - 8:
            struct.pack_into("q", self.mv, off, -1)
            return False
        struct.pack_into("q", self.mv, off, len(data))
        self.mv[off + 8 : off + 8 + len(data)] = data
        return True

    def take(self, device: int, reply: bool):
        """The box's message: a memoryview of a pickle, None when it went through the socket, or
        the tuple a ``post_run``/``post_timing`` packed."""
        off = self.mail_at + (2 * device + reply) * MAIL
        n = struct.unpack_from("q", self.mv, off)[0]
        if n >= 0:
            return self.mv[off + 8 : off + 8 + n]
        if n == _RUN:
            t0, sid, flags, n_in, n_out, n_peer = struct.unpack_from("dqqqqq", self.mv, off + 8)
            offsets = struct.unpack_from(f"{n_in + n_out + n_peer}q", self.mv, off + 56)
            n_io = n_in + n_out
            return ("run", sid, None, offsets[:n_in], offsets[n_in:n_io], t0, flags, offsets[n_io:])
        if n == _TIMING:
            return ("ok", struct.unpack_from("4d", self.mv, off + 8), None, None)
        return None

    def post_run(self, device: int, sid: int, flags: int, t0: float, ins, outs, peers) -> bool:
        """A warm run's command (setup already on the device) as packed numbers, no pickle:
        input and output offsets, and ``peers`` (every position's offset of each input that a
        collective reads where it is)."""
        n = len(ins) + len(outs) + len(peers)
        if 56 + 8 * n > MAIL:
            return False
        packer = _RUN_FORMATS.get(n)
        if packer is None:
            packer = _RUN_FORMATS[n] = struct.Struct(f"qdqqqqq{n}q")
        packer.pack_into(
            self.mv,
            self.mail_at + 2 * device * MAIL,
            _RUN,
            t0,
            sid,
            flags,
            len(ins),
            len(outs),
            len(peers),
            *ins,
            *outs,
            *peers,
        )
        return True

    def plain_replies(self, devices) -> bool:
        """Whether every one of ``devices`` replied with timings only (ran fine, printed nothing)."""
        kinds = self.reply_kinds
        return all(kinds[d] == _TIMING for d in devices)

    def post_timing(self, device: int, timing) -> None:
        struct.pack_into("q4d", self.mv, self.mail_at + (2 * device + 1) * MAIL, _TIMING, *timing)

    # --- host side ------------------------------------------------------------------------------
    def ring(self, devices) -> None:
        """Start a run on ``devices``: reset the counters, mark them, wake everyone once."""
        w = self.words
        w[DONE] = 0
        w[BAR0 : BAR0 + 3] = 0
        w[ABORT] = 0
        w[NPOS] = len(devices)
        gen = int(w[GEN]) + 1
        for d in devices:
            w[RUN_GEN + d] = gen
        w[GEN] = gen
        _wake(self.addr(GEN))

    def wait_done(self, n: int, check, interval: float = 0.1) -> None:
        """Until ``n`` devices reported done; ``check()`` runs on every wake-up or timeout (every
        ``interval`` seconds). No spinning: the devices need the cores more than the host needs a
        faster wake-up."""
        self.wait_at_least(DONE, n, check, interval, spin=0.0)

    def abort(self) -> None:
        self.words[ABORT] = 1
        for k in range(3):
            _wake(self.addr(BAR0 + k))

    # --- both -----------------------------------------------------------------------------------
    def wait_at_least(
        self, word: int, n: int, check, interval: float = 0.5, yield_s: float = 0.0, spin: float = SPIN_S
    ) -> None:
        """Spin briefly (then for ``yield_s`` handing the core to another runnable process between
        looks), then sleep until ``words[word] >= n``, calling ``check()`` (which may raise)
        whenever a sleep ends without it."""
        w = self.words
        if w[word] >= n:
            return
        now = time.perf_counter
        end_spin = now() + spin
        while now() < end_spin:
            if w[word] >= n:
                return
        if yield_s:
            end_spin = now() + yield_s
            while now() < end_spin:
                os.sched_yield()
                if w[word] >= n:
                    return
        while True:
            v = int(w[word])
            if v >= n:
                return
            _wait(self.addr(word), v, interval)
            if w[word] < n:
                check()

    def arrive(self, word: int, n: int) -> None:
        """Count one arrival at ``word``; the ``n``-th wakes the waiters."""
        _add_and_wake_if(self.addr(word), self.addr(DUMMY), n - 1)

    # --- device side ----------------------------------------------------------------------------
    def wait_ring(self, last: int, check) -> int:
        """Sleep until the doorbell moves past ``last``; returns the new generation. ``check()``
        runs every half second (it exits when the host is gone). No spinning: the host has work
        to do before the next ring, on the same cores."""
        w = self.words
        while True:
            v = int(w[GEN])
            if v != last:
                return v
            _wait(self.addr(GEN), v, 0.5)
            if w[GEN] == last:
                check()
