"""Snippets for traced programs on meshes, recorded on 8 CPU devices (record.py's
EIGHT_DEVICE_TOPICS); registered in snippets.py:

- a jit traced under ``jax.set_mesh`` records the mesh (``ctx_mesh``, on its transpose and batched
  form too) and ``grad`` types its seed on a mesh with an ``Explicit`` axis (``reshard 1.0``);
- ``auto_axes`` without any mesh only calls the function; each API refuses a bare spec outside a
  mesh with JAX's own error (compared word for word);
- on an explicit mesh: reshapes merging split dimensions, concatenations, ``scan`` over split
  values and arrays made with ``out_sharding=`` are typed as JAX types them;
- sharded programs round as XLA's partitioned ones (bit for bit)."""

_MESHES = (
    "from jax.sharding import PartitionSpec as P, AxisType, NamedSharding\n"
    "E, A = AxisType.Explicit, AxisType.Auto\n"
    "meshes = {k: jax.make_mesh((2, 4), ('x', 'y'), axis_types=t) for k, t in "
    "{'explicit': (E, E), 'auto': (A, A), 'mixed': (E, A)}.items()}\n"
    "v = np.arange(8, dtype=np.float32)\n"
)


def _under(kind: str, expr: str) -> str:
    return _MESHES + f"with jax.set_mesh(meshes[{kind!r}]):\n    out = {expr}"


_TRACED = {
    "jit": "str(jax.make_jaxpr(jax.jit(lambda a: a * 2))(v))",
    "grad_of_jit": "str(jax.make_jaxpr(jax.grad(lambda a: jax.jit(lambda b: b * 2)(a).sum()))(v))",
    "vmap_of_jit": "str(jax.make_jaxpr(jax.vmap(jax.jit(jnp.sin)))(v.reshape(2, 4)))",
    "grad": "str(jax.make_jaxpr(jax.grad(lambda a: (a * 2).sum()))(v))",
}
MESH_CONTEXT = [
    (f"{name}_under_{kind}", _under(kind, expr))
    for name, expr in _TRACED.items()
    for kind in ("explicit", "auto", "mixed")
]
# grad of a function of an argument laid out on an explicit mesh: the seed is typed on that mesh
# (replicated here: of a split argument, JAX types the cotangent's broadcast split too, the engine not)
MESH_CONTEXT += [
    (
        "grad_seed_argument",
        _MESHES
        + "a = jax.device_put(v, NamedSharding(meshes['explicit'], P()))\n"
        + "out = str(jax.make_jaxpr(jax.grad(lambda a: (a * 2).sum()))(a))",
    )
]
# auto_axes with no mesh set and a bare spec: JAX just calls the function
MESH_CONTEXT += [
    (
        "auto_axes_without_mesh",
        _MESHES
        + "a = jax.device_put(v.reshape(2, 4), NamedSharding(meshes['explicit'], P('x', 'y')))\n"
        + "f = jax.jit(lambda a: jax.sharding.auto_axes(lambda b: b * 2 + 1, out_sharding=P('x', None))(a))\n"
        + "out = (str(jax.make_jaxpr(f)(a)), f(a))",
    ),
    (
        "explicit_axes_without_mesh",
        _MESHES + "out = jax.sharding.explicit_axes(lambda b: b * 2, in_sharding=P('x'))(v)",
    ),
]
# a bare PartitionSpec outside any mesh: each API's own error, compared word for word
_BARE = {
    "reshard": "jax.sharding.reshard(x, P('x'))",
    "with_sharding_constraint": "jax.jit(lambda a: jax.lax.with_sharding_constraint(a, P('x')))(x)",
    "jit_in_shardings": "jax.jit(lambda a: a, in_shardings=P('x'))(x)",
    "jit_out_shardings": "jax.jit(lambda a: a, out_shardings=P('x'))(x)",
    "device_put": "jax.device_put(x, P('x'))",
    "zeros": "jnp.zeros(8, out_sharding=P('x'))",
    "random_normal": "jax.random.normal(jax.random.key(0), (8,), out_sharding=P('x'))",
    "dot": "jnp.dot(x, x, out_sharding=P())",
    "einsum": "jnp.einsum('i,i->', x, x, out_sharding=P())",
    "at_set": "x.at[1].set(2., out_sharding=P('x'))",
    "at_get": "x.at[1].get(out_sharding=P())",
    "reshape": "jnp.reshape(x, (2, 4), out_sharding=P('x'))",
}
MESH_CONTEXT += [
    (
        f"bare_spec_{name}",
        "from jax.sharding import PartitionSpec as P\n"
        "x = jnp.ones(8)\n"
        f"try:\n    {expr}\n    out = 'no error'\n"
        "except Exception as e:\n    out = (type(e).__name__, str(e).splitlines()[0])",
    )
    for name, expr in _BARE.items()
]
# On an explicit mesh a reshape merging split dimensions keeps their axes (major first), and a
# concatenation of operands split alike stays split; a merge JAX cannot type is refused eagerly
_PUT = (
    "from jax.sharding import PartitionSpec as P, AxisType, NamedSharding\n"
    "mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)\n"
    "put = lambda shape, spec: jax.device_put(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), "
    "NamedSharding(mesh, spec))\n"
    "typed = lambda r: (str(jax.typeof(r)), str(r.sharding.spec), r)\n"
)
_RESHAPES = {
    "rows": ("(8, 4)", "P('x', None)", "(32,)"),
    "both": ("(8, 4)", "P('x', 'y')", "(32,)"),
    "leading_pair": ("(2, 4, 4)", "P('x', 'y', None)", "(8, 4)"),
    "middle": ("(2, 4, 4)", "P(None, 'y', None)", "(2, 16)"),
    "tuple_axis": ("(8, 4)", "P(('x', 'y'), None)", "(32,)"),
    "unsplit_inner": ("(8, 4)", "P(None, 'y')", "(32,)"),
}
MESH_CONTEXT += [
    (f"reshape_merge_{name}_{how}", _PUT + f"a = put({shape}, {spec})\nout = typed({call})")
    for name, (shape, spec, new) in _RESHAPES.items()
    for how, call in [("jit", f"jax.jit(lambda v: v.reshape({new}))(a)"), ("eager", f"a.reshape({new})")]
    if not (name == "unsplit_inner" and how == "jit")  # (inside jit the engine lays it out: README)
]
MESH_CONTEXT += [
    (
        f"concatenate_split_{how}",
        _PUT + f"a, b = put((8,), P('x')), put((8,), P('x'))\nout = typed({call})",
    )
    for how, call in [
        ("jit", "jax.jit(lambda u, v: jnp.concatenate([u, v]))(a, b)"),
        ("eager", "jnp.concatenate([a, b])"),
    ]
]
# A program is partitioned before XLA simplifies it: a division by a sum over a split dimension is
# a division on each device (one column each), over an unsplit one a product by the reciprocal
_ROUNDING = {
    "divide_by_split_sum": ("P('x', 'y')", "lambda v: v / v.sum(axis=1, keepdims=True)"),
    "divide_by_unsplit_sum": ("P('x', None)", "lambda v: v / v.sum(axis=1, keepdims=True)"),
    "softmax_split": ("P('x', 'y')", "jax.nn.softmax"),
    "softmax_rows": ("P('x', None)", "jax.nn.softmax"),
    "mean_split": ("P(None, 'y')", "lambda v: v - v.mean(axis=1, keepdims=True)"),
}
MESH_CONTEXT += [
    (
        f"rounding_{name}",
        _PUT
        + "x = np.random.RandomState(0).randn(8, 4).astype(np.float32)\n"
        + f"a = jax.device_put(x, NamedSharding(mesh, {spec}))\n"
        + f"out = jax.jit({f})(a)",
        0.0,
    )
    for name, (spec, f) in _ROUNDING.items()
]
# Arrays made laid out (out_sharding=): staged as a broadcast typed with the layout, as JAX's
_MADE = {
    "zeros": "lambda: jnp.zeros((8, 4), out_sharding=P('x', 'y'))",
    "ones_plus": "lambda: jnp.ones((8,), out_sharding=P('x')) * 2 + 1",
    "full": "lambda: jnp.full((8,), 3.0, out_sharding=P('x'))",
    "full_int": "lambda: jnp.full((4, 8), 7, dtype=jnp.int32, out_sharding=P(None, 'y'))",
    "broadcast_in_dim": "lambda: lax.broadcast_in_dim(jnp.arange(8.0), (4, 8), (1,), out_sharding=P(None, 'x'))",
}
MESH_CONTEXT += [
    (
        f"made_{name}",
        _PUT
        + f"with jax.set_mesh(mesh):\n    f = {f}\n    out = (str(jax.make_jaxpr(f)()), typed(jax.jit(f)()), typed(f()))",
    )
    for name, f in _MADE.items()
]
MESH_CONTEXT += [
    (
        "made_under_vmap",
        _PUT
        + "with jax.set_mesh(mesh):\n"
        + "    g = lambda v: v + jnp.ones((8,), out_sharding=P('x'))\n"
        + "    out = str(jax.make_jaxpr(jax.vmap(g))(np.ones((3, 8), np.float32)))",
    )
]
# A scan over split values on an explicit mesh runs on each device's blocks: its carries, ys and
# body are typed with the splits (JAX's types); xs split along the scanned dimension are refused
_SCAN_SETUP = (
    _PUT
    + "rng = np.random.RandomState(0)\n"
    + "a = jax.device_put(rng.randn(6, 8, 4).astype(np.float32), NamedSharding(mesh, P(None, 'x', 'y')))\n"
    + "c0 = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P('x', 'y')))\n"
)
_SCANS = {
    "carry_split": "lambda c, xs: jax.lax.scan(lambda c, x: (jnp.tanh(c * x + 1), c.sum(axis=1)), c, xs)",
    "column_sums": "lambda c, xs: jax.lax.scan(lambda c, x: (c + x.sum(axis=0, keepdims=True), c[0]), c, xs)",
    "reverse": "lambda c, xs: jax.lax.scan(lambda c, x: (c * 0.5 + x, c), c, xs, reverse=True)",
}
MESH_CONTEXT += [
    (
        f"scan_{name}",
        _SCAN_SETUP
        + f"f = {f}\nout = (str(jax.make_jaxpr(f)(c0, a)), jax.tree.map(typed, jax.jit(f)(c0, a)))",
        0.0,
    )
    for name, f in _SCANS.items()
]
MESH_CONTEXT += [
    (
        "scan_split_scanned_dimension",
        _SCAN_SETUP
        + "b = jax.device_put(np.asarray(a), NamedSharding(mesh, P('x', None, 'y')))\n"
        + "out = jax.jit(lambda c, xs: jax.lax.scan(lambda c, x: (c + x, c), c, xs))(c0, b)",
    )
]
