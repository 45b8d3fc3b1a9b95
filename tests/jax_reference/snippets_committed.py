"""Snippets for JAX's committed arrays on the engine's simulated devices: ``device_put`` with a
device commits, computations on committed arrays are committed to (and run on) their device, an
uncommitted operand follows a committed one, and committed arrays on different devices are
refused. Recorded on 8 CPU devices (record.py's EIGHT_DEVICE_TOPICS); registered in snippets.py.
The refusals of jitted functions are checked word for word (an eager jnp function's refusal names
its operands as JAX's jitted jnp wrappers name their parameters, ``x of multiply``; the engine's
eager operations name them ``args[0] of mul``: those snippets keep the class only)."""

_PUT = "d = jax.devices()\nx = jnp.arange(4.)\ny = jax.device_put(x, d[1])\nv = jax.device_put(x, d[2])\n"
_WHERE = "where = lambda a: (a.committed, sorted(dv.id for dv in a.devices()), repr(a.sharding))\n"
_REFUSED = "try:\n    {call}\n    out = 'no error'\nexcept ValueError as e:\n    out = str(e).split(' Got argument')[0]\n"

COMMITTED = [
    (
        "device_put_commits",
        _PUT + _WHERE + "out = [where(a) for a in (x, y, jax.device_put(x), jax.device_put(x, None), "
        "jax.device_put(x, d[0]), jax.device_put(y), jax.device_put(y, d[2]), "
        "jax.device_put(x, jax.sharding.SingleDeviceSharding(d[3])))]",
    ),
    (
        "results_follow_committed",
        _PUT + _WHERE + "out = [where(a) for a in (y + 1, y + x, x * y, jnp.sin(y), y.sum(), y[0], y[1:3], "
        "jnp.abs(y), jnp.zeros_like(y), y.copy(), jnp.array(y), jnp.asarray(y), "
        "np.ones(4, np.float32) + y, y + 1.0, jax.device_put(1.0, d[1]) + x, jnp.stack([x, y]))]",
    ),
    (
        "transformed_results_follow_committed",
        _PUT
        + _WHERE
        + "out = [where(a) for a in (jax.jit(lambda a, b: a * b)(y, x), jax.jit(lambda a: a + 1)(x), "
        "jax.grad(lambda a: (a ** 2).sum())(y), jax.vmap(jnp.sin)(y), "
        "jax.jit(lambda a: a, out_shardings=jax.sharding.SingleDeviceSharding(d[5]))(x))]",
    ),
    (
        "shards_of_committed",
        _PUT + "z = y + 1\np = jax.pmap(lambda a: a)(jnp.arange(8.))\n"
        "out = [(s.device.id, str(s.index), s.data.committed, sorted(dv.id for dv in s.data.devices())) "
        "for a in (x, y, z, jax.device_put(x), p) for s in a.addressable_shards]",
    ),
    ("pmap_results_committed", "out = jax.pmap(lambda a: a)(jnp.arange(8.)).committed"),
    ("err_mixed_devices_jit", _PUT + "out = jax.jit(lambda a, b: a + b)(y, v)"),
    ("err_mixed_devices_jit_def", _PUT + "def myf(a, b):\n    return a * b\nout = jax.jit(myf)(y, b=v)"),
    ("err_mixed_devices_jit_third", _PUT + "out = jax.jit(lambda a, b, c: a + b + c)(x, y, v)"),
    ("err_mixed_devices_lax_add", _PUT + "out = lax.add(y, v)"),
    ("err_mixed_devices_concatenate", _PUT + "out = lax.concatenate([y, v], 0)"),
    ("mixed_devices_device_0", _PUT + _REFUSED.format(call="jax.device_put(x, d[0]) + y")),
    ("mixed_devices_operators", _PUT + _REFUSED.format(call="y * v")),
    ("mixed_devices_jnp", _PUT + _REFUSED.format(call="jnp.dot(y, v)")),
    (
        "mixed_devices_pmap_result",
        _PUT
        + _REFUSED.format(
            call="jax.pmap(lambda a: a)(jnp.arange(8.)) + jax.device_put(jnp.arange(8.), d[1])"
        ),
    ),
]
