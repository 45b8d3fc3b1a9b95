"""Issue 13: ``jax.default_device`` (the context manager and the ``jax_default_device`` option).
Arrays made or computed in the block that are committed to no device live on that device (their
``devices()``, ``sharding``, ``committed``), and keep living there after it; what is computed from
them outside the block is on the first device again; committed arrays stay where they are. Recorded
on 8 CPU devices (EIGHT_DEVICE_TOPICS in record.py). Registered in snippets.py."""

_SHOW = "def show(x):\n    return (str(sorted(x.devices(), key=str)), x.committed, repr(x.sharding))\n"
_D = "d = jax.devices()\n" + _SHOW


def _in_block(expr: str, device: str = "d[2]") -> str:
    return _D + f"with jax.default_device({device}):\n    x = {expr}\nout = show(x)"


DEFAULT_DEVICE = [
    ("ones", _in_block("jnp.ones(3)")),
    ("arange_plus", _in_block("jnp.arange(3) + 1")),
    ("jit_result", _in_block("jax.jit(lambda v: v * 2)(jnp.ones(2))")),
    ("device_put_host", _in_block("jax.device_put(np.ones(2))")),
    ("asarray_host", _in_block("jnp.asarray(np.ones(2))")),
    (
        "key",
        _D
        + "with jax.default_device(d[2]):\n    k = jax.random.key(0)\nout = str(sorted(k.devices(), key=str))",
    ),
    ("platform_cpu_device", _in_block("jnp.zeros(2)", "jax.devices('cpu')[1]")),
    ("platform_name", _in_block("jnp.zeros(2)", "'cpu'")),
    (
        "computed_outside",
        _D + "with jax.default_device(d[2]):\n    a = jnp.ones(3)\nout = (show(a), show(a + 1))",
    ),
    (
        "committed_stays",
        _D + "x3 = jax.device_put(jnp.ones(2), d[3])\n"
        "with jax.default_device(d[2]):\n    g = x3 * 2\n    h = jnp.ones(2) + x3\nout = (show(g), show(h))",
    ),
    (
        "config_option",
        _D + "jax.config.update('jax_default_device', d[5])\n"
        "try:\n    out = (show(jnp.zeros(2)), show(jax.jit(lambda: jnp.ones(2))()))\n"
        "finally:\n    jax.config.update('jax_default_device', None)\nout = out + (show(jnp.zeros(2)),)",
    ),
    ("values", _D + "with jax.default_device(d[4]):\n    out = jnp.arange(4.0) * 2 + jnp.ones(4)"),
    ("err_not_a_device", "with jax.default_device(3):\n    out = jnp.ones(2)"),
]
