"""Snippets for the type mismatches of control flow and vmap: a scan, while_loop or fori_loop body
whose carry output is not its carry input (dtype, shape, pytree structure; one and several
components, named from the body's first parameter), cond and switch branches whose outputs differ,
vmap's inconsistent mapped sizes, and custom_jvp / custom_vjp rules returning the wrong types. The
value is the error's class and whole message (functions are defined in the snippet, so a message's
``<string>:LINE`` is the same under JAX and the engine). Registered in snippets.py."""


def _message(setup: str, trigger: str) -> str:
    return (
        setup + f"try:\n    {trigger}\n    out = 'no error'\n"
        "except Exception as e:\n    out = [type(e).__name__, str(e)]\n"
    )


_XS = "xs = jnp.arange(3.)\n"

CONTROL_FLOW_ERRORS = [
    ("scan_shape", _message(_XS + "def body(c, x):\n    return jnp.ones(2), x\n", "lax.scan(body, 0., xs)")),
    ("scan_lambda", _message(_XS, "lax.scan(lambda c, x: (jnp.ones(2), x), 0., xs)")),
    (
        "scan_dtype",
        _message(
            _XS + "def body(carry, x):\n    return carry + 1.5, x\n", "lax.scan(body, jnp.int32(0), xs)"
        ),
    ),
    (
        "scan_dtype_and_shape",
        _message(
            _XS + "def body(c, x):\n    return jnp.zeros(2, jnp.int32), x\n",
            "lax.scan(body, jnp.float32(0), xs)",
        ),
    ),
    (
        "scan_dict_two",
        _message(
            _XS + "def body(c, x):\n    return {'a': c['a'].astype(jnp.int32), 'b': c['b'][0]}, x\n",
            "lax.scan(body, {'a': jnp.float32(0), 'b': jnp.zeros(2)}, xs)",
        ),
    ),
    (
        "scan_tuple_one",
        _message(
            _XS + "def body(c, x):\n    return (c[0], jnp.ones(3)), x\n",
            "lax.scan(body, (0., jnp.zeros(2)), xs)",
        ),
    ),
    (
        "scan_structure_leaf",
        _message(_XS + "def body(c, x):\n    return c[0], x\n", "lax.scan(body, (0., 1.), xs)"),
    ),
    (
        "scan_structure_keys",
        _message(_XS + "def body(c, x):\n    return {'b': c['a']}, x\n", "lax.scan(body, {'a': 0.}, xs)"),
    ),
    (
        "scan_structure_length",
        _message(_XS + "def body(c, x):\n    return [*c, 0.], x\n", "lax.scan(body, [0., 1.], xs)"),
    ),
    (
        "scan_structure_two",
        _message(
            _XS + "def body(c, x):\n    return {'a': [c['a'][0]], 'b': (c['b'],)}, x\n",
            "lax.scan(body, {'a': [0., 1.], 'b': 0.}, xs)",
        ),
    ),
    (
        "scan_structure_list_tuple",
        _message(_XS + "def body(c, x):\n    return tuple(c), x\n", "lax.scan(body, [0., 1.], xs)"),
    ),
    ("scan_lengths", _message("", "lax.scan(lambda c, x: (c, x), 0., (jnp.ones(3), jnp.ones(4)))")),
    ("scan_no_length", _message("", "lax.scan(lambda c, x: (c, x), 0., None)")),
    ("scan_length_disagrees", _message("", "lax.scan(lambda c, x: (c, x), 0., jnp.ones(3), length=4)")),
    ("map_lengths", _message("", "lax.map(lambda x: x[0] + x[1], (jnp.ones(3), jnp.ones(4)))")),
    (
        "while_shape",
        _message("def body(v):\n    return jnp.ones(2)\n", "lax.while_loop(lambda v: False, body, 0.)"),
    ),
    (
        "while_dtype",
        _message(
            "def body(state):\n    return state + 0.5\n",
            "lax.while_loop(lambda s: s < 3, body, jnp.int32(0))",
        ),
    ),
    (
        "while_dict",
        _message(
            "def body(s):\n    return {'i': s['i'] + 1, 'x': s['x'].sum()}\n",
            "lax.while_loop(lambda s: s['i'] < 3, body, {'i': 0, 'x': jnp.ones(2)})",
        ),
    ),
    (
        "while_structure",
        _message("def body(s):\n    return s[0]\n", "lax.while_loop(lambda s: s[0] < 3, body, (0, 1.))"),
    ),
    ("while_lambda", _message("", "lax.while_loop(lambda s: s < 3, lambda s: jnp.ones(2), 0.)")),
    ("fori_shape", _message("def body(i, c):\n    return jnp.ones(2)\n", "lax.fori_loop(0, 3, body, 0.)")),
    (
        "fori_dtype_traced",
        _message(
            "def body(i, c):\n    return c + 0.5\n",
            "jax.jit(lambda n: lax.fori_loop(0, n, body, jnp.int32(0)))(3)",
        ),
    ),
    ("fori_structure", _message("def body(i, c):\n    return c[0]\n", "lax.fori_loop(0, 3, body, (0., 1.))")),
    ("fori_int_init_float_body", "out = lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)\n"),
    (
        "fori_int_init_float_body_traced",
        "out = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + 0.5, 0))(3)\n",
    ),
]

_TF = "def tf(x):\n    return x\ndef ff(x):\n    return jnp.ones(2)\n"
CONTROL_FLOW_ERRORS += [
    ("cond_shape", _message(_TF, "lax.cond(True, tf, ff, 1.)")),
    ("cond_lambdas", _message("", "lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.)")),
    (
        "cond_two",
        _message(
            "def tf(x):\n    return x, x\ndef ff(x):\n    return jnp.ones(2), x.astype(jnp.int32)\n",
            "lax.cond(True, tf, ff, 1.)",
        ),
    ),
    (
        "cond_structure",
        _message("def tf(x):\n    return x, x\ndef ff(x):\n    return x\n", "lax.cond(True, tf, ff, 1.)"),
    ),
    (
        "cond_structure_dict",
        _message(
            "def tf(x):\n    return {'a': x}\ndef ff(x):\n    return {'b': x}\n", "lax.cond(True, tf, ff, 1.)"
        ),
    ),
    (
        "cond_traced",
        _message(_TF, "jax.jit(lambda p, x: lax.cond(p, tf, ff, x))(True, 1.)"),
    ),
    (
        "switch_shape",
        _message(
            "def b0(x):\n    return x\ndef b1(x):\n    return x\ndef b2(x):\n    return jnp.ones(2)\n",
            "lax.switch(1, [b0, b1, b2], 1.)",
        ),
    ),
    (
        "switch_structure",
        _message("def b0(x):\n    return x\ndef b1(x):\n    return (x, x)\n", "lax.switch(1, [b0, b1], 1.)"),
    ),
    ("switch_lambdas", _message("", "lax.switch(0, [lambda x: x, lambda x: x + 1, lambda x: x[None]], 1.)")),
]

CONTROL_FLOW_ERRORS += [
    ("vmap_two", _message("def f(a, b):\n    return a + b\n", "jax.vmap(f)(jnp.ones(3), jnp.ones(4))")),
    (
        "vmap_grouped",
        _message(
            "def f(a, b, c):\n    return a + b + c\n", "jax.vmap(f)(jnp.ones(3), jnp.ones(4), jnp.ones(3))"
        ),
    ),
    (
        "vmap_grouped_many",
        _message(
            "def f(a, b, c, d):\n    return a\n",
            "jax.vmap(f)(jnp.ones(3), jnp.ones(4), jnp.ones(3), jnp.ones(4))",
        ),
    ),
    (
        "vmap_in_axes",
        _message(
            "def f(a, b):\n    return a\n", "jax.vmap(f, in_axes=(1, 0))(jnp.ones((2, 3)), jnp.ones((4, 2)))"
        ),
    ),
    (
        "vmap_nested",
        _message(
            "def f(p, q):\n    return p['w']\n",
            "jax.vmap(f)({'w': jnp.ones(3), 'v': [jnp.ones(5)]}, jnp.ones((4, 2)))",
        ),
    ),
    ("vmap_lambda", _message("", "jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4))")),
    (
        "vmap_varargs",
        _message("def f(*args):\n    return args[0]\n", "jax.vmap(f)(jnp.ones(3), jnp.ones(4))"),
    ),
    ("vmap_kwargs", _message("def f(a, b):\n    return a\n", "jax.vmap(f)(jnp.ones(3), b=jnp.ones(4))")),
    ("vmap_axis_size", _message("def f(a):\n    return a\n", "jax.vmap(f, axis_size=2)(jnp.ones(3))")),
]

_CJ = "@jax.custom_jvp\ndef f(x):\n    return x\n"
_CV = "@jax.custom_vjp\ndef g(x):\n    return x\n"
CONTROL_FLOW_ERRORS += [
    (
        "custom_jvp_primal_shape",
        _message(
            _CJ + "@f.defjvp\ndef f_jvp(p, t):\n    return jnp.ones(2), t[0]\n", "jax.jvp(f, (1.,), (1.,))"
        ),
    ),
    (
        "custom_jvp_tangent_dtype",
        _message(
            _CJ + "@f.defjvp\ndef f_jvp(p, t):\n    return p[0], jnp.asarray(t[0]).astype(jnp.float16)\n",
            "jax.jvp(f, (1.,), (1.,))",
        ),
    ),
    (
        "custom_jvp_structure",
        _message(
            _CJ + "@f.defjvp\ndef f_jvp(p, t):\n    return (p[0], p[0]), t[0]\n", "jax.jvp(f, (1.,), (1.,))"
        ),
    ),
    (
        "custom_vjp_bwd_shape",
        _message(_CV + "g.defvjp(lambda x: (x, None), lambda r, ct: (jnp.ones(2),))\n", "jax.grad(g)(1.)"),
    ),
    (
        "custom_vjp_bwd_structure",
        _message(_CV + "g.defvjp(lambda x: (x, None), lambda r, ct: ct)\n", "jax.grad(g)(1.)"),
    ),
    (
        "custom_vjp_fwd_shape",
        _message(_CV + "g.defvjp(lambda x: (jnp.ones(2), None), lambda r, ct: (ct,))\n", "jax.vjp(g, 1.)"),
    ),
]
