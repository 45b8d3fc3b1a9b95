"""Run one documentation page's cells in order in one namespace, as a notebook would.

    python doc_runner.py {jax,engine} CELLS.json OUT.json
    python doc_runner.py serve {jax,engine}     # pages in forks of one process (PageRunner)

``CELLS.json`` is ``{"cells": [source, ...], "skip": [reason or null, ...]}``; ``OUT.json`` gets one
outcome per cell: what it printed, the repr of its last expression (as IPython displays it), and
the class and first line of the exception it raised. ``engine`` makes ``import jax`` resolve to
this project's engine; ``jax`` is meant for the reference venv (JAX 0.10.2).
"""

from __future__ import annotations

import ast
import atexit
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import pathlib
import select
import subprocess
import sys
import tempfile
import traceback
import types
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]


class MatplotlibStandIn(types.ModuleType):
    """Stands in for matplotlib: plotting calls do nothing (figures are not compared), so the
    computations in the same cells still run. ``fig, ax = plt.subplots()`` unpacks to two."""

    def __init__(self, name="matplotlib"):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return MatplotlibStandIn(f"{self.__name__}.{name}")

    def __call__(self, *args, **kwargs):
        return MatplotlibStandIn(self.__name__)

    def __getitem__(self, key):
        return MatplotlibStandIn(self.__name__)

    def __iter__(self):
        return iter((MatplotlibStandIn(self.__name__), MatplotlibStandIn(self.__name__)))


class _PlotModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every ``matplotlib.*`` module as a stand-in, so libraries that draw with it (networkx
    imports ``matplotlib.collections``, ``matplotlib.patches``...) run their non-drawing code."""

    def find_spec(self, fullname, path, target=None):
        if fullname == "matplotlib" or fullname.startswith("matplotlib."):
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        return MatplotlibStandIn(spec.name)

    def exec_module(self, module):
        pass


class HTML:
    """``IPython.display.HTML``: a notebook renders the markup, so its repr here is the markup
    itself (the type-promotion page's tables are ``display.HTML(table.to_html())``)."""

    def __init__(self, data=None):
        self.data = data

    def __repr__(self):
        return str(self.data)


def display(*objs, **kwargs):
    """``IPython.display.display``: prints each object's plain-text form, the content a notebook
    shows (rich's jupyter tables, the checkpointing page's jaxprs, are compared this way)."""
    for obj in objs:
        bundle = obj._repr_mimebundle_(None, None) if hasattr(obj, "_repr_mimebundle_") else None
        print(bundle["text/plain"] if bundle and "text/plain" in bundle else repr(obj))


def _install_plot_stand_in():
    sys.meta_path.insert(0, _PlotModules())
    for name in ("IPython", "IPython.display"):
        module = types.ModuleType(name)
        module.HTML, module.display = HTML, display
        sys.modules[name] = module
    sys.modules["IPython"].display = sys.modules["IPython.display"]


def run_cell(source: str, ns: dict) -> dict:
    from doc_cells import without_magics

    source = without_magics(source)
    out = io.StringIO()
    outcome: dict = {"stdout": "", "value": None, "error": None, "message": None}
    saved = sys.stdout
    sys.stdout = out
    try:
        tree = ast.parse(source)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not source.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "<cell>", "exec"), ns)
        if last is not None:
            value = eval(compile(last, "<cell>", "eval"), ns)
            if value is not None:
                outcome["value"] = repr(value)
        barrier = getattr(sys.modules.get("jax"), "effects_barrier", None)
        if barrier is not None:
            barrier()
    except BaseException as e:  # noqa: BLE001  (the error class is part of the expected outcome)
        if isinstance(e, KeyboardInterrupt):
            raise
        outcome["error"] = type(e).__name__
        outcome["message"] = (str(e).strip().split("\n") or [""])[0][:300]
    finally:
        sys.stdout = saved
    outcome["stdout"] = out.getvalue()
    return outcome


def run_page(cells: list[str], skip: list) -> list:
    ns: dict = {"__name__": "__main__"}
    return [None if reason else run_cell(source, ns) for source, reason in zip(cells, skip)]


def run_in_subprocess(backend: str, python: str, sources: list[str], skip: list, timeout=900) -> list:
    """One page in a fresh process of ``python`` (the reference venv's, or the engine's)."""
    return run_script(__file__, backend, python, {"cells": sources, "skip": skip}, timeout)


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAXPLAY_DEVICE_COUNT"] = "1"  # JAX on a CPU host has one device unless XLA_FLAGS asks
    # Not the default ~/.cache/jaxplay-engine: concurrent server zygotes delete the kernel files
    # they did not vouch for there (as in tests/test_example_libraries.py).
    env["ENGINE_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "jaxplay-test-kernels")
    return env


def run_script(script: str, backend: str, python: str, spec: dict | list, timeout: float):
    """``python script backend spec.json out.json`` in a temporary directory; what it wrote."""
    env = _env()
    with tempfile.TemporaryDirectory() as tmp:
        spec_path, out = pathlib.Path(tmp, "spec.json"), pathlib.Path(tmp, "out.json")
        spec_path.write_text(json.dumps(spec))
        subprocess.run(
            [python, str(pathlib.Path(script).resolve()), backend, str(spec_path), str(out)],
            env=env,
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            check=True,
        )
        return json.loads(out.read_text())


class PageRunner:
    """Pages, each in a fork of a process that imported the backend once (``doc_runner.py serve``):
    a page starts from the same freshly imported state as in a process of its own
    (``run_in_subprocess``), without paying the imports (2 s of CPU) again for each of ~100 pages.
    ``width`` such processes run pages side by side: asked for a page, the runner starts the next
    of ``order`` too (``spec(name)`` gives its cells and skips), so a second core works on it while
    the caller checks this one. A page that sets environment variables (XLA_FLAGS, JAX_*: read when
    jax is imported) runs in a process of its own. The test suite's way; the recorders keep a
    process per page."""

    def __init__(self, backend: str, python: str, order: list[str], spec, width: int = 2):
        self.backend, self.python, self.order, self.spec = backend, python, list(order), spec
        self.servers = [
            subprocess.Popen(
                [python, str(pathlib.Path(__file__).resolve()), "serve", backend],
                env=_env(),
                cwd=tempfile.gettempdir(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(width)
        ]
        self.busy: dict[str, tuple[subprocess.Popen, tempfile.TemporaryDirectory]] = {}

    def run(self, name: str, timeout: float = 900) -> list:
        """The outcomes of page ``name``'s cells (its process's failure raises)."""
        if name not in self.busy:
            sources, skip = self.spec(name)
            if _sets_environment(sources):  # read at import: a process of its own, as before
                self._prefetch(name)
                return run_script(
                    __file__, self.backend, self.python, {"cells": sources, "skip": skip}, timeout
                )
            while not self._start(name, sources, skip):
                try:  # (a page started for a test that then failed before asking for it)
                    self._finish(next(iter(self.busy)), timeout)
                except (RuntimeError, ValueError):
                    pass
        self._prefetch(name)
        return self._finish(name, timeout)

    def _prefetch(self, name: str) -> None:
        i = self.order.index(name) if name in self.order else len(self.order)
        if i + 1 < len(self.order) and self.order[i + 1] not in self.busy:
            try:
                sources, skip = self.spec(self.order[i + 1])
                if not _sets_environment(sources):
                    self._start(self.order[i + 1], sources, skip)
            except Exception:  # noqa: BLE001  (its own test will meet the error)
                pass

    def _start(self, name: str, sources: list[str], skip: list) -> bool:
        taken = {id(server) for server, _ in self.busy.values()}
        free = [server for server in self.servers if id(server) not in taken]
        if not free:
            return False
        tmp = tempfile.TemporaryDirectory()
        pathlib.Path(tmp.name, "spec.json").write_text(json.dumps({"cells": sources, "skip": skip}))
        free[0].stdin.write(tmp.name + "\n")
        free[0].stdin.flush()
        self.busy[name] = (free[0], tmp)
        return True

    def _finish(self, name: str, timeout: float) -> list:
        server, tmp = self.busy.pop(name)
        try:
            if not select.select([server.stdout], [], [], timeout)[0]:
                self.close()
                raise TimeoutError(f"page {name} ran longer than {timeout} s")
            status = server.stdout.readline().strip()
            if status != "0":
                raise RuntimeError(
                    f"page {name}'s process failed (wait status {status or 'none: runner died'})"
                )
            return json.loads(pathlib.Path(tmp.name, "out.json").read_text())
        finally:
            tmp.cleanup()

    def close(self) -> None:
        for server in self.servers:
            if server.poll() is None:
                server.stdin.close()
        for server in self.servers:
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _sets_environment(sources: list[str]) -> bool:
    return any("environ" in s or "putenv" in s for s in sources)


def _prepare(backend: str) -> None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    if backend == "engine":
        sys.path.insert(0, str(ROOT))
        from engine import compat

        compat.install()
    _install_plot_stand_in()
    warnings.simplefilter("ignore")


def main(backend: str, cells_path: str, out_path: str):
    _prepare(backend)
    spec = json.loads(pathlib.Path(cells_path).read_text())
    outcomes = run_page(spec["cells"], spec["skip"])
    pathlib.Path(out_path).write_text(json.dumps(outcomes))


def serve(backend: str) -> None:
    """Reads a directory per line (its spec.json: the page), forks, runs the page there into its
    out.json and answers the child's wait status. The replies have the original stdout to
    themselves: what pages write to descriptor 1 goes to stderr, and they read /dev/null."""
    requests, replies = os.fdopen(os.dup(0), "r"), os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(2, 1)
    _prepare(backend)
    import jax  # noqa: F401  (what every page's first cell imports: once, before the forks)
    import jax.numpy  # noqa: F401

    try:  # the kernel compiler, which a page's first jit would import
        importlib.import_module("engine.backends.numba_jit" if backend == "engine" else "jax.lax")
    except ImportError:  # (a run without numba on purpose: pages fall back to the interpreter)
        pass
    for line in requests:
        pid = os.fork()
        if pid == 0:  # the page: never returns into this loop
            code = 1
            try:
                requests.close(), replies.close()
                os.chdir(line.strip())
                spec = json.loads(pathlib.Path("spec.json").read_text())
                outcomes = run_page(spec["cells"], spec["skip"])
                pathlib.Path("out.json").write_text(json.dumps(outcomes))
                code = 0
            except BaseException:  # noqa: BLE001
                traceback.print_exc()
            finally:
                atexit._run_exitfuncs()  # (as at a process's exit: pmap's devices stop)
                sys.stdout.flush(), sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        replies.write(f"{status}\n")
        replies.flush()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        main(*sys.argv[1:4])
