"""A zygote: a single-threaded process with numpy, the engine and the runner imported, forking
one sandboxed child per run request it reads from the server.

Started by ``pool`` as ``python -I -B -c "...main()"`` (the server's own tree first on the path) with a
scrubbed environment.
Its first message is a JSON config; it answers with a JSON hello (versions and what isolation
the host allows), then serves run requests one at a time until its input closes.
"""

from __future__ import annotations

import gc
import importlib
import json
import logging
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Optional, cast

from . import compile_child, isolation, kernel_cache, kernel_service, seccomp, slot, supervise
from .child import Runner
from .protocol import ZygoteConfig, read_message, write_message

if TYPE_CHECKING:
    from engine.inspect.schema import RunRequest

log = logging.getLogger("jaxplay.zygote")

PR_SET_CHILD_SUBREAPER = 36
# Error types of a run's own report that mean a limit stopped it: the limit, or None where the
# message names it (the child's LimitInterrupt; engine.inspect's OutputLimitExceeded).
STOPPED = {"LimitInterrupt": None, "OutputLimitExceeded": "output"}
TRUNCATED = "\n[output truncated: over the {kib} KiB limit]\n"


def resolve_runner(path: str) -> Runner:
    module_name, _, attr = path.partition(":")
    obj: object = importlib.import_module(module_name)
    for part in (attr or "run_request").split("."):
        obj = getattr(obj, part)
    return cast(Runner, obj)  # the settings promise a runner; a wrong one fails its first run


def engine_version() -> str:
    try:
        import engine

        version = getattr(engine, "__version__", None)
        if version:
            return str(version)
    except Exception:  # noqa: BLE001
        pass
    try:
        from importlib.metadata import version as dist_version

        return dist_version("jaxplay")
    except Exception:  # noqa: BLE001
        return "unknown"


# --- probing ----------------------------------------------------------------------------------


SAFE_MODES = ("root", "uid")
UNSAFE_MODE = "unsafe-single-user"
UNSAFE_WARNING = (
    "unsafe-single-user isolation: runs share the server's uid and can read and change its data, "
    "each other and the kernel cache. Only for one trusted user; never expose this server."
)


def _probe_child(plan: isolation.Plan, workdir: str, report_fd: int) -> None:
    """In a forked child: apply the plan, then check it took effect; exit 0 if all is well."""
    ok = False
    facts: dict[str, Any] = {}
    try:
        os.setsid()
        facts["notes"] = isolation.isolate(plan, workdir)
        facts["uid"] = os.getuid()
        facts["capabilities"] = isolation.capabilities()
        try:
            import socket

            socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
            facts["socket_blocked"] = False
        except OSError:
            facts["socket_blocked"] = True
        facts["seccomp_active"] = seccomp.active()
        ok = True
    except BaseException as e:  # noqa: BLE001
        facts["error"] = f"{type(e).__name__}: {e}"
    finally:
        try:
            os.write(report_fd, json.dumps(facts).encode())
        finally:
            os._exit(0 if ok else 1)


def probe(plan: isolation.Plan, sandbox_tmp: str, server_pid: int) -> tuple[bool, dict[str, Any]]:
    """Fork a child, isolate it with ``plan``, and check the invariants a safe mode promises."""
    if (problem := supervise.scratch_parent_problem(sandbox_tmp)) is not None:
        return False, {"error": problem}
    import tempfile

    workdir = tempfile.mkdtemp(prefix="probe-", dir=sandbox_tmp)
    ok = False
    facts: dict[str, Any] = {}
    try:
        if (ids := plan.slot_ids) is not None:
            try:
                os.chown(workdir, *ids)
            except PermissionError:
                facts["error"] = "no capability to hand a directory to the slot's uid (CAP_CHOWN)"
                return ok, facts
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _probe_child(plan, workdir, w)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        _, status = os.waitpid(pid, 0)
        supervise.kill_group(pid)
        try:
            facts = json.loads(data or b"{}")
        except ValueError:
            facts = {}
        ok = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        if ok and plan.mode in SAFE_MODES:
            ok, facts["error"] = _safe_mode_facts(plan, facts, server_pid)
    finally:
        try:
            supervise.sweep(plan, workdir)
        except RuntimeError as e:  # a slot helper that cannot run: the mode is refused anyway
            ok, facts["error"] = False, facts.get("error") or str(e)
    return ok, facts


def _safe_mode_facts(
    plan: isolation.Plan, facts: dict[str, Any], server_pid: int
) -> tuple[bool, Optional[str]]:
    ours = {os.getuid(), os.stat(f"/proc/{server_pid}").st_uid, 0}
    if facts.get("uid") in ours:
        return False, f"runs would share uid {facts.get('uid')} with the server or a zygote"
    held = {k: v for k, v in facts.get("capabilities", {}).items() if v and k != "CapBnd"}
    if held:
        return False, f"runs would keep capabilities {held}"
    if plan.use_seccomp and not facts.get("seccomp_active"):
        return False, "the seccomp filter did not take effect"
    if not facts.get("socket_blocked"):
        return False, "runs could open network sockets"
    if plan.helper is not None and plan.helper.call({"op": "sweep", "workdir": None}) != b"[]":
        return False, "the slot's helper (memory watchdog, sweeper) cannot run as the slot's uid"
    return True, None


_claims: dict[int, object] = {}
CLAIM_WAIT_SECONDS = 5.0


def claim_slot_uid(uid: int) -> None:
    """Make sure no other jaxplay instance on this host uses ``uid`` for its runs: its sweeps
    would kill our runs and remove their files, and its runs could reach ours. The claim is an
    abstract unix socket named after the uid, held for the zygote's life (runs cannot bind)."""
    import socket

    if uid in _claims:
        return
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    # An instance that was just stopped (a restart, a test's previous server) may take a moment to
    # let go of its claim as its zygote exits: wait a little before calling the uid someone else's.
    deadline = time.monotonic() + CLAIM_WAIT_SECONDS
    while True:
        try:
            s.bind(f"\0jaxplay-slot-uid-{uid}")
            break
        except OSError:
            if time.monotonic() < deadline:
                time.sleep(0.1)
                continue
            s.close()
            raise RuntimeError(
                f"uid {uid} (a slot's, or its compile service's) is in use by another jaxplay instance "
                "on this host: give each instance its own JAXPLAY_SLOT_UID_BASE"
            ) from None
    _claims[uid] = s


def candidates(wanted: str) -> list[str]:
    if wanted != "auto":
        return [wanted]
    return ["root", "uid"] if os.geteuid() == 0 else ["uid"]


def choose_plan(config: ZygoteConfig) -> tuple[isolation.Plan, dict[str, Any]]:
    """The first mode of ``candidates`` whose probe passes. Fails closed: "auto" never falls back
    to a mode where runs share the server's uid; only an explicit "unsafe-single-user" does that."""
    use_seccomp = seccomp.supported()
    failures = []
    for mode in candidates(config["isolation"]):
        for userns in (True, False) if mode == UNSAFE_MODE else (False,):
            plan = make_plan(config, mode, use_seccomp, userns)
            ids = plan.slot_ids
            if ids is not None:
                claim_slot_uid(ids[0])  # before the probe: it kills and sweeps the uid's leftovers
            if mode == "uid" and ids is not None:
                plan.helper = slot.SlotHelper(*ids)
            prepared = isolation.prepare(plan)
            ok, facts = probe(plan, config["sandbox_tmp"], config["server_pid"])
            if not ok and plan.keep_fds:
                # Try once more without the namespace templates before giving up on this mode.
                failures.append(
                    f"{mode} isolation with namespace templates failed: {facts.get('error', 'probe failed')}"
                )
                isolation.release(plan)
                ok, facts = probe(plan, config["sandbox_tmp"], config["server_pid"])
            if ok:
                return plan, _describe(plan, facts, prepared + failures, use_seccomp)
            isolation.discard(plan)
            failures.append(f"{mode} isolation unavailable: {facts.get('error', 'probe failed')}")
            log.warning("slot %s: %s", config["slot"], failures[-1])
    if config["isolation"] != UNSAFE_MODE:
        failures.append(
            "no isolation mode that keeps runs apart from the server and each other is available here "
            "(root: run the server as root; uid: give it CAP_SETUID, CAP_SETGID, CAP_KILL and CAP_CHOWN, "
            "as the Docker image's entrypoint does). To run anyway for a single trusted user, set "
            f"JAXPLAY_ISOLATION={UNSAFE_MODE}"
        )
    raise RuntimeError("; ".join(failures))


def _describe(
    plan: isolation.Plan, facts: dict[str, Any], notes: list[str], use_seccomp: bool
) -> dict[str, Any]:
    namespaces = plan.mode == "root" or plan.userns
    return {
        "mode": plan.mode,
        "safe": plan.mode in SAFE_MODES,
        "warning": None if plan.mode in SAFE_MODES else UNSAFE_WARNING,
        "uid_switch": plan.uid is not None,
        "network_namespace": namespaces,
        "mount_namespace": namespaces,
        "user_namespace": plan.userns,
        "private_tmp": plan.private_tmp,
        "seccomp": bool(facts.get("seccomp_active")),
        "sockets_blocked": bool(facts.get("socket_blocked")),
        "memory_watchdog": True,
        "notes": notes
        + facts.get("notes", [])
        + ([] if use_seccomp else [f"seccomp: no filter for {os.uname().machine}"]),
    }


def make_plan(config: ZygoteConfig, mode: str, use_seccomp: bool, userns: bool = False) -> isolation.Plan:
    if mode not in (*SAFE_MODES, UNSAFE_MODE):
        raise ValueError(f"unknown isolation mode {mode!r}")
    uid = gid = None
    if mode in SAFE_MODES:
        uid = gid = config["slot_uid_base"] + config["slot"]
    project = config["project_root"]
    needed = sorted(
        {
            os.path.realpath(p)
            for p in (sys.base_prefix, sys.prefix, project, os.path.dirname(os.path.realpath(sys.executable)))
        }
    )
    return isolation.Plan(
        mode=mode,
        uid=uid,
        gid=gid,
        userns=userns,
        outer_uid=os.getuid(),
        outer_gid=os.getgid(),
        use_seccomp=use_seccomp,
        hidden=config["hidden_paths"],
        needed=needed,
        protected_pids=(os.getpid(), config["server_pid"]),
        memory_bytes=config["memory_bytes"],
        cpu_seconds=config["cpu_seconds"],
        file_bytes=config["file_bytes"],
        open_files=config["open_files"],
        process_limit=config["process_limit"],
        tmp_bytes=config["tmp_bytes"],
        nice=config["nice"],
        env=config["env"],
    )


def start_service(config: ZygoteConfig, plan: isolation.Plan, store: str) -> kernel_service.Service:
    """The kernel compile service; in "root" and "uid" modes its compiles run under a uid of
    their own, claimed like a slot's (no other instance may use it) and freed of any leftover
    process of a predecessor."""
    ids = None
    if plan.slot_ids is not None:
        uid = compile_child.compile_uid(config["slot_uid_base"], config["slot"])
        claim_slot_uid(uid)
        supervise.kill_uid(uid)
        ids = (uid, uid)
    scratch = None if plan.private_tmp else os.path.join(config["sandbox_tmp"], f"compile-{config['slot']}")
    service = kernel_service.Service(store, plan, ids, scratch)
    service.start()
    return service


# --- serving ----------------------------------------------------------------------------------


def _text(data: bytes, limit: int) -> str:
    text = data[:limit].decode("utf-8", "replace")
    return text + (TRUNCATED.format(kib=limit // 1024) if len(data) > limit else "")


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit // 4 or len(text.encode("utf-8", "replace")) <= limit:
        return text
    return text.encode("utf-8", "replace")[:limit].decode("utf-8", "ignore") + TRUNCATED.format(
        kib=limit // 1024
    )


def finish(outcome: supervise.Outcome, request: RunRequest, config: ZygoteConfig, version: str) -> bytes:
    """Turn what the supervisor saw into the run report sent to the server."""
    from engine.inspect import progress
    from engine.inspect.schema import RunReport
    from .reports import keep_finished, limit_report, stopped_where

    limit_bytes = config["output_bytes"]
    stdout, stderr = _text(outcome.stdout, limit_bytes), _text(outcome.stderr, limit_bytes)
    report: Optional[RunReport] = None
    limit, detail = outcome.limit, outcome.detail
    if outcome.report is not None:
        try:
            report = RunReport.model_validate_json(outcome.report)
        except ValueError:
            if limit != "timeout":  # an interrupted run may not have finished its report
                limit, detail = "killed", "the run sent back an invalid report"
    stopped_at = None
    done: RunReport | None = None  # an interrupted run's own report: what it finished until then
    if report is not None and report.error is not None and report.error.type in STOPPED:
        # Interrupted at its time, CPU or output limit (by the supervisor's signal), or stopped by
        # the runner at the print that crossed the output limit: the limit's report, saying where
        # the run was.
        message = report.error.message
        limit = STOPPED[report.error.type] or (
            message if message in ("timeout", "cpu", "output") else "timeout"
        )
        stopped_at = report.error
        stdout = _cap(report.stdout + stdout, limit_bytes)
        stderr = _cap(report.stderr + stderr, limit_bytes)
        done, report = report, None
    if report is not None:
        # The runner's own capture is not bounded by the pipe cap, so bound it here; a run that
        # printed past the cap is an output overrun even when it finished.
        out, err = report.stdout + stdout, report.stderr + stderr
        report.stdout, report.stderr = _cap(out, limit_bytes), _cap(err, limit_bytes)
        if report.stdout != out or report.stderr != err:
            limit = "output"
            limited = limit_report(
                request,
                "output",
                version,
                stdout=report.stdout,
                stderr=report.stderr,
                duration_ms=report.duration_ms or outcome.duration_ms,
                device_count=config["device_count"],
                output_kib=limit_bytes >> 10,
            )
            keep_finished(limited, report, None)
            report = limited
        if report.error is not None and report.error.type == "MemoryError" and report.error.limit is None:
            report.error.limit = "memory"
        if not report.duration_ms:
            report.duration_ms = outcome.duration_ms
    else:
        finished = done or progress.merge(outcome.progress)
        # Killed (or crashed) where it could not report: its stack, if it wrote one, says where.
        stderr, where = stopped_where(stderr, crashed=limit == "killed")
        if done is None:  # the run never reported: what it streamed, then what reached its pipes
            stdout = _cap(finished.stdout + stdout, limit_bytes)
            stderr = _cap(finished.stderr + stderr, limit_bytes)
        report = limit_report(
            request,
            limit or "killed",
            version,
            stdout=stdout,
            stderr=stderr,
            duration_ms=outcome.duration_ms,
            device_count=config["device_count"],
            wall=config["wall_seconds"],
            cpu=config["cpu_seconds"],
            memory_mib=config["memory_bytes"] >> 20,
            output_kib=limit_bytes >> 10,
            detail=detail or "no report",
        )
        if stopped_at is not None and report.error is not None:
            report.error.traceback = stopped_at.traceback
            report.error.line, report.error.column = stopped_at.line, stopped_at.column
            report.error.end_line, report.error.end_column = stopped_at.end_line, stopped_at.end_column
        stopped_line = stopped_at.line if stopped_at is not None else None
        if stopped_line is None and where is not None and report.error is not None:
            stopped_line = report.error.line = where
        keep_finished(report, finished, stopped_line)
    return report.model_dump_json().encode()


def serve(ctrl_in: int, ctrl_out: int, config: ZygoteConfig) -> None:
    from engine.inspect.schema import RunRequest

    from .reports import limit_report

    version = engine_version()
    runner, runner_error = None, None
    # Before anything imports numba or the engine: they load what these directories hold.
    kernels = kernel_cache.prepare(config["kernel_cache_dir"])
    caches = [kernels]
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        inside = os.path.realpath(numba_dir).startswith(os.path.realpath(config["kernel_cache_dir"]) + os.sep)
        if inside:
            numba_dir = os.path.join(kernels, os.path.relpath(numba_dir, config["kernel_cache_dir"]))
        else:
            numba_dir = kernel_cache.prepare(numba_dir)
            caches.append(numba_dir)
        os.environ["NUMBA_CACHE_DIR"] = numba_dir
    for name in config["preload"]:
        try:
            importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - a missing optional module must not stop the zygote
            log.info("slot %s: preload %s skipped (%s)", config["slot"], name, e)
    try:
        runner = resolve_runner(config["runner"])
    except Exception as e:  # noqa: BLE001
        runner_error = f"runner {config['runner']!r} unavailable: {type(e).__name__}: {e}"
        log.error("slot %s: %s", config["slot"], runner_error)
    if runner is not None and config.get("warm_examples"):
        from ..warmup import warm

        t0 = time.perf_counter()
        # Only the zygote uses the persistent cache; runs get a fresh environment of their own.
        os.environ["ENGINE_CACHE_DIR"] = kernels
        try:
            warmed = warm(runner)
        finally:
            del os.environ["ENGINE_CACHE_DIR"]
        for cache in caches:
            kernel_cache.seal(cache)
        log.info(
            "slot %s: warmed %d gallery examples and kernels in %.1f s",
            config["slot"],
            len(warmed),
            time.perf_counter() - t0,
        )
    # Runs (and the compile service) are forks of this process. A full garbage collection in a
    # run walks every object it inherited (the engine, numba, the warmed gallery: ~140k) and,
    # writing into each one's header, copies every page they sit on: one was seen at 110-130 ms
    # of a run's CPU and 7,600 page faults, in whichever runs the collector's inherited counters
    # sent over its threshold (warm Runs slower than first ones). Frozen, they are never examined
    # again. No collection first: freeing now would leave holes in shared pages that the runs'
    # own allocations would then copy (the order Python's gc.freeze documentation gives).
    gc.freeze()
    plan, info = choose_plan(config)
    if plan.uid is not None:
        supervise.kill_uid(plan.uid)  # leftovers of a predecessor that died mid-run
        supervise.sweep(plan, None)
    service = None
    if runner is not None and config["kernel_service"]:
        service = start_service(config, plan, os.path.join(kernels, kernel_cache.SHARED))
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1 or threading.active_count() != 1:
        info["notes"].append(f"zygote has {threads} threads after preload; forking it is unsafe")
        log.warning("slot %s: %s", config["slot"], info["notes"][-1])
    info["runner_error"] = runner_error
    write_message(
        ctrl_out,
        json.dumps(
            {
                "engine_version": version,
                "device_count": config["device_count"],
                "isolation": info,
                "pid": os.getpid(),
            }
        ).encode(),
    )
    limits = supervise.Limits.of(config)
    spare: Optional[supervise.Spawned] = None
    while True:
        if spare is None and runner is not None:
            spare = _spare(plan, runner, limits, config, service)
        message = read_message(ctrl_in)
        if message is None:
            if spare is not None:
                supervise.discard(spare, plan)
            return
        outcome = None
        try:
            request = RunRequest.model_validate_json(message)
            if runner is None:
                reply = (
                    limit_report(request, "killed", version, message=runner_error).model_dump_json().encode()
                )
            else:
                taken, spare = _take(spare, plan, message, service, config["sandbox_tmp"]), None
                outcome = supervise.run(
                    plan,
                    runner,
                    message,
                    limits,
                    config["sandbox_tmp"],
                    defer_cleanup=True,
                    service_fd=service.connect() if service is not None and taken is None else None,
                    spawned=taken,
                )
                reply = finish(outcome, request, config, version)
        except Exception as e:  # noqa: BLE001 - one bad run must not take the zygote down
            log.exception("slot %s: run failed", config["slot"])
            reply = json.dumps({"internal_error": f"{type(e).__name__}: {e}"}).encode()
        try:
            write_message(ctrl_out, reply)
        finally:
            # The run's teardown happens after its reply is on its way, and before the next run.
            if outcome is not None:
                try:
                    supervise.cleanup(outcome)
                except Exception:  # noqa: BLE001 - the slot is not clean: no further run may use it
                    log.exception("slot %s: cleanup failed; this zygote exits", config["slot"])
                    os._exit(1)
                if outcome.leftovers:
                    log.error("slot %s: processes survived the run: %s", config["slot"], outcome.leftovers)


def _spare(
    plan: isolation.Plan,
    runner: Runner,
    limits: supervise.Limits,
    config: ZygoteConfig,
    service: Optional[kernel_service.Service],
) -> Optional[supervise.Spawned]:
    """The next run's process, forked while the slot is idle (after the last run's teardown)."""
    try:
        return supervise.spawn(
            plan,
            runner,
            limits,
            config["sandbox_tmp"],
            service_fd=service.connect() if service is not None else None,
            service_pid=service.pid if service is not None else None,
        )
    except Exception:  # noqa: BLE001 - the run then forks when its request comes, as it would
        log.exception("slot %s: forking a spare failed", config["slot"])
        return None


def _take(
    spare: Optional[supervise.Spawned],
    plan: isolation.Plan,
    message: bytes,
    service: Optional[kernel_service.Service],
    sandbox_tmp: str,
) -> Optional[supervise.Spawned]:
    """``spare`` with ``message`` handed over, or None (discarded) if it cannot take it: it is
    gone, its compile service was restarted or has died since, or the request is too big."""
    if spare is None:
        return None
    stale = service is not None and (service.pid != spare.service_pid or not service.alive())
    if not stale and supervise.waiting(spare) and supervise.hand_over(spare, message, plan, sandbox_tmp):
        return spare
    supervise.discard(spare, plan)
    return None


def main() -> None:
    # Keep the control pipes away from fds 0/1, so nothing printed by a preloaded module can
    # corrupt the protocol, and children never inherit them.
    ctrl_in, ctrl_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(2, 1)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    config: ZygoteConfig = json.loads(read_message(ctrl_in) or b"{}")
    isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != config.get("server_pid"):
        return  # the server is already gone
    isolation.prctl(PR_SET_CHILD_SUBREAPER, 1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal goes to the server only
    started = time.monotonic()
    try:
        serve(ctrl_in, ctrl_out, config)
    except Exception as e:  # noqa: BLE001
        log.exception("slot %s: zygote failed after %.1f s", config.get("slot"), time.monotonic() - started)
        try:
            write_message(ctrl_out, json.dumps({"fatal": f"{type(e).__name__}: {e}"}).encode())
        except OSError:
            pass
        sys.exit(1)


if __name__ == "__main__":
    main()
