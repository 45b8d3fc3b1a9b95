"""Indexing (``x[idx]``) and ``x.at[idx]`` updates against numpy, eager, under jit and vmap."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import errors

rng = np.random.default_rng(1)
X = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

I = np.array
INDICES = [
    0,
    -1,
    2,
    (1, 2),
    (0, -1, 3),
    (-3, 1, -5),
    slice(None),
    slice(1, None),
    slice(None, None, -1),
    slice(None, None, 2),
    slice(-2, None),
    slice(5, 1, -2),
    (slice(None), 1),
    (Ellipsis, 2),
    (Ellipsis, None, 2),
    (None, 1),
    (1, None, Ellipsis, None),
    (slice(None), slice(1, 3), slice(None, None, -2)),
    (0, slice(3, 0, -1), slice(0, 5, 3)),
    slice(10, 20),
    slice(-10, 2),
    I([0, 2]),
    I([-1, 0, 0]),
    (I([0, 2]), I([1, 3])),
    (slice(None), I([3, 0, 1])),
    (I([[0], [2]]), I([1, 3])),
    (I([0, 1]), slice(1, 3)),
    (slice(None), I([0, 2]), 1),
    (I([0, 1]), slice(None), I([1, 2])),
    (0, slice(None), I([1, 2])),
    (slice(None), None, I([1, 2])),
    (I([0, 2]), I([1, 3]), I([4, 0])),
    (Ellipsis, I([4, 4, 0])),
    (1, I([[0, 1], [2, 3]])),
    (I([1]), Ellipsis, I([2, 3])),
    (slice(None, None, -1), I([0, 3])),
    I([], dtype=np.int32),
    (I(2), slice(None)),
    (np.int32(1), np.int64(-2)),
]


def _id(i):
    return repr(i).replace("\n", "")[:60]


@pytest.mark.parametrize("idx", INDICES, ids=[_id(i) for i in INDICES])
def test_getitem_matches_numpy(idx):
    want = X[idx]
    got = jnp.asarray(X)[idx]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    # The same index expression with traced operand and traced index arrays.
    arrays = [i for i in (idx if isinstance(idx, tuple) else (idx,)) if isinstance(i, np.ndarray) and i.ndim]

    def f(x, *arrs):
        it = iter(arrs)
        key = tuple(
            next(it) if isinstance(i, np.ndarray) and i.ndim else i
            for i in (idx if isinstance(idx, tuple) else (idx,))
        )
        return x[key if isinstance(idx, tuple) else key[0]]

    got = jax.jit(f)(X, *arrays)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_boolean_masks_outside_tracing():
    x = jnp.asarray(X)
    m = X > 30
    np.testing.assert_array_equal(np.asarray(x[m]), X[m])
    m2 = X[:, :, 0] > 10
    np.testing.assert_array_equal(np.asarray(x[m2]), X[m2])
    np.testing.assert_array_equal(np.asarray(x[1, X[1, :, 0] > 25]), X[1, X[1, :, 0] > 25])
    np.testing.assert_array_equal(np.asarray(x[jnp.asarray(m)]), X[m])
    np.testing.assert_array_equal(np.asarray(x.at[m].set(0.0)), np.where(m, 0, X))
    with pytest.raises(errors.NonConcreteBooleanIndexError, match="boolean indices must be concrete"):
        jax.jit(lambda x: x[x > 30])(X)
    with pytest.raises(IndexError):
        jax.vmap(lambda r: r[r > 3])(X)


def test_out_of_bounds_indices_clamp():
    x = jnp.arange(5.0)
    # JAX never raises for out-of-bounds indices: static ones clamp too (jnp.arange(10)[11] == 9).
    assert float(x[5]) == 4.0
    assert float(jax.jit(lambda x: x[-6])(x)) == 0.0
    # Traced indices clamp (JAX's default for gathers and dynamic slices).
    assert float(jax.jit(lambda x, i: x[i])(x, 7)) == 4.0
    assert float(jax.jit(lambda x, i: x[i])(x, -2)) == 3.0
    np.testing.assert_array_equal(
        np.asarray(jax.jit(lambda x, i: x[i])(x, np.array([0, 9, -1]))), [0.0, 4.0, 4.0]
    )
    with pytest.raises(IndexError, match="(?i)too many indices"):
        x[0, 0]
    with pytest.raises(TypeError, match="integer or boolean"):
        x[jnp.array([1.0])]
    with pytest.raises(TypeError, match="non-tuple sequence"):
        x[[0, 1]]


def test_static_indexing_stays_lean():
    jaxpr = str(jax.make_jaxpr(lambda x: x[1, ::-1, 2:4])(X))
    assert "gather" not in jaxpr and "slice" in jaxpr and "rev" in jaxpr and "squeeze" in jaxpr
    jaxpr = str(jax.make_jaxpr(lambda x, i: x[i])(X, 1))
    assert "dynamic_slice" in jaxpr and "gather" not in jaxpr
    jaxpr = str(jax.make_jaxpr(lambda x, i: x[:, i])(X, np.array([0, 1])))
    assert "gather" in jaxpr


def _np_update(op, x, idx, v):
    out = x.copy()
    if op == "set":
        out[idx] = v
    elif op == "add":
        np.add.at(out, idx, v)
    elif op == "multiply":
        np.multiply.at(out, idx, v)
    elif op == "min":
        np.minimum.at(out, idx, v)
    elif op == "max":
        np.maximum.at(out, idx, v)
    return out


UPDATE_INDICES = [
    1,
    -1,
    (1, 2),
    slice(1, 3),
    (slice(None), 2),
    (Ellipsis, slice(None, None, 2)),
    (0, slice(4, 0, -2)),
    I([0, 2]),
    I([2, 2, 0]),
    (I([0, 2]), I([1, 3])),
    (slice(None), I([3, 0, 3])),
    (I([0, 1]), slice(None), I([1, 2])),
    (1, None, I([1, 2])),
    (I([[0], [2]]), I([1, 3]), 0),
]


@pytest.mark.parametrize("op", ["set", "add", "multiply", "min", "max"])
@pytest.mark.parametrize("idx", UPDATE_INDICES, ids=[_id(i) for i in UPDATE_INDICES])
def test_at_updates_match_numpy(op, idx):
    v = rng.uniform(-5, 5, X[idx].shape).astype(np.float32)
    got = getattr(jnp.asarray(X).at[idx], op)(v)
    # numpy's ufunc.at has no newaxis: compare with the same index without the None.
    parts = idx if isinstance(idx, tuple) else (idx,)
    plain = tuple(i for i in parts if i is not None)
    want = _np_update(op, X, plain, v.reshape(X[plain].shape))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    got_jit = jax.jit(lambda x, v: getattr(x.at[idx], op)(v))(X, v)
    np.testing.assert_allclose(np.asarray(got_jit), want, rtol=1e-6)


def test_at_misc():
    x = jnp.arange(5.0)
    np.testing.assert_array_equal(np.asarray(x.at[1].set(9)), [0, 9, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(x.at[:].add(1)), np.arange(5.0) + 1)
    # Out-of-bounds updates are dropped; broadcasting of the update value.
    np.testing.assert_array_equal(np.asarray(x.at[jnp.array([1, 7])].set(-1.0)), [0, -1, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(x.at[jnp.array([-1])].set(-1.0)), [0, 1, 2, 3, -1])
    np.testing.assert_allclose(np.asarray(x.at[1:3].divide(2.0)), [0, 0.5, 1, 3, 4])
    np.testing.assert_allclose(np.asarray(x.at[2].power(2)), [0, 1, 4, 3, 4])
    np.testing.assert_array_equal(
        np.asarray(x.at[jnp.array([0, 9])].get(mode="fill", fill_value=-1.0)), [0, -1]
    )
    np.testing.assert_array_equal(np.asarray(x.at[jnp.array([0, 9])].get()), [0, 4])
    assert x.at[1].set(2).dtype == np.float32
    y = jnp.zeros((2, 3), jnp.int32).at[0].set(jnp.array([1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(y), [[1, 2, 3], [0, 0, 0]])
    with pytest.raises(ValueError):
        x.at[1:3].set(jnp.ones(3))
    np.testing.assert_array_equal(np.asarray(x.at[1].apply(lambda v: v * 10)), [0, 10, 2, 3, 4])


def test_at_traced_scalar_index_and_grad():
    f = jax.jit(lambda x, i, v: x.at[i].set(v))
    np.testing.assert_array_equal(np.asarray(f(jnp.zeros(4), 2, 5.0)), [0, 0, 5, 0])
    g = jax.grad(lambda v: jnp.sum(jnp.zeros(4).at[jnp.array([1, 1, 2])].add(v) ** 2))(3.0)
    assert float(g) == pytest.approx(2 * 6 * 2 + 2 * 3)
    g = jax.grad(lambda x: jnp.sum(x.at[0].set(0.0) * jnp.arange(4.0)))(jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(g), [0, 1, 2, 3])


def test_vmap_of_indexing_and_updates():
    xs = jnp.asarray(X)
    idx = np.array([0, 3, 1], np.int32)
    out = jax.vmap(lambda x, i: x[i, 1:3])(xs, idx)
    np.testing.assert_array_equal(np.asarray(out), np.stack([X[b, i, 1:3] for b, i in enumerate(idx)]))
    out = jax.vmap(lambda x, i: x.at[i].add(1.0))(xs, idx)
    np.testing.assert_array_equal(
        np.asarray(out), np.stack([_np_update("add", X[b], i, 1.0) for b, i in enumerate(idx)])
    )
    out = jax.vmap(lambda i: xs[:, i])(jnp.array([[0, 1], [2, 3]]))
    np.testing.assert_array_equal(np.asarray(out), np.stack([X[:, [0, 1]], X[:, [2, 3]]]))


def test_take_and_take_along_axis():
    x = jnp.asarray(X)
    np.testing.assert_array_equal(
        np.asarray(jnp.take(x, jnp.array([4, 0]), axis=2)), np.take(X, [4, 0], axis=2)
    )
    np.testing.assert_array_equal(np.asarray(jnp.take(x, jnp.array([1, 3]))), np.take(X, [1, 3]))
    got = np.asarray(jnp.take(jnp.arange(3.0), jnp.array([0, 5, -1])))
    np.testing.assert_array_equal(got[[0, 2]], [0.0, 2.0]) and np.isnan(got[1])
    assert np.isnan(got[1])
    np.testing.assert_array_equal(np.asarray(jnp.take(jnp.arange(3), jnp.array([5]), mode="clip")), [2])
    np.testing.assert_array_equal(
        np.asarray(jnp.take(jnp.arange(3), jnp.array([4, -4]), mode="wrap")), [1, 2]
    )
    idx = np.argsort(X, axis=1)[:, ::-1]
    np.testing.assert_array_equal(
        np.asarray(jnp.take_along_axis(x, jnp.asarray(idx.copy()), axis=1)),
        np.take_along_axis(X, idx, axis=1),
    )
    idx = rng.integers(0, 5, (3, 1, 2))
    np.testing.assert_array_equal(
        np.asarray(jnp.take_along_axis(x, idx, axis=2)), np.take_along_axis(X, idx, axis=2)
    )


def test_array_methods_and_operators():
    x = jnp.asarray(X)
    assert x.T.shape == (5, 4, 3) and x.mT.shape == (3, 5, 4)
    assert x.reshape(12, 5).shape == (12, 5) and x.reshape((-1,)).shape == (60,)
    assert x.transpose(2, 0, 1).shape == (5, 3, 4) and x.transpose().shape == (5, 4, 3)
    assert x.flatten().shape == (60,) and x[None].squeeze().shape == (3, 4, 5)
    assert x.astype(jnp.int32).dtype == np.int32
    np.testing.assert_allclose(float(x.mean()), X.mean())
    np.testing.assert_allclose(np.asarray(x.std(axis=0)), X.std(axis=0), rtol=1e-5)
    assert int(x.argmax()) == 59 and x.cumsum(axis=0).shape == X.shape
    assert len(x) == 3 and [r.shape for r in x] == [(4, 5)] * 3
    assert x[0, 0, 1].item() == 1.0 and x[0, 0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    a = jnp.arange(6)
    for op in (
        "__add__",
        "__sub__",
        "__mul__",
        "__floordiv__",
        "__mod__",
        "__and__",
        "__or__",
        "__xor__",
        "__lshift__",
        "__rshift__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__eq__",
        "__ne__",
    ):
        np.testing.assert_array_equal(np.asarray(getattr(a, op)(2)), getattr(np.arange(6), op)(2), err_msg=op)
    for op in ("__radd__", "__rsub__", "__rmul__", "__rfloordiv__", "__rmod__", "__rpow__"):
        np.testing.assert_array_equal(
            np.asarray(getattr(a + 1, op)(7)), getattr(np.arange(6) + 1, op)(7), err_msg=op
        )
    np.testing.assert_array_equal(np.asarray(-a), -np.arange(6))
    np.testing.assert_array_equal(np.asarray(~a), ~np.arange(6))
    np.testing.assert_array_equal(np.asarray(abs(a - 3)), np.abs(np.arange(6) - 3))
    np.testing.assert_allclose(np.asarray(a / 4), np.arange(6) / 4)
    np.testing.assert_allclose(np.asarray(2.0 ** jnp.arange(3.0)), [1, 2, 4])
    # numpy arrays on the left defer to Array's reflected operators.
    out = np.arange(3.0) + jnp.arange(3.0)
    assert isinstance(out, jax.Array) and out.dtype == np.float32
    out = np.ones((2, 3)) @ jnp.ones((3, 2))
    assert isinstance(out, jax.Array)
    assert isinstance(jnp.ones(3), jnp.ndarray)
    assert a + None if False else True
    with pytest.raises(TypeError):
        a + "x"


def test_tracer_methods():
    def f(x):
        assert isinstance(x, jnp.ndarray)
        return (x.T @ x).sum(axis=0).max() + x.at[0].set(1.0).mean() + x[1:, 0].prod() + x.var()

    x = rng.uniform(size=(3, 3)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(x)), np.asarray(f(jnp.asarray(x))), rtol=1e-5)
    with pytest.raises(errors.ConcretizationTypeError):
        jax.jit(lambda x: x.item())(x)
    with pytest.raises(errors.TracerBoolConversionError):
        jax.jit(lambda x: 1 if x[0, 0] > 0 else 0)(x)


def test_eager_fast_path_matches_general_path():
    x = jnp.arange(5.0)
    for a, b in [(x, x), (x, 2.0), (2.0, x), (jnp.arange(5), 3), (jnp.asarray(2.0), jnp.asarray(3.0))]:
        for op in ("add", "subtract", "multiply", "true_divide", "maximum", "less", "equal"):
            f = getattr(jnp, op)
            fast = f(a, b)  # (jnp.add etc. are ufuncs: their call is the plain function below)
            slow = getattr(f, "_func", f)._general(a, b)
            assert fast.dtype == slow.dtype and fast.weak_type == slow.weak_type, (op, a, b)
            np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
    y = x + x
    with pytest.raises(ValueError):
        np.asarray(y)[0] = 1.0  # handed-out buffers are read-only


def test_scatter_add_of_booleans_is_a_type_error_as_in_jax():
    # JAX traces lax.add on the dtype as the scatter's combiner: booleans are refused there (its
    # message, recorded from JAX 0.10.2); max combines booleans.
    with pytest.raises(
        TypeError, match=r"add does not accept dtype bool at position 0\. Accepted dtypes at "
    ):
        jnp.zeros(3, bool).at[1].add(True)
    np.testing.assert_array_equal(np.asarray(jnp.zeros(3, bool).at[1].max(True)), [False, True, False])


def test_ds_slices_differentiate_and_batch():
    """``x[jax.ds(i, n, s)]`` and ``x.at[jax.ds(i, n)].add(v)`` at a traced start: derivatives
    against finite differences (both modes, second order), vmap against a loop over starts."""
    from engine.test_util import check_batching, check_grads

    x = np.linspace(-1.0, 1.0, 12).astype(np.float32).reshape(3, 4)
    read = jax.jit(lambda x, i: jnp.sin(x[jax.ds(i, 2), jax.ds(1, 3)]) * x[1, jax.ds(i, 2, 2)].sum())
    check_grads(lambda x: read(x, jnp.int32(1)), (x,), order=2, atol=1e-2, rtol=1e-2)
    write = jax.jit(lambda x, v, i: x.at[jax.ds(i, 2)].add(v**2))
    check_grads(lambda x, v: write(x, v, jnp.int32(1)), (x, x[:2] + 0.5), order=1, atol=1e-2, rtol=1e-2)
    starts = np.array([0, 1, 2, 5], np.int32)
    check_batching(lambda i: read(x, i), [starts], 0)
    check_batching(lambda x, i: jnp.asarray(x)[jax.ds(i, 2)], [np.stack([x, -x, 2 * x, x]), starts], 0)
