"""Record JAX 0.10.2's float32 convolutions of ``conv_sweep_cases.CASES`` and their gradients
(run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_conv_sweep.py

Writes the sha256 of each result's bits (forward, both gradients: all under jit, as JAX's eager
calls are) to ``conv_sweep.json``; ``tests/test_conv_sweep.py`` replays them on the engine.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import jax
import numpy as np
from jax import lax

from conv_sweep_cases import CASES, data


def digest(x) -> str:
    return hashlib.sha256(np.ascontiguousarray(np.asarray(x, np.float32)).tobytes()).hexdigest()[:16]


def main():
    out = {}
    for index, (name, _, _, kw) in enumerate(CASES):
        lhs, rhs, rng = data(index)
        f = lambda a, b, kw=kw: lax.conv_general_dilated(a, b, **kw)  # noqa: E731
        y = np.asarray(jax.jit(f)(lhs, rhs))
        cot = rng.standard_normal(y.shape).astype(np.float32)
        gl, gr = jax.jit(jax.grad(lambda a, b: (f(a, b) * cot).sum(), argnums=(0, 1)))(lhs, rhs)
        out[name] = {"out": digest(y), "grad_lhs": digest(gl), "grad_rhs": digest(gr)}
    path = pathlib.Path(__file__).resolve().parent / "conv_sweep.json"
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"{len(out)} convolutions -> {path}")


if __name__ == "__main__":
    main()
