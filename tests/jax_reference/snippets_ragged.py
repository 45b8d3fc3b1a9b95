"""Snippets for lax's contractions and their options added for the API surface (issue 13): the ragged
contractions (``ragged_dot``, ``ragged_dot_general`` in its three modes: values, jaxprs, derivatives,
vmap, errors), the dot algorithms a contraction's precision takes, ``conv_general_dilated_local``,
``scaled_dot``, and the unary ops' ``accuracy=``. Registered in snippets.py."""

R = (
    "r = np.random.RandomState(0)\n"
    "x = jnp.asarray(r.randn(5, 3), jnp.float32); w = jnp.asarray(r.randn(2, 3, 4), jnp.float32)\n"
    "gs = jnp.array([2, 2], jnp.int32)\n"
)
# mode 2 (the ragged dimension contracted: one result per group) and mode 3 (a batch dimension)
K = (
    "r = np.random.RandomState(1)\n"
    "a = jnp.asarray(r.randn(2, 5), jnp.float32); b = jnp.asarray(r.randn(5, 3), jnp.float32)\n"
    "dk = lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])\n"
)
B = (
    "r = np.random.RandomState(2)\n"
    "a = jnp.asarray(r.randn(4, 2, 3), jnp.float32); b = jnp.asarray(r.randn(4, 3, 2), jnp.float32)\n"
    "db = lax.RaggedDotDimensionNumbers((([2], [1]), ([0], [0])), [0], [])\n"
)

RAGGED = [
    (
        "ragged_dot",
        R
        + "out = (lax.ragged_dot(x, w, gs), lax.ragged_dot(x, w, jnp.array([4, 3])), lax.ragged_dot(x, w, jnp.array([0, 1])))",
    ),
    ("ragged_dot_jit", R + "out = jax.jit(lax.ragged_dot)(x, w, gs)"),
    (
        "ragged_dot_int",
        "out = lax.ragged_dot(jnp.arange(6).reshape(3, 2), jnp.arange(8).reshape(2, 2, 2), jnp.array([1, 2]))",
    ),
    (
        "ragged_dot_pref",
        R
        + "out = lax.ragged_dot(x.astype(jnp.float16), w.astype(jnp.float16), gs, preferred_element_type=jnp.float32)",
    ),
    ("ragged_dot_jaxpr", R + "out = str(jax.make_jaxpr(lax.ragged_dot)(x, w, gs))"),
    (
        "ragged_dot_jaxpr_precision",
        R
        + "out = str(jax.make_jaxpr(lambda x, w, g: lax.ragged_dot(x, w, g, precision='highest'))(x, w, gs))",
    ),
    (
        "ragged_dot_grad",
        R + "out = jax.grad(lambda x, w: jnp.sin(lax.ragged_dot(x, w, gs)).sum(), argnums=(0, 1))(x, w)",
    ),
    # (second order: the rhs gradient's ragged dimension is contracted, a mode JAX cannot transpose)
    (
        "ragged_dot_grad_of_grad",
        R
        + "out = jax.grad(lambda w: jax.grad(lambda x, w: jnp.sin(lax.ragged_dot(x, w, gs)).sum())(x, w).sum())(w)",
    ),
    (
        "err_ragged_dot_grad_of_rhs_grad",
        R
        + "out = jax.grad(lambda x: jax.grad(lambda x, w: jnp.sin(lax.ragged_dot(x, w, gs)).sum(), 1)(x, w).sum())(x)",
    ),
    (
        "ragged_dot_grad_jaxpr",
        R
        + "out = str(jax.make_jaxpr(jax.grad(lambda x, w: lax.ragged_dot(x, w, gs).sum(), argnums=(0, 1)))(x, w))",
    ),
    (
        "ragged_dot_jvp",
        R + "out = jax.jvp(lambda x, w: lax.ragged_dot(x, w, gs), (x, w), (jnp.ones_like(x), w))",
    ),
    (
        "ragged_dot_vmap",
        R
        + "out = jax.vmap(lax.ragged_dot)(jnp.stack([x, 2 * x]), jnp.stack([w, -w]), jnp.array([[2, 2], [1, 4]]))",
    ),
    (
        "ragged_dot_vmap_jaxpr",
        R + "out = str(jax.make_jaxpr(jax.vmap(lax.ragged_dot))(x[None], w[None], gs[None]))",
    ),
    (
        "err_ragged_dot_vmap_unbatched_sizes",
        R + "out = jax.vmap(lax.ragged_dot, in_axes=(0, 0, None))(x[None], w[None], gs)",
    ),
    ("err_ragged_dot_float_sizes", R + "out = lax.ragged_dot(x, w, jnp.array([2., 2.]))"),
    ("err_ragged_dot_group_count", R + "out = lax.ragged_dot(x, w, jnp.array([2, 2, 1]))"),
    ("err_ragged_dot_scalar_sizes", R + "out = lax.ragged_dot(x, w, jnp.array(2))"),
    ("err_ragged_dot_contracting", R + "out = lax.ragged_dot(x, w[:, :2], gs)"),
    ("err_ragged_dot_group_offset", R + "out = lax.ragged_dot(x, w, gs, group_offset=1)"),
    (
        "ragged_general_free_batched",
        "r = np.random.RandomState(3)\n"
        "a = jnp.asarray(r.randn(2, 4, 3), jnp.float32); b = jnp.asarray(r.randn(2, 3, 3, 5), jnp.float32)\n"
        "d = lax.RaggedDotDimensionNumbers((([2], [2]), ([0], [0])), [1], [1])\n"
        "g = jnp.array([[1, 2, 1], [0, 3, 1]])\n"
        "out = (lax.ragged_dot_general(a, b, g, d), lax.ragged_dot_general(a, b, jnp.array([2, 1, 1]), d), "
        "jax.grad(lambda a, b: jnp.sin(lax.ragged_dot_general(a, b, g, d)).sum(), argnums=(0, 1))(a, b))",
    ),
    (
        "err_ragged_general_sizes_shape",
        K + "out = lax.ragged_dot_general(a, b, jnp.ones((3, 2), jnp.int32), dk)",
    ),
    (
        "ragged_general_contracting",
        K
        + "out = (lax.ragged_dot_general(a, b, jnp.array([2, 3]), dk), lax.ragged_dot_general(a, b, jnp.array([1, 6]), dk))",
    ),
    (
        "err_ragged_general_contracting_2d_sizes",
        K + "out = lax.ragged_dot_general(a, b, jnp.array([[1, 4], [2, 2]]), dk)",
    ),
    (
        "ragged_general_contracting_jaxpr",
        K
        + "out = str(jax.make_jaxpr(lambda a, b: lax.ragged_dot_general(a, b, jnp.array([2, 3]), dk))(a, b))",
    ),
    (
        "ragged_general_contracting_jvp",
        K + "out = jax.jvp(lambda a, b: lax.ragged_dot_general(a, b, jnp.array([2, 3]), dk), (a, b), (a, b))",
    ),
    (
        "ragged_general_contracting_vmap",
        K
        + "out = jax.vmap(lambda a, b, g: lax.ragged_dot_general(a, b, g, dk))(jnp.stack([a, a]), jnp.stack([b, 2 * b]), jnp.array([[2, 3], [5, 0]]))",
    ),
    (
        "err_ragged_general_contracting_grad",
        K + "out = jax.grad(lambda a: lax.ragged_dot_general(a, b, jnp.array([2, 3]), dk).sum())(a)",
    ),
    (
        "err_ragged_general_contracting_group_dim",
        K
        + "out = lax.ragged_dot_general(a, b, jnp.array([2, 3]), lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [1]))",
    ),
    (
        "err_ragged_general_two_ragged",
        K
        + "out = lax.ragged_dot_general(a, b, jnp.array([2, 3]), lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [0, 1], []))",
    ),
    (
        "err_ragged_general_out_of_range",
        K
        + "out = lax.ragged_dot_general(a, b, jnp.array([2, 3]), lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [2], []))",
    ),
    (
        "ragged_general_batch",
        B
        + "out = (lax.ragged_dot_general(a, b, jnp.array([1, 3]), db), str(jax.make_jaxpr(lambda a, b: lax.ragged_dot_general(a, b, jnp.array([1, 3]), db))(a, b)))",
    ),
    (
        "ragged_dimension_numbers",
        K + "e = lax.RaggedDotDimensionNumbers([[(1,), [0]], [[], ()]], (1,), ())\n"
        "out = (repr(dk), dk == e, hash(dk) == hash(e), dk.lhs_ragged_dimensions, dk.dot_dimension_numbers)",
    ),
]

# Dot algorithms as a contraction's precision: what a CPU computes with each preset (the operands
# rounded to its input types, accumulated in its type), which it refuses, and the jaxpr's param.
D = (
    "r = np.random.RandomState(4)\n"
    "a = jnp.asarray(r.randn(2, 30), jnp.float32); b = jnp.asarray(r.randn(30, 3), jnp.float32)\n"
)
DOT_ALGORITHMS = [
    *(
        (
            f"preset_{p}",
            D
            + f"out = [lax.dot(a.astype(t), b.astype(t), precision='{p}') for t in (jnp.float32, jnp.float16, jnp.int32)]",
        )
        for p in "DEFAULT F16_F16_F16 BF16_BF16_F32 BF16_BF16_F32_X3 BF16_BF16_F32_X6 F32_F32_F32 F64_F64_F64".split()
    ),
    (
        "preset_enum_jit",
        D + "out = jax.jit(lambda a, b: lax.dot(a, b, precision=lax.DotAlgorithmPreset.F16_F16_F16))(a, b)",
    ),
    (
        "preset_dot_general_grad",
        D
        + "out = jax.grad(lambda a: jnp.sin(lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision='F16_F16_F16')).sum())(a)",
    ),
    (
        "preset_jaxpr",
        D
        + "out = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=lax.DotAlgorithmPreset.F32_F32_F32))(a, b))",
    ),
    (
        "preset_refused_jaxpr",
        D + "out = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision='TF32_TF32_F32'))(a, b))",
    ),
    ("err_preset_refused", D + "out = lax.dot(a, b, precision='TF32_TF32_F32')"),
    (
        "err_preset_refused_jit",
        D + "out = jax.jit(lambda a, b: lax.dot(a, b, precision='BF16_BF16_BF16'))(a, b)",
    ),
    (
        "err_algorithm_refused",
        D + "out = lax.dot(a, b, precision=lax.DotAlgorithm(jnp.float32, jnp.float32, jnp.float32))",
    ),
    ("err_precision_name", D + "out = lax.dot(a, b, precision='HIGHEST')"),
    ("err_precision_pair_of_presets", D + "out = lax.dot(a, b, precision=('F32_F32_F32', 'F32_F32_F32'))"),
    (
        "precision_strings",
        D
        + "out = str(jax.make_jaxpr(lambda a, b: lax.dot(a, b, precision=('float32', 'tensorfloat32')))(a, b))",
    ),
    (
        "preset_properties",
        "P = lax.DotAlgorithmPreset\n"
        "out = ([str(p) for p in P], repr(P.F16_F16_F32), str(P.F32_F32_F32.accumulation_type), str(P.DEFAULT.accumulation_type), "
        "str(P.F16_F16_F16.supported_lhs_types), str(P.ANY_F8_ANY_F8_F32.supported_rhs_types), str(P.F16_F16_F32.supported_output_types(np.float16, np.float16)))",
    ),
    (
        "algorithm_fields",
        "a = lax.DotAlgorithm(np.float16, np.float16, np.float32)\n"
        "out = (list(a._fields), a.lhs_component_count, a.num_primitive_operations, a.allow_imprecise_accumulation, a == lax.DotAlgorithm(np.float16, np.float16, np.float32, 1))",
    ),
]

# lax.conv_general_dilated_local: an unshared convolution, JAX's patches contracted with the kernel.
L = (
    "r = np.random.RandomState(5)\n"
    "x = jnp.asarray(r.randn(2, 3, 6, 5), jnp.float32)\n"
    "w = jnp.asarray(r.randn(7, 12, 5, 4), jnp.float32); wt = jnp.asarray(r.randn(12, 5, 4, 7), jnp.float32)\n"
)
CONV_LOCAL = [
    ("conv_local", L + "out = lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2))"),
    (
        "conv_local_layouts",
        L
        + "out = lax.conv_general_dilated_local(x, wt, (1, 1), 'VALID', (2, 2), dimension_numbers=('NCHW', 'IHWO', 'NHWC'))",
    ),
    (
        "conv_local_strided_padded",
        L + "w2 = jnp.asarray(r.randn(7, 3 * 6, 3, 2), jnp.float32)\n"
        "out = lax.conv_general_dilated_local(x, w2, (2, 2), [(1, 1), (0, 1)], (3, 2), rhs_dilation=(1, 2))",
    ),
    (
        "err_conv_local_same_lhs_dilation",
        L
        + "w3 = jnp.asarray(r.randn(2, 3, 11, 9), jnp.float32)\nout = lax.conv_general_dilated_local(x, w3, (1, 1), 'SAME', (1, 1), lhs_dilation=(2, 2))",
    ),
    (
        "conv_local_jaxpr",
        L
        + "out = str(jax.make_jaxpr(lambda x, w: lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2), dimension_numbers=('NCHW', 'IHWO', 'NHWC')))(x, wt))",
    ),
    (
        "conv_local_grad",
        L
        + "out = jax.grad(lambda x, w: jnp.sin(lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2), precision='highest')).sum(), (0, 1))(x, w)",
    ),
    (
        "conv_local_vmap",
        L
        + "out = jax.vmap(lambda w: lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2)))(jnp.stack([w, -w]))",
    ),
    (
        "err_conv_local_preset",
        L + "out = lax.conv_general_dilated_local(x, w, (1, 1), 'VALID', (2, 2), precision='F32_F32_F32')",
    ),
    (
        "err_conv_local_kernel_shape",
        L + "out = lax.conv_general_dilated_local(x, wt, (1, 1), 'VALID', (2, 2))",
    ),
]

# lax.scaled_dot: operands times block scales, in bfloat16, contracted into the preferred type.
S = (
    "r = np.random.RandomState(6)\n"
    "a = jnp.asarray(r.randn(3, 8), jnp.float32); b = jnp.asarray(r.randn(8, 2), jnp.float32)\n"
    "sa = jnp.asarray(r.rand(3, 2) + 0.5, jnp.float32); sb = jnp.asarray(r.rand(2, 2) + 0.5, jnp.float32)\n"
    "f32 = jnp.float32\n"
)
SCALED_DOT = [
    ("scaled", S + "out = lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=f32)"),
    ("scaled_no_scales", S + "out = lax.scaled_dot(a, b, preferred_element_type=f32)"),
    (
        "scaled_f16",
        S + "out = lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=jnp.float16)",
    ),
    (
        "scaled_batched",
        S + "x = jnp.asarray(r.randn(2, 3, 6), f32); y = jnp.asarray(r.randn(2, 6, 4), f32)\n"
        "out = lax.scaled_dot(x, y, lhs_scale=jnp.ones((2, 3, 3)) * 2, rhs_scale=jnp.asarray(r.rand(2, 2, 4), f32), preferred_element_type=f32)",
    ),
    (
        "scaled_dimension_numbers",
        S
        + "out = lax.scaled_dot(b.T, a.T, lhs_scale=sb.T, rhs_scale=sa.T, dimension_numbers=(((1,), (0,)), ((), ())), preferred_element_type=f32)",
    ),
    (
        "scaled_jit",
        S
        + "out = jax.jit(lambda a, b: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=f32))(a, b)",
    ),
    (
        "scaled_vmap",
        S
        + "out = jax.vmap(lambda a, s: lax.scaled_dot(a, b, lhs_scale=s, rhs_scale=sb, preferred_element_type=f32))(jnp.stack([a, 2 * a]), jnp.stack([sa, sa]))",
    ),
    (
        "scaled_jaxpr",
        S
        + "out = str(jax.make_jaxpr(lambda a, b, sa, sb: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=f32))(a, b, sa, sb))",
    ),
    (
        "err_scaled_grad",
        S
        + "out = jax.grad(lambda a: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=f32).sum())(a)",
    ),
    ("err_scaled_rank1", S + "out = lax.scaled_dot(a[0], b[:, 0], preferred_element_type=f32)"),
    (
        "err_scaled_ratio",
        S
        + "out = lax.scaled_dot(a, b, lhs_scale=jnp.ones((3, 8)), rhs_scale=sb, preferred_element_type=f32)",
    ),
    (
        "err_scaled_divisible",
        S
        + "out = lax.scaled_dot(a, b, lhs_scale=jnp.ones((3, 3)), rhs_scale=sb, preferred_element_type=f32)",
    ),
    (
        "err_scaled_free_dim",
        S
        + "out = lax.scaled_dot(a, b, lhs_scale=jnp.ones((2, 2)), rhs_scale=sb, preferred_element_type=f32)",
    ),
    (
        "err_scaled_rank",
        S
        + "out = lax.scaled_dot(a, b, lhs_scale=jnp.ones((3, 2, 1)), rhs_scale=sb, preferred_element_type=f32)",
    ),
    ("err_scaled_contracting", S + "out = lax.scaled_dot(a, b[:4], preferred_element_type=f32)"),
    # without preferred_element_type: a bfloat16 result (placeholder scales: float8_e8m0fnu ones)
    (
        "scaled_default_type",
        S + "out = (lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb), lax.scaled_dot(a, b), "
        "lax.scaled_dot(a.astype(jnp.bfloat16), b.astype(jnp.bfloat16), lhs_scale=sa.astype(jnp.bfloat16), "
        "rhs_scale=sb.astype(jnp.bfloat16)), lax.scaled_dot(a.astype(jnp.float8_e4m3fn), b.astype(jnp.float8_e4m3fn), "
        "lhs_scale=sa.astype(jnp.float8_e8m0fnu), rhs_scale=sb.astype(jnp.float8_e8m0fnu)), "
        "jax.jit(lambda a, b: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb))(a, b), "
        "jax.vmap(lambda a, s: lax.scaled_dot(a, b, lhs_scale=s, rhs_scale=sb))(jnp.stack([a, 2 * a]), jnp.stack([sa, sa])))",
    ),
    (
        "scaled_default_type_jaxprs",
        S
        + "out = (str(jax.make_jaxpr(lambda a, b, sa, sb: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb))(a, b, sa, sb)), "
        "str(jax.make_jaxpr(lambda a, b: lax.scaled_dot(a, b))(a, b)))",
    ),
    (
        "scaled_integer_type",  # (the float32 product truncated toward zero)
        S + "out = lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=jnp.int32)",
    ),
]

# accuracy= of the transcendental unary ops: a param of the primal equation only; a CPU computes the
# default implementation.
A = "x = jnp.array([0.5, 1.5, 2.25])\nH = lax.AccuracyMode.HIGHEST\n"
ACCURACY = [
    *(
        (
            f"accuracy_{n}",
            A + f"f = lax.{n}\n"
            "out = (f(x, accuracy=H), jax.jit(lambda x: f(x, accuracy=lax.Tolerance(atol=1e-3, ulps=2)))(x), "
            "jax.grad(lambda x: jnp.sin(f(x, accuracy=H)).sum())(x))",
            1e-5
            if n in ("exp", "exp2", "log", "sin", "cos", "sqrt", "rsqrt", "cbrt", "tan", "expm1")
            else 1e-6,
        )
        for n in "exp exp2 expm1 log log1p tanh logistic sin cos tan sqrt rsqrt cbrt".split()
    ),
    ("accuracy_jaxpr", A + "out = str(jax.make_jaxpr(lambda x: lax.exp(x, accuracy=H))(x))"),
    ("accuracy_none_jaxpr", A + "out = str(jax.make_jaxpr(lambda x: lax.exp(x, accuracy=None))(x))"),
    (
        "accuracy_grad_jaxpr",
        A + "out = str(jax.make_jaxpr(jax.grad(lambda x: lax.tan(x, accuracy=H).sum()))(x))",
    ),
    (
        "accuracy_vmap_jaxpr",
        A + "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.cos(x, accuracy=lax.AccuracyMode.DEFAULT)))(x))",
    ),
    ("accuracy_complex", A + "out = lax.sin(x * 1j, accuracy=H)"),
    (
        "accuracy_modes",
        "out = ([m.name for m in lax.AccuracyMode], lax.AccuracyMode.HIGHEST.value, str(lax.AccuracyMode.DEFAULT))",
    ),
    ("tolerance_fields", "t = lax.Tolerance(rtol=1e-3)\nout = (t.atol, t.rtol, t.ulps)"),
    ("err_tolerance_negative", "out = lax.Tolerance(atol=-1.0)"),
    ("err_tolerance_unset", "out = lax.Tolerance()"),
    ("err_accuracy_string", A + "out = lax.exp(x, accuracy='high')"),
    ("err_accuracy_not_taken", A + "out = lax.neg(x, accuracy=H)"),
]
