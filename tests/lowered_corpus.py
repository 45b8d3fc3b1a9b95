"""A corpus of programs lowered with ``jit(f).lower(*args).as_text(dialect)``: the texts JAX 0.10.2
prints, recorded into the corpus folder's ``expected.json``, and the engine's compared with them.
``tests/stablehlo`` (StableHLO) and ``tests/hlo_text`` (XLA's HLO) are two such corpora; each
folder's ``compare.py`` and ``record.py`` name theirs and call in here.

The program modules (``programs.py`` of a corpus, or the fidelity corpus's) define ``PROGRAMS``,
name -> a builder returning ``(f, args)``, and ``bind(jax, jnp, lax, random, nn)``, which points
them at JAX or at the engine. Importing this module needs neither.
"""

from __future__ import annotations

import difflib
import importlib
import json
import pathlib
from typing import Any, Optional


class Corpus:
    """Programs from ``modules`` (dotted names), lowered to ``dialect`` (None: StableHLO, the
    default of ``as_text``), with JAX's texts in ``folder/expected.json``."""

    def __init__(self, folder: pathlib.Path, dialect: Optional[str], modules: tuple[str, ...], label: str):
        self.folder, self.dialect, self.modules, self.label = folder, dialect, modules, label

    def expected(self) -> dict:
        return json.loads((self.folder / "expected.json").read_text())["programs"]

    def all_programs(self) -> dict:
        """Every module's programs, by name."""
        return {n: b for m in self.modules for n, b in importlib.import_module(m).PROGRAMS.items()}

    def text(self, jax: Any, build: Any) -> str:
        """``build``'s program lowered by ``jax`` (JAX or the engine, its modules bound to it)."""
        f, args, *options = build()  # a third item: options for the top-level jit (donate_argnums, ...)
        lowered = jax.jit(f, **(options[0] if options else {})).lower(*args)
        return lowered.as_text() if self.dialect is None else lowered.as_text(self.dialect)

    def bind(self, jax: Any) -> None:
        """Point the program modules at ``jax`` (JAX, or the engine)."""
        parts = ("numpy", "lax", "random", "nn")
        jnp, lax, random, nn = (importlib.import_module(f"{jax.__name__}.{m}") for m in parts)
        for m in self.modules:
            importlib.import_module(m).bind(jax, jnp, lax, random, nn)

    def run(self, names: Optional[set] = None) -> dict:
        """name -> (status, JAX's text, the engine's text or error); status is same / differ / error."""
        import engine

        self.bind(engine)
        want = self.expected()
        out = {}
        for name, build in self.all_programs().items():
            if (names and name not in names) or "text" not in want.get(name, {}):
                continue
            try:
                got = self.text(engine, build)
            except Exception as e:  # reported, not hidden
                out[name] = ("error", want[name]["text"], f"{type(e).__name__}: {e}")
                continue
            out[name] = ("same" if got == want[name]["text"] else "differ", want[name]["text"], got)
        return out

    def main(self, argv: list[str], quiet_refusals: bool = False) -> None:
        """Print each difference (and error; with ``quiet_refusals`` a NotImplementedError only when
        programs are named), then the summary."""
        results = self.run(set(argv) or None)
        for name, (status, want, got) in results.items():
            if status == "differ":
                diff = difflib.unified_diff(
                    want.splitlines(), got.splitlines(), "jax", "engine", lineterm="", n=1
                )
                print(f"=== {name}\n" + "\n".join(list(diff)[:40]))
            elif status == "error" and (argv or not quiet_refusals or "NotImplementedError" not in got):
                print(f"=== {name}: {got[:300]}")
        same = sum(s == "same" for s, _, _ in results.values())
        errors = sum(s == "error" for s, _, _ in results.values())
        print(f"{self.label}: {same}/{len(results)} identical; {errors} raise")

    def record(self) -> None:
        """Record JAX's texts (run with JAX's venv); a program JAX cannot lower is recorded with its
        error and left out of the score."""
        import jax

        assert jax.__version__ == "0.10.2", jax.__version__
        self.bind(jax)
        expected = {}
        for name, build in self.all_programs().items():
            try:
                expected[name] = {"text": self.text(jax, build)}
            except Exception as e:  # recorded, not hidden: the tests leave these out
                expected[name] = {"error": f"{type(e).__name__}: {e}"[:300]}
        out = self.folder / "expected.json"
        out.write_text(json.dumps({"jax_version": jax.__version__, "programs": expected}, indent=1) + "\n")
        errors = [n for n, v in expected.items() if "error" in v]
        print(f"{len(expected)} programs recorded to {out}; JAX cannot lower {len(errors)}: {errors}")
