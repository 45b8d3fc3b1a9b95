"""``jax.interpreters.mlir``: register a primitive's lowering to StableHLO (run by the engine's
``jit`` through its own primitives; see ``engine.extend.mlir.lowering``).

>>> from engine.extend import core
>>> from engine._src.lib.mlir.dialects import hlo
>>> cube_p = core.Primitive("cube_doc")
>>> _ = cube_p.def_abstract_eval(lambda x: x)
>>> register_lowering(cube_p, lambda ctx, x: [hlo.multiply(x, hlo.multiply(x, x))], platform="cpu")
>>> jax.jit(cube_p.bind)(2.0)
Array(8., dtype=float32, weak_type=True)
"""

from ..extend.mlir import ir  # noqa: F401
from ..extend.mlir.lowering import (  # noqa: F401
    LoweringRuleContext,
    ModuleContext,
    aval_to_ir_type,
    aval_to_ir_types,
    custom_call,
    dense_int_array,
    dtype_to_ir_type,
    i32_attr,
    i64_attr,
    ir_constant,
    lower_fun,
    register_lowering,
)
