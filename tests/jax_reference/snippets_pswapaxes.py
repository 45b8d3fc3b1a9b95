"""Snippets for ``lax.pswapaxes`` (all_to_all of an axis onto itself) under pmap, vmap and shard_map;
recorded on 8 CPU devices (record.py's EIGHT_DEVICE_TOPICS). Registered in snippets.py."""

X = "x = jnp.arange(4 * 4 * 3.).reshape(4, 4, 3)\n"
SWAP0 = "lambda v: lax.pswapaxes(v, 'i', 0)"

PSWAPAXES = [
    ("pmap_axis0", X + f"out = jax.pmap({SWAP0}, axis_name='i')(x)"),
    (
        "pmap_axis1",
        "out = jax.pmap(lambda v: lax.pswapaxes(v, 'i', 1), axis_name='i')(jnp.arange(4 * 3 * 4.).reshape(4, 3, 4))",
    ),
    (
        "pmap_pytree",
        X + "out = jax.pmap(lambda v: lax.pswapaxes({'a': v, 'b': 2 * v}, 'i', 0), axis_name='i')(x)",
    ),
    ("vmap", X + f"out = jax.vmap({SWAP0}, axis_name='i')(x)"),
    ("pmap_grad", X + f"out = jax.grad(lambda x: jnp.sin(jax.pmap({SWAP0}, axis_name='i')(x)).sum())(x)"),
    ("pmap_jaxpr", X + f"out = str(jax.make_jaxpr(jax.pmap({SWAP0}, axis_name='i'))(x)).count('all_to_all')"),
    (
        "shard_map",
        "from jax.sharding import PartitionSpec as P\n"
        "mesh = jax.make_mesh((4,), ('i',))\n"
        "f = jax.shard_map(lambda v: lax.pswapaxes(v, 'i', 1), mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
        "out = f(jax.device_put(jnp.arange(8 * 4.).reshape(8, 4), jax.NamedSharding(mesh, P('i'))))",
    ),
    ("err_size", X + "out = jax.pmap(lambda v: lax.pswapaxes(v, 'i', 1), axis_name='i')(x)"),
    ("err_unbound", X + "out = lax.pswapaxes(x, 'i', 0)"),
]
