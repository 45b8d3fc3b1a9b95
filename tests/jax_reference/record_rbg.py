"""Record JAX 0.10.2's ``rbg``/``unsafe_rbg`` keys and ``lax.rng_bit_generator`` bits on CPU into
``rbg.json`` (run with JAX's venv); ``tests/test_prng_rbg.py`` checks engine.prng_rbg against it.

    /work/main/.jax-venv/bin/python tests/jax_reference/record_rbg.py
"""

import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

KEYS = [[1, 2, 3, 4], [0, 0, 0, 0], [5, 6, 0xFFFFFFFE, 0xFFFFFFFF], [0xFFFFFFFF, 9, 0xFFFFFFFF, 0xFFFFFFFF]]
KEYS.append([123, 456, 789, 10])
SHAPES = (("uint32", (5,)), ("uint8", (3, 2)), ("uint16", (7,)), ("uint32", (2, 3, 2)), ("uint32", (0,)))


def main():
    out = {"bit_generator": [], "impls": []}
    for k in KEYS:
        for dt, shape in SHAPES:
            nk, b = lax.rng_bit_generator(jnp.array(k, jnp.uint32), shape, dtype=dt)
            out["bit_generator"].append([k, dt, shape, np.asarray(nk).tolist(), np.asarray(b).tolist()])
    for impl in ("rbg", "unsafe_rbg"):
        for s in (0, 1, 42, -7):
            key = jax.random.key(s, impl=impl)
            d = {"impl": impl, "seed": s}
            d["key"] = np.asarray(jax.random.key_data(key)).tolist()
            d["split"] = np.asarray(jax.random.key_data(jax.random.split(key, 3))).tolist()
            d["split_shape"] = np.asarray(jax.random.key_data(jax.random.split(key, (2, 2)))).tolist()
            d["fold_in"] = np.asarray(jax.random.key_data(jax.random.fold_in(key, 17))).tolist()
            d["bits32"] = np.asarray(jax.random.bits(key, (6,))).tolist()
            d["bits8"] = np.asarray(jax.random.bits(key, (5,), jnp.uint8)).tolist()
            d["bits16"] = np.asarray(jax.random.bits(key, (2, 3), jnp.uint16)).tolist()
            d["uniform"] = np.asarray(jax.random.uniform(key, (3,))).tolist()
            out["impls"].append(d)
    path = pathlib.Path(__file__).resolve().parent / "rbg.json"
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
