"""jax.named_scope / jax.named_call names and the user call stack on each equation's source info."""

from __future__ import annotations

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.inspect import run_request
from engine.inspect.schema import RunRequest


def layer(x):
    with jax.named_scope("dense"):
        y = jnp.sin(x) * 2.0
    return y


def f(x):
    return jax.named_call(layer, name="mylayer")(x) + 1.0


# Recorded from JAX 0.10.2 (`make_jaxpr(f)` and each equation's `source_info.name_stack`):
# named_call stages no call of its own; it names the equations inside, like named_scope.
JAX_TEXT = """{ lambda ; a:f32[3]. let
    b:f32[3] = sin a
    c:f32[3] = mul b 2.0:f32[]
    d:f32[3] = add c 1.0:f32[]
  in (d,) }"""
JAX_NAME_STACKS = ["mylayer/dense", "mylayer/dense", ""]


def test_named_call_and_scope_name_equations_as_jax_does():
    closed = jax.make_jaxpr(f)(np.ones(3, np.float32))
    assert str(closed) == JAX_TEXT
    assert [e.source_info.scope for e in closed.jaxpr.eqns] == JAX_NAME_STACKS


def test_user_callers_outermost_first():
    def outer(x):
        return inner(x) * 3.0

    def inner(x):
        return jnp.cos(x)

    eqns = jax.make_jaxpr(outer)(1.0).jaxpr.eqns
    info = {e.primitive.name: e.source_info for e in eqns}
    assert (info["cos"].function, info["cos"].callers[-1:]) == ("inner", ("outer",))
    assert info["mul"].function == "outer" and "inner" not in info["mul"].callers


def test_scopes_survive_differentiation_and_nest():
    def g(x):
        with jax.named_scope("outer"):
            with jax.named_scope("inner"):
                y = jnp.tanh(x)
            return y * x

    eqns = jax.make_jaxpr(jax.grad(g))(0.5).jaxpr.eqns
    scopes = {e.source_info.scope for e in eqns}
    assert "outer/inner" in scopes and "outer" in scopes
    # the derivative's own equations (1 - tanh^2 ...) carry the scope of the line they came from
    tanh_line = next(e.source_info.line for e in eqns if e.primitive.name == "tanh")
    assert all(e.source_info.scope == "outer/inner" for e in eqns if e.source_info.line == tanh_line)


def test_named_scope_rejects_a_non_string_name():
    with pytest.raises(TypeError, match="must be a string"):
        with jax.named_scope(3):  # type: ignore[arg-type]
            pass


def test_run_report_graph_carries_callers_and_scope():
    code = (
        "import jax\nimport jax.numpy as jnp\n"
        "def block(x):\n    with jax.named_scope('attn'):\n        return jnp.exp(x) * 2.0\n"
        "def model(x):\n    return jnp.sum(block(x))\n"
    )
    r = run_request(RunRequest(code=code, function="model", stack=[{"name": "grad"}], args=["jnp.ones(3)"]))
    assert r.ok, r.error
    nodes = r.calls[0].stages[-1].graph.nodes
    exp = next(n for n in nodes if n.primitive == "exp")
    assert exp.source.function == "block" and exp.source.callers == ["model"] and exp.source.scope == "attn"
    total = next(n for n in nodes if n.primitive == "reduce_sum")
    assert total.source.function == "model" and total.source.scope is None
