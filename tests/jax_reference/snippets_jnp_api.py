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

_X = "x = jnp.array([[1, 2, 3], [4, 5, 6]])\nf = jnp.array([[0.5, -1.0, 2.0], [3.0, 0.25, -4.0]])\n"
_J = "J = lambda fn, *a: str(jax.make_jaxpr(fn)(*a))\n"

JNP_UFUNC = [
    (
        "attributes",
        "names = 'add subtract multiply maximum minimum bitwise_and bitwise_or bitwise_xor logical_and logical_or logical_xor logaddexp logaddexp2 negative'.split()\n"
        "out = [(n, getattr(jnp, n).nin, getattr(jnp, n).nout, getattr(jnp, n).nargs, repr(getattr(jnp, n).identity), repr(getattr(jnp, n)), isinstance(getattr(jnp, n), jnp.ufunc)) for n in names]",
    ),
    (
        "which_are_ufuncs",
        "out = sorted(n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc))",
    ),
    (
        "hash_eq",
        "out = (jnp.add == jnp.add, jnp.add == jnp.multiply, hash(jnp.add) == hash(jnp.add), jnp.add.__name__)",
    ),
    ("call", _X + "out = (jnp.add(x, 1), jnp.maximum(f, 0.), jnp.negative(x), jnp.logical_xor(x, f))"),
    # (jnp.add(x, y, out=...) raises TypeError on the engine: its fast call takes no keywords)
    ("call_out", _X + "g = jnp.frompyfunc(lambda a, b: a - b, 2, 1)\nout = g(x, x, out=x)"),
    ("call_where", _X + "g = jnp.frompyfunc(lambda a, b: a - b, 2, 1)\nout = g(x, x, where=True)"),
    (
        "reduce",
        _X
        + "out = (jnp.add.reduce(x), jnp.add.reduce(x, axis=1), jnp.add.reduce(x, axis=None), jnp.multiply.reduce(f, axis=1, keepdims=True), jnp.add.reduce(x, dtype=jnp.float32), jnp.add.reduce(x, axis=(0, 1)))",
    ),
    (
        "reduce_extremes",
        _X
        + "out = (jnp.maximum.reduce(f), jnp.minimum.reduce(f, axis=1), jnp.maximum.reduce(x, axis=None, initial=9), jnp.minimum.reduce(x, axis=1, dtype=jnp.float32))",
    ),
    ("reduce_extreme_empty", "out = jnp.maximum.reduce(jnp.zeros((0, 2)))"),
    (
        "reduce_bitwise",
        _X
        + "out = (jnp.bitwise_or.reduce(x, axis=1), jnp.bitwise_and.reduce(x), jnp.bitwise_xor.reduce(x, axis=None), jnp.bitwise_and.reduce(x > 2), jnp.bitwise_or.reduce(x, initial=8), jnp.bitwise_and.reduce(x, where=x > 1, axis=1))",
    ),
    ("reduce_bitwise_float", _X + "out = jnp.bitwise_or.reduce(f)"),
    (
        "reduce_logical",
        _X
        + "out = (jnp.logical_and.reduce(x > 2), jnp.logical_or.reduce(f, axis=1), jnp.logical_xor.reduce(x, axis=None), jnp.logical_and.reduce(x, where=x < 5, axis=1, keepdims=True))",
    ),
    (
        "reduce_logaddexp",
        _X
        + "out = (jnp.logaddexp.reduce(f), jnp.logaddexp.reduce(f, axis=1, keepdims=True), jnp.logaddexp2.reduce(f, axis=None), jnp.logaddexp.reduce(x), jnp.logaddexp.reduce(f, initial=1.0, axis=1), jnp.logaddexp.reduce(jnp.array([-jnp.inf, -jnp.inf])))",
    ),
    (
        "reduce_subtract",
        _X
        + "out = (jnp.subtract.reduce(x), jnp.subtract.reduce(f, axis=1), jnp.subtract.reduce(x, axis=None, keepdims=True))",
    ),
    ("reduce_subtract_where_no_identity", _X + "out = jnp.subtract.reduce(x, where=x > 1)"),
    ("reduce_where_not_bool", _X + "out = jnp.add.reduce(x, where=x)"),
    (
        "reduce_where",
        _X
        + "out = (jnp.add.reduce(x, where=x > 2), jnp.subtract.reduce(f, axis=1, initial=1.0, where=f > 0))",
    ),
    ("reduce_array_axis", _X + "out = jnp.add.reduce(x[0], jnp.array([0, 2]))"),
    ("accumulate_array_axis", _X + "out = jnp.add.accumulate(x, jnp.array(0))"),
    ("reduce_negative", _X + "out = jnp.negative.reduce(x)"),
    ("reduce_out", _X + "out = jnp.add.reduce(x, out=1)"),
    (
        "reduce_empty_identity",
        "out = (jnp.add.reduce(jnp.zeros((0, 3))), jnp.multiply.reduce(jnp.zeros((2, 0), jnp.int32), axis=1), jnp.logaddexp.reduce(jnp.zeros(0)))",
    ),
    ("reduce_empty_no_identity", "out = jnp.subtract.reduce(jnp.zeros((0, 3)))"),
    (
        "accumulate",
        _X
        + "out = (jnp.add.accumulate(x), jnp.add.accumulate(x, axis=1), jnp.multiply.accumulate(f, axis=1), jnp.bitwise_or.accumulate(x, axis=1), jnp.subtract.accumulate(f), jnp.maximum.accumulate(f, axis=-1), jnp.add.accumulate(x, dtype=jnp.float32), jnp.logaddexp.accumulate(f, axis=1))",
    ),
    (
        "accumulate_empty",
        "out = (jnp.subtract.accumulate(jnp.zeros((0, 2))), jnp.add.accumulate(jnp.zeros((0,), jnp.int32)))",
    ),
    ("accumulate_axis_none", _X + "out = jnp.subtract.accumulate(x, axis=None)"),
    (
        "at",
        _X
        + "out = (jnp.add.at(x, (0, 1), 10, inplace=False), jnp.add.at(jnp.ones(5), jnp.array([0, 0, 3]), jnp.array([1., 2., 3.]), inplace=False), jnp.multiply.at(f, (1, jnp.array([0, 2, 0])), 2., inplace=False), jnp.subtract.at(x, 1, 1, inplace=False), jnp.add.at(x > 2, (0, 0), True, inplace=False))",
    ),
    (
        "at_generic",
        _X
        + "out = (jnp.maximum.at(x, (jnp.array([0, 0, 1]), jnp.array([1, 1, 2])), jnp.array([7, 9, -1]), inplace=False), jnp.minimum.at(f, 0, -2., inplace=False), jnp.logaddexp.at(f, (jnp.array([1, 1]),), 0., inplace=False), jnp.negative.at(x, jnp.array([0, 0, 1]), inplace=False), jnp.negative.at(x, (), inplace=False))",
    ),
    ("at_slice", _X + "out = jnp.multiply.at(f, (1, slice(None)), 2., inplace=False)"),
    ("at_inplace", _X + "out = jnp.add.at(x, 0, 1)"),
    ("at_list_index", _X + "out = jnp.add.at(x, [0, 1], 1, inplace=False)"),
    (
        "reduceat",
        _X
        + "y = jnp.arange(1, 9)\nout = (jnp.add.reduceat(y, jnp.array([0, 2, 5])), jnp.multiply.reduceat(y, jnp.array([0, 4, 1, 7])), jnp.maximum.reduceat(f, jnp.array([0, 2]), axis=1), jnp.add.reduceat(x, jnp.array([1, 1])), jnp.subtract.reduceat(y, jnp.array([3])))",
    ),
    ("reduceat_2d_indices", _X + "out = jnp.add.reduceat(x, jnp.array([[0]]))"),
    (
        "outer",
        _X
        + "out = (jnp.add.outer(x[0], x[1]), jnp.multiply.outer(f, jnp.arange(2.)), jnp.maximum.outer(3, x), jnp.logical_and.outer(x[0] > 1, x[1] > 5).shape, jnp.subtract.outer(f[0], 1.0))",
    ),
    ("outer_unary", _X + "out = jnp.negative.outer(x, x)"),
    (
        "frompyfunc",
        "import operator\nadd = jnp.frompyfunc(operator.add, nin=2, nout=1, identity=0)\nx = jnp.arange(4)\n"
        "out = (add(x, 10), add.outer(x, x), add.reduce(x), add.accumulate(x), add.at(x, 1, 10, inplace=False), add.reduceat(x, jnp.array([0, 2])), add.identity, repr(add), add.nin)",
    ),
    (
        "frompyfunc_custom",
        "g = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)\nx = jnp.array([[1., 2., 3.], [4., 5., 6.]])\n"
        "out = (g(x, 2.), g.reduce(x), g.reduce(x, axis=1, keepdims=True), g.accumulate(x, axis=1), g.at(x, (0, jnp.array([0, 0])), 3., inplace=False), g.outer(x[0], x[1]), g.reduce(x, axis=None, initial=1.), g.identity)",
    ),
    (
        "frompyfunc_unary",
        "h = jnp.frompyfunc(jnp.sin, 1, 1)\nout = (h(jnp.arange(3.)), h.nin, h.at(jnp.arange(3.), 1, inplace=False))",
    ),
    ("frompyfunc_unary_reduce", "h = jnp.frompyfunc(jnp.sin, 1, 1)\nout = h.reduce(jnp.arange(3.))"),
    (
        "frompyfunc_two_outputs",
        "h = jnp.frompyfunc(lambda a: (a, -a), 1, 2)\nout = (h(jnp.arange(3.)), h.nout)",
    ),
    (
        "frompyfunc_where_no_identity",
        "g = jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1)\nout = g.reduce(jnp.arange(3.), where=jnp.arange(3) > 0)",
    ),
    (
        "grads",
        _X
        + "out = (jax.grad(lambda f: jnp.logaddexp.reduce(f, axis=None))(f), jax.grad(lambda f: jnp.multiply.accumulate(f, axis=1).sum())(f), jax.grad(lambda f: jnp.maximum.reduce(f).sum())(f), jax.grad(lambda f: jnp.subtract.reduce(f, axis=1).sum())(f), jax.grad(lambda f: jnp.add.outer(f, f[0]).sum())(f), jax.grad(lambda f: jnp.multiply.at(f, (0, jnp.array([1, 1])), 3., inplace=False).sum())(f), jax.grad(lambda f: jnp.add.reduceat(f, jnp.array([0, 1]), axis=1).sum())(f))",
    ),
    (
        "jit_vmap",
        _X
        + "out = (jax.jit(jnp.add.reduce)(f), jax.jit(lambda f: jnp.subtract.accumulate(f))(f), jax.vmap(jnp.add.accumulate)(x), jax.vmap(lambda r: jnp.subtract.reduce(r))(f), jax.vmap(lambda r, i: jnp.add.at(r, i, 5., inplace=False))(f, jnp.array([0, 2])), jax.vmap(jnp.multiply.outer)(f, f), jax.jit(lambda x, i: jnp.add.reduceat(x, i, axis=1))(x, jnp.array([0, 2])))",
    ),
    (
        "jaxpr_reduce",
        _X
        + _J
        + "out = (J(jnp.add.reduce, f), J(lambda x: jnp.bitwise_or.reduce(x, axis=None), x), J(lambda f: jnp.maximum.reduce(f, axis=1, keepdims=True), f), J(jnp.logical_and.reduce, x))",
    ),
    ("jaxpr_logaddexp_reduce", _X + _J + "out = J(jnp.logaddexp.reduce, f)"),
    (
        "jaxpr_accumulate_at",
        _X
        + _J
        + "out = (J(jnp.add.accumulate, f), J(lambda x: jnp.add.at(x, 0, 100, inplace=False), x), J(lambda x: jnp.multiply.at(x, (0, 1), 3, inplace=False), x))",
    ),
    (
        "jaxpr_loops",
        _X
        + _J
        + "out = (J(jnp.subtract.accumulate, f), J(jnp.subtract.reduce, f), J(lambda x: jnp.add.reduceat(x, jnp.array([0, 2]), axis=1), x), J(lambda x: jnp.maximum.at(x, (jnp.array([0, 1]), 1), 7, inplace=False), x), J(jnp.add.outer, x[0], x[1]))",
    ),
    (
        "jaxpr_reduce_options",
        _X
        + _J
        + "out = (J(lambda x: jnp.bitwise_and.reduce(x, where=x > 1, axis=1, initial=3), x), J(lambda x: jnp.minimum.reduce(x, axis=1, dtype=jnp.float32), x), J(lambda f: jnp.logaddexp2.reduce(f, axis=1, initial=0.5), f), J(lambda x: jnp.add.at(x > 2, (0, 0), True, inplace=False), x))",
    ),
    (
        "jaxpr_call",
        _X
        + _J
        + "out = (J(jnp.add, x, x), J(jnp.negative, f), J(jnp.maximum, f, 0.), J(jnp.logical_or, x, f))",
    ),
]

_Q = (
    "x = jnp.array([[3., 1., 4., 1.], [5., 9., 2., 6.], [5., 3., 5., 8.]])\n"
    "w = jnp.array([[1., 2., 0.5, 1.], [0., 1., 3., 1.], [2., 2., 1., 1.]])\n"
    "qs = jnp.array([0., 0.1, 0.5, 0.75, 1.])\n"
    "J = lambda fn, *a: str(jax.make_jaxpr(fn)(*a))\n"
)

JNP_QUANTILE_WEIGHTS = [
    (
        "quantile",
        _Q
        + "out = (jnp.quantile(x, 0.5, weights=w, method='inverted_cdf'), jnp.quantile(x, qs, axis=1, weights=w, method='inverted_cdf'), jnp.quantile(x, qs, axis=0, weights=w[:, 0], method='inverted_cdf'), jnp.quantile(x, 0.3, axis=1, weights=w[0], method='inverted_cdf', keepdims=True), jnp.quantile(x, qs, axis=(0, 1), weights=w, method='inverted_cdf', keepdims=True))",
    ),
    (
        "quantile_unweighted_inverted_cdf",
        _Q
        + "out = (jnp.quantile(x, qs, method='inverted_cdf'), jnp.quantile(x, 0.4, axis=1, method='inverted_cdf'))",
    ),
    (
        "percentile",
        _Q
        + "out = (jnp.percentile(x, 50., weights=w, method='inverted_cdf'), jnp.percentile(x, jnp.array([10., 90.]), axis=1, weights=w, method='inverted_cdf'), jnp.percentile(x, 30, axis=0, weights=w[:, 1], method='inverted_cdf', keepdims=True))",
    ),
    (
        "nan_and_bad_weights",
        _Q
        + "xn = x.at[0, 1].set(jnp.nan)\nwn = w.at[1, 2].set(-1.)\nout = (jnp.quantile(xn, qs, axis=1, weights=w, method='inverted_cdf'), jnp.quantile(x, 0.5, axis=1, weights=wn, method='inverted_cdf'), jnp.nanquantile(xn, qs, axis=1, weights=w, method='inverted_cdf'), jnp.nanpercentile(xn, 50., axis=1, weights=wn, method='inverted_cdf', keepdims=True), jnp.nanquantile(jnp.full((2, 3), jnp.nan), 0.5, axis=1, weights=jnp.ones(3), method='inverted_cdf'), jnp.nanquantile(xn, qs, weights=w, method='inverted_cdf'))",
    ),
    (
        "int_data_weights",
        "out = jnp.quantile(jnp.array([1, 2, 3, 4, 5]), 0.5, weights=jnp.array([1, 1, 2, 1, 1]), method='inverted_cdf')",
    ),
    (
        "zero_weights",
        "out = jnp.quantile(jnp.arange(4.), jnp.array([0., 0.5]), weights=jnp.zeros(4), method='inverted_cdf')",
    ),
    ("err_method", _Q + "out = jnp.quantile(x, 0.5, weights=w, method='linear')"),
    ("err_complex", _Q + "out = jnp.quantile(x, 0.5, weights=w * 1j, method='inverted_cdf')"),
    ("err_shape_axis_none", _Q + "out = jnp.quantile(x, 0.5, weights=w[0], method='inverted_cdf')"),
    ("err_shape_axis", _Q + "out = jnp.quantile(x, 0.5, axis=1, weights=w[:, 0], method='inverted_cdf')"),
    ("err_list", _Q + "out = jnp.quantile(x, 0.5, weights=[1., 2., 3., 4.], axis=1, method='inverted_cdf')"),
    (
        "grad_jit_vmap",
        _Q
        + "f = lambda x, w: jnp.quantile(x, qs, axis=1, weights=w, method='inverted_cdf')\nout = (jax.grad(lambda x: f(x, w).sum())(x), jax.jit(f)(x, w), jax.vmap(lambda r, v: jnp.percentile(r, 60., weights=v, method='inverted_cdf'))(x, w), jax.grad(lambda w: f(x, w).sum())(w))",
    ),
    (
        "jaxprs",
        _Q
        + "out = (J(lambda x, w: jnp.quantile(x, 0.5, weights=w, method='inverted_cdf'), x, w), J(lambda x, w: jnp.nanquantile(x, qs, axis=1, weights=w, method='inverted_cdf', keepdims=True), x, w[0]), J(lambda x, w: jnp.percentile(x, 20., axis=(0, 1), weights=w, method='inverted_cdf'), x, w), J(lambda x: jnp.quantile(x, qs, axis=0, method='inverted_cdf'), x))",
    ),
]
