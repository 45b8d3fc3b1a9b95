"""Estimated equation costs (engine.inspect.cost) and stage-to-stage origins (graph.mark_added)."""

import textwrap

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.inspect import RunReport, RunRequest, run_request
from engine.inspect.cost import eqn_cost, jaxpr_cost


pytestmark = pytest.mark.usefixtures("private_kernel_cache")


def costs(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args).jaxpr
    return [(e.primitive.name, eqn_cost(e).flops, eqn_cost(e).bytes) for e in jaxpr.eqns]


def test_matmul_counts_two_flops_per_multiply_add_and_its_operand_bytes():
    a, b = np.ones((8, 5), np.float32), np.ones((5, 3), np.float32)
    [(prim, flops, nbytes)] = costs(lambda x, y: x @ y, a, b)
    assert prim == "dot_general"
    assert flops == 2 * 8 * 3 * 5
    assert nbytes == 4 * (8 * 5 + 5 * 3 + 8 * 3)


def test_batched_matmul_and_elementwise_reduction_and_movement():
    a, b = np.ones((4, 8, 5), np.float32), np.ones((4, 5, 3), np.float32)
    [(_, flops, _)] = costs(lambda x, y: jnp.einsum("bij,bjk->bik", x, y), a, b)
    assert flops == 2 * 4 * 8 * 3 * 5
    x = np.ones((6, 7), np.float32)
    got = dict((p, (f, by)) for p, f, by in costs(lambda x: jnp.sum(jnp.tanh(x).T), x))
    assert got["tanh"] == (42, 2 * 42 * 4)
    assert got["transpose"] == (0, 2 * 42 * 4)  # data movement: bytes, no flops
    assert got["reduce_sum"] == (41, 42 * 4 + 4)  # (41 adds to one sum: XLA's count)


def test_scan_costs_its_body_times_its_length_and_cond_its_dearest_branch():
    x = np.ones((10,), np.float32)

    def loop(x):
        return jax.lax.fori_loop(0, 7, lambda i, c: jnp.sin(c) * 2.0, x)

    body = jax.make_jaxpr(lambda c: jnp.sin(c) * 2.0)(x).jaxpr
    total = jaxpr_cost(jax.make_jaxpr(loop)(x).jaxpr)
    assert total.flops >= 7 * jaxpr_cost(body).flops
    assert total.flops < 7 * jaxpr_cost(body).flops + 7 * 3 + 10  # plus the counter's adds

    def branchy(p, x):
        return jax.lax.cond(p, lambda x: jnp.sum(jnp.exp(x) * x), lambda x: x[0], x)

    [cond_cost] = [c for c in costs(branchy, True, x) if c[0] == "cond"]
    assert cond_cost[1] == 10 + 10 + 9  # exp, mul, reduce_sum (9 adds): the dearer branch


def report(code, function, stack, args) -> RunReport:
    r = run_request(RunRequest(code=code, function=function, stack=stack, args=args))
    return RunReport.model_validate_json(r.model_dump_json())


MLP = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp

    def loss(w, x):
        h = jnp.tanh(x @ w)
        return jnp.sum(h ** 2)

    w = jnp.ones((3, 4))
    xs = jnp.ones((5, 2, 3))
    """)


def test_stage_cost_per_line_and_origins_link_stages():
    r = report(
        MLP, "loss", [{"name": "grad"}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}], ["w", "xs"]
    )
    assert r.ok, r.error
    f, g, v = r.calls[0].stages
    # per-line costs add up to the stage total, and the matmul line dominates
    for stage in (f, g, v):
        assert stage.cost is not None and stage.cost.estimate
        assert sum(c.flops for c in stage.cost.by_line.values()) == pytest.approx(stage.cost.flops)
        assert all(n.cost is not None for n in stage.graph.nodes)
    assert f.cost.by_line[5].flops >= 2 * 2 * 4 * 3
    assert v.cost.flops > g.cost.flops > f.cost.flops
    # every equation of the first stage is its own origin
    assert [n.origin for n in f.graph.nodes] == [n.id for n in f.graph.nodes]
    f_by_id = {n.id: n for n in f.graph.nodes}
    # grad: forward equations keep their origin; added ones point at an equation of their line
    for n in g.graph.nodes:
        assert n.origin in f_by_id, n
        if not n.added:
            assert f_by_id[n.origin].primitive == n.primitive
        assert f_by_id[n.origin].source.line == n.source.line
    # vmap re-shapes every equation but adds few: origins carry over from grad(f)
    g_origins = sorted(n.origin for n in g.graph.nodes)
    assert sum(not n.added for n in v.graph.nodes) >= len(g.graph.nodes) - 1
    assert set(n.origin for n in v.graph.nodes) <= set(g_origins)
