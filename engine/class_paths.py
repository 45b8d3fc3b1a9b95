"""JAX's names for the classes user code meets: ``type(x)`` of an ``Array`` is ``jaxlib._jax.ArrayImpl``,
of a caught error ``jax.errors.ConcretizationTypeError``. Its own module (no engine imports) so that the
modules ``core`` imports (``errors``) present their classes too."""

from __future__ import annotations

import sys
from typing import Callable, TypeVar

_C = TypeVar("_C", bound=type)


def jax_class_path(path: str) -> Callable[[_C], _C]:
    """The JAX class's module and name for a class (``type(x)`` of an ``Array``: ``jaxlib._jax.ArrayImpl``),
    importable through ``engine.compat`` (``engine/_src``); instances pickle by engine functions."""
    module, _, name = path.rpartition(".")

    def present(cls: _C) -> _C:  # (doctest looks in the module a class names: its own lists it)
        vars(sys.modules[cls.__module__]).setdefault("__test__", {})[cls.__qualname__] = cls
        cls._engine_origin = (cls.__module__, cls.__qualname__)  # type: ignore[attr-defined]
        cls.__module__, cls.__qualname__, cls.__name__ = module, name, name
        return cls

    return present
