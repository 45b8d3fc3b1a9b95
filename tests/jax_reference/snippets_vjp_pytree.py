"""Snippets for ``jax.vjp``'s pullback as a pytree, as JAX 0.10.2 lays it out: its leaves are the
primal inputs the backward pass reads (in input order; an unread one is a leafless
``NotNeeded()``), then the other residuals in the order linearization made them (first use), and
an eager vjp's pullback has them too. A Python scalar input the backward pass reads is a literal
of it, not a residual. Registered in snippets.py as topic ``vjp_pytree``."""

# print_fwd_bwd of JAX's gradient-checkpointing page, returning the two jaxprs' texts
_FWD_BWD = (
    "from jax.tree_util import tree_flatten, tree_unflatten\n"
    "def fwd_bwd(f, *args):\n"
    "    fwd = jax.make_jaxpr(lambda *a: jax.vjp(f, *a))(*args).jaxpr\n"
    "    y, f_vjp = jax.vjp(f, *args)\n"
    "    res, tree = tree_flatten(f_vjp)\n"
    "    def g_(*a):\n"
    "        *r, y = a\n"
    "        return tree_unflatten(tree, r)(y)\n"
    "    return str(fwd), str(jax.make_jaxpr(g_)(*res, y).jaxpr), len(res)\n"
)
_G = "def g(W, x):\n    return jnp.sin(jnp.dot(W, x))\n"
_F3 = _G + (
    "def f(W1, W2, W3, x):\n    return g(W3, g(W2, g(W1, x)))\n"
    "W = (jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones((7, 6)), jnp.ones(4))\n"
)
_CHAIN = (
    "def rc(funs):\n"
    "    if len(funs) == 1:\n        return funs[0]\n"
    "    if len(funs) == 2:\n        f1, f2 = funs\n        return lambda x: f1(f2(x))\n"
    "    f1, f2 = rc(funs[:len(funs)//2]), rc(funs[len(funs)//2:])\n"
    "    return lambda x: f1(jax.checkpoint(f2)(x))\n"
)

VJP_PYTREE = [
    (
        "one_layer",
        _FWD_BWD + "out = fwd_bwd(lambda W1, x: jnp.sin(W1 @ x), jnp.ones((3, 2)), jnp.ones(2))",
    ),
    ("three_layers", _FWD_BWD + _F3 + "out = fwd_bwd(f, *W)"),
    (
        "three_layers_dots_saveable",
        _FWD_BWD
        + _F3
        + "f3 = jax.checkpoint(f, policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)\n"
        "out = fwd_bwd(f3, *W)",
    ),
    ("recursive_checkpoint_scalar", _FWD_BWD + _CHAIN + "out = fwd_bwd(rc([jnp.sin] * 8), 3.)"),
    (
        "eager_leaves",
        "y, f_vjp = jax.vjp(lambda x, y: jnp.sin(x) * y, jnp.float32(0.5), jnp.arange(3.))\n"
        "out = (jax.tree.leaves(f_vjp), str(jax.tree.structure(f_vjp.args_res)))",
    ),
    (
        "python_scalar_is_a_literal",
        "y, f_vjp = jax.vjp(lambda x: x * x, 3.0)\n"
        "out = (len(jax.tree.leaves(f_vjp)), str(jax.make_jaxpr(f_vjp)(1.0)))",
    ),
    (
        "python_scalar_sin",
        "y, f_vjp = jax.vjp(lambda x: jnp.sin(x) * x, 3.0)\n"
        "out = (jax.tree.leaves(f_vjp), str(jax.tree.structure(f_vjp.args_res)))",
    ),
    (
        "unread_inputs_not_needed",
        "y, f_vjp = jax.vjp(lambda a, b, c: jnp.sin(a) + b * 2.0 + c, 1.0, jnp.ones(2), jnp.ones(2))\n"
        "out = (len(jax.tree.leaves(f_vjp)), str(jax.tree.structure(f_vjp.args_res)), f_vjp(jnp.ones(2)))",
    ),
    (
        "nested_inputs",
        "p = {'w': jnp.ones((2, 2)), 'b': jnp.zeros(2)}\n"
        "y, f_vjp = jax.vjp(lambda p, x: jnp.tanh(p['w'] @ x + p['b']), p, jnp.arange(2.))\n"
        "out = (jax.tree.leaves(f_vjp), str(jax.tree.structure(f_vjp.args_res)))",
    ),
    (
        "has_aux",
        "y, f_vjp, aux = jax.vjp(lambda x: (jnp.exp(x), x * 2), jnp.arange(3.), has_aux=True)\n"
        "out = (jax.tree.leaves(f_vjp), aux, f_vjp(jnp.ones(3)))",
    ),
    (
        "jitted_fwd_leaves",
        "y, f_vjp = jax.jit(lambda x, w: jax.vjp(lambda x: jnp.cos(x * w), x))(jnp.arange(3.), 2.0)\n"
        "out = (jax.tree.leaves(f_vjp), f_vjp(jnp.ones(3)))",
    ),
    (
        "unflatten_with_new_leaves",
        "y, f_vjp = jax.vjp(lambda x: jnp.sin(x) ** 2, jnp.arange(3.))\n"
        "leaves, tree = jax.tree.flatten(f_vjp)\n"
        "out = (len(leaves), jax.tree.unflatten(tree, [l * 2 for l in leaves])(jnp.ones(3)))",
    ),
    (
        "splatted_cotangents",
        "def f(x):\n    return (x, x)\n"
        "_, f_vjp = jax.vjp(f, 1.0)\n"
        "try:\n    f_vjp(2.0, 2.0)\nexcept TypeError as e:\n    out = str(e).split('\\n')[1]",
    ),
]
