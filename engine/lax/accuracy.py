"""``accuracy=``, which JAX's transcendental unary ops take (``lax.exp(x, accuracy=...)``): a
``Tolerance`` or an ``AccuracyMode`` asking the compiler for an implementation. It is a parameter of
the primal equation only (make_jaxpr shows it; derivatives use the default ops, as JAX's rules do),
and a CPU computes the default implementation whatever is asked, as JAX's does."""

from __future__ import annotations

import enum

__all__ = ["AccuracyMode", "Tolerance", "check_accuracy"]

# The ops that take it
OPS = frozenset("exp exp2 expm1 log log1p tanh logistic sin cos tan sqrt rsqrt cbrt".split())


class Tolerance:
    """The tolerances an implementation must meet: at most two of ``atol``, ``rtol`` and ``ulps``
    (``atol`` and ``rtol``, or ``atol`` and ``ulps``)."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


class AccuracyMode(enum.Enum):
    HIGHEST = 1
    DEFAULT = 2


def check_accuracy(accuracy) -> None:
    """JAX's refusal (when the op is compiled or run) of an ``accuracy`` that is neither kind."""
    if accuracy is not None and not isinstance(accuracy, (AccuracyMode, Tolerance)):
        raise NotImplementedError(f"Accuracy {accuracy} not supported")


def taking_accuracy(impl):
    """An op's impl that takes ``accuracy`` (a CPU computes the default implementation)."""

    def run(x, accuracy=None, **params):
        check_accuracy(accuracy)
        return impl(x, **params)

    return run


def primal_only(tangent_fn):
    """A jvp function of an op taking ``accuracy``, which only the primal equation takes."""
    return lambda *args, accuracy=None: tangent_fn(*args)
