"""Run docstring examples as JAX's doctests run them, and say what each printed or raised.

    python docstring_runner.py {jax,engine} SPEC.json OUT.json

``SPEC.json`` is ``[{"name": ..., "examples": [source, ...], "skip": [reason or null, ...]}, ...]``:
one entry per docstring, whose examples run in order in a fresh namespace holding what JAX's
``conftest.py`` gives its doctests (``jax``, ``lax``, ``jnp``, ``np``). Each example is compiled in
``single`` mode, as ``doctest`` compiles it, so an expression statement prints its repr.
``OUT.json`` gets, per docstring, one outcome per example: ``{"out": text printed, "error": class
name or null, "message": the error's first line}`` (null for a skipped example). ``engine`` makes ``import jax`` the engine.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import signal
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The engine's examples are timed out so one hang cannot stall the suite; record.py gives JAX longer
# (one nested-derivative example takes over 30 s there on a loaded machine).
EXAMPLE_TIMEOUT_S = int(os.environ.get("JAXPLAY_EXAMPLE_TIMEOUT_S", "30"))


class ExampleTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise ExampleTimeout(f"example ran longer than {EXAMPLE_TIMEOUT_S}s")


def _namespace() -> dict:
    import numpy

    import jax

    return {"__name__": "__main__", "jax": jax, "lax": jax.lax, "jnp": jax.numpy, "np": numpy}


def run_example(source: str, ns: dict) -> dict:
    out = io.StringIO()
    saved_out, saved_hook = sys.stdout, sys.displayhook
    sys.stdout, sys.displayhook = out, sys.__displayhook__
    error = message = None
    signal.alarm(EXAMPLE_TIMEOUT_S)
    try:
        exec(compile(source, "<doctest>", "single"), ns)
        barrier = getattr(sys.modules.get("jax"), "effects_barrier", None)
        if barrier is not None:
            barrier()
    except BaseException as e:  # noqa: BLE001  (the error class is part of the outcome)
        if isinstance(e, KeyboardInterrupt):
            raise
        error = type(e).__name__
        message = (str(e).strip().split("\n") or [""])[0][:300]
    finally:
        signal.alarm(0)
        sys.stdout, sys.displayhook = saved_out, saved_hook
    return {"out": out.getvalue(), "error": error, "message": message}


def _reset_global_state(printoptions: dict):
    """Undo what one docstring's examples may have switched on for the next ones."""
    import numpy

    import jax

    numpy.set_printoptions(**printoptions)
    for flag in ("jax_enable_x64", "jax_debug_nans", "jax_debug_infs"):
        try:
            if getattr(jax.config, flag, False):
                jax.config.update(flag, False)
        except Exception:  # noqa: BLE001  (a flag the backend does not know)
            pass


def run_docstrings(spec: list) -> list:
    import numpy

    printoptions = numpy.get_printoptions()
    results = []
    for entry in spec:
        ns = _namespace()
        results.append(
            [None if skip else run_example(src, ns) for src, skip in zip(entry["examples"], entry["skip"])]
        )
        _reset_global_state(printoptions)
    return results


def run_in_subprocess(backend: str, python: str, spec: list, timeout=1800) -> list:
    """Run ``spec``'s docstrings in a fresh process of ``python`` (the reference venv's, or the
    engine's)."""
    sys.path.insert(0, str(ROOT / "tests" / "jax_docs"))
    try:
        from doc_runner import run_script
    finally:
        sys.path.pop(0)
    return run_script(__file__, backend, python, spec, timeout)


def main(backend: str, spec_path: str, out_path: str):
    if backend == "engine":
        sys.path.insert(0, str(ROOT))
        from engine import compat

        compat.install()
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    spec = json.loads(pathlib.Path(spec_path).read_text())
    pathlib.Path(out_path).write_text(json.dumps(run_docstrings(spec)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
