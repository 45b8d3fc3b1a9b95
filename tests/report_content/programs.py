"""Programs whose run reports tests/test_report_content.py pins, and the digest of a report's content.

The content is everything the page shows except what measures time or cache state (timings,
durations, jit cache and tier, kernel launch times), so two builds of one program's report agree.
Each section (a stage's text, graph, cost and StableHLO; the debugger's steps; the jit source and
kernel map; the result and output) is digested on its own, so a difference names its section.
Lines of engine files (and of this harness) in source infos and tracebacks are left out.

    python -m tests.report_content.programs record   # writes expected.json

A change that only makes reports cheaper must pass as recorded. A change meant to alter what the
page shows (a jaxpr printed as JAX prints it, a new graph field) records again, and its commit
says which sections changed and why.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected.json")

_IMPORTS = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n"

EXTRA = {
    "cond and scan under grad": {
        "code": _IMPORTS + "def f(x):\n    y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)\n"
        "    c, ys = lax.scan(lambda c, v: (c * v, c + v), 1.0, y)\n    return c + ys.sum()\n",
        "function": "f",
        "stack": [{"name": "grad"}, {"name": "jit"}],
        "args": ["jnp.arange(3.0)"],
    },
    "inner jit under vmap": {
        "code": _IMPORTS + "@jax.jit\ndef g(x):\n    return jnp.tanh(x) * 2.0\n"
        "def f(x, y):\n    return g(x) @ y\n",
        "function": "f",
        "stack": [{"name": "vmap", "options": {"in_axes": "(0, None)"}}, {"name": "jit"}, {"name": "grad"}],
        "args": ["jnp.ones((2, 3))", "jnp.ones(3)"],
    },
    "python control flow (path taken)": {
        "code": _IMPORTS + "def f(x):\n    if x > 0:\n        return x * x\n    return -x\n",
        "function": "f",
        "stack": [{"name": "grad"}],
        "args": ["2.0"],
    },
    "script with prints": {
        "code": _IMPORTS + "def f(x):\n    jax.debug.print('x={x}', x=x)\n    return jnp.sum(x ** 3)\n"
        "print(jax.grad(f)(jnp.ones(3)))\nprint(jax.jit(jax.vmap(f))(jnp.ones((2, 3))))\n",
        "function": None,
        "stack": [],
        "args": [],
    },
    "failing layer": {
        "code": _IMPORTS + "def f(x):\n    return x.sum()\n",
        "function": "f",
        "stack": [{"name": "vmap"}, {"name": "grad"}],
        "args": ["jnp.ones(3)"],
    },
}


def programs() -> dict[str, dict]:
    from bench.bench_run_path import programs as page_programs

    return {**page_programs(), **EXTRA}


_VOLATILE = {
    "timings",
    "duration_ms",
    "start_ms",
    "launches",
    "measured_ms",
    "total_ms",
    "compute_ms",
    "collective_wait_ms",
    "exchange_ms",
    "device_ms",
    "waits_ms",
    "compiled_ready_ms",
    "cache",
    "tier",
}


def _strip(x):
    if isinstance(x, dict):
        if x.get("file") not in (None, "<user>"):  # (a line of the engine or this harness: no content)
            x = {**x, "file": os.path.basename(x["file"]), "line": None, "text": None}
        return {k: _strip(v) for k, v in x.items() if k not in _VOLATILE}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def digest(x) -> str:
    return hashlib.sha256(json.dumps(x, sort_keys=True).encode()).hexdigest()[:16]


def contents(report) -> dict[str, object]:
    """Section name -> its content (what ``sections`` digests), for one report."""
    data = _strip(json.loads(report.model_dump_json()))
    calls = data.pop("calls")
    out: dict[str, object] = {"report": data}
    for c in calls:
        for s in c.pop("stages"):
            for key in ("text", "graph", "cost", "stablehlo"):
                out[f"call {c['id']} stage {s['name']} {key}"] = s.pop(key)
            out[f"call {c['id']} stage {s['name']}"] = s
        out[f"call {c['id']} debug"] = c.pop("debug")
        jit = c.pop("jit") or {}
        out[f"call {c['id']} jit source"] = jit.pop("source", None)
        out[f"call {c['id']} jit"] = jit
        out[f"call {c['id']}"] = c
    return out


def sections(report) -> dict[str, str]:
    """Section name -> digest of its content, for one report."""
    return {name: digest(x) for name, x in contents(report).items()}


def build(request: dict):
    """The report of ``request``'s second Run (as the page's second Run: the first ran its kernels)."""
    from engine.inspect import run_request
    from engine.inspect.schema import RunRequest

    req = RunRequest(**request)
    run_request(req)
    return run_request(req)


if __name__ == "__main__" and sys.argv[1:] == ["record"]:
    # (at module level: the engine names the functions of this file that called ``build`` as
    # callers in the source lines of what it stages there, and a test calls it from none)
    _out = {name: sections(build(req)) for name, req in programs().items()}
    with open(EXPECTED, "w") as _f:
        json.dump(_out, _f, indent=1, sort_keys=True)
        _f.write("\n")
