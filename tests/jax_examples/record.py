"""Record JAX 0.10.2's results for the example programs and library cases in this folder.

Run with the reference JAX (never needed by the tests):

    /work/main/.jax-venv/bin/python tests/jax_examples/record.py [PROGRAM ...]

Writes ``recorded.json`` next to this file: ``{"jax_version", "library": {...}, "programs":
{name: stdout}}``. Naming programs re-records only those; ``--library`` records no program.
"""

import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = [
    "mnist_classifier_fromscratch",
    "mnist_classifier",
    "mnist_vae",
    "advi",
    "differentially_private_sgd",
    "spmd_mnist_classifier_fromscratch",
]


def main(names):
    import jax

    sys.path.insert(0, str(HERE))
    import library_cases

    path = HERE / "recorded.json"
    recorded = json.loads(path.read_text()) if path.exists() else {"programs": {}}
    recorded["jax_version"] = jax.__version__
    recorded["library"] = library_cases.all_cases(jax)
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    for name in [] if names == ["--library"] else names or PROGRAMS:
        proc = subprocess.run(
            [sys.executable, f"{name}.py"], cwd=HERE, env=env, capture_output=True, text=True, check=True
        )
        recorded["programs"][name] = proc.stdout
        print(name, proc.stdout, sep="\n")
    path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
