"""The same program gives the same bits whatever ran before it in the process. A jitted program's
first call runs on the interpreter tier while numba compiles it in the background, later calls
(or calls after another program's compile landed) run the compiled kernel: the two tiers must
agree bit for bit, NaN signs included, or a result depends on what ran earlier.

Found: ``jax.grad(jnp.hypot)``'s eager gradient at +-inf, NaN, the largest finite values and the
smallest normal ones gave NaNs of other signs on its first call than after its compile landed:
its transpose adds a negation and negates a product, which LLVM folds (``a + (-b) => a - b``,
``-(x * y) => x * (-y)``) in the compiled kernels and in XLA, not in the interpreter tier
(``engine/backends/negated_sums`` writes the folds into the program both tiers run)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from conftest import numba_backend
from engine import jit_runtime, lax

nb_jit = numba_backend()
pytestmark = pytest.mark.usefixtures("test_kernel_cache")

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
_RECORDED = json.loads((HERE / "special_values.json").read_text())
_RECORDED_X64 = json.loads((HERE / "x64_reference.json").read_text())
# JAX 0.10.2's bits of the gradient below, by the inputs' dtype and x64 (snippets grad_hypot_*_eager)
HYPOT_GRAD = {
    ("float32", False): _RECORDED["grad_hypot_float32_eager"],
    ("float64", False): _RECORDED["grad_hypot_float64_eager"],  # (without x64: float32)
    ("float64", True): _RECORDED_X64["special_values/grad_hypot_float64_eager"],
}


def _specials(dtype: str) -> np.ndarray:
    """The snippets' inputs: +-0, +-inf, NaNs of both signs, subnormals, extremes, ordinary values."""
    fi = np.finfo(dtype)
    tiny, sub, top = float(fi.smallest_normal), float(fi.smallest_subnormal), float(fi.max)
    ln_max, ln_tiny, ln_sub = np.log(top), np.log(tiny), np.log(sub)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, sub, -sub, tiny - sub, -(tiny - sub), tiny, -tiny,
         top, -top, ln_max * 0.999, ln_max * 1.001, ln_tiny, ln_sub * 0.99, ln_sub * 1.01,
         1.0, -1.0, 0.5, -2.5, 2.0, 3.0, 0.1, -0.75, 10.0, 1e-3, 0.9999]  # fmt: skip
    a = np.array(v, np.float64).astype(dtype)
    bits = a.view(f"u{a.itemsize}").copy()
    sign = np.array([1], bits.dtype) << (8 * a.itemsize - 1)
    nan = np.array([np.nan], dtype).view(bits.dtype)[0] & ~sign[0]
    bits[4], bits[5] = nan, nan | sign[0]
    return bits.view(dtype)


def _in_tier(backend, f, *args) -> bytes:
    """``f``'s bits with every staged program run by ``backend`` (no tiers), from empty caches."""
    old = jit_runtime.TIERED
    jit_runtime.TIERED = False
    jit_runtime.set_backend(backend)
    engine.clear_caches()
    try:
        return np.asarray(f(*args)).tobytes()
    finally:
        jit_runtime.set_backend(None)
        jit_runtime.TIERED = old
        engine.clear_caches()


def _hypot_grad(x):
    return engine.grad(lambda x: jnp.sum(jnp.hypot(x, 0.0)))(x)


@pytest.mark.parametrize("dtype,x64", list(HYPOT_GRAD), ids=["float32", "float64", "float64_x64"])
def test_hypot_gradient_is_the_same_on_its_first_call_and_after_its_compile(dtype, x64):
    want = bytes.fromhex(HYPOT_GRAD[dtype, x64]["value"]["list"][0]["py"])
    with engine.enable_x64(x64):
        x = jnp.asarray(_specials(dtype))
        first = _in_tier(jit_runtime.Interpreter(), _hypot_grad, x)  # (as a first call runs it)
        warm = _in_tier(nb_jit.NumbaBackend(), _hypot_grad, x)  # (as a call after its compile runs it)
        assert first == warm == want
        # and in one process, in both orders: a first call, then one after the compile landed
        engine.clear_caches()
        cold = np.asarray(_hypot_grad(x)).tobytes()
        jit_runtime.wait_for_compiles()
        assert cold == np.asarray(_hypot_grad(x)).tobytes() == want


NAN = np.float32(np.nan)
_X = np.array([NAN, -NAN, 1, np.inf, -np.inf, 0], np.float32)
_Y = np.array([1, 2, -NAN, NAN, 3, -0.0], np.float32)


@pytest.mark.parametrize(
    "f",
    [
        lambda a, b: lax.add(a, lax.neg(b)),
        lambda a, b: lax.add(lax.neg(a), b),
        lambda a, b: lax.add(lax.neg(a), lax.neg(b)),
        lambda a, b: lax.sub(a, lax.neg(b)),
        lambda a, b: lax.sub(lax.neg(a), b),
        lambda a, b: lax.add(a, lax.neg(lax.neg(b))),
        lambda a, b: lax.add(a, lax.neg(b[0])),
        lambda a, b: lax.neg(lax.mul(a, b)),
        lambda a, b: lax.neg(lax.mul(lax.mul(a, b), b)),
        lambda a, b: lax.add(b, lax.select(a > 0, lax.full_like(b, 0.0), lax.neg(lax.mul(a, b)))),
    ],
    ids=["a+-b", "-a+b", "-a+-b", "a--b", "-a-b", "a+--b", "a+-b0", "-(ab)", "-(ab*b)", "b+where(-(ab))"],
)
def test_sums_of_negations_round_alike_in_both_tiers(f):
    g = lambda a, b: engine.jit(f)(a, b)
    assert _in_tier(jit_runtime.Interpreter(), g, _X, _Y) == _in_tier(nb_jit.NumbaBackend(), g, _X, _Y)
