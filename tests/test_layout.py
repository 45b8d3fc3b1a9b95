"""jax.experimental.layout on the engine: row-major default layouts (XLA's CPU choice, also for
Layout.AUTO), arrays put with another layout keep it, and compiled functions refuse them with
JAX 0.10.2's error; the values are unchanged throughout."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.experimental.layout import Format, Layout, with_layout_constraint
from engine.sharding import SingleDeviceSharding


def _device():
    return SingleDeviceSharding(jax.devices()[0])


def test_arrays_are_row_major_by_default():
    assert jnp.ones((2, 3, 4)).format.layout.major_to_minor == (0, 1, 2)
    assert jnp.ones(()).format.layout.major_to_minor == ()
    assert repr(jnp.ones(3).format.layout) == (
        "Layout(major_to_minor=(0,), tiling=(), sub_byte_element_size_in_bits=0)"
    )


def test_auto_layouts_compile_to_the_default_and_keep_the_argument_structure():
    f = jax.jit(lambda x, y: (x[0], y), in_shardings=Format(Layout.AUTO), out_shardings=Format(Layout.AUTO))
    exe = f.trace(jax.ShapeDtypeStruct((4, 8), jnp.float32), {"a": jnp.ones(2)}).lower().compile()
    args, kwargs = exe.input_formats
    assert kwargs == {} and args[0].layout.major_to_minor == (0, 1)
    assert args[1]["a"] == Format(Layout((0,), tiling=()), _device())
    outs = exe.output_formats
    assert outs[0].layout.major_to_minor == (0,) and outs[1]["a"].sharding == _device()


def test_a_committed_column_major_array_is_refused_by_a_row_major_executable():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    col = jax.device_put(x, Format(Layout(major_to_minor=(1, 0)), _device()))
    assert col.format.layout.major_to_minor == (1, 0)
    np.testing.assert_array_equal(col, x)  # same values, another order in memory
    exe = jax.jit(lambda a, b: a + b).lower(x, x).compile()
    with pytest.raises(ValueError, match="compiled for input layouts that disagree") as e:
        exe(jnp.asarray(x), col)
    assert "Argument b with shape float32[3,4]" in str(e.value)
    assert "Passed layout: Layout(major_to_minor=(1, 0)" in str(e.value)
    # jit itself relays the argument out, and its result is row-major
    out = jax.jit(lambda a: a * 2)(col)
    np.testing.assert_array_equal(out, x * 2)
    assert out.format.layout.major_to_minor == (0, 1)


def test_a_concrete_layout_needs_a_sharding():
    with pytest.raises(ValueError, match="Sharding has to be concrete"):
        Format(Layout((0, 1)))


def test_with_layout_constraint_leaves_values_alone():
    f = jax.jit(lambda x: with_layout_constraint(x.T, Layout(major_to_minor=(0, 1))) * 2)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(f(x), x.T * 2)
