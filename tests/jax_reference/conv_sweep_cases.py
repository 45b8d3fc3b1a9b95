"""Random float32 convolutions for ``record_conv_sweep.py`` (JAX) and ``tests/test_conv_sweep.py``
(the engine): the same numpy draws on both sides, so only the bits' hashes are recorded.

``CASES`` holds ``(name, lhs shape, rhs shape, keyword arguments of conv_general_dilated)``: a
random sweep over 1-3 spatial dims with strides, padding (negative crops), both dilations and
feature or batch groups, then vectors slid over vectors (``jnp.convolve``'s convolutions) and
depthwise convolutions, which XLA sums in orders of their own (``engine/lax/conv_order.py``).
"""

from __future__ import annotations

import numpy as np


def _random(count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        nsp = int(rng.choice([1, 2, 2, 3]))
        fg = int(rng.choice([1, 1, 1, 2, 3]))
        bg = int(rng.choice([2, 3])) if fg == 1 and rng.random() < 0.15 else 1
        c = (
            int(rng.choice([1, 2, 3, 4, 8, 16, 17, 24, 32, 40, 64] if nsp < 3 else [1, 2, 3, 4, 8, 16, 20]))
            * fg
        )
        o = int(rng.choice([1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 64])) * fg * bg
        n = int(rng.choice([1, 2, 3, 4, 8])) * bg
        sp = [int(rng.integers(3, {1: 40, 2: 14, 3: 7}[nsp])) for _ in range(nsp)]
        ks = [int(rng.integers(1, min(s, 5) + 1)) for s in sp]
        kw = dict(
            window_strides=tuple(int(rng.choice([1, 1, 2, 3])) for _ in range(nsp)),
            padding=tuple((int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(nsp)),
            lhs_dilation=tuple(int(rng.choice([1, 1, 1, 2])) for _ in range(nsp)),
            rhs_dilation=tuple(int(rng.choice([1, 1, 1, 2])) for _ in range(nsp)),
            feature_group_count=fg,
            batch_group_count=bg,
        )
        out_sp = [
            (s - 1) * ld + 1 + lo + hi - ((k - 1) * rd + 1)
            for s, k, (lo, hi), ld, rd in zip(sp, ks, kw["padding"], kw["lhs_dilation"], kw["rhs_dilation"])
        ]
        if min(out_sp) < 0:
            continue
        out.append((f"random{len(out)}", (n, c, *sp), (o, c // fg, *ks), kw))
    return out


def _vectors() -> list:
    rng = np.random.default_rng(7)
    out = []
    for k in (3, 4, 7, 8, 9, 16, 17, 31, 40, 64, 100, 127, 128, 200, 300, 600):
        for m in (1, 3, 5, 20, 90, 150, 400):
            lo = int(rng.integers(0, k))
            hi = int(rng.integers(0, k))
            length = max(1, m + k - 1 - lo - hi)
            out.append(
                (
                    f"vector{len(out)}_{length}x{k}",
                    (1, 1, length),
                    (1, 1, k),
                    dict(window_strides=(1,), padding=((lo, hi),)),
                )
            )
    return out


def _depthwise() -> list:
    rng = np.random.default_rng(11)
    out = []
    for _ in range(30):
        nsp = int(rng.choice([1, 2, 2]))
        c = int(rng.choice([1, 2, 3, 6, 8, 16, 32]))
        mult = int(rng.choice([1, 1, 2]))
        n = int(rng.choice([1, 2, 4]))
        sp = [int(rng.integers(4, 20 if nsp == 2 else 60)) for _ in range(nsp)]
        k = int(rng.choice([2, 3, 5]))
        kw = dict(
            window_strides=(1,) * nsp, padding=str(rng.choice(["SAME", "VALID"])), feature_group_count=c
        )
        out.append((f"depthwise{len(out)}_{c}x{mult}_{nsp}d", (n, c, *sp), (c * mult, 1, *[k] * nsp), kw))
    return out


CASES = [*_random(150, 1), *_vectors(), *_depthwise()]


def data(index: int):
    """The operands and the output cotangent's seed of case ``index`` (float32 normals)."""
    _, lhs, rhs, _ = CASES[index]
    rng = np.random.default_rng(1000 + index)
    return rng.standard_normal(lhs).astype(np.float32), rng.standard_normal(rhs).astype(np.float32), rng
