"""Keyword arguments (and parameter names) of JAX 0.10.2's API that code written for JAX passes:
each called as JAX code calls it, its values checked against numpy, against the call without the
keyword where the keyword must not change the result, or against values recorded from JAX 0.10.2."""

import inspect
import warnings

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
import engine.random as jr
import engine.scipy.linalg as jsl
import engine.scipy.special as jss
from engine import lax


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_array_equal(a, b)


# --- jax.numpy -------------------------------------------------------------------------------


def test_unique_sorted_is_accepted_and_unused():
    x = jnp.array([3, 1, 3, 2])
    same(jnp.unique(x, sorted=False), np.array([1, 2, 3], np.int32))  # (JAX 0.10.2: [1, 2, 3])
    same(jnp.unique(x, sorted=True, size=4), jnp.unique(x, size=4))


@pytest.mark.parametrize("method", ["auto", "compare_all", "binary_search", "sort"])
def test_isin_methods_against_numpy(method):
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 8, (3, 4)), rng.integers(0, 8, 5)
    same(jnp.isin(a, b, method=method), np.isin(a, b))
    same(jnp.isin(a, b, invert=True, method=method), np.isin(a, b, invert=True))
    u = np.array([5, 1, 3])
    same(jnp.isin(u, b, assume_unique=True, method=method), np.isin(u, b))
    x, y = np.array([0.5, np.nan, 2.0, 3.0], np.float32), np.array([np.nan, 2.0, 0.5], np.float32)
    same(jnp.isin(x, y, method=method), np.isin(x, y))  # (NaN is in nothing)
    same(jax.jit(lambda a, b: jnp.isin(a, b, method=method))(a, b), np.isin(a, b))


def test_isin_sort_method_assume_unique_on_repeated_values_as_jax():
    # (recorded from JAX 0.10.2: assume_unique=True on repeated values is undefined, and JAX's
    # 'sort' method gives these)
    p = np.array([4, 7, 5, 0, 3, 3, 3, 7, 1, 3, 5, 2])
    q = np.array([4, 7, 6, 0, 0])
    got = jnp.isin(p, q, method="sort", assume_unique=True)
    same(got, np.array([1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0], bool))


def test_isin_unknown_method():
    with pytest.raises(ValueError, match="method='bogus' is not implemented"):
        jnp.isin(jnp.arange(3), jnp.arange(2), method="bogus")


def test_take_along_axis_wrap_negative_indices():
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    i = np.array([[-1, 0], [2, -3]])
    same(jnp.take_along_axis(x, i, axis=1), np.take_along_axis(x, i, axis=1))
    same(jnp.take_along_axis(x, i, axis=1, wrap_negative_indices=True), np.take_along_axis(x, i, axis=1))
    # (recorded from JAX 0.10.2: unwrapped negative indices are out of bounds, filled or clipped)
    nan = np.nan
    same(
        jnp.take_along_axis(x, i, axis=1, wrap_negative_indices=False),
        np.array([[nan, 1], [6, nan]], np.float32),
    )
    same(
        jnp.take_along_axis(x, i, 1, mode="clip", wrap_negative_indices=False),
        np.array([[1, 1], [6, 4]], np.float32),
    )
    same(
        jax.jit(lambda x, i: jnp.take_along_axis(x, i, 1, wrap_negative_indices=False))(x, i),
        np.array([[nan, 1], [6, nan]], np.float32),
    )
    same(jnp.take_along_axis(x, i), np.take_along_axis(x, i, axis=-1))  # (axis defaults to -1)


def test_renamed_jnp_parameters():
    a, b = np.array([1.0, np.nan, 3.0], np.float32), np.array([2.0, 2.0, np.nan], np.float32)
    same(jnp.fmax(x1=a, x2=b), np.fmax(a, b))
    same(jnp.fmin(x1=a, x2=b), np.fmin(a, b))
    same(jnp.gcd(x1=np.array([12, 18]), x2=8), np.gcd(np.array([12, 18], np.int32), 8))
    same(jnp.lcm(x1=np.array([4, 6]), x2=6), np.lcm(np.array([4, 6], np.int32), 6))
    same(jnp.trunc(x=np.array([-1.5, 2.7], np.float32)), np.trunc(np.array([-1.5, 2.7], np.float32)))
    same(jnp.iscomplex(x=np.array([1.0, 1j])), np.array([False, True]))
    same(jnp.isreal(x=np.array([1.0, 1j])), np.array([True, False]))
    assert jnp.isdtype(dtype=jnp.float32, kind="real floating")
    assert not jnp.isdtype(dtype=jnp.int32, kind=("real floating", "complex floating"))
    z = jnp.empty_like(prototype=np.ones((2, 3), np.int8))
    assert z.shape == (2, 3) and z.dtype == np.int8
    for name in ("left_shift", "bitwise_left_shift", "float_power", "nextafter"):  # (x, y, /)
        assert list(inspect.signature(getattr(jnp, name)).parameters) == ["x", "y"], name
    same(jnp.left_shift(np.int32(1), 3), np.int32(8))


def test_linalg_products_array_api_signatures():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    v = np.arange(3.0, dtype=np.float32)
    same(jnp.linalg.matmul(a, v, preferred_element_type=jnp.float32), a @ v)
    same(jnp.linalg.outer(v, v), np.outer(v, v))
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.linalg.outer(a, v)
    same(jnp.linalg.tensordot(a, a.T, axes=1), np.tensordot(a, a.T, axes=1))
    for name in ("matmul", "outer", "tensordot"):
        params = list(inspect.signature(getattr(jnp.linalg, name)).parameters.values())
        assert [p.name for p in params[:2]] == ["x1", "x2"]
        assert all(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params[:2])


# --- jax.lax ---------------------------------------------------------------------------------


def test_dynamic_slicing_allow_negative_indices():
    x = jnp.arange(10.0)
    same(lax.dynamic_slice(x, (-3,), (2,), allow_negative_indices=True), np.array([7.0, 8.0], np.float32))
    with pytest.raises(ValueError, match="allow_negative_indices=False"):
        lax.dynamic_slice(x, (-3,), (2,), allow_negative_indices=False)
    # a traced negative start is not wrapped: clamped to 0 (recorded from JAX 0.10.2: [0., 1.])
    f = jax.jit(lambda i: lax.dynamic_slice(x, (i,), (2,), allow_negative_indices=False))
    same(f(-3), np.array([0.0, 1.0], np.float32))
    g = jax.jit(lambda i: lax.dynamic_slice_in_dim(x, i, 2, allow_negative_indices=False))
    same(g(-3), np.array([0.0, 1.0], np.float32))
    h = jax.jit(lambda i: lax.dynamic_index_in_dim(x, i, keepdims=False, allow_negative_indices=False))
    same(h(-3), np.float32(0.0))
    same(lax.dynamic_index_in_dim(x, -3, keepdims=False, allow_negative_indices=True), np.float32(7.0))
    u = jax.jit(
        lambda i: lax.dynamic_update_slice(jnp.zeros(5), jnp.ones(2), (i,), allow_negative_indices=False)
    )
    same(u(-1), np.array([1, 1, 0, 0, 0], np.float32))  # (recorded from JAX 0.10.2)
    same(
        lax.dynamic_update_slice_in_dim(x, jnp.ones(2), -3, 0, allow_negative_indices=True),
        np.array([0, 1, 2, 3, 4, 5, 6, 1, 1, 9], np.float32),
    )
    w = jax.jit(lambda i: lax.dynamic_update_index_in_dim(x, 100.0, i, 0, allow_negative_indices=False))
    expect = np.arange(10.0, dtype=np.float32)
    expect[0] = 100.0
    same(w(-3), expect)
    same(lax.dynamic_update_index_in_dim(x, 100.0, -1, 0, allow_negative_indices=True)[-1], np.float32(100.0))


def test_mul_out_dtype():
    x, y = np.array([1, 2, 3], np.int8), np.array([100, 100, 100], np.int8)
    same(lax.mul(x, y, out_dtype=jnp.int32), np.array([100, 200, 300], np.int32))  # (no int8 wrap)
    # (recorded from JAX 0.10.2: the operands are converted first, 1.5 -> 1, 2.5 -> 2, -3.7 -> -3)
    a, b = np.array([1.5, 2.5, -3.7], np.float32), np.array([2.0, 3.0, 1.0], np.float32)
    same(lax.mul(a, b, out_dtype=jnp.int32), np.array([2, 6, -3], np.int32))
    same(lax.mul(a, b, out_dtype=None), a * b)


def test_lax_dot_dimension_numbers():
    a, b = np.ones((2, 3, 4), np.float32), np.arange(40.0, dtype=np.float32).reshape(2, 4, 5)
    got = lax.dot(a, b, dimension_numbers=(((2,), (1,)), ((0,), (0,))))
    same(got, np.einsum("bij,bjk->bik", a, b))
    same(lax.dot(a[0], b[0], dimension_numbers=None), a[0] @ b[0])
    with pytest.raises(ValueError, match="dimension_numbers must be specified"):
        lax.dot(a, b[0])


def test_lax_parameter_names():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    same(lax.reduce_sum(operand=x, axes=(0,)), x.sum(0))
    same(lax.reduce_max(operand=x, axes=(1,)), x.max(1))
    same(lax.reduce_min(operand=x, axes=(1,)), x.min(1))
    same(lax.reshape(operand=x, new_sizes=(3, 2)), x.reshape(3, 2))
    same(lax.transpose(operand=x, permutation=(1, 0)), x.T)
    same(lax.convert_element_type(operand=x, new_dtype=jnp.int32), x.astype(np.int32))
    same(lax.broadcast_in_dim(operand=x[0], shape=(2, 3), broadcast_dimensions=(1,)), np.stack([x[0]] * 2))
    same(lax.broadcast(operand=x[0], sizes=(2,)), np.stack([x[0]] * 2))
    same(lax.squeeze(array=x[None], dimensions=(0,)), x)
    same(lax.expand_dims(array=x, dimensions=(0,)), x[None])
    same(lax.cond(True, lambda v: v + 1, lambda v: v - 1, operand=x), x + 1)
    same(lax.switch(1, [lambda v: v, lambda v: -v], operand=x), -x)
    with pytest.raises(TypeError, match="'operand' keyword"):
        lax.cond(True, lambda v: v, lambda v: v, x, operand=x)
    same(lax.nextafter(x1=np.float32(1), x2=np.float32(2)), np.nextafter(np.float32(1), np.float32(2)))


def test_special_function_parameter_names():
    # (recorded from JAX 0.10.2)
    np.testing.assert_allclose(lax.igamma(a=2.0, x=1.0), 0.26424112915992737, rtol=1e-6)
    np.testing.assert_allclose(lax.igammac(a=2.0, x=1.0), 0.735758900642395, rtol=1e-6)
    np.testing.assert_allclose(lax.igamma_grad_a(a=2.0, x=1.0), -0.27619603276252747, rtol=1e-5)
    np.testing.assert_allclose(lax.polygamma(m=1.0, x=2.5), 0.49035775661468506, rtol=1e-6)
    np.testing.assert_allclose(lax.zeta(x=3.0, q=2.0), 0.2020569145679474, rtol=1e-6)
    same(jss.gammainc(a=2.0, x=1.0), lax.igamma(2.0, 1.0))
    same(jss.gammaincc(a=2.0, x=1.0), lax.igammac(2.0, 1.0))


def test_all_gather_to():
    f = jax.pmap(lambda v: lax.all_gather(v, "i", to="varying"), axis_name="i", devices=jax.devices()[:2])
    same(f(jnp.arange(2.0)), np.array([[0.0, 1.0], [0.0, 1.0]], np.float32))
    with pytest.raises(ValueError, match="unexpected `to`"):
        jax.pmap(lambda v: lax.all_gather(v, "i", to="bogus"), axis_name="i", devices=jax.devices()[:2])(
            jnp.arange(2.0)
        )


def test_scan_split_transpose_accepted():
    def f(c, x):
        return c * x, c + x

    xs = jnp.arange(1.0, 4.0)
    same(lax.scan(f, 1.0, xs, _split_transpose=True)[0], lax.scan(f, 1.0, xs)[0])


# --- jax.random ------------------------------------------------------------------------------


def test_bernoulli_mode():
    k = jr.PRNGKey(0)
    # (recorded from JAX 0.10.2)
    same(jr.bernoulli(k, 0.3, (8,), mode="high"), np.array([0, 0, 0, 0, 0, 1, 0, 0], bool))
    same(
        jr.bernoulli(jr.PRNGKey(1), jnp.array([1e-9, 0.5, 0.999]), mode="high"),
        np.array([False, False, True]),
    )
    same(jr.bernoulli(k, 0.3, (8,), mode="low"), jr.bernoulli(k, 0.3, (8,)))
    same(
        jax.jit(lambda k: jr.bernoulli(k, 0.3, (8,), mode="high"))(k), jr.bernoulli(k, 0.3, (8,), mode="high")
    )
    with pytest.raises(ValueError, match="expected 'high' or 'low'"):
        jr.bernoulli(k, 0.3, (2,), mode="mid")


def test_choice_mode():
    p = jnp.array([0.1, 0.2, 0.3, 0.2, 0.2])
    # (recorded from JAX 0.10.2)
    same(jr.choice(jr.PRNGKey(0), 5, (3,), replace=False, p=p, mode="high"), np.array([2, 3, 4], np.int32))
    p6 = jnp.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.1])
    same(jr.choice(jr.PRNGKey(7), 6, (4,), replace=False, p=p6, mode="low"), np.array([1, 4, 0, 2], np.int32))
    k = jr.PRNGKey(3)
    same(jr.choice(k, 5, (4,), mode="high"), jr.choice(k, 5, (4,)))  # (unused with replacement)


def test_key_dtype_and_impl_spec():
    assert jr.key(0, dtype="rbg").dtype == jr.key_dtype(impl_spec="rbg")
    same(jr.key_data(jr.key(5, dtype=jr.key_dtype("threefry2x32"))), jr.key_data(jr.key(5)))
    with pytest.raises(ValueError, match="Cannot specify both"):
        jr.key(0, impl="rbg", dtype="rbg")


# --- jax -------------------------------------------------------------------------------------


def test_checkpoint_static_argnames_accepted_and_unused():
    # (as JAX 0.10.2: the named keyword is traced like the others)
    f = jax.checkpoint(lambda x, *, n: x * n, static_argnames=("n",))
    same(f(2.0, n=3), jnp.asarray(6.0))
    same(jax.grad(lambda x: f(x, n=3.0))(2.0), jnp.asarray(3.0))
    g = jax.checkpoint(static_argnames=("n",))(lambda x, *, n: x + n)
    same(g(1.0, n=2.0), jnp.asarray(3.0))


def test_jit_compiler_options_accepted():
    f = jax.jit(lambda x: x * 2 + 1, compiler_options={"xla_cpu_enable_fast_math": False})
    same(f(jnp.arange(3.0)), np.array([1.0, 3.0, 5.0], np.float32))


def test_devices_keywords():
    assert jax.device_count(backend="cpu") == jax.device_count() == len(jax.devices())
    assert jax.local_devices(process_index=0, backend="cpu") == jax.local_devices()
    with pytest.warns(UserWarning, match="renamed from `host_id` to `process_index`"):
        assert jax.local_devices(host_id=0) == jax.local_devices()
    with pytest.raises(ValueError, match="Unknown process_index 1"):
        jax.local_devices(process_index=1)
    with pytest.raises(RuntimeError, match="Unknown backend"):
        jax.device_count(backend="tpu")


def test_vjp_reduce_axes():
    y, f_vjp = jax.vjp(lambda x: x * 2.0, 1.5, reduce_axes=())
    same(f_vjp(1.0)[0], jax.vjp(lambda x: x * 2.0, 1.5)[1](1.0)[0])
    with pytest.raises(NotImplementedError, match="reduce_axes argument to vjp is deprecated"):
        jax.vjp(lambda x: x, 1.0, reduce_axes=("i",))


def test_vmap_sum_match():
    f = jax.vmap(lambda x, y: (x * y, y), in_axes=(0, None), out_axes=(None, None), sum_match=True)
    total, y = f(jnp.arange(4.0), 2.0)
    same(total, np.float32(12.0))  # (recorded from JAX 0.10.2: the batched output summed)
    assert y == 2.0
    with pytest.raises(ValueError, match="got axis spec None"):
        jax.vmap(lambda x: x, out_axes=None)(jnp.arange(3.0))
    same(jax.vmap(lambda x: x * 2, sum_match=True)(jnp.arange(3.0)), np.array([0.0, 2.0, 4.0], np.float32))


def test_make_jaxpr_axis_env():
    jaxpr = jax.make_jaxpr(lambda x: lax.psum(x, "i") * lax.axis_size("i"), axis_env=[("i", 4)])(1.0)
    # (as JAX 0.10.2 prints it)
    assert str(jaxpr) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = psum[axes=('i',) axis_index_groups=None] a\n"
        "    c:f32[] = mul b 4.0:f32[]\n"
        "  in (c,) }"
    )
    closed, shape = jax.make_jaxpr(lambda x: x * 2, return_shape=True)(1.0)
    assert shape.shape == ()


def test_device_put_src_and_reshard_xs():
    x = jnp.arange(3.0)
    dev = jax.devices()[0]
    same(jax.device_put(x, dev, src=dev), x)
    from engine.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("a",))
    with jax.sharding.use_mesh(mesh) if hasattr(jax.sharding, "use_mesh") else jax.set_mesh(mesh):
        same(jax.reshard(xs=x, out_shardings=P()), x)


def test_config_context_managers_new_val():
    with jax.debug_nans(new_val=False):
        assert np.isnan(jnp.log(-1.0))
    with jax.debug_infs(new_val=False):
        pass
    with jax.numpy_rank_promotion(new_val="allow"):
        same(jnp.ones((2, 3)) + jnp.ones(3), np.full((2, 3), 2.0, np.float32))
    with jax.numpy_dtype_promotion(new_val="standard"):
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cm in (jax.log_compiles, jax.explain_cache_misses):
            with cm(new_val=False):
                same(jax.jit(lambda x: x + 1)(1.0), jnp.asarray(2.0))
    with jax.no_tracing(new_val=False):
        pass


# --- jax.scipy.linalg ------------------------------------------------------------------------


def test_scipy_linalg_det_inv_scipy_keywords():
    a = np.array([[4.0, 1.0], [2.0, 3.0]], np.float32)
    same(jsl.det(a, overwrite_a=True, check_finite=False), jsl.det(a))
    np.testing.assert_allclose(jsl.det(a), np.linalg.det(a), rtol=1e-6)
    same(jsl.inv(a, overwrite_a=True, check_finite=False), jsl.inv(a))
    np.testing.assert_allclose(jsl.inv(a), np.linalg.inv(a), rtol=1e-6)
    b = np.array([1.0, 2.0], np.float32)
    same(jsl.solve(a, b, overwrite_a=True, overwrite_b=True, check_finite=False), jsl.solve(a, b))
    lu, piv = jsl.lu_factor(a, overwrite_a=True, check_finite=False)
    same(jsl.lu_solve((lu, piv), b, overwrite_b=True, check_finite=False), jsl.lu_solve((lu, piv), b))


def test_contractions_pass_precision_on_to_dot_general():
    # (JAX 0.10.2's jaxprs show it: ``precision=(Precision.HIGHEST, Precision.HIGHEST)``)
    x, y = jnp.ones((2, 3)), jnp.ones((3, 4))
    high = lax.Precision.HIGHEST
    for f in (
        lambda a, b: jnp.tensordot(a, b, axes=1, precision=high),
        lambda a, b: jnp.inner(a, b.T, precision=high),
        lambda a, b: jnp.linalg.tensordot(a, b, axes=1, precision=high),
    ):
        assert "precision=(Precision.HIGHEST, Precision.HIGHEST)" in str(jax.make_jaxpr(f)(x, y))
        same(f(x, y), np.full((2, 4), 3.0, np.float32))
