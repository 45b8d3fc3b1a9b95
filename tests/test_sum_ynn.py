"""Large float sums add in YNNPACK's order (engine/lax/sum_order_ynn.py): bit for bit against
JAX 0.10.2, recorded with 2 XLA threads and with 1 (tests/jax_reference/record_sum_ynn.py)."""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

from engine.lax.sum_order_ynn import sum_f32

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_sum_ynn import CASES, FLOAT64, PATH, SPECIAL, name, operand, special  # noqa: E402

RECORDED = json.loads(PATH.read_text())["threads"]


def check(got: np.ndarray, want: dict) -> None:
    got = np.ascontiguousarray(got)
    if hashlib.sha256(got.tobytes()).hexdigest() != want["sha256"]:
        flat = got.ravel()
        mine = flat[:: max(1, flat.size // 64)]
        sample = np.frombuffer(base64.b64decode(want["sample"]), flat.dtype)
        differ = np.flatnonzero(mine != sample)
        pytest.fail(
            f"bits differ: {differ.size} of {mine.size} sampled, got {mine[differ[:3]]} want {sample[differ[:3]]}"
        )


def model(shape, axes, kind, threads):
    x = operand(shape)
    y = sum_f32(x, axes, threads=threads)
    if kind == "keepdims":
        return y.reshape([1 if i in axes else e for i, e in enumerate(shape)])
    if kind == "mean":  # XLA multiplies by the rounded reciprocal of the count
        n = int(np.prod([shape[i] for i in axes]))
        return y * (np.float32(1) / np.float32(n))
    return y


@pytest.mark.parametrize("threads", sorted(RECORDED))
@pytest.mark.parametrize("case", CASES, ids=[name(*c) for c in CASES])
def test_sum_f32_gives_jax_bits(case, threads):
    check(model(*case, int(threads)), RECORDED[threads][name(*case)])


@pytest.mark.parametrize("threads", sorted(RECORDED))
@pytest.mark.parametrize("label", SPECIAL)
def test_special_values(label, threads):
    x = special(label)
    got = sum_f32(x.astype(np.float32), (0,), threads=int(threads)).astype(x.dtype)
    check(got, RECORDED[threads][label])


@pytest.mark.parametrize("threads", sorted(RECORDED))
@pytest.mark.parametrize("case", FLOAT64, ids=[name(*c, "float64") for c in FLOAT64])
def test_float64_uses_8_lanes(case, threads):
    shape, axes = case
    check(
        sum_f32(operand(shape, np.float64), axes, threads=int(threads)),
        RECORDED[threads][name(*case, "float64")],
    )


def test_threads_change_the_order():
    """The recording shows it: 100000 values are cut in tiles of 32768 only with 2 threads."""
    key = name((100000,), (0,))
    assert RECORDED["1"][key]["sha256"] != RECORDED["2"][key]["sha256"]
    x = operand((100000,))
    assert sum_f32(x, (0,), threads=1) != sum_f32(x, (0,), threads=2)
