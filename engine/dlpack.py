"""``jax.dlpack``: arrays in and out through the DLPack protocol (``__dlpack__``/``__dlpack_device__``).

The engine's arrays are numpy arrays in host memory, so numpy does the exchange: what comes in is
read with ``np.from_dlpack`` (sharing the producer's buffer, as JAX does unless ``copy=True``), and
an engine array exports its buffer through numpy's ``__dlpack__``.

>>> import numpy as np
>>> x = from_dlpack(np.arange(3.0, dtype=np.float32))
>>> x, np.from_dlpack(x)
(Array([0., 1., 2.], dtype=float32), array([0., 1., 2.], dtype=float32))
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from . import narrow_dtypes


class DLDeviceType(enum.IntEnum):
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLROCM = 10


_SUPPORTED = (
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 bfloat16 float32 float64 "
    "complex64 complex128 bool"
).split()


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of ``dtype`` can be exchanged through DLPack.

    >>> is_supported_dtype('float32'), is_supported_dtype('float8_e4m3fn')
    (True, False)
    """
    if dtype is None:  # (numpy would read None as float64)
        raise TypeError(f"Expected a string or dtype-like object; got {dtype=}")
    d = narrow_dtypes.to_dtype(dtype)
    return any(d == narrow_dtypes.to_dtype(n) for n in _SUPPORTED)


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None):
    """An engine array holding the data of any object with ``__dlpack__`` and ``__dlpack_device__``
    on the CPU; it shares the producer's buffer unless ``copy=True``."""
    from .core import Array
    from .numpy._dtypes import canonicalize_dtype

    if not (hasattr(external_array, "__dlpack__") and hasattr(external_array, "__dlpack_device__")):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and __dlpack_device__ methods.")
    dl_device_type, _ = external_array.__dlpack_device__()
    if dl_device_type != DLDeviceType.kDLCPU:
        raise TypeError(
            "Array passed to from_dlpack is on unsupported device type "
            f"(DLDeviceType: {dl_device_type}, array: {external_array}"
        )
    value = np.from_dlpack(external_array, copy=copy)
    out = Array(value.astype(canonicalize_dtype(value.dtype), copy=False))
    if device is not None:
        from .parallel import device_put

        out = device_put(out, device)
    return out


def array_dlpack(
    self, *, stream: Any = None, max_version: tuple[int, int] | None = None, dl_device: Any = None, copy=None
):
    """``Array.__dlpack__``: the array's buffer as a DLPack capsule (read-only where the consumer
    speaks DLPack 1.0; older consumers, which cannot be told so, get a copy)."""
    from .array_buffers import check_unsharded_for_dlpack

    check_unsharded_for_dlpack(self, exporting=True)
    if dl_device is not None and tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
        raise BufferError(
            "The device specification passed to to_dlpack contains an unsupported device type "
            f"(DLDeviceType: {dl_device[0]})"
        )
    value = self._value
    if max_version is None or max_version < (1, 0):
        return value.copy().__dlpack__(stream=stream)
    return value.__dlpack__(stream=stream, max_version=max_version, copy=copy)


def array_dlpack_device(self) -> tuple[DLDeviceType, int]:
    """``Array.__dlpack_device__``: every engine array is in host memory."""
    from .array_buffers import check_unsharded_for_dlpack

    check_unsharded_for_dlpack(self, exporting=False)
    return DLDeviceType.kDLCPU, 0
