"""Does a docstring's run on the engine match JAX's recorded one? (``recorded/<module>.json``)

Each example's printed text is compared as ``tests/jax_docs/doc_compare.py`` compares cells' text
(words exactly, integers exactly, floats within a tolerance, addresses not at all); an example that
raised in JAX must raise the same exception class on the engine, and one that did not must not.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "jax_docs"))
sys.path.insert(0, str(HERE))
from doc_compare import RTOL, ATOL, text_mismatch  # noqa: E402
from docstring_runner import run_in_subprocess  # noqa: E402

RECORDED = HERE / "recorded"


def recorded_modules() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(RECORDED.glob("*.json"))}


def example_mismatch(got: dict, want: dict, rtol=RTOL, atol=ATOL) -> str | None:
    """Why an example's outcome on the engine differs from JAX's (None when it matches)."""
    if got["error"] != want["error"]:
        if want["error"] is None:
            return f"raised {got['error']}"
        return f"JAX raised {want['error']}, the engine {got['error'] or 'did not raise'}"
    why = text_mismatch(got["out"], want["out"], rtol, atol)
    return f"output: {why}" if why else None


def scored_docstrings(modules: dict[str, dict]) -> list[dict]:
    """The docstrings whose examples can be read back from a checkout (literal in JAX's source)."""
    return [d for rec in modules.values() for d in rec["docstrings"] if "unscored" not in d]


def _spec(docstring: dict) -> dict:
    exs = docstring["examples"]
    return {
        "name": docstring["name"],
        "examples": [e["source"] for e in exs],
        "skip": [e.get("skip") for e in exs],
    }


def run_on_engine(docstrings: list[dict], processes: int = 2) -> dict[str, list]:
    """Each docstring's outcomes on the engine, by name; the docstrings are split into ``processes``
    chunks of about equal example counts, each run in one fresh process."""
    chunks: list[list[dict]] = [[] for _ in range(processes)]
    sizes = [0] * processes
    for d in sorted(docstrings, key=lambda d: -len(d["examples"])):
        i = sizes.index(min(sizes))
        chunks[i].append(d)
        sizes[i] += len(d["examples"])
    chunks = [c for c in chunks if c]

    def run(chunk):
        return run_in_subprocess("engine", sys.executable, [_spec(d) for d in chunk])

    with ThreadPoolExecutor(len(chunks)) as pool:
        results = list(pool.map(run, chunks))
    return {d["name"]: r for chunk, res in zip(chunks, results) for d, r in zip(chunk, res)}


def docstring_mismatches(docstring: dict, outcomes: list) -> list[str]:
    """Why each scored example of ``docstring`` differs on the engine (empty when all match)."""
    whys = []
    for i, (ex, got) in enumerate(zip(docstring["examples"], outcomes)):
        if "skip" in ex or "unscored" in ex:
            continue
        why = example_mismatch(got, ex)
        if why:
            whys.append(f"example {i} ({ex['source'].strip().splitlines()[0][:60]}): {why}")
    return whys


def default_processes() -> int:
    return int(os.environ.get("JAXPLAY_DOCSTRING_PROCESSES", "2"))
