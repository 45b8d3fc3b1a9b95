"""checkify beyond the recorded snippets (tests/jax_reference/snippets.py, topic "checkify", replayed
by test_jax_reference.py): mapped errors across device processes, checks in compiled code, and
the shape of the transformation (checks become values; automatic checks are rows of a table)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import checkify as checkify_impl
from engine.experimental import checkify

RECORDED = json.loads((pathlib.Path(__file__).parent / "jax_reference" / "checkify.json").read_text())


def _idx(x, i):
    checkify.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
    return jnp.sin(x[i])


def _recorded_str(name, position):
    return RECORDED[name]["value"]["tuple"][position]["py"]


@pytest.mark.skipif(jax.device_count() < 3, reason="needs 3 devices")
@pytest.mark.parametrize("order", ["pmap_of_checkify", "checkify_of_pmap"])
def test_pmap_errors_are_mapped_like_vmaps(order):
    """Each device process checks its shard; the error reads as JAX's vmapped one does (JAX 0.10.2
    itself fails on checkify-of-pmap with an internal ValueError, so both orders are held to it)."""
    f = checkify.checkify(_idx, errors=checkify.all_checks)
    if order == "checkify_of_pmap":
        f = checkify.checkify(jax.pmap(_idx), errors=checkify.all_checks)
    else:
        f = jax.pmap(f)
    err, y = f(jnp.ones((3, 5)), jnp.array([-1, 2, 100]))
    assert err.get() == _recorded_str("vmap_of_checkify", 0)
    np.testing.assert_allclose(np.asarray(y), np.sin(1.0) * np.ones(3), rtol=1e-6)


def test_checks_become_values_in_the_jaxpr():
    def f(x):
        checkify.check(x > 0, "{} must be positive", x)
        return jnp.log(x)

    bare = str(jax.make_jaxpr(f)(1.0))
    checked = jax.make_jaxpr(checkify.checkify(f))(1.0)
    assert "check[debug=False]" in bare
    assert "check" not in str(checked).replace("checkify", "")
    # (pred, code, payload) then the output
    assert [str(a.dtype) for a in checked.out_avals] == ["bool", "int32", "float32", "float32"]


def test_bare_check_is_refused_by_compiled_code_but_debug_check_runs_there():
    def f(x):
        checkify.check(x > 0, "must be positive")
        return x

    with pytest.raises(ValueError, match="Cannot abstractly evaluate a checkify.check"):
        jax.jit(f).lower(1.0).compile()(1.0)

    def g(x):
        checkify.debug_check(x > 0, "ignored")
        return x * 2

    compiled = jax.jit(g).lower(1.0).compile()
    assert float(compiled(-1.0)) == -2.0
    err, y = jax.jit(checkify.checkify(g)).lower(-1.0).compile()(-1.0)
    assert err.get() == "ignored (`check` failed)" and float(y) == -2.0


def test_compiled_loops_carry_the_error():
    """The snippets' scan/while run through whichever jit tier; here the compiled kernels."""

    def body(c, x):
        checkify.check(x < 3, "x={x} too big at carry {c}", x=x, c=c)
        return c + x, c * x

    f = jax.jit(checkify.checkify(lambda xs: jax.lax.scan(body, 0.0, xs)))
    err, (c, ys) = f.lower(jnp.arange(5.0)).compile()(jnp.arange(5.0))
    assert err.get() == _recorded_str("scan_check", 0)
    assert float(c) == 10.0 and np.asarray(ys).tolist() == [0.0, 0.0, 2.0, 9.0, 24.0]


def test_automatic_checks_are_rows_keyed_by_primitive():
    from engine.lax import elementwise, gather_scatter

    rows = checkify_impl.error_checks
    assert elementwise.div_p in rows and gather_scatter.gather_p in rows and elementwise.sin_p in rows
    assert elementwise.neg_p not in rows  # cannot make a NaN: bound as it is
    err, _ = checkify.checkify(lambda x: -x, errors=checkify.all_checks)(jnp.nan)
    assert err.get() is None  # a NaN passed through is not one generated


def test_vmap_of_checkify_of_while_loop():
    """JAX 0.10.2 fails here with an internal ValueError (foreach() argument lengths); the loop is
    unbatched inside checkify, so the engine runs it: each n counts up to itself."""

    def count_to(n):
        checkify.check(n < 10, "n={} too big", n)
        return jax.lax.while_loop(lambda c: c < n, lambda c: c + 1, 0)

    err, out = jax.vmap(checkify.checkify(count_to))(jnp.array([1, 3, 12]))
    assert np.asarray(out).tolist() == [1, 3, 12]
    assert err.get() == "at mapped index 2: n=12 too big (`check` failed)"


def test_the_playground_stacks_checkify():
    """GET /api/transforms lists checkify; a stack layer applies it (its options evaluated in the
    user's namespace) and the report shows its stage: the function with the error threaded out."""
    from engine.inspect import RunReport, RunRequest, run_request
    from engine.inspect.schema import transform_infos

    assert "errors" in {o.name for t in transform_infos() if t.name == "checkify" for o in t.options}
    code = (
        "import jax.numpy as jnp\nfrom jax.experimental import checkify\n"
        "def f(x, i):\n    checkify.check(i >= 0, 'index needs to be non-negative, got {i}', i=i)\n"
        "    return jnp.sin(x[i])\n"
    )
    stack = [{"name": "checkify", "options": {"errors": "checkify.all_checks"}}, {"name": "jit"}]
    report = run_request(
        RunRequest(code=code, function="f", stack=stack, args=["jnp.ones(5)", "jnp.array(-2)"])
    )
    report = RunReport.model_validate_json(report.model_dump_json())
    assert report.ok, report.error
    assert report.label == "jit(checkify(f, errors=checkify.all_checks))"
    (call,) = report.calls
    assert [s.name for s in call.stages] == ["f", "checkify(f, errors=checkify.all_checks)", report.label]
    primitives = {n.primitive for n in call.stages[1].graph.nodes}
    assert "check" not in primitives and "dynamic_slice" in primitives  # discharged; the index checked


@pytest.mark.skipif(jax.device_count() < 2, reason="needs 2 devices")
def test_shard_map_errors_come_back_per_device():
    """Each device checks its own block (the recorded snippet "shard_map" holds JAX's message for a
    1-device mesh); here the failing block is the second device's."""
    from engine.sharding import PartitionSpec as P

    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("i",))

    def body(x):
        checkify.check(jnp.all(x > 0), "bad block {}", x)
        return jnp.log(x)

    f = jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    err, y = checkify.checkify(f)(jnp.array([1.0, 2.0, -3.0, 4.0]))
    assert err.get() == "at mapped index 1: bad block [-3.  4.] (`check` failed)"
    np.testing.assert_allclose(np.asarray(y)[[0, 1, 3]], np.log([1.0, 2.0, 4.0]), rtol=1e-6)
    err, _ = jax.jit(checkify.checkify(f, errors=checkify.nan_checks))(jnp.array([-1.0, 2.0, 3.0, 4.0]))
    assert err.get() == "at mapped index 0: nan generated by primitive: log."
