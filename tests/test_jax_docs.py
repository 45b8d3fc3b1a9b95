"""JAX's documentation tutorials as an acceptance suite: each page's code cells run in order in one
namespace on the engine (``import jax`` is the engine) and must print, show and raise what JAX
0.10.2 did (recorded by ``tests/jax_docs/record.py`` in ``tests/jax_docs/recorded/``): an error's
class, and the first line of its message unless ``MESSAGE_DIFFERENCES`` says why it differs.

The cells themselves are JAX's text and stay out of this repository: they are read from a JAX git
checkout (``JAXPLAY_JAX_DOCS``; see ``tests/jax_docs/doc_cells.py``), and the test skips without one.
Cells the engine cannot run yet are listed in ``KNOWN_FAILURES`` with the cause; the test checks
they still fail, so the list cannot go stale. A per-page score is printed at the end.
"""

from __future__ import annotations

import json
import sys

import pytest

from conftest import DOC_SCORES, ROOT

DOCS = ROOT / "tests" / "jax_docs"
sys.path.insert(0, str(DOCS))
import doc_cells as docs  # noqa: E402
from doc_compare import ATOL, RTOL, outcome_mismatch  # noqa: E402
from doc_runner import PageRunner  # noqa: E402

sys.path.remove(str(DOCS))

# (page, cell index) -> why the engine's outcome differs from JAX's.
KNOWN_FAILURES: dict[tuple[str, int], str] = {}

_MEMORY_STATS = (
    "Compiled.memory_analysis() is None on the engine (JAX allows it: no XLA buffer assignment), so "
    "XLA's temp/argument/total sizes are not printed; the argument and output sizes are sums of "
    "buffer bytes, but the temp size (17.00 MB, 6.25 MB once activations are offloaded) is what XLA's "
    "buffer assignment leaves after its own fusion and scheduling, which the engine does not model"
)
KNOWN_FAILURES.update(
    {
        **{("host-offloading", i): _MEMORY_STATS for i in (5, 8, 9)},
        **{
            ("export-export", i): (
                "len(mlir_module_serialized) counts XLA's StableHLO bytecode; the engine's is its own "
                "program data"
            )
            for i in (50, 52)
        },
    }
)

# JAX's tutorials rewritten after 0.10.2 (docs/new_docs), where they use what the engine lacks.
_HLO = (
    "compile().as_text() is the engine's partitioned program, not XLA's HLO: it names its all-reduces "
    "without XLA's op_name metadata"
)
_REMAT3 = (
    "jax.config.update('jax_remat3', True) (an experimental remat built on hijax primitives) only renames "
    "a checkpointed function's arguments args[i] in the engine: JAX then also stages checkpoint_name as "
    "a call_hi_primitive and saves what its policy says differently"
)
KNOWN_FAILURES.update(
    {
        **{("new-301-sharding-ad", i): _HLO for i in (15, 16)},
        **{("new-301-remat", i): _REMAT3 for i in (6, 18, 27)},
    }
)

_FINITE_DIFFERENCES = (
    "float32 central differences with eps=1e-4 turn one-ulp differences of log/exp into 1e-3"
)
# (page, cell index) -> (rtol, atol) and why the default tolerance of doc_compare.py is too tight.
LOOSER: dict[tuple[str, int], tuple[tuple[float, float], str]] = {
    ("automatic-differentiation", 9): ((1e-2, 1e-4), _FINITE_DIFFERENCES),
    ("autodiff-cookbook", 7): ((1e-2, 1e-4), _FINITE_DIFFERENCES),
}


# Where the engine raises JAX's error class with another message (the first line, as recorded),
# and why. Every other error's message must be JAX's word for word.
_MAKE_MESH = "make_mesh with too few devices: the engine's message names the XLA_FLAGS setting to use"
_PMAP_DEVICES = (
    "pmap over more than the devices there are: the engine says so and names the flag; JAX (whose "
    "pmap now runs on jit) fails on a squeeze of the mapped axis"
)
_DEVICE_CONTEXT = "a device program's error: the engine's message says which device and which pmap it ran"
MESSAGE_DIFFERENCES: dict[tuple[str, int], str] = {
    ("new-201-placement", 10): (
        "a device_put inside jit onto another mesh's devices: JAX's message names the argument, its "
        "typed shape, both device lists and the source line; the engine's names both meshes"
    ),
    **{("ffi", i): _DEVICE_CONTEXT for i in (15, 17, 19)},
    ("pallas-tpu-core-map", 1): (
        "JAX's AttributeError for pltpu.create_tensorcore_mesh has an empty message; the engine's names the "
        "module and the attribute"
    ),
    ("checkify-guide", 3): _PMAP_DEVICES,
    ("print-breakpoint", 3): _PMAP_DEVICES,
    ("jep-shard-map", 0): _MAKE_MESH,
    ("training-cookbook", 10): _MAKE_MESH,
    ("training-cookbook", 13): _MAKE_MESH,
    ("compilation-cache", 13): (
        "a sketch's PartitionSpec(...): the engine refuses the Ellipsis where it is built, JAX only at "
        "the Mesh(...) after it"
    ),
}


def _recorded(page):
    return json.loads((DOCS / "recorded" / f"{page}.json").read_text())


@pytest.fixture(scope="module")
def checkout():
    repo = docs.checkout()
    if repo is None:
        pytest.skip(
            "JAX's documentation is not here: set JAXPLAY_JAX_DOCS to a git checkout of "
            f"github.com/jax-ml/jax with the tag {docs.TAG}"
        )
    return repo


@pytest.fixture(scope="module")
def runner(checkout, request):
    """Each page in a fork of a process that imported the engine once (as a process of its own
    would start, minus ~2 s of imports per page); the next selected page runs meanwhile."""
    order = [
        item.callspec.params["page"]
        for item in request.session.items
        if item.originalname == "test_page_matches_jax" and item.module is request.module
    ]

    def spec(page):
        return docs.page_cells(page, checkout), [c["skip"] for c in _recorded(page)["cells"]]

    r = PageRunner("engine", sys.executable, order, spec)
    yield r
    r.close()


@pytest.mark.parametrize("page", sorted(docs.PAGES))
def test_page_matches_jax(checkout, runner, page):
    rec = _recorded(page)
    sources = docs.page_cells(page, checkout)
    assert [docs.cell_hash(s) for s in sources] == [c["hash"] for c in rec["cells"]], (
        f"{page}: the checkout's cells differ from the recorded ones; re-run tests/jax_docs/record.py"
    )
    outcomes = runner.run(page)
    matched = scored = 0
    unexpected, fixed = [], []
    for i, (cell, got) in enumerate(zip(rec["cells"], outcomes)):
        if cell["skip"] or cell.get("unscored"):
            continue
        scored += 1
        rtol, atol = LOOSER.get((page, i), ((RTOL, ATOL), ""))[0]
        why = outcome_mismatch(got, cell["expected"], rtol, atol)
        matched += why is None
        want = cell["expected"]
        if why is None and want["error"] is not None:
            differs = got["message"] != want["message"]
            if differs and (page, i) not in MESSAGE_DIFFERENCES:
                unexpected.append(
                    f"cell {i}: {want['error']}: {got['message']!r}, JAX's: {want['message']!r}"
                )
            elif not differs and (page, i) in MESSAGE_DIFFERENCES:
                fixed.append(f"cell {i} (message listed as different: {MESSAGE_DIFFERENCES[(page, i)]})")
        known = KNOWN_FAILURES.get((page, i))
        if why and not known:
            unexpected.append(f"cell {i}: {why}")
        elif known and not why:
            fixed.append(f"cell {i} (listed as: {known})")
    DOC_SCORES[page] = (matched, scored, len(rec["cells"]) - scored)
    assert not unexpected, f"{page}: cells differ from JAX:\n" + "\n".join(unexpected)
    assert not fixed, (
        f"{page}: cells now match JAX, drop them from KNOWN_FAILURES or MESSAGE_DIFFERENCES:\n"
        + "\n".join(fixed)
    )
