"""Every numerical primitive's rules, checked: impl against abstract eval and staging (jit and
make_jaxpr), jvp against float64 finite differences and vjp against jvp (orders 1 and 2 where
smooth), and batching against a Python loop over several in_axes.

CASES is keyed by primitive name; test_every_primitive_is_covered iterates the primitives every
engine module defines (all imported first, and only the engine's: not those test modules define,
whichever were collected before) so that a primitive added without cases here (or a named test file
elsewhere) fails.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
import zlib
from typing import Callable, NamedTuple

import numpy as np
import pytest

import engine
import engine.numpy  # noqa: F401  (registers every primitive the engine has)
import engine.random  # noqa: F401
from engine import ad, core, lax
from engine.ir import subjaxprs, typecheck_jaxpr
from engine.lax import elementwise as ew, structural as st
from engine.test_util import check_batching, check_grads
from conftest import WITHOUT_NUMBA

for _mod in ("engine.custom_derivatives", "engine.debug", "engine.lax.control_flow", "engine.lax.parallel"):
    try:
        __import__(_mod)
    except ImportError:
        pass

f32, i32, u8, u32 = np.float32, np.int32, np.uint8, np.uint32
B = 3  # batch size for batching checks


class Case(NamedTuple):
    prim: str
    fn: Callable
    make: Callable  # rng -> tuple of args
    order: int = 2  # highest derivative order checked; 0: not differentiable here
    batch: bool = True
    eps: float = 1e-4
    tol: float = 2e-3
    label: str = ""


CASES: list[Case] = []


def case(prim, fn, make, **kw):
    CASES.append(Case(prim, fn, make, **kw))


# --- argument makers -------------------------------------------------------------------------


def normal(*shape, dtype=f32):
    return lambda r: (r.standard_normal(shape).astype(dtype),)


def uniform(lo, hi, *shape):
    return lambda r: (r.uniform(lo, hi, shape).astype(f32),)


def away_from_zero(*shape):
    return lambda r: ((r.uniform(0.3, 2, shape) * r.choice([-1, 1], shape)).astype(f32),)


def join(*makers):
    def make(r):
        return tuple(a for m in makers for a in m(r))

    return make


def ints(lo, hi, *shape, dtype=i32):
    return lambda r: (r.integers(lo, hi, shape).astype(dtype),)


def bools(*shape):
    return lambda r: (r.random(shape) < 0.5,)


def const(*vals):
    return lambda r: tuple(vals)


def fractional(*shape):
    # k + u with u in (0.2, 0.4): away from the jumps of floor/ceil/round.
    return lambda r: ((r.integers(-3, 3, shape) + r.uniform(0.2, 0.4, shape)).astype(f32),)


# --- elementwise -------------------------------------------------------------------------------

SHAPES = [(), (2, 3)]
for shape in SHAPES:
    s = shape
    for name, make in [
        ("neg", normal(*s)),
        ("exp", normal(*s)),
        ("exp2", normal(*s)),
        ("log", uniform(0.5, 2, *s)),
        ("log1p", uniform(-0.4, 2, *s)),
        ("expm1", normal(*s)),
        ("tanh", normal(*s)),
        ("logistic", normal(*s)),
        ("sin", normal(*s)),
        ("cos", normal(*s)),
        ("tan", uniform(-1, 1, *s)),
        ("asin", uniform(-0.8, 0.8, *s)),
        ("acos", uniform(-0.8, 0.8, *s)),
        ("atan", normal(*s)),
        ("sinh", normal(*s)),
        ("cosh", normal(*s)),
        ("asinh", normal(*s)),
        ("acosh", uniform(1.2, 3, *s)),
        ("atanh", uniform(-0.8, 0.8, *s)),
        ("sqrt", uniform(0.5, 2, *s)),
        ("rsqrt", uniform(0.5, 2, *s)),
        ("cbrt", away_from_zero(*s)),
        ("abs", away_from_zero(*s)),
        ("erf", normal(*s)),
        ("erf_inv", uniform(-0.7, 0.7, *s)),
        ("sign", away_from_zero(*s)),
        ("floor", fractional(*s)),
        ("ceil", fractional(*s)),
        ("round", fractional(*s)),
    ]:
        case(name, getattr(lax, name), make, label=str(shape))
    case(
        "is_finite",
        lax.is_finite,
        lambda r, s=s: (np.where(r.random(s) < 0.3, np.inf, 1.0).astype(f32),),
        order=0,
    )
    case("neg", lax.neg, ints(-5, 5, *s), order=0, label="int")
    case("abs", lax.abs, ints(-5, 5, *s), order=0, label="int")
    case("not", lax.bitwise_not, bools(*s), order=0)
    case("population_count", lax.population_count, ints(-100, 100, *s), order=0)
    case("clz", lax.clz, ints(-100, 1 << 20, *s), order=0)
    case("mulhi", lax.mulhi, join(ints(-(1 << 30), 1 << 30, *s), ints(-(1 << 30), 1 << 30, *s)), order=0)
    for name in ("add", "sub", "mul", "atan2"):
        case(name, getattr(lax, name), join(normal(*s), normal(*s)), label=str(s))
    case("div", lax.div, join(normal(*s), away_from_zero(*s)), label=str(s))
    case("pow", lax.pow, join(uniform(0.5, 2, *s), normal(*s)), label=str(s))
    case("max", lax.max, join(normal(*s), normal(*s)), label=str(s))
    case("min", lax.min, join(normal(*s), normal(*s)), label=str(s))
    case(
        "rem",
        lax.rem,
        lambda r, s=s: (lambda y: ((r.integers(-3, 3, s) + r.uniform(0.2, 0.8, s)) * y, y))(
            r.uniform(1.5, 2.5, s)
        ),
        label=str(s),
    )
    case("nextafter", lax.nextafter, join(normal(*s), normal(*s)), order=0)
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        case(
            name,
            getattr(lax, name),
            lambda r, s=s: (lambda a: (a, np.where(r.random(s) < 0.5, a, a + 1)))(
                r.integers(-2, 2, s).astype(f32)
            ),
            order=0,
        )
    for name in ("eq_to", "le_to", "lt_to"):  # floats in total order: -NaN, -0.0 and NaN among them
        case(
            name,
            getattr(lax, name + "_p").bind,
            lambda r, s=s: tuple(
                r.choice(np.array([-np.nan, -np.inf, -1.5, -0.0, 0.0, 1.5, np.inf, np.nan], f32), s)
                for _ in range(2)
            ),
            order=0,
        )
        case(
            name, getattr(lax, name + "_p").bind, join(ints(-3, 3, *s), ints(-3, 3, *s)), order=0, label="int"
        )
    for name in ("add", "sub", "mul", "max", "min", "div", "rem"):
        case(name, getattr(lax, name), join(ints(-9, 9, *s), ints(1, 5, *s)), order=0, label="int")
    for name, fn in (("and", lax.bitwise_and), ("or", lax.bitwise_or), ("xor", lax.bitwise_xor)):
        case(name, fn, join(ints(-99, 99, *s), ints(-99, 99, *s)), order=0)
        case(name, fn, join(bools(*s), bools(*s)), order=0, label="bool")
    for name in ("shift_left", "shift_right_logical", "shift_right_arithmetic"):
        case(name, getattr(lax, name), join(ints(-999, 999, *s), ints(-2, 40, *s)), order=0)
        case(
            name,
            getattr(lax, name),
            join(ints(0, 999, *s, dtype=u32), ints(0, 40, *s, dtype=u32)),
            order=0,
            label="uint",
        )
    case("square", lax.square, normal(*s))
    for y in (0, 1, 2, 3, -2):
        case("integer_pow", lambda x, y=y: lax.integer_pow(x, y), uniform(0.5, 2, *s), label=f"y={y}")

# The scaled Bessel functions, away from 0 where |x|'s kink makes finite differences unreliable.
case("bessel_i0e", lax.bessel_i0e, away_from_zero(2, 3))
case("bessel_i1e", lax.bessel_i1e, away_from_zero(2, 3))

# Wrapper-level broadcasting of scalars (Python and 0-d) against arrays.
case("add", lambda x: lax.add(x, 2.0), normal(2, 3), label="python scalar")
# Size-1 axes broadcast inside binary ops, as in JAX's lax (``add x:f32[2,3] y:f32[1,3]``).
case("mul", lambda x: lax.mul(x, lax.slice(x, (0, 0), (1, 3))), normal(2, 3), label="size-1 axis")
case("sub", lambda x: lax.sub(lax.slice(x, (0, 0), (2, 1)), x), normal(2, 3), label="size-1 axis")
case("mul", lambda x: lax.mul(3, x), ints(-5, 5, 4), order=0, label="python int")
case("sub", lax.sub, join(normal(), normal(2, 3)), batch=False, label="0-d vs array")
case(
    "clamp",
    lambda x: lax.clamp(-0.5, x, 0.5),
    lambda r: (np.array([-2.0, -0.3, 0.1, 0.4, 3.0], f32),),
    label="python bounds",
)
case(
    "clamp",
    lax.clamp,
    lambda r: (np.float32(-0.5), r.standard_normal((2, 3)).astype(f32) * 0.2 + 0.6, np.float32(0.5)),
    label="0-d bounds",
)
case(
    "clamp",
    lax.clamp,
    lambda r: (
        np.full((4,), -0.5, f32) + r.uniform(-0.1, 0.1, 4).astype(f32),
        np.array([-2.0, -0.1, 0.2, 3.0], f32),
        np.full((4,), 0.5, f32) + r.uniform(-0.1, 0.1, 4).astype(f32),
    ),
    label="array bounds",
)
case("copy", ew.copy_p.bind, normal(2, 3))
case("add_any", ad.add_jaxvals_p.bind, join(normal(2, 3), normal(2, 3)))
case("reduce_precision", lambda x: lax.reduce_precision(x, 8, 23), normal(2, 3), label="exact format")
case("reduce_precision", lambda x: lax.reduce_precision(x, 5, 10), normal(4), order=0, label="f16")
case("stop_gradient", lax.stop_gradient, normal(2, 3), order=0)
case("select_n", lax.select_n, join(bools(2, 3), normal(2, 3), normal(2, 3)))
case("select_n", lax.select_n, join(ints(0, 3, 4), normal(4), normal(4), normal(4)), label="int32 which")
case(
    "select_n",
    lambda p, a, b: lax.select_n(p, a, b),
    join(const(np.bool_(True)), normal(2), normal(2)),
    label="scalar which",
)

# --- structural --------------------------------------------------------------------------------

case("convert_element_type", lambda x: lax.convert_element_type(x, np.int32), normal(2, 3), order=0)
case(
    "convert_element_type",
    lambda x: lax.convert_element_type(x, np.float32),
    ints(-5, 5, 3),
    order=0,
    label="int->float",
)
case(
    "convert_element_type",
    lambda x: st.convert_element_type_p.bind(x, new_dtype=np.dtype(f32), weak_type=True),
    normal(2, 3),
    eps=1e-2,
    label="weak",
)
case(
    "convert_element_type",
    lambda x: lax.convert_element_type(x, np.bool_),
    lambda r: (np.array([0.0, 1.5, -2.0, 0.0], f32),),
    order=0,
    label="bool",
)
case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 4, 3), (0, 2)), normal(2, 3))
case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)), normal(1), label="size 1")
case("broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (4,), ()), normal(), label="0-d")
case("broadcast_in_dim", lambda x: lax.expand_dims(x, (0, -1)), normal(2, 3), label="expand_dims")
case("reshape", lambda x: lax.reshape(x, (3, 2)), normal(2, 3))
case("reshape", lambda x: lax.reshape(x, (6,), (1, 0)), normal(2, 3), label="dimensions")
case("reshape", lambda x: lax.collapse(x, 1), normal(2, 3, 2), label="collapse")
case("reshape", lambda x: lax.reshape(x, (0, 5)), normal(5, 0), label="empty")
case("transpose", lambda x: lax.transpose(x, (2, 0, 1)), normal(2, 3, 4))
case("squeeze", lambda x: lax.squeeze(x, (0, -1)), normal(1, 3, 1))
case("reduce_sum", lambda x: lax.reduce_sum(x, (0, 2)), normal(2, 3, 4))
case("reduce_sum", lambda x: lax.reduce_sum(x, (0,)), normal(0, 3), label="empty")
case("reduce_sum", lambda x: lax.reduce_sum(x, ()), normal(), label="0-d")
case("reduce_max", lambda x: lax.reduce_max(x, (1,)), normal(2, 5))
case("reduce_max", lambda x: lax.reduce_max(x, (0,)), normal(0, 2), order=0, label="empty")
case("reduce_min", lambda x: lax.reduce_min(x, (0, 1)), normal(2, 5))
case("reduce_min", lambda x: lax.reduce_min(x, (1,)), ints(-9, 9, 2, 4), order=0, label="int")
case("reduce_prod", lambda x: lax.reduce_prod(x, (1,)), normal(2, 5))
case(
    "reduce_prod",
    lambda x: lax.reduce_prod(x, (0, 2)),
    lambda r: (np.where(r.random((3, 2, 2)) < 0.3, 0, r.standard_normal((3, 2, 2))).astype(f32),),
    label="zeros",
)
case("reduce_prod", lambda x: lax.reduce_prod(x, (0,)), normal(0, 2), label="empty")
for name in ("reduce_and", "reduce_or", "reduce_xor"):
    case(name, lambda x, n=name: getattr(lax, n)(x, (1,)), bools(3, 4), order=0)
    case(name, lambda x, n=name: getattr(lax, n)(x, (0,)), ints(0, 99, 3, 2), order=0, label="int")
case("argmax", lambda x: lax.argmax(x, 1, np.int32), normal(3, 4), order=0)
case("argmax", lambda x: lax.argmax(x, 0, np.int32), ints(0, 3, 4, 2), order=0, label="ties")
case("argmin", lambda x: lax.argmin(x, 0, np.int32), normal(3, 4), order=0)
case(
    "dot_general",
    lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))),
    join(normal(2, 3), normal(3, 4)),
)
case(
    "dot_general",
    lambda x, y: lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
    join(normal(2, 3, 4), normal(2, 4, 5)),
    label="batch dims",
)
case(
    "dot_general",
    lambda x, y: lax.dot_general(x, y, (((0,), (1,)), ((), ()))),
    join(normal(3, 2), normal(4, 3)),
    label="transposed contraction",
)
case(
    "dot_general",
    lambda x, y: lax.dot_general(x, y, (((), ()), ((), ()))),
    join(normal(2), normal(3)),
    label="outer",
)
# (JAX's ragged_dot batches only when every operand, group sizes too, is mapped on axis 0: batch=False
# here, tests/jax_reference/snippets_ragged.py has its vmap; grads exist for the ragged free dimension)
_GS = np.array([2, 0, 2], i32)
case(
    "ragged_dot_general",
    lambda x, w: lax.ragged_dot(x, w, _GS),
    join(normal(5, 3), normal(3, 3, 2)),
    order=1,  # (a second derivative transposes a contraction over the ragged dimension: JAX cannot)
    batch=False,
)
_RAGGED_BATCHED = lax.RaggedDotDimensionNumbers((([2], [2]), ([0], [0])), [1], [1])
case(
    "ragged_dot_general",
    lambda x, w: lax.ragged_dot_general(x, w, np.array([[1, 2, 1], [0, 3, 1]], i32), _RAGGED_BATCHED),
    join(normal(2, 4, 3), normal(2, 3, 3, 2)),
    order=1,
    batch=False,
    label="batch dims",
)
case(
    "ragged_dot_general",
    lambda x, w: lax.ragged_dot_general(
        x, w, np.array([2, 3], i32), lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], [])
    ),
    join(normal(2, 5), normal(5, 3)),
    order=0,
    batch=False,
    label="ragged contraction",
)
case(
    "scaled_dot",  # (no derivative rules, as JAX)
    lambda x, y, sx, sy: lax.scaled_dot(x, y, lhs_scale=sx, rhs_scale=sy, preferred_element_type=f32),
    join(normal(3, 8), normal(8, 2), uniform(0.5, 2, 3, 2), uniform(0.5, 2, 2, 2)),
    order=0,
)
case("iota", lambda: lax.iota(np.int32, 5), const(), order=0, batch=False)
case(
    "iota",
    lambda: lax.broadcasted_iota(np.float32, (2, 3), 1),
    const(),
    order=0,
    batch=False,
    label="broadcasted",
)
# (complex too, as JAX's: jax.scipy.linalg.dft stages a complex64 iota)
case("iota", lambda: lax.iota(np.complex64, 4), const(), order=0, batch=False, label="complex")
# empty2's value is unspecified (JAX pads cond residual slots with it); the engine's is zeros.
case("empty2", lambda: st.empty_like(core.ShapedArray((2, 3), f32, False)), const(), order=0, batch=False)
# lax.empty's value is unspecified too; JAX's CPU lowering and the engine fill it with zeros.
case("empty", lambda: lax.empty((2, 3), np.int32), const(), order=0, batch=False)
case("rev", lambda x: lax.rev(x, (0, 2)), normal(2, 3, 4))
case(
    "concatenate",
    lambda x, y, z: lax.concatenate([x, y, z], 1),
    join(normal(2, 3), normal(2, 0), normal(2, 1)),
)
case("split", lambda x: lax.split(x, (1, 0, 3), axis=-1), normal(2, 4))
case("stack", lambda x, y, z: lax.stack([x, y, z], axis=1), join(normal(2, 3), normal(2, 3), normal(2, 3)))
case("unstack", lambda x: lax.unstack(x, axis=1), normal(2, 3, 2))
case("tile", lambda x: lax.tile(x, (2, 1, 3)), normal(2, 3, 1))
case("pad", lambda x, p: lax.pad(x, p, [(1, 2, 1), (-1, 0, 2)]), join(normal(3, 2), normal()))
case("pad", lambda x: lax.pad(x, 0.0, [(-1, -1, 0)]), normal(4), label="crop")
case("pad", lambda x, p: lax.pad(x, p, [(2, 1, 3)]), join(normal(0), normal()), label="empty")
case("bitcast_convert_type", lambda x: lax.bitcast_convert_type(x, np.int32), normal(2, 3), order=0)
case(
    "bitcast_convert_type",
    lambda x: lax.bitcast_convert_type(x, np.uint8),
    ints(-999, 999, 3),
    order=0,
    label="narrower",
)
case(
    "bitcast_convert_type",
    lambda x: lax.bitcast_convert_type(x, np.float32),
    ints(0, 255, 2, 4, dtype=u8),
    order=0,
    label="wider",
)

# --- slicing -----------------------------------------------------------------------------------

case("slice", lambda x: lax.slice(x, (1, 0), (3, 5), (1, 2)), normal(4, 5))
case("slice", lambda x: lax.slice(x, (2,), (2,)), normal(4), label="empty")
case("slice", lambda x: lax.slice_in_dim(x, -3, None, 2, axis=-1), normal(2, 7), label="slice_in_dim")
case("slice", lambda x: lax.index_in_dim(x, -1, 0, keepdims=False), normal(3, 2), label="index_in_dim")


def _idx(lo, hi):
    return lambda r: (np.int32(r.integers(lo, hi)),)


case(
    "dynamic_slice",
    lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2)),
    join(normal(4, 5), _idx(-6, 6), _idx(-6, 6)),
)
case(
    "dynamic_slice",
    lambda x, i: lax.dynamic_slice_in_dim(x, i, 2, axis=-1),
    join(normal(3, 4), _idx(-9, 9)),
    label="in_dim",
)
case(
    "dynamic_slice",
    lambda x, i: lax.dynamic_index_in_dim(x, i, 0, keepdims=False),
    join(normal(3, 4), _idx(0, 3)),
    label="index",
)
case(
    "dynamic_update_slice",
    lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
    join(normal(4, 5), normal(2, 3), _idx(-6, 6), _idx(-6, 6)),
)
case(
    "dynamic_update_slice",
    lambda x, u, i: lax.dynamic_update_index_in_dim(x, u, i, 0),
    join(normal(4, 3), normal(3), _idx(0, 4)),
    label="index",
)

GDN, SDN, MODE = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers, lax.GatherScatterMode
ROWS = GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))  # x[idx]
POINTS = GDN(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))  # x[i, j]
WINDOWS = GDN(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(1, 0))  # 2x2 windows
BATCHED = GDN(
    offset_dims=(),
    collapsed_slice_dims=(1,),
    start_index_map=(1,),
    operand_batching_dims=(0,),
    start_indices_batching_dims=(0,),
)  # take_along_axis

case("gather", lambda x, i: lax.gather(x, i, ROWS, (1, 3)), join(normal(5, 3), ints(0, 5, 4, 1)))
case(
    "gather",
    lambda x, i: lax.gather(x, i, POINTS, (1, 1), mode="clip"),
    join(normal(4, 5), ints(-2, 7, 2, 3, 2)),
    label="clip",
)
case(
    "gather",
    lambda x, i: lax.gather(x, i, WINDOWS, (2, 2), mode="fill", fill_value=-1.0),
    join(normal(4, 5), ints(-1, 5, 6, 2)),
    label="fill",
)
case(
    "gather",
    lambda x, i: lax.gather(x, i, ROWS, (1, 3), mode=MODE.FILL_OR_DROP),
    join(normal(3, 3), ints(-2, 5, 5, 1)),
    order=0,
    label="default fill NaN",
)
case(
    "gather",
    lambda x, i: lax.gather(x, i, BATCHED, (1, 1)),
    join(normal(3, 4), ints(0, 4, 3, 5, 1)),
    label="batching dims",
)
case(
    "gather", lambda x, i: lax.gather(x, i, ROWS, (1, 3)), join(normal(5, 3), ints(0, 5, 0, 1)), label="empty"
)

S_ROWS = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
S_POINTS = SDN(update_window_dims=(), inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1))
S_BATCHED = SDN(
    update_window_dims=(),
    inserted_window_dims=(1,),
    scatter_dims_to_operand_dims=(1,),
    operand_batching_dims=(0,),
    scatter_indices_batching_dims=(0,),
)
for name in ("scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min", "scatter_max"):
    prim = name.replace("_", "-")
    fn = getattr(lax, name)
    unique = lambda r: (r.permutation(5)[:3, None].astype(i32),)  # noqa: E731
    case(
        prim,
        lambda x, i, u, fn=fn: fn(x, i, u, S_ROWS, unique_indices=True),
        join(normal(5, 3), unique, normal(3, 3)),
        label="unique rows",
    )
    if name != "scatter_mul":  # scatter_mul's update derivative needs unique indices, as in JAX
        case(
            prim,
            lambda x, i, u, fn=fn: fn(x, i, u, S_POINTS),
            join(normal(3, 4), ints(-1, 4, 6, 2), normal(6)),
            label="duplicates, dropped out of bounds",
        )
        case(
            prim,
            lambda x, i, u, fn=fn: fn(x, i, u, S_ROWS, mode="clip"),
            join(normal(4, 2), ints(-2, 6, 5, 1), normal(5, 2)),
            label="clip",
        )
        case(
            prim,
            lambda x, i, u, fn=fn: fn(x, i, u, S_BATCHED),
            join(normal(2, 4), ints(0, 4, 2, 3, 1), normal(2, 3)),
            label="batching dims",
        )
    else:
        case(
            prim,
            lambda x, i, u, fn=fn: fn(x, i, u, S_POINTS),
            join(normal(3, 4), ints(-1, 4, 6, 2), normal(6)),
            order=0,
            label="duplicates",
        )

# --- window reductions (the monoid primitives lax.reduce_window specialises to) ----------------

for name, comp, init in (("reduce_window_sum", lax.add, 0.0), ("reduce_window_max", lax.max, -np.inf),
                         ("reduce_window_min", lax.min, np.inf)):  # fmt: skip
    case(name, lambda x, c=comp, i=init: lax.reduce_window(x, i, c, (2, 2), (1, 1), "VALID"), normal(4, 5))
    case(
        name,
        lambda x, c=comp, i=init, wd=(2, 1) if name == "reduce_window_sum" else (1, 1): lax.reduce_window(
            x, i, c, (2, 3), (2, 1), ((1, 0), (1, -1)), (1, 2), wd
        ),
        normal(3, 4),
        label="padded_dilated",  # (max's and min's VJP refuse window dilation, as JAX's)
    )
    case(
        name,
        lambda x, c=comp, i=init: lax.reduce_window(x, i, c, (3,), (2,), "SAME"),
        normal(7),
        label="same",
    )

# max and min pooling's derivatives, on their own: linear in their first operand
_POOL = dict(window_dimensions=(2, 2), window_strides=(2, 1), padding=((1, 0), (0, 1)))
for _select in (lax.ge_p, lax.le_p):
    case(
        "select_and_gather_add",
        lambda t, x, s=_select: lax.select_and_gather_add_p.bind(
            t, x, select_prim=s, base_dilation=(1, 2), window_dilation=(1, 1), **_POOL
        ),
        join(normal(3, 4), normal(3, 4)),
        label=_select.name,
    )
    case(
        "select_and_scatter_add",
        lambda s_, x, s=_select: lax.select_and_scatter_add_p.bind(s_, x, select_prim=s, **_POOL),
        join(normal(2, 4), normal(3, 4)),
        label=_select.name,
    )

case(
    "reduce_window",
    lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 1), (1, 1), "VALID"),
    normal(4, 3),
    order=0,
)
case(
    "reduce_window",
    lambda x: lax.reduce_window(x, 0.5, lax.max, (2, 2), (1, 2), ((1, 0), (0, 1))),
    normal(4, 5),
    order=0,
    label="init_not_identity",
)

# (the generic reduce: associative computations, so that the fold and the jvp's tree agree)
case(
    "reduce",
    lambda x: lax.reduce(x, np.float32(0.0), lambda a, b: a + b + a * b, (1,)),
    uniform(-0.5, 0.5, 3, 5),
)
case(
    "reduce",
    lambda x, y: lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0, 2)),
    join(normal(2, 3, 2), uniform(0.5, 1.5, 2, 3, 2)),
    label="pair",
)
case("reduce", lambda x: lax.reduce(x, np.float32(-100.0), lax.max, (0,)), normal(4, 3), order=1, label="max")

# --- cumulative, sort, top_k ------------------------------------------------------------------
case("approx_top_k", lambda x: lax.approx_max_k(x, 2), normal(3, 5))
case("approx_top_k", lambda x: lax.approx_min_k(x, 2, reduction_dimension=0), normal(4, 3), label="min_dim0")


for name in ("cumsum", "cumprod", "cummax", "cummin"):
    case(name, lambda x, n=name: getattr(lax, n)(x, axis=1), normal(3, 5))
    case(name, lambda x, n=name: getattr(lax, n)(x, axis=0, reverse=True), normal(4, 2), label="reverse")
    case(name, lambda x, n=name: getattr(lax, n)(x, 0), normal(0), label="empty")
    case(name, lambda x, n=name: getattr(lax, n)(x, 1), ints(-3, 3, 2, 4), order=0, label="int")
case("cumlogsumexp", lambda x: lax.cumlogsumexp(x, axis=1), normal(3, 5))
case("cumlogsumexp", lambda x: lax.cumlogsumexp(x, axis=0, reverse=True), normal(4, 2), label="reverse")
case(
    "optimization_barrier", lambda x, y: lax.optimization_barrier((x * 2.0, y)), join(normal(3), normal(2, 2))
)
case("device_put", lambda x, y: engine.device_put((x * 2.0, y)), join(normal(3), normal(2, 2)))
case(
    "cumprod",
    lambda x: lax.cumprod(x, 0),
    lambda r: (np.array([2.0, 0.0, 3.0, 0.0, 1.5], f32),),
    label="zeros",
)
case("sort", lambda x: lax.sort(x, 0), normal(5, 3))
case(
    "sort",
    lambda x: lax.sort(x),
    lambda r: (np.array([1.0, np.nan, -0.0, 0.0, -np.inf, -1.0], f32),),
    order=0,
    label="total order",
)
case(
    "sort",
    lambda k, v: lax.sort((k, v), dimension=-1, num_keys=1),
    join(ints(0, 3, 2, 6), normal(2, 6)),
    label="key-value ties stable",
)
case(
    "sort",
    lambda a, b, v: lax.sort((a, b, v), num_keys=2),
    join(ints(0, 2, 7), ints(0, 3, 7), normal(7)),
    label="two keys",
)
case("sort", lambda x: lax.sort(x), normal(0), label="empty")
case("top_k", lambda x: lax.top_k(x, 3), normal(2, 5))
case("top_k", lambda x: lax.top_k(x, 2), ints(0, 3, 6), order=0, label="ties")


# --- the tests ---------------------------------------------------------------------------------


def _ids(c: Case):
    return f"{c.prim}-{c.label}" if c.label else c.prim


def _rng(c: Case, salt=0):
    return np.random.default_rng(zlib.crc32(f"{_ids(c)}/{salt}".encode()))


OWNED_HERE = {c.prim for c in CASES}
# Higher-order, effectful and collective primitives are owned and tested by other files; the
# coverage test checks that the named file exists (so a primitive without tests anywhere fails).
TESTED_ELSEWHERE = {
    "jit": "tests/test_core.py",
    "xla_metadata_value": "tests/test_hlo_text.py",
    "compute_on": "tests/test_memory_kinds.py",
    **{
        name: "tests/test_sparse.py"
        for name in (
            "bcoo_todense bcoo_fromdense bcoo_extract bcoo_transpose bcoo_dot_general bcoo_dot_general_sampled "
            "bcoo_spdot_general spsolve "
            "bcoo_sort_indices bcoo_sum_duplicates bcsr_todense bcsr_fromdense bcsr_extract bcsr_dot_general "
            "coo_todense coo_fromdense coo_matvec coo_matmat csr_todense csr_fromdense csr_matvec csr_matmat"
        ).split()
    },
    "custom_linear_solve": "tests/test_linalg.py",
    "fused_multiply_add": "tests/test_multiply_add.py",  # (only jit's compiled form has it)
    "fused_multiply_add_sum": "tests/test_sum_order.py",  # (only jit's compiled form has it)
    "fused_multiply_add_chain_sum": "tests/test_sum_order.py",  # (only jit's compiled form has it)
    "reduce_sum_gathered": "tests/test_sum_order.py",  # (only jit's compiled form has it)
    "ynn_unary": "tests/test_ynn_unary.py",  # (only jit's compiled form has it)
    "ffi_call": "tests/test_ffi.py",
    "check": "tests/test_checkify.py",
    "rng_bit_generator": "tests/test_prng_rbg.py",
    "call_exported": "tests/test_export.py",
    "dim_as_value": "tests/test_shape_poly.py",
    "platform_index": "tests/test_jax_reference.py",  # (snippets: eager, jit, grad, vmap)
    "random_gamma": "tests/test_jax_reference.py",  # (snippets random_gamma: values, jaxprs, vmap)
    **{
        p: "tests/test_random.py"
        for p in (
            "threefry2x32",
            "random_seed",
            "random_wrap",
            "random_unwrap",
            "random_bits",
            "random_split",
            "random_fold_in",
            "random_clone",
            "rng_uniform",
        )
    },
    "custom_jvp_call": "tests/test_custom_derivatives.py",
    "custom_vmap_call": "tests/test_jax_reference.py",
    **{p: "tests/test_hijax.py" for p in ("call_hi_primitive", "call_hi_primitive_linearized")},
    "composite": "tests/test_jax_reference.py",  # (snippets api_gaps: eval, jaxprs, jit, lowering, errors)
    "linear_call": "tests/test_jax_reference.py",  # (snippets symbolic_zeros: eval, jvp, grad, jit, transpose)  # (snippets custom_batching: eager, jit, jvp, vmap)
    "custom_vjp_call": "tests/test_custom_derivatives.py",
    "custom_lin": "tests/test_custom_derivatives.py",
    "debug_callback": "tests/test_inspect.py",
    "debug_print": "tests/test_inspect.py",
    "dce_sink": "tests/fidelity/sweep_debugging.py",  # (its staging under jvp/grad, and checkify's while)
    "inspect_sharding": "tests/jax_reference/snippets_api_misc.py",
    **{
        p: "tests/jax_reference/snippets_api_misc.py"
        for p in ("empty_ref", "free_ref", "create_token", "after_all")
    },
    "pallas_call": "tests/test_pallas.py",
    **{
        p: "tests/test_pallas.py"
        for p in (
            "program_id",
            "dma_start",
            "dma_wait",
            "semaphore_signal",
            "semaphore_wait",
            "get_barrier_semaphore",
        )
    },
    **{p: "tests/test_callbacks.py" for p in ("pure_callback", "io_callback")},
    "cond": "tests/test_control_flow.py",
    **{p: "tests/test_ad_checkpoint.py" for p in ("remat2", "name", "closed_call")},
    "while": "tests/test_control_flow.py",
    "scan": "tests/test_control_flow.py",
    "xla_pmap": "tests/test_pmap.py",
    "conv_general_dilated": "tests/test_convolution.py",
    **{p: "tests/test_complex.py" for p in ("real", "imag", "conj", "complex", "fft")},
    **{p: "tests/test_sharding.py" for p in ("reshard", "sharding_constraint")},
    **{p: "tests/test_shard_map_2d.py" for p in ("shard_map", "pvary", "psum_invariant")},
    **{
        p: "tests/test_unreduced.py"
        for p in (
            "vary_unreduced_cast_p",
            "reduced_vary_cast_p",
            "preduced",
            "all_gather_invariant",
            "all_gather_reduced",
            "unreduced_reduce_scatter",
        )
    },
    **{
        p: "tests/test_linalg.py"
        for p in ("cholesky", "triangular_solve", "lu", "eigh", "svd", "qr", "lu_pivots_to_permutation")
    },
    **{
        p: "tests/test_linalg_nonsymmetric.py"
        for p in ("eig", "schur", "hessenberg", "householder_product", "geqrf", "ormqr")
    },
    **{
        p: "tests/test_linalg_tridiagonal.py"
        for p in ("tridiagonal", "tridiagonal_solve", "symmetric_product", "cholesky_update")
    },
    **{
        p: "tests/test_special.py"
        for p in (
            "lgamma",
            "digamma",
            "erfc",
            "igamma",
            "igammac",
            "igamma_grad_a",
            "polygamma",
            "zeta",
            "regularized_incomplete_beta",
        )
    },
    **{
        p: "tests/test_pmap.py"
        for p in (
            "psum",
            "pmax",
            "pmin",
            "ppermute",
            "all_gather",
            "all_to_all",
            "axis_index",
            "reduce_scatter",
        )
    },
}
ROOT = pathlib.Path(__file__).resolve().parent.parent


def _engine_primitives() -> list[str]:
    for m in pkgutil.walk_packages(engine.__path__, "engine."):
        if not m.name.endswith("__main__") and not (WITHOUT_NUMBA and "numba" in m.name):
            importlib.import_module(m.name)
    return sorted({p.name for p in core.impl_rules if p.defined_in.split(".")[0] == "engine"})


@pytest.mark.parametrize("name", _engine_primitives())
def test_every_primitive_is_covered(name):
    if name in OWNED_HERE:
        return
    where = TESTED_ELSEWHERE.get(name)
    assert where is not None, (
        f"primitive '{name}' has no rule tests: add cases to {__file__} "
        f"(or, for a higher-order primitive, name its test file in TESTED_ELSEWHERE)"
    )
    assert (ROOT / where).exists(), f"primitive '{name}' should be tested in {where}, which does not exist"


def _tree_leaves(x):
    return engine.tree_util.tree_leaves(x)


def _staged_primitives(jaxpr) -> set:
    names = set()
    for e in jaxpr.eqns:
        names.add(e.primitive.name)
        for sub in subjaxprs(e):
            names |= _staged_primitives(sub)
    return names


@pytest.mark.parametrize("c", CASES, ids=_ids)
def test_eval_and_staging(c: Case):
    """Eager results agree with abstract eval, make_jaxpr (which stages the primitive) and jit."""
    args = c.make(_rng(c))
    eager = _tree_leaves(c.fn(*args))
    closed = engine.make_jaxpr(c.fn)(*args)
    typecheck_jaxpr(closed.jaxpr)
    assert c.prim in _staged_primitives(closed.jaxpr), str(closed)  # maybe in a nested jit, as in JAX
    for out, aval in zip(eager, closed.out_avals):
        assert (np.shape(out), np.asarray(out).dtype) == (aval.shape, aval.dtype), (out, aval)
    staged = _tree_leaves(engine.jit(c.fn)(*args))
    for a, b in zip(eager, staged):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.kind == "f":  # a compiling backend may differ in the last bit
            np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(b, a)


GRAD_CASES = [c for c in CASES if c.order > 0]


@pytest.mark.parametrize("c", GRAD_CASES, ids=_ids)
def test_grads(c: Case):
    args = c.make(_rng(c))
    check_grads(c.fn, args, order=c.order, atol=c.tol, rtol=c.tol, eps=c.eps)


def _sum_of_sines(fn):
    """A scalar function of ``fn``'s float outputs (nonlinear, so every output gets a cotangent)."""

    def f(*args):
        total = lax.full((), 0.0, np.float32)
        for o in _tree_leaves(fn(*args)):
            if o.dtype.kind == "f":
                total = lax.add(total, lax.reduce_sum(lax.sin(o), tuple(range(o.ndim))))
        return total

    return f


@pytest.mark.parametrize("c", GRAD_CASES, ids=_ids)
def test_grad_composes_with_jit_and_vmap(c: Case):
    """grad staged by jit, and vmap of grad, agree with eager grad (rules that call other rules
    must stage and batch too)."""
    args = c.make(_rng(c))
    floats = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
    g = engine.grad(_sum_of_sines(c.fn), argnums=floats)
    eager = g(*args)
    for a, b in zip(eager, engine.jit(g)(*args)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-4, atol=1e-5)
    if c.batch:
        first = floats[0]
        other = args[first] * np.float32(0.5) + np.float32(0.25)
        stacked = np.stack([np.asarray(args[first]), other])
        per_arg = lambda x: g(*[x if j == first else a for j, a in enumerate(args)])[0]  # noqa: E731
        batched = engine.vmap(per_arg)(stacked)
        np.testing.assert_allclose(np.asarray(batched)[0], np.asarray(eager[0]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(batched)[1], np.asarray(per_arg(other)), rtol=1e-4, atol=1e-5)


def _in_axes_variants(args):
    n = len(args)
    variants = [(0,) * n, tuple(-1 for _ in args)]
    if n > 1:
        variants += [(0,) + (None,) * (n - 1), (None,) + (0,) * (n - 1)]
    return variants


BATCH_CASES = [c for c in CASES if c.batch and c.make(np.random.default_rng(0))]


@pytest.mark.parametrize("c", BATCH_CASES, ids=_ids)
def test_batching(c: Case):
    draws = [c.make(_rng(c, k)) for k in range(B)]
    for in_axes in _in_axes_variants(draws[0]):
        args = []
        for j, ax in enumerate(in_axes):
            if ax is None:
                args.append(draws[0][j])
            else:
                stacked = np.stack([np.asarray(d[j]) for d in draws])
                args.append(np.moveaxis(stacked, 0, ax))
        check_batching(c.fn, args, in_axes)


# --- semantics that the generic checks cannot see ------------------------------------------------


def test_stop_gradient_has_zero_derivative():
    x = np.float32(3.0)
    assert float(engine.grad(lambda x: lax.mul(x, lax.stop_gradient(x)))(x)) == 3.0
    y, t = engine.jvp(lax.stop_gradient, (x,), (np.float32(1.0),))
    assert float(y) == 3.0 and float(t) == 0.0
    ints_pass = lax.stop_gradient({"a": np.int32(1)})  # pytrees; non-floats untouched
    assert int(ints_pass["a"]) == 1


def test_dynamic_slice_clamps_like_xla():
    x = np.arange(10, dtype=f32)
    np.testing.assert_array_equal(lax.dynamic_slice(x, (8,), (4,)), x[6:10])
    np.testing.assert_array_equal(lax.dynamic_slice(x, (-3,), (2,)), x[7:9])  # negative: from the end
    np.testing.assert_array_equal(lax.dynamic_slice(x, (-30,), (2,)), x[0:2])
    out = lax.dynamic_update_slice(x, np.ones(3, f32), (9,))
    np.testing.assert_array_equal(out, np.r_[x[:7], np.ones(3)])


def test_gather_fill_and_modes():
    x = np.arange(6, dtype=f32)
    dn = GDN(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    idx = np.array([[1], [7], [-1]], i32)
    np.testing.assert_array_equal(lax.gather(x, idx, dn, (1,), mode="clip"), [1, 5, 0])
    np.testing.assert_array_equal(lax.gather(x, idx, dn, (1,), mode="fill"), [1, np.nan, np.nan])
    np.testing.assert_array_equal(
        lax.gather(x.astype(i32), idx, dn, (1,), mode="fill"), [1, np.iinfo(i32).min, np.iinfo(i32).min]
    )
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    # Gradients of an out-of-bounds fill gather are zero for the filled entries.
    g = engine.grad(
        lambda x: lax.reduce_sum(lax.gather(x, idx, dn, (1,), mode="fill", fill_value=0.0), (0,))
    )(x)
    np.testing.assert_array_equal(g, [0, 1, 0, 0, 0, 0])


def test_scatter_drops_out_of_bounds_windows_and_accumulates():
    sdn = SDN(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    x = np.zeros((3, 2), f32)
    idx = np.array([[0], [0], [3], [-1]], i32)
    u = np.ones((4, 2), f32)
    np.testing.assert_array_equal(lax.scatter_add(x, idx, u, sdn), [[2, 2], [0, 0], [0, 0]])
    np.testing.assert_array_equal(lax.scatter_add(x, idx, u, sdn, mode="clip"), [[3, 3], [0, 0], [1, 1]])
    np.testing.assert_array_equal(lax.scatter_max(x - 1, idx, u * 5, sdn), [[5, 5], [-1, -1], [-1, -1]])
    # scatter's jvp follows the update that won: the last one written.
    dn = SDN(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    ii = np.array([[1], [1]], i32)
    _, t = engine.jvp(
        lambda u: lax.scatter(np.zeros(3, f32), ii, u, dn),
        (np.array([1.0, 2.0], f32),),
        (np.array([10.0, 20.0], f32),),
    )
    y = lax.scatter(np.zeros(3, f32), ii, np.array([1.0, 2.0], f32), dn)
    winner = int(np.asarray(y)[1] == 2.0)
    np.testing.assert_array_equal(t, [0, [10.0, 20.0][winner], 0])


def test_sort_total_order_and_cumulative_transpose():
    x = np.array([np.nan, 1.0, -0.0, 0.0, -np.inf, -np.nan], f32)
    out = np.asarray(lax.sort(x))
    np.testing.assert_array_equal(out[:4], [-np.inf, -0.0, 0.0, 1.0])
    assert np.signbit(out[1]) and not np.signbit(out[2]) and np.isnan(out[4:]).all()
    ct = engine.vjp(lambda x: lax.cumsum(x, 0), np.ones(4, f32))[1](np.arange(4, dtype=f32))[0]
    np.testing.assert_array_equal(ct, [6, 6, 5, 3])  # transpose = reverse cumsum
    vals, idx = lax.top_k(np.array([1.0, 3.0, 3.0, 2.0], f32), 3)
    np.testing.assert_array_equal(idx, [1, 2, 3])


def test_reduce_precision_rounds_to_nearest_even():
    x = np.array([1 + 2**-8, 1 + 3 * 2**-8, 1e6, 1e-9, np.nan], f32)
    out = np.asarray(lax.reduce_precision(x, 8, 7))
    np.testing.assert_array_equal(out[:3], [1.0, 1 + 2**-6, 999424.0])
    out16 = np.asarray(lax.reduce_precision(x, 5, 10))
    assert out16[2] == np.inf and out16[3] == 0 and np.isnan(out16[4])


def test_integer_edge_cases_follow_xla():
    a = np.array([-7, 7, -(2**31), 5], i32)
    b = np.array([2, -2, -1, 0], i32)
    np.testing.assert_array_equal(lax.div(a, b), [-3, -3, -(2**31), -1])
    np.testing.assert_array_equal(lax.rem(a, b), [-1, 1, 0, 5])
    s = np.array([1, 31, 32, -1], i32)
    np.testing.assert_array_equal(lax.shift_left(np.full(4, 1, i32), s), [2, -(2**31), 0, 0])
    np.testing.assert_array_equal(lax.shift_right_arithmetic(np.full(4, -8, i32), s), [-4, -1, -1, -1])
    np.testing.assert_array_equal(lax.shift_right_logical(np.full(4, -8, i32), s), [2**31 - 4, 1, 0, 0])


def test_reductions_of_empty_axes_give_identities():
    e = np.zeros((0, 2), f32)
    np.testing.assert_array_equal(lax.reduce_max(e, (0,)), [-np.inf, -np.inf])
    np.testing.assert_array_equal(lax.reduce_min(e.astype(i32), (0,)), [np.iinfo(i32).max] * 2)
    np.testing.assert_array_equal(lax.reduce_prod(e, (0,)), [1, 1])


_STRICT_BINARY_OPS = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "max": "maximum",
    "min": "minimum",
    "rem": None,
    "atan2": None,
    "nextafter": None,
}


_TAKING_NO_INTEGERS = {"atan2", "nextafter"}


@pytest.mark.parametrize("name", sorted(_STRICT_BINARY_OPS))
def test_lax_binary_ops_never_promote_whoever_calls_them(name):
    """JAX's lax never promotes a Python scalar to the other operand's dtype, also when the caller's
    module is named like the engine's own (the engine builds its constants explicitly instead)."""
    code = f"from engine import lax\nimport numpy as np\nlax.{name}(np.ones(3, np.float32), 3)\n"
    for module in ("user_code", "engine.user_code"):
        with pytest.raises(TypeError) as info:
            exec(compile(code, "<cell>", "exec"), {"__name__": module})
        message = str(info.value)
        if name in _TAKING_NO_INTEGERS:  # (JAX checks the operand's kind first: its message)
            assert message.startswith(f"{name} does not accept dtype int32 at position 1.")
            continue
        assert message.startswith(
            f"lax.{name} requires arguments to have the same dtypes, got float32, int32"
        )
        twin = _STRICT_BINARY_OPS[name]
        if twin:
            assert f"Tip: jnp.{twin} is a similar function that does automatic type promotion" in message
    exec(compile(code.replace(", 3)", ", 3.0)"), "<cell>", "exec"), {"__name__": "engine.user_code"})


def test_internal_constants_take_the_operands_dtype():
    """Rules and jnp functions write constants that take the dtype they meet (float16, complex64),
    where public lax would refuse a Python scalar of another dtype."""
    x16 = np.array([0.5, 1.5], np.float16)
    _, t = engine.jvp(lax.square, (x16,), (np.ones(2, np.float16),))
    assert t.dtype == np.float16
    np.testing.assert_array_equal(t, 2 * x16)
    z = np.array([1 + 2j, -0.5j], np.complex64)
    _, t = engine.jvp(lambda v: lax.integer_pow(v, 3), (z,), (np.ones(2, np.complex64),))
    np.testing.assert_allclose(t, 3 * z**2, rtol=1e-6)
    _, t = engine.jvp(lax.tanh, (z,), (np.ones(2, np.complex64),))
    np.testing.assert_allclose(t, 1 - np.tanh(z) ** 2, rtol=1e-5)
    a = np.array([[4, 1 - 1j], [1 + 1j, 3]], np.complex64)
    chol = np.asarray(lax.linalg.cholesky(a))
    np.testing.assert_allclose(chol, np.linalg.cholesky(a), rtol=1e-6)
    sign, logdet = engine.numpy.linalg.slogdet(np.array([[1, 2], [3, 4]], np.float16))
    assert sign.dtype == np.float16 and sign == -1
    np.testing.assert_allclose(logdet, np.log(2), rtol=1e-3)
    m = engine.vmap(lambda v: lax.pmean(v, "i"), axis_name="i")(np.array([1, 2, 6], np.float16))
    assert m.dtype == np.float16
    np.testing.assert_array_equal(m, [3, 3, 3])
