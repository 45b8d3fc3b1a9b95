"""Every equation's ``eqn.params`` carries the keys JAX 0.10.2's carry, for each primitive both stage
over the fidelity corpus and the sweep (recorded from JAX: tests/fidelity/param_keys.py), so code
reading ``eqn.params`` or rebinding ``eqn.primitive.bind(*vals, **eqn.params)`` works unchanged."""

import pytest

from tests.fidelity import param_keys

# Primitives whose params are the engine's own, and why (none now: where JAX's value is an object
# the engine lacks, its key holds the engine's equivalent; see tests/test_param_rebinding.py).
KNOWN_DIFFERENCES: dict[str, str] = {}


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
