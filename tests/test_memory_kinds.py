"""Memory kinds on shardings (host offloading), offloading checkpoint policies, colocated Python
and the jax.debug_nans context manager, as JAX 0.10.2 behaves on a CPU."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.experimental import colocated_python
from engine.sharding import Mesh, NamedSharding, PartitionSpec as P


def _mesh():
    return Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("x", "y"))


def _offloaded_layer():
    """sum(sin(x @ w)^2) with sin(x @ w) named "h", and a policy offloading "h" to pinned_host."""
    from engine.ad_checkpoint import checkpoint_name

    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["h"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    def layer(w, x):
        h = checkpoint_name(jnp.sin(x @ w), "h")
        return jnp.sum(h * h)

    return layer, policy


def test_memory_kind_is_kept_by_device_put_and_jit_outputs():
    dev = NamedSharding(_mesh(), P("x", "y"), memory_kind="device")
    host = dev.with_memory_kind("pinned_host")
    assert repr(host).endswith("spec=P('x', 'y'), memory_kind=pinned_host)")
    assert host != dev and host == NamedSharding(_mesh(), P("x", "y"), memory_kind="pinned_host")
    x = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    on_host = jax.device_put(x, host)
    assert on_host.sharding.memory_kind == "pinned_host"
    back = jax.jit(lambda v: jax.device_put(v, dev) + 1, out_shardings=dev)(on_host)
    np.testing.assert_array_equal(back, x + 1)
    assert back.sharding.memory_kind == "device"
    assert jax.jit(lambda v: v, out_shardings=host)(back).sharding.memory_kind == "pinned_host"


def test_unknown_memory_kind_is_jaxs_value_error():
    with pytest.raises(ValueError, match="can address the following memory kinds: device, pinned_host"):
        NamedSharding(_mesh(), P(), memory_kind="hbm")


def test_scalar_device_put_onto_a_mesh_keeps_its_shape():
    s = NamedSharding(Mesh(jax.devices()[:1], ["x"]), P())
    x = jax.device_put(1, s)
    assert x.shape == () and int(x) == 1 and int(jax.jit(lambda v: v + 1)(x)) == 2


def test_offloading_policy_gives_the_gradient_of_the_unremated_function():
    layer, policy = _offloaded_layer()

    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    got = jax.grad(jax.checkpoint(layer, policy=policy))(w, x)
    z = x @ w  # d/dw sum(sin(z)^2) = x.T @ (2 sin z cos z)
    np.testing.assert_allclose(got, x.T @ (2 * np.sin(z) * np.cos(z)), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="should be exclusive"):
        jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["h"],
            names_which_can_be_offloaded=["h"],
            offload_src="device",
            offload_dst="pinned_host",
        )


def test_memory_analysis_is_unavailable_as_jax_allows():
    assert jax.jit(lambda v: v * 2).lower(jnp.ones(3)).compile().memory_analysis() is None


def test_colocated_function_runs_here_and_keeps_the_argument_layout():
    s = NamedSharding(Mesh(colocated_python.colocated_cpu_devices(jax.devices()[:1]), ["x"]), P())
    x = jax.device_put(np.int32(41), s)
    f = colocated_python.colocated_python(lambda v: v + 1)
    y = f.specialize(out_specs_fn=lambda v: v)(x)
    assert int(y) == 42 and y.sharding == x.sharding
    with pytest.raises(ValueError, match="specialized with devices"):
        colocated_python.colocated_python(lambda: None)()

    log = []

    class Counter:
        def __init__(self, start):
            self.n = start

        def add(self, v):
            return v + self.n

        def __del__(self):
            log.append("gone")

    c = colocated_python.colocated_python_class(Counter)(5)
    assert int(c.add(x)) == 46
    del c
    assert log == ["gone"]


def test_debug_nans_context_manager_restores_the_flag():
    f = jax.jit(lambda v: jnp.log(-v))
    with jax.debug_nans(True):
        with pytest.raises(FloatingPointError, match="invalid value \\(nan\\) encountered in log") as e:
            f(2.0)
        assert any("removed its internal frames" in n for n in e.value.__notes__)
        with jax.debug_nans(False):
            assert np.isnan(f(2.0))
    assert np.isnan(f(2.0))


def test_device_put_arrays_keep_their_weak_type_through_eager_ops():
    # JAX 0.10.2: device_put(1) + 1 -> Array(2, dtype=int32, weak_type=True); a strong operand wins
    a = jax.device_put(1)
    assert (a + 1).weak_type and not (a * jnp.int32(2)).weak_type
    on_mesh = jax.device_put(1, NamedSharding(Mesh(jax.devices()[:1], ["x"]), P()))
    assert repr(on_mesh + 1) == "Array(2, dtype=int32, weak_type=True)"


@pytest.mark.parametrize("kind", ["pinned_host", "unpinned_host", "device"])
def test_device_put_onto_a_single_device_sharding_in_a_memory_kind(kind):
    # JAX 0.10.2 on CPU: the eager result keeps the sharding (memory kind included); inside jit the
    # put is one device_put equation carrying the sharding (values recorded from JAX).
    from engine.sharding import SingleDeviceSharding

    s = SingleDeviceSharding(jax.devices()[0], memory_kind=kind)
    x = jnp.arange(4.0)
    y = jax.device_put(x, s)
    assert y.sharding == s and y.sharding.memory_kind == kind
    np.testing.assert_array_equal(y, [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jax.jit(lambda v: jax.device_put(v, s) * 2)(x), [0.0, 2.0, 4.0, 6.0])
    jax_text = (
        "{ lambda ; a:f32[4]. let\n"
        f"    b:f32{'<host>' if kind == 'pinned_host' else ''}[4] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)\n"
        f"      devices=(SingleDeviceSharding(device=CpuDevice(id=0), memory_kind={kind}),)\n"
        "      srcs=(None,)\n"
        "    ] a\n"
        "  in (b,) }"
    )
    assert str(jax.make_jaxpr(lambda v: jax.device_put(v, s))(x)) == jax_text


def test_device_put_onto_a_named_sharding_in_a_memory_kind():
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    for kind in ("pinned_host", "unpinned_host"):
        s = NamedSharding(mesh, P("x"), memory_kind=kind)
        y = jax.device_put(jnp.arange(4.0), s)
        assert y.sharding.memory_kind == kind
        np.testing.assert_array_equal(jax.jit(lambda v: jax.device_put(v, s) + 1)(y), [1.0, 2.0, 3.0, 4.0])


def test_devices_address_jaxs_three_cpu_memories():
    # JAX 0.10.2 with 3 CPU devices: the client numbers each device's memories in turn
    d = jax.devices()
    assert repr(d[0].addressable_memories()) == "[CPU_DEVICE_0, PINNED_HOST_1, UNPINNED_HOST_2]"
    assert [m.kind for m in d[1].addressable_memories()] == ["device", "pinned_host", "unpinned_host"]
    assert str(d[1].default_memory()) == "CpuDeviceMemory(id=3, process_index=0, client=cpu)"
    assert str(d[2].memory("unpinned_host")) == "UnpinnedHostMemorySpace(id=8, process_index=0, client=cpu)"
    assert str(d[1].memory("pinned_host")) == "PinnedHostMemory(id=4, process_index=0, client=cpu)"
    assert d[1].memory("device") == d[1].default_memory() != d[0].default_memory()
    assert d[0].memory("pinned_host").addressable_by_devices() == [d[0]]
    with pytest.raises(
        jax.errors.JaxRuntimeError, match="INVALID_ARGUMENT: Could not find memory addressable"
    ):
        d[0].memory("hbm")


# --- memory spaces in types (JAX 0.10.2 prints a pinned_host value's type f32<host>[4]) ---------


def _host_and_device():
    from engine.sharding import SingleDeviceSharding

    d = jax.devices()[0]
    return SingleDeviceSharding(d, memory_kind="pinned_host"), SingleDeviceSharding(d, memory_kind="device")


def test_a_host_value_has_a_host_type_and_ops_keep_it():
    host, _ = _host_and_device()
    h = jax.device_put(jnp.arange(4.0), host)
    assert repr(jax.typeof(h)) == "ShapedArray(float32<host>[4])" and str(h.aval) == "float32<host>[4]"
    assert (
        str(jax.make_jaxpr(jnp.sin)(h)) == "{ lambda ; a:f32<host>[4]. let b:f32<host>[4] = sin a in (b,) }"
    )
    assert str(jax.make_jaxpr(lambda v: v[1:] + 1.0)(h)) == (
        "{ lambda ; a:f32<host>[4]. let\n"
        "    b:f32<host>[3] = slice[limit_indices=(4,) start_indices=(1,) strides=None] a\n"
        "    c:f32<host>[3] = add b 1.0:f32[]\n"
        "  in (c,) }"
    )
    # eagerly and under jit the result stays in host memory (JAX: its sharding says pinned_host)
    for y in (jnp.sin(h), jax.jit(jnp.sin)(h), h * 2):
        assert y.sharding.memory_kind == "pinned_host" and str(y.aval) == "float32<host>[4]"
    np.testing.assert_allclose(jnp.sin(h), np.sin(np.arange(4.0, dtype=np.float32)), rtol=1e-6)


def test_operands_in_different_memories_are_jaxs_value_error():
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("x", "y"))
    h = jax.device_put(
        jnp.arange(8.0).reshape(2, 4), NamedSharding(mesh, P("x", "y"), memory_kind="pinned_host")
    )
    x = jnp.arange(8.0).reshape(2, 4)
    msg = (
        "memory_space of all inputs passed to `add` must be the same. Got one operand with type: "
        "float32<host>[2,4] and another operand with type: float32[2,4]"
    )
    with pytest.raises(ValueError) as traced:
        jax.make_jaxpr(lambda a, b: a + b)(h, x)
    with pytest.raises(ValueError) as eager:
        h + x
    assert str(traced.value) == str(eager.value) == msg
    y = h * 2  # a scalar goes with anything; the result keeps the operand's sharding
    assert y.sharding == NamedSharding(mesh, P("x", "y"), memory_kind="pinned_host")


def test_a_jit_result_put_in_host_memory_is_there():
    host, _ = _host_and_device()
    y = jax.jit(lambda v: jax.device_put(v, host))(jnp.arange(4.0))
    assert y.sharding.memory_kind == "pinned_host" and repr(jax.typeof(y)) == "ShapedArray(float32<host>[4])"
    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    s = NamedSharding(mesh, P("x"), memory_kind="pinned_host")
    z = jax.jit(lambda v: jax.device_put(v, s))(jnp.arange(8.0))
    assert z.sharding.memory_kind == "pinned_host" and str(z.aval) == "float32<host>[8]"
    np.testing.assert_array_equal(z, np.arange(8.0))


def test_the_gradient_goes_back_to_host_memory():
    host, device = _host_and_device()
    h = jax.device_put(jnp.arange(4.0), host)

    def f(v):
        return jnp.sum(jnp.sin(jax.device_put(v, device)))

    assert str(jax.make_jaxpr(jax.grad(f))(h)) == (
        "{ lambda ; a:f32<host>[4]. let\n"
        "    b:f32[4] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)\n"
        "      devices=(SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device),)\n"
        "      srcs=(None,)\n"
        "    ] a\n"
        "    c:f32[4] = sin b\n"
        "    d:f32[4] = cos b\n"
        "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] c\n"
        "    e:f32[4] = broadcast_in_dim 1.0:f32[]\n"
        "    f:f32[4] = mul e d\n"
        "    g:f32<host>[4] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)\n"
        "      devices=(MemorySpace.Host,)\n"
        "      srcs=(SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device),)\n"
        "    ] f\n"
        "  in (g,) }"
    )
    g = jax.jit(jax.grad(f))(h)
    assert g.sharding == host and str(g.aval) == "float32<host>[4]"
    np.testing.assert_allclose(g, np.cos(np.arange(4.0)), rtol=1e-6)


def test_device_put_onto_a_named_sharding_inside_jit_is_a_device_put():
    # JAX 0.10.2 (2 devices): one device_put equation carrying the sharding (the engine's was a reshard)
    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    s = NamedSharding(mesh, P("x"))
    x = jnp.arange(8.0)
    for kind, typ in (("device", "f32[8]"), ("pinned_host", "f32<host>[8]"), ("unpinned_host", "f32[8]")):
        assert str(jax.make_jaxpr(lambda v: jax.device_put(v, s.with_memory_kind(kind)))(x)) == (
            "{ lambda ; a:f32[8]. let\n"
            f"    b:{typ} = device_put[\n"
            "      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)\n"
            f"      devices=(NamedSharding(mesh=Mesh('x': 2, axis_types=(Auto,)), spec=P('x',), memory_kind={kind}),)\n"
            "      srcs=(None,)\n"
            "    ] a\n"
            "  in (b,) }"
        )
    y = jax.jit(lambda v: jax.device_put(v, s) * 2)(x)
    np.testing.assert_array_equal(y, 2 * np.arange(8.0))
    assert y.sharding.memory_kind == "device"


def test_isclose_of_a_device_and_a_host_array_fails_at_jaxs_first_mixed_op():
    # (the host-offloading tutorial's last cell): JAX's isclose meets the two memories first in an `and`
    host, _ = _host_and_device()
    h = jax.device_put(jnp.arange(3.0), host)
    with pytest.raises(ValueError) as e:
        jnp.allclose(jnp.arange(3.0), h)
    assert str(e.value) == (
        "memory_space of all inputs passed to `and` must be the same. Got one operand with type: bool[3] "
        "and another operand with type: bool<host>[3]"
    )
    assert jnp.isclose(h, h).sharding == host


def test_an_offloaded_residual_moves_to_host_memory_and_back():
    # JAX 0.10.2: the forward pass device_puts the named value to MemorySpace.Host, the remat of the
    # backward pass takes it typed f32<host> and puts it back first
    layer, policy = _offloaded_layer()

    text = str(
        jax.make_jaxpr(jax.grad(jax.checkpoint(layer, policy=policy)))(jnp.ones((3, 2)), jnp.ones((4, 3)))
    )
    assert text == (
        "{ lambda ; a:f32[3,2] b:f32[4,3]. let\n"
        "    c:f32[4,2] = dot_general[\n"
        "      dimension_numbers=(([1], [0]), ([], []))\n"
        "      preferred_element_type=float32\n"
        "    ] b a\n"
        "    d:f32[4,2] = sin c\n"
        "    e:f32[4,2] = name[name=h] d\n"
        "    f:f32<host>[4,2] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)\n"
        "      devices=(MemorySpace.Host,)\n"
        "      srcs=(None,)\n"
        "    ] e\n"
        "    g:f32[4,2] = mul e e\n"
        "    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] g\n"
        "    h:f32[3,2] = remat2[\n"
        "      differentiated=True\n"
        "      jaxpr={ lambda ; i:f32<host>[4,2] j:f32[3,2] k:f32[4,3] l:f32[]. let\n"
        "          m:f32[4,2] = dot_general[\n"
        "            dimension_numbers=(([1], [0]), ([], []))\n"
        "            preferred_element_type=float32\n"
        "          ] k j\n"
        "          n:f32[4,2] = cos m\n"
        "          o:f32[4,2] = device_put[\n"
        "            copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)\n"
        "            devices=(MemorySpace.Device,)\n"
        "            srcs=(None,)\n"
        "          ] i\n"
        "          p:f32[4,2] = broadcast_in_dim l\n"
        "          q:f32[4,2] = mul o p\n"
        "          r:f32[4,2] = mul p o\n"
        "          s:f32[4,2] = add_any q r\n"
        "          t:f32[4,2] = mul s n\n"
        "          u:f32[2,3] = dot_general[\n"
        "            dimension_numbers=(([0], [0]), ([], []))\n"
        "            preferred_element_type=float32\n"
        "          ] t k\n"
        "          v:f32[3,2] = transpose[permutation=(1, 0)] u\n"
        "        in (v,) }\n"
        "      policy=<function save_and_offload_only_these_names.<locals>.policy at 0xXXXXXXXXXXXX>\n"
        "      prevent_cse=True\n"
        "    ] f a b 1.0:f32[]\n"
        "  in (h,) }"
    )


def test_grad_of_a_value_in_host_memory_is_jaxs_vjp_type_error():
    # JAX 0.10.2: grad seeds a device-memory cotangent, which the VJP refuses for a host output
    host, _ = _host_and_device()

    def f(v):
        return jnp.sum(jax.device_put(v, host))

    msg = (
        "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[], but expected "
        "float32<host>[] because the corresponding output of the differentiated function had JAX type "
        "float32<host>[]"
    )
    for g in (jax.grad(f), jax.jit(jax.grad(f))):
        with pytest.raises(ValueError) as e:
            g(jnp.ones(3))
        assert str(e.value).splitlines()[0] == msg
    y, f_vjp = jax.vjp(f, jnp.ones(3))
    assert str(jax.typeof(y)) == "float32<host>[]" and y.sharding == host
    np.testing.assert_array_equal(f_vjp(y)[0], [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(f_vjp(jax.device_put(jnp.ones(()), host))[0], [1.0, 1.0, 1.0])


def test_compute_on_leaves_programs_as_they_are():
    # JAX 0.10.2 keeps compute_on's type in its trace context: the jaxprs are those without it
    from engine.experimental.compute_on import compute_on

    @compute_on("device_host")
    @jax.jit
    def g(x):
        return x * 2

    assert str(jax.make_jaxpr(lambda x: g(x) + 1)(jnp.ones(3))) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32[3] = jit[\n"
        "      name=g\n"
        "      jaxpr={ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }\n"
        "    ] a\n"
        "    c:f32[3] = add b 1.0:f32[]\n"
        "  in (c,) }"
    )
    np.testing.assert_array_equal(jax.jit(lambda x: g(x) + 1)(jnp.ones(3)), [3.0, 3.0, 3.0])

    def f2(x):
        with compute_on("device_host"):
            return jnp.sin(x) * 2

    assert str(jax.make_jaxpr(f2)(jnp.ones(3))) == (
        "{ lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }"
    )
    with pytest.raises(TypeError, match="^`compute_on`'s compute_type argument must be a string.$"):
        with compute_on(3):
            pass
    with pytest.raises(ValueError) as e:
        with compute_on("cpu"):
            pass
    assert str(e.value) == (
        "Invalid compute type cpu. Current supported values are `device_host`, `device`, `tpu_sparsecore`, "
        "and `gpu_stream:#`."
    )


def test_device_put_onto_a_memory_space():
    # JAX 0.10.2's jax.memory.Space: the default device's memory of that space
    x = jnp.arange(3.0)
    h = jax.device_put(x, jax.memory.Space.Host)
    host, device = _host_and_device()
    assert h.sharding == host and str(jax.typeof(h)) == "float32<host>[3]"
    assert str(jax.make_jaxpr(lambda v: jax.device_put(v, jax.memory.Space.Host))(x)) == (
        "{ lambda ; a:f32[3]. let\n"
        "    b:f32<host>[3] = device_put[\n"
        "      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)\n"
        "      devices=(MemorySpace.Host,)\n"
        "      srcs=(None,)\n"
        "    ] a\n"
        "  in (b,) }"
    )
    assert jax.jit(lambda v: jax.device_put(v, jax.memory.Space.Host))(x).sharding == host
    assert jax.jit(lambda v: jax.device_put(v, jax.memory.Space.Device))(h).sharding == device
    back = jax.device_put(h, jax.memory.Space.Device)
    assert back.sharding == device and str(jax.typeof(back)) == "float32[3]"
    assert repr(jax.device_put(1.0, jax.memory.Space.Host)) == "Array(1., dtype=float32, weak_type=True)"


def test_device_put_inside_jit_onto_an_auto_mesh_leaves_the_layout_to_its_operand():
    # JAX 0.10.2 (8 CPU devices) lowers device_put to nothing on CPU: the result is laid out as its
    # operand (replicated when uncommitted), only the memory kind follows the put; an Explicit mesh
    # puts the sharding in the type, and that is kept.
    from engine.sharding import AxisType

    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    split, whole = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
    x = jnp.arange(8.0)
    cases = [
        (lambda v: jax.device_put(v, split), x, "P()", "device"),
        (lambda v: jax.device_put(v, split) * 2, x, "P()", "device"),
        (lambda v: jax.device_put(v, split.with_memory_kind("pinned_host")), x, "P()", "pinned_host"),
        (lambda v: jax.device_put(v, split.with_memory_kind("unpinned_host")), x, "P()", "device"),
        (lambda v: jax.device_put(v, whole), jax.device_put(x, split), "P('x',)", "device"),
        (lambda v: jax.device_put(v, split) + 1, jax.device_put(x, whole), "P()", "device"),
    ]
    for f, arg, spec, kind in cases:
        y = jax.jit(f)(arg)
        assert (str(y.sharding.spec), y.sharding.memory_kind) == (spec, kind)
        np.testing.assert_array_equal(np.asarray(y), np.asarray(f(np.arange(8.0, dtype=np.float32))))
    explicit = jax.make_mesh((2,), ("x",), axis_types=(AxisType.Explicit,), devices=jax.devices()[:2])
    y = jax.jit(lambda v: jax.device_put(v, NamedSharding(explicit, P("x"))))(x)
    assert str(y.sharding.spec) == "P('x',)"


def _one_device_arrays():
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("x", "y"))
    s = NamedSharding(mesh, P("x", "y"))
    x = jnp.arange(8.0).reshape(2, 4)
    return s, x, jax.device_put(x, s), jax.device_put(x, s.with_memory_kind("pinned_host"))


def test_results_of_arrays_on_a_one_device_mesh_are_on_that_mesh():
    # JAX 0.10.2 re-expresses XLA's (replicated) result shardings in the program's first used
    # argument's: that argument's sharding for a result of its rank, its type over the mesh and in
    # its memory; else P() on the mesh. An uncommitted first argument counts as P(); unused
    # arguments are pruned first, and a first committed argument on one device keeps results there.
    s, x, xs, xh = _one_device_arrays()
    sx, one = s.with_spec(P("x")), jax.devices()[0]
    cases = {  # name: (result, JAX's spec and memory kind, or None for SingleDeviceSharding)
        "add": (jax.jit(lambda v: v + 1)(xs), ("P('x', 'y')", "device")),
        "sum": (jax.jit(lambda v: v.sum())(xs), ("P()", "device")),
        "sum0": (jax.jit(lambda v: v.sum(0))(xs), ("P()", "device")),
        "transpose": (jax.jit(lambda v: v.T)(xs), ("P('x', 'y')", "device")),
        "reshape_same_rank": (jax.jit(lambda v: v.reshape(4, 2))(xs), ("P('x', 'y')", "device")),
        "reshape_flat": (jax.jit(lambda v: v.reshape(8))(xs), ("P()", "device")),
        "host": (jax.jit(jnp.sin)(xh), ("P('x', 'y')", "pinned_host")),
        "host_to_device": (jax.jit(lambda v: jax.device_put(v, s) + 1)(xh), ("P()", "device")),
        "device_to_host": (
            jax.jit(lambda v: jax.device_put(v, s.with_memory_kind("pinned_host")))(xs),
            ("P()", "pinned_host"),
        ),
        "put_uncommitted": (jax.jit(lambda v: jax.device_put(v, s))(x), ("P()", "device")),
        "constraint": (jax.jit(lambda v: jax.lax.with_sharding_constraint(v, s))(x), ("P()", "device")),
        "out_shardings": (jax.jit(lambda v: v + 1, out_shardings=sx)(xs), ("P('x',)", "device")),
        "uncommitted_first": (jax.jit(lambda a, b: a + b)(x, xs), ("P()", "device")),
        "committed_first": (jax.jit(lambda a, b: a + b)(xs, x), ("P('x', 'y')", "device")),
        "constant_beside": (jax.jit(lambda v: (v, jnp.ones((2, 4))))(xs)[1], ("P()", "device")),
        "constant_only": (jax.jit(lambda v: jnp.zeros((2, 4)))(xs), None),
        "unused": (jax.jit(lambda a, v: a + 1)(x, xs), None),
        "plain": (jax.jit(lambda v: v + 1)(x), None),
        "device_first": (jax.jit(lambda a, b: a + b)(jax.device_put(x, one), xs), None),
        "eager_sin": (jnp.sin(xs), ("P('x', 'y')", "device")),
        "eager_sum": (xs.sum(), ("P()", "device")),
        "eager_times_2": (xs * 2, ("P('x', 'y')", "device")),
        "eager_2_times": (2 * xs, ("P()", "device")),
        "eager_plus_array": (xs + jnp.float32(1), ("P('x', 'y')", "device")),
        "eager_array_plus": (jnp.float32(1) + xs, ("P()", "device")),
        "eager_index": (xs[0], ("P()", "device")),
        "eager_zeros_like": (jnp.zeros_like(xs), ("P('x', 'y')", "device")),
        "eager_where": (jnp.where(xs > 2, xs, 0.0), ("P('x', 'y')", "device")),
        "eager_host_2_times": (2 * xh, ("P()", "pinned_host")),
        "eager_host_sum": (xh.sum(), ("P()", "pinned_host")),
    }
    got = {}
    for name, (y, _) in cases.items():
        sh = y.sharding
        got[name] = (str(sh.spec), sh.memory_kind) if isinstance(sh, NamedSharding) else None
        if got[name] is not None:
            assert sh.mesh == s.mesh
    assert got == {name: want for name, (_, want) in cases.items()}
    np.testing.assert_array_equal(cases["add"][0], np.arange(8.0).reshape(2, 4) + 1)
    np.testing.assert_array_equal(cases["eager_index"][0], np.arange(4.0))
    assert repr(cases["add"][0].sharding) == (
        "NamedSharding(mesh=Mesh('x': 1, 'y': 1, axis_types=(Auto, Auto)), spec=P('x', 'y'), memory_kind=device)"
    )


def test_results_of_arrays_on_a_mesh_keep_the_arguments_spelling_of_their_layout():
    # JAX 0.10.2 (8 devices): a result laid out as the first argument gets that argument's sharding
    # itself (P('x', None) stays so); an unused sharded argument does not put the program on the mesh
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    x = jnp.arange(16.0).reshape(4, 4)
    a = jax.device_put(x, NamedSharding(mesh, P("x", None)))
    b = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
    specs = {
        "jit": jax.jit(lambda v: v + 1)(a),
        "eager": a + 1,
        "first": a + x,
        "second": x + a,
        "zeros_like": jnp.zeros_like(b),
        "row": b[0],  # (a sliced dimension is gathered, a whole one stays split)
        "rows": b[:2],
        "corner": b[1:3, 2:],
    }
    assert {k: str(v.sharding.spec) for k, v in specs.items()} == {
        "jit": "P('x', None)",
        "eager": "P('x', None)",
        "first": "P('x', None)",
        "second": "P('x',)",
        "zeros_like": "P('x', 'y')",
        "row": "P('y',)",
        "rows": "P(None, 'y')",
        "corner": "P()",
    }
    xn = np.arange(16.0).reshape(4, 4)
    for k, idx in (("row", 0), ("rows", slice(0, 2)), ("corner", (slice(1, 3), slice(2, None)))):
        np.testing.assert_array_equal(specs[k], xn[idx])
    from engine.sharding import SingleDeviceSharding

    assert jax.jit(lambda v: jnp.zeros((4, 4)))(b).sharding == SingleDeviceSharding(jax.devices()[0])


def test_saved_residuals_name_no_line_for_what_the_ad_machinery_made(capsys):
    # JAX 0.10.2 prints no line for the device_puts of offloaded residuals, nor for a jit's known
    # half when the jit is the function given; lines inside the function are kept
    from engine.ad_checkpoint import checkpoint_name, print_saved_residuals

    def layer(w, x):
        h = checkpoint_name(jnp.sin(x @ w), "h")
        g = checkpoint_name(jnp.cos(h), "g")
        return jnp.sum(h * g)

    policies = jax.checkpoint_policies
    both = policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["h", "g"],
        offload_src="device",
        offload_dst="pinned_host",
    )
    w, x = jnp.ones((3, 2)), jnp.ones((4, 3))
    print_saved_residuals(jax.checkpoint(layer, policy=both), w, x)
    print_saved_residuals(jax.jit(lambda v: jnp.sin(jnp.sin(v))), 1.0)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "f32[3,2] from the argument w",
        "f32[4,3] from the argument x",
        "f32<host>[4,2] output of device_put from ",
        "f32<host>[4,2] output of device_put from ",
        "f32[] output of jitted function '<lambda>' from ",
        "f32[] output of jitted function '<lambda>' from ",
    ]
    print_saved_residuals(lambda v: jnp.sin(jnp.sin(v)), 1.0)
    for line in capsys.readouterr().out.splitlines():
        assert line.startswith("f32[] output of cos from ") and line.endswith(".<lambda>)")
    # JAX's save_from_both_policies takes boolean policies only (the offloading ones answer objects)
    mixed = policies.save_from_both_policies(both, policies.dots_saveable)
    with pytest.raises(ValueError, match="^The return value of the policies should be a boolean. Got: <.*"):
        jax.grad(jax.checkpoint(layer, policy=mixed))(w, x)


def _compute_on_text(body: str, spaces: str, args: str, outs: str, binders: str = "c:f32[3]") -> str:
    return (
        f"    {outs} = compute_on[\n"
        "      compiler_options_json=None\n"
        "      compute_type=device_host\n"
        f"      jaxpr={{ lambda ; {binders}. let\n{body}"
        f"      out_memory_spaces={spaces}\n"
        f"    ] {args}\n"
    )


def test_compute_on2_stages_one_compute_on_equation_with_its_memory_spaces():
    # texts and values recorded from JAX 0.10.2 (jax.experimental.compute_on.compute_on2)
    from engine.experimental.compute_on import compute_on2

    space = jax.memory.Space
    g = compute_on2(lambda v: jnp.sin(v) * 2, compute_type="device_host", out_memory_spaces=space.Device)
    x = jnp.arange(3.0)
    body = "          d:f32[3] = sin c\n          e:f32[3] = mul d 2.0:f32[]\n        in (e,) }\n"
    assert str(jax.make_jaxpr(g)(x)) == (
        "{ lambda ; a:f32[3]. let\n"
        + _compute_on_text(body, "(MemorySpace.Device,)", "a", "b:f32[3]")
        + "  in (b,) }"
    )
    want = 2 * np.sin(np.arange(3.0, dtype=np.float32))
    for y in (g(x), jax.jit(g)(x), jax.vmap(g)(jnp.stack([x, x]))[1]):
        np.testing.assert_allclose(y, want, rtol=1e-6)
    assert g(x).sharding.memory_kind == "device"
    grad = jax.grad(lambda v: g(v).sum())
    assert str(jax.make_jaxpr(grad)(x)) == (
        "{ lambda ; a:f32[3]. let\n"
        + _compute_on_text(
            "          e:f32[3] = sin d\n          f:f32[3] = cos d\n          g:f32[3] = mul e 2.0:f32[]\n"
            "        in (g, f) }\n",
            "(MemorySpace.Device, MemorySpace.Device)",
            "a",
            "b:f32[3] c:f32[3]",
            "d:f32[3]",
        )
        + "    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
        "    h:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        + _compute_on_text(
            "          l:f32[3] = mul k 2.0:f32[]\n          m:f32[3] = mul l j\n        in (m,) }\n",
            "(MemorySpace.Device,)",
            "c h",
            "i:f32[3]",
            "j:f32[3] k:f32[3]",
        )
        + "  in (i,) }"
    )
    for dg in (grad(x), jax.jit(grad)(x), jax.grad(lambda v: jax.jit(g)(v).sum())(x)):
        np.testing.assert_allclose(dg, 2 * np.cos(np.arange(3.0, dtype=np.float32)), rtol=1e-6)


def test_compute_on2_puts_results_in_the_memory_spaces_it_names():
    from engine.experimental.compute_on import compute_on2
    from engine.sharding import SingleDeviceSharding

    space = jax.memory.Space
    h = compute_on2(
        lambda a, b: (a + b, a * b), compute_type="device_host", out_memory_spaces=(space.Host, space.Device)
    )
    x = jnp.arange(3.0)
    assert str(jax.make_jaxpr(h)(x, x)) == (
        "{ lambda ; a:f32[3] b:f32[3]. let\n"
        + _compute_on_text(
            "          g:f32[3] = add e f\n          h:f32[3] = mul e f\n        in (g, h) }\n",
            "(MemorySpace.Host, MemorySpace.Device)",
            "a b",
            "c:f32<host>[3] d:f32[3]",
            "e:f32[3] f:f32[3]",
        )
        + "  in (c, d) }"
    )
    host = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    for s, p in (h(x, x), jax.jit(h)(x, x)):
        assert s.sharding == host and str(jax.typeof(s)) == "float32<host>[3]"
        assert p.sharding.memory_kind == "device"
        np.testing.assert_array_equal(s, [0.0, 2.0, 4.0])
        np.testing.assert_array_equal(p, [0.0, 1.0, 4.0])


def test_compute_on2_refuses_what_jax_refuses():
    from engine.experimental.compute_on import compute_on2

    space = jax.memory.Space
    x = jnp.arange(3.0)
    with pytest.raises(TypeError, match="^`compute_on`'s compute_type argument must be a string.$"):
        compute_on2(lambda a: a, compute_type=3, out_memory_spaces=space.Device)
    with pytest.raises(ValueError, match="^Invalid compute type cpu. Current supported values"):
        compute_on2(lambda a: a, compute_type="cpu", out_memory_spaces=space.Device)
    with pytest.raises(ValueError, match="^compute_on out_memory_spaces specification must be a tree prefix"):
        compute_on2(lambda a: (a, a), compute_type="device_host", out_memory_spaces=(space.Device,))(x)
    inner = compute_on2(jnp.sin, compute_type="device_host", out_memory_spaces=space.Device)
    outer = compute_on2(lambda a: inner(a) + 1, compute_type="device_host", out_memory_spaces=space.Device)
    assert "compute_on[" in str(jax.make_jaxpr(outer)(x))  # (staging nests; running refuses)
    for run in (outer, jax.jit(outer)):
        with pytest.raises(
            ValueError, match="^Nesting `compute_on` with different compute types is not allowed.$"
        ):
            run(x)
    opts = compute_on2(
        lambda a: a + 1, compute_type="device", out_memory_spaces=space.Device, compiler_options={"a": 1}
    )
    assert 'compiler_options_json={"a": 1}\n      compute_type=device\n' in str(jax.make_jaxpr(opts)(x))


def test_typed_keys_put_onto_a_mesh_stay_keys():
    # (the engine keeps them host arrays, as a put onto one device does); values recorded from JAX 0.10.2
    mesh = Mesh(np.array(jax.devices()[:2]), ("x",))
    keys = jax.device_put(jax.random.split(jax.random.key(0), 4), NamedSharding(mesh, P("x")))
    np.testing.assert_allclose(jax.random.normal(keys[0], (2,)), [1.0040143, -0.9063372], rtol=1e-6)
    np.testing.assert_allclose(
        jax.jit(lambda k: jax.random.normal(k, (2,)))(keys[1]), [-2.4424558, -2.0356805], rtol=1e-6
    )
    one = jax.device_put(jax.random.key(0), NamedSharding(Mesh(np.array(jax.devices()[:1]), ("x",)), P()))
    np.testing.assert_allclose(jax.random.normal(one, (2,)), [1.6226422, 2.0252647], rtol=1e-6)
