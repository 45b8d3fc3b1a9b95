"""``jax.config``: the flags this engine honours (x64 is off and stays off)."""

from __future__ import annotations

import os
from contextlib import contextmanager


class Config:
    """``config.update(name, value)`` as in JAX; unknown names are accepted and recorded."""

    def __init__(self):
        self.values = {
            "jax_enable_x64": False,
            "jax_disable_jit": False,
            "jax_platform_name": "cpu",
            "jax_threefry_partitionable": True,
            "jax_default_matmul_precision": None,
        }

    def update(self, name: str, value) -> None:
        if name == "jax_enable_x64" and value:
            raise NotImplementedError(
                "This engine runs with 64-bit types disabled (jax_enable_x64=False); "
                "float64 inputs are computed in float32."
            )
        if name == "jax_num_cpu_devices":
            _set_device_count(int(value))
        self.values[name] = value

    def read(self, name: str):
        return self.values.get(name)

    def __getattr__(self, name):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)


config = Config()


def _set_device_count(n: int) -> None:
    """``jax_num_cpu_devices``: the simulated device count from now on (JAX's CPU devices)."""
    from .parallel import topology

    os.environ["JAXPLAY_DEVICE_COUNT"] = str(n)  # what `import jax` and jax.devices() re-read
    topology.set_device_count(n)


@contextmanager
def disable_jit(disable: bool = True):
    """Run ``jit``-decorated functions op by op (useful with print debugging)."""
    prev = config.values["jax_disable_jit"]
    config.values["jax_disable_jit"] = disable
    try:
        yield
    finally:
        config.values["jax_disable_jit"] = prev
