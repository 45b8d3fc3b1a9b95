"""``jax.interpreters.ad``: forward- and reverse-mode rule tables under JAX's names.

``primitive_jvps[p] = rule`` with ``rule(primals, tangents, **params) -> (primal_out,
tangent_out)`` (tuples in, symbolic ``Zero`` tangents); ``primitive_transposes[p] = rule`` with
``rule(cotangent, *args, **params)`` where the linear arguments are ``UndefinedPrimal``.

>>> from engine.extend import core
>>> p = core.Primitive("double_doc")
>>> _ = p.def_impl(lambda x: 2 * x)
>>> primitive_jvps[p] = lambda primals, tangents: (p.bind(*primals), p.bind(*tangents))
>>> jax.jvp(p.bind, (1.0,), (1.0,))
(Array(2., dtype=float32), Array(2., dtype=float32))
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, MutableMapping

from .. import ad, core
from ..ad import UndefPrimal as UndefinedPrimal  # noqa: F401
from ..ad import Zero, defjvp, instantiate_zeros  # noqa: F401
from ..ad import is_undefined as is_undefined_primal  # noqa: F401


class RuleTable(MutableMapping):
    """A view of one of the engine's rule tables that stores users' rules adapted to its
    calling convention (and gives them back as they were given)."""

    def __init__(self, table: dict, adapt: Callable[[Callable[..., Any]], Callable[..., Any]]):
        self._table, self._adapt = table, adapt
        self._given: dict[core.Primitive, Callable[..., Any]] = {}

    def __getitem__(self, p: core.Primitive) -> Callable[..., Any]:
        return self._given[p] if p in self._given else self._table[p]

    def __setitem__(self, p: core.Primitive, rule: Callable[..., Any]) -> None:
        self._given[p] = rule
        self._table[p] = self._adapt(rule)

    def __delitem__(self, p: core.Primitive) -> None:
        self._given.pop(p, None)
        del self._table[p]

    def __iter__(self) -> Iterator[core.Primitive]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)


def _jvp_with_tuples(rule: Callable[..., Any]) -> Callable[..., Any]:
    return lambda primals, tangents, **params: rule(tuple(primals), tuple(tangents), **params)


primitive_jvps = RuleTable(ad.jvp_rules, _jvp_with_tuples)
primitive_transposes = RuleTable(ad.transpose_rules, lambda rule: rule)
