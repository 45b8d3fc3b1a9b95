"""Traced values a ``custom_jvp`` or ``custom_vjp`` rule closes over, read from the staged call's operands.

A rule defined inside a traced function often closes over that function's traced values::

    def f(y):
        @jax.custom_jvp
        def g(x): return jnp.sin(x)
        g.defjvp(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * y * t[0]))
        return g(2 * y)

Under ``jit`` the call is staged and its rule kept as a Python callable; differentiating the jit's
jaxpr later applies the rule after the trace that made ``y`` has ended, so ``y`` is dead there.
(JAX 0.10.2 fails on this too, with ``TypeError: No constant handler for type ...Tracer``, under
``grad(jit(f))``, ``grad(grad(jit(f)))`` and the like.) So the live tracers in the rule's closure cells
(and in those of the functions and custom functions it closes over) become extra operands of the
staged call, and while the rule runs on a staged call, those cells hold the operands' current values:
the rule sees the same ``y``, as the jaxpr being differentiated now has it. A value reached some
other way (an attribute, a global, a default argument) is not found, and stays as it was.

A ``custom_vjp``'s fwd and bwd are searched together. fwd reads the values from the call's operands
like a JVP rule; bwd runs when the linearized call is transposed, where those operands are not at
hand, so fwd passes the values it saw on to bwd as extra residuals. As in JAX, the rules are not
differentiated with respect to these values: the call's tangent ignores theirs (a value the primal
function itself closes over is another matter: differentiating with respect to it raises JAX's
``CustomVJPException``).
"""

from __future__ import annotations

import types
from contextlib import contextmanager
from typing import Any, Iterator, NamedTuple

from . import core
from .tree_util import tree_flatten, tree_unflatten


class CapturedCell(NamedTuple):
    """A closure cell whose contents (a pytree) hold live tracers at ``positions`` of its leaves."""

    cell: Any
    treedef: Any
    leaves: list
    positions: list[int]


def _operand_of(t, level: int) -> bool:
    """Whether ``t`` is a live tracer that a call staged at ``level`` can take as an operand (a tracer
    of an inner transformation running now, such as a grad inside the jit, cannot)."""
    if not isinstance(t, core.Tracer):
        return False
    main = t._trace.main
    stack = core._state.stack
    return main.level <= level and main.level < len(stack) and stack[main.level] is main


def captured_tracers(rules, level: int) -> tuple[list[CapturedCell], list[core.Tracer]]:
    """The cells of the ``rules``' closures holding live tracers of a call staged at ``level``, and
    those tracers (in operand order; a cell the rules share, as a custom_vjp's fwd and bwd may, once)."""
    cells: list[CapturedCell] = []
    tracers: list[core.Tracer] = []
    seen: set[int] = set()  # (functions and cells: a cell shared by two closures is captured once)

    def visit(fn) -> None:
        if id(fn) in seen:
            return
        seen.add(id(fn))
        inner = getattr(fn, "__wrapped__", None)
        if inner is not None:
            visit(inner)
        if hasattr(fn, "fun") and hasattr(fn, "nondiff_argnums"):  # a custom_jvp/custom_vjp: its parts
            parts = [getattr(fn, name, None) for name in ("fun", "jvp", "fwd", "bwd")]
            for part in parts:
                if part is not None:
                    visit(part)
            return
        if not isinstance(fn, types.FunctionType):
            return
        for cell in fn.__closure__ or ():
            if id(cell) in seen:
                continue
            seen.add(id(cell))
            try:
                contents = cell.cell_contents
            except ValueError:  # (a cell not yet assigned)
                continue
            if callable(contents) and not isinstance(contents, core.Tracer):
                visit(contents)
                continue
            leaves, treedef = tree_flatten(contents)
            positions = [i for i, x in enumerate(leaves) if _operand_of(x, level)]
            if positions:
                tracers.extend(leaves[i] for i in positions)
                kept = [None if i in positions else x for i, x in enumerate(leaves)]  # (no tracer kept)
                cells.append(CapturedCell(cell, treedef, kept, positions))

    for rule in rules:
        visit(rule)
    return cells, tracers


@contextmanager
def cells_holding(cells: list[CapturedCell], values) -> Iterator[None]:
    """While the rule runs, each captured tracer's cell holds the matching value of ``values`` (None:
    the rule runs where it was staged, its cells still hold live tracers)."""
    if not cells or values is None:
        yield
        return
    it = iter(values)
    saved = [c.cell.cell_contents for c in cells]
    for c in cells:
        leaves = list(c.leaves)
        for i in c.positions:
            leaves[i] = next(it)
        c.cell.cell_contents = tree_unflatten(c.treedef, leaves)
    try:
        yield
    finally:
        for c, contents in zip(cells, saved):
            c.cell.cell_contents = contents
