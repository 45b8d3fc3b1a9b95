"""numpy names jnp shares or wraps: printing options, scalar-type aliases, ``iterable``,
``fromstring``, ``mask_indices``, ``matvec``/``vecmat``; and the readers JAX refuses to provide
(``fromiter``, ``fromfile``: non-pure), refused here with JAX's message."""

from __future__ import annotations

import numpy as np

from .. import narrow_dtypes
from ._contract import matmul
from ._creation import asarray, ones, vectorize
from ._dtypes import complex64, complex128
from ._promote import check_arraylike
from ._searching import nonzero
from ._staged import staged_as_jit

array_repr = np.array_repr
array_str = np.array_str
iterable = np.iterable
character = np.character
flexible = np.flexible
object_ = np.object_
ComplexWarning = np.exceptions.ComplexWarning
cdouble = complex128
csingle = complex64


def printoptions(*args, **kwargs):
    """numpy's ``printoptions`` context manager (arrays print through numpy)."""
    return np.printoptions(*args, **kwargs)


def get_printoptions():
    """numpy's current print options."""
    return np.get_printoptions()


def set_printoptions(*args, **kwargs):
    """Set numpy's print options (arrays print through numpy)."""
    return np.set_printoptions(*args, **kwargs)


def fromstring(string: str, dtype=float, count: int = -1, *, sep: str):
    """An array read from text by numpy.

    >>> fromstring('1 2 3', dtype=int, sep=' ')
    Array([1, 2, 3], dtype=int32)
    """
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use with "
            f"JIT and other JAX transformations. Consider using jnp.asarray(np.{name}(...)) instead, "
            f"although care should be taken if np.{name} is used within a jax transformations because "
            "of its potential side-effect of consuming the iterable object; for more information see "
            "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions"
        )

    refuse.__name__ = name
    return refuse


fromiter = _impure("fromiter")
fromfile = _impure("fromfile")


def mask_indices(n: int, mask_func, k: int = 0, *, size=None):
    """The indices where ``mask_func(ones((n, n)), k)`` is non-zero (e.g. ``jnp.triu``).

    >>> mask_indices(2, jnp.triu)
    (Array([0, 0, 1], dtype=int32), Array([0, 1, 1], dtype=int32))
    """
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


@staged_as_jit
def matvec(x1, x2, /):
    """Batched matrix-vector products: ``(..., n, m), (..., m) -> (..., n)``.

    >>> matvec(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """

    check_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)  # (as JAX composes it)


@staged_as_jit
def vecmat(x1, x2, /):
    """Batched vector-matrix products, conjugating the vector: ``(..., m), (..., m, n) -> (..., n)``.

    >>> vecmat(jnp.arange(2.0), jnp.ones((2, 3)))
    Array([1., 1., 1.], dtype=float32)
    """
    from ._complex_parts import conj

    check_arraylike("matvec", x1, x2)  # (JAX's name for both)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(conj(x1), x2)


def from_dlpack(x, /, *, device=None, copy: bool | None = None):
    """An array holding the data of any object with ``__dlpack__`` and ``__dlpack_device__`` (a
    numpy array, an engine array, ...); shares the buffer unless ``copy=True``.

    >>> from_dlpack(np.arange(3, dtype=np.int32))
    Array([0, 1, 2], dtype=int32)
    """
    from ..dlpack import from_dlpack

    return from_dlpack(x, device=device, copy=copy)


save = np.save  # (numpy's own, as JAX re-exports it: an engine array saves through __array__)
savez = np.savez


def load(file, *args, **kwargs):
    """numpy's ``load``, giving an engine array for a ``.npy`` file and restoring ``bfloat16`` (which
    numpy saves as two opaque bytes); ``.npz`` archives come back as numpy's.

    >>> import io
    >>> f = io.BytesIO()
    >>> save(f, jnp.array([1.5, 2.0], dtype='bfloat16'))
    >>> _ = f.seek(0)
    >>> load(f)
    Array([1.5, 2], dtype=bfloat16)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(narrow_dtypes.to_dtype("bfloat16"))
        try:
            out = asarray(out)
        except TypeError:  # a dtype the engine has no arrays of: numpy's array
            pass
    return out
