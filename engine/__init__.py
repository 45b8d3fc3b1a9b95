"""A JAX-like transformation engine on numpy: ``import engine as jax``.

>>> import engine as jax, engine.numpy as jnp
>>> jax.grad(jnp.tanh)(1.0)
Array(0.41997433, dtype=float32, weak_type=True)
"""

import types as _types

from . import float_warnings  # noqa: F401  (before any computation)

from .version import __version__, __version_info__  # noqa: F401

from . import core, errors, tree, tree_util, lax  # noqa: F401  (jax.tree.map works after import jax)
from . import numpy, nn  # noqa: F401  (numpy installs Array/Tracer operators and methods)
from .basearray import Array  # noqa: F401  (the interface: concrete arrays are core.Array)
from .api import (
    jvp,
    vjp,
    linearize,
    linear_transpose,
    grad,
    value_and_grad,
    jacfwd,
    jacrev,
    jacobian,  # noqa: F401
    hessian,
    vmap,
    jit,
    make_jaxpr,
    block_until_ready,
    eval_shape,
    checkpoint,
    remat,
    named_scope,
    named_call,
    ensure_compile_time_eval,
    default_matmul_precision,
    default_backend,
)
from .config import (  # noqa: F401
    allow_f16_reductions,
    array_garbage_collection_guard,
    auto_pcast,
    check_tracer_leaks,
    checking_leaks,
    config,
    debug_infs,
    debug_key_reuse,
    debug_nans,
    default_device,
    default_prng_impl,
    disable_jit,
    enable_checks,
    enable_custom_prng,
    enable_x64,
    jax2tf_associative_scan_reductions,
    legacy_prng_key,
    no_execution,
    remove_size_one_mesh_axis_from_type,
    numpy_dtype_promotion,
    numpy_rank_promotion,
    softmax_custom_jvp,
    threefry_partitionable,
)
from .transfers import (  # noqa: F401
    device_get,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)
from .jit import ShapeDtypeStruct  # noqa: F401
from .indexing import ds  # noqa: F401
from .vjp_function import fwd_and_bwd  # noqa: F401
from .callbacks import pure_callback  # noqa: F401
from .custom_derivatives import custom_jvp, custom_vjp, custom_gradient, closure_convert  # noqa: F401
from . import custom_batching  # noqa: E402,F401  (jax.custom_batching)
from . import version  # noqa: E402,F401  (jax.version)
from .checkpoint_policies import checkpoint_policies  # noqa: F401
from .parallel import (
    pmap,
    devices,
    local_devices,
    device_count,
    local_device_count,  # noqa: F401
    device_put,
    process_index,
    process_count,
)
from . import sharding  # noqa: E402,F401
from . import dtypes  # noqa: E402,F401  (jax.dtypes)
from .sharding import NamedSharding, PartitionSpec as P, make_mesh, set_mesh, reshard, typeof  # noqa: E402,F401
from .sharding import effects_barrier  # noqa: E402,F401
from .parallel.spmd import shard_map  # noqa: E402,F401
from .parallel import named as _named  # noqa: E402,F401  (installs Array.sharding)
from . import array_buffers as _array_buffers  # noqa: E402,F401  (Array's buffer-level methods)
from . import ref  # noqa: E402,F401  (jax.ref)
from .state import Ref, new_ref, freeze  # noqa: E402,F401
from .state.allocation import empty_ref, free_ref  # noqa: E402,F401
from .experimental import layout as _layout  # noqa: E402,F401  (installs Array.format)
from . import ffi  # noqa: E402,F401  (jax.ffi)
from . import export  # noqa: E402,F401  (jax.export)
from . import profiler  # noqa: E402,F401  (jax.profiler)
from . import flatten_util, ops, typing  # noqa: E402,F401  (jax.flatten_util, jax.ops, jax.typing)
from .core import float0  # noqa: E402,F401

memory = _types.SimpleNamespace(Space=core.MemorySpace)  # jax.memory.Space: device_put(x, Space.Host)

# jax.core's public names that live in modules importing engine.core (jax.core is engine.core)
from .avals import AbstractValue as _AbstractValue  # noqa: E402
from .constant_staging import compile_time_eval as _compile_time_eval  # noqa: E402
from .ir import Atom as _Atom, eval_jaxpr_with_consts as _eval_jaxpr  # noqa: E402

core.AbstractValue, core.Atom, core.ParamDict, core.eval_jaxpr = _AbstractValue, _Atom, dict, _eval_jaxpr
core.ensure_compile_time_eval = core.eval_context = _compile_time_eval
from .environment import Device, clear_caches, live_arrays, print_environment_info  # noqa: E402,F401
from .compile_log import explain_cache_misses, log_compiles, no_tracing  # noqa: E402,F401
from .array_assembly import make_array_from_callback, make_array_from_single_device_arrays  # noqa: E402,F401
from .parallel.sharded import Shard  # noqa: E402,F401  (the class of addressable_shards items)

from .config import bool_env as _bool_env  # noqa: E402

if _bool_env("JAX_ENABLE_X64", False):  # read once, at import, as JAX reads it
    config.update("jax_enable_x64", True)


# Names JAX 0.10.2 removed, which raise its AttributeError (the engine's stay in engine.parallel).
_REMOVED = {
    name: f"jax.{name} is deprecated; use jax.device_put instead. See "
    "https://docs.jax.dev/en/latest/migrate_pmap.html#drop-in-replacements for a drop-in replacement."
    for name in ("device_put_replicated", "device_put_sharded")
}


def __getattr__(name):
    if name in _REMOVED:
        raise AttributeError(_REMOVED[name])
    raise AttributeError(f"module 'jax' has no attribute '{name}'")
