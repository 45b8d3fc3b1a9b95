"""``jax.experimental.xla_metadata``: key/value pairs XLA sees as an operation's frontend attributes.

``set_xla_metadata(x, **kv)`` tags the values of ``x`` (an identity ``xla_metadata_value``
equation, whose lowering puts the pairs on the operation that computes its operand);
``set_xla_metadata(**kv)`` is a context manager (and a decorator) putting them on the operations
of every equation traced inside it. Both reach the StableHLO text as ``mhlo.frontend_attributes``
and the HLO text as ``frontend_attributes``; the engine runs the program unchanged.

>>> import engine as jax, engine.numpy as jnp
>>> print(jax.jit(lambda x: set_xla_metadata(x * 2.0, tag=True)).lower(1.0).as_text("hlo"))
HloModule jit__lambda, entry_computation_layout={(f32[])->f32[]}
<BLANKLINE>
ENTRY main.1 {
  x.1 = f32[] parameter(0)
  constant.1 = f32[] constant(2)
  ROOT mul.1 = f32[] multiply(x.1, constant.1), frontend_attributes={tag="true"}
}
<BLANKLINE>
<BLANKLINE>
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .. import ad, batching, core, source_info
from ..backends.rows import Scalar, lowerings
from ..tree_util import tree_map

__all__ = ["set_xla_metadata"]

xla_metadata_value_p = core.Primitive("xla_metadata_value")
xla_metadata_value_p.def_impl(lambda x, *, xla_metadata_kvs: x)
xla_metadata_value_p.def_abstract_eval(lambda x, *, xla_metadata_kvs: x)
ad.deflinear(xla_metadata_value_p, lambda ct, x, **_: [ct])  # (the cotangent is not tagged, as in JAX)
batching.batch_rules[xla_metadata_value_p] = lambda axis_size, vals, dims, **params: (
    xla_metadata_value_p.bind(vals[0], **params),
    dims[0],
)
lowerings[xla_metadata_value_p] = Scalar(lambda eqn, x: x)


def attribute_text(value: Any) -> str:
    """The attribute's string as JAX writes it: booleans lower-case, anything else ``str()``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


class XlaMetadataContext:
    """The pairs of one ``with set_xla_metadata(...)``: merged over the enclosing ones (a value of
    None removes a key), for the equations traced inside."""

    __slots__ = ("updates", "_prev")

    def __init__(self, updates: dict[str, Any]):
        self.updates = updates

    def __enter__(self) -> None:
        self._prev = source_info.xla_metadata[0]
        if not self.updates:
            return
        merged = dict(self._prev)
        for k, v in self.updates.items():
            if v is None:
                merged.pop(k, None)
            else:
                merged[k] = attribute_text(v)
        source_info.xla_metadata[0] = tuple(sorted(merged.items()))

    def __exit__(self, *exc: Any) -> None:
        source_info.xla_metadata[0] = self._prev

    def __call__(self, f: Callable[..., Any]) -> "_WithXlaMetadata":
        return _WithXlaMetadata(f, self)


class _WithXlaMetadata:
    """A function decorated by ``set_xla_metadata(**kv)``: calls to it, and to its callable
    attributes (a jitted function's ``.lower``), run inside the context."""

    def __init__(self, f: Callable[..., Any], ctx: XlaMetadataContext):
        self._f, self._ctx = f, ctx
        functools.wraps(f)(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with self._ctx:
            return self._f(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._f, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def in_context(*args: Any, **kwargs: Any) -> Any:
            with self._ctx:
                return attr(*args, **kwargs)

        return in_context


def set_xla_metadata(x: Any = None, **kwargs: Any) -> Any:
    """Tag the values of ``x`` with ``kwargs``; without ``x``, a context manager (or decorator)
    tagging every operation traced inside it."""
    if x is None:
        return XlaMetadataContext(kwargs)
    kvs = tuple(sorted(kwargs.items()))
    return tree_map(lambda v: xla_metadata_value_p.bind(v, xla_metadata_kvs=kvs), x)
