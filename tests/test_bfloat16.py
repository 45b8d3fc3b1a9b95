"""bfloat16 and the other ml_dtypes types (float8_*, int4/uint4) against JAX 0.10.2, bit for bit:
the snippets of tests/jax_reference/record_bfloat16.py replayed on the engine and compared with
the answers JAX gave (tests/jax_reference/bfloat16.json): arithmetic, promotion, reductions,
matmul, casts, creation, AD, vmap and jit, jaxprs and reprs."""

from __future__ import annotations

import json
import pathlib
import re
import sys

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine import lax

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record_bfloat16 import JAXPRS, REPRS, SNIPPETS, encode, run  # noqa: E402

sys.path.remove(str(HERE))
RECORDED = json.loads((HERE / "bfloat16.json").read_text())
NS = {"jax": engine, "jnp": jnp, "lax": lax, "np": np}


# Snippets whose float32 accumulation order is XLA's own (its vectorized loops): bits may differ
# by a few units in the last place (ulps of the result's dtype), never more.
_SUMMATION_ORDER = "XLA's float32 summation order differs from numpy's"
ULPS = {
    "reductions/norm": (1, _SUMMATION_ORDER + " (the sum of squares rounds to bfloat16 at a tie)"),
    # (ulps of the largest element: a dot's rounding errors scale with its terms, not its result)
    "matmul/preferred_f32": (2, _SUMMATION_ORDER + " (a float32 dot)"),
    # XLA reduces a bare bfloat16 lax.reduce_sum / cumsum in bfloat16 steps (jnp.sum converts to
    # float32 first, as its jaxpr shows); the engine accumulates in float32 and rounds once, so
    # its answer is the correctly rounded sum (test_bare_bfloat16_sum_is_the_rounded_exact_sum).
    "reductions/lax_reduce_sum": (4, "XLA's bfloat16 accumulation"),
    "reductions/cumsum": (1, "XLA's bfloat16 accumulation"),
}


def _values(rec: dict) -> np.ndarray:
    dtype = (
        np.dtype(getattr(jnp, rec["dtype"]).dtype) if hasattr(jnp, rec["dtype"]) else np.dtype(rec["dtype"])
    )
    uint = {1: np.uint8, 2: np.uint16, 4: np.uint32}[dtype.itemsize]
    return np.asarray(rec["bits"], uint).view(dtype).astype(np.float64)


def _compare(got: dict, want: dict, path: str, ulps: int = 0) -> None:
    if "seq" in want:
        assert "seq" in got and len(got["seq"]) == len(want["seq"]), f"{path}: got {got}"
        for i, (g, w) in enumerate(zip(got["seq"], want["seq"])):
            _compare(g, w, f"{path}[{i}]", ulps)
        return
    if "py" in want:
        assert got == want, f"{path}: got {got}, JAX gave {want}"
        return
    assert (got.get("dtype"), got.get("shape")) == (want["dtype"], want["shape"]), (
        f"{path}: got {got.get('dtype')}{got.get('shape')}, JAX gave {want['dtype']}{want['shape']}"
    )
    assert got["weak_type"] == want["weak_type"], (
        f"{path}: weak_type {got['weak_type']}, JAX's {want['weak_type']}"
    )
    if ulps:
        g, w = _values(got), _values(want)
        spacing = np.spacing(w.astype(getattr(jnp, want["dtype"]).dtype).astype(np.float32)).astype(
            np.float64
        )
        if want["dtype"] == "bfloat16":  # (float32's spacing times 2**16: bfloat16 keeps 8 of its 24 bits)
            spacing = spacing * 2**16
        if path.startswith("matmul/"):
            spacing = np.max(np.abs(spacing))
        assert np.all(np.abs(g - w) <= ulps * np.abs(spacing)), f"{path}: more than {ulps} ulps from JAX's"
        return
    g, w = np.asarray(got["bits"]), np.asarray(want["bits"])
    differ = np.nonzero(g != w)[0]
    assert not differ.size, f"{path}: {differ.size} elements differ from JAX's bits, first at {differ[:5]}"


def _unordered(message: str) -> str:
    """JAX names the dtypes that do not promote in its set's order (it varies from run to run)."""
    return re.sub(r"\(('[^)]*')\)", lambda m: str(sorted(m.group(1).split(", "))), message)


@pytest.mark.parametrize("topic,name,code", [(t, n, c) for t, cases in SNIPPETS.items() for n, c in cases])
def test_snippet_matches_jax_bit_for_bit(topic, name, code):
    want = RECORDED[f"{topic}/{name}"]
    if "error" in want:
        with pytest.raises(Exception) as info:
            run(code, NS)
        assert type(info.value).__name__ == want["error"]
        assert _unordered(str(info.value).split("\n")[0]) == _unordered(want["message"])
        return
    _compare(encode(run(code, NS)), want["value"], f"{topic}/{name}", ULPS.get(f"{topic}/{name}", (0,))[0])


@pytest.mark.parametrize("name,fn,args", JAXPRS)
def test_jaxpr_prints_as_jax(name, fn, args):
    assert (
        run(f"out = str(engine.make_jaxpr({fn})({args}))", {**NS, "engine": engine})
        == RECORDED[f"jaxpr/{name}"]["text"]
    )


@pytest.mark.parametrize("name,expr", REPRS)
def test_repr_as_jax(name, expr):
    got = run(f"out = {expr}", NS)
    want = RECORDED[f"repr/{name}"]["text"]
    assert (list(got) if isinstance(got, tuple) else got) == want


def test_jit_of_bfloat16_runs_on_the_interpreter_with_its_reason():
    """numba has no bfloat16: a program using it runs interpreted (rounded per operation, as XLA
    does), on every call, never in a kernel."""
    from engine import jit_runtime

    x = jnp.arange(4, dtype=jnp.bfloat16)
    f = engine.jit(lambda v: v * 3 + 1)
    for _ in range(3):
        out = f(x)
        assert jit_runtime._tier.last[0] == "interpreter"
    assert out.dtype == jnp.bfloat16
    closed = engine.make_jaxpr(lambda v: v * 3 + 1)(x)
    assert jit_runtime.uses_narrow_dtypes(closed.jaxpr)
    reasons = {getattr(e, "why_interpreted", None) for e in list(jit_runtime._executables.values())}
    assert any(r and "bfloat16" in r for r in reasons)


def test_narrow_impls_see_float32_and_round_once():
    """A primitive computes narrow operands in float32 and rounds its result once: bits equal
    numpy's float32 computation rounded to bfloat16, eagerly and under jit."""
    x32 = np.random.RandomState(1).randn(1000).astype(np.float32)
    xb = jnp.asarray(x32).astype(jnp.bfloat16)
    wide = np.asarray(xb).astype(np.float32)
    want = (np.exp(wide) * wide).astype(jnp.bfloat16.dtype)  # (the product of two rounded values)
    want = (np.exp(wide).astype(want.dtype).astype(np.float32) * wide).astype(want.dtype)
    for f in (lambda v: jnp.exp(v) * v, engine.jit(lambda v: jnp.exp(v) * v)):
        np.testing.assert_array_equal(np.asarray(f(xb)).view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_bare_narrow_sum_is_the_rounded_exact_sum(dtype):
    """(XLA adds these in the narrow type, in its own order: see README, Limits.)"""
    d = getattr(jnp, dtype).dtype
    x = np.random.RandomState(0).randn(257).astype(np.float32).astype(d)
    exact = np.sum(x.astype(np.float64))
    for got in (
        lax.reduce_sum(jnp.asarray(x), (0,)),
        jnp.sum(jnp.asarray(x)) if dtype != "bfloat16" else None,
    ):
        if got is not None:
            assert got.dtype == d
            want = np.asarray([exact], np.float32).astype(d)
            assert np.asarray(got).reshape(1).tobytes() == want.tobytes()


def test_a_bfloat16_result_reaches_the_page_through_the_server(tmp_path):
    """A sandboxed run (the server's engine runner) returning bfloat16 values from a jit: the API
    result carries the dtype and the values bfloat16 holds."""
    import httpx

    from server.launch import ServerProcess

    code = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def f(x):\n    return jnp.tanh(x.astype(jnp.bfloat16)) * 3 + jnp.bfloat16(0.1)\n"
    )
    settings = {"database_path": tmp_path / "s.sqlite", "workers": 1, "wall_seconds": 60}
    with ServerProcess(settings, log_path=str(tmp_path / "server.log")) as s:
        request = {"code": code, "function": "f", "stack": [{"name": "jit"}], "args": ["jnp.arange(4.0) / 3"]}
        report = httpx.post(s.base_url + "/api/run", json=request, timeout=120).json()
    assert report["ok"], report["error"]
    result = report["result"]
    x = (np.arange(4.0, dtype=np.float32) / 3).astype(jnp.bfloat16.dtype)
    want = np.asarray(engine.jit(lambda v: jnp.tanh(v) * 3 + jnp.bfloat16(0.1))(jnp.asarray(x)))
    assert result["dtype"] == "bfloat16" and result["shape"] == [4]
    assert result["data"] == [float(v) for v in want.astype(np.float32)]
    assert want.astype(np.float32)[1] != np.float32(np.tanh(np.float32(1 / 3)) * 3 + 0.1)  # (rounded)


@pytest.mark.parametrize("op", ["shift_right_logical", "shift_left", "population_count"])
def test_bit_width_operations_refuse_int4(op):
    """Computed in 8 bits, these would see other bits than a 4-bit integer has: refused, by name."""
    v = jnp.array([-8, 3], jnp.int4)
    args = (v,) if op == "population_count" else (v, jnp.array([1, 1], jnp.int4))
    with pytest.raises(TypeError, match=f"{op} does not accept dtype int4"):
        getattr(lax, op)(*args)
    with pytest.raises(TypeError, match=f"{op} does not accept dtype int4"):
        engine.jit(getattr(lax, op))(*args)
