"""``jax.experimental.compute_on``: where a computation should run (``"device_host"``: on the host
CPU beside the device). JAX 0.10.2 records the choice in its trace context, not in the jaxpr, so
programs print and compute the same with or without it; the engine has one processor and keeps the
choice only while the ``with`` block runs (``current_compute_type``).

>>> with compute_on("device_host"):
...     y = jnp.sin(jnp.ones(3)) * 2
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["compute_on", "compute_on2"]

_VALID = ("device_host", "device", "tpu_sparsecore")
_local = threading.local()


def current_compute_type() -> str | None:
    """The innermost ``compute_on`` type in effect, or None."""
    return getattr(_local, "compute_type", None)


def _check(compute_type: Any) -> None:
    """JAX's checks of a compute type, its errors word for word."""
    if not isinstance(compute_type, str):
        raise TypeError("`compute_on`'s compute_type argument must be a string.")
    if compute_type not in _VALID and not compute_type.startswith("gpu_stream:"):
        raise ValueError(
            f"Invalid compute type {compute_type}. Current supported values are `device_host`, `device`, "
            "`tpu_sparsecore`, and `gpu_stream:#`."
        )


@contextmanager
def compute_on(compute_type: str) -> Iterator[None]:
    """Run what is traced inside (and what a decorated function traces) on ``compute_type``."""
    _check(compute_type)
    prev = current_compute_type()
    _local.compute_type = compute_type
    try:
        yield
    finally:
        _local.compute_type = prev


def compute_on2(
    f: Callable | None = None,
    *,
    compute_type: str,
    out_memory_spaces: Any,
    compiler_options: dict | None = None,
) -> Any:
    """``f`` as one ``compute_on`` equation run on ``compute_type``, its results put in
    ``out_memory_spaces`` (a ``jax.memory.Space`` per result, or a prefix of the results' tree).

    >>> g = compute_on2(jnp.sin, compute_type="device_host", out_memory_spaces=jax.memory.Space.Host)
    >>> jax.typeof(g(jnp.ones(3)))
    ShapedArray(float32<host>[3])
    """
    if f is None:
        return lambda g: compute_on2(
            g,
            compute_type=compute_type,
            out_memory_spaces=out_memory_spaces,
            compiler_options=compiler_options,
        )
    _check(compute_type)
    import json

    from ..compute_on_primitive import compute_on_p
    from ..core import get_aval
    from ..call_operands import _hoist_tracer_consts
    from ..pytree.prefix import axes_prefix_error, broadcast_prefix
    from ..staging import trace_to_jaxpr
    from ..tree_util import tree_flatten, tree_unflatten

    def wrapped(*args: Any) -> Any:
        leaves, in_tree = tree_flatten(args)
        out_tree: list = []

        def flat(*xs: Any) -> list:
            outs, tree = tree_flatten(f(*tree_unflatten(in_tree, list(xs))))
            out_tree[:] = [tree]
            return outs

        with compute_on(compute_type):
            closed, consts = _hoist_tracer_consts(trace_to_jaxpr(flat, [get_aval(x) for x in leaves]))
        full = tree_unflatten(out_tree[0], [0] * out_tree[0].num_leaves)
        try:
            spaces = broadcast_prefix(out_memory_spaces, full)
        except ValueError:
            raise axes_prefix_error("compute_on out_memory_spaces", out_memory_spaces, full) from None
        outs = compute_on_p.bind(
            *consts,
            *leaves,
            compiler_options_json=None if compiler_options is None else json.dumps(compiler_options),
            compute_type=compute_type,
            jaxpr=closed,
            out_memory_spaces=tuple(spaces),
        )
        return tree_unflatten(out_tree[0], outs)

    return wrapped
