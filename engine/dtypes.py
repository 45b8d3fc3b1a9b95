"""``jax.dtypes``: the abstract dtypes of typed PRNG keys and the dtype helpers jnp has.

>>> jax.dtypes.issubdtype(jax.random.key(0).dtype, jax.dtypes.prng_key)
True
"""

from .numpy._dtypes import canonicalize_dtype, finfo, iinfo, issubdtype, result_type  # noqa: F401
from .errors import TypePromotionError  # noqa: F401
from .random_keys import extended, prng_key  # noqa: F401
from .core import float0  # noqa: E402,F401  (the dtype of integer values' tangents)
from . import narrow_dtypes as _narrow_dtypes


def __getattr__(name):
    # jax.dtypes.bfloat16 is ml_dtypes' type, imported (most of a second) when first named
    if name == "bfloat16":
        return _narrow_dtypes.load().bfloat16
    raise AttributeError(f"module 'jax.dtypes' has no attribute {name!r}")  # (the name scripts import)


def __dir__():
    return sorted(set(globals()) | {"bfloat16"})


def itemsize_bits(dtype) -> int:
    """Bits per element of ``dtype`` (4 for int4, 8 for bool).

    >>> itemsize_bits('float32'), itemsize_bits('complex64')
    (32, 64)
    """
    from .narrow_dtypes import kind

    if dtype is None:
        raise ValueError("dtype cannot be None.")
    dtype = _narrow_dtypes.to_dtype(dtype)
    k = kind(dtype)
    if k == "b":
        return 8
    if k in "iu":
        return int(iinfo(dtype).bits)
    if k == "f":
        return int(finfo(dtype).bits)
    if k == "c":
        return 2 * int(finfo(dtype).bits)
    raise ValueError(f"unexpected input: dtype={dtype}")


def scalar_type_of(x) -> type:
    """The Python scalar type of ``x``'s dtype: ``bool``, ``int``, ``float`` or ``complex``.

    >>> scalar_type_of(jnp.ones(2, jnp.int8))
    <class 'int'>
    """
    import numpy as np

    from .narrow_dtypes import kind

    dtype = np.dtype(x.dtype) if hasattr(x, "dtype") else np.result_type(x)
    k = kind(dtype)
    types = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
    if k not in types:
        raise TypeError(f"Invalid scalar value {x}")
    return types[k]
