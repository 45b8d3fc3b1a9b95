"""Snippets for transformation gaps: a ``custom_vjp`` under ``vmap`` keeps its rules (differentiated
outside the vmap, its bwd runs batched, not the function's own derivative). Registered in
snippets.py."""

_CLIP = (
    "@jax.custom_vjp\n"
    "def f(x, lo):\n"
    "    return jnp.clip(x, lo, 1.0)\n"
    "f.defvjp(lambda x, lo: (f(x, lo), (x, lo)), lambda res, g: (3.0 * g * (res[0] > res[1]), None))\n"
    "x = jnp.array([0.5, 2.0, -1.0, 0.2])\n"
    "lo = jnp.float32(-0.5)\n"
)
_SCALE = (
    "@jax.custom_vjp\n"
    "def s(x, w):\n"
    "    return x * w\n"
    "s.defvjp(lambda x, w: (x * w, (x, w)), lambda r, g: (2.0 * g * r[1], (2.0 * g * r[0]).sum()))\n"
    "m = jnp.arange(6.0).reshape(2, 3)\n"
)

CUSTOM_VJP_VMAP = [
    ("grad_of_vmap", _CLIP + "out = jax.grad(lambda x: jax.vmap(f, in_axes=(0, None))(x, lo).sum())(x)"),
    ("jit_grad_of_vmap", _CLIP + "out = jax.jit(jax.grad(lambda x: jax.vmap(f, (0, None))(x, lo).sum()))(x)"),
    ("vmap_of_grad", _CLIP + "out = jax.vmap(jax.grad(f), in_axes=(0, None))(x, lo)"),
    ("vjp_of_vmap", _CLIP + "out = jax.vjp(lambda x: jax.vmap(f, (0, None))(x, lo), x)[1](jnp.ones(4))"),
    ("value_of_vmap", _CLIP + "out = jax.vmap(f, in_axes=(0, None))(x, lo)"),
    # An unbatched argument's cotangent is summed over the batch.
    ("grad_unbatched_arg", _SCALE + "out = jax.grad(lambda w: jax.vmap(s, (0, None))(m, w).sum())(2.0)"),
    (
        "grad_both_args",
        _SCALE + "out = jax.grad(lambda m, w: jax.vmap(s, (0, None))(m, w).sum(), (0, 1))(m, 2.0)",
    ),
    ("grad_axis1", _SCALE + "out = jax.grad(lambda m: jax.vmap(s, (1, None))(m, 3.0).sum())(m)"),
    (
        "grad_out_axes1",
        _SCALE + "out = jax.grad(lambda m: (jax.vmap(s, (0, None), 1)(m, 3.0) * m.T).sum())(m)",
    ),
    (
        "grad_vmap_vmap",
        _SCALE + "out = jax.grad(lambda m: jax.vmap(jax.vmap(s, (0, None)), (0, None))(m, 1.5).sum())(m)",
    ),
    ("jacrev_vmap", _SCALE + "out = jax.jacrev(lambda m: jax.vmap(s, (0, None))(m, 2.0))(m[0])"),
    ("jacfwd_refused", _SCALE + "out = jax.jacfwd(lambda m: jax.vmap(s, (0, None))(m, 2.0))(m[0])"),
    (
        "grad_zero_ct",
        "@jax.custom_vjp\n"
        "def h(x):\n"
        "    return x * 2.0, x * 3.0\n"
        "h.defvjp(lambda x: (h(x), x), lambda r, g: (10.0 * g[0] + 100.0 * g[1],))\n"
        "out = jax.grad(lambda x: jax.vmap(h)(x)[0].sum())(jnp.arange(3.0))",
    ),
    (
        "grad_nondiff",
        "from functools import partial\n"
        "@partial(jax.custom_vjp, nondiff_argnums=(0,))\n"
        "def p(k, x):\n"
        "    return x ** k\n"
        "p.defvjp(lambda k, x: (x ** k, x), lambda k, r, g: (7.0 * g * r,))\n"
        "out = jax.grad(lambda x: jax.vmap(partial(p, 2))(x).sum())(jnp.arange(3.0))",
    ),
    (
        "grad_symbolic_zeros",
        "@jax.custom_vjp\n"
        "def q(x, y):\n"
        "    return x * y\n"
        "def q_fwd(x, y):\n"
        "    return x.value * y.value, (x.value, y.value, x.perturbed, y.perturbed)\n"
        "def q_bwd(r, g):\n"
        "    return (5.0 * g * r[1], (5.0 * g * r[0]).sum())\n"
        "q.defvjp(q_fwd, q_bwd, symbolic_zeros=True)\n"
        "out = jax.grad(lambda x: jax.vmap(q, (0, None))(x, 2.0).sum())(jnp.arange(3.0))",
    ),
]
CUSTOM_VJP_VMAP += [
    # The bwd rule's cotangent for a scalar argument must be a scalar (per example).
    (
        "bwd_shape_refused",
        "@jax.custom_vjp\n"
        "def t(x, w):\n"
        "    return x * w\n"
        "t.defvjp(lambda x, w: (x * w, (x, w)), lambda r, g: (g * r[1], g * r[0]))\n"
        "out = jax.grad(lambda w: t(jnp.arange(3.0), w).sum())(2.0)",
    ),
]

# psum/pmax/pmin under vmap: the vmap's axis becomes a positional axis of the same collective
# (printed psum[axes=(0,)]); a constant's psum is the axes' size times it, nothing staged.
_M = "m = jnp.arange(6.0).reshape(2, 3)\n"
VMAP_COLLECTIVES = [
    (
        "psum_text",
        _M + "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.psum(x, 'j'), axis_name='j'))(m[0]))",
    ),
    (
        "psum_tuple_text",
        _M + "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.psum((x, 2 * x), 'j'), axis_name='j'))(m[0]))",
    ),
    (
        "pmax_text",
        _M + "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.pmax(x, 'j'), axis_name='j'))(m[0]))",
    ),
    (
        "grad_psum_text",
        _M + "f = jax.vmap(lambda x: lax.psum(x, 'j'), axis_name='j')\n"
        "out = str(jax.make_jaxpr(jax.grad(lambda x: f(x).sum()))(m[0]))",
    ),
    (
        "nested_psum_text",
        _M + "f = jax.vmap(jax.vmap(lambda x: lax.psum(x, ('j', 'k')), axis_name='j'), axis_name='k')\n"
        "out = str(jax.make_jaxpr(f)(m))",
    ),
    (
        "nested_values",
        _M + "f = lambda p: jax.vmap(jax.vmap(lambda x: p(x, ('j', 'k')), axis_name='j'), axis_name='k')(m)\n"
        "out = (f(lax.psum), f(lax.pmax), f(lax.pmin), f(lax.pmean))",
    ),
    (
        "grad_nested",
        _M
        + "f = jax.vmap(jax.vmap(lambda x: jnp.sin(x) * lax.psum(x, ('j', 'k')), axis_name='j'), axis_name='k')\n"
        "out = jax.grad(lambda m: f(m).sum())(m)",
    ),
    (
        "constant_text",
        "out = str(jax.make_jaxpr(jax.vmap(lambda x: x + lax.psum(2.0, 'j'), axis_name='j'))(jnp.ones(3)))",
    ),
    ("constant_size", "out = jax.vmap(lambda x: x / lax.psum(1, 'j'), axis_name='j')(jnp.ones(4))"),
    (
        "unbatched_operand",
        "out = jax.vmap(lambda x, c: lax.psum(c, 'j') + x, in_axes=(0, None), axis_name='j')(jnp.ones(3), jnp.float32(2.0))",
    ),
    ("int_operand", "out = jax.vmap(lambda x: lax.psum(x, 'j'), axis_name='j')(jnp.arange(4))"),
    # One psum per leaf; a bool leaf is counted as int32 (JAX converts it first).
    ("psum_bool_leaf", "out = jax.vmap(lambda x: lax.psum((x, x > 1), 'j'), axis_name='j')(jnp.arange(4.0))"),
    (
        "psum_bool_leaf_text",
        "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.psum((x, x > 1), 'j'), axis_name='j'))(jnp.arange(4.0)))",
    ),
    ("psum_bool_constant", "out = jax.vmap(lambda x: lax.psum(True, 'j') + x, axis_name='j')(jnp.arange(3))"),
]
