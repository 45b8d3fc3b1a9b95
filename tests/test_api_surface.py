"""JAX 0.10.2's public names, module by module (recorded by tests/jax_reference/record_api_surface.py),
against the engine's under ``import jax``. Every name the engine lacks is listed in ``GAPS`` with the
reason; a listed name that appears fails the test (remove it from the list), so the list cannot go
stale. Names whose reason starts with ``elsewhere:`` are being added by concurrent work and may
appear without failing."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
RECORDED: dict[str, list[str]] = json.loads((HERE.parents[1] / "engine" / "public_names.json").read_text())

NOT_ON_CPU = "needs a GPU/TPU runtime, multi-host processes or XLA internals the engine does not have"
NOT_YET = "not implemented yet"
INTERNAL_PRIM = "a primitive of an XLA-specific op the engine does not stage (its public wrapper may exist)"


def _same(reason: str, names: str) -> dict[str, str]:
    return {n: reason for n in names.split()}


# module -> {name: why the engine lacks it}, or module -> why the whole module is missing.
GAPS: dict[str, dict[str, str] | str] = {
    "jax": {
        **_same(
            NOT_ON_CPU,
            "distributed make_array_from_process_local_data process_indices host_count host_id host_ids "
            "make_user_context thread_guard copy_to_host_async smap",
        ),
        **_same("XLA internals (jax.lib, jax.api_util)", "lib api_util"),
    },
    "jax.custom_derivatives": {"remat_opt_p": "an internal primitive of JAX's remat optimization"},
    "jax.example_libraries.optimizers": _same(
        "module-level imports and type aliases of JAX's source file, not API",
        "Array InitFn Params ParamsFn State Step UpdateFn Updates jax map partial safe_map safe_zip unzip2 zip",
    ),
    "jax.experimental": _same(NOT_YET, "EArray cur_qdd primal_tangent_dtype"),
    "jax.experimental.sparse": {
        **_same(
            "sparsify is the jaxpr interpreter only (no tracer mode, no todense primitive)",
            "SparseTracer todense_p",
        ),
    },
    "jax.lax": {
        **_same(
            INTERNAL_PRIM,
            "device_put_p ragged_all_to_all_p select_and_scatter_p sharding_constraint_p stage_p",
        ),
        **_same(
            NOT_ON_CPU,
            "precv psend ragged_all_to_all stage pbroadcast",
        ),
    },
    "jax.profiler": {
        **_same("the profiler's protobuf types (xprof)", "ProfileData ProfileEvent ProfilePlane"),
        **_same(
            "a profiling server for TensorBoard to connect to", "register_subprocess start_server stop_server"
        ),
    },
    "jax.tree_util": {"default_registry": "the engine's pytree registry is not a PyTreeRegistry object"},
}


@pytest.fixture(scope="module")
def engine_names():
    from engine import compat

    compat.install()
    sys.path.insert(0, str(HERE))
    from record_api_surface import public_names

    sys.path.remove(str(HERE))
    yield public_names
    compat.uninstall()


def test_gaps_name_only_recorded_modules_and_names():
    for module, gaps in GAPS.items():
        assert module in RECORDED, f"{module} is not in engine/public_names.json"
        if isinstance(gaps, dict):
            unknown = sorted(set(gaps) - set(RECORDED[module]))
            assert not unknown, f"{module}: JAX 0.10.2 has no {unknown}"


@pytest.mark.parametrize("module", sorted(RECORDED))
def test_module_has_jax_public_names(module, engine_names):
    gaps = GAPS.get(module, {})
    if isinstance(gaps, str):
        with pytest.raises(ImportError):
            engine_names(module)
        return
    have = set(engine_names(module))
    missing = sorted(n for n in RECORDED[module] if n not in have and n not in gaps)
    assert not missing, f"{module} lacks {missing} (implement them, or list them in GAPS with the reason)"
    stale = sorted(n for n, why in gaps.items() if n in have and not why.startswith("elsewhere:"))
    assert not stale, f"{module} now has {stale}: remove them from GAPS"
    # and no more: dir() lists JAX's names, not the engine's own submodules, imports and helpers
    extra = sorted(set(have) - set(RECORDED[module]))
    assert not extra, f"dir({module}) lists {extra}, which JAX's does not"


def test_arrays_assembled_from_device_blocks_hold_the_global_values():
    """make_array_from_callback asks for each device's block by its index into the global array;
    make_array_from_single_device_arrays takes the blocks; both lay them out by the sharding."""
    import numpy as np

    import engine
    from engine.sharding import NamedSharding, PartitionSpec, SingleDeviceSharding

    data = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    asked = []

    def block(index):
        asked.append(index)
        return data[index]

    one = engine.make_array_from_callback((4, 8), SingleDeviceSharding(engine.devices()[0]), block)
    np.testing.assert_array_equal(np.asarray(one), data)
    assert asked == [(slice(None), slice(None))]
    if engine.device_count() < 4:
        return
    sharding = NamedSharding(engine.make_mesh((2, 2), ("x", "y")), PartitionSpec("x", "y"))
    a = engine.make_array_from_callback((4, 8), sharding, lambda idx: data[idx])
    np.testing.assert_array_equal(np.asarray(a), data)
    assert a.sharding == sharding and [s.data.shape for s in a.addressable_shards] == [(2, 4)] * 4
    pieces = [data[idx] for idx in sharding.devices_indices_map((4, 8)).values()]
    b = engine.make_array_from_single_device_arrays((4, 8), sharding, pieces)
    np.testing.assert_array_equal(np.asarray(b * 2), 2 * data)
    with pytest.raises(ValueError, match="one per device"):
        engine.make_array_from_single_device_arrays((4, 8), sharding, pieces[:3])
