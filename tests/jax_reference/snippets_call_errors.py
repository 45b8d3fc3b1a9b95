"""Snippets for the errors a user meets calling things the wrong way: a compiled executable called
with other argument types or another pytree than it was compiled for (the engine's executable ran
them: a wrong result or numba's own error), an exported function called with shapes its symbolic
shapes do not fit, and in-place item assignment on an array. The value is the error's
class and whole message. Registered in snippets.py."""


def _message(setup: str, trigger: str) -> str:
    return (
        setup + f"try:\n    {trigger}\n    out = 'no error'\n"
        "except Exception as e:\n    out = [type(e).__name__, str(e)]\n"
    )


_F = "def f(x, y):\n    return 2 * x + y\n"
_TRACED = (
    _F
    + "c = jax.jit(f).trace(jax.ShapeDtypeStruct((), jnp.int32), jax.ShapeDtypeStruct((), jnp.int32)).lower().compile()\n"
)
_DICT = (
    "def g(p):\n    return p['a'] + p['b']\nc = jax.jit(g).lower({'a': jnp.ones(2), 'b': 2.0}).compile()\n"
)

CALL_ERRORS = [
    (
        "compiled_shape",
        _message(_F + "c = jax.jit(f).lower(1.0, jnp.ones(2)).compile()\n", "c(1.0, jnp.ones(3))"),
    ),
    ("compiled_traced_names", _message(_TRACED, "c(jnp.arange(3), jnp.arange(3))")),
    ("compiled_python_floats", _message(_TRACED, "c(1.0, 2.0)")),
    ("compiled_one_dtype", _message(_TRACED, "c(jnp.float32(1), 2)")),
    ("compiled_leaf_paths", _message(_DICT, "c({'a': jnp.ones(3), 'b': 2})")),
    ("compiled_extra_key", _message(_DICT, "c({'a': jnp.ones(2), 'b': 2.0, 'c': 3.0})")),
    ("compiled_missing_key", _message(_DICT, "c({'a': jnp.ones(2)})")),
    ("compiled_list_for_dict", _message(_DICT, "c([jnp.ones(2), 2.0])")),
    ("compiled_extra_argument", _message(_DICT, "c({'a': jnp.ones(2), 'b': 2.0}, 1.0)")),
    (
        "compiled_statics_dropped",
        _message(
            "h = jax.jit(lambda n, x: x * n, static_argnums=0)\nc = h.lower(3, jnp.ones(2)).compile()\n",
            "c(3, jnp.ones(2))",
        ),
    ),
    (
        "compiled_right_call",
        _message(_DICT, "out_ok = c({'a': jnp.ones(2), 'b': 5.0}).tolist()\n    raise ValueError(out_ok)"),
    ),
    ("array_setitem", _message("x = jnp.zeros(3)\n", "x[0] = 1.0")),
    ("array_setitem_2d", _message("x = jnp.zeros((3, 3))\n", "x[1, :] = 1.0")),
    ("array_delitem", _message("x = jnp.zeros(3)\n", "del x[0]")),
    ("tracer_setitem", _message("", "jax.jit(lambda x: x.__setitem__(0, 1.0))(jnp.zeros(3))")),
]

_EXPORT = (
    "from jax import export\n"
    "def exported(spec, constraints=()):\n"
    "    shape = export.symbolic_shape(spec, constraints=constraints)\n"
    "    return export.export(jax.jit(lambda x: x))(jax.ShapeDtypeStruct(shape, np.float32))\n"
)
CALL_ERRORS += [
    ("export_unsolvable", _message(_EXPORT, "exported('a^2')")),
    ("export_remainder", _message(_EXPORT, "exported('b, b, 2*d').call(np.ones((3, 3, 5), np.float32))")),
    ("export_inconsistent", _message(_EXPORT, "exported('b, b').call(np.ones((3, 4), np.float32))")),
    (
        "export_constraint_geq",
        _message(_EXPORT, "exported('a, b', ['a >= b']).call(np.ones((2, 3), np.float32))"),
    ),
    (
        "export_constraint_eq",
        _message(_EXPORT, "exported('a, b', ['a == 2*b']).call(np.ones((3, 2), np.float32))"),
    ),
]
