"""One run, seen from the zygote: fork the child, read its pipes under a deadline and caps,
then kill everything it started and clean up.

The zygote is a child subreaper, so descendants that outlive their parents are re-parented to it
and can be reaped; the seccomp filter keeps them all in the run's process group, so one
``killpg`` reaches every one of them.
"""

from __future__ import annotations

import fcntl
import os
import resource
import select
import shutil
import signal
import stat
import struct
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, NamedTuple, Optional

from . import child, isolation, slot
from .result_frames import ResultFrames

if TYPE_CHECKING:
    from .protocol import ZygoteConfig

READ_CHUNK = 1 << 16
WATCH_AFTER = 0.2  # seconds before the memory watchdog starts: trivial runs never pay for it
WATCH_EVERY = 0.1
INTERRUPT_GRACE = 1.0  # seconds a run interrupted at its time limit has to report where it was
WHERE_WAIT = 0.2  # seconds a run about to be killed has to write its stack (``child.WHERE_SIGNAL``)
# CPU seconds past its soft limit (SIGXCPU) after which a run that did not stop is asked where it is
# and killed, before the kernel kills it at the hard limit (one second past the soft one) unasked.
CPU_GRACE = 0.4
PROGRESS_BYTES = 8 << 20  # what is kept of a run's progress frames (engine.inspect.progress's cap)


@dataclass
class Limits:
    wall_seconds: float
    output_bytes: int
    report_bytes: int
    memory_bytes: int
    cpu_seconds: float

    @classmethod
    def of(cls, config: ZygoteConfig) -> Limits:
        """A zygote's limits, from its config (``zygote_config``)."""
        return cls(
            config["wall_seconds"],
            config["output_bytes"],
            config["report_bytes"],
            config["memory_bytes"],
            config["cpu_seconds"],
        )


# Exit statuses and resource usage of reaped processes, by pid.
Reaped = dict[int, tuple[int, resource.struct_rusage]]


class Teardown(NamedTuple):
    """What ``cleanup`` still owes a run whose report came back before its process exited."""

    pid: int
    workdir: Optional[str]
    plan: isolation.Plan


@dataclass
class Outcome:
    """What the supervisor saw. ``report`` is the child's raw JSON, if it finished one; ``progress``
    the raw JSON of the progress frames it sent before (what it finished, in case it never did)."""

    report: Optional[bytes]
    stdout: bytes
    stderr: bytes
    progress: list[bytes] = field(default_factory=list)
    limit: Optional[str] = None  # "timeout", "output", "memory", "cpu", "killed" or None
    detail: str = ""
    duration_ms: float = 0.0
    exit_status: Optional[int] = None
    # Pids that survived the kill, and what a sweep could not remove.
    leftovers: list[int | str] = field(default_factory=list)
    pending: Optional[Teardown] = field(default=None, repr=False)


def measure_memory(
    plan: isolation.Plan, pgid: int, workdir: Optional[str], budget: Optional[int] = None
) -> Optional[int]:
    """The run's memory: PSS (and SwapPss) of its processes plus what it keeps in tmpfs (its
    private mounts, or in "uid" mode the scratch files its uid owns) and a charge per socket it
    holds (``slot.SOCKET_CHARGE``). None if it could not be measured. With ``budget``, an upper
    bound that fits in it may stand for the exact sum (``slot.process_memory``)."""
    if plan.mode == "uid":
        assert plan.helper is not None  # ``choose_plan`` gives every "uid" plan its helper
        request: slot.HelperRequest = {"op": "usage", "pgid": pgid, "workdir": workdir}
        if budget is not None:
            request["budget"] = budget
        data = plan.helper.call(request, timeout=2.0)
        return struct.unpack("=Q", data)[0] if data and len(data) == 8 else None
    members = slot.group_members(pgid)
    total = slot.socket_bytes(members)
    if plan.private_tmp:
        for scratch in ("tmp", "var/tmp", "dev/shm"):
            path = f"/proc/{pgid}/root/{scratch}"  # the run's own tmpfs, once it has mounted it
            try:
                if os.stat(path).st_dev == os.stat(f"/{scratch}").st_dev:
                    continue  # still the host's (the run is being set up, or is gone)
                st = os.statvfs(path)
            except OSError:
                continue
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
    return total + slot.process_memory(members, None if budget is None else budget - total)


def _reap(seen: Optional[Reaped] = None) -> None:
    """Collect every exited child (ours and re-parented orphans); remember statuses in ``seen``."""
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if seen is not None:
            seen[pid] = (status, usage)


def kill_group(pgid: int, seen: Optional[Reaped] = None, timeout: float = 3.0) -> list[int]:
    """SIGKILL the run's process group until it is empty; return pids still present at the end."""
    deadline = time.monotonic() + timeout
    while True:
        _reap(seen)  # first: an exited leader left alone in its group makes the group empty at once
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        _reap(seen)
        if time.monotonic() > deadline:
            return slot.group_members(pgid)
        time.sleep(0.001)


def kill_uid(uid: int) -> list[int]:
    """SIGKILL every process of a slot uid (leftovers of a zygote that died mid-run)."""
    victims = slot.processes_of(uid)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _reap()
    return victims


def cpu_seconds_of(pid: int) -> Optional[float]:
    """CPU time ``pid`` has used (user + system), from ``/proc/<pid>/stat``; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _exit_limit(status: int, cpu_used: float, cpu_limit: float) -> tuple[str, str]:
    """Name the limit that ended a child which left no report."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        # SIGXCPU at the soft limit, or SIGKILL at the hard one if the code caught SIGXCPU.
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_used >= cpu_limit):
            return "cpu", name
        return "killed", f"killed by {name}"
    code = os.WEXITSTATUS(status)
    if code == child.EXIT_SETUP_FAILED:
        return "killed", "the sandbox could not be set up"
    return "killed", f"exited with status {code}"


@dataclass
class Spawned:
    """A run's process forked ahead of its request (a spare): it has set up its descriptors and
    waits, not yet isolated, for the request on ``request_w``. Forking a zygote costs it several
    milliseconds of CPU (copying its page tables), which the spare pays while the slot is idle.
    A spare holds nothing of a run: no slot uid, no work directory (``hand_over`` makes that)."""

    pid: int
    pidfd: int  # (signals through it cannot reach another process that reuses the pid)
    fds: tuple[int, int, int]  # the zygote's ends: result, stdout, stderr
    request_w: int
    workdir: Optional[str]
    service_pid: Optional[int] = None  # the compile service its connection reaches, if any


SCRATCH_PARENT_FIX = "set JAXPLAY_SANDBOX_TMP to a directory of the server's own"


def scratch_parent_problem(sandbox_tmp: str) -> Optional[str]:
    """Make the parent of runs' directories; why it may not be used, or None. Run directories are
    made and handed to a slot (chown, with CAP_CHOWN or as root) inside it: in one another uid
    controls (the default lies in /tmp), that uid could swap a new one for a link to any file."""
    os.makedirs(sandbox_tmp, mode=0o711, exist_ok=True)
    link, st = os.lstat(sandbox_tmp), os.stat(sandbox_tmp)
    what = f"the sandbox directory {sandbox_tmp}"
    if stat.S_ISLNK(link.st_mode) and link.st_uid not in (0, os.geteuid()):
        return f"{what} is a link of uid {link.st_uid}'s; {SCRATCH_PARENT_FIX}"
    if st.st_uid != os.geteuid():
        return f"{what} belongs to uid {st.st_uid}, not to the server's {os.geteuid()}; {SCRATCH_PARENT_FIX}"
    if st.st_mode & 0o022:
        return f"{what} is writable by others (mode {stat.S_IMODE(st.st_mode):o}); {SCRATCH_PARENT_FIX}"
    return None


def _workdir(plan: isolation.Plan, sandbox_tmp: str) -> Optional[str]:
    """A run's directory, where it has no private /tmp: made here, handed to its slot's uid."""
    if plan.private_tmp:
        return None
    os.makedirs(sandbox_tmp, mode=0o711, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="run-", dir=sandbox_tmp)
    if (ids := plan.slot_ids) is not None:
        os.chown(workdir, *ids)
    return workdir


def spawn(
    plan: isolation.Plan,
    runner: child.Runner,
    limits: Limits,
    sandbox_tmp: str,
    service_fd: Optional[int] = None,
    service_pid: Optional[int] = None,
    request_json: Optional[bytes] = None,
) -> Spawned:
    """Fork a run's process: with ``request_json``, one that runs it; without, a spare that waits
    for the request ``hand_over`` gives it. ``service_fd`` is the run's end of a connection to the
    kernel compile service; it is the child's from here on."""
    workdir = None if request_json is None else _workdir(plan, sandbox_tmp)
    result_r, result_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    request_r: Optional[int] = None
    request_w = -1
    if request_json is None:
        request_r, request_w = os.pipe()
    # A spare is born with its name (the zygote's for a moment): never seen under the zygote's.
    zygote_name = child.name(child.SPARE_NAME) if request_json is None else b""
    try:
        pid = os.fork()
    except OSError:
        if zygote_name:
            child.name(zygote_name)
        raise
    if pid == 0:
        # (the zygote alone may write the request: if it dies, the child reads EOF and exits)
        for end in (result_r, out_r, err_r, request_w):
            if end >= 0:
                os.close(end)
        child.run_child(
            plan,
            runner,
            request_json,
            (result_w, out_w, err_w),
            workdir,
            service_fd,
            limits.output_bytes,
            request_fd=request_r,
            run_name=zygote_name,
        )
    if zygote_name:
        child.name(zygote_name)
    for childs in (result_w, out_w, err_w, request_r, service_fd):
        if childs is not None:
            os.close(childs)
    if request_w >= 0:
        os.set_blocking(request_w, False)
    return Spawned(pid, os.pidfd_open(pid), (result_r, out_r, err_r), request_w, workdir, service_pid)


def waiting(spawned: Spawned) -> bool:
    """Whether the spare is still there to take a request (a run may not have killed it: in
    "unsafe-single-user" runs share its uid)."""
    poller = select.poll()
    poller.register(spawned.pidfd, select.POLLIN)
    return not poller.poll(0)


def hand_over(spawned: Spawned, request_json: bytes, plan: isolation.Plan, sandbox_tmp: str) -> bool:
    """Give the spare its request (and work directory), whole, without blocking: False (nothing
    sent) if the pipe cannot hold it at once."""
    fd = spawned.request_w
    try:
        workdir = _workdir(plan, sandbox_tmp)
    except OSError:
        return False
    message = (workdir or "").encode() + b"\0" + request_json
    try:
        if fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < len(message):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, len(message))
        if fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ) < len(message):
            raise OSError("the request does not fit in a pipe")
        # An empty pipe with room for all of it takes all of it in one write; a cut one (which
        # cannot happen) reaches the child as a request that fails to parse.
        os.write(fd, message)
    except OSError:
        sweep(plan, workdir)
        return False
    os.close(fd)
    spawned.request_w, spawned.workdir = -1, workdir
    return True


def discard(spawned: Spawned, plan: isolation.Plan) -> None:
    """End a spare that will not run: it reads EOF and exits; killed and reaped all the same."""
    if spawned.request_w >= 0:
        os.close(spawned.request_w)
        spawned.request_w = -1
    for fd in spawned.fds:
        os.close(fd)
    try:
        signal.pidfd_send_signal(spawned.pidfd, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.close(spawned.pidfd)
    try:
        os.waitpid(spawned.pid, 0)
    except ChildProcessError:
        pass
    sweep(plan, spawned.workdir)


def run(
    plan: isolation.Plan,
    runner: child.Runner,
    request_json: bytes,
    limits: Limits,
    sandbox_tmp: str,
    defer_cleanup: bool = False,
    service_fd: Optional[int] = None,
    spawned: Optional[Spawned] = None,
) -> Outcome:
    """Run one request, in ``spawned`` (a spare that ``hand_over`` gave it) if given, else in a
    process forked now. With ``defer_cleanup`` the outcome may come back as soon as the child has
    sent its report and closed its pipes, while it is still exiting (unmapping its memory, tearing
    down its namespaces): the caller then sends the result on and must call ``cleanup`` before
    the next run, which kills the run's process group and reaps it as before. ``service_fd`` is
    the run's end of a connection to the kernel compile service; it is the run's from here on."""
    start = time.monotonic()
    if spawned is None:
        spawned = spawn(plan, runner, limits, sandbox_tmp, service_fd, request_json=request_json)
    os.close(spawned.pidfd)
    pid, fds, workdir = spawned.pid, spawned.fds, spawned.workdir
    outcome, finished = None, False
    try:
        outcome, finished = _supervise(
            pid, start, fds, limits, lambda: measure_memory(plan, pid, workdir, limits.memory_bytes)
        )
    finally:
        for fd in fds:
            os.close(fd)
        if outcome is not None and finished:
            outcome.pending = Teardown(pid, workdir, plan)
        else:
            sweep(plan, workdir, outcome)
    if not defer_cleanup:
        cleanup(outcome)
    return outcome


def sweep(plan: isolation.Plan, workdir: Optional[str], outcome: Optional[Outcome] = None) -> None:
    """Remove what a run left: its directory; in "uid" mode also every scratch file of the
    slot's uid (the zygote may not remove another uid's files in /tmp or /dev/shm).

    The next run of the slot has the same uid, so it must never see this one's files: if the
    sweep cannot finish (a run that made a million files), this raises and the zygote exits;
    its replacement sweeps again before it serves anything."""
    if plan.mode == "uid":
        assert plan.helper is not None
        left = None
        for timeout in (5.0, 60.0, 300.0):
            left = plan.helper.call({"op": "sweep", "workdir": workdir}, timeout=timeout)
            if left == b"[]":
                break
            if outcome is not None:
                outcome.leftovers.append(f"sweep of uid {plan.uid}: {left!r}")
        else:
            raise RuntimeError(f"the files of slot uid {plan.uid} could not be removed: {left!r}")
        if workdir:
            try:
                os.rmdir(workdir)  # emptied by the sweep; the zygote may not look inside
            except OSError:
                pass
    elif workdir:
        shutil.rmtree(workdir, ignore_errors=True)


def cleanup(outcome: Outcome) -> None:
    """Finish a run that ``run`` left pending: kill its group, reap it, remove what it left."""
    if outcome.pending is None:
        return
    pid, workdir, plan = outcome.pending
    outcome.pending = None
    try:
        seen: Reaped = {}
        outcome.leftovers = list(kill_group(pid, seen))
        if pid not in seen:
            try:
                seen[pid] = os.wait4(pid, 0)[1:]
            except ChildProcessError:
                pass
        outcome.exit_status = seen.get(pid, (None, None))[0]
    finally:
        sweep(plan, workdir, outcome)


def _supervise(
    pid: int, start: float, fds: tuple[int, int, int], limits: Limits, measure: Callable[[], Optional[int]]
) -> tuple[Outcome, bool]:
    """What the run did, and whether it finished: report sent and every pipe closed, so that the
    child's exit may be waited for later."""
    result_r, out_r, err_r = fds
    buffers = {out_r: bytearray(), err_r: bytearray()}
    frames = ResultFrames(limits.report_bytes, PROGRESS_BYTES)
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    for fd in fds:
        os.set_blocking(fd, False)
        poller.register(fd, select.POLLIN)
    poller.register(pidfd, select.POLLIN)
    open_fds = set(fds)
    deadline = start + limits.wall_seconds
    next_watch = start + WATCH_AFTER
    unmeasured = 0
    limit: Optional[str] = None
    detail = ""
    exited = False
    finished = False
    status: Optional[int] = None
    usage: Optional[resource.struct_rusage] = None
    leftovers: list[int | str] = []

    def output_over() -> bool:
        return len(buffers[out_r]) + len(buffers[err_r]) > limits.output_bytes

    def drain(fd: int) -> None:
        while fd in open_fds:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                poller.unregister(fd)
                open_fds.discard(fd)
                return
            if fd == result_r:
                frames.feed(chunk)
                if frames.over():
                    return
                continue
            if output_over():
                return  # past the cap (the run is interrupted): read so it never blocks; drop
            buffers[fd] += chunk
            if output_over():
                return

    def interrupt(signum: int) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    def ask_where() -> None:
        """Before the kill: the run's stack on stderr (written from a signal handler, so even a run
        stuck in compiled code answers), read until it stops coming or ``WHERE_WAIT`` is over."""
        interrupt(child.WHERE_SIGNAL)
        until, had = time.monotonic() + WHERE_WAIT, len(buffers[err_r])
        quiet = select.poll()
        quiet.register(err_r, select.POLLIN)
        while err_r in open_fds and (left := until - time.monotonic()) > 0:
            got = len(buffers[err_r])
            # (once the stack started coming, 20 ms without more means it is all there)
            if not quiet.poll(max(0.0, min(left, 0.02 if got > had else left)) * 1000):
                if got > had:
                    return
                continue
            drain(err_r)

    interrupted = False
    try:
        while (limit is None or interrupted) and not exited:
            now = time.monotonic()
            if now >= deadline:
                if interrupted:
                    if limit == "timeout":
                        ask_where()  # it did not stop at the interrupt: where is it stuck?
                    break
                # Interrupt first (the child turns SIGINT into an exception and reports the line
                # it was on), kill after a grace period.
                limit, detail, interrupted = "timeout", "", True
                deadline = now + INTERRUPT_GRACE
                interrupt(signal.SIGINT)
                continue
            wait = min(deadline, next_watch) - now
            for fd, _ in poller.poll(max(wait, 0) * 1000):
                if fd == pidfd:
                    exited = True
                else:
                    drain(fd)
            if frames.over():
                limit = "output"
                break
            if output_over() and not interrupted:
                # Past the output cap: interrupted like a run at its time limit, so that its
                # report names the line that was printing.
                limit, detail, interrupted = "output", "", True
                deadline = min(deadline, time.monotonic() + INTERRUPT_GRACE)
                interrupt(signal.SIGUSR1)
                continue
            if exited:
                # The child is gone; what it wrote is already in the pipes. A grandchild may keep
                # a pipe open forever, so take what is there now instead of waiting for EOF.
                for fd in list(open_fds):
                    drain(fd)
                # A complete report with every pipe closed: as below, teardown can wait.
                finished = not open_fds and frames.started
                break
            if not open_fds and frames.started:
                # Every holder of the pipes closed them (a run's child does so after sending its
                # report); nothing more can arrive, so the result is complete.
                finished = True
                break
            if time.monotonic() >= next_watch:
                next_watch = time.monotonic() + WATCH_EVERY
                cpu = cpu_seconds_of(pid)
                if not interrupted and cpu is not None and cpu >= limits.cpu_seconds + CPU_GRACE:
                    # SIGXCPU came and the run went on: it is in compiled code (a numba loop),
                    # where Python's handler cannot run. Its stack says where, as at the time limit.
                    limit = "cpu"
                    ask_where()
                    break
                used = measure()
                # A measurement can fail (a slow helper under load is replaced); three in a row
                # leave the run unwatched, which it may not be.
                unmeasured = unmeasured + 1 if used is None else 0
                if unmeasured >= 3:
                    limit, detail = "killed", "its memory could not be measured"
                    break
                if used is None:
                    continue
                if used > limits.memory_bytes:
                    limit = "memory"
                    ask_where()
                    break
    finally:
        poller.unregister(pidfd)
        os.close(pidfd)
        if not finished:
            seen: Reaped = {}
            leftovers = list(kill_group(pid, seen))
            if pid not in seen:
                try:
                    seen[pid] = os.wait4(pid, 0)[1:]
                except ChildProcessError:
                    pass
            status, usage = seen.get(pid, (None, None))
    cpu_used = usage.ru_utime + usage.ru_stime if usage else 0.0

    # An interrupted run's report (if complete) carries the traceback of where it was stopped.
    # (Bytes that are not frames reach ``finish`` as a report that does not parse.)
    report = frames.report if not frames.broken else b"not a report frame"
    if not (limit is None or (interrupted and (finished or exited))):
        report = None
    if limit is None and status is not None and not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        limit, detail = _exit_limit(status, cpu_used, limits.cpu_seconds)
        report = None
    if limit is None and not report:
        limit, detail = "killed", "no report"
    outcome = Outcome(
        report=report,
        stdout=bytes(buffers[out_r]),
        stderr=bytes(buffers[err_r]),
        progress=frames.progress,
        limit=limit,
        detail=detail,
        duration_ms=(time.monotonic() - start) * 1000,
        exit_status=status,
        leftovers=leftovers,
    )
    return outcome, finished
