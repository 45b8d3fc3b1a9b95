"""What the eighth differential fuzz (random jnp / lax / control-flow programs under random
transformation stacks, the jaxpr texts and the values compared; issue 13) found. A jitted
``einsum('i,i->i', x, x)`` crashed the compiler's simplifier (a vector dotted with itself was taken
for ``sum(x * x)`` though its one dimension is a batch dimension: an elementwise square). A scan's
loop-invariant hoisting left a known carry's initial value (polyval's zeros, inside its jit) in the
loop where JAX hoists it. jacrev over several arguments unravelled its blocks output by output
where JAX goes input by input (split, then each reshape). jacfwd of a function with an integer
output returned its float0 block, which nothing can compute with, where JAX casts it to the
output's dtype (zeros), and a float0 could not be converted. Under direct linearization a cond's or
scan's known body kept the residuals of tangent work nothing read (JAX's linearize_jaxpr DCEs the
tangent side, then the primal side); pad's batch rule moved the batch dimension to the front; a
remat's split turned literals into residuals (JAX's partial_eval_jaxpr_custom keeps them); the
hoisting split kept a custom_jvp call whole where JAX's JaxprTrace inlines it. A compiled sum of a
negation is XLA's negated sum (a sum of zeros is -0), so the pullback of jnp.std at a zero
cotangent keeps the signs of x - mean. A fuzz of small models (MLPs, attention, an RNN in a scan,
convolutions, under grad, jit, vmap of grad, jacrev, hessian) found the hoisting split of an RNN
cell's jitted activation (leaky_relu, elu, softplus) unlike JAX's JaxprTrace split: literals made
residuals, empty inner jits dropped, residuals not in its toposort's order; and cond's batch rule
keeping a batched operand's batch dimension where it was (JAX's moves it to the front first).
Registered in snippets.py."""

_X = "x = jnp.linspace(-1.0, 1.2, 4, dtype=jnp.float32)\n"
_XY = (
    "x = jnp.sin(jnp.arange(12, dtype=jnp.float32) * 1.3).reshape(3, 4)\n"
    "y = jnp.cos(jnp.arange(4, dtype=jnp.float32) * 0.7)\n"
)

FUZZ8 = [
    (
        "einsum_batch_dimension_only_jit",
        _X
        + "out = [jax.jit(lambda x: jnp.einsum('i,i->i', x, x))(x), jax.jit(lambda x: jnp.einsum('i,i->', x, x))(x),"
        " jax.jit(lambda x: (jnp.einsum('i,i->i', x, x) > 0.1).sum())(x)]",
    ),
    (
        "scan_hoists_known_carry_init",
        _X + "c = jnp.array([1.0, -2.0, 0.5])\n"
        "f = lambda x: jnp.sum(jax.lax.map(lambda v: jnp.polyval(c, v) * 2.0, x.reshape(2, 2)))\n"
        "out = (str(jax.make_jaxpr(jax.grad(f))(x)), str(jax.make_jaxpr(jax.grad(jax.jit(f)))(x)), jax.grad(f)(x))",
    ),
    (
        "jacrev_unravels_input_by_input",
        _XY + "f = lambda x, y: x.T.reshape(3, 4) * y\n"
        "g = lambda x, y: (x[1] * y, jnp.stack([x[0], y, x[2]]))\n"
        "out = [(str(jax.make_jaxpr(jax.jacrev(h, argnums=(0, 1)))(x, y)), jax.jacrev(h, argnums=(0, 1))(x, y))"
        " for h in (f, g)]",
    ),
    (
        "jacfwd_integer_output_is_zeros",
        _XY
        + "out = [jax.jacfwd(lambda x: jnp.argsort(x, axis=0))(x), jax.jacfwd(lambda x: (jnp.argmax(x), jnp.sin(x)))(x),"
        " str(jax.make_jaxpr(jax.jacfwd(lambda x: jnp.argsort(x, axis=0)))(x)),"
        " jax.jit(jax.jacfwd(lambda x: jnp.bincount(jnp.arange(5) % 3, length=4) * 1))(y)]",
    ),
    (
        "cond_linearized_keeps_read_residuals",
        _X + "f = lambda x: jax.lax.switch(jnp.clip(jnp.argmax(x), 0, 2), [lambda v: jnp.sum(jnp.sin(v)),"
        " lambda v: jax.nn.logsumexp(v), lambda v: jnp.sum(v * v)], x)\n"
        "out = (str(jax.make_jaxpr(jax.value_and_grad(f))(x)), jax.value_and_grad(f)(x))",
    ),
    (
        "scan_linearized_keeps_read_residuals",
        "x = jnp.linspace(-1.0, 1.2, 8, dtype=jnp.float32).reshape(2, 4)\n"
        "f = lambda x: jnp.sum(jax.lax.map(lambda v: jax.nn.softmax(v) * 2.0, x.reshape(2, 2)))\n"
        "out = (str(jax.make_jaxpr(jax.vmap(jax.value_and_grad(f)))(x)), jax.vmap(jax.value_and_grad(f))(x))",
    ),
    (
        "pad_batch_dimension_in_place",
        "x = jnp.arange(12.0).reshape(3, 4)\nv = jnp.array([9.0, 8.0, 7.0, 6.0])\n"
        "p = lambda x, v: jax.lax.pad(x, v, [(1, 2, 1)])\n"
        "gs = [(jax.vmap(p, in_axes=(1, 0)), (x, v)), (jax.vmap(p, in_axes=(1, None)), (x, 5.0)),"
        " (jax.vmap(p, in_axes=(None, 0)), (x[0], v))]\n"
        "out = [(str(jax.make_jaxpr(g)(*a)), g(*a)) for g, a in gs]",
    ),
    (
        "remat_split_keeps_literals",
        _X + "f = lambda x: jax.checkpoint(lambda v: jnp.mean(jnp.cumprod(v) ** 2),"
        " policy=jax.checkpoint_policies.nothing_saveable)(x)\n"
        "out = (str(jax.make_jaxpr(jax.grad(f))(x)), jax.grad(f)(x))",
    ),
    (
        "hoisting_inlines_custom_jvp",
        "x = jnp.linspace(-1.0, 1.2, 8, dtype=jnp.float32).reshape(2, 4)\n"
        "f = lambda x: jnp.sum(jax.lax.map(lambda v: jax.nn.relu(v) * 2.0, x.reshape(2, 2)))\n"
        "out = (str(jax.make_jaxpr(jax.jacrev(f))(x[0])), str(jax.make_jaxpr(jax.vmap(jax.grad(f)))(x)),"
        " jax.vmap(jax.grad(f))(x))",
    ),
    (
        "compiled_sum_of_negation",
        "m = np.array([-0.0, 0.0, 0.0, -0.0, -0.0, 0.0], np.float32)\n"
        "x = jnp.sin(jnp.arange(12, dtype=jnp.float32) * 1.3).reshape(3, 4)\n"
        "signs = lambda v: np.signbit(np.asarray(v)).tolist()\n"
        "out = [signs(jax.jit(lambda v: jnp.sum(-v))(m)), signs(jax.jit(lambda v, s: jnp.sum(-(v * s)))(m, np.float32(0.5))),"
        " signs(jax.vjp(jnp.std, x)[1](jnp.float32(0.0))[0]),"
        " signs(jax.jacrev(lambda x: (x[1], jnp.std(x)))(x)[0])]",
    ),
    (
        "rnn_cell_activation_hoisting",
        "k = np.random.default_rng(0)\n"
        "w = jnp.asarray(k.standard_normal((8, 8)) * 0.3, jnp.float32)\n"
        "x = jnp.asarray(k.standard_normal((5, 8)), jnp.float32)\n"
        "def loss(w, x, act):\n"
        "    cell = lambda h, xt: (act(xt @ w * 0.5 + h @ w * 0.1), act(xt @ w * 0.5 + h @ w * 0.1))\n"
        "    return jnp.mean(jax.lax.scan(cell, jnp.zeros(8), x)[1] ** 2)\n"
        "out = [(str(jax.make_jaxpr(jax.vmap(jax.grad(loss), in_axes=(None, 0, None)))(w, x[:, None], a)),"
        " jax.vmap(jax.grad(loss), in_axes=(None, 0, None))(w, x[:, None], a))"
        " for a in (jax.nn.leaky_relu, jax.nn.elu, jax.nn.softplus)]",
    ),
    (
        "cond_batch_dimensions_to_front",
        _XY + "w = jnp.outer(y, y[:3])\n"
        "f = lambda w, x: jnp.mean(jax.lax.cond(w[0, 0] > -1.0, lambda h: jax.nn.relu(h) @ w[:3], lambda h: h @ w[:3] * 0.5,"
        " x @ w) ** 2)\n"
        "out = (str(jax.make_jaxpr(jax.jacfwd(f))(w, x)), jax.jacfwd(f)(w, x))",
    ),
]
