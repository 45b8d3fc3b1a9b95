"""Snippets for small semantic gaps: entr's derivative at 0, a composite's name checked when a jit
lowers it, ``out=``/``where=`` refused by jnp ufuncs and reductions, what lax.select/select_n
refuse. Registered in snippets.py; the errors' first lines are JAX's, word for word
(test_refusals_say_what_jax_says)."""

_X = "x = jnp.arange(1.0, 7.0).reshape(2, 3)\no = jnp.zeros(3)\nm = jnp.array([True, False, True])\n"
_SIN = "f = lax.composite(lambda x: jnp.sin(x), name={!r})\n"

SMALL_GAPS = [
    # entr(x) = -x log x: its derivative -(log x + 1) is +inf at 0, NaN below.
    ("entr_grad_0", "out = jax.grad(jax.scipy.special.entr)(0.0)"),
    ("entr_jit_grad_0", "out = jax.jit(jax.grad(jax.scipy.special.entr))(0.0)"),
    ("entr_jvp_0", "out = jax.jvp(jax.scipy.special.entr, (0.0,), (1.0,))"),
    ("entr_hessian_0", "out = jax.hessian(jax.scipy.special.entr)(0.0)"),
    (
        "entr_vmap_grad",
        "out = jax.vmap(jax.grad(jax.scipy.special.entr))(jnp.array([0.0, -1.0, 0.5, 1.0, jnp.inf]))",
    ),
    # A composite is named namespace.op: evaluated eagerly any name goes, a jit lowers it and refuses.
    ("composite_eager_any_name", _SIN.format("abc") + "out = f(1.0)"),
    ("composite_jit_good_name", _SIN.format("my_ns.my_op") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_digits_dollar", _SIN.format("a1.2.$b") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_no_namespace", _SIN.format("abc") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_leading_underscore", _SIN.format("_a.b") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_dash", _SIN.format("a.b-c") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_trailing_dot", _SIN.format("ok.") + "out = jax.jit(f)(1.0)"),
    ("composite_jit_in_jit", _SIN.format("tanh") + "out = jax.jit(lambda x: f(x) * 2)(1.0)"),
    ("composite_lower_text", _SIN.format("x/y") + "out = jax.jit(f).lower(1.0).as_text()"),
    # jnp ufuncs: out=None and where=None are accepted; anything else is NotImplementedError.
    ("ufunc_out", _X + "out = jnp.add(o, o, out=o)"),
    ("ufunc_where", _X + "out = jnp.multiply(o, o, where=m)"),
    ("ufunc_where_true", _X + "out = jnp.logaddexp(o, o, where=True)"),
    ("ufunc_out_none_where_none", _X + "out = jnp.add(o, 1.0, out=None, where=None)"),
    ("ufunc_frompyfunc_out", _X + "out = jnp.frompyfunc(lambda a, b: a + b, 2, 1)(o, o, out=o)"),
    ("ufunc_other_keyword", _X + "out = jnp.add(o, o, dtype=jnp.int32)"),
    # Reductions (and a few others) refuse an out array instead of ignoring it.
    ("sum_out", _X + "out = jnp.sum(x, axis=0, out=o)"),
    ("amax_out", _X + "out = jnp.amax(x, axis=0, out=o)"),
    ("nanmin_out", _X + "out = jnp.nanmin(x, axis=0, out=o)"),
    ("nansum_out", _X + "out = jnp.nansum(x, axis=0, out=o)"),
    ("any_out", _X + "out = jnp.any(x, axis=0, out=o)"),
    ("mean_out", _X + "out = jnp.mean(x, axis=0, out=o)"),
    ("std_out", _X + "out = jnp.std(x, axis=0, out=o)"),
    ("nanvar_out", _X + "out = jnp.nanvar(x, axis=0, out=o)"),
    ("ptp_out", _X + "out = jnp.ptp(x, axis=0, out=o)"),
    ("argmax_out", _X + "out = jnp.argmax(x, axis=0, out=o)"),
    ("nanargmin_out", _X + "out = jnp.nanargmin(x, axis=0, out=o)"),
    ("cumsum_out", _X + "out = jnp.cumsum(x, axis=0, out=o)"),
    ("nancumprod_out", _X + "out = jnp.nancumprod(x, axis=0, out=o)"),
    ("round_out", _X + "out = jnp.round(x, out=o)"),
    ("around_out", _X + "out = jnp.around(x, out=o)"),
    ("stack_out", _X + "out = jnp.stack([o, o], out=o)"),
    ("modf_out", _X + "out = jnp.modf(o, out=o)"),
    ("isposinf_out", _X + "out = jnp.isposinf(o, out=o)"),
    ("compress_out", _X + "out = jnp.compress(m, o, out=o)"),
    ("jit_sum_out", _X + "out = jax.jit(lambda x, o: jnp.sum(x, axis=0, out=o))(x, o)"),
    (
        "out_none_accepted",
        _X + "out = (jnp.sum(x, out=None), jnp.cumsum(x, out=None), jnp.modf(o, out=None), "
        "jnp.isneginf(o, out=None), jnp.round(x, out=None), jnp.compress(m, o, out=None), "
        "jnp.nanargmax(x, out=None), jnp.stack([o, o], out=None))",
    ),
]

# lax.select/select_n broadcast nothing: the cases share one shape, `which` has it or none.
_S = "T = jnp.array(True)\nv = jnp.array([True, False, True])\nx3 = jnp.arange(3.0)\ns = jnp.float32(1.0)\n"
SMALL_GAPS += [
    (
        "select_scalar_pred",
        _S + "out = (lax.select(T, x3, -x3), lax.select(True, s, 2 * s), lax.select(T, 1.0, 2.0))",
    ),
    ("select_n_int_pred", _S + "out = lax.select_n(jnp.int32(2), x3, -x3, 2 * x3)"),
    ("select_n_one_case", _S + "out = (lax.select_n(T, x3), lax.select_n(v, x3))"),
    ("select_scalar_case_with_array_case", _S + "out = lax.select(T, s, x3)"),
    ("select_vector_pred_scalar_cases", _S + "out = lax.select(v, s, s)"),
    ("select_vector_pred_2d_cases", _S + "out = lax.select(v, jnp.ones((2, 3)), jnp.ones((2, 3)))"),
    ("select_one_element_pred", _S + "out = lax.select(jnp.array([True]), x3, x3)"),
    ("select_dtypes_differ", _S + "out = lax.select(T, x3, jnp.arange(3))"),
    ("select_n_no_cases", _S + "out = lax.select_n(T)"),
    ("select_n_float_pred", _S + "out = lax.select_n(jnp.float32(1), x3, x3)"),
    ("select_n_bool_pred_three_cases", _S + "out = lax.select_n(T, x3, x3, x3)"),
    ("select_n_weak_scalar_case", _S + "out = lax.select_n(T, 1.0, x3)"),
    ("jit_select_scalar_case", _S + "out = jax.jit(lambda p, a, b: lax.select(p, a, b))(T, s, x3)"),
    ("vmap_select_scalar_pred", _S + "out = jax.vmap(lambda p, a: lax.select(p, a, -a))(v, x3)"),
]
