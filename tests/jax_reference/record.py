"""Record JAX 0.10.2's answers to the snippets in ``snippets.py`` (run with JAX's venv).

    /work/main/.jax-venv/bin/python tests/jax_reference/record.py [topic ...]

Each snippet is Python that sets ``out`` using ``jax``, ``jnp``, ``lax``, ``np`` (and ``jsp`` for
``jax.scipy``); the recorded JSON holds each result (dtype, shape, values, weak_type), or the
class name of the exception JAX raised. ``tests/test_jax_reference.py`` replays the same text
on the engine, so the tests never need JAX.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from snippets import SNIPPETS  # noqa: E402

# Topics whose snippets use several devices (meshes, shards): recorded on 8 CPU devices, as many as
# the engine has, in a run of their own (XLA's device count is fixed when JAX starts).
EIGHT_DEVICE_TOPICS = frozenset(
    {
        "api_misc",
        "pswapaxes",
        "committed",
        "array_methods",
        "ordered_effects",
        "default_device",
        "pmap_compiled",
        "shard_map_grads",
        "explicit_fuzz",
        "sharded_indexing",
        "mesh_context",
    }
)


def devices_for(topics: list[str]) -> list[str]:
    """The topics to record in this run: 8-device ones only when named alone (setting XLA_FLAGS
    before JAX is imported); a run of every topic leaves them out."""
    named = set(topics)
    if named & EIGHT_DEVICE_TOPICS:
        if not named <= EIGHT_DEVICE_TOPICS:
            sys.exit(f"record {sorted(named & EIGHT_DEVICE_TOPICS)} in a run of their own (8 devices)")
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
        return topics
    left_out = EIGHT_DEVICE_TOPICS & set(SNIPPETS)
    if left_out:
        print(f"not recorded here (8 devices; name them alone): {sorted(left_out)}")
    return [t for t in topics if t not in EIGHT_DEVICE_TOPICS]


def encode(x):
    if isinstance(x, (list, tuple)):
        return {"tuple" if isinstance(x, tuple) else "list": [encode(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": {str(k): encode(v) for k, v in x.items()}}
    if isinstance(x, (bool, str)) or x is None:
        return {"py": x}
    a = np.asarray(x)
    if a.dtype.kind == "V" or str(a.dtype).startswith("key"):
        return {"opaque": str(x)}
    rec = {"dtype": a.dtype.name, "shape": list(a.shape), "weak_type": bool(getattr(x, "weak_type", False))}
    if a.dtype.kind == "c":
        rec["re"], rec["im"] = a.real.astype(np.float64).tolist(), a.imag.astype(np.float64).tolist()
    elif a.dtype.kind == "f":
        rec["values"] = [repr(v) for v in a.astype(np.float64).ravel().tolist()]
    else:
        rec["values"] = a.tolist()
    return rec


def run(code: str, ns: dict):
    env = dict(ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, env)
    return env["out"]


def main():
    topics = devices_for(sys.argv[1:] or list(SNIPPETS))  # re-record only the named topics
    import jax
    import jax.numpy as jnp
    import jax.scipy as jsp
    from jax import lax

    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "jsp": jsp}
    for topic, cases in SNIPPETS.items():
        if topic not in topics:
            continue
        recorded = {}
        for name, code, *_ in cases:
            try:
                recorded[name] = {"value": encode(run(code, ns))}
            except Exception as e:  # the error class is part of the expected behaviour
                recorded[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0][:300]}
        (HERE / f"{topic}.json").write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        print(f"{topic}: {len(recorded)} snippets")


if __name__ == "__main__":
    main()
