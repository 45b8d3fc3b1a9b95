"""The run report: stages and graphs, jit facts, errors with line/layer/suggestion, script mode,
the debugger's steps, the CLI's --report/--trace output."""

import importlib
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from engine.inspect import RunReport, RunRequest, chrome_trace, run_request
from engine.inspect.schema import IRGraph

TANH = textwrap.dedent("""\
    import jax
    from jax import lax

    def tanh(x):
        y = lax.exp(lax.mul(-2.0, x))
        return lax.div(lax.sub(1.0, y), lax.add(1.0, y))
    """)

LOSS = textwrap.dedent("""\
    import numpy as np
    import jax
    from jax import lax

    def loss(w, x):
        return lax.reduce_sum(lax.tanh(lax.mul(w, x)), (0,))

    def branchy(x):
        if lax.gt(x, 0.0):
            return x
        return lax.neg(x)
    """)


pytestmark = pytest.mark.usefixtures("private_kernel_cache")


def stack_report(code, function, stack, args) -> RunReport:
    report = run_request(RunRequest(code=code, function=function, stack=stack, args=args))
    # what the server sends must round-trip through the schema
    return RunReport.model_validate_json(report.model_dump_json())


def all_nodes(graph: IRGraph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs:
            yield from all_nodes(sub)


def test_grad_tanh_stages_graphs_and_result():
    r = stack_report(TANH, "tanh", [{"name": "grad"}], ["1.0"])
    assert r.ok and r.mode == "stack" and r.label == "grad(tanh)"
    assert math.isclose(r.result.data, 1 - math.tanh(1.0) ** 2, rel_tol=1e-6)
    (call,) = r.calls
    assert [s.name for s in call.stages] == ["tanh", "grad(tanh)"]
    assert [s.transform for s in call.stages] == [None, "grad"]
    f, g = call.stages
    assert [n.primitive for n in f.graph.nodes] == ["mul", "exp", "sub", "add", "div"]
    assert [n.source.line for n in f.graph.nodes] == [5, 5, 6, 6, 6]
    assert all(n.source.function == "tanh" and n.source.file == "<user>" for n in f.graph.nodes)
    assert not any(n.added for n in f.graph.nodes)
    # the backward pass is new in grad(f); the forward equations are not
    assert [n.added for n in g.graph.nodes[:5]] == [False] * 5
    assert all(n.added for n in g.graph.nodes[5:]) and len(g.graph.nodes) > 5
    # graph variable ids are the names in the printed jaxpr
    for node in g.graph.nodes:
        for out in node.outputs:
            assert f"{out}:f32[] = {node.primitive}" in g.text
    assert g.graph.invars == ["a"] and all(v.dtype == "float32" for v in g.graph.vars.values())
    assert [ev.category for ev in call.timings][:1] == ["run"]
    assert {"trace", "transform"} <= {ev.category for ev in call.timings}


def test_stack_label_per_example_stages_jit_and_debugger():
    stack = [{"name": "grad"}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}, {"name": "jit"}]
    r = stack_report(
        LOSS, "loss", stack, ["np.ones(3, np.float32)", "np.arange(12, dtype=np.float32).reshape(4, 3) / 12"]
    )
    assert r.ok, r.error
    assert r.label == "jit(vmap(grad(loss), in_axes=(None, 0)))"
    (call,) = r.calls
    assert [s.name for s in call.stages] == [
        "loss",
        "grad(loss)",
        "vmap(grad(loss), in_axes=(None, 0))",
        r.label,
    ]
    # grad(loss) is traced per example, as vmap runs it
    assert [r.calls[0].stages[1].graph.vars[v].shape for v in call.stages[1].graph.invars] == [[3], [3]]
    assert [call.stages[2].graph.vars[v].shape for v in call.stages[2].graph.invars] == [[3], [4, 3]]
    assert r.result.shape == [4, 3]
    top = call.stages[-1].graph
    assert [n.primitive for n in top.nodes] == ["jit"] and top.nodes[0].subgraphs
    assert call.jit is not None and call.jit.cache == "miss" and call.jit.backend in ("numba", "interpreter")
    if call.jit.backend == "numba":
        assert "def " in call.jit.source
    # the debugger steps into the jit call; every step names a node of the final graph
    ids = {n.id for n in all_nodes(top)}
    steps = call.debug.steps
    assert steps and all(s.node in ids for s in steps) and call.debug.graph == r.label
    assert steps[-1].outputs[0].shape == [4, 3]
    assert call.debug.first_nonfinite is None


@pytest.mark.parametrize(
    "transform, layer, hint", [("jit", "jit", "static_argnums"), ("vmap", "vmap", "jnp.where")]
)
def test_bool_conversion_error_line_layer_suggestion(transform, layer, hint):
    arg = "np.ones(3, np.float32)" if transform == "vmap" else "1.0"
    r = stack_report(LOSS, "branchy", [{"name": transform}], [arg])
    assert not r.ok
    e = r.error
    assert e.type == "TracerBoolConversionError" and "ConcretizationTypeError" in e.mro
    assert (e.line, e.column) == (9, 5)  # the `if` line, 1-based column of the condition
    assert e.layer == layer and hint in e.suggestion
    assert any(f.user and f.line == 9 for f in e.traceback)


def test_error_under_grad_inside_jit_blames_jit():
    r = stack_report(LOSS, "branchy", [{"name": "grad"}, {"name": "jit"}], ["1.0"])
    assert r.error.type == "TracerBoolConversionError" and r.error.layer == "jit"
    # grad alone knows the value, so Python control flow works
    assert stack_report(LOSS, "branchy", [{"name": "grad"}], ["-2.0"]).result.data == -1.0


def test_vmap_size_error_points_at_in_axes():
    r = stack_report(
        LOSS,
        "loss",
        [{"name": "vmap", "options": {"in_axes": "(0, 0)"}}],
        ["np.ones(3, np.float32)", "np.ones((4, 3), np.float32)"],
    )
    assert r.error.type == "ValueError" and r.error.layer == "vmap"
    assert "in_axes" in r.error.suggestion and r.error.line == 5  # the target function


def test_errors_in_argument_and_option_expressions_name_the_input_not_a_code_line():
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n\ndef bad():\n    return 1 / 0\n"
    r = stack_report(code, "f", [{"name": "grad"}], ["jnp.ones(3"])
    assert r.error.type == "SyntaxError" and r.error.line is None
    assert r.error.message == "In argument 1 (x): '(' was never closed"
    assert "Fix argument 1 (x)" in r.error.suggestion and "editor" not in r.error.suggestion
    r = stack_report(code, "f", [{"name": "grad"}], ["y"])
    assert r.error.type == "NameError" and r.error.line is None
    assert r.error.message == "In argument 1 (x): name 'y' is not defined"
    assert r.error.suggestion.startswith("'y' is not defined when argument 1 (x) is evaluated")
    r = stack_report(
        code, "f", [{"name": "grad"}, {"name": "vmap", "options": {"in_axes": "(0, 0"}}], ["1.0"]
    )
    assert r.error.type == "SyntaxError" and r.error.line is None
    assert r.error.message.startswith("In option in_axes of vmap (layer 2): ")
    # An argument that calls the code keeps the code's line.
    r = stack_report(code, "f", [{"name": "grad"}], ["bad()"])
    assert r.error.type == "ZeroDivisionError" and r.error.line == 7
    assert r.error.message == "In argument 1 (x): division by zero"


def test_shape_mismatch_errors_suggest_what_to_check():
    code = "import jax.numpy as jnp\n\ndef add(x, y):\n    return x + y\n\ndef dot(x, y):\n    return jnp.dot(x, y)\n"
    r = stack_report(code, "add", [{"name": "jit"}], ["jnp.ones(3)", "jnp.ones(4)"])
    assert r.error.type == "TypeError" and r.error.line == 4 and "x[:, None]" in r.error.suggestion  # (JAX's)
    r = stack_report(code, "dot", [{"name": "jit"}], ["jnp.ones((2, 3))", "jnp.ones(4)"])
    assert r.error.type == "TypeError" and r.error.line == 7 and "(x.T)" in r.error.suggestion


def test_syntax_and_name_errors():
    r = run_request(RunRequest(code="x = 1\ny = (2,\n"))
    assert r.error.type == "SyntaxError" and r.error.line == 2 and r.error.column == 5
    r = run_request(RunRequest(code="x = 1\n\nprint(undefined_name)\n"))
    assert r.error.type == "NameError" and r.error.line == 3 and r.error.layer is None
    r = run_request(RunRequest(code="x = 1", function="missing", stack=[{"name": "grad"}], args=["1.0"]))
    assert not r.ok and r.error.type == "NameError"


def test_run_request_never_raises():
    for req in [
        RunRequest(code="raise SystemExit(3)"),
        RunRequest(code="import sys; sys.stdout = None"),
        RunRequest(
            code="def f(x): return x",
            function="f",
            stack=[{"name": "vmap", "options": {"in_axes": "(("}}],
            args=["1.0"],
        ),
        RunRequest(code="def f(x): return x", function="f", args=["1/0"]),
    ]:
        r = run_request(req)
        assert isinstance(r, RunReport) and RunReport.model_validate_json(r.model_dump_json())
    assert run_request(RunRequest(code="raise SystemExit(0)")).ok


SCRIPT = textwrap.dedent("""\
    import numpy as np
    import jax
    from jax import lax

    def tanh(x):
        return lax.tanh(x)

    def f(x):
        jax.debug.print("f sees {}", lax.reduce_sum(x, (0,)))
        return lax.mul(x, 2.0)

    print("hello")
    print(jax.grad(tanh)(0.5))
    print(jax.grad(jax.grad(jax.grad(tanh)))(0.5))
    fast = jax.jit(f)
    fast(np.ones(3, np.float32))
    fast(np.ones(3, np.float32))
    fast(np.ones(5, np.float32))
    """)


def test_script_mode_lists_transformed_calls():
    r = run_request(RunRequest(code=SCRIPT))
    assert r.ok and r.mode == "script", r.error
    assert r.stdout.startswith("hello\n0.7864477")
    labels = [c.label for c in r.calls]
    assert labels == ["grad(tanh)", "grad(grad(grad(tanh)))", "jit(f)", "jit(f)", "jit(f)"]
    assert [c.source.line for c in r.calls] == [13, 14, 16, 17, 18]
    assert [s.name for s in r.calls[1].stages] == [
        "tanh",
        "grad(tanh)",
        "grad(grad(tanh))",
        "grad(grad(grad(tanh)))",
    ]
    jits = [c.jit for c in r.calls[2:]]
    assert [j.cache for j in jits] == ["miss", "hit", "miss"]
    assert jits[2].recompile_reason == "different input types:\n* at x, now f32[5] and before f32[3]"
    # the debug.print equation survives in the staged program and prints on every run
    assert "debug_print" in [n.primitive for n in r.calls[2].stages[0].graph.nodes]
    assert [p.text for p in r.prints] == ["f sees 3.0", "f sees 3.0", "f sees 5.0"]
    assert "f sees 3.0\n" in r.stdout
    assert r.calls[3].stages == []  # same signature: facts and timings only


def test_debugger_flags_first_nonfinite():
    code = textwrap.dedent("""\
        import numpy as np
        from jax import lax
        def f(x):
            y = lax.log(x)
            z = lax.mul(y, 0.0)
            return lax.add(z, 1.0)
        """)
    r = stack_report(code, "f", [{"name": "jit"}], ["np.array([0.0, 1.0], np.float32)"])
    steps = r.calls[0].debug.steps
    prims = [s.primitive for s in steps]
    assert prims[0] == "log" and prims[-1] == "add" and "mul" in prims
    mul = steps[prims.index("mul")]
    assert steps[0].outputs[0].data == ["-Infinity", 0.0] and mul.outputs[0].nan_count == 1 and mul.nonfinite
    assert r.calls[0].debug.first_nonfinite == 0 and steps[0].nonfinite
    assert r.result.nan_count == 1 and r.result.data[0] == "NaN"


def test_report_sizes_are_bounded():
    code = (
        "import numpy as np\nprint('x' * 3_000_000)\ndef big():\n    return np.zeros(100_000, np.float32)\n"
    )
    r = run_request(RunRequest(code=code, function="big"))
    assert r.result.truncated and r.result.data is None and r.result.shape == [100_000]
    assert len(r.stdout) < 1_100_000 and r.stdout.endswith("(output truncated)\n")


def run_cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_report_and_trace(tmp_path):
    (tmp_path / "prog.py").write_text(TANH + "import sys\nprint(jax.grad(tanh)(1.0), sys.argv[1:])\n")
    proc = run_cli("--report", "out.json", "--trace", "trace.json", "prog.py", "a", "--b", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "['a', '--b']" in proc.stdout  # output still reaches the terminal
    report = RunReport.model_validate_json((tmp_path / "out.json").read_text())
    assert report.ok and [c.label for c in report.calls] == ["grad(tanh)"]
    assert report.calls[0].stages[0].graph.nodes[1].source.line == 5
    trace = json.loads((tmp_path / "trace.json").read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {"run script", "run grad(tanh)", "trace tanh", "transform grad(tanh)"} <= {
        e["name"] for e in complete
    }
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in complete)
    assert trace == chrome_trace(report)


def test_cli_failure_exit_status_and_report(tmp_path):
    (tmp_path / "bad.py").write_text("import jax\n\nx = jax.numpy_missing\n")
    proc = run_cli("--report", "out.json", "bad.py", cwd=tmp_path)
    assert proc.returncode == 1 and "AttributeError" in proc.stderr
    report = RunReport.model_validate_json((tmp_path / "out.json").read_text())
    assert report.error.type == "AttributeError" and report.error.line == 3
    plain = run_cli("bad.py", cwd=tmp_path)
    assert plain.returncode == 1 and "numpy_missing" in plain.stderr


def test_device_tagged_prints_are_ordered_by_device():
    code = textwrap.dedent("""\
        import jax
        from jax import lax
        from engine.debug import device_context

        def f(x):
            for d in (2, 0, 1):  # devices finishing in some arbitrary order
                with device_context(d):
                    jax.debug.print("dev {} step {}", d, 1)
                    jax.debug.print("dev {} step {}", d, 2)
            return lax.sin(x)
        """)
    r = stack_report(code, "f", [{"name": "grad"}], ["0.0"])
    assert [(p.device, p.text) for p in r.prints] == [
        (0, "dev 0 step 1"),
        (0, "dev 0 step 2"),
        (1, "dev 1 step 1"),
        (1, "dev 1 step 2"),
        (2, "dev 2 step 1"),
        (2, "dev 2 step 2"),
    ]
    assert r.stdout.splitlines()[0] == "dev 0 step 1"


def test_pmap_devices_collectives_and_per_device_timings():
    import engine.parallel as parallel

    before, saved_env = parallel.device_count(), dict(os.environ)  # the script sets XLA_FLAGS
    code = textwrap.dedent("""\
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
        import jax
        import jax.numpy as jnp

        def f(x):
            return jax.lax.psum(x * 2.0, 'i')
        out = jax.pmap(f, axis_name='i')(jnp.arange(4.0))
        """)
    try:
        r = run_request(RunRequest(code=code))
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        parallel.set_device_count(before)
    assert r.ok, r.error
    assert r.device_count == 4
    (call,) = r.calls
    assert call.label == "pmap(f, axis_name='i')"
    assert [s.name for s in call.stages] == ["f", call.label]
    assert call.stages[0].graph.vars[call.stages[0].graph.invars[0]].shape == []  # per device
    info = call.pmap
    assert info.axis_names == ["i"] and info.mesh == [4]
    assert [d.id for d in info.devices] == [0, 1, 2, 3]
    assert [d.inputs[0].data for d in info.devices] == [0.0, 1.0, 2.0, 3.0]
    assert all(d.outputs[0].data == 12.0 for d in info.devices)
    assert [c.primitive for c in info.collectives] == ["psum"] and info.collectives[0].devices == [0, 1, 2, 3]
    assert sorted(t.device for t in call.timings if t.device is not None) == [0, 1, 2, 3]
    assert "collective" in {t.category for t in call.timings}


def test_target_transformed_by_the_code_is_recorded_in_full_without_a_stack():
    code = TANH + "\ngrad_tanh = jax.jit(jax.grad(tanh))\n"
    r = stack_report(code, "grad_tanh", [], ["1.0"])
    assert r.ok, r.error
    assert r.label == "jit(grad(tanh))"
    (call,) = r.calls
    assert [s.name for s in call.stages] == ["tanh", "grad(tanh)", "jit(grad(tanh))"]
    assert abs(r.result.data - 0.41997434) < 1e-6


def test_jit_timings_are_disjoint_and_mark_cache_hits(monkeypatch):
    # compiles in the first call (tests/test_jit_tiers.py: a first call interpreted while compiling)
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)
    code = textwrap.dedent("""\
        import jax
        from jax import lax
        f = jax.jit(lambda x: lax.add(lax.sin(x), x))
        f(1.0)
        f(1.0)
        """)
    r = run_request(RunRequest(code=code))
    assert r.ok, r.error
    first, second = r.calls
    phases = [e for e in first.timings if e.category in ("trace", "lower", "compile", "load", "execute")]
    by_start = sorted(phases, key=lambda e: e.start_ms)
    for a, b in zip(by_start, by_start[1:]):
        assert a.start_ms + a.duration_ms <= b.start_ms + 1e-3, (a, b)  # no phase encloses another
    assert [e.cache for e in first.timings if e.category == "trace" and "jit" in e.name] == ["miss"]
    assert any(e.category in ("compile", "load") for e in first.timings)  # ("load": a warm kernel cache)
    hits = [e for e in second.timings if e.cache == "hit"]
    assert len(hits) == 1 and hits[0].name.startswith("cache hit")
    assert not any(e.category in ("compile", "load") for e in second.timings)


def test_python_control_flow_under_grad_shows_the_path_taken():
    r = stack_report(LOSS, "branchy", [{"name": "grad"}], ["-2.0"])
    assert r.ok, r.error
    assert r.result.data == -1.0
    (call,) = r.calls
    assert [s.path_taken for s in call.stages] == [True, True]
    base, grad_stage = call.stages
    assert [n.primitive for n in base.graph.nodes] == ["gt", "neg"]  # the else branch ran
    assert "neg" in grad_stage.text and "(tracing failed" not in grad_stage.text
    steps = call.debug.steps
    assert call.debug.graph == "grad(branchy) (path taken for these inputs)"
    assert steps[0].primitive == "gt" and steps[0].outputs[0].data is False
    assert steps[-1].outputs[0].data == -1.0
    # Abstract tracing still fails where it must: jit of the same function is an error.
    r = stack_report(LOSS, "branchy", [{"name": "jit"}], ["-2.0"])
    assert not r.ok and r.error.type == "TracerBoolConversionError"


def test_node_ids_are_unique_across_a_while_s_and_a_cond_s_sub_jaxprs():
    code = textwrap.dedent("""\
        import jax
        from jax import lax

        def f(x):
            n = lax.while_loop(lambda i: i < 3, lambda i: i + 1, 0)
            return lax.cond(x > 0, lambda: x * n, lambda: -x)
        """)
    r = stack_report(code, "f", [{"name": "grad"}], ["1.0"])
    assert r.ok, r.error
    for stage in r.calls[-1].stages:
        ids = [n.id for n in all_nodes(stage.graph)]
        assert len(ids) == len(set(ids)), (stage.name, ids)
        loop = next(n for n in stage.graph.nodes if n.primitive == "while")
        body, cond = loop.subgraphs
        assert (body.name, cond.name) == ("body_jaxpr", "cond_jaxpr")
        assert [n.id for n in cond.nodes] == [f"{loop.id}/1/n0"] and cond.nodes[0].primitive == "lt"
        assert [n.id for n in body.nodes] == [f"{loop.id}/0/n0"] and body.nodes[0].primitive == "add"
