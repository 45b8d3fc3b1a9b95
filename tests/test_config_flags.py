"""JAX options whose non-default value the engine does not implement are refused, naming the
option, instead of being silently ignored (the values JAX accepts are replayed against JAX in
``jax_reference/snippets_config_flags.py``)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "name,value",
    [
        ("allow_f16_reductions", False),
        ("auto_pcast", False),
        ("no_execution", True),
        ("remove_size_one_mesh_axis_from_type", True),
    ],
)
def test_unimplemented_values_are_refused(name, value, jax_on_engine):
    option = "jax2tf_associative_scan_reductions" if name.startswith("jax2tf") else f"jax_{name}"
    with pytest.raises(NotImplementedError, match=option):
        with getattr(jax_on_engine, name)(value):
            pass
    with pytest.raises(NotImplementedError, match=option):
        jax_on_engine.config.update(option, value)
    assert getattr(jax_on_engine, name).value == (not value)  # (unchanged)


def test_prng_implementations_jax_has_and_the_engine_lacks_are_refused(jax_on_engine):
    for impl in ("threefry4x32", "philox2x32", "philox4x32"):
        with jax_on_engine.default_prng_impl(impl):
            with pytest.raises(NotImplementedError, match=impl):
                jax_on_engine.random.key(0)
