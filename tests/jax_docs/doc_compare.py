"""Does a cell's outcome on the engine match JAX's?

Printed text and reprs are compared token by token: the words and punctuation exactly (whitespace
aside, since numpy pads columns to the widest number), integers exactly, floats within a
tolerance (float32 sums and transcendental functions round differently than XLA's), object
addresses not at all. A cell that raised in JAX must raise the same exception class.
"""

from __future__ import annotations

import math
import re

RTOL, ATOL = 2e-4, 1e-5

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _tokens(text: str) -> list:
    text = _ADDRESS.sub("0x", text)
    out: list = []
    pos = 0
    for m in _NUMBER.finditer(text):
        out.append("".join(text[pos : m.start()].split()))
        tok = m.group()
        is_float = any(c in tok for c in ".eEna") or "inf" in tok
        out.append(float(tok) if is_float else int(tok))
        pos = m.end()
    out.append("".join(text[pos:].split()))
    return [t for t in out if t != ""]


def _close(a: float, b: float, rtol: float, atol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= atol + rtol * abs(b)


def text_mismatch(got: str | None, want: str | None, rtol=RTOL, atol=ATOL) -> str | None:
    """Why ``got`` differs from ``want`` (None when they match)."""
    if (got is None) != (want is None):
        return f"got {got!r}, JAX gave {want!r}"
    if got is None:
        return None
    g, w = _tokens(got), _tokens(want or "")
    for i, (a, b) in enumerate(zip(g, w)):
        if isinstance(a, str) or isinstance(b, str) or isinstance(a, int) and isinstance(b, int):
            same = a == b
        else:
            same = _close(float(a), float(b), rtol, atol)
        if not same:
            return f"token {i}: got {a!r}, JAX gave {b!r}"
    if len(g) != len(w):
        return f"got {len(g)} tokens, JAX gave {len(w)}"
    return None


def outcome_mismatch(got: dict, want: dict, rtol=RTOL, atol=ATOL) -> str | None:
    """Why a cell's outcome on the engine differs from JAX's (None when it matches)."""
    if want["error"] is not None:
        if got["error"] != want["error"]:
            return (
                f"JAX raised {want['error']}, the engine {got['error'] or 'did not raise'} ({got['message']})"
            )
        return text_mismatch(got["stdout"], want["stdout"], rtol, atol)
    if got["error"] is not None:
        return f"raised {got['error']}: {got['message']}"
    for key in ("stdout", "value"):
        why = text_mismatch(got[key], want[key], rtol, atol)
        if why:
            return f"{key}: {why}"
    return None
