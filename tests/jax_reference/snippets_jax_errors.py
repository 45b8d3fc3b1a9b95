"""Snippets for ``jax.errors``: for a representative trigger of each error class, the class's module,
qualified name and bases, and its message's first and last lines (JAX's errors end by naming the page
that explains them). Registered in snippets.py."""


def _caught(trigger: str) -> str:
    return (
        "def describe(e):\n"
        "    t, lines = type(e), str(e).splitlines()\n"
        "    return [t.__module__, t.__qualname__, [f'{b.__module__}.{b.__qualname__}' for b in t.__mro__[1:]],\n"
        "            lines[0], lines[-1]]\n"
        f"try:\n    {trigger}\n    out = 'no error'\n"
        "except Exception as e:\n    out = describe(e)\n"
    )


JAX_ERRORS = [
    ("concretization_float", _caught("jax.jit(lambda x: float(x))(1.0)")),
    ("concretization_int", _caught("jax.jit(lambda x: int(x))(1)")),
    ("concretization_complex_vmap", _caught("jax.vmap(lambda x: complex(x))(jnp.ones(2))")),
    ("concretization_grad_float", _caught("jax.grad(lambda x: float(x))(1.0)")),
    ("bool_conversion", _caught("jax.jit(lambda x: 1 if x > 0 else 2)(1.0)")),
    ("bool_conversion_vmap", _caught("jax.vmap(lambda x: 1 if x > 0 else 2)(jnp.ones(2))")),
    ("array_conversion", _caught("jax.jit(lambda x: np.asarray(x))(1.0)")),
    ("array_conversion_grad", _caught("jax.grad(lambda x: np.sin(x))(1.0)")),
    ("integer_conversion", _caught("jax.jit(lambda i: [1, 2][i])(1)")),
    ("integer_conversion_range", _caught("jax.jit(lambda n: range(n))(1)")),
    (
        "unexpected_tracer",
        "leak = []\njax.jit(lambda x: leak.append(x) or x)(1.0)\n"
        + _caught("jax.jit(lambda y: y + leak[0])(1.0)"),
    ),
    ("nonconcrete_boolean_index", _caught("jax.jit(lambda x: x[x > 0])(jnp.ones(3))")),
    (
        "key_reuse",
        "def twice():\n"
        "    with jax.debug_key_reuse(True):\n"
        "        k = jax.random.key(0)\n"
        "        jax.random.normal(k)\n"
        "        jax.random.normal(k)\n" + _caught("twice()"),
    ),
    (
        "error_classes",
        "names = ['ConcretizationTypeError', 'InconclusiveDimensionOperation', 'JAXIndexError', 'JAXTypeError',\n"
        "         'JaxRuntimeError', 'JaxprTypeError', 'KeyReuseError', 'NonConcreteBooleanIndexError',\n"
        "         'TracerArrayConversionError', 'TracerBoolConversionError', 'TracerIntegerConversionError',\n"
        "         'UnexpectedTracerError']\n"
        "out = [(c.__module__, c.__qualname__, [f'{b.__module__}.{b.__qualname__}' for b in c.__mro__[1:]])\n"
        "       for c in (getattr(jax.errors, n) for n in names)]",
    ),
]
