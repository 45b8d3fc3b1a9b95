"""Snippets for the public API surface (issue 13): jax.flatten_util, jax.ops, lax.associative_scan,
custom_gradient, closure_convert, jax.nn and jax.tree_util additions. Registered in snippets.py."""

R = "r = np.random.RandomState(0)\n"
ATT = (
    R
    + "q = jnp.asarray(r.randn(2, 3, 4, 5), jnp.float32); k = jnp.asarray(r.randn(2, 6, 2, 5), jnp.float32)\n"
    "v = jnp.asarray(r.randn(2, 6, 2, 5), jnp.float32); b = jnp.asarray(r.randn(2, 4, 3, 6), jnp.float32)\n"
)

SURFACE = [
    # jax.flatten_util
    (
        "ravel_pytree",
        "from jax.flatten_util import ravel_pytree\n"
        "f, u = ravel_pytree({'a': jnp.ones(2), 'b': (3.0, jnp.zeros((1, 2)))})\nout = (f, u(f + 1))",
    ),
    (
        "ravel_pytree_mixed",
        "from jax.flatten_util import ravel_pytree\n"
        "f, u = ravel_pytree([jnp.arange(3), jnp.float32(0.5), True])\nout = (f, u(f * 2))",
    ),
    (
        "ravel_pytree_empty",
        "from jax.flatten_util import ravel_pytree\nf, u = ravel_pytree({})\nout = (f, u(f))",
    ),
    (
        "ravel_pytree_bad_dtype",
        "from jax.flatten_util import ravel_pytree\nf, u = ravel_pytree([jnp.arange(2), 1.0])\n"
        "out = u(jnp.arange(3))",
    ),
    (
        "ravel_pytree_grad",
        "from jax.flatten_util import ravel_pytree\np = {'w': jnp.ones((2, 2)), 'b': jnp.arange(2.)}\n"
        "f, u = ravel_pytree(p)\nout = jax.grad(lambda f: jnp.sum(u(f)['w'] @ u(f)['b'] ** 2))(f)",
    ),
    # jax.ops
    ("segment_sum", "from jax import ops\nout = ops.segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 1, 2]))"),
    (
        "segment_all_ops",
        "from jax import ops\nd = jnp.arange(6.); s = jnp.array([0, 0, 1, -1, 2, 7])\n"
        "out = [f(d, s, 4) for f in (ops.segment_sum, ops.segment_max, ops.segment_min, ops.segment_prod)]",
    ),
    (
        "segment_int_empty",
        "from jax import ops\nd = jnp.arange(6); s = jnp.array([0, 0, 2, 2, 2, 3])\n"
        "out = [f(d, s, 5) for f in (ops.segment_max, ops.segment_min, ops.segment_prod)]",
    ),
    (
        "segment_bucket",
        "from jax import ops\nd = jnp.arange(12.).reshape(6, 2); s = jnp.array([0, 1, 1, 0, 2, 2])\n"
        "out = (ops.segment_sum(d, s, 3, bucket_size=4), ops.segment_max(d, s, bucket_size=2))",
    ),
    (
        "segment_grad_vmap_jit",
        "from jax import ops\ns = jnp.array([0, 0, 1, 1, 2, 2])\nd = jnp.array([1., 3., 2., 2., -1., 5.])\n"
        "out = (jax.grad(lambda d: ops.segment_max(d, s, 3).sum())(d), "
        "jax.vmap(lambda d: ops.segment_sum(d, s, 3))(jnp.stack([d, 2 * d])), "
        "jax.jit(ops.segment_min, static_argnums=2)(d, s, 3))",
    ),
    (
        "segment_prod_grad_duplicates",
        "from jax import ops\nout = jax.grad(lambda d: ops.segment_prod(d, jnp.array([0, 0, 1]), 2).sum())(jnp.ones(3))",
    ),
    (
        "segment_jaxpr",
        "from jax import ops\nout = str(jax.make_jaxpr(lambda d, s: ops.segment_sum(d, s, 3))(jnp.ones(4), jnp.zeros(4, jnp.int32)))",
    ),
    (
        "segment_num_segments_traced",
        "from jax import ops\nout = jax.jit(ops.segment_sum)(jnp.ones(3), jnp.arange(3))",
    ),
    # lax.associative_scan
    (
        "associative_scan",
        "x = jnp.arange(1., 8.)\nout = (lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.add, x, reverse=True), "
        "lax.associative_scan(lambda a, b: (a[0] * b[0], a[1] + b[1]), (x, x)))",
    ),
    (
        "associative_scan_axis",
        "x = jnp.arange(12.).reshape(3, 4)[::-1]\nout = (lax.associative_scan(jnp.maximum, x, axis=1), "
        "lax.associative_scan(jnp.add, x, axis=-2), lax.associative_scan(jnp.logical_or, jnp.array([False, True, False])))",
    ),
    (
        "associative_scan_grad_jaxpr",
        "out = (jax.grad(lambda x: lax.associative_scan(jnp.multiply, x).sum())(jnp.arange(1., 5.)), "
        "str(jax.make_jaxpr(lambda x: lax.associative_scan(jnp.add, x))(jnp.arange(4.))))",
    ),
    (
        "associative_scan_bad_lengths",
        "out = lax.associative_scan(lambda a, b: a, (jnp.ones(3), jnp.ones(4)))",
    ),
    # custom_gradient and closure_convert
    (
        "custom_gradient",
        "@jax.custom_gradient\ndef f(x):\n    y = jnp.sin(x)\n    return y, lambda g: (g * y * 10,)\n"
        "out = (f(1.), jax.grad(f)(1.), jax.jit(jax.grad(f))(1.), jax.vmap(jax.grad(f))(jnp.arange(3.)), "
        "jax.grad(lambda x: f(x) * x)(2.), str(jax.make_jaxpr(jax.grad(f))(1.)))",
    ),
    (
        "custom_gradient_two_args",
        "@jax.custom_gradient\ndef h(x, y):\n    return x * y, lambda g: (g * y, g * x)\n"
        "out = (h(3., 4.), jax.grad(h, argnums=(0, 1))(3., 4.))",
    ),
    (
        "closure_convert",
        "def outer(c):\n    g, hoisted = jax.closure_convert(lambda x: x * c, 1.0)\n    return g(3.0, *hoisted), len(hoisted)\n"
        "c = jnp.float32(2.0)\ng, hoisted = jax.closure_convert(lambda x: x * c, 1.0)\n"
        "out = (g(3.0, *hoisted), len(hoisted), outer(2.0), jax.grad(lambda c: outer(c)[0])(2.0))",
    ),
    # jax.nn
    (
        "nn_smooth",
        "x = jnp.array([-2., -0.5, 0.3, 1.5])\nout = (jax.nn.squareplus(x), jax.nn.squareplus(x, 1.), "
        "jax.nn.sparse_plus(x), jax.nn.sparse_sigmoid(x), jax.grad(jax.nn.sparse_plus)(0.5))",
    ),
    (
        "nn_log1mexp",
        "out = (jax.nn.log1mexp(jnp.array([0.1, 0.5, 2., 10.])), jax.grad(jax.nn.log1mexp)(0.5), "
        "str(jax.make_jaxpr(jax.nn.log1mexp)(1.)))",
    ),
    (
        "nn_logmeanexp",
        "out = (jax.nn.logmeanexp(jnp.array([[0., 1.], [2., 3.]]), axis=1), "
        "jax.nn.logmeanexp(jnp.array([0., 1., 5.]), where=jnp.array([True, True, False])), "
        "jax.nn.logmeanexp(jnp.arange(6.).reshape(2, 3), axis=0, keepdims=True))",
    ),
    (
        "dot_product_attention",
        ATT + "out = jax.nn.dot_product_attention(q, k, v, b, is_causal=True, "
        "key_value_seq_lengths=jnp.array([4, 6], jnp.int32), local_window_size=(2, 1))",
    ),
    (
        "dot_product_attention_residual",
        ATT + "m = jnp.asarray(r.rand(1, 4, 3, 6) > .3)\nout = jax.nn.dot_product_attention(q, k, v, mask=m, "
        "query_seq_lengths=jnp.array([2, 3], jnp.int32), return_residual=True, scale=0.3)",
    ),
    (
        "dot_product_attention_grad_3d",
        ATT + "out = (jax.grad(lambda q: jax.nn.dot_product_attention(q, k, v).sum())(q), "
        "jax.nn.dot_product_attention(q[0], k[0], v[0], local_window_size=1))",
    ),
    ("dot_product_attention_bad_heads", ATT + "out = jax.nn.dot_product_attention(q[:, :, :3], k, v)"),
    # jax.tree_util / jax.tree
    (
        "tree_one_level",
        "import collections\nfrom jax import tree_util as tu\n"
        "out = ([tu.is_tree_node(t) for t in (tuple, list, dict, type(None), int, collections.OrderedDict)], "
        "[tu.flatten_one_level(t) for t in [(1, 2), [1, (2, 3)], {'b': 1, 'a': 2}, None]], "
        "[list(tu.flatten_one_level_with_keys(t)[0]) == p for t, p in "
        "[((1, 2), [(tu.SequenceKey(0), 1), (tu.SequenceKey(1), 2)]), ({'b': 1, 'a': 2}, [(tu.DictKey('a'), 2), (tu.DictKey('b'), 1)])]])",
    ),
    ("tree_one_level_leaf", "from jax import tree_util as tu\nout = tu.flatten_one_level(1)"),
    (
        "tree_reduce_associative",
        "from jax import tree_util as tu\nout = (tu.tree_reduce_associative(lambda a, b: a + b, [1, 2, 3, (4, 5)]), "
        "tu.tree_reduce_associative(lambda a, b: a + b, [], identity=0), "
        "str(jax.tree.reduce_associative(lambda a, b: (a, b), [1, 2, 3, 4, 5])), "
        "tu.tree_broadcast((1, 2), ((1, 2), [3, 4, 5])))",
    ),
    ("tree_reduce_associative_empty", "out = jax.tree.reduce_associative(lambda a, b: a + b, [])"),
    (
        "tree_static",
        "from dataclasses import dataclass\n@jax.tree_util.register_dataclass\n@dataclass\nclass Op:\n"
        "    x: jax.Array\n    op: str = jax.tree.static(default='add')\n"
        "leaves, td = jax.tree.flatten(Op(x=jnp.ones(2)))\nout = (leaves, td.unflatten([jnp.zeros(1)]).op)",
    ),
    # jax top level
    (
        "float0",
        "out = (str(jax.float0), jax.grad(lambda x, i: x * i, allow_int=True, argnums=1)(2., 3).dtype == jax.float0)",
    ),
    (
        "clear_caches",
        "state = {'n': 0}\ndef f(x):\n    state['n'] += 1\n    return x + state['n']\n"
        "g = jax.jit(f)\na = g(1.)\nb = g(1.)\njax.clear_caches()\nout = (a, b, g(1.), state['n'])",
    ),
    (
        "device_type",
        "out = (isinstance(jax.devices()[0], jax.Device), isinstance(jnp.ones(2), jax.typing.ArrayLike))",
    ),
    (
        "live_arrays",
        "x = jnp.arange(7.) * 3\nout = (any(a is x for a in jax.live_arrays()), 'numpy' in jax.print_environment_info(True))",
    ),
    (
        "dtypes_helpers",
        "import jax.dtypes as d\nout = (d.itemsize_bits(np.float32), d.itemsize_bits('int8'), d.itemsize_bits(bool), "
        "d.itemsize_bits(np.complex64), str(d.scalar_type_of(1.0)), str(d.scalar_type_of(jnp.ones(2, jnp.int8))), "
        "str(d.scalar_type_of(np.ones(2, bool))), str(d.scalar_type_of(1j)), d.float0 == jax.float0)",
    ),
]
