"""Error classes, named, nested and worded as JAX's (``jax.errors``): ``type(e)`` is
``jax.errors.ConcretizationTypeError``, and the errors JAX words end with the page that explains them.

An error about a traced value goes on to say, as JAX's do, where it came from (the function traced
and the arguments it depends on: ``engine.tracer_origins``). The playground adds its own hint for
learners beside the message (``engine/inspect/errors.py``).
"""

from __future__ import annotations

from .class_paths import jax_class_path
from .dims import InconclusiveDimensionOperation

_ERRORS_PAGE = "https://docs.jax.dev/en/latest/errors.html"


@jax_class_path("jax._src.errors._JAXErrorMixin")
class _JAXErrorMixin:
    """Ends a message with the page that explains the error, as JAX's errors do."""

    def __init__(self, message: str):
        super().__init__(f"{message}\nSee {_ERRORS_PAGE}#jax.errors.{type(self).__name__}")  # type: ignore[call-arg]


@jax_class_path("jax.errors.JAXTypeError")
class JAXTypeError(_JAXErrorMixin, TypeError):
    pass


@jax_class_path("jax.errors.JAXIndexError")
class JAXIndexError(_JAXErrorMixin, IndexError):
    pass


def _error_repr(tracer: object) -> str:
    """JAX's words for a traced value: ``traced array with shape float32[3]``."""
    aval = getattr(tracer, "aval", None)
    if aval is None or not hasattr(aval, "shape"):
        return f"traced array with aval {aval}"
    name = getattr(aval.dtype, "name", str(aval.dtype))
    return f"traced array with shape {name}[{','.join(map(str, aval.shape))}]"


def origin_msg(tracer: object) -> str:
    """The sentences JAX ends an error about ``tracer`` with: why it is traced (its trace's
    ``_origin_msg``; empty when the trace knows nothing). Never raises: an error being written must
    not turn into another."""
    try:
        msg = getattr(tracer, "_origin_msg", None)
        return msg() if msg is not None else ""
    except Exception:
        return ""


def function_context(name: str) -> str:
    """What JAX says when ``float(x)``, ``int(x)`` or ``complex(x)`` meets a traced value."""
    return (
        f"The problem arose with the `{name}` function. If trying to convert the data type of a value, "
        f"try using `x.astype({name})` or `jnp.array(x, {name})` instead."
    )


@jax_class_path("jax.errors.ConcretizationTypeError")
class ConcretizationTypeError(JAXTypeError):
    """A traced value was used where a concrete Python value is needed. ``context`` says where (the
    engine's callers name the function or argument that needed it)."""

    def __init__(self, tracer: object, context: str = ""):
        self.tracer = tracer
        if isinstance(tracer, str):
            super().__init__(tracer)
            return
        super().__init__(
            f"Abstract tracer value encountered where concrete value is expected: {_error_repr(tracer)}\n"
            f"{context}{origin_msg(tracer)}\n"
        )


@jax_class_path("jax.errors.TracerBoolConversionError")
class TracerBoolConversionError(ConcretizationTypeError):
    def __init__(self, tracer: object, context: str = ""):
        self.tracer = tracer
        JAXTypeError.__init__(
            self, f"Attempted boolean conversion of {_error_repr(tracer)}.{origin_msg(tracer)}"
        )


@jax_class_path("jax.errors.TracerIntegerConversionError")
class TracerIntegerConversionError(JAXTypeError):
    def __init__(self, tracer: object, context: str = ""):
        self.tracer = tracer
        super().__init__(f"The __index__() method was called on {_error_repr(tracer)}{origin_msg(tracer)}")


@jax_class_path("jax.errors.TracerArrayConversionError")
class TracerArrayConversionError(JAXTypeError):
    def __init__(self, tracer: object):
        self.tracer = tracer
        super().__init__(
            f"The numpy.ndarray conversion method __array__() was called on {_error_repr(tracer)}"
            f"{origin_msg(tracer)}"
        )


@jax_class_path("jax.errors.UnexpectedTracerError")
class UnexpectedTracerError(JAXTypeError):
    pass


@jax_class_path("jax.errors.NonConcreteBooleanIndexError")
class NonConcreteBooleanIndexError(JAXIndexError):
    def __init__(self, tracer: object):
        self.tracer = tracer
        super().__init__(f"Array boolean indices must be concrete; got {getattr(tracer, 'aval', tracer)}\n")


@jax_class_path("jax.errors.JaxRuntimeError")
class JaxRuntimeError(RuntimeError):
    """An error while the computation ran (e.g. a host callback returned the wrong shape)."""


@jax_class_path("jax.errors.KeyReuseError")
class KeyReuseError(JAXTypeError):
    pass


class TypePromotionError(ValueError):
    """Operands whose dtypes the configured promotion (``jax_numpy_dtype_promotion='strict'``) does
    not join."""


@jax_class_path("jax.errors.JaxprTypeError")
class JaxprTypeError(TypeError):
    """A jaxpr whose equations do not type-check (``jax.extend.core.check_jaxpr``): a variable bound
    twice or used unbound, or a binder whose type is not what its primitive's rule gives."""


def invalid_shape_error(shape: object, context: str | None = None) -> TypeError:
    """JAX's TypeError for a shape that is not a sequence of integers (``(2.0,)``, ``2.5``);
    ``context`` names the argument, as JAX's ``canonicalize_dim`` does."""
    where = f" {context}." if context else ""
    return TypeError(f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.{where}")


def traced_shape_error(shape: object) -> TypeError:
    """JAX's TypeError for a shape with a traced dimension (raised where JAX canonicalizes shapes:
    jnp's constructors and reshape, lax's shape parameters)."""
    dims = shape if isinstance(shape, (tuple, list)) else (shape,)
    return TypeError(
        f"Shapes must be 1D sequences of concrete values of integer type, got {shape}.\n"
        "If using `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions."
        + "".join(origin_msg(d) for d in dims)  # (each traced dimension's origin)
    )


def check_static_hashable(v: object) -> None:
    """JAX's jit hashes each static argument: an unhashable one is refused, in JAX's words."""
    try:
        hash(v)
    except TypeError as e:
        raise ValueError(
            f"Non-hashable static arguments are not supported. An error occurred "
            f"while trying to hash an object of type {type(v)}, {v}. "
            f"The error was:\n{type(e).__name__}: {e}\n"
        ) from None


jax_class_path("jax.errors.InconclusiveDimensionOperation")(InconclusiveDimensionOperation)
