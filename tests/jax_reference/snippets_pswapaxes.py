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

# axis_index_groups: the exchange within each group of axis indices (the first group's size is the
# size), on 8 devices; vmap has no rule for it, and XLA refuses groups that do not cover the axis.
# JAX's transpose of an untiled all_to_all that moves an axis gives a cotangent of the wrong shape:
# grad refuses it (with or without groups).
X8 = "x = jnp.arange(8 * 2 * 3.).reshape(8, 2, 3)\n"
G2 = "G = [[0, 2], [1, 3], [4, 6], [5, 7]]\n"
A2A = "lambda v: lax.all_to_all(v, 'i', {s}, {c}, axis_index_groups=G{tiled})"
PSWAPAXES += [
    (
        "groups_halves",
        "x = jnp.arange(8 * 4 * 3.).reshape(8, 4, 3)\nG = [[0, 1, 2, 3], [4, 5, 6, 7]]\n"
        "out = [jax.pmap(lambda v: lax.all_to_all(v, 'i', s, c, axis_index_groups=G), axis_name='i')(x) "
        "for s, c in ((0, 0), (0, 1))]",
    ),
    (
        "groups_strided",
        X8 + G2 + f"out = [jax.pmap({A2A.format(s=0, c=0, tiled='')}, axis_name='i')(x), "
        f"jax.pmap({A2A.format(s=0, c=1, tiled='')}, axis_name='i')(x), "
        f"jax.pmap({A2A.format(s=0, c=0, tiled=', tiled=True')}, axis_name='i')(x), "
        f"jax.jit(jax.pmap({A2A.format(s=0, c=0, tiled='')}, axis_name='i'))(x)]",
    ),
    (
        "groups_pswapaxes",
        G2 + "out = [jax.pmap(lambda v: lax.pswapaxes(v, 'i', 1, axis_index_groups=G), axis_name='i')"
        "(jnp.arange(8 * 3 * 2.).reshape(8, 3, 2)), jax.pmap(lambda v: lax.pswapaxes(v, 'i', 0, "
        "axis_index_groups=[[0, 1, 2, 3], [4, 5, 6, 7]]), axis_name='i')(jnp.arange(8 * 4 * 3.).reshape(8, 4, 3))]",
    ),
    (
        "groups_on_four_devices",
        "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, axis_index_groups=[[0, 1], [2, 3]]), "
        "axis_name='i')(jnp.arange(4 * 2 * 3.).reshape(4, 2, 3))",
    ),
    (
        "groups_grad",
        X8 + G2 + f"f = jax.pmap({A2A.format(s=0, c=0, tiled='')}, axis_name='i')\n"
        "out = jax.grad(lambda x: (jnp.sin(f(x)) * jnp.arange(48.).reshape(8, 2, 3)).sum())(x)",
    ),
    (
        "groups_jaxpr",
        X8 + G2 + f"out = str(jax.make_jaxpr(jax.pmap({A2A.format(s=0, c=0, tiled='')}, axis_name='i'))(x))",
    ),
    (
        "err_groups_size",
        X8
        + G2
        + "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, axis_index_groups=[[0, 1, 2, 3], [4, 5, 6, 7]]), axis_name='i')(x)",
    ),
    (
        "err_groups_uneven",
        "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, axis_index_groups=[[0, 1, 2], [3, 4, 5, 6, 7]]), "
        "axis_name='i')(jnp.arange(8 * 4 * 3.).reshape(8, 4, 3))",
    ),
    (
        "err_groups_not_covering",
        X8 + "out = jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, axis_index_groups=[[0, 1], [2, 3]]), "
        "axis_name='i')(x)",
    ),
    ("err_groups_vmap", X8 + G2 + f"out = jax.vmap({A2A.format(s=0, c=0, tiled='')}, axis_name='i')(x)"),
    (
        "err_groups_grad_moving_axis",
        X8 + G2 + f"f = jax.pmap({A2A.format(s=0, c=1, tiled='')}, axis_name='i')\n"
        "out = jax.grad(lambda x: jnp.sin(f(x)).sum())(x)",
    ),
    (
        "err_grad_moving_axis",
        "f = jax.pmap(lambda v: lax.all_to_all(v, 'i', 1, 0), axis_name='i')\n"
        "out = jax.grad(lambda x: jnp.sin(f(x)).sum())(jnp.arange(8 * 3 * 8.).reshape(8, 3, 8))",
    ),
    (
        "grad_tiled_moving_axis",
        X8 + G2 + f"f = jax.pmap({A2A.format(s=0, c=1, tiled=', tiled=True')}, axis_name='i')\n"
        "out = jax.grad(lambda x: (jnp.sin(f(x)) * jnp.arange(48.).reshape(8, 1, 6)).sum())(x)",
    ),
]
