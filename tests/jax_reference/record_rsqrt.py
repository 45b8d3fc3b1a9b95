"""Record JAX 0.10.2's ``rsqrt`` (float32, float64, float16, bfloat16) on inputs spread over every
bit pattern plus special values, and jitted programs whose divisions by a root XLA rewrites to
``rsqrt`` (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_rsqrt.py

``tests/test_rsqrt.py`` checks the engine gives these bits (``engine/lax/xla_rsqrt.py``).

``record_rsqrt.py estimates`` (with the engine's venv, on an x86 CPU with AVX-512) measures the
CPU's ``rsqrtss`` and ``vrsqrt14sd`` over one period of their tables and prints the packed tables
``engine/lax/xla_rsqrt.py`` holds.
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys
import textwrap
import zlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def pack(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    specials32 = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, 4.0, 0.25, 2.0, -1.0, -4.0], np.float32)
    odd32 = np.array(
        [1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7FC00000, 0xFFC00000]
        + [0x7F800001, 0xFF800123, 0x7FC12345, 0xFFD00001],
        np.uint32,
    ).view(np.float32)  # (denormals, extremes, NaNs of both signs with payloads, signalling ones)
    spread32 = np.arange(0, 2**32, 2**32 // 6000 + 3, dtype=np.uint64).astype(np.uint32).view(np.float32)
    f32 = np.concatenate([specials32, odd32, spread32, rng.uniform(0, 100, 2000).astype(np.float32)])
    spread64 = rng.integers(0, 2**63, 3000, dtype=np.uint64) | (
        rng.integers(0, 2, 3000, dtype=np.uint64) << 63
    )
    odd64 = np.array([1, 0x000FFFFFFFFFFFFF, 0x7FF0000000000001, 0xFFF8000000000123], np.uint64)
    f64 = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, 1.0, 2.0, -3.0]), odd64.view(np.float64),
                          spread64.view(np.float64), rng.uniform(0, 100, 1000)])  # fmt: skip
    narrow = np.concatenate([specials32, rng.uniform(0, 100, 500).astype(np.float32), spread32[::10]])
    x = rng.standard_normal((16, 32)).astype(np.float32)
    return {"f32": f32, "f64": f64, "narrow": narrow, "x": x}


# jitted programs (of ``x``, float32 16x32): each divides by a root, which XLA turns into rsqrt/sqrt
PROGRAMS = {
    "div_sqrt": "lambda x: x / jnp.sqrt(x * x + 1e-5)",
    "div_sqrt_shared": "lambda x: x / jnp.sqrt(x * x + 1e-5) + jnp.sqrt(x * x + 1e-5)",
    "div_broadcast_sqrt": "lambda x: x / jnp.sqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-5)",
    "div_rsqrt": "lambda x: x / lax.rsqrt(x * x + 1e-5)",
    "one_over_sqrt": "lambda x: 1.0 / jnp.sqrt(x * x + 1e-5)",
    "layer_norm": "lambda x: (x - x.mean(-1, keepdims=True))"
    " / jnp.sqrt(((x - x.mean(-1, keepdims=True)) ** 2).mean(-1, keepdims=True) + 1e-5)",
    "standardize": "lambda x: jax.nn.standardize(x, axis=-1)",
    # (the gradient reuses the root: XLA rewrites only a root with one user, so this one divides)
    "grad_div_sqrt": "lambda x: jax.grad(lambda x: jnp.sum(jnp.sin(x / jnp.sqrt(x * x + 1e-5))))(x)",
}


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.10.2", jax.__version__
    xs = inputs()
    out = {"jax_version": jax.__version__, "inputs": {k: pack(v) for k, v in xs.items()}}
    out["f32"] = {"eager": pack(lax.rsqrt(xs["f32"])), "jit": pack(jax.jit(lax.rsqrt)(xs["f32"]))}
    out["float16"] = pack(lax.rsqrt(xs["narrow"].astype(np.float16)))
    out["bfloat16"] = pack(np.asarray(lax.rsqrt(jnp.asarray(xs["narrow"]).astype(jnp.bfloat16)), np.float32))
    namespace = {"jax": jax, "jnp": jnp, "lax": lax}
    out["programs"] = {k: pack(jax.jit(eval(src, namespace))(xs["x"])) for k, src in PROGRAMS.items()}
    jax.config.update("jax_enable_x64", True)
    out["f64"] = {"eager": pack(lax.rsqrt(xs["f64"])), "jit": pack(jax.jit(lax.rsqrt)(xs["f64"]))}
    x64 = xs["x"].astype(np.float64)
    out["programs64"] = {
        k: pack(jax.jit(eval(PROGRAMS[k], namespace))(x64))
        for k in ("div_sqrt", "div_rsqrt", "one_over_sqrt")
    }
    (HERE / "rsqrt.json").write_text(json.dumps(out) + "\n")


def estimates() -> None:
    """The packed tables of ``engine/lax/xla_rsqrt.py``, from this CPU's instructions."""
    import numba as nb
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    def estimate(name, ftype, lanes, masked):
        @intrinsic
        def est(typingctx, x):
            def codegen(context, builder, sig, args):
                vec = ir.VectorType(ftype, lanes)
                args_t = [vec, vec, vec, ir.IntType(8)] if masked else [vec]
                fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec, args_t), name)
                v = builder.insert_element(ir.Constant(vec, None), args[0], ir.Constant(ir.IntType(32), 0))
                call = [v, v, ir.Constant(vec, None), ir.Constant(ir.IntType(8), -1)] if masked else [v]
                return builder.extract_element(builder.call(fn, call), ir.Constant(ir.IntType(32), 0))

            scalar = types.float32 if lanes == 4 else types.float64
            return scalar(scalar), codegen

        @nb.njit
        def run(x):
            out = np.empty_like(x)
            for i in range(x.size):
                out[i] = est(x[i])
            return out

        return run

    m32 = np.arange(1 << 12, dtype=np.uint32) << np.uint32(11)
    x32 = np.concatenate([(np.uint32(127) << 23) | m32, (np.uint32(128) << 23) | m32]).view(np.float32)
    t32 = estimate("llvm.x86.sse.rsqrt.ss", ir.FloatType(), 4, False)(x32).view(np.uint32).astype(np.int64)
    m64 = np.arange(1 << 15, dtype=np.uint64) << np.uint64(37)
    top = [np.uint64(e) << np.uint64(52) for e in (1023, 1024)]
    x64 = np.concatenate([top[0] | m64, top[1] | m64]).view(np.float64)
    t64 = estimate("llvm.x86.avx512.rsqrt14.sd", ir.DoubleType(), 2, True)(x64).view(np.uint64)
    assert not (t64 & np.uint64((1 << 36) - 1)).any()
    for name, t in (("_T32", t32), ("_T64", (t64 >> np.uint64(36)).astype(np.int64))):
        packed = base64.b64encode(zlib.compress(np.diff(t, prepend=0).astype(np.int32).tobytes(), 9)).decode()
        print(f"{name} = (\n" + "\n".join(f'    "{c}"' for c in textwrap.wrap(packed, 96)) + "\n)")


if __name__ == "__main__":
    estimates() if sys.argv[1:] == ["estimates"] else main()
