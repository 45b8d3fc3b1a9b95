"""jnp dtype promotion: JAX's lattice with weak types, x64 off."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp


def arr(dtype, weak=False):
    """A 1-element array of ``dtype`` (weak arrays come from Python scalars through jnp)."""
    if weak:
        return {"int32": jnp.asarray(1), "float32": jnp.asarray(1.0)}[dtype]
    return jnp.ones(2, dtype=dtype)


STRONG_TABLE = [
    ("bool", "bool", "bool"),
    ("bool", "int8", "int8"),
    ("bool", "uint8", "uint8"),
    ("bool", "float32", "float32"),
    ("uint8", "int8", "int16"),
    ("uint8", "uint16", "uint16"),
    ("uint16", "int16", "int32"),
    ("uint32", "int32", "int32"),
    ("int8", "int16", "int16"),
    ("int32", "float16", "float16"),
    ("int16", "float32", "float32"),
    ("float16", "float32", "float32"),
    ("int32", "float32", "float32"),
    ("uint8", "float16", "float16"),
    ("int8", "uint32", "int32"),
]


@pytest.mark.parametrize("a,b,want", STRONG_TABLE)
def test_strong_promotion(a, b, want):
    out = jnp.add(jnp.ones(2, a), jnp.ones(2, b))
    assert out.dtype == np.dtype(want)
    assert not out.weak_type
    assert jnp.result_type(np.dtype(a), np.dtype(b)) == np.dtype(want)


@pytest.mark.parametrize(
    "dtype,scalar,want,weak",
    [
        ("float32", 2.0, "float32", False),
        ("int32", 2.0, "float32", True),
        ("int32", 2, "int32", False),
        ("uint8", 2, "uint8", False),
        ("int8", 3, "int8", False),
        ("float16", 2.0, "float16", False),
        ("bool", 1, "int32", True),
        ("bool", 1.5, "float32", True),
        ("uint32", 2.5, "float32", True),
        ("bool", True, "bool", False),
    ],
)
def test_python_scalars_are_weak(dtype, scalar, want, weak):
    x = jnp.ones(3, dtype)
    out = x * scalar if dtype != "bool" or isinstance(scalar, bool) else x + scalar
    assert out.dtype == np.dtype(want) and out.weak_type == weak
    rev = scalar * x if dtype != "bool" or isinstance(scalar, bool) else scalar + x
    assert rev.dtype == np.dtype(want) and rev.weak_type == weak


def test_weak_arrays_and_scalars():
    w = jnp.asarray(1.0)
    assert w.weak_type and w.dtype == np.float32
    assert not jnp.array([1.0]).weak_type
    assert (w + 1).weak_type and (w + 1).dtype == np.float32
    assert jnp.asarray(1).weak_type and jnp.asarray(1).dtype == np.int32
    # A weak float meets a strong float16: float16 wins.
    assert (w + jnp.ones(2, jnp.float16)).dtype == np.float16
    # Weak int + weak float -> weak float.
    assert jnp.result_type(1, 2.0, return_weak_type_flag=True) == (np.dtype("float32"), True)
    assert jnp.sin(1).dtype == np.float32 and jnp.sin(1).weak_type
    assert not jnp.sin(jnp.arange(3)).weak_type and jnp.sin(jnp.arange(3)).dtype == np.float32
    assert jnp.zeros_like(2.0).weak_type
    assert not jnp.ones(3).astype(jnp.float32).weak_type


def test_canonicalization_x64_off():
    assert jnp.array([1.5, 2.0]).dtype == np.float32
    assert jnp.array([1, 2]).dtype == np.int32
    assert jnp.array([1, 2.5]).dtype == np.float32
    assert jnp.array([True, 2]).dtype == np.int32
    assert jnp.asarray(np.arange(3.0)).dtype == np.float32
    assert jnp.asarray(np.arange(3, dtype=np.int64)).dtype == np.int32
    assert jnp.zeros(2, jnp.float64).dtype == np.float32
    assert jnp.float64(1.5).dtype == np.float32
    # A float64 numpy operand is strong float32 after canonicalization.
    out = jnp.arange(3) + np.float64(1.0)
    assert out.dtype == np.float32 and not out.weak_type
    assert jnp.arange(3.0).dtype == np.float32 and jnp.arange(3).dtype == np.int32
    assert jnp.linspace(0, 1, 5).dtype == np.float32


def test_python_int_overflow_raises():
    with pytest.raises(OverflowError):
        jnp.ones(2, jnp.int8) + 2**40


def test_dtype_objects():
    assert np.dtype(jnp.float32) == np.float32
    assert jnp.float32 == np.float32 and jnp.dtype("float32") == np.float32
    assert jnp.issubdtype(jnp.float32, jnp.floating) and not jnp.issubdtype(jnp.int32, jnp.floating)
    assert jnp.issubdtype(jnp.uint8, jnp.integer)
    assert jnp.finfo(jnp.float32).eps == np.finfo(np.float32).eps
    assert jnp.iinfo(jnp.int32).max == 2**31 - 1
    x = jnp.int32(3)
    assert x.dtype == np.int32 and x.shape == ()
    assert jnp.bool_ == np.bool_ and jnp.ones(2, jnp.bool_).dtype == np.bool_
    assert jnp.pi == np.pi and jnp.newaxis is None and np.isinf(jnp.inf) and np.isnan(jnp.nan)


def test_reduction_dtypes():
    assert jnp.sum(jnp.ones(3, jnp.int8)).dtype == np.int32
    assert jnp.sum(jnp.ones(3, jnp.uint8)).dtype == np.uint32
    assert jnp.sum(jnp.ones(3, bool)).dtype == np.int32
    assert jnp.mean(jnp.arange(4)).dtype == np.float32
    assert jnp.sum(jnp.ones(3, jnp.float16)).dtype == np.float16
    assert jnp.sum(jnp.arange(3), dtype=jnp.float32).dtype == np.float32
    assert jnp.argmax(jnp.arange(3.0)).dtype == np.int32
    assert (jnp.arange(3) / 2).dtype == np.float32
    assert (jnp.arange(3) // 2).dtype == np.int32


def test_promotion_under_jit_matches_eager():
    def f(x, y):
        return x * 2.0 + y, x * y

    x, y = jnp.arange(3), jnp.ones(3, jnp.float16)
    eager = f(x, y)
    traced = jax.jit(f)(x, y)
    for a, b in zip(eager, traced):
        assert a.dtype == b.dtype and a.weak_type == b.weak_type
        np.testing.assert_allclose(np.asarray(a), np.asarray(b))


def test_explicit_64_bit_dtypes_warn_of_truncation_as_jax_does():
    # JAX 0.10.2 with x64 off: each call warns once, naming the function; default types do not warn.
    import warnings

    x = jnp.zeros(2, np.int32)
    cases = [
        ("array", "int64", "int32", lambda: jnp.array(1, dtype=jnp.int64)),
        ("zeros", "float64", "float32", lambda: jnp.zeros(3, dtype="float64")),
        ("ones", "uint64", "uint32", lambda: jnp.ones(2, jnp.uint64)),
        ("asarray", "float64", "float32", lambda: jnp.asarray(1.0, dtype=jnp.float64)),
        ("asarray", "complex128", "complex64", lambda: jnp.complex128(1.0)),
        ("arange", "int64", "int32", lambda: jnp.arange(3, dtype=jnp.int64)),
        ("full_like", "float64", "float32", lambda: jnp.full_like(x, 2, np.float64)),
        ("ones_like", "int64", "int32", lambda: jnp.empty_like(x, np.int64)),  # (JAX's name there)
        ("linspace", "float64", "float32", lambda: jnp.linspace(0, 1, 3, dtype=np.float64)),
        ("identity", "int64", "int32", lambda: jnp.identity(2, dtype=np.int64)),
        ("astype", "int64", "int32", lambda: x.astype(np.int64)),
    ]
    for name, requested, truncated, call in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(w.message) for w in caught] == [
            f"Explicitly requested dtype {requested} requested in {name} is not available, and will be "
            f"truncated to dtype {truncated}. To enable more dtypes, set the jax_enable_x64 configuration "
            "option or the JAX_ENABLE_X64 shell environment variable. See "
            "https://github.com/jax-ml/jax#current-gotchas for more."
        ], name
        assert caught[0].category is UserWarning and caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jnp.array(1, dtype=int), jnp.zeros(2, float), jnp.arange(np.int64(3)), jnp.asarray(np.arange(2))
