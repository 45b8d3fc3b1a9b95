"""The type-mismatch errors of control flow, in JAX's words: a loop body whose carry output is not
its carry input (``scan``, ``while_loop``, ``fori_loop``), and ``cond`` / ``switch`` branches whose
outputs differ. Each names the function (and where it is defined), the carry or output component
by its key path, what differs, and what to revise.

>>> from engine.core import ShapedArray
>>> import numpy as np
>>> print(mismatch_extra(ShapedArray((), np.float32), ShapedArray((2,), np.int32)))
, so the dtypes do not match, and the shapes do not match
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from ..core import ShapedArray
from ..pytree.equality import equality_errors
from ..pytree.keys import keystr
from ..state.checks import func_src_info
from ..tree_util import tree_flatten_with_path, tree_unflatten


def typematch(a: Any, b: Any) -> bool:
    """Equal types up to weak typing (JAX's ``core.typematch``): shapes, dtypes, inside a checked
    shard_map the mesh axes the values vary over, and on an explicit mesh their layouts (a type
    from ``parallel.explicit_types``)."""
    return a.shape == b.shape and a.dtype == b.dtype and _vma(a) == _vma(b) and _split(a) == _split(b)


def _split(a: Any) -> tuple:
    """The explicit mesh axes that split each dimension of a typed ``a`` (none for a plain type)."""
    s = getattr(a, "sharding", None)
    if s is None:
        return ()
    explicit = set(s.mesh.explicit_axes)
    return tuple(tuple(x for x in axes if x in explicit) for axes in s._normalized(len(a.shape)))


def _vma(a: Any) -> tuple:
    return getattr(a, "vma", ())


def type_str(a: Any) -> str:
    """An array type as JAX's messages write it: full dtype name, no weak-type mark (``float32[2]``)."""
    return str(a).lstrip("~")


def mismatch_extra(a: Any, b: Any) -> str:
    """What differs between two array types, as the tail of a sentence (``, so the ... match``)."""
    what = [
        w
        for w, differs in (
            ("dtypes", a.dtype != b.dtype),
            ("shapes", a.shape != b.shape),
            ("manual axis types", _vma(a) != _vma(b)),
        )
        if differs
    ]
    if not what:
        return ""
    sentences = [f"the {w} do not match" for w in what]
    return ", so " + (
        sentences[0] if len(sentences) == 1 else ", ".join(sentences[:-1]) + ", and " + sentences[-1]
    )


def _capitalize(s: str) -> str:
    return s[:1].upper() + s[1:]


def _listing(diffs: list[str], item_end: str) -> str:
    """One difference as a sentence; several as a bulleted list (each bullet ends ``item_end``)."""
    if len(diffs) == 1:
        return f"{_capitalize(diffs[0])}.\n"
    return (
        "\n".join(f"  * {d};{item_end}" for d in diffs[:-1])
        + f"{'' if item_end else chr(10)}  * {diffs[-1]}.\n"
    )


def _pcast_hint(fixes: list[str], bullet_end: str) -> str:
    """JAX's suggestion to pcast values that vary over fewer mesh axes than their counterparts."""
    if not fixes:
        return ""
    if len(fixes) == 1:
        hint = f"This might be fixed by {fixes[0]}.\n"
    else:
        hint = "This might be fixed by:\n" + bullet_end.join(f"  * {d};" for d in fixes[:-1])
        hint += f"{bullet_end}  * {fixes[-1]}.\n"
    return (
        hint
        + "See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.\n\n"
    )


def _pcast(axes) -> str:
    return f"applying `jax.lax.pcast(..., {tuple(axes)}, to='varying')`"


def _paths(tree: Any, avals: Sequence[Any]) -> list[tuple]:
    return [p for p, _ in tree_flatten_with_path(tree_unflatten(tree, list(avals)))[0]]


def _carry_name(body_fun: Callable) -> str | None:
    try:
        params = list(inspect.signature(body_fun).parameters)
    except (TypeError, ValueError):
        return None
    return params[0] if params else None


def check_carry_type(
    name: str,
    body_fun: Callable,
    in_tree: Any,
    in_avals: Sequence[Any],
    out_tree: Any,
    out_avals: Sequence[Any],
) -> None:
    """Raise JAX's TypeError when a loop body's carry output differs from its carry input in
    pytree structure or in any component's dtype or shape. ``name`` is ``"scan body"`` or
    ``"while_loop body"``; the carry is named after the body's first parameter."""
    carry = _carry_name(body_fun)

    def component(path: tuple) -> str:
        if carry:
            return f"the input carry component {carry}{keystr(path)}" if path else f"the input carry {carry}"
        return f"the input carry at path {keystr(path)}" if path else "the input carry"

    if in_tree != out_tree:
        # (JAX compares the carries with their leaves as types: a leaf is a ShapedArray there)
        leaf = str(ShapedArray)

        def thing(t: str) -> str:
            return leaf if t == "pytree leaf" else t

        diffs = [
            f"{component(p)} is a {thing(t1)} but the corresponding component of the carry output is a "
            f"{thing(t2)}, so {why}"
            for p, t1, t2, why in equality_errors(in_tree, out_tree)
        ]
        if not diffs:
            return
        raise TypeError(
            f"{name} function carry input and carry output must have the same pytree structure, but they "
            f"differ:\n\n{_listing(diffs, chr(10))}\nRevise the function so that the carry output has the "
            "same pytree structure as the carry input."
        )
    paths = _paths(in_tree, in_avals)
    diffs = [
        f"{component(p)} has type {type_str(a)} but the corresponding output carry component has type "
        f"{type_str(b)}{mismatch_extra(a, b)}"
        for p, a, b in zip(paths, in_avals, out_avals)
        if not typematch(a, b)
    ]
    fixes = [  # (JAX lists the axes in its set's order: the mesh's for one axis)
        f"{_pcast(set(_vma(b)) - set(_vma(a)))}, to the initial carry value corresponding to {component(p)}"
        for p, a, b in zip(paths, in_avals, out_avals)
        if set(_vma(b)) - set(_vma(a))
    ]
    if diffs:
        raise TypeError(
            f"{name} function carry input and carry output must have equal types, but they differ:\n\n"
            f"{_listing(diffs, chr(10))}\n{_pcast_hint(fixes, chr(10) * 2)}Revise the function so that "
            "all output types match the corresponding input types."
        )


def check_branch_outputs(
    api_name: str,
    names: tuple[str, str],
    funs: tuple[Callable, Callable],
    trees: tuple[Any, Any],
    avals: tuple[Sequence[Any], Sequence[Any]],
) -> None:
    """Raise JAX's TypeError when two branches of ``cond`` / ``switch`` (``names``: how the message
    calls them) return different pytree structures or types."""
    (name1, name2), (tree1, tree2), (avals1, avals2) = names, trees, avals
    header = f"{name1} is {func_src_info(funs[0])}\n{name2} is {func_src_info(funs[1])}\n\n"

    def at(p: tuple) -> str:
        return f" at path {keystr(p)}" if p else ""

    if tree1 != tree2:
        diffs = [
            f"{name1} output{at(p)} is a {t1} but {name2} output{at(p)} is a {t2}, so {why}"
            for p, t1, t2, why in equality_errors(tree1, tree2)
        ]
        if not diffs:
            return
        listed = diffs[0] + ".\n" if len(diffs) == 1 else _listing(diffs, "\n")
        raise TypeError(
            f"{api_name} branch outputs must have the same pytree structure, but they differ:\n\n{header}"
            f"{listed}\nRevise {name1} and/or {name2} so that they have the same pytree structure."
        )
    paths = _paths(tree1, avals1)
    diffs = [
        f"the output of {name1}{at(p)} has type {type_str(a)} but the corresponding output of {name2} "
        f"has type {type_str(b)}{mismatch_extra(a, b)}"
        for p, a, b in zip(paths, avals1, avals2)
        if not typematch(a, b)
    ]
    # (JAX's own pairing: the axes the other branch's output lacks, for the branch whose output lacks some)
    fixes = [
        f"{_pcast(set(_vma(a1)) - set(_vma(a2)))} to the output of {n}{at(p)}"
        for p, b1, b2 in zip(paths, avals1, avals2)
        for n, a1, a2 in ((name1, b2, b1), (name2, b1, b2))
        if set(_vma(a2)) - set(_vma(a1))
    ]
    if diffs:
        raise TypeError(
            f"{api_name} branches must have equal output types but they differ.\n\n{header}"
            f"{_listing(diffs, '')}\n{_pcast_hint(fixes, chr(10))}Revise {name1} and/or {name2} so that "
            "all output types match."
        )
