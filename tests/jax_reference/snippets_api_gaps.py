"""Snippets for the API the docstring suite found missing (issue 13): ``jax.ds``,
``jax.fwd_and_bwd``, ``lax.composite``, ``linear_transpose`` of shape-only primals,
``wrap_key_data(dtype=)``, float8 sampling, ``jax.nn.scaled_dot_general`` configs,
``jax._src.tree_util``, ``poisson.entropy`` and ``cost_analysis()``. Registered in snippets.py;
jaxprs are compared as text."""

_FWD = (
    "x = W = jnp.arange(16.).reshape(4, 4) / 16\ncot = jnp.ones((4, 4))\n"
    "fwd, bwd = jax.fwd_and_bwd(lambda x, W: jnp.sin(x @ W), argnums=(0, 1))\n"
)
_TAN = (
    "from functools import partial\n"
    "tan = lax.composite(lambda x: lax.sin(x) / lax.cos(x), name='my.tangent')\n"
    "x = jnp.array([0.0, 0.5, 1.0])\n"
)
_ATTRS = (
    "f = lambda x: lax.composite(lambda x, *, axis, d, e, s, n, b, l: x + 1, name='k.v', version=3)"
    "(x, axis=0, d=np.arange(3, dtype=np.int32), e=2.5, s='s', n=None, b=True, l=(1, 2))\n"
)
_TRANSPOSE = "f = lambda x, y: 0.5 * x - 0.5 * y\n"

_DS = "x = jnp.arange(10.)\ny = jnp.arange(12.).reshape(3, 4)\n"
_JAXPR = "out = str(jax.make_jaxpr("

API_GAPS = [
    # jax.ds: a dynamic_slice at a traced start (stride 1), a gather for other strides; static
    # starts slice statically; out-of-bounds starts clamp as dynamic_slice does
    ("ds_traced_jaxpr", _DS + _JAXPR + "lambda x, i: x[jax.ds(i, 2)])(x, 3))"),
    ("ds_static_jaxpr", _DS + _JAXPR + "lambda x: x[jax.ds(3, 2)])(x))"),
    ("ds_stride_jaxpr", _DS + _JAXPR + "lambda x, i: x[jax.ds(i, 3, 2)])(x, 3))"),
    ("ds_with_int_jaxpr", _DS + _JAXPR + "lambda y, i: y[jax.ds(i, 2), 1])(y, 3))"),
    ("ds_with_array_jaxpr", _DS + _JAXPR + "lambda y, i: y[jax.ds(i, 2), jnp.array([0, 2])])(y, 3))"),
    ("ds_scatter_jaxpr", _DS + _JAXPR + "lambda x, i: x.at[jax.ds(i, 2)].set(1.))(x, 3))"),
    (
        "ds_values",
        _DS + "f = jax.jit(lambda x, i: x[jax.ds(i, 4)])\n"
        "out = (x[jax.ds(4, 2)], f(x, 8), f(x, -3), x[jax.ds(-3, 2)], x[jax.ds(jnp.int32(-3), 2)], "
        "x[jax.ds(1, 3, 2)], y[jax.ds(1, 2), jax.ds(2)], jax.jit(lambda y, i: y[:, jax.ds(i, 2, 2)])(y, 1))",
    ),
    (
        "ds_reprs_and_tree",
        "out = (repr(jax.ds(3, 2)), repr(jax.ds(None)), repr(jax.ds(5)), repr(jax.ds(1, 2, 3)), "
        "str(jax.tree_util.tree_structure(jax.ds(3, 2))), jax.tree_util.tree_leaves(jax.ds(3, 2)))",
    ),
    ("err_ds_negative_stride", "out = jax.ds(1, 2, -1)"),
    ("err_ds_traced_stride", "out = jax.ds(1, 2, jnp.int32(2))"),
    (
        "ds_transforms",
        _DS + "g = jax.grad(lambda x, i: (x[jax.ds(i, 3)] ** 2).sum())\n"
        "out = (g(x, 3), jax.jit(g)(x, 8), jax.vmap(lambda i: x[jax.ds(i, 3, 2)])(jnp.arange(3)), "
        "jax.vmap(lambda r, i: r[jax.ds(i, 2)])(y, jnp.array([0, 1, 2])), "
        "jax.jit(lambda x, i: x.at[jax.ds(i, 3, 2)].add(1.))(x, 3), "
        "jax.jvp(lambda x: x[jax.ds(jnp.int32(2), 2)], (x,), (x * 2,)))",
    ),
    # poisson.entropy: each regime (0, small, medium, large, negative), broadcasting over loc,
    # grad (the pmf sums), vmap and jit. The medium regime's float32 terms k log(mu) - gammaln(k + 1)
    # (hundreds) cancel: JAX's values and the engine's differ from the float64 sums by up to 1e-5
    # relative (at mu = 99: float64 3.7156524, JAX 3.7156436, the engine 3.715682). From mu ~ 88 on,
    # JAX's gradient is NaN: XLA flushes exp(-mu)'s subnormal pmf values to 0 in the small regime's
    # untaken branch, where entr's derivative is infinite; numpy keeps them subnormal, so the engine's
    # stays finite there. Gradients stop below that.
    (
        "poisson_entropy",
        "from jax.scipy.stats import poisson\n"
        "mu = jnp.array([0., 0.3, 1., 5., 9.9, 10., 37.5, 99., 100., 1e4, -1.])\n"
        "out = (poisson.entropy(mu), poisson.entropy(5.0), poisson.entropy(jnp.array([1, 10, 100])), "
        "poisson.entropy(jnp.array([[2.], [20.]]), jnp.zeros(3)), poisson.entropy(3, 2.))",
        2e-5,
    ),
    (
        "poisson_entropy_grad_vmap_jit",
        "from jax.scipy.stats import poisson\n"
        "mu = jnp.array([0.5, 4., 25., 300.])\n"
        "out = (jax.vmap(jax.grad(poisson.entropy))(mu[:3]), jax.jit(poisson.entropy)(mu), "
        "jax.vmap(poisson.entropy)(mu[:, None]))",
        2e-5,
    ),
    # fwd_and_bwd: the pullback is a pytree of residuals, so a jitted fwd returns it and a jitted
    # bwd takes it; after the first call neither traces again (no_tracing raises if one does)
    (
        "fwd_and_bwd_compiles_once",
        _FWD + "y, res = fwd(x, W)\nfirst = bwd(res, cot)\nxs = [x * i for i in range(3)]\n"
        "with jax.no_tracing():\n"
        "    for xi in xs:\n"
        "        y, res = fwd(xi, W)\n"
        "        cx, cW = bwd(res, cot)\n"
        "out = (first, y, cx, cW)",
    ),
    (
        "fwd_and_bwd_options",
        "f = lambda x, y: (x * jnp.sin(y), {'a': x})\n"
        "fwd, bwd = jax.fwd_and_bwd(f, argnums=1, has_aux=True)\ny, res, aux = fwd(2., 3.)\n"
        "fwd2, bwd2 = jax.fwd_and_bwd(lambda x, y: x * jnp.sin(y), argnums=(1, 0), jitted=False)\n"
        "y2, res2 = fwd2(2., 3.)\n"
        "out = (y, aux, bwd(res, 1.), y2, bwd2(res2, 1.), callable(res2))",
    ),
    (
        "vjp_is_a_pytree",
        "y, f_vjp = jax.jit(lambda x: jax.vjp(lambda x: jnp.sin(x) * x, x))(jnp.arange(3.))\n"
        "g = jax.jit(lambda f, c: f(c))\n"
        "out = (y, f_vjp(jnp.ones(3)), g(f_vjp, jnp.ones(3)), jax.vmap(lambda c: f_vjp(c))(jnp.eye(3)), "
        "len(jax.tree_util.tree_leaves(f_vjp)))",
    ),
    (
        "err_vjp_cotangent_tree",
        "y, f = jax.vjp(lambda x: (x * 2, x), jnp.arange(3.))\nout = f(jnp.ones(3))",
    ),
    ("err_vjp_cotangent_shape", "y, f = jax.vjp(lambda x: x * 2, jnp.arange(3.))\nout = f(1.0)"),
    ("err_vjp_cotangent_dtype", "y, f = jax.vjp(lambda x: x * 2, 3.)\nout = f(jnp.int32(1))"),
    # lax.composite: one equation holding the decomposition's jaxpr, evaluated eagerly and under
    # jit, printed and lowered (stablehlo.composite) as JAX does; no JVP, transpose or batching rule
    # in JAX 0.10.2 (the errors are JAX's), custom_jvp around it differentiates it
    ("composite_jaxpr", _TAN + _JAXPR + "tan)(x))"),
    (
        "composite_softmax_jaxpr",
        _TAN
        + "sm = partial(lax.composite, name='my.softmax')(lambda x, /, *, axis: jax.nn.softmax(x, axis))\n"
        + _JAXPR
        + "lambda x: sm(x, axis=0))(x))",
    ),
    (
        "composite_tree_outputs_jaxpr",
        _TAN + _JAXPR + "lambda x: lax.composite(lambda x, y: (x * 2, {'a': y + np.float32(1.)}), "
        "name='a.b', version=3)(x, x))(x))",
    ),
    ("composite_attributes_jaxpr", _TAN + _ATTRS + _JAXPR + "f)(x))"),
    (
        "composite_consts_and_nesting_jaxpr",
        _TAN
        + "w = jnp.arange(3.)\n"
        + _JAXPR
        + "lambda x: lax.composite(lambda x: lax.composite(lambda x: x * w, name='in.n')(x) * 2, "
        "name='out.n')(x))(x))",
    ),
    ("composite_lowering", _TAN + "out = jax.jit(tan).lower(x).as_text()"),
    ("composite_attributes_lowering", _TAN + _ATTRS + "out = jax.jit(f).lower(x).as_text()"),
    (
        "composite_values",
        _TAN + "g = lax.composite(lambda x, y: {'s': x + y, 'p': x * y}, name='a.sp')\n"
        "out = (tan(x), jax.jit(tan)(x), tan(2.0), g(x, 2), jax.jit(g)(x, x), "
        "lax.composite(lambda x: x * 2, name='c')(jnp.ones(2)), lax.composite(lambda x: x * 2, name='a.b')(1))",
    ),
    (
        "composite_inside_custom_jvp",
        _TAN + "f = jax.custom_jvp(tan)\nf.defjvp(lambda p, t: (tan(p[0]), t[0] / jnp.cos(p[0]) ** 2))\n"
        "out = (jax.grad(lambda x: f(x).sum())(x), jax.jit(jax.grad(lambda x: f(x).sum()))(x), "
        "jax.jvp(f, (x,), (x,)))",
    ),
    ("err_composite_grad", _TAN + "out = jax.grad(lambda x: tan(x).sum())(x)"),
    ("err_composite_jvp", _TAN + "out = jax.jvp(tan, (x,), (x,))"),
    ("err_composite_vmap", _TAN + "out = jax.vmap(tan)(x)"),
    ("err_composite_transpose", _TAN + "out = jax.linear_transpose(tan, x)(x)"),
    (
        "err_composite_traced_attribute",
        _TAN + "out = jax.jit(lambda x, z: lax.composite(lambda x, k: x * k, name='c.d')(x, k=z))(x, 1.)",
    ),
    (
        "err_composite_lowering_name",
        _TAN + "out = jax.jit(lax.composite(lambda x: x, name='c')).lower(x).as_text()",
    ),
    # float8 (and bfloat16) sampling: JAX's mantissa-bits construction, so the same values; float4
    # refused as JAX refuses it
    (
        "uniform_normal_narrow_floats",
        "k = jax.random.PRNGKey(0)\nout = tuple((jax.random.uniform(k, (6,), dtype=dt).astype(jnp.float32), "
        "jax.random.normal(jax.random.PRNGKey(1), (6,), dtype=dt).astype(jnp.float32), "
        "str(jax.random.uniform(k, (2,), dt).dtype)) "
        "for dt in [jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.bfloat16, jnp.float8_e4m3b11fnuz, jnp.float8_e8m0fnu])",
    ),
    (
        "normal_float8_big",
        "a = jax.random.normal(jax.random.PRNGKey(1), (3, 128, 64), dtype=jnp.float8_e4m3fn)\n"
        "f = jax.jit(lambda k: jax.random.uniform(k, (3,), jnp.float8_e5m2, -2., 2.))\n"
        "out = (a.astype(jnp.float32).sum(), a[0, 0, :8].astype(jnp.float32), f(jax.random.key(3)).astype(jnp.float32))",
    ),
    ("err_uniform_float4", "out = jax.random.uniform(jax.random.PRNGKey(0), (2,), dtype=jnp.float4_e2m1fn)"),
    # scaled_dot_general's configs; the scaled products themselves exist on GPUs only (JAX's CPU
    # raises NotImplementedError, after its shape checks)
    (
        "scaled_dot_general_configs",
        "c = jax.nn.get_scaled_dot_general_config\n"
        "out = (repr(c('mxfp8')), repr(c('nvfp4', jnp.array([0.5], jnp.float32))), repr(c('nvfp4')))",
    ),
    (
        "scaled_dot_general_without_configs",
        "lhs = jax.random.normal(jax.random.PRNGKey(1), (3, 8, 4))\nrhs = jax.random.normal(jax.random.PRNGKey(2), (3, 5, 4))\n"
        "dn = (((2,), (2,)), ((0,), (0,)))\n"
        "out = (jax.nn.scaled_dot_general(lhs, rhs, dn), jax.nn.scaled_dot_general(lhs.astype(jnp.bfloat16), "
        "rhs.astype(jnp.bfloat16), dn, preferred_element_type=jnp.bfloat16).astype(jnp.float32))",
    ),
    ("err_scaled_config_mode", "out = jax.nn.get_scaled_dot_general_config('x')"),
    (
        "err_scaled_dot_general_cpu",
        "x = jnp.ones((3, 128, 64))\nout = jax.nn.scaled_dot_general(x, x, (((2,), (2,)), ((0,), (0,))), "
        "configs=[jax.nn.get_scaled_dot_general_config('mxfp8')] * 3)",
    ),
    (
        "err_scaled_matmul_cpu",
        "x = jnp.ones((3, 128, 64))\nout = jax.nn.scaled_matmul(x, x, jnp.ones((3, 128, 2)), jnp.ones((3, 128, 2)))",
    ),
    (
        "err_scaled_matmul_batch",
        "x = jnp.ones((3, 128, 64))\nout = jax.nn.scaled_matmul(x, x[:2], jnp.ones((3, 128, 2)), jnp.ones((3, 128, 2)))",
    ),
    (
        "err_scaled_matmul_scales",
        "x = jnp.ones((3, 128, 64))\nout = jax.nn.scaled_matmul(x, x, jnp.ones((3, 12, 2)), jnp.ones((3, 128, 2)))",
    ),
    ("err_scaled_matmul_rank", "x = jnp.ones((3, 128, 64))\nout = jax.nn.scaled_matmul(x[0], x, x, x)"),
    # cost_analysis(): XLA's flop counts (two per multiply-add of a dot, one per element of a
    # one-operation elementwise op, transcendentals apart, reductions one per element beyond the
    # first of each output); bytes accessed where the HLO is the jaxpr's (dot chains)
    (
        "cost_analysis_dot_chains",
        "x, y, z = jnp.ones((200, 5)), jnp.ones((5, 100)), jnp.ones((100, 10))\n"
        "c = lambda f, *a: jax.jit(f).lower(*a).cost_analysis()\n"
        "l, r = c(lambda x, y, z: (x @ y) @ z, x, y, z), c(lambda x, y, z: x @ (y @ z), x, y, z)\n"
        "m = c(jnp.linalg.multi_dot, [x, y, z])\n"
        "k = jax.jit(lambda x, y: x @ y).lower(x, y).compile().cost_analysis()\n"
        "out = (l['flops'], l['bytes accessed'], r['flops'], r['bytes accessed'], m['flops'], k['flops'])",
    ),
    (
        "cost_analysis_flops",
        "c = lambda f, *a: jax.jit(f).lower(*a).cost_analysis()\nx = jnp.ones((10, 100))\n"
        "e = c(lambda a, b: jnp.einsum('bij,bjk->bik', a, b), jnp.ones((3, 4, 5)), jnp.ones((3, 5, 6)))\n"
        "i = c(lambda a, b: a @ b, jnp.ones((4, 5), jnp.int32), jnp.ones((5, 6), jnp.int32))\n"
        "s = c(lambda x: jnp.sin(x) * 2 + x.sum(), x)\n"
        "t = c(lambda x: jnp.exp(x) + jnp.tanh(x) ** 3 - jnp.sqrt(x) / x.max(axis=0), x)\n"
        "out = (e['flops'], i['flops'], s['flops'], s['transcendentals'], t['flops'], t['transcendentals'], "
        "'transcendentals' in e)",
    ),
    # linear_transpose: primals given by their shapes and dtypes only
    (
        "linear_transpose_shape_dtype_struct",
        _TRANSPOSE + "s = jax.ShapeDtypeStruct((), np.dtype(np.float32))\n"
        "out = jax.linear_transpose(f, s, s)(1.0)",
    ),
    (
        "linear_transpose_duck_typed",
        _TRANSPOSE + "import types\ns = types.SimpleNamespace(shape=(2,), dtype=np.float32)\n"
        "out = jax.linear_transpose(f, s, s)(np.ones(2, np.float32))",
    ),
    (
        "linear_transpose_weak_struct",
        "out = jax.linear_transpose(lambda x: 2 * x, jax.ShapeDtypeStruct((), np.float32, weak_type=True))(1.0)",
    ),
    ("err_linear_transpose_str", _TRANSPOSE + "out = jax.linear_transpose(f, 'a', 'b')"),
    # wrap_key_data(dtype=): a key's dtype names its implementation
    (
        "wrap_key_data_dtype",
        "key = jax.random.key(42)\nnew = jax.random.wrap_key_data(jax.random.key_data(key), dtype=key.dtype)\n"
        "r = jax.random.key(1, impl='rbg')\n"
        "r2 = jax.random.wrap_key_data(jax.random.key_data(r), dtype=r.dtype)\n"
        "out = (key == new, str(new.dtype), str(r2.dtype), jax.random.key_data(r2), "
        "jax.random.uniform(new, (2,)), str(jax.random.wrap_key_data(jnp.zeros(2, jnp.uint32), dtype='threefry2x32').dtype))",
    ),
    (
        "err_wrap_key_data_impl_and_dtype",
        "k = jax.random.key(0)\nout = jax.random.wrap_key_data(jax.random.key_data(k), impl='threefry2x32', dtype=k.dtype)",
    ),
    # jax._src.tree_util
    (
        "flatten_one_level",
        "from jax._src.tree_util import flatten_one_level\n"
        "a, b = flatten_one_level({'a': [1, 2], 'b': {'c': 3}})\nc, d = flatten_one_level((4, [5]))\n"
        "out = (list(a), list(b), list(c), str(d))",
    ),
    # jacfwd's aux: the function's own value, not a tracer of the jvp it ran under
    (
        "jacfwd_has_aux",
        "f = lambda v: (jnp.sin(v) * v[0], {'n': jnp.sum(v), 'c': 3})\n"
        "out = (jax.jacfwd(f, has_aux=True)(jnp.arange(2.)), jax.jit(jax.jacfwd(f, has_aux=True))(jnp.arange(2.)), "
        "jax.vmap(jax.jacfwd(f, has_aux=True))(jnp.ones((3, 2))))",
    ),
]
