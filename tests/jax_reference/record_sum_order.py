"""Record JAX 0.10.2's float32 sums of arrays under 4096 elements (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_sum_order.py

XLA adds them in its own order (windows of 32, then a loop LLVM may vectorize), which
``tests/test_sum_order.py`` checks the engine reproduces bit for bit (engine/lax/sum_order.py).
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from record_xla_f32 import pack


def cases():
    """(shape, axes) pairs: 1-d sizes around the window, single axes, and multi-axis sums whose last
    loop LLVM vectorizes (2 to 8 columns) or not; random shapes and axis sets."""
    out = [((n,), (0,)) for n in (1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 1000, 1025, 2047, 4095)]
    out += [((40, 50), (1,)), ((40, 50), (0,)), ((40, 50), (0, 1)), ((3, 1000), (1,)), ((1000, 3), (0,))]
    out += [((r, c), (0, 1)) for r, c in ((2, 2), (4, 4), (8, 8), (16, 4), (4, 16), (5, 7), (20, 5))]
    out += [((r, c), (0, 1)) for r, c in ((29, 2), (29, 3), (19, 7), (12, 5), (200, 10), (10, 200), (7, 40))]
    out += [((3, 4, 5), (0, 1, 2)), ((8, 10, 4), (0, 2)), ((10, 8, 4), (1, 2)), ((6, 15, 2, 4), (0, 2, 3))]
    out += [
        ((2, 2, 3), (0, 1)),
        ((4, 1, 7), (0, 1, 2)),
        ((100, 5, 3), (0, 1, 2)),
        ((2, 2, 2, 2), (0, 1, 2, 3)),
    ]
    rng = np.random.default_rng(31)
    while len(out) < 120:
        nd = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 70 if nd < 3 else 20, size=nd))
        if np.prod(shape) >= 4096:
            continue
        k = int(rng.integers(1, nd + 1))
        out.append((shape, tuple(sorted(int(a) for a in rng.choice(nd, k, replace=False)))))
    return out


def row_cases():
    """(shape, axis) pairs for sums of products along one axis: the rows of 2 to 32 columns whose
    loop LLVM vectorizes over rows (each product then rounded) or keeps scalar (products fused,
    a square's first two in LLVM's order), around every row count where that changes."""
    out = []
    for c in (2, 3, 4, 5, 6, 7, 8, 9, 12, 20, 32):
        for r in (1, 2, 4, 5, 8, 9, 16, 18, 19, 23, 24, 30, 36, 40, 44, 47, 60, 64, 68, 100, 300):
            if r * c < 4096:
                out.append(((r, c), -1))
    out += [((3, 20, 6), -1), ((2, 17, 7), -1), ((6, 4, 5), -1), ((3, 44, 5), -1), ((16, 1, 5), -1)]
    out += [((5, 7), 0), ((8, 20), 0), ((3, 100), 0), ((6, 5, 4), 0), ((4, 6, 3), 1), ((17,), 0)]
    return out


def full_cases():
    """Shapes whose jitted sum of products over both axes LLVM vectorizes over the rows (lanes of
    rows, the products fused or, from 5 columns, shuffled into the lanes and rounded first)."""
    rows = (1, 2, 3, 4, 7, 8, 9, 16, 17, 20, 23, 24, 28, 31, 32, 33, 40, 100)
    return [(r, c) for c in range(2, 10) for r in rows if r * c < 4096]


# name -> (shape, f(jnp, x)): eager jnp functions JAX jits whose sums of squares XLA fuses (a
# variance's count a power of two: JAX divides truly there, where the engine multiplies by the
# reciprocal of other counts)
EAGER_SQUARES = {
    "var axis 0 (32, 20)": ((32, 20), lambda jnp, x: jnp.var(x, axis=0)),
    "var axis -1 (12, 8)": ((12, 8), lambda jnp, x: jnp.var(x, axis=-1)),
    "std (4, 4)": ((4, 4), lambda jnp, x: jnp.std(x)),
    "norm axis -1 (32, 20)": ((32, 20), lambda jnp, x: jnp.linalg.norm(x, axis=-1)),
    "norm axis 0 (20, 7)": ((20, 7), lambda jnp, x: jnp.linalg.norm(x, axis=0)),
    "norm (50,)": ((50,), lambda jnp, x: jnp.linalg.norm(x)),
    "norm (6, 5)": ((6, 5), lambda jnp, x: jnp.linalg.norm(x)),
}


# body -> f(x, y): what the jitted kernel computes before the product it sums
ROW_BODIES = {
    "x*x": lambda jnp, x, y: x * x,
    "x*y": lambda jnp, x, y: x * y,
    "(x-y)**2": lambda jnp, x, y: (x - y) ** 2,
    "exp(x)*y": lambda jnp, x, y: jnp.exp(x) * y,
}


def row_operands(shape, i):
    rng = np.random.default_rng(7000 + i)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-3, 3, shape))
    return x.astype(np.float32), rng.standard_normal(shape).astype(np.float32)


def operand(shape, i):
    return np.random.default_rng(1000 + i).normal(size=shape).astype(np.float32)


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    out: dict = {"jax_version": jax.__version__}
    for i, (shape, axes) in enumerate(cases()):
        x = operand(shape, i)
        out[f"sum {i} {shape} {axes}"] = pack(np.asarray(jnp.sum(x, axis=axes)).ravel())
        out[f"jit sum of products {i} {shape} {axes}"] = pack(
            np.asarray(jax.jit(lambda v, w: jnp.sum(v * w, axis=axes))(x, operand(shape, 5000 + i))).ravel()
        )
        out[f"mean {i} {shape} {axes}"] = pack(np.asarray(jnp.mean(x, axis=axes)).ravel())
    for i, (shape, axis) in enumerate(row_cases()):
        x, y = row_operands(shape, i)
        for name, body in ROW_BODIES.items():
            f = jax.jit(lambda v, w, body=body: jnp.sum(body(jnp, v, w), axis=axis))
            out[f"rows {name} {shape} {axis}"] = pack(np.asarray(f(x, y)).ravel())
    for i, shape in enumerate(full_cases()):
        x, y = row_operands(shape, 9000 + i)
        out[f"full x*y {shape}"] = pack(np.asarray(jax.jit(lambda v, w: jnp.sum(v * w))(x, y)).ravel())
        out[f"full x*x {shape}"] = pack(np.asarray(jax.jit(lambda v: jnp.sum(v * v))(x)).ravel())
    for i, (name, (shape, f)) in enumerate(EAGER_SQUARES.items()):
        out[f"eager {name}"] = pack(np.asarray(f(jnp, row_operands(shape, 11000 + i)[0])).ravel())
    path = pathlib.Path(__file__).resolve().parent / "sum_order.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} results recorded to {path}")


if __name__ == "__main__":
    main()
