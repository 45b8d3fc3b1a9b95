"""The lowered program of a report's jit stages: the text ``jax.jit(f).lower(*args).as_text()``
prints for the stage's own argument types (StableHLO, as JAX prints it), capped in size.

Lowering a stage can fail where running it does not (a primitive with no StableHLO rule yet): the
stage then carries one MLIR comment line saying why, so the page shows the reason in place.
"""

from __future__ import annotations

from typing import Any, Callable

TEXT_CAP = 100_000  # characters of one stage's text kept in the report


def lowered_text(lower: Callable[[], Any]) -> str:
    """``lower().as_text()``, capped at a line boundary, or a ``//`` line saying why there is none.

    >>> import engine as jax
    >>> text = lowered_text(lambda: jax.jit(lambda x: x + 1.0).lower(1.0))
    >>> "jit(<lambda>)" in text or "stablehlo.add" in text
    True
    >>> lowered_text(lambda: 1 / 0)
    '// no lowered program for this stage: ZeroDivisionError: division by zero'
    """
    try:
        text = lower().as_text()
    except Exception as e:  # noqa: BLE001 - the reason is shown in place of the text
        return why_not(e)
    if len(text) <= TEXT_CAP:
        return text
    cut = text.rfind("\n", 0, TEXT_CAP)
    kept = text[: cut if cut > 0 else TEXT_CAP]
    return f"{kept}\n// … truncated: {len(kept):,} of {len(text):,} characters shown"


def why_not(e: BaseException) -> str:
    """The text a stage carries when lowering it raised ``e``: one MLIR comment line."""
    reason = " ".join(str(e).split())[:500]
    return f"// no lowered program for this stage: {type(e).__name__}: {reason}"
