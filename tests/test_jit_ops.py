"""Indexing, structural, scan-like and call primitives lowered by the numba backend, each
against the interpreter (values, dtypes) and with no interpreter fallback: slice, rev, iota, pad,
concatenate, dynamic_slice, dynamic_update_slice, gather and scatter (the forms jnp indexing and
``.at[]`` produce, plus clip/fill modes), clamp, copy, stop_gradient, reduce_prod/and/or/xor,
argmax/argmin, cumulative reductions, split, custom_jvp/custom_vjp calls, debug callbacks,
bitcast_convert_type (bit for bit)."""

import importlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.backends import rows
from engine.core import Array
from engine.lax import slicing as sl
from conftest import numba_backend

jit_mod = importlib.import_module("engine.jit")
nb_jit = numba_backend()
rng = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kernels"))


def check(f, *args, rtol=1e-6, atol=0.0, fused=None):
    """jit(f) on numba equals jit(f) on the interpreter, without fallbacks; returns the source."""
    args = [a if isinstance(a, Array) else Array(np.asarray(a)) for a in args]
    closed = jax.jit(f).lower(*args).jaxpr
    exe = nb_jit.NumbaBackend().compile(closed, "f")
    assert exe.fallbacks == [], exe.fallbacks
    got = exe(*[np.asarray(a) for a in args])
    want = jit_mod.Interpreter().compile(closed, "f")(*[np.asarray(a) for a in args])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if fused is not None:
        assert exe.source.count("@nb.njit") == fused, exe.source
    return exe.source


def f32(*shape):
    return rng.normal(size=shape).astype(np.float32)


@pytest.mark.parametrize(
    "start,limit,strides", [((1, 0), (4, 5), None), ((0, 1), (5, 5), (2, 3)), ((2, 2), (2, 4), None)]
)
def test_slice_fuses(start, limit, strides):
    x = f32(5, 5)
    check(lambda x: lax.mul(sl.slice(lax.exp(x), start, limit, strides), 2.0), x)


def test_slices_of_one_value_fuse_with_the_consumer():
    # x[1:] - x[:-1] (a diff) reads x twice, writes once, in a single kernel.
    src = check(lambda x: jnp.tanh(x[1:] - x[:-1]), f32(1000), fused=1)
    assert src.count("np.empty(") == 1


def test_rev_iota_pad_concatenate():
    x = f32(3, 4)
    check(lambda x: lax.rev(x, (0, 1)) + lax.rev(x, (1,)), x)
    check(lambda x: x + lax.broadcasted_iota(np.float32, (3, 4), 1), x)
    check(lambda: lax.broadcasted_iota(np.int32, (2, 5), 0) * 3 + lax.iota(np.int32, 5))
    for config in [((1, 2, 0), (0, 0, 0)), ((0, 0, 2), (1, -1, 1)), ((-1, 0, 0), (2, -2, 0))]:
        check(lambda x: lax.pad(x, np.float32(-7.0), config), x)
    check(lambda x: lax.pad(x, np.float32(1.5), ((1, 1, 0), (0, 0, 0))), np.zeros((0, 4), np.float32))
    check(lambda x, y: lax.concatenate([x, y, x * 2], 1), x, f32(3, 2))
    check(lambda x, y: lax.concatenate([x, y], 0) * 3, np.zeros((0, 4), np.float32), x)
    check(lambda x: lax.split(x, (1, 3), 1), x)
    # stack and tile (JAX 0.10.2's own primitives) are re-indexings too, fused into their consumers
    check(lambda x, y: jnp.stack([x, y, x * 2], 1) + 1, x, f32(3, 4))
    check(lambda x: jnp.stack([x], 0) * 2, x)
    check(lambda x: jnp.tile(x, (2, 3)) * 2, x)
    check(lambda x: jnp.tile(x, (1, 2)) + jnp.tile(x[:1], (3, 2)), x)


def test_dynamic_slice_and_update_clamp_like_xla():
    x = f32(6, 5)
    for i, j in [(0, 0), (2, 1), (5, 4), (-3, 9), (100, -100)]:
        check(lambda x, i, j: lax.dynamic_slice(x, (i, j), (3, 2)) * 2, x, np.int32(i), np.int32(j))
        check(
            lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)) + 1,
            x,
            f32(2, 3),
            np.int32(i),
            np.int32(j),
        )


def test_jnp_indexing_gathers():
    x = f32(7, 5)
    idx = np.array([0, 6, 3, 3, -1], np.int32)
    check(lambda x, i: x[i], x, idx)
    check(lambda x, i: x[:, i[:3] % 5] * 2, x, idx)
    check(lambda x, i, j: x[i, j], x, idx, np.array([1, 2, 0, 4, 4], np.int32))
    check(lambda x, i: x[i[0]], x, idx)
    check(lambda x: x[::-2, 1:4:2], x)
    # a batched gather (vmap of indexing) and the fill mode of out-of-bounds indices
    check(jax.vmap(lambda row, i: row[i]), x, np.array([0, 4, 1, 2, 3, 0, 1], np.int32))
    check(lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0), x, np.array([0, 7, -8, 3], np.int32))


@pytest.mark.parametrize("op", ["set", "add", "multiply", "min", "max"])
def test_at_scatters_with_duplicates(op):
    x = f32(6, 3)
    idx = np.array([1, 4, 1, 0, 5, 1], np.int32)
    upd = f32(6, 3)
    check(lambda x, i, u: getattr(x.at[i], op)(u), x, idx, upd, rtol=1e-5)
    check(lambda x, i: getattr(x.at[i, 2], op)(2.0), x, idx)
    check(lambda x: getattr(x.at[2:4], op)(5.0), x)


def test_scatter_modes_and_integer_dtypes():
    x = rng.integers(-5, 5, size=(8,)).astype(np.int32)
    idx = np.array([0, 9, 3, -2, 3], np.int32)
    check(lambda x, i: x.at[i].add(1, mode="drop"), x, idx)
    check(lambda x, i: x.at[i].set(7, mode="clip"), x, idx)
    b = rng.random(8) > 0.5
    check(lambda b, i: b.at[i].set(True, mode="drop"), b, idx)


def test_clamp_copy_stop_gradient():
    x = f32(4, 5)
    x[0, 0] = np.nan
    check(lambda x: lax.clamp(np.float32(-0.5), x, np.float32(0.5)), x)
    check(lambda x, lo, hi: lax.clamp(lo, x, hi), x, f32(4, 5) - 1, f32(4, 5) + 1)
    check(lambda x: lax.clamp(np.int32(-2), x, np.int32(3)), rng.integers(-9, 9, (5,)).astype(np.int32))
    check(lambda x: lax.stop_gradient(x) * 2 + jnp.copy(x), x)


@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1)])
def test_more_reductions(axes):
    i = rng.integers(-8, 8, size=(4, 5)).astype(np.int32)
    b = rng.random((4, 5)) > 0.3
    check(lambda v: lax.reduce_prod(v, axes), i)
    # (a float32 product is XLA's tree order: the primitive's rule on the host, declined on purpose)
    x = Array((rng.random((4, 5)) + 0.5).astype(np.float32))
    exe = nb_jit.NumbaBackend().compile(jax.jit(lambda x: lax.reduce_prod(x, axes)).lower(x).jaxpr, "f")
    assert exe.fallbacks == ["reduce_prod"] and "reduce_prod" in rows.DECLINED
    np.testing.assert_allclose(np.asarray(exe(np.asarray(x))[0]), np.prod(np.asarray(x), axes), rtol=1e-6)
    for op in (lax.reduce_and, lax.reduce_or, lax.reduce_xor):
        check(lambda v: op(v, axes), i)
        check(lambda v: op(v, axes), b)


def test_argmax_argmin_and_cumulative():
    x = f32(4, 6)
    x[1, 2] = np.nan
    for axis in (0, 1):
        check(lambda x: lax.argmax(x, axis, np.int32), x)
        check(lambda x: lax.argmin(x * 2, axis, np.int32), x)
        for name in ("cumsum", "cumprod", "cummax", "cummin"):
            for reverse in (False, True):
                check(lambda x: getattr(lax, name)(x, axis=axis, reverse=reverse), x, rtol=1e-5)
    check(lambda x: lax.cumsum(x, axis=0), np.zeros((0, 3), np.float32))


def test_custom_derivative_calls_are_inlined():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    softplus.defjvp(
        lambda primals, tangents: (
            softplus(primals[0]),
            tangents[0] * jax.nn.sigmoid(primals[0]) if hasattr(jax, "nn") else tangents[0],
        )
    )

    @jax.custom_vjp
    def clip_grad(x):
        return x * 1.0

    clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))
    x = f32(50)
    # softplus(x) + 2x cancels to ~0 for some x: one float32 ulp of the O(1) terms (1.2e-7) apart
    src = check(lambda x: softplus(x) + clip_grad(x) * 2, x, rtol=1e-5, atol=1e-6, fused=1)
    assert "fb" not in src


def test_debug_callbacks_run_in_program_order():
    seen = []

    def f(x):
        jax.debug.callback(lambda v: seen.append(("a", float(v[0]))), x)
        y = x * 2
        jax.debug.callback(lambda v: seen.append(("b", float(v[0]))), y)
        return y + 1

    x = Array(np.ones(3, np.float32))
    exe = nb_jit.NumbaBackend().compile(jax.jit(f).lower(x).jaxpr, "f")
    seen.clear()
    assert exe.fallbacks == []
    out = exe(np.asarray(x))
    assert seen == [("a", 1.0), ("b", 2.0)]
    np.testing.assert_allclose(out[0], 3.0)


def _bits(a):
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a


@pytest.mark.parametrize(
    "src,dst",
    [("float32", "uint32"), ("uint32", "float32"), ("float32", "int32"), ("int32", "float32")]
    + [("int8", "uint8"), ("uint8", "int8"), ("uint16", "int16")],
)
def test_bitcast_convert_type_is_a_view_of_the_same_bits(src, dst):
    # Compiled (no fallback) and interpreted results agree bit for bit, special values included:
    # NaN payloads, -0.0, infinities, subnormals, and integers whose bits are such floats.
    src = np.dtype(src)
    if src.kind == "f":
        x = np.array([0.0, -0.0, 1.5, -np.inf, np.inf, np.nan, 1e-40, 3.0e38], src)  # (float32 only:
        # without x64 the engine's arrays are 32-bit)
        x = np.concatenate([x, rng.normal(size=8).astype(src)])
        x = np.concatenate([x, np.array([0x7FC00001, 0xFF800042, 1], "u4").view(src)])
    else:
        info = np.iinfo(src)
        x = np.array([0, 1, info.min, info.max, info.max // 3, info.min // 5], src)
    arg = Array(x)
    closed = jax.jit(lambda x: lax.bitcast_convert_type(x, dst)).lower(arg).jaxpr
    exe = nb_jit.NumbaBackend().compile(closed, "f")
    assert exe.fallbacks == [], exe.fallbacks
    (got,) = exe(x)
    (want,) = jit_mod.Interpreter().compile(closed, "f")(x)
    assert np.asarray(got).dtype == np.dtype(dst) and np.array_equal(_bits(got), _bits(want))
    np.testing.assert_array_equal(_bits(got), _bits(x.view(dst)))


def test_uniform_sampling_compiles_without_fallback():
    # uniform's mantissa trick (random bits | exponent of 1.0, bitcast to float, minus 1) runs
    # inside the kernel; the samples match the interpreter's bit for bit.
    key = jax.random.PRNGKey(7)
    closed = jax.jit(lambda k: jax.random.uniform(k, (1000,), minval=-2.0, maxval=3.0)).lower(key).jaxpr
    exe = nb_jit.NumbaBackend().compile(closed, "u")
    assert "bitcast_convert_type" not in exe.fallbacks, exe.fallbacks
    k = np.asarray(key)
    (got,) = exe(k)
    (want,) = jit_mod.Interpreter().compile(closed, "u")(k)
    assert np.array_equal(_bits(got), _bits(want)) and -2.0 <= float(np.min(got)) < float(np.max(got)) < 3.0


# dot_general of operands of different dtypes (values and dtypes recorded from JAX 0.10.2): the result
# takes the wider dtype (XLA's order: complex, exponent range, mantissa, bits, signed), both operands
# convert to it; preferred_element_type overrides it.
_MIXED_DOT = [
    ("float32", "int32", "float32"),
    ("int8", "int32", "int32"),
    ("int32", "uint32", "int32"),
    ("float16", "bfloat16", "bfloat16"),
    ("float32", "complex64", "complex64"),
    ("uint8", "int8", "int8"),
    ("bool", "int32", "int32"),
    ("int16", "uint16", "int16"),
    ("int32", "float16", "float16"),
]
_MIXED_DOT_VALUES = {"bool": [[7, 4, 1, 3]] * 2, None: [[10, 8, 1, 4]] * 2}


@pytest.mark.parametrize("a,b,out", _MIXED_DOT)
def test_dot_general_of_mixed_dtypes(a, b, out):
    x = jnp.asarray(np.arange(6).reshape(2, 3) % 3, a)
    y = jnp.asarray(np.arange(12).reshape(3, 4) % 5, b)
    want = np.asarray(_MIXED_DOT_VALUES.get(a, _MIXED_DOT_VALUES[None]))
    for f in (lambda x, y: lax.dot_general(x, y, (((1,), (0,)), ((), ()))), lax.dot):
        r = f(x, y)
        assert r.dtype == np.dtype(out) and jax.make_jaxpr(f)(x, y).out_avals[0].dtype == np.dtype(out)
        np.testing.assert_array_equal(np.asarray(r).astype(np.complex128), want)
        np.testing.assert_array_equal(np.asarray(jax.jit(f)(x, y)).astype(np.complex128), want)
        assert lax.dot(x, y, preferred_element_type="float32").dtype == np.float32
    if not {a, b} & {"float16", "bfloat16", "complex64"}:  # (the dtypes numba kernels take)
        check(lax.dot, x, y)


def test_dot_general_of_mixed_dtypes_grad_and_vmap():
    # As JAX: each cotangent is computed in the result's dtype, then converted to its operand's.
    x = jnp.asarray([[0.5, 1.5, -2.0], [1.0, 2.0, 3.0]], jnp.float32)
    y = jnp.asarray((np.arange(12).reshape(3, 4) % 5) * 0.25, jnp.float16)
    gx, gy = jax.grad(lambda a, b: (lax.dot(a, b) ** 2).sum(), argnums=(0, 1))(x, y)
    assert gx.dtype == np.float32 and gy.dtype == np.float16
    np.testing.assert_allclose(gx, [[0.625, 0.9375, -3.4375], [6.375, 11.5, 14.125]], rtol=1e-3)
    np.testing.assert_allclose(
        gy, [[8.5, 4.625, 2.625, 5.625], [17.0, 7.375, 5.875, 11.875], [25.5, 27.0, 3.5, 12.5]], rtol=1e-3
    )
    dn = (((1,), (0,)), ((), ()))
    text = str(jax.make_jaxpr(jax.grad(lambda a, b: lax.dot_general(a, b, dn).sum(), argnums=(0, 1)))(x, y))
    assert text == (
        "{ lambda ; a:f32[2,3] b:f16[3,4]. let\n"
        "    c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n"
        "    _:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c\n"
        "    d:f32[2,4] = broadcast_in_dim 1.0:f32[]\n"
        "    e:f32[4,3] = dot_general[dimension_numbers=(([0], [0]), ([], []))] d a\n"
        "    f:f32[3,4] = transpose[permutation=(1, 0)] e\n"
        "    g:f16[3,4] = convert_element_type[new_dtype=float16 weak_type=False] f\n"
        "    h:f32[2,3] = dot_general[dimension_numbers=(([1], [1]), ([], []))] d b\n"
        "  in (h, g) }"
    ), text
    xi = jnp.asarray(np.arange(6).reshape(2, 3) % 3, jnp.int32)
    np.testing.assert_array_equal(
        jax.vmap(lax.dot)(xi, jnp.asarray([[0, 1, 2], [4, 0, 1]], jnp.float32)), [5.0, 2.0]
    )
    text = str(
        jax.make_jaxpr(jax.vmap(lambda a, b: lax.dot_general(a, b, dn)))(
            jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4), jnp.float16)
        )
    )
    assert "c:f32[5,2,4] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b" in text, text


def test_dot_general_of_mixed_dtypes_lowers_with_converts():
    # JAX 0.10.2 on CPU converts both operands to the result's dtype (the same-dtype one too).
    lowered = jax.jit(lambda a, b: lax.dot(a, b)).lower(jnp.ones((2, 3)), jnp.ones((3, 4), jnp.int32))
    text = lowered.as_text()
    assert "stablehlo.convert %arg0 : tensor<2x3xf32>" in text, text
    assert "stablehlo.convert %arg1 : (tensor<3x4xi32>) -> tensor<3x4xf32>" in text, text
    assert "(tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>" in text, text
