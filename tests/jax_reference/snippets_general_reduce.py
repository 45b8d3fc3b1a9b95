"""``lax.reduce`` with a computation that is not a monoid with its identity: JAX's generic ``reduce``
primitive. Values (folded in index order: a non-associative computation shows the order), jvp,
grad, jacfwd/jacrev, vmap and jit, the programs make_jaxpr prints, and JAX's refusals (a symbolic-zero
operand tangent, a perturbed init, batched inits, a computation closing over a tracer); and the jvp
of the generic ``reduce_window`` (REDUCE_WINDOW_JVP, below). Registered in snippets.py;
tests/test_general_reduce.py checks the messages and finite differences."""

_X = "x = (np.arange(12, dtype=np.float32).reshape(3, 4) / 7 + 0.5)\ny = x[::-1] * 1.3 - 0.2\n"
_PAIR = (
    _X + "f = lambda x, y: lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,))\n"
)
_MAX = _X + "g = lambda x: lax.reduce(x, np.float32(0.7), lax.max, (0,))\n"
_SKEW = _X + "h = lambda x: lax.reduce(x, np.float32(1.0), lambda a, b: a * b + 0.1 * jnp.sin(a), (0, 1))\n"
_ODD = _X + "k = lambda x: lax.reduce(x, np.float32(1.0), lambda a, b: a * b + a, (0,))\n"
_R = """r = lambda *s: np.random.default_rng(sum(s)).normal(size=s).astype(np.float32)
q = lambda *s: np.random.default_rng(sum(s)).integers(-5, 5, size=s).astype(np.int32)
_half = lambda a, b: (a + b) * 0.5
_tri = lambda a, b: a * 3 + b
_mix = lambda a, b: (a[0] * 0.5 + b[0], a[1] + b[1] * a[0])
_iota = lambda v, d: lax.broadcasted_iota(np.int32, v.shape, d)

def _argmax(a, b):
    pick = (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
    return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])
"""

GENERAL_REDUCE = [
    ("pair", _PAIR + "out = f(x, y)"),
    (
        "max_int",
        "out = lax.reduce(np.arange(6, dtype=np.int32).reshape(2, 3), np.int32(-100), lax.max, (1,))",
    ),
    ("max_not_identity", _MAX + "out = g(x)"),
    ("skew_all_axes", _SKEW + "out = h(x)"),
    ("skew_axes_reversed", _X + "out = lax.reduce(x, np.float32(1.0), lambda a, b: a * b + a, (1, 0))"),
    ("empty_axis", _ODD + "out = k(x[:0])"),
    ("weak_operand", "out = lax.reduce(jnp.asarray(2.0), 1.0, lambda a, b: a * b + 1.0, ())"),
    ("jvp_pair", _PAIR + "out = jax.jvp(f, (x, y), (np.ones_like(x), x))"),
    ("jvp_max", _MAX + "out = jax.jvp(g, (x,), (np.ones_like(x),))"),
    ("jvp_odd_length", _ODD + "out = jax.jvp(k, (x,), (x,))"),
    ("jvp_empty", _ODD + "out = jax.jvp(k, (x[:0],), (x[:0],))"),
    ("grad_max", _MAX + "out = jax.grad(lambda x: g(x).sum())(x)"),
    ("grad_skew", _SKEW + "out = jax.grad(h)(x)"),
    ("grad_pair_both", _PAIR + "out = jax.grad(lambda x, y: f(x, y)[1].sum(), argnums=(0, 1))(x, y)"),
    ("jacrev_pair", _PAIR + "out = jax.jacrev(lambda x: f(x, x)[1])(x)"),
    ("jacfwd_pair", _PAIR + "out = jax.jacfwd(lambda x: f(x, x)[1])(x)"),
    ("jit_pair", _PAIR + "out = jax.jit(f)(x, y)"),
    ("jit_grad_max", _MAX + "out = jax.jit(jax.grad(lambda x: g(x).sum()))(x)"),
    ("vmap_pair", _PAIR + "out = jax.vmap(f)(np.stack([x, x + 1]), np.stack([y, y]))"),
    ("vmap_axis1", _MAX + "out = jax.vmap(g, in_axes=1)(np.stack([x, x * 2], 1))"),
    ("vmap_grad_skew", _SKEW + "out = jax.vmap(jax.grad(h))(np.stack([x, x / 2]))"),
    (
        "jaxpr_max_int",
        "out = str(jax.make_jaxpr(lambda x: lax.reduce(x, np.int32(-100), lax.max, (1,)))("
        "np.arange(6, dtype=np.int32).reshape(2, 3)))",
    ),
    (
        "jaxpr_jvp_pair",
        _PAIR + "out = str(jax.make_jaxpr(lambda x, y, t, s: jax.jvp(f, (x, y), (t, s)))(x, y, x, y))",
    ),
    ("jaxpr_vmap_pair", _PAIR + "out = str(jax.make_jaxpr(jax.vmap(f))(np.stack([x, x]), np.stack([y, y])))"),
    ("jaxpr_grad_max", _MAX + "out = str(jax.make_jaxpr(jax.grad(lambda x: g(x).sum()))(x))"),
    ("err_grad_one_operand", _PAIR + "out = jax.grad(lambda x, y: f(x, y)[1].sum())(x, y)"),
    ("err_jvp_closed_operand", _PAIR + "out = jax.jvp(lambda x: f(x, y), (x,), (x,))"),
    (
        "err_jvp_init",
        _X
        + "out = jax.jvp(lambda x, i: lax.reduce(x, i, lax.max, (0,)), (x, np.float32(0.7)), (x, np.float32(1.0)))",
    ),
    (
        "err_vmap_init",
        _X + "out = jax.vmap(lambda i: lax.reduce(x, i, lax.max, (0,)))(np.float32([0.5, 2.0]))",
    ),
    (
        "err_closes_over_tracer",
        _X
        + "out = jax.jit(lambda x, c: lax.reduce(x, np.float32(0.0), lambda a, b: a + b * c, (0,)))(x, np.float32(2.0))",
    ),
    (
        "err_init_not_scalar",
        _X + "out = lax.reduce(x, np.zeros(4, np.float32), lambda a, b: a * b + a, (0,))",
    ),
    ("err_init_dtype", _X + "out = lax.reduce(x, np.int32(1), lambda a, b: a * b + a, (0,))"),
    # The order XLA's CPU backend folds in, which a non-associative computation shows: index order,
    # except a one-operand reduce over a dimension longer than 32, folded in windows of 32 first
    # (SAME padding, skipped), their results then alike (TreeReductionRewriter); variadic: index order
    ("xla_order_rows_of_1000", _R + "out = lax.reduce(r(5, 1000), np.float32(0), _half, (1,))"),
    ("xla_order_40000", _R + "out = lax.reduce(r(40000), np.float32(0), _half, (0,))"),
    ("xla_order_jit", _R + "out = jax.jit(lambda v: lax.reduce(v, np.float32(0), _half, (0,)))(r(1000, 3))"),
    ("xla_order_2d_all", _R + "out = lax.reduce(q(40, 50), np.int32(0), _tri, (0, 1))"),
    ("xla_order_3d_inner", _R + "out = lax.reduce(r(3, 40, 70), np.float32(0), _half, (1, 2))"),
    ("xla_order_3d_outer", _R + "out = lax.reduce(r(33, 4, 70), np.float32(1), _half, (0, 2))"),
    ("xla_order_short_dims", _R + "out = lax.reduce(r(20, 30), np.float32(0), _half, (0, 1))"),
    ("xla_order_jit_2d", _R + "out = jax.jit(lambda v: lax.reduce(v, np.int32(0), _tri, (0, 1)))(q(40, 50))"),
    (
        "xla_order_variadic",
        _R + "out = lax.reduce((r(1000), r(1000) + 1), (np.float32(0), np.float32(1)), _mix, (0,))",
    ),
    (
        "xla_order_variadic_jit",
        _R
        + "out = jax.jit(lambda a, b: lax.reduce((a, b), (np.float32(0), np.float32(1)), _mix, (1,)))(r(3, 500), r(3, 500))",
    ),
    (
        "argmax_pair_long",
        _R
        + "v = r(1000, 6)\nout = lax.reduce((v, _iota(v, 0)), (np.float32(-np.inf), np.int32(0)), _argmax, (0,))",
    ),
    (
        "argmax_pair_long_jit",
        _R
        + "v = r(6, 1000)\nout = jax.jit(lambda v: lax.reduce((v, _iota(v, 1)), (np.float32(-np.inf), np.int32(0)), _argmax, (1,)))(v)",
    ),
]

# The generic reduce_window (lax.mul, or an init that is not the identity; float32 inits, which
# x64 keeps float32): its jvp is JAX's, a
# reduce_window of the computation's jvp (values and program); linearizing that is refused (grad,
# vjp, jacrev, under jit too), and jacfwd's vmap finds the primal batched, as in JAX.
_W = "x = np.arange(20, dtype=np.float32).reshape(4, 5) / 7 + 0.5\n"
_PROD = _W + "prod = lambda v: lax.reduce_window(v, np.float32(1.0), lax.mul, (2, 1), (1, 1), 'VALID')\n"
_MAXW = (
    _W + "m = lambda v: lax.reduce_window(v, np.float32(0.5), lax.max, (2, 2), (1, 2), ((1, 0), (0, 1)))\n"
)

REDUCE_WINDOW_JVP = [
    ("jvp_prod", _PROD + "out = jax.jvp(prod, (x,), (np.ones_like(x),))"),
    ("jvp_max_init", _MAXW + "out = jax.jvp(m, (x,), (x * 2,))"),
    (
        "jvp_padded_dilated",
        _W + "out = jax.jvp(lambda v: lax.reduce_window(v, np.float32(1.0), lax.mul, (2, 2), (2, 2), 'SAME', "
        "base_dilation=(1, 2)), (x,), (x * x,))",
    ),
    ("jvp_of_jvp", _PROD + "out = jax.jvp(lambda a: jax.jvp(prod, (a,), (a,))[1], (x,), (x,))"),
    (
        "vmap_jvp",
        _PROD + "out = jax.vmap(lambda a, b: jax.jvp(prod, (a,), (b,)))(np.stack([x, x]), np.stack([x, -x]))",
    ),
    ("jit_jvp", _PROD + "out = jax.jit(lambda a, b: jax.jvp(prod, (a,), (b,)))(x, x)"),
    ("jaxpr_jvp_prod", _PROD + "out = str(jax.make_jaxpr(lambda x, t: jax.jvp(prod, (x,), (t,)))(x, x))"),
    ("jaxpr_jvp_max_init", _MAXW + "out = str(jax.make_jaxpr(lambda x, t: jax.jvp(m, (x,), (t,)))(x, x))"),
    ("err_jacfwd", _PROD + "out = jax.jacfwd(prod)(x)"),
    ("err_grad", _PROD + "out = jax.grad(lambda v: prod(v).sum())(x)"),
    ("err_grad_of_jit", _PROD + "out = jax.grad(jax.jit(lambda v: prod(v).sum()))(x)"),
    ("err_jit_of_grad", _PROD + "out = jax.jit(jax.grad(lambda v: prod(v).sum()))(x)"),
    ("err_jacrev", _PROD + "out = jax.jacrev(prod)(x)"),
    ("err_vjp", _PROD + "out = jax.vjp(prod, x)"),
    ("err_linearize", _PROD + "out = jax.linearize(prod, x)"),
    (
        "err_jvp_init",
        _W
        + "out = jax.jvp(lambda v, i: lax.reduce_window(v, i, lax.mul, (2, 1), (1, 1), 'VALID'), (x, np.float32(1.0)), (x, np.float32(1.0)))",
    ),
]
