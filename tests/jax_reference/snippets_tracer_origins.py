"""Snippets for what JAX's errors about traced values say of the value's origin: the function
traced, for what (jit, cond, scan, checkpoint...), and the arguments the value depends on or the
operations on constants that made it a tracer (``engine.tracer_origins``); a vmap tracer's line.
The value is the error's class and whole message.

The functions are compiled from text under one file name (``user.py``), so the lines and columns the
messages name are the same in JAX's recording and the engine's run; a BatchTracer's object id, which
cannot be, is replaced by ``N``. Registered in snippets.py."""


def _message(src: str, trigger: str) -> str:
    return (
        "import re\n"
        f"exec(compile({src!r}, 'user.py', 'exec'), globals())\n"
        f"try:\n    {trigger}\n    out = 'no error'\n"
        "except Exception as e:\n"
        "    out = [type(e).__name__, re.sub(r'object id [0-9]+', 'object id N', str(e))]\n"
    )


_ARGS = (
    "def one(x, y):\n    return float(x)\n"
    "def two(x, y):\n    if x + y > 0:\n        return x\n    return y\n"
    "def three(a, b, c):\n    return bool(a + b + c)\n"
    "def tree(params, x):\n    return int(params['w'] * x)\n"
    "def shape(x, n):\n    return jnp.zeros(n)\n"
)
_CONSTS = (
    "def consts(x):\n    z = jnp.sin(3.0) * 2\n    return int(z)\n"
    "def many(x):\n"
    "    a = jnp.ones(3); b = a * 2; c = b + 1; d = jnp.sin(c); e = d - 1; g = e * 3; h = g / 2\n"
    "    return int(h.sum())\n"
    "def outer():\n    def inner(x):\n        return int(jnp.cos(2.0) + jnp.ones(()))\n    return inner\n"
)
_FLOW = (
    "def branch(y):\n    return float(y)\n"
    "def body(i, c):\n    return float(c)\n"
    "def index_body(i, c):\n    return float(i)\n"
    "def step(c, x):\n    return c, float(x)\n"
    "def check(c):\n    return float(c) > 0\n"
    "def remat(y):\n    return float(y)\n"
)

TRACER_ORIGINS = [
    ("jit_one_argument", _message(_ARGS, "jax.jit(one)(1.0, 2.0)")),
    ("jit_two_arguments", _message(_ARGS, "jax.jit(two)(1.0, 2.0)")),
    ("jit_three_arguments", _message(_ARGS, "jax.jit(three)(1.0, 2.0, 3.0)")),
    ("jit_pytree_argument", _message(_ARGS, "jax.jit(tree)({'w': 1.0, 'b': 2.0}, 3.0)")),
    ("jit_keyword_argument", _message(_ARGS, "jax.jit(one)(1.0, y=2.0)")),
    ("jit_static_argument", _message(_ARGS, "jax.jit(two, static_argnums=0)(1.0, 2.0)")),
    ("make_jaxpr", _message(_ARGS, "jax.make_jaxpr(two)(1.0, 2.0)")),
    ("nested_jit", _message(_ARGS, "jax.jit(lambda a, b: jax.jit(one)(b, a))(1.0, 2.0)")),
    ("traced_shape_argument", _message(_ARGS, "jax.jit(shape)(1.0, 3)")),
    ("traced_shape_constant", _message(_ARGS, "jax.jit(lambda x: jnp.zeros(jnp.array(3)))(1.0)")),
    ("index_conversion", _message(_ARGS, "jax.jit(lambda x: range(x))(1)")),
    ("array_conversion", _message(_ARGS, "jax.jit(lambda x: np.asarray(x))(1.0)")),
    ("tolist", _message(_ARGS, "jax.jit(lambda x: x.tolist())(1.0)")),
    ("item", _message(_ARGS, "jax.jit(lambda x: x.item())(1.0)")),
    ("arange_stop", _message(_ARGS, "jax.jit(lambda x: jnp.arange(x))(3)")),
    ("arange_start", _message(_ARGS, "jax.jit(lambda x: jnp.arange(x, 5))(3)")),
    ("constants_operations", _message(_CONSTS, "jax.jit(consts)(1.0)")),
    ("constants_more_than_five", _message(_CONSTS, "jax.jit(many)(1.0)")),
    ("constants_nested_function", _message(_CONSTS, "jax.jit(outer())(1.0)")),
    ("cond_branch", _message(_FLOW, "jax.jit(lambda x: lax.cond(x > 0, branch, lambda y: y, x))(1.0)")),
    ("switch_branch", _message(_FLOW, "jax.jit(lambda x: lax.switch(0, [branch, lambda y: y], x))(1.0)")),
    ("while_cond", _message(_FLOW, "jax.jit(lambda x: lax.while_loop(check, lambda c: c, x))(1.0)")),
    ("while_body", _message(_FLOW, "jax.jit(lambda x: lax.while_loop(lambda c: c > 0, branch, x))(1.0)")),
    ("fori_loop_scan", _message(_FLOW, "jax.jit(lambda x: lax.fori_loop(0, 2, body, x))(1.0)")),
    ("fori_loop_index", _message(_FLOW, "jax.jit(lambda x: lax.fori_loop(0, 2, index_body, x))(1.0)")),
    ("fori_loop_while", _message(_FLOW, "jax.jit(lambda n: lax.fori_loop(0, n, body, 1.0))(3)")),
    ("scan_body", _message(_FLOW, "jax.jit(lambda xs: lax.scan(step, 0.0, xs))(jnp.ones(2))")),
    ("checkpoint", _message(_FLOW, "jax.jit(lambda x: jax.checkpoint(remat)(x))(1.0)")),
    ("vmap_tracer_line", _message(_ARGS, "jax.vmap(lambda x: float(x))(jnp.ones(2))")),
    ("grad_tracer", _message(_ARGS, "jax.grad(lambda x: float(x))(1.0)")),
]
