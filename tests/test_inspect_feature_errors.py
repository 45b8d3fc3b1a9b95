"""Errors the sharding, checkify, ref and debug-nans features raise reach the report naming the
user's line (and the user's function, never the recorder's wrapper), with JAX's error classes."""

import textwrap

import pytest

import engine
from engine.inspect import RunRequest, run_request

HEADER = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P, AxisType
    from jax.experimental import checkify
    mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
    x = jnp.arange(32.0).reshape(8, 4)
    """)
FIRST = HEADER.count("\n") + 1  # the first line after the header


pytestmark = pytest.mark.usefixtures("private_kernel_cache")


def error_of(body: str):
    r = run_request(RunRequest(code=HEADER + textwrap.dedent(body)))
    assert not r.ok
    return r.error


@pytest.mark.parametrize("wrap", ["{}", "jax.jit({})"])
def test_collective_over_an_axis_the_mesh_lacks_names_the_collectives_line(wrap):
    call = wrap.format("jax.shard_map(body, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))")
    e = error_of(f"""\
        def body(a):
            b = a * 2
            return jax.lax.psum(b, 'z')
        out = {call}(x)
        """)
    assert e.type == "NameError"
    assert e.line == FIRST + 2  # the psum, eagerly and under jit (raised while tracing, not on a device)
    assert e.message.startswith("Found an unbound axis name: z.")  # (JAX's words; its shard_map asserts)
    assert "['x', 'y']" in e.suggestion  # (the names that are bound there)
    assert "Device traceback" not in e.message


def test_returning_a_ref_from_jit_names_the_users_function_and_line():
    e = error_of("""\
        r = jax.new_ref(jnp.zeros(3))
        def h(ref):
            return ref
        jax.jit(h)(r)
        """)
    assert e.type == "ValueError" and e.line == FIRST + 3
    assert e.message.startswith(f"function h at <user>:{FIRST + 1} traced for jit returned a mutable array")


def test_debug_nans_and_a_thrown_checkify_error_name_their_lines():
    try:
        e = error_of("""\
            jax.config.update('jax_debug_nans', True)
            y = jnp.log(jnp.array(-1.0))
            """)
    finally:  # (the server runs each script in a fresh process; here the option would outlive it)
        engine.config.update("jax_debug_nans", False)
    assert e.type == "FloatingPointError" and e.line == FIRST + 1
    assert e.message == "invalid value (nan) encountered in log"
    e = error_of("""\
        def g(v):
            checkify.check(v > 0, 'v must be positive')
            return v
        err, out = checkify.checkify(g)(jnp.array(-1.0))
        err.throw()
        """)
    assert e.type == "JaxRuntimeError" and e.line == FIRST + 4
    assert e.message == "v must be positive (`check` failed)"


@pytest.mark.parametrize("wrap", ["{}", "jax.jit({})"])
def test_a_sharding_type_error_names_the_line_that_staged_the_operation(wrap):
    # (under jit the engine finds it when the program is partitioned, at the call: the report still
    # points at the contraction, as JAX's trace-time error does)
    e = error_of(f"""\
        m = jax.make_mesh((4,), ('b',), axis_types=(AxisType.Explicit,))
        a = jax.device_put(x, jax.NamedSharding(m, P('b')))
        def gram(a):
            b = a * 2
            return b.T @ b
        {wrap.format("gram")}(a)
        """)
    assert e.type == "ShardingTypeError" and e.line == FIRST + 4
    assert e.message.startswith("Contracting dimensions are sharded and it is ambiguous")
