"""Snippets replayed under JAX 0.10.2 (record.py) and under the engine (test_jax_reference.py).

``SNIPPETS[topic]`` is a list of ``(name, code)`` or ``(name, code, rtol)``; the code sets ``out``.
"""

Z = "z = jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=jnp.complex64)\n"

COMPLEX = [
    ("real_scalar", "out = jnp.real(1 + 2j)"),
    ("imag_scalar", "out = jnp.imag(1 + 2j)"),
    ("conj_scalar", "out = jnp.conj(1 + 2j)"),
    ("real_array", Z + "out = (jnp.real(z), jnp.imag(z), jnp.conj(z), z.real, z.imag, z.conj())"),
    ("abs_angle", Z + "out = (jnp.abs(z), jnp.angle(z), jnp.angle(z, deg=True))"),
    ("real_of_real", "out = (jnp.real(jnp.arange(3.)), jnp.imag(jnp.arange(3.)), jnp.conj(jnp.arange(3)))"),
    ("arith", Z + "out = (z + z, z - 1, z * z, z / (1 + 1j), 2 * z, z ** 2, -z, z ** 0.5)"),
    ("exp_log", Z + "out = (jnp.exp(z), jnp.log(z), jnp.log1p(z), jnp.expm1(z), jnp.sqrt(z))"),
    ("trig", Z + "out = (jnp.sin(z), jnp.cos(z), jnp.tan(z), jnp.tanh(z), jnp.sinh(z), jnp.cosh(z))"),
    ("inverse_trig", Z + "out = (jnp.arcsin(z), jnp.arccos(z), jnp.arctan(z), jnp.arcsinh(z))"),
    ("sign", Z + "out = jnp.sign(z)"),
    ("matmul", Z + "m = jnp.outer(z, jnp.conj(z))\nout = (m @ z, jnp.dot(z, z), jnp.vdot(z, z))"),
    ("einsum", Z + "out = jnp.einsum('i,i->', z, z)"),
    ("reductions", Z + "out = (jnp.sum(z), jnp.mean(z), jnp.prod(z), jnp.cumsum(z))"),
    ("var_std_norm", Z + "out = (jnp.var(z), jnp.std(z), jnp.linalg.norm(z))"),
    ("max_min", Z + "out = (jnp.max(z), jnp.min(z), jnp.sort(z))"),
    ("isclose", Z + "out = (jnp.allclose(z, z), jnp.isclose(z, z + 1e-3j))"),
    ("round", Z + "out = jnp.round(z * 1.3)"),
    ("iscomplex", Z + "out = (jnp.iscomplex(z.real + 0j), jnp.isreal(z), jnp.iscomplexobj(z))"),
    ("linspace", "out = jnp.linspace(0, 1j, 3)"),
    ("astype_real", Z + "out = z.astype(jnp.float32)"),
    ("lax_complex", "out = lax.complex(jnp.float32(1), jnp.float32(2))"),
    ("lax_conj_real", "out = lax.conj(1.0)"),
    ("where", Z + "out = jnp.where(jnp.array([True, False, True]), z, 0)"),
    # Autodiff: JAX's convention (no conjugation in transposes).
    ("vjp_z_conj_z", "out = jax.vjp(lambda z: z * jnp.conj(z), 1 + 2j)[1](1.0 + 0j)"),
    ("grad_abs_sq", "out = jax.grad(lambda z: jnp.abs(z) ** 2)(3 + 4j)"),
    ("grad_abs", "out = jax.grad(jnp.abs)(1 + 2j)"),
    ("grad_real_part", "out = jax.grad(lambda z: jnp.real(z * jnp.conj(z)))(1 + 2j)"),
    ("grad_holomorphic", "out = jax.grad(lambda z: z * z, holomorphic=True)(1 + 2j)"),
    ("grad_holomorphic_sin", "out = jax.grad(jnp.sin, holomorphic=True)(1 + 2j)"),
    (
        "grad_holomorphic_exp_log",
        "out = jax.grad(lambda z: jnp.exp(z) * jnp.log(z), holomorphic=True)(0.5 + 1j)",
    ),
    ("grad_real_of_complex_path", "out = jax.grad(lambda x: jnp.abs(jnp.exp(1j * x) * x))(2.0)"),
    (
        "grad_real_imag",
        "out = jax.grad(lambda x: jnp.real(jnp.exp(1j * x)) + jnp.imag(jnp.exp(2j * x)))(0.3)",
    ),
    ("jvp_abs", "out = jax.jvp(jnp.abs, (1 + 2j,), (1j,))"),
    ("jacfwd_holo", "out = jax.jacfwd(lambda z: z * z, holomorphic=True)(jnp.array([1 + 2j, 3j]))"),
    ("jacrev_holo", "out = jax.jacrev(lambda z: z * z, holomorphic=True)(jnp.array([1 + 2j, 3j]))"),
    ("jacfwd_real_to_complex", "out = jax.jacfwd(lambda x: jnp.exp(1j * x))(jnp.array([1., 2.]))"),
    ("jacrev_abs", "out = jax.jacrev(jnp.abs)(1 + 2j)"),
    ("hessian_holo", "out = jax.hessian(lambda z: z ** 3, holomorphic=True)(1 + 1j)"),
    ("vmap_complex", Z + "out = jax.vmap(lambda z: jnp.abs(z) * jnp.conj(z))(z)"),
    ("jit_complex", Z + "out = jax.jit(lambda z: jnp.exp(z) * jnp.conj(z) + jnp.real(z))(z)"),
    ("jit_grad_complex", "out = jax.jit(jax.grad(lambda z: jnp.abs(jnp.sin(z)) ** 2))(1 + 2j)"),
    # What JAX refuses (an error here, never a wrong value).
    ("err_grad_complex_out", "out = jax.grad(lambda z: z * z)(1 + 2j)"),
    ("err_grad_holo_real_out", "out = jax.grad(lambda z: jnp.real(z * z), holomorphic=True)(1 + 2j)"),
    ("err_grad_holo_real_in", "out = jax.grad(lambda z: z * z, holomorphic=True)(1.)"),
    ("err_jacfwd_complex_in", "out = jax.jacfwd(lambda z: z * z)(1 + 2j)"),
    ("err_jacrev_complex_out", "out = jax.jacrev(lambda x: jnp.exp(1j * x))(jnp.array([1., 2.]))"),
    ("err_floor", "out = lax.floor(jnp.complex64(1 + 2j))"),
    ("err_lt", "out = lax.lt(jnp.complex64(1 + 2j), jnp.complex64(1j))"),
    ("err_rem", "out = lax.rem(jnp.complex64(1 + 2j), jnp.complex64(1j))"),
    ("err_erf", "out = lax.erf(jnp.complex64(1 + 2j))"),
    ("err_argmax", Z + "out = jnp.argmax(z)"),
    ("err_clip", Z + "out = jnp.clip(z, 0, 1)"),
    ("err_mod", Z + "out = z % z"),
    ("err_less", Z + "out = z < z"),
]

LAX_ERRORS = [
    ("add_int_float", "out = lax.add(1, 1.0)"),
    ("add_float_int_array", "out = lax.add(jnp.int32(1), 1.0)"),
    ("add_same_scalars", "out = (lax.add(1.0, 2.0), lax.add(1, 2))"),
    ("tree_map_mixed_keys", "out = jax.tree.map(lambda x: x, {1: 1.0, 'a': 2.0})"),
    ("tree_leaves_mixed_keys", "out = jax.tree.leaves({1: 1.0, 'a': 2.0})"),
    ("tree_map_int_keys", "out = jax.tree.map(lambda x: x * 2, {2: 1.0, 1: 2.0})"),
    # lax does not promote: a Python int is int32 and a Python float float32, whatever the array
    ("mul_float_array_int", "out = lax.mul(jnp.ones(3), 3)"),
    ("mul_int_float_array", "out = lax.mul(3, jnp.ones(3))"),
    ("mul_int8_array_int", "out = lax.mul(jnp.ones(3, jnp.int8), 3)"),
    ("mul_float16_array_float", "out = lax.mul(jnp.ones(3, jnp.float16), 3.0)"),
    ("mul_float_array_float", "out = lax.mul(jnp.ones(3), 3.0)"),
    ("mul_int_array_int", "out = lax.mul(jnp.ones(3, jnp.int32), 3)"),
    ("mul_numpy_float64", "out = lax.mul(np.ones(3), jnp.ones(3))"),
    ("mul_numpy_int32_scalar", "out = lax.mul(np.int32(2), jnp.ones(3))"),
    ("add_float32_float16", "out = lax.add(jnp.ones(3), jnp.ones(3, jnp.float16))"),
    ("sub_eager_scalars", "out = lax.sub(jnp.float32(1), jnp.int32(2))"),
    ("div_float_int", "out = lax.div(jnp.ones(3), 2)"),
    ("max_float_int", "out = lax.max(jnp.ones(3), 0)"),
    ("lt_float_int", "out = lax.lt(jnp.ones(3), 2)"),
    ("eq_int_uint", "out = lax.eq(jnp.ones(3, jnp.int32), np.uint32(2))"),
    ("shift_int_uint", "out = lax.shift_left(jnp.ones(3, jnp.int32), np.uint32(2))"),
    ("pow_int_exponent", "out = lax.pow(jnp.ones(3), 2)"),
    ("mul_under_jit", "out = jax.jit(lambda x: lax.mul(x, 3))(jnp.ones(3))"),
    # a traced dimension in a shape is a TypeError, not a ConcretizationTypeError
    ("ones_traced_shape", "out = jax.jit(lambda n: jnp.ones((n,)))(3)"),
    ("zeros_traced_scalar_shape", "out = jax.jit(lambda n: jnp.zeros(n))(3)"),
    ("full_traced_shape", "out = jax.jit(lambda n: jnp.full((2, n), 1.0))(3)"),
    ("random_traced_shape", "out = jax.jit(lambda n: jax.random.normal(jax.random.key(0), (n,)))(3)"),
    # (reshape prints a single traced size as JAX's one-element list; lax's shapes check too)
    (
        "reshape_traced_scalar",
        "out = jax.jit(lambda x: x.reshape(jnp.array(x.shape).prod()))(jnp.ones((2, 3)))",
    ),
    (
        "reshape_fn_traced_scalar",
        "out = jax.jit(lambda x: jnp.reshape(x, jnp.array(x.shape).prod()))(jnp.ones((2, 3)))",
    ),
    ("reshape_traced_in_tuple", "out = jax.jit(lambda x, n: x.reshape((n, 3)))(jnp.ones((2, 3)), 2)"),
    ("lax_reshape_traced", "out = jax.jit(lambda x, n: lax.reshape(x, (n, 3)))(jnp.ones((2, 3)), 2)"),
    ("lax_broadcast_traced", "out = jax.jit(lambda n: lax.broadcast_in_dim(1.0, (n,), ()))(3)"),
]

SNIPPETS = {"complex": COMPLEX, "lax_errors": LAX_ERRORS}

# Convolutions: lax.conv_general_dilated and its wrappers, jnp.convolve/correlate, their
# derivatives, batching, jit, shape helpers, errors and the jaxprs JAX prints for them.
_R = "r = np.random.RandomState(0)\n"
_X2 = (
    _R + "x = jnp.array(r.randn(2, 3, 6, 5), jnp.float32)\nw = jnp.array(r.randn(4, 3, 3, 2), jnp.float32)\n"
)
_XH = (
    _R + "x = jnp.array(r.randn(2, 7, 6, 3), jnp.float32)\nw = jnp.array(r.randn(3, 2, 3, 4), jnp.float32)\n"
)
_NHWC = "dimension_numbers=('NHWC', 'HWIO', 'NHWC')"
CONV = [
    ("conv_valid", _X2 + "out = lax.conv(x, w, (1, 1), 'VALID')"),
    ("conv_same_strided", _X2 + "out = lax.conv(x, w, (2, 1), 'SAME')"),
    ("conv_same_lower", _X2 + "out = lax.conv_general_dilated(x, w, (1, 2), 'SAME_LOWER')"),
    ("conv_explicit_pads", _X2 + "out = lax.conv_general_dilated(x, w, (1, 1), ((2, 0), (1, -1)))"),
    (
        "conv_dilations",
        _X2 + "out = lax.conv_general_dilated(x, w, (2, 1), ((1, 2), (0, 1)), lhs_dilation=(2, 1), "
        "rhs_dilation=(1, 2))",
    ),
    ("conv_nhwc", _XH + f"out = lax.conv_general_dilated(x, w, (1, 2), 'SAME', {_NHWC})"),
    (
        "conv_mixed_layouts",
        _R
        + "x = jnp.array(r.randn(5, 2, 4, 3), jnp.float32)\nw = jnp.array(r.randn(2, 3, 3, 4), jnp.float32)\n"
        "out = lax.conv_general_dilated(x, w, (1, 1), 'VALID', dimension_numbers=('WNHC', 'HWIO', 'CNWH'))",
    ),
    (
        "conv_general_padding",
        _X2 + "out = lax.conv_with_general_padding(x, w, (1, 2), [(1, 1), (2, 0)], (1, 2), (2, 1))",
    ),
    (
        "conv_1d_3d",
        _R + "x1 = jnp.array(r.randn(2, 1, 9), jnp.float32)\nw1 = jnp.array(r.randn(2, 1, 4), jnp.float32)\n"
        "x3 = jnp.array(r.randn(1, 2, 4, 3, 5), jnp.float32)\nw3 = jnp.array(r.randn(3, 2, 2, 2, 3), jnp.float32)\n"
        "out = (lax.conv(x1, w1, (2,), 'SAME'), lax.conv(x3, w3, (1, 1, 2), 'VALID'))",
    ),
    (
        "feature_groups",
        _R
        + "x = jnp.array(r.randn(2, 6, 5, 5), jnp.float32)\nw = jnp.array(r.randn(9, 2, 3, 3), jnp.float32)\n"
        "out = lax.conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=3)",
    ),
    (
        "batch_groups",
        _R
        + "x = jnp.array(r.randn(4, 3, 5, 5), jnp.float32)\nw = jnp.array(r.randn(6, 3, 2, 2), jnp.float32)\n"
        "out = lax.conv_general_dilated(x, w, (1, 1), 'VALID', batch_group_count=2)",
    ),
    (
        "int_and_preferred",
        "x = jnp.arange(2 * 1 * 5 * 4, dtype=jnp.int32).reshape(2, 1, 5, 4)\nw = jnp.ones((2, 1, 2, 2), jnp.int32)\n"
        "out = (lax.conv(x, w, (1, 1), 'VALID'), lax.conv(x.astype(jnp.float32), w.astype(jnp.float32), "
        "(1, 1), 'SAME', preferred_element_type=jnp.float32))",
    ),
    (
        "conv_transpose",
        _XH + "w = w[:, :, :, :2]\nout = (lax.conv_transpose(x, w, (2, 2), 'SAME'), "
        "lax.conv_transpose(x, w, (2, 1), 'VALID'), lax.conv_transpose(x, w, (1, 2), ((1, 1), (0, 2))), "
        "lax.conv_transpose(x, w.transpose(0, 1, 3, 2), (2, 2), 'SAME', transpose_kernel=True))",
    ),
    (
        "grad_lhs_rhs",
        _X2 + "f = lambda x, w: jnp.sum(jnp.sin(lax.conv_general_dilated(x, w, (2, 1), ((1, 2), (0, 1)), "
        "lhs_dilation=(1, 2), rhs_dilation=(2, 1))))\nout = jax.grad(f, argnums=(0, 1))(x, w)",
    ),
    (
        "grad_groups",
        _R
        + "x = jnp.array(r.randn(4, 6, 5, 5), jnp.float32)\nw = jnp.array(r.randn(6, 3, 3, 3), jnp.float32)\n"
        "f = lambda x, w, **kw: jnp.sum(lax.conv_general_dilated(x, w, (1, 1), 'SAME', **kw) ** 2)\n"
        "out = (jax.grad(f, (0, 1))(x, w, feature_group_count=2), "
        "jax.grad(f, (0, 1))(x, w[:, :3].repeat(2, 1)[:, :6], batch_group_count=2))",
        1e-4,
    ),
    (
        "jvp_nhwc",
        _XH + f"f = lambda x, w: lax.conv_general_dilated(x, w, (2, 1), 'SAME', {_NHWC})\n"
        "out = jax.jvp(f, (x, w), (jnp.ones_like(x), jnp.cos(w)))",
    ),
    (
        "vmap_conv",
        _R
        + "x = jnp.array(r.randn(3, 2, 2, 5, 5), jnp.float32)\nw = jnp.array(r.randn(3, 4, 2, 3, 3), jnp.float32)\n"
        "f = lambda x, w: lax.conv(x, w, (1, 1), 'SAME')\n"
        "out = (jax.vmap(f)(x, w), jax.vmap(f, (0, None))(x, w[0]), jax.vmap(f, (None, 0))(x[0], w), "
        "jax.vmap(f, (1, 4))(x.transpose(1, 0, 2, 3, 4), w.transpose(1, 2, 3, 4, 0)))",
    ),
    (
        "jit_grad_vmap",
        _X2
        + "f = jax.jit(jax.vmap(jax.grad(lambda w, x: jnp.sum(lax.conv(x[None], w, (1, 1), 'SAME') ** 2)), "
        "(None, 0)))\nout = f(w, x)",
        1e-4,
    ),
    (
        "jnp_convolve",
        "a = jnp.array([1., 2., 3., 2., 1.])\nv = jnp.array([4., 1., 2.])\n"
        "out = (jnp.convolve(a, v), jnp.convolve(a, v, 'same'), jnp.convolve(a, v, 'valid'), "
        "jnp.convolve(v, a, 'same'), jnp.convolve(v, a, 'valid'))",
    ),
    (
        "jnp_correlate",
        "a = jnp.array([1., 2., 3., 2., 1.])\nv = jnp.array([4., 5., 6., 0.5])\n"
        "out = (jnp.correlate(a, v), jnp.correlate(a, v, 'same'), jnp.correlate(a, v, 'full'), "
        "jnp.correlate(v, a, 'full'), jnp.correlate(v, a, 'same'))",
    ),
    (
        "jnp_convolve_dtypes",
        "out = (jnp.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1])), "
        "jnp.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1]), preferred_element_type=jnp.int32), "
        "jnp.correlate(jnp.array([3 + 1j, 2, 2 - 3j]), jnp.array([4, 2 - 5j, 1]), 'full'), "
        "jnp.convolve(jnp.array([3 + 1j, 2, 2 - 3j]), jnp.array([4, 2 - 5j, 1])))",
    ),
    (
        "grad_convolve",
        "out = jax.grad(lambda a, v: jnp.sum(jnp.convolve(a, v, 'same') ** 2), (0, 1))(jnp.arange(6.), "
        "jnp.array([0.5, -1., 2.]))",
    ),
    (
        "vmap_correlate",
        "out = jax.vmap(jnp.correlate, (0, None))(jnp.arange(12.).reshape(3, 4), jnp.array([1., -1.]))",
    ),
    (
        "shape_helpers",
        "out = (lax.conv_general_shape_tuple((2, 9, 8, 3), (3, 3, 3, 5), (2, 1), 'SAME', ('NHWC', 'HWIO', 'NHWC')), "
        "lax.conv_transpose_shape_tuple((2, 9, 8, 3), (3, 3, 3, 5), (2, 1), 'SAME', ('NHWC', 'HWIO', 'NHWC')), "
        "lax.conv_dimension_numbers((1, 8, 8, 3), (3, 3, 3, 16), ('NHWC', 'HWIO', 'NHWC')), "
        "lax.padtype_to_pads((5, 6), (3, 2), (2, 1), 'SAME'), lax.padtype_to_pads((5,), (4,), (1,), 'SAME_LOWER'))",
    ),
    # What JAX refuses.
    ("err_feature_mismatch", _X2 + "out = lax.conv(x, w[:, :2], (1, 1), 'SAME')"),
    ("err_dtype_mismatch", _X2 + "out = lax.conv(x, w.astype(jnp.float16), (1, 1), 'SAME')"),
    ("err_rank_mismatch", _X2 + "out = lax.conv(x, w[0], (1, 1), 'SAME')"),
    ("err_string_pad_lhs_dilation", _X2 + "out = lax.conv_general_dilated(x, w, (1, 1), 'SAME', (2, 1))"),
    ("err_bad_padding_name", _X2 + "out = lax.conv(x, w, (1, 1), 'FULL')"),
    (
        "err_groups_do_not_divide",
        _X2 + "out = lax.conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=2)",
    ),
    (
        "err_bad_spec",
        _XH
        + "out = lax.conv_general_dilated(x, w, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWOO', 'NHWC'))",
    ),
    ("err_convolve_2d", "out = jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))"),
    ("err_convolve_mode", "out = jnp.convolve(jnp.ones(3), jnp.ones(2), mode='middle')"),
    ("err_convolve_empty", "out = jnp.correlate(jnp.ones(3), jnp.ones(0))"),
    # The jaxprs JAX prints.
    ("jaxpr_conv", _X2 + "out = str(jax.make_jaxpr(lambda x, w: lax.conv(x, w, (1, 1), 'SAME'))(x, w))"),
    (
        "jaxpr_grad",
        _X2
        + "out = str(jax.make_jaxpr(jax.grad(lambda x, w: lax.conv(x, w, (2, 1), 'SAME').sum(), (0, 1)))(x, w))",
    ),
    (
        "jaxpr_vmap",
        _R + "x = jnp.ones((5, 2, 3, 8, 8))\nw = jnp.ones((5, 4, 3, 3, 3))\n"
        "f = lambda x, w: lax.conv(x, w, (1, 1), 'SAME')\n"
        "out = (str(jax.make_jaxpr(jax.vmap(f, (0, None)))(x, w[0])), "
        "str(jax.make_jaxpr(jax.vmap(f, (None, 0)))(x[0], w)))",
    ),
    (
        "jaxpr_nhwc",
        _XH
        + f"out = str(jax.make_jaxpr(lambda x, w: lax.conv_general_dilated(x, w, (1, 2), 'VALID', {_NHWC}))(x, w))",
    ),
    ("jaxpr_convolve", "out = str(jax.make_jaxpr(jnp.convolve)(jnp.ones(5), jnp.ones(3)))"),
    (
        "jaxpr_correlate",
        "out = str(jax.make_jaxpr(lambda a, v: jnp.correlate(a, v, 'full'))(jnp.ones(3), jnp.ones(5)))",
    ),
]
SNIPPETS["conv"] = CONV

# Typed PRNG keys (jax.random.key) next to raw uint32[2] keys (jax.random.PRNGKey).
_K = "k = jax.random.key(0)\nr = jax.random.PRNGKey(0)\nkd = jax.random.key_data\n"
PRNG_KEYS = [
    ("repr", _K + "out = (repr(k), str(k), repr(jax.random.split(k)), repr(jax.random.split(k)[1]))"),
    (
        "dtype",
        _K
        + "out = (str(k.dtype), k.dtype.name, k.shape, k.ndim, k.size, k.dtype == jax.random.key(5).dtype)",
    ),
    (
        "issubdtype",
        _K
        + "out = (jnp.issubdtype(k.dtype, jax.dtypes.prng_key), jnp.issubdtype(r.dtype, jax.dtypes.prng_key), "
        "jax.dtypes.issubdtype(k.dtype, jax.dtypes.extended), jnp.issubdtype(k.dtype, jnp.integer), "
        "repr(jax.dtypes.prng_key))",
    ),
    ("key_data", _K + "out = (kd(k), kd(jax.random.split(k, 3)), kd(r), kd(jax.random.key(jnp.int32(7))))"),
    ("wrap_key_data", "out = repr(jax.random.wrap_key_data(jnp.array([[0, 5], [1, 2]], jnp.uint32)))"),
    ("wrap_roundtrip", _K + "out = kd(jax.random.wrap_key_data(kd(jax.random.split(k, (2, 3)))))"),
    (
        "split_fold_in_styles",
        _K + "out = (kd(jax.random.split(k)), jax.random.split(r), kd(jax.random.fold_in(k, 7)), "
        "jax.random.fold_in(r, 7), repr(jax.random.fold_in(k, 7)), jax.random.split(k, 4).shape)",
    ),
    (
        "samplers_both_styles",
        _K
        + "out = [(f(k), f(r)) for f in (lambda k: jax.random.uniform(k, (3,)), lambda k: jax.random.normal(k, (2,)), "
        "lambda k: jax.random.randint(k, (4,), 0, 10), lambda k: jax.random.bits(k, (2,)), "
        "lambda k: jax.random.bernoulli(k, 0.3, (4,)), lambda k: jax.random.permutation(k, 5), "
        "lambda k: jax.random.choice(k, 5, (3,)), lambda k: jax.random.categorical(k, jnp.zeros(4)), "
        "lambda k: jax.random.gumbel(k, (2,)), lambda k: jax.random.exponential(k, (2,)), "
        "lambda k: jax.random.truncated_normal(k, -1., 1., (2,)))]",
    ),
    ("unpack_split", _K + "a, b = jax.random.split(k)\nout = (repr(a), kd(b), jax.random.uniform(b))"),
    (
        "jit",
        _K + "f = jax.jit(lambda k: (jax.random.split(k), jax.random.normal(k, (2,))))\n"
        "ks, x = f(k)\nout = (repr(ks), x, jax.jit(lambda k: jax.random.uniform(k))(r))",
    ),
    (
        "vmap",
        _K + "ks = jax.random.split(k, 3)\nout = (jax.vmap(lambda k: jax.random.normal(k))(ks), "
        "repr(jax.vmap(jax.random.fold_in, (None, 0))(k, jnp.arange(3))), "
        "kd(jax.vmap(lambda k: jax.random.split(k))(ks)), "
        "jax.vmap(lambda k: jax.random.uniform(k))(jax.random.split(r, 3)))",
    ),
    (
        "grad_and_loops",
        _K + "f = lambda x, k: jnp.sum(x * jax.random.normal(k, (3,)))\n"
        "g = jax.grad(f)(jnp.ones(3), k)\n"
        "def body(i, c):\n    k, s = c\n    k, sub = jax.random.split(k)\n    return k, s + jax.random.uniform(sub)\n"
        "kk, total = jax.lax.fori_loop(0, 3, body, (k, 0.))\nout = (g, repr(kk), total)",
    ),
    ("key_impl_clone", _K + "out = (str(jax.random.key_impl(k)), repr(jax.random.clone(k)))"),
    ("err_add", _K + "out = k + 1"),
    ("err_split_batch", _K + "out = jax.random.split(jax.random.split(k))"),
]
SNIPPETS["prng_keys"] = PRNG_KEYS
COMPLEX += [
    (
        "less_lexicographic",
        "a = jnp.array([1 + 2j, 1 + 1j, 0 + 5j])\nb = jnp.array([1 + 1j, 1 + 1j, 1 + 0j])\nout = (a < b, a <= b, a > b, a >= b)",
    ),
]

# Known differences, checked for everything but the weak type (test_jax_reference fails when a listed
# snippet's weak types match JAX's: then remove it).
WEAK_TYPE_DIFFERS: set = set()

_M = (
    "A = jnp.array([[2., 1., 0.5], [0.3, 3., 1.], [1., -1., 4.]])\n"
    "S = A @ A.T + jnp.eye(3)\n"
    "R = jnp.array([[1., 2.], [3., 4.], [5., 7.]])\n"
    "b = jnp.array([1., 2., 3.])\n"
)
LINALG = [
    ("cholesky", _M + "out = jnp.linalg.cholesky(S)", 1e-5),
    ("cholesky_upper", _M + "out = jnp.linalg.cholesky(S, upper=True)", 1e-5),
    ("solve_vec", _M + "out = jnp.linalg.solve(A, b)", 1e-5),
    ("solve_mat", _M + "out = jnp.linalg.solve(A, jnp.stack([b, 2 * b], 1))", 1e-5),
    ("inv", _M + "out = jnp.linalg.inv(A)", 1e-5),
    ("det", _M + "out = (jnp.linalg.det(A), jnp.linalg.det(S))", 1e-5),
    ("slogdet", _M + "out = tuple(jnp.linalg.slogdet(-A))", 1e-5),
    ("eigh_values", _M + "out = jnp.linalg.eigh(S).eigenvalues", 1e-5),
    ("eigh_vectors_abs", _M + "out = jnp.abs(jnp.linalg.eigh(S).eigenvectors)", 1e-4),
    ("eigvalsh", _M + "out = jnp.linalg.eigvalsh(S)", 1e-5),
    ("svd_values", _M + "out = jnp.linalg.svd(R, compute_uv=False)", 1e-5),
    (
        "svd_shapes",
        _M
        + "u, s, vh = jnp.linalg.svd(R)\nout = (u.shape, s.shape, vh.shape, jnp.abs(u[:, :2] @ jnp.diag(s) @ vh - R).max() < 1e-5)",
    ),
    ("svd_thin_shapes", _M + "u, s, vh = jnp.linalg.svd(R, full_matrices=False)\nout = (u.shape, vh.shape)"),
    ("qr_r_abs", _M + "out = jnp.abs(jnp.linalg.qr(R).R)", 1e-5),
    ("qr_shapes", _M + "q, r = jnp.linalg.qr(R, mode='complete')\nout = (q.shape, r.shape)"),
    ("pinv", _M + "out = jnp.linalg.pinv(R)", 1e-5),
    ("lstsq", _M + "x, resid, rank, s = jnp.linalg.lstsq(R, b)\nout = (x, resid, rank, s)", 1e-4),
    (
        "matrix_power",
        _M
        + "out = (jnp.linalg.matrix_power(A, 3), jnp.linalg.matrix_power(A, 0), jnp.linalg.matrix_power(A, -2))",
        1e-5,
    ),
    ("matrix_rank", _M + "out = (jnp.linalg.matrix_rank(A), jnp.linalg.matrix_rank(jnp.ones((3, 3))))"),
    (
        "norms",
        _M
        + "out = tuple(jnp.linalg.norm(A, o) for o in (None, 'fro', 'nuc', 1, -1, 2, -2, jnp.inf, -jnp.inf))",
        1e-5,
    ),
    (
        "vector_norms",
        _M + "out = tuple(jnp.linalg.norm(b, o) for o in (None, 0, 1, 2, 3, -1, jnp.inf, -jnp.inf))",
        1e-5,
    ),
    ("lax_cholesky", _M + "out = lax.linalg.cholesky(S)", 1e-5),
    (
        "lax_triangular_solve",
        _M
        + "L = jnp.linalg.cholesky(S)\nout = (lax.linalg.triangular_solve(L, b[:, None], left_side=True, lower=True), lax.linalg.triangular_solve(L, b[None], lower=True, transpose_a=True))",
        1e-5,
    ),
    ("lax_lu", _M + "lu, piv, perm = lax.linalg.lu(A)\nout = (lu, piv, perm)", 1e-5),
    # Derivatives and transformations.
    ("grad_logdet", _M + "out = jax.grad(lambda a: jnp.linalg.slogdet(a)[1])(S)", 1e-4),
    ("grad_det", _M + "out = jax.grad(jnp.linalg.det)(A)", 1e-4),
    (
        "grad_solve",
        _M + "out = jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2), argnums=(0, 1))(A, b)",
        1e-4,
    ),
    ("grad_inv", _M + "out = jax.grad(lambda a: jnp.sum(jnp.sin(jnp.linalg.inv(a))))(A)", 1e-4),
    ("grad_cholesky", _M + "out = jax.grad(lambda s: jnp.sum(jnp.linalg.cholesky(s) ** 2))(S)", 1e-4),
    (
        "grad_eigh",
        _M + "out = jax.grad(lambda s: jnp.linalg.eigh(s).eigenvalues @ jnp.arange(1., 4.))(S)",
        1e-4,
    ),
    ("grad_svd", _M + "out = jax.grad(lambda r: jnp.sum(jnp.linalg.svd(r, compute_uv=False) ** 3))(R)", 1e-4),
    ("grad_norm2", _M + "out = jax.grad(lambda a: jnp.linalg.norm(a, 2))(A)", 1e-4),
    ("grad_pinv", _M + "out = jax.grad(lambda r: jnp.sum(jnp.linalg.pinv(r)))(R)", 1e-4),
    ("grad_qr", _M + "out = jax.grad(lambda r: jnp.sum(jnp.abs(jnp.linalg.qr(r).R)))(R)", 1e-4),
    ("jacfwd_inv", _M + "out = jax.jacfwd(jnp.linalg.inv)(A)", 1e-4),
    ("hessian_logdet", _M + "out = jax.hessian(lambda a: jnp.linalg.slogdet(a)[1])(S)", 1e-4),
    ("vmap_solve", _M + "out = jax.vmap(jnp.linalg.solve, in_axes=(None, 0))(A, jnp.stack([b, -b]))", 1e-5),
    ("vmap_det", _M + "out = jax.vmap(jnp.linalg.det)(jnp.stack([A, S]))", 1e-5),
    (
        "jit_cholesky_solve",
        _M + "out = jax.jit(lambda s, b: jnp.linalg.solve(s, b) + jnp.linalg.cholesky(s)[:, 0])(S, b)",
        1e-5,
    ),
    ("err_nonsquare_inv", "out = jnp.linalg.inv(jnp.ones((2, 3)))"),
]
# Complex Hermitian matrices: cholesky and triangular_solve (conjugate_a) with their derivatives.
_H = (
    "H = jnp.array([[5., 2.+3j, 5j], [2.-3j, 7., 1.+7j], [-5j, 1.-7j, 12.]])\n"
    "dH = jnp.array([[1., 0.5j, 0.], [-0.5j, 2., 1.-1j], [0., 1.+1j, 0.5]])\n"
)
LINALG += [
    ("cholesky_complex", _H + "out = (jnp.linalg.cholesky(H), jnp.linalg.cholesky(H, upper=True))", 1e-5),
    (
        "cholesky_complex_holomorphic_grad",
        _H
        + "out = jax.grad(lambda X: jnp.sum((jnp.linalg.cholesky(X) - jnp.sin(jnp.linalg.cholesky(X))) ** 2), "
        "holomorphic=True)(H)",
        1e-4,
    ),
    ("cholesky_complex_jvp", _H + "out = jax.jvp(jnp.linalg.cholesky, (H,), (dH,))", 1e-4),
    (
        "cholesky_complex_vmap_jit",
        _H + "out = jax.jit(jax.vmap(jnp.linalg.cholesky))(jnp.stack([H, 2 * H]))",
        1e-5,
    ),
    (
        "triangular_solve_conjugate_a",
        _H + "L = jnp.linalg.cholesky(H)\n"
        "out = tuple(jax.lax.linalg.triangular_solve(L, dH, left_side=s, lower=True, transpose_a=t, conjugate_a=c) "
        "for s in (True, False) for t in (True, False) for c in (True, False))",
        1e-4,
    ),
    (
        "triangular_solve_complex_grad_b",
        _H + "L = jnp.linalg.cholesky(H)\nout = jax.grad(lambda b: jnp.sum(jax.lax.linalg.triangular_solve("
        "L, b, left_side=True, lower=True, transpose_a=True, conjugate_a=True) ** 2), holomorphic=True)(dH)",
        1e-4,
    ),
]
SNIPPETS["linalg"] = LINALG

_X = "x = jnp.array([0.3, 1.0, 2.5, 7.0])\nu = jnp.array([0.01, 0.2, 0.5, 0.97])\n"
SPECIAL = [
    (
        "logsumexp",
        _X
        + "out = (jsp.special.logsumexp(x), jsp.special.logsumexp(jnp.stack([x, -x]), axis=1), jsp.special.logsumexp(x, b=u))",
        1e-5,
    ),
    ("logsumexp_sign", _X + "out = jsp.special.logsumexp(x, b=-u, return_sign=True)", 1e-5),
    ("erf_family", _X + "out = (jsp.special.erf(x), jsp.special.erfc(x), jsp.special.erfinv(u))", 1e-5),
    ("erfc_tail", "out = jsp.special.erfc(jnp.array([-3., 4., 9.]))", 1e-5),
    ("gammaln", _X + "out = (jsp.special.gammaln(x), jsp.special.gammaln(jnp.array([-1.5, 0., 30.])))", 1e-5),
    (
        "digamma",
        _X + "out = (jsp.special.digamma(x), jsp.special.digamma(jnp.array([-1.5, 1e-3, 100.])))",
        1e-5,
    ),
    ("polygamma", _X + "out = (jsp.special.polygamma(1, x), jsp.special.polygamma(2, x))", 1e-5),
    ("zeta", _X + "out = jsp.special.zeta(x + 1.5, 2.0)", 1e-5),
    (
        "xlogy",
        "out = (jsp.special.xlogy(jnp.array([0., 1., 2.]), jnp.array([0., 2., 3.])), jsp.special.xlog1py(jnp.array([0., 1.]), jnp.array([-1., 2.])))",
        1e-6,
    ),
    ("expit_logit", _X + "out = (jsp.special.expit(x), jsp.special.logit(u))", 1e-5),
    ("ndtr", "out = jsp.special.ndtr(jnp.array([-30., -5., -0.5, 0., 0.3, 6.]))", 1e-5),
    ("ndtri", _X + "out = jsp.special.ndtri(jnp.array([1e-30, 0.01, 0.2, 0.5, 0.97, 1.0, 0.0]))", 1e-5),
    ("log_ndtr", "out = jsp.special.log_ndtr(jnp.array([-100., -30., -5., 0., 3., 10.]))", 1e-5),
    ("betaln_beta", _X + "out = (jsp.special.betaln(x, 2.0), jsp.special.beta(x, 2.0))", 1e-5),
    ("gamma_fn", "out = jsp.special.gamma(jnp.array([-1.5, 0.5, 4.0, 10.5]))", 1e-5),
    (
        "gammainc",
        _X
        + "out = (jsp.special.gammainc(2.0, x), jsp.special.gammaincc(2.0, x), jsp.special.gammainc(x, 1.5))",
        1e-5,
    ),
    (
        "betainc",
        "out = jsp.special.betainc(jnp.array([0.5, 2., 5.]), jnp.array([3., 2., 0.7]), jnp.array([0.2, 0.5, 0.9]))",
        1e-5,
    ),
    (
        "entropies",
        _X + "out = (jsp.special.entr(u), jsp.special.rel_entr(u, 1 - u), jsp.special.kl_div(u, 1 - u))",
        1e-5,
    ),
    ("multigammaln", _X + "out = jsp.special.multigammaln(x + 2, 3)", 1e-5),
    ("factorial", "out = jsp.special.factorial(jnp.array([0., 3., 5.]))", 1e-5),
    ("softmax", _X + "out = (jsp.special.softmax(x), jsp.special.log_softmax(x))", 1e-5),
    (
        "grad_gammaln_digamma",
        _X + "out = (jax.vmap(jax.grad(jsp.special.gammaln))(x), jax.vmap(jax.grad(jsp.special.digamma))(x))",
        1e-4,
    ),
    ("grad_logsumexp", _X + "out = jax.grad(jsp.special.logsumexp)(x)", 1e-5),
    ("grad_xlogy", "out = jax.grad(lambda y: jsp.special.xlogy(2.0, y))(3.0)", 1e-6),
    (
        "grad_ndtri_log_ndtr",
        _X
        + "out = (jax.vmap(jax.grad(jsp.special.ndtri))(u), jax.vmap(jax.grad(jsp.special.log_ndtr))(x - 4))",
        1e-4,
    ),
    (
        "grad_gammainc_x",
        _X + "out = jax.vmap(jax.grad(jsp.special.gammainc, argnums=1), in_axes=(None, 0))(2.0, x)",
        1e-4,
    ),
    (
        "grad_gammainc_a",
        _X + "out = jax.vmap(jax.grad(jsp.special.gammainc, argnums=0), in_axes=(0, None))(x, 1.5)",
        1e-3,
    ),
    ("grad_betainc_x", "out = jax.grad(jsp.special.betainc, argnums=2)(2., 3., 0.4)", 1e-4),
    (
        "jit_special",
        _X
        + "out = jax.jit(lambda x: jsp.special.gammaln(x) + jsp.special.digamma(x) + jsp.special.erfc(x))(x)",
        1e-5,
    ),
]

STATS = [
    (
        "norm",
        _X
        + "st = jsp.stats.norm\nout = (st.logpdf(x, 1., 2.), st.pdf(x), st.cdf(x, 1.), st.logcdf(-x), st.sf(x), st.logsf(x), st.ppf(u, 1., 2.), st.isf(u))",
        1e-5,
    ),
    (
        "mvn",
        _X
        + "cov = jnp.array([[2., .3], [.3, 1.]])\nxs = jnp.stack([x[:2], x[2:]])\nst = jsp.stats.multivariate_normal\nout = (st.logpdf(xs, jnp.zeros(2), cov), st.pdf(x[:2], jnp.ones(2), cov), st.logpdf(1.0, 0.5, 2.0))",
        1e-5,
    ),
    (
        "bernoulli",
        "st = jsp.stats.bernoulli\nk = jnp.array([0., 1., 2.])\nout = (st.logpmf(k, 0.3), st.pmf(k, 0.3), st.cdf(jnp.array([-1., 0.5, 1.]), 0.3), st.ppf(jnp.array([0.5, 0.8]), 0.3))",
        1e-5,
    ),
    (
        "binom",
        "st = jsp.stats.binom\nk = jnp.array([0., 2., 5., 7.])\nout = (st.logpmf(k, 5., 0.3), st.pmf(k, 5., 0.3))",
        1e-5,
    ),
    (
        "poisson",
        "st = jsp.stats.poisson\nk = jnp.array([0., 2., 5., 1.5, -1.])\nout = (st.logpmf(k, 3.), st.pmf(k, 3.), st.cdf(k, 3.))",
        1e-5,
    ),
    (
        "gamma",
        _X
        + "st = jsp.stats.gamma\nout = (st.logpdf(x, 2., scale=1.5), st.pdf(x, 2.), st.cdf(x, 2.), st.sf(x, 2.), st.logcdf(x, 3.), st.logsf(x, 3.))",
        1e-5,
    ),
    (
        "beta",
        "st = jsp.stats.beta\nx = jnp.array([0.1, 0.5, 0.9, 1.2])\nout = (st.logpdf(x, 2., 3.), st.pdf(x, 2., 3.), st.cdf(x, 2., 3.), st.sf(x, 2., 3.), st.logcdf(x, 2., 3.))",
        1e-5,
    ),
    ("t", _X + "st = jsp.stats.t\nout = (st.logpdf(x, 3.), st.pdf(x, 5., 1., 2.))", 1e-5),
    (
        "logistic",
        _X
        + "st = jsp.stats.logistic\nout = (st.logpdf(x), st.pdf(x, 1.), st.cdf(x), st.sf(x), st.ppf(u), st.isf(u))",
        1e-5,
    ),
    (
        "uniform",
        _X
        + "st = jsp.stats.uniform\nout = (st.logpdf(x, 0., 3.), st.pdf(x, 1., 2.), st.cdf(x, 0., 3.), st.ppf(u, 1., 2.))",
        1e-5,
    ),
    (
        "cauchy",
        _X
        + "st = jsp.stats.cauchy\nout = (st.logpdf(x), st.pdf(x, 1.), st.cdf(x), st.logcdf(x), st.sf(x), st.logsf(x), st.ppf(u), st.isf(u))",
        1e-5,
    ),
    ("laplace", _X + "st = jsp.stats.laplace\nout = (st.logpdf(x, 1.), st.pdf(x), st.cdf(x - 2))", 1e-5),
    (
        "dirichlet",
        "st = jsp.stats.dirichlet\nx = jnp.array([[0.2, 0.3], [0.3, 0.3], [0.5, 0.4]])\nout = (st.logpdf(x, jnp.array([1., 2., 3.])), st.pdf(x[:2], jnp.array([1., 2., 3.])), st.logpdf(jnp.array([0.5, 0.6, -0.1]), jnp.array([1., 2., 3.])))",
        1e-5,
    ),
    (
        "expon_chi2",
        _X
        + "out = (jsp.stats.expon.logpdf(x), jsp.stats.expon.cdf(x), jsp.stats.chi2.logpdf(x, 3.), jsp.stats.chi2.cdf(x, 3.))",
        1e-5,
    ),
    (
        "grad_norm_logpdf",
        _X + "out = jax.grad(lambda m, s: jnp.sum(jsp.stats.norm.logpdf(x, m, s)), argnums=(0, 1))(0.5, 2.0)",
        1e-5,
    ),
    (
        "vmap_mvn",
        _X
        + "cov = jnp.array([[2., .3], [.3, 1.]])\nout = jax.vmap(lambda m: jsp.stats.multivariate_normal.logpdf(x[:2], m, cov))(jnp.stack([jnp.zeros(2), jnp.ones(2)]))",
        1e-5,
    ),
    (
        "grad_mvn_cov",
        _X
        + "cov = jnp.array([[2., .3], [.3, 1.]])\nout = jax.grad(lambda c: jsp.stats.multivariate_normal.logpdf(x[:2], jnp.zeros(2), c))(cov)",
        1e-4,
    ),
]

SCIPY_LINALG = [
    ("cholesky", _M + "out = (jsp.linalg.cholesky(S), jsp.linalg.cholesky(S, lower=True))", 1e-5),
    (
        "cho_solve",
        _M
        + "out = (jsp.linalg.cho_solve(jsp.linalg.cho_factor(S), b), jsp.linalg.cho_solve(jsp.linalg.cho_factor(S, lower=True), b))",
        1e-5,
    ),
    (
        "solve_triangular",
        _M
        + "L = jnp.linalg.cholesky(S)\nout = (jsp.linalg.solve_triangular(L, b, lower=True), jsp.linalg.solve_triangular(L, b, trans='T', lower=True), jsp.linalg.solve_triangular(L.T, jnp.stack([b, b], 1)), jsp.linalg.solve_triangular(L, b, lower=True, unit_diagonal=True))",
        1e-5,
    ),
    ("lu", _M + "out = jsp.linalg.lu(A)", 1e-5),
    ("lu_permute_l", _M + "out = jsp.linalg.lu(A, permute_l=True)", 1e-5),
    (
        "lu_factor_solve",
        _M + "lu, piv = jsp.linalg.lu_factor(A)\nout = (lu, piv, jsp.linalg.lu_solve((lu, piv), b))",
        1e-5,
    ),
    (
        "expm",
        _M + "out = (jsp.linalg.expm(A / 4), jsp.linalg.expm(jnp.zeros((2, 2))), jsp.linalg.expm(3 * A))",
        1e-5,
    ),
    ("block_diag", "out = jsp.linalg.block_diag(jnp.ones((2, 2)), 3.0, jnp.arange(3.)[None])"),
    ("solve_pos", _M + "out = (jsp.linalg.solve(S, b, assume_a='pos'), jsp.linalg.solve(A, b))", 1e-5),
    ("eigh", _M + "w, v = jsp.linalg.eigh(S)\nout = (w, jsp.linalg.eigh(S, eigvals_only=True))", 1e-5),
    ("grad_expm", _M + "out = jax.grad(lambda a: jnp.sum(jsp.linalg.expm(a) ** 2))(A / 4)", 1e-4),
    (
        "grad_cho_solve",
        _M + "out = jax.grad(lambda s: jnp.sum(jsp.linalg.cho_solve(jsp.linalg.cho_factor(s), b)))(S)",
        1e-4,
    ),
    (
        "grad_solve_triangular",
        _M
        + "L = jnp.linalg.cholesky(S)\nout = jax.grad(lambda l, b: jnp.sum(jsp.linalg.solve_triangular(l, b, lower=True) ** 2), argnums=(0, 1))(L, b)",
        1e-4,
    ),
    (
        "import_paths",
        "from jax.scipy.special import logsumexp\nfrom jax.scipy.stats import norm\nimport jax.scipy.linalg\nout = (logsumexp(jnp.zeros(3)), norm.cdf(0.))",
        1e-6,
    ),
]
SNIPPETS.update(special=SPECIAL, stats=STATS, scipy_linalg=SCIPY_LINALG)

INDEXING = [
    (
        "oob_int_clamps",
        "x = jnp.arange(10)\nout = (x[11], x[-11], x[jnp.array(12)], jnp.arange(12).reshape(3, 4)[1, 7])",
    ),
    ("oob_array_clamps", "out = jnp.arange(10)[jnp.array([0, 12, -20])]"),
    ("oob_under_jit", "out = jax.jit(lambda x: x[11])(jnp.arange(10))"),
    (
        "get_fill",
        "x = jnp.arange(10.)\nout = (x.at[jnp.array([1, 12])].get(mode='fill', fill_value=-1.), x.at[12].get(mode='fill'), jnp.arange(10).at[12].get(mode='fill'))",
    ),
    (
        "get_fill_traced_scalar",
        "out = jax.jit(lambda i: jnp.arange(10.).at[i].get(mode='fill', fill_value=-1))(12)",
    ),
    ("get_clip", "out = jnp.arange(10).at[12].get(mode='clip')"),
    (
        "scatter_modes",
        "z = jnp.zeros(5)\ni = jnp.array([1, 7])\nout = (z.at[i].set(3., mode='drop'), z.at[i].set(3., mode='clip'), z.at[jnp.array([1, 3])].add(3., mode='promise_in_bounds'), z.at[7].set(3.), z.at[-9].add(1.))",
    ),
    ("scatter_fill_mode", "out = jnp.zeros(5).at[jnp.array([1, 7])].set(3., mode='fill')"),
    (
        "take_oob",
        "out = (jnp.take(jnp.arange(10), jnp.array([12])), jnp.take(jnp.arange(10.), jnp.array([12, -1]), mode='clip'))",
    ),
    ("bad_gather_mode", "out = jnp.arange(10).at[1].get(mode='wrap')"),
    ("bad_scatter_mode", "out = jnp.arange(10).at[1].set(0, mode='wrap')"),
    (
        "grad_through_fill",
        "out = jax.grad(lambda x: jnp.sum(x.at[jnp.array([0, 7])].get(mode='fill', fill_value=0.) ** 2))(jnp.arange(1., 4.))",
    ),
]
SNIPPETS["indexing"] = INDEXING

_PRINTED = "import io, contextlib\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
TRANSFORMS = [
    (
        "nested_ad_jit",
        "def f(x):\n    return jnp.sin(jnp.cos(x) * x)\nout = jax.grad(jax.jit(jax.grad(jax.jit(jax.grad(f)))))(1.)",
        1e-5,
    ),
    ("nested_ad_jit_tanh", "out = jax.grad(jax.jit(jax.grad(jax.jit(jax.grad(jnp.tanh)))))(1.)", 1e-5),
    ("jit_of_jit_under_grad", "out = jax.grad(jax.jit(jax.jit(jax.grad(jnp.tanh))))(1.)", 1e-5),
    (
        "jit_cache_shared_by_function",
        "g = 1.0\ndef h(x):\n    return x + g\na = jax.jit(h)(1.0)\ng = 2.0\nout = (a, jax.jit(h)(1.0))",
    ),
    (
        "repr_jit",
        _PRINTED
        + "    jax.jit(lambda x: print(x) or x)(1.0)\n    jax.jit(lambda x: print(x) or x)(jnp.ones((2, 3), jnp.int32))\nout = buf.getvalue()",
    ),
    (
        "repr_grad",
        _PRINTED
        + "    jax.grad(lambda x: print(x) or x)(jnp.float32(1.))\n    jax.grad(lambda x: print(repr(x)) or jnp.sum(x))(jnp.ones(3))\nout = buf.getvalue()",
    ),
    (
        "repr_jvp_vmap",
        _PRINTED
        + "    jax.jvp(lambda x: print(x) or x, (jnp.ones(2),), (jnp.ones(2),))\n    jax.vmap(lambda x: print(x) or x)(jnp.ones((2, 3)))\nout = buf.getvalue()",
    ),
    (
        "repr_nested",
        _PRINTED
        + "    jax.jit(jax.grad(lambda x: print(x) or x))(1.)\n    jax.vmap(jax.grad(lambda x: print(x) or x))(jnp.ones(2))\nout = buf.getvalue()",
    ),
]
SNIPPETS["transforms"] = TRANSFORMS

_CALLS = (
    "calls = []\n"
    "@jax.custom_jvp\n"
    "def f(x):\n"
    "    calls.append('f')\n"
    "    return jnp.sin(x)\n"
    "@f.defjvp\n"
    "def f_jvp(p, t):\n"
    "    calls.append('f_jvp')\n"
    "    (x,), (tx,) = p, t\n"
    "    if x > 0:\n"
    "        return jnp.sin(x), jnp.cos(x) * tx\n"
    "    return jnp.sin(x), -tx\n"
    "@jax.custom_vjp\n"
    "def g(x):\n"
    "    calls.append('g')\n"
    "    return jnp.sin(x)\n"
    "def g_fwd(x):\n"
    "    calls.append('g_fwd')\n"
    "    return jnp.sin(x), x\n"
    "def g_bwd(res, ct):\n"
    "    calls.append('g_bwd')\n"
    "    return (jnp.cos(res) * ct,)\n"
    "g.defvjp(g_fwd, g_bwd)\n"
    "def log(fn):\n"
    "    calls.clear()\n"
    "    fn()\n"
    "    return list(calls)\n"
)
TRANSFORMS += [
    (
        "custom_jvp_call_order",
        _CALLS
        + "out = (log(lambda: f(1.)), log(lambda: jax.jvp(f, (1.,), (1.,))), log(lambda: jax.grad(f)(1.)), log(lambda: jax.vmap(f)(jnp.ones(2))), log(lambda: jax.jit(f)(1.)))",
    ),
    (
        "custom_jvp_python_if_under_grad",
        _CALLS + "out = (jax.grad(f)(1.), jax.grad(f)(-1.), jax.jvp(f, (-2.,), (3.,))[0])",
        1e-6,
    ),
    (
        "custom_vjp_call_order",
        _CALLS
        + "out = (log(lambda: g(1.)), log(lambda: jax.grad(g)(1.)), log(lambda: jax.vjp(g, 1.)), log(lambda: jax.jit(jax.grad(g))(1.)), log(lambda: jax.vmap(jax.grad(g))(jnp.ones(2))))",
    ),
    ("custom_vjp_jvp_refused", _CALLS + "out = jax.jvp(g, (1.,), (1.,))"),
    (
        "weak_fori",
        "out = (lax.fori_loop(0, 3, lambda i, c: c * 2, 1.0), lax.fori_loop(0, jnp.int32(3), lambda i, c: c + 1, 0))",
    ),
    ("weak_while", "out = lax.while_loop(lambda c: c < 10, lambda c: c * 2, 1.0)"),
    ("weak_scan_carry", "out = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.))[0]"),
    ("weak_scan_weak_body", "out = lax.scan(lambda c, x: (c * 2, c), 1.0, None, length=3)"),
    ("weak_custom_jvp_in_jit", _CALLS + "out = jax.jit(f)(1.0)", 1e-6),
]

# jacfwd/jacrev check input dtypes through tree_map, which rebuilds the tree with None leaves: a
# custom node whose unflatten wraps its leaves in jnp.asarray raises there (JAX's pytree docs).
_NONE_REJECTING_NODE = (
    "class Box:\n"
    "    def __init__(self, a):\n"
    "        self.a = jnp.asarray(a)\n"
    "jax.tree_util.register_pytree_node(Box, lambda b: ((b.a,), None), lambda _, c: Box(*c))\n"
)
TRANSFORMS += [
    (
        "jacrev_rebuilds_inputs_with_none",
        _NONE_REJECTING_NODE + "out = jax.jacrev(lambda b: b.a)(Box(jnp.ones(2)))",
    ),
    (
        "jacfwd_rebuilds_inputs_with_none",
        _NONE_REJECTING_NODE + "out = jax.jacfwd(lambda b: b.a)(Box(jnp.ones(2)))",
    ),
    (
        "grad_of_custom_node",
        _NONE_REJECTING_NODE + "out = jax.grad(lambda b: jnp.sum(b.a**2))(Box(jnp.ones(2))).a",
    ),
]

CONVOLVE = [
    (
        "convolve_modes",
        "a = jnp.array([1., 2., 3., 4.])\nv = jnp.array([0., 1., .5])\nout = tuple(jnp.convolve(a, v, m) for m in ('full', 'same', 'valid')) + tuple(jnp.convolve(v, a, m) for m in ('full', 'same', 'valid'))",
        1e-6,
    ),
    (
        "correlate_modes",
        "a = jnp.array([1., 2., 3., 4.])\nv = jnp.array([0., 1., .5])\nout = tuple(jnp.correlate(a, v, m) for m in ('full', 'same', 'valid')) + tuple(jnp.correlate(v, a, m) for m in ('full', 'same', 'valid'))",
        1e-6,
    ),
    ("convolve_int", "out = jnp.convolve(jnp.arange(4), jnp.array([1, 2]))"),
    (
        "convolve_grad_vmap",
        "a = jnp.array([1., 2., 3., 4.])\nv = jnp.array([0., 1., .5])\nout = (jax.grad(lambda a, v: jnp.sum(jnp.convolve(a, v) ** 2), argnums=(0, 1))(a, v), jax.vmap(jnp.correlate, in_axes=(0, None))(jnp.stack([a, -a]), v))",
        1e-6,
    ),
    ("convolve_2d_error", "out = jnp.convolve(jnp.ones((2, 2)), jnp.ones(2))"),
    ("convolve_bad_mode", "out = jnp.convolve(jnp.ones(3), jnp.ones(2), mode='wrap')"),
]
SNIPPETS["convolve"] = CONVOLVE

FFT = [
    (
        "fft",
        "x = jnp.arange(6.)\nout = (jnp.fft.fft(x), jnp.fft.ifft(x), jnp.fft.fft(x, 8), jnp.fft.fft(x, 4), jnp.fft.fft(x, norm='ortho'), jnp.fft.ifft(x, norm='forward'))",
        1e-5,
    ),
    (
        "rfft_irfft",
        "x = jnp.arange(6.)\nout = (jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x)), jnp.fft.irfft(jnp.fft.rfft(x), 5), jnp.fft.rfft(x, 7))",
        1e-5,
    ),
    (
        "fft2_fftn",
        "x = jnp.arange(12.).reshape(3, 4)\nout = (jnp.fft.fft2(x), jnp.fft.ifft2(x), jnp.fft.fftn(x, axes=(0,)), jnp.fft.fft(x, axis=0))",
        1e-5,
    ),
    (
        "fftfreq_shift",
        "out = (jnp.fft.fftfreq(6, 0.5), jnp.fft.rfftfreq(6), jnp.fft.fftshift(jnp.arange(6)), jnp.fft.ifftshift(jnp.arange(5)))",
        1e-6,
    ),
    (
        "fft_grad",
        "x = jnp.arange(6.)\nout = (jax.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2))(x), jax.grad(lambda x: jnp.sum(jnp.fft.irfft(jnp.fft.rfft(x) * jnp.arange(1., 5.)) ** 2))(x))",
        1e-4,
    ),
    (
        "real_fft_transposes",
        "x = jnp.linspace(-1., 2., 5)\nz = jnp.array([1+2j, -0.5+1j, 2-1j, 0.25+0.5j], jnp.complex64)\nct = z[:3] * (1 - 0.5j)\nout = (jax.linear_transpose(jnp.fft.rfft, x)(ct), jax.linear_transpose(lambda x: jnp.fft.rfft(x, n=6), x)(z), jax.linear_transpose(lambda z: jnp.fft.irfft(z, 5), z)(x), jax.linear_transpose(jnp.fft.irfft, z)(jnp.arange(6.)), jax.grad(lambda z: jnp.sum(jnp.fft.irfft(z, 7, norm='ortho') ** 3))(z), jax.grad(lambda x: jnp.sum(jnp.abs(jnp.fft.rfftn(x.reshape(1, 5), s=(2, 5))) ** 2))(x))",
        1e-4,
    ),
    (
        "lax_fft_types",
        "x = jnp.linspace(-1., 2., 10).reshape(2, 5)\nout = (lax.fft(x, 'RFFT', (5,)), lax.fft(lax.fft(x, lax.FftType.RFFT, (2, 5)), lax.FftType.IRFFT, (2, 5)), lax.fft(x + 0j, 'fft', (5,)), lax.fft(x, lax.FftType.IFFT, (2, 5)))",
        1e-5,
    ),
    (
        "fft_vmap_jit",
        "x = jnp.arange(12.).reshape(2, 6)\nout = (jax.vmap(jnp.fft.rfft)(x), jax.jit(jnp.fft.fft)(x))",
        1e-5,
    ),
]
SNIPPETS["fft"] = FFT

KEYS = [
    (
        "key_repr",
        "k = jax.random.key(0)\nout = (repr(k), str(k.dtype), k.shape, repr(jax.random.split(k)), repr(jax.random.fold_in(k, 3)))",
    ),
    (
        "key_data_wrap",
        "k = jax.random.key(7)\nout = (jax.random.key_data(k), repr(jax.random.wrap_key_data(jnp.array([0, 42], jnp.uint32))), jax.random.key_data(jax.random.PRNGKey(3)), str(jax.random.key_impl(k)))",
    ),
    (
        "key_sampling_matches_raw",
        "k = jax.random.key(0)\nout = (jax.random.normal(k, (3,)), jax.random.normal(jax.random.PRNGKey(0), (3,)), jax.random.uniform(jax.random.split(k)[1], (2,)), jax.random.randint(jax.random.fold_in(k, 1), (3,), 0, 10))",
        1e-6,
    ),
    (
        "key_vmap_jit",
        "ks = jax.random.split(jax.random.key(0), 3)\nout = (jax.vmap(lambda k: jax.random.uniform(k))(ks), jax.jit(lambda k: jax.random.normal(k, (2,)))(ks[0]), len(ks), ks.shape)",
        1e-6,
    ),
    ("key_split_batch_error", "out = jax.random.normal(jax.random.split(jax.random.key(0)), (2,))"),
    ("key_from_traced_seed", "out = jax.random.key_data(jax.jit(jax.random.key)(5))"),
]
SNIPPETS["keys"] = KEYS

# jax.experimental.checkify: error messages (err.get(), what throw() raises), values, composition.
_CK = (
    "from jax.experimental import checkify as ck\n"
    "def raised(f, *a):\n"
    "    try:\n"
    "        f(*a)\n"
    "    except Exception as e:\n"
    "        return (type(e).__name__, str(e))\n"
    "    return None\n"
    "def pos(x):\n"
    "    ck.check(x > 0, '{x} needs to be positive!', x=x)\n"
    "    return jnp.log(x)\n"
    "def idx(x, i):\n"
    "    ck.check(i >= 0, 'index needs to be non-negative, got {i}', i=i)\n"
    "    return jnp.sin(x[i])\n"
)
_ALL = "ck.all_checks"
CHECKIFY = [
    (
        "user_check_eager",
        _CK + "err, y = ck.checkify(pos)(jnp.array(-3.))\nout = (err.get(), str(err), raised(err.throw), y)",
    ),
    (
        "user_check_passes",
        _CK + "err, y = ck.checkify(pos)(jnp.array(2.))\nout = (err.get(), str(err), raised(err.throw), y)",
    ),
    ("user_check_python_arg", _CK + "out = raised(ck.checkify(pos), -3.)"),
    ("jit_of_checkify", _CK + "err, y = jax.jit(ck.checkify(pos))(-3.)\nout = (err.get(), y)"),
    ("checkify_of_jit", _CK + "err, y = ck.checkify(jax.jit(pos))(-3.)\nout = (err.get(), y)"),
    ("jit_bare_check", _CK + "out = raised(jax.jit(pos), -3.)"),
    ("eager_bare_check", _CK + "out = (raised(pos, jnp.array(-3.)), raised(pos, -3.), pos(jnp.array(1.)))"),
    (
        "positional_fmt",
        _CK + "def f(x, y):\n    ck.check(x < y, '{} is not below {}', x, y)\n    return x - y\n"
        "out = (ck.checkify(f)(jnp.array(3), jnp.array(2))[0].get(), jax.jit(ck.checkify(f))(1, 2)[0].get())",
    ),
    (
        "array_fmt",
        _CK + "def f(x):\n    ck.check(jnp.all(x > 0), 'bad {}', x)\n    return x\n"
        "out = jax.jit(ck.checkify(f))(jnp.array([1., -2., 3.]))[0].get()",
    ),
    (
        "nan_sin",
        _CK
        + "err, y = ck.checkify(jnp.sin, errors=ck.float_checks)(jnp.inf)\nout = (err.get(), raised(err.throw))",
    ),
    ("nan_off_by_default", _CK + "err, y = ck.checkify(jnp.sin)(jnp.inf)\nout = (err.get(), y)"),
    (
        "nan_of_grad",
        _CK
        + "f = lambda x: x / (1 + jnp.sqrt(x))\nerr, g = ck.checkify(jax.grad(f), errors=ck.nan_checks)(0.)\n"
        "out = (err.get(), g)",
    ),
    (
        "nan_log_negative",
        _CK + "out = ck.checkify(jnp.log, errors=ck.nan_checks)(jnp.array([1., -1.]))[0].get()",
    ),
    (
        "div_by_zero",
        _CK
        + "out = ck.checkify(lambda x: jnp.ones((5,)) / x, errors=ck.div_checks)(jnp.arange(5.))[0].get()",
    ),
    ("div_int", _CK + "out = jax.jit(ck.checkify(lambda x, y: x // y, errors=ck.div_checks))(7, 0)[0].get()"),
    (
        "div_ok",
        _CK
        + "err, y = ck.checkify(lambda x: 1. / x, errors=ck.float_checks)(jnp.arange(1., 4.))\nout = (err.get(), y)",
    ),
    (
        "div_zero_nan",
        _CK + "out = ck.checkify(lambda x: x / x, errors=ck.float_checks)(jnp.zeros(2))[0].get()",
    ),
    (
        "oob_gather",
        _CK
        + f"err, y = ck.checkify(idx, errors={_ALL})(jnp.ones((5,)), jnp.array(100))\nout = (err.get(), y)",
    ),
    (
        "oob_negative_check_first",
        _CK + f"out = ck.checkify(idx, errors={_ALL})(jnp.ones((5,)), jnp.array(-1))[0].get()",
    ),
    (
        "user_check_and_nan",
        _CK + f"out = ck.checkify(idx, errors={_ALL})(jnp.array([jnp.inf, 1.]), jnp.array(0))[0].get()",
    ),
    (
        "no_error_all_checks",
        _CK
        + f"err, y = ck.checkify(idx, errors={_ALL})(jnp.array([5., 1.]), jnp.array(0))\nout = (err.get(), y)",
    ),
    (
        "oob_2d",
        _CK
        + "out = ck.checkify(lambda x, i, j: x[i, j], errors=ck.index_checks)(jnp.ones((3, 4)), 1, 7)[0].get()",
    ),
    (
        "oob_dynamic_slice",
        _CK + "f = lambda x, i: jax.lax.dynamic_slice(x, (i,), (2,))\n"
        "out = (ck.checkify(f, errors=ck.index_checks)(jnp.arange(5.), 4)[0].get(), "
        "ck.checkify(f, errors=ck.index_checks)(jnp.arange(5.), 3)[0].get())",
    ),
    (
        "oob_dynamic_update_slice",
        _CK + "f = lambda x, i: jax.lax.dynamic_update_slice(x, jnp.ones(3), (i,))\n"
        "out = ck.checkify(f, errors=ck.index_checks)(jnp.arange(5.), 3)[0].get()",
    ),
    (
        "oob_scatter",
        _CK
        + "out = jax.jit(ck.checkify(lambda x, i: x.at[i].set(1.), errors=ck.index_checks))(jnp.zeros(4), 9)[0].get()",
    ),
    (
        "oob_index_array",
        _CK
        + "out = ck.checkify(lambda x, i: x[i], errors=ck.index_checks)(jnp.arange(4.), jnp.array([0, 2, 5, -9]))[0].get()",
    ),
    (
        "first_error_wins",
        _CK
        + "def f(x):\n    ck.check(x > 10, 'first')\n    y = jnp.log(x - 5)\n    ck.check(x > 20, 'third')\n    return y\n"
        f"out = (ck.checkify(f, errors={_ALL})(jnp.array(1.))[0].get(), ck.checkify(f, errors={_ALL})(jnp.array(15.))[0].get())",
    ),
    (
        "vmap_of_checkify",
        _CK
        + f"errs, y = jax.vmap(ck.checkify(idx, errors={_ALL}))(jnp.ones((3, 5)), jnp.array([-1, 2, 100]))\n"
        "out = (errs.get(), str(errs), raised(errs.throw), y)",
    ),
    (
        "checkify_of_vmap",
        _CK
        + f"err, y = ck.checkify(jax.vmap(idx), errors={_ALL})(jnp.ones((3, 5)), jnp.array([-1, 2, -3]))\n"
        "out = (err.get(), y)",
    ),
    ("vmap_bare_check", _CK + "out = raised(jax.vmap(pos), jnp.array([1., -2., -3., 4.]))"),
    (
        "vmap_all_fine",
        _CK + "errs, y = jax.vmap(ck.checkify(pos))(jnp.array([1., 2.]))\nout = (errs.get(), str(errs), y)",
    ),
    (
        "jit_vmap_checkify",
        _CK + "errs, y = jax.jit(jax.vmap(ck.checkify(pos)))(jnp.array([1., -2.]))\nout = (errs.get(), y)",
    ),
    (
        "grad_check_primal",
        _CK + "err, g = ck.checkify(jax.grad(pos))(-2.)\nerr2, g2 = ck.checkify(jax.grad(pos))(2.)\n"
        "out = (err.get(), err2.get(), g2)",
    ),
    ("grad_bare_check", _CK + "out = (raised(jax.grad(pos), -2.), jax.grad(pos)(2.))"),
    (
        "value_and_grad_in_checkify_jit",
        _CK + "err, (v, g) = jax.jit(ck.checkify(jax.value_and_grad(pos)))(4.)\nout = (err.get(), v, g)",
    ),
    (
        "scan_check",
        _CK
        + "def body(c, x):\n    ck.check(x < 3, 'x={x} too big at carry {c}', x=x, c=c)\n    return c + x, c * x\n"
        "f = lambda xs: jax.lax.scan(body, 0., xs)\n"
        "err, (c, ys) = ck.checkify(f)(jnp.arange(5.))\nerr2, out2 = jax.jit(ck.checkify(f))(jnp.arange(3.))\n"
        "out = (err.get(), c, ys, err2.get(), out2)",
    ),
    (
        "scan_nan",
        _CK + "f = lambda xs: jax.lax.scan(lambda c, x: (c + jnp.log(x), c), 0., xs)\n"
        "out = (ck.checkify(f, errors=ck.nan_checks)(jnp.array([1., 2., -1., 3.]))[0].get(), "
        "ck.checkify(f, errors=ck.nan_checks)(jnp.array([1., 2.]))[0].get())",
    ),
    (
        "cond_check",
        _CK + "def f(p, x):\n"
        "    def t(x):\n        ck.check(x > 0, 'true branch needs positive {}', x)\n        return x\n"
        "    def e(x):\n        ck.check(x < 0, 'false branch needs negative {}', x)\n        return -x\n"
        "    return jax.lax.cond(p, t, e, x)\n"
        "g = jax.jit(ck.checkify(f))\n"
        "out = (g(True, -1.)[0].get(), g(False, 1.)[0].get(), g(True, 1.)[0].get(), g(False, -2.)[1])",
    ),
    (
        "cond_oob_one_branch",
        _CK + "f = lambda p, x, i: jax.lax.cond(p, lambda: x[i], lambda: x[0])\n"
        "g = ck.checkify(f, errors=ck.index_checks)\n"
        "out = (g(True, jnp.arange(3.), 7)[0].get(), g(False, jnp.arange(3.), 7)[0].get())",
    ),
    (
        "while_check",
        _CK + "def f(n):\n"
        "    def cond(c):\n        ck.check(c[1] < 100., 'cond saw {}', c[1])\n        return c[0] < n\n"
        "    def body(c):\n        ck.check(c[0] < 4, 'body step {}', c[0])\n        return c[0] + 1, c[1] * 3.\n"
        "    return jax.lax.while_loop(cond, body, (0, 1.))\n"
        "g = ck.checkify(f)\n"
        "out = (g(3)[0].get(), g(3)[1], g(6)[0].get(), jax.jit(g)(5)[0].get())",
    ),
    (
        "fori_loop_oob",
        _CK + "f = lambda x: jax.lax.fori_loop(0, 4, lambda i, s: s + x[i * 2], 0.)\n"
        "out = (ck.checkify(f, errors=ck.index_checks)(jnp.arange(6.))[0].get(), "
        "ck.checkify(f, errors=ck.index_checks)(jnp.arange(8.))[1])",
    ),
    (
        "debug_check",
        _CK + "def f(x):\n    ck.debug_check(x != 0, 'cannot be zero!')\n    return x\n"
        "out = (f(0), jax.jit(f)(0), jax.jit(ck.checkify(f))(0)[0].get(), ck.checkify(f)(1)[0].get())",
    ),
    (
        "check_error",
        _CK + "def f(x):\n    ck.check(x > 0, 'must be positive!')\n    return x\n"
        "def with_inner_jit(x):\n    err, out = jax.jit(ck.checkify(f))(x)\n    ck.check_error(err)\n    return out\n"
        "out = (with_inner_jit(1), raised(with_inner_jit, -1), ck.checkify(with_inner_jit)(-1)[0].get(), "
        "raised(ck.check_error, 3))",
    ),
    (
        "pred_errors",
        _CK + "out = (raised(ck.check, jnp.array([True, False]), 'vector'), raised(ck.check, 1, 'int'), "
        "raised(ck.check, jnp.array(True), 'msg {}', 3.0))",
    ),
    (
        "user_checks_disabled",
        _CK + "out = (ck.checkify(pos, errors=ck.float_checks)(jnp.array(-3.))[0].get(), "
        "ck.checkify(pos, errors=ck.float_checks)(jnp.array(-3.))[1])",
    ),
    (
        "nested_checkify",
        _CK
        + "def outer(x):\n    err, y = ck.checkify(pos)(x)\n    ck.check(y < 1., 'y={} too big', y)\n    return err, y\n"
        "e1, (e2, y) = ck.checkify(outer)(jnp.array(5.))\ne3, (e4, _) = ck.checkify(outer)(jnp.array(-5.))\n"
        "out = (e1.get(), e2.get(), e3.get(), e4.get())",
    ),
    (
        "custom_vjp_bwd_check",
        _CK + "@jax.custom_vjp\ndef agn(x):\n    return x\n"
        "def fwd(x):\n    return agn(x), None\n"
        "def bwd(_, g):\n    ck.check(g < 0, 'gradient needs to be negative!')\n    return (g,)\n"
        "agn.defvjp(fwd, bwd)\nout = (raised(jax.grad(agn), -1.), jax.grad(lambda x: -agn(x))(1.))",
    ),
    (
        "custom_jvp_body_check",
        _CK
        + "@jax.custom_jvp\ndef f(x):\n    ck.check(x > 0, 'f needs positive {}', x)\n    return jnp.sqrt(x)\n"
        "f.defjvp(lambda p, t: (f(p[0]), t[0] * 7.))\n"
        "err, y = ck.checkify(f)(jnp.array(-4.))\nerr2, g = ck.checkify(jax.grad(f))(jnp.array(4.))\n"
        "out = (err.get(), err2.get(), g)",
    ),
    (
        "remat_nan",
        _CK + "f = jax.checkpoint(lambda x: jnp.sin(x) * x)\n"
        "out = (ck.checkify(f, errors=ck.nan_checks)(jnp.inf)[0].get(), ck.checkify(jax.grad(f), errors=ck.nan_checks)(2.)[1])",
    ),
    (
        "pmap_of_checkify",
        _CK + f"err, y = jax.pmap(ck.checkify(idx, errors={_ALL}))(jnp.ones((1, 5)), jnp.array([100]))\n"
        "out = (err.get(), y.shape)",
    ),
    (
        "error_pytree",
        _CK + "err, _ = ck.checkify(pos)(jnp.array(-1.))\nleaves, tree = jax.tree_util.tree_flatten(err)\n"
        "out = (len(leaves), [l.dtype.name for l in leaves], jax.tree_util.tree_unflatten(tree, leaves).get())",
    ),
    (
        "categories",
        _CK
        + "out = sorted(c.__name__ for c in ck.all_checks), sorted(c.__name__ for c in ck.float_checks), ck.user_checks <= ck.all_checks, ck.automatic_checks == ck.float_checks | ck.index_checks",
    ),
]
SNIPPETS["checkify"] = CHECKIFY

# Semantics JAX 0.10.2 has that the engine once differed on (issue 13's follow-up).
_IDX = "x = jnp.arange(5.) - 2\ni = jnp.array([1, 3, 1])\nv = jnp.array([0.5, -3., 1.])\n"
SEMANTICS = [
    (
        "grad_polyval",
        "p = jnp.array([1.5, -2., 3.])\nxs = jnp.array([0.5, 2.])\n"
        "out = jax.grad(lambda p, x: jnp.sum(jnp.polyval(p, x)), argnums=(0, 1))(p, xs)",
    ),
    (
        "grad_jit_scan_zeros_init",
        "p = jnp.array([0.3, -1., 2.])\nxs = jnp.array([0.5, 2.])\n"
        "def f(p, x):\n"
        "    c, ys = lax.scan(lambda c, pi: (jnp.sin(c) * x + pi, c), jnp.zeros_like(x), p)\n"
        "    return jnp.sum(c) + jnp.sum(ys)\n"
        "out = jax.grad(jax.jit(f), argnums=(0, 1))(p, xs)",
        1e-6,
    ),
    ("at_apply_duplicates", _IDX + "out = x.at[i].apply(jnp.sin)", 1e-6),
    ("at_apply_jit", _IDX + "out = jax.jit(lambda x: x.at[i].apply(lambda t: t * 2 + 1))(x)"),
    ("at_apply_vmap", "out = jax.vmap(lambda x: x.at[1].apply(jnp.cos))(jnp.ones((2, 3)))", 1e-6),
    ("at_apply_out_of_bounds", "out = jnp.arange(3.).at[jnp.array([5, 1])].apply(lambda t: t + 10)"),
    ("err_grad_at_apply", _IDX + "out = jax.grad(lambda x: jnp.sum(x.at[i].apply(jnp.sin)))(x)"),
    ("jvp_at_min_ties", _IDX + "out = jax.jvp(lambda x, v: x.at[i].min(v), (x, v), (x + 1, v * 2))"),
    ("jvp_at_max_ties", _IDX + "out = jax.jvp(lambda x, v: x.at[i].max(v), (x, v), (x * 3, v - 1))"),
    (
        "grad_at_max",
        _IDX + "out = jax.grad(lambda x, v: jnp.sum(x.at[i].max(v) ** 2), argnums=(0, 1))(x, v)",
    ),
    (
        "jvp_at_min_equal_updates",
        "x = jnp.array([1., 2., 3.])\ni = jnp.array([0, 0, 2])\nv = jnp.array([0.5, 0.5, 3.])\n"
        "out = jax.jvp(lambda x, v: x.at[i].min(v), (x, v), (jnp.ones(3), jnp.array([2., 4., 8.])))",
    ),
    (
        "at_numpy_index_negative",
        "x = jnp.arange(6.)\nout = (jax.jit(lambda x: x.at[np.array([0, -1, -3])].add(10.))(x), "
        "jax.jit(lambda x: x[np.array([[-1], [2]])])(x))",
    ),
]
_A3 = "a = jnp.array([[4., 1., .5], [.2, 3., .1], [.3, .4, 5.]])\nb = jnp.array([1., -2., .5])\n"
SEMANTICS += [
    (
        "grad_linalg_solve",
        _A3 + "out = jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2), argnums=(0, 1))(a, b)",
        1e-5,
    ),
    ("grad_linalg_inv", _A3 + "out = jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a) ** 2))(a)", 1e-5),
    ("grad_linalg_det_3x3", _A3 + "out = (jnp.linalg.det(a), jax.grad(jnp.linalg.det)(a))", 1e-6),
    ("grad_linalg_det_2x2", "out = jax.grad(jnp.linalg.det)(jnp.array([[1., 2.], [3., 4.]]))"),
    ("det_complex_3x3", "out = jnp.linalg.det(jnp.array([[1 + 1j, 2, 0], [3, 4j, 1], [0, 1, 2]]))", 1e-6),
    (
        "custom_linear_solve_grad",
        _A3 + "f = lambda a, b: jnp.sum(lax.custom_linear_solve(lambda x: a @ x, b, "
        "lambda mv, x: jnp.linalg.solve(a, x), lambda vm, x: jnp.linalg.solve(a.T, x)) ** 2)\n"
        "out = (f(a, b), jax.grad(f, argnums=(0, 1))(a, b))",
        1e-5,
    ),
    (
        "vmap_linalg_solve_batched_matrix",
        _A3 + "out = jax.vmap(jnp.linalg.solve, (0, None))(jnp.stack([a, 2 * a]), b)",
        1e-5,
    ),
    (
        "einsum_chain_values",
        "out = jnp.einsum('ij,jk,kl->il', jnp.ones((2, 3)), jnp.arange(12.).reshape(3, 4), jnp.ones((4, 2)))",
    ),
]
SNIPPETS["semantics"] = SEMANTICS

# jax_debug_nans / jax_debug_infs: which operation is named, and what a jit whose output is invalid
# does (re-runs de-optimized). Each snippet turns the flag off again before it returns.
_DN = (
    "import io, contextlib\n"
    "def raised(f, *a):\n"
    "    buf = io.StringIO()\n"
    "    try:\n"
    "        with contextlib.redirect_stdout(buf):\n"
    "            r = f(*a)\n"
    "    except Exception as e:\n"
    "        return (type(e).__name__, str(e)[:120], buf.getvalue())\n"
    "    return ('returned', repr(r), buf.getvalue())\n"
)
DEBUG_NANS = [
    (
        "debug_nans",
        _DN + "jax.config.update('jax_debug_nans', True)\n"
        "try:\n"
        "    out = (raised(lambda: jax.jit(lambda x, y: x / y)(0., 0.)),\n"
        "           raised(lambda: jnp.array(0.) / jnp.array(0.)),\n"
        "           raised(lambda: jax.jit(lambda x: x * jnp.nan)(1.)),\n"
        "           raised(lambda: jax.jit(lambda x: jnp.sqrt(x) * 2)(jnp.array([1., -1.]))),\n"
        "           raised(lambda: jax.jit(lambda x: x + 1)(2.)),\n"
        "           raised(lambda: jax.grad(jnp.sqrt)(0.)))\n"
        "finally:\n"
        "    jax.config.update('jax_debug_nans', False)\n"
        "out = out + (raised(lambda: jnp.array(0.) / jnp.array(0.)),)",
    ),
    (
        "debug_infs",
        _DN + "jax.config.update('jax_debug_infs', True)\n"
        "try:\n"
        "    out = (raised(lambda: jnp.array(1.) / jnp.array(0.)), raised(lambda: jnp.exp(jnp.array(100.))),\n"
        "           raised(lambda: jax.jit(lambda x: x * 2)(3.)))\n"
        "finally:\n"
        "    jax.config.update('jax_debug_infs', False)",
    ),
    ("unknown_option", _DN + "out = raised(lambda: jax.config.update('jax_no_such_option', 1))"),
]
SNIPPETS["debug_nans"] = DEBUG_NANS
CHECKIFY += [
    (
        "grad_of_checkified",
        _CK + "g = jax.grad(lambda x: ck.checkify(pos)(x)[1])\nout = (g(2.), jax.jit(g)(4.))",
    ),
    (
        "checkify_kwargs",
        _CK + "def f(x, *, scale):\n    ck.check(scale > 0, 'scale {s}', s=scale)\n    return x * scale\n"
        "err, y = ck.checkify(f)(jnp.array(2.), scale=jnp.array(-1.))\nout = (err.get(), y)",
    ),
    (
        "checkify_of_vmap_of_while",
        _CK + "f = jax.vmap(lambda n: jax.lax.while_loop(lambda c: c < n, lambda c: c + 1, 0))\n"
        "out = ck.checkify(f)(jnp.array([1, 3]))",
    ),
    (
        "python_if_on_traced",
        _CK
        + "def f(x):\n    if x > 0:\n        return x\n    return -x\nout = raised(ck.checkify(f), jnp.array(1.))[0]",
    ),
    (
        "gather_fill_mode",
        _CK + "f = lambda x, i: x.at[i].get(mode='fill', fill_value=-1.)\n"
        "err, y = ck.checkify(f, errors=ck.index_checks)(jnp.arange(3.), jnp.array(5))\nout = (err.get(), y)",
    ),
    (
        "take_and_clip",
        _CK + "f = lambda x, i: (jnp.take(x, i), x.at[i].get(mode='clip'))\n"
        "err, y = ck.checkify(f, errors=ck.index_checks)(jnp.arange(3.), jnp.array(-7))\nout = (err.get(), y)",
    ),
    (
        "nan_in_matmul",
        _CK + "x = jnp.array([[jnp.inf, 1.], [0., 1.]])\n"
        "out = (ck.checkify(lambda a: a @ jnp.array([[0.], [1.]]), errors=ck.nan_checks)(x)[0].get(), "
        "ck.checkify(lambda a: jnp.sum(a - a), errors=ck.nan_checks)(x)[0].get())",
    ),
    (
        "error_get_under_jit_is_error",
        _CK
        + "def f(x):\n    err, y = ck.checkify(pos)(x)\n    return err.get()\nout = raised(jax.jit(f), 1.)[0]",
    ),
    (
        "rem_and_pow_nan",
        _CK + "out = (ck.checkify(lambda x: x % 0., errors=ck.nan_checks)(jnp.array(1.))[0].get(), "
        "ck.checkify(lambda x: x ** 0.5, errors=ck.nan_checks)(jnp.array(-1.))[0].get(), "
        "ck.checkify(lambda x: x // 0, errors=ck.div_checks)(jnp.array(3))[0].get())",
    ),
]
SNIPPETS["checkify"] = CHECKIFY
DEBUG_NANS += [
    (
        "dtype_promotion_strict",
        _DN + "x, y = jnp.float32(1), jnp.int32(1)\n"
        "with jax.numpy_dtype_promotion('strict'):\n"
        "    out = tuple(raised(f)[:2 if raised(f)[0] == 'returned' else 1] for f in [lambda: x + y, lambda: y + 1.0, "
        "lambda: x + 1, lambda: x + jnp.float16(1), lambda: jnp.bool_(True) + 1, lambda: y * 2, "
        "lambda: jnp.add(x, 1j), lambda: jnp.array([1, 2.]), lambda: x * x])\n"
        "out = out + (raised(lambda: x + y)[:2], jax.config.jax_numpy_dtype_promotion)",
    ),
    (
        "rank_promotion",
        _DN + "import warnings\nx2, y2 = jnp.ones((4, 3)), jnp.ones(3)\n"
        "with jax.numpy_rank_promotion('raise'):\n"
        "    out = (raised(lambda: x2 + y2)[:2], raised(lambda: x2 * 2.)[:2], raised(lambda: x2 - jnp.ones((1, 3)))[:2])\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    with jax.numpy_rank_promotion('warn'):\n"
        "        x2 + y2\n"
        "out = out + ([str(i.message) for i in w], raised(lambda: jax.config.update('jax_numpy_rank_promotion', 'never'))[0], "
        "jax.config.jax_numpy_rank_promotion)",
    ),
]
SNIPPETS["debug_nans"] = DEBUG_NANS

# jax.experimental.random.stateful_rng: a typed key and a counter in a Ref, advanced by each draw.
_SR = "from jax.experimental import random as xr\n"
SNIPPETS["stateful_rng"] = [
    (
        "keys",
        _SR
        + "r = xr.stateful_rng(0)\nout = (jax.random.key_data(r.key()), jax.random.key_data(r.key((2,))), repr(xr.stateful_rng(42)))",
    ),
    (
        "draws",
        _SR
        + "r = xr.stateful_rng(1701)\nout = (r.random((3,)), r.uniform(2., 3., 2), r.normal(1., 2., (2,)), r.integers(5, size=4), r.random(2))",
    ),
    (
        "split_vmap",
        _SR
        + "r = xr.stateful_rng(123)\nout = jax.vmap(lambda g, x: x + g.uniform())(r.split(3), jnp.zeros(3))",
    ),
    ("spawn", _SR + "out = [g.integers(0, 10, 2) for g in xr.stateful_rng(123).spawn(2)]"),
    (
        "jit_advances",
        _SR
        + "r = xr.stateful_rng(3)\nf = jax.jit(lambda g: g.normal(size=2))\nout = (f(r), f(r), r.random())",
    ),
    ("split_generator_refuses", _SR + "out = xr.stateful_rng(0).split(2).key()"),
    # a generator (or ref) a vmapped function closes over is unbatched there: JAX refuses writes to it
    (
        "vmap_closed_over",
        _SR + "r = xr.stateful_rng(0)\nout = jax.vmap(lambda x: x + r.uniform())(jnp.arange(3))",
    ),
    (
        "vmap_closed_over_ref_set",
        "r = jax.new_ref(0)\ndef f(x):\n    r[...] = 5\n    return x\nout = jax.vmap(f)(jnp.arange(2))",
    ),
    ("vmap_closed_over_ref_read", "r = jax.new_ref(3)\nout = jax.vmap(lambda x: x + r[...])(jnp.arange(2))"),
    (
        "vmap_mapped_ref_write",
        "r = jax.new_ref(jnp.zeros(3))\ndef f(x, q):\n    q[...] += x\n    return x\n"
        "out = (jax.vmap(f)(jnp.arange(3.), r), r[...])",
    ),
]
CHECKIFY += [
    (
        "shard_map",
        _CK + "from jax.sharding import PartitionSpec as P\n"
        "mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ('i',))\n"
        "def body(x):\n    ck.check(jnp.all(x > 0), 'bad block {}', x)\n    return jnp.log(x)\n"
        "f = jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "e1, y1 = ck.checkify(f, errors=ck.all_checks)(jnp.array([-1., 2.]))\n"
        "e2, y2 = jax.jit(ck.checkify(f, errors=ck.nan_checks))(jnp.array([-1., 2.]))\n"
        "e3, y3 = ck.checkify(f)(jnp.array([1., 2.]))\n"
        "out = (e1.get(), y1, e2.get(), e3.get(), y3, sorted(l.shape for l in jax.tree_util.tree_leaves(e1)))",
    ),
]
SNIPPETS["checkify"] = CHECKIFY

# __jax_array__: JAX 0.10.2 converts such objects only in jnp.array/jnp.asarray and in the array's
# arithmetic operators; jnp/lax functions, jit arguments and indices refuse them (a ValueError).
_JA = (
    "class C:\n    def __init__(s, d): s.data = d\n    def __jax_array__(s): return jnp.asarray(s.data)\n"
    "a = C(np.arange(3))\n"
)
SNIPPETS["array_protocol"] = [
    ("asarray", _JA + "out = (jnp.asarray(a), jnp.array(a))"),
    ("operators", _JA + "out = (jnp.ones(3) + a, a + jnp.ones(3))"),
    ("jnp_function", _JA + "out = jnp.multiply(a, 2)"),
    ("jnp_unary", _JA + "out = jnp.sin(a)"),
    ("jnp_sum", _JA + "out = jnp.sum(a)"),
    ("lax_function", _JA + "out = lax.add(a, a)"),
    ("jit_argument", _JA + "out = jax.jit(lambda x: x)(a)"),
    ("grad_argument", _JA + "out = jax.grad(lambda x: x.sum())(a)"),
    ("index", _JA + "out = jnp.arange(5)[C(np.array(1))]"),
]

# Typed keys of the rbg / unsafe_rbg implementations (XLA's bit generator; CPU values).
RK = "kr = jax.random.key(5, impl='rbg')\nku = jax.random.key(5, impl='unsafe_rbg')\n"
SNIPPETS["rbg_keys"] = [
    ("repr", "out = (repr(jax.random.key(0, impl='rbg')), repr(jax.random.key(3, impl='unsafe_rbg')))"),
    ("uniform_seed0", "out = jax.random.uniform(jax.random.key(0, impl='rbg'), (3,))"),
    (
        "key_data",
        RK + "out = (jax.random.key_data(kr), jax.random.key_data(ku), str(kr.dtype), str(ku.dtype))",
    ),
    (
        "split",
        RK
        + "out = (jax.random.key_data(jax.random.split(kr, 3)), jax.random.key_data(jax.random.split(ku)))",
    ),
    (
        "fold_in",
        RK
        + "out = (jax.random.key_data(jax.random.fold_in(kr, 9)), jax.random.key_data(jax.random.fold_in(ku, 9)))",
    ),
    (
        "samplers",
        RK
        + "out = (jax.random.normal(kr, (2, 3)), jax.random.randint(ku, (5,), 0, 50), jax.random.bits(kr, (4,), jnp.uint8))",
    ),
    ("uniform_f16", RK + "out = jax.random.uniform(ku, (3,), jnp.float16)"),
    ("vmap_bits", RK + "out = jax.vmap(lambda k: jax.random.uniform(k, (2,)))(jax.random.split(kr, 3))"),
    (
        "vmap_split",
        RK + "out = jax.random.key_data(jax.vmap(lambda k: jax.random.split(k, 2))(jax.random.split(ku, 3)))",
    ),
    (
        "vmap_fold_in",
        RK + "out = jax.random.key_data(jax.vmap(lambda d: jax.random.fold_in(ku, d))(jnp.arange(3)))",
    ),
    ("jit", RK + "out = jax.jit(lambda k: jax.random.normal(k, (3,)))(ku)"),
    (
        "wrap",
        "out = jax.random.key_data(jax.random.split(jax.random.wrap_key_data(jnp.array([1, 2, 3, 4], jnp.uint32), impl='rbg')))",
    ),
    (
        "rng_bit_generator",
        "out = lax.rng_bit_generator(jnp.array([7, 8, 9, 10], jnp.uint32), (2, 3), dtype=jnp.uint16)",
    ),
    (
        "rng_bit_generator_vmap",
        "ks = jnp.array([[1, 2, 3, 4], [5, 6, 7, 8]], jnp.uint32)\n"
        "out = jax.vmap(lambda k: lax.rng_bit_generator(k, (3,)))(ks)",
    ),
    (
        "rng_bit_generator_jit_jaxpr",
        "f = lambda k: lax.rng_bit_generator(k, (2, 2), dtype=jnp.uint8)\n"
        "k = jnp.array([0, 1, 2, 3], jnp.uint32)\n"
        "out = (jax.jit(f)(k), str(jax.make_jaxpr(f)(k)))",
    ),
]

# jax.transfer_guard on a CPU: fetches to the host are always allowed; a NumPy or Python value
# becoming an array (a jit argument, jnp.array) is guarded, jax.device_put only by "disallow_explicit".
_TG = "x = jnp.arange(3.)\nf = jax.jit(lambda a: a + 1)\n"
SNIPPETS["transfer_guard"] = [
    (
        "fetches_allowed",
        _TG + "with jax.transfer_guard('disallow_explicit'):\n"
        "    out = (str(x), np.asarray(x), jax.device_get({'x': x}), f(x), x * x)",
    ),
    ("jit_numpy_argument", _TG + "with jax.transfer_guard('disallow'):\n    out = f(np.ones(3))"),
    ("jit_scalar_argument", _TG + "with jax.transfer_guard('disallow'):\n    out = f(1.0)"),
    (
        "jnp_array_of_numpy",
        _TG + "with jax.transfer_guard_host_to_device('disallow'):\n    out = jnp.array(np.ones(3))",
    ),
    (
        "device_put_explicit",
        _TG + "with jax.transfer_guard('disallow'):\n    out = jax.device_put(np.ones(3))",
    ),
    (
        "device_put_disallow_explicit",
        _TG + "with jax.transfer_guard('disallow_explicit'):\n    out = jax.device_put(np.ones(3))",
    ),
    ("log_allows", _TG + "with jax.transfer_guard('log'):\n    out = f(np.ones(3))"),
    (
        "other_directions",
        _TG + "with jax.transfer_guard_device_to_host('disallow'):\n    out = f(np.ones(3))",
    ),
    ("restored_after_block", _TG + "with jax.transfer_guard('disallow'):\n    pass\nout = f(np.ones(3))"),
    ("bad_level", _TG + "with jax.transfer_guard('never'):\n    out = 1"),
]

# lax.platform_dependent: eagerly the CPU branch runs; traced, platform_index picks a cond branch.
_PD = (
    "def f(x):\n"
    "    return lax.platform_dependent(x, cpu=lambda v: jnp.sin(v) * 2, cuda=lambda v: v - 1, tpu=lambda v: v - 1)\n"
    "def g(x):\n"
    "    return lax.platform_dependent(x, tpu=jnp.cos, default=jnp.exp)\n"
    "x = jnp.array([0.5, 1.5])\n"
)
SNIPPETS["platform_dependent"] = [
    ("eager", _PD + "out = (f(x), g(x))"),
    ("jit", _PD + "out = (jax.jit(f)(x), jax.jit(g)(x))"),
    ("jaxpr", _PD + "out = (str(jax.make_jaxpr(f)(x)), str(jax.make_jaxpr(g)(x)))"),
    ("grad", _PD + "out = (jax.grad(lambda v: f(v).sum())(x), jax.jit(jax.grad(lambda v: g(v).sum()))(x))"),
    ("vmap", _PD + "out = jax.vmap(f)(jnp.stack([x, x + 1]))"),
    ("gpu_name", _PD + "out = lax.platform_dependent(x, gpu=jnp.cos)"),
]

# jax.export: exported functions called eagerly, under jit and grad, serialized and deserialized,
# and the errors JAX raises for calls that do not match the export.
_EXP = (
    "from jax import export\n"
    "def f(x, y):\n"
    "    return {'s': x + y, 'p': (x * y, jnp.sin(x))}\n"
    "exp = export.export(jax.jit(f))(np.float32(1.), jax.ShapeDtypeStruct((3,), np.float32))\n"
    "y = np.arange(3, dtype=np.float32)\n"
)
_EXP_G = (
    "from jax import export\n"
    "g = lambda x: jnp.sum(jnp.sin(x) * x)\n"
    "eg = export.export(jax.jit(g))(jax.ShapeDtypeStruct((3,), np.float32))\n"
    "x = np.arange(3, dtype=np.float32)\n"
)
SNIPPETS["export"] = [
    (
        "signature",
        _EXP + "out = (repr(exp.in_tree), repr(exp.out_tree), repr(exp.in_avals), repr(exp.out_avals))",
    ),
    (
        "fields",
        _EXP + "out = (exp.fun_name, exp.nr_devices, exp.platforms, exp.calling_convention_version, "
        "exp.module_kept_var_idx, exp.uses_global_constants, str(exp), exp._in_named_shardings, exp.ordered_effects)",
    ),
    ("call", _EXP + "out = exp.call(np.float32(2.), y)"),
    ("call_jit", _EXP + "out = jax.jit(exp.call)(np.float32(2.), y)"),
    ("call_roundtrip", _EXP + "out = export.deserialize(exp.serialize()).call(np.float32(2.), y)"),
    (
        "roundtrip_fields",
        _EXP
        + "r = export.deserialize(exp.serialize())\nout = (r.fun_name, repr(r.in_tree), repr(r.out_avals), r.has_vjp())",
    ),
    ("weak_in_avals", "from jax import export\nout = repr(export.export(jax.jit(jnp.cos))(1.).in_avals)"),
    ("weak_call", "from jax import export\nout = export.export(jax.jit(jnp.cos))(1.).call(1.)"),
    (
        "weak_dropped_by_serialization",
        "from jax import export\nout = export.deserialize(export.export(jax.jit(jnp.cos))(1.).serialize()).call(1.)",
    ),
    (
        "kept_var_idx",
        "from jax import export\nout = export.export(jax.jit(lambda x, y, z: x + z))(1., 2., 3.).module_kept_var_idx",
    ),
    (
        "kwargs_tree",
        "from jax import export\nout = repr(export.export(jax.jit(lambda x, *, y: x + y))(1., y=2.).in_tree)",
    ),
    (
        "static_tree",
        "from jax import export\nout = repr(export.export(jax.jit(lambda x, n: x * n, static_argnums=1))(1., 3).in_tree)",
    ),
    (
        "consts",
        "from jax import export\ne = export.export(jax.jit(lambda x: x + jnp.arange(3.)))(jax.ShapeDtypeStruct((3,), np.float32))\nout = export.deserialize(e.serialize()).call(np.ones(3, np.float32))",
    ),
    ("grad_in_memory", _EXP_G + "out = jax.grad(eg.call)(x)"),
    (
        "grad_deserialized",
        _EXP_G
        + "r = export.deserialize(eg.serialize(vjp_order=1))\nout = (jax.grad(r.call)(x), jax.jit(jax.grad(r.call))(x))",
    ),
    (
        "grad2_deserialized",
        _EXP_G
        + "r = export.deserialize(eg.serialize(vjp_order=2))\nout = jax.grad(lambda v: jax.grad(r.call)(v).sum())(x)",
    ),
    (
        "vjp_signature",
        _EXP_G
        + "v = eg.vjp()\nout = (v.fun_name, repr(v.in_avals), repr(v.out_avals), repr(v.in_tree), repr(v.out_tree))",
    ),
    (
        "vjp_float0",
        "from jax import export\ne = export.export(jax.jit(lambda x: (x * 2, x.astype(jnp.int32))))(1.)\nout = repr(e.vjp().in_avals)",
    ),
    ("err_grad_no_vjp", _EXP_G + "out = jax.grad(export.deserialize(eg.serialize()).call)(x)"),
    ("err_vmap", _EXP_G + "out = jax.vmap(eg.call)(np.ones((2, 3), np.float32))"),
    ("err_jvp", _EXP_G + "out = jax.jvp(eg.call, (x,), (x,))"),
    ("err_shape", _EXP + "out = exp.call(np.float32(2.), np.arange(4, dtype=np.float32))"),
    ("err_rank", _EXP + "out = exp.call(np.float32(2.), np.ones((2, 3), np.float32))"),
    ("err_dtype", _EXP + "out = exp.call(np.float32(2.), np.arange(3, dtype=np.int32))"),
    ("err_tree_len", _EXP + "out = exp.call(np.float32(2.))"),
    ("err_tree_type", _EXP + "out = exp.call((np.float32(2.),), y)"),
    ("err_kwargs", _EXP + "out = exp.call(x=np.float32(2.), y=y)"),
    ("err_not_jit", "from jax import export\nout = export.export(lax.cos)(1.)"),
    (
        "err_platform",
        "from jax import export\nout = export.export(jax.jit(jnp.cos), platforms=['tpu'])(1.).call(1.)",
    ),
    (
        "err_platform_jit",
        "from jax import export\nout = jax.jit(export.export(jax.jit(jnp.cos), platforms=['tpu'])(1.).call)(1.)",
    ),
    (
        "platform_check_disabled",
        "from jax import export\nout = export.export(jax.jit(jnp.cos), platforms=['tpu'], "
        "disabled_checks=[export.DisabledSafetyCheck.platform()])(1.).call(1.)",
    ),
    (
        "multi_platform",
        "from jax import export\ne = export.export(jax.jit(jnp.cos), platforms=['tpu', 'cpu'])(1.)\nout = (e.platforms, e.call(1.))",
    ),
    (
        "err_host_callback",
        "from jax import export\nout = export.export(jax.jit(lambda x: jax.pure_callback(np.sin, x, x)))(1.)",
    ),
    (
        "err_debug_print",
        "from jax import export\nout = export.export(jax.jit(lambda x: jax.debug.print('{}', x) or x))(1.)",
    ),
    (
        "err_version",
        "from jax import export\nfrom jax._src import config\nwith config.jax_export_calling_convention_version(8):\n"
        "    out = export.export(jax.jit(jnp.cos))(1.)",
    ),
    (
        "version_9",
        "from jax import export\nfrom jax._src import config\nwith config.jax_export_calling_convention_version(9):\n"
        "    out = export.export(jax.jit(jnp.cos))(1.).calling_convention_version",
    ),
    (
        "checks",
        "from jax import export\nc = export.DisabledSafetyCheck\n"
        "out = (str(c.platform()), repr(c.custom_call('x')), c.custom_call('x').is_custom_call(), c.platform().is_custom_call(), c.platform() == c.platform())",
    ),
    (
        "err_unregistered_node",
        "from jax import export\nimport collections\nNT = collections.namedtuple('NT', 'a b')\n"
        "out = export.export(jax.jit(lambda p: p.a))(NT(1., 2.)).serialize()",
    ),
    (
        "namedtuple_registered",
        "from jax import export\nimport collections\nNT2 = collections.namedtuple('NT2', 'a b')\n"
        "export.register_namedtuple_serialization(NT2, serialized_name='test.NT2')\n"
        "r = export.deserialize(export.export(jax.jit(lambda p: NT2(p.b, p.a)))(NT2(1., 2.)).serialize())\n"
        "out = (repr(r.in_tree), r.call(NT2(np.float32(3.), np.float32(4.))))",
    ),
    (
        "sharding_abstract_mesh",
        "from jax import export\nfrom jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P\n"
        "m = AbstractMesh((4,), ('a',))\n"
        "e = export.export(jax.jit(lambda x: x.T))(jax.ShapeDtypeStruct((32,), np.int32, sharding=NamedSharding(m, P('a'))))\n"
        "r = export.deserialize(e.serialize())\n"
        "out = (e.nr_devices, repr(e.in_shardings_jax(m)), repr(e.out_shardings_jax(m)), r.nr_devices, repr(r.in_shardings_jax(m)))",
    ),
    (
        "err_sharding_mesh",
        "from jax import export\nfrom jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P\n"
        "m = AbstractMesh((4,), ('a',))\n"
        "e = export.export(jax.jit(lambda x: x.T))(jax.ShapeDtypeStruct((32,), np.int32, sharding=NamedSharding(m, P('a'))))\n"
        "out = e.in_shardings_jax(AbstractMesh((2,), ('b',)))",
    ),
    (
        "raw_key",
        "from jax import export\nk = jax.random.PRNGKey(0)\n"
        "e = export.export(jax.jit(lambda k: jax.random.normal(k, (2,))))(k)\n"
        "out = export.deserialize(e.serialize()).call(k)",
    ),
    (
        "typed_key",
        "from jax import export\nk = jax.random.key(0)\n"
        "r = export.deserialize(export.export(jax.jit(lambda k: jax.random.split(k)))(k).serialize())\n"
        "out = (repr(r.in_avals), repr(r.out_avals), jax.random.key_data(r.call(k)))",
    ),
    (
        "int_input_vjp",
        "from jax import export\n"
        "e = export.export(jax.jit(lambda d: {'b': d['a'] * 2, 'c': [d['a'], d['z']]}))({'a': 1., 'z': np.int32(3)})\n"
        "r = export.deserialize(e.serialize(vjp_order=1))\n"
        "out = (repr(r.vjp().in_avals), repr(r.vjp().out_avals), "
        "jax.grad(lambda a: r.call({'a': a, 'z': np.int32(1)})['b'])(3.))",
    ),
    (
        "err_device_count",
        "from jax import export\nfrom jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P\n"
        "m = AbstractMesh((4,), ('a',))\n"
        "e = export.export(jax.jit(lambda x: x.T))(jax.ShapeDtypeStruct((32,), np.int32, sharding=NamedSharding(m, P('a'))))\n"
        "out = e.call(jnp.arange(32))",
    ),
]

from snippets_surface import SURFACE  # noqa: E402

SNIPPETS["surface"] = SURFACE

# jax.random's samplers built on uniform/normal/exponential/bernoulli draws: values for a typed and
# a raw key, and the program make_jaxpr prints.
_SAMPLERS = [
    ("cauchy", "lambda k: jax.random.cauchy(k, (4,))"),
    ("laplace", "lambda k: jax.random.laplace(k, (4,))"),
    ("logistic", "lambda k: jax.random.logistic(k, (4,))"),
    ("pareto", "lambda k: jax.random.pareto(k, 3.0, (4,))"),
    ("pareto_b_shape", "lambda k: jax.random.pareto(k, np.array([1.0, 2.0, 3.0], np.float32))"),
    ("rademacher", "lambda k: jax.random.rademacher(k, (6,))"),
    ("maxwell", "lambda k: jax.random.maxwell(k, (4,))"),
    ("double_sided_maxwell", "lambda k: jax.random.double_sided_maxwell(k, 1.0, 2.0, (4,))"),
    (
        "double_sided_maxwell_params",
        "lambda k: jax.random.double_sided_maxwell(k, np.zeros(2, np.float32), 1.0)",
    ),
    ("weibull_min", "lambda k: jax.random.weibull_min(k, 2.0, 1.5, (4,))"),
    ("rayleigh", "lambda k: jax.random.rayleigh(k, 2.0, (4,))"),
    ("wald", "lambda k: jax.random.wald(k, 1.5, (4,))"),
    ("geometric", "lambda k: jax.random.geometric(k, 0.3, (6,))"),
    ("triangular", "lambda k: jax.random.triangular(k, 0.0, 0.3, 1.0, (4,))"),
    ("lognormal", "lambda k: jax.random.lognormal(k, 0.5, (4,))"),
]
SNIPPETS["random_samplers"] = [
    (
        name,
        f"f = {f}\nout = (f(jax.random.key(0)), f(jax.random.PRNGKey(1)), str(jax.make_jaxpr(f)(jax.random.key(0))))",
    )
    for name, f in _SAMPLERS
] + [
    ("lognormal_default", "out = jax.random.lognormal(jax.random.key(0))"),
    ("err_geometric_float_dtype", "out = jax.random.geometric(jax.random.key(0), 0.3, dtype=jnp.float32)"),
    ("err_laplace_int_dtype", "out = jax.random.laplace(jax.random.key(0), dtype=jnp.int32)"),
    ("err_pareto_shape", "out = jax.random.pareto(jax.random.key(0), jnp.ones(3), (2,))"),
]

_GAMMA_SAMPLERS = [
    ("gamma", "lambda k: jax.random.gamma(k, 2.0, (4,))"),
    ("gamma_a_array", "lambda k: jax.random.gamma(k, np.array([0.5, 1.0, 3.0], np.float32))"),
    ("loggamma", "lambda k: jax.random.loggamma(k, 0.1, (3,))"),
    ("beta", "lambda k: jax.random.beta(k, 2.0, 3.0, (4,))"),
    ("dirichlet", "lambda k: jax.random.dirichlet(k, np.array([0.5, 1.0, 2.0], np.float32), (2,))"),
    ("t", "lambda k: jax.random.t(k, 3.0, (4,))"),
    ("chisquare", "lambda k: jax.random.chisquare(k, 3.0, (4,))"),
    ("f", "lambda k: jax.random.f(k, 3.0, 5.0, (4,))"),
    ("generalized_normal", "lambda k: jax.random.generalized_normal(k, 1.5, (4,))"),
]
SNIPPETS["random_gamma"] = [
    (
        name,
        f"f = {f}\nout = (f(jax.random.key(0)), f(jax.random.PRNGKey(1)), str(jax.make_jaxpr(f)(jax.random.key(0))))",
    )
    for name, f in _GAMMA_SAMPLERS
] + [
    # (JAX's program raises an f32 to an i32 power, which the engine's pow does not take: values only)
    (
        "ball",
        "out = (jax.random.ball(jax.random.key(0), 3, 2, (2,)), jax.random.ball(jax.random.PRNGKey(1), 2, 1.5))",
    ),
    ("jit_gamma", "out = jax.jit(lambda k: jax.random.gamma(k, 2.0, (4,)))(jax.random.key(0))"),
    (
        "vmap_gamma",
        "out = jax.vmap(lambda k, a: jax.random.gamma(k, a))(jax.random.split(jax.random.key(0), 3), jnp.array([0.5, 1., 2.]))",
    ),
    ("err_dirichlet_scalar", "out = jax.random.dirichlet(jax.random.key(0), 1.0)"),
    (
        "callables",
        "out = sorted(x for x in dir(jax.random) if callable(getattr(jax.random, x)) and x in "
        "('ball', 'beta', 'cauchy', 'chisquare', 'dirichlet', 'double_sided_maxwell', 'f', 'gamma', "
        "'generalized_normal', 'geometric', 'laplace', 'loggamma', 'logistic', 'lognormal', 'maxwell', "
        "'pareto', 'rademacher', 'rayleigh', 't', 'triangular', 'wald', 'weibull_min'))",
    ),
]

_COV = "np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)"
_LINALG_SAMPLERS = [
    (
        "multivariate_normal",
        f"lambda k: jax.random.multivariate_normal(k, np.zeros(2, np.float32), {_COV}, (3,))",
    ),
    (
        "multivariate_normal_mean",
        f"lambda k: jax.random.multivariate_normal(k, np.array([1.0, -1.0], np.float32), {_COV})",
    ),
    ("orthogonal", "lambda k: jax.random.orthogonal(k, 3)"),
    ("orthogonal_wide", "lambda k: jax.random.orthogonal(k, 2, (2,), m=3)"),
]
# (values only: the programs print the engine's linalg, whose jaxprs are not JAX's yet)
SNIPPETS["random_linalg"] = [
    (name, f"f = {f}\nout = (f(jax.random.key(0)), f(jax.random.PRNGKey(1)))") for name, f in _LINALG_SAMPLERS
] + [
    (
        "key_dtype",
        "out = [str(jax.random.key_dtype(s)) for s in (None, 'threefry2x32', 'rbg', 'unsafe_rbg')] + "
        "[jax.random.key_dtype() == jax.random.key(0).dtype]",
    ),
    ("err_key_dtype_int", "out = jax.random.key_dtype(3)"),
    ("linalg_diagonal", "out = jnp.linalg.diagonal(jnp.arange(12.0).reshape(3, 2, 2))"),
    (
        "err_mvn_method",
        f"out = jax.random.multivariate_normal(jax.random.key(0), np.zeros(2), {_COV}, method='lu')",
    ),
]

from snippets_jnp_more import JNP_MORE  # noqa: E402

SNIPPETS["jnp_more"] = JNP_MORE
_POISSON = [
    ("poisson", "lambda k: jax.random.poisson(k, 3.0, (5,))"),
    ("poisson_rejection", "lambda k: jax.random.poisson(k, np.array([0.0, 2.0, 30.0, 500.0], np.float32))"),
]
# (values only for these: their programs fold Python constants differently from JAX's yet)
_COUNTING = [
    ("binomial", "lambda k: jax.random.binomial(k, 10, 0.3, (5,))"),
    (
        "binomial_btrs",
        "lambda k: jax.random.binomial(k, np.array([5.0, 100.0, 1000.0], np.float32), "
        "np.array([0.2, 0.7, 0.01], np.float32))",
    ),
    ("multinomial", "lambda k: jax.random.multinomial(k, 10.0, np.array([0.2, 0.3, 0.5], np.float32))"),
]
SNIPPETS["random_discrete"] = (
    [
        (
            name,
            f"f = {f}\nout = (f(jax.random.key(0)), f(jax.random.PRNGKey(1)), str(jax.make_jaxpr(f)(jax.random.key(0))))",
        )
        for name, f in _POISSON
    ]
    + [(name, f"f = {f}\nout = (f(jax.random.key(0)), f(jax.random.PRNGKey(1)))") for name, f in _COUNTING]
    + [
        (
            "multinomial_shape",
            "out = jax.random.multinomial(jax.random.key(0), np.array([5.0, 50.0], np.float32), "
            "np.array([0.1, 0.9], np.float32), shape=(2, 2))",
        ),
        ("jit_poisson", "out = jax.jit(lambda k: jax.random.poisson(k, 3.0, (3,)))(jax.random.key(0))"),
        (
            "vmap_binomial",
            "out = jax.vmap(lambda k: jax.random.binomial(k, 20, 0.5))(jax.random.split(jax.random.key(0), 3))",
        ),
        ("err_poisson_rbg", "out = jax.random.poisson(jax.random.key(0, impl='rbg'), 3.0)"),
        ("err_binomial_int_dtype", "out = jax.random.binomial(jax.random.key(0), 10, 0.5, dtype=jnp.int32)"),
        ("public_names", "out = [x for x in dir(jax.random) if not x.startswith('__')]"),
    ]
)


from snippets_lax_more import LAX_MORE  # noqa: E402

SNIPPETS["lax_more"] = LAX_MORE

from snippets_ragged import ACCURACY, CONV_LOCAL, DOT_ALGORITHMS, RAGGED, SCALED_DOT  # noqa: E402

SNIPPETS["ragged"] = RAGGED
SNIPPETS["dot_algorithms"] = DOT_ALGORITHMS
SNIPPETS["conv_local"] = CONV_LOCAL
SNIPPETS["scaled_dot"] = SCALED_DOT
SNIPPETS["accuracy"] = ACCURACY

from snippets_pswapaxes import PSWAPAXES  # noqa: E402

SNIPPETS["pswapaxes"] = PSWAPAXES

from snippets_shard_map_grads import SHARD_MAP_GRADS  # noqa: E402
from snippets_explicit_fuzz import EXPLICIT_FUZZ  # noqa: E402

SNIPPETS["shard_map_grads"] = SHARD_MAP_GRADS
SNIPPETS["explicit_fuzz"] = EXPLICIT_FUZZ

from snippets_sharded_indexing import SHARDED_INDEXING  # noqa: E402

SNIPPETS["sharded_indexing"] = SHARDED_INDEXING

from snippets_scipy_more import SCIPY_MORE  # noqa: E402

SNIPPETS["scipy_more"] = SCIPY_MORE

from snippets_counts import COUNTS  # noqa: E402

SNIPPETS["random_counts"] = COUNTS

from snippets_linalg_matrices import LINALG_MATRICES  # noqa: E402

SNIPPETS["linalg_matrices"] = LINALG_MATRICES

from snippets_bessel import BESSEL  # noqa: E402

SNIPPETS["bessel"] = BESSEL

from snippets_linalg_eig import LINALG_EIG  # noqa: E402

SNIPPETS["linalg_eig"] = LINALG_EIG
from snippets_complex_linalg import COMPLEX_LINALG  # noqa: E402

SNIPPETS["complex_linalg"] = COMPLEX_LINALG

from snippets_transfer_guard import TRANSFER_GUARD_MATRIX  # noqa: E402

SNIPPETS["transfer_guard_matrix"] = TRANSFER_GUARD_MATRIX

from snippets_custom_batching import CUSTOM_BATCHING  # noqa: E402

SNIPPETS["custom_batching"] = CUSTOM_BATCHING

from snippets_scipy_linalg2 import SCIPY_LINALG2  # noqa: E402

SNIPPETS["scipy_linalg2"] = SCIPY_LINALG2

from snippets_config_flags import CONFIG_FLAGS  # noqa: E402

SNIPPETS["config_flags"] = CONFIG_FLAGS

from snippets_optimize import OPTIMIZE  # noqa: E402

SNIPPETS["optimize"] = OPTIMIZE

from snippets_loop_fma import LOOP_FMA  # noqa: E402

SNIPPETS["loop_fma"] = LOOP_FMA

from snippets_tridiagonal import TRIDIAGONAL  # noqa: E402

SNIPPETS["tridiagonal"] = TRIDIAGONAL

from snippets_symbolic_zeros import SYMBOLIC_ZEROS  # noqa: E402

SNIPPETS["symbolic_zeros"] = SYMBOLIC_ZEROS

from snippets_spatial import SPATIAL  # noqa: E402

SNIPPETS["spatial"] = SPATIAL

from snippets_sparse_linalg import SPARSE_LINALG  # noqa: E402

SNIPPETS["sparse_linalg"] = SPARSE_LINALG

from snippets_spectral import SPECTRAL  # noqa: E402

SNIPPETS["spectral"] = SPECTRAL

from snippets_special_more import SPECIAL_MORE  # noqa: E402

SNIPPETS["special_more"] = SPECIAL_MORE

from snippets_stats_more import STATS_MORE  # noqa: E402

SNIPPETS["stats_more"] = STATS_MORE

from snippets_api_gaps import API_GAPS  # noqa: E402

SNIPPETS["api_gaps"] = API_GAPS

from snippets_jnp_api import JNP_DELETE, JNP_IO, JNP_QUANTILE_WEIGHTS, JNP_UFUNC  # noqa: E402

SNIPPETS.update(
    jnp_delete=JNP_DELETE, jnp_io=JNP_IO, jnp_ufunc=JNP_UFUNC, jnp_quantile_weights=JNP_QUANTILE_WEIGHTS
)

from snippets_semantic_gaps import SEMANTIC_GAPS  # noqa: E402

SNIPPETS["semantic_gaps"] = SEMANTIC_GAPS
from snippets_semantic_gaps import BROADCAST_ERRORS  # noqa: E402

SNIPPETS["broadcast_errors"] = BROADCAST_ERRORS
from snippets_transform_gaps import CUSTOM_VJP_VMAP  # noqa: E402

SNIPPETS["custom_vjp_vmap"] = CUSTOM_VJP_VMAP
from snippets_transform_gaps import VMAP_COLLECTIVES  # noqa: E402

SNIPPETS["vmap_collectives"] = VMAP_COLLECTIVES
from snippets_small_gaps import SMALL_GAPS  # noqa: E402

SNIPPETS["small_gaps"] = SMALL_GAPS
from snippets_class_paths import CLASS_PATHS  # noqa: E402

SNIPPETS["class_paths"] = CLASS_PATHS
from snippets_runtime_errors import CALLBACK_ERRORS  # noqa: E402

SNIPPETS["callback_errors"] = CALLBACK_ERRORS
from snippets_runtime_errors import ORDERED_EFFECTS  # noqa: E402

SNIPPETS["ordered_effects"] = ORDERED_EFFECTS
from snippets_ad_refusals import AD_REFUSALS  # noqa: E402

SNIPPETS["ad_refusals"] = AD_REFUSALS
from snippets_general_reduce import GENERAL_REDUCE, REDUCE_WINDOW_JVP  # noqa: E402

SNIPPETS["general_reduce"] = GENERAL_REDUCE
SNIPPETS["reduce_window_jvp"] = REDUCE_WINDOW_JVP
from snippets_api_misc import API_MISC  # noqa: E402

SNIPPETS["api_misc"] = API_MISC
from snippets_mesh_context import MESH_CONTEXT  # noqa: E402

SNIPPETS["mesh_context"] = MESH_CONTEXT
from snippets_ref_lifetimes import REF_LIFETIMES  # noqa: E402

SNIPPETS["ref_lifetimes"] = REF_LIFETIMES
from snippets_committed import COMMITTED  # noqa: E402

SNIPPETS["committed"] = COMMITTED
from snippets_committed import ARRAY_METHODS  # noqa: E402

SNIPPETS["array_methods"] = ARRAY_METHODS
from snippets_jax_errors import JAX_ERRORS  # noqa: E402

SNIPPETS["jax_errors"] = JAX_ERRORS
from snippets_fuzz_values import FUZZ_VALUES  # noqa: E402

SNIPPETS["fuzz_values"] = FUZZ_VALUES
from snippets_fuzz_texts import FUZZ_TEXTS  # noqa: E402

SNIPPETS["fuzz_texts"] = FUZZ_TEXTS
from snippets_fuzz2_values import FUZZ2_VALUES  # noqa: E402

SNIPPETS["fuzz2_values"] = FUZZ2_VALUES
from snippets_fuzz2_fidelity import FUZZ2_FIDELITY  # noqa: E402

SNIPPETS["fuzz2_fidelity"] = FUZZ2_FIDELITY
from snippets_compile_time_eval import COMPILE_TIME_EVAL  # noqa: E402

SNIPPETS["compile_time_eval"] = COMPILE_TIME_EVAL
from snippets_lax_linalg_more import LAX_LINALG_MORE  # noqa: E402

SNIPPETS["lax_linalg_more"] = LAX_LINALG_MORE
from snippets_weak_tangents import WEAK_TANGENTS  # noqa: E402

SNIPPETS["weak_tangents"] = WEAK_TANGENTS
from snippets_weak_tangents import INT_TANGENTS  # noqa: E402

SNIPPETS["int_tangents"] = INT_TANGENTS
from snippets_default_device import DEFAULT_DEVICE  # noqa: E402

SNIPPETS["default_device"] = DEFAULT_DEVICE
from snippets_fuzz3 import FUZZ3  # noqa: E402

SNIPPETS["fuzz3_values"] = FUZZ3
from snippets_fuzz4 import FUZZ4  # noqa: E402

SNIPPETS["fuzz4_values"] = FUZZ4
from snippets_fuzz5 import FUZZ5  # noqa: E402

SNIPPETS["fuzz5_values"] = FUZZ5
from snippets_host_arrays import HOST_ARRAYS  # noqa: E402

SNIPPETS["host_arrays"] = HOST_ARRAYS
from snippets_fuzz5_linalg import FUZZ5_LINALG  # noqa: E402

SNIPPETS["fuzz5_linalg"] = FUZZ5_LINALG
from snippets_fuzz6_stats import FUZZ6_STATS  # noqa: E402

SNIPPETS["fuzz6_stats"] = FUZZ6_STATS
from snippets_fuzz6_linalg import FUZZ6_LINALG  # noqa: E402

SNIPPETS["fuzz6_linalg"] = FUZZ6_LINALG
from snippets_linalg_f32 import LINALG_F32  # noqa: E402

SNIPPETS["linalg_f32"] = LINALG_F32
from snippets_print_order import PRINT_ORDER  # noqa: E402

SNIPPETS["print_order"] = PRINT_ORDER
from snippets_vjp_pytree import VJP_PYTREE  # noqa: E402

SNIPPETS["vjp_pytree"] = VJP_PYTREE
from snippets_constant_folding import CONSTANT_FOLDING  # noqa: E402

SNIPPETS["constant_folding"] = CONSTANT_FOLDING
from snippets_call_errors import CALL_ERRORS  # noqa: E402

SNIPPETS["call_errors"] = CALL_ERRORS
from snippets_partition_specs import PARTITION_SPECS  # noqa: E402

SNIPPETS["partition_specs"] = PARTITION_SPECS


from snippets_conv_order import CONV_ORDER  # noqa: E402

SNIPPETS["conv_order"] = CONV_ORDER
from snippets_special_values import SPECIAL_VALUES  # noqa: E402

SNIPPETS["special_values"] = SPECIAL_VALUES
from snippets_tracer_origins import TRACER_ORIGINS  # noqa: E402

SNIPPETS["tracer_origins"] = TRACER_ORIGINS
from snippets_one_device_mesh import ONE_DEVICE_MESH  # noqa: E402

SNIPPETS["one_device_mesh"] = ONE_DEVICE_MESH
from snippets_tracer_messages import TRACER_MESSAGES  # noqa: E402

SNIPPETS["tracer_messages"] = TRACER_MESSAGES
from snippets_real_programs import REAL_PROGRAMS  # noqa: E402

SNIPPETS["real_programs"] = REAL_PROGRAMS
from snippets_transform_stacks import TRANSFORM_STACKS  # noqa: E402

SNIPPETS["transform_stacks"] = TRANSFORM_STACKS
from snippets_eager_compiled import EAGER_COMPILED  # noqa: E402

SNIPPETS["eager_compiled"] = EAGER_COMPILED
from snippets_pmap_compiled import PMAP_COMPILED  # noqa: E402

SNIPPETS["pmap_compiled"] = PMAP_COMPILED
from snippets_fuzz7 import FUZZ7  # noqa: E402

SNIPPETS["fuzz7_values"] = FUZZ7
from snippets_fuzz8 import FUZZ8  # noqa: E402

SNIPPETS["fuzz8"] = FUZZ8
from snippets_control_flow_errors import CONTROL_FLOW_ERRORS  # noqa: E402

SNIPPETS["control_flow_errors"] = CONTROL_FLOW_ERRORS
from snippets_argument_errors import ARGUMENT_ERRORS  # noqa: E402

SNIPPETS["argument_errors"] = ARGUMENT_ERRORS
from snippets_shape_rules import SHAPE_RULES  # noqa: E402

SNIPPETS["shape_rules"] = SHAPE_RULES

from snippets_hijax import HIJAX  # noqa: E402

SNIPPETS["hijax"] = HIJAX
from snippets_fuzz9 import FUZZ9  # noqa: E402

SNIPPETS["fuzz9"] = FUZZ9
from snippets_fuzz10 import FUZZ10  # noqa: E402

SNIPPETS["fuzz10"] = FUZZ10
from snippets_fuzz11 import FUZZ11  # noqa: E402

SNIPPETS["fuzz11"] = FUZZ11
