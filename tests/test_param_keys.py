"""Every equation's ``eqn.params`` carries the keys JAX 0.10.2's carry, for each primitive both stage
over the fidelity corpus and the sweep (recorded from JAX: tests/fidelity/param_keys.py), so code
reading ``eqn.params`` or rebinding ``eqn.primitive.bind(*vals, **eqn.params)`` works unchanged."""

import pytest

from tests.fidelity import param_keys

# Primitives whose params are the engine's own, and why.
KNOWN_DIFFERENCES = {
    # JAX's ``tree`` (the indexer's pytree of a ref access) is the engine's ``indexer`` object
    "get": "indexer, not tree",
    "swap": "indexer, not tree",
    "addupdate": "indexer, not tree",
    # the engine's custom rules are Python functions, not JAX's traced-jaxpr thunks
    "custom_jvp_call": "jvp and name, not jvp_jaxpr_fun and symbolic_zeros",
    "custom_vjp_call": "fwd and name, not fwd_jaxpr_thunk, out_trees and symbolic_zeros",
    # whether the mesh came from the context, where JAX records its newly manual axes
    "shard_map": "mesh_from_context, not newly_manual_axes",
    # the axis size, which JAX reads from its axis environment when it types the equation
    "all_to_all": "axis_size too",
    # the engine's sharding objects: JAX's dst_sharding and concrete_mesh are one sharding here
    "reshard": "sharding, not concrete_mesh and dst_sharding",
    "sharding_constraint": "from_spec, not layout",
}


@pytest.fixture(scope="module")
def keys():
    return param_keys.engine_keys()


def test_known_differences_still_differ(keys):
    want = param_keys.recorded()
    stale = [p for p in KNOWN_DIFFERENCES if p in keys and all(list(k) in want[p] for k in keys[p])]
    assert not stale, f"now as JAX's: remove from KNOWN_DIFFERENCES: {stale}"


def test_params_have_jax_keys(keys):
    want = param_keys.recorded()
    shared = [p for p in keys if p in want and p not in KNOWN_DIFFERENCES]
    assert len(shared) > 150  # (the corpus stages most of lax)
    differ = {
        p: {"engine": sorted(keys[p]), "jax": want[p]}
        for p in shared
        if any(list(k) not in want[p] for k in keys[p])
    }
    assert not differ, differ
