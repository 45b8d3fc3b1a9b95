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
