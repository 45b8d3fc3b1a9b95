"""Record the expected ``make_jaxpr`` texts of the fidelity corpus from JAX 0.10.2.

Run with JAX's venv (tests never need JAX; they read ``expected.json``):

    /work/main/.jax-venv/bin/python tests/fidelity/record.py

A program JAX itself rejects is recorded with its error, so the corpus stays honest.
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
sys.path.insert(0, str(HERE))
import programs  # noqa: E402


def main() -> None:
    assert jax.__version__ == "0.10.2", jax.__version__
    jax.config.update("jax_pprint_use_color", False)
    programs.bind(jax, jnp, lax, random, nn)
    expected = {}
    for name, build in programs.PROGRAMS.items():
        try:
            f, args = build()
            expected[name] = {"jaxpr": str(jax.make_jaxpr(f)(*args))}
        except Exception as e:  # recorded, not hidden: the test reports these
            expected[name] = {"error": f"{type(e).__name__}: {e}"[:300]}
    out = HERE / "expected.json"
    out.write_text(json.dumps({"jax_version": jax.__version__, "programs": expected}, indent=1) + "\n")
    errors = [n for n, v in expected.items() if "error" in v]
    print(f"{len(expected)} programs recorded to {out}; JAX rejects {len(errors)}: {errors}")


if __name__ == "__main__":
    main()
