"""Special values bit for bit (tests/jax_reference/snippets_special_values.py): every elementwise
operation on +-0, +-inf, signed NaNs, subnormals, the extremes and exp's overflow points, eagerly,
under jit and folded as constants, against JAX 0.10.2's raw bits (without x64: special_values.json;
with it: x64_reference.json's special_values/ entries). Where a bit cannot be matched honestly the
element is excluded below, by snippet and input, with the reason; nothing else is tolerated."""

from __future__ import annotations

import importlib
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import engine.numpy as jnp
from conftest import RECORDING_CPU
from engine import lax

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record import encode, run  # noqa: E402
from snippets_special_values import SPECIAL_VALUES  # noqa: E402

sys.path.remove(str(HERE))
RECORDED = json.loads((HERE / "special_values.json").read_text())
RECORDED_X64 = json.loads((HERE / "x64_reference.json").read_text())


def _is_nan(bits: np.ndarray, dtype: str) -> np.ndarray:
    if dtype in ("bool", "int32", "int64", "uint8"):
        return np.zeros(bits.shape, bool)
    width = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}[dtype]
    exp_bits = {"float16": 5, "bfloat16": 8, "float32": 8, "float64": 11}[dtype]
    u = bits.astype(np.uint64)
    exponent = (u >> np.uint64(width - 1 - exp_bits)) & np.uint64((1 << exp_bits) - 1)
    mantissa = u & np.uint64((1 << (width - 1 - exp_bits)) - 1)
    return (exponent == (1 << exp_bits) - 1) & (mantissa != 0)


# (snippet-name pattern, which elements, why): elements whose bits may differ from JAX's. "nan": the
# result is a NaN in both, with another sign or payload.
EXCLUDED: list[tuple[str, str, str]] = []


def _excluded(name: str, x64: bool) -> list[tuple[str, str]]:
    return [(which, why) for pattern, which, why in EXCLUDED if re.fullmatch(pattern, name)]


def _unpack(hex_bits: str, dtype: str) -> np.ndarray:
    size = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int32": 4, "int64": 8}.get(dtype, 1)
    return np.frombuffer(bytes.fromhex(hex_bits), f"<u{size}").astype(np.uint64)


def _plain(encoded):
    """A recorded Python value (a string, a bool, or a list of them) as itself."""
    return [v["py"] for v in encoded["list"]] if "list" in encoded else encoded["py"]


def differences(got, want, name, x64=False):
    """The indices of elements whose bits differ, less the excluded ones; and a readable summary."""
    (gbits, gdtype, gweak), (wbits, wdtype, wweak) = got["list"], want["list"]
    problems = []
    if (gdtype, gweak) != (wdtype, wweak):
        problems.append(
            f"dtype/weak_type {_plain(gdtype)}/{_plain(gweak)}, JAX {_plain(wdtype)}/{_plain(wweak)}"
        )
    dtype = _plain(wdtype)
    dtype = dtype[0] if isinstance(dtype, list) else dtype
    g, w = _unpack(gbits["py"], dtype), _unpack(wbits["py"], dtype)
    if g.shape != w.shape:
        return [f"shape {g.shape}, JAX {w.shape}"]
    bad = g != w
    for which, _why in _excluded(name, x64):
        if which == "nan":
            bad &= ~(_is_nan(g, dtype) & _is_nan(w, dtype))
    idx = np.nonzero(bad.ravel())[0]
    if idx.size:
        problems.append(
            f"{idx.size} of {g.size} elements differ at {idx[:8].tolist()}: "
            f"got {[hex(v) for v in g.ravel()[idx[:8]]]}, JAX {[hex(v) for v in w.ravel()[idx[:8]]]}"
        )
    return problems


# What is left (measured when this test was written; each entry an xfail that must keep failing):
# snippet -> the kinds of difference. "nan": a NaN in both whose sign or payload differs (the folder's
# NaNs, max/min a NaN of the signs' and/or, float16 NaNs; asinh's, erfc's and erf_inv's NaN for a NaN
# input varies with the array's size and the element's position in JAX itself); "zero": a zero of
# the other sign (XLA's max/min order +0 above -0); "value": another number (erfc, float64 functions that are
# numpy's rather than XLA's, float16/bfloat16 rounding, folded constants, NaN where JAX gives a
# number or the reverse); "dtype": another dtype or weak type.
LEFT = {
    "acosh_bfloat16_const": "nan+value",
    "acosh_bfloat16_eager": "nan+value",
    "acosh_bfloat16_jit": "nan+value",
    "acosh_float16_const": "value",
    "acosh_float16_eager": "nan+value",
    "acosh_float16_jit": "nan+value",
    "acosh_float32_const": "nan",
    "acosh_float64_const": "nan",
    "add_bfloat16_const": "nan",
    "add_float16_const": "nan",
    "add_float16_eager": "nan",
    "add_float16_jit": "nan",
    "add_float32_const": "nan",
    "add_float64_const": "nan",
    "add_zero_bfloat16_jit": "value+zero",
    "asinh_bfloat16_const": "nan+value",
    "asinh_bfloat16_eager": "value",
    "asinh_bfloat16_jit": "value",
    "asinh_float16_const": "value",
    "asinh_float16_eager": "value",
    "asinh_float16_jit": "value",
    "asinh_float32_const": "nan+value",
    "asinh_float32_eager": "nan",
    "asinh_float32_jit": "nan",
    "asinh_float64_const": "nan+value",
    "asinh_float64_eager": "nan",
    "asinh_float64_jit": "nan",
    "atan2_float32_const": "value",
    "atanh_bfloat16_const": "nan+value",
    "atanh_bfloat16_eager": "nan+value",
    "atanh_bfloat16_jit": "nan+value",
    "atanh_float16_const": "nan+value",
    "atanh_float16_eager": "nan+value",
    "atanh_float16_jit": "nan+value",
    "atanh_float32_const": "nan",
    "atanh_float64_const": "nan",
    "cbrt_float32_const": "value",
    "clip_bfloat16_const": "value",
    "digamma_bfloat16_const": "nan+value",
    "digamma_float16_const": "nan",
    "digamma_float32_const": "nan+value",
    "digamma_float64_const": "nan",
    "div_bfloat16_const": "nan",
    "div_float16_const": "nan",
    "div_float32_const": "nan",
    "div_float64_const": "nan",
    "erf_bfloat16_const": "value",
    "erf_float32_const": "value",
    "erf_float64_const": "value",
    "erf_inv_bfloat16_eager": "nan",
    "erf_inv_bfloat16_jit": "nan",
    "erf_inv_float16_const": "nan",
    "erf_inv_float32_const": "nan",
    "erf_inv_float64_const": "nan",
    "erf_inv_python_scalar": "nan",
    "erfc_python_scalar": "nan",
    "expm1_float16_eager": "value",
    "expm1_float16_jit": "value",
    "floor_divide_float16_const": "value",
    "floor_divide_float32_const": "nan+value",
    "floor_divide_float64_const": "nan",
    "fmax_bfloat16_const": "value",
    "fmod_bfloat16_const": "nan+value",
    "grad_abs_float32_eager": "value",
    "grad_cbrt_float32_const": "value",
    "grad_hypot_float32_const": "nan",
    "grad_hypot_float64_const": "nan",
    "grad_ipow_2_float32_eager": "value",
    "grad_log_float32_eager": "value",
    "grad_logsumexp_pair_float32_const": "nan",
    "grad_logsumexp_pair_float64_const": "nan",
    "grad_norm_float32_const": "nan",
    "grad_norm_float32_eager": "value",
    "grad_norm_float64_const": "nan",
    "grad_pow_half_float32_const": "value",
    "grad_relu_float32_eager": "value",
    "grad_relu_float64_const": "value",
    "grad_sqrt_float32_eager": "value",
    "grad_tanh_float32_const": "nan",
    "grad_tanh_float64_const": "nan",
    "grad_where_float32_eager": "value",
    "grad_where_sqrt_float32_eager": "value",
    "hypot_bfloat16_const": "value",
    "lgamma_bfloat16_const": "nan+value",
    "lgamma_float16_const": "value",
    "log10_bfloat16_const": "nan+value",
    "log10_float16_eager": "nan",
    "log10_float16_jit": "nan",
    "log10_float32_const": "value",
    "log1p_bfloat16_const": "nan+value",
    "log1p_float32_const": "value",
    "log2_bfloat16_const": "nan+value",
    "log2_float16_eager": "nan",
    "log2_float16_jit": "nan",
    "log2_float32_const": "value",
    "log2_float64_const": "value",
    "log2_python_scalar": "nan+value",
    "log_bfloat16_const": "nan+value",
    "log_float32_const": "value",
    "logaddexp_bfloat16_const": "nan",
    "logaddexp_float16_const": "nan",
    "logaddexp_float16_eager": "nan",
    "logaddexp_float16_jit": "nan",
    "logistic_bfloat16_const": "value",
    "max_float16_eager": "nan",
    "max_float16_jit": "nan",
    "min_float16_eager": "nan",
    "min_float16_jit": "nan",
    "mod_bfloat16_const": "nan+value",
    "mul_bfloat16_const": "nan",
    "mul_float16_const": "nan",
    "mul_float16_eager": "nan",
    "mul_float16_jit": "nan",
    "mul_float32_const": "nan",
    "mul_float64_const": "nan",
    "mul_one_bfloat16_jit": "value",
    "nextafter_bfloat16_eager": "value+zero",
    "nextafter_bfloat16_jit": "value+zero",
    "nextafter_float16_const": "zero",
    "nextafter_float16_eager": "zero",
    "nextafter_float16_jit": "zero",
    "nextafter_float32_const": "nan+value+zero",
    "nextafter_float32_eager": "nan",
    "nextafter_float32_jit": "nan",
    "nextafter_float64_const": "nan",
    "nextafter_float64_eager": "nan",
    "nextafter_float64_jit": "nan",
    "pow_bfloat16_const": "value",
    "pow_float32_const": "value",
    "pow_half_bfloat16_jit": "nan+value",
    "pow_half_float16_jit": "nan",
    "pow_half_float32_jit": "nan+value",
    "pow_half_float64_jit": "nan",
    "sigmoid_bfloat16_const": "value",
    "sign_bfloat16_const": "value",
    "sign_float32_const": "value",
    "sinh_float32_const": "value",
    "sinh_float64_const": "value",
    "sqrt_bfloat16_const": "value",
    "square_bfloat16_const": "nan",
    "sub_bfloat16_const": "nan",
    "sub_float16_const": "nan",
    "sub_float32_const": "nan",
    "sub_float64_const": "nan",
    "sub_zero_bfloat16_jit": "value",
    "sub_zero_float32_jit": "value, interpreted tier only",
    "tanh_float32_const": "nan",
    "tanh_float64_const": "nan",
}

LEFT_X64 = {
    "acos_float64_const": "nan+value",
    "acos_float64_eager": "nan+value",
    "acos_float64_jit": "nan+value",
    "acos_python_scalar": "nan",
    "acosh_float64_const": "value",
    "acosh_float64_eager": "value",
    "acosh_float64_jit": "value, interpreted tier only",
    "acosh_python_scalar": "value",
    "add_float64_const": "nan",
    "asin_float64_const": "value",
    "asin_float64_eager": "value",
    "asin_float64_jit": "value",
    "asinh_float64_const": "nan+value",
    "asinh_float64_eager": "value",
    "asinh_float64_jit": "value",
    "asinh_python_scalar": "value",
    "atan2_float64_eager": "nan+value",
    "atan2_float64_jit": "nan+value, interpreted tier only",
    "atan_float64_const": "value, compiled kernels only",
    "atan_float64_eager": "value",
    "atan_float64_jit": "value",
    "atanh_float64_const": "nan+value",
    "atanh_float64_eager": "nan+value",
    "atanh_float64_jit": "nan+value",
    "atanh_python_scalar": "nan+value",
    "cbrt_float64_eager": "value",
    "cbrt_float64_jit": "value",
    "cbrt_python_scalar": "value",
    "cosh_float64_const": "value",
    "digamma_float64_const": "nan+value",
    "digamma_float64_eager": "value",
    "digamma_float64_jit": "value",
    "digamma_python_scalar": "value",
    "div_float64_const": "nan",
    "erf_inv_float64_const": "nan+value",
    "erf_inv_float64_eager": "nan+value",
    "erf_inv_float64_jit": "nan+value",
    "erf_inv_python_scalar": "nan+value",
    "erfc_float64_const": "nan+value",
    "erfc_python_scalar": "nan",
    "exp2_float64_const": "value",
    "exp2_float64_eager": "value",
    "exp2_float64_jit": "value",
    "exp2_python_scalar": "value",
    "exp_float64_const": "value",
    "expm1_float64_eager": "value",
    "expm1_float64_jit": "value",
    "expm1_python_scalar": "value",
    "floor_divide_float64_const": "nan+value",
    "grad_abs_float64_eager": "value",
    "grad_cbrt_float64_eager": "value",
    "grad_cbrt_float64_jit": "value",
    "grad_exp_float64_const": "value",
    "grad_hypot_float64_const": "nan",
    "grad_ipow_2_float64_eager": "value",
    "grad_log_float64_eager": "value",
    "grad_logsumexp_pair_float64_const": "nan",
    "grad_norm_float64_const": "nan",
    "grad_norm_float64_eager": "value",
    "grad_pow_half_float64_eager": "value",
    "grad_pow_half_float64_jit": "value, interpreted tier only",
    "grad_relu_float64_eager": "value",
    "grad_sqrt_float64_eager": "value",
    "grad_tanh_float64_eager": "nan+value",
    "grad_tanh_float64_jit": "nan+value",
    "grad_where_float64_eager": "value",
    "grad_where_sqrt_float64_eager": "value",
    "hypot_float64_eager": "value",
    "hypot_float64_jit": "value, interpreted tier only",
    "lgamma_float64_const": "value",
    "lgamma_float64_eager": "value",
    "lgamma_float64_jit": "value",
    "lgamma_python_scalar": "value",
    "log10_float64_const": "nan+value",
    "log10_float64_eager": "nan",
    "log10_float64_jit": "nan, interpreted tier only",
    "log10_python_scalar": "nan",
    "log1p_float64_eager": "nan",
    "log1p_float64_jit": "nan",
    "log1p_python_scalar": "nan",
    "log2_float64_const": "nan+value",
    "log2_float64_eager": "nan",
    "log2_float64_jit": "nan, interpreted tier only",
    "log2_python_scalar": "nan+value",
    "log_float64_const": "nan+value",
    "log_float64_eager": "nan",
    "log_float64_jit": "nan, interpreted tier only",
    "log_python_scalar": "nan",
    "logaddexp_float64_eager": "value",
    "logaddexp_float64_jit": "value",
    "mul_float64_const": "nan",
    "nextafter_float64_const": "nan+value+zero",
    "nextafter_float64_eager": "nan",
    "nextafter_float64_jit": "nan",
    "pow_float64_const": "value",
    "pow_float64_eager": "nan+value+zero",
    "pow_float64_jit": "nan+value+zero, interpreted tier only",
    "pow_half_float64_eager": "value+zero",
    "pow_half_float64_jit": "nan+value+zero, interpreted tier only",
    "sign_float64_const": "value",
    "sinh_float64_const": "value",
    "sinh_float64_eager": "value",
    "sinh_float64_jit": "value",
    "sinh_python_scalar": "value",
    "softplus_float64_eager": "value",
    "softplus_float64_jit": "value",
    "softplus_python_scalar": "value",
    "sub_float64_const": "nan",
    "sub_zero_float64_jit": "value, interpreted tier only",
    "tan_float64_jit": "value, interpreted tier only",
    "tanh_float64_const": "value",
    "tanh_float64_eager": "nan+value",
    "tanh_float64_jit": "nan+value",
    "tanh_python_scalar": "nan+value",
}


# Eager operations run in IEEE mode, not XLA's DAZ/FTZ: setting the mode around each one cost ~1.5 us,
# twice what an eager x + y costs (jit's programs, interpreted or compiled, run in XLA's mode). So an
# eager operation keeps subnormal operands and results where JAX reads and writes them as zeros.
_EAGER_IEEE = "value: eager operations keep subnormals (IEEE mode)"
LEFT.update(
    dict.fromkeys(
        [
            "sqrt_float32_eager",
            "sign_float32_eager",
            "floor_float32_eager",
            "ceil_float32_eager",
            "reciprocal_float32_eager",
            "ipow_m1_float32_eager",
            "add_zero_float32_eager",
            "sub_zero_float32_eager",
            "mul_one_float32_eager",
            "div_two_float32_eager",
            "relu_float32_eager",
            "clip_float32_eager",
            "add_float32_eager",
            "sub_float32_eager",
            "mul_float32_eager",
            "div_float32_eager",
            "rem_float32_eager",
            "max_float32_eager",
            "min_float32_eager",
            "mod_float32_eager",
            "fmod_float32_eager",
            "floor_divide_float32_eager",
            "logaddexp_float32_eager",
            "fmax_float32_eager",
            "eq_float32_eager",
            "lt_float32_eager",
            "ge_float32_eager",
            "grad_maximum0_float32_eager",
            "grad_minimum0_float32_eager",
            "logistic_bfloat16_eager",
            "sqrt_bfloat16_eager",
            "sign_bfloat16_eager",
            "floor_bfloat16_eager",
            "ceil_bfloat16_eager",
            "reciprocal_bfloat16_eager",
            "ipow_m1_bfloat16_eager",
            "add_zero_bfloat16_eager",
            "sub_zero_bfloat16_eager",
            "mul_one_bfloat16_eager",
            "div_two_bfloat16_eager",
            "relu_bfloat16_eager",
            "sigmoid_bfloat16_eager",
            "clip_bfloat16_eager",
            "add_bfloat16_eager",
            "sub_bfloat16_eager",
            "mul_bfloat16_eager",
            "div_bfloat16_eager",
            "rem_bfloat16_eager",
            "max_bfloat16_eager",
            "min_bfloat16_eager",
            "mod_bfloat16_eager",
            "fmod_bfloat16_eager",
            "floor_divide_bfloat16_eager",
            "hypot_bfloat16_eager",
            "logaddexp_bfloat16_eager",
            "fmax_bfloat16_eager",
            "eq_bfloat16_eager",
            "lt_bfloat16_eager",
            "ge_bfloat16_eager",
            "sqrt_python_scalar",
            "sign_python_scalar",
            "floor_python_scalar",
            "ceil_python_scalar",
            "reciprocal_python_scalar",
            "ipow_m1_python_scalar",
            "relu_python_scalar",
            "clip_python_scalar",
        ],
        _EAGER_IEEE,
    )
)
LEFT_X64.update(
    dict.fromkeys(
        [
            "sqrt_float64_eager",
            "sign_float64_eager",
            "floor_float64_eager",
            "ceil_float64_eager",
            "erf_float64_eager",
            "reciprocal_float64_eager",
            "ipow_m1_float64_eager",
            "add_zero_float64_eager",
            "sub_zero_float64_eager",
            "mul_one_float64_eager",
            "div_two_float64_eager",
            "relu_float64_eager",
            "clip_float64_eager",
            "add_float64_eager",
            "sub_float64_eager",
            "mul_float64_eager",
            "div_float64_eager",
            "rem_float64_eager",
            "max_float64_eager",
            "min_float64_eager",
            "mod_float64_eager",
            "fmod_float64_eager",
            "floor_divide_float64_eager",
            "fmax_float64_eager",
            "eq_float64_eager",
            "lt_float64_eager",
            "ge_float64_eager",
            "grad_maximum0_float64_eager",
            "grad_minimum0_float64_eager",
        ],
        _EAGER_IEEE,
    )
)


def _namespace(jax):
    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np, "jsp": importlib.import_module("jax.scipy")}


def _params(cases, left):
    for name, code in cases:
        # (strict: a snippet that comes to match fails until it is taken off the list; one that
        # differs on one jit tier only is not, as which tier runs a first call depends on timing)
        # (strict only on the CPU kind the list was measured on: elsewhere numpy's float64 functions
        # are the C library's, and some listed differences are not there)
        strict = "only" not in left.get(name, "") and RECORDING_CPU
        marks = [pytest.mark.xfail(reason=f"left: {left[name]}", strict=strict)] if name in left else []
        yield pytest.param(name, code, id=name, marks=marks)


@pytest.mark.parametrize("name,code", list(_params(SPECIAL_VALUES, LEFT)))
def test_special_values(name, code, jax_on_engine):
    got = encode(run(code, _namespace(jax_on_engine)))
    assert not differences(got, RECORDED[name]["value"], name)


_X64 = [(n, c) for n, c in SPECIAL_VALUES if "float64" in n or "python_scalar" in n]


@pytest.mark.parametrize("name,code", list(_params(_X64, LEFT_X64)))
def test_special_values_x64(name, code, jax_on_engine):
    with jax_on_engine.enable_x64(True):
        got = encode(run(code, _namespace(jax_on_engine)))
    assert not differences(got, RECORDED_X64[f"special_values/{name}"]["value"], name, x64=True)
