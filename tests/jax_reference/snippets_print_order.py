"""The order of unordered ``jax.debug.print``\\ s in compiled programs and loop bodies (XLA's
breadth-first schedule, ``engine/effect_schedule.py``): each snippet sets ``out`` to the lines
printed, in order."""

from __future__ import annotations

_HEAD = (
    "import io, contextlib\nP = jax.debug.print\nbuf = io.StringIO()\nwith contextlib.redirect_stdout(buf):\n"
)
_TAIL = "    jax.effects_barrier()\nout = buf.getvalue().splitlines()\n"


def _case(name: str, body: str) -> tuple[str, str]:
    return name, _HEAD + "".join("    " + line + "\n" for line in body.strip().splitlines()) + _TAIL


_MAP = "xs = jnp.arange(3.)\n"

PRINT_ORDER = [
    # lax.map bodies: the documentation's example (print x, then sin(x)) prints sin(x) first
    _case(
        "map_x_sin",
        _MAP + "def f(x):\n    P('x {}', x); y = jnp.sin(x); P('y {}', y); return y\nlax.map(f, xs)",
    ),
    _case(
        "jit_map_x_sin",
        _MAP
        + "def f(x):\n    P('x {}', x); y = jnp.sin(x); P('y {}', y); return y\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_sin_x",
        _MAP + "def f(x):\n    y = jnp.sin(x); P('y {}', y); P('x {}', x); return y\nlax.map(f, xs)",
    ),
    _case(
        "map_same_value_twice", _MAP + "def f(x):\n    P('a {}', x); P('b {}', x); return x\nlax.map(f, xs)"
    ),
    _case(
        "map_same_value_thrice",
        _MAP
        + "def f(x):\n    P('a {}', x); P('b {}', x); P('c {}', x); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_x_sin_x",
        _MAP
        + "def f(x):\n    P('a {}', x); P('s {}', jnp.sin(x)); P('b {}', x); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_x_sin_cos_x2",
        _MAP
        + "def f(x):\n    P('x {}', x); y = jnp.sin(x); P('y {}', y); z = jnp.cos(y); P('z {}', z); P('x2 {}', x); return z\nlax.map(f, xs)",
    ),
    _case(
        "map_sin_cos",
        _MAP
        + "def f(x):\n    P('s {}', jnp.sin(x)); P('c {}', jnp.cos(x)); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_cos_sin",
        _MAP
        + "def f(x):\n    P('c {}', jnp.cos(x)); P('s {}', jnp.sin(x)); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_sin_cos_exp",
        _MAP
        + "def f(x):\n    P('s {}', jnp.sin(x)); P('c {}', jnp.cos(x)); P('e {}', jnp.exp(x)); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_x_sin_cos",
        _MAP
        + "def f(x):\n    P('x {}', x); P('s {}', jnp.sin(x)); P('c {}', jnp.cos(x)); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_sin_cos_x",
        _MAP
        + "def f(x):\n    P('s {}', jnp.sin(x)); P('c {}', jnp.cos(x)); P('x {}', x); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    _case(
        "map_sin_twice_sin",
        _MAP
        + "def f(x):\n    P('s {}', jnp.sin(x)); P('t {}', jnp.sin(x) * 2); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    # scan / fori_loop / while_loop bodies: carried values, slices and values computed from them
    _case(
        "scan_carry_slice_sum",
        _MAP
        + "def f(c, x):\n    P('c {}', c); P('x {}', x); c2 = c + x; P('c2 {}', c2); return c2, c2 * 2\nlax.scan(f, 0., xs)",
    ),
    _case(
        "scan_slice_carry",
        "def f(c, x):\n    P('x {}', x); P('c {}', c); return c + x, None\nlax.scan(f, 0., jnp.arange(2.))",
    ),
    _case(
        "scan_product_slice",
        "def f(c, x):\n    P('cx {}', c * x); P('x {}', x); return c + 1., None\nlax.scan(f, 1., jnp.arange(2.))",
    ),
    _case(
        "fori_index_carry",
        "def f(i, c):\n    P('i {}', i); P('c {}', c); return c + i\nlax.fori_loop(0, 3, f, 0)",
    ),
    _case(
        "jit_fori_carry_double_index",
        "def f(i, c):\n    P('a {}', c); P('b {}', c * 2); P('i {}', i); return c + 1.\njax.jit(lambda: lax.fori_loop(0, 2, f, 0.))()",
    ),
    _case(
        "while_index_computed",
        "def f(c):\n    i, s = c; P('i {}', i); s2 = s * 2. + 1; P('s2 {}', s2); return i + 1, s2\nlax.while_loop(lambda c: c[0] < 3, f, (0, 1.))",
    ),
    _case(
        "nested_map",
        "def inner(y):\n    P('ix {}', y); P('is {}', jnp.sin(y)); return y\ndef f(x):\n    P('outer {}', x); lax.map(inner, jnp.arange(2.) + x); return x\nlax.map(f, jnp.arange(2.) * 10)",
    ),
    # ordered=True keeps program order
    _case(
        "map_ordered",
        _MAP
        + "def f(x):\n    P('x {}', x, ordered=True); y = jnp.sin(x); P('y {}', y, ordered=True); return y\nlax.map(f, xs)",
    ),
    _case(
        "jit_map_ordered",
        _MAP
        + "def f(x):\n    P('x {}', x, ordered=True); y = jnp.sin(x); P('y {}', y, ordered=True); return y\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
    # top-level jit: prints of the arguments first (the last argument's first), then computed values
    _case("jit_x_sin", "def f(x):\n    P('x {}', x); y = jnp.sin(x); P('y {}', y); return y\njax.jit(f)(1.)"),
    _case(
        "jit_x_sin_cos_x2",
        "def f(x):\n    P('x {}', x); y = jnp.sin(x); P('y {}', y); z = jnp.cos(y); P('z {}', z); P('x2 {}', x); return z\njax.jit(f)(1.)",
    ),
    _case(
        "jit_cos_x_sin",
        "def f(x):\n    P('c {}', jnp.cos(x)); P('x {}', x); P('s {}', jnp.sin(x)); return x\njax.jit(f)(1.)",
    ),
    _case(
        "jit_two_args",
        "def f(x, y):\n    P('y2 {}', y * 2); P('x {}', x); P('y {}', y); return x\njax.jit(f)(1., 2.)",
    ),
    _case(
        "jit_dot_sum_x",
        "def f(x):\n    P('d {}', x @ x); P('s {}', jnp.sin(x).sum()); P('x {}', x); return x\njax.jit(f)(jnp.ones(2))",
    ),
    _case(
        "jit_cond_branch",
        "def br(x):\n    P('s {}', jnp.sin(x)); P('x {}', x); return x\njax.jit(lambda p, x: lax.cond(p, br, lambda x: x, x))(True, 1.)",
    ),
    # jax.debug.callback (unordered) is scheduled like a print
    _case(
        "map_callbacks",
        _MAP
        + "def f(x):\n    jax.debug.callback(lambda v: print('x', v), x); jax.debug.callback(lambda v: print('y', v), jnp.sin(x)); return x\njax.jit(lambda v: lax.map(f, v))(xs)",
    ),
]

PRINT_ORDER += [
    # arguments: in order, except one the program returns as it is (read through its copy)
    _case("jit_args_in_order", "jax.jit(lambda x, y: (P('x {}', x), P('y {}', y), x + y)[-1])(2., 3.)"),
    _case(
        "jit_returned_arg_last",
        "jax.jit(lambda x, y, z: (P('x {}', x), P('y {}', y), P('z {}', z), x)[-1])(1., 2., 3.)",
    ),
    _case("jit_returned_second_arg", "jax.jit(lambda x, y: (P('x {}', x), P('y {}', y), y)[-1])(1., 2.)"),
    _case(
        "jit_three_args_constant_out",
        "jax.jit(lambda x, y, z: (P('z {}', z), P('y {}', y), P('x {}', x), 0.)[-1])(1., 2., 3.)",
    ),
]

_IO = (
    "from jax.experimental import io_callback\n"
    "def io(v):\n"
    "    return io_callback(lambda a: print('io', a) or np.float32(0), jax.ShapeDtypeStruct((), jnp.float32), v, ordered=True)\n"
)
PRINT_ORDER += [
    # unordered prints move across ordered effects (no token); ordered ones keep program order
    _case(
        "map_print_then_io",
        _IO + "jax.jit(lambda v: lax.map(lambda x: (P('x {}', x), io(x))[1] + x, v))(jnp.arange(2.))",
    ),
    _case(
        "map_io_then_print_sin",
        _IO
        + "jax.jit(lambda v: lax.map(lambda x: (io(x), P('s {}', jnp.sin(x)))[0] + x, v))(jnp.arange(2.))",
    ),
    _case(
        "map_x_io_sin",
        _IO
        + "def f(x):\n    P('x {}', x); io(x); P('s {}', jnp.sin(x)); return x\njax.jit(lambda v: lax.map(f, v))(jnp.arange(2.))",
    ),
    _case(
        "map_unordered_then_ordered",
        "jax.jit(lambda v: lax.map(lambda x: (P('x {}', x), P('s {}', jnp.sin(x), ordered=True), x)[-1], v))(jnp.arange(2.))",
    ),
    _case(
        "map_ordered_then_unordered",
        "jax.jit(lambda v: lax.map(lambda x: (P('x {}', x, ordered=True), P('s {}', jnp.sin(x)), x)[-1], v))(jnp.arange(2.))",
    ),
    _case("jit_print_sin_then_io", _IO + "jax.jit(lambda x: (P('s {}', jnp.sin(x)), io(x))[1] + x)(1.)"),
    _case("jit_io_sin_then_print", _IO + "jax.jit(lambda x: (io(jnp.sin(x)), P('x {}', x))[0] + x)(1.)"),
    # a dot is a node of its own, a level below the prints of the slice and of fused values
    _case(
        "map_dot_x",
        "W = jnp.ones((2, 2))\ndef f(x):\n    P('x {}', x); P('d {}', x @ W); return x\njax.jit(lambda v: lax.map(f, v))(jnp.ones((2, 2)))",
    ),
    _case(
        "map_sin_x_dot",
        "W = jnp.ones((2, 2))\ndef f(x):\n    P('s {}', jnp.sin(x).sum()); P('x {}', x); P('d {}', x @ W); return x\njax.jit(lambda v: lax.map(f, v))(jnp.ones((2, 2)))",
    ),
    _case(
        "scan_two_carries",
        "def f(c, _):\n    a, b = c; P('a {}', a); P('b {}', b); P('ab {}', a * b); return (a + 1., b * 2.), None\njax.jit(lambda: lax.scan(f, (1., 2.), None, length=2))()",
    ),
    _case(
        "while_three_carries",
        "def f(c):\n    i, s, t = c; P('t {}', t); P('s {}', s); P('i {}', i); return i + 1, s + t, t * 2.\njax.jit(lambda: lax.while_loop(lambda c: c[0] < 2, f, (0, 1., 2.)))()",
    ),
    _case(
        "jit_vmap",
        "def f(x):\n    P('x {}', x); P('e {}', jnp.exp(x)); return x * 2\njax.jit(jax.vmap(f))(jnp.arange(2.))",
    ),
]
