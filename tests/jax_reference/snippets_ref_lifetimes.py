"""Snippets for where mutable array refs live and die: ``jax.empty_ref`` under ``grad``/``vmap``/
``jvp`` (no eager rule, so refused unless something stages it), writes into an ``empty_ref`` made
inside a ``vmap`` (unbatched there), and use of a ref after ``jax.free_ref``/``jax.freeze`` in a
jitted program (JAX's discharge forgets it; eagerly nothing is refused). Registered in snippets.py;
the refusals are checked word for word (tests/test_jax_reference.py)."""

_S = "S = jax.ShapeDtypeStruct((), jnp.float32)\n"
_G2 = _S + "def g2(x):\n    r = jax.empty_ref(S)\n    r[...] = x\n    return r[...] * x\n"
_FREE = (
    "def read_freed(x):\n    r = jax.new_ref(x)\n    jax.free_ref(r)\n    return r[...]\n"
    "def write_freed(x):\n    r = jax.new_ref(x)\n    jax.free_ref(r)\n    r[...] = x\n    return x\n"
)
# (a KeyError's text is an id: the snippet keeps its class and that it is a number)
_KEYERROR = "try:\n    {call}\n    out = 'no error'\nexcept KeyError as e:\n    out = ('KeyError', str(e).isdigit())\n"

REF_LIFETIMES = [
    ("err_empty_ref_grad", _G2 + "out = jax.grad(g2)(2.0)"),
    ("err_empty_ref_vmap", _G2 + "out = jax.vmap(g2)(jnp.arange(3.))"),
    ("err_empty_ref_jvp", _G2 + "out = jax.jvp(g2, (2.0,), (1.0,))"),
    (
        "empty_ref_staged",
        _G2 + "out = (jax.jit(g2)(2.0), jax.jit(g2)(jnp.float32(3.0)), jax.jit(jax.grad(g2))(2.0), "
        "jax.grad(jax.jit(g2))(2.0), jax.jit(lambda x, t: jax.jvp(g2, (x,), (t,)))(2.0, 1.0))",
    ),
    ("err_empty_ref_jit_vmap_set", _G2 + "out = jax.jit(jax.vmap(g2))(jnp.arange(3.))"),
    ("err_empty_ref_vmap_jit_set", _G2 + "out = jax.vmap(jax.jit(g2))(jnp.arange(3.))"),
    ("err_empty_ref_make_jaxpr_vmap_set", _G2 + "out = jax.make_jaxpr(jax.vmap(g2))(jnp.arange(3.))"),
    (
        "err_empty_ref_jit_vmap_set_constant",
        _S + "def f(x):\n    r = jax.empty_ref(S)\n    r[...] = 3.0\n    return x\n"
        "out = jax.jit(jax.vmap(f))(jnp.arange(3.))",
    ),
    (
        "err_empty_ref_jit_vmap_addupdate",
        _S + "def f(x):\n    r = jax.empty_ref(S)\n    jax.ref.addupdate(r, ..., x)\n    return r[...] * x\n"
        "out = jax.jit(jax.vmap(f))(jnp.arange(3.))",
    ),
    (
        "empty_ref_jit_vmap_read_only",
        _S + "out = jax.jit(jax.vmap(lambda x: jax.freeze(jax.empty_ref(S)) * x))(jnp.arange(3.))",
    ),
    (
        "new_ref_transformed",
        "def f(x):\n    r = jax.new_ref(jnp.float32(0.0))\n    r[...] = x\n    return r[...] * x\n"
        "def g(x):\n    r = jax.new_ref(x)\n    r[...] += 1.0\n    return r[...] * x\n"
        "out = (jax.grad(f)(2.0), jax.jvp(f, (2.0,), (1.0,)), jax.vmap(f)(jnp.arange(3.)), "
        "jax.jit(jax.vmap(f))(jnp.arange(3.)), jax.vmap(g)(jnp.arange(3.)), jax.grad(g)(2.0), "
        "jax.jvp(g, (jnp.float32(2.0),), (jnp.float32(1.0),)), jax.jit(jax.grad(g))(jnp.float32(2.0)))",
    ),
    (
        "free_ref_then_use_eagerly",
        _FREE + "out = (read_freed(jnp.arange(3.)), write_freed(jnp.float32(2.0)))",
    ),
    ("err_free_ref_then_read_jit", _FREE + "out = jax.jit(read_freed)(jnp.arange(3.))"),
    ("err_free_ref_then_read_jit_weak", _FREE + "out = jax.jit(read_freed)(2.0)"),
    ("err_free_ref_then_write_jit", _FREE + "out = jax.jit(write_freed)(jnp.arange(3.))"),
    # (grad of a jit: the differentiated program is discharged when it runs; jit of a grad is not)
    (
        "err_free_ref_then_read_grad_of_jit",
        _FREE + "out = jax.grad(jax.jit(lambda x: read_freed(x).sum()))(jnp.arange(3.))",
    ),
    (
        "free_ref_then_read_jit_of_grad",
        _FREE + "out = jax.jit(jax.grad(lambda x: read_freed(x).sum()))(jnp.arange(3.))",
    ),
    (
        "err_free_ref_then_addupdate_jit",
        "def f(x):\n    r = jax.new_ref(x)\n    jax.free_ref(r)\n    jax.ref.addupdate(r, ..., x)\n    return x\n"
        "out = jax.jit(f)(jnp.arange(3.))",
    ),
    (
        "free_ref_twice_jit",
        "def f(x):\n    r = jax.new_ref(x)\n    jax.free_ref(r)\n    jax.free_ref(r)\n    return x\n"
        + _KEYERROR.format(call="jax.jit(f)(jnp.arange(3.))"),
    ),
    (
        "free_ref_then_freeze_jit",
        "def f(x):\n    r = jax.new_ref(x)\n    jax.free_ref(r)\n    return jax.freeze(r)\n"
        + _KEYERROR.format(call="jax.jit(f)(jnp.arange(3.))"),
    ),
    (
        "err_freeze_then_read_jit",
        "def f(x):\n    r = jax.new_ref(x)\n    y = jax.freeze(r)\n    return r[...] + y\n"
        "out = jax.jit(f)(jnp.arange(3.))",
    ),
    (
        "err_freeze_then_write_jit",
        "def f(x):\n    r = jax.new_ref(x)\n    y = jax.freeze(r)\n    r[...] = x\n    return y\n"
        "out = jax.jit(f)(jnp.arange(3.))",
    ),
    (
        "unused_freeze_then_read_jit",  # (jit drops a freeze nothing reads before it discharges)
        "def f(x):\n    r = jax.new_ref(x)\n    jax.freeze(r)\n    return r[...]\n"
        "out = jax.jit(f)(jnp.arange(3.))",
    ),
    (
        "err_free_ref_argument_jit",
        "r0 = jax.new_ref(jnp.arange(3.))\nout = jax.jit(lambda r, x: (jax.free_ref(r), x)[1])(r0, 1.0)",
    ),
    ("err_freeze_ref_argument_jit", "r0 = jax.new_ref(jnp.arange(3.))\nout = jax.jit(jax.freeze)(r0)"),
    (
        "freeze_ref_argument_unused_jit",
        "r0 = jax.new_ref(jnp.arange(3.))\nout = jax.jit(lambda r: (jax.freeze(r), 1.0)[1])(r0)",
    ),
    (
        "err_free_ref_vmap",
        _FREE + "out = jax.vmap(read_freed)(jnp.arange(3.))",
    ),
    ("err_free_ref_jit_vmap", _FREE + "out = jax.jit(jax.vmap(read_freed))(jnp.arange(3.))"),
]

# A jitted program's results are typed as its discharged form types them: a ref read after a write
# holds the written (strongly typed) value; one never written keeps its initial weak type.
REF_LIFETIMES += [
    (
        "jit_results_weak_types",
        "def g(x):\n    r = jax.new_ref(x)\n    r[...] += 1.0\n    return r[...] * x\n"
        "out = (jax.jit(g)(2.0), jax.jit(lambda x: jax.new_ref(x)[...])(2.0), "
        "jax.jit(lambda x: jax.freeze(jax.new_ref(x)))(2.0), jax.jit(lambda x: jax.new_ref(x)[...] * x)(2.0))",
    ),
]

# How a nested jit takes what it closes over (JAX's pjit): refs alone go after its arguments (the
# other constants stay constants); with an outer tracer among them, every constant, refs and arrays
# included, goes first, in the order traced.
_CLOSED = (
    "c = jnp.arange(4.)\n"
    "r = jax.new_ref(jnp.zeros(3))\n"
    "def h(y):\n    r[...] += y\n    return y * jnp.sum(c)\n"
    "def g(x):\n"
    "    def inner(y):\n        r[...] += y\n        return x * y + jnp.sum(c)\n"
    "    return jax.jit(inner)(jnp.ones(3))\n"
)
REF_LIFETIMES += [
    ("jaxpr_jit_closing_over_a_ref", _CLOSED + "out = str(jax.make_jaxpr(jax.jit(h))(jnp.ones(3)))"),
    ("jit_closing_over_a_ref", _CLOSED + "y = jax.jit(h)(jnp.ones(3))\nout = (y, r[...])"),
    ("jaxpr_jit_closing_over_a_tracer_and_a_ref", _CLOSED + "out = str(jax.make_jaxpr(g)(jnp.ones(3)))"),
    (
        "jaxpr_grad_of_jit_closing_over_a_tracer",
        _CLOSED
        + "out = str(jax.make_jaxpr(jax.grad(lambda x: jax.jit(lambda y: x * y + jnp.sum(c))(2.0)))(3.0))",
    ),
]
