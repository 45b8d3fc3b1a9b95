"""The memory watchdog's measure of a run's processes (``server.sandbox.slot``): PSS plus swap, and
the cheap bound from counters that stands for it while it fits in the budget. The attacks on it
through a real server are in tests/test_sandbox_abuse.py (``test_memory_bomb_across_processes``,
``test_paged_out_memory_counts``)."""

from __future__ import annotations

import mmap
import os
import signal

from server.sandbox import slot

# smaps_rollup of a process that paged out a 100 MiB shared anonymous mapping (``mmap(-1, n)``):
# the kernel counts those pages in Swap and not in SwapPss (nor in /proc/PID/status's VmSwap).
SHARED_PAGED_OUT = b"""562b92de2000-7fffee1ac000 ---p 00000000 00:00 0                          [rollup]
Rss:               13748 kB
Pss:                7627 kB
Pss_Dirty:          6920 kB
Pss_Anon:           6920 kB
Shared_Clean:       6732 kB
Private_Dirty:      6920 kB
Anonymous:          6920 kB
Swap:             102400 kB
SwapPss:               0 kB
Locked:                0 kB
"""


def test_swapped_pages_count_even_where_swappss_leaves_them_out():
    assert slot.rollup_bytes(SHARED_PAGED_OUT.splitlines(keepends=True)) == (7627 + 102400) * 1024


def test_the_counters_bound_the_walk_and_stand_for_it_only_within_the_room():
    # A child holding 32 MiB of its own and 32 MiB shared with its parent, touched by both.
    shared = mmap.mmap(-1, 32 << 20)
    shared.write(b"x" * len(shared))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            own = bytearray(b"y" * (32 << 20))
            seen = shared[::4096]  # (maps the shared pages here too)
            os.write(w, b"1" if own and seen else b"0")
            while True:
                signal.pause()  # (until killed)
        finally:
            os._exit(1)
    try:
        assert os.read(r, 1) == b"1"
        pids = [os.getpid(), pid]
        exact = slot.proportional_set_size(pids)
        bound = slot.resident_bound(pids)
        # PSS counts the shared pages once; the resident counters once per process.
        assert exact >= 64 << 20 and bound >= exact + (24 << 20)
        # With room for it, the bound stands for the walk; without, the walk.
        assert slot.process_memory(pids, room=bound + (1 << 30)) >= exact + (24 << 20)
        assert abs(slot.process_memory(pids, room=exact // 2) - exact) < 4 << 20
        assert abs(slot.process_memory(pids) - exact) < 4 << 20
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        shared.close()
        os.close(r)
        os.close(w)
