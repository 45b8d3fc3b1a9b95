"""JAX's documentation pages as lists of code cells, read from a JAX git checkout.

The cells are JAX's own text, so they are never stored in this repository: they are read, at test
and record time, from a git checkout of github.com/jax-ml/jax at the tag of the reference version
(``JAXPLAY_JAX_DOCS``, default the local mirror below). ``recorded/<page>.json`` keeps only what
this project computed: each cell's hash, why it is skipped, and what JAX 0.10.2 printed or raised.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import subprocess

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
}

# Why a cell is not run, decided from its text (the recorder adds: modules the reference venv lacks).
_SKIP_PATTERNS = [
    (r"^\s*!", "shell command (pip)"),
    (r"\b(import|from)\s+(torch|tensorflow|tensorflow_datasets)\b", "needs torch/tensorflow"),
    (r"\b(urllib|requests|wget|tfds\.load|download)\b", "needs the internet"),
    (r"['\"](gpu|tpu|cuda)['\"]|\bjax\.devices\(\s*['\"]?(gpu|tpu)", "needs a GPU/TPU"),
    (r"\btime\.(time|perf_counter)\(", "timing"),
    (r"\bbreakpoint\(", "interactive debugger (reads stdin)"),
    (r"^\s*(import|from)\s+scipy\b", "needs scipy, which the engine's environment does not install"),
]


def checkout() -> pathlib.Path | None:
    path = pathlib.Path(os.environ.get("JAXPLAY_JAX_DOCS", DEFAULT_CHECKOUT))
    return path if path.exists() else None


def page_text(page: str, repo: pathlib.Path) -> str:
    return subprocess.run(
        ["git", "--git-dir" if (repo / "HEAD").exists() else "-C", str(repo), "show", f"{TAG}:{PAGES[page]}"],
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


def cell_hash(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()[:12]


def without_magics(source: str) -> str:
    """The cell without its IPython magic lines (``%timeit ...``, ``%xmode``): they time or style."""
    return "\n".join(line for line in source.split("\n") if not line.lstrip().startswith("%"))


def static_skip(source: str) -> str | None:
    if not without_magics(source).strip():
        return "IPython magic only (timing)"
    for pattern, reason in _SKIP_PATTERNS:
        if re.search(pattern, source, re.M):
            return reason
    return None
