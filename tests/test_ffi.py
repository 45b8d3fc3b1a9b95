"""jax.ffi on the engine: ffi_call stages JAX's equation (and its vmap methods); running it needs a
registered handler (XLA's NOT_FOUND error otherwise) and a registered one, being XLA FFI machine
code, is refused by name. lax.platform_dependent and custom_partitioning compute the function."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.errors import JaxRuntimeError
from engine.experimental.custom_partitioning import custom_partitioning


def _call(name="engine_test_op", vmap_method="broadcast_all"):
    return lambda x: jax.ffi.ffi_call(name, jax.ShapeDtypeStruct.like(x), vmap_method=vmap_method)(
        x, eps=np.float32(0.5)
    )


def test_unregistered_targets_fail_as_xla_does_when_run():
    x = jnp.ones((2, 3))
    with pytest.raises(JaxRuntimeError, match="No FFI handler registered for engine_test_op"):
        _call()(x)
    with pytest.raises(JaxRuntimeError, match="NOT_FOUND"):
        jax.jit(_call()).lower(x).compile()
    text = str(jax.make_jaxpr(_call())(x))  # staging is fine
    assert "target_name=engine_test_op" in text and "attributes=(('eps', np.float32(0.5)),)" in text
    assert "input_layouts=((1, 0),)" in text and "result_avals=(ShapedArray(float32[2,3]),)" in text


def test_registered_handlers_are_refused_by_name():
    jax.ffi.register_ffi_target("engine_test_registered", jax.ffi.pycapsule(object()), platform="cpu")
    with pytest.raises(NotImplementedError, match="engine_test_registered"):
        _call("engine_test_registered")(jnp.ones(3))


def test_vmap_methods_batch_as_jax_does():
    xs = jnp.ones((5, 3))
    broadcast = jax.make_jaxpr(jax.vmap(_call()))(xs).jaxpr.eqns
    assert [e.primitive.name for e in broadcast] == ["ffi_call"]
    assert broadcast[0].params["result_avals"][0].shape == (5, 3)
    sequential = jax.make_jaxpr(jax.vmap(_call(vmap_method="sequential")))(xs).jaxpr.eqns
    assert [e.primitive.name for e in sequential] == ["scan"]
    with pytest.raises(NotImplementedError, match="vmap_method"):
        jax.make_jaxpr(jax.vmap(_call(vmap_method=None)))(xs)


def test_several_results_keep_their_structure():
    f = jax.ffi.ffi_call(
        "engine_test_pair",
        (jax.ShapeDtypeStruct((2,), jnp.float32), jax.ShapeDtypeStruct((), jnp.int32)),
    )
    out = jax.eval_shape(lambda x: f(x), jnp.ones(2))
    assert isinstance(out, tuple) and out[0].shape == (2,) and out[1].dtype == np.int32


def test_platform_dependent_runs_the_cpu_branch():
    f = lambda x: jax.lax.platform_dependent(x, cpu=lambda v: v * 2, cuda=lambda v: v * 3)  # noqa: E731
    np.testing.assert_array_equal(jax.jit(f)(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert float(jax.lax.platform_dependent(1.0, default=lambda v: v + 1, tpu=lambda v: v)) == 2.0


def test_custom_partitioning_computes_the_function():
    f = custom_partitioning(lambda x, k: x * k, static_argnums=(1,))
    f.def_partition(partition=lambda *a: None, infer_sharding_from_operands=lambda *a: None)
    np.testing.assert_array_equal(jax.jit(lambda x: f(x, 3.0))(jnp.arange(3.0)), [0.0, 3.0, 6.0])
