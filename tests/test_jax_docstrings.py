"""The examples in JAX 0.10.2's API docstrings as an acceptance suite: each docstring's ``>>>``
examples run in order in a fresh namespace on the engine (``import jax`` is the engine) and must
print and raise what they did under JAX (recorded by ``tests/jax_docstrings/record.py`` in
``tests/jax_docstrings/recorded/``: JAX's real outputs, not the docstrings' text).

The examples themselves are JAX's text and stay out of this repository: they are read from a JAX git
checkout (``JAXPLAY_JAX_DOCS``, as for ``tests/test_jax_docs.py``; see
``tests/jax_docstrings/docstring_source.py``), and the test skips without one.

One test per module; a docstring passes when all its scored examples match. Docstrings that do not
pass yet are listed in ``KNOWN_FAILURES`` with the cause; the test checks they still fail, so the
list cannot go stale. A per-module score is printed at the end.
"""

from __future__ import annotations

import sys

import pytest

from conftest import DOCSTRING_SCORES, ROOT

_PATHS = [str(ROOT / "tests" / "jax_docstrings"), str(ROOT / "tests" / "jax_docs")]
sys.path[:0] = _PATHS
import doc_cells  # noqa: E402
import docstring_source  # noqa: E402
from docstring_compare import (  # noqa: E402
    default_processes,
    docstring_mismatches,
    recorded_modules,
    run_on_engine,
    scored_docstrings,
)

for _path in _PATHS:
    sys.path.remove(_path)

MODULES = recorded_modules()

# docstring (module.name) -> why the engine's outcome differs from JAX's, grouped by cause
KNOWN_FAILURES: dict[str, str] = {}


@pytest.fixture(scope="module")
def engine_outcomes():
    repo = doc_cells.checkout()
    if repo is None:
        pytest.skip(
            "JAX's docstrings are not here: set JAXPLAY_JAX_DOCS to a git checkout of "
            f"github.com/jax-ml/jax with the tag {doc_cells.TAG}"
        )
    docstrings = scored_docstrings(MODULES)
    docstring_source.attach_sources(docstrings, repo)  # SourceMismatch (an error) unless JAX 0.10.2
    return run_on_engine(docstrings, default_processes())


@pytest.mark.parametrize("module", sorted(MODULES))
def test_docstring_examples_match_jax(engine_outcomes, module):
    unexpected, fixed = [], []
    funcs = funcs_ok = examples = examples_ok = 0
    for d in MODULES[module]["docstrings"]:
        if "unscored" in d:
            continue
        scored = [e for e in d["examples"] if "skip" not in e and "unscored" not in e]
        if not scored:
            continue
        whys = docstring_mismatches(d, engine_outcomes[d["name"]])
        funcs += 1
        funcs_ok += not whys
        examples += len(scored)
        examples_ok += len(scored) - len(whys)
        known = KNOWN_FAILURES.get(d["name"])
        if whys and not known:
            unexpected.append(f"{d['name']}:\n  " + "\n  ".join(whys))
        elif known and not whys:
            fixed.append(f"{d['name']} (listed as: {known})")
    DOCSTRING_SCORES[module] = (funcs_ok, funcs, examples_ok, examples)
    assert not unexpected, f"{module}: docstring examples differ from JAX:\n" + "\n".join(unexpected)
    assert not fixed, f"{module}: docstrings now match JAX, drop them from KNOWN_FAILURES:\n" + "\n".join(
        fixed
    )


def test_known_failures_name_recorded_docstrings():
    names = {d["name"] for rec in MODULES.values() for d in rec["docstrings"]}
    assert not set(KNOWN_FAILURES) - names, sorted(set(KNOWN_FAILURES) - names)
