"""One compile of the kernel compile service (``kernel_service``), in a forked child isolated like
a run: validate a run's program (``jaxpr_wire`` data), generate its kernel module, compile it with
numba in a scratch directory of its own, and send the module's numba cache files back to the
service, which alone writes the store.

The child is treated as possibly compromised (the program comes from a run): it gets a run's
isolation (``isolation.isolate``: namespaces and a read-only view with the server's files hidden
in "root" mode, rlimits, the seccomp filter) under a uid of its own (``compile_uid``: neither
the server's nor any slot's) in "root" and "uid" modes, and an empty scratch directory no
earlier compile could write. What it answers is only data: the service stores it under the
request's own hash (``kernel_store``), so a compile can only fill the entry of the program it
was given.
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import json
import os
import signal
import stat
from typing import Any, Optional

from . import child, isolation, seccomp, slot

COMPILE_SECONDS = 30.0  # one compile (its child is killed after this, CPU or wall)
COMPILE_MEMORY = 1 << 30  # memory (rlimits, and its private /dev/shm) of one compile
SCRATCH_BYTES = 256 << 20  # its private /tmp (root mode)
MAX_ANSWER = 32 << 20  # bytes of one compile's answer (numba's files, base64 in JSON)
COMPILE_UID_OFFSET = 1000  # slot i's compile children run as slot_uid_base + 1000 + i


def compile_uid(slot_uid_base: int, slot_index: int) -> int:
    return slot_uid_base + COMPILE_UID_OFFSET + slot_index


def compile_plan(
    plan: isolation.Plan, ids: Optional[tuple[int, int]], guarded: tuple[int, ...]
) -> isolation.Plan:
    """A run's ``plan`` turned into the compile children's: their own ``ids`` (None: the
    server's, in "unsafe-single-user"), the compile's limits, and a filter that also keeps the
    ``guarded`` processes (the service) out of their reach."""
    uid, gid = ids if ids is not None else (None, None)
    protected = (*plan.protected_pids, *guarded)
    return dataclasses.replace(
        plan,
        uid=uid,
        gid=gid,
        protected_pids=protected,
        filter_template=seccomp.FilterTemplate(protected) if plan.use_seccomp else None,
        helper=None,
        memory_bytes=COMPILE_MEMORY,
        cpu_seconds=int(COMPILE_SECONDS),
        process_limit=16,
        tmp_bytes=SCRATCH_BYTES,
        nice=5,
    )


# --- what the child checks and compiles -----------------------------------------------------------

_IMPORTS = {"numpy", "numba", "engine.backends", "engine.backends.numba_runtime"}


def check_module(source: str) -> None:
    """Raise unless the module's top level (what importing it runs) is only the generator's own
    imports, ``NAME = "..."``, kernels decorated with ``nb.njit(<types>)`` and ``build``."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Import):
            ok = all(a.name in _IMPORTS for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            ok = node.module in _IMPORTS and node.level == 0
        elif isinstance(node, ast.Assign):
            ok = (
                len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "NAME"
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
        elif isinstance(node, ast.FunctionDef):
            a = node.args
            ok = not (a.defaults or a.kw_defaults or node.returns) and all(
                _plain_decorator(d) for d in node.decorator_list
            )
            ok = ok and (node.name == "build") == (not node.decorator_list)
        else:
            ok = False
        if not ok:
            raise ValueError(
                f"unexpected statement at line {getattr(node, 'lineno', '?')} of a generated module"
            )


def _plain_decorator(d: ast.expr) -> bool:
    """``nb.njit(<type>, **_KW)``: types are ``nb.<name>`` or calls of ``nb.<name>``, ``A``, ``R``,
    ``RA`` on types and int constants (no deeper attribute chains: those could reach any module)."""

    def plain_type(n: ast.expr) -> bool:
        if isinstance(n, ast.Constant):
            return type(n.value) is int
        if isinstance(n, ast.Attribute):
            return isinstance(n.value, ast.Name) and n.value.id == "nb" and not n.attr.startswith("_")
        if isinstance(n, ast.Call):
            callee_ok = (isinstance(n.func, ast.Name) and n.func.id in ("A", "R", "RA")) or plain_type(n.func)
            return callee_ok and not n.keywords and all(plain_type(a) for a in n.args)
        return False

    if not (isinstance(d, ast.Call) and ast.unparse(d.func) == "nb.njit"):
        return False
    kw_ok = all(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == "_KW" for k in d.keywords)
    return kw_ok and all(plain_type(a) for a in d.args)


def compile_request(request: Any, cache: str) -> dict[str, Any]:
    """Validate ``request`` (``jaxpr_wire`` data), generate and compile its modules in ``cache``;
    ``{"keys": [module key, ...], "modules": {key: {numba file name: base64 data}}}``. Raises on
    anything invalid."""
    from engine.backends import jaxpr_wire
    from engine.backends.numba_cache import numba_cache_dir
    from engine.backends.numba_jit import NumbaBackend, module_key

    program = jaxpr_wire.decode(request)
    _typecheck(program.closed.jaxpr)
    os.environ["ENGINE_CACHE_DIR"] = cache
    keys: list[str] = []

    class Checked(NumbaBackend):
        share_kernels = False  # (the run loads these files beside its own module: kernels inline)

        def _load(self, source: str, program: Any = None) -> Any:
            check_module(source)
            out = super()._load(source)
            keys.append(module_key(source))
            return out

    Checked().compile(program.closed, program.name, program.layouts)
    modules: dict[str, dict[str, str]] = {}
    for key in keys:
        where = numba_cache_dir(os.path.join(cache, f"engine_{key}.py")) or cache
        files = {}
        for name in os.listdir(where) if os.path.isdir(where) else ():
            if name.startswith(f"engine_{key}.") and name.endswith((".nbi", ".nbc")):
                with open(os.path.join(where, name), "rb") as f:
                    files[name] = base64.b64encode(f.read()).decode()
        modules[key] = files
    return {"keys": keys, "modules": modules}


def _helpers_read_only() -> None:
    """The engine's numba helpers (``cache=True``) keep the cache directory the zygote chose for
    them, which this compile may read (as runs do) but not write; it need not: a kernel's own
    cache files hold the helpers it calls. numba then takes its directory for the new module
    from the environment ``isolate`` set."""
    from numba.core import caching, config, registry

    from engine.backends import numba_math, numba_rt, numba_runtime

    config.reload_config()  # type: ignore[no-untyped-call]
    for module in (numba_rt, numba_math, numba_runtime):
        for value in vars(module).values():
            cache = getattr(value, "_cache", None)
            if isinstance(value, registry.CPUDispatcher) and isinstance(cache, caching.FunctionCache):
                cache.save_overload = _not_saved  # type: ignore[method-assign]


def _not_saved(sig: Any, data: Any) -> None:
    pass


def _typecheck(jaxpr: Any) -> None:
    from engine import ir

    ir.typecheck_jaxpr(jaxpr)
    for eqn in jaxpr.eqns:
        for sub in ir.subjaxprs(eqn):
            _typecheck(sub)


# --- the child ------------------------------------------------------------------------------------


def _empty_leftovers(scratch_parent: Optional[str], own: str) -> None:
    """As the compile uid without a private /tmp: remove what earlier compiles of this uid left
    (a killed one, or one that went astray) in the shared scratch directories and in their own
    scratch directories, so that nothing of theirs reaches this compile."""
    slot.sweep(None)
    if scratch_parent:
        for path, st in slot.owned_entries(os.geteuid(), scratch_parent):
            if path != own and stat.S_ISDIR(st.st_mode):
                os.chmod(path, 0o700)
                slot.empty(path)


def start(
    request: Any, plan: isolation.Plan, workdir: Optional[str], scratch_parent: Optional[str]
) -> tuple[int, int]:
    """Fork a child that isolates itself with ``plan`` (``compile_plan``) and runs
    ``compile_request``; (its pid, the pipe its answer comes on). ``workdir`` is its scratch
    directory where it has no private /tmp (made by the service, owned by the compile uid)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            os.setsid()
            isolation.prctl(isolation.PR_SET_PDEATHSIG, signal.SIGKILL)
            # Nothing of the service's (runs' connections, its control socket) stays open here.
            keep = sorted({w, *plan.keep_fds})
            low = 3
            for fd in keep:
                os.closerange(low, fd)
                low = fd + 1
            os.closerange(low, os.sysconf("SC_OPEN_MAX"))
            answer: dict[str, Any]
            try:
                # (the service is not dumpable, and so not the owner of its /proc files: a user
                # namespace could not be mapped)
                isolation.prctl(isolation.PR_SET_DUMPABLE, 1)
                isolation.isolate(plan, workdir)
                isolation.prctl(isolation.PR_SET_DUMPABLE, 0)
                child._clean_import_path()
                _helpers_read_only()
                scratch = os.getcwd()
                if plan.slot_ids is not None and not plan.private_tmp:
                    _empty_leftovers(scratch_parent, scratch)
            except Exception as e:  # noqa: BLE001 - reported to the run, logged by the service
                answer = {"error": f"the compile sandbox could not be set up: {type(e).__name__}: {e}"}
            else:
                try:
                    answer = compile_request(request, os.path.join(scratch, "modules"))
                    code = 0
                except Exception as e:  # noqa: BLE001 - a refusal, reported to the run
                    answer = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
                if plan.slot_ids is not None and not plan.private_tmp:
                    slot.sweep(scratch)  # (what is in its scratch directory, and its files elsewhere)
            data = memoryview(json.dumps(answer).encode())
            while data:
                data = data[os.write(w, data) :]
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def end(pid: int, data: bytes) -> dict[str, Any]:
    """Kill and reap a compile child; its answer, or why there is none."""
    for kill in (os.killpg, os.kill):  # (its group, once it has made one; else itself)
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _, status = os.waitpid(pid, 0)
    try:
        answer = json.loads(data) if len(data) <= MAX_ANSWER else None
    except ValueError:
        answer = None
    if type(answer) is not dict or ("keys" not in answer and "error" not in answer):
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        why = "an answer over the size limit" if len(data) > MAX_ANSWER else "no answer"
        answer = {"error": f"the compile stopped ({signal.Signals(sig).name if sig else why})"}
    return answer
