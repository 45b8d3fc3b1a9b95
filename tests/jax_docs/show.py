"""Which cells of a documentation page differ from JAX 0.10.2, and how (a developer's view of
``tests/test_jax_docs.py``).

    python tests/jax_docs/show.py PAGE [CELL ...]

Runs the page on the engine (as the test does) and prints, for each differing cell (or for the
cells named), its source and the first difference from what JAX recorded.
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import doc_cells as docs  # noqa: E402
from doc_compare import outcome_mismatch  # noqa: E402
from doc_runner import run_in_subprocess  # noqa: E402


def main(page: str, only: list[int]):
    repo = docs.checkout()
    if repo is None:
        sys.exit("no JAX checkout: set JAXPLAY_JAX_DOCS to a git dir of github.com/jax-ml/jax")
    rec = json.loads((HERE / "recorded" / f"{page}.json").read_text())
    sources = docs.page_cells(page, repo)
    outcomes = run_in_subprocess("engine", sys.executable, sources, [c["skip"] for c in rec["cells"]])
    matched = scored = 0
    for i, (source, cell, got) in enumerate(zip(sources, rec["cells"], outcomes)):
        if cell["skip"] or cell.get("unscored"):
            continue
        scored += 1
        why = outcome_mismatch(got, cell["expected"])
        matched += why is None
        if (only and i in only) or (not only and why):
            print(f"--- cell {i}: {'matches' if why is None else why}")
            print("    " + source.replace("\n", "\n    "))
            if why:
                print(f"    JAX:    {json.dumps(cell['expected'])[:600]}")
                print(f"    engine: {json.dumps(got)[:600]}")
    print(f"{page}: {matched}/{scored} scored cells match JAX")


if __name__ == "__main__":
    main(sys.argv[1], [int(a) for a in sys.argv[2:]])
