"""``x.at[idx]``: the functional update helper (``set``, ``add``, ``multiply``, ``min``, ``get``, ...),
each one scatter of the indexing gather (``_indexing.scatter_update``)."""

from __future__ import annotations


from .. import lax
from ._indexing import rewriting_take, scatter_update
from ._promote import as_operand


class _IndexUpdateHelper:
    """``x.at``: indexable, giving an ``_IndexUpdateRef`` with the update methods."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[idx]``: functional updates returning a new array (out-of-bounds updates are dropped).

    >>> jnp.zeros(3).at[1].set(5.0)
    Array([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        fill_value=None,
        out_sharding=None,
        wrap_negative_indices=True,
    ):
        from ..sharding import PartitionSpec, get_abstract_mesh, spec_without_mesh

        if isinstance(out_sharding, PartitionSpec) and get_abstract_mesh().empty:
            raise spec_without_mesh(out_sharding)  # (JAX checks it first, before any slicing)
        return rewriting_take(
            self.array,
            self.index,
            mode=mode,
            fill_value=fill_value,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
            normalize_indices=wrap_negative_indices,
            out_sharding=out_sharding,
        )

    def _update(
        self,
        fn,
        values,
        indices_are_sorted,
        unique_indices,
        mode,
        wrap=True,
        out_sharding=None,
        api_name=".set",
    ):
        return scatter_update(
            self.array,
            self.index,
            values,
            fn,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            normalize_indices=wrap,
            out_sharding=out_sharding,
            api_name=api_name,
        )

    def _ones_but(self, values, indices_are_sorted, unique_indices, mode, wrap, out_sharding, api_name):
        # Ones with ``values`` multiplied in at the index (JAX builds divide and power this way).
        from ._creation import ones_like

        return scatter_update(
            ones_like(as_operand(self.array)),
            self.index,
            values,
            lax.scatter_mul,
            mode=mode,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            normalize_indices=wrap,
            out_sharding=out_sharding,
            api_name=api_name,
        )

    def apply(
        self, func, *, indices_are_sorted=False, unique_indices=False, mode=None, wrap_negative_indices=True
    ):
        """``func`` applied to each indexed element, once per time the index occurs (as JAX's
        ``scatter_apply``); not differentiable (JAX's scatter has no JVP with a combiner)."""
        from ._creation import zeros_like

        def scatter_fn(x, indices, y, dnums, **kwargs):
            return lax.scatter_apply(x, indices, func, dnums, update_shape=y.shape, **kwargs)

        zero = zeros_like(as_operand(self.array), shape=())
        return self._update(scatter_fn, zero, indices_are_sorted, unique_indices, mode, wrap_negative_indices)


def _update_method(name: str, scatter=None, ufunc_name: str | None = None):
    """``x.at[idx].<name>(values)``: ``values`` combined into ``x[idx]`` by ``scatter``; or, with
    ``ufunc_name``, that ufunc of ``x`` and ones with ``values`` at the index (JAX's divide, power)."""

    def method(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
        wrap_negative_indices=True,
    ):
        flags = (indices_are_sorted, unique_indices, mode, wrap_negative_indices, out_sharding, f".{name}")
        if ufunc_name is None:
            return self._update(scatter, values, *flags)
        from . import _ufuncs

        return getattr(_ufuncs, ufunc_name)(as_operand(self.array), self._ones_but(values, *flags))

    method.__name__ = method.__qualname__ = name
    return method


for _name, _scatter in (
    ("set", lax.scatter),
    ("add", lax.scatter_add),
    ("subtract", lax.scatter_sub),
    ("multiply", lax.scatter_mul),
    ("min", lax.scatter_min),
    ("max", lax.scatter_max),
):
    setattr(_IndexUpdateRef, _name, _update_method(_name, _scatter))
_IndexUpdateRef.mul = _IndexUpdateRef.multiply
_IndexUpdateRef.divide = _update_method("divide", ufunc_name="divide")
_IndexUpdateRef.power = _update_method("power", ufunc_name="power")
