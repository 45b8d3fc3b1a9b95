"""Snippets for jnp API JAX 0.10.2 has (issue 13): ufunc objects (``jnp.add.reduce`` ...,
``jnp.frompyfunc``), weighted quantiles, ``delete`` with traced unique indices, DLPack and
``jnp.save``/``jnp.load``. Registered in snippets.py."""

_DEL = "x = jnp.arange(12.).reshape(3, 4)\ndel_u = lambda x, i, axis=None: jnp.delete(x, i, axis, assume_unique_indices=True)\n"

JNP_DELETE = [
    (
        "delete_unique_jit",
        _DEL
        + "f = jax.jit(del_u, static_argnums=2)\nout = (f(x, jnp.array([5, -1, 0])), f(x, jnp.array([3, 1]), 1), f(x, jnp.array([0]), 0), f(x, jnp.array([], jnp.int32), 1))",
    ),
    (
        "delete_unique_eager",
        _DEL + "out = (del_u(x, jnp.array([2, 0]), 1), del_u(x, 4), del_u(x, np.array([1, 3]), 1))",
    ),
    ("delete_unique_list", _DEL + "out = del_u(x, [1, 3], 1)"),
    (
        "delete_unique_out_of_range",  # clipped to the end: nothing deleted for n, the last entry for -1
        _DEL + "out = jax.jit(del_u)(jnp.arange(5), jnp.array([7, -1]))",
    ),
    (
        "delete_unique_jaxpr",
        _DEL + "out = str(jax.make_jaxpr(del_u, static_argnums=2)(x, jnp.array([2, -3]), 1))",
    ),
    (
        "delete_unique_grad",
        _DEL + "out = jax.grad(lambda x, i: (del_u(x, i, 1) ** 2).sum())(x, jnp.array([1, 2]))",
    ),
    (
        "delete_unique_vmap",
        _DEL + "out = jax.vmap(lambda i: del_u(jnp.arange(5.), i))(jnp.array([[0, 1], [4, 2], [3, 1]]))",
    ),
    ("delete_traced_not_unique", _DEL + "out = jax.jit(lambda x, i: jnp.delete(x, i))(x, jnp.array([1]))"),
    (
        "delete_unique_bool_mask_traced",
        _DEL + "out = jax.jit(del_u)(jnp.arange(3), jnp.array([True, False, True]))",
    ),
]

JNP_IO = [
    (
        "from_dlpack_numpy",
        "a = np.arange(6, dtype=np.float32).reshape(2, 3)\nout = (jnp.from_dlpack(a), jnp.from_dlpack(np.arange(3.0)), jnp.from_dlpack(np.array([True, False])))",
    ),
    (
        "from_dlpack_round_trip",
        "x = jnp.arange(4, dtype=jnp.int16)\ny = jnp.from_dlpack(x)\nout = (y, np.from_dlpack(x), np.from_dlpack(x).dtype.name, hasattr(x, '__dlpack__'), [int(v) for v in x.__dlpack_device__()])",
    ),
    ("from_dlpack_copy", "out = jnp.from_dlpack(np.arange(3, dtype=np.int32), copy=True)"),
    ("from_dlpack_refuses_list", "out = jnp.from_dlpack([1, 2])"),
    (
        "dlpack_is_supported",
        "import jax.dlpack\nout = [jax.dlpack.is_supported_dtype(d) for d in ('float32', 'bool', 'int64', 'complex64')]",
    ),
    (
        "save_load",
        "import io\nf = io.BytesIO()\njnp.save(f, jnp.arange(4.0))\nf.seek(0)\nout = jnp.load(f)",
    ),
    (
        "save_load_bfloat16",
        "import io\nf = io.BytesIO()\njnp.save(f, jnp.array([1.5, -2.0, 3.0], dtype='bfloat16'))\nf.seek(0)\ny = jnp.load(f)\nout = (y.dtype.name, y.astype('float32'))",
    ),
    (
        "savez_load",
        "import io\nf = io.BytesIO()\njnp.savez(f, a=jnp.arange(3), b=jnp.ones(2))\nf.seek(0)\nz = jnp.load(f)\nout = (sorted(z.files), type(z['a']).__name__, z['a'], z['b'])",
    ),
    ("save_is_numpy", "out = (jnp.save is np.save, jnp.savez is np.savez)"),
]
