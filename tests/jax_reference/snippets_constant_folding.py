"""Values XLA computes from constants while compiling (its HloEvaluator), jitted functions of
closed-over arrays: ``engine/constant_folding.py``. Outputs are the float32 bit patterns, so the
comparison is exact."""

_C = "rng = np.random.RandomState(0)\nx = rng.randn(8, 33).astype(np.float32)\nw = rng.randn(3, 20).astype(np.float32)\n"
_BITS = "\nout = np.asarray(y).view(np.uint32)"

CONSTANT_FOLDING = [
    ("softmax_33", _C + "y = jax.jit(lambda: jax.nn.softmax(x))()" + _BITS),
    ("softmax_20", _C + "y = jax.jit(lambda: jax.nn.softmax(w))()" + _BITS),
    (
        "mean_sum",
        _C
        + "y = jax.jit(lambda: (jnp.mean(w, axis=1), jnp.sum(x), jnp.sum(x, axis=0)))()\nout = [np.asarray(v).view(np.uint32) for v in y]",
    ),
    ("sum_of_squares", _C + "y = jax.jit(lambda: jnp.sum(w ** 2))()" + _BITS),
    ("exp_log_tanh", _C + "y = jax.jit(lambda: jnp.tanh(jnp.log(jnp.exp(w) + 1.0)))()" + _BITS),
    ("sigmoid_sum", _C + "y = jax.jit(lambda: jnp.sum(jax.nn.sigmoid(w), axis=0))()" + _BITS),
    ("libm_float", _C + "y = jax.jit(lambda: jnp.log1p(jnp.abs(w)) + jnp.expm1(w) + jnp.cbrt(w))()" + _BITS),
    ("trig", _C + "y = jax.jit(lambda: jnp.sin(x) * jnp.cos(x) + jnp.tan(x))()" + _BITS),
    (
        "mixed",
        _C
        + "y = jax.jit(lambda a: jnp.sum(w ** 2) * a + jnp.sum(jnp.exp(w), axis=1))(np.float32(1.5))"
        + _BITS,
    ),
    ("nested_jit_var", _C + "y = jax.jit(lambda: jnp.var(x, axis=1))()" + _BITS),
    # a row: var's division by n - ddof is folded as a division (no reciprocal: a reshape, not a
    # broadcast, of a divisor XLA's first simplifier pass does not see as a constant)
    (
        "var_one_row",
        "v = np.random.RandomState(1006).randn(1, 6).astype(np.float32)\n"
        "y = jax.jit(lambda: jnp.var(v, axis=1))()" + _BITS,
    ),
    (
        "layernorm_one_row",
        _C + "j = jnp.asarray(w[:1])\n"
        "y = jax.jit(lambda: (j - jnp.mean(j, -1, keepdims=True)) / jnp.sqrt(jnp.var(j, -1, keepdims=True) + 1e-5))()"
        + _BITS,
    ),
    # the canonicalizer divides constants (no reciprocal) and folds exp in double
    (
        "divide_constant",
        _C + "j = jnp.asarray(w)\ny = jax.jit(lambda: j / 3.0 + jnp.log1p(jnp.abs(j)) / 7.0)()" + _BITS,
    ),
    ("gelu", _C + "j = jnp.asarray(w)\ny = jax.jit(lambda: jax.nn.gelu(j))()" + _BITS),
    ("logsumexp", _C + "j = jnp.asarray(x)\ny = jax.jit(lambda: jax.nn.logsumexp(j, axis=-1))()" + _BITS),
    (
        "vector_dot",
        "rng = np.random.RandomState(13)\nu, v = rng.randn(2, 13).astype(np.float32)\n"
        "y = jax.jit(lambda: jnp.dot(u, v))()" + _BITS,
    ),
    (
        "cumprod_short",
        _C
        + "j = jnp.asarray(w[:, :9])\ny = jax.jit(lambda: jax.lax.cumprod(j * 0.1 + 1, axis=1, reverse=True))()"
        + _BITS,
    ),
    # found by fuzzing: an operand outside log's, rsqrt's or sqrt's domain (x <= 0, x < 0) makes
    # the canonicalizer leave the whole operation to the evaluator (float functions, onward)
    (
        "rsqrt_nonpositive",
        _C + "c = np.abs(w) * 3\nc[0, 0], c[1, 1], c[2, 2] = 0.0, -1.0, -0.0\n"
        "y = jax.jit(lambda a: a * jax.lax.rsqrt(c))(np.float32(1.0))" + _BITS,
    ),
    (
        "log_negative_then_tanh",
        _C + "c = np.abs(x) * 3\nc[0, 0] = -2.0\ny = jax.jit(lambda: jnp.tanh(jnp.log(c)))()" + _BITS,
    ),
    (
        "sqrt_negative_then_tanh",
        _C + "c = np.abs(x) * 3\nc[3, 5] = -1.0\ny = jax.jit(lambda: jnp.tanh(jnp.sqrt(c) * 0.5))()" + _BITS,
    ),
    # a folded denormal an arithmetic kernel reads is zero to it (DAZ); returned or selected, kept
    (
        "denormal_read_as_zero",
        "c = np.array([-90.0, -100.0, 1.0, -88.5], np.float32)\n"
        "y = jax.jit(lambda a: (a * jnp.exp(c), jnp.maximum(jnp.exp(c), a - 2), jnp.where(a > 0, jnp.exp(c), a)))"
        "(np.float32(2.0))\nout = [np.asarray(v).view(np.uint32) for v in y]",
    ),
    # a literal a caller passes into a nested jit is a constant there (XLA inlines first): var's
    # n - ddof folds to n, and its division becomes a multiplication by the reciprocal
    (
        "nested_literal_var",
        "y = jax.jit(jnp.var)(jnp.array([1.0, 0.0, 1.0], jnp.float32))\nout = np.asarray(y).view(np.uint32)",
    ),
    (
        "nested_literal_std_ddof",
        "a = jnp.array([0.7, 1.3, 2.9, 0.1, 4.4], jnp.float32)\n"
        "y = jax.jit(lambda a: (jnp.std(a, ddof=1), jnp.var(a, axis=0, ddof=2)))(a)\n"
        "out = [np.asarray(v).view(np.uint32) for v in y]",
    ),
]
