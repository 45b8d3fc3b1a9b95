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


@pytest.mark.parametrize("v", [2**31, -(2**31) - 1, 2**40, 2**63])
def test_a_python_int_beyond_int32_is_refused_not_wrapped(v):
    for make in (jnp.array, jnp.asarray):
        with pytest.raises(OverflowError, match=f"^Python int {v} too large to convert to int32$"):
            make(v)
    assert int(jnp.array(v % 2**32, jnp.uint32)) == v % 2**32  # (a dtype asked for: its range)


@pytest.mark.parametrize(
    "f, value",
    [
        (lambda: jnp.ones(2, jnp.int32) + 2**40, 2**40),
        (lambda: jnp.int32(3) * 2**31, 2**31),
        (lambda: jax.jit(lambda x: x + 2**40)(1), 2**40),
    ],
)
def test_an_int_operand_beyond_int32_names_its_argument_as_jit_parses_it(f, value):
    with pytest.raises(OverflowError) as e:
        f()
    assert str(e.value) == (
        "An overflow was encountered while parsing an argument to a jitted computation, whose argument "
        f"path is y. Got <class 'int'> with value {value}"
    )


def test_arange_beyond_int32_wraps_as_jax_converts_its_start():
    assert jnp.arange(2**31, 2**31 + 2).tolist() == [-(2**31), -(2**31) + 1]


def test_vmap_of_no_arrays_asks_for_axis_size():
    with pytest.raises(ValueError) as e:
        jax.vmap(lambda: 1.0)()
    assert str(e.value) == (
        "vmap wrapped function must be passed at least one argument containing an array or axis_size must "
        "be specified, got empty *args=() and **kwargs={}"
    )
    assert float(jax.vmap(lambda: 1.0, axis_size=3)().sum()) == 3.0


def test_switch_of_no_branches():
    with pytest.raises(ValueError, match="^Empty branch sequence$"):
        jax.lax.switch(0, [])


def test_list_indices_and_flat_in_jax_words():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    for idx, kind in (([[0, 1], [1, 0]], "tuple"), ([0, 1], "array")):
        with pytest.raises(TypeError) as e:
            x[idx]
        assert str(e.value) == (
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            f"`arr[{kind}(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
            "for more information."
        )
    with pytest.raises(NotImplementedError, match=r"consider arr.flatten\(\) instead"):
        x.flat  # noqa: B018
    assert int(jnp.arange(5.0).searchsorted(2.5)) == 3


def test_names_jax_removed_are_refused_as_jax_refuses_them():
    from engine import compat

    compat.install()
    try:
        import jax as user_jax  # (the names a user's `import jax` sees)

        for name in ("device_put_replicated", "device_put_sharded"):
            with pytest.raises(
                AttributeError, match=f"^jax.{name} is deprecated; use jax.device_put instead"
            ):
                getattr(user_jax, name)
        assert not hasattr(user_jax.nn, "normalize")  # (jax.nn.standardize's old name)
    finally:
        compat.uninstall()
    for fn in (jax.nn.softmax, jax.nn.log_softmax):  # (JAX 0.10.2 takes no `initial`)
        with pytest.raises(TypeError, match="unexpected keyword argument 'initial'"):
            fn(jnp.ones(3), initial=0.0)


def test_a_reductions_initial_is_cast_as_jax_casts_it():
    # (JAX's convert_element_type of a constant: numpy's cast, which wraps; -inf to an int is its
    # least value) and a Python int beyond the default int is refused as a jit argument
    assert int(jnp.max(jnp.arange(3, dtype=jnp.int8), initial=1000)) == 2  # (1000 wraps to -24)
    assert int(jnp.max(jnp.arange(3, dtype=jnp.uint8), initial=-1)) == 255
    with np.errstate(invalid="ignore"):
        assert int(jnp.max(jnp.arange(3), initial=-np.inf)) == 2
        np.testing.assert_allclose(np.asarray(jax.nn.softmax(jnp.arange(-2, 3))).sum(), 1.0, rtol=1e-6)
    with pytest.raises(
        OverflowError, match="argument path is initial. Got <class 'int'> with value 1099511627776"
    ):
        jnp.max(jnp.arange(3), initial=2**40)


def test_jnp_array_refuses_none_and_objects_as_jax():
    for value in ([None], [1, None], [[1.0], [None]]):  # (not a NaN: JAX refuses them)
        with pytest.raises(ValueError, match="^None is not a valid value for jnp.array$"):
            jnp.array(value)
    with pytest.raises(TypeError, match="with dtype object is not a valid JAX array type"):
        jnp.asarray([object()])


def test_a_custom_jvp_rule_returns_a_pair():
    f = jax.custom_jvp(lambda v: v)
    f.defjvp(lambda p, t: (p[0], t[0], 1))
    with pytest.raises(
        TypeError, match=r"must produce a pair \(list or tuple of length two\) .* but got \(1.0, 1.0, 1\)"
    ):
        jax.jvp(f, (1.0,), (1.0,))
    with pytest.raises(TypeError, match="must produce a pair"):
        jax.grad(f)(1.0)


def test_a_64_bit_dtype_asked_for_without_x64_is_truncated_with_jax_warning():
    import warnings

    key = jax.random.key(0)
    cases = [
        (lambda: jax.random.normal(key, (2,), dtype=jnp.float64), "float64 is not available"),
        (lambda: jax.random.uniform(key, (2,), dtype=jnp.float64), "float64 is not available"),
        (lambda: jax.random.randint(key, (2,), 0, 5, dtype=jnp.int64), "int64 is not available"),
        (lambda: jax.random.bits(key, (2,), dtype=jnp.uint64), "uint64 is not available"),
        (lambda: jnp.sum(jnp.ones(2), dtype=jnp.float64), "float64 requested in sum is not available"),
        (lambda: jax.lax.convert_element_type(jnp.ones(2), jnp.float64), "requested in convert_element_type"),
    ]
    for f, words in cases:
        with pytest.warns(UserWarning, match=words):
            assert f().dtype.itemsize == 4
    with warnings.catch_warnings():  # (the defaults, and what the engine converts itself, do not warn)
        warnings.simplefilter("error")
        jax.random.normal(key, (2,)), jnp.mean(jnp.arange(4)), jnp.var(jnp.arange(4)), jnp.sum(jnp.ones(2))


def test_an_eager_lax_slice_is_a_dynamic_slice_as_in_jax():
    from engine import lax

    x = jnp.arange(6.0).reshape(2, 3)
    # (eagerly JAX slices by dynamic_slice: a start below 0 is clamped, sizes are what is checked)
    np.testing.assert_array_equal(np.asarray(lax.slice(x, (-1, 0), (1, 3))), np.asarray(x))
    with pytest.raises(
        TypeError, match=re.escape("got slice_sizes (np.int64(3), np.int64(3)) for operand shape (2, 3)")
    ):
        lax.slice(x, (0, 0), (3, 3))
    with pytest.raises(TypeError, match=re.escape("slice_sizes must be greater than or equal to zero")):
        lax.slice(x, (1, 0), (0, 3))
    with pytest.raises(
        TypeError, match=re.escape("slice start_indices must have every element be nonnegative, got (-1, 0).")
    ):
        jax.jit(lambda v: lax.slice(v, (-1, 0), (1, 3)))(x)
    with pytest.raises(TypeError, match=re.escape("unsupported operand type(s) for &: 'float' and 'int'")):
        lax.integer_pow(x, 1.5)  # (was x ** 1: the exponent truncated, silently)
    with pytest.raises(
        TypeError, match=re.escape("mul: arrays must have the same number of dimensions, got {1, 2}")
    ):
        lax.mul(jnp.ones((2, 3)), jnp.ones(3))


def test_a_vmap_axes_spec_that_is_not_a_prefix_lists_every_mismatch_at_its_key_path():
    with pytest.raises(ValueError) as e:
        jax.vmap(lambda d, e: d, in_axes=({"a": 0, "c": 0}, [0, 0]))(
            {"a": jnp.arange(3.0), "b": 1.0}, [1.0, 2, 3]
        )
    assert str(e.value) == (
        "vmap in_axes specification must be a tree prefix of the corresponding value; \n"
        "  Mismatch details (2 found):\n"
        "  pytree structure error: different pytree metadata at key path\n"
        "    vmap in_axes[0]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type\n"
        "    <class 'dict'>\n"
        "with metadata\n"
        "    ('a', 'c')\n"
        "but at the same key path the full pytree has a subtree of the same type but with metadata\n"
        "    ('a', 'b')\n"
        "so the diff in the metadata at these pytree nodes is\n"
        "    - ('a', 'c')\n"
        "    ?        ^\n\n"
        "    + ('a', 'b')\n"
        "    ?        ^\n\n"
        "  pytree structure error: different lengths of list at key path\n"
        "    vmap in_axes[1]\n"
        "At that key path, the prefix pytree vmap in_axes has a subtree of type list of length 2, but the "
        "full pytree has a subtree of the same type but of length 3."
    )
    with pytest.raises(ValueError, match=re.escape("different types at key path\n    vmap out_axes\n")):
        jax.vmap(lambda d: d, out_axes=({"x": 0},))({"a": jnp.arange(3.0)})
    with pytest.raises(
        TypeError, match=re.escape("positional arguments passed to the function, but got {'a': 0}.")
    ):
        jax.vmap(lambda d: d, in_axes={"a": 0})({"a": jnp.arange(3.0)})


@pytest.mark.parametrize(
    "body, shown",
    [
        (lambda c, x: c, "~float32[]"),
        (lambda c, x: (c,), "(ShapedArray(float32[], weak_type=True),)"),
        (lambda c, x: {"a": c}, "{'a': ShapedArray(float32[], weak_type=True)}"),
        (lambda c, x: None, "None"),
    ],
)
def test_a_scan_body_that_does_not_return_a_pair_names_what_it_returned(body, shown):
    with pytest.raises(TypeError, match=re.escape(f"scan body output must be a pair, got {shown}.")):
        jax.lax.scan(body, 0.0, jnp.ones(3))


def test_a_scan_body_returning_a_list_makes_scan_return_a_list():
    out = jax.lax.scan(lambda c, x: [c + x, x], 0.0, jnp.ones(3))
    assert type(out) is list and float(out[0]) == 3.0


def test_a_vmapped_broadcasting_error_names_one_examples_shapes():
    """Under vmap (and pmap's vmap of a body), operands that do not broadcast are refused with the
    shapes of one example, as JAX 0.10.2 words it, not the batched shapes the engine binds."""
    x, y = jnp.ones((2, 4)), jnp.ones(8)
    with pytest.raises(
        TypeError, match=re.escape("mul got incompatible shapes for broadcasting: (4,), (8,).")
    ):
        jax.vmap(lambda a, b: a * b, in_axes=(0, None))(x, y)
    with pytest.raises(
        TypeError, match=re.escape("add got incompatible shapes for broadcasting: (4,), (8,).")
    ):
        jax.jit(jax.vmap(lambda a, b: a + b))(x, jnp.ones((2, 8)))
