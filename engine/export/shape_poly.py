"""Symbolic dimensions: shapes with dimension variables, as JAX's shape polymorphism has them.

A dimension expression is a sum of terms with integer coefficients; a term is a product of factors
raised to positive powers; a factor is a dimension variable (standing for an integer >= 1) or an
operation ``floordiv``/``mod``/``max``/``min`` on expressions. Expressions are kept in a normal
form (terms sorted largest first, as JAX sorts them, so they print as JAX prints them) and an
expression that is a constant is a plain ``int``. Comparisons are decided by bounds
(``shape_poly_decision``) and raise ``InconclusiveDimensionOperation`` when the answer depends on
the variables' values; ``==`` is total (``False`` unless equal for every valuation), as in JAX.

  >>> a, b = symbolic_shape("a, b")
  >>> (a + b) * 2, b + b == 2 * b, a >= 1
  (2*b + 2*a, True, True)
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

from .. import dims
from ..dims import InconclusiveDimensionOperation as _CoreInconclusive

_HELP = (
    "\nThis error arises for comparison operations with shapes that\n"
    "are non-constant, and the result of the operation cannot be represented as\n"
    "a boolean value for all values of the symbolic dimensions involved.\n\n"
    "Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
    "#comparison-of-symbolic-dimensions-is-partially-supported\nfor more details.\n"
)


class InconclusiveDimensionOperation(_CoreInconclusive):
    """Raised when we cannot conclusively compute with symbolic dimensions."""

    def __init__(self, message: str):
        super().__init__(message + _HELP)


class UnexpectedDimVar(Exception):
    pass


FLOORDIV, MOD, MAX, MIN = "floordiv", "mod", "max", "min"


class _DimFactor:
    """A dimension variable, or an operation applied to expressions."""

    __slots__ = ("var", "operation", "operands", "size", "key", "_hash")

    def __init__(self, var: str | None = None, operation: str | None = None, operands: tuple = ()):
        self.var, self.operation, self.operands = var, operation, operands
        self.size = 1 if var is not None else 1 + sum(o.size for o in operands)
        # The sort key orders factors by size, then by name (JAX's syntactic order).
        self.key = (self.size, var or "", operation or "", tuple(o.key for o in operands))
        self._hash = hash(self.key)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _DimFactor) and self.key == other.key

    def __str__(self) -> str:
        if self.var is not None:
            return self.var
        return f"{self.operation}({', '.join(map(str, self.operands))})"

    __repr__ = __str__

    def variables(self) -> set[str]:
        if self.var is not None:
            return {self.var}
        return set().union(*(o._get_vars() for o in self.operands))

    def evaluate(self, env: dict[str, Any], scope: SymbolicScope) -> Any:
        if self.var is not None:
            if self.var in env:
                return env[self.var]
            normalized = _DimExpr._from_var(self.var, scope)
            if not isinstance(normalized, _DimExpr) or normalized._to_var() != self.var:
                return normalized if not isinstance(normalized, _DimExpr) else normalized._evaluate(env)
            raise UnexpectedDimVar(
                f"Encountered dimension variable '{self.var}' that is not appearing in the shapes of "
                f"the function arguments.\nThe following dimension variables are appearing in the "
                f"shapes of the function arguments: {list(env)}.\nPlease see https://docs.jax.dev/en/"
                "latest/export/shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes"
                " for more details."
            )
        x, y = (o._evaluate(env) for o in self.operands)
        if self.operation == FLOORDIV:
            return x // y
        if self.operation == MOD:
            return x % y
        return dims.max_dim(x, y) if self.operation == MAX else dims.min_dim(x, y)


class _DimTerm:
    """A product of factors with positive exponents; no factors is the constant 1."""

    __slots__ = ("factors", "size", "key", "_hash")

    def __init__(self, factors: tuple[tuple[_DimFactor, int], ...]):
        self.factors = factors  # sorted largest first
        self.size = sum(1 + e * f.size for f, e in factors)
        self.key = (self.size, tuple((f.key, e) for f, e in factors))
        self._hash = hash(self.key)

    @staticmethod
    def of(exponents: dict[_DimFactor, int]) -> _DimTerm:
        return _DimTerm(
            tuple(sorted(((f, e) for f, e in exponents.items() if e), key=_first_key, reverse=True))
        )

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _DimTerm) and self.key == other.key

    def __str__(self) -> str:
        return "*".join(str(f) if e == 1 else f"{f}^{e}" for f, e in reversed(self.factors))

    __repr__ = __str__

    @property
    def is_constant(self) -> bool:
        return not self.factors

    def to_factor(self) -> _DimFactor | None:
        if len(self.factors) == 1 and self.factors[0][1] == 1:
            return self.factors[0][0]
        return None

    def mul(self, other: _DimTerm) -> _DimTerm:
        exps = dict(self.factors)
        for f, e in other.factors:
            exps[f] = exps.get(f, 0) + e
        return _DimTerm.of(exps)

    def divide(self, other: _DimTerm) -> _DimTerm | None:
        """``self / other`` when it is a term, else None."""
        exps = dict(self.factors)
        for f, e in other.factors:
            if exps.get(f, 0) < e:
                return None
            exps[f] -= e
        return _DimTerm.of(exps)

    def evaluate(self, env: dict[str, Any], scope: SymbolicScope) -> Any:
        out: Any = None
        for f, e in self.factors:
            v = f.evaluate(env, scope)
            for _ in range(e):
                out = v if out is None else out * v
        return 1 if out is None else out


def _first_key(pair: tuple) -> Any:
    return pair[0].key


_ONE = _DimTerm(())


class _DimExpr:
    """A symbolic dimension: a linear combination of terms, in one ``SymbolicScope``."""

    __slots__ = ("terms", "_scope", "size", "key", "_hash")
    __array_priority__ = 1000  # numpy defers ``ndarray - dim`` to us
    _is_dim_expr = True

    def __init__(self, terms: tuple[tuple[_DimTerm, int], ...], scope: SymbolicScope):
        self.terms = terms  # sorted largest term first; the constant (if any) is last
        self._scope = scope
        self.size = sum(1 + abs(k) * t.size for t, k in terms)
        self.key = (self.size, tuple((t.key, k) for t, k in terms))
        self._hash = hash((self.key, id(scope)))

    @property
    def scope(self) -> SymbolicScope:
        return self._scope

    # -- construction in normal form ------------------------------------------------------------

    @staticmethod
    def _make(coeffs: dict[_DimTerm, int], scope: SymbolicScope) -> Any:
        """The normal form of ``sum(k * t)``: the scope's equality rules applied, an int if constant."""
        coeffs = {t: k for t, k in coeffs.items() if k}
        if scope._rules:
            coeffs = scope._rewrite(coeffs)
        if not coeffs:
            return 0
        if len(coeffs) == 1 and _ONE in coeffs:
            return coeffs[_ONE]
        terms = tuple(sorted(coeffs.items(), key=_first_key, reverse=True))
        return _DimExpr(terms, scope)

    @staticmethod
    def _from_var(name: str, scope: SymbolicScope) -> Any:
        return _DimExpr._make({_DimTerm(((_DimFactor(var=name), 1),)): 1}, scope)

    @staticmethod
    def _from_operation(operation: str, *operands: Any, scope: SymbolicScope) -> Any:
        ops = tuple(_ensure_poly(o, operation, scope) for o in operands)
        factor = _DimFactor(operation=operation, operands=ops)
        return _DimExpr._make({_DimTerm(((factor, 1),)): 1}, scope)

    def _coeffs(self) -> dict[_DimTerm, int]:
        return dict(self.terms)

    # -- inspection -----------------------------------------------------------------------------

    @property
    def _leading_term(self) -> tuple[_DimTerm, int]:
        return self.terms[0]

    def _to_var(self) -> str | None:
        if len(self.terms) == 1 and self.terms[0][1] == 1:
            f = self.terms[0][0].to_factor()
            return f.var if f is not None else None
        return None

    def _to_factor(self) -> _DimFactor | None:
        if len(self.terms) == 1 and self.terms[0][1] == 1:
            return self.terms[0][0].to_factor()
        return None

    def _get_vars(self) -> set[str]:
        out: set[str] = set()
        for t, _ in self.terms:
            for f, _e in t.factors:
                out |= f.variables()
        return out

    get_vars = _get_vars

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        parts = []
        for t, k in self.terms:
            sign = "-" if k < 0 else "+"
            if t.is_constant:
                parts.append(f"{sign} {abs(k)}")
            else:
                parts.append(f"{sign} {t}" if abs(k) == 1 else f"{sign} {abs(k)}*{t}")
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else text

    __repr__ = __str__

    # -- arithmetic -----------------------------------------------------------------------------

    def _combine(self, other: Any, k_self: int, k_other: int, operation: str) -> Any:
        coeffs = {t: k * k_self for t, k in self.terms}
        if isinstance(other, _DimExpr):
            self._scope._check_same_scope(other, f"for {operation}")
            pairs: Any = other.terms
        else:
            pairs = ((_ONE, operator.index(other)),)
        for t, k in pairs:
            coeffs[t] = coeffs.get(t, 0) + k * k_other
        return _DimExpr._make(coeffs, self._scope)

    def __add__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__add__(other)
        return self._combine(other, 1, 1, "linear combination")

    def __radd__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__radd__(other)
        return self._combine(other, 1, 1, "linear combination")

    def __sub__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__sub__(other)
        return self._combine(other, 1, -1, "linear combination")

    def __rsub__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__rsub__(other)
        return self._combine(other, -1, 1, "linear combination")

    def __neg__(self) -> Any:
        return self._combine(0, -1, 0, "negation")

    def __mul__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__mul__(other)
        other = _ensure_poly(other, "mul", self._scope)
        coeffs: dict[_DimTerm, int] = {}
        for t1, k1 in self.terms:
            for t2, k2 in other.terms:
                t = t1.mul(t2)
                coeffs[t] = coeffs.get(t, 0) + k1 * k2
        return _DimExpr._make(coeffs, self._scope)

    def __rmul__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__rmul__(other)
        return self.__mul__(other)

    def __pow__(self, power: Any, modulo: Any = None) -> Any:
        if modulo is not None:
            raise NotImplementedError("__pow__ modulo not implemented")
        if isinstance(power, _DimExpr):
            return _as_value(self) ** _as_value(power)
        if power != int(power):
            raise ValueError(
                f"Symbolic dimension cannot be raised to non-integer powers: '{self}' ** '{power}'"
            )
        if power < 0:
            raise ValueError(f"Symbolic dimension cannot be raised to negative powers: '{self}' ** '{power}'")
        out: Any = 1
        for _ in range(int(power)):
            out = self * out
        return out

    def __rpow__(self, other: Any, modulo: Any = None) -> Any:
        return _as_value(self).__rpow__(other)

    def __floordiv__(self, divisor: Any) -> Any:
        if not _is_dim_like(divisor):
            return _as_value(self).__floordiv__(divisor)
        return self._divmod(divisor)[0]

    def __rfloordiv__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__rfloordiv__(other)
        return _ensure_poly(other, "floordiv", self._scope)._divmod(self)[0]

    def __mod__(self, divisor: Any) -> Any:
        if not _is_dim_like(divisor):
            return _as_value(self).__mod__(divisor)
        return self._divmod(divisor)[1]

    def __rmod__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__rmod__(other)
        return _ensure_poly(other, "mod", self._scope)._divmod(self)[1]

    def __divmod__(self, divisor: Any) -> Any:
        if not _is_dim_like(divisor):
            return _as_value(self).__divmod__(divisor)
        return self._divmod(divisor)

    def __rdivmod__(self, other: Any) -> Any:
        return _ensure_poly(other, "divmod", self._scope)._divmod(self)

    def __truediv__(self, divisor: Any) -> Any:  # "/" always makes a float array
        return _as_value(self).__truediv__(divisor)

    def __rtruediv__(self, dividend: Any) -> Any:
        return _as_value(self).__rtruediv__(dividend)

    def _divmod(self, divisor: Any) -> tuple[Any, Any]:
        """Polynomial division when exact (or with an integer remainder for a constant divisor),
        else the ``floordiv``/``mod`` operations."""
        quotient: Any = 0
        rest: Any = self
        d_const = None if isinstance(divisor, _DimExpr) else operator.index(divisor)
        while isinstance(rest, _DimExpr):
            t, k = rest._leading_term
            if t.is_constant:
                break
            if d_const is not None:
                q_term, d_k = t, d_const
            else:
                d_term, d_k = divisor._leading_term
                q_term = t.divide(d_term)
            if q_term is None or d_k == 0 or k % d_k:
                return self._opaque_divmod(divisor)
            q = _DimExpr._make({q_term: k // d_k}, self._scope)
            quotient = q + quotient
            rest = rest - q * divisor
        rest_int = int(rest)
        if d_const is None:
            if rest_int != 0:
                return self._opaque_divmod(divisor)
            return quotient, 0
        q_int, r_int = divmod(rest_int, d_const)
        return quotient + q_int, r_int

    def _opaque_divmod(self, divisor: Any) -> tuple[Any, Any]:
        return (
            _DimExpr._from_operation(FLOORDIV, self, divisor, scope=self._scope),
            _DimExpr._from_operation(MOD, self, divisor, scope=self._scope),
        )

    def max(self, other: Any) -> Any:
        lb, ub = _decision().bounds(self - other, _decision().max_known)
        if lb >= 0:
            return self
        if ub <= 0:
            return other
        return _DimExpr._from_operation(MAX, self, other, scope=self._scope)

    def rmax(self, other: Any) -> Any:
        lb, ub = _decision().bounds(self - other, _decision().max_known)
        if lb >= 0:
            return self
        if ub <= 0:
            return other
        return _DimExpr._from_operation(MAX, other, self, scope=self._scope)

    def min(self, other: Any) -> Any:
        lb, ub = _decision().bounds(self - other, _decision().max_known)
        if lb >= 0:
            return other
        if ub <= 0:
            return self
        return _DimExpr._from_operation(MIN, self, other, scope=self._scope)

    def rmin(self, other: Any) -> Any:
        lb, ub = _decision().bounds(self - other, _decision().max_known)
        if lb >= 0:
            return other
        if ub <= 0:
            return self
        return _DimExpr._from_operation(MIN, other, self, scope=self._scope)

    # -- comparisons ----------------------------------------------------------------------------

    def __int__(self) -> int:
        if len(self.terms) == 1 and self.terms[0][0].is_constant:  # (an operand: a constant)
            return self.terms[0][1]
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant"
        )

    def __eq__(self, other: Any) -> bool:
        # Total, so that shapes can be hashed and looked up: unequal unless the difference is 0.
        if isinstance(other, _DimExpr):
            if other._scope is not self._scope:
                return False
        elif not dims.is_constant_dim(other):
            return False
        diff = self - other
        return not isinstance(diff, _DimExpr) and diff == 0

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __ge__(self, other: Any) -> Any:
        if not _is_dim_like(other):  # an array: compared as values
            return _as_value(self).__ge__(other)
        return _geq(self, other, lambda: f"'{self}' >= '{other}'")

    def __le__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__le__(other)
        return _geq(other, self, lambda: f"'{self}' <= '{other}'")

    def __gt__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__gt__(other)
        return not _geq(other, self, lambda: f"'{self}' > '{other}'")

    def __lt__(self, other: Any) -> Any:
        if not _is_dim_like(other):
            return _as_value(self).__lt__(other)
        return not _geq(self, other, lambda: f"'{self}' < '{other}'")

    # -- evaluation -----------------------------------------------------------------------------

    def _evaluate(self, env: dict[str, Any]) -> Any:
        out: Any = None
        for t, k in self.terms:
            v = k if t.is_constant else t.evaluate(env, self._scope) * k
            out = v if out is None else out + v
        return out

    def dimension_as_value(self) -> Any:
        """This dimension as a traced ``int32`` scalar (JAX's ``dim_as_value``)."""
        return _as_value(self)


def _decision() -> Any:
    from . import shape_poly_decision

    return shape_poly_decision


def _geq(e1: Any, e2: Any, describe: Any) -> bool:
    scope = e1._scope if isinstance(e1, _DimExpr) else e2._scope
    if isinstance(e1, _DimExpr) and isinstance(e2, _DimExpr):
        scope._check_same_scope(e2, f"when comparing {describe()}")
    lb, ub = _decision().bounds(e1 - e2, _decision().sign_known)
    if lb >= 0:
        return True
    if ub < 0:
        return False
    where = f"\nUsing symbolic scope {scope}" if scope._constraints else ""
    raise InconclusiveDimensionOperation(
        f"Symbolic dimension comparison {describe()} is inconclusive.{where}"
    )


def _is_dim_like(x: Any) -> bool:
    return isinstance(x, _DimExpr) or dims.is_constant_dim(x)


def _ensure_poly(x: Any, operation: str, scope: SymbolicScope) -> _DimExpr:
    if isinstance(x, _DimExpr):
        scope._check_same_scope(x, f"for operation {operation}")
        return x
    if dims.is_constant_dim(x):
        return _DimExpr(((_ONE, operator.index(x)),), scope)
    raise TypeError(f"Symbolic dimension {operation} not supported for {x}.")


def _as_value(d: _DimExpr) -> Any:
    from . import dim_value

    return dim_value.dim_as_value(d)


def is_symbolic_dim(d: Any) -> bool:
    """Whether ``d`` is a symbolic dimension expression."""
    return isinstance(d, _DimExpr)


class SymbolicScope:
    """The scope of symbolic expressions that may be mixed, with their constraints.

    Expressions from different scopes cannot be combined. Constraints are strings
    ``"e1 >= e2"``, ``"e1 <= e2"`` or ``"e1 == e2"``; equalities rewrite their left side to their
    right side whenever it appears.

      >>> scope = SymbolicScope(("a >= 4",))
      >>> a, = symbolic_shape("a", scope=scope)
      >>> a >= 3
      True
    """

    def __init__(self, constraints_str: Sequence[str] = ()):
        if isinstance(constraints_str, str):
            raise ValueError(
                f"The symbolic constraints should be a sequence of strings. Got {constraints_str!r}"
            )
        from ..source_info import current_source_info

        info = current_source_info()
        self._location = f"{info.file}:{info.line} ({info.function})" if info is not None else "unknown"
        self._constraints: list[tuple[str, Any, str]] = []  # (cmp "==" or ">=", e1 - e2, as written)
        self._rules: dict[_DimTerm, tuple[Any, int]] = {}  # t*k -> expression, for "t*k == e"
        self._bounds_cache: dict[Any, tuple[float, float]] = {}
        for c in constraints_str:
            self._add_constraint(c)
            self._bounds_cache.clear()

    def __str__(self) -> str:
        text = f"{id(self)} created at {self._location}"
        if self._constraints:
            text += " with constraints:" + "".join(f"\n  {c}" for _, _, c in self._constraints)
        return text

    __repr__ = __str__

    def _add_constraint(self, text: str) -> None:
        if not isinstance(text, str):
            raise ValueError(f"SymbolicScope constraint must be a string: got {text!r}")
        for cmp in ("==", ">=", "<="):
            pos = text.find(cmp)
            if pos >= 0:
                break
        else:
            raise ValueError("Constraint parsing error: must contain one of '==' or '>=' or '<='")
        (e1,) = _Parser(text[:pos], None, repr(text[:pos]), self).parse()
        (e2,) = _Parser(text[pos + 2 :], None, repr(text[pos + 2 :]), self).parse()
        if cmp == "<=":
            e1, e2 = e2, e1
        diff = e1 - e2
        if not isinstance(diff, _DimExpr):
            if (cmp == "==" and diff != 0) or (cmp != "==" and diff < 0):
                raise ValueError(f"Unsatisfiable explicit constraint: {text}")
            return
        if cmp == "==":
            if not isinstance(e1, _DimExpr) or len(e1.terms) != 1:
                raise ValueError(
                    f"Invalid equality constraint: {e1} == {e2}. "
                    "The left-hand-side must be of the form `term * coefficient`."
                )
            ((term, k),) = e1.terms
            if term in self._rules:
                raise NotImplementedError(
                    f"Found multiple equality constraints with the same left-hand-side: {term}"
                )
            self._rules[term] = (e2, k)
        self._constraints.append(("==" if cmp == "==" else ">=", diff, text))

    def _rewrite(self, coeffs: dict[_DimTerm, int]) -> dict[_DimTerm, int]:
        """Applies the equality rules ``t*k -> e`` to the terms (and to terms with a factor ``t``)."""
        for _ in range(8):
            changed = False
            for t, k in list(coeffs.items()):
                if t.is_constant or not k:
                    continue
                replaced = self._replacement(t, k)
                if replaced is None:
                    continue
                del coeffs[t]
                for t2, k2 in replaced:
                    coeffs[t2] = coeffs.get(t2, 0) + k2
                changed = True
            coeffs = {t: k for t, k in coeffs.items() if k}
            if not changed:
                break
        return coeffs

    def _replacement(self, t: _DimTerm, k: int) -> list[tuple[_DimTerm, int]] | None:
        rule = self._rules.get(t)
        if rule is not None and k % rule[1] == 0:
            return _terms_of(rule[0], k // rule[1])
        if len(t.factors) <= 1:
            return None
        for f, e in t.factors:
            sub = _DimTerm(((f, e),))
            rule = self._rules.get(sub)
            if rule is not None and k % rule[1] == 0:
                rest = t.divide(sub)
                assert rest is not None
                return [(t2.mul(rest), k2) for t2, k2 in _terms_of(rule[0], k // rule[1])]
        return None

    def _check_same_scope(
        self, other: _DimExpr, when: str = "", self_descr: str = " ", other_descr: str = "unknown"
    ) -> None:
        if other._scope is not self:
            raise ValueError(
                f"Invalid mixing of symbolic scopes {when}.\n"
                f"Expected {self_descr}scope {self}\n"
                f"and found for '{other}' ({other_descr}) scope {other._scope}\n"
                "See https://docs.jax.dev/en/latest/export/shape_poly.html#user-specified-symbolic-constraints."
            )


def _terms_of(e: Any, scale: int) -> list[tuple[_DimTerm, int]]:
    if isinstance(e, _DimExpr):
        return [(t, k * scale) for t, k in e.terms]
    return [(_ONE, operator.index(e) * scale)]


from .shape_spec import _Parser, symbolic_args_specs, symbolic_shape  # noqa: E402

__all__ = [
    "InconclusiveDimensionOperation",
    "SymbolicScope",
    "UnexpectedDimVar",
    "is_symbolic_dim",
    "symbolic_args_specs",
    "symbolic_shape",
]
