"""JAX's sharding-type rules that refuse a program rather than lay it out, for the partitioner's
rules to call on an explicit mesh (``ctx.explicit``): ``select_n``'s cases and ``concatenate``'s
operands must be typed alike, and a ``reshape`` must be one JAX can type (a run of dimensions split
into several, or several merged into one, whose axes divide the new sizes): its result is laid out
as typed.

An operand split over no explicit axis is let through where JAX compares whole shardings: the
engine does not tell an array of no mesh (which JAX lets through) from one replicated on it.
"""

from __future__ import annotations

import math

from ..sharding import NamedSharding, PartitionSpec
from .partition import Sharded, ShardingTypeError, _elementwise, _entry, _explicit, _type_str


def _explicit_spec(ctx, x: Sharded) -> tuple:
    return tuple(_explicit(ctx, s) for s in x.spec)


def _named(ctx, x: Sharded) -> NamedSharding:
    """``x``'s sharding as its type names it (over the abstract mesh, as JAX's errors print it)."""
    return NamedSharding(ctx.mesh.abstract_mesh, PartitionSpec(*[_entry(s) for s in _explicit_spec(ctx, x)]))


def _typed_differ(ctx, xs) -> bool:
    typed = [_explicit_spec(ctx, x) for x in xs if any(_explicit_spec(ctx, x))]
    return any(t != typed[0] for t in typed[1:])


def select_n(ctx, prim, vals, params):
    """JAX's ``_select_sharding_rule``: the cases typed alike, a ``which`` that is not a scalar
    typed as they are; then elementwise."""
    which, cases = vals[0], vals[1:]
    if ctx.explicit:
        if _typed_differ(ctx, cases):
            shown = ", ".join(str(_named(ctx, c)) for c in cases)
            raise ShardingTypeError(f"select cases must have the same shardings, got [{shown}].")
        typed = next((c for c in cases if any(_explicit_spec(ctx, c))), None)
        if typed is not None and any(_explicit_spec(ctx, which)):
            if _explicit_spec(ctx, which) != _explicit_spec(ctx, typed):
                raise ShardingTypeError(
                    "select `which` must be scalar or have the same sharding as cases, got `which` "
                    f"sharding {_named(ctx, which)} but case sharding {_named(ctx, cases[0])}."
                )
    return _elementwise(ctx, prim, vals, params)


def check_concatenate(ctx, vals) -> None:
    """JAX's ``_concatenate_sharding_rule``: operands typed alike."""
    if ctx.explicit and _typed_differ(ctx, vals):
        shown = ", ".join(str(_named(ctx, x)) for x in vals)
        raise ShardingTypeError(f"All operands should have the same sharding. Got shardings {shown}")


# --- reshape ----------------------------------------------------------------------------------


class _Untypable(Exception):
    """A reshape JAX's types cannot follow (its ``raise_reshape_error``)."""


def reshaped(ctx, x: Sharded, shape, new, dimensions) -> tuple | None:
    """The layout JAX types a reshape of ``x`` (global ``shape``, split over typed axes only) to
    ``new`` with, or None (no typed split; another kind of axis). JAX's error where its rule cannot
    type it, when checking (``ctx.explicit``); else None there too."""
    if not any(x.spec) or any(a not in ctx.typed for s in x.spec for a in s):
        return None
    try:
        return reshaped_spec(tuple(shape), tuple(x.spec), tuple(new), ctx.sizes, dimensions)
    except _Untypable:
        if not ctx.explicit:
            return None
        raise ShardingTypeError(
            "This reshape is not supported. Please specify the sharding of the output via the "
            f"`out_sharding` argument of jax.lax.reshape. Got operand type: {_type_str(ctx, x, long=True)}, "
            f"new sizes: {tuple(new)}"
        ) from None


def reshaped_spec(shape: tuple, spec: tuple, new: tuple, sizes: dict, dimensions=None) -> tuple:
    """The spec JAX's ``_reshape_sharding_rule`` gives a reshape of an operand split ``spec`` (a
    tuple of axes per dimension) to ``new``: singleton dimensions come and go; otherwise one
    dimension is split into a run (its axes spread over the run, major first) or a run is merged
    into one (the run's axes joined). ``_Untypable`` where JAX refuses."""
    if [n for n in shape if n != 1] == [n for n in new if n != 1]:
        kept = iter(s for n, s in zip(shape, spec) if n != 1)
        return tuple(() if n == 1 else next(kept) for n in new)
    groups = _one_run(shape, new)
    if groups is not None:  # one dimension split into a run of new ones
        out: list = []
        for g, s in zip(groups, spec):
            if not isinstance(g, list):
                out.append(s)
            elif not s:
                out.extend([()] * len(g))
            elif dimensions is None:
                out.extend(_spread(s, g, sizes))
            else:
                raise _Untypable
        return tuple(out)
    groups = _one_run(new, shape) if len(new) < len(shape) else None
    if groups is None:
        raise _Untypable
    out, d = [], 0  # a run of dimensions merged into one new one
    for n, g in zip(new, groups):
        if not isinstance(g, list):
            out.append(spec[d])
            d += 1
            continue
        run = spec[d : d + len(g)]
        d += len(g)
        if not any(run):
            out.append(())
        elif dimensions is None:
            while not run[-1]:
                run = run[:-1]
            if not all(run):
                raise _Untypable
            out.extend(_spread(tuple(a for s in run for a in s), [n], sizes))
        else:
            raise _Untypable
    return tuple(out)


def _one_run(short: tuple, long: tuple):
    """JAX's ``_split_on_one_axis``: ``short``'s dimensions each either kept in ``long`` or, for
    exactly one of them, the list of ``long``'s sizes it splits into; None when ``long`` is not
    such a split; ``_Untypable`` when more than one dimension splits."""
    if len(long) <= len(short):
        return None
    ones = 0
    while short and long and short[-1] == 1 and long[-1] == 1:
        ones += 1
        short, long = short[:-1], long[:-1]
    i = j = runs = 0
    out: list = []
    while j < len(long):
        if i >= len(short):
            return None
        if short[i] == long[j]:
            out.append(short[i])
        else:
            runs += 1
            if runs > 1:
                raise _Untypable
            run = [long[j]]
            nj, ni = j + 1, i + 1
            while math.prod(run) != short[i] or (nj < len(long) and long[nj] == 1):
                if math.prod(run) > short[i]:
                    return None
                if math.prod(run) == short[i] and ni < len(short) and long[nj] == short[ni]:
                    break
                j += 1
                if j >= len(long):
                    return None
                run.append(long[j])
                nj += 1
            out.append(run)
        i += 1
        j += 1
    if len(out) != len(short):  # (JAX asserts this)
        raise _Untypable
    return out + [1] * ones


def _spread(axes: tuple, run: list, sizes: dict) -> list:
    """JAX's ``split_partitions``: ``axes`` handed out major first over the dimensions of ``run``,
    each taking axes while its size is left over 1 (``_Untypable`` when an axis does not divide it)."""
    left = iter(axes)
    out = []
    for n in run:
        taken = []
        while n > 1:
            a = next(left, None)
            if a is None:
                break
            n, rem = divmod(n, sizes[a])
            if rem:
                raise _Untypable
            taken.append(a)
        out.append(tuple(taken))
    if next(left, None) is not None:  # (JAX asserts this)
        raise _Untypable
    return out


def broadcast_sharding(shapes: list, shardings: list) -> NamedSharding | None:
    """JAX's ``lax.broadcast_shardings``: how ``jnp``'s broadcasts of operands of ``shapes`` laid
    out as ``shardings`` (None: replicated) type their common result. The highest-rank operand's
    layout when the others agree with its trailing dimensions; else, dimension by dimension, the
    one split the operands of more than one element there name (ShardingTypeError if two differ).
    None when no operand is laid out.

    >>> S = jax.sharding
    >>> mesh = S.AbstractMesh((2, 2), ("x", "y"), axis_types=(S.AxisType.Explicit,) * 2)
    >>> split = [S.NamedSharding(mesh, S.PartitionSpec("x", None)), S.NamedSharding(mesh, S.PartitionSpec("y"))]
    >>> broadcast_sharding([(4, 4), (4,)], split).spec
    P('x', 'y')
    """
    named = [s for s in shardings if s is not None]
    if not named:
        return None
    mesh = named[0].mesh
    ndim = max(map(len, shapes))
    # (each dimension's axes as a tuple: () where it is not split)
    specs = [
        tuple(s._normalized(len(n))) if s is not None else ((),) * len(n) for n, s in zip(shapes, shardings)
    ]
    top = max(range(len(shapes)), key=lambda i: len(shapes[i]))  # (the first of highest rank, as max's)
    if ndim == 0 or all(specs[top][ndim - len(sp) :] == sp for sp in specs):
        return shardings[top] or NamedSharding(mesh, PartitionSpec(*[None] * ndim))
    padded = [
        (((),) * (ndim - len(sp)) + sp, (1,) * (ndim - len(n)) + tuple(n)) for n, sp in zip(shapes, specs)
    ]
    result: list = []
    for d in range(ndim):
        ss = [sp[d] for sp, _ in padded]
        wide = {s for s, (_, n) in zip(ss, padded) if s or n[d] != 1}
        split = {s for s in ss if s}
        if len(set(ss)) == 1 or len(wide) <= 1:
            result.append(ss[0] if len(set(ss)) == 1 else next(iter(wide), ()))
        elif len(split) > 1:
            shown = ", ".join(str(tuple(_entry(a) for a in sp)) for sp, _ in padded)
            raise ShardingTypeError(
                f"broadcast_shardings got incompatible shardings for broadcasting: {shown}."
            )
        else:
            result.append(split.pop())
    return NamedSharding(mesh, PartitionSpec(*[_entry(a) for a in result]))
