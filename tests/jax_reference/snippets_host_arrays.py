"""A caller's numpy arrays stay theirs (issue 13): JAX copies a host array to its device, so what it
returns, and what a jit traced or cached, never sees later writes to the array, and the array stays
writable. The engine froze them in place (``ValueError: assignment destination is read-only`` at the
caller's next write, from jnp functions, jit arguments and closures, cond, checkpoint) or aliased
them (``lax.reshape`` of a numpy array changed with it). Not here: ``jax.device_put`` and
``lax.stop_gradient`` of a numpy array, which JAX's CPU client may return without a copy (aliasing
the caller's buffer), where the engine copies. Registered in snippets.py."""

_C = "c = np.ones(3, np.float32)\n"


def _after_write(call: str) -> str:
    """``call`` on c, then a write to c: the result and c as they are then."""
    return _C + f"r = {call}\nc[0] = 5.0\nc[1] += 1.0\nout = (r, c)"


HOST_ARRAYS = [
    ("jnp_add", _after_write("jnp.ones(3) + c")),
    ("jnp_sin", _after_write("jnp.sin(c)")),
    ("jnp_where", _after_write("jnp.where(c > 0, c, 0.0)")),
    ("jnp_asarray", _after_write("jnp.asarray(c)")),
    ("jnp_reshape", _after_write("jnp.reshape(c, (3, 1))")),
    ("lax_reshape", _after_write("lax.reshape(c, (3, 1))")),
    ("lax_add", _after_write("lax.add(c, c)")),
    ("jit_argument", _after_write("jax.jit(lambda x: x * 2)(c)")),
    ("jit_identity", _after_write("jax.jit(lambda x: x)(c)")),
    ("jit_closure", _after_write("jax.jit(lambda x: x + c)(1.0)")),
    ("grad_closure", _after_write("jax.grad(lambda x: (x * c).sum())(1.0)")),
    ("make_jaxpr_closure", _after_write("str(jax.make_jaxpr(lambda x: x + c)(1.0))")),
    ("cond", _after_write("lax.cond(True, lambda x: x, lambda x: x * 2, c)")),
    ("checkpoint", _after_write("jax.checkpoint(lambda x: x * 2)(c)")),
    ("scan", _after_write("lax.scan(lambda s, x: (s + x, x), 0.0, c)")),
    ("vmap", _after_write("jax.vmap(lambda x: x)(c)")),
    # a jit called again after the write sees the new argument, and its traced constant stays the old one
    (
        "jit_again",
        _C + "f = jax.jit(lambda x: x)\ng = jax.jit(lambda x: x * c)\nr = [f(c), g(1.0)]\n"
        "c[0] = 5.0\nr += [f(c), g(1.0)]\nc[1] = 7.0\nr += [f(c), g(1.0), jax.jit(lambda x: x * c)(1.0)]\n"
        "out = (r, c)",
    ),
    (
        "jnp_array_in_jit",
        _C + "f = jax.jit(lambda x: x + jnp.array(c))\nr = f(1.0)\nc[0] = 5.0\nout = (r, f(1.0), c)",
    ),
]
