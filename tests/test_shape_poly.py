"""Shape polymorphism (``jax.export.symbolic_shape`` and symbolic dimensions), compared with what
JAX 0.10.2 gives: expression texts and comparison outcomes recorded in
tests/jax_reference/shape_poly/*.json."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import numpy as np
import pytest

from engine import dims
from engine.export import (
    InconclusiveDimensionOperation,
    SymbolicScope,
    symbolic_args_specs,
    symbolic_shape,
)

REF = pathlib.Path(__file__).resolve().parent / "jax_reference" / "shape_poly"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"shape_poly_{name}", REF / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_expressions_and_comparisons_as_jax():
    expected = json.loads((REF / "exprs.json").read_text())
    got = _load("exprs").results(symbolic_shape, dims)
    assert got.keys() == expected.keys()
    diffs = {k: (expected[k], got[k]) for k in expected if expected[k] != got[k]}
    assert not diffs


def test_parse_placeholders_and_errors():
    assert str(symbolic_shape("(b, _, _)", like=(3, 4, 5))) == "(b, 4, 5)"
    assert str(symbolic_shape("batch, ...", like=(2, 3, 4))) == "(batch, 3, 4)"
    assert symbolic_shape(None, like=(2, 3)) == (2, 3)
    with pytest.raises(ValueError, match="different size 3 for known dimension"):
        symbolic_shape("b, 3", like=(2, 4))
    with pytest.raises(ValueError, match="no 'like' shape"):
        symbolic_shape("b, ...")
    with pytest.raises(ValueError, match="syntax error in symbolic shape"):
        symbolic_shape("b +")
    with pytest.raises(ValueError, match="Cannot specify both"):
        symbolic_shape("b", constraints=("b >= 2",), scope=SymbolicScope())


def test_scopes():
    (a1,) = symbolic_shape("a,")
    (a2,) = symbolic_shape("a,", constraints=("a >= 8",))
    with pytest.raises(ValueError, match="Invalid mixing of symbolic scopes"):
        a1 + a2
    assert a1 != a2  # equality is total: different scopes are different dimensions
    (b,) = symbolic_shape("b,", scope=a2.scope)
    assert str(a2 + b) == "b + a" and (a2 + b).scope is a2.scope
    assert a2 >= 8 and not a2 < 8
    (c,) = symbolic_shape("c", scope=SymbolicScope(("c >= 3", "c <= 2")))
    with pytest.raises(ValueError, match="Unsatisfiable constraint: c <= 2"):
        _ = c >= 1  # as in JAX, found when a comparison first uses the constraints
    with pytest.raises(ValueError, match="sequence of strings"):
        SymbolicScope("a >= 3")


def test_inconclusive_and_int():
    a, b = symbolic_shape("a, b")
    with pytest.raises(InconclusiveDimensionOperation, match="'a' >= 'b' is inconclusive"):
        _ = a >= b
    with pytest.raises(InconclusiveDimensionOperation, match="requires a constant"):
        int(a)
    with pytest.raises(TypeError):
        range(a)
    assert isinstance(InconclusiveDimensionOperation("x"), dims.InconclusiveDimensionOperation)
    assert dims.is_constant_dim(3) and dims.is_constant_dim(np.int64(3)) and not dims.is_constant_dim(a)


def test_evaluate_with_values():
    a, b = symbolic_shape("a, b")
    e = dims.max_dim(a, b) * 2 + (a % 3) - b // 2
    for va, vb in [(1, 1), (5, 2), (4, 9)]:
        assert e._evaluate({"a": va, "b": vb}) == max(va, vb) * 2 + va % 3 - vb // 2


def test_symbolic_args_specs():
    x = np.ones((3, 1), np.int32)
    y = np.ones((3, 4), np.float32)
    sx, sy = symbolic_args_specs((x, y), "a, ...")
    assert str(sx.shape) == "(a, 1)" and str(sy.shape) == "(a, 4)"
    assert sx.shape[0] == sy.shape[0] and sy.dtype == np.float32
    specs = symbolic_args_specs({"p": x, "q": y}, {"p": "(b, _)", "q": None})
    assert str(specs["p"].shape) == "(b, 1)" and specs["q"].shape == (3, 4)


PROGRAMS = json.loads((REF / "programs.json").read_text())


class _JaxRepr:
    """An aval as JAX's repr shows it: ``ShapedArray(int32[a,2*b])``."""

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        a = self.aval
        weak = ", weak_type=True" if a.weak_type else ""
        return f"ShapedArray({a.dtype.name}[{','.join(map(str, a.shape))}]{weak})"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_trace_and_run_as_jax(jax_on_engine, name):
    """Traced with symbolic shapes: JAX's jaxpr and result types; specialized to a concrete
    argument: JAX's values."""
    import engine.numpy as jnp
    from engine import ir
    from engine.export import shape_poly_eval

    programs = _load("programs")
    src, spec, dtype, shape = programs.PROGRAMS[name]
    expected = PROGRAMS[name]
    f = eval(src, {"jax": jax_on_engine, "jnp": jnp, "np": np})
    sds = jax_on_engine.ShapeDtypeStruct(symbolic_shape(spec), np.dtype(dtype))
    closed = jax_on_engine.make_jaxpr(f)(sds)
    assert repr(tuple(_JaxRepr(a) for a in closed.out_avals)) == expected["out_avals"]
    assert str(closed) == expected["jaxpr"]
    avals = [ir.ShapedArray(sds.shape, sds.dtype)]
    shape_poly_eval.check_solvable(avals, ["args[0]"])
    shape_poly_eval.check_dim_vars_used(closed, avals)
    x = programs.argument(shape, dtype)
    env = shape_poly_eval.solve_dim_vars(avals, [x.shape], ["args[0]"])
    outs = ir.eval_closed(shape_poly_eval.specialize(closed, env), x)
    assert [str(np.asarray(o).dtype) for o in outs] == expected["dtypes"]
    for got, want in zip(outs, expected["values"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_dimension_values_and_refusals(jax_on_engine):
    """A dimension used as a value stages dim_as_value; eagerly (no shapes to take it from) it is
    JAX's NotImplementedError; StableHLO text of a symbolic program is refused, never wrong."""
    import engine.numpy as jnp
    from engine import core

    (a,) = symbolic_shape("a")
    assert core.dimension_as_value(3) == 3
    with pytest.raises(NotImplementedError, match="shape polymorphism outside jax.export"):
        jnp.sin(a)
    sds = jax_on_engine.ShapeDtypeStruct((a, 2), np.float32)
    text = str(jax_on_engine.make_jaxpr(lambda x: core.dimension_as_value(x.shape[0]) * x)(sds))
    assert "dim_as_value[dim=a]" in text and "f32[a,2]" in text
    with pytest.raises(NotImplementedError, match="symbolic dimensions"):
        jax_on_engine.jit(lambda x: x + 1).lower(sds).as_text()
    with pytest.raises(TypeError, match="Shapes must be 1D sequences of concrete values"):
        jax_on_engine.make_jaxpr(lambda x: x.reshape(jnp.array(x.shape[0]) + 2))(sds)


@pytest.mark.parametrize("name", ["concatenate", "dims_as_values", "mean_by_dim", "slice_neg", "grad"])
def test_exported_call_as_jax(jax_on_engine, name):
    """``export(jit(f))`` with symbolic shapes, called on concrete arguments: JAX's result types
    and values (and the same through jit, where the call's result types come from the shapes)."""
    import engine.numpy as jnp
    from engine import export

    programs = _load("programs")
    src, spec, dtype, shape = programs.PROGRAMS[name]
    f = eval(src, {"jax": jax_on_engine, "jnp": jnp, "np": np})
    sds = jax_on_engine.ShapeDtypeStruct(symbolic_shape(spec), np.dtype(dtype))
    exp = export.export(jax_on_engine.jit(f))(sds)
    assert repr(tuple(_JaxRepr(a) for a in exp.out_avals)) == PROGRAMS[name]["out_avals"]
    x = programs.argument(shape, dtype)
    for call in (exp.call, jax_on_engine.jit(exp.call)):
        outs = jax_on_engine.tree.leaves(call(x))
        for got, want in zip(outs, PROGRAMS[name]["values"]):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_export_errors_as_jax(jax_on_engine):
    from engine import export, lax

    jit = jax_on_engine.jit
    sds = jax_on_engine.ShapeDtypeStruct
    exp = export.export(jit(lambda x: x))(sds(symbolic_shape("b, b, 2*d"), np.int32))
    with pytest.raises(ValueError, match="Division had remainder 1 when computing the value of 'd'"):
        exp.call(np.ones((3, 3, 5), np.int32))
    with pytest.raises(ValueError, match=r"Found inconsistency between dimension size args\[0\].shape\[1\]"):
        exp.call(np.ones((3, 2, 4), np.int32))
    with pytest.raises(ValueError, match="Rank mismatch"):
        exp.call(np.ones((3, 3), np.int32))
    (a,) = symbolic_shape("a")
    with pytest.raises(ValueError, match=r"Cannot solve for values of dimension variables \{'a'\}"):
        export.export(jit(lambda x: x.shape[0]))(sds((a * a,), np.int32))
    (k,) = symbolic_shape("k", constraints=["k <= 10"])
    x = np.arange(40, dtype=np.int32).reshape((4, 10))
    with pytest.raises(export.UnexpectedDimVar, match="dimension variable 'k'"):
        export.export(jit(lambda k, x: lax.top_k(x, k)[0], static_argnums=0))(k, x)
    exp = export.export(jit(lambda d, x: lax.top_k(x, d.shape[1])[0]))(sds((0, k), np.int32), x)
    np.testing.assert_array_equal(exp.call(np.zeros((0, 3), np.int32), x), np.sort(x, 1)[:, ::-1][:, :3])
    with pytest.raises(
        ValueError,
        match=r"symbolic shape constraint k <= 10\. Expected '- k \+ 10' to be greater or equal to 0, but found -1",
    ):  # an explicit constraint, checked at the call
        exp.call(np.zeros((0, 11), np.int32), x)


EXPORTS = json.loads((REF / "exports.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_jnp_functions_exported_as_jax(jax_on_engine, name):
    """jnp/lax functions exported with symbolic shapes and called: JAX's result types and values,
    or JAX's error class."""
    import engine.numpy as jnp
    from engine import export, lax

    exports = _load("exports")
    got = exports.outcome(jax_on_engine, jnp, lax, export, name)
    want = EXPORTS[name]
    if name in exports.ERROR_DIFFERS:
        assert got[0] != "ok" and want[0] != "ok"
        return
    assert got[:2] == want[:2]
    for g, w in zip(got[2:3] and got[2], want[2:3] and want[2]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_serialized_polymorphic_export(jax_on_engine):
    """A polymorphic Exported round-trips through serialize/deserialize with its shapes, its
    constraints (one new scope) and its VJP; a malformed symbolic dimension is refused."""
    import engine.numpy as jnp
    from engine import export

    a, b = symbolic_shape("a, b", constraints=("a >= b",))
    f = jax_on_engine.jit(lambda x: jnp.reshape(x[: x.shape[1]], (-1,)) * x.shape[0])
    exp = export.export(f)(jax_on_engine.ShapeDtypeStruct((a, b), np.float32))
    back = export.deserialize(exp.serialize(vjp_order=1))
    assert str(back.in_avals[0].shape) == "(a, b)" and str(back.out_avals[0].shape) == "(b^2,)"
    assert back.in_avals[0].shape[0].scope is not a.scope
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(back.call(x), np.ravel(x[:3]) * 4)
    np.testing.assert_array_equal(
        jax_on_engine.grad(lambda x: back.call(x).sum())(x), [[4] * 3] * 3 + [[0] * 3]
    )
    with pytest.raises(
        ValueError, match=r"symbolic shape constraint a >= b\. Expected '- b \+ a' to be greater"
    ):  # the constraint came along
        back.call(np.ones((2, 3), np.float32))
    blob = bytes(exp.serialize()).replace(b'"dim":"b"', b'"dim":"b +"', 1)
    with pytest.raises(ValueError, match="malformed"):
        export.deserialize(blob)


@pytest.mark.parametrize("name", sorted(json.loads((REF / "programs_x64.json").read_text())))
def test_programs_with_x64_as_jax(jax_on_engine, name):
    """With jax_enable_x64 a dimension's value is an int64, as JAX's default int."""
    import engine.numpy as jnp
    from engine import export

    expected = json.loads((REF / "programs_x64.json").read_text())[name]
    programs = _load("programs")
    src, spec, dtype, shape = programs.PROGRAMS[name]
    jax_on_engine.config.update("jax_enable_x64", True)
    try:
        f = eval(src, {"jax": jax_on_engine, "jnp": jnp, "np": np})
        sds = jax_on_engine.ShapeDtypeStruct(symbolic_shape(spec), np.dtype(dtype))
        assert str(jax_on_engine.make_jaxpr(f)(sds)) == expected["jaxpr"]
        outs = jax_on_engine.tree.leaves(
            export.export(jax_on_engine.jit(f))(sds).call(programs.argument(shape, dtype))
        )
    finally:
        jax_on_engine.config.update("jax_enable_x64", False)
    assert [str(np.asarray(o).dtype) for o in outs] == expected["dtypes"]
    for got, want in zip(outs, expected["values"]):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def test_random_expressions_as_jax():
    """120 random expressions under random constraints: JAX's normal form, and JAX's answers (or
    InconclusiveDimensionOperation) for >=, == and <."""
    expected = json.loads((REF / "random_exprs.json").read_text())
    got = _load("random_exprs").results(symbolic_shape, dims)
    assert {k: v for k, v in got.items() if expected[k] != v} == {}
