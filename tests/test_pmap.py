"""pmap and collectives: semantics against numpy, grads against the same computation with vmap,
in/out axes, static arguments, device placement, error messages, and the debugger record."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax, monitoring
from engine.parallel import ShardedArray, device_put_replicated, device_put_sharded
from conftest import numba_backend

N = jax.device_count()
rng = np.random.default_rng(0)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


def both(f, *args, axis_name="i", **kw):
    """The same function under pmap and vmap (named axis): the two must agree."""
    p = jax.pmap(f, axis_name=axis_name, **kw)(*args)
    v = jax.vmap(f, axis_name=axis_name, **kw)(*args)
    return p, v


# --- collectives against numpy ---------------------------------------------------------------

X = rng.standard_normal((4, 4, 8)).astype(np.float32)


@pytest.mark.parametrize(
    "name,fn,ref",
    [
        ("psum", lambda x: lax.psum(x, "i"), lambda x: np.broadcast_to(x.sum(0), x.shape)),
        ("pmean", lambda x: lax.pmean(x, "i"), lambda x: np.broadcast_to(x.mean(0), x.shape)),
        ("pmax", lambda x: lax.pmax(x, "i"), lambda x: np.broadcast_to(x.max(0), x.shape)),
        ("pmin", lambda x: lax.pmin(x, "i"), lambda x: np.broadcast_to(x.min(0), x.shape)),
        ("all_gather", lambda x: lax.all_gather(x, "i"), lambda x: np.stack([x] * len(x))),
        (
            "all_gather_axis1",
            lambda x: lax.all_gather(x, "i", axis=1),
            lambda x: np.stack([np.stack(list(x), 1)] * len(x)),
        ),
        (
            "all_gather_tiled",
            lambda x: lax.all_gather(x, "i", axis=1, tiled=True),
            lambda x: np.stack([np.concatenate(list(x), 1)] * len(x)),
        ),
        (
            "ppermute",
            lambda x: lax.ppermute(x, "i", [(j, (j + 1) % 4) for j in range(4)]),
            lambda x: np.roll(x, 1, axis=0),
        ),
        (
            "ppermute_partial",
            lambda x: lax.ppermute(x, "i", [(0, 2), (1, 0)]),
            lambda x: np.stack([x[1], np.zeros_like(x[0]), x[0], np.zeros_like(x[0])]),
        ),
        (
            "psum_scatter_tiled",
            lambda x: lax.psum_scatter(x, "i", scatter_dimension=1, tiled=True),
            lambda x: np.stack(np.split(x.sum(0), 4, axis=1)),
        ),
        (
            "all_to_all_tiled",
            lambda x: lax.all_to_all(x, "i", 1, 0, tiled=True),
            lambda x: np.stack(
                [np.concatenate([np.split(x[j], 4, axis=1)[i] for j in range(4)], 0) for i in range(4)]
            ),
        ),
        (
            "axis_index",
            lambda x: x * 0 + lax.axis_index("i"),
            lambda x: np.broadcast_to(np.arange(4, dtype=np.float32)[:, None, None], x.shape),
        ),
    ],
)
def test_collective_matches_numpy(name, fn, ref):
    expected = ref(X)
    if name == "ppermute_partial":  # (vmap's rule takes whole permutations only: JAX asserts it)
        close(jax.pmap(fn, axis_name="i")(X), expected)
        with pytest.raises(AssertionError, match="Permutation doesn't match the axis size"):
            jax.vmap(fn, axis_name="i")(X)
        return
    p, v = both(fn, X)
    close(p, expected)
    close(v, expected)


def test_psum_scatter_untiled_and_all_to_all_untiled():
    x = rng.standard_normal((4, 4, 3)).astype(np.float32)
    p, v = both(lambda a: lax.psum_scatter(a, "i"), x)
    close(p, x.sum(0))
    close(v, x.sum(0))
    # untiled all_to_all: split axis (size 4) is removed, the device axis appears at concat_axis
    p, v = both(lambda a: lax.all_to_all(a, "i", 0, 1), x)
    want = np.stack([np.stack([x[j][i] for j in range(4)], 1) for i in range(4)])
    assert p.shape == (4, 3, 4)
    close(p, want)
    close(v, want)


def test_psum_of_pytree_and_python_scalar():
    out = jax.pmap(lambda x: (lax.psum({"a": x, "b": 2 * x}, "i"), lax.psum(1, "i")), axis_name="i")(
        jnp.arange(3.0)
    )
    close(out[0]["a"], [3.0, 3.0, 3.0])
    close(out[0]["b"], [6.0, 6.0, 6.0])
    close(out[1], [3, 3, 3])


def test_psum_binds_each_leaf_and_counts_bools():
    x = jnp.arange(4.0)
    f = jax.pmap(lambda v: lax.psum((v, v > 1), "i"), axis_name="i")
    total, count = f(x)
    close(total, np.full(4, 6.0))
    assert count.dtype == np.int32  # (as JAX: a bool leaf is summed as an int32 count)
    np.testing.assert_array_equal(np.asarray(count), [2, 2, 2, 2])
    text = str(jax.make_jaxpr(f)(x))
    assert text.count("psum[") == 2 and "convert_element_type[new_dtype=int32" in text


def test_collective_over_two_axes_of_nested_pmap():
    x = rng.standard_normal((2, 4)).astype(np.float32)
    f = jax.pmap(
        jax.pmap(
            lambda v: (
                lax.psum(v, ("i", "j")),
                lax.psum(v, "j"),
                lax.axis_index("i") * 10 + lax.axis_index("j"),
            ),
            axis_name="j",
        ),
        axis_name="i",
    )
    tot, row, idx = f(x)
    close(tot, np.full_like(x, x.sum()))
    close(row, np.repeat(x.sum(1, keepdims=True), 4, 1))
    np.testing.assert_array_equal(np.asarray(idx), [[0, 1, 2, 3], [10, 11, 12, 13]])


@pytest.mark.skipif(N < 8, reason="needs 8 devices")
def test_nested_pmap_outputs_of_mixed_shapes_dtypes_and_out_axes():
    # the inner map's outputs are gathered together, through one exchange slot
    x = rng.standard_normal((2, 4, 3)).astype(np.float32)

    def inner(v):
        return (
            v * 2.0,
            jnp.outer(v, v),
            (v > 0).astype(np.int32),
            lax.psum(v.sum(), "j"),
            lax.axis_index("j"),
        )

    def outer(v):
        return jax.pmap(inner, axis_name="j", out_axes=(0, 2, 1, None, 0))(v)

    got = jax.pmap(outer, axis_name="i")(x)
    want = jax.vmap(lambda v: jax.vmap(inner, axis_name="j", out_axes=(0, 2, 1, None, 0))(v), axis_name="i")(
        x
    )
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        close(g, w)
    assert got[1].shape == (2, 3, 3, 4) and got[3].shape == (2,)
    np.testing.assert_array_equal(np.asarray(got[4]), [[0, 1, 2, 3]] * 2)


def test_large_psum_reduce_scatter_path():
    x = rng.standard_normal((N, 200_000)).astype(np.float32)
    out = jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(x)
    close(out, np.broadcast_to(x.sum(0), x.shape), tol=1e-4)


@pytest.mark.parametrize(
    "name,fn,ref",
    [
        # operand read in place from device memory, result written straight into the output
        ("in_place", lambda a: lax.psum(a, "i"), lambda x: x.sum(0)),
        # the result is read again on the device (needs the second barrier), operand computed
        ("reused", lambda a: lax.psum(a * 2.0, "i") * 3.0 + lax.psum(a * 2.0, "i"), lambda x: 8.0 * x.sum(0)),
        # the result is an output and also read on the device; int dtype
        ("output_and_reused", lambda a: (lax.psum(a, "i"), lax.psum(a, "i") - a), None),
    ],
)
def test_large_psum_paths(name, fn, ref):
    x = rng.standard_normal((N, 70_000)).astype(np.float32)
    out = jax.pmap(fn, axis_name="i")(x)
    if ref is None:
        total, rest = out
        close(total, np.broadcast_to(x.sum(0), x.shape), tol=1e-4)
        close(rest, x.sum(0) - x, tol=1e-4)
    else:
        close(out, np.broadcast_to(ref(x), x.shape), tol=1e-4)
    ints = np.arange(N * 20_000, dtype=np.int32).reshape(N, -1)
    np.testing.assert_array_equal(
        jax.pmap(lambda a: lax.psum(a, "i"), axis_name="i")(ints), np.broadcast_to(ints.sum(0), ints.shape)
    )


@pytest.mark.skipif(N < 8, reason="needs 8 devices")
def test_large_psum_over_groups_of_a_nested_mesh():
    x = rng.standard_normal((2, 4, 30_000)).astype(np.float32)
    inner, outer = jax.pmap(
        jax.pmap(lambda v: (lax.psum(v, "j"), lax.psum(v, "i")), axis_name="j"), axis_name="i"
    )(x)
    close(inner, np.broadcast_to(x.sum(1, keepdims=True), x.shape), tol=1e-4)
    close(outer, np.broadcast_to(x.sum(0, keepdims=True), x.shape), tol=1e-4)


def test_devices_can_run_programs_compiled_by_the_host(monkeypatch):
    numba_backend()
    from engine.parallel import programs

    monkeypatch.setenv("ENGINE_DEVICE_BACKEND", "numba")
    monkeypatch.setattr(programs, "COMPILE_MIN", 1)
    x = rng.standard_normal((N, 64)).astype(np.float32)
    f = jax.pmap(lambda a: lax.psum(a * 3.0 + 1.0, "i") - a, axis_name="i")
    close(f(x), (x * 3 + 1).sum(0) - x, tol=1e-4)
    from engine.parallel.pmap import _programs

    closed = next(iter(f._cache.values()))[0]
    assert all(p.compiled for p in _programs[closed].values())


def test_unbound_axis_name_is_a_name_error():
    with pytest.raises(NameError, match="unbound axis name: k"):
        jax.pmap(lambda x: lax.psum(x, "k"), axis_name="i")(jnp.ones(2))


# --- vmap with axis_name: unbatched values and nesting -------------------------------------


def test_vmap_collectives_on_unbatched_and_nested():
    xs = jnp.arange(3.0)
    close(jax.vmap(lambda x: lax.psum(2.0, "b") + x, axis_name="b")(xs), [6.0, 7.0, 8.0])
    f = jax.vmap(jax.vmap(lambda x: lax.psum(x, "a"), axis_name="b"), axis_name="a")
    m = np.arange(6.0).reshape(2, 3).astype(np.float32)
    close(f(m), np.broadcast_to(m.sum(0), m.shape))
    g = jax.vmap(jax.vmap(lambda x: lax.psum(x, ("a", "b")), axis_name="b"), axis_name="a")
    close(g(m), np.full_like(m, m.sum()))


def test_reduction_over_a_pmap_axis_and_a_vmap_axis_at_once():
    # The vmap's axis becomes a positional axis of the same psum/pmax (JAX's batching rule).
    m = rng.standard_normal((2, 3)).astype(np.float32)

    def both_axes(fn):
        return jax.pmap(jax.vmap(fn, axis_name="j"), axis_name="i")(m)

    close(both_axes(lambda x: lax.psum(x, ("i", "j"))), np.full_like(m, m.sum()))
    close(both_axes(lambda x: lax.pmax(x, ("j", "i"))), np.full_like(m, m.max()))
    close(both_axes(lambda x: lax.pmin(x, ("i", "j"))), np.full_like(m, m.min()))
    close(both_axes(lambda x: lax.psum(2.0, ("i", "j"))), np.full_like(m, 12.0))  # a constant: 2 * 6
    close(both_axes(lambda x: x / lax.psum(1, ("i", "j"))), m / 6)
    g = jax.pmap(jax.grad(lambda x: jax.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="j")(x).sum()), "i")
    close(g(m), np.full_like(m, 6.0))  # d/dx of sum_j (psum over 6 members) = 3 copies * 2 devices


def test_collective_inside_jit_inside_vmap():
    f = jax.vmap(jax.jit(lambda x: x / lax.psum(x, "i")), axis_name="i")
    close(f(jnp.arange(1.0, 4.0)), np.arange(1.0, 4.0) / 6)


# --- derivatives -------------------------------------------------------------------------------


def _loss(w, x):
    h = jnp.tanh(x * w)
    # pmax has no derivative (as in JAX): its operand is cut from differentiation first.
    scale = lax.pmax(lax.stop_gradient(jnp.sum(jnp.abs(h)) + 1.0), "i")
    return lax.psum(jnp.sum(h**2), "i") / scale + jnp.sum(
        lax.all_gather(h, "i")[0] * lax.ppermute(h, "i", [(0, 1), (1, 2), (2, 3), (3, 0)])
    )


def test_grad_through_pmap_matches_vmap():
    w = rng.standard_normal((4, 5)).astype(np.float32)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    gp = jax.pmap(jax.grad(_loss), axis_name="i")(w, x)
    gv = jax.vmap(jax.grad(_loss), axis_name="i")(w, x)
    close(gp, gv, 1e-4)


def test_grad_of_pmapped_function_runs_backward_on_devices():
    w = rng.standard_normal((4, 5)).astype(np.float32)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    ops = []
    with monitoring.listen(lambda kind, data: ops.append((kind, data))):
        gp = jax.grad(lambda w: jnp.sum(jax.pmap(_loss, axis_name="i")(w, x)))(w)
    gv = jax.grad(lambda w: jnp.sum(jax.vmap(_loss, axis_name="i")(w, x)))(w)
    close(gp, gv, 1e-4)
    executed = [d for k, d in ops if k == "pmap_execute"]
    assert len(executed) >= 2  # the forward (known) part and the transposed part both ran on devices
    assert any("psum" in [e["primitive"] for e in d["collectives"]] for d in executed[1:])


def test_grad_wrt_broadcast_argument_sums_over_devices():
    w = jnp.array(1.5)
    xs = jnp.arange(4.0)
    g = jax.grad(lambda w: jnp.sum(jax.pmap(lambda x, w: jnp.sin(w * x), in_axes=(0, None))(xs, w)))(w)
    close(g, np.sum(np.arange(4.0) * np.cos(1.5 * np.arange(4.0))))


def test_jvp_and_vmap_of_pmap():
    xs = rng.standard_normal((3, 4)).astype(np.float32)
    f = jax.pmap(lambda x: x * lax.psum(x, "i"), axis_name="i")
    out, tan = jax.jvp(f, (xs[0],), (jnp.ones(4),))
    close(out, xs[0] * xs[0].sum())
    close(tan, xs[0].sum() + 4 * xs[0])  # d(x * psum(x)) = t * psum(x) + x * psum(t)
    close(jax.vmap(f)(xs), xs * xs.sum(1, keepdims=True))


def test_jit_of_pmap_and_pmap_of_jit():
    f = jax.jit(jax.pmap(lambda x: jax.jit(lambda y: y * 2)(x) + 1))
    close(f(jnp.arange(4.0)), np.arange(4.0) * 2 + 1)


# --- axes, statics, devices ------------------------------------------------------------------


def test_in_axes_out_axes():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3,)).astype(np.float32)
    out = jax.pmap(lambda a, b: a * b, in_axes=(1, None), out_axes=1)(x, y)
    close(out, x * y[:, None])
    out = jax.pmap(lambda a: (a, lax.psum(a, "i")), axis_name="i", out_axes=(0, None))(y)
    close(out[0], y)
    close(out[1], y.sum())
    out = jax.pmap(lambda d: d["u"] + d["v"], in_axes=({"u": 0, "v": None},))({"u": x, "v": y[0]})
    close(out, x + y[0])


def test_static_broadcasted_argnums():
    calls = []

    def f(x, n):
        calls.append(n)
        return x**n

    g = jax.pmap(f, static_broadcasted_argnums=1)
    close(g(jnp.arange(3.0), 2), np.arange(3.0) ** 2)
    close(g(jnp.arange(3.0), 3), np.arange(3.0) ** 3)
    g(jnp.arange(3.0), 3)
    assert calls == [2, 3]  # traced once per static value
    with pytest.raises(ValueError, match="Non-hashable static"):
        g(jnp.arange(3.0), [1])


def test_results_stay_on_devices_and_feed_the_next_pmap():
    x = jnp.arange(4.0)
    y = jax.pmap(lambda v: v * 2)(x)
    assert isinstance(y, ShardedArray)
    assert y._cache is None  # not read yet
    assert sorted(d.id for d in y.devices()) == [0, 1, 2, 3]
    z = jax.pmap(lambda v: v + 1)(y)
    assert y._cache is None  # passed on device to device
    assert repr(z) == "Array([1., 3., 5., 7.], dtype=float32)"
    assert [s.device.id for s in z.addressable_shards] == [0, 1, 2, 3]
    close(z.addressable_shards[2].data, [5.0])


def test_device_resident_inputs_stay_on_devices_under_grad_and_vmap():
    x = rng.standard_normal((4, 3)).astype(np.float32)
    f = jax.pmap(lambda a, b: a * b, axis_name="i")
    xs = device_put_sharded(list(x), jax.devices()[:4])
    g = jax.grad(lambda w: jnp.sum(f(w, xs)))(jnp.ones((4, 3)))
    close(g, x)
    ys = device_put_sharded(list(x), jax.devices()[:4])
    v = jax.vmap(lambda c: f(ys, jnp.ones((4, 3)) * c))(jnp.arange(2.0))
    close(v, np.stack([0 * x, x]))
    assert xs._cache is None and ys._cache is None  # never read back to the host


def test_reading_a_device_array_shares_its_memory_and_keeps_it_alive():
    import gc

    host = rng.standard_normal(50_000).astype(np.float32)
    y = jax.device_put(host, jax.devices()[1])
    a = np.asarray(y)
    assert not a.flags.writeable
    del y
    gc.collect()
    others = [jax.device_put(np.zeros_like(host), jax.devices()[1]) for _ in range(3)]
    np.testing.assert_array_equal(a, host)  # its block was not handed out again
    assert all(float(np.asarray(o).sum()) == 0.0 for o in others)


def test_device_put_variants():
    devs = jax.devices()
    a = jax.device_put(jnp.arange(3.0), devs[1])
    assert a.devices() == {devs[1]}
    close(a, [0.0, 1.0, 2.0])
    r = device_put_replicated(jnp.ones(2), devs[:3])
    assert r.shape == (3, 2) and sorted(d.id for d in r.devices()) == [0, 1, 2]
    s = device_put_sharded([jnp.zeros(2), jnp.ones(2)], devs[:2])
    close(s, [[0.0, 0.0], [1.0, 1.0]])
    close(jax.pmap(lambda v: v + 1, devices=devs[:2])(s), [[1.0, 1.0], [2.0, 2.0]])


def test_devices_listing():
    devs = jax.devices()
    assert len(devs) == N == jax.local_device_count()
    assert [d.id for d in devs] == list(range(N))
    assert devs[0].platform == "cpu" and devs[0].device_kind == "cpu"
    assert repr(devs[3]) == "CpuDevice(id=3)"
    assert jax.process_index() == 0


# --- errors ------------------------------------------------------------------------------------


def test_scalar_mapped_error_suggests_in_axes():
    with pytest.raises(ValueError, match=r"in_axes=\(0, None\)"):
        jax.pmap(lambda x, f: x * f)(jnp.ones(4), 2.0)


def test_too_many_devices_error():
    with pytest.raises(ValueError, match=f"requires {N + 1} logical devices, but only {N}"):
        jax.pmap(lambda x: x)(jnp.ones(N + 1))


def test_inconsistent_sizes_error():
    with pytest.raises(ValueError, match="inconsistent sizes"):
        jax.pmap(lambda x, y: x + y)(jnp.ones(2), jnp.ones(3))


# --- the debugger record ---------------------------------------------------------------------


def test_monitoring_record():
    events = []
    f = jax.pmap(lambda x: lax.pmax(x, "i") + lax.psum(x, "i"), axis_name="i")
    with monitoring.listen(lambda kind, data: events.append((kind, data))):
        f(jnp.arange(4.0))
    (rec,) = [d for k, d in events if k == "pmap_execute"]
    assert rec["axis_names"] == ["i"] and rec["mesh"] == [4]
    assert [d["id"] for d in rec["devices"]] == [0, 1, 2, 3]
    for i, d in enumerate(rec["devices"]):
        close(d["inputs"][0], i)
        close(d["outputs"][0], 3 + 6)
        assert d["compute_ms"] >= 0 and d["collective_wait_ms"] >= 0
    assert [e["primitive"] for e in rec["collectives"]] == ["pmax", "psum"]
    assert rec["collectives"][0]["devices"] == [0, 1, 2, 3]
    assert set(rec["collectives"][1]["waits_ms"]) == {0, 1, 2, 3}


# --- debug prints from the devices -------------------------------------------------------------


def test_debug_print_inside_pmap_reaches_the_host_tagged_by_device():
    from engine import debug

    lines = []

    def f(x):
        jax.debug.print("device sees {}", x)
        return lax.psum(x, "i")

    with debug.capture(lambda text, device: lines.append((device, text))):
        out = jax.pmap(f, axis_name="i")(jnp.arange(4.0))
    close(out, [6.0] * 4)
    assert lines == [(d, f"device sees {float(d)}") for d in range(4)]


def test_debug_print_in_pmap_run_report_in_device_order():
    from engine.inspect import RunRequest, run_request

    code = (
        "import jax\nimport jax.numpy as jnp\n"
        "def f(x):\n"
        "    jax.debug.print('a {}', x)\n"
        "    y = jax.lax.psum(x, 'i')\n"
        "    jax.debug.print('b {}', y)\n"
        "    return y\n"
        "out = jax.pmap(f, axis_name='i')(jnp.arange(3.0))\n"
    )
    r = run_request(RunRequest(code=code))
    assert r.ok, r.error
    assert [(p.device, p.text) for p in r.prints] == [
        (d, t) for d in range(3) for t in (f"a {float(d)}", "b 3.0")
    ]


def test_pmap_over_typed_keys():
    # Typed keys cross to the devices as their uint32 data and come back as keys.
    from engine import random

    ks = random.split(random.key(0), 4)
    want = np.stack([np.asarray(random.normal(k, (3,))) for k in ks])
    close(jax.pmap(lambda k: random.normal(k, (3,)))(ks), want, 0)
    close(jax.jit(jax.pmap(lambda k: random.normal(k, (3,))))(ks), want, 0)
    split = jax.pmap(lambda k: random.split(k))(ks)
    assert split.shape == (4, 2) and split.dtype == ks.dtype
    assert np.array_equal(
        np.asarray(random.key_data(split)),
        np.stack([np.asarray(random.key_data(random.split(k))) for k in ks]),
    )


def test_shown_pmap_is_jaxs_jit_of_shard_map_and_runs_the_same():
    from engine import ir

    f = jax.pmap(lambda x, y: x * y / lax.psum(x, "i"), axis_name="i", in_axes=(0, None))
    x, y = jnp.arange(1.0, 13.0).reshape(4, 3), jnp.arange(3.0)
    closed = jax.make_jaxpr(f)(x, y)
    text = str(closed)
    assert "jit[\n      name=_fun" in text and "shard_map[" in text and "xla_pmap" not in text
    assert "in_specs=(P('i',), P())" in text and "mesh=Mesh('i': 4, axis_types=(Auto,))" in text
    # The shown program runs on the devices (shard_map) and computes what pmap computes.
    close(ir.eval_closed(closed, x, y)[0], f(x, y))
    # Under jit the shown pmap is JAX's form as well (what jit runs: see the next test).
    assert "xla_pmap" not in str(jax.make_jaxpr(jax.jit(f))(x, y))
    # Under grad/vmap the shown pmap is JAX's too (shard_map has AD and batching rules), and runs.
    g = jax.grad(lambda x: jnp.sum(jax.pmap(jnp.sin)(x)))
    shown = jax.make_jaxpr(g)(jnp.arange(4.0))
    assert "xla_pmap" not in str(shown) and str(shown).count("shard_map[") == 2
    close(ir.eval_closed(shown, jnp.arange(4.0))[0], np.cos(np.arange(4.0)))
    v = jax.make_jaxpr(jax.vmap(jax.pmap(lambda a: a * 2.0)))(jnp.ones((2, 4, 3)))
    assert "xla_pmap" not in str(v) and "in_specs=(P(None, '_internal_pmap_axis_name'),)" in str(v)
    close(jax.jit(f)(x, y), f(x, y))


def test_jit_of_pmap_shows_jax_form_and_still_runs_the_device_program():
    # make_jaxpr(jit(pmap(f))) shows JAX 0.10.2's jit(shard_map) form (tests/fidelity: jit_pmap);
    # that shown program is not cached, so the jitted call afterwards runs pmap's own program.
    f = jax.jit(jax.pmap(jnp.sin))
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    text = str(jax.make_jaxpr(f)(x))
    assert "shard_map" in text and "xla_pmap" not in text
    events = []
    with monitoring.listen(lambda kind, data: events.append((kind, data))):
        np.testing.assert_allclose(np.asarray(f(x)), np.sin(x), rtol=1e-6)
    (ran,) = [d["jaxpr"] for k, d in events if k == "jit_trace"]
    assert "xla_pmap" in str(ran)  # (traced again: the shown program was not cached)
    assert "shard_map" in str(jax.make_jaxpr(f)(x))


def test_all_to_all_group_refusals_read_like_jax(jax_on_engine):
    """all_to_all with axis_index_groups: the refusals JAX 0.10.2 gave on 8 CPU devices
    (tests/jax_reference/pswapaxes.json), word for word; XLA's verifier message for groups that
    do not cover the axis names its source file, so only its start is the same."""
    import json
    import pathlib
    import sys

    here = pathlib.Path(__file__).resolve().parent / "jax_reference"
    sys.path.insert(0, str(here))
    try:
        from record import run
        from snippets_pswapaxes import PSWAPAXES
    finally:
        sys.path.remove(str(here))
    recorded = json.loads((here / "pswapaxes.json").read_text())
    ns = {"jax": jax_on_engine, "jnp": jnp, "lax": lax, "np": np}
    for name, code in PSWAPAXES:
        if not name.startswith(("err_groups", "err_grad")):
            continue
        want = recorded[name]
        with pytest.raises(Exception) as info:
            run(code, ns)
        assert type(info.value).__name__ == want["error"], name
        got = str(info.value).split("\n")[0]
        if name == "err_groups_not_covering":
            assert want["message"].startswith("INTERNAL: during context [hlo verifier]: RET_CHECK failure")
            assert got.startswith("INTERNAL: during context [hlo verifier]: RET_CHECK failure"), got
            assert got.endswith("replica groups should contain 8 partitions, but found 4")
        else:
            assert got == want["message"], name


def test_a_pmap_result_is_typed_on_its_mesh():
    # JAX 0.10.2 (recorded): a pmap's results, and what is computed from them, are typed on its
    # Auto mesh (so grad reshards its seed onto it: the fidelity corpus's pmap_then_grad)
    f = jax.pmap(jnp.sin, axis_name="i")
    seen = []

    def g(x):
        y = f(x)
        s = y.sum()
        seen.extend([repr(jax.typeof(y).sharding), repr(jax.typeof(s).sharding)])
        return s

    jax.make_jaxpr(jax.grad(g))(jnp.arange(8.0))
    mesh = "AbstractMesh('i': 8, axis_types=(Auto,), device_kind=cpu, num_cores=None, platform=cpu)"
    assert seen == [f"NamedSharding(mesh={mesh}, spec=P(None,))", f"NamedSharding(mesh={mesh}, spec=P())"]
