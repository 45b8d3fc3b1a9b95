"""lax never promotes: an operation given operands of different dtypes raises JAX's TypeError,
naming the jnp function that would promote them where there is one."""

from __future__ import annotations

import numpy as np

# lax name -> the jnp function that promotes (JAX's tip)
PROMOTING_TWIN = {
    **{n: n for n in ("add", "cbrt", "ceil", "concatenate", "cos", "cosh", "exp", "expm1", "floor")},
    **{n: n for n in ("greater", "greater_equal", "less", "less_equal", "log", "log1p", "nextafter")},
    **{n: n for n in ("logical_and", "logical_not", "logical_or", "logical_xor", "round", "sign")},
    **{n: n for n in ("sin", "sinh", "sqrt", "tan", "tanh")},
    **{n: n for n in ("bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor")},
    **{n: "arc" + n[1:] for n in ("acos", "acosh", "asin", "asinh", "atan", "atanh")},
    "atan2": "arctan2",
    "abs": "fabs",
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "max": "maximum",
    "min": "minimum",
    "eq": "equal",
    "ne": "not_equal",
    "neg": "negative",
    "pow": "float_power",
    "select": "where",
    "shift_left": "left_shift",
    "shift_right_logical": "right_shift",
    "shift_right_arithmetic": "right_shift",
}


def check_same_dtypes(name: str, *dtypes) -> None:
    """Raise JAX's TypeError unless all ``dtypes`` (dtypes or avals) are one.

    >>> check_same_dtypes("concatenate", np.float32, np.int32)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    TypeError: lax.concatenate requires arguments to have the same dtypes, got float32, int32. (Tip: ...
    """
    found = [d if isinstance(d, (type, str, np.dtype)) else getattr(d, "dtype", d) for d in dtypes]
    if all(d == found[0] for d in found[1:]):  # (the common case, without naming anything)
        return
    try:
        names = [np.dtype(d).name for d in found]
    except TypeError:  # (a PRNG key's dtype: JAX checks nothing for extended dtypes)
        return
    if len(set(names)) <= 1:
        return
    twin = PROMOTING_TWIN.get(name)
    tip = (
        f" (Tip: jnp.{twin} is a similar function that does automatic type promotion on inputs)."
        if twin
        else ""
    )
    raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {', '.join(names)}.{tip}")
