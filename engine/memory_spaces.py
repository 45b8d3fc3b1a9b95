"""Memory spaces through primitives: which memory (device, pinned host, ...) each result lives in,
given its operands'. Most primitives follow JAX's standard rule; the rest register their own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from .avals import DEVICE, ShapedArray

if TYPE_CHECKING:
    from .core import Params, Primitive

# primitive -> how its results' memory spaces follow from its operands' (None: its abstract rule
# says them). Others have JAX's standard rule: operands in one memory space, results in it too.
memory_space_rules: dict["Primitive", Callable[..., Any] | None] = {}


def memory_space_rule(prim: "Primitive", avals: Sequence[Any], params: Params, out: Any) -> Any:
    if prim in memory_space_rules:
        rule = memory_space_rules[prim]
        return out if rule is None else rule(avals, params, out)
    from .ir import holds_jaxprs

    if holds_jaxprs(params):  # (calls, control flow: their bodies' types)
        return out
    space = DEVICE
    first = None
    for a in avals:
        if not isinstance(a, ShapedArray) or not a.shape:  # (scalars go with anything, as in JAX)
            continue
        if first is not None and a.memory_space is not first.memory_space:
            raise ValueError(
                f"memory_space of all inputs passed to `{prim.name}` must be the same. Got one operand with "
                f"type: {first.strip_weak_type()} and another operand with type: {a.strip_weak_type()}"
            )
        first, space = a, a.memory_space
    if prim.multiple_results:
        return [o.update(memory_space=space) if isinstance(o, ShapedArray) else o for o in out]
    return out.update(memory_space=space) if isinstance(out, ShapedArray) else out
