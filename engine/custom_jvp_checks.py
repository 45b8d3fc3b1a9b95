"""What a ``custom_jvp`` rule must return, checked as JAX checks it: primal and tangent outputs of
one pytree structure, and each tangent of its primal's tangent type (``float0`` for integers).
The errors are JAX's TypeErrors, in its words."""

from __future__ import annotations

from typing import Any, Callable

from . import ad, core
from .tree_util import tree_flatten
from .vjp_function import fun_name


def _type(aval: Any) -> str:
    return str(aval).lstrip("~")  # (JAX's messages: full dtype names, weak types not marked)


def _tangent_type(t: Any) -> Any:
    aval = getattr(t, "aval", None)  # (a symbolic zero is its type)
    return aval if isinstance(aval, core.ShapedArray) and not core.is_array_like(t) else core.get_aval(t)


def rule_pair(rule: Callable, primal_name: str, result: Any) -> tuple:
    """What ``rule`` returned as its ``(primal_out, tangent_out)`` pair, else JAX's TypeError."""
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        raise TypeError(
            f"Custom JVP rule {fun_name(rule)} for function {primal_name} must produce a pair (list or "
            f"tuple of length two) representing primal and tangent outputs, but got {result}."
        )
    return tuple(result)


def check_jvp_rule_outputs(rule: Callable, primal_name: str, out: Any, tout: Any) -> None:
    """Raise JAX's TypeError when ``(out, tout)``, what ``rule`` returned, disagree."""
    outs, out_tree = tree_flatten(out, is_leaf=lambda x: x is None)
    touts, tout_tree = tree_flatten(tout, is_leaf=lambda x: x is None)
    if out_tree != tout_tree:
        raise TypeError(
            f"Custom JVP rule {fun_name(rule)} for function {primal_name} must produce primal and tangent "
            f"outputs with equal container (pytree) structures, but got {tree_flatten(out)[1]} and "
            f"{tree_flatten(tout)[1]} respectively."
        )
    pairs = [
        (o, t) for o, t in zip(outs, touts) if o is not None and t is not None and not isinstance(t, ad.Zero)
    ]
    found = []
    for o, t in pairs:
        primal = core.get_aval(o)
        expected, got = ad.tangent_aval(primal), _tangent_type(t)
        if expected.shape != got.shape or expected.dtype != got.dtype:
            found.append((primal, expected, got))
    if not found:
        return
    head = "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes"
    if len(outs) == 1:
        ((p, e, g),) = found
        raise TypeError(f"{head}. Expected {_type(e)} (tangent type of {_type(p)}) but got {_type(g)}.")
    lines = "\n".join(
        f"  primal {_type(p)} with tangent {_type(g)}, expecting tangent {e}" for p, e, g in found
    )
    raise TypeError(f"{head}, but got:\n{lines}")
