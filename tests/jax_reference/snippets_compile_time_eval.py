"""Snippets for what ``jit`` stages from constants: JAX stages every operation under ``jit``, so the
functions whose result size depends on values (``unique``, ``nonzero``, ``bincount``, the set
operations) raise ConcretizationTypeError there even on a closed-over constant, and
``jax.ensure_compile_time_eval`` runs operations on constants now (their results are concrete).
Registered in snippets.py."""

_C = "c = np.array([3, 1, 3, 2])\n"

COMPILE_TIME_EVAL = [
    *[
        (f"{name}_of_constant_in_jit", _C + f"out = jax.jit(lambda: {call})()")
        for name, call in [
            ("unique", "jnp.unique(c)"),
            ("nonzero", "jnp.nonzero(c)"),
            ("bincount", "jnp.bincount(c)"),
            ("bincount_minlength", "jnp.bincount(c, minlength=5)"),
            ("setdiff1d", "jnp.setdiff1d(c, np.array([1]))"),
            ("intersect1d", "jnp.intersect1d(c, np.array([1, 3]))"),
            ("union1d", "jnp.union1d(c, np.array([7]))"),
            ("argwhere", "jnp.argwhere(c > 1)"),
        ]
    ],
    ("unique_of_constant_in_make_jaxpr", _C + "out = jax.make_jaxpr(lambda: jnp.unique(c))()"),
    (
        "unique_of_constant_under_grad",
        _C + "out = jax.grad(lambda x: x * jnp.unique(c).sum())(np.float32(1.0))",
    ),
    (
        "sized_of_constant_in_jit",
        _C + "out = jax.jit(lambda: (jnp.unique(c, size=4), jnp.nonzero(c > 2, size=3), "
        "jnp.bincount(c, length=4), jnp.setdiff1d(c, np.array([1]), size=3)))()",
    ),
    (
        "compile_time_eval_folds_constants",
        _C + "def f(x):\n"
        "    with jax.ensure_compile_time_eval():\n"
        "        z = jnp.sin(jnp.sin(3.0))\n"
        "        u = jnp.unique(c)\n"
        "        positive = bool(z > 0)\n"
        "        k = jax.random.randint(jax.random.key(0), (3,), 0, 100)\n"
        "    return (jnp.sin(x) if positive else jnp.cos(x)) + u.sum() + k.sum()\n"
        "out = (jax.jit(f)(1.0), f(1.0))",
    ),
    (
        "compile_time_eval_stages_traced_values",
        "def f(x):\n"
        "    with jax.ensure_compile_time_eval():\n"
        "        y = x * 2\n"
        "    return bool(y > 0)\n"
        "out = jax.jit(f)(1.0)",
    ),
]
