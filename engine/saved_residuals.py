"""What reverse mode saves (``saved_residuals``, ``print_saved_residuals``): each residual of a
function's linearization, with the argument, constant or equation it comes from."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from . import ad, core
from .ad_checkpoint import name_p
from .ir import ClosedJaxpr, Literal, Var
from .source_info import NO_SOURCE
from .staging import trace_to_jaxpr
from .tree_util import tree_flatten, tree_unflatten


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[core.ShapedArray, str]]:
    """``(aval, where it comes from)`` for each value ``vjp(f, *args)`` saves for the backward pass."""
    leaves, in_tree = tree_flatten((args, kwargs))
    names = _arg_names(f, args, kwargs)

    def residuals(*xs: Any) -> list[Any]:
        a, kw = tree_unflatten(in_tree, list(xs))
        out_store: list[Any] = []

        def flat(*ys: Any) -> list[Any]:
            b, kw2 = tree_unflatten(in_tree, list(ys))
            out, tree = tree_flatten(f(*b, **kw2))
            out_store[:] = [tree]
            return out

        _, (_, consts, _, _, _) = ad.linearize_flat(flat, list(xs))
        return list(consts)

    closed = trace_to_jaxpr(residuals, [core.get_aval(x) for x in leaves])
    return _describe(closed, names, core.current_source_info())


def _describe(
    closed: ClosedJaxpr, arg_names: Sequence[str], site: core.SourceInfo | None = None
) -> list[tuple[core.ShapedArray, str]]:
    """Each residual's origin. JAX names no line for an equation the AD machinery made at the
    call of ``saved_residuals`` itself (``site``: the known half of a jit), nor for one a rule
    made (``NO_SOURCE``)."""
    from .lax.elementwise import reduce_precision_p

    j = closed.jaxpr
    through = {e.out_binders[0]: e.inputs[0] for e in j.eqns if e.primitive is reduce_precision_p}
    res = {through.get(x, x): None for x in j.outs if type(x) is Var}
    out: list[tuple[core.ShapedArray, str]] = [
        (x.aval, "from a literal") for x in j.outs if type(x) is Literal
    ]
    out += [(v.aval, "from a constant") for v in j.constvars if v in res]
    out += [(v.aval, f"from the argument {name}") for v, name in zip(j.in_binders, arg_names) if v in res]
    for eqn in j.eqns:
        for v in eqn.out_binders:
            if v in res:
                info = eqn.source_info
                at_site = site is not None and info is not None and _same_line(info, site)
                src = "" if at_site else _summarize(info)
                if eqn.primitive is name_p:
                    out.append((v.aval, f"named '{eqn.params['name']}' from {src}"))
                elif eqn.primitive.name == "jit":
                    out.append((v.aval, f"output of jitted function '{eqn.params['name']}' from {src}"))
                else:
                    out.append((v.aval, f"output of {eqn.primitive.name} from {src}"))
    return out


def _same_line(a: core.SourceInfo, b: core.SourceInfo) -> bool:
    return (a.file, a.line, a.function) == (b.file, b.line, b.function)


def _summarize(info: core.SourceInfo | None) -> str:
    if info is None:
        return "unknown"
    if info is NO_SOURCE:
        return ""
    col = info.column
    if col is None or info.position is None:
        return repr(info)
    return f"{info.file}:{info.line}:{col} ({info.position[0].co_qualname})"


def _arg_names(f: Callable, args: tuple, kwargs: dict) -> list[str]:
    """Each flat argument's name as JAX's debug info spells it: ``x``, ``params['w']``, ``xs[0]``."""
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
        named = list(bound.arguments.items())
    except (TypeError, ValueError):
        named = [(f"args[{i}]", a) for i, a in enumerate(args)] + list(kwargs.items())
    from .tree_util import keystr, tree_flatten_with_path  # noqa: F811

    names: list[str] = []
    for name, value in named:
        for path, _ in tree_flatten_with_path(value)[0]:
            names.append(name + keystr(path))
    return names


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Print what reverse mode of ``f`` at ``args`` saves, one residual a line.

    >>> print_saved_residuals(lambda x: jnp.sin(jnp.sin(x)), 1.0)
    f32[] output of cos from ...
    """
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short()} {src}")
