"""Eager (un-jitted) speed of common ``jnp`` operations on small arrays: the playground's users write
eager code. Engine, numpy and JAX 0.10.2 (its own process in ``.jax-venv``, see
``bench/jaxref.py``) timed in alternating rounds of the same run; target: engine <= JAX on each row.

    python -m bench eager [--seconds 0.1] [--rounds 5] [OP ...]

JAX's eager dispatch costs ~5-10 us an operation, and the jnp functions JAX defines under
``jax.jit`` (``jax.nn.softmax``, ``jnp.where``, ``jnp.clip``...) run as one compiled program.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from bench import eager_cases
from bench.jaxref import JaxRef
from bench.timing import run_batched

NUMBER = 20  # calls per timed batch (each call is 5-500 us)


def fmt(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.1f} us"


def main(argv: list[str] | None = None) -> int:
    import engine

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.1, help="time per row per side per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("ops", nargs="*", help=f"rows to run (default all: {', '.join(eager_cases.OPS)})")
    args = ap.parse_args(argv)
    ops = args.ops or list(eager_cases.OPS)
    ref = JaxRef.start()
    rows, missed = [], 0
    try:
        fns = {}
        for op in ops:
            fns[op] = eager_cases.eager_op(engine, op), eager_cases.numpy_op(op=op)
            fns[op][0]()  # warm: first-call caches, kernels loaded
            if ref:
                ref.build(op, "bench.eager_cases", "eager_op", op=op)
        samples = {op: ([], [], []) for op in ops}
        for _ in range(args.rounds):  # alternating, so load from elsewhere hits every side alike
            for op in ops:
                eng, npf = fns[op]
                e, n, j = samples[op]
                e += run_batched(eng, args.seconds, NUMBER)
                n += run_batched(npf, args.seconds / 4, NUMBER)
                if ref:
                    j += ref.time(op, args.seconds, NUMBER)
        for op in ops:
            e, n, j = (statistics.median(v) if v else None for v in samples[op])
            met = j is None or e <= j
            missed += not met
            rows.append(
                (
                    eager_cases.OPS[op][0],
                    fmt(e),
                    fmt(n),
                    fmt(j),
                    f"{e / j:.2f}x" if j else "-",
                    "met" if met else "MISSED",
                )
            )
    finally:
        if ref:
            ref.close()
    head = ("eager operation", "engine", "numpy", "JAX", "engine/JAX", "<= JAX")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    jax_note = f"JAX {ref.version} (.jax-venv)" if ref else "JAX: no .jax-venv (its column is empty)"
    print(f"{jax_note}; medians of {args.rounds} alternating rounds of {NUMBER}-call batches")
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    print(f"{len(rows) - missed} of {len(rows)} rows at or under JAX")
    return 0


if __name__ == "__main__":
    sys.exit(main())
