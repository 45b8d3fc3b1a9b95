"""Work the zygote has done under a slot's uid: measuring a run's memory and sweeping up after it.

In "uid" mode the zygote keeps only the capabilities to switch uids, chown and kill; it may not
read a run's ``/proc/<pid>/smaps_rollup`` (that takes CAP_SYS_PTRACE) or remove what the run left
in the world-writable directories (that takes CAP_FOWNER). A short-lived fork that becomes the
slot's uid can do both, with exactly the run's own rights. Nothing of the run is ever loaded by it.
"""

from __future__ import annotations

import os
import select
import signal
import stat
import struct
import time
from typing import Callable, Optional

from . import isolation

# Directories every uid may create entries in (sticky or not); what a run leaves there is swept.
SCRATCH_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue")
HELPER_TIMEOUT = 5.0


def as_slot(
    plan: isolation.Plan, work: Callable[[], bytes], timeout: float = HELPER_TIMEOUT
) -> Optional[bytes]:
    """Run ``work`` in a fork under the slot's uid, without capabilities; its bytes, or None if it
    failed, was killed (a run may signal its own uid's processes) or took longer than ``timeout``."""
    uid, gid = plan.uid, plan.gid
    assert uid is not None and gid is not None, "only plans with a slot uid"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            os.setgroups([])
            # Effective (and so filesystem) ids of the slot: the run's own rights. Real and saved
            # ids stay the zygote's, so the run, whose ids are all the slot's, cannot signal, trace
            # or re-limit this process (and it counts against the zygote's RLIMIT_NPROC, not the run's).
            os.setresgid(os.getgid(), gid, os.getgid())
            os.setresuid(os.getuid(), uid, os.getuid())
            isolation.drop_capabilities()
            isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)  # after: a uid change clears it
            view = memoryview(work())
            while view:
                view = view[os.write(w, view) :]
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(r, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    return bytes(data) if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else None


# --- what the helper does -----------------------------------------------------------------------


def owned_entries(uid: int, top: str):
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
    """In the helper: kill every process of this uid, remove everything it owns in the scratch
    directories, empty the run's directory (its parent is not ours: the zygote removes it)."""
    uid = os.geteuid()
    # Not kill(-1): our real uid is the zygote's, whose processes that would reach too. The run's
    # processes cannot leave its process group, which the zygote has killed; this is the backstop.
    for _ in range(100):
        victims = _processes_of(uid)
        if not victims:
            break
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.001)
    for top in SCRATCH_DIRS:
        for path, st in list(owned_entries(uid, top)):
            _remove(path, st)
    if workdir:
        for name in os.listdir(workdir):
            path = os.path.join(workdir, name)
            _remove(path, os.lstat(path))
    left: list = [p for top in SCRATCH_DIRS for p, _ in owned_entries(uid, top)]
    left += [f"pid {pid}" for pid in _processes_of(uid)]
    if workdir:
        left += os.listdir(workdir)
    return repr(left).encode()


def _processes_of(uid: int) -> list[int]:
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
    """PSS summed over ``pids``: pages shared by forked processes (pmap's devices) count once."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
                for line in f:
                    if line.startswith(b"Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            pass
    return total


def _unmapped_deleted_files(pids: list[int], scratch_devices: set[int]) -> int:
    """Bytes of deleted scratch files the run still holds open without mapping them (mapped ones
    are already in its PSS)."""
    held: dict[tuple[int, int], int] = {}
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat(f"/proc/{pid}/fd/{fd}")
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


def usage(pgid: int, workdir: Optional[str]) -> bytes:
    """In the helper: the run's memory, PSS of its processes plus the scratch files it owns
    (tmpfs files are memory), as 8 bytes."""
    uid = os.geteuid()
    pids = group_members(pgid)
    total = proportional_set_size(pids)
    devices = set()
    for top in (*SCRATCH_DIRS, workdir):
        if top:
            try:
                devices.add(os.stat(top).st_dev)
            except OSError:
                continue
            total += sum(_tree_bytes(p, st) for p, st in owned_entries(uid, top))
    total += _unmapped_deleted_files(pids, devices)
    return struct.pack("=Q", total)
