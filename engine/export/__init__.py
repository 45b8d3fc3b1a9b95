"""``jax.export``: stage a jitted function for given argument types, serialize it, and call it
later (in this process or another), as JAX's ``jax.export`` does; symbolic shapes (shape
polymorphism) for exporting functions.

>>> import engine as jax, numpy as np
>>> from engine import export
>>> exp = export.export(jax.jit(lambda x: x + 1.0))(jax.ShapeDtypeStruct((2,), np.float32))
>>> export.deserialize(exp.serialize()).call(np.zeros(2, np.float32))
Array([1., 1.], dtype=float32)
"""

from . import dim_value  # noqa: F401  (symbolic dimensions as values)
from .shape_poly import (  # noqa: F401
    InconclusiveDimensionOperation,
    SymbolicScope,
    UnexpectedDimVar,
    is_symbolic_dim,
    symbolic_args_specs,
    symbolic_shape,
)
from ._export import (  # noqa: F401
    DisabledSafetyCheck,
    Exported,
    default_export_platform,
    export,
    maximum_supported_calling_convention_version,
    minimum_supported_calling_convention_version,
)
from ._call import call_exported_p  # noqa: F401
from .serialization import (  # noqa: F401
    deserialize,
    register_namedtuple_serialization,
    register_pytree_node_serialization,
)
