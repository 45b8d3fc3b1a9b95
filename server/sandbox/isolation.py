"""Isolation steps applied by a run's child after fork and before the user's code.

``Plan`` says what the host allows (found by ``probe`` at zygote start); ``isolate`` applies it.
Order matters: namespaces and mounts need privilege, so they come before dropping to the slot
uid, and the seccomp filter comes last because it forbids mount/unshare itself.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import resource
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from . import seccomp

if TYPE_CHECKING:
    from .slot import SlotHelper

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC = 32, 4096, 16384
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, MS_STRICTATIME = 1024, 2048, 1 << 21, 1 << 24
MS_PRIVATE = 1 << 18
MOUNT_OPTION_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
}

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_KEEPCAPS = 8
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 47, 2
# What a zygote needs in "uid" mode to put a run under its slot's uid and clean up after it.
CAP_CHOWN, CAP_KILL, CAP_SETGID, CAP_SETUID = 0, 5, 6, 7
SLOT_CAPS = (CAP_CHOWN, CAP_KILL, CAP_SETGID, CAP_SETUID)
RUN_DIR = "/tmp/run"  # the run's cwd when it has a private /tmp

_libc = ctypes.CDLL(None, use_errno=True)
# Resolved here, in the zygote: a symbol looked up first in a run's child costs a search through
# every loaded library, each run again.
for _name in ("unshare", "mount", "prctl", "syscall", "setns"):
    getattr(_libc, _name)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def mount(
    source: Optional[str], target: str, fstype: Optional[str], flags: int, data: Optional[str] = None
) -> None:
    _check(
        _libc.mount(
            _encoded(source), target.encode(), _encoded(fstype), ctypes.c_ulong(flags), _encoded(data)
        ),
        f"mount {target}",
    )


def _encoded(s: Optional[str]) -> Optional[bytes]:
    return s.encode() if s is not None else None


def prctl(option: int, arg: int) -> None:
    _check(_libc.prctl(option, arg, 0, 0, 0), "prctl")


def set_capabilities(caps: tuple[int, ...] = ()) -> None:
    """Make ``caps`` this thread's effective, permitted and inheritable capabilities; clear the
    rest. With no ``caps``: drop everything (also what a user namespace or ambient set gave us)."""
    mask = sum(1 << c for c in caps)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)(mask, mask, mask, 0, 0, 0)  # 32-bit halves: caps 0-31, 32-63
    _check(_libc.capset(header, data), "capset")


def drop_capabilities() -> None:
    set_capabilities(())


def become_keeping(uid: int, gid: int, caps: tuple[int, ...]) -> None:
    """From root: switch to ``uid``/``gid`` holding only ``caps``, also across exec (the ambient
    set), with nothing else left in the bounding set. What the image's entrypoint does before it
    starts the server, so that zygotes can give each run its slot's uid."""
    for cap in range(64):
        if (
            cap not in caps
            and _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
            and ctypes.get_errno() != errno.EINVAL
        ):
            raise OSError(ctypes.get_errno(), f"dropping capability {cap} from the bounding set")
    prctl(PR_SET_KEEPCAPS, 1)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    set_capabilities(caps)
    for cap in caps:
        _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0), "raising an ambient capability")


def capabilities() -> dict[str, int]:
    """This process's capability sets as bit masks: {"CapEff": ..., "CapPrm": ..., "CapAmb": ...}."""
    with open("/proc/self/status") as f:
        return {k: int(v, 16) for k, _, v in (line.partition(":\t") for line in f) if k.startswith("Cap")}


def holds(caps: tuple[int, ...]) -> bool:
    effective = capabilities().get("CapEff", 0)
    return all(effective >> c & 1 for c in caps)


@dataclass
class Plan:
    """What to do in the child. Built once per zygote from settings and the probe."""

    mode: str  # "root", "uid" or "unsafe-single-user"
    uid: Optional[int] = None  # per-slot uid (root and uid modes)
    gid: Optional[int] = None
    outer_uid: int = 0  # the zygote's ids, mapped into the user namespace (userns mode)
    outer_gid: int = 0
    use_seccomp: bool = True
    hidden: list[str] = field(default_factory=list)  # made empty/unreadable
    needed: list[str] = field(default_factory=list)  # must stay reachable for the slot uid
    protected_pids: tuple[int, ...] = ()
    memory_bytes: int = 2 << 30
    cpu_seconds: int = 8
    file_bytes: int = 64 << 20
    open_files: int = 512
    process_limit: int = 64
    tmp_bytes: int = 128 << 20
    nice: int = 10
    env: dict[str, str] = field(default_factory=dict)
    # Built once per zygote by ``prepare``; a run only patches or enters them.
    filter_template: Optional[seccomp.FilterTemplate] = field(default=None, repr=False, compare=False)
    helper: Optional[SlotHelper] = field(default=None, repr=False, compare=False)  # "uid" mode
    template_mnt_fd: Optional[int] = field(default=None, repr=False, compare=False)
    template_net_fd: Optional[int] = field(default=None, repr=False, compare=False)

    @property
    def keep_fds(self) -> tuple[int, ...]:
        """Descriptors the child must keep until ``isolate`` has entered the namespaces."""
        return tuple(fd for fd in (self.template_mnt_fd, self.template_net_fd) if fd is not None)

    userns: bool = False  # unsafe-single-user: user, mount and network namespaces where allowed

    @property
    def slot_ids(self) -> Optional[tuple[int, int]]:
        """The slot's (uid, gid) in "root" and "uid" modes (``make_plan`` sets both or neither)."""
        return None if self.uid is None or self.gid is None else (self.uid, self.gid)

    @property
    def private_tmp(self) -> bool:
        return self.mode == "root" or self.userns


# --- filesystem view ---------------------------------------------------------------------------


def _unescape(path: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as \ooo
    out, i = [], 0
    while i < len(path):
        if path[i] == "\\" and len(path[i + 1 : i + 4]) == 3 and path[i + 1 : i + 4].isdigit():
            out.append(chr(int(path[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(path[i])
            i += 1
    return "".join(out)


def _mounts() -> list[tuple[str, int]]:
    """(mount point, flags to keep) for every mount visible to this process, parents first."""
    result = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            flags = 0
            for opt in fields[5].split(","):
                flags |= MOUNT_OPTION_FLAGS.get(opt, 0)
            result.append((_unescape(fields[4]), flags))
    return result


def _make_everything_readonly(notes: list[str]) -> None:
    # Nothing written outside the run's own tmpfs can outlive the run. Flags such as nosuid are
    # kept because a user namespace may not clear them ("locked" flags).
    for point, flags in _mounts():
        try:
            mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except OSError as e:
            notes.append(f"read-only remount of {point} failed: {e.strerror}")


def _blocking_ancestor(path: str, uid: int, gid: int) -> Optional[str]:
    """The highest ancestor of ``path`` that ``uid`` may not traverse (e.g. /root, mode 0700)."""
    parts = Path(path).parts
    for i in range(2, len(parts) + 1):
        p = os.path.join(*parts[:i])
        try:
            st = os.stat(p)
        except OSError:
            return None
        if st.st_uid == uid:
            ok = st.st_mode & stat.S_IXUSR
        elif st.st_gid == gid:
            ok = st.st_mode & stat.S_IXGRP
        else:
            ok = st.st_mode & stat.S_IXOTH
        if not ok:
            return p
    return None


def _reexpose(plan: Plan) -> None:
    """Make interpreter/venv/project paths reachable for the slot uid without opening their parents.

    Python may live under /root (mode 0700). We cover the blocking directory with an empty
    read-only tmpfs and bind-mount only the needed paths back into it, which also hides the rest.
    """
    ids = plan.slot_ids
    if ids is None:
        raise ValueError('"root" isolation needs the slot\'s uid and gid')
    groups: dict[str, list[str]] = {}
    for path in plan.needed:
        top = _blocking_ancestor(path, *ids)
        if top is not None:
            groups.setdefault(top, []).append(path)
    for top, paths in groups.items():
        fds = [os.open(p, os.O_PATH | os.O_DIRECTORY) for p in paths]
        mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
        for p, fd in zip(paths, fds):
            os.makedirs(p, mode=0o755, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", p, None, MS_BIND | MS_REC)
            mount(None, p, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
            os.close(fd)
        mount(None, top, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _hide(path: str) -> None:
    if os.path.isdir(path):
        mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
    elif os.path.exists(path):
        mount("/dev/null", path, None, MS_BIND)


def _static_filesystem(plan: Plan, notes: list[str]) -> None:
    """The part of a run's filesystem view that is the same for every run of the zygote."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount propagates back to the host
    _make_everything_readonly(notes)
    if plan.mode == "root":
        _reexpose(plan)
    for path in plan.hidden:
        try:
            _hide(path)
        except OSError as e:
            notes.append(f"hiding {path} failed: {e.strerror}")


def _private_filesystem(plan: Plan, notes: list[str]) -> None:
    _static_filesystem(plan, notes)
    _scratch_filesystem(plan)


def _scratch_filesystem(plan: Plan) -> None:
    """The run's own writable places: fresh tmpfs mounts over /tmp, /var/tmp and /dev/shm."""
    scratch = MS_NOSUID | MS_NODEV
    # A checkout or venv may live under /tmp or /var/tmp (CI clones do): keep those reachable,
    # read-only, with their hidden parts still hidden, when the scratch tmpfs covers the rest.
    under_scratch = sorted(
        p
        for p in plan.needed
        if os.path.isdir(p) and any(p == d or p.startswith(d + "/") for d in ("/tmp", "/var/tmp"))
    )
    outermost = [
        p for i, p in enumerate(under_scratch) if not any(p.startswith(q + "/") for q in under_scratch[:i])
    ]
    kept = [(p, os.open(p, os.O_PATH | os.O_DIRECTORY)) for p in outermost]
    mount("tmpfs", "/tmp", "tmpfs", scratch, f"size={plan.tmp_bytes},mode=1777")
    if os.path.isdir("/var/tmp"):
        mount("tmpfs", "/var/tmp", "tmpfs", scratch, "size=1m,mode=1777")
    for p, fd in kept:
        os.makedirs(p, mode=0o755, exist_ok=True)
        mount(f"/proc/self/fd/{fd}", p, None, MS_BIND | MS_REC)
        mount(None, p, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
        os.close(fd)
    if os.path.isdir("/dev/shm"):
        # pmap moves arrays through shared memory; the run's whole memory budget may live here.
        mount("tmpfs", "/dev/shm", "tmpfs", scratch, f"size={plan.memory_bytes},mode=1777")
    os.mkdir(RUN_DIR, 0o700)
    if (ids := plan.slot_ids) is not None:
        os.chown(RUN_DIR, *ids)


def _enter_user_namespace(plan: Plan) -> None:
    unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)
    # Map our own ids only: inside, we are the same (unprivileged) user, holding capabilities
    # over the new namespaces alone.
    with open("/proc/self/setgroups", "w") as f:
        f.write("deny")
    with open("/proc/self/uid_map", "w") as f:
        f.write(f"{plan.outer_uid} {plan.outer_uid} 1")
    with open("/proc/self/gid_map", "w") as f:
        f.write(f"{plan.outer_gid} {plan.outer_gid} 1")


def _setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(fd, nstype), "setns")


def _build_templates(plan: Plan) -> tuple[int, int, list[str]]:
    """Set up, once, the mount namespace every run of this zygote starts from (all read-only,
    re-exposed and hidden paths in place) and the slot's network namespace.

    A short-lived helper builds them; the zygote keeps them alive through namespace descriptors.
    A run enters both, then unshares a private copy of the mount namespace for its own scratch
    mounts (and a fresh IPC namespace: System V objects would outlive a run). The network
    namespace is shared by the slot's runs, which never overlap: it has only a loopback device
    that is down, runs may not create sockets other than unnamed socket pairs, and a run's
    sockets all close when its process group is killed, so nothing carries over.
    """
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(ready_r)
            os.close(done_w)
            prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            unshare(CLONE_NEWNS | CLONE_NEWNET)
            notes: list[str] = []
            _static_filesystem(plan, notes)
            os.write(ready_w, json.dumps({"notes": notes}).encode())
            os.close(ready_w)
            os.read(done_r, 1)  # stay until the zygote holds the namespaces
            status = 0
        except BaseException as e:  # noqa: BLE001
            try:
                os.write(ready_w, json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
            except BaseException:  # noqa: BLE001
                pass
        finally:
            os._exit(status)
    os.close(ready_w)
    os.close(done_r)
    fds: list[int] = []
    try:
        data = b""
        while chunk := os.read(ready_r, 65536):
            data += chunk
        facts = json.loads(data or b'{"error": "the template helper died"}')
        if "error" in facts:
            raise OSError(facts["error"])
        for kind in ("mnt", "net"):
            fd = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
            # Well above the descriptors a run's child rewires (0-3).
            fds.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    finally:
        os.close(ready_r)
        os.close(done_w)
        os.waitpid(pid, 0)
    return fds[0], fds[1], facts["notes"]


def prepare(plan: Plan) -> list[str]:
    """Do, once in the zygote, what every run would otherwise repeat. Returns notes."""
    notes: list[str] = []
    if plan.use_seccomp and plan.filter_template is None:
        plan.filter_template = seccomp.FilterTemplate(plan.protected_pids)
    if plan.mode == "root" and plan.template_mnt_fd is None:
        try:
            plan.template_mnt_fd, plan.template_net_fd, template_notes = _build_templates(plan)
            notes += template_notes
        except OSError as e:
            notes.append(f"namespace templates unavailable, each run builds its own: {e}")
    return notes


def release(plan: Plan) -> None:
    for fd in plan.keep_fds:
        os.close(fd)
    plan.template_mnt_fd = plan.template_net_fd = None


def discard(plan: Plan) -> None:
    """Let go of everything ``prepare`` and the probe built for a plan that will not be used."""
    release(plan)
    if plan.helper is not None:
        plan.helper.stop()


def _enter_templates(plan: Plan, mnt_fd: int, net_fd: int) -> None:
    _setns(net_fd, CLONE_NEWNET)
    _setns(mnt_fd, CLONE_NEWNS)  # also moves root and cwd to the template's
    unshare(CLONE_NEWNS | CLONE_NEWIPC)  # the run's own copy: its mounts stay its own
    release(plan)


# --- limits and identity ----------------------------------------------------------------------


def _count_processes(uid: int) -> int:
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n


def _vm_size() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _set_limits(plan: Plan) -> None:
    cpu = plan.cpu_seconds
    # Soft limit raises SIGXCPU (we report "cpu"); the hard limit one second later is SIGKILL.
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    # DATA counts what a program really allocates; AS is a backstop that leaves room for the
    # address space numpy and numba reserve without using.
    resource.setrlimit(resource.RLIMIT_DATA, (plan.memory_bytes, plan.memory_bytes))
    address_space = max(2 * plan.memory_bytes, _vm_size() + plan.memory_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    resource.setrlimit(resource.RLIMIT_FSIZE, (plan.file_bytes, plan.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (plan.open_files, plan.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    # NPROC counts every process of the real uid: exact under a per-slot uid; otherwise the
    # processes the user already has are added so the server's own are not counted against the run.
    uid = plan.uid if plan.uid is not None else os.getuid()
    nproc = plan.process_limit if plan.uid is not None else _count_processes(uid) + plan.process_limit
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _become_slot_user(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)


def isolate(plan: Plan, workdir: Optional[str]) -> list[str]:
    """Apply ``plan`` to the calling (freshly forked, single-threaded) process.

    Returns notes about steps that could not be applied; raises if an essential step fails, so a
    run never proceeds with less isolation than the probe promised.
    """
    notes: list[str] = []
    mnt_fd, net_fd = plan.template_mnt_fd, plan.template_net_fd  # ``prepare`` sets both or neither
    if plan.mode == "root" and mnt_fd is not None and net_fd is not None:
        _enter_templates(plan, mnt_fd, net_fd)
        _scratch_filesystem(plan)
    elif plan.mode == "root":
        unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)
        _private_filesystem(plan, notes)
    elif plan.userns:
        _enter_user_namespace(plan)
        _private_filesystem(plan, notes)
    _set_limits(plan)
    os.nice(plan.nice)
    if (ids := plan.slot_ids) is not None:
        _become_slot_user(*ids)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the uid change cleared the one set after fork
    # From root, the uid change cleared every capability; a "uid" zygote holds its few through
    # the ambient set and a user namespace grants all of them inside: none may reach the run.
    drop_capabilities()
    cwd = RUN_DIR if plan.private_tmp else workdir
    if cwd is None:
        raise ValueError("a run without a private /tmp needs its work directory")
    os.chdir(cwd)  # as the slot's uid: the zygote may not enter it
    if plan.mode == "uid":
        # The uid change made the run undumpable; its slot's measuring helper must read it.
        prctl(PR_SET_DUMPABLE, 1)
    home = os.getcwd()
    env = dict(plan.env, HOME=home, TMPDIR=home, NUMBA_CACHE_DIR=os.path.join(home, ".numba_cache"))
    # The same result as clear() and update(), minus the calls for the entries that already match.
    for key in [k for k in os.environ if k not in env]:
        del os.environ[key]
    for key, value in env.items():
        if os.environ.get(key) != value:
            os.environ[key] = value
    if plan.use_seccomp:
        pgid = os.getpgid(0)
        seccomp.install(
            plan.filter_template.for_group(pgid)
            if plan.filter_template is not None
            else seccomp.build_filter(pgid, plan.protected_pids)
        )
    return notes
