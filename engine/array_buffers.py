"""``jax.Array``'s buffer-level surface, as JAX 0.10.2 answers on CPU devices: the bytes its shards
take (``on_device_size_in_bytes``), one shard's data as an array (``addressable_data``), the raw
pointer of a one-device array (``unsafe_buffer_pointer``; a sharded one has no single buffer),
``copy_to_host_async``, ``to_device``, ``platform``, and the refusals of the names JAX removed
(``device_buffer``) or has only on GPUs (``__cuda_array_interface__``). Installed on ``Array``
(its device subclasses answer through their shards and sharding).

A tracer has none of these: as JAX's tracers, it refuses each with JAX's error (a concrete value is
needed, or the attribute does not exist on a traced array).

    >>> import engine.numpy as jnp
    >>> x = jnp.ones((2, 3))
    >>> x.on_device_size_in_bytes(), x.addressable_data(0).shape, x.is_fully_addressable
    (24, (2, 3), True)
"""

from __future__ import annotations

import math
from typing import Any, Callable, NoReturn

import numpy as np

from . import core
from .errors import ConcretizationTypeError, JaxRuntimeError, origin_msg


def _one_device(x: Any) -> bool:
    return len(x.sharding.device_set) == 1


def _check_alive(x: Any) -> None:
    if x.is_deleted():
        from .donation import _gone

        _gone(x)  # (JAX's RuntimeError for a deleted array)


def on_device_size_in_bytes(self: Any) -> int:
    """The bytes the array's shards take on their devices (a replicated block counts once per
    device holding it)."""
    if self.is_deleted():
        raise JaxRuntimeError(
            "INVALID_ARGUMENT: GetOnDeviceSizeInBytes() called on deleted or donated buffer"
        )
    itemsize = _itemsize(self.dtype)
    total = 0
    for shard in self.addressable_shards:
        total += math.prod(len(range(*s.indices(n))) for s, n in zip(shard.index, self.shape)) * itemsize
    return total


def addressable_data(self: Any, index: int) -> Any:
    """Shard ``index``'s data as a one-device array; a replicated array's first shard, whatever
    the index (as JAX's)."""
    _check_alive(self)
    shards = self.addressable_shards
    if self.is_fully_replicated:
        return shards[0].data
    return shards[index].data


def unsafe_buffer_pointer(self: Any) -> int:
    if self.is_deleted():
        raise JaxRuntimeError("INVALID_ARGUMENT: UnsafeBufferPointer( called on deleted or donated buffer")
    if not _one_device(self):
        raise JaxRuntimeError(
            "INVALID_ARGUMENT: UnsafeBufferPointer() is supported only for unsharded arrays."
        )
    return int(self._value.ctypes.data)


def copy_to_host_async(self: Any) -> None:
    """Nothing to wait for: the engine's device buffers are readable by the host at once."""
    _check_alive(self)


def to_device(self: Any, device: Any, *, stream: Any = None) -> Any:
    from .parallel.sharded import device_put

    return device_put(self, device)


def _deprecated(name: str, instead: str) -> Any:
    def refuse(self: Any) -> NoReturn:
        raise AttributeError(f"arr.{name} has been deprecated. Use {instead}")

    return property(refuse)


def _gpu_only(self: Any) -> NoReturn:
    raise AttributeError("__cuda_array_interface__ is only defined for GPU buffers.")


core.Array.on_device_size_in_bytes = on_device_size_in_bytes  # type: ignore[attr-defined]
core.Array.addressable_data = addressable_data  # type: ignore[attr-defined]
core.Array.unsafe_buffer_pointer = unsafe_buffer_pointer  # type: ignore[attr-defined]
core.Array.copy_to_host_async = copy_to_host_async  # type: ignore[attr-defined]
core.Array.to_device = to_device  # type: ignore[attr-defined]
core.Array.platform = lambda self: "cpu"  # type: ignore[attr-defined]
core.Array.is_fully_addressable = property(lambda self: True)  # type: ignore[attr-defined]


def _itemsize(dtype) -> int:
    return (
        dtype.itemsize if isinstance(dtype, core.ExtendedDType) else np.dtype(dtype).itemsize
    )  # (a key: its words)


core.Array.itemsize = property(lambda self: _itemsize(self.dtype))  # type: ignore[attr-defined]
core.Array.global_shards = property(lambda self: self.addressable_shards)  # type: ignore[attr-defined]
core.Array.device_buffer = _deprecated("device_buffer", "arr.addressable_data(0)")  # type: ignore[attr-defined]
core.Array.device_buffers = _deprecated(  # type: ignore[attr-defined]
    "device_buffers", "[x.data for x in arr.addressable_shards]"
)
core.Array.__cuda_array_interface__ = property(_gpu_only)  # type: ignore[attr-defined]


def check_unsharded_for_dlpack(x: Any, exporting: bool) -> None:
    """DLPack exports one buffer: an array over several devices has none to give."""
    if isinstance(x, core.Array) and type(x) is not core.Array and not _one_device(x):
        if exporting:
            raise BufferError(
                "to_dlpack can only pack a dlpack tensor from an array on a singular device, but an array "
                f"with a Sharding over {len(x.sharding.device_set)} devices was provided."
            )
        raise BufferError("__dlpack__ only supported for unsharded arrays.")


# --- on tracers: JAX's refusals -------------------------------------------------------------


def _typed(t: core.Tracer) -> str:
    aval = t.aval
    return f"traced array with shape {aval.dtype.name}[{','.join(map(str, aval.shape))}]"


def _needs_concrete(t: core.Tracer, what: str) -> NoReturn:
    # (JAX's context names the origin too, so a traced value's origin ends the message twice)
    raise ConcretizationTypeError(t, f"{what} on {_typed(t)}.{origin_msg(t)}")


def _concrete_method(name: str) -> Any:
    def refuse(self: core.Tracer, *args: Any, **kwargs: Any) -> NoReturn:
        _needs_concrete(self, f"The {name}() method was called")

    return refuse


def _unavailable_method(name: str) -> Callable[[core.Tracer], NoReturn]:
    def refuse(self: core.Tracer) -> NoReturn:
        raise AttributeError(f"The '{name}' method is not available on {_typed(self)}.{origin_msg(self)}")

    return refuse


def _tracer_sharding(self: core.Tracer) -> NoReturn:
    raise AttributeError(
        f"The 'sharding' attribute is not available on {_typed(self)}. To query sharding information on "
        "tracers, use `jax.typeof(x)`."
    )


def _concrete_property(what: str) -> Any:
    return property(lambda self: _needs_concrete(self, what))


for _name in (
    "unsafe_buffer_pointer",
    "on_device_size_in_bytes",
    "addressable_data",
    "devices",
    "__dlpack__",
    "is_deleted",
    "delete",
):
    setattr(core.Tracer, _name, _concrete_method(_name))
for _name in ("is_fully_addressable", "is_fully_replicated", "global_shards", "traceback"):
    setattr(core.Tracer, _name, _concrete_property(f"The {_name} property was called"))
for _name in ("committed", "addressable_shards"):
    setattr(core.Tracer, _name, _concrete_property(f"The '{_name}' attribute is not available"))

# Names a tracer refuses with an AttributeError of its own. They are answered by ``__getattr__``
# (a property raising AttributeError would fall through to it, losing its message); any other name
# a tracer lacks gets JAX's plain refusal (``DynamicJaxprTracer has no attribute device``).
_attribute_refusals: dict[str, Callable[[core.Tracer], NoReturn]] = {
    "sharding": _tracer_sharding,
    "block_until_ready": _unavailable_method("block_until_ready"),
    "copy_to_host_async": _unavailable_method("copy_to_host_async"),
}


def _tracer_getattr(self: core.Tracer, name: str) -> NoReturn:
    refuse = _attribute_refusals.get(name)
    if refuse is not None:
        refuse(self)
    raise AttributeError(f"{type(self).__name__} has no attribute {name}")


core.Tracer.__getattr__ = _tracer_getattr  # type: ignore[attr-defined]
# (what the type says: known while tracing)
core.Tracer.itemsize = property(lambda self: _itemsize(self.aval.dtype))  # type: ignore[attr-defined]
core.Tracer.nbytes = property(lambda self: self.aval.size * _itemsize(self.aval.dtype))  # type: ignore[attr-defined]
core.Tracer.to_device = to_device  # type: ignore[attr-defined]  # (a staged device_put)
