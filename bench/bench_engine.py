"""Engine dispatch benchmarks (issue 2), reported as ratios; JAX's column only if it is importable.

    python -m bench.bench_engine [--seconds 0.2]

Targets: eager ``x + x`` on 10 floats within 4x of numpy's own time (JAX: ~20x); eager warm
``grad(tanh)(1.0)`` under 300 µs and at most 1/10 of JAX's time where JAX is installed.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from bench.timing import timeit


def per_call_seconds(fn, budget: float) -> float:
    """Median time per call over 5 rounds of about ``budget / 5`` seconds each."""
    return timeit(fn, repeat=5, budget=budget)


def real_jax():
    """The real JAX, never the engine's ``jax`` alias."""
    if "jax" in sys.modules and getattr(sys.modules["jax"], "__engine__", None) is not None:
        return None
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    return jax, jnp


def workloads():
    """(name, engine fn, numpy fn or None, jax fn or None, target text, check)."""
    import engine
    from engine import lax
    from engine.core import Array

    try:
        import engine.numpy as enp

        tanh = enp.tanh
    except (ImportError, AttributeError):
        tanh = lax.tanh
    x = Array(np.ones(10, np.float32))
    a = np.ones(10, np.float32)
    try:
        x + x
        add = lambda: x + x  # noqa: E731
    except TypeError:  # operators not in yet: the primitive wrapper is the same dispatch path
        add = lambda: lax.add(x, x)  # noqa: E731
    g = engine.grad(tanh)
    jx = real_jax()
    jax_add = jax_grad = None
    if jx is not None:
        jax, jnp = jx
        y = jnp.ones(10, jnp.float32)
        jax_add = lambda: (y + y).block_until_ready()  # noqa: E731
        jg = jax.grad(jnp.tanh)
        jax_grad = lambda: jg(1.0).block_until_ready()  # noqa: E731
    return [
        (
            "eager x + x, 10 x f32",
            add,
            lambda: a + a,
            jax_add,
            "engine <= 4x numpy",
            lambda e, n, j: e <= 4 * n,
        ),
        (
            "eager grad(tanh)(1.0), warm",
            lambda: g(1.0),
            None,
            jax_grad,
            "< 300 us, <= JAX / 10",
            lambda e, n, j: e < 300e-6 and (j is None or e <= j / 10),
        ),
    ]


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="time budget per measurement")
    args = ap.parse_args(argv)
    rows = []
    for name, eng, npf, jxf, target, check in workloads():
        eng()  # warm: first-call caches, imports
        e = per_call_seconds(eng, args.seconds)
        n = per_call_seconds(npf, args.seconds) if npf else None
        j = per_call_seconds(jxf, args.seconds) if jxf else None
        ratios = []
        if n:
            ratios.append(f"engine/numpy {e / n:.1f}x")
        if j:
            ratios.append(f"engine/JAX {e / j:.2f}x")
        rows.append(
            (
                name,
                fmt(e),
                fmt(n),
                fmt(j),
                ", ".join(ratios) or "-",
                target,
                "met" if check(e, n, j) else "MISSED",
            )
        )
    head = ("workload", "engine", "numpy", "JAX", "ratios", "target", "")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    print(
        f"JAX: {'importable' if real_jax() else 'not installed (its column is empty)'}; medians of 5 rounds"
    )
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
