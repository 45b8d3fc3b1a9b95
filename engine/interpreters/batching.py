"""``jax.interpreters.batching``: ``primitive_batchers[p] = rule`` with
``rule(batched_args, batch_dims, **params) -> (out, out_dim)``; an unbatched argument's dimension
is ``not_mapped`` (``None``), as in JAX.

>>> from engine.extend import core
>>> p = core.Primitive("double_batch_doc")
>>> _ = p.def_impl(lambda x: 2 * x)
>>> primitive_batchers[p] = lambda args, dims: (p.bind(*args), dims[0])
>>> jax.vmap(p.bind)(jax.numpy.arange(3.0))
Array([0., 2., 4.], dtype=float32)
"""

from __future__ import annotations

from typing import Any, Callable

from .. import batching
from .ad import RuleTable

not_mapped = None


def _dim_in(d: Any) -> Any:
    return None if d is batching.not_mapped else d


def _dim_out(d: Any) -> Any:
    return batching.not_mapped if d is None else d


def _with_jax_dims(rule: Callable[..., Any]) -> Callable[..., Any]:
    def engine_rule(axis_size: int, vals: Any, dims: Any, **params: Any) -> Any:
        out, out_dims = rule(tuple(vals), tuple(_dim_in(d) for d in dims), **params)
        if isinstance(out_dims, (list, tuple)):
            return out, [_dim_out(d) for d in out_dims]
        return out, _dim_out(out_dims)

    return engine_rule


primitive_batchers = RuleTable(batching.batch_rules, _with_jax_dims)
