"""``jax.check_tracer_leaks``: when a ``jit``/``make_jaxpr`` trace or a ``vmap`` finishes, any of
its tracers still referenced (kept in a global, a closure, a list) is an error, as in JAX.

Off (the default), the hooks cost one list read per finished trace (a cached ``jit`` trace is not traced again, so not checked, as in JAX).
"""

from __future__ import annotations

import gc
import types

from . import core

# The trace names JAX's message uses for the engine's traces.
_JAX_NAMES = {"JaxprTrace": "DynamicJaxprTrace", "BatchTrace": "BatchTrace"}


# jax_check_tracer_leaks, kept here by config.update.
active = [False]


def enabled() -> bool:
    return active[0]


def check(main: core.MainTrace) -> None:
    """Raise if a tracer of the finished trace ``main`` is still alive."""
    main.global_data = None  # (the trace's own bookkeeping is not a leak)
    gc.collect()
    traces = [r for r in gc.get_referrers(main) if isinstance(r, core.Trace)]
    leaked = [t for tr in traces for t in gc.get_referrers(tr) if isinstance(t, core.Tracer)]
    if not leaked:
        return
    name = _JAX_NAMES.get(main.trace_type.__name__, main.trace_type.__name__)
    lines = [f"Leaked trace {name}. Leaked tracer(s):", ""]
    for t in leaked:
        lines.append(repr(t))
        lines += [f"<{type(t).__name__} {id(t)}> is referred to by {_holder(r, t)}" for r in _holders(t)]
        lines.append("")
    raise Exception("\n".join(lines))  # (JAX raises a plain Exception)


def _holders(obj) -> list:
    return [r for r in gc.get_referrers(obj) if not isinstance(r, types.FrameType)]


def _holder(ref, obj) -> str:
    if isinstance(ref, (list, tuple)):
        idx = next((i for i, v in enumerate(ref) if v is obj), "?")
        return f"<{type(ref).__name__} {id(ref)}>[{idx}]"
    if isinstance(ref, dict):
        key = next((k for k, v in ref.items() if v is obj), "?")
        return f"<dict {id(ref)}>[{key!r}]"
    return f"<{type(ref).__name__} {id(ref)}>"
