"""Snippets for exceptions raised inside host callbacks: JAX runs pure_callback and io_callback in
compiled code even eagerly, and debug.callback under jit, so an exception there comes out as JAX's
runtime error (``jax.errors.JaxRuntimeError``) whose message holds the Python traceback and ends
with the original exception; an eager debug.callback lets the exception through as it is.
Registered in snippets.py."""


def _failing(call: str) -> str:
    return (
        "from jax.experimental import io_callback\n"
        "def bad(*_):\n"
        "    raise ValueError('boom in the callback')\n"
        "sds = jax.ShapeDtypeStruct((), jnp.float32)\n"
        "try:\n"
        f"    r = {call}\n"
        "    jax.effects_barrier()\n"
        "    out = 'no error'\n"
        "except Exception as e:\n"
        "    lines = str(e).splitlines()\n"
        "    out = [type(e).__name__, isinstance(e, jax.errors.JaxRuntimeError), lines[0], lines[-1],\n"
        "           any(line.endswith(', in bad') for line in lines)]\n"
    )


CALLBACK_ERRORS = [
    ("debug_callback_jit", _failing("jax.jit(lambda x: (jax.debug.callback(bad, x), x)[1])(1.0)")),
    ("debug_callback_eager", _failing("jax.debug.callback(bad, 1.0)")),
    (
        "debug_callback_ordered_jit",
        _failing("jax.jit(lambda x: (jax.debug.callback(bad, x, ordered=True), x)[1])(1.0)"),
    ),
    ("pure_callback_jit", _failing("jax.jit(lambda x: jax.pure_callback(bad, sds, x))(1.0)")),
    ("pure_callback_eager", _failing("jax.pure_callback(bad, sds, 1.0)")),
    ("io_callback_jit", _failing("jax.jit(lambda x: io_callback(bad, sds, x))(1.0)")),
    ("io_callback_ordered_jit", _failing("jax.jit(lambda x: io_callback(bad, sds, x, ordered=True))(1.0)")),
    ("io_callback_eager", _failing("io_callback(bad, sds, 1.0)")),
    (
        "pure_callback_jit_of_grad",
        _failing("jax.jit(jax.grad(lambda x: x * jax.pure_callback(bad, sds, 2.0)))(1.0)"),
    ),
    (
        "pure_callback_vmap_jit",
        _failing(
            "jax.jit(jax.vmap(lambda x: jax.pure_callback(bad, sds, x, vmap_method='sequential')))(jnp.ones(2))"
        ),
    ),
]
