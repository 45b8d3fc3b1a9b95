"""``jax.export``: symbolic shapes (shape polymorphism) for exporting functions."""

from .shape_poly import (  # noqa: F401
    InconclusiveDimensionOperation,
    SymbolicScope,
    UnexpectedDimVar,
    is_symbolic_dim,
    symbolic_args_specs,
    symbolic_shape,
)
