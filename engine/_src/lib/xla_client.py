"""``jax._src.lib.xla_client``: compiling and executing StableHLO modules without XLA.

A "compiled" module is executed by ``engine.extend.mlir.execute``: each StableHLO operation runs
as the numpy implementation of the matching engine primitive, in the module's own dtypes.
Buffers are numpy arrays on the host (the engine's single host device).

>>> import numpy as np
>>> from engine._src import xla_bridge as xb
>>> text = '''"builtin.module"() ({
... ^bb0:
...   "func.func"() ({
...   ^bb0(%arg0: tensor<2xf32>):
...     %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
...     "func.return"(%0) : (tensor<2xf32>) -> ()
...   }) {function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"} : () -> ()
... }) : () -> ()'''
>>> backend = xb.get_backend(None)
>>> backend.compile_and_load(text, backend.devices()[:1]).execute([np.float32([2, 3])])
[array([4., 9.], dtype=float32)]
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ...extend.mlir import execute, ir


class Device:
    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, id: int = 0):
        self.id = id

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"


class OpSharding:
    """A sharding annotation; the engine's compiled modules run on one device."""

    class Type:
        REPLICATED = 0
        MAXIMAL = 1
        OTHER = 2

    def __init__(self) -> None:
        self.type = OpSharding.Type.REPLICATED


class GSPMDSharding:
    def __init__(self, devices: Sequence[Device], op_sharding: OpSharding, **kwargs: Any):
        self.devices, self.op_sharding = tuple(devices), op_sharding


def batched_device_put(
    aval: Any,
    sharding: Any,
    xs: Sequence[Any],
    devices: Sequence[Device],
    committed: bool = True,
    enable_x64: bool = True,
) -> np.ndarray:
    """The host buffer of ``xs[0]`` (one device), in the abstract value's dtype."""
    if len(xs) != 1:
        raise NotImplementedError("batched_device_put onto several devices: the engine's modules run on one")
    dtype = getattr(aval, "dtype", None)
    x = np.asarray(xs[0], dtype=dtype)
    if not enable_x64 and x.dtype.itemsize == 8 and x.dtype.kind in "fiuc":
        x = x.astype({"f": np.float32, "i": np.int32, "u": np.uint32, "c": np.complex64}[x.dtype.kind])
    return x


class LoadedExecutable:
    """A parsed module, executed operation by operation on each ``execute``."""

    def __init__(self, module: ir.Module, devices: Sequence[Device]):
        self.module, self._devices = module, list(devices)

    def local_devices(self) -> list[Device]:
        return self._devices

    def as_text(self) -> str:
        return str(self.module)

    def execute(self, arguments: Sequence[Any]) -> list[np.ndarray]:
        return execute.run_module(self.module, [np.asarray(a) for a in arguments])

    def execute_sharded(self, arguments: Sequence[Sequence[Any]]) -> list[list[np.ndarray]]:
        return [self.execute([a[0] for a in arguments])]


class Client:
    """The engine's backend: one host device; modules are given as text or as ``ir.Module``."""

    platform = "cpu"
    platform_version = "jaxplay engine (StableHLO executed on the engine's primitives)"

    def __init__(self) -> None:
        self._devices = [Device(0)]

    def devices(self) -> list[Device]:
        return list(self._devices)

    local_devices = devices

    def device_count(self) -> int:
        return len(self._devices)

    def compile_and_load(
        self,
        computation: Any,
        devices: Sequence[Device] | None = None,
        compile_options: Any = None,
        host_callbacks: Any = (),
    ) -> LoadedExecutable:
        if isinstance(computation, bytes):
            computation = computation.decode()
        module = computation if isinstance(computation, ir.Module) else ir.Module.parse(computation)
        return LoadedExecutable(module, devices or self._devices[:1])

    compile = compile_and_load

    def buffer_from_pyval(self, x: Any, device: Device | None = None) -> np.ndarray:
        return np.asarray(x)


_client: list[Client] = []


def get_client() -> Client:
    if not _client:
        _client.append(Client())
    return _client[0]
