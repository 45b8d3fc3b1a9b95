"""Exported functions with symbolic shapes: solving dimension variables from the shapes of a call's
arguments, and specializing the staged program to them.

JAX solves ``args[i].shape[j] == e`` equations where ``e`` is linear in one unknown variable (after
substituting the ones already known), checks the rest and the scope's constraints, and raises its
``ValueError`` ("Input shapes do not match the polymorphic shapes specification") otherwise. The
engine's program is a jaxpr, so specializing it evaluates every symbolic dimension in its types
and parameters (shapes of ``reshape``, ``iota``, ``broadcast_in_dim``, slice bounds, the ``dim``
of ``dim_as_value``), recursively into sub-jaxprs.

  >>> from engine.export.shape_poly import symbolic_shape
  >>> from engine.core import ShapedArray
  >>> b, d = symbolic_shape("b, 2*d")
  >>> solve_dim_vars([ShapedArray((b, d), "float32")], [(3, 8)], ["args[0]"])
  {'b': 3, 'd': 4}
"""

from __future__ import annotations

from typing import Any, Sequence

from .. import ir
from ..core import ShapedArray
from .shape_poly import UnexpectedDimVar, _DimExpr

# JAX's messages are one line of pieces: what failed, the specifications, the variables found so far.
_MISMATCH = "Input shapes do not match the polymorphic shapes specification. "
_SEE = ". Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."
_SEE_SOLVABLE = (
    ". Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
    "#dimension-variables-must-be-solvable-from-the-input-shapes for more details."
)


def is_symbolic_dim(d: Any) -> bool:
    return isinstance(d, _DimExpr)


def arg_names(in_tree: Any) -> list[str]:
    """``args[0]``, ``kwargs['y']``: how JAX's messages name the flat arguments of ``(args, kwargs)``."""
    from ..tree_util import keystr, tree_flatten_with_path

    paths = tree_flatten_with_path(in_tree.unflatten([0] * in_tree.num_leaves))[0]
    return [("args" if p[0].idx == 0 else "kwargs") + keystr(p[1:]) for p, _ in paths]


def is_polymorphic(avals: Sequence[Any]) -> bool:
    return any(isinstance(d, _DimExpr) for a in avals for d in getattr(a, "shape", ()))


def _vars_of(d: Any) -> set[str]:
    return d._get_vars() if isinstance(d, _DimExpr) else set()


def _specs(avals: Sequence[ShapedArray], names: Sequence[str]) -> str:
    specs = ",".join(
        f"{n}.shape = ({', '.join(map(str, a.shape))}{',' if len(a.shape) == 1 else ''})"
        for a, n in zip(avals, names)
        if is_polymorphic([a])
    )
    return f" Using the following polymorphic shapes specifications: {specs}."


def _obtained(found: Sequence[str]) -> str:
    return " Obtained dimension variables: " + "".join(f"{f}, " for f in found)


def _solve(avals: Sequence[ShapedArray], shapes: Sequence[Sequence[Any]] | None, names: Sequence[str]):
    """Solves for the variables; with ``shapes=None`` only checks that it is possible (at export).
    Returns ``(env, unsolved equations, how each variable was found)``."""
    eqns = [
        (d, None if shapes is None else shapes[i][j], f"{names[i]}.shape[{j}]")
        for i, a in enumerate(avals)
        for j, d in enumerate(a.shape)
        if isinstance(d, _DimExpr)
    ]
    env: dict[str, Any] = {}
    found: list[str] = []
    progress = True
    while progress:
        progress = False
        for eqn in list(eqns):
            e, value, where = eqn
            unknown = [v for v in _vars_of(e) if v not in env]
            if len(unknown) != 1:
                continue
            (var,) = unknown
            k, rest = _linear_in(e, var, env, value is not None)
            if k is None:
                continue
            eqns.remove(eqn)
            progress = True
            if value is None:
                env[var] = var
                continue
            q, r = divmod(value - rest, k)
            if r:
                raise ValueError(
                    f"{_MISMATCH}Division had remainder {r} when computing the value of '{var}'."
                    f"{_specs(avals, names)}{_obtained(found)}{_SEE}"
                )
            env[var] = q
            found.append(f"'{var}' = {q} from specification '{e}' for dimension {where} (= {value})")
            if q < 1:
                raise ValueError(
                    f"{_MISMATCH}Expected value >= 1 for dimension variable '{var}'."
                    f"{_specs(avals, names)}{_obtained(found)}{_SEE}"
                )
    return env, eqns, found


def _linear_in(e: _DimExpr, var: str, env: dict[str, Any], with_rest: bool) -> tuple[int | None, int]:
    """``(k, c)`` with ``e == k*var + c`` under ``env`` (``c`` only ``with_rest``), or
    ``(None, 0)`` when ``e`` is not linear in ``var``."""
    k, rest = 0, 0
    for t, c in e.terms:
        f = t.to_factor()
        if f is not None and f.var == var:
            k += c
        elif var in {v for fac, _ in t.factors for v in fac.variables()}:
            return None, 0
        elif with_rest:
            rest += c * (1 if t.is_constant else int(t.evaluate(env, e.scope)))
    return (k or None), rest


def check_solvable(avals: Sequence[ShapedArray], names: Sequence[str]) -> None:
    """At export: every dimension variable can be found from the argument shapes (JAX's error)."""
    env, left, _ = _solve(avals, None, names)
    all_vars = set().union(*(_vars_of(d) for a in avals for d in a.shape))
    missing = all_vars - set(env)
    if missing:
        unprocessed = ", ".join(f"'{e}' for dimension size {where}" for e, _, where in left)
        raise ValueError(
            f"Cannot solve for values of dimension variables {missing}. "
            f"We can only solve linear uni-variate constraints.{_specs(avals, names)}"
            f" Unprocessed specifications: {unprocessed}{_SEE_SOLVABLE}"
        )


def check_dim_vars_used(closed: ir.ClosedJaxpr, in_avals: Sequence[ShapedArray]) -> None:
    """At export: the program mentions no dimension variable the argument shapes do not give."""
    known = set().union(*(_vars_of(d) for a in in_avals for d in a.shape))
    for d in _dims_in(closed.jaxpr):
        for v in _vars_of(d) - known:
            raise UnexpectedDimVar(
                f"Encountered dimension variable '{v}' that is not appearing in the shapes of the function "
                f"arguments.\nThe following dimension variables are appearing in the shapes of the function "
                f"arguments: {sorted(known)}.\nPlease see https://docs.jax.dev/en/latest/export/"
                "shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes for more details."
            )


def _dims_in(jaxpr: ir.Jaxpr):
    for v in (*jaxpr.constvars, *jaxpr.in_binders):
        yield from v.aval.shape
    for eqn in jaxpr.eqns:
        for v in eqn.out_binders:
            yield from getattr(v.aval, "shape", ())
        yield from _dims_in_param(list(eqn.params.values()))


def _dims_in_param(p: Any):
    if isinstance(p, _DimExpr):
        yield p
    elif isinstance(p, (tuple, list)):
        for q in p:
            yield from _dims_in_param(q)
    elif isinstance(p, ir.ClosedJaxpr):
        yield from _dims_in(p.jaxpr)
    elif isinstance(p, ir.Jaxpr):
        yield from _dims_in(p)


def solve_dim_vars(
    avals: Sequence[ShapedArray], shapes: Sequence[Sequence[int]], names: Sequence[str]
) -> dict[str, int]:
    """The dimension variables' values for a call with arguments of ``shapes``; JAX's ValueError
    when the shapes do not fit (a remainder, a variable < 1, an inconsistency, a constraint)."""
    env, left, found = _solve(avals, shapes, names)
    for e, value, where in left:
        got = e._evaluate(env) if not (_vars_of(e) - set(env)) else None
        if got != value:
            raise ValueError(
                f"{_MISMATCH}Found inconsistency between dimension size {where} (= {value}) and the "
                f"specification '{e}' (= {got}).{_specs(avals, names)}{_obtained(found)}{_SEE}"
            )
    scopes = {d.scope for a in avals for d in a.shape if isinstance(d, _DimExpr)}
    for scope in scopes:
        for cmp, diff, text in scope._constraints:
            v = diff._evaluate(env)
            if (cmp == "==" and v != 0) or (cmp == ">=" and v < 0):
                raise ValueError(
                    f"Input shapes do not match the symbolic shape constraint {text}. Expected '{diff}' to be "
                    f"{'greater or equal' if cmp == '>=' else 'equal'} to 0, but found {v}. "
                    f"{_specs(avals, names)}{_obtained(found)}{_SEE}"
                )
    return env


def evaluate_aval(aval: Any, env: dict[str, int]) -> Any:
    if not isinstance(aval, ShapedArray) or not is_polymorphic([aval]):
        return aval
    return aval.update(shape=tuple(_eval(d, env) for d in aval.shape))


def _eval(d: Any, env: dict[str, int]) -> Any:
    return int(d._evaluate(env)) if isinstance(d, _DimExpr) else d


def specialize(closed: ir.ClosedJaxpr, env: dict[str, int]) -> ir.ClosedJaxpr:
    """``closed`` with every symbolic dimension evaluated under ``env``."""
    return ir.ClosedJaxpr(_specialize_jaxpr(closed.jaxpr, env), closed.consts)


def _specialize_jaxpr(jaxpr: ir.Jaxpr, env: dict[str, int]) -> ir.Jaxpr:
    vars_: dict[ir.Var, ir.Var] = {}

    def var(v: ir.Var) -> ir.Var:
        new = vars_.get(v)
        if new is None:
            aval = evaluate_aval(v.aval, env)
            new = v if aval is v.aval else (ir.DropVar(aval) if isinstance(v, ir.DropVar) else ir.Var(aval))
            vars_[v] = new
        return new

    def atom(a: ir.Atom) -> ir.Atom:
        return a if type(a) is ir.Literal else var(a)  # type: ignore[arg-type]

    eqns = [
        eqn._replace(
            inputs=[atom(a) for a in eqn.inputs],
            params={k: _param(p, env) for k, p in eqn.params.items()},
            out_binders=[var(v) for v in eqn.out_binders],
        )
        for eqn in jaxpr.eqns
    ]
    return ir.Jaxpr(
        [var(v) for v in jaxpr.constvars],
        [var(v) for v in jaxpr.in_binders],
        eqns,
        [atom(a) for a in jaxpr.outs],
    )


def _param(p: Any, env: dict[str, int]) -> Any:
    if isinstance(p, _DimExpr):
        return _eval(p, env)
    if type(p) in (tuple, list):
        return type(p)(_param(q, env) for q in p)
    if isinstance(p, ir.ClosedJaxpr):
        return specialize(p, env)
    if isinstance(p, ir.Jaxpr):
        return _specialize_jaxpr(p, env)
    if isinstance(p, ShapedArray):
        return evaluate_aval(p, env)
    return p
