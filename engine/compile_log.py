"""``jax.log_compiles``, ``jax.explain_cache_misses`` and ``jax.no_tracing``: what ``jit`` reports
(to the ``logging`` module, at WARNING, on JAX's loggers) or refuses when it has to trace a
function again. Each is a context manager and a ``jax.config`` option (``jax_log_compiles``, ...).

>>> import engine as jax
>>> with jax.no_tracing():
...     pass
"""

from __future__ import annotations

import contextlib
import inspect
import logging

from .config import config
from .jit_cache_miss import CacheMiss

__all__ = ["explain_cache_misses", "log_compiles", "no_tracing"]

_FLAGS = ("jax_log_compiles", "jax_explain_cache_misses", "jax_no_tracing")


def active() -> bool:
    values = config.values
    return any(values.get(f) for f in _FLAGS)


def _source(fun) -> str:
    name = getattr(fun, "__name__", type(fun).__name__)
    try:
        return f"{name} at {inspect.getsourcefile(fun)}:{inspect.getsourcelines(fun)[1]}"
    except (TypeError, OSError):
        return name


def on_miss(name: str, fun, avals, miss: CacheMiss | None) -> None:
    """Called by ``jit`` before it traces ``fun`` for argument types it has no program for, with why
    (None for the engine's own functions, which JAX does not explain)."""
    values = config.values
    if values.get("jax_no_tracing"):
        raise RuntimeError(f"re-tracing function {_source(fun)} for `jit`, but 'no_tracing' is set")
    if values.get("jax_explain_cache_misses") and miss is not None:
        logging.getLogger("jax._src.interpreters.partial_eval").warning(miss.log_text())
    if values.get("jax_log_compiles"):
        logging.getLogger("jax._src.interpreters.pxla").warning(
            "Compiling %s with global shapes and types %s. Argument mapping: %s.",
            f"jit({name})",
            tuple(avals),
            tuple("UnspecifiedValue" for _ in avals),
        )


def on_compiled(name: str, fallbacks: list[str]) -> None:
    """Called when a program of ``jit`` is compiled (or given up on) with what of it does not run
    as compiled code (``jit_runtime.not_compiled``): logged with the compiles, never silent."""
    if fallbacks and config.values.get("jax_log_compiles"):
        logging.getLogger("jax._src.dispatch").warning(
            "jit(%s) runs partly or wholly on the interpreter: %s", name, "; ".join(fallbacks)
        )


@contextlib.contextmanager
def _flag(name: str, enable: bool):
    before = config.values.get(name, False)
    config.update(name, bool(enable))
    try:
        yield
    finally:
        config.update(name, before)


def log_compiles(new_val: bool = True):
    """Log (WARNING) each function ``jit`` traces and compiles while the block runs."""
    return _flag("jax_log_compiles", new_val)


def explain_cache_misses(new_val: bool = True):
    """Log (WARNING) why ``jit`` had to trace a function again while the block runs."""
    return _flag("jax_explain_cache_misses", new_val)


def no_tracing(new_val: bool = True):
    """Make ``jit`` raise instead of tracing a function (again) while the block runs."""
    return _flag("jax_no_tracing", new_val)
