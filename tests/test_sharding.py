"""The explicit-sharding surface (``jax.sharding``, ``make_mesh``, ``device_put`` with a sharding,
``typeof``, ``reshard``) over the simulated devices; reprs and errors as JAX 0.10.2 prints them."""

import re

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.parallel.partition import ShardingTypeError
from engine.parallel.named import NamedShardedArray
from engine.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding


pytestmark = pytest.mark.usefixtures("test_kernel_cache")


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((4,), ("b",))


def test_partition_spec_and_mesh_reprs():
    assert (
        repr(P("a", None)) == "P('a', None)"
        and repr(P()) == "P()"
        and repr(P(("a", "b"))) == "P(('a', 'b'),)"
    )
    assert P("a") != P("a", None) and P("a") != ("a",)
    m = jax.make_mesh((4, 2), ("x", "y"))
    assert repr(m) == "Mesh(axis_sizes=(4, 2), axis_names=('x', 'y'), axis_types=(Explicit, Explicit))"
    assert str(m) == "Mesh('x': 4, 'y': 2, axis_types=(Explicit, Explicit))"
    assert m.shape_tuple == (("x", 4), ("y", 2)) and m.size == 8 and m.devices.shape == (4, 2)
    assert str(Mesh(np.array(jax.devices()[:4]), ("i",))) == "Mesh('i': 4, axis_types=(Auto,))"
    assert str(AxisType.Explicit) == "AxisType.Explicit" and repr(AxisType.Auto) == "Auto"
    assert repr(jax.sharding.get_abstract_mesh()) == "AbstractMesh((), axis_types=())"


def test_device_put_places_blocks_on_devices(mesh):
    s = NamedSharding(mesh, P("b"))
    assert (
        repr(s)
        == "NamedSharding(mesh=Mesh('b': 4, axis_types=(Explicit,)), spec=P('b',), memory_kind=device)"
    )
    value = np.arange(16.0).reshape(8, 2)
    x = jax.device_put(value, s)
    assert isinstance(x, NamedShardedArray) and x.sharding == s
    shards = x.addressable_shards
    assert [sh.device.id for sh in shards] == [0, 1, 2, 3]
    for k, sh in enumerate(shards):
        assert sh.index == (slice(2 * k, 2 * k + 2), slice(None))
        np.testing.assert_array_equal(np.asarray(sh.data), value[2 * k : 2 * k + 2])
    np.testing.assert_array_equal(np.asarray(x), value)
    assert str(jax.typeof(x)) == "float32[8@b,2]"
    assert repr(jax.typeof(x).sharding).startswith(
        "NamedSharding(mesh=AbstractMesh('b': 4, axis_types=(Explicit,)"
    )


def test_two_axis_mesh_and_replication():
    m = jax.make_mesh((4, 2), ("x", "y"))
    x = jax.device_put(np.arange(16.0).reshape(8, 2), NamedSharding(m, P("x", "y")))
    assert str(jax.typeof(x)) == "float32[8@x,2@y]"
    assert [(sh.device.id, sh.index[0].start, sh.index[1].start) for sh in x.addressable_shards][:3] == [
        (0, 0, 0),
        (1, 0, 1),
        (2, 2, 0),
    ]
    r = jax.device_put(np.ones((4, 3)), NamedSharding(m, P()))
    assert r.sharding.is_fully_replicated and len(r.addressable_shards) == 8
    assert all(sh.data.shape == (4, 3) for sh in r.addressable_shards)
    assert str(jax.typeof(r)) == "float32[4,3]"


def test_shard_reprs_and_replica_ids_as_jax_prints_them():
    # JAX 0.10.2 with 8 CPU devices printed these
    m = jax.make_mesh((4, 2), ("a", "b"))
    x = jax.device_put(np.arange(8.0).reshape(4, 2), NamedSharding(m, P("a")))
    assert [repr(s) for s in x.addressable_shards[1:3]] == [
        "Shard(device=CpuDevice(id=1), index=(slice(0, 1, None), slice(None, None, None)), "
        "replica_id=1, data=[[0. 1.]])",
        "Shard(device=CpuDevice(id=2), index=(slice(1, 2, None), slice(None, None, None)), "
        "replica_id=0, data=[[2. 3.]])",
    ]
    y = jax.device_put(np.arange(3), NamedSharding(m, P()))
    assert [s.replica_id for s in y.addressable_shards] == list(range(8))
    assert repr(jnp.arange(3).addressable_shards) == (
        "[Shard(device=CpuDevice(id=0), index=(slice(None, None, None),), replica_id=0, data=[0 1 2])]"
    )
    assert repr(jnp.float32(2).addressable_shards[0]) == (
        "Shard(device=CpuDevice(id=0), index=(), replica_id=0, data=2.0)"
    )
    z = jax.pmap(lambda v: v * 2)(np.arange(8.0))
    assert repr(z.addressable_shards[1]) == (
        "Shard(device=CpuDevice(id=1), index=(slice(1, 2, None),), replica_id=0, data=[2.])"
    )


def test_plain_arrays_and_typeof():
    y = jnp.ones(3)
    assert repr(y.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert isinstance(y.sharding, SingleDeviceSharding)
    assert y.device == jax.devices()[0] and jax.device_put(y, jax.devices()[3]).device == jax.devices()[3]
    m = jax.make_mesh((4,), ("b",))
    assert jax.device_put(np.ones(4), NamedSharding(m, P("b"))).device == NamedSharding(m, P("b"))
    assert repr(jax.typeof(y)) == "ShapedArray(float32[3])"
    assert str(jax.typeof(1.0)) == "~float32[]"
    assert jax.effects_barrier() is None


def test_set_mesh_and_bare_partition_specs(mesh):
    with pytest.raises(ValueError, match="set a mesh via `jax.set_mesh`"):
        jax.device_put(np.ones((8, 3)), P("b"))
    with jax.set_mesh(mesh):
        assert jax.sharding.get_mesh() is mesh
        x = jax.device_put(np.ones((8, 3)), P("b"))
        assert x.sharding == NamedSharding(mesh, P("b"))
        r = jax.reshard(x, P())
        assert r.sharding.is_fully_replicated and np.asarray(r).sum() == 24
    assert jax.sharding.get_mesh() is None


def test_errors_name_the_problem(mesh):
    with pytest.raises(ValueError, match="does not evenly divide the dimension size 7"):
        jax.device_put(np.ones((7, 3)), NamedSharding(mesh, P("b")))
    with pytest.raises(ValueError, match="Resource axis: c of P\\('c',\\) is not found in mesh"):
        NamedSharding(mesh, P("c"))
    with pytest.raises(ValueError, match="needs 64 devices"):
        jax.make_mesh((64,), ("b",))
    placed = jax.jit(lambda v: jax.device_put(v * 2, NamedSharding(mesh, P("b"))))(jnp.ones(8))
    assert str(jax.typeof(placed)) == "float32[8@b]" and np.asarray(placed).tolist() == [2.0] * 8


def test_visualize_array_sharding(mesh, capsys):
    x = jax.device_put(np.ones((8, 2)), NamedSharding(jax.make_mesh((4, 2), ("x", "y")), P("x", "y")))
    jax.debug.visualize_array_sharding(x)
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "│ CPU 0 │ CPU 1 │" and out[-2] == "│ CPU 6 │ CPU 7 │" and len(out) == 9
    jax.debug.visualize_array_sharding(jax.device_put(np.ones(8), NamedSharding(mesh, P())))
    assert "CPU 0,1,2,3" in capsys.readouterr().out


# jit of sharded arrays: one program per device (engine.parallel.spmd).


def _put(value, mesh, spec):
    return jax.device_put(np.asarray(value, np.float32), NamedSharding(mesh, spec))


def test_jit_partitions_and_keeps_shardings(mesh):
    an = np.arange(24, dtype=np.float32).reshape(8, 3)
    a = _put(an, mesh, P("b"))
    f = jax.jit(
        lambda a: (
            a * 2,
            a.sum(0),
            a.sum(),
            jnp.matmul(a.T, a, out_sharding=NamedSharding(mesh, P())),
            a @ jnp.ones((3, 5)),
            jnp.argmax(a, 1),
            jnp.tanh(a[:, :2]),
        )
    )
    outs = f(a)
    want = (
        an * 2,
        an.sum(0),
        an.sum(),
        an.T @ an,
        an @ np.ones((3, 5)),
        np.argmax(an, 1),
        np.tanh(an[:, :2]),
    )
    for o, w in zip(outs, want):
        np.testing.assert_allclose(np.asarray(o), w, rtol=1e-6)
    # as JAX 0.10.2 types them
    assert [str(jax.typeof(o)) for o in outs] == [
        "float32[8@b,3]",
        "float32[3]",
        "float32[]",
        "float32[3,3]",
        "float32[8@b,5]",
        "int32[8@b]",
        "float32[8@b,2]",
    ]
    # a contraction over the split dimension needs out_sharding= under jit as eagerly (JAX's error)
    with pytest.raises(ShardingTypeError, match="Contracting dimensions are sharded"):
        jax.jit(lambda a: a.T @ a)(a)
    cat = jax.jit(lambda a: (jnp.concatenate([a, a * 2], 1), a[::2], jnp.concatenate([a, a])))(a)
    np.testing.assert_allclose(np.asarray(cat[0]), np.concatenate([an, an * 2], 1))
    np.testing.assert_allclose(np.asarray(cat[1]), an[::2])  # a strided sharded dim: gathered, still right
    np.testing.assert_allclose(np.asarray(cat[2]), np.concatenate([an, an]))
    assert str(jax.typeof(cat[0])) == "float32[8@b,6]"


def _mlp_step(params, batch, out=None):
    """A training step; ``out``: the logits' layout (a contraction over split hidden units on an
    Explicit mesh needs one, as JAX types it)."""

    def loss(params, batch):
        x, t = batch
        for w, b in params[:-1]:
            x = jnp.tanh(x @ w + b)
        w, b = params[-1]
        logits = jnp.matmul(x, w, out_sharding=out) + b
        logits = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.mean(jnp.sum(logits * t, axis=1))

    value, grads = jax.value_and_grad(loss)(params, batch)
    return value, [(w - 0.1 * dw, b - 0.1 * db) for (w, b), (dw, db) in zip(params, grads)]


def test_data_parallel_training_step_runs_on_every_device(mesh):
    from engine import monitoring

    rng = np.random.RandomState(0)
    params = [(rng.randn(6, 5) * 0.3, rng.randn(5)), (rng.randn(5, 3) * 0.3, rng.randn(3))]
    params = [(w.astype(np.float32), b.astype(np.float32)) for w, b in params]
    x, t = rng.rand(16, 6).astype(np.float32), np.eye(3, dtype=np.float32)[rng.randint(0, 3, 16)]
    want_loss, want = jax.jit(_mlp_step)(params, (x, t))

    events = []
    step = jax.jit(_mlp_step)
    sharded_params = jax.device_put(params, NamedSharding(mesh, P()))
    batch = jax.device_put((x, t), NamedSharding(mesh, P("b")))
    with monitoring.listen(lambda kind, data: events.append(data) if kind == "pmap_execute" else None):
        got_loss, got = step(sharded_params, batch)
    np.testing.assert_allclose(float(got_loss), float(want_loss), rtol=1e-6)
    for (gw, gb), (ww, wb) in zip(got, want):
        np.testing.assert_allclose(np.asarray(gw), np.asarray(ww), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(np.asarray(gb), np.asarray(wb), rtol=1e-5, atol=1e-7)
        assert gw.sharding == NamedSharding(mesh, P(None, None)) and len(gw.addressable_shards) == 4
    (run,) = events
    assert [d["id"] for d in run["devices"]] == [0, 1, 2, 3]
    assert all(d["inputs"][-1].shape == (4, 3) for d in run["devices"])  # each device its quarter
    summed = [e["shape"] for e in run["collectives"] if e["primitive"] == "psum"]
    # The weight gradients are all-reduced. XLA's SPMD partitioner runs before its simplifier, so it
    # all-reduces the dots as traced (f32[5,6], f32[3,5]); the engine partitions the simplified
    # program, where the transposed dot is already the weight's shape (a known difference).
    summed = [list(s) for s in summed]
    assert ([5, 6] in summed or [6, 5] in summed) and ([3, 5] in summed or [5, 3] in summed)


def test_two_dimensional_mesh_runs_each_block_on_its_device():
    from engine import monitoring

    m = jax.make_mesh((4, 2), ("x", "y"))
    xn = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    x = jax.device_put(xn, NamedSharding(m, P("x", "y")))
    events = []
    with monitoring.listen(lambda kind, data: events.append(data) if kind == "pmap_execute" else None):
        y = jnp.sin(x).T  # eager: each op runs on the 8 devices
        s = jax.jit(lambda v: v.sum(0))(x)
    assert str(jax.typeof(y)) == "float32[4@y,8@x]" and str(jax.typeof(s)) == "float32[4@y]"
    np.testing.assert_allclose(np.asarray(y), np.sin(xn).T, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(s), xn.sum(0))
    # device (i, j) holds rows 2j:2j+2, columns 2i:2i+2 of sin(x).T
    for sh in y.addressable_shards:
        i, j = divmod(sh.device.id, 2)
        np.testing.assert_allclose(
            np.asarray(sh.data), np.sin(xn[2 * i : 2 * i + 2, 2 * j : 2 * j + 2]).T, rtol=1e-6
        )
    run = events[-1]
    assert run["mesh"] == [4, 2] and all(d["inputs"][0].shape == (2, 2) for d in run["devices"])
    (psum,) = [e for e in run["collectives"] if e["primitive"] == "psum"]
    assert psum["axis_name"] == "x" and psum["shape"] == [2]  # the column sums of one block, over x
    # a contraction over a dimension split by both axes: psum over both (an Explicit mesh's type
    # needs the result's layout said, as JAX's)
    split = jax.device_put(xn, NamedSharding(m, P(("x", "y"), None)))
    with pytest.raises(ShardingTypeError, match=r"Got lhs_contracting_spec=\(\('x', 'y'\),\)"):
        jax.jit(lambda a: a.T @ a)(split)
    dot = jax.jit(lambda a: jnp.matmul(a.T, a, out_sharding=NamedSharding(m, P())))(split)
    np.testing.assert_allclose(np.asarray(dot), xn.T @ xn)
    assert dot.sharding.is_fully_replicated


def test_explicit_mesh_type_errors_and_auto_mesh_layouts():
    m = jax.make_mesh((4, 2), ("x", "y"))
    a = jax.device_put(np.ones((4, 4), np.int32), NamedSharding(m, P("x", None)))
    b = jax.device_put(np.ones((4, 4), np.int32), NamedSharding(m, P(None, "x")))
    with pytest.raises(
        Exception, match=r"add operation with inputs: i32\[4@x,4\], i32\[4,4@x\] produces an "
    ):
        a + b
    with pytest.raises(Exception, match="Contracting dimensions are sharded and it is ambiguous"):
        jnp.dot(b, a)
    auto = jax.make_mesh((4, 2), ("x", "y"), (AxisType.Auto, AxisType.Auto))
    xn, wn = np.arange(32.0, dtype=np.float32).reshape(8, 4), np.arange(64.0, dtype=np.float32).reshape(4, 16)
    x = jax.device_put(xn, NamedSharding(auto, P(None, "x")))
    w = jax.device_put(wn, NamedSharding(auto, P("x", None)))
    z = jnp.dot(x, w)  # Auto axes: no error; partial products summed over x
    np.testing.assert_allclose(np.asarray(z), xn @ wn)
    assert z.sharding == NamedSharding(auto, P()) and repr(z.sharding.spec) == "P()"
    c = jax.jit(
        lambda p, q: jax.lax.with_sharding_constraint(jnp.dot(p, q), NamedSharding(auto, P("x", None)))
    )(x, w)
    assert repr(c.sharding.spec) == "P('x',)"  # as XLA reports it: no trailing unsplit dimensions
    np.testing.assert_allclose(np.asarray(c), xn @ wn)


_XY = (  # a sharding over the abstract (2, 4) mesh, as JAX's select errors print it
    "NamedSharding(mesh=AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit), device_kind=cpu, "
    "num_cores=None, platform=cpu), spec=P({}))"
)
_X_, _XY_ = _XY.format("'x', None"), _XY.format("'x', 'y'")


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize(
    "f, message",
    [  # (messages recorded from JAX 0.10.2, eagerly and under jit alike)
        (lambda a, c, e: a @ a.T, "Contracting dimensions are sharded and it is ambiguous .* Got "
         r"lhs_contracting_spec=\('y',\) and rhs_contracting_spec=\('y',\)"),
        (lambda a, c, e: a + e, r"add got incompatible shardings for broadcasting: \('x', 'y'\), \('y', 'x'\)\."),
        (lambda a, c, e: a[jnp.array([1, 2, 3])], r"Use `\.at\[\.\.\.\]\.get\(out_sharding=\)` .* Got "
         r"operand=ShapedArray\(float32\[8@x,4@y\]\), indices=ShapedArray\(int32\[3,1\]\)"),
        (lambda a, c, e: jnp.concatenate([a, c]),
         re.escape(f"All operands should have the same sharding. Got shardings {_XY_}, {_X_}")),
        (lambda a, c, e: a.reshape(4, 8), re.escape(
            "This reshape is not supported. Please specify the sharding of the output via the `out_sharding` "
            "argument of jax.lax.reshape. Got operand type: float32[8@x,4@y], new sizes: (4, 8)")),
        (lambda a, c, e: jnp.where(a > 3, a, c),
         re.escape(f"select cases must have the same shardings, got [{_X_}, {_XY_}].")),
        (lambda a, c, e: jax.lax.select(c > 3, a, a), re.escape(
            f"select `which` must be scalar or have the same sharding as cases, got `which` sharding {_X_} "
            f"but case sharding {_XY_}.")),
    ],
)  # fmt: skip
def test_sharding_type_errors_inside_jit_as_eagerly(f, message, staged):
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    xn = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    a, c, e = (jax.device_put(xn, NamedSharding(m, s)) for s in (P("x", "y"), P("x", None), P("y", "x")))
    with jax.set_mesh(m), pytest.raises(ShardingTypeError, match=message):
        (jax.jit(f) if staged else f)(a, c, e)


# reshapes of (2, 4)-mesh arrays: the type JAX 0.10.2 gives the result, or None where it refuses
_RESHAPES = [
    ((8, 4), P("x", "y"), (32,), "float32[32@(x,y)]"),
    ((8, 4), P("x", "y"), (2, 4, 4), "float32[2@x,4,4@y]"),
    ((8, 4), P("x", "y"), (8, 2, 2), None),
    ((8, 4), P("x", "y"), (4, 8), None),
    ((8, 4), P("x", "y"), (16, 2), None),
    ((8, 4), P("x", "y"), (2, 16), None),
    ((8, 4), P("x", "y"), (8, 4, 1), "float32[8@x,4@y,1]"),
    ((8, 4), P("x", "y"), (1, 8, 4), "float32[1,8@x,4@y]"),
    ((8, 4), P("x", "y"), (4, 2, 4), "float32[4@x,2,4@y]"),
    ((8, 4), P("x", "y"), (2, 2, 2, 4), "float32[2@x,2,2,4@y]"),
    ((8, 4), P("x", "y"), (8, 1, 4), "float32[8@x,1,4@y]"),
    ((8, 4), P("x", None), (32,), "float32[32@x]"),
    ((8, 4), P("x", None), (2, 4, 4), "float32[2@x,4,4]"),
    ((8, 4), P("x", None), (4, 2, 4), "float32[4@x,2,4]"),
    ((8, 4), P("x", None), (4, 8), None),
    ((8, 4), P("x", None), (8, 2, 2), "float32[8@x,2,2]"),
    ((8, 4), P("x", None), (1, 32), None),
    ((8, 4), P(None, "y"), (32,), None),
    ((8, 4), P(None, "y"), (8, 2, 2), None),
    ((8, 4), P(None, "y"), (2, 4, 4), "float32[2,4,4@y]"),
    ((8, 4), P(None, "y"), (4, 8), None),
    ((8, 4), P(("x", "y"), None), (32,), "float32[32@(x,y)]"),
    ((8, 4), P(("x", "y"), None), (2, 4, 4), "float32[2@x,4@y,4]"),
    ((8, 4), P(("x", "y"), None), (4, 2, 4), None),
    ((8, 4), P(("x", "y"), None), (8, 2, 2), "float32[8@(x,y),2,2]"),
    ((2, 4, 4), P("x", "y", None), (8, 4), "float32[8@(x,y),4]"),
    ((2, 4, 4), P("x", "y", None), (2, 16), "float32[2@x,16@y]"),
    ((2, 4, 4), P("x", "y", None), (32,), "float32[32@(x,y)]"),
    ((2, 4, 4), P("x", "y", None), (4, 2, 4), None),
    ((2, 4, 4), P(None, "y", None), (8, 4), None),
    ((2, 4, 4), P(None, "y", None), (2, 16), "float32[2,16@y]"),
    ((2, 4, 4), P(None, "y", None), (32,), None),
    ((4, 2, 4), P("y", "x", None), (8, 4), "float32[8@(y,x),4]"),
    ((4, 2, 4), P("y", "x", None), (4, 8), "float32[4@y,8@x]"),
    (
        (16,),
        P(
            "y",
        ),
        (4, 4),
        "float32[4@y,4]",
    ),
    (
        (16,),
        P(
            "y",
        ),
        (2, 8),
        None,
    ),
    (
        (16,),
        P(
            "y",
        ),
        (8, 2),
        "float32[8@y,2]",
    ),
    (
        (16,),
        P(
            "y",
        ),
        (16, 1),
        "float32[16@y,1]",
    ),
    (
        (16,),
        P(
            ("x", "y"),
        ),
        (4, 4),
        None,
    ),
    (
        (16,),
        P(
            ("x", "y"),
        ),
        (8, 2),
        "float32[8@(x,y),2]",
    ),
    (
        (16,),
        P(
            ("x", "y"),
        ),
        (2, 8),
        "float32[2@x,8@y]",
    ),
]


@pytest.mark.parametrize("shape, spec, new, typed", _RESHAPES)
def test_a_reshape_is_laid_out_as_jax_types_it_or_refused(shape, spec, new, typed):
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    xn = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    a = jax.device_put(xn, NamedSharding(m, spec))
    for f in (lambda a: a.reshape(new), jax.jit(lambda a: a.reshape(new))):
        if typed is None:
            with pytest.raises(ShardingTypeError, match=re.escape(f"new sizes: {new}")):
                f(a)
            continue
        out = f(a)
        assert str(jax.typeof(out)) == typed
        np.testing.assert_array_equal(np.asarray(out), xn.reshape(new))


@pytest.mark.parametrize("staged", [False, True])
@pytest.mark.parametrize(
    "f, message",
    [  # (JAX 0.10.2's TypeErrors: a carry's or a branch's layout is part of its type)
        (
            lambda a: jax.lax.scan(lambda c, x: (jax.reshard(c, P(None, None)), None), a, jnp.arange(3.0))[0],
            "The input carry c has type float32[8@x,4@y] but the corresponding output carry component has "
            "type float32[8,4].",
        ),
        (
            lambda a: jax.lax.fori_loop(0, 3, lambda i, c: jax.reshard(c, P(None, None)), a),
            "The input carry component loop_carry[1] has type float32[8@x,4@y] but the corresponding output "
            "carry component has type float32[8,4].",
        ),
        (
            lambda a: jax.lax.while_loop(lambda c: c.sum() < 0, lambda c: jax.reshard(c, P(None, "y")), a),
            "while_loop body function carry input and carry output must have equal types, but they differ:\n\n"
            "The input carry c has type float32[8@x,4@y] but the corresponding output carry component has "
            "type float32[8,4@y].",
        ),
        (
            lambda a: jax.lax.cond(True, lambda a: a, lambda a: jax.reshard(a, P(None, None)), a),
            "The output of true_fun has type float32[8@x,4@y] but the corresponding output of false_fun has "
            "type float32[8,4].",
        ),
        (
            lambda a: jax.lax.switch(1, [lambda a: a, lambda a: jax.reshard(a, P("x", None))], a),
            "The output of branch 0 has type float32[8@x,4@y] but the corresponding output of branch1 has "
            "type float32[8@x,4].",
        ),
    ],
)  # fmt: skip
def test_a_carry_or_branch_laid_out_otherwise_is_refused_as_jax(f, message, staged):
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    a = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(m, P("x", "y")))
    with jax.set_mesh(m), pytest.raises(TypeError, match=re.escape(message)):
        (jax.jit(f) if staged else f)(a)
    with jax.set_mesh(m):  # (a body that keeps the layout runs on each device's blocks)
        out = jax.jit(lambda a: jax.lax.scan(lambda c, x: (c * 2 + x, c.sum()), a, jnp.arange(3.0)))(a)
    assert str(jax.typeof(out[0])) == "float32[8@x,4@y]"
    np.testing.assert_allclose(np.asarray(out[0]), np.arange(32.0).reshape(8, 4) * 8 + 4)


def test_a_backward_pass_inside_jit_is_not_held_to_jax_sharding_types():
    # the engine's transpose rules stage contractions over the split batch with no out_sharding:
    # JAX's own say one, so JAX runs these; so must the engine (the user's equations still checked)
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    xn, wn = np.arange(32.0, dtype=np.float32).reshape(8, 4) / 32, np.ones((4, 4), np.float32)
    x, w = jax.device_put(xn, NamedSharding(m, P("x", None))), jax.device_put(wn, NamedSharding(m, P()))
    loss = lambda w, x: ((x @ w) ** 2).sum()  # noqa: E731
    want = 2 * xn.T @ (xn @ wn)
    with jax.set_mesh(m):
        g = jax.jit(jax.grad(loss))(w, x)
        step = jax.jit(lambda w, x: jax.lax.fori_loop(0, 2, lambda i, w: w - 0.01 * jax.grad(loss)(w, x), w))
        stepped = step(w, x)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5)
    assert str(jax.typeof(g)) == "float32[4,4]"
    w1 = wn - 0.01 * want
    np.testing.assert_allclose(np.asarray(stepped), w1 - 0.01 * 2 * xn.T @ (xn @ w1), rtol=1e-5)


def test_jit_in_and_out_shardings(mesh):
    data, repl = NamedSharding(mesh, P("b")), NamedSharding(mesh, P())
    f = jax.jit(lambda x, w: jnp.tanh(x @ w), in_shardings=(data, repl), out_shardings=repl)
    x, w = np.arange(24.0).reshape(8, 3) / 24, np.ones((3, 2))
    out = f(x, w)
    np.testing.assert_allclose(np.asarray(out), np.tanh((x @ w).astype(np.float32)), rtol=1e-6)
    assert out.sharding == repl and str(jax.typeof(out)) == "float32[8,2]"
    g = jax.jit(lambda x: x * 2, out_shardings=data)
    assert str(jax.typeof(g(np.ones((8, 2))))) == "float32[8@b,2]"

    @jax.jit(donate_argnums=0, out_shardings=repl)
    def h(x):
        return x.sum(0)

    assert h(_put(x, mesh, P("b"))).sharding == repl


def test_jit_with_shardings_under_grad_vmap_and_jit():
    # A jit with in/out shardings called inside grad, vmap or jit stages a jit equation keeping
    # them (its jvp, transpose and batched forms too), so the results are laid out as JAX's are
    # (shardings recorded from JAX 0.10.2 on an Auto mesh of 8 devices).
    auto = Mesh(np.array(jax.devices()[:8]), ("d",))
    s = NamedSharding(auto, P("d"))
    x = np.arange(8.0, dtype=np.float32)
    h = jax.jit(jnp.sin, out_shardings=s)
    g = jax.grad(lambda v: h(v).sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.cos(x), rtol=1e-6)
    assert g.sharding == s
    h2 = jax.jit(lambda a, b: jnp.sin(a) * b, in_shardings=(s, None), out_shardings=s)
    ga, gb = jax.grad(lambda a, b: h2(a, b).sum(), argnums=(0, 1))(x, x + 1)
    np.testing.assert_allclose(np.asarray(ga), np.cos(x) * (x + 1), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(gb), np.sin(x), rtol=1e-6)
    assert ga.sharding == s and gb.sharding == s
    v = jax.vmap(h)(np.ones((3, 8), np.float32))
    np.testing.assert_allclose(np.asarray(v), np.full((3, 8), np.sin(1.0)), rtol=1e-6)
    assert v.sharding == NamedSharding(auto, P(None, "d"))  # (the batch axis is not split)
    jg = jax.jit(jax.grad(lambda v: h(v).sum()))(x)
    np.testing.assert_allclose(np.asarray(jg), np.cos(x), rtol=1e-6)
    assert jg.sharding == s  # (the nested jit's shardings lay out the partitioned program's values)


def test_reshard_inside_jit_grad_and_vmap(mesh):
    x = np.arange(24.0, dtype=np.float32).reshape(8, 3)
    with jax.set_mesh(mesh):
        f = jax.jit(lambda v: jax.reshard(v * 2, P("b")) + 1)  # plain input: the reshard sets the mesh
        y = f(x)
        assert str(jax.typeof(y)) == "float32[8@b,3]" and len(y.addressable_shards) == 4
        np.testing.assert_allclose(np.asarray(y), x * 2 + 1)
        g = jax.jit(jax.grad(lambda v: jnp.sum(jnp.sin(jax.reshard(v, P("b"))))))(x)
        np.testing.assert_allclose(np.asarray(g), np.cos(x), rtol=1e-6)
        h = jax.jit(jax.vmap(lambda r: jax.reshard(r, P("b")) * 3))(x.T.copy())
        assert str(jax.typeof(h)) == "float32[3,8@b]"
        np.testing.assert_allclose(np.asarray(h), x.T * 3)
        # (JAX 0.10.2: on an all-Explicit mesh the constraint is an assert on the type; reshard moves)
        with pytest.raises(
            AssertionError, match=r"acts as an assert .* The array sharding: P\(None, None\) did not"
        ):
            jax.lax.with_sharding_constraint(x, P("b"))
        assert jax.lax.with_sharding_constraint(y, P("b")) is y
    auto = jax.make_mesh((4,), ("b",), (AxisType.Auto,))
    with jax.set_mesh(auto):  # with_sharding_constraint: Auto axes; its transpose and vmap constrain alike
        h = jax.jit(jax.vmap(lambda r: jax.lax.with_sharding_constraint(r, P("b")) * 3))(x.T.copy())
        assert h.sharding == NamedSharding(auto, P(None, "b"))
        np.testing.assert_allclose(np.asarray(h), x.T * 3)
        g = jax.jit(jax.grad(lambda v: jnp.sum(jnp.sin(jax.lax.with_sharding_constraint(v, P("b"))))))(x)
        np.testing.assert_allclose(np.asarray(g), np.cos(x), rtol=1e-6)
        assert g.sharding == NamedSharding(auto, P("b"))  # the cotangent is constrained too


def test_with_sharding_constraint_on_a_mixed_mesh_takes_only_auto_axes():
    m = jax.make_mesh((2, 2), ("a", "b"), axis_types=(AxisType.Explicit, AxisType.Auto))
    with jax.set_mesh(m), pytest.raises(ValueError, match="can only refer to Auto axes of the mesh"):
        jax.lax.with_sharding_constraint(np.ones((8, 3), np.float32), P("a"))


def test_reshard_and_jit_shardings_take_a_tree_prefix_with_jaxs_errors():
    m = jax.make_mesh((2, 4), ("x", "y"))
    with jax.set_mesh(m):
        x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P("x", "y"))
        out = jax.reshard([x, {"k": x}], [P(), {"k": P("y")}])
        assert [str(jax.typeof(v)) for v in jax.tree.leaves(out)] == ["float32[4,4]", "float32[4@y,4]"]
        with pytest.raises(ValueError) as e:
            jax.reshard((x, x), [P(), P()])
        assert str(e.value).endswith("But reshard out_shardings is not a tuple: got <class 'list'> instead.")
    auto = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    s = NamedSharding(auto, P("x"))
    x = jnp.ones((4, 4))
    with pytest.raises(ValueError) as e:
        jax.jit(lambda a, b: a + b, in_shardings=[s])(x, x)
    assert str(e.value).endswith(
        "But pjit in_shardings is the wrong length: got a tuple or list of length 1 for an args tuple of length 2."
    )
    with pytest.raises(ValueError) as e:
        jax.jit(lambda a, b: (a, b), out_shardings=[s])(x, x)
    assert str(e.value) == (
        "Mismatch details (1 found):\npytree structure error: different types at key path\n    pjit out_shardings\n"
        "At that key path, the prefix pytree pjit out_shardings has a subtree of type\n    <class 'list'>\n"
        "but at the same key path the full pytree has a subtree of different type\n    <class 'tuple'>."
    )
    assert jax.jit(lambda a, b: a + b, in_shardings=[s, s])(x, x).sharding == s


def test_shard_map_eager_jit_and_current_mesh(mesh):
    xn = np.arange(24.0, dtype=np.float32).reshape(8, 3)
    x = _put(xn, mesh, P("b"))
    total = jax.shard_map(lambda a: jax.lax.psum(a.sum(0), "b"), mesh=mesh, in_specs=P("b"), out_specs=P())
    np.testing.assert_allclose(np.asarray(total(x)), xn.sum(0))
    np.testing.assert_allclose(np.asarray(jax.jit(total)(x)), xn.sum(0))
    scaled = jax.shard_map(
        lambda a: a * jax.lax.axis_index("b"), mesh=mesh, in_specs=P("b"), out_specs=P("b")
    )
    y = scaled(x)
    assert str(jax.typeof(y)) == "float32[8@b,3]"
    np.testing.assert_allclose(np.asarray(y), xn * np.repeat(np.arange(4), 2)[:, None])
    with jax.set_mesh(mesh):
        h = jax.shard_map(lambda a, w: a @ w, in_specs=(P("b"), P()), out_specs=P("b"))
        out = h(x, np.ones((3, 2), np.float32))
        assert str(jax.typeof(out)) == "float32[8@b,2]"
        np.testing.assert_allclose(np.asarray(out), xn @ np.ones((3, 2)))
    # d/dv of sum(psum of the blocks' column sums) is 1 everywhere
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: total(v).sum())(x)), np.ones_like(xn))


def test_out_sharding_reduce_scatters_on_the_devices():
    from engine import monitoring

    m = jax.make_mesh((4, 2), ("x", "y"))
    xn, wn = np.arange(32.0, dtype=np.float32).reshape(8, 4), np.arange(64.0, dtype=np.float32).reshape(4, 16)
    with jax.set_mesh(m):
        x, w = jax.device_put(xn, P(None, "x")), jax.device_put(wn, P("x", None))
        events = []
        with monitoring.listen(lambda kind, data: events.append(data) if kind == "pmap_execute" else None):
            z = jnp.dot(x, w, out_sharding=P("x", None))
            zj = jax.jit(lambda a, b: jnp.matmul(a, b, out_sharding=P("x", None)))(x, w)
        for out in (z, zj):
            assert str(jax.typeof(out)) == "float32[8@x,16]"
            np.testing.assert_allclose(np.asarray(out), xn @ wn)
        # each device multiplies its (8, 1) by (1, 16) blocks and keeps its rows of the sum
        (scatter,) = [e for e in events[0]["collectives"] if e["primitive"] == "psum_scatter"]
        assert scatter["axis_name"] == "x" and scatter["shape"] == [8, 16]
        assert [d["outputs"][0].shape for d in events[0]["devices"]] == [(2, 16)] * 8
        key = jax.random.key(0)
        r = jax.random.normal(key, (8, 4), out_sharding=P("x", "y"))
        assert str(jax.typeof(r)) == "float32[8@x,4@y]"
        np.testing.assert_array_equal(np.asarray(r), np.asarray(jax.random.normal(key, (8, 4))))
        e = jnp.einsum("ij,jk->ki", x, w, out_sharding=P("x", None))  # the contraction lays it out
        assert str(jax.typeof(e)) == "float32[16@x,8]"
        np.testing.assert_allclose(np.asarray(e), (xn @ wn).T)
        # creation and shape functions take out_sharding too (values as without it)
        assert str(jax.typeof(jnp.zeros((8, 4), out_sharding=P("x", "y")))) == "float32[8@x,4@y]"
        a = jnp.arange(8, out_sharding=P("x"))
        assert str(jax.typeof(a)) == "int32[8@x]" and np.asarray(a).tolist() == list(range(8))
        re = r.reshape(4, 8, out_sharding=P("x", None))
        assert str(jax.typeof(re)) == "float32[4@x,8]"
        np.testing.assert_array_equal(np.asarray(re), np.asarray(r).reshape(4, 8))
        text = jax.jit(lambda v: v.sum(0)).lower(r).compile().as_text()
        assert "all-reduce(f32[2])" in text and "every device runs" in text
        assert "all-reduce" not in jax.jit(lambda v: v * 2).lower(r).compile().as_text()


def test_auto_and_explicit_axes_and_types_inside_jit():
    m = jax.make_mesh((4, 2), ("x", "y"))
    with jax.set_mesh(m):
        a = jax.device_put(np.arange(16, dtype=np.int32).reshape(4, 4), P("x", None))
        b = jax.device_put(np.arange(16, dtype=np.int32).reshape(4, 4), P(None, "x"))

        @jax.sharding.auto_axes
        def add(p, q):
            assert jax.sharding.get_abstract_mesh().axis_types == (AxisType.Auto, AxisType.Auto)
            # (eagerly the arrays stay where they are, retyped: their types name no Auto axis)
            assert p.sharding.spec == P("x", None) and jax.typeof(p).sharding.spec == P(None, None)
            return p + q  # no sharding-type error with Auto axes

        c = add(a, b, out_sharding=P("x", None))
        assert str(jax.typeof(c)) == "int32[4@x,4]"
        np.testing.assert_array_equal(np.asarray(c), np.arange(16).reshape(4, 4) * 2)
        with pytest.raises(TypeError, match="out_sharding"):
            add(a, b)

        seen = []

        @jax.jit
        def f(v):
            seen.append((str(jax.typeof(v)), str(jax.typeof(v.T * 2)), str(jax.typeof(v.sum(0)))))
            seen.append(repr(jax.typeof(v).sharding.spec))
            return v

        f(a)
        assert seen == [("int32[4@x,4]", "int32[4,4@x]", "int32[4]"), "P('x', None)"]
    auto = jax.make_mesh((4, 2), ("x", "y"), (AxisType.Auto, AxisType.Auto))
    with jax.set_mesh(auto):
        seen.clear()

        @jax.sharding.explicit_axes
        def g(y):
            seen.append((jax.sharding.get_abstract_mesh().axis_types, str(jax.typeof(y * 2))))
            return y * 2

        x = jax.device_put(np.arange(16.0, dtype=np.float32).reshape(4, 4), P("x", "y"))
        out = jax.jit(lambda v: g(jnp.sin(v), in_sharding=P("x", "y")) + 1)(x)
        assert seen == [((AxisType.Explicit, AxisType.Explicit), "float32[4@x,4@y]")]
        np.testing.assert_allclose(np.asarray(out), np.sin(np.arange(16.0).reshape(4, 4)) * 2 + 1, rtol=1e-6)
        assert repr(jax.typeof(x).sharding.spec) == "P(None, None)"  # Auto axes are not in types
    with jax.sharding.use_abstract_mesh(jax.sharding.AbstractMesh((8,), ("A",))):
        assert jax.sharding.get_abstract_mesh().axis_names == ("A",)
    assert jax.sharding.get_abstract_mesh().empty


def test_unreduced_values_sum_over_their_axes():
    m = jax.make_mesh((4, 2), ("x", "y"))
    xn = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    x = jax.device_put(xn, NamedSharding(m, P("x", "y")))
    spec = P("x", None, unreduced={"y"})
    assert repr(spec) == "P('x', None, unreduced={'y'})" and spec != P("x", None)
    u = jax.device_put(x, NamedSharding(m, spec))
    assert u.sharding.spec == spec and not u.sharding.is_fully_replicated
    # device (i, j) keeps the columns it held (2j:2j+2) of its rows, zeros elsewhere
    for sh in u.addressable_shards:
        i, j = divmod(sh.device.id, 2)
        want = np.zeros((2, 4), np.float32)
        want[:, 2 * j : 2 * j + 2] = xn[2 * i : 2 * i + 2, 2 * j : 2 * j + 2]
        np.testing.assert_array_equal(np.asarray(sh.data), want)
    np.testing.assert_array_equal(np.asarray(u), xn)  # the blocks of a y-group add up to the value
    assert repr(u).startswith("Array(shape=(8, 4), dtype=float32, sharding=NamedSharding(")
    with pytest.raises(
        ShardingTypeError, match="RHS should be reduced along the same axes LHS is unreduced on"
    ):
        u * 2  # (JAX's mul rule: only a reduced factor keeps a product of partial sums a partial sum)
    with pytest.raises(NotImplementedError, match="unreduced rule for sin is not implemented"):
        jnp.sin(u)
    r = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(m, spec))  # not split over y: y=0 holds it
    assert [float(np.asarray(sh.data).sum()) for sh in r.addressable_shards] == [8.0, 0.0] * 4


def test_reshard_onto_the_same_devices_under_an_abstract_mesh():
    m = jax.make_mesh((4, 2), ("x", "y"))
    xn = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with jax.set_mesh(m):
        x = jax.device_put(xn, P("x", "y"))

        @jax.jit
        def f(v):
            with jax.sharding.use_abstract_mesh(
                jax.sharding.AbstractMesh((8,), ("a",), (AxisType.Explicit,))
            ):
                return jax.reshard(v, P("a", None)) * 2

        z = f(x)
    assert str(jax.typeof(z)) == "float32[8@a,4]" and z.sharding.mesh.axis_names == ("a",)
    for sh in z.addressable_shards:  # device k holds row k
        np.testing.assert_array_equal(np.asarray(sh.data), xn[sh.device.id : sh.device.id + 1] * 2)


@pytest.mark.parametrize("kind", [AxisType.Auto, AxisType.Explicit])
def test_data_and_model_parallel_training_step_on_a_2d_mesh(kind):
    from engine import monitoring

    rng = np.random.RandomState(0)
    params = [(rng.randn(6, 8) * 0.3, rng.randn(8)), (rng.randn(8, 4) * 0.3, rng.randn(4))]
    params = [(w.astype(np.float32), b.astype(np.float32)) for w, b in params]
    x, t = rng.rand(16, 6).astype(np.float32), np.eye(4, dtype=np.float32)[rng.randint(0, 4, 16)]
    want_loss, want = jax.jit(_mlp_step)(params, (x, t))
    m = jax.make_mesh((4, 2), ("X", "Y"), (kind, kind))
    (w1, b1), (w2, b2) = params
    layout = [(P(None, "Y"), P("Y")), (P("Y", None), P())]  # hidden units split over Y, the batch over X
    sharded = [
        (jax.device_put(w, NamedSharding(m, sw)), jax.device_put(b, NamedSharding(m, sb)))
        for (w, b), (sw, sb) in zip(params, layout)
    ]
    batch = jax.device_put((x, t), NamedSharding(m, P("X")))
    events = []
    out = NamedSharding(m, P("X", None)) if kind == AxisType.Explicit else None
    if out is not None:  # (the logits' contraction over Y-split hidden units: JAX's error without a layout)
        with pytest.raises(ShardingTypeError, match=r"lhs_contracting_spec=\('Y',\)"):
            jax.jit(_mlp_step)(sharded, batch)
    with monitoring.listen(lambda k, d: events.append(d) if k == "pmap_execute" else None):
        got_loss, got = jax.jit(lambda p, b: _mlp_step(p, b, out))(sharded, batch)
    np.testing.assert_allclose(float(got_loss), float(want_loss), rtol=1e-6)
    for (gw, gb), (ww, wb), (sw, sb) in zip(got, want, layout):
        np.testing.assert_allclose(np.asarray(gw), np.asarray(ww), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(np.asarray(gb), np.asarray(wb), rtol=1e-5, atol=1e-7)
        assert gw.sharding == NamedSharding(m, sw) and gb.sharding == NamedSharding(m, sb)  # kept in place
    (run,) = events
    assert run["mesh"] == [4, 2] and run["axis_names"] == ["X", "Y"]
    assert [a.shape for a in run["devices"][0]["inputs"]] == [(6, 4), (4,), (4, 4), (4,), (4, 6), (4, 4)]
    sums = {(e["axis_name"], tuple(e["shape"])) for e in run["collectives"] if e["primitive"] == "psum"}
    assert ("Y", (4, 4)) in sums  # the hidden layer's contraction over Y-split units
    # a weight gradient summed over the batch's X-split rows (XLA: the traced dot's (4, 6); the
    # engine partitions the simplified program, whose transposed dot has the weight's shape)
    assert ("X", (4, 6)) in sums or ("X", (6, 4)) in sums


_SPECS_3D = [  # (lhs, rhs) layouts over a (2, 2, 2) mesh: refinements, multi-axis splits, conflicts
    (P("a", ("b", "c")), P(None, "a")),
    (P(("c", "a"), None), P("b", ("a", "c"))),
    (P(None, ("a", "b", "c")), P(("a", "b", "c"))),
    (P("b", "a"), P("a", "b")),
]


@pytest.mark.parametrize(
    "name, f, ref",
    [
        ("elementwise", lambda a, b: jnp.sin(a) * b + 1.0, lambda a, b: np.sin(a) * b + 1.0),
        ("transpose_matmul", lambda a, b: a.T @ b, lambda a, b: a.T @ b),
        ("reductions", lambda a, b: a.sum(0) + jnp.max(b, axis=1), lambda a, b: a.sum(0) + b.max(1)),
        (
            "reshape",
            lambda a, b: (a + b).reshape(2, 4, 8).sum(1),
            lambda a, b: (a + b).reshape(2, 4, 8).sum(1),
        ),
        ("broadcast", lambda a, b: a[:, None, :] * b[None, :, :], lambda a, b: a[:, None, :] * b[None, :, :]),
        (
            "grad",
            lambda a, b: jax.grad(lambda u: jnp.sum(jnp.tanh(u @ b.T)))(a),
            lambda a, b: (1 - np.tanh(a @ b.T) ** 2) @ b,
        ),
    ],
)
def test_any_layouts_on_a_3d_mesh_give_numpy_values(name, f, ref):
    m = jax.make_mesh((2, 2, 2), ("a", "b", "c"), (AxisType.Auto,) * 3)
    an = np.random.RandomState(0).randn(8, 8).astype(np.float32)
    bn = np.random.RandomState(1).randn(8, 8).astype(np.float32)
    want = ref(an.astype(np.float64), bn.astype(np.float64))
    for sa, sb in _SPECS_3D:
        a, b = jax.device_put(an, NamedSharding(m, sa)), jax.device_put(bn, NamedSharding(m, sb))
        np.testing.assert_allclose(
            np.asarray(jax.jit(f)(a, b)), want, rtol=2e-5, atol=2e-5, err_msg=f"{sa} {sb}"
        )
        np.testing.assert_allclose(
            np.asarray(f(a, b)), want, rtol=2e-5, atol=2e-5, err_msg=f"eager {sa} {sb}"
        )


def test_shard_map_on_an_explicit_mesh_refuses_in_specs_an_unsharded_argument_does_not_have():
    # JAX 0.10.2 (jax_remove_size_one_mesh_axis_from_type off: a size-1 axis counts), eagerly and
    # under jit, inside set_mesh or not; an argument sharded as in_specs says runs.
    m = jax.make_mesh((1,), ("x",), axis_types=(AxisType.Explicit,))
    f = jax.shard_map(lambda a: a * 2, mesh=m, in_specs=P("x"), out_specs=P("x"))
    message = (
        "in_specs passed to shard_map: P('x',) does not match the specs of the input: P(None,) for arg: "
        "float32[4]. `in_specs` is an optional argument so you can omit specifying it and shard_map will "
        "infer the in_specs from the arguments. If you want to reshard your inputs, you can use "
        "`jax.reshard` on the arguments and then pass those args to shard_map."
    )
    for call in (f, jax.jit(f)):
        with pytest.raises(ValueError) as e:
            call(jnp.arange(4.0))
        assert str(e.value) == message
    with jax.set_mesh(m), pytest.raises(ValueError, match="does not match the specs"):
        f(jnp.arange(4.0))
    x = jax.device_put(jnp.arange(4.0), NamedSharding(m, P("x")))
    np.testing.assert_array_equal(np.asarray(f(x)), [0.0, 2.0, 4.0, 6.0])


def test_lower_traces_a_sharded_argument_with_its_sharding_as_a_call_does():
    # (the JAX docs' ffi page, cell 18: JAX's shard_map check sees the argument's type under lower())
    m = jax.make_mesh((4,), ("x",), axis_types=(AxisType.Explicit,))
    f = jax.shard_map(lambda a: a * 2, mesh=m, in_specs=P("x"), out_specs=P("x"))
    x = jax.device_put(jnp.arange(8.0).reshape(4, 2), NamedSharding(m, P("x")))
    out = jax.jit(f).lower(x).compile()(x)
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0).reshape(4, 2) * 2)
    assert str(jax.typeof(out)) == "float32[4@x,2]"  # (as JAX 0.10.2 prints it)


_MANUAL_I4 = "AbstractMesh('i': 4, axis_types=(Manual,), device_kind=cpu, num_cores=None, platform=cpu)"


def test_inside_a_pmap_body_the_context_mesh_is_its_manual_mesh():
    # as JAX 0.10.2 prints them (its pmap is a shard_map): the mesh types of the body's values refer to
    seen = []

    def body(x):
        seen.append((repr(jax.sharding.get_abstract_mesh()), repr(jax.typeof(x).sharding)))
        return jnp.sin(x)

    jax.make_jaxpr(jax.pmap(body, axis_name="i"))(jnp.arange(4.0))
    assert seen == [(_MANUAL_I4, f"NamedSharding(mesh={_MANUAL_I4}, spec=P())")]
    assert repr(jax.sharding.get_abstract_mesh()) == "AbstractMesh((), axis_types=())"
    assert (
        repr(jax.typeof(jnp.ones(2)).sharding)
        == "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P(None,))"
    )


_ABSTRACT_B4 = "AbstractMesh('b': 4, axis_types=(Explicit,), device_kind=cpu, num_cores=None, platform=cpu)"


def test_lax_out_sharding_is_the_equations_parameter_and_lays_the_result_out(mesh):
    x = jnp.ones((2, 3))
    empty = NamedSharding(jax.sharding.AbstractMesh((), ()), P(None))
    text = str(jax.make_jaxpr(lambda x: jax.lax.reduce_sum(x, (0,), out_sharding=empty))(x))
    assert "reduce_sum[axes=(0,) out_sharding=None]" in text
    # as JAX 0.10.2 types and prints them: the parameter over the abstract mesh, the result laid out
    y = jax.device_put(jnp.arange(8.0).reshape(2, 4), NamedSharding(mesh, P(None, "b")))
    s = NamedSharding(mesh, P("b"))
    cases = [
        (lambda y: jax.lax.reshape(y, (4, 2), out_sharding=s), "reshape", "f32[4@b,2]", P("b", None)),
        (lambda y: jnp.reshape(y, (4, 2), out_sharding=s), "reshape", "f32[4@b,2]", P("b", None)),
        (lambda y: jax.lax.reduce_sum(y, (0,), out_sharding=s), "reduce_sum", "f32[4@b]", P("b")),
    ]
    for f, prim, typed, spec in cases:
        text = str(jax.make_jaxpr(f)(y))
        assert f"b:{typed} = {prim}[" in text and f"NamedSharding(mesh={_ABSTRACT_B4}, spec=P('b',))" in text
        for out in (f(y), jax.jit(f)(y)):
            assert out.sharding == NamedSharding(mesh, spec)
            np.testing.assert_array_equal(np.asarray(out), np.asarray(f(np.arange(8.0).reshape(2, 4))))
    with jax.set_mesh(mesh):
        for f in (
            lambda: jax.lax.broadcasted_iota(jnp.int32, (8,), 0, out_sharding=P("b")),
            lambda: jnp.arange(8, out_sharding=P("b")),
        ):
            text = str(jax.make_jaxpr(f)())
            assert "a:i32[8@b] = iota[" in text and "reshard" not in text
            np.testing.assert_array_equal(np.asarray(jax.jit(f)()), np.arange(8))
            assert jax.jit(f)().sharding == NamedSharding(mesh, P("b"))


def test_a_constant_resharded_under_jit_is_staged(mesh):
    c = np.arange(8.0, dtype=np.float32)
    with jax.set_mesh(mesh):
        f = jax.jit(lambda: jax.reshard(c, P("b")))
        g = jax.jit(lambda: jnp.array(c, out_sharding=P("b")))
        assert "a:f32[8@b] = reshard b" in str(jax.make_jaxpr(f)())
        # (JAX's jnp.array lays out by a convert_element_type typed with the sharding)
        assert "a:f32[8@b] = convert_element_type[new_dtype=float32 weak_type=False] b" in str(
            jax.make_jaxpr(g)()
        )
        for out in (f(), g()):
            assert out.sharding == NamedSharding(mesh, P("b"))
            np.testing.assert_array_equal(np.asarray(out), c)


def test_a_cotangent_is_laid_out_as_its_primal_on_an_explicit_mesh():
    # as JAX 0.10.2 types a cotangent (its primal's type): grads of sharded inputs keep their
    # shardings, eagerly and under jit, also where the backward pass makes them of constants
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    with jax.set_mesh(m):
        x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P("x", None))
        w = jax.device_put(jnp.ones((4, 8)), P(None, "y"))
        for f in (lambda x: (x * 2).sum(), lambda x: jnp.sin(x).sum(), lambda x: x.reshape(16).sum()):
            for g in (jax.grad(f), jax.jit(jax.grad(f))):
                assert g(x).sharding == NamedSharding(m, P("x", None))
        np.testing.assert_allclose(
            np.asarray(jax.grad(lambda x: jnp.sin(x).sum())(x)),
            np.cos(np.arange(16.0).reshape(4, 4)),
            rtol=1e-6,
        )

        def loss(w, x):  # (its backward contracts over the sharded x: no sharding-type error there)
            return ((x @ w) ** 2).sum()

        for g in (jax.grad(loss, argnums=(0, 1)), jax.jit(jax.grad(loss, argnums=(0, 1)))):
            gw, gx = g(w, x)
            assert gw.sharding == NamedSharding(m, P(None, "y")) and gx.sharding == NamedSharding(
                m, P("x", None)
            )
            xs, ws = np.arange(16.0).reshape(4, 4), np.ones((4, 8))
            np.testing.assert_allclose(np.asarray(gw), 2 * xs.T @ (xs @ ws), rtol=1e-6)
            np.testing.assert_allclose(np.asarray(gx), 2 * (xs @ ws) @ ws.T, rtol=1e-6)


def test_an_eager_slice_that_splits_unevenly_says_what_jax_says():
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    with jax.set_mesh(m):
        x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P("x", None))
        with pytest.raises(
            Exception, match=r"^dynamic_slice on sharded dims .*shape=\(np.int64\(3\), np.int64\(4\)\)"
        ):
            jax.lax.slice(x, (1, 0), (4, 4))
        with pytest.raises(Exception, match=r"^Use `.at\[...\].get\(out_sharding=\)`"):
            x[1:]  # (JAX's eager indexing is a gather)
        with pytest.raises(Exception, match=r"^slicing on sharded dims .*shape=\(3, 4\)"):
            jax.jit(lambda x: x[1:])(x)


def _xy_mesh():
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)


def test_operations_along_one_dimension_keep_the_operands_split():
    # the types JAX 0.10.2 gives (eagerly and under jit), and its errors where the dimension is split
    m = _xy_mesh()
    with jax.set_mesh(m):
        x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P("x", None))
        xs = np.arange(16.0).reshape(4, 4)
        cases = [
            (lambda x: jnp.cumsum(x, axis=1), ["float32[4@x,4]"], np.cumsum(xs, 1)),
            (lambda x: jax.lax.cummax(x, axis=1), ["float32[4@x,4]"], np.maximum.accumulate(xs, 1)),
            (lambda x: jnp.sort(-x, axis=1), ["float32[4@x,4]"], np.sort(-xs, 1)),
            (lambda x: jax.lax.top_k(x, 2), ["float32[4@x,2]", "int32[4@x,2]"], None),
            (lambda x: jnp.split(x, 2, axis=0), ["float32[2@x,4]", "float32[2@x,4]"], None),
            (lambda x: jax.lax.split(x, (1, 3), axis=1), ["float32[4@x,1]", "float32[4@x,3]"], None),
            (lambda x: jnp.flip(x, 0), ["float32[4@x,4]"], xs[::-1]),
            (lambda x: jnp.pad(x, [(1, 1), (0, 0)]), ["float32[6@x,4]"], np.pad(xs, [(1, 1), (0, 0)])),
            (lambda x: jnp.zeros_like(x), ["float32[4@x,4]"], np.zeros((4, 4))),
            (lambda x: jnp.full_like(x, 2, dtype=jnp.int32), ["int32[4@x,4]"], np.full((4, 4), 2)),
            (lambda x: x.astype(jnp.int32), ["int32[4@x,4]"], xs.astype(np.int32)),
            (lambda x: jnp.repeat(x, 2, axis=1), ["float32[4@x,8]"], np.repeat(xs, 2, 1)),
        ]
        for f, types, want in cases:
            for g in (f, jax.jit(f)):
                out = jax.tree.leaves(g(x))
                assert [str(jax.typeof(o)) for o in out] == types, (types, g)
                if want is not None:
                    np.testing.assert_array_equal(np.asarray(out[0]), want)
        refused = [
            (
                lambda x: jnp.cumsum(x, axis=0),
                "Input should be unsharded over the axis being reduced. Got input type=float32[4@x,4] and axis=0",
            ),
            (
                lambda x: jnp.sort(x, axis=0),
                "Arguments to sort must be unsharded over the sorting dimension. Got arg sharding=NamedSharding(mesh=AbstractMesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit), device_kind=cpu, num_cores=None, platform=cpu), spec=P('x', None)) and sorting dimension=0",
            ),
            (
                lambda x: jax.lax.split(x, (1, 3), axis=0),
                "split on sharded dims where out dim (1) is not divisible by mesh axes (2) with spec (x) is not implemented. Got input type=f32[4@x,4] and output shape=(1, 4)",
            ),
            (
                lambda x: jnp.repeat(x, 2),
                "Please pass sharding to `jnp.repeat` via `out_sharding` parameter.",
            ),
        ]
        for f, message in refused:
            for g in (f, jax.jit(f)):
                with pytest.raises(Exception) as e:
                    g(x)
                assert str(e.value) == message
                assert type(e.value).__name__ == (
                    "ValueError" if "repeat" in message else "ShardingTypeError"
                )


def test_out_sharding_of_jnp_shape_functions_is_their_equations():
    m = _xy_mesh()
    with jax.set_mesh(m):
        x = jax.device_put(jnp.arange(16.0).reshape(4, 4), P("x", None))
        z = jax.device_put(jnp.arange(8.0), P("y"))
        text = str(jax.make_jaxpr(lambda x: jnp.ravel(x, out_sharding=P("x")))(x))
        assert "b:f32[16@x] = reshape[" in text and "reshard" not in text
        text = str(jax.make_jaxpr(lambda z: jnp.broadcast_to(z, (4, 8), out_sharding=P("x", "y")))(z))
        assert (
            "b:f32[4@x,8@y] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n" in text
            and "reshard" not in text
        )
        # (JAX's repeat runs under auto_axes: the operand is resharded to the Auto mesh and back)
        text = str(jax.make_jaxpr(lambda z: jnp.repeat(z, 2, out_sharding=P("y")))(z))
        assert (
            text.startswith("{ lambda ; a:f32[8@y]. let\n    b:f32[8] = reshard a\n")
            and "e:f32[16@y] = reshard d" in text
        )
        out = jnp.repeat(z, 2, out_sharding=P("y"))
        np.testing.assert_array_equal(np.asarray(out), np.repeat(np.arange(8.0), 2))
        assert out.sharding == NamedSharding(m, P("y"))


def test_vmap_of_reshard_and_jacobians_keep_the_layout():
    # (JAX 0.10.2: the batch dimension unsplit, the rest as the reshard or the primal says)
    m = _xy_mesh()
    with jax.set_mesh(m):
        z = jax.device_put(jnp.arange(8.0), P("y"))
        assert str(jax.typeof(jax.vmap(lambda c: jax.reshard(c, P("y")))(jnp.eye(8)))) == "float32[8,8@y]"
        assert str(jax.typeof(jax.jacrev(jnp.sin)(z))) == "float32[8,8@y]"
        assert str(jax.typeof(jax.jacfwd(jnp.sin)(z))) == "float32[8@y,8]"
        np.testing.assert_allclose(
            np.asarray(jax.jacrev(jnp.sin)(z)), np.diag(np.cos(np.arange(8.0))), rtol=1e-6
        )


def test_stack_tile_unstack_keep_the_split_and_refuse_as_jax():
    m = _xy_mesh()
    with jax.set_mesh(m):
        y = jax.device_put(jnp.arange(32.0).reshape(4, 8), P(None, "y"))
        for g in (lambda f: f, jax.jit):
            assert str(jax.typeof(g(lambda y: jnp.stack([y, y], axis=2))(y))) == "float32[4,8@y,2]"
            assert str(jax.typeof(g(lambda y: jnp.tile(y, (2, 1)))(y))) == "float32[8,8@y]"
            assert [str(jax.typeof(o)) for o in g(lambda y: jax.lax.unstack(y, axis=0))(y)] == [
                "float32[8@y]"
            ] * 4
            np.testing.assert_array_equal(
                np.asarray(g(lambda y: jnp.tile(y, (2, 1)))(y)),
                np.tile(np.arange(32.0).reshape(4, 8), (2, 1)),
            )
            with pytest.raises(
                Exception,
                match=r"^Operand cannot be sharded on dimension 1 when the tiling is non-trivial. Got input type: float32\[4,8@y\] with reps: \(1, 2\)$",
            ):
                g(lambda y: jnp.tile(y, (1, 2)))(y)
            with pytest.raises(
                Exception,
                match=r"^unstack operand cannot be sharded on the unstacking axis 1. Got operand type=f32\[4,8@y\]$",
            ):
                g(lambda y: jax.lax.unstack(y, axis=1))(y)
            with pytest.raises(
                Exception,
                match=r"^All operands should have the same sharding. Got shardings NamedSharding\(.*spec=P\(None, 'y'\)\), NamedSharding\(.*spec=P\(None, None\)\)$",
            ):
                g(lambda y: jnp.stack([y, jnp.ones((4, 8))]))(y)


def test_random_samplers_laid_out_over_the_mesh_under_jit():
    # (each device process seeded the key: it compared the PRNG implementation by identity, and
    # failed with a KeyError for the one it had unpickled)
    m = _xy_mesh()
    with jax.set_mesh(m):
        f = jax.jit(lambda: jax.random.normal(jax.random.key(0), (4, 8), out_sharding=P("x", "y")))
        out = f()
        assert str(jax.typeof(out)) == "float32[4@x,8@y]"
        np.testing.assert_array_equal(
            np.asarray(out), np.asarray(jax.random.normal(jax.random.key(0), (4, 8)))
        )


def test_a_key_argument_to_a_program_on_the_mesh():
    # (its device processes made buffers of numpy's dtype for each input: a key<fry> has none)
    m = _xy_mesh()
    with jax.set_mesh(m):
        k = jax.random.key(1)
        f = jax.jit(lambda k: jax.random.uniform(k, (4, 4), out_sharding=P("x")))
        out = f(k)
        assert str(jax.typeof(out)) == "float32[4@x,4]"
        np.testing.assert_array_equal(np.asarray(out), np.asarray(jax.random.uniform(k, (4, 4))))


def test_keys_laid_out_over_the_mesh_are_typed_so():
    with jax.set_mesh(_xy_mesh()):
        keys = jax.random.split(jax.random.key(1), 8)
        assert str(jax.typeof(jax.device_put(keys, P("y")))) == "key<fry>[8@y]"  # (as JAX 0.10.2)
        assert str(jax.typeof(jax.reshard(keys, P("y")))) == "key<fry>[8@y]"


def test_loops_and_conds_run_on_each_devices_blocks():
    # (JAX 0.10.2 keeps the carry's layout; they ran gathered and came back replicated)
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    x = jax.device_put(jnp.arange(16.0).reshape(4, 4) / 10, NamedSharding(m, P("x", None)))
    xs = np.arange(16.0).reshape(4, 4) / 10
    f = jax.jit(lambda x: jax.lax.while_loop(lambda c: c[0, 0] < 10, lambda c: c + 1, x))
    g = jax.jit(lambda x: jax.lax.cond(x[0, 0] > 0, lambda a: a * 2, lambda a: a - 1, x))
    h = jax.jit(lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2 + c.sum(), x))
    for fun, want in ((f, xs + 10), (g, xs - 1), (h, None)):
        out = fun(x)
        assert out.sharding == NamedSharding(m, P("x", None))
        if want is not None:
            np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    c = xs.copy()
    for _ in range(3):
        c = c * 2 + c.sum()
    np.testing.assert_allclose(np.asarray(h(x)), c, rtol=1e-5)


def test_jit_in_shardings_refuse_a_committed_argument_laid_out_otherwise():
    m = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Auto,) * 2)
    s = NamedSharding(m, P(None, "y"))
    f = jax.jit(lambda x: x * 2, in_shardings=s)
    x = jax.device_put(jnp.ones((4, 4)), NamedSharding(m, P("x", None)))
    with pytest.raises(ValueError) as e:  # (JAX 0.10.2's words)
        f(x)
    assert str(e.value) == (
        f"Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding: {s!r},\n"
        f"arg sharding: {x.sharding!r} for arg type: float32[4,4]"
    )
    for uncommitted in (jnp.ones((4, 4)), np.ones((4, 4), np.float32)):  # (these are moved)
        assert f(uncommitted).sharding == s


def test_a_training_loop_on_an_explicit_mesh_eagerly_and_under_jit():
    # an MLP's gradient steps in a fori_loop (its backward pass contracts over the split batch:
    # the engine's own transpose rules, not the user's code, so no sharding-type error there)
    m = jax.make_mesh((2, 4), ("data", "model"))
    with jax.set_mesh(m):
        k1, k2 = jax.random.split(jax.random.key(0))
        p = {
            "w1": jax.device_put(jax.random.normal(k1, (8, 16)) * 0.1, P(None, "model")),
            "w2": jax.device_put(jax.random.normal(k2, (16, 4)) * 0.1, P("model", None)),
        }
        x = jax.device_put(jnp.linspace(-1, 1, 64).reshape(8, 8), P("data", None))

        def loss(p, x):
            h = jax.nn.relu(x @ p["w1"])
            return jnp.mean(jnp.einsum("bh,hc->bc", h, p["w2"], out_sharding=P("data", None)) ** 2)

        def steps(p, x):
            return jax.lax.fori_loop(
                0, 3, lambda i, p: jax.tree.map(lambda a, g: a - 0.1 * g, p, jax.grad(loss)(p, x)), p
            )

        eager, jitted = steps(p, x), jax.jit(steps)(p, x)
        for out in (eager, jitted):
            assert [str(jax.typeof(v)) for v in jax.tree.leaves(out)] == [
                "float32[8,16@model]",
                "float32[16@model,4]",
            ]
        for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)


def test_gradients_on_an_explicit_mesh_print_as_jax_types_them():
    # the transposes lay cotangents out as their primals' types say (JAX's out_sharding=
    # operand.aval.sharding), the JVP rules' 1 is typed on the mesh: no trailing reshard
    import json
    import pathlib
    import sys

    here = pathlib.Path(__file__).parent / "jax_reference"
    sys.path.insert(0, str(here))
    try:
        from record_explicit_grads import programs
    finally:
        sys.path.remove(str(here))
    want = json.loads((here / "explicit_grad_jaxprs.json").read_text())
    try:
        for name, (f, args) in programs(jax).items():
            assert str(jax.make_jaxpr(f)(*args)) == want[name], name
            out = jax.jit(f)(*args)
            for g, x in zip(jax.tree.leaves(out), args):  # (each gradient laid out as its primal)
                assert g.sharding == x.sharding, name
    finally:
        jax.set_mesh(None)


def test_a_backward_loop_starts_its_zero_carry_split_as_its_body_keeps_it():
    """grad of a scan over a split batch: the transposed loop's zero carry and the sum's broadcast
    cotangent are typed as their primals (JAX's jaxpr: ``f32[2@X,4]``), the loop runs on blocks,
    and the gradient is the one computed unsplit."""
    m = jax.make_mesh((2,), ("X",))
    ws = np.stack([np.eye(4, dtype=np.float32) / 2 + 0.1 * k for k in range(3)])
    xn = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)

    def loss(ws, x):
        out, _ = jax.lax.scan(lambda c, w: (jnp.tanh(c @ w), None), x, ws)
        return jnp.sum(out**2)

    with jax.set_mesh(m):
        w = jax.device_put(ws, P())
        x = jax.device_put(xn, P("X", None))
        text = str(jax.make_jaxpr(jax.grad(loss))(w, x))
        got = jax.grad(loss)(w, x)
    assert "_:f32[2@X,4] = broadcast_in_dim 0.0:f32[]" in text and "q:f32[2@X,4] = broadcast_in_dim p" in text
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.grad(loss)(ws, xn)), rtol=1e-5)
