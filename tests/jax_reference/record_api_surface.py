"""Record JAX 0.10.2's public names per module into engine/public_names.json (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_api_surface.py

``tests/test_api_surface.py`` compares the engine's modules (under ``import jax``) with this list;
the engine's ``dir()`` of each module lists only these names (``engine.compat``).
"""

from __future__ import annotations

import importlib
import json
import pathlib
import warnings

HERE = pathlib.Path(__file__).resolve().parent

MODULES = [
    "jax",
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.nn",
    "jax.nn.initializers",
    "jax.random",
    "jax.tree_util",
    "jax.tree",
    "jax.scipy",
    "jax.scipy.special",
    "jax.scipy.stats",
    "jax.scipy.stats.norm",
    "jax.scipy.linalg",
    "jax.scipy.signal",
    "jax.scipy.sparse",
    "jax.scipy.sparse.linalg",
    "jax.scipy.optimize",
    "jax.scipy.fft",
    "jax.scipy.ndimage",
    "jax.scipy.integrate",
    "jax.scipy.interpolate",
    "jax.scipy.cluster",
    "jax.scipy.spatial.transform",
    "jax.image",
    "jax.ops",
    "jax.flatten_util",
    "jax.typing",
    "jax.stages",
    "jax.profiler",
    "jax.errors",
    "jax.dtypes",
    "jax.debug",
    "jax.sharding",
    "jax.custom_derivatives",
    "jax.custom_batching",
    "jax.experimental",
    "jax.experimental.sparse",
    "jax.example_libraries.optimizers",
    "jax.example_libraries.stax",
]


def public_names(module: str) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = importlib.import_module(module)
        return sorted(n for n in dir(mod) if not n.startswith("_"))


if __name__ == "__main__":
    names = {m: public_names(m) for m in MODULES}
    (HERE.parents[1] / "engine" / "public_names.json").write_text(
        json.dumps(names, indent=0, sort_keys=True) + "\n"
    )
    print(f"{sum(map(len, names.values()))} names in {len(names)} modules")
