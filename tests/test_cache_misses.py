"""Why jit traced again (``jax_explain_cache_misses``): the engine's messages against what JAX 0.10.2
logged for the same programs (``jax_reference/cache_misses.json``, recorded by
``record_cache_misses.py``), and the reasons the report gets from the jit's events."""

from __future__ import annotations

import json
import logging
import pathlib
import re
import sys

import numpy as np
import pytest

from engine import monitoring

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record_cache_misses import run_cases  # noqa: E402
from snippets_cache_misses import CASES  # noqa: E402

sys.path.remove(str(HERE))

RECORDED = json.loads((HERE / "cache_misses.json").read_text())


def key_sets_as_sets(message: str) -> str:
    """The key-set difference of two dicts is printed in set order (JAX's varies from run to run)."""
    return re.sub(r"key sets: \{([^}]*)\}", lambda m: "key sets: " + str(sorted(m.group(1).split())), message)


@pytest.fixture(scope="module")
def engine_messages(jax_on_engine):
    before = jax_on_engine.config.values.get("jax_explain_cache_misses", False)
    try:
        return run_cases("jax")
    finally:
        jax_on_engine.config.update("jax_explain_cache_misses", before)


@pytest.mark.parametrize("case", list(CASES))
def test_messages_are_jaxs(case, engine_messages):
    got = [[name, key_sets_as_sets(m)] for name, m in engine_messages[case]]
    want = [[name, key_sets_as_sets(m)] for name, m in RECORDED[case]]
    assert got == want


def test_no_message_without_the_flag(jax_on_engine, caplog):
    f = jax_on_engine.jit(lambda x: x + 1)
    with caplog.at_level(logging.WARNING):
        f(np.ones(3, np.float32))
        f(np.ones(4, np.float32))
    assert not [r for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]


def test_reasons_reach_the_report_events(jax_on_engine):
    """What the report shows: JAX's difference without its heading, and what kind of miss it was."""
    events = []

    def on_event(kind, data):
        if kind == "jit_trace":
            events.append(
                (data["cache"], data["miss_kind"] if data["cache"] == "miss" else None, data["reason"])
            )

    def f(x, y):
        return x * y

    jf = jax_on_engine.jit(f)
    with monitoring.listen(on_event):
        jf(np.ones(3, np.float32), 2.0)
        jf(np.ones(3, np.float32), 3.0)
        jf(np.ones(3, np.float32), np.float32(2.0))
        for _ in range(2):
            jax_on_engine.jit(lambda x: x + 1)(np.ones(3, np.float32))
    line = f.__code__.co_firstlineno
    assert events[0] == ("miss", "never_seen", f"never seen function: f defined at line {line}")
    assert events[1] == ("hit", None, None)
    assert events[2] == (
        "miss",
        "types",
        "different input types:\n* at y, now f32[]{weak_type=False} and before f32[]{weak_type=True}"
        "\n(see https://docs.jax.dev/en/latest/type_promotion.html#weak-types)",
    )
    assert events[3][:2] == ("miss", "never_seen") and events[4][:2] == ("miss", "redefined")
    assert events[4][2].endswith("maybe the function is being re-defined repeatedly, preventing caching?")


def test_a_cache_hit_asks_nothing(jax_on_engine, monkeypatch):
    """The explanation is computed on a miss only: hits (the fast path and the staged one, which a
    listening report or a static argument takes) never ask."""
    from engine import jit_cache_miss

    asked = []
    explain = jit_cache_miss.explain
    monkeypatch.setattr(jit_cache_miss, "explain", lambda *a: asked.append(a) or explain(*a))
    f = jax_on_engine.jit(lambda x, n: x * n, static_argnums=1)
    x = np.ones(3, np.float32)
    with monitoring.listen(lambda kind, data: None):
        f(x, 2)
        f(x, 2)
        f(x, 2)
        f(x, 3)
    assert len(asked) == 2


def test_a_sharding_jax_would_not_trace_again_for_is_named(jax_on_engine):
    """The engine keys a mesh argument's whole sharding; JAX's type holds only its explicit axes, so
    a change along an Auto axis traces again here only: the reason shows both partition specs."""
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax_on_engine.make_mesh((2,), ("a",), axis_types=(AxisType.Auto,))
    reasons = []
    f = jax_on_engine.jit(lambda x: x * 2)
    with monitoring.listen(lambda kind, data: kind == "jit_trace" and reasons.append(data["reason"])):
        for spec in (P("a"), P()):
            f(jax_on_engine.device_put(np.ones(4, np.float32), NamedSharding(mesh, spec)))
    assert (
        reasons[1] == "different input types:\n* at x, now f32[4]{spec=P()} and before f32[4]{spec=P('a',)}"
    )


def test_each_run_is_a_program_of_its_own():
    """A run in a process that ran another (the playground's runs, the report tests) does not take
    its first call at a line for a function re-defined at the line of the earlier run's."""
    from engine.inspect import run_request
    from engine.inspect.schema import RunRequest

    code = "import jax\nimport jax.numpy as jnp\nf = jax.jit(lambda x: x + 1)\nf(jnp.ones(3))\n"
    for _ in range(2):
        (call,) = run_request(RunRequest(code=code)).calls
        assert call.jit.recompile_reason == "never seen function: <lambda> defined at line 3"


def test_a_custom_node_is_compared_by_its_treedef(jax_on_engine):
    """Custom nodes are compared by their treedefs: their unflatten is never called on stand-ins
    (this one refuses anything without a shape), and a change of aux data is named."""

    @jax_on_engine.tree_util.register_pytree_node_class
    class Box:
        def __init__(self, v, scale):
            assert hasattr(v, "shape"), "a Box holds an array"
            self.v, self.scale = v, scale

        def tree_flatten(self):
            return (self.v,), self.scale

        @classmethod
        def tree_unflatten(cls, scale, children):
            return cls(children[0], scale)

    reasons = []
    f = jax_on_engine.jit(lambda b: b.v * b.scale[0])
    with monitoring.listen(lambda kind, data: kind == "jit_trace" and reasons.append(data["reason"])):
        f(Box(np.ones(3, np.float32), (1.0, 2.0)))
        f(Box(np.ones(3, np.float32), (1.0, 3.0)))
    box = f"<class '{Box.__module__}.{Box.__qualname__}'>"
    assert reasons[1] == (
        f"different input pytree:\n* at input path [0][0], now {box} with pytree metadata (1.0, 3.0) "
        f"and before {box} with pytree metadata (1.0, 2.0), so the pytree node metadata does not match"
    )
