"""What ``jit`` stages from constants. Under ``jit`` JAX stages every operation, constants' included
(``core.new_dynamic``), except inside ``jax.ensure_compile_time_eval``."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from . import held_arrays
from .core import Tracer, Value, _state, find_top_trace


@contextmanager
def compile_time_eval() -> Iterator[None]:
    """JAX's ``ensure_compile_time_eval`` (its ``eager_constant_folding``): under ``jit``, an operation
    whose operands are all concrete runs now instead of being staged; one on a traced value is still
    staged (its tracer's trace takes it)."""
    prev, _state.dynamic = _state.dynamic, None
    try:
        with held_arrays.outside_traces():
            yield
    finally:
        _state.dynamic = prev


def staged(x: Value) -> Value:
    """``x`` as JAX's functions see it after their first operation: under ``jit`` every operation is
    staged, so what they compute from a constant is traced (``jnp.unique`` of a closed-over constant
    raises ConcretizationTypeError there, as in JAX); elsewhere, and under ``compile_time_eval``, ``x``."""
    if isinstance(x, Tracer) or _state.dynamic is None:
        return x
    return find_top_trace([x]).full_raise(x)
