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
        "    out = [str(type(e)), isinstance(e, jax.errors.JaxRuntimeError), lines[0], lines[-1],\n"
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

# Ordered debug callbacks (debug.print / debug.callback with ordered=True) in a program compiled for
# more than one device: JAX refuses them (pmap over several devices, jit over a mesh); ordered
# io_callbacks, one device, and an eager shard_map's body (run per device) are allowed. Recorded on 8
# CPU devices (record.py's EIGHT_DEVICE_TOPICS).
_ORDERED = (
    "import re\n"
    "from jax.experimental import io_callback\n"
    "from jax.sharding import NamedSharding, PartitionSpec as P\n"
    "mesh = jax.make_mesh((2,), ('i',))\n"
    "x = jax.device_put(jnp.ones(2), NamedSharding(mesh, P('i')))\n"
    "sm = lambda body: jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
    "printing = lambda v: (jax.debug.print('{}', v, ordered=True), v)[1]\n"
    "calling = lambda v: (jax.debug.callback(lambda _: None, v, ordered=True), v)[1]\n"
    "io = lambda v: io_callback(lambda w: np.asarray(w, np.float32), jax.ShapeDtypeStruct(v.shape, np.float32), v, ordered=True)\n"
    "out = []\n"
    "for call in (lambda: jax.pmap(printing)(jnp.ones(2)), lambda: jax.pmap(calling)(jnp.ones(2)),\n"
    "             lambda: jax.pmap(printing)(jnp.ones(1)), lambda: jax.pmap(io)(jnp.ones(2)),\n"
    "             lambda: jax.jit(sm(printing))(x), lambda: jax.jit(printing)(x), lambda: sm(printing)(x),\n"
    "             lambda: jax.jit(sm(io))(x), lambda: jax.pmap(lambda v: (jax.debug.print('{}', v), v)[1])(jnp.ones(2))):\n"
    "    try:\n"
    "        jax.block_until_ready(call())\n"
    "        jax.effects_barrier()\n"
    "        out.append('ran')\n"
    "    except ValueError as e:\n"
    "        out.append(re.sub(' at 0x[0-9a-f]+', '', str(e)))\n"
)

ORDERED_EFFECTS = [("ordered_debug_effects_on_devices", _ORDERED)]
