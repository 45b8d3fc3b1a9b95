"""Kernels shared between programs: each kernel that uses nothing but numpy, numba and the runtime
helpers is compiled once, from a disk-cache module of its own keyed by its text, and every program
whose loop nests have that text links to it instead of compiling its own copy.

Programs differ, their loop nests much less: the copy of one element of a key's data, a constant
fill, ``x * y + z`` over float32, the same nest under ``jit``, ``vmap`` and ``grad`` of one
function. A kernel costs 0.1-0.4 s of numba's and LLVM's time; in one test file 194 kernels were
only 71 distinct texts (the code generator numbers a kernel's local names in order, so equal nests
have equal text). The program's module as shown (``run.source``) keeps its kernels' text; the
module written to the cache and imported binds each shared kernel instead (``k5 = _kernel(key)``).

Not under the server's kernel service: it hands a run numba's files of the one module it compiled
for the run's program (a run may not write what another run loads), so there kernels stay inline.
"""

from __future__ import annotations

import builtins
import dis
import importlib.util
import inspect
import os
import sys
import types
from typing import Callable

HEADER = "\n".join(
    [
        "# A kernel shared by generated programs (engine.backends.numba_shared); do not edit.",
        "import numpy as np",
        "import numba as nb",
        "from engine.backends import numba_rt as rt",
        "from engine.backends.numba_runtime import _KW, A, R, RA",
        "",
        "",
    ]
)
_GLOBALS = {"np", "nb", "rt", "_KW", "A", "R", "RA"} | set(dir(builtins))


def _kernel_blocks(source: str) -> list[tuple[str, str]]:
    """The module's numba kernels that use only ``HEADER``'s names: (name, text) each.

    Read from the compiled module's code objects, not its syntax tree: this runs on the background
    compile thread, and CPython 3.11's ``ast.parse`` there can collide with a parse on the caller's
    thread (a traceback's carets, pytest's rewriting): see ``source_ast``."""
    lines = source.splitlines(keepends=True)
    blocks = []
    for code in compile(source, "<kernels>", "exec").co_consts:
        if not isinstance(code, types.CodeType) or not code.co_flags & inspect.CO_OPTIMIZED:
            continue  # (a class body is a code object too)
        start = code.co_firstlineno - 1  # (a decorated function's first line is its first decorator's)
        if lines[start].startswith("@"):
            text = "".join(lines[start : _last_line(code)])
            if _self_contained(text):
                blocks.append((code.co_name, text))
    return blocks


def _last_line(code: types.CodeType) -> int:
    """The last line a function's statements reach (its nested functions' included)."""
    ends = [end for _, end, _, _ in code.co_positions() if end is not None]
    ends += [_last_line(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    return max(ends, default=code.co_firstlineno)


def _self_contained(text: str) -> bool:
    """Whether the function ``text`` defines reads no global but ``HEADER``'s (a kernel that calls
    another kernel of its module is not shared)."""
    code = compile(text, "<kernel>", "exec")
    todo = [c for c in code.co_consts if hasattr(c, "co_code")]
    while todo:
        c = todo.pop()
        todo += [k for k in c.co_consts if hasattr(k, "co_code")]
        for ins in dis.get_instructions(c):
            if ins.opname == "LOAD_GLOBAL" and ins.argval not in _GLOBALS:
                return False
    return True


class SharedKernels:
    """One backend's shared kernels: loaded once per process, by the key of their module's text."""

    def __init__(self, module_key: Callable[[str], str], write_atomic: Callable[[str, str], None]):
        self._key, self._write = module_key, write_atomic
        self._loaded: dict[str, object] = {}

    def link(self, source: str) -> tuple[str, dict[str, str]]:
        """``source`` with each shareable kernel replaced by a binding to its shared module, and
        those modules' texts by key."""
        texts = {}
        for name, text in _kernel_blocks(source):
            module = HEADER + text.replace(f"def {name}(", "def KERNEL(", 1)
            key = self._key(module)
            texts[key] = module
            source = source.replace(text, f"{name} = _kernel({key!r})\n", 1)
        return source, texts

    def loader(self, texts: dict[str, str], cache: str, compiled: list[str]) -> Callable[[str], object]:
        """``_kernel(key)`` for a linked module: the kernel, loaded or compiled (its key then
        appended to ``compiled``)."""

        def kernel(key: str) -> object:
            k = self._loaded.get(key)
            if k is None:
                k = self._loaded[key] = self._import(key, texts[key], cache)
                if sum(k.stats.cache_hits.values()) == 0:  # type: ignore[attr-defined]
                    compiled.append(key)
            return k

        return kernel

    def ids(self) -> set[int]:
        """The ids of the kernels loaded so far (a module's own kernels are not among them)."""
        return {id(k) for k in self._loaded.values()}

    def _import(self, key: str, text: str, cache: str) -> object:
        path = os.path.join(cache, f"kernel_{key}.py")
        try:
            with open(path) as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            self._write(path, text)
        spec = importlib.util.spec_from_file_location(f"engine_kernel_{key}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # (numba's cache re-imports the module by name)
        spec.loader.exec_module(mod)  # compiles the kernel, or loads it from numba's cache
        return mod.KERNEL
