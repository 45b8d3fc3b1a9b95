"""``jax.dtypes``: the abstract dtypes of typed PRNG keys and the dtype helpers jnp has.

>>> jax.dtypes.issubdtype(jax.random.key(0).dtype, jax.dtypes.prng_key)
True
"""

from .numpy._dtypes import canonicalize_dtype, finfo, iinfo, issubdtype, result_type  # noqa: F401
from .errors import TypePromotionError  # noqa: F401
from .random_keys import extended, prng_key  # noqa: F401
