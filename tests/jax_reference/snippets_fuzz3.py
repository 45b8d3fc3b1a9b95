"""What the third differential fuzz (random jnp / lax programs with uncommon arguments, eager, under
jit and vmap, x64 on and off; issue 13) found silently wrong or refused differently. lax.round's
half-away-from-zero lost the sign of zero (-0.4 -> 0.0, so floor_divide(0.0, -1.0) was 0.0, JAX
-0.0) and was inexact (0.49999997 -> 1, 2**23 + 1 -> 2**23 + 2); lax.sign(-0.0) was 0.0 (XLA: -0.0); eager lax ops took operands of a
kind they refuse under jit (a float shifted by its bits, popcount of a float); jnp.left_shift /
right_shift of bools stayed bool (JAX: int32); top_k ordered NaNs and -0.0 without their sign bit
(XLA's total order: -NaN last), which moved jnp.partition's values; top_k returned a tuple (JAX: a
list); jnp.diff with n=0 applied prepend / append and accepted n < 0 and 0-d input; kron of bools
and concatenate of mismatched ranks raised differently. Registered in snippets.py."""

_X = "x = jnp.array([-0.0, -0.4, -0.5, 0.4, -2.5, np.nan, -np.inf, 8388609.0, 0.49999997, 1.5, 2.5], jnp.float32)\n"
_T = "x = jnp.array([1.0, -np.nan, np.nan, 2.0, -np.inf, np.inf, -0.0, 0.0], jnp.float32)\n"
_F = "x = jnp.array([-2.5, -0.0, 0.0, 1.5, 1.0, -1.0], jnp.float32)\n"
_X64 = "with jax.enable_x64(True):\n    "

FUZZ3 = [
    # lax.round rounds half away from zero exactly, keeping the sign of zero (rtol 0: the bits)
    ("round_away", _X + "out = (lax.round(x), jax.jit(lax.round)(x), lax.round(x, 1))", 0.0),
    ("round_away_f16", _X + "out = lax.round(x.astype(jnp.float16))", 0.0),
    ("round_away_jnp_signbit", _X + "out = jnp.signbit(lax.round(x))"),
    (
        "round_away_f64",
        _X64 + "out = lax.round(jnp.array([-0.0, -0.4, 0.49999999999999994, 4503599627370497.0, -2.5]))",
        0.0,
    ),
    (
        "floor_divide_signed_zero",
        _F + "y = jnp.array([1.5, 1.0, -1.0, -2.5, -0.0, 0.0], jnp.float32)\n"
        "out = [jnp.signbit(f(x, y)) for f in (jnp.floor_divide, jax.jit(jnp.floor_divide))]",
    ),
    ("floor_divide_f16_by_int8", "out = jnp.signbit(jnp.array([-0.0, 0.5], jnp.float16) // jnp.int8(-3))"),
    ("divmod_signed_zero", _F + "out = jnp.signbit(jnp.divmod(x, -x[::-1])[0])"),
    # sign of a zero or NaN is the operand itself (sign(-0.0) is -0.0)
    (
        "sign_signed_zero",
        "x = jnp.array([-0.0, 0.0, np.nan, -np.nan, -2.0, 3.0])\n"
        "out = [jnp.signbit(f(x)) for f in (lax.sign, jax.jit(lax.sign), jnp.sign)]",
    ),
    ("sign_signed_zero_bf16", "out = jnp.signbit(jnp.sign(jnp.array([-0.0, 0.0, -1.0], jnp.bfloat16)))"),
    # shifts and popcount take integers only, eagerly too
    *[
        (f"refuse_float_{name}", _F + f"out = {call}")
        for name, call in [
            ("rshift_op", "x >> 1"),
            ("lshift_op", "x << 1"),
            ("left_shift", "jnp.left_shift(x, 1)"),
            ("right_shift", "jnp.right_shift(x, 1)"),
            ("left_shift_int_by_float", "jnp.left_shift(jnp.int8(-3), x)"),
            ("bitwise_count", "jnp.bitwise_count(x)"),
            ("lax_shift_left", "lax.shift_left(x, x)"),
            ("lax_population_count", "lax.population_count(x)"),
            (
                "vmap_shift",
                "jax.vmap(lambda v: jnp.bitwise_left_shift(-0.0, v))(jnp.ones((2, 3), jnp.int32))",
            ),
            ("int_lshift_by_float", "x.astype(jnp.int32) << 3.0"),
        ]
    ],
    ("refuse_integer_pow_bool", "out = lax.integer_pow(jnp.array([True, False]), 2)"),
    ("refuse_kron_bool", "out = jnp.kron(jnp.array([True, False]), jnp.array([True, True]))"),
    ("lax_pow_int_exponent", "out = lax.pow(jnp.float32(2.0), jnp.int32(3))"),
    # shifts of bools promote to int32
    (
        "right_shift_bool",
        "b = jnp.array([True, False])\nout = (jnp.right_shift(b, b), jnp.left_shift(b, True))",
    ),
    ("shift_bool_ops", "b = jnp.array([[True, False, True]])\nout = (b >> b, b << b)"),
    # top_k: XLA's total order (NaN by its sign bit, -0.0 below 0.0), a list
    ("top_k_total_order", _T + "out = lax.top_k(x, 8)"),
    ("top_k_total_order_jit", _T + "out = jax.jit(lambda x: lax.top_k(x, 8))(x)"),
    ("top_k_total_order_bf16", _T + "out = lax.top_k(x.astype(jnp.bfloat16), 8)[1]"),
    ("top_k_signed_zero", "out = lax.top_k(jnp.array([0.0, -0.0, 0.0]), 3)"),
    ("top_k_uint64", _X64 + "out = lax.top_k(jnp.array([2**63 + 1, 1, 2**64 - 1, 0], jnp.uint64), 4)"),
    ("top_k_int64_min", _X64 + "out = lax.top_k(jnp.array([-2**63, 2**63 - 1, 0]), 3)"),
    ("top_k_f64", _X64 + "out = lax.top_k(jnp.array([1.0, -np.nan, np.nan, 2.0, -np.inf, -0.0, 0.0]), 7)[1]"),
    ("top_k_k0", "out = lax.top_k(jnp.arange(3.0), 0)"),
    ("top_k_vmap", _T + "out = jax.vmap(lambda v: lax.top_k(v, 2))(jnp.stack([x, -x]))"),
    (
        "partition_nan",
        "x = jnp.array([1e38, -1e38, 3e9, -3e9, 2.2e9, np.nan, np.inf, -np.inf], jnp.float32)\n"
        "out = (jnp.partition(x, 1), jnp.argpartition(x, 1), jnp.partition(-x, 2))",
    ),
    # diff: n=0 is the input itself (prepend / append ignored); n < 0 and 0-d input refused
    ("diff_n0_prepend", "out = jnp.diff(jnp.arange(3), n=0, prepend=0)"),
    (
        "diff_n0_vmap",
        "out = jax.vmap(lambda v: jnp.diff(v, n=0, axis=0, prepend=0))(jnp.ones((2, 4), jnp.uint16))",
    ),
    ("diff_negative_n", "out = jnp.diff(jnp.arange(3), n=-1)"),
    ("diff_float_n", "out = jnp.diff(jnp.arange(3), n=1.0)"),
    ("diff_scalar", "out = jnp.diff(jnp.float32(3))"),
    ("diff_n_past_length", "out = jnp.diff(jnp.arange(3), n=5)"),
    # concatenate of mismatched ranks: lax.concatenate's TypeError
    ("append_scalar_axis", "out = jnp.append(jnp.ones((2, 3)), 7, axis=0)"),
    ("append_scalar_axis_jit", "out = jax.jit(lambda x: jnp.append(x, 7, axis=-1))(jnp.ones((2, 3)))"),
]
