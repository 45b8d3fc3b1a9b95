"""Snippets for ``jax.custom_batching`` (custom_vmap, sequential_vmap; issue 13), after the cases
of JAX's own tests; registered in snippets.py. Rules log what they were called with into ``log``,
which the snippets return beside the values; jaxprs are compared as text."""

_SIN = (
    "from jax.custom_batching import custom_vmap, sequential_vmap\n"
    "log = []\n"
    "@custom_vmap\n"
    "def f(x): return jnp.sin(x)\n"
    "@f.def_vmap\n"
    "def f_rule(axis_size, in_batched, xs):\n"
    "    log.append((axis_size, tuple(in_batched)))\n"
    "    return jnp.cos(xs), in_batched[0]\n"
    "x, xs = jnp.array(1.), jnp.arange(3.)\n"
)
_DOT = (
    "from jax.custom_batching import custom_vmap\n"
    "log = []\n"
    "@custom_vmap\n"
    "def dot(u, v): return u @ v\n"
    "@dot.def_vmap\n"
    "def dot_rule(axis_size, in_batched, u, v):\n"
    "    log.append((axis_size, tuple(in_batched), u.shape, v.shape))\n"
    "    ub, vb = in_batched\n"
    "    out = jnp.sum(u * v, axis=1) if ub and vb else (u @ v if ub else v @ u)\n"
    "    return out, ub or vb\n"
    "v = lambda *shape: jnp.arange(float(np.prod(shape))).reshape(shape)\n"
)
_TREE = (
    "from jax.custom_batching import custom_vmap\n"
    "log = []\n"
    "@custom_vmap\n"
    "def f(t): return jax.tree.map(jnp.sin, t)\n"
    "@f.def_vmap\n"
    "def f_rule(axis_size, in_batched, t):\n"
    "    log.append((axis_size, str(in_batched)))\n"
    "    return jax.tree.map(jnp.cos, t), in_batched[0]\n"
    "x, xs = jnp.array(1.), jnp.arange(3.)\n"
)
_SEQ = "from jax.custom_batching import sequential_vmap\n@sequential_vmap\ndef g(x, y): return x * y + 1.\n"

CUSTOM_BATCHING = [
    ("eager", _SIN + "out = (f(x), f(x=x), log)"),
    ("vmap", _SIN + "out = (jax.vmap(f)(xs), log)"),
    ("vmap_kwargs", _SIN + "out = jax.vmap(lambda a: f(x=a))(xs)"),
    ("vmap_int", _SIN + "out = (jax.vmap(f)(jnp.arange(3)), log)"),
    ("jaxpr", _SIN + "out = str(jax.make_jaxpr(f)(x))"),
    ("jaxpr_vmap", _SIN + "out = str(jax.make_jaxpr(jax.vmap(f))(xs))"),
    ("jaxpr_jit", _SIN + "out = str(jax.make_jaxpr(jax.jit(f))(x))"),
    ("jit", _SIN + "out = (jax.jit(f)(x), jax.jit(jax.vmap(f))(xs), jax.vmap(jax.jit(f))(xs))"),
    ("nested_vmap", _SIN + "out = (jax.vmap(jax.vmap(f))(jnp.ones((2, 3))), log)"),
    (
        "closure",
        _SIN.replace("return jnp.sin(x)", "return z + jnp.sin(x)").replace(
            "return jnp.cos(xs)", "return z + jnp.cos(xs)"
        )
        + "z = jnp.array([2., 1., 3.])\nout = (f(x), jax.vmap(f)(xs), str(jax.make_jaxpr(f)(x)))",
    ),
    (
        "multi_output",
        "from jax.custom_batching import custom_vmap\n"
        "@custom_vmap\ndef f(x): return jnp.sin(x), jnp.cos(x)\n"
        "@f.def_vmap\ndef rule(axis_size, in_batched, xs): return (jnp.cos(xs), jnp.sin(xs)), tuple(in_batched * 2)\n"
        "out = (f(1.), jax.vmap(f)(jnp.arange(3.)))",
    ),
    ("mixed_batching_0_none", _DOT + "out = (jax.vmap(dot, in_axes=(0, None))(v(4, 3), v(3)), log)"),
    ("mixed_batching_1_none", _DOT + "out = (jax.vmap(dot, in_axes=(1, None))(v(3, 4), v(3)), log)"),
    ("mixed_batching_none_0", _DOT + "out = (jax.vmap(dot, in_axes=(None, 0))(v(3), v(4, 3)), log)"),
    ("mixed_batching_0_0", _DOT + "out = (jax.vmap(dot, in_axes=(0, 0))(v(4, 3), v(4, 3)), log)"),
    (
        "tree",
        _TREE
        + "t = (xs, [xs + 1, xs + 2], {'a': xs + 3})\nout = (f((x, [x], {'a': x})), jax.vmap(f)(t), log)",
    ),
    ("tree_with_nones", _TREE + "t = (xs, [xs + 1, None], None)\nout = (jax.vmap(f)(t), log)"),
    ("jvp", _SIN + "out = jax.jvp(f, (x,), (2. * x,))"),
    ("jvp_python_scalars", _SIN + "out = jax.jvp(f, (1.,), (2.,))"),
    ("jaxpr_jvp", _SIN + "out = str(jax.make_jaxpr(lambda a, t: jax.jvp(f, (a,), (t,)))(1., 2.))"),
    ("vmap_of_jvp", _SIN + "out = (jax.vmap(lambda a, t: jax.jvp(f, (a,), (t,)))(xs, 2. * xs), log)"),
    ("jvp_of_vmap", _SIN + "out = (jax.jvp(jax.vmap(f), (xs,), (2. * xs,)), log)"),
    (
        "jvp_extra_batched_tangents",
        _SIN + "out = (jax.vmap(lambda a, t: jax.jvp(f, (a,), (t,)), in_axes=(None, 0), out_axes=(None, 0))"
        "(x, 2. + xs), log)",
    ),
    (
        "jvp_extra_batched_primals",
        _SIN + "out = (jax.vmap(lambda a, t: jax.jvp(f, (a,), (t,)), in_axes=(0, None))(xs, x * 4), log)",
    ),
    (
        "err_jvp_unbatched_tangent_out",
        _SIN
        + "out = jax.vmap(lambda a, t: jax.jvp(f, (a,), (t,)), in_axes=(0, None), out_axes=(0, None))(xs, x)",
    ),
    (
        "jvp_linear_rule",
        "from jax.custom_batching import custom_vmap\n"
        "@custom_vmap\ndef f(x): return 7. * x\n"
        "@f.def_vmap\ndef rule(axis_size, in_batched, xs): return 11. * xs, in_batched[0]\n"
        "out = jax.vmap(lambda a, t: jax.jvp(f, (a,), (t,)), in_axes=(0, None), out_axes=(0, None))"
        "(jnp.arange(3.), jnp.array(4.))",
    ),
    (
        "jvp_nary",
        _DOT
        + "out = jax.vmap(lambda a, b, ta, tb: jax.jvp(dot, (a, b), (ta, tb)))(v(4, 3), v(4, 3) + 1, v(4, 3) * 2, v(4, 3) - 1)",
    ),
    ("jacfwd", _SIN + "out = (jax.jacfwd(f)(jnp.arange(3.) + .72), log)"),
    ("jit_of_jvp", _SIN + "out = jax.jit(lambda a, t: jax.jvp(f, (a,), (t,)))(xs, xs)"),
    ("err_grad", _SIN + "out = jax.grad(f)(0.5)"),
    ("err_grad_of_vmap", _SIN + "out = jax.grad(lambda a: jax.vmap(f)(a).sum())(xs)"),
    ("err_linearize", _SIN + "out = jax.linearize(f, 0.5)"),
    (
        "err_undefined_rule",
        "from jax.custom_batching import custom_vmap\n@custom_vmap\ndef f(x): return jnp.sin(x)\nout = f(0.5)",
    ),
    (
        "err_rule_output_vs_batching",
        _SIN.replace("return jnp.cos(xs), in_batched[0]", "return [jnp.sin(xs), jnp.cos(xs)], in_batched")
        + "out = jax.vmap(f)(xs)",
    ),
    (
        "err_rule_vs_function_output",
        _SIN.replace("return jnp.cos(xs), in_batched[0]", "return [jnp.sin(xs)], in_batched")
        + "out = jax.vmap(f)(xs)",
    ),
    (
        "compose_custom_vjp",
        "from jax.custom_batching import custom_vmap\n"
        "@jax.custom_vjp\n@custom_vmap\ndef f(x, y): return jnp.sin(x) * y\n"
        "@f.def_vmap\ndef f_rule(axis_size, in_batched, xs, ys): return jnp.cos(xs) * ys, True\n"
        "def f_fwd(x, y): return f(x, y), (jnp.cos(x), jnp.sin(x), y)\n"
        "def f_bwd(res, g):\n    c, s, y = res\n    return (c * g * y, s * g)\n"
        "f.defvjp(f_fwd, f_bwd)\n"
        "out = (jax.vmap(f)(jnp.zeros(3), jnp.ones(3)), jax.grad(f)(jnp.zeros(()), jnp.ones(())), "
        "jax.vmap(jax.grad(f))(jnp.arange(3.), jnp.ones(3)))",
    ),
    ("sequential", _SEQ + "out = jax.vmap(g)(jnp.arange(3.), jnp.arange(3.) + 4)"),
    ("sequential_mixed", _SEQ + "out = jax.vmap(g, in_axes=(0, None))(jnp.arange(3.), 4.)"),
    ("sequential_jaxpr", _SEQ + "out = str(jax.make_jaxpr(jax.vmap(g))(jnp.arange(3.), jnp.arange(3.) + 4))"),
    (
        "sequential_jaxpr_mixed",
        _SEQ + "out = str(jax.make_jaxpr(jax.vmap(g, in_axes=(0, None)))(jnp.arange(3.), 4.))",
    ),
    ("sequential_jit", _SEQ + "out = jax.jit(jax.vmap(g))(jnp.arange(3.), jnp.ones(3))"),
    ("sequential_eager", _SEQ + "out = g(2., 3.)"),
    (
        "sequential_tree",
        "from jax.custom_batching import sequential_vmap\n"
        "@sequential_vmap\ndef g(d, y): return {'s': d['a'] * y, 't': d['b'] + y}\n"
        "out = jax.vmap(g, in_axes=({'a': 0, 'b': None}, 0))({'a': jnp.arange(3.), 'b': 1.}, jnp.ones(3))",
    ),
]
