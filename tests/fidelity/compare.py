"""Run the fidelity corpus on the engine and compare its ``make_jaxpr`` texts with JAX's.

    python -m tests.fidelity.compare [NAME ...]     # prints each difference, then the summary

Texts are compared after alpha-renaming: variables are renamed in order of first appearance, so
two texts that differ only in which letters name the variables compare equal.
"""

from __future__ import annotations

import difflib
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent

# Programs whose text differs from JAX's on purpose, with the reason. Everything else that differs
# counts against the identical fraction (tests/test_fidelity.py prints the list).
INTENDED_DIFFERENCES: dict[str, str] = {}

_BINDER = re.compile(r"(?<![\w=.])([a-z]+):(?=[a-z0-9]+[\[<])")
_TOKEN = re.compile(r"(?<![\w=.<\-])([a-z]+)(?![\w\[=(<])")


def alpha_rename(text: str) -> str:
    """Rename the variables of a printed jaxpr to v0, v1, ... in order of first appearance."""
    binders = set(_BINDER.findall(text))
    names: dict[str, str] = {}

    def sub(m):
        name = m.group(1)
        if name not in binders:
            return name
        if name not in names:
            names[name] = f"v{len(names)}"
        return names[name]

    return _TOKEN.sub(sub, text)


def expected() -> dict:
    return json.loads((HERE / "expected.json").read_text())["programs"]


def engine_text(build) -> str:
    import engine
    import engine.numpy as jnp
    from engine import lax, nn
    from engine import random

    from . import programs

    programs.bind(engine, jnp, lax, random, nn)
    f, args = build()
    return str(engine.make_jaxpr(f)(*args))


def run(names=None) -> dict:
    """name -> (status, expected text, engine text); status is 'same' or 'differs'."""
    from . import programs

    want = expected()
    results = {}
    for name, build in programs.PROGRAMS.items():
        if names and name not in names:
            continue
        exp = want[name].get("jaxpr", want[name].get("error"))
        try:
            got = engine_text(build)
        except Exception as e:
            got = f"engine error: {type(e).__name__}: {e}"
        same = alpha_rename(got) == alpha_rename(exp)
        results[name] = ("same" if same else "differs", exp, got)
    return results


def main(argv) -> None:
    results = run(argv or None)
    for name, (status, exp, got) in results.items():
        if status != "same":
            print(f"=== {name}")
            diff = difflib.unified_diff(exp.splitlines(), got.splitlines(), "jax", "engine", lineterm="", n=1)
            print("\n".join(list(diff)[2:]))
    same = sum(s == "same" for s, _, _ in results.values())
    print(f"identical: {same}/{len(results)} = {same / max(len(results), 1):.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
