"""Record JAX 0.10.2's answers to ``x64_snippets.py`` with ``jax_enable_x64`` on (JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_x64.py

writes ``x64.json`` (values as ``record.encode`` stores them, or the error JAX raised)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import encode, run  # noqa: E402
from x64_snippets import X64_SNIPPETS  # noqa: E402


def main():
    import jax
    import jax.numpy as jnp

    ns = {"jax": jax, "jnp": jnp, "np": np}
    recorded = {}
    with jax.enable_x64(True):
        for name, code in X64_SNIPPETS:
            try:
                recorded[name] = {"value": encode(run(code, ns))}
            except Exception as e:  # the error class is part of the expected behaviour
                recorded[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0][:300]}
    (HERE / "x64.json").write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"x64: {len(recorded)} snippets")


if __name__ == "__main__":
    main()
