"""``jax.sharding.PartitionSpec`` (``jax.P``): per array dimension, the mesh axes splitting it.

As JAX's since 0.7 it is not a tuple (``isinstance(P('x'), tuple)`` is False) but reads like one:
``len``, iteration, indexing, ``+`` with another spec or a tuple (giving a spec), ``index`` and
``count``. A spec with ``unreduced`` or ``reduced`` axes refuses iteration and indexing, as JAX's
does, since the entries alone would drop them: code reads ``spec.partitions`` instead.
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

    __slots__ = ("partitions", "unreduced", "reduced")

    def __init__(self, *partitions, unreduced=frozenset(), reduced=frozenset()):
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
        for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
            if not isinstance(axes, (set, frozenset)):
                raise TypeError(
                    f"{name} argument of PartitionSpec should of type `frozenset` or `set`. Got type {axes}"
                )
        # unreduced: mesh axes over which the value is a sum of the devices' pieces; reduced: axes
        # over which it is replicated with an unreduced cotangent
        unreduced, reduced = frozenset(unreduced), frozenset(reduced)
        _check(partitions, unreduced, reduced)
        self.partitions, self.unreduced, self.reduced = partitions, unreduced, reduced

    def __init_subclass__(cls, *args, **kwargs):
        raise TypeError("Subclassing `jax.P` is prohibited.")

    def __reduce__(self):
        return (_spec, (self.partitions, self.unreduced, self.reduced))

    def __repr__(self):
        pr = repr(self.partitions)[1:-1]
        if not self.unreduced and not self.reduced:
            return f"P({pr})"
        pr = "" if not pr else f"{pr} " if pr.endswith(",") else f"{pr}, "
        sets = [f"{k}={set(v)!r}" for k, v in (("unreduced", self.unreduced), ("reduced", self.reduced)) if v]
        return f"P({pr}{', '.join(sets)})"

    __str__ = __repr__

    def _whole(self, what: str) -> tuple:
        if self.unreduced or self.reduced:  # (JAX: the entries alone would lose these axes)
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
                *self.partitions,
                *other.partitions,
                unreduced=self.unreduced | other.unreduced,
                reduced=self.reduced | other.reduced,
            )
        if isinstance(other, tuple):
            self._no_tuple(other, "__add__")
            return PartitionSpec(*self.partitions, *other)
        raise NotImplementedError

    def __radd__(self, other):
        if not isinstance(other, tuple):
            raise NotImplementedError
        self._no_tuple(other, "__radd__")
        return PartitionSpec(*other, *self.partitions)

    def _no_tuple(self, other, method):
        for name in ("unreduced", "reduced"):
            if getattr(self, name):
                raise TypeError(
                    f"other {other} cannot be of instance `tuple` when self {self} has {name} in "
                    f"`{method}` of PartitionSpec."
                )

    def index(self, value):
        return self.partitions.index(_canonical_entry(value))

    def count(self, value):
        return self.partitions.count(_canonical_entry(value))

    def update(self, partitions=None, unreduced=None, reduced=None) -> "PartitionSpec":
        return PartitionSpec(
            *(self.partitions if partitions is None else partitions),
            unreduced=self.unreduced if unreduced is None else unreduced,
            reduced=self.reduced if reduced is None else reduced,
        )

    def to_ct_spec(self) -> "PartitionSpec":
        """The spec of a cotangent of a value laid out by this one: unreduced and reduced swap."""
        return self.update(unreduced=self.reduced, reduced=self.unreduced)

    def __eq__(self, other):
        return (
            type(other) is PartitionSpec
            and self.partitions == other.partitions
            and self.unreduced == other.unreduced
            and self.reduced == other.reduced
        )

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(("PartitionSpec", self.partitions, self.unreduced, self.reduced))

    def _normalized_spec_for_aval(self, ndim: int) -> "PartitionSpec":
        return self.update(partitions=(*self.partitions, *([None] * (ndim - len(self.partitions)))))

    def example_spec(self, ndim: int, dim: int) -> "PartitionSpec | None":
        """The spec of one example of a value of ``ndim`` dimensions that ``vmap`` maps over
        dimension ``dim`` (its entry gone); None when that dimension is split."""
        parts = list(self._normalized_spec_for_aval(ndim).partitions)
        return None if parts.pop(dim) is not None else self.update(partitions=tuple(parts))


PartitionSpec.UNCONSTRAINED = UNCONSTRAINED  # type: ignore[attr-defined]
P = PartitionSpec


def _spec(partitions, unreduced, reduced=frozenset()):
    return PartitionSpec(*partitions, unreduced=unreduced, reduced=reduced)


def _check(partitions, unreduced, reduced) -> None:
    """JAX's checks: unreduced and reduced name mesh axes, neither each other's nor a partition's."""
    if not unreduced and not reduced:
        return
    for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
        if None in axes:
            raise ValueError(
                f"{name} cannot contain None. All elements in {name} should refer to the mesh axes."
            )
    if unreduced & reduced:
        raise ValueError(
            "`unreduced` and `reduced` argument to PartitionSpec cannot overlap. "
            f"Got unreduced: {unreduced} and reduced: {reduced}"
        )
    for entry in partitions:
        for p in entry if isinstance(entry, tuple) else (entry,):
            for name, axes in (("unreduced", unreduced), ("reduced", reduced)):
                if p in axes:
                    raise ValueError(
                        f"partitions cannot overlap with {name} axes passed to PartitionSpec. "
                        f"Got partitions: {partitions} and {name} axes: {axes}"
                    )
