"""Record the HLO texts JAX 0.10.2 prints (``jax.jit(f).lower(*args).as_text("hlo")``) for the
fidelity corpus's programs, the StableHLO corpus's and this corpus's own (``programs.py``) into
``expected.json``.

Run with JAX's venv (tests never need JAX; they read ``expected.json``):

    /work/main/.jax-venv/bin/python tests/hlo_text/record.py

A program JAX cannot lower is recorded with its error and left out of the score.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax, nn, random  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from tests.fidelity import programs as fidelity_programs  # noqa: E402
from tests.hlo_text import programs  # noqa: E402
from tests.stablehlo import programs as stablehlo_programs  # noqa: E402


def main() -> None:
    assert jax.__version__ == "0.10.2", jax.__version__
    for module in (fidelity_programs, stablehlo_programs, programs):
        module.bind(jax, jnp, lax, random, nn)
    expected = {}
    every = {**fidelity_programs.PROGRAMS, **stablehlo_programs.PROGRAMS, **programs.PROGRAMS}
    for name, build in every.items():
        try:
            f, args = build()
            expected[name] = {"text": jax.jit(f).lower(*args).as_text("hlo")}
        except Exception as e:  # recorded, not hidden: the test leaves these out
            expected[name] = {"error": f"{type(e).__name__}: {e}"[:300]}
    out = HERE / "expected.json"
    out.write_text(json.dumps({"jax_version": jax.__version__, "programs": expected}, indent=1) + "\n")
    errors = [n for n, v in expected.items() if "error" in v]
    print(f"{len(expected)} programs recorded to {out}; JAX cannot lower {len(errors)}: {errors}")


if __name__ == "__main__":
    main()
