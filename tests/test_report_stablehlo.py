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


def test_each_jit_stage_is_lowered_for_its_own_argument_types():
    got = stages([{"name": "jit"}, {"name": "vmap", "options": {"in_axes": "(0, None)"}}, {"name": "jit"}])
    assert [n for n, s in got.items() if s.stablehlo is not None] == [
        "jit(f)",
        "jit(vmap(jit(f), in_axes=(0, None)))",
    ]
    inner, outer = got["jit(f)"].stablehlo, got["jit(vmap(jit(f), in_axes=(0, None)))"].stablehlo
    # the inner jit sees one example (scalars), the outer one the batch
    assert "a:f32[] b:f32[]" in inner and "f32[3]" not in inner, inner
    assert "a:f32[3] b:f32[]" in outer, outer
    assert "sin" in inner and "mul" in inner


def test_script_mode_jit_calls_are_lowered_too():
    code = CODE + "\nprint(jax.jit(f)(jnp.ones(2), 3.0))\n"
    report = run_request(RunRequest(code=code))
    assert report.ok, report.error
    (call,) = report.calls
    assert [s.stablehlo is not None for s in call.stages] == [False, True]
    assert "f32[2]" in call.stages[1].stablehlo


def test_a_huge_lowered_text_is_capped_at_a_line_and_says_so(monkeypatch):
    full = stages([{"name": "jit"}])["jit(f)"].stablehlo
    monkeypatch.setattr(lowered_mod, "TEXT_CAP", len(full) // 2)
    capped = stages([{"name": "jit"}])["jit(f)"].stablehlo
    kept, note = capped.rsplit("\n", 1)
    assert full.startswith(kept + "\n") and len(kept) <= len(full) // 2
    assert note == f"// … truncated: {len(kept):,} of {len(full):,} characters shown"


def test_a_failed_lowering_is_one_comment_line_with_the_reason():
    def lower():
        raise NotImplementedError("no StableHLO lowering for primitive 'frobnicate' yet")

    assert lowered_mod.lowered_text(lower) == (
        "// no lowered program for this stage: NotImplementedError: "
        "no StableHLO lowering for primitive 'frobnicate' yet"
    )


def test_a_program_over_the_equation_cap_is_not_printed_and_says_how_to(monkeypatch):
    monkeypatch.setattr(lowered_mod, "EQN_CAP", 3)  # jit(f) lowers sin, convert_element_type, mul
    assert not stages([{"name": "jit"}])["jit(f)"].stablehlo.startswith("//")
    monkeypatch.setattr(lowered_mod, "EQN_CAP", 2)
    text = stages([{"name": "jit"}])["jit(f)"].stablehlo
    assert text == (
        "// not printed here: jit(f) has 3 equations (the report prints up to 2); "
        "print(jax.jit(f).lower(*args).as_text()) in the code shows it"
    )
