"""``jax.experimental.colocated_python``: Python functions and objects run on the CPU hosts next to
the accelerators that hold their arguments.

On a CPU-only machine (JAX's, and the engine's) the colocated CPU devices are the devices
themselves, so a colocated function runs here, in this process, on the arrays it is given; its
array results are laid out as its arguments were (``y.sharding == x.sharding``).

    >>> import engine as jax
    >>> add_one = colocated_python(lambda x: x + 1)
    >>> add_one(jax.numpy.int32(1))
    Array(2, dtype=int32)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..tree_util import tree_flatten, tree_map


def colocated_cpu_devices(devices: Sequence[Any]) -> list[Any]:
    """The CPU devices colocated with ``devices``: on a CPU host, ``devices`` themselves."""
    return list(devices)


class ColocatedFunction:
    """A function run on the colocated CPU devices; ``specialize`` fixes its input specs, output
    specs and devices (accepted as in JAX; here they only decide where outputs go)."""

    def __init__(self, fun: Callable[..., Any], in_specs: Any = None, out_specs_fn: Any = None, devices=None):
        self.fun, self.in_specs, self.out_specs_fn, self.devices = fun, in_specs, out_specs_fn, devices
        self.__wrapped__ = fun

    def specialize(self, in_specs: Any = None, out_specs_fn: Any = None, devices: Any = None):
        return ColocatedFunction(
            self.fun,
            self.in_specs if in_specs is None else in_specs,
            self.out_specs_fn if out_specs_fn is None else out_specs_fn,
            self.devices if devices is None else devices,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        arrays = [a for a in tree_flatten((args, kwargs))[0] if hasattr(a, "sharding")]
        if not arrays and self.devices is None:
            raise ValueError(
                "No devices found. colocated_python function without input arguments must be first "
                "specialized with devices."
            )
        out = self.fun(*args, **kwargs)
        if not arrays:
            return out
        from .. import device_put

        sharding = arrays[0].sharding
        return tree_map(lambda v: device_put(v, sharding) if hasattr(v, "sharding") else v, out)


def colocated_python(fun: Callable[..., Any]) -> ColocatedFunction:
    """``fun`` as a function run on the CPU devices colocated with its arguments' devices."""
    return ColocatedFunction(fun)


def colocated_python_class(cls: type) -> type:
    """``cls`` whose instances live on the colocated CPU devices: each method call runs there."""

    class Colocated:
        def __init__(self, *args: Any, **kwargs: Any):
            self._instance = cls(*args, **kwargs)

        def __getattr__(self, name: str) -> Any:
            attr = getattr(self.__dict__["_instance"], name)
            return ColocatedFunction(attr) if callable(attr) else attr

    Colocated.__name__ = Colocated.__qualname__ = cls.__name__
    return Colocated
