"""The snippets in tests/jax_reference/snippets.py, replayed on the engine and compared with the
answers JAX 0.10.2 gave (recorded in tests/jax_reference/*.json by record.py): values, dtypes,
shapes and weak types, or the class of the error JAX raised."""

from __future__ import annotations

import json
import pathlib
import re
import sys

import numpy as np
import pytest

import engine
import engine.numpy as jnp
import engine.tree  # noqa: F401  (jax.tree)
from conftest import RECORDING_CPU
from engine import lax

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from snippets import SNIPPETS, WEAK_TYPE_DIFFERS  # noqa: E402
from snippets_linalg_f32 import OPENBLAS_CORE  # noqa: E402
from record import encode, run  # noqa: E402

sys.path.remove(str(HERE))


def _namespace(jax):
    import jax.scipy as jsp

    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "jsp": jsp}


def _other_kernels(topic: str, name: str) -> list:
    """A skip mark for the bit-exact LAPACK snippets when this machine's OpenBLAS kernels are not
    the ones JAX's values were recorded with (their sums round in another order; JAX's own results
    change with them: a singular float32 matrix's Cholesky pivot, a degenerate eigenbasis), and for
    the snippets whose bits depend on the CPU in XLA's compiled code too."""
    if (topic, name) in AVX512_BITS:
        return [
            pytest.mark.skipif(not RECORDING_CPU, reason="recorded on an AVX-512 CPU; JAX's bits differ here")
        ]
    if not (topic == "linalg_f32" or (topic == "fuzz6_linalg" and name.startswith("f32_"))):
        return []
    from engine.lax import lapack_openblas

    here = lapack_openblas.corename()
    reason = f"recorded with OpenBLAS's {OPENBLAS_CORE} kernels; this machine's are {here}"
    return [pytest.mark.skipif(here is not None and here != OPENBLAS_CORE, reason=reason)]


# Recorded on an AVX-512 CPU, and JAX's own bits differ on an AVX2 one (measured on an EPYC: 34 of
# 64 and 3,263 of 4,096 elements): XLA's compiled kernels are the CPU's.
AVX512_BITS = {("real_programs", "gelu_layer_gradients_jit")}


# Topics whose recorded bits a test of their own compares (with its narrow, explained exclusions).
COMPARED_ELSEWHERE = {
    "special_values": "tests/test_special_values.py",
    "control_flow_errors": "test_control_flow_errors_say_what_jax_says",
}


def _params():
    for topic, cases in SNIPPETS.items():
        if topic in COMPARED_ELSEWHERE:
            continue
        path = HERE / f"{topic}.json"
        recorded = json.loads(path.read_text()) if path.exists() else {}
        for name, code, *tol in cases:
            marks = _other_kernels(topic, name)
            rtol = tol[0] if tol else 1e-5
            yield pytest.param(
                code, recorded.get(name), rtol, name in WEAK_TYPE_DIFFERS, id=f"{topic}-{name}", marks=marks
            )


def _compare(got, want, rtol, weak_differs=False, path="out"):
    (kind,) = want.keys() if len(want) == 1 else ("array",)
    if kind in ("tuple", "list", "dict", "py", "opaque"):
        assert set(got) == set(want), f"{path}: got {got}, JAX gave {want}"
        if kind == "dict":
            assert set(got["dict"]) == set(want["dict"]), f"{path}: keys differ"
            for k in want["dict"]:
                _compare(got["dict"][k], want["dict"][k], rtol, weak_differs, f"{path}[{k!r}]")
        elif kind in ("tuple", "list"):
            assert len(got[kind]) == len(want[kind]), f"{path}: length differs"
            for i, (g, w) in enumerate(zip(got[kind], want[kind])):
                _compare(g, w, rtol, weak_differs, f"{path}[{i}]")
        else:
            assert got == want, f"{path}: got {got}, JAX gave {want}"
        return
    assert "dtype" in got, f"{path}: got {got}, JAX gave an array"
    assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), (
        f"{path}: got {got['dtype']}{got['shape']}, JAX gave {want['dtype']}{want['shape']}"
    )
    if not weak_differs:
        assert got["weak_type"] == want["weak_type"], (
            f"{path}: weak_type {got['weak_type']}, JAX {want['weak_type']}"
        )
    if "re" in want:
        g = np.asarray(got["re"]) + 1j * np.asarray(got["im"])
        w = np.asarray(want["re"]) + 1j * np.asarray(want["im"])
    elif want["dtype"].startswith("float") or want["dtype"].startswith("bfloat"):
        g = np.asarray([float(v) for v in got["values"]])
        w = np.asarray([float(v) for v in want["values"]])
    else:
        assert got["values"] == want["values"], f"{path}: got {got['values']}, JAX gave {want['values']}"
        return
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, equal_nan=True, err_msg=path)


@pytest.mark.parametrize("code,want,rtol,weak_differs", list(_params()))
def test_snippet_matches_jax(code, want, rtol, weak_differs, jax_on_engine):
    assert want is not None, "no recorded answer: run tests/jax_reference/record.py under JAX"
    if "error" in want:
        with pytest.raises(Exception) as info:
            run(code, _namespace(jax_on_engine))
        assert type(info.value).__name__ == want["error"], (
            f"JAX raised {want['error']}: {want['message']}; the engine raised "
            f"{type(info.value).__name__}: {info.value}"
        )
        return
    got = encode(run(code, _namespace(jax_on_engine)))
    if weak_differs:  # (the list stays exact: a listed snippet whose weak types now match fails)
        with pytest.raises(AssertionError, match="weak_type"):
            _compare(got, want["value"], rtol)
    _compare(got, want["value"], rtol, weak_differs)


def test_lax_dtype_and_shape_errors_read_like_jax(jax_on_engine):
    """lax's same-dtype errors say what JAX's say, tip to the promoting jnp function included; so
    does the first line of the error for a traced dimension in a shape."""
    recorded = json.loads((HERE / "lax_errors.json").read_text())
    checked = 0
    for name, code, *_ in SNIPPETS["lax_errors"]:
        want = recorded[name]
        if want.get("error") != "TypeError" or not re.search("same dtypes|^Shapes must", want["message"]):
            continue
        with pytest.raises(TypeError) as info:
            run(code, _namespace(jax_on_engine))
        assert str(info.value).split("\n")[0] == want["message"], name
        checked += 1
    assert checked >= 14


def test_argument_errors_say_what_jax_says(jax_on_engine):
    """The argument_errors snippets raise JAX's error with JAX's message, word for word (the
    general test compares classes)."""
    recorded = json.loads((HERE / "argument_errors.json").read_text())
    errors = [(name, code) for name, code, *_ in SNIPPETS["argument_errors"] if "error" in recorded[name]]
    for name, code in errors:
        with pytest.raises(Exception) as info:
            run(code, _namespace(jax_on_engine))
        assert str(info.value) == recorded[name]["message"], name
    assert len(errors) >= 18


@pytest.mark.parametrize(
    "name,code", [pytest.param(n, c, id=n) for n, c, *_ in SNIPPETS["control_flow_errors"]]
)
def test_control_flow_errors_say_what_jax_says(name, code, jax_on_engine):
    """A scan / while_loop / fori_loop carry, cond / switch branches, vmap's mapped sizes and a
    custom_jvp / custom_vjp rule's outputs that do not match: the error's class and whole message
    are JAX's (the snippets define their functions, so ``<string>:LINE`` is the same line)."""
    want = json.loads((HERE / "control_flow_errors.json").read_text())[name]
    assert encode(run(code, _namespace(jax_on_engine))) == want["value"]


@pytest.mark.parametrize(
    "topic",
    [
        "array_protocol",
        "transfer_guard",
        "transfer_guard_matrix",
        "stateful_rng",
        "config_flags",
        "broadcast_errors",
        "small_gaps",
        "ad_refusals",
        "api_misc",
        "general_reduce",
        "reduce_window_jvp",
        "ref_lifetimes",
        "committed",
        "array_methods",
        "int_tangents",
        "shape_rules",
    ],
)
def test_refusals_say_what_jax_says(topic, jax_on_engine):
    """The messages of __jax_array__'s refusals (jnp/lax functions, jit, grad, indexing), of
    transfer_guard's refused implicit transfers, of writes to a ref a vmap closes over and of shapes
    that do not broadcast are JAX's, word for word."""
    recorded = json.loads((HERE / f"{topic}.json").read_text())
    checked = 0
    for name, code, *_ in SNIPPETS[topic]:
        want = recorded[name]
        if "error" not in want:
            continue
        with pytest.raises(Exception) as info:
            run(code, _namespace(jax_on_engine))
        assert str(info.value).split("\n")[0] == want["message"], name
        checked += 1
    assert checked >= 3


def test_broadcast_in_dim_shape_errors_read_like_jax(jax_on_engine):
    """broadcast_in_dim's shape rule refuses what JAX's refuses, in its order and words (dimensions
    that do not increase are accepted), and a transpose of unordered dimensions fails as JAX's."""
    recorded = json.loads((HERE / "lax_more.json").read_text())
    names = [n for n, *_ in SNIPPETS["lax_more"] if n.startswith("err_broadcast_in_dim")]
    for name in names:
        code = next(c for n, c, *_ in SNIPPETS["lax_more"] if n == name)
        with pytest.raises(Exception) as info:
            run(code, _namespace(jax_on_engine))
        want = recorded[name]
        assert (type(info.value).__name__, str(info.value).split("\n")[0]) == (
            want["error"],
            want["message"],
        ), name
    assert len(names) == 8
