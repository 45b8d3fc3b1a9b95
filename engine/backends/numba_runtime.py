"""What generated host functions call at run time: kernel argument types (``A``, ``R``, ``RA``), the
thread pool that splits large loop nests (``_par``), the per-site pool of large output buffers
(``_buf``), and small conversions. Generated modules import these names from here."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from .. import core, denormal_flags
from ..lax.dot_order import xla_dot
from ..lax.reductions import xla_logaddexp as _xla_logaddexp  # noqa: F401  (generated host code calls it)
from ..lax.reductions import xla_scan as _xla_scan  # noqa: F401

_KW = dict(cache=True, nogil=True, error_model="numpy")


def A(dtype, ndim):
    return nb.types.Array(dtype, ndim, "C")


def R(dtype, ndim):
    """Kernel inputs are typed read-only: engine Arrays are, and numba accepts writable ones too."""
    return nb.types.Array(dtype, ndim, "C", readonly=True)


def RA(dtype, ndim):
    """A read-only input of any strides (a strided view passed as it is, not copied)."""
    return nb.types.Array(dtype, ndim, "A", readonly=True)


# ---------------------------------------------------------------------------------------------
# Runtime helpers the generated host functions call.


def _c(x):
    """A C-contiguous canonical numpy array (what every kernel signature expects)."""
    if type(x) is np.ndarray and x.flags.c_contiguous:
        return x
    x = core.to_numpy(x)  # (np.ascontiguousarray would turn 0-d into 1-d)
    return x if x.flags.c_contiguous else x.copy(order="C")


def _h(x, dtype):
    x = _c(x)
    return x if x.dtype == dtype else x.astype(dtype)


_pool = None
_pool_lock = threading.Lock()


def _par(kernel, n, *args):
    """Run ``kernel(lo, hi, *args)`` over ``[0, n)`` split across the cores."""
    global _pool
    workers = max(1, min(os.cpu_count() or 1, 8, n))
    if workers == 1:
        return kernel(0, n, *args)
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                # (kernels only: XLA's worker threads run with denormals read and written as zero)
                _pool = ThreadPoolExecutor(
                    workers, thread_name_prefix="engine-kernel", initializer=denormal_flags.set_for_thread
                )
    bounds = [n * i // workers for i in range(workers + 1)]
    futs = [_pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(1, workers)]
    kernel(bounds[0], bounds[1], *args)
    for f in futs:
        f.result()


POOL_MIN_BYTES = 1 << 20  # buffers at least this large are reused across calls
POOL_SLOTS = 2  # buffers kept per allocation site


def _buf(bufs, k, shape, dtype):
    """A buffer for allocation site ``k``: one of its last ``POOL_SLOTS`` buffers that nothing
    references any more, else a fresh one (which replaces the oldest slot).

    A fresh 100 MB allocation is mmapped and page-faulted on every call (as slow as the kernel
    itself here); reusing a released one, as XLA's allocator does, saves that. Two slots because
    ``y = f(x)`` in a loop keeps the previous result alive while the next call runs: the buffer
    of two calls back is the free one. Any live Array, view or memoryview of a buffer holds a
    reference to it, so it is never reused under one.
    """
    slots = bufs[k]
    if slots is None:
        slots = bufs[k] = []
    for b in slots:
        if sys.getrefcount(b) == 3:  # slots, b, getrefcount's argument
            b.flags.writeable = True
            return b
    b = np.empty(shape, dtype)
    del slots[: len(slots) - POOL_SLOTS + 1]
    slots.append(b)
    return b


def _matmul(x, y, dtype, layout=(False, False)):
    out = xla_dot(x, y, layout)  # (float32 summed as XLA sums it, as eager dot_general: see lax/dot_order)
    if out is None:
        out = np.matmul(x, y)
    return out if out.dtype == dtype else out.astype(dtype)


def _span(x, n):
    """The ``n`` elements of memory from ``x``'s first one on, as a 1-d contiguous view."""
    return np.lib.stride_tricks.as_strided(x, (n,), (x.itemsize,))
