"""Error classes, named and nested as JAX names them (``jax.errors``).

Messages say what happened and what to do about it, since the playground shows them to people
who are learning.
"""

from __future__ import annotations

from .dims import InconclusiveDimensionOperation  # noqa: F401  (symbolic dimension comparisons)


class JAXTypeError(TypeError):
    pass


class JAXIndexError(IndexError):
    pass


def _describe(tracer) -> str:
    try:
        return f"{type(tracer).__name__} with shape {tracer.aval.str_short()}"
    except Exception:
        return repr(tracer)


class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where a concrete Python value is needed."""

    def __init__(self, tracer: object, context: str = ""):
        self.tracer = tracer
        if isinstance(tracer, str):
            super().__init__(tracer)
            return
        super().__init__(
            f"Abstract tracer value encountered where a concrete value is expected ({context}): "
            f"{_describe(tracer)}. The value depends on a traced argument, so its concrete value is "
            f"not known while tracing. If it comes from an argument of a jit-compiled function, mark "
            f"that argument static (static_argnums/static_argnames), or use lax.cond/jnp.where "
            f"for data-dependent choices."
        )


class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer: object, context: str = "bool"):
        self.tracer = tracer
        TypeError.__init__(
            self,
            f"Attempted boolean conversion of traced array {_describe(tracer)}. Python control flow "
            f"(if/while/and/or) on a traced value is not possible under jit, vmap or pmap. Use "
            f"jnp.where or lax.cond for data-dependent choices, lax.while_loop for loops, or mark "
            f"the argument static with static_argnums.",
        )


class TracerIntegerConversionError(JAXIndexError, ConcretizationTypeError):
    def __init__(self, tracer: object, context: str = "index"):
        self.tracer = tracer
        IndexError.__init__(
            self,
            f"The __index__() method was called on traced array {_describe(tracer)}. A traced value "
            f"cannot be used as a Python int (a shape, a range bound, a list index). Mark the "
            f"argument static with static_argnums, or use lax.dynamic_slice/jnp.take for indexing.",
        )


class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer: object):
        self.tracer = tracer
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on traced array "
            f"{_describe(tracer)}. numpy functions cannot run on traced values: use jax.numpy "
            f"(jnp.sin, jnp.sum, ...) instead of numpy (np.sin, np.sum, ...) inside transformed code."
        )


class UnexpectedTracerError(JAXTypeError):
    pass


class NonConcreteBooleanIndexError(JAXIndexError):
    def __init__(self, tracer: object):
        self.tracer = tracer
        super().__init__(
            f"Array boolean indices must be concrete; got {_describe(tracer)}. Boolean masks change "
            f"the result's shape, which must be known while tracing. Use jnp.where(mask, x, 0) instead."
        )


class JaxRuntimeError(RuntimeError):
    """An error while the computation ran (e.g. a host callback returned the wrong shape)."""

    __module__ = "jax.errors"  # (JAX's path, as tracebacks print it; this module is jax.errors)


class KeyReuseError(RuntimeError):
    pass


class TypePromotionError(ValueError):
    """Operands whose dtypes the configured promotion (``jax_numpy_dtype_promotion='strict'``) does
    not join."""


class JaxprTypeError(TypeError):
    """A jaxpr whose equations do not type-check (``jax.extend.core.check_jaxpr``): a variable bound
    twice or used unbound, or a binder whose type is not what its primitive's rule gives."""
