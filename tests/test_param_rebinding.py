"""Rebinding ``eqn.primitive.bind(*invals, **eqn.params)``, as the interpreter of JAX's "Writing
custom interpreters" doc does, re-evaluates a program: for the primitives whose params carry JAX's
keys in the engine's own values (custom_jvp_call, custom_vjp_call, shard_map, all_to_all, reshard,
sharding_constraint, get/swap/addupdate), the values, derivatives (the custom rules still apply)
and layouts are the original function's."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.ir import Literal
from engine.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P
from engine.tree_util import tree_unflatten

pytestmark = pytest.mark.usefixtures("test_kernel_cache")


def eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(v):
        return v.val if type(v) is Literal else env[v]

    for v, x in zip(jaxpr.constvars, consts):
        env[v] = x
    for v, x in zip(jaxpr.invars, args):
        env[v] = x
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        for v, x in zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]):
            env[v] = x
    return [read(v) for v in jaxpr.outvars]


def rebound(f, *args):
    """``f`` re-evaluated from its jaxpr, equation by equation."""
    closed = jax.make_jaxpr(f)(*args)
    return lambda *xs: eval_jaxpr(closed.jaxpr, closed.consts, *xs)


def prims(f, *args) -> set:
    return {e.primitive.name for e in jax.make_jaxpr(f)(*args).jaxpr.eqns}


def test_custom_jvp_call_rebinds_with_its_rule():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x) * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), 3.0 * t  # (not the derivative: shows the rule is what differentiates)

    x = jnp.arange(4.0)
    g = lambda x: f(x * x)  # noqa: E731
    assert "custom_jvp_call" in prims(g, x)
    h = rebound(g, x)
    np.testing.assert_allclose(h(x)[0], g(x), rtol=1e-6)
    want = jax.grad(lambda x: g(x).sum())(x)
    np.testing.assert_allclose(want, 6.0 * x)
    np.testing.assert_allclose(jax.grad(lambda x: h(x)[0].sum())(x), want, rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(lambda x: h(x)[0])(x[:, None]), jax.vmap(g)(x[:, None]), rtol=1e-6)


def test_custom_vjp_call_rebinds_with_its_rules():
    @jax.custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, ct: (5.0 * ct, res[0] * ct))
    x, y = jnp.arange(3.0), jnp.ones(3) * 2.0
    eqns = jax.make_jaxpr(f)(x, y).jaxpr.eqns
    assert [e.primitive.name for e in eqns] == ["custom_vjp_call"]
    out_tree, _ = eqns[0].params["out_trees"]()
    assert out_tree.num_leaves == 1
    h = rebound(f, x, y)
    np.testing.assert_allclose(h(x, y)[0], f(x, y))
    want = jax.grad(lambda x, y: f(x, y).sum(), (0, 1))(x, y)
    np.testing.assert_allclose(want[0], 5.0 * np.ones(3))
    got = jax.grad(lambda x, y: h(x, y)[0].sum(), (0, 1))(x, y)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b)


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()[:4]), ("i",))


def test_shard_map_rebinds_with_its_mesh_given_or_from_the_context(mesh):
    body = lambda a: lax.psum(a * 2.0, "i")  # noqa: E731
    x = jnp.arange(8.0)
    given = jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P())
    from_context = jax.shard_map(body, in_specs=P("i"), out_specs=P())
    with jax.set_mesh(mesh):
        h = rebound(from_context, x)
        (eqn,) = jax.make_jaxpr(from_context)(x).jaxpr.eqns
    assert eqn.params["newly_manual_axes"] == frozenset({"i"})
    assert type(eqn.params["mesh"]).__name__ == "ContextMesh"  # (JAX's AbstractMesh)
    want = given(x)
    np.testing.assert_allclose(h(x)[0], want)  # (outside the context: the mesh kept its devices)
    np.testing.assert_allclose(rebound(given, x)(x)[0], want)
    np.testing.assert_allclose(jax.jit(rebound(given, x))(x)[0], want)


def test_all_to_all_rebinds_in_its_axis_environment(mesh):
    def body(a):
        return lax.all_to_all(a, "i", 0, 0, tiled=True)

    def via_interpreter(a):  # (traced where the axis is bound, as JAX's interpreter would be)
        closed = jax.make_jaxpr(body)(a)
        assert [e.primitive.name for e in closed.jaxpr.eqns] == ["all_to_all"]
        return eval_jaxpr(closed.jaxpr, closed.consts, a)[0]

    x = jnp.arange(32.0).reshape(16, 2)
    want = jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    got = jax.shard_map(via_interpreter, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    np.testing.assert_allclose(got, want)
    y = jnp.arange(16.0).reshape(4, 4)
    np.testing.assert_allclose(jax.vmap(via_interpreter, axis_name="i")(y), jax.vmap(body, axis_name="i")(y))


def test_reshard_rebinds_to_its_sharding():
    m = jax.make_mesh((4,), ("b",), (AxisType.Explicit,))
    x = jnp.arange(8.0)
    f = lambda v: jax.reshard(v * 2.0, P("b")) + 1.0  # noqa: E731
    with jax.set_mesh(m):
        eqns = jax.make_jaxpr(f)(x).jaxpr.eqns
        (p,) = [e.params for e in eqns if e.primitive.name == "reshard"]
        assert p["concrete_mesh"] == m and p["dst_sharding"].spec == P("b")
        h = rebound(f, x)
        want, got = jax.jit(f)(x), jax.jit(h)(x)[0]
        np.testing.assert_allclose(h(x)[0], f(x))
    np.testing.assert_allclose(got, want)
    assert got.sharding == want.sharding == NamedSharding(m, P("b"))


def test_sharding_constraint_rebinds_to_its_sharding():
    m = jax.make_mesh((4,), ("b",), (AxisType.Auto,))
    x = jnp.arange(8.0)
    f = lambda v: jax.lax.with_sharding_constraint(v * 2.0, P("b")) + 1.0  # noqa: E731
    with jax.set_mesh(m):
        eqns = jax.make_jaxpr(f)(x).jaxpr.eqns
        (p,) = [e.params for e in eqns if e.primitive.name == "sharding_constraint"]
        assert p["layout"] is None and p["sharding"].spec == P("b")
        h = rebound(f, x)
        want, got = jax.jit(f)(x), jax.jit(h)(x)[0]
    np.testing.assert_allclose(got, want)
    assert got.sharding == want.sharding


def test_ref_accesses_rebind_with_their_index_trees():
    def f(x, i):
        r = jax.new_ref(x)
        jax.ref.addupdate(r, slice(1, None), jnp.ones(4))
        old = jax.ref.swap(r, 0, 5.0)
        picked = r[i]
        r[...] = r[...] * 2.0
        every_other = r[::2]
        return jax.ref.freeze(r), old, picked, every_other

    x, i = jnp.arange(5.0), jnp.array([4, 0])
    closed = jax.make_jaxpr(f)(x, i)
    names = [e.primitive.name for e in closed.jaxpr.eqns]
    assert {"get", "swap", "addupdate"} <= set(names)
    for e in closed.jaxpr.eqns:
        if e.primitive.name in ("get", "swap", "addupdate"):
            idx = e.invars[1 if e.primitive.name == "get" else 2 :]
            transforms = tree_unflatten(e.params["tree"], idx)  # (JAX's: the indexers)
            assert len(transforms) <= 1 and list(getattr(t, "operands", ()) for t in transforms) in (
                [],
                [tuple(idx)],
            )
    got = eval_jaxpr(closed.jaxpr, closed.consts, x, i)
    for a, b in zip(got, f(x, i)):
        np.testing.assert_allclose(a, b)
    for a, b in zip(jax.jit(rebound(f, x, i))(x, i), jax.jit(f)(x, i)):
        np.testing.assert_allclose(a, b)
