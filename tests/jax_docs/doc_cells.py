"""JAX's documentation pages as lists of code cells, read from a JAX git checkout.

Notebook pages (MyST ``{code-cell}`` blocks) give one cell per block. Plain pages (``FENCED``) give
one cell per fenced ```` ```python ```` block, or, for a doctest block (``>>>`` prompts), one cell per
prompt, so each statement's value is compared as IPython would show it.

The cells are JAX's own text, so they are never stored in this repository: they are read, at test
and record time, from a git checkout of github.com/jax-ml/jax at the tag of the reference version
(``JAXPLAY_JAX_DOCS``, default the local mirror below). ``recorded/<page>.json`` keeps only what
this project computed: each cell's hash, why it is skipped, and what JAX 0.10.2 printed or raised.
"""

from __future__ import annotations

import ast
import hashlib
import os
import pathlib
import re
import subprocess
import textwrap

TAG = "jax-v0.10.2"
DEFAULT_CHECKOUT = "/work/.mirror/jax-ml+jax/repo"

# page name -> the MyST notebook under docs/ at TAG
PAGES = {
    "key-concepts": "docs/key-concepts.md",
    "jit-compilation": "docs/jit-compilation.md",
    "automatic-vectorization": "docs/automatic-vectorization.md",
    "automatic-differentiation": "docs/automatic-differentiation.md",
    "debugging": "docs/debugging.md",
    "random-numbers": "docs/random-numbers.md",
    "pytrees": "docs/pytrees.md",
    "stateful-computations": "docs/stateful-computations.md",
    "control-flow": "docs/control-flow.md",
    "higher-order": "docs/higher-order.md",
    "jacobian-vector-products": "docs/jacobian-vector-products.md",
    "complex-differentiation": "docs/complex-differentiation.md",
    "custom-pytrees": "docs/custom_pytrees.md",
    "gradient-checkpointing": "docs/gradient-checkpointing.md",
    "jaxpr": "docs/jaxpr.md",
    "external-callbacks": "docs/external-callbacks.md",
    "common-gotchas": "docs/notebooks/Common_Gotchas_in_JAX.md",
    "thinking-in-jax": "docs/notebooks/thinking_in_jax.md",
    "autodiff-cookbook": "docs/notebooks/autodiff_cookbook.md",
    "custom-derivative-rules": "docs/notebooks/Custom_derivative_rules_for_Python_code.md",
    "vmapped-log-probs": "docs/notebooks/vmapped_log_probs.md",
    "convolutions": "docs/notebooks/convolutions.md",
    "custom-interpreters": "docs/notebooks/Writing_custom_interpreters_in_Jax.md",
    "autodidax": "docs/autodidax.md",
    "autodidax2-part1": "docs/autodidax2_part1.md",
    "tracing": "docs/tracing.md",
    "jax-primitives": "docs/jax-primitives.md",
    "type-promotion": "docs/jep/9407-type-promotion.md",
    "autodiff-remat": "docs/notebooks/autodiff_remat.md",
    "parallel": "docs/parallel.md",
    "shard-map": "docs/notebooks/shard_map.md",
    "array-refs": "docs/array_refs.md",
    "neural-network-data-loading": "docs/notebooks/Neural_Network_and_Data_Loading.md",
    "host-offloading": "docs/notebooks/host-offloading.md",
    "layout": "docs/notebooks/layout.md",
    "colocated-python": "docs/notebooks/colocated-python.md",
    "debugging-flags": "docs/debugging/flags.md",
    "distributed-data-loading": "docs/distributed_data_loading.md",
    "pallas-quickstart": "docs/pallas/quickstart.md",
    "ffi": "docs/ffi.md",
    "pallas-tpu-pipelining": "docs/pallas/tpu/pipelining.md",
    "pallas-tpu-sparse": "docs/pallas/tpu/sparse.md",
    "pallas-tpu-matmul": "docs/pallas/tpu/matmul.md",
    "pallas-tpu-distributed": "docs/pallas/tpu/distributed.md",
    "cute-dsl-jax": "docs/notebooks/cute_dsl_jax.md",
    "neural-network-tfds": "docs/notebooks/neural_network_with_tfds_data.md",
}

# page name -> a plain page whose examples are ```python fenced blocks (or doctests in them)
FENCED = {
    "checkify-guide": "docs/debugging/checkify_guide.md",
    "debugging-index": "docs/debugging/index.md",
    "print-breakpoint": "docs/debugging/print_breakpoint.md",
    "default-dtypes": "docs/default_dtypes.md",
    "migrate-pmap": "docs/migrate_pmap.md",
    "aot": "docs/aot.md",
    "jep-typed-keys": "docs/jep/9263-typed-keys.md",
    "jep-omnistaging": "docs/jep/4410-omnistaging.md",
    "jep-prng": "docs/jep/263-prng.md",
    "jep-stateful-rng": "docs/jep/28845-stateful-rng.md",
    "jep-new-remat": "docs/jep/11830-new-remat-checkpoint.md",
    "jep-sequencing-effects": "docs/jep/10657-sequencing-effects.md",
    "jep-shard-map": "docs/jep/14273-shard-map.md",
    "jep-type-annotations": "docs/jep/12049-type-annotations.md",
    "jep-array-protocol": "docs/jep/28661-jax-array-protocol.md",
    "compilation-cache": "docs/persistent_compilation_cache.md",
    "pallas-grid-blockspec": "docs/pallas/grid_blockspec.md",
    "pallas-pipelining": "docs/pallas/pipelining.md",
    "pallas-tpu-core-map": "docs/pallas/tpu/core_map.md",
    "pallas-tpu-sparsecore": "docs/pallas/tpu/sparsecore.md",
    "export-export": "docs/export/export.md",
    "export-shape-poly": "docs/export/shape_poly.md",
    "jep-custom-derivatives": "docs/jep/2026-custom-derivatives.md",
    "jep-shmap-transpose": "docs/jep/17111-shmap-transpose.md",
    "jep-custom-vjp-update": "docs/jep/4008-custom-vjp-update.md",
    "jep-jex": "docs/jep/15856-jex.md",
    "buffer-donation": "docs/buffer_donation.md",
    "profiling": "docs/profiling.md",
    "device-memory-profiling": "docs/device_memory_profiling.md",
    "benchmarking": "docs/benchmarking.md",
    "pallas-design": "docs/pallas/design/design.md",
    "xla-metadata": "docs/debugging/xla_metadata.md",
    "multi-process": "docs/multi_process.md",
    "internals-constants": "docs/internals/constants.md",
    "xla-flags": "docs/xla_flags.md",
    "gpu-performance-tips": "docs/gpu_performance_tips.md",
}
# page name -> a reStructuredText page: its ``::`` literal blocks, code-blocks and doctests
RST = {
    "faq": "docs/faq.rst",
    "async-dispatch": "docs/async_dispatch.rst",
    "rank-promotion-warning": "docs/rank_promotion_warning.rst",
    "type-promotion-rst": "docs/type_promotion.rst",
    "transfer-guard": "docs/transfer_guard.rst",
    "jax-numpy-rst": "docs/jax.numpy.rst",
    "training-cookbook": "docs/the-training-cookbook.rst",
    "jax-random-rst": "docs/jax.random.rst",
    "fault-tolerance": "docs/fault_tolerance.rst",
    "pallas-tpu-prng": "docs/pallas/tpu/prng.rst",
    "config-options": "docs/config_options.rst",
    # an automodule page: the module's docstring is the page (RST with doctests)
    "jax-experimental-sparse": "jax/experimental/sparse/__init__.py",
    # the sparsify transformation's module page
    "jax-experimental-sparse-transform": "jax/experimental/sparse/transform.py",
}
# JAX's tutorials rewritten after 0.10.2 (docs/new_docs: "JAX 101" to "301"), read at a pinned commit
# of its main branch and still recorded under JAX 0.10.2: a cell that needs a later JAX records what
# 0.10.2 raises. page name -> the MyST notebook at NEW_DOCS_REF.
NEW_DOCS_REF = "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5"
NEW_DOCS = {
    f"new-{part}-{name}": f"docs/new_docs/{part}/{name}.md"
    for part, names in {
        "101": "arrays pytrees random state transformations",
        "201": "callbacks control-flow debugging jit placement shard-map sharding",
        "301": "cookbook custom-derivatives custom-jvp-vjp refs remat sharding-ad vjp-objects",
    }.items()
    for name in names.split()
}
PAGES.update(FENCED)
PAGES.update(RST)
PAGES.update(NEW_DOCS)

# Why a cell is not run, decided from its text (the recorder adds: modules the reference venv lacks).
_SKIP_PATTERNS = [
    (r"^\s*!", "shell command (pip)"),
    (r"\b(import|from)\s+(torch|tensorflow|tensorflow_datasets)\b", "needs torch/tensorflow"),
    (r"\b(urllib|requests|wget|tfds\.load|download)\b", "needs the internet"),
    # (a platform named in ``platforms=``, as export's, is only a target: exporting for it needs no device)
    (
        r"^(?!.*\bplatforms\s*=).*['\"](gpu|tpu|cuda)['\"]|\bjax\.devices\(\s*['\"]?(gpu|tpu)",
        "needs a GPU/TPU",
    ),
    (r"\btime\.(time|perf_counter)\(|\btimeit\.timeit\(", "timing"),
    (r"\bbreakpoint\(", "interactive debugger (reads stdin)"),
    (r"\bscipy\b.*\bdatasets\b", "needs the internet (scipy.datasets downloads its images)"),
    (r"['\"]gs://", "needs the internet (a Google Cloud Storage path)"),
    (r"create_perfetto_link=True", "waits until a browser opens the Perfetto link it prints"),
    (r"\bprofiler\.start_server\(", "serves the profiler on a network port"),
    (r"\bjax\.distributed\.initialize\(", "a script for each of several processes (jax.distributed)"),
    # (Pallas TPU pages: JAX builds these arrays, then refuses the pallas_call on a CPU)
    (
        r"^\s*\w+( = \w+)* = 16384\s*$",
        "arrays of 16384x16384 (GBs of random bits: minutes on the numpy engine) for a TPU kernel",
    ),
]


def checkout() -> pathlib.Path | None:
    path = pathlib.Path(os.environ.get("JAXPLAY_JAX_DOCS", DEFAULT_CHECKOUT))
    return path if path.exists() else None


def page_text(page: str, repo: pathlib.Path) -> str:
    return file_text(PAGES[page], repo, page_ref(page))


def page_ref(page: str) -> str:
    return NEW_DOCS_REF if page in NEW_DOCS else TAG


def file_text(path: str, repo: pathlib.Path, ref: str = TAG) -> str:
    """A file of JAX's repository at ``ref`` (TAG: the reference version's)."""
    return subprocess.run(
        ["git", "--git-dir" if (repo / "HEAD").exists() else "-C", str(repo), "show", f"{ref}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```\s*$", re.S | re.M)


def code_cells(text: str) -> list[str]:
    """The sources of a MyST notebook's ``{code-cell}`` blocks, without their option headers."""
    cells = []
    for m in _CELL.finditer(text):
        lines = m.group(1).split("\n")
        if lines and lines[0].strip() == "---":  # YAML option block
            end = lines.index("---", 1)
            lines = lines[end + 1 :]
        while lines and re.match(r"^:[\w-]+:", lines[0]):  # `:tags: [...]` option lines
            lines = lines[1:]
        cells.append("\n".join(lines).strip("\n"))
    return cells


# jupytext's markdown pages put cell metadata after the language (```python id="...")
_FENCE = re.compile(r"^([ \t]*)```python(?:[ \t][^\n]*)?\n(.*?)^[ \t]*```[ \t]*$", re.S | re.M)


def fenced_cells(text: str) -> list[str]:
    """The ```python blocks of a plain page, dedented; a doctest block split at its prompts."""
    cells = []
    for m in _FENCE.finditer(text):
        indent = len(m.group(1))
        lines = [line[indent:] if line[:indent].isspace() else line for line in m.group(2).split("\n")]
        if any(line.startswith(">>>") for line in lines):
            cells.extend(_doctest_statements(lines))
        else:
            cells.append("\n".join(lines).strip("\n"))
    return cells


def _doctest_statements(lines: list[str]) -> list[str]:
    """One source per ``>>>`` prompt (with its ``...`` continuation lines); shown outputs dropped."""
    statements: list[list[str]] = []
    for line in lines:
        if line.startswith(">>>"):
            statements.append([line[4:]])
        elif line.startswith("...") and statements:
            statements[-1].append(line[4:])
    return [
        s for s in ("\n".join(st).strip("\n") for st in statements) if s and not s.lstrip().startswith("#")
    ]


def rst_cells(text: str) -> list[str]:
    """The literal blocks (after ``::``, or ``.. code-block:: python``) and doctest paragraphs of an
    RST page, in order: a block per cell, a doctest split at its prompts."""
    lines = text.split("\n")
    cells: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):  # indented: a doctest in a comment or directive body
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            cells.extend(_doctest_statements(textwrap.dedent("\n".join(lines[i:j])).split("\n")))
            i = j
            continue
        stripped = line.strip()
        opens = stripped.endswith("::") and not stripped.startswith("..")
        if opens or re.match(r"^\.\. code-block::\s*python\s*$", stripped):
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or re.match(r"^\s+:[\w-]+:", lines[j])):
                j += 1
            base = len(line) - len(line.lstrip())
            block = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
                block.append(lines[j])
                j += 1
            if block:
                body = textwrap.dedent("\n".join(block)).strip("\n")
                doctest = body.split("\n")
                cells.extend(_doctest_statements(doctest) if body.startswith(">>>") else [body])
            i = j
            continue
        i += 1
    return cells


# JAX runs its doctests with these names defined (its conftest.py's doctest namespace): a page with
# doctests gets them as a first cell of ours.
DOCTEST_NAMESPACE = "import jax\nfrom jax import lax\nimport jax.numpy as jnp\nimport numpy as np"
# Plain pages whose snippets use those names without importing them get them too.
USES_DOCTEST_NAMES = {"buffer-donation", "training-cookbook"}


def page_cells(page: str, repo: pathlib.Path) -> list[str]:
    """The page's cells in order: code cells of a notebook page, fenced blocks of a plain one."""
    text = page_text(page, repo)
    if page in RST:
        cells = rst_cells(text)
    elif page in FENCED:
        cells = fenced_cells(text)
    else:
        return code_cells(text)
    has_doctests = re.search(r"^\s*>>>", text, re.M) is not None
    return [DOCTEST_NAMESPACE, *cells] if has_doctests or page in USES_DOCTEST_NAMES else cells


def cell_hash(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()[:12]


def without_magics(source: str) -> str:
    """The cell without its IPython magic lines (``%timeit ...``, ``%xmode``): they time or style."""
    return "\n".join(line for line in source.split("\n") if not line.lstrip().startswith("%"))


def static_skip(source: str) -> str | None:
    if not without_magics(source).strip():
        return "IPython magic only (timing)"
    try:
        tree = ast.parse(without_magics(source))
    except SyntaxError:
        return "not Python as written (a sketch, or output shown inline)"
    if tree.body and all(isinstance(s, ast.AnnAssign) and s.value is None for s in tree.body):
        return "printed output shown as text (`Name: value` lines), not code"
    for pattern, reason in _SKIP_PATTERNS:
        if re.search(pattern, source, re.M):
            return reason
    return None
