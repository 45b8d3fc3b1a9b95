"""Snippets for the values the differential fuzz (tests/fidelity/sweep_fuzz.py) found silently
wrong: Python ints out of a narrow dtype's range wrap as JAX's convert does, integer division by
zero on the eager fast path, mean with an integer dtype, complex max / min / sort / sign with NaN
parts, round of float16, the gradient of max over NaNs under jit, and the error classes JAX raises
(IndexError where it reads ``shape[axis]``, lax reductions' bad axes, empty quantiles, negative
integer powers, reshaping a zero-size array with -1). Registered in snippets.py."""

_U8 = "x = jnp.array([1, 2], jnp.uint8)\n"
_I8 = "a = jnp.array([5, -5, 0, -128, 7], jnp.int8)\nb = jnp.array([0, 0, 0, -1, 2], jnp.int8)\n"
_C = "n = np.nan\nc = jnp.array([4 + 0j, complex(0, n), complex(n, 0), 1 + 5j], jnp.complex64)\n"
_X = "x = np.ones((2, 3), np.float32)\n"

FUZZ_VALUES = [
    # a weak Python int converts to the other operand's narrow dtype by wrapping (within int32)
    ("uint8_plus_300", _U8 + "out = x + 300"),
    ("uint8_times_neg", _U8 + "out = x * -2"),
    ("neg_minus_uint8", _U8 + "out = -2 - x"),
    ("uint8_maximum_300", _U8 + "out = jnp.maximum(x, 300)"),
    ("uint8_less_neg", _U8 + "out = x < -1"),
    ("uint8_where_300", _U8 + "out = jnp.where(x > 1, x, 300)"),
    ("uint8_full_300", "out = jnp.full(2, 300, jnp.uint8)"),
    ("int8_scalar_plus_200", "out = jnp.int8(1) + 200"),
    ("uint8_plus_2_40", _U8 + "out = x + 2**40"),
    ("asarray_300_uint8", "out = jnp.asarray(300, jnp.uint8)"),
    # integer floor division by zero: XLA's quotient -1 (all ones), then the floor fix-up
    ("int8_floordiv_arrays", _I8 + "out = (a // b, a % b, jnp.divmod(a, b))"),
    ("uint8_floordiv_zero", "out = jnp.array([5, 0], jnp.uint8) // jnp.array([0, 0], jnp.uint8)"),
    ("int_floordiv_zero_scalar", _I8 + "out = (a // 0, 0 // b)"),
    ("int_pow_negative", "out = jnp.array([2, 3]) ** -1"),
    ("reshape_empty_minus1", "out = jnp.zeros((0, 3)).reshape(3, 0, -1)"),
    ("mean_int_dtype", "out = jnp.mean(jnp.array([1, 2], jnp.int32), dtype=jnp.int32)"),
    ("round_int_negative_decimals", "out = jnp.round(jnp.array([15, 25]), -1)"),
    ("round_float16", "out = jnp.round(jnp.array([0.125, 1.335, 65.43, -3.14159], jnp.float16), 2)"),
    ("round_beyond_precision", "out = jnp.round(jnp.array([1.5, 65.43], jnp.float16), 5)"),
    ("median_empty", "out = jnp.median(jnp.zeros((0, 3)))"),
    ("quantile_empty_axis", "out = jnp.quantile(jnp.zeros((0, 3)), 0.5, axis=0)"),
    ("argmax_axis_out_of_range", _X + "out = jnp.argmax(x, axis=2)"),
    ("mean_axis_out_of_range", _X + "out = jnp.mean(x, axis=-3)"),
    ("var_axis_out_of_range", _X + "out = jnp.var(x, axis=(0, 5))"),
    ("split_axis_out_of_range", _X + "out = jnp.split(x, 1, axis=2)"),
    ("sum_axis_out_of_range", _X + "out = jnp.sum(x, axis=2)"),
    ("sum_float_axis", _X + "out = jnp.sum(x, axis=1.0)"),
    ("lax_reduce_sum_bad_axis", _X + "out = lax.reduce_sum(x, (2,))"),
    ("lax_reduce_max_negative_axis", _X + "out = lax.reduce_max(x, (-1,))"),
    ("lax_reduce_and_bad_axis", _X + "out = lax.reduce_and(x > 0, (2,))"),
    ("lax_argmax_negative_axis", _X + "out = lax.argmax(x, -1, np.int32)"),
    # complex max / min pick lexicographically, pairwise (a NaN part picks the other operand)
    (
        "complex_max_min_nan",
        _C + "out = (jnp.max(c), jnp.min(c), lax.max(c, c[::-1]), jnp.minimum(c, c[::-1]))",
    ),
    ("complex_max_jit", _C + "out = jax.jit(jnp.max)(c)"),
    ("complex_sort_nan", _C + "out = (jnp.sort(c), jnp.argsort(c))"),
    (
        "complex_sign_zeros",
        "out = jnp.sign(jnp.array([complex(0, -0.0), complex(-0.0, 0), 3 + 4j, complex(np.inf, 1)], jnp.complex64))",
    ),
    # under jit, XLA turns A * convert(pred) into select(pred, A, 0)
    ("jit_grad_max_nan", "out = jax.jit(jax.grad(jnp.max))(jnp.array([jnp.nan, 1.0, jnp.nan]))"),
    (
        "jit_mul_bool_mask_inf",
        "out = jax.jit(lambda h, d: h * d.astype(jnp.float32))(jnp.inf, jnp.array([True, False]))",
    ),
]
