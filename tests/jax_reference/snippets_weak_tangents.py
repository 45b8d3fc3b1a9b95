"""Issue 13: the weak types of jvp's tangents. JAX jits its jnp functions, and jit's JVP types each
tangent as its primal's tangent, so a strong tangent of a weak primal is weak inside ``jnp.sin`` (and
a weak one of a strong primal strong); an eager convert of a jvp tracer to its own type converts its
tangent too (so ``jnp.stack`` of a weak primal's strong tangent is weak); lax functions and jnp's
unjitted ones (reshape, broadcast_to) keep the tangent's own type. jacfwd's basis has each input's
weak type and its blocks their output's. Registered in snippets.py."""

# primal / tangent: weak (a Python float), strong (float32)
_PT = {"ws": ("2.0", "jnp.float32(1.0)"), "sw": ("jnp.float32(2.0)", "1.0"), "ww": ("2.0", "1.0")}

_OPS = {
    "add": "lambda x: x + 1.0",
    "mul_int32": "lambda x: x * jnp.int32(3)",
    "sin": "jnp.sin",
    "neg": "lambda x: -x",
    "pow": "lambda x: x ** 2",
    "div": "lambda x: 1.0 / x",
    "where": "lambda x: jnp.where(x > 0, x, 1.0)",
    "sum": "jnp.sum",
    "max": "jnp.max",
    "dot": "lambda x: jnp.dot(x, x)",
    "stack": "lambda x: jnp.stack([x, x])",
    "convert": "lambda x: lax.convert_element_type(x, jnp.float32)",
    "lax_sin": "lax.sin",
    "lax_mul": "lambda x: lax.mul(x, 2.0)",
    "select": "lambda x: lax.select(True, x, x)",
    "reshape": "lambda x: jnp.reshape(x, (1,))",
    "broadcast_to": "lambda x: jnp.broadcast_to(x, (2,))",
    "jit_lax_sin": "jax.jit(lax.sin)",
}

WEAK_TANGENTS = [
    (
        f"jvp_{op}_{pt}{'_jit' if jit else ''}",
        f"f = {fn}\n"
        + (
            f"out = jax.jit(lambda p, t: jax.jvp(f, (p,), (t,)))({_PT[pt][0]}, {_PT[pt][1]})"
            if jit
            else f"out = jax.jvp(f, ({_PT[pt][0]},), ({_PT[pt][1]},))"
        ),
    )
    for op, fn in _OPS.items()
    for pt in ("ws", "sw")
    for jit in (False, True)
] + [
    ("jvp_add_ww", "out = jax.jvp(lambda x: x + 1.0, (2.0,), (1.0,))"),
    ("jvp_sin_ww", "out = jax.jvp(jnp.sin, (2.0,), (1.0,))"),
    ("jvp_two_args", "out = jax.jvp(lambda x, y: x * y, (2.0, 3.0), (jnp.float32(1.0), 1.0))"),
    ("jvp_vmap", "out = jax.jvp(jax.vmap(jnp.sin), (jnp.array([2.0]),), (jnp.array([1.0]),))"),
    # jacfwd: the basis takes each input's weak type; eagerly, under jit, and of constants under jit
    *[
        (
            f"jacfwd_{name}{'_jit' if jit else ''}",
            f"out = jax.jit(lambda: {call})()" if jit else f"out = {call}",
        )
        for name, call in [
            ("mul_int32", "jax.jacfwd(lambda x: x * jnp.int32(3))(2.0)"),
            ("mul_int32_arange", "jax.jacfwd(lambda x: x * jnp.arange(3, dtype=jnp.int32))(2.0)"),
            ("lax_sin", "jax.jacfwd(lax.sin)(2.0)"),
            ("identity", "jax.jacfwd(lambda x: x)(2.0)"),
            ("strong", "jax.jacfwd(jnp.sin)(jnp.float32(2.0))"),
            ("two_inputs", "jax.jacfwd(lambda x, y: x * y, argnums=(0, 1))(2.0, jnp.float32(3.0))"),
            ("hessian", "jax.hessian(lambda x: x ** 3)(2.0)"),
        ]
        for jit in (False, True)
    ],
    ("linearize_ws", "out = jax.linearize(jnp.sin, 2.0)[1](jnp.float32(1.0))"),
    ("linearize_sw", "out = jax.linearize(jnp.sin, jnp.float32(2.0))[1](1.0)"),
    ("vjp_ws", "out = jax.vjp(jnp.sin, 2.0)[1](jnp.float32(1.0))"),
]

# Integer and bool primals take float0 tangents: anything else is jvp's TypeError naming the tangent
# dtype it expected; linearize's function checks its tangents too (ValueError); vjp gives float0
# cotangents for them. A primal of float0 tangent goes in untraced (a Python int stays one).
_F0 = "f0 = jax.dtypes.float0\n"
INT_TANGENTS = [
    (name, _F0 + f"out = {call}")
    for name, call in [
        ("jvp_int_int", "jax.jvp(lambda x: x * 2, (jnp.int32(3),), (jnp.int32(1),))"),
        ("jvp_int_float", "jax.jvp(lambda x: x * 2, (jnp.int32(3),), (1.0,))"),
        ("jvp_pyint_pyint", "jax.jvp(lambda x: x * 2, (3,), (1,))"),
        ("jvp_int_float0", "jax.jvp(lambda x: x * 2, (jnp.int32(3),), (np.zeros((), f0),))"),
        ("jvp_pyint_float0", "jax.jvp(lambda x: x * 2, (3,), (np.zeros((), f0),))"),
        ("jvp_bool_bool", "jax.jvp(lambda x: x, (jnp.bool_(True),), (jnp.bool_(True),))"),
        ("jvp_bool_float0", "jax.jvp(lambda x: x, (jnp.bool_(True),), (np.zeros((), f0),))"),
        ("jvp_float_float0", "jax.jvp(lambda x: x, (1.0,), (np.zeros((), f0),))"),
        ("jvp_float_int", "jax.jvp(lambda x: x, (1.0,), (1,))"),
        ("jvp_f32_f16", "jax.jvp(lambda x: x, (jnp.float32(1.0),), (jnp.float16(1),))"),
        ("jvp_shapes", "jax.jvp(lambda x: x, (jnp.ones(2),), (jnp.ones(3),))"),
        ("jvp_int_array_float0", "jax.jvp(lambda x: x + 1, (jnp.arange(3),), (np.zeros(3, f0),))"),
        ("jvp_mixed", "jax.jvp(lambda x, n: x * n, (2.0, jnp.int32(3)), (1.0, np.zeros((), f0)))"),
        ("jvp_int_int_jit", "jax.jit(lambda: jax.jvp(lambda x: x * 2, (jnp.int32(3),), (jnp.int32(1),)))()"),
        ("linearize_int", "jax.linearize(lambda x: x * 2, jnp.int32(3))[1](np.zeros((), f0))"),
        ("linearize_int_int", "jax.linearize(lambda x: x * 2, jnp.int32(3))[1](jnp.int32(1))"),
        ("linearize_float_int", "jax.linearize(lambda x: x * 2, 3.0)[1](jnp.int32(1))"),
        ("linearize_float_shape", "jax.linearize(lambda x: x * 2, jnp.ones(2))[1](jnp.ones(3))"),
        ("vjp_int", "jax.vjp(lambda x: x * 2, jnp.int32(3))[1](jnp.int32(1))"),
        ("vjp_int_float0", "jax.vjp(lambda x: x * 2, jnp.int32(3))[1](np.zeros((), f0))"),
        ("vjp_mixed", "jax.vjp(lambda x, n: x * n, 2.0, jnp.int32(3))[1](1.0)"),
        ("vjp_float_int_cotangent", "jax.vjp(lambda x: x * 2, 2.0)[1](jnp.int32(1))"),
        ("vjp_bool", "jax.vjp(lambda x: x, jnp.bool_(True))[1](np.zeros((), f0))"),
        ("grad_int", "jax.grad(lambda x: x * 2.0)(3)"),
    ]
]
