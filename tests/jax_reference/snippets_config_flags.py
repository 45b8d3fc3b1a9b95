"""Snippets for the configuration options JAX exposes as ``jax.NAME`` context managers (issue 13):
PRNG implementation defaults, legacy raw keys, custom PRNG keys, enable_checks, default_device,
leak checking and key-reuse checking. Registered in snippets.py. Warnings are recorded as text."""

_W = "import warnings\nws = []\n"
_CATCH = (
    "with warnings.catch_warnings(record=True) as caught:\n"
    "    warnings.simplefilter('always')\n"
    "    v = run()\n"
    "out = (v, [str(w.message) for w in caught if 'key' in str(w.message).lower()])"
)


def _warned(body: str) -> str:
    return _W + "def run():\n" + "".join(f"    {line}\n" for line in body.split("\n")) + _CATCH


_LEAK = "kept = []\ndef keep(x):\n    kept.append(x)\n    return x\n"

_SM = "with jax.softmax_custom_jvp(True):\n"

_KR = "k = jax.random.key(0)\nwith jax.debug_key_reuse(True):\n"

CONFIG_FLAGS = [
    (
        "state_values",
        "out = (jax.enable_checks.value, jax.debug_key_reuse.value, jax.legacy_prng_key.value, "
        "jax.default_prng_impl.value, jax.check_tracer_leaks.value, jax.softmax_custom_jvp.value)",
    ),
    (
        "enable_checks",
        "with jax.enable_checks(True):\n    out = (jax.config.jax_enable_checks, jax.jit(jnp.sin)(1.))",
    ),
    ("enable_checks_restored", "with jax.enable_checks(True):\n    pass\nout = jax.config.jax_enable_checks"),
    ("legacy_allow", _warned("return jax.random.normal(jax.random.PRNGKey(0))")),
    (
        "legacy_warn",
        _warned("with jax.legacy_prng_key('warn'):\n    return jax.random.normal(jax.random.PRNGKey(0))"),
    ),
    (
        "err_legacy_error",
        "with jax.legacy_prng_key('error'):\n    out = jax.random.normal(jax.random.PRNGKey(0))",
    ),
    (
        "legacy_error_typed_keys_fine",
        "with jax.legacy_prng_key('error'):\n    out = (jax.random.normal(jax.random.key(0)), jax.random.PRNGKey(0), "
        "str(jax.random.split(jax.random.key(1))))",
    ),
    ("err_legacy_bad_level", "with jax.legacy_prng_key('never'):\n    out = 1"),
    ("custom_prng_PRNGKey", "with jax.enable_custom_prng(True):\n    out = str(jax.random.PRNGKey(3))"),
    (
        "custom_prng_raw_key_functions",
        _warned(
            "with jax.enable_custom_prng(True):\n    k = jnp.array([0, 5], jnp.uint32)\n"
            "    return (jax.random.uniform(k), str(jax.random.split(k)), str(jax.random.fold_in(k, 2)))"
        ),
    ),
    (
        "default_impl_rbg",
        "with jax.default_prng_impl('rbg'):\n    out = (str(jax.random.key(0)), jax.random.PRNGKey(7))",
    ),
    (
        "default_impl_unsafe_rbg",
        "with jax.default_prng_impl('unsafe_rbg'):\n    out = (str(jax.random.key(1)), jax.random.PRNGKey(2))",
    ),
    (
        "default_impl_rbg_draws",
        "with jax.default_prng_impl('rbg'):\n    k = jax.random.PRNGKey(5)\n"
        "    out = (jax.random.uniform(k, (3,)), jax.random.split(k), jax.random.normal(jax.random.key(5), (2,)))",
    ),
    ("default_impl_restored", "with jax.default_prng_impl('rbg'):\n    pass\nout = str(jax.random.key(0))"),
    ("err_default_impl_bogus", "with jax.default_prng_impl('bogus'):\n    out = 1"),
    ("err_default_impl_update_bogus", "jax.config.update('jax_default_prng_impl', 'bogus')\nout = 1"),
    (
        "default_device_cpu",
        "with jax.default_device(jax.devices('cpu')[0]):\n    out = (jnp.ones(2) + 1, str(jnp.ones(2).devices()))",
    ),
    (
        "default_device_platform",
        "with jax.default_device('cpu'):\n    out = jax.jit(jnp.cos)(jnp.arange(2.))",
    ),
    ("err_default_device_bad", "with jax.default_device('nope'):\n    out = 1"),
    (
        "threefry_partitionable_default",
        "out = (jax.config.jax_threefry_partitionable, jax.threefry_partitionable.value)",
    ),
    ("err_leak_jit", _LEAK + "with jax.checking_leaks():\n    out = jax.jit(keep)(1.)"),
    (
        "err_leak_make_jaxpr",
        _LEAK + "with jax.check_tracer_leaks(True):\n    out = str(jax.make_jaxpr(keep)(1.))",
    ),
    ("err_leak_vmap", _LEAK + "with jax.checking_leaks():\n    out = jax.vmap(keep)(jnp.ones(2))"),
    ("leak_grad_not_checked", _LEAK + "with jax.checking_leaks():\n    out = jax.grad(keep)(1.)"),
    (
        "no_leak",
        "with jax.checking_leaks():\n    out = (jax.jit(jnp.sin)(1.), jax.vmap(jnp.cos)(jnp.ones(2)))",
    ),
    (
        "leak_check_off_again",
        _LEAK
        + "with jax.checking_leaks():\n    pass\nout = (jax.jit(keep)(1.), jax.check_tracer_leaks.value)",
    ),
    (
        "leak_after_cached_trace_not_checked",
        _LEAK + "g = jax.jit(keep)\ng(1.)\nkept.clear()\nwith jax.checking_leaks():\n    out = g(2.)",
    ),
    ("softmax_custom_jvp_jaxpr", _SM + "    out = str(jax.make_jaxpr(jax.nn.softmax)(jnp.ones(3)))"),
    (
        "softmax_custom_jvp_jaxpr_of_grad",
        _SM + "    out = str(jax.make_jaxpr(jax.grad(lambda x: jax.nn.softmax(x)[0]))(jnp.ones(3)))",
    ),
    (
        "softmax_custom_jvp_values",
        _SM + "    x = jnp.array([[0.5, -1., 2.], [3., 0., 1.]])\n"
        "    out = (jax.nn.softmax(x), jax.nn.softmax(x, axis=0), jax.jit(jax.nn.softmax)(x), "
        "jax.vmap(jax.nn.softmax)(x), jax.grad(lambda v: jax.nn.softmax(v)[1])(x[0]), "
        "jax.jacfwd(jax.nn.softmax)(x[1]), jax.hessian(lambda v: jax.nn.softmax(v)[0])(x[0]))",
    ),
    (
        "softmax_custom_jvp_where",
        _SM + "    x, w = jnp.array([0.5, -1., 2.]), jnp.array([True, False, True])\n"
        "    out = (jax.nn.softmax(x, where=w), jax.grad(lambda v: jax.nn.softmax(v, where=w)[2])(x))",
    ),
    ("err_key_reuse_draw_twice", _KR + "    jax.random.uniform(k)\n    out = jax.random.uniform(k)"),
    ("err_key_reuse_split_then_draw", _KR + "    jax.random.split(k)\n    out = jax.random.normal(k)"),
    (
        "err_key_reuse_after_key_data",
        _KR + "    jax.random.key_data(k)\n    jax.random.normal(k)\n    out = jax.random.normal(k)",
    ),
    (
        "key_reuse_split_keys_fine",
        _KR + "    k1, k2 = jax.random.split(k)\n    out = (jax.random.normal(k1), jax.random.normal(k2), "
        "jax.random.uniform(jax.random.fold_in(k, 3)))",
    ),
    (
        "key_reuse_fold_in_twice_fine",
        _KR + "    out = str((jax.random.fold_in(k, 1), jax.random.fold_in(k, 2)))",
    ),
    (
        "key_reuse_raw_keys_untracked",
        _KR + "    r = jax.random.PRNGKey(0)\n    out = (jax.random.normal(r), jax.random.normal(r))",
    ),
    (
        "err_key_reuse_inside_jit",
        _KR + "    out = jax.jit(lambda k: jax.random.normal(k) + jax.random.normal(k))(k)",
    ),
    (
        "err_key_reuse_jit_twice",
        _KR + "    f = jax.jit(lambda k: jax.random.normal(k))\n    f(k)\n    out = f(k)",
    ),
    (
        "err_key_reuse_jit_then_eager",
        _KR + "    jax.jit(lambda k: jax.random.split(k))(k)\n    out = jax.random.bits(k)",
    ),
    (
        "key_reuse_jit_not_consuming_fine",
        _KR
        + "    f = jax.jit(lambda k: jax.random.key_data(k))\n    f(k)\n    out = (f(k), jax.random.normal(k))",
    ),
    (
        "key_reuse_off_again",
        _KR + "    pass\nout = (jax.random.normal(k), jax.random.normal(k), jax.debug_key_reuse.value)",
    ),
    (
        "more_state_values",
        "out = (jax.allow_f16_reductions.value, jax.auto_pcast.value, jax.no_execution.value, "
        "jax.jax2tf_associative_scan_reductions.value, jax.remove_size_one_mesh_axis_from_type.value, "
        "jax.array_garbage_collection_guard.value)",
    ),
    (
        "accepted_contexts",
        "with jax.array_garbage_collection_guard('log'), jax.jax2tf_associative_scan_reductions(True):\n"
        "    out = (jnp.cumsum(jnp.arange(4.)), jax.config.jax_array_garbage_collection_guard, "
        "jax.config.jax2tf_associative_scan_reductions)",
    ),
    ("err_gc_guard_bad_level", "with jax.array_garbage_collection_guard('never'):\n    out = 1"),
]
