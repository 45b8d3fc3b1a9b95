"""Structured control flow: ``cond``/``switch`` (``cond.py``), ``while_loop``/``fori_loop``
(``loops.py``), ``scan``/``map`` (``scan.py``), sharing ``control_flow_common.py``.

Each is one primitive whose bodies are closed jaxprs in its params (printed inline, inspectable):
``cond[branches]``, ``while[cond_jaxpr body_jaxpr]``, ``scan[jaxpr]``. Bodies are closure-converted:
whatever a body closes over becomes an explicit operand, so every rule (jvp, partial eval,
transpose, batching, lowering) sees all data flow. As in JAX, ``cond`` and ``scan`` are
differentiable in both modes, ``while_loop`` in forward mode only; ``fori_loop`` with concrete
bounds is a ``scan`` so that it differentiates in reverse mode too. ``vmap`` of a ``cond`` with a
batched predicate runs every branch and selects.
"""

from __future__ import annotations

from .cond import cond, cond_p, platform_dependent, switch  # noqa: F401
from .loops import fori_loop, while_loop, while_p  # noqa: F401
from .scan import map, scan, scan_p  # noqa: F401
from . import cond_remat, scan_remat  # noqa: F401,E402  (their splits under a remat's policy)

__all__ = [
    "cond",
    "switch",
    "platform_dependent",
    "while_loop",
    "fori_loop",
    "scan",
    "map",
    "cond_p",
    "while_p",
    "scan_p",
]
