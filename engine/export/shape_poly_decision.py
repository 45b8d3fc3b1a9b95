"""Deciding comparisons of symbolic dimensions: lower and upper bounds of an expression.

What is known, per scope: bounds of single terms (a variable is >= 1; ``mod(e, k)`` is in
``[0, k-1]``; a product's bounds follow from its factors'; ``t >= 16``-style constraints) and
linear facts over several terms (``a - b >= 0`` from ``"a >= b"``, ``max(a, b) - a >= 0``).
An expression's bounds are the interval sum of its terms' bounds, tightened by eliminating a term
against each linear fact (``e = e0 + s*c`` with ``c >= 0`` bounds ``e`` from one side by ``e0``),
a few levels deep. Sound and incomplete, as JAX's procedure is (what cannot be shown is
inconclusive); it eliminates against every fact, not only those led by the term, so it shows a few
things JAX's cannot (``a >= 9`` below).

  >>> from engine.export.shape_poly import symbolic_shape
  >>> a, b = symbolic_shape("a, b", constraints=("a >= b + 8",))
  >>> bounds(a - b), bounds(a)
  ((8, inf), (9, inf))
"""

from __future__ import annotations

import math
from typing import Any, Callable

from .shape_poly import MAX, MIN, MOD, FLOORDIV, _DimExpr, _DimTerm, _ONE

INF = math.inf
_DEPTH = 3  # how many eliminations deep a bound is searched


def bounds(e: Any, enough: Callable[[float, float], bool] | None = None) -> tuple[float, float]:
    """``(lower, upper)`` bounds of a dimension (``±inf`` when unbounded); the search stops early
    once ``enough(lower, upper)`` (e.g. the sign is known)."""
    if not isinstance(e, _DimExpr):
        return (int(e), int(e))
    scope = e.scope
    cached = scope._bounds_cache.get(e)
    if cached is not None:
        return cached
    state = _state(scope)
    state.add_implicit_expr(e)
    lb, ub = state.bounds(e, _DEPTH, enough)
    out = (int(lb) if lb > -INF else lb, int(ub) if ub < INF else ub)
    if enough is None:
        scope._bounds_cache[e] = out
    return out


def sign_known(lb: float, ub: float) -> bool:
    """Enough to decide ``e >= 0``."""
    return lb >= 0 or ub < 0


def max_known(lb: float, ub: float) -> bool:
    """Enough to decide ``max(e, 0)``."""
    return lb >= 0 or ub <= 0


def _state(scope: Any) -> _Facts:
    state = getattr(scope, "_facts", None)
    if state is None:
        state = scope._facts = _Facts(scope)
        for cmp, diff, text in scope._constraints:
            state.add_implicit_expr(diff)
            state.add(cmp, diff, text)
    return state


def _ceil_div(x: float, k: int) -> float:
    return x if x in (INF, -INF) else math.ceil(x / k)


def _floor_div(x: float, k: int) -> float:
    return x if x in (INF, -INF) else math.floor(x / k)


def _scale(lo: float, hi: float, k: int) -> tuple[float, float]:
    return (k * lo, k * hi) if k > 0 else (k * hi, k * lo)


class _Facts:
    def __init__(self, scope: Any):
        self.scope = scope
        self.term_bounds: dict[_DimTerm, tuple[float, float]] = {}
        self.linear: list[tuple[str, _DimExpr]] = []  # (">=" or "==", e): e >= 0 or e == 0
        self.seen: set[_DimTerm] = set()

    # -- recording facts ------------------------------------------------------------------------

    def add(self, cmp: str, e: Any, text: str | None = None) -> None:
        """Records ``e >= 0`` (cmp ``">="``) or ``e == 0``."""
        if isinstance(e, float):
            if e == INF:
                return
            e = int(e)
        if not isinstance(e, _DimExpr):
            if e < 0 or (cmp == "==" and e != 0):
                raise ValueError(f"Unsatisfiable constraint: {text or str(e) + ' >= 0'}")
            return
        terms = [(t, k) for t, k in e.terms if not t.is_constant]
        const = sum(k for t, k in e.terms if t.is_constant)
        if len(terms) == 1:
            (t, k) = terms[0]  # const + k*t (>= | ==) 0
            lo, hi = self.term_bounds.get(t, (-INF, INF))
            if cmp == "==":
                if const % k:
                    raise ValueError(f"Unsatisfiable constraint: {text}")
                lo, hi = max(lo, -const // k), min(hi, -const // k)
            elif k > 0:
                lo = max(lo, math.ceil(-const / k))
            else:
                hi = min(hi, math.floor(-const / k))
            if lo > hi:
                raise ValueError(f"Unsatisfiable constraint: {text}")
            self.term_bounds[t] = (lo, hi)
            self.scope._bounds_cache.clear()
            return
        self.linear.append((cmp, e))
        self.scope._bounds_cache.clear()

    def add_geq(self, e1: Any, e2: Any) -> None:
        if isinstance(e1, float) or isinstance(e2, float):
            if e1 == INF or e2 == -INF:
                return
            if e1 == -INF or e2 == INF:
                raise ValueError("Unsatisfiable constraint")
            e1, e2 = (int(e) if isinstance(e, float) else e for e in (e1, e2))
        self.add(">=", e1 - e2)

    def add_implicit_expr(self, e: Any) -> None:
        if isinstance(e, _DimExpr):
            for t, _ in e.terms:
                if not t.is_constant:
                    self.add_implicit_term(t)

    def add_implicit_term(self, t: _DimTerm) -> None:
        if t in self.seen:
            return
        self.seen.add(t)
        te = _DimExpr._make({t: 1}, self.scope)
        if not isinstance(te, _DimExpr):
            return
        f = t.to_factor()
        if f is None:  # a product: the interval product of its factors' powers
            lo: float = 1
            hi: float = 1
            for f1, e1 in t.factors:
                ft = _DimTerm(((f1, 1),))
                self.add_implicit_term(ft)
                fl, fh = self.bounds(_DimExpr(((ft, 1),), self.scope), _DEPTH)
                cands = [x**e1 if abs(x) != INF else (x if e1 % 2 or x > 0 else INF) for x in (fl, fh)]
                if fl < 0 < fh and e1 % 2 == 0:
                    cands.append(0)
                pl, ph = min(cands), max(cands)
                prods = [_mul(a, b) for a in (lo, hi) for b in (pl, ph)]
                lo, hi = min(prods), max(prods)
            self.add_geq(te, lo)
            self.add_geq(hi, te)
            return
        if f.var is not None:
            self.add_geq(te, 1)
            return
        for o in f.operands:
            self.add_implicit_expr(o)
        x, y = f.operands
        xl, xh = self.bounds(x, _DEPTH)
        yl, yh = self.bounds(y, _DEPTH)
        if f.operation == MOD:
            if yl > 0:
                self.add_geq(te, 0)
                self.add_geq(y - 1, te)
                self.add_geq(yh - 1, te)
            elif yh < 0:
                self.add_geq(te, y + 1)
                self.add_geq(0, te)
        elif f.operation == FLOORDIV:
            if yl <= 0 <= yh:
                return
            cands = [_floordiv(a, b) for a in (xl, xh) for b in (yl, yh)]
            self.add_geq(te, min(cands))
            self.add_geq(max(cands), te)
            if yl > 0 and xl >= 0:
                self.add_geq(te, 0)
            if yl > 0:  # x == y * floordiv(x, y) + mod(x, y)
                m = _DimExpr._from_operation(MOD, x, y, scope=self.scope)
                self.add_implicit_expr(m)
                self.add("==", x - (y * te + m))
        elif f.operation in (MAX, MIN):
            pick = max if f.operation == MAX else min
            self.add_geq(te, pick(xl, yl))
            self.add_geq(pick(xh, yh), te)
            for o in (x, y):
                if f.operation == MAX:
                    self.add_geq(te, o)
                else:
                    self.add_geq(o, te)

    # -- bounds ---------------------------------------------------------------------------------

    def bounds(
        self, e: Any, depth: int, enough: Callable[[float, float], bool] | None = None
    ) -> tuple[float, float]:
        if not isinstance(e, _DimExpr):
            return (e, e)
        lb: float = 0
        ub: float = 0
        for t, k in e.terms:
            tl, th = (1, 1) if t.is_constant else self.term_bounds.get(t, (-INF, INF))
            sl, sh = _scale(tl, th, k)
            lb, ub = lb + sl, ub + sh
        if depth <= 0 or lb == ub or (enough is not None and enough(lb, ub)):
            return (lb, ub)
        coeffs = dict(e.terms)
        for cmp, c in self.linear:
            for t, kc in c.terms:
                k = coeffs.get(t)
                if k is None or t is _ONE or t.is_constant:
                    continue
                s = k if kc > 0 else -k
                e0 = abs(kc) * e - s * c  # t eliminated: |kc|*e == e0 + s*c
                l0, u0 = self.bounds(e0, depth - 1)
                if s > 0 or cmp == "==":
                    lb = max(lb, _ceil_div(l0, abs(kc)))
                if s < 0 or cmp == "==":
                    ub = min(ub, _floor_div(u0, abs(kc)))
                if enough is not None and enough(lb, ub):
                    return (lb, ub)
        for t, k in e.terms:
            f = t.to_factor()
            if f is None or f.operation not in (MAX, MIN):
                continue
            rest = e - k * _DimExpr._make({t: 1}, self.scope)
            b1 = self.bounds(rest + k * f.operands[0], depth - 1)
            b2 = self.bounds(rest + k * f.operands[1], depth - 1)
            like_max = (k > 0) == (f.operation == MAX)
            pick = max if like_max else min
            lb, ub = max(lb, pick(b1[0], b2[0])), min(ub, pick(b1[1], b2[1]))
        return (lb, ub)


def _mul(a: float, b: float) -> float:
    if a == 0 or b == 0:
        return 0
    return a * b


def _floordiv(a: float, b: float) -> float:
    if abs(b) == INF:
        if abs(a) == INF:
            return -INF if (a >= 0) != (b >= 0) else INF
        return -1 if (a >= 0) != (b >= 0) and a != 0 else 0
    if abs(a) == INF:
        return -INF if (a >= 0) != (b >= 0) else INF
    return math.floor(a / b)
