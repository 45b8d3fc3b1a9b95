"""``jax.ref``: mutable array references (see ``engine.state``).

>>> import engine as jax, engine.numpy as jnp
>>> r = jax.ref.new_ref(jnp.zeros(2))
>>> jax.ref.addupdate(r, 0, 1.0)
>>> jax.ref.get(r, 0)
Array(1., dtype=float32)
"""

from .state import AbstractRef, Ref, freeze, new_ref  # noqa: F401
from .state import ref_addupdate as addupdate  # noqa: F401
from .state import ref_get as get  # noqa: F401
from .state import ref_set as set  # noqa: F401
from .state import ref_swap as swap  # noqa: F401

__all__ = ["AbstractRef", "Ref", "addupdate", "freeze", "get", "new_ref", "set", "swap"]
