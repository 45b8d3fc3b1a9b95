"""``jax.experimental.sparse.util``: the errors and warnings of sparse layouts that would store far
more than their nonzeros (JAX's names)."""


class SparseEfficiencyError(ValueError):
    pass


class SparseEfficiencyWarning(UserWarning):
    pass


class CuSparseEfficiencyWarning(SparseEfficiencyWarning):
    pass
