"""``jax.experimental.sparse``: sparse arrays in the batched-coordinate format (``BCOO``) and the
``sparsify`` transformation, which runs jnp code on them.

A ``BCOO`` stores ``data`` and ``indices`` buffers and is a pytree of them, so ``jit``, ``vmap``
(over its batch axes) and ``grad`` (through its data) work on it; its operations are primitives
with JAX's names and parameters (``bcoo_todense``, ``bcoo_fromdense``, ``bcoo_extract``,
``bcoo_transpose``, ``bcoo_dot_general``, ``bcoo_dot_general_sampled``) and their rules.

>>> from engine.experimental import sparse
>>> M = jnp.array([[0., 1., 0., 2.], [3., 0., 0., 0.], [0., 0., 4., 0.]])
>>> M_sp = sparse.BCOO.fromdense(M)
>>> M_sp
BCOO(float32[3, 4], nse=4)
>>> M_sp.T @ jnp.array([3., 6., 5.])
Array([18.,  3., 20.,  6.], dtype=float32)
>>> sparse.sparsify(lambda m, v: 2 * jnp.dot(jnp.log1p(m.T), v) + 1)(M_sp, jnp.array([3., 6., 5.]))
Array([17.635532,  5.158883, 17.09438 ,  7.591674], dtype=float32)
"""

from ._base import JAXSparse  # noqa: F401
from .util import CuSparseEfficiencyWarning, SparseEfficiencyError, SparseEfficiencyWarning  # noqa: F401
from .ad import grad, jacfwd, jacobian, jacrev, value_and_grad  # noqa: F401
from .api import empty, eye, todense  # noqa: F401
from .bcoo import (  # noqa: F401
    BCOO,
    bcoo_dot_general,
    bcoo_dot_general_p,
    bcoo_dot_general_sampled,
    bcoo_dot_general_sampled_p,
    bcoo_extract,
    bcoo_extract_p,
    bcoo_fromdense,
    bcoo_fromdense_p,
    bcoo_multiply_dense,
    bcoo_multiply_sparse,
    bcoo_reduce_sum,
    bcoo_spdot_general_p,
    bcoo_sort_indices,
    bcoo_sort_indices_p,
    bcoo_sum_duplicates,
    bcoo_sum_duplicates_p,
    bcoo_todense,
    bcoo_todense_p,
    bcoo_transpose,
    bcoo_transpose_p,
)
from .bcoo_conv import bcoo_conv_general_dilated  # noqa: F401
from .bcoo_structure import (  # noqa: F401
    bcoo_broadcast_in_dim,
    bcoo_concatenate,
    bcoo_dynamic_slice,
    bcoo_gather,
    bcoo_reshape,
    bcoo_rev,
    bcoo_slice,
    bcoo_squeeze,
    bcoo_update_layout,
)
from .bcsr import (  # noqa: F401
    BCSR,
    bcsr_broadcast_in_dim,
    bcsr_concatenate,
    bcsr_dot_general,
    bcsr_dot_general_p,
    bcsr_extract,
    bcsr_extract_p,
    bcsr_fromdense,
    bcsr_fromdense_p,
    bcsr_sum_duplicates,
    bcsr_todense,
    bcsr_todense_p,
)
from .coo import (  # noqa: F401
    COO,
    coo_fromdense,
    coo_fromdense_p,
    coo_matmat,
    coo_matmat_p,
    coo_matvec,
    coo_matvec_p,
    coo_todense,
    coo_todense_p,
)
from .csr import (  # noqa: F401
    CSC,
    CSR,
    csr_fromdense,
    csr_fromdense_p,
    csr_matmat,
    csr_matmat_p,
    csr_matvec,
    csr_matvec_p,
    csr_todense,
    csr_todense_p,
)
from .random import random_bcoo  # noqa: F401
from .transform import sparsify  # noqa: F401
from . import linalg as linalg  # noqa: E402
