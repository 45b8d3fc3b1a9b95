"""Record JAX 0.10.2's bits for what the function-level sweep (tests/fidelity/sweep_ulp.py) found
differing in the last bits, eager and jitted: ``cumprod`` (XLA's blocked reduce-window scan),
``logaddexp2`` (eagerly one compiled program), ``scipy.special.i0`` / ``lax.bessel_i0e`` (the
float32 Chebyshev series JAX lowers it to; ``i1`` / ``bessel_i1e``: CHLO's), ``scipy.stats.t.logpdf``
(lgamma of constants folded while compiling), log-space gamma samples of a constant alpha
(``random.loggamma``/``beta``: the sampler's ``log(d)`` folded), ``prod`` along axes (XLA's windows
of 32, then in order or in vector lanes: sum_order.prod_f32), ``cumlogsumexp`` (the blocked
reduce-window scan of JAX's logaddexp, XLA's exp and log1p), ``frexp`` and or'ed class tests of
subnormals under jit (LLVM's is.fpclass: algebraic_class_tests) and the gradient of ``arctan2``
(``y / (x*x + y*y)``: LLVM fuses the product of the value its kernel loads first: operand_ranks),
``polygamma``/``zeta`` and digamma's gradient (CHLO's float32 Euler-Maclaurin sum). Run with JAX's venv:

    /work/main/.jax-venv/bin/python tests/jax_reference/record_ulp_fixes.py

``tests/test_ulp_fixes.py`` checks the engine gives these bits (no JAX needed).
"""

from __future__ import annotations

import base64
import json
import pathlib

import numpy as np

PATH = pathlib.Path(__file__).resolve().parent / "ulp_fixes.json"


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(5)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1e-39, 1.17549435e-38, 3.4e38, -3.4e38, 0.5, 1.0,
               -1.0, 2.0, 7.999999, 8.0, 8.000001, 50.0, 88.0, -88.0, 100.0]  # fmt: skip
    x = np.concatenate(
        [special, rng.uniform(-20, 20, 900), rng.uniform(-1, 1, 300), np.exp(rng.uniform(-80, 80, 700))]
    )
    return np.concatenate([x, rng.uniform(-9, 9, -x.size % 64)]).astype(np.float32)


def _above(low: float) -> np.ndarray:
    x = _inputs()
    return x[~(x <= low)]


def _matrix() -> np.ndarray:
    return (1 + 0.02 * np.random.default_rng(6).normal(size=(5, 300))).astype(np.float32)


def _lgamma_constants() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate([np.arange(0.5, 40, 0.5), rng.uniform(0.5, 30, 300)]).astype(np.float32)


_BOTH, _EAGER, _JIT = ("eager", "jit"), ("eager",), ("jit",)
# name -> (function of (jax, x), its input builder, the modes recorded: those that differed)
CASES = {
    "cumprod_axis1": (lambda jax, x: jax.numpy.cumprod(x, axis=1), _matrix, _BOTH),
    "cumprod_axis1_rev": (lambda jax, x: jax.lax.cumprod(x, axis=1, reverse=True), _matrix, _BOTH),
    "cumprod_flat": (lambda jax, x: jax.numpy.cumprod(x), lambda: _matrix()[:, :40], _BOTH),
    "nancumprod": (lambda jax, x: jax.numpy.nancumprod(x, axis=1), _matrix, _BOTH),
    "logaddexp2": (lambda jax, x: jax.numpy.logaddexp2(x, x[::-1] * 0.7), _inputs, _EAGER),
    "grad_logaddexp2": (  # (eagerly too its jit differentiated whole: the primal's multiply-add fused)
        lambda jax, x: jax.grad(lambda a, b: jax.numpy.sum(jax.numpy.logaddexp2(a, b)), (0, 1))(
            x, x[::-1] * 0.7
        ),
        _inputs,
        _EAGER,
    ),
    "i0": (lambda jax, x: jax.scipy.special.i0(x), _inputs, _BOTH),
    "bessel_i0e": (lambda jax, x: jax.lax.bessel_i0e(x), _inputs, _BOTH),
    "i0e": (lambda jax, x: jax.scipy.special.i0e(x), _inputs, _BOTH),
    "bessel_i1e": (lambda jax, x: jax.lax.bessel_i1e(x), _inputs, _BOTH),
    "i1e": (lambda jax, x: jax.scipy.special.i1e(x), _inputs, _BOTH),
    "i1": (lambda jax, x: jax.scipy.special.i1(x), _inputs, _BOTH),
    "t_logpdf_df3": (lambda jax, x: jax.scipy.stats.t.logpdf(x, 3.0), _inputs, _JIT),
    "t_logpdf_df2_5": (lambda jax, x: jax.scipy.stats.t.logpdf(x, 2.5, 0.5, 2.0), _inputs, _JIT),
    "lgamma_folded": (lambda jax, x: jax.jit(lambda: jax.lax.lgamma(x))(), _lgamma_constants, _EAGER),
    "loggamma_2": (lambda jax, x: jax.random.loggamma(jax.random.key(0), 2.0, (300,)), lambda: None, _JIT),
    "beta_a_2": (
        lambda jax, x: jax.random.beta(jax.random.key(0), x, 2.0),
        lambda: _lgamma_constants()[:80],
        _JIT,
    ),
    "beta_2_3": (lambda jax, x: jax.random.beta(jax.random.key(2), 2.0, 3.0, (300,)), lambda: None, _JIT),
    "prod_axis1": (lambda jax, x: jax.numpy.prod(x, axis=1), _matrix, _BOTH),
    "prod_lanes": (  # (sliced before the jit: a slice fused into XLA's loop keeps it scalar)
        lambda jax, x: jax.numpy.prod(x, axis=(1, 2)),
        lambda: _matrix()[:, :80].reshape(5, 16, 5).copy(),
        _BOTH,
    ),
    "frexp": (lambda jax, x: jax.numpy.frexp(x), _inputs, _JIT),
    "class_tests": (
        lambda jax, x: jax.numpy.stack([(x == 0) | jax.numpy.isnan(x), jax.numpy.isinf(x) | (x == 0)]),
        _inputs,
        _JIT,
    ),
    "grad_arctan2": (  # (two operands, both gradients: each kernel reads them in its own order)
        lambda jax, x: jax.grad(lambda a, b: jax.numpy.sum(jax.numpy.arctan2(a, b)), (0, 1))(*x),
        lambda: tuple((np.random.default_rng(4).normal(size=(2, 500)) * 3).astype(np.float32)),
        _BOTH,
    ),
    "cumlogsumexp": (lambda jax, x: jax.lax.cumlogsumexp(x.reshape(-1, 64), axis=1), _inputs, _BOTH),
    # polygamma / zeta: CHLO's Euler-Maclaurin decomposition (lax/xla_zeta.py); digamma's gradient
    # is polygamma(1.0, x), whose constant order XLA folds under jit. (x > -8: below, q + 10 < 2
    # and the series' values are meaningless, ~1e25; 9 of 3584 there differ by an ulp, not modelled)
    "grad_digamma": (
        lambda jax, x: jax.grad(lambda v: jax.numpy.sum(jax.scipy.special.digamma(v)))(x),
        lambda: _above(-8),
        _BOTH,
    ),
    "polygamma_3": (lambda jax, x: jax.scipy.special.polygamma(3, x), lambda: _above(-8), _EAGER),
    "polygamma_orders": (  # (an order per element: no broadcast, a true division)
        lambda jax, x: jax.lax.polygamma(*x),
        lambda: (np.arange(1600, dtype=np.float32) % 5, _above(-8)[:1600]),
        _BOTH,
    ),
    "zeta": (
        lambda jax, x: jax.scipy.special.zeta(*x),
        lambda: (np.float32(1) + np.abs(_inputs()[:1600]) % 7, np.abs(_inputs()[::-1][:1600])),
        _BOTH,
    ),
    "cumlogsumexp_rev": (
        lambda jax, x: jax.lax.cumlogsumexp(x.reshape(-1, 64), axis=1, reverse=True),
        _inputs,
        _BOTH,
    ),
}
RECORDED = [(name, mode) for name, (_, _, modes) in CASES.items() for mode in modes]


def pack(a) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float32).tobytes()).decode()


def unpack(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), np.float32)


def run(jax, name: str, mode: str) -> np.ndarray:
    """The case's output: eager (``mode == "eager"``) or jitted over its input (or inputs)."""
    f, build, _ = CASES[name]
    x = build()
    if x is None:
        g = (lambda: f(jax, None)) if mode == "eager" else jax.jit(lambda: f(jax, None))
        return np.asarray(g(), np.float32)
    args = x if isinstance(x, tuple) else (x,)  # (a tuple: the function's operands)

    def call(*v):
        return f(jax, v if isinstance(x, tuple) else v[0])

    g = call if mode == "eager" else jax.jit(call)
    return np.asarray(g(*args), np.float32)


def main() -> None:
    import jax
    import jax.scipy.special  # noqa: F401
    import jax.scipy.stats  # noqa: F401

    assert jax.__version__ == "0.10.2", jax.__version__
    out = {"jax_version": jax.__version__}
    for name, mode in RECORDED:
        out[f"{name}[{mode}]"] = pack(run(jax, name, mode))
    PATH.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} outputs recorded to {PATH}")


if __name__ == "__main__":
    main()
