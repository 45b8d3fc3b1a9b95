"""The parts of :mod:`engine.tree_util`, the public pytree module (import from there).

``treedef``: node kinds, the custom-node registry, :class:`PyTreeDef`; ``flatten``: flattening and
unflattening, with key paths too; ``keys``: key-path entries; ``prefix``: matching a tree against a
treedef prefix; ``tree_functions``: ``tree_map`` and friends; ``registration``: ``register_*``;
``partial``: the pytree ``Partial``.
"""
