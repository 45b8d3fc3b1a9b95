"""``jax.version``: the engine's version (its own numbering; the JAX API it follows is 0.10.2's).

>>> jax.version.__version_info__
(0, 1, 0)
"""

from __future__ import annotations

_version = "0.1.0"
__version__ = _version
__version_info__ = tuple(int(p) for p in _version.split("."))
# The JAX release whose API and semantics the engine follows.
jax_api_version = "0.10.2"
