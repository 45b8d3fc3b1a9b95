"""Engine dispatch benchmarks (issue 2), reported as ratios to numpy and to JAX 0.10.2 (timed in its
side venv by ``bench/jaxref.py``, in alternation with the engine; its column is empty without it).

    python -m bench engine [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from bench import cases
from bench.jaxref import JaxRef
from bench.timing import run_batched, run_for

ROUNDS = 5


def workloads():
    """(name, case factory, calls per timed batch, numpy factory or None, target text, check)."""
    return [
        (
            "eager x + x, 10 x f32",
            "eager_add",
            2000,
            cases.numpy_add,
            "engine <= 4x numpy",
            lambda e, n, j: e <= 4 * n,
        ),
        (
            "eager grad(tanh)(1.0), warm",
            "eager_plain_tanh_grad",
            1,
            None,
            "< 300 us, <= JAX / 10",
            lambda e, n, j: e < 300e-6 and (j is None or e <= j / 10),
        ),
    ]


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.2f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def _time(fn, seconds: float, number: int) -> list[float]:
    return run_batched(fn, seconds, number) if number > 1 else run_for(fn, seconds)


def main(argv: list[str] | None = None) -> int:
    import engine

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.5, help="time budget per measurement")
    args = ap.parse_args(argv)
    ref = JaxRef.start()
    rows = []
    try:
        for name, factory, number, numpy_factory, target, check in workloads():
            eng = getattr(cases, factory)(engine)
            eng()  # warm: first-call caches, imports
            npf = numpy_factory() if numpy_factory else None
            if ref:
                ref.build(name, "bench.cases", factory)
            samples: dict[str, list[float]] = {"engine": [], "numpy": [], "jax": []}
            slice_ = args.seconds / ROUNDS
            for _ in range(ROUNDS):  # alternating, so load from elsewhere hits every side alike
                samples["engine"] += _time(eng, slice_, number)
                if npf:
                    samples["numpy"] += _time(npf, slice_, number)
                if ref:
                    samples["jax"] += ref.time(name, slice_, number)
            e, n, j = (statistics.median(v) if v else None for v in samples.values())
            ratios = [f"engine/numpy {e / n:.1f}x"] if n else []
            ratios += [f"engine/JAX {e / j:.2f}x"] if j else []
            met = check(e, n, j)
            rows.append(
                (name, fmt(e), fmt(n), fmt(j), ", ".join(ratios) or "-", target, "met" if met else "MISSED")
            )
    finally:
        if ref:
            ref.close()
    head = ("workload", "engine", "numpy", "JAX", "ratios", "target", "")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    jax_note = f"JAX {ref.version} (.jax-venv)" if ref else "JAX: no .jax-venv (its column is empty)"
    print(f"{jax_note}; medians of {ROUNDS} alternating rounds")
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
