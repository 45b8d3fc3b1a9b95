"""float32 convolutions summed in XLA's order (engine/lax/conv_order.py): forward convolutions
and their gradients (convolutions too), eagerly and under jit, compared bit for bit (rtol 0).
Large results are compared by the sha256 of their bits (with the first values, to see what
differs). Not here, because not matched yet (``_UNMATCHED`` below and conv_order's docstring):
jnp.convolve/correlate of vectors (one output feature), lax.conv_transpose (lhs_dilation),
depthwise convolutions, several weight gradients. Registered in snippets.py (``conv_order``)."""

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
}


def _conv(name):
    lhs, rhs, kw = _CONVS[name]
    return _DATA + f"x, w = data({lhs}, {rhs})\nf = lambda x, w: lax.conv_general_dilated(x, w, {kw})\n"


# Gradients (and forward convolutions) whose order is not matched yet (see conv_order's docstring):
# the input gradients of strided convolutions (lhs_dilation), the convolutions with one output
# feature a group (N == 1: depthwise), the weight gradients of grouped ones (batch groups), and
# convolutions whose k Eigen shards by a thread count its cost model picks otherwise.
_UNMATCHED = {
    "c1_o4_5x5": ("grad_lhs", "grad_rhs", "grad_jit"),
    "c1_o64": ("grad_lhs", "grad_jit"),
    "c3_o8_stride2": ("grad_lhs", "grad_jit"),
    "c8_o17_pad1": ("grad_lhs", "grad_jit"),
    "c8_o8_valid": ("grad_rhs", "grad_jit"),
    "cnn_3to16_same": ("grad_rhs", "grad_jit"),
    "conv1d": ("grad_rhs", "grad_jit"),
    "conv3d": ("grad_rhs", "grad_jit"),
    "depthwise": ("eager", "jit", "grad_lhs", "grad_rhs", "grad_jit"),
    "groups2": ("grad_rhs", "grad_jit"),
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


_EXAMPLE = (
    "lhs = jnp.arange(50, dtype=jnp.float32).reshape(2, 1, 5, 5) / 10\n"
    "rhs = jnp.ones((3, 1, 2, 2)) * 0.5\n"
    "g = lambda r: lax.conv_general_dilated(lhs, r, (1, 1), 'VALID').sum()\n"
)

CONV_ORDER = [
    ("weight_grad_example", _EXAMPLE + "out = jax.grad(g)(rhs)[0, 0]", 0.0),
    ("weight_grad_example_jit", _EXAMPLE + "out = jax.jit(jax.grad(g))(rhs)[0, 0]", 0.0),
    *[case for name in _CONVS for case in _cases(name)],
]
