"""``jax._src.tree_util``: the pytree functions under the private path JAX's own docstrings import
(``flatten_one_level`` among them); the same objects as ``jax.tree_util``.

>>> from engine._src.tree_util import flatten_one_level
>>> flatten_one_level({'a': [1, 2], 'b': {'c': 3}})
(([1, 2], {'c': 3}), ('a', 'b'))
"""

from ..tree_util import *  # noqa: F401,F403
from ..tree_util import __all__  # noqa: F401
