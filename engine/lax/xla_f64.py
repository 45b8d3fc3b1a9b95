"""float64 ``exp``, ``cosh`` and ``erfc`` as XLA's CPU backend computes them, bit for bit.

XLA does not call the C library's ``exp`` for float64: it emits its own vectorizable function
(Eigen's: ``x = n*ln2 + g`` with ln2 split in two, ``exp(g) = 1 + 2*P(g)/(Q(g) - P(g))`` with P and
Q Cephes' polynomials in ``g**2``, then ``ldexp``; 0 below -708.396..., inf above 709.78...), each
multiply-add contracted into a fused one. It differs from glibc's ``exp`` (numpy's) in the last bit
on ~16% of inputs. ``cosh`` is JAX's lowering over it (``exp(x + log(1/2)) + exp(log(1/2) - x)``,
as in float32); ``erfc`` is CHLO's float64 decomposition (Cephes' rational functions in |x|, or
in x**2 below 1) over that exp; XLA's arithmetic flushes subnormal results to zero. Checked
against JAX 0.10.2 on 5e5 inputs each: identical. The numba kernels ``exp_f64``, ``cosh_f64`` and
``erfc_f64`` (``backends/numba_math.py``) compute them; without numba, numpy's (the C library's).
"""

from __future__ import annotations

import math

import numpy as np

from .xla_f32 import numba_kernels

NAMES = frozenset({"exp", "erfc", "cosh"})


def kernel(name: str, x: np.ndarray) -> np.ndarray:
    """XLA's float64 ``name`` (one of ``NAMES``) of the float64 array ``x`` (JAX's ``exp(1.0)`` is an
    ulp above the C library's).

    Example:

      >>> float(kernel("exp", np.float64(1.0)))
      2.7182818284590455
    """
    kernels = numba_kernels()
    x = np.asarray(x, np.float64)
    if kernels:
        return kernels.apply64(name, x)
    with np.errstate(all="ignore"):
        if name in ("exp", "cosh"):
            return getattr(np, name)(x)
        return np.vectorize(math.erfc, otypes=[np.float64])(x) if x.size else x.copy()
