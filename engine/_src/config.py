"""``jax._src.config``: JAX's flags as objects, each with a ``value`` and a ``with`` form.

>>> from engine._src import config
>>> with config.jax_export_calling_convention_version(9):
...     config.jax_export_calling_convention_version.value
9
"""

from __future__ import annotations

from ..config import JAX_OPTIONS, _option, config


class Flag:
    """One of JAX's options: ``flag.value`` reads it, ``with flag(v):`` sets it within the block."""

    def __init__(self, name: str):
        self.name = name

    @property
    def value(self):
        return config.read(self.name)

    def __call__(self, value):
        return _option(self.name, value)

    def __repr__(self) -> str:
        return f"Flag({self.name}={self.value!r})"


def __getattr__(name: str) -> Flag:
    for option in (name, "jax_" + name):
        if option in JAX_OPTIONS:
            return Flag(option)
    raise AttributeError(f"module 'jax._src.config' has no attribute {name!r}")
