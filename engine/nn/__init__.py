"""``engine.nn`` (``jax.nn``): activation functions, softmax and friends, ``one_hot``.

Built from ``engine.numpy`` and ``engine.lax``, so they trace, differentiate and batch. Where JAX uses
a custom derivative for a kink (``relu`` at 0) the formula is chosen to give the same derivative.
"""

from __future__ import annotations

import numpy as np

from .. import core, lax
from .. import dims as _dims
from .. import numpy as jnp
from ..config import config
from ..custom_derivatives import custom_jvp
from ..numpy._promote import as_operand, canonicalize_axes, check_arraylike, promote_args_inexact
from ..numpy._staged import jitted_inline, staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


@jitted_inline
def relu(x):
    """``max(x, 0)``, with derivative 0 at 0 (as JAX defines it).

    >>> relu(jnp.array([-1.0, 0.0, 2.0]))
    Array([0., 0., 2.], dtype=float32)
    """
    if _staging(x):
        return _relu(x)
    x = as_operand(x)
    if not isinstance(x, core.Tracer):  # (a value: XLA's max, which keeps a NaN; one operation)
        return jnp.maximum(x, 0)
    return jnp.where(x > 0, x, _nan_or_zero(x))


@jitted_inline
def relu6(x):
    """``min(max(x, 0), 6)``."""
    if _staging(x):
        return _relu6(x)
    x = as_operand(x)
    return jnp.where(x > 0, jnp.where(x < 6, x, lax.full_like(x, 6)), _nan_or_zero(x))


def _nan_or_zero(x):
    # What max(x, 0) is where x > 0 is False: x if it is a NaN (JAX's relu keeps a NaN), else +0;
    # with derivative 0 (x * 0: the NaN's own bits)
    return jnp.where(x != x, x * 0, lax.full_like(x, 0))


def _staging(x) -> bool:
    # (a constant too: JAX stages relu of a closed-over array as its custom_jvp around a jit, which
    # XLA folds as the inlined call it is, not as the canonicalizer folds a max of constants)
    return bool(core.staging_anywhere[0]) and (isinstance(x, core.Tracer) or isinstance(x, np.ndarray))


# Staged, relu and relu6 are what JAX makes them: a custom_jvp around a jit (same values and
# derivatives as the eager formulas above, which skip the custom_jvp machinery).
@custom_jvp
@staged_as_jit(name="relu")
def _relu(x):
    return jnp.maximum(x, 0)


_relu.defjvps(lambda g, ans, x: lax.select(x > 0, g, lax.full_like(g, 0)))


@custom_jvp
@staged_as_jit(name="relu6")
def _relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


_relu6.defjvps(lambda g, ans, x: lax.select((x > 0) & (x < 6), g, lax.full_like(g, 0)))


def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))`` (of an inexact ``x``: as JAX's, an integer or
    bool is refused, by ``lax.logistic``)."""
    return lax.logistic(x)


@staged_as_jit
def log_sigmoid(x):
    """``log(sigmoid(x))``, computed stably as ``-softplus(-x)``."""
    (x,) = promote_args_inexact("log_sigmoid", x)
    return lax.neg(softplus(lax.neg(x)))


@staged_as_jit
def softplus(x):
    """``log(1 + exp(x))``, stably."""
    (x,) = promote_args_inexact("softplus", x)
    return jnp.logaddexp(x, 0)


@staged_as_jit
def soft_sign(x):
    """``x / (|x| + 1)``.

    >>> soft_sign(jnp.array([-1.0, 3.0]))
    Array([-0.5 ,  0.75], dtype=float32)
    """
    x = as_operand(x)
    return x / (jnp.abs(x) + 1)


@staged_as_jit
def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    (x,) = promote_args_inexact("silu", x)
    return lax.mul(x, lax.logistic(x))


swish = silu


@staged_as_jit
def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]``.

    >>> hard_tanh(jnp.array([-2.0, 0.5, 2.0]))
    Array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x = as_operand(x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@staged_as_jit
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``.

    >>> hard_sigmoid(jnp.array([-3.0, 0.0, 3.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    return relu6(as_operand(x) + 3.0) / 6.0


@staged_as_jit
def hard_silu(x):
    """``x * hard_sigmoid(x)`` (also called hard_swish).

    >>> hard_silu(jnp.array([-3.0, 0.0, 3.0]))
    Array([-0.,  0.,  3.], dtype=float32)
    """
    x = as_operand(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@staged_as_jit
def leaky_relu(x, negative_slope=1e-2):
    x = as_operand(x)
    return jnp.where(x >= 0, x, negative_slope * x)


@staged_as_jit
def elu(x, alpha=1.0):
    """``x`` for positive inputs, ``alpha * (exp(x) - 1)`` otherwise."""
    (x,) = promote_args_inexact("elu", x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@staged_as_jit
def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    >>> celu(jnp.array([-1.0, 1.0]))
    Array([-0.63212055,  1.        ], dtype=float32)
    """
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


@staged_as_jit
def selu(x):
    """Scaled exponential linear unit: ``scale * elu(x, alpha)`` with the self-normalising constants.

    >>> selu(jnp.array([-1.0, 1.0]))
    Array([-1.1113307,  1.050701 ], dtype=float32)
    """
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit; ``approximate=True`` (JAX's default) uses the tanh formula."""
    (x,) = promote_args_inexact("gelu", x)
    if approximate:
        c = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(c * (x + 0.044715 * (x**3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=x.dtype)  # (JAX's, copy included)


@staged_as_jit
def mish(x):
    """``x * tanh(softplus(x))``.

    >>> mish(jnp.array([-2.0, 0.0]))
    Array([-0.25250146,  0.        ], dtype=float32)
    """
    x = as_operand(x)
    return x * jnp.tanh(softplus(x))


@staged_as_jit(static_argnames=("axis",))
def glu(x, axis: int = -1):
    """Gated linear unit: first half times sigmoid of the second half along ``axis``.

    >>> glu(jnp.array([1.0, 2.0, 0.0, 0.0]))
    Array([0.5, 1. ], dtype=float32)
    """
    x = as_operand(x)
    if x.shape[axis] % 2:
        raise AssertionError("axis size must be divisible by 2")
    a, b = jnp.split(x, 2, axis)
    return a * sigmoid(b)


def _max_stopped(x, axis, where, initial):
    m = jnp.max(
        x,
        axis,
        keepdims=True,
        where=where,
        initial=-np.inf if initial is None and where is not None else initial,
    )
    return lax.stop_gradient(m)


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """``log(sum(b * exp(a)))`` over ``axis``, stably (shifting by the maximum).

    >>> logsumexp(jnp.array([0.0, 0.0]))
    Array(0.6931472, dtype=float32)
    """
    # JAX's formulation, equation for equation.
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -jnp.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    axes = canonicalize_axes(axis, a.ndim)
    is_complex = dtype_kind(a.dtype) == "c"
    amax = jnp.max(jnp.real(a) if is_complex else a, axes, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, axes)
    exp_a = lax.exp(lax.sub(a, amax_with_dims.astype(a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = jnp.sum(exp_a, axes, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not is_complex:
        sumexp = lax.abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x))`` along ``axis``, stably.

    >>> softmax(jnp.array([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
    """
    if config.values["jax_softmax_custom_jvp"]:
        return _softmax(x, axis, where, -np.inf)
    # JAX's _softmax_deprecated: masked entries are -inf before exp, and 0 in the result (an
    # integer x is promoted by exp, after its max: -inf is the int's least value there)
    x_max = jnp.max(x, axis, keepdims=True, where=where, initial=-np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


def _softmax(x, axis, where, initial):
    # jax_softmax_custom_jvp's softmax (JAX's newer rule): no stop_gradient, a custom JVP instead
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


_softmax = custom_jvp(_softmax, nondiff_argnums=(1,))


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


def _eager_log_softmax(x, axis=-1, where=None):
    """``log_softmax(x, axis)`` of a concrete float32/float64 array (no ``where``), or None: the
    body's primitives' impls on its value, as its eager steps run them, without the dispatch of
    each (half of an eager call's time). ``jnp.max``'s ``lax.max(-inf, m)`` is ``m`` to the bit
    (``xla_float_minmax`` keeps a NaN operand and a zero's sign), so it is left out."""
    from ..lax import elementwise as ew
    from ..lax import reductions as red

    if where is not None or type(x) is not core.Array or type(axis) is not int:
        return None
    v = x._value
    if v.dtype.char not in "fd" or not -v.ndim <= axis < v.ndim or v.shape[axis] == 0:
        return None
    axes = (axis % v.ndim,)
    kept = [1 if i == axes[0] else n for i, n in enumerate(v.shape)]
    impl = core.impl_rules
    shifted = np.subtract(v, np.reshape(impl[red.reduce_max_p](v, axes=axes), kept))
    total = impl[red.reduce_sum_p](
        np.asarray(impl[ew.exp_p](shifted, accuracy=None)), axes=axes, out_sharding=None
    )
    log = np.asarray(impl[ew.log_p](np.asarray(np.reshape(total, kept)), accuracy=None))
    return core.Array(np.subtract(shifted, log), False)


@staged_as_jit(static_argnames=("axis",), eager=_eager_log_softmax)
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x)`` along ``axis``, stably."""
    (x,) = promote_args_inexact("log_softmax", x)
    axes = canonicalize_axes(axis, x.ndim)
    x_max = jnp.max(x, axes, keepdims=True, where=where, initial=-np.inf)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)  # (JAX's order of equations)
    shifted = x_safe - lax.stop_gradient(x_max)
    out = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axes, where=where, keepdims=True))
    return out if where is None else jnp.where(where, out, -np.inf)


@staged_as_jit(static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis``. ``algorithm="fast"`` takes the
    variance as ``mean(x**2) - mean(x)**2`` (clipped at 0); ``"stable"`` as ``mean((x - mean)**2)``.

    >>> standardize(jnp.array([1.0, 3.0]))
    Array([-0.999995,  0.999995], dtype=float32)
    """
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)  # (the fast formula can go slightly negative)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


def one_hot(x, num_classes: int, *, dtype=None, axis=-1):
    """``x[..., None] == arange(num_classes)`` as ``dtype`` (default: JAX's default float);
    out-of-range values give all zeros. ``axis`` may name a mapped axis (``vmap``'s ``axis_name``):
    each instance's one-hot row is then its element of that axis.

    >>> one_hot(jnp.array([0, 2]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if not getattr(num_classes, "_is_dim_expr", False):
        num_classes = int(core.concrete_or_error(num_classes, _NUM_CLASSES))
    x = jnp.asarray(x)
    if dtype_kind(x.dtype) not in "iu":
        import warnings

        warnings.warn(
            f"jax.nn.one_hot input should be integer-typed; got dtype={x.dtype}",
            DeprecationWarning,
            stacklevel=2,
        )
    dtype = core.canonical_dtype(np.float64) if dtype is None else dtype
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


_NUM_CLASSES = "The error arose in jax.nn.one_hot argument `num_classes`."


@staged_as_jit(static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    from ..sharded_types import type_sharding
    from ..sharding import PartitionSpec

    if not isinstance(axis, (int, np.integer)):  # (a mapped axis's name)
        size = lax.axis_size(axis)
        if num_classes != size:
            raise ValueError(
                f"Expected num_classes to match the size of axis {axis}, but {num_classes} != {size}"
            )
        return jnp.asarray(x == lax.axis_index(axis), dtype=dtype)
    # JAX's formulation: x with a size-1 class axis compared with an iota of the classes
    # (replicated over the mesh x is typed on).
    ax = canonicalize_axes(axis, x.ndim + 1)[0]
    lhs = lax.expand_dims(x, (ax,))
    rhs_shape = [1] * x.ndim
    rhs_shape.insert(ax, num_classes)
    typed = type_sharding(x)
    layout = None if typed is None else typed.with_spec(PartitionSpec(*[None] * len(rhs_shape)))
    rhs = lax.broadcasted_iota(x.dtype, tuple(rhs_shape), ax, out_sharding=layout)
    return lax.convert_element_type(lax.eq(lhs, rhs), jnp.dtype(dtype))


tanh = jnp.tanh


@staged_as_jit
def identity(x):
    """``x`` itself (an activation that does nothing).

    >>> identity(jnp.array([1.0, -1.0]))
    Array([ 1., -1.], dtype=float32)
    """
    check_arraylike("identity", x)
    return as_operand(x)


from . import initializers  # noqa: E402,F401  (jax.nn.initializers is an attribute of jax.nn)


@staged_as_jit
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``: a smooth ReLU.

    >>> squareplus(jnp.array([-1.0, 0.0, 1.0]))
    Array([0.618034, 1.      , 1.618034], dtype=float32)
    """
    x, b = as_operand(x), as_operand(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@staged_as_jit
def sparse_plus(x):
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between: a sparse softplus."""
    x = as_operand(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@staged_as_jit
def sparse_sigmoid(x):
    """``clip((x + 1) / 2, 0, 1)``: the derivative of :func:`sparse_plus`."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@custom_jvp
@staged_as_jit
def log1mexp(x):
    """``log(1 - exp(-x))`` for ``x >= 0``, accurate near 0 and for large ``x``.

    >>> log1mexp(jnp.array([0.1, 10.0]))
    Array([-2.3521686e+00, -4.5400961e-05], dtype=float32)
    """
    (x,) = promote_args_inexact("log1mexp", x)
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


@staged_as_jit(static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``log(mean(exp(x)))`` over ``axis``, stably: ``logsumexp(x) - log(n)``.

    >>> logmeanexp(jnp.array([0.0, jnp.log(3.0)]))
    Array(0.6931472, dtype=float32)
    """
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    x = as_operand(x)
    if where is None:  # a static count: JAX stages only the log of the constant
        axes = canonicalize_axes(axis, x.ndim)
        n = _dims.dimension_as_value(_dims.dim_product(tuple(x.shape[i] for i in axes)))
        count = lax.convert_element_type(n, lse.dtype)
    else:
        count = jnp.sum(jnp.broadcast_to(where, x.shape), axis=axis, dtype=lse.dtype, keepdims=keepdims)
    return lse - jnp.log(count)


from .attention import dot_product_attention  # noqa: E402,F401
from .scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul  # noqa: E402,F401
