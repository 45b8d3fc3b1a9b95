"""Unreduced and reduced values on an explicit mesh (JAX's "Autodiff and sharding" tutorial): a
contraction that stops before its sum, the linear operations that keep a value unreduced and the
others that refuse it, and a cast to reduced that makes a gradient come out unreduced so that one
``reshard`` sums it, in a loop too. Values are checked against numpy and against the same
program with replicated weights; the tutorial's printed types and jaxprs are in the docs suite."""

import pickle

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.parallel.partition import ShardingTypeError
from engine.sharding import PartitionSpec as P

A = np.arange(4.0, dtype=np.float32).reshape(2, 2)
B = np.arange(4.0, 8.0, dtype=np.float32).reshape(2, 2)


@pytest.fixture
def mesh():
    with jax.set_mesh(jax.make_mesh((2,), ("X",))) as m:
        yield m


def _operands():
    return jax.device_put(A, P(None, "X")), jax.device_put(B, P("X", None))


def test_partition_spec_states():
    spec = P(None, unreduced={"X"}, reduced={"Y"})
    assert (
        repr(spec) == "P(None, unreduced={'X'}, reduced={'Y'})"
        and repr(P(reduced={"X"})) == "P(reduced={'X'})"
    )
    assert spec.to_ct_spec() == P(None, unreduced={"Y"}, reduced={"X"}) and spec != P(None, unreduced={"X"})
    assert pickle.loads(pickle.dumps(spec)) == spec
    with pytest.raises(ValueError, match="partitions cannot overlap with reduced axes"):
        P("X", reduced={"X"})
    with pytest.raises(ValueError, match="cannot overlap"):
        P(unreduced={"X"}, reduced={"X"})
    with pytest.raises(ValueError, match="Please use \\*spec.partitions"):
        tuple(P(None, reduced={"X"}))


def test_a_contraction_left_unreduced_holds_partial_sums(mesh):
    a, b = _operands()
    c = jnp.einsum("ij,jk->ik", a, b, out_sharding=P(None, None, unreduced={"X"}))
    assert str(jax.typeof(c)) == "float32[2,2]{U:X}"
    # device k multiplied its column of a by its row of b
    for k, shard in enumerate(c.addressable_shards):
        np.testing.assert_array_equal(np.asarray(shard.data), np.outer(A[:, k], B[k]))
    np.testing.assert_array_equal(np.asarray(jax.reshard(c, P(None, None))), A @ B)
    c2 = jnp.einsum("ij,jk->ik", 2.0 * a, b, out_sharding=P(None, None, unreduced={"X"}))
    total = c + c2  # sums of partial sums are partial sums of the sum
    assert str(jax.typeof(total)) == "float32[2,2]{U:X}"
    np.testing.assert_allclose(np.asarray(jax.reshard(total, P(None, None))), 3 * A @ B)
    assert str(jax.typeof(c.T)) == "float32[2,2]{U:X}" and str(jax.typeof(jnp.sum(c))) == "float32[]{U:X}"
    np.testing.assert_allclose(np.asarray(jax.reshard(jnp.sum(c, axis=0), P(None))), (A @ B).sum(0))


def test_nonlinear_operations_refuse_an_unreduced_value(mesh):
    a, b = _operands()
    c = jnp.einsum("ij,jk->ik", a, b, out_sharding=P(None, None, unreduced={"X"}))
    with pytest.raises(NotImplementedError, match="unreduced rule for cos is not implemented"):
        jnp.cos(c)
    with pytest.raises(NotImplementedError, match="unreduced rule for sub is not implemented"):
        c - c
    with pytest.raises(ShardingTypeError, match="lhs is unreduced while rhs is not"):
        c + jnp.ones((2, 2))
    with pytest.raises(ShardingTypeError, match="lhs or rhs passed to dot_general cannot be unreduced"):
        c @ c


def test_reduced_is_replicated_in_the_forward_pass(mesh):
    w = jax.reshard(jnp.asarray(A), P(None, None, reduced={"X"}))
    assert str(jax.typeof(w)) == "float32[2,2]{R:X}"
    for shard in w.addressable_shards:  # a full copy on every device
        np.testing.assert_array_equal(np.asarray(shard.data), A)
    assert (
        str(jax.typeof(jnp.tanh(w))) == "float32[2,2]{R:X}"
        and str(jax.typeof(w * 2.0)) == "float32[2,2]{R:X}"
    )
    with pytest.raises(ShardingTypeError, match="Inputs cannot be replicated on the same axes"):
        w + jnp.ones((2, 2))
    # a replicated value made unreduced: device 0 keeps it, the others hold zeros
    u = jax.reshard(jnp.asarray(A), P(unreduced={"X"}))
    assert [float(np.asarray(s.data).sum()) for s in u.addressable_shards] == [A.sum(), 0.0]


def _data_parallel():
    x = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), P("X", None))
    w = jax.device_put(np.arange(8.0, dtype=np.float32).reshape(4, 2) / 10, P(None, None))
    return w, x


def test_a_reduced_cast_places_the_gradients_sum(mesh):
    w, x = _data_parallel()

    def loss(w, x):
        return jnp.sum((x @ w) ** 2)

    def loss_reduced(w, x):
        return loss(jax.reshard(w, P(None, None, reduced={"X"})), x)

    want = 2 * np.asarray(x).T @ (np.asarray(x) @ np.asarray(w))
    for g in (jax.grad(loss_reduced), jax.jit(jax.grad(loss_reduced))):
        dw = g(w, x)
        assert str(jax.typeof(dw)) == "float32[4,2]"  # (the cast's transpose sums it back)
        np.testing.assert_allclose(np.asarray(dw), want, rtol=1e-6)
    text = str(jax.jit(jax.grad(loss_reduced)).trace(w, x).jaxpr)
    assert "f32[4,2]{R:X} = reshard a" in text and "f32[2,4]{U:X} = dot_general" in text
    assert text.rstrip().endswith("l:f32[4,2] = reshard k\n  in (l,) }")
    # without the cast the dot sums inside: no unreduced value anywhere
    assert "{U:X}" not in str(jax.jit(jax.grad(loss)).trace(w, x).jaxpr)


def test_unreduced_gradients_accumulate_over_a_loop(mesh):
    def loss(ws, batch):
        out, _ = jax.lax.scan(lambda h, w: (jnp.tanh(h @ w), None), batch, ws)
        return jnp.sum(out**2)

    def step(ws, xs, reduced):
        def microbatch(acc, x):
            g = jax.grad(loss)(ws, x)
            if reduced:
                assert jax.typeof(g).sharding.spec.unreduced == {"X"}
            return acc + g, None

        acc = jnp.zeros_like(ws)
        if reduced:
            acc = jax.reshard(acc, P(unreduced={"X"}))
        acc, _ = jax.lax.scan(microbatch, acc, xs)
        return jax.reshard(ws, P()) - 0.01 * jax.reshard(acc, P())

    stacked = np.stack([np.eye(4, dtype=np.float32) / 2 + 0.1 * k for k in range(3)])
    xs = jax.device_put(np.linspace(-1, 1, 40, dtype=np.float32).reshape(5, 2, 4), P(None, "X", None))
    ws_reduced = jax.device_put(stacked, P(reduced={"X"}))
    stepped = jax.jit(step, static_argnums=2)
    got = stepped(ws_reduced, xs, True)
    want = stepped(jax.device_put(stacked, P()), xs, False)
    assert str(jax.typeof(got)) == "float32[3,4,4]"
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    # Types inside the loop body, as JAX gives them: zeros_like keeps the reduced type, the loss
    # sum's transpose is laid out as its operand, and the unreduced gradient is added as it is.
    text = str(stepped.trace(ws_reduced, xs, True).jaxpr)
    assert "f32[3,4,4]{R:X} = broadcast_in_dim 0.0" in text
    assert "f32[2@X,4] = broadcast_in_dim" in text and "f32[2,4] = broadcast_in_dim" not in text
    # (JAX's five: the seed 1.0 in each of the two scans' grads, the zeros' cast, the two after)
    assert text.count("reshard") == 5, text
    # One all-reduce per step: the dead loss value of each microbatch sums nothing on the devices.
    compiled = stepped.lower(ws_reduced, xs, True).compile().as_text()
    assert compiled.count("all-reduce(") == 1, compiled


def test_shard_map_bodies_type_unreduced_and_reduced_values(mesh, capsys):
    x = jax.device_put(np.arange(8.0, dtype=np.float32), P("X"))
    unreduced = jnp.einsum("i,i->", x, x, out_sharding=P(unreduced={"X"}))
    reduced = jax.reshard(jnp.arange(4.0), P(reduced={"X"}))

    @jax.shard_map(in_specs=(P("X"), P(), P(unreduced={"X"}), P(reduced={"X"})), out_specs=P("X"))
    def f(a, b, c, d):
        print(jax.typeof(a), jax.typeof(b), jax.typeof(c), jax.typeof(d))
        return a

    f(x, jnp.arange(4.0), unreduced, reduced)
    assert capsys.readouterr().out.split() == [
        "float32[4]{V:X}",
        "float32[4]",
        "float32[]{U:X}",
        "float32[4]{R:X}",
    ]


def test_pcast_to_unreduced_and_its_transpose(mesh):
    a, b = _operands()

    @jax.shard_map(in_specs=(P(None, "X"), P("X", None)), out_specs=P(None, None, unreduced={"X"}))
    def matmul_partial(a, b):
        out = a @ b  # each device's partial sum
        assert str(jax.typeof(out)) == "float32[2,2]{V:X}"
        out = jax.lax.pcast(out, "X", to="unreduced")
        assert str(jax.typeof(out)) == "float32[2,2]{U:X}"
        return out

    c = matmul_partial(a, b)
    assert str(jax.typeof(c)) == "float32[2,2]{U:X}"
    np.testing.assert_array_equal(np.asarray(jax.reshard(c, P())), A @ B)

    def loss(a, b):
        return jnp.sum(jax.reshard(matmul_partial(a, b), P(None, None)) * jnp.arange(4.0).reshape(2, 2))

    da, db = jax.grad(loss, argnums=(0, 1))(a, b)
    g = np.arange(4.0, dtype=np.float32).reshape(2, 2)
    np.testing.assert_allclose(np.asarray(da), g @ B.T)
    np.testing.assert_allclose(np.asarray(db), A.T @ g)
    text = str(jax.jit(jax.grad(loss, argnums=(0, 1))).trace(a, b).jaxpr)
    assert "vary_unreduced_cast_p[axes=('X',)]" in text and "reduced_vary_cast_p[axes=('X',)]" in text
    assert "in_specs=(P(None, None, reduced={'X'})" in text  # (the cotangent of an unreduced result)
    with pytest.raises(ValueError, match="Unsupported pcast from=invarying, to='unreduced'"):
        jax.shard_map(lambda v: jax.lax.pcast(v, "X", to="unreduced"), in_specs=P(), out_specs=P())(
            jnp.ones(2)
        )


def test_reduced_weights_in_shard_map_give_unreduced_gradients(mesh):
    w, x = _data_parallel()
    w_r = jax.reshard(w, P(None, None, reduced={"X"}))

    def layer(spec):
        return jax.shard_map(
            lambda x, w: jnp.tanh(x @ w), in_specs=(P("X", None), spec), out_specs=P("X", None)
        )

    def loss(spec):
        return lambda w, x: jnp.sum(layer(spec)(x, w) ** 2)

    dw = jax.grad(loss(P(None, None, reduced={"X"})))(w_r, x)
    assert str(jax.typeof(dw)) == "float32[4,2]{U:X}"
    want = jax.grad(loss(P()))(w, x)  # replicated weights: the gradient's psum inside
    assert str(jax.typeof(want)) == "float32[4,2]"
    np.testing.assert_allclose(np.asarray(jax.reshard(dw, P())), np.asarray(want), rtol=1e-6)
    text = str(jax.make_jaxpr(layer(P(None, None, reduced={"X"})))(x, w_r))
    assert "reduced_vary_cast_p[axes=('X',)] e" in text  # (a reduced operand meeting a varying one)
    # vmap over the casts, and preduced (invarying -> reduced) whose transpose is a psum
    f = jax.shard_map(
        lambda v: jax.lax.pcast(jax.lax.pcast(v, "X", to="reduced"), "X", to="varying") * 2.0,
        in_specs=P(),
        out_specs=P("X"),
    )
    v = jnp.arange(3.0)
    np.testing.assert_array_equal(np.asarray(f(v)), np.tile(2 * np.arange(3.0), 2))
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(f)(jnp.stack([v, v]))), np.stack([np.tile(2 * np.arange(3.0), 2)] * 2)
    )
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: jnp.sum(f(v)))(v)), [4.0, 4.0, 4.0])


def test_all_gather_to_invarying_and_reduced():
    """``all_gather(to='invarying')`` (JAX's ``all_gather_invariant``: its transpose slices each
    device's piece of the cotangent) and ``to='reduced'`` (``all_gather_reduced``: its cotangent
    is unreduced, summed by ``unreduced_reduce_scatter``)."""
    mesh = jax.make_mesh((2,), ("X",))
    x = jax.device_put(np.arange(4.0, dtype=np.float32), jax.NamedSharding(mesh, P("X")))
    with jax.set_mesh(mesh):
        inv = jax.shard_map(
            lambda v: jax.lax.all_gather(v, "X", tiled=True, to="invarying"), in_specs=P("X"), out_specs=P()
        )
        red = jax.shard_map(
            lambda v: jax.lax.all_gather(v, "X", tiled=True, to="reduced"),
            in_specs=P("X"),
            out_specs=P(reduced={"X"}),
        )
        text = str(jax.make_jaxpr(inv)(x)) + str(jax.make_jaxpr(red)(x))
        assert "f32[4] = all_gather_invariant[" in text and "f32[4]{R:X} = all_gather_reduced[" in text
        assert str(jax.typeof(red(x))) == "float32[4]{R:X}"
        np.testing.assert_array_equal(np.asarray(inv(x)), np.arange(4.0))
        want = np.cos(np.arange(4.0))
        np.testing.assert_allclose(
            np.asarray(jax.grad(lambda v: jnp.sum(jnp.sin(inv(v))))(x)), want, rtol=1e-6
        )
        g = jax.grad(lambda v: jnp.sum(jnp.sin(jax.reshard(red(v), P()))))
        assert "unreduced_reduce_scatter[" in str(jax.make_jaxpr(g)(x))
        np.testing.assert_allclose(np.asarray(g(x)), want, rtol=1e-6)
        # batched: each row gathered alike
        xs = jax.device_put(
            np.arange(8.0, dtype=np.float32).reshape(2, 4), jax.NamedSharding(mesh, P(None, "X"))
        )
        np.testing.assert_array_equal(np.asarray(jax.vmap(inv)(xs)), np.arange(8.0).reshape(2, 4))
