"""Snippets for JAX's committed arrays on the engine's simulated devices: ``device_put`` with a
device commits, computations on committed arrays are committed to (and run on) their device, an
uncommitted operand follows a committed one, and committed arrays on different devices are
refused. Recorded on 8 CPU devices (record.py's EIGHT_DEVICE_TOPICS); registered in snippets.py.
The refusals are checked word for word: an eager jnp function's refusal names its operands as
JAX's jitted jnp wrapper names its parameters (``x of multiply``, ``x1 of _power``), with the
shapes as given; a lax operation's, ``args[0] of add``. ``keys_on_mesh_visualized`` needs the
package rich where it is recorded (JAX's visualize_array_sharding draws with it; `make jax-venv`
installs it)."""

_PUT = "d = jax.devices()\nx = jnp.arange(4.)\ny = jax.device_put(x, d[1])\nv = jax.device_put(x, d[2])\n"
_WHERE = "where = lambda a: (a.committed, sorted(dv.id for dv in a.devices()), repr(a.sharding))\n"
_REFUSED = "try:\n    {call}\n    out = 'no error'\nexcept ValueError as e:\n    out = str(e).split(' Got argument')[0]\n"

_MESH_KEYS = (
    "mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(2, 4), ('a', 'b'))\n"
    "P, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding\n"
    "s = jax.random.key(0)\nks = jax.random.split(s, 8)\n"
    "k, kr, kab = (jax.device_put(ks, NS(mesh, p)) for p in (P('a'), P(), P(('a', 'b'))))\n"
    "r = jax.device_put(jax.random.split(jax.random.PRNGKey(0), 8), NS(mesh, P('b')))\n"
    "kk = jax.device_put(ks.reshape(2, 4), NS(mesh, P(None, 'b')))\nk0 = jax.device_put(s, NS(mesh, P()))\n"
)

COMMITTED = [
    (
        "device_put_commits",
        _PUT + _WHERE + "out = [where(a) for a in (x, y, jax.device_put(x), jax.device_put(x, None), "
        "jax.device_put(x, d[0]), jax.device_put(y), jax.device_put(y, d[2]), "
        "jax.device_put(x, jax.sharding.SingleDeviceSharding(d[3])))]",
    ),
    (
        "results_follow_committed",
        _PUT + _WHERE + "out = [where(a) for a in (y + 1, y + x, x * y, jnp.sin(y), y.sum(), y[0], y[1:3], "
        "jnp.abs(y), jnp.zeros_like(y), y.copy(), jnp.array(y), jnp.asarray(y), "
        "np.ones(4, np.float32) + y, y + 1.0, jax.device_put(1.0, d[1]) + x, jnp.stack([x, y]))]",
    ),
    (
        "transformed_results_follow_committed",
        _PUT
        + _WHERE
        + "out = [where(a) for a in (jax.jit(lambda a, b: a * b)(y, x), jax.jit(lambda a: a + 1)(x), "
        "jax.grad(lambda a: (a ** 2).sum())(y), jax.vmap(jnp.sin)(y), "
        "jax.jit(lambda a: a, out_shardings=jax.sharding.SingleDeviceSharding(d[5]))(x))]",
    ),
    (
        "shards_of_committed",
        _PUT + "z = y + 1\np = jax.pmap(lambda a: a)(jnp.arange(8.))\n"
        "out = [(s.device.id, str(s.index), s.data.committed, sorted(dv.id for dv in s.data.devices())) "
        "for a in (x, y, z, jax.device_put(x), p) for s in a.addressable_shards]",
    ),
    ("pmap_results_committed", "out = jax.pmap(lambda a: a)(jnp.arange(8.)).committed"),
    ("err_mixed_devices_jit", _PUT + "out = jax.jit(lambda a, b: a + b)(y, v)"),
    ("err_mixed_devices_jit_def", _PUT + "def myf(a, b):\n    return a * b\nout = jax.jit(myf)(y, b=v)"),
    ("err_mixed_devices_jit_third", _PUT + "out = jax.jit(lambda a, b, c: a + b + c)(x, y, v)"),
    ("err_mixed_devices_lax_add", _PUT + "out = lax.add(y, v)"),
    ("err_mixed_devices_concatenate", _PUT + "out = lax.concatenate([y, v], 0)"),
    ("mixed_devices_device_0", _PUT + _REFUSED.format(call="jax.device_put(x, d[0]) + y")),
    ("mixed_devices_operators", _PUT + _REFUSED.format(call="y * v")),
    ("mixed_devices_jnp", _PUT + _REFUSED.format(call="jnp.dot(y, v)")),
    (
        "mixed_devices_named",
        _PUT
        + "w = jax.device_put(jnp.ones((2, 4)), d[2])\nout = []\n"
        + "for call in (lambda: y * v, lambda: v * y, lambda: y - v, lambda: 2.0 + y + v, lambda: y / v,\n"
        "             lambda: y ** v, lambda: y > v, lambda: jnp.maximum(y, v), lambda: jnp.arctan2(y, v),\n"
        "             lambda: jnp.where(y > 0, v, y), lambda: jnp.dot(y, v), lambda: y * w,\n"
        "             lambda: jnp.divide(y, v), lambda: jnp.floor_divide(y, v), lambda: (x + y) * v):\n"
        "    try:\n        call()\n        out.append('no error')\n"
        "    except ValueError as e:\n        out.append(str(e))\n",
    ),
    (  # typed and raw keys: put on a device, committed there, and so is what is computed from them
        "keys_commit",
        "d = jax.devices()\nk = jax.device_put(jax.random.key(0), d[3])\n"
        "r = jax.device_put(jax.random.PRNGKey(1), d[3])\nks = jax.device_put(jax.random.split(k, 4), d[2])\n"
        "where = lambda a: (type(a).__name__, a.committed, sorted(dv.id for dv in a.devices()), "
        "repr(a.sharding), repr(a.device))\n"
        "out = [where(a) for a in (k, r, ks, jax.random.split(k), jax.random.fold_in(k, 3), "
        "jax.random.key_data(k), jax.random.wrap_key_data(jax.random.key_data(k)), jax.random.uniform(k, (2,)), "
        "jax.random.normal(r, (2,)), jax.random.bits(k, (2,)), jax.jit(lambda a: jax.random.normal(a, (2,)))(k), "
        "jax.jit(jax.random.split)(k), jax.vmap(lambda a: jax.random.normal(a))(ks), ks[1], ks[1:3], "
        "list(ks)[0], ks[jnp.array(1)], ks.reshape(2, 2), jax.device_put(k), jax.device_put(k, d[1]), "
        "jax.device_put(r), jax.jit(lambda t: t)(k), jax.random.clone(k), jnp.where(True, k, jax.random.key(5)), "
        "jax.lax.scan(lambda c, _: (jax.random.split(c)[0], jax.random.normal(c)), k, None, length=3)[0], "
        "jax.random.normal(jax.device_put(jax.random.key(0, impl='rbg'), d[3])))]\n"
        "out.append(jax.random.normal(k, (3,)))\nout.append(jax.random.normal(r, (3,)))",
    ),
    (  # typed and raw keys laid out over a mesh: placed as JAX places them (the typed keys'
        # sharding is their data's less the words' dimension; .device is the data's)
        "keys_on_mesh",
        _MESH_KEYS + "where = lambda a: (type(a).__name__, a.committed, sorted(dv.id for dv in a.devices()), "
        "repr(a.sharding), repr(a.device), a.is_fully_replicated, repr(a), "
        "[(s.device.id, str(s.index), s.replica_id, s.data.shape) for s in a.addressable_shards])\n"
        "out = [where(a) for a in (k, kr, kab, r, kk, k0)]",
    ),
    (  # the devices drawn in each row (recorded with the package rich installed, as JAX needs it)
        "keys_on_mesh_visualized",
        _MESH_KEYS + "import contextlib, io, re\n"
        "def drawn(a):\n    f = io.StringIO()\n    with contextlib.redirect_stdout(f):\n"
        "        jax.debug.visualize_array_sharding(a)\n"
        "    return [re.findall('CPU [0-9,]+', row) for row in f.getvalue().splitlines() if 'CPU' in row]\n"
        "out = [drawn(a) for a in (k, kr, kab, r, kk)]",
    ),
    (  # unpickled keys are uncommitted, on the default device, whatever they were put on
        "keys_pickled",
        _MESH_KEYS + "import pickle\nd = jax.devices()\n"
        "again = lambda a: pickle.loads(pickle.dumps(a))\n"
        "where = lambda a: (type(a).__name__, a.committed, sorted(dv.id for dv in a.devices()), repr(a.sharding))\n"
        "put = [jax.device_put(s, d[3]), jax.device_put(jax.random.PRNGKey(1), d[3]), k, r, kk]\n"
        "out = [where(again(a)) for a in put] + [jax.random.key_data(again(put[0])), again(put[1])]",
    ),
    (
        "err_mixed_devices_key",
        "d = jax.devices()\nk = jax.device_put(jax.random.key(0), d[3])\n"
        "out = jax.jit(lambda a, b: jax.random.normal(a, (2,)) + b)(k, jax.device_put(jnp.ones(2), d[1]))",
    ),
    (
        "mixed_devices_key_eager",
        "d = jax.devices()\nk = jax.device_put(jax.random.key(0), d[3])\n"
        + _REFUSED.format(call="jax.random.normal(k, (2,)) + jax.device_put(jnp.ones(2), d[1])"),
    ),
    (
        "mixed_devices_pmap_result",
        _PUT
        + _REFUSED.format(
            call="jax.pmap(lambda a: a)(jnp.arange(8.)) + jax.device_put(jnp.arange(8.), d[1])"
        ),
    ),
    (  # blocks drawn in proportion to the shape (rich's table, as JAX calls it), wide ones squeezed
        "visualize_sharding_layouts",
        "import contextlib, io\nP, NS = jax.sharding.PartitionSpec, jax.sharding.NamedSharding\n"
        "m = jax.make_mesh((4, 2), ('x', 'y'))\n"
        "def drawn(shape, spec, **kw):\n    f = io.StringIO()\n    with contextlib.redirect_stdout(f):\n"
        "        jax.debug.visualize_sharding(shape, NS(m, spec), **kw)\n    return f.getvalue()\n"
        "out = [drawn((8,), P('x')), drawn((8, 1024), P('x', 'y')), drawn((16, 16), P('y', 'x')),"
        " drawn((3, 128), P(None, 'x')), drawn((256, 3), P()), drawn((8, 8), P('x'), scale=0.5, min_width=4),"
        " drawn((16, 40), P(('x', 'y')), max_width=30)]",
    ),
    (  # an all-reduce adds the devices' values one after another, in device order (not as a tree)
        "psum_adds_in_device_order",
        "v = np.float32([1e8, 1.5, -1e8, 1.25, 3.3, 1e-3, 7.1, 0.1])\n"
        "m = jax.make_mesh((8,), ('b',))\n"
        "x = jax.device_put(np.tile(v[:, None], (1, 3)), jax.sharding.NamedSharding(m, jax.sharding.PartitionSpec('b')))\n"
        "out = [jax.pmap(lambda a: jax.lax.psum(a, 'i'), axis_name='i')(v), jax.jit(jnp.sum)(x),"
        " jax.jit(lambda a: jnp.sum(a, axis=0))(x)]",
    ),
    (  # device_put checks the type's sharding (abstract mesh); jit's out_shardings the blocks
        "indivisible_put_and_jit",
        "s = jax.sharding.NamedSharding(jax.make_mesh((4, 2), ('x', 'y')), jax.sharding.PartitionSpec(('x', 'y')))\n"
        "def err(f):\n    try:\n        f()\n        return 'no error'\n"
        "    except ValueError as e:\n        return (type(e).__name__, str(e))\n"
        "out = [err(lambda: jax.device_put(jnp.ones(6), s)),"
        " err(lambda: jax.jit(lambda x: x, out_shardings=s)(jnp.ones(6)))]",
    ),
    (  # a shard shape that does not divide the dimension: JAX's IndivisibleError (a ValueError)
        "shard_shape_indivisible",
        "s = jax.sharding.NamedSharding(jax.make_mesh((4, 2), ('x', 'y')), jax.sharding.PartitionSpec(None, ('x', 'y')))\n"
        "try:\n    s.shard_shape((3, 12))\n    out = 'no error'\n"
        "except ValueError as e:\n    out = (type(e).__name__, str(e))",
    ),
]

# jax.Array's buffer-level methods and properties (engine/array_buffers.py), on one device, a
# mesh (split and replicated) and a pmap result; and their refusals on tracers and deleted arrays.
_ARRAYS = (
    "d = jax.devices()\nx = jnp.arange(6.).reshape(2, 3)\ny = jax.device_put(x, d[1])\n"
    "mesh = jax.make_mesh((4,), ('i',))\n"
    "m = jax.device_put(jnp.arange(8.), jax.sharding.NamedSharding(mesh, jax.P('i')))\n"
    "r = jax.device_put(jnp.arange(8.), jax.sharding.NamedSharding(mesh, jax.P()))\n"
    "p = jax.pmap(lambda a: a)(jnp.arange(8.))\n"
)
_ON_TRACER = "f = lambda a: a.{name}\nout = jax.jit(f)(jnp.ones(3))"
ARRAY_METHODS = [
    (
        "buffer_facts",
        _ARRAYS
        + "out = [(a.is_fully_addressable, a.is_fully_replicated, a.on_device_size_in_bytes(), a.itemsize, "
        "a.nbytes, a.copy_to_host_async(), a.committed, len(a.global_shards)) for a in (x, y, m, r, p)]",
    ),
    (
        "addressable_data",
        _ARRAYS + "out = [(a.addressable_data(i), sorted(dv.id for dv in a.addressable_data(i).devices())) "
        "for a in (x, y, m, r, p) for i in (0, 1, -1)]",
    ),
    (
        "addressable_data_any_index",
        "x = jnp.arange(3.)\nout = (x.addressable_data(5), x.addressable_data(-1))",
    ),
    ("err_addressable_data_out_of_range", _ARRAYS + "out = m.addressable_data(4)"),
    (
        "sizes_by_dtype",
        "out = [jnp.ones(3, t).on_device_size_in_bytes() for t in (jnp.bfloat16, bool, jnp.int4, jnp.int8, "
        "jnp.complex64)] + [jnp.float32(1).on_device_size_in_bytes(), jnp.ones((0, 3)).on_device_size_in_bytes()]",
    ),
    (
        "unsafe_buffer_pointer_one_device",
        _ARRAYS + "out = [type(a.unsafe_buffer_pointer()).__name__ for a in (x, y)]",
    ),
    ("err_unsafe_buffer_pointer_sharded", _ARRAYS + "out = m.unsafe_buffer_pointer()"),
    ("err_unsafe_buffer_pointer_replicated", _ARRAYS + "out = r.unsafe_buffer_pointer()"),
    ("err_unsafe_buffer_pointer_pmap", _ARRAYS + "out = p.unsafe_buffer_pointer()"),
    ("err_dlpack_sharded", _ARRAYS + "out = m.__dlpack__()"),
    ("err_dlpack_device_pmap", _ARRAYS + "out = p.__dlpack_device__()"),
    ("dlpack_one_device", _ARRAYS + "out = (np.from_dlpack(x), np.from_dlpack(y), y.__dlpack_device__()[1])"),
    ("pmap_result_sharding", _ARRAYS + "out = (repr(p.sharding), repr(p.device), repr(p.format.sharding))"),
    (
        "pmap_result_sharding_axes",
        "q = jax.pmap(lambda a: a, in_axes=1, out_axes=1)(jnp.arange(16.).reshape(2, 8))\n"
        "out = (repr(q.sharding), [str(s.index) for s in q.addressable_shards][:2])",
    ),
    ("to_device", _ARRAYS + "out = [sorted(dv.id for dv in a.to_device(d[2]).devices()) for a in (x, y)]"),
    ("platform", "out = jnp.ones(2).platform()"),
    ("err_device_buffer", "out = jnp.ones(2).device_buffer"),
    ("err_device_buffers", "out = jnp.ones(2).device_buffers"),
    ("err_cuda_array_interface", "out = jnp.ones(2).__cuda_array_interface__"),
    (
        "block_until_ready_pytrees",
        _ARRAYS + "out = jax.block_until_ready({'a': x, 'b': [y, 1.0, 'str', None], 'c': (m, p)})",
    ),
    ("block_until_ready_in_jit", "out = jax.jit(lambda a: jax.block_until_ready(a) * 2)(jnp.ones(3))"),
    (
        "deleted_sizes",
        "z = jnp.ones(3)\nz.delete()\ntry:\n    z.on_device_size_in_bytes()\nexcept Exception as e:\n"
        "    out = (type(e).__name__, str(e))",
    ),
    ("err_deleted_unsafe_buffer_pointer", "z = jnp.ones(3)\nz.delete()\nout = z.unsafe_buffer_pointer()"),
    ("err_deleted_addressable_data", "z = jnp.ones(3)\nz.delete()\nout = z.addressable_data(0)"),
    *(
        (f"err_tracer_{n.strip('_')}", _ON_TRACER.format(name=a))
        for n, a in (
            ("block_until_ready", "block_until_ready()"),
            ("copy_to_host_async", "copy_to_host_async()"),
            ("unsafe_buffer_pointer", "unsafe_buffer_pointer()"),
            ("on_device_size_in_bytes", "on_device_size_in_bytes()"),
            ("addressable_data", "addressable_data(0)"),
            ("addressable_shards", "addressable_shards"),
            ("global_shards", "global_shards"),
            ("devices", "devices()"),
            ("committed", "committed"),
            ("is_fully_addressable", "is_fully_addressable"),
            ("is_fully_replicated", "is_fully_replicated"),
            ("is_deleted", "is_deleted()"),
            ("delete", "delete()"),
            ("sharding", "sharding"),
            ("format", "format"),
            ("platform", "platform()"),
            ("device", "device"),
            ("__dlpack__", "__dlpack__()"),
            ("__dlpack_device__", "__dlpack_device__()"),
        )
    ),
    (
        "tracer_type_facts",
        "out = jax.jit(lambda a: (a.itemsize, a.nbytes, a.to_device(jax.devices()[0]) * 2))(jnp.ones(3))",
    ),
    (
        "err_grad_tracer_block_until_ready",
        "out = jax.grad(lambda a: a.block_until_ready().sum())(jnp.ones(3))",
    ),
    ("err_vmap_tracer_devices", "out = jax.vmap(lambda a: (a.devices(), a)[1])(jnp.ones(3))"),
]
