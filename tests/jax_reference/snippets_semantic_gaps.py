"""Snippets for semantic gaps closed one by one (issue 13): weak types through loops' carries, the
error classes of shapes that do not broadcast, ``jax_threefry_partitionable=False``'s bits.
Registered in snippets.py."""

_WHILE = "cond = lambda c: c[0] < 3\n"

SEMANTIC_GAPS = [
    # Loops keep a weak init weak when the body keeps it weak, and make it strong when the body does.
    ("while_weak_carry", _WHILE + "out = lax.while_loop(cond, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))"),
    ("while_strong_body", "out = lax.while_loop(lambda c: c < 3, lambda c: c + jnp.int32(1), 0)"),
    (
        "while_mixed_carry",
        _WHILE + "out = lax.while_loop(cond, lambda c: (c[0] + 1, c[1] + jnp.ones(2)), (0, 0.0))",
    ),
    ("fori_weak_carry", "out = lax.fori_loop(0, 3, lambda i, c: c + 1.0, 0.0)"),
    ("fori_weak_index", "out = lax.fori_loop(0, 3, lambda i, c: c + i, 0)"),
    ("fori_array_bounds", "out = lax.fori_loop(jnp.int32(0), 3, lambda i, c: c + i, 0)"),
    ("scan_weak_carry", "out = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.))"),
    ("scan_weak_both", "out = lax.scan(lambda c, x: (c + 1, c * 2), 0, None, length=3)"),
    ("jit_while_weak", "out = jax.jit(lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0))()"),
    ("jit_fori_weak", "out = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)"),
    (
        "vmap_while_weak",
        "out = jax.vmap(lambda x: lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1, c[1] + 1), (0, 0)))"
        "(jnp.arange(3))",
    ),
    ("grad_fori_weak", "out = jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)"),
    (
        "grad_scan_weak",
        "out = jax.grad(lambda x: lax.scan(lambda c, _: (c * x, None), 1.0, None, length=3)[0])(2.0)",
    ),
    (
        "jvp_while_weak",
        _WHILE
        + "out = jax.jvp(lambda x: lax.while_loop(cond, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)), (2.0,), (1.0,))[0]",
    ),
    (
        "gmres_info_weak",
        "from jax.scipy.sparse.linalg import gmres\nA = jnp.array([[3., 1.], [1., 2.]])\n"
        "out = (gmres(lambda v: A @ v, jnp.array([1., 1.])), jax.jit(lambda b: gmres(lambda v: A @ v, b))(jnp.ones(2)))",
    ),
]
SEMANTIC_GAPS += [
    # (messages differ: JAX's jitted jnp functions report per-example shapes, and isclose's first op)
    ("err_vmap_add_shapes", "out = jax.vmap(jnp.add)(jnp.ones((2, 3)), jnp.ones((2, 4)))"),
    ("err_isclose_shapes", "out = jnp.isclose(jnp.ones(3), jnp.ones(4))"),
]

_O = "o3, o4 = jnp.ones(3), jnp.ones(4)\n"
# Shapes that do not broadcast: lax's TypeErrors (jnp passes equal ranks to lax), jnp's ValueErrors
# where ranks differ. test_jax_reference compares the classes and the messages' first lines.
BROADCAST_ERRORS = [
    ("jnp_add", _O + "out = jnp.add(o3, o4)"),
    ("operator_add", _O + "out = o3 + o4"),
    ("numpy_operand", _O + "out = o3 * np.ones(4, np.float32)"),
    ("jnp_multiply_2d", "out = jnp.multiply(jnp.ones((2, 3)), jnp.ones((3, 2)))"),
    ("jnp_maximum", _O + "out = jnp.maximum(o3, o4)"),
    ("jnp_less", _O + "out = jnp.less(o3, o4)"),
    ("jnp_logical_and", _O + "out = jnp.logical_and(o3 > 0, o4 > 0)"),
    ("jnp_power", _O + "out = jnp.power(o3, o4)"),
    ("jnp_arctan2", _O + "out = jnp.arctan2(o3, o4)"),
    ("jnp_clip", _O + "out = jnp.clip(o3, o4, 2.0)"),
    ("jnp_ranks", "out = jnp.add(jnp.ones((2, 3)), jnp.ones((4, 1, 2)))"),
    ("jnp_where", _O + "out = jnp.where(o3 > 0, o3, o4)"),
    ("jit_add", _O + "out = jax.jit(jnp.add)(o3, o4)"),
    ("grad_add", _O + "out = jax.grad(lambda a, b: jnp.sum(a + b))(o3, o4)"),
    ("lax_add", _O + "out = lax.add(o3, o4)"),
    ("lax_add_ranks", "out = lax.add(jnp.ones(3), jnp.ones((1, 3)))"),
    ("lax_mul_2d", "out = lax.mul(jnp.ones((2, 3)), jnp.ones((3, 2)))"),
    ("lax_max", _O + "out = lax.max(o3, o4)"),
    ("lax_lt", _O + "out = lax.lt(o3, o4)"),
    ("lax_pow", _O + "out = lax.pow(o3, o4)"),
    ("lax_atan2", _O + "out = lax.atan2(o3, o4)"),
    ("lax_add_jit", _O + "out = jax.jit(lax.add)(o3, o4)"),
    ("lax_clamp_min", _O + "out = lax.clamp(o3, o4, o3)"),
    ("lax_clamp_max", _O + "out = lax.clamp(0.0, o4, o3)"),
    ("lax_select", _O + "out = lax.select(o3 > 0, o3, o4)"),
    ("lax_select_n", _O + "out = lax.select_n(o3 > 0, o3, o4)"),
    ("lax_select_which", _O + "out = lax.select_n(o4 > 0, o3, o3)"),
    ("broadcast_to", "out = jnp.broadcast_to(jnp.ones((2, 3)), (4, 3))"),
    ("broadcast_to_rank", "out = jnp.broadcast_to(jnp.ones((2, 3)), (3,))"),
    ("broadcast_shapes", "out = jnp.broadcast_shapes((3,), (4,))"),
    ("broadcast_arrays", _O + "out = jnp.broadcast_arrays(o3, o4)"),
    # what does broadcast: size-1 axes of equal ranks in lax, scalars anywhere
    ("lax_add_size_one", "out = lax.add(jnp.ones((1, 3)), jnp.arange(6.).reshape(2, 3))"),
    ("lax_mul_scalar", "out = lax.mul(jnp.arange(3.), 2.0)"),
    ("lax_clamp_scalars", "out = lax.clamp(1.0, jnp.arange(4.), 2.0)"),
]

# sph_harm_y's (-1.0) ** |m| for negative orders: lax.pow with an integer exponent, as JAX stages it.
SEMANTIC_GAPS += [
    (
        "pow_int_exponent_jaxpr",
        "out = str(jax.make_jaxpr(lambda m: (-1.0) ** abs(m))(jnp.array([0, -1, 2])))",
    ),
    (
        "sph_harm_y_negative_orders",
        "from jax.scipy.special import sph_harm_y\n"
        "n, m = jnp.array([1, 2, 3, 3, 2]), jnp.array([-1, -2, -3, -2, -1])\n"
        "t, p = jnp.array([0.7, 1.1, 2.0, 2.5, 0.9]), jnp.array([1.2, -0.5, 2.0, 3.0, 0.4])\n"
        "out = (sph_harm_y(n, m, t, p), jax.jit(sph_harm_y, static_argnames='n_max')(n, m, t, p, n_max=3))",
        2e-6,
    ),
]

# jax_threefry_partitionable: both layouts of random bits and split keys (fold_in is the same in
# both), eagerly, under jit and vmap, raw and typed keys.
_DRAWS = (
    "def draws(k):\n"
    "    data = jax.random.key_data if jnp.issubdtype(k.dtype, jax.dtypes.prng_key) else (lambda x: x)\n"
    "    return (jax.random.bits(k, (5,)), jax.random.bits(k, (3,), jnp.uint8), jax.random.bits(k, (5,), jnp.uint16),\n"
    "            jax.random.uniform(k, (2, 3)), jax.random.normal(k, (5,)), data(jax.random.split(k, 3)),\n"
    "            data(jax.random.split(k, (2, 2))), data(jax.random.fold_in(k, 7)), jax.random.randint(k, (4,), 0, 100),\n"
    "            jax.random.permutation(k, 6), jax.random.bernoulli(k, 0.3, (5,)))\n"
)
for _part in (True, False):
    _with = f"with jax.threefry_partitionable({_part}):\n    "
    _tag = "partitionable" if _part else "original"
    SEMANTIC_GAPS += [
        (f"threefry_{_tag}_raw_key", _DRAWS + _with + "out = draws(jax.random.PRNGKey(42))"),
        (f"threefry_{_tag}_typed_key", _DRAWS + _with + "out = draws(jax.random.key(42))"),
        (f"threefry_{_tag}_jit", _DRAWS + _with + "out = jax.jit(draws)(jax.random.PRNGKey(7))"),
        (
            f"threefry_{_tag}_vmap",
            _with + "ks = jax.random.split(jax.random.key(3), 3)\n    "
            "out = (jax.vmap(lambda k: jax.random.normal(k, (2,)))(ks), "
            "jax.jit(jax.vmap(lambda k: jax.random.bits(k, (3,), jnp.uint8)))(ks), "
            "jax.random.key_data(jax.vmap(lambda k: jax.random.split(k, 2))(ks)))",
        ),
        (
            f"threefry_{_tag}_rbg_split",
            _with + "k = jax.random.key(3, impl='rbg')\n    "
            "out = (jax.random.key_data(jax.random.split(k, 2)), jax.random.key_data(jax.random.fold_in(k, 2)))",
        ),
        (
            f"threefry_{_tag}_after_jit",  # (a jit traced in one layout is traced again in the other)
            "f = jax.jit(lambda k: jax.random.uniform(k, (3,)))\na = f(jax.random.PRNGKey(1))\n"
            + _with
            + "b = f(jax.random.PRNGKey(1))\nout = (a, b, f(jax.random.PRNGKey(1)))",
        ),
    ]
SEMANTIC_GAPS += [
    (
        "threefry_config_update",
        "jax.config.update('jax_threefry_partitionable', False)\n"
        "try:\n    out = (jax.config.jax_threefry_partitionable, jax.random.uniform(jax.random.PRNGKey(0), (3,)))\n"
        "finally:\n    jax.config.update('jax_threefry_partitionable', True)",
    ),
]

# float32 lax.pow bit for bit (compared as int32 bit patterns): XLA's CPU pow is the C library's
# powf; these operands are ones where numpy's float32 power differs from it in the last bit.
_POW = (
    "x = jnp.array([9.127555847167969, 6.066357612609863, 0.027385002002120018, 6.471895217895508, "
    "0.41039955615997314, 1.2990700006484985, 1.1563751697540283, 0.8929575681686401, 87.04779815673828, "
    "631111.0625, 1.3705534911423456e-05, 0.7319986820220947], jnp.float32)\n"
    "y = jnp.array([-2.1572458744049072, 2.852825403213501, -0.6245039701461792, -0.8084249496459961, "
    "-32.86338806152344, -30.21141242980957, 37.00764465332031, -7.31865930557251, 2.6897220611572266, "
    "0.76378333568573, 2.3434998989105225, -0.8655598759651184], jnp.float32)\n"
    "bits = lambda v: lax.bitcast_convert_type(v, jnp.int32)\n"
)
SEMANTIC_GAPS += [
    ("pow_f32_bits", _POW + "out = (bits(lax.pow(x, y)), bits(x ** y), bits(jnp.power(x, y)))"),
    ("pow_f32_bits_jit", _POW + "f = jax.jit(lambda a, b: bits(lax.pow(a, b)))\nout = (f(x, y), f(x, y))"),
    (
        "pow_f32_int_exponent_bits",
        _POW + "out = bits(lax.pow(x, jnp.array([3, -2, 5, 7, 1, 0, -1, 2, 4, -3, 2, 9])))",
    ),
]

# What a debug callback gets: a Python number's primal under grad is weakly typed (grad puts it on the
# device as a weak array), under jvp strongly; a constant stays weak.
_CALLBACK = (
    "seen = []\n"
    "def f(x):\n"
    "    jax.debug.callback(lambda *a: seen.append(a), x, 2.0, x * 2)\n"
    "    return x * x\n"
)
SEMANTIC_GAPS += [
    ("callback_grad_python_primal", _CALLBACK + "jax.grad(f)(1.0)\nout = seen"),
    ("callback_grad_array_primal", _CALLBACK + "jax.grad(f)(jnp.float32(1.0))\nout = seen"),
    ("callback_value_and_grad_primal", _CALLBACK + "jax.value_and_grad(f)(3.0)\nout = seen"),
    ("callback_vjp_primal", _CALLBACK + "jax.vjp(f, 2.0)\nout = seen"),
    ("callback_jvp_primal", _CALLBACK + "jax.jvp(f, (1.0,), (1.0,))\nout = seen"),
    ("callback_vmap_grad_primal", _CALLBACK + "jax.vmap(jax.grad(f))(jnp.ones(2))\nout = seen"),
]

# Gumbel's mode='high' (two uniforms, samples up to ~32 in float32), through categorical too.
_LOGITS = "k = jax.random.key(0)\nlg = jnp.log(jnp.array([[.1, .2, .7], [.5, .25, .25]]))\n"
SEMANTIC_GAPS += [
    ("categorical_high", _LOGITS + "out = jax.random.categorical(k, lg, mode='high')"),
    ("categorical_high_shape", _LOGITS + "out = jax.random.categorical(k, lg, shape=(4, 2), mode='high')"),
    (
        "categorical_high_no_replace",
        _LOGITS + "out = jax.random.categorical(k, lg, shape=(2, 2), replace=False, mode='high')",
    ),
    (
        "categorical_high_jit",
        _LOGITS + "out = jax.jit(lambda k: jax.random.categorical(k, lg, mode='high'))(k)",
    ),
    ("categorical_bad_mode", _LOGITS + "out = jax.random.categorical(k, lg, mode='medium')"),
    ("gumbel_high", "out = jax.random.gumbel(jax.random.key(1), (6,), mode='high')"),
    ("gumbel_high_max", "out = jax.random.gumbel(jax.random.PRNGKey(3), (4000,), mode='high').max()"),
    (
        "gumbel_high_dynamic_range_flag",
        "jax.config.update('jax_high_dynamic_range_gumbel', True)\n"
        "try:\n"
        "    out = (jax.random.gumbel(jax.random.key(2), (4,)), jax.random.gumbel(jax.random.key(2), (4,), mode='low'))\n"
        "finally:\n"
        "    jax.config.update('jax_high_dynamic_range_gumbel', False)",
    ),
]

# log Gamma and Gamma of complex arguments: scipy's branch (cut on the negative real axis), NaN at the
# poles; lax.lgamma and gammaln take real arguments only.
_Z = (
    "z = jnp.array([1+1j, -2.5+0.5j, 0.5-3j, 10+0j, -3+0j, -2.5+0j, 0j, 1e-3+2j, -7.3-1.2j, -1e3+1j,"
    " 50-30j, 2+0j, 1+0j, 3.5-1e-4j, -0.5-0.5j, jnp.nan+1j], jnp.complex64)\n"
)
SEMANTIC_GAPS += [
    ("loggamma_complex", _Z + "out = jax.scipy.special.loggamma(z)"),
    ("loggamma_complex_jit", _Z + "out = jax.jit(jax.scipy.special.loggamma)(z)"),
    ("loggamma_complex_vmap", _Z + "out = jax.vmap(jax.scipy.special.loggamma)(z.reshape(4, 4))"),
    ("loggamma_complex_scalar", "out = jax.scipy.special.loggamma(1.5 + 2j)"),
    ("gamma_complex", _Z + "out = jax.scipy.special.gamma(z)"),
    ("lgamma_complex_refused", _Z + "out = lax.lgamma(z)"),
    ("gammaln_complex_refused", _Z + "out = jax.scipy.special.gammaln(z)"),
    (
        "loggamma_complex_grad_refused",
        "out = jax.grad(lambda z: jax.scipy.special.loggamma(z).real)(1.5 + 2j)",
    ),
]

# jnp.reshape hands a numpy array to its own reshape method, as JAX does (a numpy result; order='A'
# is numpy's); map_coordinates's cval is a static argument of JAX's jit, so an array is refused.
_NP = "a = np.arange(6).reshape(2, 3)\nf = np.asfortranarray(a)\n"
SEMANTIC_GAPS += [
    (
        "reshape_numpy_order_a",
        _NP + "out = [(type(r).__name__, r.tolist()) for r in (jnp.reshape(a, (3, 2), order='A'),"
        " jnp.reshape(f, (3, 2), order='A'), jnp.reshape(f, (3, 2), order='F'), jnp.reshape(a, -1))]",
    ),
    ("reshape_numpy_scalar", "r = jnp.reshape(np.float32(3), (1,), order='A')\nout = (type(r).__name__, r)"),
    ("reshape_array_order_a", _NP + "out = jnp.reshape(jnp.asarray(a), (3, 2), order='A')"),
    ("reshape_numpy_order_k", _NP + "out = jnp.reshape(a, (3, 2), order='K')"),
    ("reshape_list_refused", "out = jnp.reshape([1, 2, 3, 4], (2, 2), order='A')"),
    (
        "map_coordinates_array_cval",
        "out = jax.scipy.ndimage.map_coordinates(jnp.arange(5.), [jnp.array([-1., 2.5, 7.])], order=1, cval=jnp.array(9.))",
    ),
    (
        "map_coordinates_numpy_cval",
        "out = jax.scipy.ndimage.map_coordinates(jnp.arange(5.), [jnp.array([-1., 2.5, 7.])], order=1, cval=np.float32(9.))",
    ),
]
