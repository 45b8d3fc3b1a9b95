"""The run report's device records for programs on meshes of any shape: shard_map and jit of
sharded arrays on a (4, 2) mesh, with each device's coordinates, blocks and collective groups."""

import textwrap

import numpy as np
import pytest

from engine.inspect import RunReport, RunRequest, run_request

HEADER = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

    mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
    x = jnp.arange(32.0).reshape(8, 4)
    """)
X = np.arange(32.0, dtype=np.float32).reshape(8, 4)
COORDS = [[r, c] for r in range(4) for c in range(2)]


pytestmark = pytest.mark.usefixtures("private_kernel_cache")


def script_report(body: str) -> RunReport:
    report = run_request(RunRequest(code=HEADER + textwrap.dedent(body)))
    assert report.ok, report.error
    return RunReport.model_validate_json(report.model_dump_json())  # as the page receives it


def blocks(x, rows, cols):
    return [b for row in np.split(x, rows, 0) for b in np.split(row, cols, 1)]


def test_shard_map_on_a_2d_mesh_records_devices_blocks_and_groups_of_a_psum_over_one_axis():
    r = script_report("""\
        def f(a):
            return jax.lax.psum(jnp.sin(a) * 2.0, 'y')
        out = jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))(x)
        """)
    (call,) = r.calls
    assert call.label.startswith("shard_map(f, mesh=")
    assert "shard_map" in call.stages[-1].text  # its IR stage
    info = call.pmap
    assert info.kind == "shard_map" and info.mesh == [4, 2] and info.axis_names == ["x", "y"]
    assert [d.id for d in info.devices] == list(range(8))
    assert [d.coords for d in info.devices] == COORDS
    ins = blocks(X, 4, 2)
    for d, block in zip(info.devices, ins):
        np.testing.assert_array_equal(np.array(d.inputs[0].data), block)
        row = d.coords[0]
        want = np.sin(ins[2 * row]) * 2 + np.sin(ins[2 * row + 1]) * 2  # summed along y
        np.testing.assert_allclose(np.array(d.outputs[0].data), want, rtol=1e-5)
    (psum,) = [c for c in info.collectives if c.primitive == "psum"]
    assert psum.axis_name == "y"
    assert psum.groups == [[0, 1], [2, 3], [4, 5], [6, 7]]  # only along y
    assert info.programs >= 1


def test_collectives_over_the_other_axis_and_over_both_axes_have_their_own_groups():
    r = script_report("""\
        def f(a):
            shifted = jax.lax.ppermute(a, 'x', [(i, (i + 1) % 4) for i in range(4)])
            return jax.lax.psum(a, 'x') + jax.lax.psum(a, ('x', 'y')) + shifted
        out = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y')))(x)
        """)
    (call,) = r.calls
    info = call.pmap
    assert info.mesh == [4, 2] and info.axis_names == ["x", "y"]
    by_axis = {(c.primitive, c.axis_name): c for c in info.collectives}
    assert by_axis[("psum", "x")].groups == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert by_axis[("psum", "x,y")].groups == [list(range(8))]
    perm = by_axis[("ppermute", "x")]
    assert perm.groups == [[0, 2, 4, 6], [1, 3, 5, 7]] and perm.perm == [[i, (i + 1) % 4] for i in range(4)]
    ins = blocks(X, 4, 2)
    for d in info.devices:
        r_, c_ = d.coords
        column = [ins[2 * k + c_] for k in range(4)]
        want = sum(column) + sum(ins) + ins[2 * ((r_ - 1) % 4) + c_]
        np.testing.assert_allclose(np.array(d.outputs[0].data), want, rtol=1e-6)


def test_jit_of_a_named_sharding_input_records_the_mesh_and_each_devices_block():
    r = script_report("""\
        xs = jax.device_put(x, NamedSharding(mesh, P('x', 'y')))
        out = jax.jit(lambda a: jnp.sin(a).sum(axis=1))(xs)
        """)
    (call,) = r.calls
    info = call.pmap
    assert info.kind == "jit" and info.mesh == [4, 2] and info.axis_names == ["x", "y"]
    assert [d.coords for d in info.devices] == COORDS
    for d, block in zip(info.devices, blocks(X, 4, 2)):
        np.testing.assert_array_equal(np.array(d.inputs[0].data), block)
    # The row sums need the two halves of each row: a psum over 'y' between the pairs.
    (psum,) = [c for c in info.collectives if c.primitive == "psum"]
    assert psum.axis_name == "y" and psum.groups == [[0, 1], [2, 3], [4, 5], [6, 7]]


def test_ir_stages_on_an_explicit_mesh_are_typed_as_make_jaxpr_prints_them():
    # the page's IR of a jit whose arguments are split over Explicit axes: the text is
    # make_jaxpr's (f32[8@x,4] ...), and the graph's variables carry the same types
    r = script_report("""\
        emesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
        with jax.set_mesh(emesh):
            a = jax.device_put(x, P('x', None))
            b = jax.device_put(jnp.arange(4.0), P('y'))
            f = jax.jit(lambda a, b: jnp.where(a > 3, b, 0.0).sum(axis=0))
            out = f(a, b)
            print(jax.make_jaxpr(f)(a, b))
        """)
    (call,) = [c for c in r.calls if c.label.startswith("jit")]
    text = call.stages[-1].text
    assert text in r.stdout  # (the stage's text is what make_jaxpr printed)
    assert text.startswith("{ lambda ; a:f32[8@x,4] b:f32[4@y]. let")
    graph = call.stages[-1].graph
    typed = {v.id: v.type for v in graph.vars.values()}
    assert typed["a"] == "f32[8@x,4]" and typed["b"] == "f32[4@y]"
    inner = graph.nodes[0].subgraphs[0]
    assert any(v.type == "f32[8@x,4@y]" for v in inner.vars.values())  # (where's broadcast result)
