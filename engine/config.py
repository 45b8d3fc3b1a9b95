"""``jax.config``: the flags this engine honours."""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Callable


# The options JAX 0.10.2 has (``jax.config.update`` rejects any other name).
JAX_OPTIONS = frozenset(
    """
    check_vma eager_constant_folding jax2tf_associative_scan_reductions
    jax2tf_default_native_serialization jax_allow_f16_reductions jax_array_garbage_collection_guard
    jax_auto_pcast jax_backend_target jax_bcoo_cusparse_lowering jax_captured_constants_report_frames
    jax_captured_constants_warn_bytes jax_check_proxy_envs jax_check_static_indices
    jax_check_tracer_leaks jax_compilation_cache_check_contents jax_compilation_cache_dir
    jax_compilation_cache_expect_pgle jax_compilation_cache_include_metadata_in_key
    jax_compilation_cache_max_size jax_compiler_detailed_logging_min_ops jax_compiler_enable_remat_pass
    jax_cpu_collectives_implementation jax_cpu_enable_async_dispatch
    jax_cpu_get_global_topology_timeout_minutes jax_cpu_get_local_topology_timeout_minutes
    jax_cross_host_transfer_socket_address jax_cross_host_transfer_timeout_seconds
    jax_cross_host_transfer_transfer_size jax_cross_host_transport_addresses jax_cuda_visible_devices
    jax_custom_vjp3 jax_debug_infs jax_debug_key_reuse jax_debug_leaked_clients_on_clear_backends
    jax_debug_log_modules jax_debug_nans jax_default_device jax_default_matmul_precision
    jax_default_prng_impl jax_disable_bwd_checks jax_disable_jit jax_disable_most_optimizations
    jax_disable_vmap_shmap_error jax_disallow_mesh_context_manager jax_distributed_debug
    jax_dump_ir_modes jax_dump_ir_to jax_embedded_constants_max_bytes jax_enable_checks
    jax_enable_compilation_cache jax_enable_custom_prng jax_enable_pgle jax_enable_preemption_service
    jax_enable_recoverability jax_enable_x64 jax_error_checking_behavior_divide
    jax_error_checking_behavior_nan jax_error_checking_behavior_oob jax_exec_time_optimization_effort
    jax_experimental_unsafe_xla_runtime_errors jax_explain_cache_misses jax_explicit_x64_dtypes
    jax_export_calling_convention_version jax_export_ignore_forward_compatibility
    jax_force_dcn_cross_host_transfers jax_high_dynamic_range_gumbel
    jax_hlo_source_file_canonicalization_regex jax_include_debug_info_in_dumps
    jax_include_full_tracebacks_in_locations jax_legacy_prng_key jax_log_checkpoint_residuals
    jax_log_compiles jax_logging_level jax_memory_fitting_effort jax_memory_fitting_level
    jax_mock_gpu_topology jax_mosaic_allow_hlo jax_mutable_array_checks jax_no_execution jax_no_tracing
    jax_num_cpu_devices jax_numpy_dtype_promotion jax_numpy_rank_promotion jax_oneapi_visible_devices
    jax_optimization_level jax_pallas_enable_debug_checks jax_pallas_poison_buffers
    jax_pallas_use_mosaic_gpu jax_pallas_verbose_errors jax_persistent_cache_enable_xla_caches
    jax_persistent_cache_min_compile_time_secs jax_persistent_cache_min_entry_size_bytes
    jax_pgle_aggregation_percentile jax_pgle_profiling_runs jax_pjrt_client_create_options
    jax_platform_name jax_platforms jax_pprint_use_color jax_ragged_dot_use_gpu_pallas_triton_lowering
    jax_ragged_dot_use_ragged_dot_instruction jax_raise_persistent_cache_errors jax_random_seed_offset
    jax_refs_to_pins jax_remat3 jax_remove_custom_partitioning_ptr_from_cache_key
    jax_remove_size_one_mesh_axis_from_type jax_rocm_visible_devices jax_scan3
    jax_send_traceback_to_runtime jax_serialization_version jax_share_binary_between_hosts
    jax_share_binary_between_hosts_timeout_ms jax_softmax_custom_jvp jax_sort_devices_by_process_index
    jax_source_url_schema jax_thread_guard jax_threefry_gpu_kernel_lowering jax_threefry_partitionable
    jax_traceback_filtering jax_traceback_in_locations_limit jax_tracer_error_num_traceback_frames
    jax_transfer_guard jax_transfer_guard_device_to_device jax_transfer_guard_device_to_host
    jax_transfer_guard_host_to_device jax_use_direct_linearize jax_use_emit_pipeline_primitive
    jax_use_magma jax_use_shardy_partitioner jax_use_simplified_jaxpr_constants jax_xla_backend
    jax_xla_profile_version mock_num_gpu_processes
    """.split()
)


_CHECKING_OPTIONS = (
    "jax_debug_nans",
    "jax_debug_infs",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
)


class Config:
    """``config.update(name, value)`` as in JAX: a name JAX does not have is an AttributeError;
    the options the engine does not act on are recorded."""

    def __init__(self):
        self.values = {
            "jax_enable_x64": False,
            "jax_disable_jit": False,
            "jax_platform_name": "cpu",
            "jax_threefry_partitionable": True,
            "jax_default_matmul_precision": None,
            "jax_numpy_rank_promotion": "allow",
            "jax_numpy_dtype_promotion": "standard",
            "jax_debug_nans": False,
            "jax_debug_infs": False,
            "jax_export_calling_convention_version": 10,
            "jax_enable_checks": False,
            "jax_check_tracer_leaks": False,
            "jax_debug_key_reuse": False,
            "jax_enable_custom_prng": False,
            "jax_default_prng_impl": "threefry2x32",
            "jax_legacy_prng_key": "allow",
            "jax_softmax_custom_jvp": False,
            "jax_default_device": None,
            "jax_allow_f16_reductions": True,
            "jax_array_garbage_collection_guard": None,
            "jax_auto_pcast": True,
            "jax2tf_associative_scan_reductions": False,
            "jax_no_execution": False,
            "jax_remove_size_one_mesh_axis_from_type": False,
        }
        self._absl_configured = False

    def update(self, name: str, value) -> None:
        if name not in JAX_OPTIONS:
            raise AttributeError(f"Unrecognized config option: {name}")
        if name == "jax_enable_x64":
            from . import core

            value = bool(value)  # (JAX takes any value by its truth)
            core.set_x64(value)
        if name in ("jax_debug_nans", "jax_debug_infs"):
            from . import invalid_values

            invalid_values.set_flag(name[-4:-1], bool(value))
        if name == "jax_numpy_rank_promotion":
            from .numpy import _promote

            _promote.rank_promotion[0] = _choice(name, value, ("allow", "warn", "raise"))
        if name == "jax_numpy_dtype_promotion":
            from .numpy import _dtypes

            _dtypes.promotion_mode[0] = _choice(name, value, ("standard", "strict"))
        value = _validated(name, value)
        if name == "jax_check_tracer_leaks":
            from . import leak_check

            leak_check.active[0] = value
        if name == "jax_debug_key_reuse":
            from . import key_reuse

            key_reuse.active[0] = value
        if name == "jax_num_cpu_devices":
            _set_device_count(int(value))
        if name.startswith("jax_transfer_guard"):
            from . import transfers

            transfers.check_level(name, value)
            self.values[name] = value
            transfers.sync_active()
        self.values[name] = value
        if name.startswith("jax_transfer_guard"):
            _sync_general_path()
        if name == "jax_default_device":
            from . import core

            # (a platform name: the engine's one platform, whose first device is the default)
            core.default_device_index[0] = getattr(value, "id", None)
            _sync_general_path()
        if name in _CHECKING_OPTIONS:
            _sync_general_path()

    def config_with_absl(self) -> None:
        """Registers an absl flag for each option the engine holds, with its type and default, so
        ``app.run(main)`` parses ``--jax_enable_x64`` and the like (needs absl-py, as in JAX)."""
        from absl import flags

        define: dict[type, Callable[..., object]] = {
            bool: flags.DEFINE_bool,
            int: flags.DEFINE_integer,
            str: flags.DEFINE_string,
        }
        for name, default in self.values.items():
            if name not in flags.FLAGS:
                define.get(type(default), flags.DEFINE_string)(name, default, f"JAX option {name}")
        self._absl_flags = flags

    def parse_flags_with_absl(self) -> None:
        """Parses the ``--jax...`` arguments of ``sys.argv`` (those before a ``--``) into the options:
        ``python script.py --jax_enable_x64=true`` and, in the script::

            jax.config.parse_flags_with_absl()
            jnp.arange(2.0).dtype  # dtype('float64')
        """
        if self._absl_configured:
            return
        import sys
        from itertools import takewhile

        argv = ["", *(a for a in takewhile(lambda a: a != "--", sys.argv) if a.startswith("--jax"))]
        self.config_with_absl()
        self._absl_flags.FLAGS(argv, known_only=True)
        for name in list(self.values):
            flag = self._absl_flags.FLAGS[name]
            if flag.present:
                self.update(name, flag.value)
        self._absl_configured = True

    @property
    def x64_enabled(self) -> bool:
        return bool(self.values["jax_enable_x64"])

    def read(self, name: str):
        return self.values.get(name)

    def __getattr__(self, name):
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)


config = Config()


def bool_env(varname: str, default: bool) -> bool:
    """An environment variable read as a boolean, as JAX reads ``JAX_ENABLE_X64`` and the like."""
    val = os.environ.get(varname, str(default)).lower()
    if val in ("y", "yes", "t", "true", "on", "1"):
        return True
    if val in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"invalid truth value {val!r} for environment {varname!r}")


def enable_x64(new_val: bool = True):
    """Context manager for the ``jax_enable_x64`` option: 64-bit types inside the block.

    >>> with jax.enable_x64(True):
    ...     print(jnp.arange(3.0).dtype)
    float64
    """
    return _option("jax_enable_x64", bool(new_val))


PRNG_IMPLS = ("threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32")


def _validated(name: str, value):
    """``value`` for option ``name`` as JAX takes it, or JAX's error for a value it refuses."""
    if name == "jax_default_prng_impl" and value not in PRNG_IMPLS:
        raise ValueError(f"new enum value must be in {list(PRNG_IMPLS)}, got {value} of type {type(value)}.")
    if name == "jax_legacy_prng_key" and value not in ("allow", "warn", "error"):
        raise ValueError(f"{value!r} is not a valid LegacyPrngKeyState")
    if name == "jax_default_device" and value is not None and value not in ("cpu", "gpu", "tpu"):
        if "Device" not in str(type(value)):
            raise ValueError(
                "jax.default_device must be passed either a Device object (e.g. "
                "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu'"
                f", got: {value!r}"
            )
    refused = _REFUSED.get(name)
    if refused is not None and bool(value) == refused[0]:
        raise NotImplementedError(f"{name}={value!r} is not implemented by the engine: {refused[1]}")
    if name == "jax_array_garbage_collection_guard" and value not in (None, "allow", "log", "fatal"):
        raise ValueError(
            f"new enum value must be None or in ['allow', 'log', 'fatal'], got {value} of type {type(value)}."
        )
    if name in _BOOL_OPTIONS:
        return bool(value)
    return value


# Options whose non-default value would change what the engine does in ways it does not implement:
# that value is refused rather than silently ignored.
_REFUSED = {
    "jax_allow_f16_reductions": (False, "float16/bfloat16 sums are always allowed"),
    "jax_auto_pcast": (
        False,
        "full_like/zeros_like in a checked shard_map body always vary as their model does",
    ),
    "jax_no_execution": (True, "executions cannot be disallowed"),
    "jax_remove_size_one_mesh_axis_from_type": (True, "types keep size-1 mesh axes"),
}

_BOOL_OPTIONS = (
    "jax_allow_f16_reductions",
    "jax_auto_pcast",
    "jax2tf_associative_scan_reductions",
    "jax_no_execution",
    "jax_remove_size_one_mesh_axis_from_type",
    "jax_enable_checks",
    "jax_check_tracer_leaks",
    "jax_debug_key_reuse",
    "jax_enable_custom_prng",
    "jax_softmax_custom_jvp",
    "jax_threefry_partitionable",
)


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"Invalid value {value!r} for JAX option {name}; expected one of {allowed}")
    return value


def _sync_general_path() -> None:
    """Eager fast paths skip the checks some options ask for: while one is on, every eager op takes
    the general path (the fast paths read ``core.staging_anywhere``)."""
    from . import core, invalid_values, transfers
    from .numpy import _dtypes, _promote

    wanted = (
        invalid_values.active[0]
        or transfers.active[0]
        or _promote.rank_promotion[0] != "allow"
        or _dtypes.promotion_mode[0] != "standard"
        or core.default_device_index[0] is not None
    )
    if wanted != _general_path[0]:
        _general_path[0] = wanted
        with core._staging_lock:
            core.staging_anywhere[0] += 1 if wanted else -1


_general_path = [False]


def _set_device_count(n: int) -> None:
    """``jax_num_cpu_devices``: the simulated device count from now on (JAX's CPU devices)."""
    from .parallel import topology

    os.environ["JAXPLAY_DEVICE_COUNT"] = str(n)  # what `import jax` and jax.devices() re-read
    topology.set_device_count(n)


@contextmanager
def _option(name: str, value):
    """Within the block, option ``name`` is ``value`` (``config.update`` checks it)."""
    prev = config.values.get(name)
    config.update(name, value)
    try:
        yield
    finally:
        config.update(name, prev)


def numpy_rank_promotion(new_val: str):
    """Within the block, implicit rank promotion in jnp is ``"allow"``ed, ``"warn"``s or ``"raise"``s.

    >>> with jax.numpy_rank_promotion("raise"):
    ...     jnp.ones((2, 3)) + 1.0  # scalars always broadcast
    Array([[2., 2., 2.],
           [2., 2., 2.]], dtype=float32)
    """
    return _option("jax_numpy_rank_promotion", new_val)


def numpy_dtype_promotion(new_val: str):
    """Within the block, jnp promotes dtypes by JAX's ``"standard"`` lattice or ``"strict"``ly.

    >>> with jax.numpy_dtype_promotion("strict"):
    ...     jnp.float32(1) + 1  # a Python scalar still joins an array of its kind or above
    Array(2., dtype=float32)
    """
    return _option("jax_numpy_dtype_promotion", new_val)


def debug_nans(new_val: bool = True):
    """``jax_debug_nans`` inside the ``with`` block only (then back to what it was).

    >>> with jax.debug_nans(False):
    ...     print(jax.numpy.log(-1.0))
    nan
    """
    return _option("jax_debug_nans", new_val)


def debug_infs(new_val: bool = True):
    """``jax_debug_infs`` inside the ``with`` block only (then back to what it was)."""
    return _option("jax_debug_infs", new_val)


@contextmanager
def disable_jit(disable: bool = True):
    """Run ``jit``-decorated functions op by op (useful with print debugging)."""
    prev = config.values["jax_disable_jit"]
    config.values["jax_disable_jit"] = disable
    try:
        yield
    finally:
        config.values["jax_disable_jit"] = prev


class State:
    """A JAX option as ``jax`` exposes it: ``with jax.NAME(value):`` sets it within the block, and
    ``jax.NAME.value`` reads it."""

    def __init__(self, option: str, doc: str, default_arg=None):
        self.option, self.__doc__, self._default_arg = option, doc, default_arg

    def __call__(self, new_val=None):
        if new_val is None and self._default_arg is None:
            raise TypeError(f"{self.option[4:]}() takes the value for the block")
        return _option(self.option, self._default_arg if new_val is None else new_val)

    @property
    def value(self):
        return config.values.get(self.option)

    def __repr__(self) -> str:
        return f"State({self.option!r})"


enable_checks = State(
    "jax_enable_checks",
    """``jax_enable_checks`` in the block: JAX checks its internal invariants (the engine has no
    extra checks to turn on; the option is kept and read back).

    >>> with jax.enable_checks(True):
    ...     print(jax.enable_checks.value)
    True
    """,
    True,
)
check_tracer_leaks = State(
    "jax_check_tracer_leaks",
    """``jax_check_tracer_leaks`` in the block: a ``jit`` or ``vmap`` trace that finishes while one of
    its tracers is still referenced (stored in a global or a closure) raises, naming the holder.""",
    True,
)


def checking_leaks():
    """``check_tracer_leaks(True)``."""
    return check_tracer_leaks(True)


debug_key_reuse = State(
    "jax_debug_key_reuse",
    """``jax_debug_key_reuse`` in the block: a typed PRNG key used again after a draw or ``split``
    consumed it raises ``jax.errors.KeyReuseError`` (``engine/key_reuse.py``).""",
    True,
)
enable_custom_prng = State(
    "jax_enable_custom_prng",
    """``jax_enable_custom_prng`` in the block: ``random.PRNGKey`` and the functions given raw keys
    return typed keys, and raw keys passed to ``jax.random`` warn (``FutureWarning``).""",
    True,
)
default_prng_impl = State(
    "jax_default_prng_impl",
    """The PRNG implementation of keys made without ``impl`` in the block (raw keys are read as its
    key data).

    >>> with jax.default_prng_impl("rbg"):
    ...     print(jax.random.key(0).dtype)
    key<rbg>
    """,
)
legacy_prng_key = State(
    "jax_legacy_prng_key",
    """What passing a raw ``uint32`` key to ``jax.random`` does in the block: ``"allow"``, ``"warn"``
    or ``"error"`` (a ValueError).""",
)
softmax_custom_jvp = State(
    "jax_softmax_custom_jvp",
    """``jax_softmax_custom_jvp`` in the block: ``jax.nn.softmax`` is a ``custom_jvp`` function
    (``_softmax``, JAX's newer rule) instead of differentiating through a ``stop_gradient``.""",
    True,
)
threefry_partitionable = State(
    "jax_threefry_partitionable",
    """``jax_threefry_partitionable`` in the block: threefry's random bits and split keys in the
    partitionable layout (True, JAX 0.10.2's default) or JAX's original one (False); ``fold_in``
    is the same in both.""",
    True,
)
default_device = State(
    "jax_default_device",
    """The device arrays made in the block go to (a ``Device``, or a platform name such as ``"cpu"``,
    checked as JAX checks it). Arrays made or computed in the block that are committed to no device
    live there (``Array.devices()``, ``.sharding``); committed ones stay where they are.""",
)
allow_f16_reductions = State(
    "jax_allow_f16_reductions",
    """``jax_allow_f16_reductions`` (True, JAX's default: sums of float16/bfloat16 are allowed; False is
    refused).""",
    True,
)
array_garbage_collection_guard = State(
    "jax_array_garbage_collection_guard",
    """``jax_array_garbage_collection_guard`` (``"allow"``, ``"log"``, ``"fatal"``): JAX's guard on arrays
    freed by the cycle collector; the engine's arrays are numpy buffers, so there is nothing to guard.""",
)
auto_pcast = State("jax_auto_pcast", """``jax_auto_pcast`` (True, JAX's default; False is refused).""", True)
jax2tf_associative_scan_reductions = State(
    "jax2tf_associative_scan_reductions",
    """``jax2tf_associative_scan_reductions``: which lowering jax2tf uses for cumulative reductions
    (the engine has no jax2tf: accepted, no effect).""",
    True,
)
no_execution = State(
    "jax_no_execution", """``jax_no_execution`` (False, JAX's default; True is refused).""", True
)
remove_size_one_mesh_axis_from_type = State(
    "jax_remove_size_one_mesh_axis_from_type",
    """``jax_remove_size_one_mesh_axis_from_type`` (False, JAX's default; True is refused).""",
    True,
)
