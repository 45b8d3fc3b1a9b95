"""Snippets for the fuzz cases whose jaxpr texts came to match JAX's (tests/fidelity/sweep_fuzz.py):
the values the changed rules give eagerly, under jit, vmap and grad, and the errors JAX raises where
the engine once computed. Registered in snippets.py."""

_A = "x = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1)\n"

FUZZ_TEXTS = [
    # reductions keep the axes in the order given (reduce_sum[axes=(1, 0)])
    ("sum_axes_unsorted", _A + "out = (jnp.sum(x, (-1, 0)), jax.jit(lambda x: jnp.sum(x, (2, 0)))(x))"),
    ("max_prod_axes_unsorted", _A + "out = (jnp.max(x, (-1, 0), keepdims=True), jnp.prod(x, (2, 1)))"),
    (
        "lax_reduce_unsorted",
        _A + "out = (lax.reduce_sum(x, (2, 0)), jax.jit(lambda x: lax.reduce_max(x, (2, 0)))(x))",
    ),
    ("vmap_sum_axes_unsorted", _A + "out = jax.vmap(lambda x: jnp.sum(x, (-1, 0)), in_axes=1)(x)"),
    (
        "grad_max_axes_unsorted",
        _A + "f = lambda x: jnp.sum(jnp.max(x, (-1, 0)) ** 2 + jnp.prod(x, (2, 0)))\n"
        "out = (jax.grad(f)(x), jax.jit(jax.grad(f))(x))",
    ),
    ("var_mean_axes_unsorted", _A + "out = (jnp.var(x, (-1, 0)), jnp.mean(x, (2, 0), keepdims=True))"),
]

_E = "e = np.zeros((0, 3), np.float32)\n"
_V = "x = jnp.arange(5, dtype=jnp.float32)\n"
_M = "x = jnp.array([0.5, 2.0, 4.0])\nm = np.array([True, False, True])\n"

FUZZ_TEXTS += [
    # a cumulative reduction binds on an empty axis too; where's select of an empty array is skipped
    ("cumsum_empty", _E + "out = (jnp.cumsum(e), jnp.cumsum(e, 0), jax.jit(lambda e: jnp.cumprod(e, 1))(e))"),
    ("cumsum_empty_grad", _E + "out = jax.grad(lambda e: jnp.cumsum(e, 0).sum())(e)"),
    (
        "nansum_empty",
        _E + "out = (jnp.nansum(e), jnp.nansum(e, 0), jax.jit(lambda e: jnp.nancumsum(e, 1))(e))",
    ),
    ("where_empty", _E + "out = (jnp.where(e > 0, e, 1.0), jax.vmap(lambda r: jnp.where(r > 0, r, 1.0))(e))"),
    # a scalar bool index and a narrow unsigned index array
    ("index_true", _V + "out = (x[True], x[False], jax.jit(lambda x: x[True])(x))"),
    ("index_uint8", _V + "i = np.array([4, 1, 255], np.uint8)\nout = (x[i], jax.jit(lambda x: x[i])(x))"),
    ("index_uint8_grad", _V + "out = jax.grad(lambda x: x[np.array([4, 1, 4], np.uint8)].sum())(x)"),
    ("at_uint8_set", _V + "out = x.at[np.array([4, 1], np.uint8)].set(7.0)"),
    ("index_true_and_array", _V + "out = x[True, np.array([0, 3], np.uint8)]"),
    # sum and prod with dtype=bool are logical or / and; mean with where= counts the mask first
    (
        "sum_dtype_bool",
        "i = np.array([0, 2, -2], np.int32)\nout = (jnp.sum(i, dtype=bool), jnp.sum(i > 5, dtype=bool))",
    ),
    (
        "sum_dtype_bool_initial",
        "i = np.array([[0, 2], [0, 0]], np.int32)\n"
        "out = (jnp.sum(i, 1, dtype=bool, initial=False, keepdims=True), jnp.sum(i, 0, dtype=bool, initial=True))",
    ),
    (
        "prod_dtype_bool",
        "i = np.array([[1, 2], [0, 3]], np.int32)\nout = (jnp.prod(i, dtype=bool), jnp.prod(i, 1, dtype=bool))",
    ),
    (
        "sum_bool_where_bool",
        "b = np.array([True, False, True])\nout = jnp.sum(b, dtype=bool, where=np.array([False, True, False]))",
    ),
    (
        "mean_where",
        _M
        + "out = (jnp.mean(x, where=m), jnp.mean(x > 1, where=x < 3), jnp.mean(x, where=np.zeros(3, bool)))",
    ),
    (
        "mean_where_axes",
        "x = jnp.arange(6.0).reshape(2, 3)\nm = np.array([[True, False, True], [False, False, True]])\n"
        "out = (jnp.mean(x, 0, where=m), jnp.mean(x, 1, keepdims=True, where=m[0]), jax.jit(lambda x: jnp.mean(x, where=m))(x))",
    ),
    (
        "mean_where_dtype",
        _M
        + "out = (jnp.mean(x.astype(jnp.float16), where=m), jnp.mean(jnp.arange(3), dtype=jnp.int32, where=m))",
    ),
    ("mean_where_grad", _M + "out = jax.grad(lambda x: jnp.mean(x ** 2, where=m))(x)"),
]

_C = "c = np.array([1 + 2j, 3j], np.complex64)\n"

FUZZ_TEXTS += [
    # argmax / argmin of a complex array are staged; where they compute, JAX's lowering refuses them
    ("argmax_complex", _C + "out = jnp.argmax(c)"),
    ("argmax_complex_jit", _C + "out = jax.jit(jnp.argmax)(c)"),
    ("argmin_complex", _C + "out = jnp.argmin(c, axis=0)"),
    ("lax_argmax_complex", _C + "out = lax.argmax(c, 0, jnp.int32)"),
    ("nanargmax_complex", _C + "out = jnp.nanargmax(c)"),
    ("vmap_argmax_complex", _C + "out = jax.vmap(jnp.argmax)(c[None])"),
    # a weak Python float scattered into an int array or a float one
    (
        "at_set_python_float",
        "y = jnp.arange(3, dtype=jnp.int32)\n"
        "out = (y.at[0].set(2.7), jax.jit(lambda y: y.at[1].set(-2.7))(y), y.at[0].add(1.5), "
        "jnp.arange(3.0).at[0].set(0.1), jnp.arange(3.0).at[2].mul(1j))",
    ),
]

_D = "x = jnp.array([0.5, 1.5, 2.5])\nm = jnp.arange(6.0).reshape(2, 3) - 2\n"

FUZZ_TEXTS += [
    # jnp.dot / matmul hand mixed operands to dot_general as they are (int8 x float32, bool x bool)
    (
        "dot_bool_bool",
        _D + "out = (jnp.dot(x > 1, x > 0), (m > 0) @ (m.T > 1), jax.jit(jnp.dot)(m > 0, x > 1))",
    ),
    (
        "matmul_int8_float",
        _D
        + "out = (x.astype(jnp.int8) @ x, m.astype(jnp.int8) @ x, jax.jit(jnp.matmul)(m, x.astype(jnp.int8)))",
    ),
    (
        "dot_mixed_dtypes",
        _D + "out = (jnp.dot(m.astype(jnp.uint8), x.astype(jnp.int8)), "
        "jnp.dot(m.astype(jnp.bfloat16), x.astype(jnp.float16)), jnp.dot(m > 0, x), jnp.dot(m.astype(jnp.int32), 2.5))",
    ),
    (
        "dot_mixed_jit",
        _D + "f = jax.jit(lambda a, b: (jnp.dot(a, b), a @ b))\n"
        "out = (f(m.astype(jnp.uint8), x.astype(jnp.int16)), f(m.astype(jnp.bfloat16), x), f(m > 0, x.astype(jnp.complex64)))",
    ),
    (
        "dot_mixed_grad",
        _D + "f = lambda x: jnp.sum(m.astype(jnp.int8) @ x) + jnp.dot(x > 1, x)\n"
        "out = (jax.grad(f)(x), jax.jit(jax.grad(f))(x))",
    ),
    (
        "dot_mixed_vmap",
        _D + "out = (jax.vmap(lambda r: jnp.dot(r.astype(jnp.int8), x))(m), jax.vmap(jnp.dot)(m > 0, m < 1))",
    ),
    (
        "dot_preferred_mixed",
        _D + "out = (jnp.dot(m.astype(jnp.int8), x.astype(jnp.int8), preferred_element_type=jnp.int32), "
        "jnp.matmul(m > 0, x > 0, preferred_element_type=jnp.float32))",
    ),
    (
        "dot_weak_scalars",
        "out = (jnp.dot(2, 3.5), jnp.dot(jnp.arange(3), 2), jnp.matmul(jnp.ones(2, jnp.int8), jnp.ones(2, jnp.bool_)))",
    ),
]
