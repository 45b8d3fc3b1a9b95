"""What the ninth differential fuzz (dtype promotion and weak types: binary jnp / lax operations on
every pair of float16, bfloat16, float32, the integer types, bool, complex64, Python and numpy
scalars, under jit, vmap, grad, jvp and make_jaxpr; issue 13) found. ``bool // int`` lost its weak
type (floor_divide's fix-up compared with lax where JAX's jnp comparisons give weak bools that
logical_and converts); hypot's final ``where`` kept a weak array weak against JAX's strongly typed
inf; complex ``<``/``>`` staged an and/or formula where JAX selects on the real parts' tie;
logaddexp, logaddexp2 and arctan2 of complex numbers raised where JAX computes them; lax refusing
an operand's dtype kind said "requires the same dtypes" (JAX names the kind first), jnp's bitwise
functions, negative and subtract gave their own words for lax's refusal, and a bfloat16 operand's
refusal named float32. ``astype(bool)`` of a complex array tested only the real part (JAX: ``x !=
0``), and complex-to-real casts gave no warning where JAX gives numpy's ComplexWarning (astype: a
DeprecationWarning). Under jit, a bfloat16 operation whose result is converted to float32 kept its
float32 value, as XLA's CPU backend does (excess precision), where the engine rounded it first.
Registered in snippets.py."""

_BF = "bf = jnp.bfloat16\nx = jnp.array([1.0078125, 1.00390625, 0.3, -2.7], bf)\ns = jnp.array(3, bf)\n"

_ERRORS = (
    "def err(f):\n"
    "    try:\n"
    "        f()\n"
    "    except Exception as e:\n"
    "        return type(e).__name__ + ': ' + str(e).splitlines()[0]\n"
)

FUZZ9 = [
    (
        "floor_divide_of_bools_by_a_weak_int",
        "a = jnp.array([True, False, True])\n"
        "out = (str(jax.make_jaxpr(lambda a: a // 2)(a)), jax.jit(lambda a: a // 2)(a), a // 2, (a // 3) * 2.5)",
    ),
    (
        "hypot_of_a_weak_array",
        "out = [(str(jax.make_jaxpr(jnp.hypot)(a, b)), jnp.hypot(a, b)) for a, b in"
        " [(jnp.array([3, -4], jnp.int8), 1.5), (3, 4.0), (jnp.asarray(2.0), 1), (jnp.ones(2), 3)]]",
    ),
    (
        "complex_comparisons_select_on_real_ties",
        "a = jnp.array([1+2j, 1-1j, 0.5, 2j], dtype=jnp.complex64)\n"
        "b = jnp.array([1+1j, 1-1j, 0.5+1j, -2j], dtype=jnp.complex64)\n"
        "out = [str(jax.make_jaxpr(lambda a: a > 1)(a))]"
        " + [(f(a, b), jax.jit(f)(a, b), f(a, 1)) for f in (jnp.less, jnp.less_equal, jnp.greater, jnp.greater_equal)]",
    ),
    (
        "complex_logaddexp",
        "a = jnp.array([1+2j, 1-1j, 0.5, 2j, -3+4j], dtype=jnp.complex64)\n"
        "b = jnp.array([1+1j, 1-1j, 0.5+1j, -2j, 10+0j], dtype=jnp.complex64)\n"
        "out = [(f(a, b), jax.jit(f)(a, 2.0), str(jax.make_jaxpr(f)(a, b)), jax.jvp(f, (a, b), (a, b)),"
        " jax.grad(lambda x: f(x, 2.0 + 1j).real)(1.0 + 0.5j), jax.vmap(f, (0, None))(a, b[0]))"
        " for f in (jnp.logaddexp, jnp.logaddexp2)]",
    ),
    (
        "complex_arctan2",
        "a = jnp.array([1+2j, -1j, 0.5, 3-1j], dtype=jnp.complex64)\n"
        "b = jnp.array([0.5+1j, 1.5, -2j, 1+1j], dtype=jnp.complex64)\n"
        "out = (jnp.arctan2(a, b), jax.jit(jnp.arctan2)(a, b), str(jax.make_jaxpr(jnp.arctan2)(a, b)),"
        " jax.jvp(jnp.arctan2, (a, b), (a, b)), jax.grad(lambda x: jnp.arctan2(x, 2.0 + 1j).real)(1.0 + 0.5j))",
        1e-5,
    ),
    (
        "refused_dtype_kinds_say_what_lax_says",
        _ERRORS + "f, b, i = jnp.ones(3), jnp.array([True, False]), jnp.arange(3)\n"
        "bf = jnp.array([0.5, -1.25], jnp.bfloat16)\n"
        "out = [err(g) for g in (lambda: f & 1, lambda: ~f, lambda: -b, lambda: b - b, lambda: jnp.round(b),"
        " lambda: lax.add(i, b[0]), lambda: lax.add(i, f), lambda: jnp.bitwise_xor(f, i), lambda: f >> 1,"
        " lambda: jax.jit(lambda x: ~x)(f), lambda: jax.jit(lambda x: -x)(b), lambda: lax.sub(b, b),"
        " lambda: bf >> jnp.uint32(2), lambda: jax.grad(lambda a: jnp.sum(a & 3).astype(jnp.float32))(bf))]",
    ),
    (
        "complex_astype_bool_and_casting_warnings",
        "import warnings\n"
        "c = jnp.array([1+2j, 3j, 0j])\n"
        "def caught(f):\n"
        "    with warnings.catch_warnings(record=True) as w:\n"
        "        warnings.simplefilter('always')\n"
        "        v = f()\n"
        "    return v, [x.category.__name__ for x in w]\n"
        "out = [caught(f) for f in (lambda: c.astype(bool), lambda: jax.jit(lambda c: c.astype(bool))(c),"
        " lambda: c.astype(jnp.float32), lambda: jnp.asarray(c, dtype=jnp.float16), lambda: jnp.array(c, dtype=int),"
        " lambda: lax.convert_element_type(c, jnp.float32), lambda: jnp.astype(c, jnp.int32), lambda: c.real)]"
        " + [str(jax.make_jaxpr(lambda c: c.astype(bool))(c))]",
    ),
    (
        "bfloat16_excess_precision_under_jit",
        _BF + "fs = [lambda v: (v * s).astype(jnp.float32), lambda v: jnp.exp(v).astype(jnp.float32),"
        " lambda v: (v / s).astype(jnp.float32), lambda v: (v * s * s).astype(jnp.float32),"
        " lambda v: ((v * s).astype(jnp.float32), v * s), lambda v: (v @ v).astype(jnp.float32),"
        " lambda v: jnp.broadcast_to(v * s, (2, 4)).astype(jnp.float32), lambda v: v.astype(jnp.float32).astype(bf).astype(jnp.float32),"
        " lambda v: (jnp.expm1(v * 1.0) + jnp.float16(0.5)), lambda v: (v * s).astype(jnp.float16).astype(jnp.float32),"
        " lambda v: jax.nn.sigmoid(v).astype(jnp.float32), lambda v: jnp.mean(v * s)]\n"
        "out = [(jax.jit(f)(x), f(x)) for f in fs]",
        0.0,
    ),
]
