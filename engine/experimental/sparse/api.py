"""Format-independent constructors and conversions: ``empty``, ``eye``, ``todense``."""

from __future__ import annotations

import operator

from ... import core
from ._base import JAXSparse
from .bcoo import BCOO
from .bcsr import BCSR
from .coo import COO
from .csr import CSC, CSR


def _formats():
    return {"bcsr": BCSR, "bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}


def todense(arr):
    """``arr`` as a dense array (a dense array passes through).

    >>> todense(eye(2))
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    return arr.todense() if isinstance(arr, JAXSparse) else arr


def empty(shape, dtype=None, index_dtype="int32", sparse_format: str = "bcoo", **kwds) -> JAXSparse:
    """A sparse array of ``shape`` with no stored elements (``nse=`` reserves padding slots).

    >>> empty((2, 3))
    BCOO(float32[2, 3], nse=0)
    """
    formats = _formats()
    if sparse_format not in formats:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of {list(formats)}")
    return formats[sparse_format]._empty(tuple(shape), dtype=dtype, index_dtype=index_dtype, **kwds)


def eye(
    N: int,
    M: int | None = None,
    k: int = 0,
    dtype=None,
    index_dtype="int32",
    sparse_format: str = "bcoo",
    **kwds,
):
    """The sparse ``N x M`` matrix with ones on its ``k``-th diagonal.

    >>> eye(3, k=1).indices
    Array([[0, 1],
           [1, 2]], dtype=int32)
    """
    formats = {"bcoo": BCOO, "coo": COO, "csr": CSR, "csc": CSC}  # (JAX's eye makes no BCSR either)
    if sparse_format not in formats:
        raise ValueError(f"sparse_format={sparse_format!r} not recognized; must be one of {list(formats)}")
    N, M, k = (
        operator.index(int(core.concrete_or_error(v, "an argument of sparse.eye")))
        for v in (N, N if M is None else M, k)
    )
    return formats[sparse_format]._eye(M=M, N=N, k=k, dtype=dtype, index_dtype=index_dtype, **kwds)
