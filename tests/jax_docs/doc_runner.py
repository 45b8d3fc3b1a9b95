"""Run one documentation page's cells in order in one namespace, as a notebook would.

    python doc_runner.py {jax,engine} CELLS.json OUT.json

``CELLS.json`` is ``{"cells": [source, ...], "skip": [reason or null, ...]}``; ``OUT.json`` gets one
outcome per cell: what it printed, the repr of its last expression (as IPython displays it), and
the class and first line of the exception it raised. ``engine`` makes ``import jax`` resolve to
this project's engine; ``jax`` is meant for the reference venv (JAX 0.10.2).
"""

from __future__ import annotations

import ast
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
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


def _install_plot_stand_in():
    for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.cm", "matplotlib.colors"):
        sys.modules[name] = MatplotlibStandIn(name)


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


def run_script(script: str, backend: str, python: str, spec: dict | list, timeout: float):
    """``python script backend spec.json out.json`` in a temporary directory; what it wrote."""
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env["JAXPLAY_DEVICE_COUNT"] = "1"  # JAX on a CPU host has one device unless XLA_FLAGS asks
    # Not the default ~/.cache/jaxplay-engine: concurrent server zygotes delete the kernel files
    # they did not vouch for there (as in tests/test_example_libraries.py).
    env["ENGINE_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "jaxplay-test-kernels")
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


def main(backend: str, cells_path: str, out_path: str):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    if backend == "engine":
        sys.path.insert(0, str(ROOT))
        from engine import compat

        compat.install()
    _install_plot_stand_in()
    warnings.simplefilter("ignore")
    spec = json.loads(pathlib.Path(cells_path).read_text())
    outcomes = run_page(spec["cells"], spec["skip"])
    pathlib.Path(out_path).write_text(json.dumps(outcomes))


if __name__ == "__main__":
    main(*sys.argv[1:4])
