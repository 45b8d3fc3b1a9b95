"""The one timing helper of the benchmarks: medians over rounds (the machine is shared), with the
best round kept beside them (closest to an idle machine)."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np


class Timing(float):
    """Median seconds per call; ``.min`` is the best round's."""

    min: float

    @classmethod
    def of(cls, per_call: list[float]) -> Timing:
        t = cls(np.median(per_call))
        t.min = float(min(per_call))
        return t


def timeit(
    fn: Callable[[], object], *, repeat: int = 9, number: int | None = None, budget: float | None = None
) -> Timing:
    """Seconds per call of ``fn``: ``repeat`` rounds of ``number`` calls after one untimed call.

    Without ``number``, each round runs about ``budget / repeat`` seconds (one call when no budget).
    """
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    if number is None:
        number = max(1, int(budget / repeat / max(first, 1e-9))) if budget else 1
    per_call = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        per_call.append((time.perf_counter() - t0) / number)
    return Timing.of(per_call)


def interleaved(
    fns: dict[str, Callable[[], object]], *, rounds: int = 7, budget: float = 0.15, warm: float = 0.1
) -> dict[str, Timing]:
    """Seconds per call of each function over ``rounds`` alternating rounds. In each round a case
    first runs untimed for ``warm`` seconds (a case after a heavy one otherwise pays for the heavy
    one: on a loaded machine the scheduler holds back processes that just used a lot of CPU), then
    is timed call by call for ``budget`` seconds (at least one call)."""
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            end = time.perf_counter() + warm
            fn()
            while time.perf_counter() < end:
                fn()
            end = time.perf_counter() + budget
            while True:
                t0 = time.perf_counter()
                fn()
                t1 = time.perf_counter()
                samples[k].append(t1 - t0)
                if t1 >= end:
                    break
    return {k: Timing.of(v) for k, v in samples.items()}


def run_for(fn, seconds: float, min_calls: int = 1) -> list[float]:
    """Seconds of each call of ``fn`` made during ``seconds`` (at least ``min_calls`` calls); a
    ``fn.settle()`` runs untimed after each call."""
    settle = getattr(fn, "settle", None)
    samples = []
    end = time.perf_counter() + seconds
    while True:
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        samples.append(t1 - t0)
        if settle is not None:
            settle()
        if time.perf_counter() >= end and len(samples) >= min_calls:
            return samples


def run_batched(fn, seconds: float, number: int) -> list[float]:
    """Per-call seconds of batches of ``number`` calls (for calls too short to time one by one)."""
    samples = []
    end = time.perf_counter() + seconds
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        t1 = time.perf_counter()
        samples.append((t1 - t0) / number)
        if t1 >= end:
            return samples
