"""Record what JAX 0.10.2 prints, shows and raises for each cell of its documentation pages.

    /work/main/.jax-venv/bin/python tests/jax_docs/record.py [PAGE ...]

Needs a JAX checkout with the tag ``doc_cells.TAG`` (``JAXPLAY_JAX_DOCS``). Each page runs twice in a
fresh process; cells whose output differs between the two runs (timings, object ids) are run but
not scored. Cells are skipped (not run, here nor on the engine) for the reasons in
``doc_cells.static_skip``, when the reference venv lacks a module they import, and when they fail with
a NameError because an earlier cell was skipped; skipping changes the namespace, so a page is
re-run until its skips settle. Writes ``recorded/<page>.json`` (no text of JAX's).
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import doc_cells as docs  # noqa: E402
from doc_runner import run_in_subprocess  # noqa: E402


def _learned_skip(outcome: dict | None) -> str | None:
    if outcome is None or outcome["error"] is None:
        return None
    if outcome["error"] in ("ModuleNotFoundError", "ImportError"):
        return f"needs a module the reference venv lacks ({outcome['message']})"
    if outcome["error"] == "NameError":
        return "depends on a skipped cell"
    if re.search(r"requires `?\w+`? to be installed", outcome["message"] or ""):
        return f"needs a package the reference venv lacks ({outcome['message']})"
    if "matplotlib" in (outcome["message"] or "").lower():
        return "computes with matplotlib values (the stand-in only swallows plotting calls)"
    return None


def record(page: str, repo: pathlib.Path) -> dict:
    sources = docs.page_cells(page, repo)
    skip = [docs.static_skip(s) for s in sources]
    for _ in range(4):
        first = run_in_subprocess("jax", sys.executable, sources, skip)
        learned = [s or _learned_skip(o) for s, o in zip(skip, first)]
        if learned == skip:
            break
        skip = learned
    second = run_in_subprocess("jax", sys.executable, sources, skip)
    cells = []
    for source, reason, a, b in zip(sources, skip, first, second):
        cell = {"hash": docs.cell_hash(source), "skip": reason}
        if reason is None:
            cell["expected"] = a
            if a != b:
                cell["unscored"] = "output differs between two runs of JAX (timing, ids, threads)"
        cells.append(cell)
    return {"page": page, "source": f"{docs.page_ref(page)}:{docs.PAGES[page]}", "cells": cells}


def main(pages: list[str]):
    import jax

    repo = docs.checkout()
    if repo is None:
        sys.exit("no JAX checkout: set JAXPLAY_JAX_DOCS to a git dir of github.com/jax-ml/jax")
    out_dir = HERE / "recorded"
    out_dir.mkdir(exist_ok=True)
    for page in pages or list(docs.PAGES):
        rec = record(page, repo)
        rec["jax_version"] = jax.__version__
        (out_dir / f"{page}.json").write_text(json.dumps(rec, indent=1) + "\n")
        n_run = sum(1 for c in rec["cells"] if c["skip"] is None)
        print(f"{page}: {len(rec['cells'])} cells, {n_run} run", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
