"""jnp functions against numpy on random inputs, plus their derivatives and batching."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.test_util import check_batching, check_grads

rng = np.random.default_rng(0)


def rand(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def close(a, b, rtol=1e-5, atol=1e-6):
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


UNARY = [
    "exp",
    "exp2",
    "expm1",
    "sin",
    "cos",
    "tan",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "abs",
    "absolute",
    "sign",
    "floor",
    "ceil",
    "rint",
    "trunc",
    "square",
    "negative",
    "positive",
    "cbrt",
    "deg2rad",
    "rad2deg",
    "isnan",
    "isinf",
    "isfinite",
    "signbit",
    "sinc",
    "fabs",
]
POSITIVE = ["log", "log2", "log10", "log1p", "sqrt", "reciprocal", "arccosh"]
UNIT = ["arcsin", "arccos", "arctanh"]


@pytest.mark.parametrize("name", UNARY + POSITIVE + UNIT)
def test_unary_matches_numpy(name):
    if name in POSITIVE:
        x = rand(3, 4, low=1.1, high=3.0)
    elif name in UNIT:
        x = rand(3, 4, low=-0.9, high=0.9)
    else:
        x = rand(3, 4)
    close(getattr(jnp, name)(x), getattr(np, name)(x), rtol=2e-5, atol=1e-5)


BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "maximum",
    "minimum",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "copysign",
    "fmax",
    "fmin",
    "floor_divide",
    "remainder",
    "mod",
    "fmod",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "heaviside",
    "power",
    "float_power",
]


@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcasting_matches_numpy(name):
    x, y = rand(3, 1, 4), rand(5, 1)
    if name in ("power", "float_power"):
        x = np.abs(x) + 0.5
    got = getattr(jnp, name)(x, y)
    want = getattr(np, name)(x, y)
    close(got, want.astype(got.dtype), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "name",
    [
        "floor_divide",
        "remainder",
        "fmod",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "left_shift",
        "right_shift",
        "maximum",
        "power",
    ],
)
def test_integer_binary_matches_numpy(name):
    x = rng.integers(-20, 20, (4, 5)).astype(np.int32)
    y = rng.integers(1, 6, (5,)).astype(np.int32) * rng.choice([-1, 1], 5).astype(np.int32)
    if name in ("left_shift", "right_shift", "power"):
        y = np.abs(y)
    got = getattr(jnp, name)(x, y)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(got), getattr(np, name)(x, y))


def test_integer_remainder_by_zero_is_zero_eager_and_staged():
    # JAX guards the divisor (x % 0 -> x % 1 == 0), as numpy's result; XLA's rem by 0 is undefined.
    x, y = np.array([5, -5, 3, 7], np.int32), np.array([0, 3, -2, 0], np.int32)
    with np.errstate(divide="ignore"):
        want = np.remainder(x, y)
    np.testing.assert_array_equal(np.asarray(jnp.remainder(x, y)), want)
    np.testing.assert_array_equal(np.asarray(jax.jit(jnp.remainder)(x, y)), want)
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda a: a % 0)(x)), np.zeros(4, np.int32))
    i = np.array([0, 7, -2, -6], np.int32)
    close(
        jax.jit(lambda a, i: jnp.take(a, i, mode="wrap"))(np.arange(5.0), i),
        np.take(np.arange(5.0), i, mode="wrap"),
    )


def test_remainder_grads_with_a_scalar_operand():
    v = np.array([1.5, -2.5, 7.0])
    check_grads(lambda y: jnp.remainder(v, y), (2.25,), order=1)
    check_grads(lambda x: jnp.remainder(x, v), (5.3,), order=1)


def test_polyval_scan_matches_numpy_and_grads():
    p, x = np.array([2.0, -1.0, 0.5, 3.0]), np.array([0.3, -1.2, 2.0])
    close(jax.jit(jnp.polyval)(p, x), np.polyval(p, x))
    close(jnp.polyval(p, x, unroll=1), np.polyval(p, x))
    np.testing.assert_array_equal(np.asarray(jnp.polyval(np.array([1, 2, 3]), 2)), 11)
    check_grads(jnp.polyval, (p, x), order=2)


def test_integer_power_uses_integer_pow():
    jaxpr = str(jax.make_jaxpr(lambda x: x**3)(1.0))
    assert "integer_pow" in jaxpr and "pow " not in jaxpr.replace("integer_pow", "")
    close(jnp.arange(4.0) ** 2, np.arange(4.0) ** 2)
    assert (jnp.arange(4) ** 2).dtype == np.int32


def test_where_clip_logic_nan_to_num():
    x = rand(4, 5)
    close(jnp.where(x > 0, x, 0.0), np.where(x > 0, x, 0.0))
    close(jnp.clip(x, -1, 1), np.clip(x, -1, 1))
    close(jnp.clip(x, max=0.5), np.clip(x, None, 0.5))
    close(x.clip(-0.5, 0.5), np.clip(x, -0.5, 0.5))
    a, b = x > 0, x < 1
    for name in ("logical_and", "logical_or", "logical_xor"):
        np.testing.assert_array_equal(np.asarray(getattr(jnp, name)(a, b)), getattr(np, name)(a, b))
    np.testing.assert_array_equal(np.asarray(jnp.logical_not(a)), ~a)
    y = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    close(jnp.nan_to_num(y), np.nan_to_num(y))
    close(
        jnp.round(np.array([0.5, 1.5, 2.5, -0.5, 1.2345], np.float32), 2),
        np.round(np.array([0.5, 1.5, 2.5, -0.5, 1.2345], np.float32), 2),
    )
    close(jnp.select([x < -1, x > 1], [x, -x], 7.0), np.select([x < -1, x > 1], [x, -x], 7.0))


REDUCTIONS = ["sum", "mean", "var", "std", "max", "min", "prod", "amax", "amin", "ptp"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(name, axis, keepdims):
    x = rand(3, 4, 5, low=0.5, high=1.5)
    close(
        getattr(jnp, name)(x, axis=axis, keepdims=keepdims),
        getattr(np, name)(x, axis=axis, keepdims=keepdims),
        rtol=1e-4,
        atol=1e-5,
    )


def test_reduction_options():
    x = rand(4, 6)
    close(jnp.var(x, axis=1, ddof=1), np.var(x, axis=1, ddof=1), rtol=1e-5)
    close(jnp.std(x, ddof=1), np.std(x, ddof=1), rtol=1e-5)
    m = x > 0
    close(jnp.sum(x, axis=0, where=m), np.sum(x, axis=0, where=m))
    close(jnp.mean(x, axis=1, where=m), np.mean(x, axis=1, where=m), rtol=1e-5)
    close(jnp.max(x, axis=1, where=m, initial=-10.0), np.max(x, axis=1, where=m, initial=-10.0))
    close(jnp.sum(x, initial=3.0), np.sum(x, initial=3.0), rtol=1e-5)
    close(x.sum(1), x.sum(1))
    for name in ("argmax", "argmin"):
        for axis in (None, 0, 1, -1):
            np.testing.assert_array_equal(
                np.asarray(getattr(jnp, name)(x, axis=axis)), getattr(np, name)(x, axis=axis)
            )
    assert jnp.argmax(x, axis=1, keepdims=True).shape == (4, 1)
    np.testing.assert_array_equal(np.asarray(jnp.argmax(np.array([1.0, np.nan, 3.0], np.float32))), 1)
    for name in ("cumsum", "cumprod"):
        for axis in (None, 0, 1):
            close(getattr(jnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis), rtol=1e-4)
    b = x > 0
    for name in ("any", "all"):
        for axis in (None, 0, 1):
            np.testing.assert_array_equal(
                np.asarray(getattr(jnp, name)(b, axis=axis)), getattr(np, name)(b, axis=axis)
            )
    assert int(jnp.count_nonzero(b)) == np.count_nonzero(b)
    close(jnp.count_nonzero(b, axis=0), np.count_nonzero(b, axis=0))
    w = rand(6, low=0.1, high=1.0)
    close(jnp.average(x, axis=1, weights=w), np.average(x, axis=1, weights=w), rtol=1e-5)
    close(jnp.average(x), np.average(x), rtol=1e-5)
    y = np.array([1.0, np.nan, 3.0], np.float32)
    close(jnp.nansum(y), np.nansum(y))
    close(jnp.nanmean(y), np.nanmean(y))
    close(jnp.nanmax(y), np.nanmax(y))
    with pytest.raises(ValueError, match="zero-size"):
        jnp.max(jnp.zeros((0, 3)), axis=0)


def test_closeness():
    a = np.array([1.0, np.inf, np.nan, 2.0], np.float32)
    b = np.array([1.0 + 1e-7, np.inf, np.nan, 2.1], np.float32)
    np.testing.assert_array_equal(np.asarray(jnp.isclose(a, b)), np.isclose(a, b))
    np.testing.assert_array_equal(
        np.asarray(jnp.isclose(a, b, equal_nan=True)), np.isclose(a, b, equal_nan=True)
    )
    assert bool(jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-7))
    assert not bool(jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-2))
    assert bool(jnp.array_equal(jnp.arange(3), np.arange(3))) and not bool(
        jnp.array_equal(jnp.arange(3), jnp.arange(4))
    )


def test_creation():
    close(jnp.arange(2, 10, 3), np.arange(2, 10, 3))
    close(jnp.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25))
    close(jnp.linspace(-1, 2, 7), np.linspace(-1, 2, 7))
    close(jnp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    assert jnp.linspace(0, 1).shape == (50,)
    close(jnp.linspace(np.zeros(2), np.ones(2), 3, axis=1), np.linspace(np.zeros(2), np.ones(2), 3, axis=1))
    close(jnp.eye(3, 4, 1), np.eye(3, 4, 1))
    close(jnp.identity(2), np.identity(2))
    close(jnp.full((2, 3), 7.0), np.full((2, 3), 7.0))
    close(jnp.full((2, 3), np.arange(3.0)), np.full((2, 3), np.arange(3.0)))
    close(jnp.ones_like(np.zeros((2, 2), np.int32)), np.ones((2, 2)))
    assert jnp.zeros((2,), jnp.int32).dtype == np.int32 and jnp.empty(3).shape == (3,)
    for indexing in ("xy", "ij"):
        for g, w in zip(
            jnp.meshgrid(np.arange(3), np.arange(2), np.arange(4), indexing=indexing),
            np.meshgrid(np.arange(3), np.arange(2), np.arange(4), indexing=indexing),
        ):
            close(g, w)
    x = rand(4, 4)
    close(jnp.tril(x), np.tril(x))
    close(jnp.triu(x, 1), np.triu(x, 1))
    close(jnp.tri(3, 4, -1), np.tri(3, 4, -1))
    close(jnp.array([[1, 2], [3, 4]], dtype=jnp.float32), np.array([[1, 2], [3, 4]], np.float32))
    assert jnp.array(3.0, ndmin=2).shape == (1, 1)


def test_array_of_tracers_stacks():
    f = jax.jit(lambda a, b: jnp.array([[a, b], [b, 1.0]]))
    close(f(2.0, 3.0), np.array([[2.0, 3.0], [3.0, 1.0]]))
    g = jax.grad(lambda a: jnp.sum(jnp.array([a, 2 * a, a * a])))
    close(g(3.0), 9.0)


SHAPE_CASES = [
    (lambda m, x: m.reshape(x, (4, -1)), (3, 4, 2)),
    (lambda m, x: m.ravel(x), (3, 4)),
    (lambda m, x: m.transpose(x, (2, 0, 1)), (3, 4, 2)),
    (lambda m, x: m.swapaxes(x, 0, 2), (3, 4, 2)),
    (lambda m, x: m.moveaxis(x, 0, -1), (3, 4, 2)),
    (lambda m, x: m.moveaxis(x, (0, 1), (2, 0)), (3, 4, 2)),
    (lambda m, x: m.squeeze(x), (3, 1, 2, 1)),
    (lambda m, x: m.squeeze(x, axis=1), (3, 1, 2)),
    (lambda m, x: m.expand_dims(x, (0, -1)), (3, 2)),
    (lambda m, x: m.concatenate([x, x * 2], axis=1), (3, 2)),
    (lambda m, x: m.concatenate([x, x], axis=None), (3, 2)),
    (lambda m, x: m.stack([x, x + 1], axis=-1), (3, 2)),
    (lambda m, x: m.hstack([x, x]), (3, 2)),
    (lambda m, x: m.vstack([x, x]), (3,)),
    (lambda m, x: m.dstack([x, x]), (3, 2)),
    (lambda m, x: m.column_stack([x, x]), (3,)),
    (lambda m, x: m.broadcast_to(x, (4, 3, 2)), (3, 1)),
    (lambda m, x: m.tile(x, (2, 3)), (3, 2)),
    (lambda m, x: m.tile(x, 2), (3,)),
    (lambda m, x: m.repeat(x, 3, axis=1), (3, 2)),
    (lambda m, x: m.repeat(x, 2), (3, 2)),
    (lambda m, x: m.repeat(x, np.array([1, 0, 2]), axis=0), (3, 2)),
    (lambda m, x: m.flip(x), (3, 2)),
    (lambda m, x: m.flip(x, 1), (3, 2)),
    (lambda m, x: m.fliplr(x), (3, 2)),
    (lambda m, x: m.flipud(x), (3, 2)),
    (lambda m, x: m.rot90(x), (3, 2)),
    (lambda m, x: m.roll(x, 2), (3, 2)),
    (lambda m, x: m.roll(x, -1, axis=1), (3, 4)),
    (lambda m, x: m.roll(x, (1, 2), axis=(0, 1)), (3, 4)),
    (lambda m, x: m.pad(x, 1), (3, 2)),
    (lambda m, x: m.pad(x, ((1, 2), (0, 3)), constant_values=5.0), (3, 2)),
    (lambda m, x: m.pad(x, 2, mode="edge"), (3, 2)),
    (lambda m, x: m.pad(x, (1, 2), mode="wrap"), (3,)),
    (lambda m, x: m.pad(x, 2, mode="reflect"), (4,)),
    (
        lambda m, x: m.pad(x, ((1, 2), (3, 1)), mode="linear_ramp", end_values=((5.0, -1.0), (2.0, 0.5))),
        (3, 2),
    ),
    (lambda m, x: m.pad(x, 5, mode="reflect", reflect_type="odd"), (3,)),
    (lambda m, x: m.pad(x, ((4, 2), (1, 3)), mode="symmetric", reflect_type="odd"), (3, 2)),
    (lambda m, x: m.pad(x, 7, mode="wrap"), (3,)),
    (lambda m, x: m.pad(x, 2, mode="mean", stat_length=((1, 2), (2, 1))), (3, 4)),
    (lambda m, x: m.pad(x, (1, 2), mode="median"), (3, 4)),
    (lambda m, x: m.pad(x, 2, constant_values=((1.0, 2.0), (3.0, 4.0))), (3, 2)),
    (lambda m, x: m.sort(x, axis=0), (5, 3)),
    (lambda m, x: m.sort(x, axis=None), (5, 3)),
    (lambda m, x: m.argsort(x, axis=1), (5, 3)),
    (lambda m, x: m.diagonal(x, 1), (4, 5)),
    (lambda m, x: m.diagonal(x, -2, 0, 2), (4, 3, 5)),
    (lambda m, x: m.diag(x), (4,)),
    (lambda m, x: m.diag(x, -2), (3,)),
    (lambda m, x: m.diag(x, 1), (3, 4)),
    (lambda m, x: m.trace(x), (4, 4)),
    (lambda m, x: m.atleast_2d(x), (3,)),
    (lambda m, x: m.atleast_3d(x), (3, 2)),
    (lambda m, x: m.append(x, x), (2, 2)),
    (lambda m, x: m.take(x, np.array([3, 0, 1]), axis=1), (2, 4)),
    (lambda m, x: m.take(x, np.array([[0, 5], [2, 1]])), (2, 4)),
]


@pytest.mark.parametrize("k", range(len(SHAPE_CASES)))
def test_shape_ops_match_numpy(k):
    fn, shape = SHAPE_CASES[k]
    x = rand(*shape)
    close(fn(jnp, x), fn(np, x))


def test_split():
    x = rand(6, 4)
    for got, want in zip(jnp.split(x, 3), np.split(x, 3)):
        close(got, want)
    for got, want in zip(jnp.split(x, [1, 4], axis=0), np.split(x, [1, 4], axis=0)):
        close(got, want)
    for got, want in zip(jnp.array_split(x, 3, axis=1), np.array_split(x, 3, axis=1)):
        close(got, want)
    with pytest.raises(ValueError):
        jnp.split(x, 4)


def test_nonzero_unique_outside_tracing():
    x = np.array([[0, 3, 0], [2, 0, 2]], np.int32)
    for got, want in zip(jnp.nonzero(x), np.nonzero(x)):
        np.testing.assert_array_equal(np.asarray(got), want)
    for got, want in zip(jnp.where(x), np.where(x)):
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(jnp.unique(x)), np.unique(x))
    vals, counts = jnp.unique(x, return_counts=True)
    np.testing.assert_array_equal(np.asarray(counts), np.unique(x, return_counts=True)[1])
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jnp.nonzero)(x)
    sized = jax.jit(lambda v: jnp.nonzero(v, size=5, fill_value=-1))(x)
    want = [np.concatenate([w, -np.ones(5 - len(w), np.int64)]) for w in np.nonzero(x)]
    for got, w in zip(sized, want):
        np.testing.assert_array_equal(np.asarray(got), w)


def test_searchsorted():
    a = np.array([1.0, 2.0, 2.0, 5.0], np.float32)
    v = np.array([0.0, 2.0, 3.0, 9.0], np.float32)
    for side in ("left", "right"):
        np.testing.assert_array_equal(
            np.asarray(jnp.searchsorted(a, v, side=side)), np.searchsorted(a, v, side=side)
        )


# --- products ---------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)),
    ((1, 2, 3), (5, 3, 4)),
    ((6, 1, 2, 3), (5, 3, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_and_operator(sa, sb):
    a, b = rand(*sa), rand(*sb)
    close(jnp.matmul(a, b), np.matmul(a, b), rtol=1e-5, atol=1e-5)
    close(jnp.asarray(a) @ b, a @ b, rtol=1e-5, atol=1e-5)
    close(a @ jnp.asarray(b), a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((4, 2, 3), (5, 3, 2)), ((), (3,))]
)
def test_dot(sa, sb):
    a, b = rand(*sa), rand(*sb)
    close(jnp.dot(a, b), np.dot(a, b), rtol=1e-5, atol=1e-5)


def test_dot_shape_error_names_shapes():
    # (JAX's words: jnp leaves the check to lax.dot_general's shape rule, naming the contracted sizes)
    with pytest.raises(
        TypeError, match=r"contracting dimensions to have the same shape, got \(2,\) and \(3,\)"
    ):
        jnp.dot(jnp.ones((2, 2)), jnp.ones((3, 2)))
    with pytest.raises(TypeError):
        jnp.ones((2, 3)) @ jnp.ones((2, 3))
    with pytest.raises(TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"):
        jnp.ones(3) + jnp.ones(4)  # (JAX's class and message: lax's shape rule)


def test_other_products():
    a, b = rand(3, 4), rand(4, 5)
    close(jnp.vdot(a, a), np.vdot(a, a), rtol=1e-5)
    c2 = rand(2, 4)
    close(jnp.inner(a, c2), np.inner(a, c2), rtol=1e-5)
    close(jnp.outer(a[0], b[0]), np.outer(a[0], b[0]))
    c, d = rand(2, 3, 4), rand(4, 3, 5)
    close(
        jnp.tensordot(c, d, axes=([1, 2], [1, 0])),
        np.tensordot(c, d, axes=([1, 2], [1, 0])),
        rtol=1e-5,
        atol=1e-5,
    )
    close(jnp.tensordot(a, b, 1), np.tensordot(a, b, 1), rtol=1e-5, atol=1e-5)
    k1, k2 = rand(2, 3), rand(3, 2)
    close(jnp.kron(k1, k2), np.kron(k1, k2))
    u, v = rand(4, 3), rand(4, 3)
    close(jnp.cross(u, v), np.cross(u, v), rtol=1e-5, atol=1e-6)


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,bj->bi", [(2, 3), (5, 3)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(6, 2, 3), (1, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ijk,k->ij", [(2, 3, 4), (4,)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ab,cb,ca->", [(2, 3), (4, 3), (4, 2)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("i...->...", [(3, 4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES)
def test_einsum_matches_numpy(spec, shapes):
    ops = [rand(*s) for s in shapes]
    close(jnp.einsum(spec, *ops), np.einsum(spec, *ops), rtol=1e-4, atol=1e-5)


def test_einsum_lowers_to_dot_general():
    jaxpr = str(
        jax.make_jaxpr(lambda a, b: jnp.einsum("ij,bj->bi", a, b))(jnp.ones((2, 3)), jnp.ones((5, 3)))
    )
    assert "dot_general" in jaxpr and "mul" not in jaxpr


@pytest.mark.parametrize("ord", [None, 2, 1, np.inf, -np.inf, 0, 3])
def test_vector_norm(ord):
    x = rand(5)
    close(jnp.linalg.norm(x, ord), np.linalg.norm(x, ord), rtol=1e-5)
    y = rand(3, 4)
    close(
        jnp.linalg.norm(y, ord, axis=1, keepdims=True),
        np.linalg.norm(y, ord, axis=1, keepdims=True),
        rtol=1e-5,
    )


@pytest.mark.parametrize("ord", [None, "fro", 1, -1, np.inf, -np.inf, 2, "nuc"])
def test_matrix_norm(ord):
    x = rand(3, 4)
    close(jnp.linalg.norm(x, ord), np.linalg.norm(x, ord), rtol=1e-5)
    z = rand(2, 3, 4)
    close(jnp.linalg.norm(z, ord, axis=(2, 1)), np.linalg.norm(z, ord, axis=(2, 1)), rtol=1e-5)


# --- derivatives and batching ---------------------------------------------------------------

GRAD_CASES = [
    (lambda x: jnp.sum(jnp.tanh(x) * jnp.exp(x)), (3, 4)),
    (lambda x: jnp.mean(x**2) + jnp.var(x), (3, 4)),
    (lambda x: jnp.std(x, axis=0), (3, 4)),
    (lambda x: jnp.max(x, axis=1), (3, 4)),
    (lambda x: jnp.prod(x, axis=0), (3, 4)),
    (lambda x: jnp.cumsum(x, axis=1), (3, 4)),
    (lambda x: jnp.logaddexp(x, 2 * x), (3, 4)),
    (lambda x: jnp.hypot(x, 1.0 + x * x), (3, 4)),
    (lambda x: jnp.dot(x, x.T), (3, 4)),
    (lambda x: x @ x.T @ x, (3, 3)),
    (lambda x: jnp.einsum("ij,jk,ki->", x, x, x), (3, 3)),
    (lambda x: jnp.einsum("ii->i", x), (3, 3)),
    (lambda x: jnp.linalg.norm(x, axis=1), (3, 4)),
    (lambda x: jnp.linalg.norm(x, "fro"), (3, 4)),
    (lambda x: jnp.where(x > 0, x**3, jnp.sin(x)), (3, 4)),
    (lambda x: jnp.concatenate([x, 2 * x], axis=0)[1:4, ::-1], (3, 4)),
    (lambda x: jnp.stack([x, jnp.roll(x, 1)]).sum(0), (3, 4)),
    (lambda x: x[jnp.array([0, 2, 2])] * 2.0, (3, 4)),
    (lambda x: jnp.asarray(x).at[1].add(x[0] ** 2), (3, 4)),
    (lambda x: jnp.asarray(x).at[jnp.array([0, 0]), 1:3].set(5.0 * x[1, 1:3]), (3, 4)),
    (lambda x: jnp.sort(x, axis=1), (3, 4)),
    (lambda x: jnp.clip(x, -0.5, 0.5) + jnp.abs(x), (3, 4)),
    (lambda x: jnp.diag(jnp.diagonal(x)) + jnp.trace(x), (3, 3)),
    (lambda x: jnp.tile(x, (2, 1)) * jnp.repeat(x, 2, axis=0), (3, 4)),
    (lambda x: jnp.pad(x, 1) ** 2, (3, 4)),
    (lambda x: jnp.kron(x, x), (2, 2)),
    (lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), (3, 4)),
    (lambda x: jnp.sinc(x) + jnp.arctan2(x, 2.0) + jnp.cbrt(x + 3.0), (3, 4)),
    (lambda x: jnp.average(x, axis=1, weights=jnp.arange(1.0, 5.0)), (3, 4)),
    (lambda x: jnp.linspace(x[0, 0], x[1, 1], 5), (3, 4)),
]


@pytest.mark.parametrize("k", range(len(GRAD_CASES)))
def test_grads(k):
    fn, shape = GRAD_CASES[k]
    x = rand(*shape, low=0.2, high=1.5) * rng.choice([-1, 1], shape).astype(np.float32)
    check_grads(fn, (x,), order=2 if k % 3 == 0 else 1, atol=5e-3, rtol=5e-3)


BATCH_CASES = [
    (lambda x: jnp.sum(x * 2.0, axis=0), 0),
    (lambda x: jnp.dot(x, jnp.arange(4.0)), 0),
    (lambda x: x @ x.T, 1),
    (lambda x: jnp.einsum("ij,jk->ik", x, x.T), 0),
    (lambda x: jnp.mean(x, axis=1, keepdims=True) - x, 0),
    (lambda x: jnp.concatenate([x, jnp.ones((3, 4))], axis=0), 0),
    (lambda x: x[1:, ::2], 0),
    (lambda x: x[jnp.array([2, 0])], 1),
    (lambda x: jnp.asarray(x).at[0, 1].set(3.0), 0),
    (lambda x: jnp.sort(x, axis=0), 0),
    (lambda x: jnp.argmax(x, axis=1), 0),
    (lambda x: jnp.where(x > 0, x, 0.0), 2),
    (lambda x: jnp.linalg.norm(x, axis=0), 0),
    (lambda x: jnp.cumsum(x, axis=1), 0),
    (lambda x: jnp.roll(x, 1, axis=0), 1),
    (lambda x: jnp.transpose(x) @ x, 0),
]


@pytest.mark.parametrize("k", range(len(BATCH_CASES)))
def test_vmap_matches_loop(k):
    fn, axis = BATCH_CASES[k]
    x = np.moveaxis(rand(5, 3, 4), 0, axis)
    check_batching(fn, (x,), axis, atol=1e-5, rtol=1e-5)


def test_vmap_traced_index():
    x = rand(5, 4)
    idx = np.array([0, 3, 1, 2, 3], np.int32)
    out = jax.vmap(lambda row, i: row[i])(x, idx)
    close(out, x[np.arange(5), idx])
    out = jax.vmap(lambda i: jnp.asarray(x)[i])(idx)
    close(out, x[idx])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_quantiles_match_numpy(method, axis):
    x = rand(4, 7)
    q = np.array([0.0, 0.3, 1.0], np.float32)
    close(
        jnp.quantile(x, q, axis=axis, method=method), np.quantile(x, q, axis=axis, method=method), atol=1e-6
    )
    close(
        jnp.percentile(x, 40.0, axis=axis, method=method),
        np.percentile(x, 40.0, axis=axis, method=method),
        atol=1e-5,
    )
    close(jnp.median(x, axis=axis, keepdims=True), np.median(x, axis=axis, keepdims=True))
    y = x.copy()
    y[1, 2] = np.nan
    close(jnp.nanmedian(y, axis=axis), np.nanmedian(y, axis=axis))
    assert np.isnan(np.asarray(jnp.median(y))).all()


def test_more_numpy_functions():
    x = rand(3, 4)
    close(jnp.diff(x, 2, axis=1), np.diff(x, 2, axis=1))
    close(jnp.diff(x, prepend=0.0), np.diff(x, prepend=0.0))
    close(jnp.trapezoid(x, dx=0.5), np.trapezoid(x, dx=0.5))
    close(jnp.cov(x), np.cov(x), atol=1e-6)
    close(jnp.corrcoef(x), np.corrcoef(x), atol=1e-5)
    close(jnp.nanstd(x, axis=0), np.nanstd(x, axis=0))
    np.testing.assert_array_equal(np.asarray(jnp.bincount(jnp.array([0, 3, 3]), length=5)), [1, 0, 0, 2, 0])
    np.testing.assert_array_equal(np.asarray(jnp.bincount(np.array([1, 1, 2]))), np.bincount([1, 1, 2]))
    xs = np.linspace(-1, 5, 13).astype(np.float32)
    close(
        jnp.interp(xs, np.array([0.0, 1.0, 3.0]), np.array([1.0, 3.0, 2.0])),
        np.interp(xs, [0, 1, 3], [1, 3, 2]),
    )
    close(jnp.delete(x, np.array([0, 2]), axis=1), np.delete(x, [0, 2], axis=1))
    with pytest.raises(TypeError):  # (lists are refused, as by JAX)
        jnp.delete(x, [0, 2], axis=1)
    close(jnp.insert(x, 1, 9.0, axis=1), np.insert(x, 1, 9.0, axis=1))
    close(
        jnp.insert(x, np.array([1, 3]), np.array([[7.0], [8.0], [9.0]]), axis=1),
        np.insert(x, [1, 3], [[7.0], [8.0], [9.0]], axis=1),
    )
    for got, want in zip(jnp.unravel_index(jnp.array([5, 11]), (3, 4)), np.unravel_index([5, 11], (3, 4))):
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(
        np.asarray(jnp.gcd(jnp.array([12, -18, 0]), jnp.array([8, 12, 5]))), np.gcd([12, -18, 0], [8, 12, 5])
    )
    np.testing.assert_array_equal(
        np.asarray(jnp.lcm(jnp.array([4, 6]), jnp.array([6, 4]))), np.lcm([4, 6], [6, 4])
    )
    np.testing.assert_array_equal(
        np.asarray(jnp.isin(jnp.arange(5), jnp.array([1, 3]))), np.isin(np.arange(5), [1, 3])
    )
    close(jnp.vectorize(lambda a, b: a * b + 1)(x, 2.0), x * 2 + 1)
    close(
        jnp.apply_along_axis(lambda v: v[::-1].cumsum(), 1, x),
        np.apply_along_axis(lambda v: v[::-1].cumsum(), 1, x),
    )
    close(jnp.block([[x, x], [x, x]]), np.block([[x, x], [x, x]]))
    close(jnp.asarray(x)[jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3]))], x[np.ix_([0, 2], [1, 3])])
    close(jnp.vander(x[0]), np.vander(x[0]), rtol=1e-5)
    close(jnp.polyval(jnp.array([1.0, 0.0, -1.0]), x), np.polyval([1.0, 0.0, -1.0], x), rtol=1e-5)
    close(jnp.fill_diagonal(x, 5.0, inplace=False), np.where(np.eye(3, 4, dtype=bool), 5.0, x))
    close(jnp.resize(jnp.arange(3), (2, 4)), np.resize(np.arange(3), (2, 4)))
    for got, want in zip(jnp.modf(x), np.modf(x)):
        close(got, want)
    r = rand(2, 3, 4)
    close(jnp.rollaxis(r, 2), np.rollaxis(r, 2))
    close(jnp.rollaxis(r, 0, 2), np.rollaxis(r, 0, 2))
    assert [u.shape for u in jnp.unstack(x, axis=1)] == [(3,)] * 4


def test_ldexp_stays_finite_where_the_result_is_and_rejects_float_exponents():
    x1 = np.array([1e-30, 0.5, -3.0, np.inf, 0.0], np.float32)
    x2 = np.array([120, 3, 130, 2, 5], np.int32)
    for fn in (jnp.ldexp, jax.jit(jnp.ldexp)):
        np.testing.assert_allclose(np.asarray(fn(x1, x2)), np.ldexp(x1, x2), rtol=1e-6)
    with pytest.raises(ValueError, match="ldexp not supported"):
        jnp.ldexp(1.0, 2.0)


def test_nan_reductions_all_nan_slices_as_jax():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]], np.float32)
    # JAX 0.10.2: NaN where every element is NaN (nanmax/nanmin/nanmean/nanvar), -1 for nanargmax/min
    np.testing.assert_array_equal(np.asarray(jnp.nanmax(x, axis=1)), [3.0, np.nan])
    np.testing.assert_array_equal(np.asarray(jnp.nanmin(x, axis=1)), [1.0, np.nan])
    np.testing.assert_array_equal(np.asarray(jnp.nanmean(x, axis=1)), [2.0, np.nan])
    np.testing.assert_array_equal(np.asarray(jnp.nanvar(x, axis=1)), [1.0, np.nan])
    np.testing.assert_array_equal(np.asarray(jnp.nanargmax(x, axis=1)), [2, -1])
    np.testing.assert_array_equal(np.asarray(jnp.nanargmin(x, axis=1)), [0, -1])
    np.testing.assert_array_equal(np.asarray(jnp.nanmax(x, axis=1, initial=0.0)), [3.0, 0.0])
    np.testing.assert_array_equal(np.asarray(jax.jit(jnp.nanmax)(x)), 3.0)


# make_jaxpr(grad(lambda x, i: x ** (i + 1)))(float32(0.9), int32(3)) as JAX 0.10.2 prints it, but for
# the unused convert_element_type of the exponent that jnp.power's promotion leaves in the engine's trace.
_GRAD_POW_TRACED_INT_EXPONENT = """{ lambda ; a:f32[] b:i32[]. let
    c:i32[] = add b 1:i32[]
    _:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    _:f32[] = pow a c
    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
    e:bool[] = eq d 0.0:f32[]
    f:bool[] = eq d 0.0:f32[]
    g:f32[] = select_n f d 1.0:f32[]
    h:f32[] = sub d 1.0:f32[]
    i:f32[] = pow a h
    j:f32[] = mul g i
    k:f32[] = select_n e j 0.0:f32[]
    l:f32[] = mul 1.0:f32[] k
  in (l,) }"""


def test_float_base_to_a_traced_integer_exponent():
    """lax.pow takes an integer exponent, as JAX's pow_p (optimizers.adam computes b1 ** (i + 1))."""
    from engine import lax

    f = lambda x, i: x ** (i + 1)  # noqa: E731
    x, i = jnp.float32(0.9), jnp.int32(3)
    np.testing.assert_allclose(f(x, i), 0.9**4, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(f)(x, i), 0.9**4, rtol=1e-6)
    assert f(x, i).dtype == jnp.float32 and lax.pow(2.0, i).dtype == jnp.float32
    np.testing.assert_allclose(jax.grad(f)(x, i), 4 * 0.9**3, rtol=1e-6)
    assert jax.grad(f)(jnp.float32(0.0), jnp.int32(-1)) == 0.0  # x ** 0: JAX selects 0, not 0 * inf
    check_grads(lambda x: f(x, i), (jnp.float32(1.3),), order=2)
    np.testing.assert_allclose(jax.vmap(f)(jnp.full(3, 2.0), jnp.arange(3)), [2.0, 4.0, 8.0])
    assert str(jax.make_jaxpr(jax.grad(f))(x, i)) == _GRAD_POW_TRACED_INT_EXPONENT
    with pytest.raises(TypeError, match="pow does not accept dtype int32 at position 0"):
        lax.pow(jnp.int32(2), jnp.int32(3))


def test_isclose_and_allclose_stage_jaxs_programs():
    # JAX 0.10.2: NaN checks first, integers compared as floats, tolerances as typed constants
    x = jnp.ones(3)
    assert str(jax.make_jaxpr(jnp.isclose)(x, x)) == (
        "let isclose = { lambda ; a:f32[3] b:f32[3]. let\n"
        "    c:bool[3] = ne a a\n"
        "    d:bool[3] = ne b b\n"
        "    e:bool[3] = and c d\n"
        "    f:bool[3] = is_finite b\n"
        "    g:f32[3] = sub a b\n"
        "    h:f32[3] = abs g\n"
        "    i:f32[3] = abs b\n"
        "    j:f32[3] = mul 9.999999747378752e-06:f32[] i\n"
        "    k:f32[3] = add 9.99999993922529e-09:f32[] j\n"
        "    l:bool[3] = le h k\n"
        "    m:bool[3] = eq a b\n"
        "    n:bool[3] = and f l\n"
        "    o:bool[3] = or m n\n"
        "  in (o,) } in\n"
        "{ lambda ; p:f32[3] q:f32[3]. let\n"
        "    r:bool[3] = jit[name=isclose jaxpr=isclose] p q\n"
        "  in (r,) }"
    )
    assert str(jax.make_jaxpr(jnp.allclose)(x, x)) == (
        "let isclose = { lambda ; a:f32[3] b:f32[3] c:f32[] d:f32[]. let\n"
        "    e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "    f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d\n"
        "    g:bool[3] = ne a a\n"
        "    h:bool[3] = ne b b\n"
        "    i:bool[3] = and g h\n"
        "    j:bool[3] = is_finite b\n"
        "    k:f32[3] = sub a b\n"
        "    l:f32[3] = abs k\n"
        "    m:f32[3] = abs b\n"
        "    n:f32[3] = mul e m\n"
        "    o:f32[3] = add f n\n"
        "    p:bool[3] = le l o\n"
        "    q:bool[3] = eq a b\n"
        "    r:bool[3] = and j p\n"
        "    s:bool[3] = or q r\n"
        "  in (s,) } in\n"
        "{ lambda ; t:f32[3] u:f32[3]. let\n"
        "    v:bool[] = jit[\n"
        "      name=allclose\n"
        "      jaxpr={ lambda ; t:f32[3] u:f32[3]. let\n"
        "          w:bool[3] = jit[name=isclose jaxpr=isclose] t u 1e-05:f32[] 1e-08:f32[]\n"
        "          v:bool[] = reduce_and[axes=(0,)] w\n"
        "        in (v,) }\n"
        "    ] t u\n"
        "  in (v,) }"
    )
    assert bool(jnp.isclose(100000000, 100000001))  # (as float32 they are one number)
    np.testing.assert_array_equal(jnp.isclose(jnp.array([1, 2]), jnp.array([1, 3])), [True, False])
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    a = np.array([nan, inf, -inf, 1.0, inf], np.float32)
    b = np.array([nan, inf, inf, 1.0 + 1e-6, 1.0], np.float32)
    np.testing.assert_array_equal(jnp.isclose(a, b), np.isclose(a, b))
    np.testing.assert_array_equal(jnp.isclose(a, b, equal_nan=True), np.isclose(a, b, equal_nan=True))


def test_engine_float_exceptions_print_no_numpy_warnings_but_the_users_numpy_still_warns():
    # JAX computes 0 * inf, log(0) and overflow silently (XLA's IEEE values); the engine's numpy calls
    # must not print RuntimeWarnings into the user's output. Run in a fresh interpreter with every
    # warning shown once per call site, as a user's script sees them.
    import subprocess
    import sys

    program = """
import numpy as np
import engine as jax, engine.numpy as jnp
from engine.scipy.special import xlogy
print(xlogy(0., 0.), jnp.array(0.) * jnp.inf, jnp.log(jnp.zeros(2)), jnp.float32(1e38) * 10)
print(jax.jit(lambda x: x * jnp.inf)(0.), jax.grad(lambda x: jnp.sqrt(x))(0.))
np.log(np.zeros(1))
"""
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", program], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.0", "nan", "[-inf", "-inf]", "inf", "nan", "inf"]
    warned = [line for line in done.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warned) == 1 and "divide by zero encountered in log" in warned[0], done.stderr
