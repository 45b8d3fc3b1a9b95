"""``import jax`` resolves to the engine: unmodified JAX scripts run on it.

``install()`` puts a meta-path finder in front of the import system. ``jax`` itself becomes a thin
proxy module over ``engine`` (so that ``engine.inspect`` can hand scripts instrumented
transformations without touching the engine's own namespace); ``jax.X.Y`` is the engine module
``engine.X.Y`` itself, so ``jax.numpy is engine.numpy``.

  >>> from engine import compat
  >>> compat.install()
  >>> import jax, jax.numpy as jnp
  >>> jax.grad(jnp.tanh)(1.0)
  Array(0.41997433, dtype=float32, weak_type=True)

The simulated device count comes from ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` (read
when ``jax`` is imported, so scripts may set it first, as JAX requires), else from
``JAXPLAY_DEVICE_COUNT``; it is published as ``JAXPLAY_DEVICE_COUNT`` and, once the device pool
exists, handed to ``engine.parallel.set_device_count``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import sys
import types
from typing import Any, Callable

import engine

# jax.X -> engine.X where the names differ or the engine module is optional.
_RENAMES = {"jax.random": ("engine.random", "engine.prng")}
# jaxlib (JAX's compiled half; the engine's array class claims jaxlib._jax as its module) is what
# jax._src.lib is: jaxlib.X -> engine._src.lib.X.
_JAXLIB = "jaxlib"


def requested_device_count() -> int:
    """Devices asked for by ``XLA_FLAGS`` (JAX's spelling), else the engine's variables, else 8."""
    from .parallel.topology import requested_device_count as requested

    return requested()


def configure_devices() -> int:
    n = requested_device_count()
    os.environ["JAXPLAY_DEVICE_COUNT"] = str(n)
    parallel = sys.modules.get("engine.parallel")
    setter = getattr(parallel, "set_device_count", None)
    if setter is not None:
        setter(n)
    return n


# ---------------------------------------------------------------------------------------------
# The `jax` proxy.

_overrides: dict[str, Any] = {}  # name -> replacement, e.g. recording versions of grad/jit
_DEVICE_NAMES = frozenset({"pmap", "devices", "device_count", "local_devices", "local_device_count"})


# Submodules ``import jax`` leaves unimported (JAX 0.10.2): ``jax.X`` is an attribute only once
# ``jax.X`` is imported, by the script or by a JAX module that imports it (measured); before,
# ``jax.flatten_util.ravel_pytree`` fails in JAX. name -> the modules whose import binds it.
_IMPORTED_ON_DEMAND = {
    "flatten_util": ("jax.experimental.ode",),
    "example_libraries": (),
    "extend": ("jax.experimental.colocated_python",),
    "ad_checkpoint": (),
}


def _not_imported(name: str) -> bool:
    binders = _IMPORTED_ON_DEMAND.get(name)
    return binders is not None and not any(m in sys.modules for m in (f"jax.{name}", *binders))


def _jax_getattr(name: str):
    if _not_imported(name):
        raise AttributeError(f"module 'jax' has no attribute {name!r}")
    if name in _DEVICE_NAMES:  # scripts may set XLA_FLAGS after an earlier run imported jax
        configure_devices()
    if name in _overrides:
        return _overrides[name]
    if name in engine._REMOVED:  # (JAX's words for a name it removed)
        raise AttributeError(engine._REMOVED[name])
    try:
        value = getattr(engine, name)
    except AttributeError:
        pass
    else:
        if isinstance(value, types.ModuleType):  # (jax.lax reached as an attribute, not imported)
            name_missing_as(value, f"jax.{name}")
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"jax.{name}")
        except ImportError:
            pass
    message = f"module 'jax' has no attribute {name!r}"  # (JAX's, for a name JAX lacks too)
    raise AttributeError(
        message + " (the engine does not implement it)" if name in _jax_public_names()["jax"] else message
    )


def _submodule_names() -> set[str]:
    """The engine's public submodules: ``jax.X`` imports each on first use, so ``dir(jax)`` lists them
    whether or not they are imported yet (as JAX's, which imports its own)."""
    import pkgutil

    return {m.name for m in pkgutil.iter_modules(engine.__path__) if not m.name.startswith("_")} - {
        "conftest"
    }


def _make_jax_module() -> types.ModuleType:
    mod = types.ModuleType("jax", engine.__doc__)
    mod.__path__ = []  # a package, so `import jax.numpy` asks the finders
    mod.__getattr__ = _jax_getattr
    mod.__dir__ = lambda: _public_dir(
        "jax", {n for n in set(dir(engine)) | set(_overrides) | _submodule_names() if not _not_imported(n)}
    )
    mod.__version__ = engine.__version__
    mod.__engine__ = engine
    return mod


@functools.cache
def _jax_public_names() -> dict[str, frozenset[str]]:
    """JAX 0.10.2's public names per module (recorded by tests/jax_reference/record_api_surface.py)."""
    recorded = json.loads(pathlib.Path(__file__).with_name("public_names.json").read_text())
    return {module: frozenset(names) for module, names in recorded.items()}


def _public_dir(alias: str, names) -> list[str]:
    """``dir()`` of an engine module under its jax name: the public names JAX's module has (and the
    dunders), not the engine's own submodules, imports and helpers."""
    public = _jax_public_names().get(alias)
    dunder = lambda n: n[:2] == "__" and n[-2:] == "__" and n not in _HOOKS  # noqa: E731
    return sorted(n for n in names if public is None or n in public or dunder(n))


_HOOKS = frozenset({"__dir__", "__getattr__"})  # (the engine's module hooks, not names of JAX's)


def set_overrides(names: dict[str, Any]) -> Callable[[], None]:
    """Make ``jax.<name>`` return the given objects until the returned undo function is called."""
    saved = dict(_overrides)
    _overrides.update(names)
    jax = sys.modules.get("jax")
    stale = [n for n in names if jax is not None and n in vars(jax)]
    for n in stale:  # `from jax import grad` looked it up once and cached nothing, but be sure
        delattr(jax, n)

    def undo():
        _overrides.clear()
        _overrides.update(saved)

    return undo


# ---------------------------------------------------------------------------------------------
# The finder.


class _Experimental(types.ModuleType):
    """``jax.experimental``: only what the engine has (nothing yet beyond its submodules)."""

    def __getattr__(self, name):
        real = _optional_module("engine.experimental")
        if real is not None and hasattr(real, name):
            value = getattr(real, name)
            if isinstance(value, types.ModuleType):  # (imported already: reached as an attribute)
                name_missing_as(value, f"jax.experimental.{name}")
            return value
        raise missing_experimental(name)


def missing_experimental(name: str) -> AttributeError:
    """What ``jax.experimental.<name>`` raises for a name it does not have: JAX's words for a
    submodule not imported yet (``import jax.experimental.checkify`` first), and that the engine
    does not implement it for one there is not."""
    message = f"module 'jax.experimental' has no attribute {name!r}"
    try:
        found = not name.startswith("__") and importlib.util.find_spec(f"jax.experimental.{name}") is not None
    except (ImportError, ValueError):
        found = False
    return AttributeError(message if found else message + " (the engine does not implement it)")


def _optional_module(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _engine_names(fullname: str) -> tuple[str, ...]:
    if fullname in _RENAMES:
        return _RENAMES[fullname]
    if _is_jaxlib(fullname):
        return ("engine._src.lib" + fullname[len(_JAXLIB) :],)
    return ("engine" + fullname[3:],)


def _is_jaxlib(fullname: str) -> bool:
    return fullname == _JAXLIB or fullname.startswith(_JAXLIB + ".")


def _is_alias(fullname: str) -> bool:
    return fullname == "jax" or fullname.startswith("jax.") or _is_jaxlib(fullname)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str | None):
        self.target = target  # None: build the `jax` proxy or the `jax.experimental` stub

    def create_module(self, spec):
        if spec.name == "jax":
            return _make_jax_module()
        if self.target is None:
            mod = _Experimental(spec.name)
            mod.__path__ = []
            return mod
        real = importlib.import_module(self.target)
        self._real_spec = getattr(real, "__spec__", None)
        self._alias = spec.name
        return real

    def exec_module(self, module):
        if module.__name__ == "jax":
            configure_devices()
        elif self.target is not None:
            # importlib stamped the alias spec on the engine module; give it its own back.
            module.__spec__ = self._real_spec
            name_missing_as(module, self._alias)


# Packages whose submodules JAX 0.10.2 does not import on attribute access (its lazy loader lists
# the others; jax.experimental has none): ``jax.experimental.ode`` or ``jax.scipy.optimize`` after
# a bare ``import jax.experimental`` / ``import jax.scipy`` is an AttributeError there (measured),
# an attribute once imported. alias -> those submodules (None: all of them).
_IMPORTED_ON_DEMAND_SUBMODULES: dict[str, frozenset[str] | None] = {
    "jax.experimental": None,
    "jax.scipy": frozenset({"optimize", "spatial"}),
}


def _binds_on_use(alias: str, name: str) -> bool:
    if alias not in _IMPORTED_ON_DEMAND_SUBMODULES or _from_import():
        return True
    on_demand = _IMPORTED_ON_DEMAND_SUBMODULES[alias]
    return on_demand is not None and name not in on_demand


def _from_import() -> bool:
    """Whether ``from package import name`` asks (importlib's ``_handle_fromlist`` tries the
    attribute before it imports the submodule, under the engine's name otherwise, whose missing
    names would then read ``module 'engine.experimental.pallas'``)."""
    frame = sys._getframe(3)  # (_binds_on_use <- __getattr__ <- hasattr in _handle_fromlist)
    return frame is not None and frame.f_code.co_name == "_handle_fromlist"


def name_missing_as(module: types.ModuleType, alias: str) -> None:
    """Make a missing name of an engine module read as its jax name's (``module 'jax.lax' has no
    attribute 'conv2d'``), and a package's submodule not imported yet (``from jax.experimental
    import pallas``, which Python would import under the engine's name) import so that it does too.
    A module's own ``__getattr__`` (lazy names) is asked in between."""
    own = vars(module).get("__getattr__")
    if not getattr(own, "jax_alias", False):

        def __getattr__(name: str) -> Any:
            if "__path__" in vars(module) and not name.startswith("_") and _binds_on_use(alias, name):
                if importlib.util.find_spec(f"{module.__name__}.{name}") is not None:
                    sub = importlib.import_module(f"{module.__name__}.{name}")
                    name_missing_as(sub, f"{alias}.{name}")
                    return sub
            if own is not None:
                return own(name)
            raise AttributeError(f"module {alias!r} has no attribute {name!r}")

        __getattr__.jax_alias = True  # type: ignore[attr-defined]
        module.__getattr__ = __getattr__  # type: ignore[method-assign]
    own_dir = vars(module).get("__dir__")
    if alias in _jax_public_names() and not getattr(own_dir, "jax_alias", False):

        def __dir__() -> list[str]:
            return _public_dir(alias, own_dir() if own_dir is not None else vars(module))

        __dir__.jax_alias = True  # type: ignore[attr-defined]
        module.__dir__ = __dir__  # type: ignore[method-assign]
    # Its submodules already imported are reached as its attributes (``from jax.experimental.pallas
    # import tpu``), never through the finder: they answer under their jax names too.
    for attr, value in list(vars(module).items()):
        if isinstance(value, types.ModuleType) and value.__name__ == f"{module.__name__}.{attr}":
            name_missing_as(value, f"{alias}.{attr}")


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not _is_alias(fullname):
            return None
        if fullname == "jax":
            return importlib.machinery.ModuleSpec("jax", _AliasLoader(None), is_package=True)
        for name in _engine_names(fullname):
            try:
                found = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                found = None
            if found is not None:
                return importlib.machinery.ModuleSpec(
                    fullname, _AliasLoader(name), is_package=found.submodule_search_locations is not None
                )
        if fullname == "jax.experimental":
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(None), is_package=True)
        return None


_finder = JaxAliasFinder()


def install() -> None:
    """Make ``import jax`` (and ``jax.numpy``, ``jax.lax``, ...) resolve to the engine.

    Idempotent. A real ``jax`` already imported in this process is left in place.
    """
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Undo :func:`install` and forget the ``jax`` aliases imported so far."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in list(sys.modules) if _is_alias(n)]:  # (a snapshot: threads import)
        del sys.modules[name]
