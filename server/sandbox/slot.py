"""Work the zygote has done under a slot's uid: measuring a run's memory and sweeping up after it.

In "uid" mode the zygote keeps only the capabilities to switch uids, chown and kill; it may not
read a run's ``/proc/<pid>/smaps_rollup`` (that takes CAP_SYS_PTRACE) or remove what the run left
in the world-writable directories (that takes CAP_FOWNER). A short-lived fork that becomes the
slot's uid can do both, with exactly the run's own rights. Nothing of the run is ever loaded by it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import stat
import struct
import time
from typing import Iterable, Iterator, NotRequired, Optional, TypedDict

from . import isolation

# Directories every uid may create entries in (sticky or not); what a run leaves there is swept.
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
HELPER_TIMEOUT = 5.0


class HelperRequest(TypedDict):
    op: str  # "usage" (memory of the run's group ``pgid``) or "sweep"
    pgid: NotRequired[int]
    workdir: Optional[str]
    budget: NotRequired[int]  # (a "usage" may answer with a bound that fits in it)


class SlotHelper:
    """A process that does the zygote's slot-uid work for the zygote's whole life.

    Its effective (so filesystem) ids are the slot's: it has exactly a run's rights. Its real and
    saved ids stay the zygote's, so a run, whose ids are all the slot's, can neither signal nor
    trace it, and it is not dumpable; it can reschedule it (that checks the effective id), and
    a helper so rescheduled refuses to answer (``_serve``), so it is replaced. It reads requests
    ("usage" or "sweep") from a pipe and answers each with a 4-byte length and the bytes. Forked once: a fork of a zygote costs
    ~10-20 ms, too much for every run and every memory check.
    """

    def __init__(self, uid: int, gid: int):
        self.uid, self.gid = uid, gid
        self.pid: Optional[int] = None
        self.requests = self.replies = -1

    def start(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                # Nothing of the zygote's (its control pipes) stays open here but our two pipes.
                low = 3
                for fd in sorted((req_r, rep_w)):
                    os.closerange(low, fd)
                    low = fd + 1
                os.closerange(low, os.sysconf("SC_OPEN_MAX"))
                os.setgroups([])
                os.setresgid(os.getgid(), self.gid, os.getgid())
                os.setresuid(os.getuid(), self.uid, os.getuid())
                isolation.drop_capabilities()
                isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
                isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # after: uid changes clear it
                _serve(req_r, rep_w)
                code = 0
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(rep_w)
        for fd in (req_w, rep_r):
            os.set_inheritable(fd, False)
        self.pid, self.requests, self.replies = pid, req_w, rep_r

    def stop(self) -> None:
        if self.pid is not None:
            for fd in (self.requests, self.replies):
                os.close(fd)
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None

    def call(self, request: HelperRequest, timeout: float = HELPER_TIMEOUT) -> Optional[bytes]:
        """The helper's answer, or None if it failed or took longer than ``timeout`` (then it is
        replaced before the next call)."""
        if self.pid is None:
            self.start()
        try:
            data = json.dumps(request).encode()
            os.write(self.requests, struct.pack("=I", len(data)) + data)
            header = self._read(4, timeout)
            reply = self._read(struct.unpack("=I", header)[0], timeout) if header else None
        except OSError:
            reply = None
        if reply is None or reply.startswith(b"!"):
            self.stop()
            return None
        return reply

    def _read(self, n: int, timeout: float) -> Optional[bytes]:
        data = bytearray()
        deadline = time.monotonic() + timeout
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.replies], [], [], left)[0]:
                return None
            chunk = os.read(self.replies, n - len(data))
            if not chunk:
                return None
            data += chunk
        return bytes(data)


def _scheduling() -> tuple[int, int, frozenset[int]]:
    return os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0), frozenset(os.sched_getaffinity(0))


def _serve(requests: int, replies: int) -> None:
    # Scheduling calls check the target's effective uid, which here is the slot's: a run may renice
    # this helper, make it SCHED_IDLE or pin it, to slow the watchdog of its own and later runs.
    # (Signals and /proc check the real and saved ids, the zygote's.) A helper so changed answers
    # no more: the zygote counts a failed call (three in a row end a run) and forks a fresh one.
    scheduling = _scheduling()
    while True:
        header = os.read(requests, 4)
        if len(header) < 4:
            return
        (n,) = struct.unpack("=I", header)
        body = b""
        while len(body) < n:
            chunk = os.read(requests, n - len(body))
            if not chunk:
                return
            body += chunk
        request: HelperRequest = json.loads(body)
        try:
            if _scheduling() != scheduling:
                reply = b"!rescheduled by a run"
            elif request["op"] == "usage":
                reply = usage(request["pgid"], request.get("workdir"), request.get("budget"))
            else:
                reply = sweep(request.get("workdir"))
        except Exception as e:  # noqa: BLE001 - the zygote treats it as a failed call
            reply = f"!{type(e).__name__}: {e}".encode()
        os.write(replies, struct.pack("=I", len(reply)) + reply)


# --- what the helper does -----------------------------------------------------------------------


def owned_entries(uid: int, top: str) -> Iterator[tuple[str, os.stat_result]]:
    """(path, lstat) of every entry under ``top`` that ``uid`` owns, not descending into them.

    ``uid`` can only have created entries in directories it owns or may write to, so the walk goes
    into owned entries' parents only through directories writable by others."""
    try:
        names = os.listdir(top)
    except OSError:
        return
    for name in names:
        path = os.path.join(top, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid == uid:
            yield path, st
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_IWOTH:
            yield from owned_entries(uid, path)


def _remove(path: str, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
        try:
            os.chmod(path, 0o700)  # a run may have taken away its own rights on its directories
            names = os.listdir(path)
        except OSError:
            names = []
        for name in names:
            child = os.path.join(path, name)
            try:
                _remove(child, os.lstat(child))
            except OSError:
                pass
        try:
            os.rmdir(path)
        except OSError:
            pass
    else:
        try:
            os.unlink(path)
        except OSError:
            pass


def empty(directory: str) -> None:
    """Remove everything in ``directory`` (which this uid owns)."""
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        _remove(path, os.lstat(path))


def _tree_bytes(path: str, st: os.stat_result) -> int:
    total = st.st_blocks * 512
    if stat.S_ISDIR(st.st_mode):
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                try:
                    total += os.lstat(os.path.join(root, name)).st_blocks * 512
                except OSError:
                    pass
    return total


def sweep(workdir: Optional[str]) -> bytes:
    """In the helper: remove everything this uid owns in the scratch directories and empty the
    run's directory (its parent is not ours: the zygote removes it). Returns what is left."""
    # (No process scan: a run's processes cannot leave its process group, which the zygote has
    # killed by now, and reading every /proc/<pid>/status costs ~20 ms.)
    uid = os.geteuid()
    for top in SCRATCH_DIRS:
        for path, st in list(owned_entries(uid, top)):
            _remove(path, st)
    if workdir:
        empty(workdir)
    left: list[str] = [p for top in SCRATCH_DIRS for p, _ in owned_entries(uid, top)]
    if workdir:
        left += os.listdir(workdir)
    return repr(left).encode()


def processes_of(uid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status", "rb") as f:
                    ids = next(line for line in f if line.startswith(b"Uid:")).split()[1:]
                if int(ids[0]) == uid or int(ids[2]) == uid:  # its real or saved uid: ours to signal
                    pids.append(int(entry))
            except (OSError, StopIteration, IndexError, ValueError):
                pass
    return pids


def group_members(pgid: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    fields = f.read().rsplit(b")", 1)[1].split()
                if int(fields[2]) == pgid:
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def proportional_set_size(pids: list[int]) -> int:
    """PSS plus swapped memory summed over ``pids``: resident pages shared by forked processes
    (pmap's devices) count once, and pages the kernel moved to swap (under pressure, or asked by
    the run with ``madvise(MADV_PAGEOUT)``) are still the run's: without them a run could hold any
    amount past its budget by paging it out (``test_paged_out_memory_counts``). Costs a walk of
    every page table (~0.1 ms per MiB)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                total += rollup_bytes(f)
        except OSError:
            pass
    return total


def rollup_bytes(lines: Iterable[bytes]) -> int:
    """Pss + Swap of one ``smaps_rollup``. (Not SwapPss: the kernel leaves out of it the swapped
    pages of shared anonymous mappings, ``mmap(-1, n)``'s default. Swap counts a swapped page
    whole in each process that maps it, so a run's pages shared across a fork are counted more
    than once, but only while the machine swaps them.)"""
    total = 0
    for line in lines:
        if line.startswith((b"Pss:", b"Swap:")):
            total += int(line.split()[1]) * 1024
    return total


# How far a process's resident counters in /proc/PID/status may lag behind its pages: each is a
# per-CPU counter whose CPUs may each hold up to a batch of pages not yet added in.
_CPUS = os.sysconf("SC_NPROCESSORS_CONF")
COUNTER_SLACK = 3 * _CPUS * max(32, 2 * _CPUS) * os.sysconf("SC_PAGE_SIZE")  # (anon, file, shmem)


def swap_in_use() -> Optional[int]:
    """Bytes of swap the whole machine uses (0 without swap); None if unknown."""
    fields = {}
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith((b"SwapTotal:", b"SwapFree:")):
                    fields[line.split(b":")[0]] = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return fields.get(b"SwapTotal", 0) - fields.get(b"SwapFree", 0)


def resident_bound(pids: list[int]) -> Optional[int]:
    """An upper bound of ``proportional_set_size(pids)`` read from counters (~0.03 ms a process):
    their resident memory (a process's PSS is at most its RSS) plus all the swap in use (the
    counters miss the swapped pages of shared mappings, see ``rollup_bytes``). None if unknown."""
    total = swap_in_use()
    if total is None:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1]) * 1024 + COUNTER_SLACK
                        break
        except OSError:
            continue
    return total


def process_memory(pids: list[int], room: Optional[int] = None) -> int:
    """The memory of ``pids`` (``proportional_set_size``); with ``room``, the counters' upper bound
    instead when that fits in it: the page-table walk is then saved (a run of the engine's 150 MiB
    costs ~20 ms of it, every watch), and a run near its budget still gets the exact sum."""
    if room is not None:
        bound = resident_bound(pids)
        if bound is not None and bound <= room:
            return bound
    return proportional_set_size(pids)


def _default_socket_buffer() -> int:
    try:
        with open("/proc/sys/net/core/wmem_default") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 212992


# What one socket may hold in kernel memory that is in no process's PSS: what it sent and its peer
# has not read (a unix socket's queue is charged to the sender), up to its send buffer plus one
# message past it, with the kernel's bookkeeping. The seccomp filter keeps buffers at the default.
SOCKET_CHARGE = 2 * _default_socket_buffer()


def socket_bytes(pids: list[int]) -> int:
    """``SOCKET_CHARGE`` for every socket ``pids`` hold (each counted once): a run's socket pairs
    filled and left unread would otherwise be memory the watchdog never sees."""
    sockets = set()
    for fd in _fd_paths(pids):
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            sockets.add(target)
    return len(sockets) * SOCKET_CHARGE


def _fd_paths(pids: list[int]) -> Iterator[str]:
    """``/proc/PID/fd/N`` for every descriptor the live ones of ``pids`` hold."""
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        yield from (f"/proc/{pid}/fd/{fd}" for fd in fds)


def _unmapped_deleted_files(pids: list[int], scratch_devices: set[int]) -> int:
    """Bytes of deleted scratch files the run still holds open without mapping them (mapped ones
    are already in its PSS)."""
    held: dict[tuple[int, int], int] = {}
    for fd in _fd_paths(pids):
        try:
            st = os.stat(fd)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 0 and st.st_dev in scratch_devices:
            held[(st.st_dev, st.st_ino)] = st.st_blocks * 512
    if not held:
        return 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps", "rb") as f:
                for line in f:
                    fields = line.split()
                    if len(fields) >= 6 and fields[4] != b"0":
                        major, minor = (int(x, 16) for x in fields[3].split(b":"))
                        held.pop((os.makedev(major, minor), int(fields[4])), None)
        except OSError:
            pass
    return sum(held.values())


def usage(pgid: int, workdir: Optional[str], budget: Optional[int] = None) -> bytes:
    """In the helper: the run's memory, PSS of its processes plus the scratch files it owns
    (tmpfs files are memory), as 8 bytes. With ``budget``, a bound that fits in it may stand for
    the exact sum (``process_memory``)."""
    uid = os.geteuid()
    pids = group_members(pgid)
    total = 0
    devices = set()
    for top in (*SCRATCH_DIRS, workdir):
        if top:
            try:
                devices.add(os.stat(top).st_dev)
            except OSError:
                continue
            total += sum(_tree_bytes(p, st) for p, st in owned_entries(uid, top))
    total += _unmapped_deleted_files(pids, devices) + socket_bytes(pids)
    total += process_memory(pids, None if budget is None else budget - total)
    return struct.pack("=Q", total)
