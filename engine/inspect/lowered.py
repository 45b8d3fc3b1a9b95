"""The lowered program of a report's jit stages: the text ``jax.jit(f).lower(*args).as_text()``
prints for the stage's own argument types (StableHLO, as JAX prints it), bounded in size.

Printing costs time in proportion to the program, so a program over ``EQN_CAP`` equations is not
printed (the stage says so and how to print it), and a text over ``TEXT_CAP`` characters is cut.
Lowering can fail where running does not (a primitive with no StableHLO rule yet): the stage then
carries one MLIR comment line saying why, so the page shows the reason in place.
"""

from __future__ import annotations

from typing import Any, Callable

from engine.ir import Jaxpr, subjaxprs

TEXT_CAP = 100_000  # characters of one stage's text kept in the report
# Equations (sub-jaxprs' included) of a program the report prints: about 0.3 s of printing, and a
# bigger text would be cut at TEXT_CAP anyway.
EQN_CAP = 1_500


def lowered_text(lower: Callable[[], Any]) -> str:
    """``lower().as_text()``, bounded, or a ``//`` line saying why there is none.

    >>> import engine as jax
    >>> print(lowered_text(lambda: jax.jit(lambda x: x + 1.0).lower(1.0)).splitlines()[3])
        %0 = stablehlo.add %arg0, %cst : tensor<f32>
    >>> lowered_text(lambda: 1 / 0)
    '// no lowered program for this stage: ZeroDivisionError: division by zero'
    """
    try:
        lowered = lower()
        n = equation_count(lowered.jaxpr.jaxpr)
        if n > EQN_CAP:
            return (
                f"// not printed here: jit({lowered.name}) has {n:,} equations (the report prints up to "
                f"{EQN_CAP:,}); print(jax.jit(f).lower(*args).as_text()) in the code shows it"
            )
        text = lowered.as_text()
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


def equation_count(jaxpr: Jaxpr) -> int:
    return sum(1 + sum(equation_count(j) for j in subjaxprs(e)) for e in jaxpr.eqns)
