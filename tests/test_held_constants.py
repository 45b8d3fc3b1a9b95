"""A jax.Array a traced function closes over is a constvar of its jaxpr, however it was made (an
eager operator's fast path, or ``ensure_compile_time_eval`` inside the trace), where Python and
numpy scalars are literals: the texts JAX 0.10.2 printed (recorded from it). And ``jax.core``'s
public names, ``jax.typeof``'s refusals in JAX's words."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import compat


def _compile_time_scalar(x):
    with jax.ensure_compile_time_eval():
        y = jnp.sin(3.0) * 2
    return x + y


def _compile_time_product(x):
    with jax.ensure_compile_time_eval():
        y = jnp.float32(2.0) * 3
    return x * y


_COMPUTED = jnp.sin(3.0) * 2  # (an eager operator's result: its fast path made it)


@pytest.mark.parametrize(
    "f, text",
    [
        (_compile_time_scalar, "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"),
        (
            _compile_time_product,
            "{ lambda a:f32[]; b:f32[]. let\n    c:f32[] = convert_element_type[new_dtype=float32 "
            "weak_type=False] b\n    d:f32[] = mul c a\n  in (d,) }",
        ),
        (lambda x: x + _COMPUTED, "{ lambda a:f32[]; b:f32[]. let c:f32[] = add b a in (c,) }"),
        (
            lambda x: x + np.float32(2.5),
            "{ lambda ; a:f32[]. let\n    b:f32[] = convert_element_type[new_dtype=float32 "
            "weak_type=False] a\n    c:f32[] = add b 2.5:f32[]\n  in (c,) }",
        ),
    ],
)
def test_a_closed_over_array_is_a_constvar_a_numpy_scalar_a_literal(f, text):
    assert str(jax.make_jaxpr(f)(1.0)) == text
    np.testing.assert_allclose(float(f(1.0)), float(jax.jit(f)(1.0)), rtol=1e-6)


def test_jax_core_public_names():
    compat.install()
    import jax.core as core  # the engine, as user code imports it

    closed = jax.make_jaxpr(lambda x: x * 2)(1.0)
    assert [float(v) for v in core.eval_jaxpr(closed.jaxpr, closed.consts, 3.0)] == [6.0]
    assert isinstance(jax.typeof(jnp.ones(2)), core.AbstractValue)
    assert isinstance(jax.typeof(jax.new_ref(jnp.ones(2))), core.AbstractValue)
    assert str(core.AbstractValue) == "<class 'jax._src.core.AbstractValue'>"
    with core.ensure_compile_time_eval():
        assert float(jnp.ones(()) * 2) == 2.0
    assert core.ParamDict is not None and core.Atom is not None
    with pytest.raises(AttributeError, match="module 'jax.core' has no attribute 'no_such_name'"):
        core.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    "value, message",
    [
        ((1, 2), "Argument '(1, 2)' of type '<class 'tuple'>' is not a valid JAX type"),
        (None, "Argument 'None' of type '<class 'NoneType'>' is not a valid JAX type"),
        ("a", "Argument 'a' of type <class 'str'> is not a valid JAX type"),
    ],
)
def test_typeof_refuses_what_is_no_jax_type_in_jax_words(value, message):
    with pytest.raises(TypeError) as e:
        jax.typeof(value)
    assert str(e.value) == message


def test_typeof_of_a_shape_dtype_struct_is_its_type():
    assert str(jax.typeof(jax.ShapeDtypeStruct((2,), jnp.float32, weak_type=True))) == "~float32[2]"
    m = jax.make_mesh((1,), ("x",))
    spec = jax.ShapeDtypeStruct((2,), jnp.float32, sharding=jax.NamedSharding(m, jax.P("x")))
    assert str(jax.typeof(spec)) == "float32[2@x]"
    assert jnp.ones(2).tobytes() == np.ones(2, np.float32).tobytes()
