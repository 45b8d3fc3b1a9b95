"""The simulated devices: how many there are, and the objects that name them.

The count comes from ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` (JAX's spelling, so
unmodified scripts work), else ``ENGINE_DEVICE_COUNT``, else ``JAXPLAY_DEVICE_COUNT`` (what the
playground server exports), else 8. It is read when first needed; listing devices starts no process.
"""

from __future__ import annotations

import os
import re

_DEVICE_FLAG = re.compile(r"--xla_force_host_platform_device_count=(\d+)")
DEFAULT_DEVICE_COUNT = 8
_count: int | None = None


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


def device_count() -> int:
    """The number of simulated devices.

    >>> device_count()
    8
    """
    global _count
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


def local_devices(process_index=None, backend=None) -> list[Device]:
    """The devices of this process (all of them: there is one host)."""
    return devices()


def local_device_count(backend=None) -> int:
    return device_count()


def process_index(backend=None) -> int:
    return 0


def process_count(backend=None) -> int:
    return 1
