"""``jax.debug.inspect_array_sharding``: call back with the sharding of each array of a pytree,
as early as it is known, as JAX does.

Eagerly (and under ``vmap``/``grad`` outside ``jit``, whose rules bind the primitive on concrete
values) the callback gets the array's own sharding. Inside ``jit`` it runs once, when the program
is first lowered or compiled for its arguments' shardings, not on later calls: on a mesh with the sharding the
engine's partitioner gives the value (``engine.parallel.partition``, what XLA's SPMD partitioner
decides in JAX), else with the replicated sharding of a one-device program, which JAX reports as
``GSPMDSharding({replicated}, memory_kind=device)``.

  >>> import engine as jax, engine.numpy as jnp
  >>> jax.debug.inspect_array_sharding(jnp.ones(2), callback=print)
  SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
  >>> f = jax.jit(lambda x: jax.debug.inspect_array_sharding(x, callback=print) or x * 2)
  >>> y = f(jnp.ones(2))
  GSPMDSharding({replicated}, memory_kind=device)
  >>> y = f(jnp.ones(2))
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from . import ad, batching, ir
from .backends.rows import Special, lowerings
from .core import Primitive, Tracer
from .ir import ClosedJaxpr, pp_params_rules, subjaxprs
from .parallel import partition, topology
from .sharding import Sharding, SingleDeviceSharding
from .tape import TapeTracer
from .tree_util import tree_map

inspect_sharding_p = Primitive("inspect_sharding", multiple_results=True)
ir.effectful.add(inspect_sharding_p)  # no outputs: dead-code elimination must keep it


def _now(value: Any, callback: Callable) -> None:
    """Call back with a concrete value's sharding (an operand given as numpy is on device 0)."""
    sharding = getattr(value, "sharding", None)
    callback(sharding if sharding is not None else SingleDeviceSharding(topology.get_device(0)))


def _bind_or_now(value: Any, callback: Callable) -> None:
    while isinstance(value, TapeTracer):  # (eager grad's tape: nothing to differentiate, no outputs)
        value = value.primal
    if isinstance(value, Tracer):
        inspect_sharding_p.bind(value, callback=callback)
    else:
        _now(value, callback)


# A compiled program's equation does nothing when it runs: its callback ran when the program was
# compiled (``at_compile``, or the partitioner's rule below); concrete values never reach it.
inspect_sharding_p.def_impl(lambda value, **_: [])
inspect_sharding_p.def_abstract_eval(lambda aval, **_: [])
lowerings[inspect_sharding_p] = Special("compile_time")


def _inspect_sharding_jvp(primals, tangents, *, callback):
    _bind_or_now(primals[0], callback)  # (the primal's sharding, as JAX's rule binds on the primal)
    return [], []


def _inspect_sharding_batch(axis_size, vals, dims, *, callback):
    _bind_or_now(vals[0], callback)  # (the batched value's sharding, as JAX's rule gives)
    return [], []


ad.jvp_rules[inspect_sharding_p] = _inspect_sharding_jvp
ad.transpose_rules[inspect_sharding_p] = lambda cts, *args, **params: [None] * len(args)
batching.batch_rules[inspect_sharding_p] = _inspect_sharding_batch


pp_params_rules[inspect_sharding_p] = lambda eqn: [("callback", ir.AsJaxPrintsIt(eqn.params["callback"]))]


class GSPMDSharding(Sharding):
    """The sharding of a value inside a one-device compiled program: replicated on that device
    (what JAX's callback gets from XLA inside such a ``jit``)."""

    def __init__(self, device, *, memory_kind: str = "device"):
        self._device = device
        self.memory_kind = memory_kind

    @property
    def device_set(self) -> set:
        return {self._device}

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def devices_indices_map(self, global_shape) -> dict:
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def shard_shape(self, global_shape) -> tuple[int, ...]:
        return tuple(global_shape)

    def __repr__(self):
        return f"GSPMDSharding({{replicated}}, memory_kind={self.memory_kind})"

    def __eq__(self, other):
        return isinstance(other, GSPMDSharding) and (other._device, other.memory_kind) == (
            self._device,
            self.memory_kind,
        )

    def __hash__(self):
        return hash(("GSPMDSharding", self._device, self.memory_kind))


# --- inside jit ----------------------------------------------------------------------------------

_compiled: weakref.WeakSet[ClosedJaxpr] = weakref.WeakSet()


def _inspections(jaxpr) -> list:
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive is inspect_sharding_p:
            found.append(eqn)
        for sub in subjaxprs(eqn):
            found.extend(_inspections(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub))
    return found


def at_compile(closed: ClosedJaxpr) -> None:
    """Call back for each inspection in ``closed``, a one-device program compiled for the first time."""
    if closed in _compiled:
        return
    _compiled.add(closed)
    for eqn in _inspections(closed.jaxpr):
        eqn.params["callback"](GSPMDSharding(topology.get_device(0)))


def at_lower(closed: ClosedJaxpr) -> None:
    """``jit(f).lower(...)`` of a one-device program: JAX calls back while lowering; the program
    the first call then runs (``compiled_form``: the same object) does not call back again."""
    if _inspections(closed.jaxpr):
        from .jit_runtime import compiled_form

        at_compile(compiled_form(closed))


def _partitioned(ctx, prim, vals, params):
    """On a mesh: the value's sharding as the partitioner propagated it; nothing runs per device."""
    (x,) = vals
    params["callback"](partition.sharding_of(ctx.mesh, x.spec))
    return []


partition.spmd_rules[inspect_sharding_p] = _partitioned
partition._always_ruled.add(inspect_sharding_p)  # (replicated values too: the callback must run)


def inspect_array_sharding(value: Any, *, callback: Callable[[Sharding], None]) -> None:
    """Call ``callback`` with the sharding of each array in the pytree ``value``, as soon as it is
    known: now for arrays, when a ``jit`` is compiled for values inside it."""
    tree_map(lambda v: _bind_or_now(v, callback), value)
