"""Snippets for indexing arrays sharded over a mesh: which of JAX's paths an index takes on an array
on several devices (a gather, unless it keeps whole dimensions), the sharding rules of slice,
dynamic_slice, gather, scatter and dynamic_update_slice on ``Explicit`` axes (their
``ShardingTypeError``s word for word), ``.at[...].get/set(out_sharding=)``, and the layouts XLA
picks on ``Auto`` axes. Recorded on 8 CPU devices (record.py's EIGHT_DEVICE_TOPICS). Registered in
snippets.py."""


def _snippet(kind, expr):
    # (inside ``with``: a mesh set for good would stay set for the snippets after these)
    return (
        "from jax.sharding import PartitionSpec as P, AxisType\n"
        f"mesh = jax.make_mesh((4, 2), ('i', 'j'), axis_types=(AxisType.{kind},) * 2)\n"
        "def typed(r):\n"
        "    return (str(jax.typeof(r)), str(r.sharding.spec), r)\n"
        "with jax.set_mesh(mesh):\n"
        "    x = jax.device_put(jnp.arange(32.).reshape(8, 4), P('i', None))\n"
        "    y = jax.device_put(jnp.arange(32.).reshape(8, 4), P('i', 'j'))\n"
        f"    out = {expr}\n"
    )


_CASES = [
    ("int", "typed(x[3])"),
    ("head", "typed(x[:4])"),
    ("tail", "typed(x[1:])"),
    ("whole_slice", "typed(x[0:8])"),
    ("strided", "typed(x[::2])"),
    ("column", "typed(x[:, 1])"),
    ("columns", "typed(x[:, :2])"),
    ("ellipsis_int", "typed(x[..., 0])"),
    ("newaxis", "typed(x[None])"),
    ("array_rows", "typed(x[jnp.array([1, 2])])"),
    ("array_cols", "typed(y[:, jnp.array([0, 3])])"),
    ("row_of_2d", "typed(y[2])"),
    ("take_rows", "typed(jnp.take(x, jnp.array([1, 2]), axis=0))"),
    ("get_out_sharding", "typed(x.at[3].get(out_sharding=P(None)))"),
    ("get_out_sharding_split", "typed(x.at[:4].get(out_sharding=P('i', None)))"),
    ("get_no_out_sharding", "typed(x.at[:4].get())"),
    ("set_row", "typed(x.at[3].set(1.0))"),
    ("set_rows", "typed(x.at[:4].set(1.0))"),
    ("set_column", "typed(y.at[:, 1].set(0.))"),
    ("set_columns", "typed(y.at[:, 1:3].set(0.))"),
    ("set_out_sharding", "typed(y.at[1].set(5., out_sharding=P('i', 'j')))"),
    ("add_out_sharding", "typed(y.at[:, 1].add(1., out_sharding=P('i', None)))"),
    ("multiply_out_sharding", "typed(y.at[1].multiply(2., out_sharding=P()))"),
    ("divide_out_sharding", "typed(y.at[1].divide(2., out_sharding=P()))"),
    ("lax_slice", "typed(jax.lax.slice(x, (0, 0), (4, 4)))"),
    ("lax_slice_odd", "typed(jax.lax.slice(x, (0, 0), (3, 4)))"),
    ("index_in_dim", "typed(jax.lax.index_in_dim(x, 2, keepdims=False))"),
    ("dynamic_slice", "typed(jax.lax.dynamic_slice_in_dim(x, 2, 4))"),
    ("dynamic_slice_2d", "typed(jax.lax.dynamic_slice(y, (jnp.int32(2), 0), (4, 2)))"),
    ("dus_replicated_update", "typed(jax.lax.dynamic_update_slice(y, jnp.zeros((2, 4)), (2, 0)))"),
    (
        "dus_same_sharding",
        "typed(jax.lax.dynamic_update_slice(y, jax.device_put(jnp.zeros((8, 2)), P('i', 'j')), (0, 2)))",
    ),
    ("jit_int", "typed(jax.jit(lambda a: a[3])(x))"),
    ("jit_head", "typed(jax.jit(lambda a: a[:4])(x))"),
    ("jit_middle", "typed(jax.jit(lambda a: a[1:5])(y))"),
    ("jit_column", "typed(jax.jit(lambda a: a[:, 1])(y))"),
    ("jit_dynamic_slice", "typed(jax.jit(lambda a, i: jax.lax.dynamic_slice(a, (i, 0), (4, 2)))(y, 2))"),
    ("jit_dynamic_slice_odd", "typed(jax.jit(lambda a, i: jax.lax.dynamic_slice(a, (i, 0), (3, 2)))(y, 2))"),
]

SHARDED_INDEXING = [
    (f"{kind.lower()}_{name}", _snippet(kind, expr)) for kind in ("Explicit", "Auto") for name, expr in _CASES
]
