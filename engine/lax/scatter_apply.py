"""``scatter_apply``: XLA's Scatter with a Python function as its combiner (``x.at[idx].apply(f)``),
the function traced once per operand type and cached as JAX caches it."""

from __future__ import annotations

import weakref

from .. import core
from ..core import ShapedArray
from .gather_scatter import GatherScatterMode, ScatterDimensionNumbers, _lax, _tuple_dnums, scatter_p

# The combiner jaxpr of each function given to scatter_apply, per operand type: as JAX caches it,
# so applying one function twice shows one shared jaxpr.
_apply_jaxprs: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def scatter_apply(
    operand,
    scatter_indices,
    func,
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape=(),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode=None,
):
    """``func`` applied at each index of ``operand`` (once per occurrence of the index), XLA's
    Scatter with ``func`` as its combiner. Prefer ``x.at[idx].apply(func)``; not differentiable.

    >>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                              scatter_dims_to_operand_dims=(0,))
    >>> scatter_apply(jnp.ones(3), jnp.array([[1]]), lambda x: x * 5, dn, update_shape=(1,))
    Array([1., 5., 1.], dtype=float32)
    """
    from ..staging import trace_to_jaxpr

    lax = _lax()
    aval = core.get_aval(operand)
    unused = lax.full(tuple(update_shape), 0, aval.dtype)
    scalar = ShapedArray((), aval.dtype, aval.weak_type)
    try:
        per_func = _apply_jaxprs.setdefault(func, {})
    except TypeError:  # not weakly referenceable: traced each time
        per_func = {}
    closed = per_func.get(scalar)
    if closed is None:
        closed = per_func[scalar] = trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar])
        if any(isinstance(c, core.Tracer) for c in closed.consts):
            raise NotImplementedError("scatter_apply: the function cannot close over traced values")
    return scatter_p.bind(
        operand,
        scatter_indices,
        unused,
        update_jaxpr=closed,
        update_consts=tuple(closed.consts),
        dimension_numbers=_tuple_dnums(ScatterDimensionNumbers, dimension_numbers),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=GatherScatterMode.from_any(mode),
    )
