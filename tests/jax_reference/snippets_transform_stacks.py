"""What the differential fuzzer of transformation stacks (``tests/fuzz_transforms.py``) and two
known cases found: eager float32 values of nested differentiation a last bit or more away from
JAX's. A jnp function is a ``jit(inline=True)`` in JAX; under two or more differentiations its
rule's JVP is a call the outer transformations transform (one compiled program: ``jvp(jvp(f))``
of ``v / (v*v + 1)``), and under grad its linear part is inlined into the backward pass, where
the cotangents of its operands sum into theirs in JAX's order (``grad``, ``vjp``, ``jacrev`` of
``jvp(jnp.tanh, (x,), (x,))``). XLA drops ``t + 0`` from a sum of tangents as from any add, so
the second derivative of ``jnp.minimum`` where its other operand is picked keeps a -0. (eagerly,
in that call; and under jit). cumsum sums as XLA's reduce-window does, so its transpose (a reversed
cumsum: vjp of ``jnp.cumsum``) is not a flipped cumsum (``lax/reductions.xla_cumsum``).
Registered in snippets.py."""

_X = "x = jnp.array([0.3, 1.7, -2.5, 0.9, 3.1, 0.1234], jnp.float32)\n"
_J = "J = lambda f: (lambda z: jax.jvp(f, (z,), (jnp.ones_like(z),))[1])\n"
_V = "V = lambda f: (lambda z: (lambda y, pb: pb(y)[0])(*jax.vjp(f, z)))\n"
_V1 = "V1 = lambda f: (lambda z: (lambda y, pb: pb(jnp.ones_like(y))[0])(*jax.vjp(f, z)))\n"
_Y = "y = jnp.array([-1.386, -0.795, 1.246], jnp.float32)\n"

_Z = "z = jnp.array([0.166, -0.5, 1.2], jnp.float32)\n"
_MIN = "f = lambda x: jnp.minimum(jnp.tanh(jnp.tanh(x) + x) + jnp.tanh(x) + x, x)\n"
_MAX = "g = lambda x: jnp.maximum(x, -jnp.sin(x) * x)\n"

_CUMSUM = "r = np.random.RandomState(0)\nxs = [jnp.asarray(r.uniform(-2, 2, n), jnp.float32) for n in (3, 5, 17, 33, 100, 300)]\n"

TRANSFORM_STACKS = [
    (
        "vjp_cumsum",
        "x = jnp.array([-1.045, -1.255, -0.955], jnp.float32)\n"
        "out = (lambda y, pb: pb(y)[0])(*jax.vjp(jnp.cumsum, x))",
        0.0,
    ),
    *[
        (f"cumsum_{name}", _CUMSUM + f"out = [{code} for x in xs]", 0.0)
        for name, code in (
            ("forward", "lax.cumsum(x)"),
            ("reverse", "lax.cumsum(x, reverse=True)"),
            ("jit_reverse", "jax.jit(lambda x: lax.cumsum(x, reverse=True))(x)"),
            ("grad", "jax.grad(lambda x: jnp.sum(jnp.cumsum(x) * x))(x)"),
            ("2d_axis0", "lax.cumsum(x[: x.size // 3 * 3].reshape(-1, 3), axis=0, reverse=True)"),
        )
    ],
    (
        "cumsum_negative_zeros",
        "x = jnp.array([-0.0, -0.0, 1.0, -0.0], jnp.float32)\n"
        "out = [jnp.signbit(lax.cumsum(x)), jnp.signbit(lax.cumsum(x, reverse=True))]",
        0.0,
    ),
    # (the signs apart: the comparison takes -0. for 0.)
    *[
        (f"{name}_negative_zero", _Z + _J + _MIN + _MAX + f"out = [(v, jnp.signbit(v)) for v in {code}]", 0.0)
        for name, code in (
            ("jvp_jvp_minimum", "(J(J(f))(z), J(J(f))(z[0]), J(J(f))(0.166))"),
            ("jvp_jvp_maximum", "(J(J(g))(z), jax.jit(J(J(g)))(z))"),
        )
    ],
    (
        "jvp_of_jvp_rational",
        _X + "out = jax.jvp(lambda x: jax.jvp(lambda v: v / (v * v + 1), (x,), (jnp.ones_like(x),))[1],"
        " (x,), (jnp.ones_like(x),))",
        0.0,
    ),
    (
        "jvp_of_jvp_rational_scalars",
        _X + "out = [jax.jvp(lambda x: jax.jvp(lambda v: v / (v*v + 1), (x,), (1.,))[1], (x,), (1.,))"
        " for x in x]",
        0.0,
    ),
    (
        "vmap_grad_jvp_tanh",
        _X + "out = jax.vmap(jax.grad(lambda x: jax.jvp(jnp.tanh, (x,), (x,))[1]))(x)",
        0.0,
    ),
    (
        "grad_jvp_tanh_scalars",
        _X + "out = [jax.grad(lambda x: jax.jvp(jnp.tanh, (x,), (x,))[1])(x) for x in x]",
        0.0,
    ),
    (
        "vjp_jvp_tanh",
        _X + _V1 + "out = V1(lambda x: jax.jvp(jnp.tanh, (x,), (x,))[1])(x)",
        0.0,
    ),
    *[
        (f"{name}_{stack}", _Y + _J + _V + _V1 + f"f0 = {f0}\nout = {code}", 0.0)
        for name, f0 in (("sqrt1", "lambda x: jnp.sqrt(x * x + 1.0)"), ("cube", "lambda x: x * x * x"))
        for stack, code in (
            ("jacrev_vjp_jvp", "jax.jacrev(V(J(f0)))(y)"),
            ("vjp_vjp_jvp", "V1(V(J(f0)))(y)"),
            ("vjp_jvp", "V1(J(f0))(y)"),
            ("vmap_grad_grad_jvp", "jax.vmap(jax.grad(lambda x: jax.grad(J(f0))(x)))(y)"),
        )
    ],
    # (fuzz seed 310: XLA's arctangent of an array is its own rational function below 50 elements)
    (
        "vmap_softmax_arctan",
        "x = jnp.array([-0.509, 1.351, 0.35, -0.4, -1.599, 1.79, 1.731, 1.042, 1.293, 0.51, 1.745, -0.806],"
        " jnp.float32).reshape((2, 2, 3))\n"
        "out = jax.vmap(lambda x: jax.nn.softmax(jnp.arctan(x), axis=-1))(x)",
        0.0,
    ),
    (
        "arctan_shapes",
        "r = np.random.RandomState(0)\nb = r.uniform(-3, 3, 200).astype(np.float32)\n"
        "shapes = [(), (1,), (3,), (49,), (64,), (2, 3), (7, 7), (2, 2, 3), (3, 17), (4, 13)]\n"
        "xs = [jnp.asarray(b[: int(np.prod(s))].reshape(s)) for s in shapes]\n"
        "out = [(jnp.arctan(x), jax.jit(jnp.arctan)(x)) for x in xs]",
        0.0,
    ),
    (
        "arctan_specials",
        "x = jnp.array([0.0, -0.0, 1e-4, -1e-4, 1e-3, 1.0, -1.0, 1e30, -1e30, np.inf, -np.inf, np.nan, 1e-40],"
        " jnp.float32)\n"
        "out = [jnp.arctan(x), jax.jit(lambda x: jnp.arctan(x) * 2.0 + x)(x), [jnp.arctan(v) for v in x[:4]]]",
        0.0,
    ),
]
