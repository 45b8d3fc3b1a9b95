"""Run the corpus's programs through the engine's ``jit(f).lower(*args).as_text("hlo")`` and compare
with the HLO texts recorded from JAX 0.10.2 (``expected.json``, by ``record.py``).

    python -m tests.hlo_text.compare [NAME ...]     # prints each difference, then the summary
"""

from __future__ import annotations

import difflib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def expected() -> dict:
    return json.loads((HERE / "expected.json").read_text())["programs"]


def all_programs() -> dict:
    """The fidelity, StableHLO and HLO corpora's programs, by name."""
    from tests.fidelity import programs as fidelity_programs
    from tests.stablehlo import programs as stablehlo_programs

    from . import programs

    return {**fidelity_programs.PROGRAMS, **stablehlo_programs.PROGRAMS, **programs.PROGRAMS}


def engine_text(build) -> str:
    import engine
    import engine.numpy as jnp
    from engine import lax, nn, random

    from tests.fidelity import programs as fidelity_programs
    from tests.stablehlo import programs as stablehlo_programs

    from . import programs

    for module in (fidelity_programs, stablehlo_programs, programs):
        module.bind(engine, jnp, lax, random, nn)
    f, args = build()
    return engine.jit(f).lower(*args).as_text("hlo")


def run(names=None) -> dict:
    """name -> (status, JAX's text, the engine's text or error); status is same / differ / error."""
    want = expected()
    out = {}
    for name, build in all_programs().items():
        if (names and name not in names) or "text" not in want.get(name, {}):
            continue
        try:
            got = engine_text(build)
        except Exception as e:  # reported, not hidden
            out[name] = ("error", want[name]["text"], f"{type(e).__name__}: {e}")
            continue
        out[name] = ("same" if got == want[name]["text"] else "differ", want[name]["text"], got)
    return out


def main(argv: list[str]) -> None:
    results = run(set(argv) or None)
    for name, (status, want, got) in results.items():
        if status == "differ":
            diff = difflib.unified_diff(
                want.splitlines(), got.splitlines(), "jax", "engine", lineterm="", n=1
            )
            print(f"=== {name}\n" + "\n".join(list(diff)[:40]))
        elif status == "error" and (argv or "NotImplementedError" not in got):
            print(f"=== {name}: {got[:300]}")
    same = sum(s == "same" for s, _, _ in results.values())
    errors = sum(s == "error" for s, _, _ in results.values())
    print(f"hlo: {same}/{len(results)} identical; {errors} raise")


if __name__ == "__main__":
    main(sys.argv[1:])
