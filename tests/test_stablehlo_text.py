"""``jit(f).lower(*args).as_text()`` prints the StableHLO module JAX 0.10.2 prints: the fidelity
corpus's programs against the texts recorded from JAX (tests/stablehlo/expected.json, by
tests/stablehlo/record.py), MLIR's float printing, and a clear error for what has no rule."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.stablehlo import literals
from tests.stablehlo import compare

# Raised as rules are added; never lowered.
MIN_IDENTICAL = 973


@pytest.fixture(scope="module")
def results():
    return compare.run()


def test_corpus_is_recorded():
    want = compare.expected()
    # Programs added to the fidelity corpus later are scored once recorded (record.py); a recorded
    # program that no longer exists must go.
    assert set(want) <= set(compare.all_programs()), "re-run tests/stablehlo/record.py"
    assert sum("text" in v for v in want.values()) >= 700


def test_identical_count(results):
    same = [n for n, (s, _, _) in results.items() if s == "same"]
    raising = sorted(n for n, (s, _, _) in results.items() if s == "error")
    print(f"\nstablehlo: {len(same)}/{len(results)} identical; {len(raising)} raise NotImplementedError")
    assert len(same) >= MIN_IDENTICAL


# Programs whose text differs from JAX's, and why; the test fails when one starts matching.
KNOWN_DIFFERENT: dict[str, str] = {}


def test_programs_that_print_differently_are_known(results):
    differ = {n for n, (s, _, _) in results.items() if s == "differ"}
    assert differ == set(KNOWN_DIFFERENT), sorted(differ ^ set(KNOWN_DIFFERENT))


def test_only_missing_rules_raise(results):
    # A program either prints or names the primitive it lacks; nothing else may go wrong.
    bad = {n: got for n, (s, _, got) in results.items() if s == "error" and "NotImplementedError" not in got}
    assert not bad, bad


def test_aot_example_prints_jax_text():
    def f(x, y):
        return 2 * x + y

    text = jax.jit(f).lower(3, 4).as_text()
    assert text == (
        "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
        "  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<i32>) -> "
        '(tensor<i32> {jax.result_info = "result"}) {\n'
        "    %c = stablehlo.constant dense<2> : tensor<i32>\n"
        "    %0 = stablehlo.multiply %c, %arg0 : tensor<i32>\n"
        "    %1 = stablehlo.add %0, %arg1 : tensor<i32>\n"
        "    return %1 : tensor<i32>\n"
        "  }\n"
        "}\n"
    )
    assert jax.jit(f).lower(3, 4).as_text(dialect="stablehlo") == text
    assert jax.jit(f).lower(3, 4).compiler_ir("stablehlo") == text


@pytest.mark.parametrize(
    "value, text",
    [  # as JAX 0.10.2 printed them (dense<...> of float32 constants)
        (0.1, "1.000000e-01"),
        (3.14159, "3.141590e+00"),
        (1e10, "1.000000e+10"),
        (1e-7, "1.000000e-07"),
        (np.nan, "0x7FC00000"),
        (np.inf, "0x7F800000"),
        (-np.inf, "0xFF800000"),
        (-0.0, "-0.000000e+00"),
        (0.0, "0.000000e+00"),
        (0.30000001, "3.000000e-01"),
        (np.log(2), "0.693147182"),
        (1e-5, "9.99999974E-6"),
    ],
)
def test_float_constants_print_as_mlir_does(value, text):
    assert literals.float_text(np.float32(value)) == text


def test_large_constants_print_as_hex_and_small_as_lists():
    assert literals.dense_text(np.arange(3, dtype=np.float32), np.float32) == (
        "dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]>"
    )
    assert literals.dense_text(np.zeros((2, 3), np.float32), np.float32) == "dense<0.000000e+00>"
    assert literals.dense_text(np.array([True, False]), np.bool_) == "dense<[true, false]>"
    big = literals.dense_text(np.arange(101, dtype=np.float32), np.float32)
    assert big.startswith('dense<"0x000000000000803F') and big.endswith('">')


def test_a_primitive_without_a_rule_raises_naming_it():
    from engine.core import ShapedArray
    from engine.extend.core import Primitive

    twice_p = Primitive("twice_for_test")
    twice_p.def_impl(lambda x: 2 * x)
    twice_p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    with pytest.raises(NotImplementedError, match="'twice_for_test'"):
        jax.jit(lambda x: twice_p.bind(x)).lower(np.ones(3, np.float32)).as_text()


def test_perturbed_tridiagonal_solve_is_refused_by_name():
    # JAX calls jaxlib's own perturbing kernel (tridiagonal_solve_perturbed_ffi), which the engine has not
    diag, b = jnp.ones(3), jnp.ones((3, 1))
    f = lambda *a: jax.lax.linalg.tridiagonal_solve(*a, perturb_singular=True)  # noqa: E731
    with pytest.raises(NotImplementedError, match="tridiagonal_solve with perturb_singular=True"):
        jax.jit(f).lower(diag, diag, diag, b).as_text()


def test_other_dialects_are_refused_clearly():
    # (dialect="hlo" prints XLA's HLO text: tests/test_hlo_text.py)
    with pytest.raises(NotImplementedError, match="'mhlo'"):
        jax.jit(jnp.sin).lower(1.0).as_text(dialect="mhlo")


def test_debug_info_locations_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="debug_info"):
        jax.jit(jnp.sin).lower(1.0).as_text(debug_info=True)


def test_module_text_is_the_public_function_export_uses():
    from engine.stablehlo import module_text, result_paths

    closed = jax.make_jaxpr(lambda x, y: {"s": x + 1.0})(np.float32(1), np.float32(2))
    text = module_text(closed, "f", result_names=["result['s']"], keep_unused=True)
    assert text.startswith("module @jit_f attributes")
    assert "@main(%arg0: tensor<f32>, %arg1: tensor<f32>)" in text  # kept although unused
    assert "jax.result_info = \"result['s']\"" in text
    assert "%arg1" not in module_text(closed, "f")  # dropped by default, as jit drops it
    from engine.tree_util import tree_structure

    assert result_paths(tree_structure({"b": [0, 0], "a": (0,)})) == [
        "result['a'][0]",
        "result['b'][0]",
        "result['b'][1]",
    ]


def test_a_user_lowered_primitive_prints_what_its_rule_builds():
    # Texts recorded from JAX 0.10.2 (jax._src.interpreters.mlir's register_lowering / lower_fun / custom_call).
    from engine.extend.core import Primitive
    from engine.extend.mlir import lowering as mlir

    twice_p = Primitive("twice_lowered_for_test")
    twice_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(twice_p, mlir.lower_fun(lambda x: jnp.sin(x) * 2.0, multiple_results=False))
    assert jax.jit(lambda x: twice_p.bind(x) + 1.0).lower(1.0).as_text() == (
        "module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
        '  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {\n'
        "    %0 = stablehlo.sine %arg0 : tensor<f32>\n"
        "    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>\n"
        "    %1 = stablehlo.multiply %0, %cst : tensor<f32>\n"
        "    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>\n"
        "    %2 = stablehlo.add %1, %cst_0 : tensor<f32>\n"
        "    return %2 : tensor<f32>\n"
        "  }\n"
        "}\n"
    )
    effect_p = Primitive("effect_lowered_for_test")
    effect_p.def_abstract_eval(lambda x: x)

    def rule(ctx, x):
        call = mlir.custom_call(
            "tgt",
            operands=[x, x],
            result_types=[x.type],
            has_side_effect=True,
            api_version=1,
            backend_config="cfg",
        )
        return call.results

    mlir.register_lowering(effect_p, rule)
    assert (
        '    %0 = stablehlo.custom_call @tgt(%arg0, %arg0) {backend_config = "cfg", has_side_effect = true} '
        ": (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
    ) in jax.jit(effect_p.bind).lower(1.0).as_text()


def test_an_operation_a_user_rule_builds_that_has_no_text_is_refused_by_name():
    from engine.extend.core import Primitive
    from engine.extend.mlir import ir
    from engine.extend.mlir import lowering as mlir

    odd_p = Primitive("odd_lowered_for_test")
    odd_p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(
        odd_p, lambda ctx, x: ir.Operation.create("stablehlo.cbrt", results=[x.type], operands=[x]).results
    )
    with pytest.raises(NotImplementedError, match="'stablehlo.cbrt'"):
        jax.jit(odd_p.bind).lower(1.0).as_text()
