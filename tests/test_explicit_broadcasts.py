"""On a mesh of Explicit axes, jnp's broadcasts type their results as JAX's ``broadcast_shardings``
does, and ``vmap`` refuses mapped dimensions split differently, as JAX 0.10.2 prints them
(texts recorded by ``tests/jax_reference/record_explicit_broadcasts.py``)."""

import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
import engine.scipy.special  # noqa: F401  (jax.scipy, as the programs use it)
from engine.parallel.partition import ShardingTypeError
from engine.parallel.type_rules import broadcast_sharding
from engine.sharding import AbstractMesh, AxisType, NamedSharding, PartitionSpec as P

pytestmark = pytest.mark.usefixtures("test_kernel_cache")

HERE = pathlib.Path(__file__).parent / "jax_reference"


def _programs():
    sys.path.insert(0, str(HERE))
    try:
        from record_explicit_broadcasts import programs, shown
    finally:
        sys.path.remove(str(HERE))
    return programs, shown


def test_broadcasts_and_vmap_print_as_jax_types_them():
    programs, shown = _programs()
    want = json.loads((HERE / "explicit_broadcasts.json").read_text())
    try:
        cases = programs(jax)
        assert set(cases) == set(want)
        for name, (f, args) in cases.items():
            assert shown(jax, f, args) == want[name], name
            if want[name].startswith("{"):  # (what runs is laid out as typed, with numpy's values)
                out = jax.jit(f)(*args)
                plain = jax.tree.map(np.asarray, f(*[jnp.asarray(np.asarray(a)) for a in args]))
                for got, ref in zip(jax.tree.leaves(out), jax.tree.leaves(plain)):
                    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-6)
                    assert str(jax.typeof(got)).lstrip("~") in want[name].replace("f32", "float32"), name
    finally:
        jax.set_mesh(None)


def test_broadcast_sharding_follows_jax_rule():
    mesh = AbstractMesh((2, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)

    def named(*spec):
        return NamedSharding(mesh, P(*spec))

    # the highest-rank operand's layout where the others agree with its trailing dimensions
    assert broadcast_sharding([(4, 4), ()], [named("x", None), None]).spec == P("x", None)
    assert broadcast_sharding([(4, 4), (4,)], [named("x", "y"), named("y")]).spec == P("x", "y")
    # else dimension by dimension: a size-1 unsplit dimension does not vote
    assert broadcast_sharding([(4, 1), (1, 4)], [named("x", None), named(None, "y")]).spec == P("x", "y")
    assert broadcast_sharding([(4,), (4,)], [None, None]) is None
    with pytest.raises(ShardingTypeError, match="incompatible shardings for broadcasting"):
        broadcast_sharding([(4, 4), (4, 4), ()], [named("x", None), named("y", None), None])
