"""Snippets for PartitionSpec's canonical entries: a list is a tuple, () and [] are None, a 1-tuple
is its axis (so specs spelled either way compare equal and print alike). Registered in snippets.py."""

_SPECS = ["P(('x',))", "P(['x', 'y'])", "P(())", "P([])", "P(('x', 'y'), None)", "P(['x'], ('y',))"]

PARTITION_SPECS = [
    (
        f"spec_{i}",
        f"from jax.sharding import PartitionSpec as P\ns = {spec}\nout = [repr(s), s == P('x'), len(s)]",
    )
    for i, spec in enumerate(_SPECS)
] + [
    (
        "spec_in_sharding",
        "from jax.sharding import PartitionSpec as P, NamedSharding\n"
        "mesh = jax.make_mesh((1,), ('x',))\n"
        "out = [NamedSharding(mesh, P(('x',))) == NamedSharding(mesh, P('x')), repr(NamedSharding(mesh, P(['x'])).spec)]",
    ),
]

# Not a tuple, but read like one (JAX's since 0.7): + gives a spec, * is refused; a spec with unreduced
# axes refuses to be iterated or indexed
_SURFACE = {
    "not_a_tuple": "isinstance(P('x', None), tuple)",
    "plus_spec": "repr(P('x') + P(None, 'y'))",
    "plus_tuple": "repr(P('x') + (None,))",
    "tuple_plus": "repr(('y',) + P('x'))",
    "times": "P('x') * 2",
    "slice": "P('x', None, 'y')[1:]",
    "index_count": "[P('x', None, ('y', 'z')).index(('y', 'z')), P('x', None, None).count(None)]",
    "iterate": "[list(P('x', ('y', 'z'))), tuple(P())]",
    "equals_tuple": "[P('x') == ('x',), P('x') == P(('x',)), hash(P('x')) == hash(P(['x']))]",
    "unreduced_iterate": "list(P('x', unreduced={'y'}))",
    "unreduced_index": "P('x', unreduced={'y'})[0]",
    "unreduced_partitions": "[P('x', unreduced={'y'}).partitions, repr(P('x', unreduced={'y'}))]",
    "subclass": "type('Q', (P,), {})",
    "update": "repr(P('x', None).update(partitions=(None, 'x')))",
}

PARTITION_SPECS += [
    (f"surface_{name}", f"from jax.sharding import PartitionSpec as P\nout = {expr}")
    for name, expr in _SURFACE.items()
]
