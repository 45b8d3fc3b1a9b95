"""float32 convolutions summed in XLA's order (engine/lax/conv_order.py): forward convolutions
and their gradients (convolutions too), eagerly and under jit, compared bit for bit (rtol 0), and
jnp.convolve/correlate of vectors. Large results are compared by the sha256 of their bits (with the
first values, to see what differs). Not here, because not matched yet (``_UNMATCHED`` below and
conv_order's docstring): the weight gradients of grouped and depthwise convolutions (batch
groups) and a few others. Registered in snippets.py
(``conv_order``); tests/test_conv_sweep.py has a random sweep."""

_DATA = (
    "import hashlib\n"
    "rng = np.random.default_rng(0)\n"
    "def bits(y):\n"
    "    y = np.asarray(y, np.float32)\n"
    "    return y if y.size <= 64 else (hashlib.sha256(y.tobytes()).hexdigest(), y.ravel()[:4])\n"
    "def data(lhs, rhs):\n"
    "    return (rng.standard_normal(lhs).astype(np.float32), rng.standard_normal(rhs).astype(np.float32))\n"
)

# name -> (lhs shape, rhs shape, keyword arguments of lax.conv_general_dilated)
_CONVS = {
    "cnn_3to16_same": ((8, 3, 16, 16), (16, 3, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "c8_o8_valid": ((4, 8, 12, 12), (8, 8, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c16_o16_same": ((2, 16, 10, 10), (16, 16, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "c1_o4_5x5": ((3, 1, 12, 12), (4, 1, 5, 5), "window_strides=(1, 1), padding='VALID'"),
    "c3_o8_stride2": ((4, 3, 15, 15), (8, 3, 3, 3), "window_strides=(2, 2), padding='SAME'"),
    "c32_o32_tile2": ((2, 32, 10, 10), (32, 32, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c64_o32_tile2": ((2, 64, 10, 10), (32, 64, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c64_o8_tile4": ((2, 64, 10, 10), (8, 64, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c24_o17_tile4": ((8, 24, 6, 6), (17, 24, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c8_o17_pad1": ((8, 8, 9, 9), (17, 8, 3, 3), "window_strides=(1, 1), padding=((1, 1), (1, 1))"),
    "c40_o3_5x5": ((1, 40, 9, 9), (3, 40, 5, 5), "window_strides=(1, 1), padding='VALID'"),
    "c6_o17_tile2": ((8, 6, 10, 10), (17, 6, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "c1_o64": ((8, 1, 10, 10), (64, 1, 3, 3), "window_strides=(1, 1), padding='VALID'"),
    "rhs_dilated": (
        (2, 4, 12, 12),
        (8, 4, 3, 3),
        "window_strides=(1, 1), padding='VALID', rhs_dilation=(2, 2)",
    ),
    "conv1d": ((4, 3, 40), (5, 3, 7), "window_strides=(1,), padding='SAME'"),
    "conv3d": ((2, 3, 6, 6, 6), (4, 3, 2, 2, 2), "window_strides=(1, 1, 1), padding='VALID'"),
    "depthwise": ((2, 6, 9, 9), (6, 1, 3, 3), "window_strides=(1, 1), padding='SAME', feature_group_count=6"),
    "groups2": ((2, 8, 9, 9), (8, 4, 3, 3), "window_strides=(1, 1), padding='VALID', feature_group_count=2"),
    "depthwise16_valid": (
        (4, 16, 12, 12),
        (16, 1, 3, 3),
        "window_strides=(1, 1), padding='VALID', feature_group_count=16",
    ),
    "depthwise_1d": ((2, 8, 50), (8, 1, 5), "window_strides=(1,), padding='SAME', feature_group_count=8"),
    "depthwise_x2": (
        (2, 4, 10, 10),
        (8, 1, 3, 3),
        "window_strides=(1, 1), padding='SAME', feature_group_count=4",
    ),
    "one_output_feature": ((4, 8, 10, 10), (1, 8, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "pointwise_1x1": ((4, 8, 6, 6), (12, 8, 1, 1), "window_strides=(1, 1), padding='VALID'"),
    "vector_k_sharded": ((1, 1, 400), (1, 1, 127), "window_strides=(1,), padding='VALID'"),
    "vector_k_sliced": ((1, 1, 605), (1, 1, 600), "window_strides=(1,), padding='VALID'"),
    "long_kernel_swapped": ((1, 1, 9), (1, 1, 40), "window_strides=(1,), padding=((39, 39),)"),
    # Eigen's thunk (conv_order.thunk_plan): CNN weight gradients (k sharded between 2 threads,
    # each shard in blocks of 320), one chain over all of k where its cost model does not shard
    # (small M), no lanes for 17+ output features, k in blocks (several sgemm calls)
    "cnn_bench_32": ((8, 3, 32, 32), (16, 3, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "cnn_1to8_28": ((8, 1, 28, 28), (8, 1, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "cnn_8to16_16": ((16, 8, 16, 16), (16, 8, 3, 3), "window_strides=(1, 1), padding='SAME'"),
    "wgrad_small_m": (
        (8, 1, 9, 9),
        (8, 1, 1, 5),
        "window_strides=(1, 1), padding=((1, 0), (1, 1)), rhs_dilation=(2, 2)",
    ),
    "wgrad_strided_small_m": (
        (8, 4, 10, 11),
        (4, 4, 1, 3),
        "window_strides=(3, 1), padding=((2, 2), (0, 0))",
    ),
    "conv1d_o17": ((8, 16, 25), (17, 16, 5), "window_strides=(1,), padding=((1, 0),)"),
    "o33_thunk": ((3, 8, 12, 7), (33, 8, 5, 3), "window_strides=(1, 1), padding=((2, 1), (1, 2))"),
    "c33_k_blocks": (
        (2, 32, 12, 11),
        (33, 32, 5, 4),
        "window_strides=(1, 1), padding=((0, 0), (2, 1)), rhs_dilation=(1, 2)",
    ),
}


def _conv(name):
    lhs, rhs, kw = _CONVS[name]
    return _DATA + f"x, w = data({lhs}, {rhs})\nf = lambda x, w: lax.conv_general_dilated(x, w, {kw})\n"


# Gradients whose order is not matched yet (see conv_order's docstring): the weight gradients of
# grouped ones (batch groups), a 3-D one, a swapped loop nest (o33_thunk's weight gradient: XLA's
# own loop), c8_o17_pad1's input gradient.
_UNMATCHED = {
    "c8_o17_pad1": ("grad_lhs", "grad_jit"),
    "conv3d": ("grad_rhs", "grad_jit"),
    "depthwise_x2": ("grad_rhs", "grad_jit"),
    "groups2": ("grad_rhs", "grad_jit"),
    "o33_thunk": ("grad_rhs", "grad_jit"),
}


def _cases(name):
    code = _conv(name)
    cot = "c = rng.standard_normal(f(x, w).shape).astype(np.float32)\n"
    grads = "jax.grad(lambda x, w: (f(x, w) * c).sum(), argnums=(0, 1))"
    cases = [
        (f"{name}_eager", code + "out = bits(f(x, w))", 0.0),
        (f"{name}_jit", code + "out = bits(jax.jit(f)(x, w))", 0.0),
        (f"{name}_grad_lhs", code + cot + f"out = bits({grads}(x, w)[0])", 0.0),
        (f"{name}_grad_rhs", code + cot + f"out = bits({grads}(x, w)[1])", 0.0),
        (f"{name}_grad_jit", code + cot + f"g = jax.jit({grads})(x, w)\nout = (bits(g[0]), bits(g[1]))", 0.0),
    ]
    return [case for case in cases if case[0][len(name) + 1 :] not in _UNMATCHED.get(name, ())]


# jnp.convolve / jnp.correlate of vectors: convolutions with one feature (oneDNN's GEMV), of a
# kernel longer than the input (swapped operands: XLA's loop) or of equal lengths (a dot)
_VECTORS = {
    "convolve_full": (
        "a = rng.standard_normal(300).astype(np.float32)\nv = rng.standard_normal(37).astype(np.float32)\n",
        "jnp.convolve(a, v)",
    ),
    "convolve_same": (
        "a = rng.standard_normal(500).astype(np.float32)\nv = rng.standard_normal(64).astype(np.float32)\n",
        "jnp.convolve(a, v, 'same')",
    ),
    "convolve_short": (
        "a = rng.standard_normal(5).astype(np.float32)\nv = rng.standard_normal(3).astype(np.float32)\n",
        "jnp.convolve(a, v)",
    ),
    "correlate_valid": (
        "a = rng.standard_normal(400).astype(np.float32)\nv = rng.standard_normal(127).astype(np.float32)\n",
        "jnp.correlate(a, v)",
    ),
    "correlate_full": (
        "a = rng.standard_normal(100).astype(np.float32)\nv = rng.standard_normal(9).astype(np.float32)\n",
        "jnp.correlate(a, v, 'full')",
    ),
    "correlate_equal": (
        "a = rng.standard_normal(100).astype(np.float32)\nv = rng.standard_normal(100).astype(np.float32)\n",
        "jnp.correlate(a, v)",
    ),
    "conv_transpose_2d": (
        "a = rng.standard_normal((2, 4, 8, 8)).astype(np.float32)\nv = rng.standard_normal((3, 3, 4, 5)).astype(np.float32)\n",
        "lax.conv_transpose(a, v, (2, 2), 'SAME', dimension_numbers=('NCHW', 'HWIO', 'NCHW'))",
    ),
    "conv_transpose_1d": (
        "a = rng.standard_normal((3, 8, 20)).astype(np.float32)\nv = rng.standard_normal((4, 8, 6)).astype(np.float32)\n",
        "lax.conv_transpose(a, v, (3,), 'VALID', dimension_numbers=('NCH', 'HIO', 'NCH'))",
    ),
    "convolve_long_kernel": (
        "a = rng.standard_normal(20).astype(np.float32)\nv = rng.standard_normal(9).astype(np.float32)\n",
        "jnp.convolve(v, a, 'same')",
    ),
}


def _vector_cases(name):
    setup, call = _VECTORS[name]
    code = _DATA + setup
    return [
        (f"{name}_eager", code + f"out = bits({call})", 0.0),
        (f"{name}_jit", code + f"out = bits(jax.jit(lambda a, v: {call})(a, v))", 0.0),
    ]


_EXAMPLE = (
    "lhs = jnp.arange(50, dtype=jnp.float32).reshape(2, 1, 5, 5) / 10\n"
    "rhs = jnp.ones((3, 1, 2, 2)) * 0.5\n"
    "g = lambda r: lax.conv_general_dilated(lhs, r, (1, 1), 'VALID').sum()\n"
)

CONV_ORDER = [
    ("weight_grad_example", _EXAMPLE + "out = jax.grad(g)(rhs)[0, 0]", 0.0),
    ("weight_grad_example_jit", _EXAMPLE + "out = jax.jit(jax.grad(g))(rhs)[0, 0]", 0.0),
    *[case for name in _CONVS for case in _cases(name)],
    *[case for name in _VECTORS for case in _vector_cases(name)],
]
