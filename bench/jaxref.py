"""JAX 0.10.2 beside the engine: a worker process in the side venv (``.jax-venv``, git-ignored,
``make bench`` creates it) that builds named cases with the real JAX and times them on request.

The engine's benchmarks drive it in alternation with their own timings (``alternate``): each round
times every case on the engine, then on JAX, so a burst of load from elsewhere on the shared
machine hits both sides alike, and the ratios printed are from one run.

    ref = JaxRef.start()            # None when the side venv is missing
    ref.build("tanh", "bench.cases", "eager_tanh_grad")
    samples = ref.time("tanh", seconds=0.1)

Worker side (``python -m bench.jaxref`` under ``.jax-venv/bin/python``): one JSON request a line
on stdin, one ``JSON {...}`` line per reply on stdout (JAX's own chatter goes to stderr).
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import subprocess
import sys

from bench.timing import run_batched, run_for  # the one timing helper of every bench

ROOT = pathlib.Path(__file__).resolve().parent.parent
JAX_PYTHON = ROOT / ".jax-venv" / "bin" / "python"
DEVICES = 8  # pmap rows run over 8 host devices on both sides


class JaxRef:
    """The JAX worker process, seen from the engine's side."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc

    @classmethod
    def start(cls) -> "JaxRef | None":
        if not JAX_PYTHON.exists():
            return None
        env = dict(os.environ)
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
        env["PYTHONPATH"] = str(ROOT)
        env.pop("ENGINE_CACHE_DIR", None)
        proc = subprocess.Popen(
            [str(JAX_PYTHON), "-m", "bench.jaxref"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        ref = cls(proc)
        try:
            ref.version = ref._ask({"op": "version"})["version"]
        except RuntimeError:
            ref.close()
            return None
        return ref

    def _ask(self, request: dict) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the JAX worker exited")
            if line.startswith("JSON "):
                reply = json.loads(line[5:])
                if "error" in reply:
                    raise RuntimeError(f"JAX worker: {reply['error']}")
                return reply

    def build(self, key: str, module: str, factory: str, **kwargs) -> None:
        """``module.factory(jax, **kwargs)`` in the worker makes the callable timed as ``key``."""
        self._ask({"op": "build", "key": key, "module": module, "factory": factory, "kwargs": kwargs})

    def time(self, key: str, seconds: float, number: int = 1) -> list[float]:
        return self._ask({"op": "time", "key": key, "seconds": seconds, "number": number})["samples"]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def alternate(cases: dict, ref: JaxRef | None, rounds: int) -> dict:
    """``cases``: name -> (engine callable, jax key or None, calls per timed batch, seconds per
    slice). Returns name -> (engine samples, jax samples or None); each round times every case on
    the engine, then on JAX."""
    out = {name: ([], [] if (ref and case[1]) else None) for name, case in cases.items()}
    for _ in range(rounds):
        for name, (fn, key, number, seconds) in cases.items():
            eng, jx = out[name]
            eng += run_batched(fn, seconds, number) if number > 1 else run_for(fn, seconds)
            if jx is not None:
                jx += ref.time(key, seconds, number)
    return out


def _serve() -> None:
    import jax

    built: dict = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "version":
                reply = {"version": jax.__version__}
            elif req["op"] == "build":
                factory = getattr(importlib.import_module(req["module"]), req["factory"])
                built[req["key"]] = fn = factory(jax, **req["kwargs"])
                fn()  # warm, as the engine's side is
                reply = {}
            else:
                fn, number = built[req["key"]], req["number"]
                samples = (
                    run_batched(fn, req["seconds"], number) if number > 1 else run_for(fn, req["seconds"])
                )
                reply = {"samples": samples}
        except Exception as e:  # noqa: BLE001 - reported to the engine's side, which raises it
            reply = {"error": f"{type(e).__name__}: {e}"}
        print("JSON " + json.dumps(reply), flush=True)


if __name__ == "__main__":
    _serve()
