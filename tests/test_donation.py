"""Buffer donation (engine/donation.py): which donated arrays a jitted call deletes, the errors and
warnings after, as JAX 0.10.2 on a CPU does (each outcome below was printed by JAX)."""

import warnings

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp


def add(x, y):
    return x + y


def _call(f, *args, **jit_kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = jax.jit(f, **jit_kwargs)(*args)
    return out, [str(w.message) for w in caught if "donated" in str(w.message)]


def test_a_donated_buffer_an_output_takes_is_deleted():
    x, y = jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((2, 3)))
    z, warned = _call(add, x, y, donate_argnums=(1,))
    assert (x.is_deleted(), y.is_deleted(), warned) == (False, True, [])
    np.testing.assert_array_equal(z, 2 * np.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[2,3\]\.$"):
        y + 1
    with pytest.raises(RuntimeError, match="deleted"):
        jax.jit(add)(x, y)
    assert y.shape == (2, 3) and y.dtype == np.float32  # its type stays


def test_each_output_takes_one_buffer_the_rest_warn():
    x, y = jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((2, 3)))
    _, warned = _call(add, x, y, donate_argnums=(0, 1))
    assert (x.is_deleted(), y.is_deleted()) == (True, False)
    assert warned == [
        "Some donated buffers were not usable: float32[2,3].\n"
        "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation."
    ]
    x, y = jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((1, 3)))
    _, warned = _call(add, x, y, donate_argnums=(1,))
    assert (x.is_deleted(), y.is_deleted()) == (False, False)
    assert warned[0].startswith("Some donated buffers were not usable: float32[1,3].")


def test_donating_a_pytree_and_plain_arrays():
    xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
    _call(lambda xs: [x + 1 for x in xs], xs, donate_argnums=0)
    assert [x.is_deleted() for x in xs] == [True, True]
    a = jnp.ones(3)
    _call(lambda a: a * 2, a, donate_argnums=0)
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match=r"shape=float32\[3\]"):
        repr(a)


def test_no_donation_while_tracing_and_delete():
    assert float(jax.grad(jax.jit(lambda a: a * 2.0, donate_argnums=0))(1.0)) == 2.0
    b = jnp.arange(3.0)
    assert not b.is_deleted()
    b.delete()
    assert b.is_deleted()


def test_a_donated_array_passed_to_a_compiled_program_fails_in_the_runtime():
    def add2(x, y):
        return x + y

    x, y = jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((2, 3)))
    _call(add2, x, y, donate_argnums=(1,))
    with pytest.raises(
        ValueError, match=r"argument 1 to replica 0: INVALID_ARGUMENT: Buffer has been deleted"
    ):
        jax.jit(add2, donate_argnums=(1,))(x, y)  # the program compiled for the first call
    deleted = jax.device_put(np.ones((2, 3)))
    deleted.delete()  # (deleted, not donated: JAX's dispatch sees it)
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        jax.jit(add2, donate_argnums=(1,))(x, deleted)


def test_donate_argnames_donates_by_name_positional_or_keyword():
    # JAX: donate_argnames="y" deletes y whether it is passed by position or by keyword
    for call in (lambda f, x, y: f(x, y), lambda f, x, y: f(x, y=y)):
        x, y = jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((2, 3)))
        call(jax.jit(add, donate_argnames="y"), x, y)
        assert (x.is_deleted(), y.is_deleted()) == (False, True)
