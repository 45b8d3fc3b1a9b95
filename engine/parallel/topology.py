"""The simulated devices: how many there are, and the objects that name them.

The count comes from ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` (JAX's spelling, so
unmodified scripts work), else ``ENGINE_DEVICE_COUNT``, else ``JAXPLAY_DEVICE_COUNT`` (what the
playground server exports), else 8. It is read when first needed; listing devices starts no process.
"""

from __future__ import annotations

import os
import re

from .. import core

_DEVICE_FLAG = re.compile(r"--xla_force_host_platform_device_count=(\d+)")
DEFAULT_DEVICE_COUNT = 8
_count: int | None = None


@core.jax_class_path("jaxlib._jax.Device")
class Device:
    """One simulated CPU device (a worker process once used).

    >>> devices()[0]
    CpuDevice(id=0)
    """

    __slots__ = ("id",)
    platform = "cpu"
    device_kind = "cpu"
    process_index = 0
    host_id = 0
    client = None

    def __init__(self, id: int):
        self.id = id

    def __reduce__(self):  # by the engine's class, whatever path it shows
        return _device, (self.id,)

    def __repr__(self):
        return f"CpuDevice(id={self.id})"

    def __str__(self):  # as JAX 0.10.2 prints a CPU device
        return f"cpu:{self.id}"

    def __eq__(self, other):
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self):
        return hash(("cpu", self.id))

    @property
    def coords(self):
        return (self.id,)

    def addressable_memories(self) -> list["Memory"]:
        """The memories this device addresses, one per kind in ``MEMORY_KINDS``' order."""
        return [Memory(self, kind) for kind in MEMORY_KINDS]

    def default_memory(self) -> "Memory":
        return Memory(self, "device")

    def memory(self, kind: str) -> "Memory":
        """The memory of ``kind`` (JAX's runtime error for a kind a CPU device lacks)."""
        if not isinstance(kind, str):
            raise TypeError(
                "memory(): incompatible function arguments. The following argument types are supported:\n"
                "    1. memory(self, kind: str) -> jaxlib._jax.Memory\n\n"
                f"Invoked with types: jaxlib._jax.Device, {type(kind).__name__}"
            )
        if kind not in MEMORY_KINDS:
            from ..errors import JaxRuntimeError

            raise JaxRuntimeError(
                "INVALID_ARGUMENT: Could not find memory addressable by device cpu. Device cpu can address "
                f"the following memory kinds: {', '.join(MEMORY_KINDS)}. Got memory kind: {kind}"
            )
        return Memory(self, kind)


def _device(id: int) -> Device:
    return Device(id)


# The memories a CPU device addresses (JAX 0.10.2's): kind -> (repr prefix, class shown by str).
MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")
_MEMORY_NAMES = {
    "device": ("CPU_DEVICE", "CpuDeviceMemory"),
    "pinned_host": ("PINNED_HOST", "PinnedHostMemory"),
    "unpinned_host": ("UNPINNED_HOST", "UnpinnedHostMemorySpace"),
}


@core.jax_class_path("jaxlib._jax.Memory")
class Memory:
    """One memory of a device (``Device.addressable_memories()``), numbered as JAX's CPU client
    numbers them: a device's memories in ``MEMORY_KINDS`` order, device after device.

    >>> devices()[1].memory("pinned_host")
    PINNED_HOST_4
    """

    __slots__ = ("device", "kind")
    platform = "cpu"
    process_index = 0

    def __init__(self, device: Device, kind: str):
        self.device, self.kind = device, kind

    @property
    def _id(self) -> int:
        return self.device.id * len(MEMORY_KINDS) + MEMORY_KINDS.index(self.kind)

    def addressable_by_devices(self) -> list[Device]:
        return [self.device]

    def __repr__(self):
        return f"{_MEMORY_NAMES[self.kind][0]}_{self._id}"

    def __str__(self):
        return f"{_MEMORY_NAMES[self.kind][1]}(id={self._id}, process_index=0, client=cpu)"

    def __eq__(self, other):
        return isinstance(other, Memory) and (other.device, other.kind) == (self.device, self.kind)

    def __hash__(self):
        return hash((self.device, self.kind))


def requested_device_count() -> int:
    found = _DEVICE_FLAG.findall(os.environ.get("XLA_FLAGS", ""))
    if found:
        return max(1, int(found[-1]))
    for var in ("ENGINE_DEVICE_COUNT", "JAXPLAY_DEVICE_COUNT"):
        value = os.environ.get(var)
        if value:
            try:
                return max(1, int(value))
            except ValueError:
                pass
    return DEFAULT_DEVICE_COUNT


def _check_backend(backend) -> None:
    if backend not in (None, "cpu"):
        raise RuntimeError(f"Unknown backend {backend!r}: the engine has the 'cpu' backend only")


def device_count(backend=None) -> int:
    """The number of simulated devices (``backend``: ``'cpu'``, the only one, or None).

    >>> device_count()
    8
    """
    global _count
    _check_backend(backend)
    if _count is None:
        _count = requested_device_count()
    return _count


def set_device_count(n: int) -> None:
    """Use ``n`` devices from now on; a running pool of another size is stopped (and restarts
    lazily). Arrays already on devices stay readable."""
    global _count
    n = int(n)
    if n < 1:
        raise ValueError(f"device count must be positive, got {n}")
    if _count == n:
        return
    from . import runtime

    runtime.shutdown()
    _count = n


_device_objects: dict[int, Device] = {}


def get_device(i: int) -> Device:
    dev = _device_objects.get(i)
    if dev is None:
        dev = _device_objects[i] = Device(i)
    return dev


def devices(backend=None) -> list[Device]:
    """All simulated devices, ordered by id.

    >>> devices()
    [CpuDevice(id=0), CpuDevice(id=1), ...]
    """
    return [get_device(i) for i in range(device_count())]


def local_devices(process_index=None, backend=None, host_id=None) -> list[Device]:
    """The devices of this process (all of them: there is one host, process 0). ``host_id``:
    JAX's deprecated name of ``process_index`` (with JAX's warning)."""
    if host_id is not None:
        import warnings

        warnings.warn(
            "The argument to jax.local_devices has been renamed from `host_id` to `process_index`. "
            "This alias will eventually be removed; please update your code.",
            stacklevel=2,
        )
        process_index = host_id
    _check_backend(backend)
    if process_index is not None and not 0 <= process_index < process_count(backend):
        raise ValueError(f"Unknown process_index {process_index}")
    return devices()


def local_device_count(backend=None) -> int:
    return device_count()


def process_index(backend=None) -> int:
    return 0


def process_count(backend=None) -> int:
    return 1
