"""The run report's lowered program of jit stages (``Stage.stablehlo``): every jit stage of a stack
has the text ``jax.jit(f).lower(*args).as_text()`` prints for its own argument types, other stages
none; huge texts are capped and say so."""

import textwrap

from engine.inspect import RunRequest, run_request
from engine.inspect import lowered as lowered_mod

CODE = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp

    def f(x, y):
        return jnp.sin(x) * y
    """)


def stages(stack, args=("jnp.arange(3.0)", "2.0"), code=CODE):
    report = run_request(RunRequest(code=code, function="f", stack=stack, args=list(args)))
    assert report.ok, report.error
    return {s.name: s for s in report.calls[0].stages}


# Recorded from JAX 0.10.2: jax.jit(f).lower(jnp.float32(0), 2.0).as_text() and
# jax.jit(jax.vmap(jax.jit(f), in_axes=(0, None))).lower(jnp.arange(3.0), 2.0).as_text()
JAX_INNER = """\
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<f32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.multiply %0, %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
"""
JAX_OUTER = """\
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = call @f(%arg0, %arg1) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    return %0 : tensor<3xf32>
  }
  func.func private @f(%arg0: tensor<3xf32>, %arg1: tensor<f32>) -> tensor<3xf32> {
    %0 = stablehlo.sine %arg0 : tensor<3xf32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %3 = stablehlo.multiply %0, %2 : tensor<3xf32>
    return %3 : tensor<3xf32>
  }
}
"""


def test_each_jit_stage_is_lowered_for_its_own_argument_types():
    got = stages([{"name": "jit"}, {"name": "vmap", "options": {"in_axes": "(0, None)"}}, {"name": "jit"}])
    lowered = {n: s.stablehlo for n, s in got.items() if s.stablehlo is not None}
    # the inner jit sees one example (scalars), the outer one the batch, as JAX lowers them
    assert lowered == {"jit(f)": JAX_INNER, "jit(vmap(jit(f), in_axes=(0, None)))": JAX_OUTER}


def test_script_mode_jit_calls_are_lowered_too():
    code = CODE + "\nprint(jax.jit(f)(jnp.ones(2), 3.0))\n"
    report = run_request(RunRequest(code=code))
    assert report.ok, report.error
    (call,) = report.calls
    assert [s.stablehlo is not None for s in call.stages] == [False, True]
    assert "func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<f32>)" in call.stages[1].stablehlo


def test_a_huge_lowered_text_is_capped_at_a_line_and_says_so(monkeypatch):
    full = stages([{"name": "jit"}])["jit(f)"].stablehlo
    monkeypatch.setattr(lowered_mod, "TEXT_CAP", len(full) // 2)
    capped = stages([{"name": "jit"}])["jit(f)"].stablehlo
    kept, note = capped.rsplit("\n", 1)
    assert full.startswith(kept + "\n") and len(kept) <= len(full) // 2
    assert note == f"// … truncated: {len(kept):,} of {len(full):,} characters shown"


def test_a_stage_that_cannot_be_lowered_says_why():
    # a primitive of the user's own with no lowering rule: JAX cannot lower it either
    code = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        from jax.extend.core import Primitive

        twice_p = Primitive("twice")
        twice_p.def_impl(lambda x: 2 * x)
        twice_p.def_abstract_eval(lambda x: x)

        def f(x):
            return twice_p.bind(jnp.sin(x))
        """)
    report = run_request(RunRequest(code=code, function="f", stack=[{"name": "jit"}], args=["1.0"]))
    # running it under jit fails as in JAX (no lowering rule), and the stage says why it has no text
    assert not report.ok and "'twice'" in report.error.message
    jitted = next(s for s in report.calls[0].stages if s.name == "jit(f)")
    assert "twice" in jitted.text  # the jaxpr is there; the lowered program is not
    assert jitted.stablehlo.startswith("// no lowered program for this stage: NotImplementedError: ")
    assert "'twice'" in jitted.stablehlo and "\n" not in jitted.stablehlo
    # (and the report's own steps that ask for the compiled program take "none" for an answer)
    assert [s.name for s in report.calls[0].stages] == ["f", "jit(f)"]


def test_a_program_over_the_equation_cap_is_not_printed_and_says_how_to(monkeypatch):
    monkeypatch.setattr(lowered_mod, "EQN_CAP", 3)  # jit(f) lowers sin, convert_element_type, mul
    assert not stages([{"name": "jit"}])["jit(f)"].stablehlo.startswith("//")
    monkeypatch.setattr(lowered_mod, "EQN_CAP", 2)
    text = stages([{"name": "jit"}])["jit(f)"].stablehlo
    assert text == (
        "// not printed here: jit(f) has 3 equations (the report prints up to 2); "
        "print(jax.jit(f).lower(*args).as_text()) in the code shows it"
    )
