"""Common mistakes raise what JAX 0.10.2 raises, class and words (recorded from it in a side venv):
an aux output that is not a pair, arrays whose shapes do not concatenate (``jnp.concatenate``, and
``jnp.array`` of a ragged list holding arrays, which JAX stacks), a traced slice size."""

import re

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp


def test_an_aux_output_is_a_pair_a_tuple_or_a_list():
    value, aux = jax.grad(lambda x: [x * 2, 3], has_aux=True)(1.0)  # (a list is taken, as JAX's)
    assert float(value) == 2.0 and aux == 3
    with pytest.raises(
        TypeError,
        match=re.escape(
            "expected function with aux output to return a two-element tuple, but got type <class "
            "'jax._src.interpreters.ad.LinearizeTracer'> with value GradTracer(primal=2.0, typeof(tangent)=f32[])"
        ),
    ):
        jax.grad(lambda x: x * 2, has_aux=True)(1.0)
    with pytest.raises(TypeError, match=re.escape("but got type <class 'tuple'> with value (GradTracer(")):
        jax.value_and_grad(lambda x: (x, 1, 2), has_aux=True)(1.0)
    with pytest.raises(TypeError, match="^iteration over a 0-d array$"):  # (jvp unpacks it)
        jax.jvp(lambda x: x * 2, (1.0,), (1.0,), has_aux=True)


@pytest.mark.parametrize(
    "arrays, axis, shapes",
    [
        ([(2, 3), (2, 4)], 0, "(2, 3), (2, 4)"),
        ([(2, 3), (3, 4)], 1, "(2, 3), (3, 4)"),
        ([(2, 3), (2, 4), (5, 3)], 0, "(2, 3), (2, 4), (5, 3)"),
    ],
)
def test_concatenate_names_the_dimension_and_the_shapes(arrays, axis, shapes):
    with pytest.raises(TypeError) as e:
        jnp.concatenate([jnp.ones(s) for s in arrays], axis)
    assert str(e.value) == (
        "Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
        f"concatenated: concatenating along dimension {axis} for shapes {shapes}."
    )


def test_a_ragged_list_holding_arrays_is_stacked_and_refused_as_jax_does():
    with pytest.raises(
        TypeError, match=re.escape("concatenating along dimension 0 for shapes (1, 2), (1, 3).")
    ):
        jnp.array([jnp.ones(2), [1.0, 2.0, 3.0]])
    with pytest.raises(
        TypeError,
        match=re.escape(
            "Cannot concatenate arrays with different numbers of dimensions: got (1, 2, 2), (1, 2)."
        ),
    ):
        jnp.array([jnp.ones((2, 2)), jnp.ones(2)])
    with pytest.raises(ValueError, match="inhomogeneous"):  # (no array in it: numpy's error, as JAX's)
        jnp.array([[1, 2], [3]])
    np.testing.assert_array_equal(np.asarray(jnp.array([jnp.ones(2), [1.0, 2.0]])), [[1, 1], [1, 2]])


def test_a_traced_slice_size_says_to_make_it_static():
    with pytest.raises(TypeError) as e:
        jax.jit(lambda x, n: jax.lax.dynamic_slice(x, (0,), (n,)))(jnp.ones(5), 2)
    lines = str(e.value).splitlines()
    assert lines[:2] == [
        "Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]),).",
        "If using `jit`, try using `static_argnums` or applying `jit` to smaller subfunctions.",
    ]
    assert "depends on the value of the argument n" in lines[2]
