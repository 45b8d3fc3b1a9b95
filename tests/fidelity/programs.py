"""The fidelity corpus: small programs users write, whose ``make_jaxpr`` text must match JAX 0.10.2's.

Each program is a function of no arguments returning ``(f, args)``; ``make_jaxpr(f)(*args)`` is
compared. The programs use the globals ``jax``, ``jnp``, ``lax``, ``random`` and ``nn``, which
``bind`` points at either JAX (``record.py``, in the JAX venv) or the engine (the test), so the
same source runs on both. Arguments are numpy arrays (or Python scalars), never framework arrays.
"""

from __future__ import annotations

import importlib

import numpy as np

PROGRAMS: dict = {}

jax = jnp = lax = random = nn = None  # bound by `bind`


def bind(jax_module, jnp_module, lax_module, random_module, nn_module) -> None:
    g = globals()
    g.update(jax=jax_module, jnp=jnp_module, lax=lax_module, random=random_module, nn=nn_module)


def program(fn):
    assert fn.__name__ not in PROGRAMS, fn.__name__
    PROGRAMS[fn.__name__] = fn
    return fn


def f32(*shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def i32(*shape, hi=4):
    return np.random.RandomState(1).randint(0, hi, shape).astype(np.int32)


# --- elementwise functions: plain, grad, vmap(grad) ------------------------------------------------

_UNARY = [
    "sin", "cos", "tan", "tanh", "exp", "log", "log1p", "expm1", "sqrt", "abs", "negative", "sign",
    "floor", "ceil", "round", "square", "reciprocal", "sinh", "cosh", "arcsin", "arccos", "arctan",
    "arcsinh", "arctanh", "exp2", "log2", "log10", "cbrt",
]  # fmt: skip


def _unary_programs(name):
    def plain():
        return getattr(jnp, name), (f32(3),)

    def grad():
        return jax.grad(getattr(jnp, name)), (0.5,)

    plain.__name__, grad.__name__ = f"{name}", f"grad_{name}"
    program(plain)
    program(grad)


for _name in _UNARY:
    _unary_programs(_name)

_NN = ["relu", "sigmoid", "softplus", "silu", "gelu", "elu", "leaky_relu", "log_sigmoid", "relu6"]


def _nn_programs(name):
    def plain():
        return getattr(nn, name), (f32(4),)

    def grad():
        return jax.grad(lambda x: jnp.sum(getattr(nn, name)(x))), (f32(4),)

    plain.__name__, grad.__name__ = f"nn_{name}", f"grad_nn_{name}"
    program(plain)
    program(grad)


for _name in _NN:
    _nn_programs(_name)


@program
def vmap_grad_sin():
    return jax.vmap(jax.grad(jnp.sin)), (f32(5),)


@program
def vmap_grad_tanh():
    return jax.vmap(jax.grad(jnp.tanh)), (f32(5),)


@program
def vmap_grad_exp_sq():
    return jax.vmap(jax.grad(lambda x: jnp.exp(x) * x**2)), (f32(5),)


@program
def grad_grad_tanh():
    return jax.grad(jax.grad(jnp.tanh)), (0.3,)


@program
def grad_grad_grad_sin():
    return jax.grad(jax.grad(jax.grad(jnp.sin))), (0.3,)


@program
def tanh_by_exp():
    def tanh(x):
        y = jnp.exp(-2.0 * x)
        return (1.0 - y) / (1.0 + y)

    return tanh, (1.0,)


@program
def grad_tanh_by_exp():
    def tanh(x):
        y = jnp.exp(-2.0 * x)
        return (1.0 - y) / (1.0 + y)

    return jax.grad(tanh), (1.0,)


# --- binary operations and weak types ----------------------------------------------------------

_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2", "hypot",
           "greater", "less_equal", "equal", "logaddexp", "remainder"]  # fmt: skip


def _binary_program(name):
    def plain():
        return getattr(jnp, name), (f32(3), f32(3, seed=1))

    plain.__name__ = f"binary_{name}"
    program(plain)


for _name in _BINARY:
    _binary_program(_name)


@program
def scalar_literals():
    return lambda x: x * 2.0 + 1 - x / 3.0, (f32(3),)


@program
def int_literal_on_float():
    return lambda x: x + 1, (f32(2, 2),)


@program
def int_array_plus_float():
    return lambda x: x + 1.5, (i32(3),)


@program
def python_scalar_arg():
    return lambda x, y: x * y, (2.0, f32(3))


@program
def integer_pow_cube():
    return lambda x: x**3, (f32(3),)


@program
def float_pow():
    return lambda x: x**2.5, (f32(3),)


@program
def broadcast_add():
    return lambda x, y: x + y, (f32(3, 4), f32(4))


@program
def broadcast_outer_add():
    return lambda x, y: x[:, None] + y[None, :], (f32(3), f32(4))


@program
def astype_int():
    return lambda x: x.astype(jnp.int32), (f32(3),)


@program
def astype_float16():
    return lambda x: x.astype(jnp.float16) * 2, (f32(3),)


@program
def bool_logic():
    return lambda x: jnp.logical_and(x > 0, x < 1), (f32(3),)


@program
def grad_mul_add():
    return jax.grad(lambda x, y: x * y + y, argnums=(0, 1)), (1.0, 2.0)


@program
def grad_div():
    return jax.grad(lambda x, y: x / y, argnums=1), (1.0, 2.0)


@program
def grad_pow_xy():
    return jax.grad(lambda x, y: x**y), (1.5, 2.0)


@program
def grad_maximum():
    return jax.grad(lambda x: jnp.maximum(x, 0.0)), (1.5,)


# --- reductions ----------------------------------------------------------------------------------


@program
def sum_all():
    return jnp.sum, (f32(3, 4),)


@program
def sum_axis0():
    return lambda x: jnp.sum(x, axis=0), (f32(3, 4),)


@program
def sum_axis1_keepdims():
    return lambda x: jnp.sum(x, axis=1, keepdims=True), (f32(3, 4),)


@program
def mean_all():
    return jnp.mean, (f32(3, 4),)


@program
def mean_axis1():
    return lambda x: jnp.mean(x, axis=1), (f32(3, 4),)


@program
def max_all():
    return jnp.max, (f32(3, 4),)


@program
def min_axis0():
    return lambda x: jnp.min(x, axis=0), (f32(3, 4),)


@program
def prod_all():
    return jnp.prod, (f32(4),)


@program
def var_all():
    return jnp.var, (f32(5),)


@program
def std_axis0():
    return lambda x: jnp.std(x, axis=0), (f32(5, 2),)


@program
def argmax_axis1():
    return lambda x: jnp.argmax(x, axis=1), (f32(3, 4),)


@program
def argmin_all():
    return jnp.argmin, (f32(6),)


@program
def any_positive():
    return lambda x: jnp.any(x > 0), (f32(3),)


@program
def all_positive():
    return lambda x: jnp.all(x > 0), (f32(3),)


@program
def cumsum():
    return jnp.cumsum, (f32(5),)


@program
def method_sum():
    return lambda x: x.sum(), (f32(3, 2),)


@program
def method_mean_axis():
    return lambda x: x.mean(axis=0), (f32(3, 2),)


@program
def grad_sum_sq():
    return jax.grad(lambda x: jnp.sum(x**2)), (f32(3),)


@program
def grad_mean_sq():
    return jax.grad(lambda x: jnp.mean(x**2)), (f32(3),)


@program
def grad_max():
    return jax.grad(jnp.max), (f32(4),)


@program
def grad_prod():
    return jax.grad(jnp.prod), (f32(3),)


@program
def grad_var():
    return jax.grad(jnp.var), (f32(4),)


@program
def logsumexp():
    return nn.logsumexp, (f32(4),)


@program
def grad_logsumexp():
    return jax.grad(nn.logsumexp), (f32(4),)


@program
def softmax():
    return nn.softmax, (f32(4),)


@program
def log_softmax():
    return nn.log_softmax, (f32(4),)


@program
def softmax_axis0():
    return lambda x: nn.softmax(x, axis=0), (f32(3, 4),)


@program
def manual_softmax():
    def softmax(x):
        e = jnp.exp(x - jnp.max(x))
        return e / jnp.sum(e)

    return softmax, (f32(4),)


@program
def grad_manual_softmax():
    def softmax(x):
        e = jnp.exp(x - jnp.max(x))
        return e / jnp.sum(e)

    return jax.grad(lambda x: softmax(x)[0]), (f32(4),)


@program
def one_hot():
    return lambda i: nn.one_hot(i, 4), (i32(3),)


@program
def norm_l2():
    return jnp.linalg.norm, (f32(3),)


@program
def grad_norm_l2():
    return jax.grad(jnp.linalg.norm), (f32(3),)


# --- shapes ----------------------------------------------------------------------------------------


@program
def reshape():
    return lambda x: x.reshape(4, 3), (f32(3, 4),)


@program
def reshape_minus_one():
    return lambda x: jnp.reshape(x, (-1,)), (f32(3, 4),)


@program
def transpose_T():
    return lambda x: x.T, (f32(3, 4),)


@program
def transpose_axes():
    return lambda x: jnp.transpose(x, (1, 2, 0)), (f32(2, 3, 4),)


@program
def expand_dims():
    return lambda x: jnp.expand_dims(x, 0), (f32(3),)


@program
def squeeze():
    return lambda x: jnp.squeeze(x), (f32(1, 3),)


@program
def concatenate():
    return lambda x, y: jnp.concatenate([x, y]), (f32(3), f32(2))


@program
def concatenate_axis1():
    return lambda x, y: jnp.concatenate([x, y], axis=1), (f32(2, 3), f32(2, 2))


@program
def stack():
    return lambda x, y: jnp.stack([x, y]), (f32(3), f32(3))


@program
def tile():
    return lambda x: jnp.tile(x, 2), (f32(3),)


@program
def repeat():
    return lambda x: jnp.repeat(x, 2), (f32(3),)


@program
def flip():
    return jnp.flip, (f32(3),)


@program
def broadcast_to():
    return lambda x: jnp.broadcast_to(x, (2, 3)), (f32(3),)


@program
def ravel():
    return jnp.ravel, (f32(2, 3),)


@program
def zeros_like_plus():
    return lambda x: jnp.zeros_like(x) + x, (f32(3),)


@program
def ones_times():
    return lambda x: jnp.ones(3) * x, (f32(3),)


@program
def arange_times():
    return lambda x: jnp.arange(3.0) * x, (f32(3),)


@program
def linspace_plus():
    return lambda x: jnp.linspace(0.0, 1.0, 3) + x, (f32(3),)


@program
def full_like():
    return lambda x: jnp.full_like(x, 2.0), (f32(3),)


@program
def eye_matmul():
    return lambda x: jnp.eye(3) @ x, (f32(3),)


@program
def clip():
    return lambda x: jnp.clip(x, -1.0, 1.0), (f32(3),)


@program
def where():
    return lambda x: jnp.where(x > 0, x, 0.0), (f32(3),)


@program
def where_two_arrays():
    return lambda c, x, y: jnp.where(c, x, y), (np.array([True, False, True]), f32(3), f32(3, seed=1))


@program
def grad_where():
    return jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x, 0.0))), (f32(3),)


@program
def grad_clip():
    return jax.grad(lambda x: jnp.sum(jnp.clip(x, -1.0, 1.0))), (f32(3),)


@program
def grad_reshape():
    return jax.grad(lambda x: jnp.sum(x.reshape(6) ** 2)), (f32(2, 3),)


@program
def grad_transpose():
    return jax.grad(lambda x: jnp.sum(x.T * jnp.arange(2.0))), (f32(2, 3),)


@program
def grad_concatenate():
    return jax.grad(lambda x: jnp.sum(jnp.concatenate([x, x]) ** 2)), (f32(3),)


# --- indexing ------------------------------------------------------------------------------------


@program
def index_int():
    return lambda x: x[0], (f32(3, 4),)


@program
def index_negative():
    return lambda x: x[-1], (f32(3),)


@program
def slice_range():
    return lambda x: x[1:3], (f32(5),)


@program
def slice_step():
    return lambda x: x[::2], (f32(6),)


@program
def slice_reverse():
    return lambda x: x[::-1], (f32(4),)


@program
def index_column():
    return lambda x: x[:, 0], (f32(3, 4),)


@program
def index_none():
    return lambda x: x[None], (f32(3),)


@program
def index_array():
    return lambda x, i: x[i], (f32(5), i32(3))


@program
def index_2d_scalar():
    return lambda x: x[1, 2], (f32(3, 4),)


@program
def index_dynamic():
    return lambda x, i: x[i], (f32(5), 2)


@program
def at_set():
    return lambda x: x.at[0].set(1.0), (f32(3),)


@program
def at_add():
    return lambda x: x.at[1].add(2.0), (f32(3),)


@program
def at_mul():
    return lambda x: x.at[1].multiply(2.0), (f32(3),)


@program
def at_set_slice():
    return lambda x: x.at[1:].set(0.0), (f32(4),)


@program
def at_get():
    return lambda x: x.at[2].get(), (f32(4),)


@program
def dynamic_slice():
    return lambda x, i: lax.dynamic_slice(x, (i,), (2,)), (f32(5), 1)


@program
def dynamic_update_slice():
    return lambda x, y: lax.dynamic_update_slice(x, y, (1,)), (f32(5), f32(2))


@program
def take():
    return lambda x, i: jnp.take(x, i), (f32(5), i32(2))


@program
def grad_index_int():
    return jax.grad(lambda x: x[0] * 2.0), (f32(3),)


@program
def grad_slice():
    return jax.grad(lambda x: jnp.sum(x[1:3])), (f32(5),)


@program
def grad_index_array():
    return jax.grad(lambda x, i: jnp.sum(x[i])), (f32(5), i32(3))


@program
def grad_at_set():
    return jax.grad(lambda x: jnp.sum(x.at[0].set(1.0))), (f32(3),)


@program
def index_two_arrays():
    return lambda x, i, j: x[i, j], (f32(4, 5), i32(3), i32(3))


@program
def index_slice_and_array():
    return lambda x, i: x[1:3, i], (f32(4, 5), i32(2))


@program
def index_column_array():
    return lambda x, i: x[:, i], (f32(4, 5), i32(3))


@program
def index_array_2d():
    return lambda x, i: x[i], (f32(5, 3), i32(2, 2))


@program
def index_newaxis_slice():
    return lambda x: x[None, 1:3], (f32(5),)


@program
def index_reversed():
    return lambda x: x[::-1], (f32(5),)


@program
def index_dynamic_row():
    return lambda x, i: x[i, 1:], (f32(4, 3), 2)


@program
def at_add_array():
    return lambda x, i: x.at[i].add(1.0), (f32(5), i32(2))


@program
def at_mul_array():
    return lambda x, i, v: x.at[i].multiply(v), (f32(5), i32(2), f32(2))


@program
def at_min_array():
    return lambda x, i, v: x.at[i].min(v), (f32(5), i32(3), f32(3))


@program
def at_max_array():
    return lambda x, i, v: x.at[i].max(v), (f32(5), i32(3), f32(3))


@program
def at_set_row():
    return lambda x, v: x.at[1].set(v), (f32(3, 4), f32(4))


@program
def at_add_column():
    return lambda x, i: x.at[:, i].add(1.0), (f32(3, 4), i32(2))


@program
def at_get_fill():
    return lambda x, i: x.at[i].get(mode="fill", fill_value=0.0), (f32(5), i32(3))


@program
def at_set_drop():
    return lambda x, i: x.at[i].set(0.0, mode="drop"), (f32(5), i32(3))


@program
def take_clip():
    return lambda x, i: jnp.take(x, i, mode="clip"), (f32(5), i32(2))


@program
def take_wrap():
    return lambda x, i: jnp.take(x, i, mode="wrap"), (f32(5), np.array([0, 7, -2], np.int32))


@program
def remainder_int_scalar():
    return lambda a, b: a % b, (i32(3, hi=9), 2)


@program
def remainder_int_arrays():
    return jnp.remainder, (i32(3, hi=9), i32(3))


@program
def grad_remainder_divisor():
    return jax.grad(lambda y, x: jnp.sum(jnp.remainder(x, y) * x)), (2.0, f32(3))


@program
def grad_remainder_scalar_dividend():
    return jax.grad(lambda x, y: jnp.sum(jnp.remainder(x, y) * y)), (5.0, f32(3))


@program
def polyval():
    return jnp.polyval, (f32(3), f32(2))


@program
def vmap_polyval():
    return jax.vmap(jnp.polyval, (None, 0)), (f32(3), f32(2))


@program
def polyval_python_scalar_x():
    return lambda p: jnp.polyval(p, 2.0), (f32(3),)


@program
def take_axis1():
    return lambda x, i: jnp.take(x, i, axis=1), (f32(3, 4), i32(2))


@program
def take_along_axis_argsort():
    return lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), (f32(3, 4),)


@program
def grad_at_add():
    return jax.grad(lambda x, i: jnp.sum(x.at[i].add(x[i] ** 2))), (f32(5), i32(2))


@program
def grad_take():
    return jax.grad(lambda x, i: jnp.sum(jnp.take(x, i))), (f32(5), i32(3))


@program
def vmap_index_array():
    return jax.vmap(lambda x, i: x[i]), (f32(3, 5), i32(3, 2))


@program
def vmap_index_scalar():
    return jax.vmap(lambda x, i: x[i], in_axes=(None, 0)), (f32(5), i32(3))


@program
def grad_dynamic_slice():
    return jax.grad(lambda x, i: jnp.sum(lax.dynamic_slice(x, (i,), (2,)) ** 2)), (f32(5), 1)


@program
def grad_dynamic_update_slice():
    def f(x, y):
        return jnp.sum(lax.dynamic_update_slice(x, y * 2.0, (1,)) ** 2)

    return jax.grad(f, argnums=(0, 1)), (f32(5), f32(2))


@program
def vmap_dynamic_update_slice():
    return jax.vmap(lambda x, y: lax.dynamic_update_slice(x, y, (1,))), (f32(3, 5), f32(3, 2))


@program
def index_strided():
    return lambda x: x[::2], (f32(6),)


@program
def index_ellipsis_last():
    return lambda x: x[..., 0], (f32(2, 3, 4),)


@program
def index_middle_newaxis():
    return lambda x: x[:, None], (f32(3, 4),)


@program
def index_traced_pair():
    return lambda x, i, j: x[i, j], (f32(3, 4), 1, 2)


@program
def index_const_array():
    return lambda x: x[jnp.array([0, 2])], (f32(4),)


@program
def index_argmax():
    return lambda x: x[jnp.argmax(x)], (f32(5),)


@program
def at_set_traced_scalar():
    return lambda x, i, v: x.at[i].set(v), (f32(5), 2, 1.5)


@program
def at_set_column_zero():
    return lambda x: x.at[:, 0].set(0.0), (f32(3, 4),)


@program
def at_add_strided():
    return lambda x: x.at[::2].add(1.0), (f32(6),)


@program
def at_get_clip():
    return lambda x, i: x.at[i].get(mode="clip"), (f32(5), i32(3, hi=8))


@program
def grad_index_strided():
    return jax.grad(lambda x: jnp.sum(x[::2] ** 2)), (f32(6),)


@program
def grad_index_reversed():
    return jax.grad(lambda x: jnp.sum(x[::-1] * jnp.arange(5.0))), (f32(5),)


@program
def grad_take_along_axis():
    return jax.grad(lambda x, i: jnp.sum(jnp.take_along_axis(x, i, axis=1))), (f32(3, 4), i32(3, 2))


@program
def vmap_at_set_batched_index():
    return jax.vmap(lambda x, i: x.at[i].set(0.0)), (f32(3, 5), i32(3))


@program
def vmap_dynamic_update_slice_index():
    return jax.vmap(lambda x, y, i: lax.dynamic_update_slice(x, y, (i,))), (f32(3, 5), f32(3, 2), i32(3))


@program
def dynamic_slice_2d():
    return lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)), (f32(4, 5), 1, 2)


@program
def grad_dynamic_slice_2d():
    return jax.grad(lambda x, i: jnp.sum(lax.dynamic_slice(x, (i, 0), (2, 3)))), (f32(4, 3), 1)


@program
def index_newaxis_both():
    return lambda x: x[None, :, None], (f32(3),)


@program
def index_int_reversed():
    return lambda x: x[1, ::-1], (f32(3, 4),)


@program
def index_chained_traced():
    return lambda x, i, j: x[i][j], (f32(3, 4), 1, 2)


@program
def at_add_two_arrays():
    return lambda x, i, j: x.at[i, j].add(1.0), (f32(3, 4), i32(2, hi=3), i32(2))


@program
def grad_at_set_slice():
    return jax.grad(lambda x: jnp.sum(x.at[1:3].set(0.0) ** 2)), (f32(5),)


@program
def grad_at_set_value():
    return jax.grad(lambda v, x: jnp.sum(x.at[1].set(v) * x), argnums=0), (2.0, f32(4))


@program
def take_last_axis():
    return lambda x, i: jnp.take(x, i, axis=-1), (f32(2, 5), i32(3))


@program
def vmap_take_unbatched_indices():
    return jax.vmap(lambda x, i: jnp.take(x, i), in_axes=(0, None)), (f32(3, 5), i32(2))


@program
def grad_dynamic_update_slice_update():
    def f(y, x):
        return jnp.sum(lax.dynamic_update_slice(x, jnp.sin(y), (2,)))

    return jax.grad(f), (f32(2), f32(5))


@program
def dynamic_index_in_dim():
    return lambda x, i: lax.dynamic_index_in_dim(x, i, keepdims=False), (f32(4, 3), 2)


@program
def dynamic_update_index_in_dim():
    return lambda x, y, i: lax.dynamic_update_index_in_dim(x, y, i, 0), (f32(4, 3), f32(3), 1)


@program
def dynamic_slice_in_dim_2d():
    return lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=1), (f32(3, 5), 1)


# --- linear algebra ----------------------------------------------------------------------------------


@program
def matmul_op():
    return lambda x, W: x @ W, (f32(4, 3), f32(3, 2))


@program
def matvec():
    return lambda W, x: W @ x, (f32(2, 3), f32(3))


@program
def vecdot():
    return jnp.dot, (f32(3), f32(3, seed=1))


@program
def dot_matrix():
    return jnp.dot, (f32(2, 3), f32(3, 4))


@program
def matmul_batched():
    return jnp.matmul, (f32(5, 2, 3), f32(5, 3, 4))


@program
def einsum_ij_jk():
    return lambda a, b: jnp.einsum("ij,jk->ik", a, b), (f32(2, 3), f32(3, 4))


@program
def einsum_trace():
    return lambda a: jnp.einsum("ii->", a), (f32(3, 3),)


@program
def einsum_batch():
    return lambda a, b: jnp.einsum("bij,bjk->bik", a, b), (f32(5, 2, 3), f32(5, 3, 4))


@program
def outer():
    return jnp.outer, (f32(3), f32(2))


@program
def inner():
    return jnp.inner, (f32(3), f32(3, seed=1))


@program
def tensordot():
    return lambda a, b: jnp.tensordot(a, b, axes=1), (f32(2, 3), f32(3, 4))


@program
def lax_dot():
    return lax.dot, (f32(2, 3), f32(3, 4))


@program
def grad_matmul_W():
    return jax.grad(lambda W, x: jnp.sum(x @ W)), (f32(3, 2), f32(4, 3))


@program
def grad_matvec_x():
    return jax.grad(lambda x, W: jnp.sum(W @ x), argnums=0), (f32(3), f32(2, 3))


@program
def grad_vecdot():
    return jax.grad(lambda x, y: jnp.dot(x, y)), (f32(3), f32(3, seed=1))


@program
def vmap_dot():
    return jax.vmap(jnp.dot), (f32(5, 3), f32(5, 3))


@program
def vmap_matvec():
    return jax.vmap(lambda x, W: W @ x, in_axes=(0, None)), (f32(5, 3), f32(2, 3))


@program
def vmap_matmul_both():
    return jax.vmap(jnp.matmul), (f32(5, 2, 3), f32(5, 3, 4))


# --- the MLP of the docs -------------------------------------------------------------------------------


def _mlp_loss(W, b, x, y):
    p = jnp.tanh(x @ W + b)
    return jnp.mean((p - y) ** 2)


@program
def mlp_loss():
    return _mlp_loss, (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_grad():
    return jax.grad(_mlp_loss), (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_grad_argnums():
    return jax.grad(_mlp_loss, argnums=(0, 1)), (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_value_and_grad():
    return jax.value_and_grad(_mlp_loss), (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_per_example_grads():
    g = jax.vmap(jax.grad(_mlp_loss), in_axes=(None, None, 0, 0))
    return g, (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_vmap_forward():
    return jax.vmap(_mlp_loss, in_axes=(None, None, 0, 0)), (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def mlp_jit_grad():
    return jax.jit(jax.grad(_mlp_loss)), (f32(3, 2), f32(2), f32(4, 3), f32(4, 2))


@program
def two_layer_mlp():
    def predict(params, x):
        (W1, b1), (W2, b2) = params
        h = jax.nn.relu(x @ W1 + b1)
        return h @ W2 + b2

    params = ((f32(3, 4), f32(4)), (f32(4, 2), f32(2)))
    return predict, (params, f32(5, 3))


@program
def two_layer_mlp_grad():
    def loss(params, x, y):
        (W1, b1), (W2, b2) = params
        h = jax.nn.relu(x @ W1 + b1)
        return jnp.mean((h @ W2 + b2 - y) ** 2)

    params = ((f32(3, 4), f32(4)), (f32(4, 2), f32(2)))
    return jax.grad(loss), (params, f32(5, 3), f32(5, 2))


@program
def logistic_regression_grad():
    def loss(w, x, y):
        p = jax.nn.sigmoid(x @ w)
        return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))

    return jax.grad(loss), (f32(3), f32(6, 3), f32(6))


@program
def cross_entropy_grad():
    def loss(logits, labels):
        return -jnp.sum(labels * jax.nn.log_softmax(logits))

    return jax.grad(loss), (f32(4), f32(4, seed=1))


# --- transformations ------------------------------------------------------------------------------------


@program
def grad_has_aux():
    return jax.grad(lambda x: (jnp.sin(x), jnp.cos(x)), has_aux=True), (1.0,)


@program
def value_and_grad_scalar():
    return jax.value_and_grad(lambda x: x**2 + 3 * x), (1.0,)


@program
def grad_argnums_tuple():
    return jax.grad(lambda x, y, z: x * y * z, argnums=(0, 2)), (1.0, 2.0, 3.0)


@program
def jvp_sin():
    return lambda x, t: jax.jvp(jnp.sin, (x,), (t,)), (f32(3), f32(3, seed=1))


@program
def jvp_mul():
    return lambda x, t: jax.jvp(lambda x: x * x * 3.0, (x,), (t,)), (f32(3), f32(3, seed=1))


@program
def vjp_sin():
    def f(x, ct):
        y, pullback = jax.vjp(jnp.sin, x)
        return pullback(ct)

    return f, (f32(3), f32(3, seed=1))


@program
def vjp_tanh_exp():
    def f(x, ct):
        y, pullback = jax.vjp(lambda x: jnp.tanh(jnp.exp(x)), x)
        return y, pullback(ct)

    return f, (f32(3), f32(3, seed=1))


@program
def linearize_sin():
    def f(x, t):
        y, f_jvp = jax.linearize(jnp.sin, x)
        return f_jvp(t)

    return f, (f32(3), f32(3, seed=1))


@program
def linearize_cond():
    # (the linear cond's branches are the unknown part of a partial evaluation: fresh binders)
    def f(x, t):
        y, f_jvp = jax.linearize(lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, jnp.cos, x), x)
        return f_jvp(t)

    return f, (f32(), f32(seed=1))


@program
def jacfwd_sin():
    return jax.jacfwd(jnp.sin), (f32(3),)


@program
def jacrev_sin():
    return jax.jacrev(jnp.sin), (f32(3),)


@program
def jacfwd_matvec():
    return jax.jacfwd(lambda x: jnp.tanh(f32(2, 3) @ x)), (f32(3),)


@program
def jacrev_matvec():
    return jax.jacrev(lambda W, x: jnp.tanh(W @ x), argnums=1), (f32(2, 3), f32(3))


@program
def jacfwd_scalar():
    return jax.jacfwd(lambda x: x**3), (2.0,)


@program
def jacrev_scalar_to_vector():
    return jax.jacrev(lambda x: jnp.array([x, x**2])), (2.0,)


@program
def hessian_sum_cubes():
    return jax.hessian(lambda x: jnp.sum(x**3)), (f32(3),)


@program
def hessian_scalar():
    return jax.hessian(lambda x: jnp.sin(x) * x), (1.0,)


@program
def hessian_quadratic():
    return jax.hessian(lambda x, A: x @ A @ x), (f32(3), f32(3, 3))


@program
def jacfwd_jacrev():
    return jax.jacfwd(jax.jacrev(lambda x: jnp.sum(jnp.sin(x)))), (f32(3),)


@program
def vmap_sin():
    return jax.vmap(jnp.sin), (f32(5),)


@program
def vmap_add_in_axes():
    return jax.vmap(lambda x, y: x + y, in_axes=(0, None)), (f32(5, 3), f32(3))


@program
def vmap_in_axes_1():
    return jax.vmap(lambda x: jnp.sum(x), in_axes=1), (f32(3, 5),)


@program
def vmap_out_axes_1():
    return jax.vmap(lambda x: x * 2.0, out_axes=1), (f32(5, 3),)


@program
def vmap_sum():
    return jax.vmap(jnp.sum), (f32(5, 3),)


@program
def vmap_mean():
    return jax.vmap(jnp.mean), (f32(5, 3),)


@program
def vmap_max():
    return jax.vmap(jnp.max), (f32(5, 3),)


@program
def vmap_argmax():
    return jax.vmap(jnp.argmax), (f32(5, 3),)


@program
def vmap_softmax():
    return jax.vmap(nn.softmax), (f32(5, 3),)


@program
def vmap_index():
    return jax.vmap(lambda x: x[0]), (f32(5, 3),)


@program
def vmap_index_batched_idx():
    return jax.vmap(lambda x, i: x[i]), (f32(5, 3), i32(5, hi=3))


@program
def vmap_reshape():
    return jax.vmap(lambda x: x.reshape(3, 2)), (f32(5, 6),)


@program
def vmap_transpose():
    return jax.vmap(lambda x: x.T), (f32(5, 2, 3),)


@program
def vmap_concatenate():
    return jax.vmap(lambda x: jnp.concatenate([x, x])), (f32(5, 3),)


@program
def vmap_where():
    return jax.vmap(lambda x: jnp.where(x > 0, x, 0.0)), (f32(5, 3),)


@program
def vmap_of_vmap():
    return jax.vmap(jax.vmap(lambda x, y: x * y)), (f32(4, 5), f32(4, 5))


@program
def vmap_outer_via_nested():
    return jax.vmap(jax.vmap(lambda x, y: x * y, (None, 0)), (0, None)), (f32(4), f32(5))


@program
def vmap_pytree_in():
    return jax.vmap(lambda d: d["a"] * d["b"]), ({"a": f32(5), "b": f32(5, seed=1)},)


@program
def vmap_tuple_out():
    return jax.vmap(lambda x: (x, x * 2)), (f32(5),)


@program
def vmap_dynamic_slice():
    return jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,))), (f32(5, 4), i32(5, hi=2))


@program
def vmap_at_set():
    return jax.vmap(lambda x: x.at[0].set(1.0)), (f32(5, 3),)


@program
def jit_simple():
    return jax.jit(lambda x: jnp.sin(x) * 2.0), (f32(3),)


@program
def jit_named():
    def scale(x):
        return x * 3.0

    return jax.jit(scale), (f32(3),)


@program
def jit_inside():
    def f(x):
        y = jax.jit(jnp.cos)(x)
        return y + 1.0

    return f, (f32(3),)


@program
def jit_two_outputs():
    def f(x):
        return x + 1.0, x * 2.0

    return jax.jit(f), (f32(3),)


@program
def jit_static_argnums():
    def f(x, n):
        return x**n

    return lambda x: jax.jit(f, static_argnums=1)(x, 3), (f32(3),)


@program
def grad_of_jit():
    return jax.grad(jax.jit(lambda x: jnp.sin(x) * x)), (1.0,)


@program
def vmap_of_jit():
    return jax.vmap(jax.jit(lambda x: jnp.sum(x * x))), (f32(5, 3),)


@program
def jit_of_vmap():
    return jax.jit(jax.vmap(lambda x: jnp.sum(x * x))), (f32(5, 3),)


@program
def jit_of_grad():
    return jax.jit(jax.grad(lambda x: jnp.sin(x) * x)), (1.0,)


@program
def nested_jit():
    inner = jax.jit(lambda x: x * 2.0)
    return jax.jit(lambda x: inner(x) + inner(x + 1.0)), (f32(3),)


@program
def vmap_grad_jit():
    return jax.vmap(jax.grad(jax.jit(lambda x: jnp.tanh(x) ** 2))), (f32(5),)


@program
def stop_gradient():
    return jax.grad(lambda x: x * lax.stop_gradient(x)), (1.0,)


@program
def custom_jvp_fn():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t

    return f, (1.0,)


@program
def grad_custom_jvp():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t

    return jax.grad(f), (1.0,)


# --- everyday autodiff: losses, aux outputs, jvp/linearize, hessians, custom rules -----------------------------


def _params(sizes, seed=0):
    rs = np.random.RandomState(seed)
    return [
        (rs.randn(m, n).astype(np.float32), rs.randn(n).astype(np.float32))
        for m, n in zip(sizes[:-1], sizes[1:])
    ]


def _relu_mlp(params, x):
    for W, b in params[:-1]:
        x = nn.relu(x @ W + b)
    W, b = params[-1]
    return x @ W + b


def _xent(params, x, y):
    return -jnp.mean(jnp.sum(nn.log_softmax(_relu_mlp(params, x)) * y, axis=-1))


_ONEHOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]


@program
def grad_mlp_xent():
    return jax.grad(_xent), (_params([4, 5, 3]), f32(4, 4), _ONEHOT)


@program
def jit_value_and_grad_mlp():
    return jax.jit(jax.value_and_grad(_xent)), (_params([4, 3]), f32(4, 4), _ONEHOT)


@program
def value_and_grad_has_aux_mlp():
    def loss(params, x, y):
        logits = _relu_mlp(params, x)
        accuracy = jnp.mean(jnp.argmax(logits, -1) == jnp.argmax(y, -1))
        return jnp.mean((logits - y) ** 2), {"logits": logits, "acc": accuracy}

    return jax.value_and_grad(loss, has_aux=True), (_params([4, 3]), f32(4, 4), _ONEHOT)


@program
def value_and_grad_argnums():
    def loss(W, b, x):
        return jnp.sum(jnp.tanh(x @ W + b))

    return jax.value_and_grad(loss, argnums=(0, 1)), (f32(3, 2), f32(2), f32(4, 3))


@program
def grad_softmax_xent_int_labels():
    def loss(logits, labels):
        return -jnp.mean(jnp.take_along_axis(nn.log_softmax(logits), labels[:, None], axis=1))

    return jax.grad(loss), (f32(4, 3), np.array([0, 2, 1, 1], np.int32))


@program
def grad_sigmoid_bce():
    return jax.grad(lambda w, x, y: jnp.mean(nn.softplus(x @ w) - y * (x @ w))), (f32(3), f32(5, 3), f32(5))


@program
def grad_l2_reg():
    return jax.grad(lambda W, x: jnp.mean(jnp.tanh(x @ W)) + 1e-3 * jnp.sum(W**2)), (f32(3, 2), f32(4, 3))


@program
def grad_nn_gelu_layer():
    return jax.grad(lambda W, x: jnp.sum(nn.gelu(x @ W))), (f32(3, 2), f32(4, 3))


@program
def grad_relu_sum_sq():
    return jax.grad(lambda x: jnp.sum(nn.relu(x) ** 2)), (f32(4),)


@program
def grad_stop_gradient_target():
    return jax.grad(lambda w, x: jnp.sum((x @ w - lax.stop_gradient(x @ w) * 0.5) ** 2)), (f32(3), f32(4, 3))


@program
def grad_norm_distance():
    return jax.grad(lambda a, b: jnp.linalg.norm(a - b)), (f32(3), f32(3))


@program
def grad_logsumexp_axis1():
    return jax.grad(lambda x: jnp.sum(nn.logsumexp(x, axis=1))), (f32(2, 3),)


@program
def grad_std_plus_mean():
    return jax.grad(lambda x: jnp.std(x) + jnp.mean(x)), (f32(5),)


@program
def grad_grad_polynomial():
    return jax.grad(jax.grad(lambda x: x**3 + 2 * x**2)), (1.5,)


@program
def jvp_softmax():
    return lambda x, t: jax.jvp(nn.softmax, (x,), (t,)), (f32(5), f32(5, seed=1))


@program
def jvp_logsumexp():
    return lambda x, t: jax.jvp(nn.logsumexp, (x,), (t,)), (f32(5), f32(5, seed=1))


@program
def jvp_norm():
    return lambda x, t: jax.jvp(jnp.linalg.norm, (x,), (t,)), (f32(4), f32(4, seed=1))


@program
def jvp_two_arguments():
    def f(a, b):
        return jnp.sin(a) * jnp.exp(b)

    return lambda x, y, tx, ty: jax.jvp(f, (x, y), (tx, ty)), (f32(3), f32(3), f32(3), f32(3))


@program
def linearize_tanh_sq_sum():
    def f(x, t):
        y, f_jvp = jax.linearize(lambda x: jnp.sum(jnp.tanh(x) ** 2), x)
        return y, f_jvp(t)

    return f, (f32(4), f32(4, seed=1))


@program
def linearize_manual_softmax():
    def f(x, t):
        _, f_jvp = jax.linearize(lambda x: jnp.exp(x) / jnp.sum(jnp.exp(x)), x)
        return f_jvp(t)

    return f, (f32(4), f32(4, seed=1))


@program
def vjp_two_outputs():
    def f(x, c1, c2):
        _, f_vjp = jax.vjp(lambda x: (jnp.sin(x), jnp.cos(x) * 2.0), x)
        return f_vjp((c1, c2))

    return f, (f32(3), f32(3), f32(3))


@program
def jacrev_softmax():
    return jax.jacrev(nn.softmax), (f32(3),)


@program
def jacfwd_tanh_layer():
    return jax.jacfwd(lambda W, x: jnp.tanh(W @ x)), (f32(2, 3), f32(3))


@program
def hessian_small_net():
    return lambda w, x: jax.hessian(lambda w, x: jnp.sum(jnp.tanh(x @ w) ** 2))(w, x), (f32(3), f32(2, 3))


@program
def hessian_logsumexp():
    return jax.hessian(nn.logsumexp), (f32(3),)


@program
def grad_custom_jvp_softplus():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    @softplus.defjvp
    def softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * nn.sigmoid(x)

    return jax.grad(lambda x: jnp.sum(softplus(x))), (f32(3),)


@program
def grad_custom_vjp_clip_gradient():
    @jax.custom_vjp
    def clip_gradient(x):
        return x

    def fwd(x):
        return x, None

    def bwd(_, g):
        return (jnp.clip(g, -1.0, 1.0),)

    clip_gradient.defvjp(fwd, bwd)
    return jax.grad(lambda x: jnp.sum(clip_gradient(x) ** 2)), (f32(3),)


@program
def grad_custom_vjp_residuals():
    @jax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def fwd(x, y):
        return jnp.sin(x) * y, (jnp.cos(x), jnp.sin(x), y)

    def bwd(res, g):
        c, s, y = res
        return (c * g * y, s * g)

    f.defvjp(fwd, bwd)
    return jax.grad(lambda x, y: jnp.sum(f(x, y)), argnums=(0, 1)), (f32(3), f32(3))


@program
def grad_huber():
    def loss(p, y):
        err = jnp.abs(p - y)
        return jnp.mean(jnp.where(err < 1.0, 0.5 * (p - y) ** 2, err - 0.5))

    return jax.grad(loss), (f32(4), f32(4, seed=1))


@program
def grad_attention():
    def attention(q, k, v):
        s = q @ k.T / jnp.sqrt(q.shape[-1])
        return jnp.sum(nn.softmax(s, axis=-1) @ v)

    return jax.grad(attention, argnums=(0, 1, 2)), (f32(3, 4), f32(5, 4), f32(5, 2))


@program
def grad_layernorm():
    def layernorm(x, g, b):
        m = jnp.mean(x, axis=-1, keepdims=True)
        v = jnp.var(x, axis=-1, keepdims=True)
        return jnp.sum((x - m) / jnp.sqrt(v + 1e-5) * g + b)

    return jax.grad(layernorm, argnums=(0, 1, 2)), (f32(2, 4), f32(4), f32(4))


def _dict_model(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.sum((h @ params["w2"]) ** 2)


@program
def per_example_grads_dict_params():
    params = {"w1": f32(3, 4), "b1": f32(4), "w2": f32(4, 2)}
    return jax.vmap(jax.grad(_dict_model), in_axes=(None, 0)), (params, f32(5, 3))


@program
def value_and_grad_dict_params():
    return jax.value_and_grad(_dict_model), ({"w1": f32(3, 4), "b1": f32(4), "w2": f32(4, 2)}, f32(5, 3))


@program
def hvp_forward_over_reverse():
    g = jax.grad(lambda x: jnp.sum(jnp.sin(x) * x**2))
    return lambda x, v: jax.jvp(g, (x,), (v,))[1], (f32(3), f32(3, seed=1))


@program
def grad_cosine_similarity():
    return jax.grad(lambda a, b: jnp.dot(a, b) / (jnp.linalg.norm(a) * jnp.linalg.norm(b))), (f32(4), f32(4))


@program
def grad_nn_silu_sum():
    return jax.grad(lambda x: jnp.sum(nn.silu(x))), (f32(4),)


@program
def grad_nn_elu_sum():
    return jax.grad(lambda x: jnp.sum(nn.elu(x))), (f32(4),)


@program
def grad_nn_leaky_relu_sum():
    return jax.grad(lambda x: jnp.sum(nn.leaky_relu(x))), (f32(4),)


@program
def grad_softmax_axis0_sq():
    return jax.grad(lambda x: jnp.sum(nn.softmax(x, axis=0) ** 2)), (f32(3, 2),)


@program
def grad_custom_jvp_two_args():
    @jax.custom_jvp
    def scaled(x, s):
        return x * s

    @scaled.defjvp
    def scaled_jvp(primals, tangents):
        (x, s), (tx, ts) = primals, tangents
        return x * s, tx * s + x * ts

    return jax.grad(lambda x, s: jnp.sum(scaled(x, s)), argnums=(0, 1)), (f32(3), 2.0)


def _custom_vjp_square():
    @jax.custom_vjp
    def square(x):
        return x**2

    square.defvjp(lambda x: (x**2, x), lambda x, g: (2 * x * g,))
    return square


@program
def jit_grad_custom_vjp():
    square = _custom_vjp_square()
    return jax.jit(jax.grad(lambda x: jnp.sum(square(x)))), (f32(3),)


@program
def vmap_grad_custom_vjp():
    return jax.vmap(jax.grad(_custom_vjp_square())), (f32(3),)


@program
def vjp_has_aux():
    def f(x, c):
        _, f_vjp, _ = jax.vjp(lambda x: (jnp.sin(x), jnp.cos(x)), x, has_aux=True)
        return f_vjp(c)

    return f, (f32(3), f32(3, seed=1))


@program
def jacrev_pytree_output():
    return jax.jacrev(lambda x: {"a": jnp.sin(x), "b": jnp.sum(x**2)}), (f32(3),)


@program
def linear_transpose_matvec():
    return lambda W, y: jax.linear_transpose(lambda x: W @ x, np.zeros(3, np.float32))(y), (f32(2, 3), f32(2))


@program
def linear_transpose_pytree():
    def f(c1, c2):
        f_t = jax.linear_transpose(lambda x: {"s": jnp.sum(x), "neg": -x}, np.zeros(3, np.float32))
        return f_t({"s": c1, "neg": c2})

    return f, (np.float32(1.0), f32(3))


@program
def jvp_of_vmap_tanh():
    return lambda x, t: jax.jvp(jax.vmap(jnp.tanh), (x,), (t,)), (f32(3), f32(3, seed=1))


@program
def grad_cumsum_sq():
    return jax.grad(lambda x: jnp.sum(jnp.cumsum(x) ** 2)), (f32(4),)


@program
def grad_sort_weighted():
    return jax.grad(lambda x: jnp.sum(jnp.sort(x) * jnp.arange(4.0))), (f32(4),)


@program
def grad_sort_axis0():
    return jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) * jnp.arange(3.0))), (f32(4, 3),)


@program
def jvp_sort():
    return lambda x, t: jax.jvp(jnp.sort, (x,), (t,)), (f32(4), f32(4, seed=1))


@program
def grad_max_axis1():
    return jax.grad(lambda x: jnp.sum(jnp.max(x, axis=1))), (f32(2, 3),)


@program
def grad_sqrt_sum_sq():
    return jax.grad(lambda x: jnp.sqrt(jnp.sum(x**2))), (f32(4),)


@program
def grad_of_jitted_mse():
    return jax.grad(jax.jit(lambda w, x, y: jnp.mean((x @ w - y) ** 2))), (f32(3), f32(5, 3), f32(5))


@program
def grad_outer_product():
    return jax.grad(lambda a, b: jnp.sum(jnp.outer(a, b) ** 2), argnums=(0, 1)), (f32(3), f32(2))


@program
def grad_exp_normalize():
    return jax.grad(lambda x: jnp.sum(jnp.exp(x - nn.logsumexp(x)) * jnp.arange(3.0))), (f32(3),)


@program
def grad_safe_where_division():
    return jax.grad(lambda x: jnp.sum(jnp.where(x > 0, 1.0 / jnp.where(x > 0, x, 1.0), 0.0))), (f32(4),)


@program
def grad_where_twice():
    return jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x, 1.0) * jnp.where(x > 0, 2 * x, 0.0))), (f32(4),)


@program
def grad_jit_called_twice():
    def f(x):
        g = jax.jit(lambda y: jnp.sin(y) * 2.0)
        return jnp.sum(g(x) * g(x * 3.0))

    return jax.grad(f), (f32(3),)


@program
def grad_one_hot_xent():
    def loss(logits, labels):
        return -jnp.mean(jnp.sum(nn.one_hot(labels, 3) * nn.log_softmax(logits), -1))

    return jax.grad(loss), (f32(4, 3), np.array([0, 2, 1, 1], np.int32))


@program
def sgd_step_tree_map():
    def step(params, x):
        grads = jax.grad(lambda p: jnp.sum(jnp.tanh(x @ p["w"] + p["b"])))(params)
        return jax.tree_util.tree_map(lambda w, g: w - 0.1 * g, params, grads)

    return step, ({"w": f32(3, 2), "b": f32(2)}, f32(4, 3))


@program
def grad_centered_sum_sq():
    return jax.grad(lambda x: jnp.sum((x - jnp.mean(x, axis=0, keepdims=True)) ** 2)), (f32(4, 3),)


@program
def grad_log_softmax_index():
    return jax.grad(lambda x, i: nn.log_softmax(x)[i]), (f32(5), 2)


@program
def grad_kl_divergence():
    def kl(p, q):
        return jnp.sum(nn.softmax(p) * (nn.log_softmax(p) - nn.log_softmax(q)))

    return jax.grad(kl), (f32(4), f32(4, seed=1))


@program
def grad_rbf_kernel():
    def k(x, y):
        return jnp.sum(jnp.exp(-jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, -1)))

    return jax.grad(k), (f32(3, 2), f32(4, 2))


@program
def grad_unrolled_rnn():
    return jax.grad(lambda W, xs: jnp.sum(jnp.tanh(jnp.tanh(xs[0] @ W) @ W + xs[1]))), (f32(3, 3), f32(2, 3))


@program
def grad_clip_by_norm():
    return jax.grad(lambda g: jnp.sum(g * jnp.minimum(1.0, 1.0 / jnp.linalg.norm(g)))), (f32(4),)


@program
def vmap_jacrev():
    return jax.vmap(jax.jacrev(lambda x: jnp.sin(x) * x)), (f32(2, 3),)


@program
def jacfwd_of_grad():
    return jax.jacfwd(jax.grad(lambda x: jnp.sum(x**3))), (f32(3),)


@program
def grad_logaddexp():
    return jax.grad(lambda a, b: jnp.sum(jnp.logaddexp(a, b))), (f32(3), f32(3, seed=1))


@program
def grad_arctan2():
    return jax.grad(lambda y, x: jnp.sum(jnp.arctan2(y, x))), (f32(3), f32(3, seed=1))


@program
def grad_abs_power_fractional():
    return jax.grad(lambda x: jnp.sum(jnp.abs(x) ** 1.5)), (f32(3),)


@program
def grad_log1p_expm1():
    return jax.grad(lambda x: jnp.sum(jnp.log1p(jnp.expm1(x) ** 2))), (f32(3),)


@program
def gelu_exact():
    return lambda x: nn.gelu(x, approximate=False), (f32(3),)


@program
def grad_gelu_exact():
    return jax.grad(lambda x: jnp.sum(nn.gelu(x, approximate=False))), (f32(3),)


@program
def grad_erfc():
    return jax.grad(lax.erfc), (0.3,)


@program
def trace_matrix():
    return jnp.trace, (f32(3, 3),)


@program
def trace_offset_axes():
    return lambda a: jnp.trace(a, 1, 1, 2), (f32(2, 3, 4),)


@program
def linalg_trace_batched():
    return jnp.linalg.trace, (f32(2, 3, 3),)


@program
def grad_trace_of_square():
    return jax.grad(lambda A: jnp.trace(A @ A)), (f32(3, 3),)


@program
def array_of_tracer_copies():
    return lambda x: jnp.array(x) + 1.0, (f32(3),)


@program
def array_of_tracer_dtype():
    return lambda x: jnp.array(x, dtype=jnp.int32), (f32(3),)


@program
def grad_through_array_copy():
    return jax.grad(lambda x: jnp.sum(jnp.array(x) ** 2)), (f32(3),)


# --- lax functions -----------------------------------------------------------------------------------------


@program
def lax_add():
    return lax.add, (f32(3), f32(3, seed=1))


@program
def lax_exp_log():
    return lambda x: lax.log(lax.exp(x)), (f32(3),)


@program
def lax_rsqrt():
    return lax.rsqrt, (f32(3),)


@program
def lax_integer_pow():
    return lambda x: lax.integer_pow(x, 3), (f32(3),)


@program
def lax_convert():
    return lambda x: lax.convert_element_type(x, jnp.int32), (f32(3),)


@program
def lax_broadcast_in_dim():
    return lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), (f32(3),)


@program
def lax_reshape():
    return lambda x: lax.reshape(x, (6,)), (f32(2, 3),)


@program
def lax_reduce_sum():
    return lambda x: lax.reduce_sum(x, (0,)), (f32(2, 3),)


@program
def lax_slice():
    return lambda x: lax.slice(x, (1,), (3,)), (f32(5),)


@program
def lax_pad():
    return lambda x: lax.pad(x, 0.0, ((1, 2, 0),)), (f32(3),)


@program
def lax_select():
    return lambda p, x, y: lax.select(p, x, y), (np.array([True, False]), f32(2), f32(2))


@program
def lax_max():
    return lax.max, (f32(3), f32(3, seed=1))


@program
def lax_dot_general():
    return lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), (f32(2, 3), f32(3, 4))


@program
def lax_dot_general_batch():
    return lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), (f32(5, 2, 3), f32(5, 3, 4))


@program
def lax_iota():
    return lambda x: lax.iota(jnp.int32, 3) + x, (i32(3),)


@program
def lax_square():
    return lax.square, (f32(3),)


@program
def lax_sort():
    return jnp.sort, (f32(5),)


@program
def lax_cumsum():
    return lambda x: lax.cumsum(x), (f32(5),)


@program
def lax_erf():
    return lax.erf, (f32(3),)


@program
def lax_logistic():
    return lax.logistic, (f32(3),)


@program
def lax_rev():
    return lambda x: lax.rev(x, (0,)), (f32(3),)


@program
def lax_squeeze():
    return lambda x: lax.squeeze(x, (0,)), (f32(1, 3),)


@program
def lax_expand_dims():
    return lambda x: lax.expand_dims(x, (0,)), (f32(3),)


@program
def lax_clamp():
    return lambda x: lax.clamp(-1.0, x, 1.0), (f32(3),)


@program
def lax_neg_abs():
    return lambda x: lax.neg(lax.abs(x)), (f32(3),)


# --- control flow ------------------------------------------------------------------------------------------


@program
def cond_simple():
    return lambda x: lax.cond(x > 0, lambda x: x + 1.0, lambda x: x - 1.0, x), (1.0,)


@program
def cond_array():
    return lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), (True, f32(3))


@program
def cond_two_operands():
    return lambda p, x, y: lax.cond(p, lambda a, b: a * b, lambda a, b: a + b, x, y), (True, 1.0, 2.0)


@program
def cond_closure():
    def f(x, y):
        return lax.cond(x > 0, lambda: x * y, lambda: y)

    return f, (1.0, 2.0)


@program
def switch_three():
    branches = [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: -x]
    return lambda i, x: lax.switch(i, branches, x), (1, 2.0)


@program
def grad_cond():
    return jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), (1.0,)


@program
def vmap_cond():
    return jax.vmap(lambda x: lax.cond(x > 0, lambda x: x + 1.0, lambda x: x - 1.0, x)), (f32(5),)


@program
def fori_loop_sum():
    return lambda x: lax.fori_loop(0, 5, lambda i, acc: acc + i, x), (1.0,)


@program
def fori_loop_array():
    return lambda x: lax.fori_loop(0, 3, lambda i, v: v * 2.0, x), (f32(3),)


@program
def while_loop_double():
    return lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x), (1.0,)


@program
def while_loop_tuple():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))

    return f, (1.0,)


@program
def scan_cumsum():
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c), 0.0, xs)

    return f, (f32(5),)


@program
def scan_rnn():
    def f(W, h0, xs):
        def step(h, x):
            h = jnp.tanh(W @ h + x)
            return h, h

        return lax.scan(step, h0, xs)

    return f, (f32(3, 3), f32(3), f32(4, 3))


@program
def grad_scan():
    def f(xs):
        c, _ = lax.scan(lambda c, x: (c * x, None), 1.0, xs)
        return c

    return jax.grad(f), (f32(4),)


@program
def grad_fori_loop():
    return jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, v: jnp.sin(v), x)), (1.0,)


@program
def vmap_fori_loop():
    return jax.vmap(lambda x: lax.fori_loop(0, 3, lambda i, v: v * x, x)), (f32(5),)


@program
def vmap_while_loop():
    return jax.vmap(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)), (f32(5),)


@program
def grad_fori_loop_mul():
    return jax.grad(lambda x: lax.fori_loop(0, 4, lambda i, v: v * x, 1.0)), (1.5,)


@program
def vmap_scan_cumsum():
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)

    return jax.vmap(f), (f32(3, 4),)


@program
def vmap_switch():
    branches = [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: -x]
    return jax.vmap(lambda i, x: lax.switch(i, branches, x)), (i32(4, hi=3), f32(4))


@program
def grad_jit_cond():
    f = jax.jit(lambda x: lax.cond(x > 0, lambda x: x * x, lambda x: -x, x))
    return jax.grad(f), (1.0,)


@program
def jit_grad_cond():
    return jax.jit(jax.grad(lambda x: lax.cond(x > 0, lambda x: x * x, lambda x: -x, x))), (1.0,)


@program
def grad_switch():
    branches = [jnp.sin, jnp.cos, lambda x: x * x]
    return jax.grad(lambda x, i: lax.switch(i, branches, x)), (0.5, 1)


@program
def grad_while_fori_unrolled():
    return jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, v: v * v, x)), (1.1,)


@program
def vmap_grad_scan():
    def f(xs):
        c, _ = lax.scan(lambda c, x: (jnp.sin(c) * x, None), 1.0, xs)
        return c

    return jax.vmap(jax.grad(f)), (f32(2, 3),)


@program
def scan_with_consts():
    def f(w, xs):
        return lax.scan(lambda c, x: (c + w * x, c), 0.0, xs)

    return f, (2.0, f32(4))


@program
def grad_scan_consts():
    def f(w, xs):
        c, _ = lax.scan(lambda c, x: (c + jnp.sin(w * x), None), 0.0, xs)
        return c

    return jax.grad(f), (2.0, f32(4))


@program
def scan_pytree_carry():
    def f(xs):
        def step(c, x):
            a, b = c
            return (a + x, b * x), a

        return lax.scan(step, (0.0, 1.0), xs)

    return f, (f32(4),)


@program
def vmap_map():
    return jax.vmap(lambda xs: lax.map(jnp.sin, xs)), (f32(2, 3),)


@program
def cond_pytree():
    def f(x, y):
        return lax.cond(x > 0, lambda a: (a[0] + a[1], a[1]), lambda a: (a[0] - a[1], -a[1]), (x, y))

    return f, (1.0, 2.0)


@program
def vmap_grad_switch():
    branches = [jnp.sin, jnp.cos, lambda x: x * x]
    return jax.vmap(jax.grad(lambda x, i: lax.switch(i, branches, x))), (f32(3), i32(3, hi=3))


@program
def fori_loop_traced_bounds():
    return lambda n, x: lax.fori_loop(0, n, lambda i, v: v + i, x), (3, 1.0)


@program
def jit_fori_loop():
    return jax.jit(lambda x: lax.fori_loop(0, 4, lambda i, v: v * 0.5 + i, x)), (f32(3),)


@program
def jvp_while_loop():
    f = lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)
    return lambda x, t: jax.jvp(f, (x,), (t,)), (1.0, 1.0)


@program
def jacfwd_while_loop():
    return jax.jacfwd(lambda x: lax.while_loop(lambda v: v[0] < 10.0, lambda v: v * 2.0, x)), (f32(2),)


@program
def grad_scan_two_carries():
    def f(x):
        (a, b), _ = lax.scan(lambda c, _: ((c[0] * c[1], c[0] + c[1]), None), (x, 1.0), None, length=3)
        return a + b

    return jax.grad(f), (0.7,)


@program
def vmap_scan_batched_consts():
    def f(w, xs):
        return lax.scan(lambda c, x: (jnp.tanh(w * c + x), c), 0.0, xs)

    return jax.vmap(f, in_axes=(0, None)), (f32(3), f32(4))


@program
def scan_reverse():
    return lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs, reverse=True), (f32(4),)


@program
def scan_no_xs():
    return lambda c0: lax.scan(lambda c, _: (c * 2.0, c), c0, None, length=3), (1.0,)


@program
def grad_cond_closure():
    def f(x):
        return lax.cond(x > 1.0, lambda: jnp.sin(x), lambda: x * x)

    return jax.grad(f), (0.5,)


@program
def jit_switch_clamped():
    branches = [lambda x: x + 1.0, lambda x: x - 1.0]
    return jax.jit(lambda i, x: lax.switch(i, branches, x)), (5, 1.0)


@program
def grad_fori_loop_tuple():
    def f(x):
        a, b = lax.fori_loop(0, 3, lambda i, c: (c[0] * c[1], c[1] + 1.0), (x, x))
        return a + b

    return jax.grad(f), (0.9,)


@program
def vmap_cond_partially_batched():
    def f(p, x, y):
        return lax.cond(p > 0, lambda a, b: a * b, lambda a, b: a + b, x, y)

    return jax.vmap(f, in_axes=(None, 0, None)), (1.0, f32(3), 2.0)


@program
def vmap_while_unbatched_predicate():
    def f(n, x):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]

    return jax.vmap(f, in_axes=(None, 0)), (3, f32(4))


@program
def grad_jit_scan():
    def f(xs):
        c, _ = lax.scan(lambda c, x: (jnp.sin(c) * x, None), 1.0, xs)
        return c

    return jax.grad(jax.jit(f)), (f32(4),)


@program
def jit_grad_scan():
    def f(xs):
        c, _ = lax.scan(lambda c, x: (jnp.sin(c) * x, None), 1.0, xs)
        return c

    return jax.jit(jax.grad(f)), (f32(4),)


@program
def grad_jit_fori_loop():
    return jax.grad(jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, v: v * x + 1.0, x))), (0.5,)


@program
def grad_jit_index_array():
    return jax.grad(jax.jit(lambda x, i: jnp.sum(x[i] ** 2))), (f32(5), i32(3))


@program
def vmap_jit_cond():
    f = jax.jit(lambda x: lax.cond(x > 0, lambda x: x * 2.0, lambda x: x - 1.0, x))
    return jax.vmap(f), (f32(4),)


@program
def scan_unroll():
    return lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs, unroll=2), (f32(4),)


@program
def cond_int_predicate():
    return lambda i, x: lax.cond(i, lambda x: x + 1.0, lambda x: x * 3.0, x), (1, 2.0)


@program
def jit_grad_switch():
    branches = [jnp.sin, jnp.cos]
    return jax.jit(jax.grad(lambda x, i: lax.switch(i, branches, x))), (0.3, 1)


@program
def take_along_axis_axis0():
    return lambda x, i: jnp.take_along_axis(x, i, axis=0), (f32(4, 3), i32(2, 3))


@program
def vmap_fori_loop_batched_bound():
    return jax.vmap(lambda n, x: lax.fori_loop(0, n, lambda i, v: v * 2.0, x)), (i32(3, hi=4), f32(3))


@program
def python_loop_unrolled():
    def f(x):
        for _ in range(3):
            x = jnp.sin(x) + x
        return x

    return f, (f32(3),)


@program
def map_over_rows():
    return lambda xs: lax.map(jnp.sum, xs), (f32(4, 3),)


# --- pytrees -------------------------------------------------------------------------------------------------


@program
def dict_input():
    return lambda d: d["x"] * d["y"], ({"x": f32(3), "y": f32(3, seed=1)},)


@program
def dict_output():
    return lambda x: {"sin": jnp.sin(x), "cos": jnp.cos(x)}, (f32(3),)


@program
def tuple_output():
    return lambda x: (x, x + 1.0, x * 2.0), (f32(3),)


@program
def list_input():
    return lambda xs: xs[0] + xs[1], ([f32(3), f32(3, seed=1)],)


@program
def grad_dict_params():
    def loss(p, x):
        return jnp.sum(jnp.tanh(x @ p["w"] + p["b"]))

    return jax.grad(loss), ({"w": f32(3, 2), "b": f32(2)}, f32(4, 3))


@program
def tree_map_scale():
    return lambda t: jax.tree_util.tree_map(lambda a: a * 2.0, t), ((f32(2), {"k": f32(3)}),)


@program
def sgd_update():
    def update(params, grads):
        return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

    params = {"w": f32(3, 2), "b": f32(2)}
    return update, (params, params)


@program
def output_passthrough():
    return lambda x, y: (y, x), (f32(2), f32(3))


@program
def unused_input():
    return lambda x, y: x * 2.0, (f32(2), f32(3))


@program
def constant_output():
    return lambda x: (x, 3.0), (f32(2),)


@program
def closed_over_array():
    c = f32(3, seed=5)
    return lambda x: x * c, (f32(3),)


# --- random ----------------------------------------------------------------------------------------------------


@program
def random_key():
    return lambda s: random.key(s), (0,)


@program
def random_PRNGKey():
    return lambda s: random.PRNGKey(s), (0,)


@program
def random_split():
    return lambda k: random.split(k), (np.array([0, 42], np.uint32),)


@program
def random_normal():
    return lambda k: random.normal(k, (3,)), (np.array([0, 42], np.uint32),)


@program
def random_uniform():
    return lambda k: random.uniform(k, (2, 2)), (np.array([0, 42], np.uint32),)


@program
def random_bernoulli():
    return lambda k: random.bernoulli(k, 0.5, (3,)), (np.array([0, 42], np.uint32),)


@program
def random_randint():
    return lambda k: random.randint(k, (3,), 0, 10), (np.array([0, 42], np.uint32),)


@program
def random_dropout():
    def dropout(k, x):
        keep = random.bernoulli(k, 0.9, x.shape)
        return jnp.where(keep, x / 0.9, 0.0)

    return dropout, (np.array([0, 42], np.uint32), f32(4))


# --- pmap --------------------------------------------------------------------------------------------------------


@program
def pmap_sin():
    return jax.pmap(jnp.sin), (f32(4),)


@program
def pmap_psum():
    return jax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i"), (f32(4),)


@program
def pmap_pmean():
    return jax.pmap(lambda x: lax.pmean(x, "i"), axis_name="i"), (f32(4, 3),)


@program
def pmap_in_axes_none():
    return jax.pmap(lambda x, y: x * y, in_axes=(0, None)), (f32(4, 3), f32(3))


@program
def pmap_grad():
    return jax.pmap(jax.grad(lambda x: jnp.sum(x**2))), (f32(4, 3),)


@program
def pmap_grad_broadcast_bias():
    # (inside the body the context mesh is the Manual one: transposes of the bias's broadcasts
    # print it as their reduce_sum's and reshape's sharding)
    def loss(w, b, x):
        return jnp.sum(jnp.tanh(x @ w + b) ** 2)

    grads = jax.pmap(jax.grad(loss, argnums=(0, 1)), in_axes=(None, None, 0))
    return grads, (f32(3, 4), f32(4), f32(4, 2, 3))


# --- shard_map on a 2-D mesh (Auto axes, check_vma=False: no sharding or varying axes in the types) -------------
# (grad's cotangent seed: a shard_map's results are typed on its mesh, so JAX reshards the 1.0 to it)


def _mesh_2d():
    return jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))


def _shard_map_2d(f, in_specs, out_specs):
    return jax.shard_map(f, mesh=_mesh_2d(), in_specs=in_specs, out_specs=out_specs, check_vma=False)


def _spec(*entries):
    return jax.sharding.PartitionSpec(*entries)


@program
def shard_map_2d_psum():
    return _shard_map_2d(lambda b: lax.psum(b, "j"), _spec("i", "j"), _spec("i", None)), (f32(8, 4),)


@program
def shard_map_2d_grad_in_body():
    def body(b):
        return jax.grad(lambda v: jnp.sum(jnp.sin(v[None] * 2.0 + jnp.ones((2, 1)))))(b)

    return _shard_map_2d(body, _spec("i"), _spec("i")), (f32(12),)


@program
def shard_map_2d_tuple_axes():
    def body(b):
        return lax.all_gather(b, ("i", "j"), tiled=True) * lax.axis_index(("i", "j"))

    return _shard_map_2d(body, _spec(("i", "j")), _spec(("i", "j"))), (f32(16),)


@program
def shard_map_collectives():
    def body(b):
        a = lax.all_gather(b, "i", tiled=True)
        c = lax.psum_scatter(a, "i", tiled=True)
        d = lax.ppermute(c, "i", [(0, 1), (1, 2), (2, 3), (3, 0)])
        return lax.pmax(d, ("i", "j")) + lax.axis_index("i")

    return _shard_map_2d(body, _spec(("i", "j")), _spec(("i", "j"))), (f32(32),)


def _checked(f, in_specs, out_specs, mesh=None):
    mesh = mesh if mesh is not None else _mesh_2d()
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


@program
def shard_map_checked_pvary():
    def body(x, y, w):
        b = x * 2.0 + jnp.ones(3)
        d = jnp.dot(jnp.sin(y) * b, w)
        g = lax.all_gather(y, "i", tiled=True)
        return d + lax.psum(y, "j").sum() + g.sum(), lax.psum(x, "i")

    f = _checked(body, (_spec("i"), _spec(), _spec()), (_spec("i"), _spec()))
    return f, (f32(12), f32(3), f32(3, 3))


@program
def shard_map_checked_psum_tuple_and_out_pvary():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))
    f = _checked(
        lambda x, y: (lax.psum((x, y), "i"), y * 2), (_spec("i"), _spec()), (_spec(), _spec("i")), mesh
    )
    return f, (f32(8), f32(3))


@program
def shard_map_checked_where_and_collectives():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))

    def body(x, y):
        z = jnp.where(x > 0, x, y)
        return lax.pmax(z, "i") + lax.axis_index("i") + lax.ppermute(z, "i", [(0, 1), (1, 0), (2, 3), (3, 2)])

    return _checked(body, (_spec("i"), _spec()), _spec("i"), mesh), (f32(8), f32(2))


@program
def shard_map_checked_grad():  # (the bodies grad makes are typed with their varying axes too)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))
    f = _checked(lambda v: jnp.sin(v) * 2, _spec("i"), _spec("i"), mesh)
    return jax.grad(lambda v: f(v).sum()), (f32(8),)


@program
def shard_map_checked_jit_of_grad():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ("i",))
    f = _checked(lambda v, w: v * lax.pmax(w, "i"), (_spec("i"), _spec("i")), _spec("i"), mesh)
    return jax.jit(jax.grad(lambda v, w: f(v, w).sum())), (f32(8), f32(8))


@program
def shard_map_2d_vmap():
    f = _shard_map_2d(lambda b: jnp.sin(b) * lax.psum(b, "j"), _spec("i", "j"), _spec("i", "j"))
    return jax.vmap(f), (f32(3, 8, 4),)


@program
def shard_map_2d_jvp():
    f = _shard_map_2d(lambda b: jnp.sin(b) * lax.psum(b, "j"), _spec("i", "j"), _spec("i", "j"))
    return (lambda x, t: jax.jvp(f, (x,), (t,))), (f32(8, 4), f32(8, 4))


@program
def shard_map_2d_grad():
    f = _shard_map_2d(lambda b: jnp.sin(b) * lax.psum(b, "j"), _spec("i", "j"), _spec("i", "j"))
    return jax.grad(lambda x: f(x).sum()), (f32(8, 4),)


@program
def shard_map_2d_value_and_grad():
    f = _shard_map_2d(jnp.sin, _spec("i"), _spec("i"))
    return jax.value_and_grad(lambda x: jnp.sum(f(x) * x)), (f32(8, 4),)


@program
def shard_map_2d_jit_of_grad():
    f = _shard_map_2d(lambda b: jnp.sin(b) * lax.psum(b, "j"), _spec("i", "j"), _spec("i", "j"))
    return jax.jit(jax.grad(lambda x: f(x).sum())), (f32(8, 4),)


@program
def pmap_then_grad():  # (a pmap's results are typed on its mesh too: the seed is resharded)
    f = jax.pmap(lambda x: lax.psum(jnp.sin(x), "i"), axis_name="i")
    return jax.grad(lambda x: f(x).sum()), (f32(8),)


@program
def pmap_then_jit_of_grad():
    f = jax.pmap(lambda x: jnp.sin(x) * 2, axis_name="i")
    return jax.jit(jax.grad(lambda x: (f(x) ** 2).sum())), (f32(4, 3),)


@program
def pmap_then_vmap_of_grad():
    f = jax.pmap(jnp.sin)
    return jax.vmap(jax.grad(lambda x: f(x).sum())), (f32(2, 4, 3),)


@program
def jit_pmap():  # pmap under jit is staged as JAX stages it too
    return jax.jit(jax.pmap(jnp.sin)), (f32(4, 2),)


@program
def jit_pmap_psum_in_axes_none():
    f = jax.pmap(lambda a, b: lax.psum(a * b, "i"), axis_name="i", in_axes=(0, None))
    return jax.jit(lambda x, y: f(x, y) * 2.0), (f32(4, 2), f32(2))


@program
def pmap_jvp():
    return (lambda x, t: jax.jvp(jax.pmap(jnp.sin), (x,), (t,))), (f32(4, 3), f32(4, 3))


@program
def pmap_vmap():
    return jax.vmap(jax.pmap(lambda v: v * 2.0)), (f32(2, 4, 3),)


# --- jit with in_shardings/out_shardings under transformations ---------------------------------------------------
# (its jit equation keeps the shardings; its jvp, linearized halves, transpose and batched forms
# carry them for the arguments and results they stand for, residuals unspecified)


def _sharded(*entries, mesh=None):
    mesh = mesh if mesh is not None else jax.sharding.Mesh(np.array(jax.devices()[:8]), ("d",))
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*entries))


@program
def sharded_jit_grad():
    h = jax.jit(jnp.sin, out_shardings=_sharded("d"))
    return jax.grad(lambda x: h(x).sum()), (f32(8),)


@program
def sharded_jit_grad_explicit_mesh():  # (make_mesh's axes are Explicit: the types stay unsharded)
    h = jax.jit(jnp.sin, out_shardings=_sharded("d", mesh=jax.make_mesh((8,), ("d",))))
    return jax.grad(lambda x: h(x).sum()), (f32(8),)


@program
def sharded_jit_grad_in_and_out():
    h = jax.jit(lambda x, y: jnp.sin(x) * y, in_shardings=(_sharded("d"), None), out_shardings=_sharded("d"))
    return jax.grad(lambda x, y: h(x, y).sum(), argnums=(0, 1)), (f32(8), f32(8, seed=1))


@program
def sharded_jit_grad_forwarded_output():  # (a result laid out by out_shardings is not forwarded)
    h = jax.jit(lambda x, y: (x, x * y), out_shardings=(_sharded("d"), _sharded("d")))

    def f(x, y):
        a, b = h(x, y)
        return (a * b).sum()

    return jax.grad(f, argnums=(0, 1)), (f32(8), f32(8, seed=1))


@program
def sharded_jit_vmap():  # (the batch axis is inserted unsplit)
    h = jax.jit(lambda x: jnp.sin(x) * 2, in_shardings=_sharded("d"), out_shardings=_sharded(None, "d"))
    return jax.vmap(h, in_axes=1, out_axes=0), (f32(8, 3, 8),)


@program
def sharded_jit_vmap_of_grad():
    h = jax.jit(lambda x: jnp.sin(x) * 2, out_shardings=_sharded("d"))
    return jax.vmap(jax.grad(lambda x: h(x).sum())), (f32(3, 8),)


@program
def sharded_jit_grad_of_vmap():
    h = jax.jit(lambda x: jnp.sin(x) * 2, in_shardings=_sharded("d"), out_shardings=_sharded("d"))
    return jax.grad(lambda x: jax.vmap(h)(x).sum()), (f32(3, 8),)


@program
def sharded_jit_inside_jit_grad():
    h = jax.jit(jnp.tanh, out_shardings=_sharded("d"))
    return jax.jit(jax.grad(lambda x: (h(x) ** 2).sum())), (f32(8),)


@program
def sharded_jit_hessian():
    h = jax.jit(jnp.sin, out_shardings=_sharded("d"))
    return jax.hessian(lambda x: h(x).sum()), (f32(8),)


@program
def sharded_jit_grad_of_checkpoint():
    h = jax.jit(jnp.sin, out_shardings=_sharded("d"))
    return jax.grad(jax.checkpoint(lambda x: h(jnp.cos(x)).sum())), (f32(8),)


@program
def sharded_jit_grad_in_scan():
    h = jax.jit(jnp.sin, out_shardings=_sharded("d"))

    def f(x):
        c, _ = lax.scan(lambda c, _: (h(c), None), x, None, length=2)
        return c.sum()

    return jax.grad(f), (f32(8),)


@program
def sharded_jit_grad_2d_mesh():
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))
    h = jax.jit(
        lambda x: x @ x.T,
        in_shardings=_sharded("i", "j", mesh=mesh),
        out_shardings=_sharded(None, "i", mesh=mesh),
    )
    return jax.grad(lambda x: h(x).sum()), (f32(8, 4),)


@program
def sharded_jit_linearize():
    h = jax.jit(jnp.sin, out_shardings=_sharded("d"))
    return (lambda x, t: jax.linearize(h, x)[1](t)), (f32(8), f32(8, seed=1))


# --- checkpoint / remat ------------------------------------------------------------------------------------------


def _remat_layer(W, x):
    return jnp.sin(jnp.dot(W, x))


def _remat_named(W, x):
    # (jax.ad_checkpoint is a submodule: imported, not an attribute of ``import jax``)
    checkpoint_name = importlib.import_module(jax.__name__ + ".ad_checkpoint").checkpoint_name
    y = checkpoint_name(jnp.dot(W, x), "y")
    return jnp.sin(y) * x


@program
def remat_plain():
    return jax.checkpoint(_remat_layer), (f32(3, 3), f32(3))


@program
def remat_grad():
    return jax.grad(lambda W, x: jax.checkpoint(_remat_layer)(W, x).sum()), (f32(3, 3), f32(3))


@program
def remat_grad_dots_saveable():
    policy = jax.checkpoint_policies.dots_saveable
    return jax.grad(lambda W, x: jax.checkpoint(_remat_layer, policy=policy)(W, x).sum()), (f32(3, 3), f32(3))


@program
def remat_grad_save_only_these_names():
    policy = jax.checkpoint_policies.save_only_these_names("y")
    f = jax.checkpoint(_remat_named, policy=policy)
    return jax.grad(lambda W, x: f(W, x).sum(), argnums=(0, 1)), (f32(3, 3), f32(3))


@program
def remat_grad_nested():
    f = lambda x: jnp.sin(jax.remat(lambda y: jnp.cos(jax.remat(jnp.sin)(y)))(x))
    return jax.grad(f), (np.float32(0.5),)


@program
def remat_jvp():
    f = jax.checkpoint(_remat_layer)
    return lambda W, x: jax.jvp(f, (W, x), (W, x)), (f32(3, 3), f32(3))


@program
def remat_vmap():
    return jax.vmap(jax.checkpoint(_remat_layer), (None, 0)), (f32(3, 3), f32(2, 3))


@program
def remat_grad_of_jit():
    f = jax.jit(jax.checkpoint(_remat_named))
    return jax.grad(lambda W, x: f(W, x).sum()), (f32(3, 3), f32(3))


@program
def remat_static_argnums():
    f = jax.checkpoint(lambda x, n: jnp.sin(x) ** n, static_argnums=(1,))
    return jax.grad(lambda x: f(x, 3)), (np.float32(0.5),)


@program
def remat_grad_checkpoint_dots_no_batch():
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable

    def f(W, x):
        return jnp.sum(jnp.tanh(W @ jnp.tanh(W @ x)))

    return jax.grad(jax.checkpoint(f, policy=policy)), (f32(3, 3), f32(3))


@program
def hessian_cond():
    def f(x):
        return lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x**3, x)

    return jax.hessian(f), (np.float32(-1.0),)


@program
def vmap_cond_unbatched_output():
    def f(x, y):
        return lax.cond(y > 0, lambda x: (x * 2, y), lambda x: (x, y + 1), x)

    return jax.vmap(f, in_axes=(0, None)), (f32(3), 1.0)


# --- a scan's zero carry tangent is made on the unknown side (JAX's scan linearization) ---------


@program
def grad_polyval():
    return jax.grad(lambda p, x: jnp.sum(jnp.polyval(p, x)), argnums=(0, 1)), (f32(3), f32(2))


@program
def grad_scan_zeros_init():
    def f(p, x):
        c, _ = lax.scan(lambda c, pi: (c * x + pi, c), jnp.zeros_like(x), p)
        return jnp.sum(c)

    return jax.grad(f), (f32(3), f32(2))


@program
def grad_scan_scalar_zero_init():
    def f(p):
        c, _ = lax.scan(lambda c, pi: (c * pi + pi, c), jnp.zeros(()), p)
        return c

    return jax.grad(f), (f32(3),)


@program
def grad_jit_scan_zeros_init():
    @jax.jit
    def f(p, x):
        c, ys = lax.scan(lambda c, pi: (jnp.sin(c) * x + pi, c), jnp.zeros_like(x), p)
        return jnp.sum(c) + jnp.sum(ys)

    return jax.grad(f, argnums=(0, 1)), (f32(3), f32(2))


@program
def jvp_polyval():
    return lambda p, x: jax.jvp(jnp.polyval, (p, x), (p, x)), (f32(3), f32(2))


# --- a numpy index's negative-index mask is computed with numpy at trace time, as JAX does ----


@program
def at_numpy_index_set():
    idx = np.array([0, -1, 2])
    return lambda x: x.at[idx].set(1.0), (f32(5),)


@program
def getitem_numpy_index():
    idx = np.array([[1, -2], [0, 3]], np.int32)
    return lambda x: x[idx], (f32(5, 2),)


@program
def at_numpy_index_add_2d():
    idx = np.array([1, -3])
    return lambda x: x.at[idx, 1].add(2.0), (f32(4, 3),)


# --- scatter combiners (update_jaxpr) shared as JAX shares them: one jaxpr per operation and dtype,
# another for those a backward pass makes ---------------------------------------------------------

_DUP = np.array([0, 2, 2], np.int32)


@program
def scatter_add_twice_shares_its_combiner():
    return (lambda x, v: x.at[_DUP].add(v).at[1].add(2.0)), (f32(5), f32(3))


@program
def jvp_scatter_add():
    f = lambda x, v: x.at[_DUP].add(v)  # noqa: E731
    return (lambda x, v: jax.jvp(f, (x, v), (x, v))), (f32(5), f32(3))


@program
def grad_scatter_min_duplicates():
    return jax.grad(lambda x, v: jnp.sum(x.at[_DUP].min(v))), (f32(5), f32(3))


@program
def grad_scatter_max_updates():
    return jax.grad(lambda x, v: jnp.sum(x.at[_DUP].max(v)), argnums=1), (f32(5), f32(3))


@program
def grad_scatter_mul_operand():
    return jax.grad(lambda x, v: jnp.sum(x.at[_DUP].multiply(v) ** 2)), (f32(5), f32(3))


@program
def vmap_grad_scatter_min():
    return jax.vmap(jax.grad(lambda x, v: jnp.sum(x.at[_DUP].min(v)))), (f32(2, 5), f32(2, 3))


@program
def grad_scatter_add_operand_only():
    return jax.grad(lambda x, v: jnp.sum(x.at[_DUP].add(v))), (f32(5), f32(3))


@program
def grad_scatter_set_duplicates():  # the JVP scatters update ids (uint32) to find each winner
    return jax.grad(lambda x, v: jnp.sum(x.at[_DUP].set(v) ** 2), argnums=(0, 1)), (f32(5), f32(3))


@program
def jvp_scatter_set_duplicates_window():
    f = lambda x, v: x.at[jnp.array([0, 0])].set(v)  # noqa: E731
    return (lambda x, v: jax.jvp(f, (x, v), (x, v))), (f32(3, 4), f32(2, 4))


# --- .at[].apply: a scatter whose combiner is the function (JAX's scatter_apply) ----------------


@program
def at_apply():
    return lambda x, i: x.at[i].apply(jnp.sin), (f32(5), i32(3))


@program
def at_apply_scalar_index():
    return lambda x: x.at[2].apply(lambda t: t * 2.0), (f32(5),)


@program
def at_apply_twice_same_function():
    return lambda x: x.at[0].apply(jnp.exp).at[1:3].apply(jnp.exp), (f32(5),)


@program
def vmap_at_apply():
    return jax.vmap(lambda x: x.at[1].apply(jnp.cos)), (f32(2, 3),)


# --- einsum contracts in the order opt_einsum's path optimizer picks, as JAX's does ----------


@program
def einsum_chain3():
    return lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c), (f32(2, 3), f32(3, 4), f32(4, 5))


@program
def einsum_chain4_vector():
    return lambda a, b, c, d: jnp.einsum("ij,jk,kl,l->i", a, b, c, d), (
        f32(2, 3),
        f32(3, 4),
        f32(4, 5),
        f32(5),
    )


@program
def einsum_chain3_unoptimized():
    return lambda a, b, c: jnp.einsum("ij,jk,kl", a, b, c, optimize=False), (f32(2, 3), f32(3, 4), f32(4, 5))


@program
def einsum_chain3_greedy():
    return lambda a, b, c: jnp.einsum("ij,jk,kl", a, b, c, optimize="greedy"), (
        f32(2, 3),
        f32(3, 4),
        f32(4, 5),
    )


@program
def einsum_private_labels():
    return lambda a, b: jnp.einsum("ijx,jky->ik", a, b), (f32(2, 3, 2), f32(3, 4, 5))


@program
def einsum_singleton_broadcast():
    return lambda a, b: jnp.einsum("ij,ij->ij", a, b), (f32(1, 3), f32(4, 3))


@program
def einsum_ellipsis3():
    return lambda a, b, c: jnp.einsum("...ij,...jk,...k->...i", a, b, c), (
        f32(2, 3, 4),
        f32(2, 4, 5),
        f32(2, 5),
    )


@program
def einsum_bilinear():
    return lambda x, w, y: jnp.einsum("bi,oij,bj->bo", x, w, y), (f32(4, 3), f32(2, 3, 5), f32(4, 5))


@program
def grad_einsum_chain3():
    return jax.grad(lambda a, b, c: jnp.einsum("ij,jk,kl->", a, b, c), argnums=(0, 1, 2)), (
        f32(2, 3),
        f32(3, 4),
        f32(4, 5),
    )


# --- mutable array refs (jax.new_ref, jax.ref) ---------------------------------------------------


@program
def refs_new_get_swap_freeze():
    def f(x):
        r = jax.new_ref(x)
        r[...] = r[...] + 1.0
        r[1] += 2.0
        y = r[0]
        return jax.freeze(r) * y

    return f, (f32(3),)


@program
def refs_closed_over_slices_and_arrays():
    x_ref = jax.new_ref(jnp.zeros(3))

    def f(x):
        x_ref[...] = x
        x_ref[1:] += x[:2]
        return x_ref[jnp.array([0, 1])]

    return f, (f32(3),)


@program
def refs_argument_set():
    def f(r, x):
        r[...] = x

    return f, (jax.new_ref(jnp.zeros(3)), f32(3))


@program
def refs_jit_argument_set():
    @jax.jit
    def f(r, x):
        r[...] = x

    return f, (jax.new_ref(jnp.zeros(3)), f32(3))


@program
def refs_jit_internal_ref():
    @jax.jit
    def g(x):
        r = jax.new_ref(0.0)
        r[...] = jnp.sin(x)
        return r[...]

    return g, (0.5,)


@program
def refs_jit_closed_over_indexed_add():
    x_ref = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f():
        x_ref[1] += 1.0

    return f, ()


@program
def refs_scan_closed_over():
    r = jax.new_ref(0)

    def body(c, x):
        r[...] += x
        return c, x * 2

    return (lambda xs: lax.scan(body, None, xs)), (i32(5),)


@program
def refs_fori_loop_closed_over():
    r = jax.new_ref(0)

    def body(i, c):
        r[...] = r[...] + i
        return c * 2

    return (lambda: lax.fori_loop(0, 3, body, 0)), ()


@program
def refs_vmap_vmap_argument():
    def dist(x, y, out_ref):
        out_ref[...] = jnp.sum((x - y) ** 2)

    return jax.vmap(jax.vmap(dist, (0, None, 0)), (None, 0, 0)), (
        f32(3, 4),
        f32(3, 4, seed=1),
        jax.new_ref(jnp.zeros((3, 3))),
    )


@program
def refs_api_get_swap_set():
    def f(r, i):
        a = jax.ref.get(r, 1)
        b = jax.ref.swap(r, (slice(0, 2),), jnp.ones(2))
        jax.ref.set(r, i, a)
        return a, b, r[i]

    return f, (jax.new_ref(jnp.zeros(3)), np.int32(2))


@program
def refs_addupdate_and_index_kinds():
    def f(r):
        jax.ref.addupdate(r, (0, slice(None)), jnp.ones(3))
        jax.ref.addupdate(r, ..., jnp.ones((2, 3)))
        return r[:, 1], r[::2, 1:], r[1]

    return f, (jax.new_ref(jnp.zeros((2, 3))),)


@program
def refs_while_loop_closed_over():
    r = jax.new_ref(jnp.zeros(4))

    def body(i):
        r[i] = i * 2.0
        return i + 1

    return (lambda: lax.while_loop(lambda i: i < 4, body, 0)), ()


@program
def refs_cond_closed_over():
    r = jax.new_ref(0.0)

    def f(p, x):
        lax.cond(p, lambda: r.__setitem__(..., x), lambda: r.__setitem__(..., x * 2))
        return r[...]

    return f, (True, np.float32(1.5))


# --- explicit sharding: types name the mesh axes that split each dimension (f32[8@X,4]) ------------------------
# (arguments are numpy arrays: a reshard inside the function puts them on the mesh)


def _explicit_mesh():
    return jax.make_mesh((4, 2), ("X", "Y"))  # Explicit axes: make_mesh's default


def _on(mesh, *entries):
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*entries))


@program
def explicit_sharding_elementwise_transpose_sum():
    m = _explicit_mesh()
    return (lambda a: jnp.sin(jax.reshard(a, _on(m, None, "X"))).T.sum(0)), (f32(8, 4),)


@program
def explicit_sharding_dot_out_sharding():
    m = _explicit_mesh()

    def f(a, b):
        a, b = jax.reshard(a, _on(m, None, "X")), jax.reshard(b, _on(m, "X", None))
        return jnp.dot(a, b, out_sharding=_on(m, "X", None))

    return f, (f32(8, 4), f32(4, 16))


@program
def explicit_sharding_broadcast_add():
    m = _explicit_mesh()
    return (lambda a, b: jax.reshard(a, _on(m, "X", None)) + jax.reshard(b, _on(m, None, "Y"))), (
        f32(4, 1),
        f32(1, 8),
    )


@program
def explicit_sharding_two_axes_reductions():
    m = _explicit_mesh()

    def f(a):
        a = jax.reshard(a, _on(m, "X", "Y"))
        return (a * 2.0).sum(1), jnp.max(a, axis=0), jnp.exp(a).T

    return f, (f32(8, 4),)


@program
def explicit_sharding_matmul_free_dims():
    m = _explicit_mesh()

    def f(a, w):
        a, w = jax.reshard(a, _on(m, "X", None)), jax.reshard(w, _on(m, None, "Y"))
        return jnp.tanh(a @ w)

    return f, (f32(8, 3), f32(3, 4))


@program
def explicit_sharding_nested_calls():
    m = _explicit_mesh()
    return (lambda a: jax.nn.relu(jax.reshard(a, _on(m, "X", None)) * 2.0).sum(1)), (f32(8, 4),)


# --- with_sharding_constraint on Auto mesh axes: JAX's sharding_constraint (and under vmap) -------------------
# (not yet identical, so not here: grad, where JAX reshards the seed cotangent 1.0 before broadcasting it)


def _auto_on(*entries):
    auto = jax.sharding.AxisType.Auto
    return _on(jax.make_mesh((4, 2), ("X", "Y"), (auto, auto)), *entries)


@program
def sharding_constraint_plain():
    return (lambda a: lax.with_sharding_constraint(a * 2.0, _auto_on("X", None))), (f32(8, 4),)


@program
def sharding_constraint_vmap():
    s = _auto_on("X", None)
    return jax.vmap(lambda a: lax.with_sharding_constraint(a * 2.0, s)), (f32(3, 8, 4),)


# --- a concrete array promoted beside a tracer is converted in the trace (JAX folds scalars only)


@program
def concrete_int_array_plus_traced_float():
    c = jnp.array([1, 2])
    return lambda x: c + x, (1.5,)


@program
def numpy_int_array_times_traced_float():
    c = np.arange(3)
    return lambda x: c * x, (f32(3),)


@program
def numpy_scalar_plus_traced_float():
    return lambda x: np.int32(3) + x, (f32(3),)


@program
def cond_branch_concrete_int_array():
    def f(p, x):
        return lax.cond(p >= 0.0, lambda x: x[0], lambda x: jnp.array([1]) + x[1], x)

    return f, (5.0, (np.zeros(1, np.float32), 2.0))


# --- linalg as JAX formulates it: solve is a custom_linear_solve over LU, det closed-form -------


def _well_conditioned(n, seed=0):
    return (np.random.RandomState(seed).standard_normal((n, n)) + 3 * np.eye(n)).astype(np.float32)


@program
def linalg_solve():
    return jnp.linalg.solve, (_well_conditioned(3), f32(3))


@program
def linalg_solve_matrix_rhs():
    return jnp.linalg.solve, (_well_conditioned(3), f32(3, 2))


@program
def grad_linalg_solve():
    return jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b)), argnums=(0, 1)), (
        _well_conditioned(3),
        f32(3),
    )


@program
def grad_linalg_inv():
    return jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a))), (_well_conditioned(3),)


@program
def grad_linalg_det_3x3():
    return jax.grad(jnp.linalg.det), (_well_conditioned(3),)


@program
def linalg_det_2x2():
    return jnp.linalg.det, (_well_conditioned(2),)


@program
def linalg_det_4x4():  # sign * exp(logabsdet) under a custom_jvp, slogdet's LU under another
    return jnp.linalg.det, (_well_conditioned(4),)


@program
def linalg_det_batched_5x5():
    return jnp.linalg.det, (np.stack([_well_conditioned(5), _well_conditioned(5, seed=1)]),)


@program
def linalg_slogdet_4x4():
    return jnp.linalg.slogdet, (_well_conditioned(4),)


@program
def linalg_slogdet_2x2():  # closed form
    return jnp.linalg.slogdet, (_well_conditioned(2),)


@program
def diagonal_square():  # a platform_dependent: the masked sum for TPU kernels, else a gather
    return jnp.diagonal, (f32(3, 3),)


@program
def diagonal_offset_and_batched():
    return (lambda a, b: (jnp.diagonal(a, 1), jnp.diagonal(a, -1), jnp.diagonal(b, 0, 1, 2))), (
        f32(3, 4),
        f32(2, 3, 3),
    )


@program
def arange_start_and_step():
    return (lambda x: x + jnp.arange(1, 4) + jnp.arange(0, 6, 2)), (i32(3),)


@program
def count_nonzero_and_isinf():
    return (lambda x: (jnp.count_nonzero(x > 0, axis=1), jnp.isinf(x))), (f32(3, 4),)


@program
def vmap_linalg_solve():
    return jax.vmap(jnp.linalg.solve, (None, 0)), (_well_conditioned(3), f32(4, 3))


def _solve_with_aux(a, b):
    def solve(matvec, b):
        return jnp.linalg.solve(a, b), jnp.sum(b)

    def transpose_solve(vecmat, b):
        return jnp.linalg.solve(a.T, b), jnp.sum(b) * 2

    return lax.custom_linear_solve(lambda x: a @ x, b, solve, transpose_solve, has_aux=True)


@program
def custom_linear_solve_has_aux():
    return _solve_with_aux, (_well_conditioned(3), f32(3))


@program
def grad_custom_linear_solve_has_aux():
    return jax.grad(lambda a, b: jnp.sum(_solve_with_aux(a, b)[0] ** 2), argnums=1), (
        _well_conditioned(3),
        f32(3),
    )


def _symmetric_solve_with_aux(b):  # no transpose_solve: a symmetric operator's is its solve
    def solve(matvec, b):
        return b / 2.0, (b[0], b * 3)

    return lax.custom_linear_solve(lambda x: 2.0 * x, b, solve, symmetric=True, has_aux=True)


@program
def custom_linear_solve_symmetric_has_aux():
    return _symmetric_solve_with_aux, (f32(3),)


@program
def grad_custom_linear_solve_symmetric_has_aux():
    def f(b):
        x, (first, _) = _symmetric_solve_with_aux(b)
        return jnp.sum(x) + first

    return jax.grad(f), (f32(3),)


@program
def custom_linear_solve_diagonal():
    def f(d, b):
        return lax.custom_linear_solve(lambda x: d * x, b, lambda mv, x: x / d, lambda vm, x: x / d)

    return f, (f32(3), f32(3))


@program
def grad_custom_linear_solve():
    def f(a, d, b):
        x = lax.custom_linear_solve(lambda x: a @ x, b, lambda mv, x: x / d, lambda vm, x: x / d)
        return jnp.sum(x**2)

    return jax.grad(f, argnums=(0, 2)), (_well_conditioned(3), f32(3), f32(3))


@program
def grad_jit_linalg_solve():
    f = jax.jit(lambda a, b: jnp.sum(jnp.linalg.solve(a, b)))
    return jax.grad(f, argnums=(0, 1)), (_well_conditioned(3), f32(3))


@program
def vmap_grad_linalg_solve():
    a = _well_conditioned(3)
    return jax.vmap(jax.grad(lambda a, b: jnp.sum(jnp.linalg.solve(a, b)))), (np.stack([a, 2 * a]), f32(2, 3))


@program
def vmap_sort_unbatched_values():
    return jax.vmap(lambda k, v: lax.sort_key_val(k, v), (0, None)), (f32(2, 4), f32(4))


# --- reductions of weakly-typed operands (built from Python scalars): JAX's result is strong ---------


def _weak_reduction_program(name):
    def build():
        def f(x):
            y = jnp.broadcast_to(x, (3,))
            return getattr(jnp, name)(y)

        return f, (1.0,)

    build.__name__ = f"weak_{name}"
    return build


for _name in ("sum", "prod", "max", "min", "mean", "any", "all", "cumsum"):
    program(_weak_reduction_program(_name))


# --- NaN-ignoring reductions (sweep): each a jit named after it, NaNs replaced through a nested _where --


def _nan_reduction_program(name, kwargs, arg=None):
    def build():
        x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32) if arg is None else arg
        return (lambda x: getattr(jnp, name)(x, **kwargs)), (x,)

    build.__name__ = f"nan_{name}_" + "_".join(f"{k}{v}" for k, v in kwargs.items())
    return build


for _name, _kwargs in (
    ("nansum", {}),
    ("nanprod", {"axis": 0}),
    ("nanmax", {"axis": 1}),
    ("nanmin", {"axis": 1, "keepdims": True}),
    ("nanmean", {}),
    ("nancumsum", {}),
    ("nancumprod", {"axis": 1}),
    ("nanargmax", {}),
    ("nanargmin", {"axis": 1}),
):
    program(_nan_reduction_program(_name, _kwargs))
program(_nan_reduction_program("nansum", {"axis": 0}, np.arange(6, dtype=np.int32).reshape(2, 3)))
program(_nan_reduction_program("nancumsum", {"axis": None}, np.arange(6, dtype=np.int32).reshape(2, 3)))
program(_nan_reduction_program("nanvar", {"axis": 1, "ddof": 1}))
program(_nan_reduction_program("nanstd", {}))


@program
def grad_nanstd():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, np.nan]], np.float32)
    return jax.grad(lambda x: jnp.nanstd(x)), (x,)


@program
def rint_int():
    return jnp.rint, (np.arange(4, dtype=np.int32),)


@program
def rint_bool():
    return jnp.rint, (np.array([True, False]),)


@program
def square_bool():
    return jnp.square, (np.array([True, False]),)


@program
def ptp_axis0():
    return (lambda x: jnp.ptp(x, axis=0)), (f32(2, 3),)


@program
def logical_and_floats():
    return jnp.logical_and, (f32(2, 3), f32(2, 3, seed=1))


@program
def deg2rad_int():
    return jnp.deg2rad, (np.arange(4, dtype=np.int32),)
