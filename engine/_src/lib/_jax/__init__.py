"""``jaxlib._jax`` (``engine.compat`` maps ``jaxlib`` to ``jax._src.lib``): where the engine's array,
device and jitted-function classes claim to live, as JAX's C++ ``ArrayImpl``, ``Device`` and
``PjitFunction`` do (``core.jax_class_path``)."""

from ....core import Array as ArrayImpl  # noqa: F401
from ....jit import JitFunction as PjitFunction  # noqa: F401
from ....parallel.topology import Device, Memory  # noqa: F401
