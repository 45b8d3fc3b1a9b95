"""``jax.sharding.PartitionSpec`` (``jax.P``): per array dimension, the mesh axes splitting it.

As JAX's since 0.7 it is not a tuple (``isinstance(P('x'), tuple)`` is False) but reads like one:
``len``, iteration, indexing, ``+`` with another spec or a tuple (giving a spec), ``index`` and
``count``. A spec with ``unreduced`` axes refuses iteration and indexing, as JAX's does, since the
entries alone would drop them: code reads ``spec.partitions`` instead.
"""

from __future__ import annotations

from .core import jax_class_path


class _Unconstrained:
    """A ``PartitionSpec`` entry that leaves a dimension's layout as it is (``P.UNCONSTRAINED``)."""

    def __repr__(self):
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_unconstrained, ())


UNCONSTRAINED = _Unconstrained()


def _unconstrained():
    return UNCONSTRAINED


def _canonical_entry(p):
    if isinstance(p, list):
        p = tuple(p)
    if type(p) is tuple and len(p) <= 1:
        return p[0] if p else None
    return p


@jax_class_path("jax.P")
class PartitionSpec:
    """Per array dimension, the mesh axis (or tuple of axes, or None) it is split over.

    >>> P("batch", None)
    P('batch', None)
    """

    __slots__ = ("partitions", "unreduced")

    def __init__(self, *partitions, unreduced=frozenset()):
        # As JAX canonicalizes them: a list is a tuple, () is None and a 1-tuple its axis, so
        # P(("x",)) == P("x") and P(["x", "y"]) == P(("x", "y")).
        partitions = tuple(_canonical_entry(p) for p in partitions)
        for p in partitions:
            if not (
                p is None
                or p is UNCONSTRAINED
                or isinstance(p, str)
                or (isinstance(p, tuple) and all(isinstance(a, str) for a in p))
            ):
                raise TypeError(
                    f"PartitionSpec entries must be axis names, tuples of them or None; got {p!r}"
                )
        if not isinstance(unreduced, (set, frozenset)):
            raise TypeError(
                f"unreduced argument of PartitionSpec should of type `frozenset` or `set`. Got type {unreduced}"
            )
        # (mesh axes over which the value is a sum of the devices' pieces)
        self.partitions, self.unreduced = partitions, frozenset(unreduced)

    def __init_subclass__(cls, *args, **kwargs):
        raise TypeError("Subclassing `jax.P` is prohibited.")

    def __reduce__(self):
        return (_spec, (self.partitions, self.unreduced))

    def __repr__(self):
        pr = repr(self.partitions)[1:-1]
        if not self.unreduced:
            return f"P({pr})"
        pr = "" if not pr else f"{pr} " if pr.endswith(",") else f"{pr}, "
        return f"P({pr}unreduced={set(self.unreduced)!r})"

    __str__ = __repr__

    def _whole(self, what: str) -> tuple:
        if self.unreduced:  # (JAX: the entries alone would lose the unreduced axes)
            raise ValueError(
                f"Using {what} is dangerous when PartitionSpec has non-empty unreduced/reduced set. "
                f"Please use {'spec.partitions[...]' if what == 'pspec[...]' else '*spec.partitions'}"
            )
        return self.partitions

    def __getitem__(self, i):
        return self._whole("pspec[...]")[i]

    def __iter__(self):
        return iter(self._whole("*pspec"))

    def __len__(self):
        return len(self.partitions)

    def __add__(self, other):
        if isinstance(other, PartitionSpec):
            return PartitionSpec(
                *self.partitions, *other.partitions, unreduced=self.unreduced | other.unreduced
            )
        if isinstance(other, tuple):
            return PartitionSpec(*self._whole("+"), *other)
        raise NotImplementedError

    def __radd__(self, other):
        if not isinstance(other, tuple):
            raise NotImplementedError
        return PartitionSpec(*other, *self._whole("+"))

    def index(self, value):
        return self.partitions.index(_canonical_entry(value))

    def count(self, value):
        return self.partitions.count(_canonical_entry(value))

    def update(self, partitions=None, unreduced=None) -> "PartitionSpec":
        return PartitionSpec(
            *(self.partitions if partitions is None else partitions),
            unreduced=self.unreduced if unreduced is None else unreduced,
        )

    def __eq__(self, other):
        return (
            type(other) is PartitionSpec
            and self.partitions == other.partitions
            and self.unreduced == other.unreduced
        )

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(("PartitionSpec", self.partitions, self.unreduced))

    def _normalized_spec_for_aval(self, ndim: int) -> "PartitionSpec":
        return self.update(partitions=(*self.partitions, *([None] * (ndim - len(self.partitions)))))


PartitionSpec.UNCONSTRAINED = UNCONSTRAINED  # type: ignore[attr-defined]
P = PartitionSpec


def _spec(partitions, unreduced):
    return PartitionSpec(*partitions, unreduced=unreduced)
