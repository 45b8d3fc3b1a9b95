"""numba's warning handling made harmless in the engine's background compile thread.

numba compiles inside ``warnings.catch_warnings`` (type inference records warnings to fix their
lines; the compiler retries with its warnings ignored). That context saves the process-wide warning
filters and ``showwarning`` on entry and puts them back on exit, whichever thread runs it. Run in the
compile thread while the user's code, in the main thread, is inside a ``catch_warnings`` of its own,
it put back the state from before the user's block, so a warning the user's code then raised (JAX's
"Some donated buffers were not usable") was printed instead of recorded, or recorded into numba's
list: lost. In the compile thread numba now gets a ``warnings`` whose ``catch_warnings`` and filter
calls change nothing; its own warnings there go where the process's filters send them.
"""

from __future__ import annotations

import contextlib
import threading
import types
import warnings
from typing import Any, Iterator

COMPILE_THREAD = "engine-compile"  # (jit_runtime's background compile thread's name)
_installed = [False]


def _in_compile_thread() -> bool:
    return threading.current_thread().name == COMPILE_THREAD


class _ThreadAwareWarnings(types.ModuleType):
    """The ``warnings`` module, but a no-op ``catch_warnings`` and filters in the compile thread."""

    def __getattr__(self, name: str) -> Any:
        return getattr(warnings, name)

    def catch_warnings(self, *args: Any, **kwargs: Any) -> Any:
        if _in_compile_thread():
            return _nothing_caught(kwargs.get("record", False))
        return warnings.catch_warnings(*args, **kwargs)

    def simplefilter(self, *args: Any, **kwargs: Any) -> None:
        if not _in_compile_thread():
            warnings.simplefilter(*args, **kwargs)

    def filterwarnings(self, *args: Any, **kwargs: Any) -> None:
        if not _in_compile_thread():
            warnings.filterwarnings(*args, **kwargs)


@contextlib.contextmanager
def _nothing_caught(record: bool) -> Iterator[list | None]:
    yield [] if record else None


_PROXY = _ThreadAwareWarnings("warnings")
# numba's modules that enter catch_warnings while compiling (typeinfer's through errors')
_MODULES = ("numba.core.errors", "numba.core.compiler", "numba.np.arraymath", "numba.np.ufunc.ufuncbuilder")


def install() -> None:
    """Give numba's compiling modules the thread-aware ``warnings`` (idempotent)."""
    if _installed[0]:
        return
    import importlib

    for name in _MODULES:
        module = importlib.import_module(name)
        if getattr(module, "warnings", None) is warnings:
            module.warnings = _PROXY  # type: ignore[attr-defined]
    _installed[0] = True
