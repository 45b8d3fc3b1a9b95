"""The names of each primitive's ``eqn.params``, as JAX 0.10.2's jaxprs carry them: code written
against JAX's jaxprs (a custom interpreter reading ``eqn.params``, ``eqn.primitive.bind(*vals,
**eqn.params)``) needs the same keys, JAX's defaults included, whatever the printed text hides.

Recorded from JAX over the fidelity corpus and the sweep (tests never need JAX; they read
``param_keys.json``):

    .jax-venv/bin/python tests/fidelity/param_keys.py record
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "param_keys.json"


def _walk(jaxpr, keys: dict) -> None:
    for eqn in jaxpr.eqns:
        keys.setdefault(eqn.primitive.name, set()).add(tuple(sorted(eqn.params)))
        for v in eqn.params.values():
            for sub in v if isinstance(v, (tuple, list)) else (v,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _walk(inner, keys)


def collect(jax, jnp, lax, random, nn) -> dict[str, set[tuple[str, ...]]]:
    """Primitive name -> the distinct key sets of its equations, over every program and case the
    running framework stages (``import jax`` must name it: the sweep's cases import ``jax.*``)."""
    sys.path.insert(0, str(HERE))
    import programs
    import sweep

    keys: dict = {}
    programs.bind(jax, jnp, lax, random, nn)
    builds = [build for build in programs.PROGRAMS.values()]
    sweep._import_modules()
    for _, make in sweep.all_cases():
        builds.append(lambda make=make: make(jax))
    for build in builds:
        try:
            f, args = build()
            _walk(jax.make_jaxpr(f)(*args).jaxpr, keys)
        except Exception:  # (a case the framework lacks or rejects: the texts' tests cover those)
            continue
    return keys


def engine_keys() -> dict[str, set[tuple[str, ...]]]:
    import engine
    import engine.numpy as jnp
    from engine import compat, lax, nn, random

    compat.install()
    try:
        return collect(engine, jnp, lax, random, nn)
    finally:
        compat.uninstall()


def recorded() -> dict[str, list[list[str]]]:
    return json.loads(OUT.read_text())["keys"]


def record() -> None:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"  # the pmap cases
    import jax
    import jax.numpy as jnp
    from jax import lax, nn, random

    assert jax.__version__ == "0.10.2", jax.__version__
    # (mostly one key set per primitive; JAX's cond and closed_call have two)
    out = {p: sorted(map(list, ks)) for p, ks in sorted(collect(jax, jnp, lax, random, nn).items())}
    OUT.write_text(json.dumps({"jax_version": jax.__version__, "keys": out}, indent=0) + "\n")
    print(f"{len(out)} primitives recorded to {OUT}")


if __name__ == "__main__":
    assert sys.argv[1:] == ["record"], "usage: param_keys.py record"
    record()
