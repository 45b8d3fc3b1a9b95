"""The StableHLO builder (``engine.extend.mlir``): modules built with MLIR's Python API, printed,
parsed back, executed on the engine's primitives, and custom primitives lowered through
``jax.interpreters.mlir.register_lowering`` under jit/grad/vmap. Values are checked against
numpy computed independently."""

from __future__ import annotations

import io

import numpy as np
import pytest

import engine as jax
from engine import jit_runtime
from engine._src import xla_bridge as xb
from engine.extend import core as xcore
from engine.extend.mlir import execute, ir
from engine.extend.mlir.dialects import func
from engine.extend.mlir.dialects import stablehlo as hlo
from engine.interpreters import ad, batching, mlir


def _tensor(shape, dtype=np.float32):
    return ir.RankedTensorType.get(shape, ir.element_type_of(dtype))


def _module(body, *arg_types):
    """A module whose @main is ``body(*block_arguments) -> values``."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            func.func(*arg_types, name="main")(body)
    return module


def _text(module):
    out = io.StringIO()
    module.operation.print(file=out)
    return out.getvalue()


def _run_both(module, args):
    """Results of the built module and of its printed-and-parsed text (they must agree)."""
    built = execute.run_module(module, args)
    parsed = execute.run_module(ir.Module.parse(_text(module)), args)
    for a, b in zip(built, parsed):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    return built


def _scalar_reduce(x, init, combine, dims, out_type):
    elem = ir.RankedTensorType.get((), out_type.element_type)
    op = hlo.ReduceOp([out_type], [x], [init], dims)
    block = op.body.blocks.append(elem, elem)
    with ir.InsertionPoint(block):
        hlo.return_([combine(*block.arguments)])
    return op.result


def test_elementwise_reduce_and_shapes_match_numpy_in_float64():
    x = np.linspace(-2, 3, 12).reshape(3, 4)
    w = np.arange(8.0).reshape(4, 2) / 7

    def body(a, b):
        s = hlo.add(hlo.multiply(hlo.sine(a), hlo.exponential(a)), hlo.tanh(a))
        zero = hlo.constant(ir.DenseElementsAttr.get(np.array(1.5)))
        rows = _scalar_reduce(s, zero, hlo.add, [1], _tensor((3,), np.float64))
        mx = _scalar_reduce(
            a,
            hlo.constant(ir.DenseElementsAttr.get(np.array(-np.inf))),
            hlo.maximum,
            [0],
            _tensor((4,), np.float64),
        )
        dnums = hlo.DotDimensionNumbers.get(lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
        mm = hlo.dot_general(_tensor((3, 2), np.float64), a, b, dnums)
        t = hlo.transpose(mm, [1, 0])
        sl = hlo.slice(a, [0, 1], [3, 4], [2, 2])
        cat = hlo.concatenate([rows, mx], 0)
        bc = hlo.broadcast_in_dim(_tensor((2, 3), np.float64), rows, [1])
        rs = hlo.reshape(_tensor((4, 3), np.float64), a)
        sel = hlo.select(
            hlo.compare(a, hlo.negate(a), hlo.ComparisonDirectionAttr.get("GT")), a, hlo.negate(a)
        )
        return [rows, mx, t, sl, cat, bc, rs, sel]

    module = _module(body, _tensor((3, 4), np.float64), _tensor((4, 2), np.float64))
    rows, mx, t, sl, cat, bc, rs, sel = _run_both(module, [x, w])
    s = np.sin(x) * np.exp(x) + np.tanh(x)
    np.testing.assert_allclose(rows, s.sum(1) + 1.5, rtol=1e-12)
    assert rows.dtype == np.float64  # tensor<f64> computes in float64
    np.testing.assert_array_equal(mx, x.max(0))
    np.testing.assert_allclose(t, (x @ w).T, rtol=1e-12)
    np.testing.assert_array_equal(sl, x[0:3:2, 1:4:2])
    np.testing.assert_array_equal(cat, np.concatenate([s.sum(1) + 1.5, x.max(0)]))
    np.testing.assert_array_equal(bc, np.broadcast_to(rows, (2, 3)))
    np.testing.assert_array_equal(rs, x.reshape(4, 3))
    np.testing.assert_array_equal(sel, np.abs(x))


def test_if_while_and_calls_between_functions():
    f32 = _tensor(())
    i32 = _tensor((), np.int32)
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        table = ir.SymbolTable(module.operation)
        with ir.InsertionPoint(module.body):

            @func.func(f32, name="helper")
            def helper(x):
                return hlo.multiply(x, x)

            @func.func(f32, name="helper")  # same name: the symbol table renames it
            def helper2(x):
                return hlo.negate(x)

            renamed = table.insert(helper2.func_op)

            @func.func(f32, i32, name="main")
            def main(x, n):
                loop = hlo.WhileOp([f32, i32], [x, n])
                cond = loop.cond.blocks.append(f32, i32)
                with ir.InsertionPoint(cond):
                    zero = hlo.constant(ir.DenseElementsAttr.get(np.int32(0)))
                    hlo.return_([hlo.compare(cond.arguments[1], zero, hlo.ComparisonDirectionAttr.get("GT"))])
                body = loop.body.blocks.append(f32, i32)
                with ir.InsertionPoint(body):
                    one = hlo.constant(ir.DenseElementsAttr.get(np.int32(1)))
                    half = hlo.constant(ir.DenseElementsAttr.get(np.float32(0.5)))
                    hlo.return_(
                        [hlo.add(helper(body.arguments[0]), half), hlo.subtract(body.arguments[1], one)]
                    )
                y = loop.results[0]
                branch = hlo.IfOp([f32], hlo.compare(y, x, hlo.ComparisonDirectionAttr.get("LT")))
                with ir.InsertionPoint(branch.true_branch.blocks.append()):
                    hlo.return_([y])
                with ir.InsertionPoint(branch.false_branch.blocks.append()):
                    hlo.return_([helper2(y)])
                return branch.result

    assert renamed.value == "helper_0"
    for x, n in [(0.3, 3), (1.2, 2), (-0.4, 0)]:
        y = np.float32(x)
        for _ in range(n):
            y = np.float32(y * y + np.float32(0.5))
        want = y if y < np.float32(x) else -y
        (got,) = _run_both(module, [np.float32(x), np.int32(n)])
        assert got.dtype == np.float32 and got == want


def test_xla_client_compiles_printed_text_and_executes():
    module = _module(lambda a, b: [hlo.add(hlo.multiply(a, b), b)], _tensor((3,)), _tensor((3,)))
    backend = xb.get_backend(None)
    exe = backend.compile_and_load(_text(module), backend.devices()[:1])
    a, b = np.float32([1, 2, 3]), np.float32([4, 5, 6])
    (out,) = exe.execute([a, b])
    np.testing.assert_array_equal(out, a * b + b)


def test_unsupported_operations_raise_naming_the_operation():
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            with pytest.raises(NotImplementedError, match="stablehlo.custom_call"):
                hlo.CustomCallOp([_tensor(())], [], call_target_name="foo")
    # an operation the executor has no translation for, given as text
    text = _text(_module(lambda a: [hlo.negate(a)], _tensor((2,)))).replace(
        "stablehlo.negate", "stablehlo.sort"
    )
    with pytest.raises(NotImplementedError, match="stablehlo.sort"):
        execute.run_module(ir.Module.parse(text), [np.float32([1, 2])])

    # a reduction whose body is not a single known combiner
    def body(a):
        out_t = _tensor(())
        elem = _tensor(())
        op = hlo.ReduceOp([out_t], [a], [hlo.constant(ir.DenseElementsAttr.get(np.float32(0)))], [0])
        block = op.body.blocks.append(elem, elem)
        with ir.InsertionPoint(block):
            hlo.return_([hlo.add(hlo.multiply(block.arguments[0], block.arguments[0]), block.arguments[1])])
        return op.result

    with pytest.raises(NotImplementedError, match="stablehlo.reduce"):
        execute.run_module(_module(body, _tensor((3,))), [np.float32([1, 2, 3])])


# ---------------------------------------------------------------------------------------------
# A custom primitive lowered to StableHLO, under the engine's transformations.


@pytest.fixture(scope="module")
def fma():
    calls = {"impl": 0, "lowering": 0}
    p = xcore.Primitive("fma_hlo_test")

    def impl(x, y, z):
        calls["impl"] += 1
        return np.add(np.multiply(x, y), z)

    def lowering(ctx, x, y, z):
        calls["lowering"] += 1
        assert [a.shape for a in ctx.avals_in] == [a.shape for a in ctx.avals_out] * 3
        return [hlo.AddOp(hlo.MulOp(x, y), z).result]

    def jvp(primals, tangents):
        x, y, z = primals
        xt, yt, zt = (jax.lax.zeros_like_array(x) if type(t) is ad.Zero else t for t in tangents)
        return p.bind(x, y, z), p.bind(xt, y, p.bind(x, yt, zt))

    def transpose(ct, x, y, z):
        zeros = jax.lax.zeros_like_array(ct)
        if ad.is_undefined_primal(x):
            return p.bind(ct, y, zeros), None, ct
        return None, p.bind(x, ct, zeros), ct

    p.def_impl(impl)
    p.def_abstract_eval(lambda x, y, z: jax.core.ShapedArray(x.shape, x.dtype))
    mlir.register_lowering(p, lowering, platform="cpu")
    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = transpose
    batching.primitive_batchers[p] = lambda args, dims: (
        (p.bind(*args), dims[0]) if len(set(dims)) == 1 else None
    )
    return p, calls


def test_jit_runs_the_lowering_not_the_impl(fma):
    p, calls = fma
    x, y, z = np.float32([1.5, -2.0]), np.float32([3.0, 0.25]), np.float32([0.5, 4.0])
    before = dict(calls)
    out = jax.jit(lambda a, b, c: p.bind(a, b, c) * 2.0)(x, y, z)
    np.testing.assert_allclose(out, (x * y + z) * 2, rtol=1e-6)
    assert calls["impl"] == before["impl"]  # under jit the module ran, not the numpy impl
    assert calls["lowering"] == before["lowering"] + 1
    assert "fma_hlo_test" in str(jax.make_jaxpr(lambda a: p.bind(a, a, a))(x))


def test_grad_vmap_and_their_jit_through_the_lowering(fma):
    p, _ = fma

    def f(a, b):
        return jax.numpy.sum(p.bind(a, a, b) * b)

    a, b = np.float32([0.5, -1.25, 2.0]), np.float32([3.0, 0.5, -1.0])
    want = 2 * a * b  # d/da sum((a*a + b) * b)
    np.testing.assert_allclose(jax.grad(f)(a, b), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(a, b), want, rtol=1e-6)
    np.testing.assert_allclose(jax.grad(f, argnums=1)(a, b), a * a + 2 * b, rtol=1e-6)
    xs = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(jax.vmap(lambda r: p.bind(r, r, r))(xs), xs * xs + xs)
    np.testing.assert_allclose(jax.jit(jax.vmap(lambda r: p.bind(r, r, r)))(xs), xs * xs + xs)


def test_lowering_runs_in_the_interpreter_backend_too(fma):
    p, _ = fma
    saved = jit_runtime.get_backend()
    jit_runtime.set_backend(jit_runtime.Interpreter())
    try:
        out = jax.jit(lambda a: p.bind(a, a, a))(np.float32([2.0, 3.0]))
    finally:
        jit_runtime.set_backend(saved)
    np.testing.assert_array_equal(out, np.float32([6.0, 12.0]))


def test_jit_of_an_extension_primitive_needs_a_lowering_rule():
    p = xcore.Primitive("no_lowering_hlo_test")
    p.def_impl(lambda x: x + 1)
    p.def_abstract_eval(lambda x: x)
    assert p.bind(1.0) == 2.0
    with pytest.raises(
        NotImplementedError, match="MLIR translation rule for primitive 'no_lowering_hlo_test'"
    ):
        jax.jit(p.bind)(1.0)


def test_a_lowering_of_the_wrong_type_is_an_error():
    p = xcore.Primitive("wrong_type_hlo_test")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: [hlo.convert(_tensor((), np.int32), x)])
    with pytest.raises(TypeError, match="tensor<i32>"):
        jax.jit(p.bind)(np.float32(1.0))


def test_lower_fun_lowers_through_a_traced_function():
    p = xcore.Primitive("softplus_hlo_test")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(
        p, mlir.lower_fun(lambda x: jax.numpy.log1p(jax.numpy.exp(x)), multiple_results=False)
    )
    x = np.float32([-3.0, 0.0, 2.5])
    np.testing.assert_allclose(jax.jit(p.bind)(x), np.log1p(np.exp(x)), rtol=1e-6)


def test_type_casts_and_a_python_traced_op_does_not_survive_text():
    from engine.extend.mlir.lowering import JaxprCallOp

    closed = jax.make_jaxpr(lambda a: jax.numpy.cos(a) * 2.0)(np.float32([1.0, 2.0]))
    module = _module(lambda a: JaxprCallOp(closed, [a]).results, _tensor((2,)))
    x = np.float32([1.0, 2.0])
    (out,) = execute.run_module(module, [x])
    np.testing.assert_allclose(out, np.cos(x) * 2, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="engine.jaxpr_call"):
        execute.run_module(ir.Module.parse(_text(module)), [x])
    arg = module.body.operations[0].regions[0].blocks[0].arguments[0]
    t = ir.RankedTensorType(arg.type)
    assert (
        t.shape == (2,)
        and ir.F32Type.isinstance(t.element_type)
        and not ir.F64Type.isinstance(t.element_type)
    )


def test_lower_then_compile_uses_the_lowering(fma):
    p, calls = fma
    x = np.float32([1.0, 2.0])
    before = calls["impl"]
    compiled = jax.jit(lambda a: p.bind(a, a, a)).lower(x).compile()
    np.testing.assert_array_equal(compiled(x), x * x + x)
    assert calls["impl"] == before


def test_dot_broadcast_complex_parts_and_generic_operations():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    v = np.float32([1.0, -2.0, 0.5])
    re, im = np.float32([1.0, 2.0]), np.float32([-3.0, 0.25])

    def body(x, y, r, i):
        z = hlo.complex(r, i)
        return [
            hlo.dot(_tensor((2,)), x, y),
            hlo.broadcast(y, [2]),
            hlo.real(hlo.multiply(z, z)),
            hlo.imag(hlo.multiply(z, z)),
            ir.Operation.create("stablehlo.tanh", results=[y.type], operands=[y]).result,
        ]

    module = _module(body, _tensor((2, 3)), _tensor((3,)), _tensor((2,)), _tensor((2,)))
    dot, bc, zr, zi, th = _run_both(module, [a, v, re, im])
    z = re + 1j * im
    np.testing.assert_allclose(dot, a @ v, rtol=1e-6)
    np.testing.assert_array_equal(bc, np.broadcast_to(v, (2, 3)))
    np.testing.assert_allclose(zr, (z * z).real, rtol=1e-6)
    np.testing.assert_allclose(zi, (z * z).imag, rtol=1e-6)
    np.testing.assert_allclose(th, np.tanh(v), rtol=1e-6)
    unknown = _module(
        lambda y: [ir.Operation.create("stablehlo.erf_inv", results=[y.type], operands=[y]).result],
        _tensor((3,)),
    )
    with pytest.raises(NotImplementedError, match="stablehlo.erf_inv"):
        execute.run_module(unknown, [v])


def test_an_unsigned_comparison_of_signless_integers_is_refused():
    def body(a, b):
        kind = hlo.ComparisonTypeAttr.get("UNSIGNED")
        return [hlo.compare(a, b, hlo.ComparisonDirectionAttr.get("LT"), compare_type=kind)]

    module = _module(body, _tensor((2,), np.int32), _tensor((2,), np.int32))
    with pytest.raises(NotImplementedError, match="UNSIGNED"):
        execute.run_module(module, [np.int32([-1, 2]), np.int32([1, 3])])


def test_lowered_source_shows_the_lowering_compiled():
    p = xcore.Primitive("cube_source_hlo_test")
    p.def_abstract_eval(lambda x: x)
    mlir.register_lowering(p, lambda ctx, x: [hlo.multiply(x, hlo.multiply(x, x))])
    x = np.float32([1.0, 2.0, 3.0])
    lowered = jax.jit(lambda a: p.bind(a) + 1.0).lower(x)
    source = lowered.source()
    if source is not None:  # (the numba backend; the interpreter has no source)
        # the lowering's two multiplies, generated as kernel code (the outer one fused with the
        # + 1.0 into a multiply-add, as XLA's compiler does)
        assert source.count(" * ") + source.count("rt.fma_f32(") >= 2
    compiled = lowered.compile()
    assert getattr(compiled.exe, "fallbacks", []) == []  # no equation fell back to an impl
    np.testing.assert_array_equal(compiled(x), x**3 + 1)
