"""Record JAX 0.10.2's answers to ``x64_snippets.py`` with ``jax_enable_x64`` on (JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_x64.py [topic ...]

writes ``x64.json`` (values as ``record.encode`` stores them, or the error JAX raised), and
``x64_reference.json``: the answers to every snippet of ``snippets.py`` with x64 on."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from record import EIGHT_DEVICE_TOPICS, devices_for, encode, run  # noqa: E402
from snippets import SNIPPETS  # noqa: E402
from x64_snippets import X64_SNIPPETS  # noqa: E402


def _record(jax, ns, cases) -> dict:
    recorded = {}
    with jax.enable_x64(True):
        for name, code in cases:
            try:
                recorded[name] = {"value": encode(run(code, ns))}
            except Exception as e:  # the error class is part of the expected behaviour
                recorded[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0][:300]}
    return recorded


def main():
    topics = devices_for(sys.argv[1:]) if sys.argv[1:] else []
    kept = set() if topics else set(EIGHT_DEVICE_TOPICS)  # (a full run keeps their answers as they are)
    import jax
    import jax.numpy as jnp
    import jax.scipy as jsp
    from jax import lax

    ns = {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "jsp": jsp}
    # only these topics of snippets.py, merged into x64_reference.json (8-device ones named alone)
    # With topics only x64_reference.json changes: x64.json's own names (e.g. "fft") may equal a
    # topic's, and merging by topic would drop them.
    for path, cases in [
        *([] if topics else [("x64.json", X64_SNIPPETS)]),
        (
            "x64_reference.json",
            [
                (f"{t}/{n}", code)
                for t, cs in SNIPPETS.items()
                for n, code, *_ in cs
                if (t in topics if topics else t not in kept)
            ],
        ),
    ]:
        recorded = _record(jax, ns, cases)
        if topics:
            old = json.loads((HERE / path).read_text())
            recorded = {**{k: v for k, v in old.items() if k.split("/")[0] not in topics}, **recorded}
        elif path == "x64_reference.json":
            old = json.loads((HERE / path).read_text())
            recorded = {**{k: v for k, v in old.items() if k.split("/")[0] in kept}, **recorded}
        (HERE / path).write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        print(f"{path}: {len(recorded)} snippets")


if __name__ == "__main__":
    main()
