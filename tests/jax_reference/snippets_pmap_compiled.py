"""pmapped functions compared bit for bit (rtol 0) with JAX 0.10.2 on 8 devices: each device runs
the body as XLA compiles it (simplified, its multiply-adds fused, as ``jit`` runs a program:
``engine/parallel/programs.device_form``), so a pmapped function rounds as the same function
jitted. Registered in snippets.py (``pmap_compiled``, recorded on 8 devices)."""

_DATA = (
    "rng = np.random.default_rng(0)\n"
    "x = rng.standard_normal((8, 5)).astype(np.float32)\n"
    "w = rng.standard_normal((5, 3)).astype(np.float32)\n"
    "y = rng.standard_normal((8, 16, 3)).astype(np.float32)\n"
    "t = jnp.linspace(0., 1., 24).reshape(8, 3)\n"
)

_PMAP = {
    "grad_of_products": "jax.pmap(jax.vmap(jax.grad(lambda t: jnp.sin(t) * t ** 2)))(t)",
    "multiply_add": "jax.pmap(lambda v: v * 1.1 + 0.3)(x)",
    "psum_of_products": "jax.pmap(lambda v: lax.psum(v * v + v, 'i'), axis_name='i')(x)",
    "layer_and_pmean": (
        "jax.pmap(lambda v, yb: lax.pmean(jnp.tanh(v * 2.0 + 1.0) * yb - v, 'i'),"
        " axis_name='i')(x[:, :3], y[:, 0])"
    ),
    "value_and_grad_step": (
        "jax.pmap(lambda v, yb: jax.value_and_grad(lambda w: jnp.mean((jnp.tanh(v[None, :] @ w) - yb[:1]) ** 2))(w),"
        " in_axes=(0, 0))(x, y)"
    ),
    "var": "jax.pmap(lambda v: jnp.var(v) + jnp.std(v))(x)",
}

PMAP_COMPILED = [(name, _DATA + f"out = {expr}", 0.0) for name, expr in _PMAP.items()]
