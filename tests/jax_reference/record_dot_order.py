"""Record JAX 0.10.2's float32 matrix products (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_dot_order.py

XLA's CPU backend sums a dot in its own order (a reduce for vector . vector, its GEMV emitters for
matrix . vector and vector . matrix, YNNPACK's kernels for matrix . matrix), so float32 results
differ from a BLAS's in the last bits. ``tests/test_dot_order.py`` checks the engine gives these
bits, eagerly and under jit (JAX's are the same both ways), for the shapes ``engine/lax/dot_order``
follows.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import numpy as np

from record_xla_f32 import pack

# name -> (lhs shape, rhs shape, how): "dot" is jnp.dot, "matmul" the @ operator, an einsum
# spec, or "vmap" (jax.vmap(jnp.dot))
CASES = {
    **{f"vv{k}": ((k,), (k,), "dot") for k in (1, 3, 8, 30, 32, 33, 100, 129, 1000, 2000)},
    **{f"vv{k} (YNN sum)": ((k,), (k,), "dot") for k in (4095, 4096, 10000, 100000)},
    "mv4x3": ((4, 3), (3,), "dot"),
    "mv50x30": ((50, 30), (30,), "dot"),
    "mv8x8": ((8, 8), (8,), "matmul"),
    "mv9x100": ((9, 100), (100,), "dot"),
    "mv3x5000": ((3, 5000), (5000,), "dot"),
    "mv64x1000": ((64, 1000), (1000,), "dot"),
    "mv1x8": ((1, 8), (8,), "dot"),
    "mm8x100x1": ((8, 100), (100, 1), "matmul"),
    "vm30x50": ((30,), (30, 50), "dot"),
    "vm100x8": ((100,), (100, 8), "dot"),
    "mm1x100x8": ((1, 100), (100, 8), "matmul"),
    "mm2x3x4 (XLA's loop)": ((2, 3), (3, 4), "matmul"),
    "mm7x5x6 (XLA's loop)": ((7, 5), (5, 6), "dot"),
    "mm8x100x8 (tile_k 4)": ((8, 100), (100, 8), "dot"),
    "mm16x16x16 (tile_k 4)": ((16, 16), (16, 16), "matmul"),
    "mm10x300x10 (tile_k 4)": ((10, 300), (300, 10), "dot"),
    "mm300x7x5 (tile_k 4, k split)": ((300, 7), (7, 5), "dot"),
    "mm64x16x2 (tile_k 4)": ((64, 16), (16, 2), "dot"),
    "mm8x100x32 (tile_k 1)": ((8, 100), (100, 32), "matmul"),
    "mm3x4x50 (tile_k 1)": ((3, 4), (4, 50), "matmul"),
    "mm64x64x64 (tile_k 1)": ((64, 64), (64, 64), "matmul"),
    "mm64x100x32 (tile_k 2)": ((64, 100), (100, 32), "dot"),
    "mm100x100x100 (tile_k 4)": ((100, 100), (100, 100), "matmul"),
    "mm600x600x600 (tile_k 2, k chunks)": ((600, 600), (600, 600), "dot"),
    "mm1000x1000x1000 (k chunks)": ((1000, 1000), (1000, 1000), "matmul"),
    "mm512x784x512 (k chunks)": ((512, 784), (784, 512), "dot"),
    "mm3x1500x17 (short a, tile_k 1)": ((3, 1500), (1500, 17), "matmul"),
    "mm20x539x169 (short a, column bands)": ((20, 539), (539, 169), "dot"),
    "mm43x931x507 (short a, column bands)": ((43, 931), (931, 507), "matmul"),
    "mm14x290x381 (short a, column bands)": ((14, 290), (290, 381), "dot"),
    "mm2x756x348 (short a, column bands)": ((2, 756), (756, 348), "dot"),
    "mm8x7000x2 (short a, tile_k 4)": ((8, 7000), (7000, 2), "dot"),
    "mm30x2100x14 (short a, k chunks)": ((30, 2100), (2100, 14), "dot"),
    "mm100x3000x100 (tile_k 4, k chunks)": ((100, 3000), (3000, 100), "dot"),
    "mm51x1200x17 (tile_k 4, k chunks)": ((51, 1200), (1200, 17), "dot"),
    "mm64x4096x64 (tile_k 1, 8 chunks)": ((64, 4096), (4096, 64), "matmul"),
    "vm700x300": ((700,), (700, 300), "dot"),
    "mv300x3000": ((300, 3000), (3000,), "dot"),
    "einsum ij,j->i": ((20, 40), (40,), "ij,j->i"),
    "einsum bij,bjk->bik": ((4, 8, 16), (4, 16, 8), "bij,bjk->bik"),
    "einsum bij,bjk->bik wide": ((3, 20, 30), (3, 30, 40), "bij,bjk->bik"),
    "vmap dot": ((6, 20, 30), (6, 30), "vmap"),
    "einsum bk,bk->b": ((6, 100), (6, 100), "bk,bk->b"),
    "einsum bk,bk->b short": ((5, 20), (5, 20), "bk,bk->b"),
    "einsum bk,bk->b (YNN sum)": ((8, 1000), (8, 1000), "bk,bk->b"),
    "einsum bij,bjk->bik k chunks": ((2, 60, 700), (2, 700, 70), "bij,bjk->bik"),
    # short k: whether YNNPACK packs b decides the kernel (_ynn_dot)
    "mm16x4x2 (an MLP layer: b packed, tile_k 4)": ((16, 4), (4, 2), "matmul"),
    "mm24x3x8 (b packed, tile_k 4)": ((24, 3), (3, 8), "dot"),
    "mm50x2x16 (b as stored: fma chains)": ((50, 2), (2, 16), "matmul"),
    "mm9x5x9 (b as stored: fma chains)": ((9, 5), (5, 9), "dot"),
    "mm12x5x8 (AVX's kernel: rounded products)": ((12, 5), (5, 8), "dot"),
    "mm4x5x8 (AVX's kernel: rounded products)": ((4, 5), (5, 8), "matmul"),
    "mm25x2932x9 (a packed band of 12 columns: k chunks)": ((25, 2932), (2932, 9), "dot"),
    "einsum ik,jk->ij (b transposed: packed)": ((6, 13), (18, 13), "ik,jk->ij"),
    "einsum ik,jk->ij short a (b transposed)": ((2, 33), (20, 33), "ik,jk->ij"),
}


def operands(name):
    lhs, rhs, _ = CASES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    return rng.standard_normal(lhs).astype(np.float32), rng.standard_normal(rhs).astype(np.float32)


def function(jax, jnp, how):
    if how == "dot":
        return jnp.dot
    if how == "matmul":
        return lambda x, y: x @ y
    if how == "vmap":
        return jax.vmap(jnp.dot)
    return lambda x, y: jnp.einsum(how, x, y)


def record(out: np.ndarray) -> str:
    """The float32 bits (base64), or for more than 4096 values their sha256 (the file stays small)."""
    out = np.ascontiguousarray(out, np.float32).ravel()
    return pack(out) if out.size <= 4096 else digest(out)


def digest(out: np.ndarray) -> str:
    return "sha256:" + hashlib.sha256(np.ascontiguousarray(out, np.float32).tobytes()).hexdigest()


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    out = {"jax_version": jax.__version__}
    for name, (_, _, how) in CASES.items():
        x, y = operands(name)
        f = function(jax, jnp, how)
        out[f"eager {name}"] = record(np.asarray(f(jnp.asarray(x), jnp.asarray(y))))
        out[f"jit {name}"] = record(np.asarray(jax.jit(f)(x, y)))
    path = pathlib.Path(__file__).resolve().parent / "dot_order.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} results recorded to {path}")


if __name__ == "__main__":
    main()
