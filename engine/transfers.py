"""``jax.transfer_guard``: log or refuse implicit host-to-device transfers, as JAX does on a CPU.

The engine's one platform is the CPU, where JAX always allows fetching a buffer (device-to-host)
and where device-to-device copies are never guarded; what a guard sees is a Python or NumPy value
becoming an array. As in JAX, that happens where such a value enters eager evaluation: an operand
of a primitive evaluated eagerly (``core.EvalTrace``, which ``operands`` checks), an argument of a
jitted function (``jit``, and the jnp functions JAX jits: ``_staged``'s decorators call
``call_jitted``, whose body and a jaxpr's constants are ``inside_program``, not transfers), and the
places where JAX converts a host value on the host first (``jnp.array``, ``lax.full``'s fill value,
``convert_element_type``, an index), which call ``entering`` with what is transferred.
``jax.device_put`` is the explicit transfer (refused only by ``"disallow_explicit"``). While no
guard is on, each hook is one list read, and the eager fast paths stay on.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

import numpy as np

from .config import _option, config

LEVELS = ("allow", "log", "disallow", "log_explicit", "disallow_explicit")
DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")
# True while any guard is not "allow": the hooks cost one list read otherwise.
active = [False]
_log = logging.getLogger("jax.transfer_guard")


def check_level(name: str, value) -> None:
    if value is not None and value not in LEVELS:
        raise ValueError(
            f"new enum value must be None or in {list(LEVELS)}, got {value} of type {type(value)}."
        )


def sync_active() -> None:
    names = ["jax_transfer_guard"] + [f"jax_transfer_guard_{d}" for d in DIRECTIONS]
    active[0] = any(config.values.get(n) not in (None, "allow") for n in names)


# What a guard sees as a host value: anything else an operand can be is already an array (or a
# tracer, a ref, a symbolic dimension).
HOST_TYPES = (np.ndarray, np.generic, bool, int, float, complex)


def operands(vals) -> None:
    """Eager evaluation is about to compute with ``vals``: each host value among them is transferred."""
    for v in vals:
        if isinstance(v, HOST_TYPES):
            host_to_device(v)


def entering(x, dtype=None, weak_type: bool | None = None) -> bool:
    """The host value ``x`` becomes an operand (of a jnp function, a jit call, ``jnp.array``): a
    transfer unless a trace is staging it, where it becomes a constant of the program, as in JAX.
    ``dtype``/``weak_type``: what it is converted to on the host first (``lax.full``'s fill value).
    True if it was transferred."""
    from . import core

    if isinstance(x, HOST_TYPES) and core._state.dynamic is None:
        host_to_device(x, dtype=dtype, weak_type=weak_type)
        return True
    return False


def call_jitted(fn, args, kwargs, static_argnames=()):
    """``fn(*args, **kwargs)`` as a call of a jitted function: its host arguments are transferred,
    and what it computes with inside (its constants, in JAX's compiled program) is not."""
    import inspect

    from .tree_util import tree_leaves

    from . import core

    if core._state.dynamic is None:
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs).arguments
        except TypeError:  # (the call itself reports it)
            bound = {}
        for leaf in tree_leaves([v for k, v in bound.items() if k not in static_argnames]):
            entering(leaf)
    with inside_program():
        return fn(*args, **kwargs)


@contextmanager
def inside_program():
    """Within the block, values computed with are a running program's own, not transfers (a
    jitted function's body, a jaxpr's constants and literals)."""
    prev = active[0]
    active[0] = False
    try:
        yield
    finally:
        active[0] = prev


def host_to_device(x, explicit: bool = False, dtype=None, weak_type: bool | None = None) -> None:
    """Log or refuse turning the host value ``x`` into an array, as the guard's level says (the array
    of ``dtype`` and ``weak_type`` when given: what ``x`` was converted to on the host)."""
    level = config.values.get("jax_transfer_guard_host_to_device") or config.values.get("jax_transfer_guard")
    if level in (None, "allow") or (explicit and level in ("log", "disallow")):
        return
    from . import core

    aval = core.get_aval(x)
    if dtype is not None:
        aval = aval.update(dtype=np.dtype(dtype), weak_type=bool(weak_type))
    shape = ",".join(map(str, aval.shape))
    what = (
        f"host-to-device transfer: aval=ShapedArray({np.dtype(aval.dtype).name}[{shape}]"
        f"{', weak_type=True' if aval.weak_type else ''}), dst_sharding=SingleDeviceSharding("
        f"device=CpuDevice(id=0), memory_kind=device)"
    )
    if level.startswith("log"):
        _log.warning(what)
        return
    from .errors import JaxRuntimeError

    raise JaxRuntimeError(f"INVALID_ARGUMENT: Disallowed {what}")


def transfer_guard(new_val: str):
    """Within the block, transfers of every direction are guarded at ``new_val``'s level.

    >>> with jax.transfer_guard("disallow"):
    ...     y = jax.device_put(np.ones(2))  # explicit: allowed
    """
    return _option("jax_transfer_guard", new_val)


def transfer_guard_host_to_device(new_val: str):
    """Guard only host-to-device transfers (a Python or NumPy value becoming an array)."""
    return _option("jax_transfer_guard_host_to_device", new_val)


def transfer_guard_device_to_host(new_val: str):
    """Guard only device-to-host fetches (always allowed on the engine's CPU, as in JAX)."""
    return _option("jax_transfer_guard_device_to_host", new_val)


def transfer_guard_device_to_device(new_val: str):
    """Guard only device-to-device copies (none are guarded on a CPU, as in JAX)."""
    return _option("jax_transfer_guard_device_to_device", new_val)


def device_get(x):
    """Fetch ``x`` (a pytree) to the host: its arrays become NumPy arrays, other leaves stay.
    An explicit transfer, so no guard level short of refusing all transfers stops it.

    >>> jax.device_get({"a": jnp.arange(2)})
    {'a': array([0, 1], dtype=int32)}
    """
    from .core import Array
    from .tree_util import tree_map

    # (typed keys stay key arrays, as JAX's: they have no numpy value)
    return tree_map(lambda v: np.asarray(v) if isinstance(v, Array) and v.dtype.kind != "V" else v, x)
