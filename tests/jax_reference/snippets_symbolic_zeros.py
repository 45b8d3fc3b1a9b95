"""Snippets for ``jax.custom_derivatives``' symbolic zeros (``SymbolicZero``, ``CustomVJPPrimal``,
``zero_from_primal``, ``custom_vjp_primal_tree_values``, ``defjvp``/``defvjp(...,
symbolic_zeros=True)``) and ``linear_call`` (issue 13). Registered in snippets.py. Rules log what
kind of value they got (a zero, a perturbed flag) beside the values."""

_CD = "from jax.custom_derivatives import SymbolicZero, CustomVJPPrimal, zero_from_primal, linear_call\n"
_JVP = (
    _CD + "log = []\n"
    "@jax.custom_jvp\ndef f(x, y): return x * y\n"
    "def f_jvp(primals, tangents):\n"
    "    x, y = primals\n    tx, ty = tangents\n"
    "    log.append((isinstance(tx, SymbolicZero), isinstance(ty, SymbolicZero)))\n"
    "    tx = jnp.zeros_like(x) if isinstance(tx, SymbolicZero) else tx\n"
    "    ty = jnp.zeros_like(y) if isinstance(ty, SymbolicZero) else ty\n"
    "    return f(x, y), tx * y + x * ty\n"
    "f.defjvp(f_jvp, symbolic_zeros=True)\n"
)
_VJP = (
    _CD + "log = []\n"
    "@jax.custom_vjp\ndef g(x, y): return jnp.sin(x) * y\n"
    "def g_fwd(x, y):\n"
    "    log.append(('fwd', type(x).__name__, x.perturbed, y.perturbed))\n"
    "    return g(x.value, y.value), (jnp.cos(x.value), x.value, y.value)\n"
    "def g_bwd(res, ct):\n"
    "    c, x, y = res\n"
    "    log.append(('bwd', isinstance(ct, SymbolicZero)))\n"
    "    return (c * y * ct, None)\n"
    "g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)\n"
)
_LIN = (
    _CD + "def fn(r, lin): return r * lin\n"
    "def fn_t(r, ct): return 3. * r * ct\n"
    "def lc(x, y): return linear_call(fn, fn_t, y, x)\n"
)

SYMBOLIC_ZEROS = [
    ("jvp_symbolic_zero_tangent", _JVP + "out = (jax.jvp(lambda x: f(x, 3.), (2.,), (1.,)), log)"),
    ("jvp_both_tangents", _JVP + "out = (jax.jvp(f, (2., 3.), (1., 1.)), log)"),
    ("grad_symbolic_zero_arg1", _JVP + "out = (jax.grad(f)(2., 3.), log)"),
    ("grad_symbolic_zero_arg0", _JVP + "out = (jax.grad(f, 1)(2., 3.), log)"),
    ("jit_grad_symbolic_zero", _JVP + "out = (jax.jit(jax.grad(f))(2., 3.), log)"),
    ("jaxpr_symbolic_zeros_flag", _JVP + "out = str(jax.make_jaxpr(f)(2., 3.))"),
    ("vjp_perturbed_arg0", _VJP + "out = (jax.grad(g)(1., 2.), log)"),
    ("vjp_perturbed_arg1", _VJP + "out = (jax.grad(g, argnums=1)(1., 2.), log)"),
    ("vjp_perturbed_both", _VJP + "out = (jax.grad(g, argnums=(0, 1))(1., 2.), log)"),
    ("vjp_jit_grad", _VJP + "out = (jax.jit(jax.grad(g))(1., 2.), log)"),
    ("vjp_eval", _VJP + "out = (g(1., 2.), log)"),
    (
        "vjp_bwd_returns_symbolic_zero",
        _VJP.replace("return (c * y * ct, None)", "return (c * y * ct, SymbolicZero(jax.typeof(y)))")
        + "out = jax.grad(g, argnums=(0, 1))(1., 2.)",
    ),
    (
        "symbolic_zero_attributes",
        _CD + "z = SymbolicZero(jax.typeof(jnp.ones((2, 3))))\nout = (repr(z), z.shape, str(z.dtype))",
    ),
    (
        "zero_from_primal",
        _CD
        + "out = (zero_from_primal(jnp.ones(2)), repr(zero_from_primal(jnp.ones(2), symbolic_zeros=True)), "
        "zero_from_primal({'a': jnp.ones(2, jnp.int32) * 0. , 'b': 1.}))",
    ),
    (
        "err_custom_vjp_primal_tree_values_other_leaf",
        "from jax.custom_derivatives import CustomVJPPrimal, custom_vjp_primal_tree_values\n"
        "out = (str(CustomVJPPrimal(1., True)), "
        "custom_vjp_primal_tree_values([CustomVJPPrimal(1., True), {'a': CustomVJPPrimal(2., False)}, 3.]))",
    ),
    (
        "custom_vjp_primal_values",
        "from jax.custom_derivatives import CustomVJPPrimal, custom_vjp_primal_tree_values\n"
        "p = CustomVJPPrimal(1., True)\n"
        "out = (str(p), p.value, p.perturbed, "
        "custom_vjp_primal_tree_values([p, {'a': CustomVJPPrimal(jnp.ones(2), False)}]))",
    ),
    ("linear_call_eval", _LIN + "out = lc(2., 5.)"),
    ("linear_call_grad", _LIN + "out = jax.grad(lc)(2., 5.)"),
    ("linear_call_jvp", _LIN + "out = jax.jvp(lambda x: lc(x, 5.), (2.,), (1.,))"),
    ("linear_call_jit", _LIN + "out = (jax.jit(lc)(2., 5.), jax.jit(jax.grad(lc))(2., 5.))"),
    ("linear_call_jaxpr", _LIN + "out = str(jax.make_jaxpr(lc)(2., 5.))"),
    ("linear_call_transpose", _LIN + "out = jax.linear_transpose(lambda x: lc(x, 5.), 1.)(1.)"),
    ("err_linear_call_vmap", _LIN + "out = jax.vmap(lc)(jnp.arange(3.), jnp.ones(3))"),
    (
        "linear_call_pytrees",
        _CD + "def fn(r, lin): return {'s': r['a'] * lin[0] + lin[1]}\n"
        "def fn_t(r, ct): return (r['a'] * ct['s'], ct['s'])\n"
        "h = lambda x, y: linear_call(fn, fn_t, {'a': 4.}, (x, y))['s']\n"
        "out = (jax.grad(h, argnums=(0, 1))(1., 2.), jax.jit(h)(1., 2.))",
    ),
]
