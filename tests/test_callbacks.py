"""``jax.pure_callback`` and ``jax.experimental.io_callback``: results against numpy's, under every
transformation, and JAX's errors (no JVP, no vmap without a method, no vmap of ordered IO)."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.errors import JaxRuntimeError
from engine.experimental import io_callback

X = np.arange(5.0, dtype=np.float32)


def host_sin(x):
    assert isinstance(x, jax.Array)  # JAX hands callbacks jax.Arrays
    return np.sin(x).astype(x.dtype)


def f(x, vmap_method="sequential"):
    return jax.pure_callback(host_sin, jax.ShapeDtypeStruct.like(x), x, vmap_method=vmap_method)


@pytest.mark.parametrize(
    "run",
    [
        lambda: f(jnp.asarray(X)),
        lambda: jax.jit(f)(jnp.asarray(X)),
        lambda: jax.vmap(f)(jnp.asarray(X)),
        lambda: jax.vmap(lambda x: f(x, "expand_dims"))(jnp.asarray(X)),
        lambda: jax.jit(jax.vmap(lambda x: f(x, "broadcast_all")))(jnp.asarray(X)),
        lambda: lax.scan(lambda c, x: (c, f(x)), None, jnp.asarray(X))[1],
    ],
    ids=["eager", "jit", "vmap_sequential", "vmap_expand_dims", "jit_vmap_broadcast_all", "scan"],
)
def test_pure_callback_matches_numpy(run):
    out = run()
    assert out.dtype == jnp.float32 and out.shape == (5,)
    np.testing.assert_allclose(np.asarray(out), np.sin(X), rtol=1e-6)


def test_vmap_methods_see_the_batch_as_jax_does():
    seen = []

    def record(x, y):
        seen.append((x.shape, y.shape))
        return np.asarray(x) + np.asarray(y)

    def g(x, y, method):
        return jax.pure_callback(record, jax.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method=method)

    xs, y = jnp.ones((3, 2)), jnp.ones(2)
    for method in ("expand_dims", "broadcast_all", "sequential"):
        out = jax.vmap(lambda x: g(x, y, method))(xs)
        np.testing.assert_array_equal(np.asarray(out), np.full((3, 2), 2.0))
    assert seen == [((3, 2), (1, 2)), ((3, 2), (3, 2))] + [((2,), (2,))] * 3


def test_pytree_results_and_arguments():
    out = jax.jit(
        lambda x: jax.pure_callback(
            lambda d: {"a": np.asarray(d["x"]) * 2, "b": (np.asarray(d["x"]) + 1,)},
            {"a": jax.ShapeDtypeStruct((3,), jnp.float32), "b": (jax.ShapeDtypeStruct((3,), jnp.float32),)},
            {"x": x},
        )
    )(jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(out["a"]), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(out["b"][0]), [2.0, 2.0, 2.0])


def test_unused_pure_callback_is_dropped_but_io_callback_runs():
    calls = []

    def touch():
        calls.append(1)
        return np.int32(0)

    @jax.jit
    def pure(x):
        jax.pure_callback(touch, np.int32(0))
        return x + 1.0

    @jax.jit
    def io(x):
        io_callback(touch, np.int32(0))
        return x + 1.0

    for _ in range(3):
        pure(1.0)
    assert calls == []
    for _ in range(3):
        io(1.0)
    assert len(calls) == 3


def test_io_callback_under_vmap_runs_per_element_and_ordered_refuses():
    shapes = []

    def rng_like(x):
        shapes.append(x.shape)
        return np.zeros(x.shape, x.dtype)

    jax.vmap(jax.jit(lambda x: io_callback(rng_like, x, x)))(jnp.zeros(4))
    assert shapes == [()] * 4
    with pytest.raises(ValueError, match="Cannot `vmap` ordered IO callback"):
        jax.vmap(lambda x: io_callback(rng_like, x, x, ordered=True))(jnp.zeros(4))


def test_errors_are_jaxs():
    with pytest.raises(ValueError, match="Pure callbacks do not support JVP"):
        jax.grad(lambda x: f(x).sum())(jnp.asarray(X))
    with pytest.raises(ValueError, match="IO callbacks do not support JVP"):
        jax.grad(lambda x: io_callback(lambda v: v, x, x))(1.0)
    with pytest.raises(NotImplementedError, match="vmap_method"):
        jax.vmap(lambda x: f(x, None))(jnp.asarray(X))
    with pytest.raises(JaxRuntimeError, match=r"Expected: \(2,\), Actual: \(3,\)"):
        jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((2,), jnp.float32), jnp.ones(3))


def test_shape_dtype_struct_like():
    s = jax.ShapeDtypeStruct.like(jnp.ones((2, 3), jnp.int32))
    assert (s.shape, s.dtype) == ((2, 3), np.dtype("int32"))


def test_debug_callback_gets_python_numbers_weakly_typed_when_run_eagerly():
    # JAX 0.10.2: eagerly (also per element under vmap, and under jvp) a Python number reaches the
    # callback as a weakly typed array, a weak array stays weak; under jit the values are strong.
    seen = []

    def cb(*args):
        seen.append([(a.dtype.name, a.weak_type) for a in args])

    jax.debug.callback(cb, 1, 2.0, 1j, True, jnp.float32(3), jnp.asarray(1.0), np.float32(2))
    jax.jit(lambda x: jax.debug.callback(cb, 1, 2.0, x))(jnp.asarray(1.0))
    jax.vmap(lambda x: jax.debug.callback(cb, 1, x))(jnp.arange(2.0))
    jax.jvp(lambda x: (jax.debug.callback(cb, x), x)[1], (1.0,), (1.0,))
    weak_i32, weak_f32, i32, f32 = ("int32", True), ("float32", True), ("int32", False), ("float32", False)
    assert seen == [
        [weak_i32, weak_f32, ("complex64", True), ("bool", False), f32, weak_f32, f32],
        [i32, f32, f32],
        [weak_i32, f32],
        [weak_i32, f32],
        [weak_f32],
    ]


def test_callbacks_on_the_simulated_devices_run_on_the_host():
    """Under pmap and shard_map the program runs in the devices' processes; its callbacks run in
    the host's, as JAX's do: what they append is the program's list, what they print comes out
    device by device in program order, and what they raise is the runtime's error."""
    import contextlib
    import io

    n = min(jax.device_count(), 4)
    if n < 2:
        pytest.skip("needs several simulated devices")
    seen = []

    def record(v):
        seen.append(float(v))
        print("callback", float(v))
        return np.asarray(v * 2)

    def body(x):
        jax.debug.print("before {}", x)
        y = io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x)
        jax.debug.callback(lambda v: seen.append(-float(v)), y)
        return y

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ys = jax.pmap(body)(jnp.arange(float(n)))
    np.testing.assert_array_equal(np.asarray(ys), 2 * np.arange(n))
    assert sorted(seen) == sorted([float(i) for i in range(n)] + [-2.0 * i for i in range(n)])
    assert out.getvalue().split("\n")[:4] == ["before 0.0", "callback 0.0", "before 1.0", "callback 1.0"]

    mesh = jax.make_mesh((n,), ("i",))
    seen.clear()
    jax.shard_map(
        lambda x: jax.debug.callback(lambda v: seen.append(np.asarray(v).tolist()), x),
        mesh=mesh,
        in_specs=jax.P("i"),
        out_specs=jax.P(),
    )(jax.device_put(jnp.arange(float(n)), jax.NamedSharding(mesh, jax.P("i"))))
    assert sorted(seen) == [[float(i)] for i in range(n)]

    def boom(v):
        raise ValueError("boom")

    with pytest.raises(JaxRuntimeError, match="ValueError: boom"):
        jax.pmap(lambda x: jax.pure_callback(boom, jax.ShapeDtypeStruct((), jnp.float32), x))(
            jnp.arange(float(n))
        )


def test_callbacks_in_a_jit_over_a_mesh_run_once_on_the_whole_value():
    """A jit of sharded arrays has bulk-array semantics: JAX runs each callback once (device 0,
    with every operand gathered) and hands its results to every device; ``partitioned=True``
    prints each device's block instead."""
    import contextlib
    import io

    n = min(jax.device_count(), 4)
    if n < 2:
        pytest.skip("needs several simulated devices")
    mesh = jax.make_mesh((n,), ("i",))
    x = jax.device_put(jnp.arange(2.0 * n), jax.NamedSharding(mesh, jax.P("i")))
    shapes = []

    def host(v):
        shapes.append(np.shape(v))
        return np.asarray(v) * 2

    like = jax.ShapeDtypeStruct((2 * n,), jnp.float32)
    for f in (
        jax.jit(lambda v: jax.pure_callback(host, like, v) + 1),
        jax.jit(lambda v: io_callback(host, like, v, ordered=True) + 1),
        lambda v: jax.pure_callback(host, like, v) + 1,  # (eager: a one-operation program)
    ):
        shapes.clear()
        got = f(x)
        assert shapes == [(2 * n,)]  # once, with the whole value
        np.testing.assert_array_equal(np.asarray(got), 2 * np.arange(2.0 * n) + 1)
    counts = jax.jit(
        lambda v: io_callback(lambda a: np.int32(np.size(a)), jax.ShapeDtypeStruct((), jnp.int32), v)
    )
    assert int(counts(x)) == 2 * n
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.jit(lambda v: jax.debug.print("v={}", v))(x)
        jax.jit(lambda v: jax.debug.print("p={}", v, partitioned=True))(x)
        jax.effects_barrier()
    lines = out.getvalue().splitlines()
    assert lines[0] == f"v={np.arange(2.0 * n)}"
    assert sorted(lines[1:]) == sorted(f"p={np.arange(2.0 * n)[2 * k : 2 * k + 2]}" for k in range(n))
