"""Where JAX's docstrings live in its source, and their examples read back from a JAX checkout.

The examples are JAX's text, so ``recorded/<module>.json`` keeps none of it: per docstring, the
file (``jax/_src/numpy/lax_numpy.py``), the line its string starts on and the qualified name of the
function or class it documents; per example, a hash of its source (``doc_cells.cell_hash``). At
test time the sources are read from a git checkout of JAX at ``doc_cells.TAG`` (``JAXPLAY_JAX_DOCS``).
A docstring that is not a literal in JAX's source (built at import time, or numpy's on an object
JAX re-exports) cannot be read back, so it is not scored.
"""

from __future__ import annotations

import ast
import doctest
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "jax_docs"))
import doc_cells  # noqa: E402

NOT_LITERAL = "docstring built at import time: not a literal in JAX's source, so not readable from a checkout"
NOT_JAX = (
    "another library's object (numpy, ml_dtypes) that JAX re-exports: its docstring is not in JAX's source"
)


def unreadable_reason(obj) -> str:
    """Why a docstring found on ``obj`` at import time is not in JAX's source."""
    module = getattr(obj, "__module__", None) or type(obj).__module__
    return NOT_LITERAL if module.split(".")[0] == "jax" else NOT_JAX


_PARSER = doctest.DocTestParser()
_DOCUMENTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def example_sources(doc: str) -> tuple[str, ...]:
    return tuple(e.source for e in _PARSER.get_examples(doc))


def _docstrings(text: str):
    """(line the docstring starts on, qualified name, docstring) of each function and class."""
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _DOCUMENTED):
                qualname = prefix + child.name
                doc = ast.get_docstring(child, clean=False)
                if doc is not None:
                    found.append((child.body[0].lineno, qualname, doc))
                walk(child, qualname + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(text), "")
    return found


def index_package(package_dir: pathlib.Path) -> dict[tuple[str, ...], list[dict]]:
    """Examples -> where docstrings with exactly those examples are, for every file of the installed
    ``jax`` package (record time)."""
    index: dict[tuple[str, ...], list[dict]] = {}
    for file in sorted(package_dir.rglob("*.py")):
        path = "jax/" + file.relative_to(package_dir).as_posix()
        for line, qualname, doc in _docstrings(file.read_text()):
            examples = example_sources(doc)
            if examples:
                index.setdefault(examples, []).append({"path": path, "line": line, "qualname": qualname})
    return index


class SourceMismatch(Exception):
    """The checkout's docstring is not the recorded one (not JAX 0.10.2)."""


def attach_sources(docstrings: list[dict], repo: pathlib.Path) -> None:
    """Give each recorded example its ``source``, read from the checkout; raises SourceMismatch when
    a docstring is missing there or an example's hash differs."""
    files: dict[str, dict[int, tuple[str, str]]] = {}
    for d in docstrings:
        if "path" not in d:
            continue
        if d["path"] not in files:
            text = doc_cells.file_text(d["path"], repo)
            files[d["path"]] = {line: (q, doc) for line, q, doc in _docstrings(text)}
        qualname, doc = files[d["path"]].get(d["line"], (None, ""))
        sources = example_sources(doc)
        where = f"{d['name']} ({d['path']}:{d['line']} {d['qualname']})"
        if qualname != d["qualname"] or len(sources) != len(d["examples"]):
            raise SourceMismatch(f"{where}: no such docstring in the checkout; is it JAX at {doc_cells.TAG}?")
        for i, (ex, source) in enumerate(zip(d["examples"], sources)):
            if doc_cells.cell_hash(source) != ex["hash"]:
                raise SourceMismatch(
                    f"{where}: example {i} differs from the recorded one; is the checkout JAX at {doc_cells.TAG}?"
                )
            ex["source"] = source
