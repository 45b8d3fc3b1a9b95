"""Run some of JAX's docstring examples on the engine and print those that differ from JAX 0.10.2.

    python tests/jax_docstrings/show.py jax.numpy.abs jax.lax [...]

A name is a docstring (``jax.numpy.abs``) or a whole module (``jax.lax``). The examples are read
from a JAX checkout (``JAXPLAY_JAX_DOCS``, see ``docstring_source.py``).
"""

from __future__ import annotations

import sys

import docstring_source
from docstring_source import doc_cells
from docstring_compare import example_mismatch, recorded_modules, run_on_engine, scored_docstrings


def main(names: list[str]):
    repo = doc_cells.checkout()
    if repo is None:
        sys.exit(
            f"set JAXPLAY_JAX_DOCS to a git checkout of github.com/jax-ml/jax with the tag {doc_cells.TAG}"
        )
    mods = recorded_modules()
    picked = [
        d for m, rec in mods.items() for d in scored_docstrings({m: rec}) if m in names or d["name"] in names
    ]
    docstring_source.attach_sources(picked, repo)
    outcomes = run_on_engine(picked, processes=1)
    for d in picked:
        for i, (ex, got) in enumerate(zip(d["examples"], outcomes[d["name"]])):
            if "skip" in ex or "unscored" in ex:
                continue
            why = example_mismatch(got, ex)
            if why:
                print(f"=== {d['name']} example {i}: {why}\n{ex['source'].rstrip()}")
                print(f"--- JAX ({ex['error']}):\n{ex['out'].rstrip()}")
                print(f"--- engine ({got['error']}: {got['message']}):\n{got['out'].rstrip()}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
