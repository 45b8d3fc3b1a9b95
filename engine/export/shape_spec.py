"""Parsing symbolic shape specifications: ``symbolic_shape("b, 2*b, ...")`` and
``symbolic_args_specs``.

Grammar (JAX's): a shape is a comma-separated list of dimension expressions, optionally in
parentheses, where ``_`` takes one dimension and a final ``...`` the rest from a ``like`` shape.
An expression is a sum of terms; a term a product of factors, each maybe ``^k``; a factor an
integer, a variable, or ``floordiv|mod|max|min(e1, e2)``.

  >>> symbolic_shape("b, 2*b + 1, _", like=(None, None, 3))
  (b, 2*b + 1, 3)
"""

from __future__ import annotations

import io
import tokenize
from typing import Any, Sequence

from .. import dims

_END = (tokenize.ENDMARKER, tokenize.RPAR)


class _Parser:
    def __init__(self, spec: str, like: Sequence[int | None] | None, spec_repr: str, scope: Any):
        self.spec, self.like, self.spec_repr, self.scope = spec, like, spec_repr, scope
        self.dimensions: list[Any] = []

    def parse(self) -> tuple:
        self.tokens = tokenize.tokenize(io.BytesIO(self.spec.encode("utf-8")).readline)
        tok = self.expect(self.next(), (tokenize.ENCODING,))
        tok = self.shape(self.next())
        self.expect(tok, (tokenize.ENDMARKER,))
        return tuple(self.dimensions)

    def error(self, tok: tokenize.TokenInfo | None, detail: str) -> ValueError:
        msg = (
            f"syntax error in symbolic shape {self.spec_repr} in dimension {len(self.dimensions)}: {detail}. "
        )
        if tok is not None:
            msg += f"Parsed '{tok.line[: tok.start[1]]}', remaining '{tok.line[tok.start[1] :]}'."
        return ValueError(msg)

    def next(self) -> tokenize.TokenInfo:
        while True:
            try:
                tok = next(self.tokens)
            except (StopIteration, tokenize.TokenError):
                raise self.error(None, "unexpected end of string") from None
            if tok.exact_type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                return tok

    def expect(self, tok: tokenize.TokenInfo, kinds: Sequence[int]) -> tokenize.TokenInfo:
        if tok.exact_type not in kinds:
            names = ", ".join(tokenize.tok_name[k] for k in kinds)
            raise self.error(
                tok, f"expecting one of {{{names}}} but found {tokenize.tok_name[tok.exact_type]}"
            )
        return tok

    def add_dim(self, d: Any, tok: tokenize.TokenInfo) -> None:
        if d is None:
            raise self.error(tok, f"unexpected placeholder for unknown dimension; like={self.like}")
        if dims.is_constant_dim(d) and self.like is not None:
            if d != self.like[len(self.dimensions)]:
                raise self.error(tok, f"different size {d} for known dimension; like={self.like}")
        self.dimensions.append(d)

    def shape(self, tok: tokenize.TokenInfo) -> tokenize.TokenInfo:
        if tok.exact_type == tokenize.LPAR:
            tok = self.shape(self.next())
            self.expect(tok, (tokenize.RPAR,))
            return self.next()
        while tok.exact_type not in _END:
            placeholder = tok.exact_type == tokenize.ELLIPSIS or (
                tok.exact_type == tokenize.NAME and tok.string == "_"
            )
            if placeholder:
                if self.like is None:
                    raise self.error(tok, "spec contains ... but no 'like' shape was given")
                needed = len(self.dimensions) + (tok.exact_type != tokenize.ELLIPSIS)
                if len(self.like) < needed:
                    raise self.error(
                        tok,
                        f"cannot resolve placeholder '{tok.string}' because we parsed "
                        f"{len(self.dimensions)} already and 'like' shape has only {len(self.like)} dimensions",
                    )
            if tok.exact_type == tokenize.ELLIPSIS:
                assert self.like is not None
                for d in self.like[len(self.dimensions) :]:
                    self.add_dim(d, tok)
                return self.next()
            if placeholder:
                assert self.like is not None
                d, tok = self.like[len(self.dimensions)], self.next()
            else:
                d, tok = self.expr(tok)
            self.add_dim(d, tok)
            if tok.exact_type in _END:
                break
            tok = self.next() if self.expect(tok, (tokenize.COMMA,)) else tok
        return tok

    def expr(self, tok: tokenize.TokenInfo) -> tuple[Any, tokenize.TokenInfo]:
        negate = tok.exact_type == tokenize.MINUS
        if tok.exact_type in (tokenize.MINUS, tokenize.PLUS):
            tok = self.next()
        acc: Any = None
        while True:
            t, tok = self.term(tok)
            t = -t if negate else t
            acc = t if acc is None else acc + t
            if tok.exact_type in _END + (tokenize.COMMA,):
                return acc, tok
            self.expect(tok, (tokenize.PLUS, tokenize.MINUS))
            negate = tok.exact_type == tokenize.MINUS
            tok = self.next()

    def term(self, tok: tokenize.TokenInfo) -> tuple[Any, tokenize.TokenInfo]:
        acc: Any = None
        while True:
            f, tok = self.factor(tok)
            if tok.exact_type == tokenize.CIRCUMFLEX:
                power, tok = self.integer(self.next())
                f = f**power
            acc = f if acc is None else acc * f
            if tok.exact_type in _END + (tokenize.COMMA, tokenize.PLUS, tokenize.MINUS):
                return acc, tok
            self.expect(tok, (tokenize.STAR,))
            tok = self.next()

    def integer(self, tok: tokenize.TokenInfo) -> tuple[int, tokenize.TokenInfo]:
        self.expect(tok, (tokenize.NUMBER,))
        try:
            return int(tok.string), self.next()
        except ValueError:
            raise self.error(tok, f"expecting integer, found {tok.string}") from None

    def factor(self, tok: tokenize.TokenInfo) -> tuple[Any, tokenize.TokenInfo]:
        from .shape_poly import FLOORDIV, MAX, MIN, MOD, _DimExpr

        if tok.exact_type == tokenize.NAME:
            if tok.string in (FLOORDIV, MOD, MAX, MIN):
                op = tok.string
                self.expect(self.next(), (tokenize.LPAR,))
                e1, tok = self.expr(self.next())
                self.expect(tok, (tokenize.COMMA,))
                e2, tok = self.expr(self.next())
                self.expect(tok, (tokenize.RPAR,))
                if op == MAX:
                    return dims.max_dim(e1, e2), self.next()
                if op == MIN:
                    return dims.min_dim(e1, e2), self.next()
                return _DimExpr._from_operation(op, e1, e2, scope=self.scope), self.next()
            return _DimExpr._from_var(tok.string, self.scope), self.next()
        sign = 1
        if tok.exact_type == tokenize.MINUS:
            sign, tok = -1, self.next()
            self.expect(tok, (tokenize.NUMBER,))
        if tok.exact_type == tokenize.NUMBER:
            v, tok = self.integer(tok)
            return sign * v, tok
        self.expect(tok, (tokenize.NAME, tokenize.MINUS, tokenize.NUMBER))
        raise AssertionError("unreachable")


def symbolic_shape(
    shape_spec: str | None,
    *,
    constraints: Sequence[str] = (),
    scope: Any = None,
    like: Sequence[int | None] | None = None,
) -> tuple:
    """A shape from its string form, with dimension variables.

    Args:
      shape_spec: e.g. ``"b, 2*b, ..."``; ``None`` stands for ``"..."``.
      constraints: ``"e1 >= e2"``, ``"e1 <= e2"`` or ``"e1 == e2"`` strings for a new scope.
      scope: a ``SymbolicScope`` to create the expressions in (not with ``constraints``).
      like: the shape that fills the placeholders ``_`` and ``...``.

      >>> a, b = symbolic_shape("a, b")
      >>> (a, 2 * b)
      (a, 2*b)
    """
    from .shape_poly import SymbolicScope

    spec_repr = repr(shape_spec)
    if shape_spec is None:
        shape_spec = "..."
    elif not isinstance(shape_spec, str):
        raise ValueError(f"polymorphic shape spec should be None or a string. Found {spec_repr}.")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    return _Parser(shape_spec, like, spec_repr, scope).parse()


def symbolic_args_specs(
    args: Any, shapes_specs: Any, constraints: Sequence[str] = (), scope: Any = None
) -> Any:
    """A pytree of ``ShapeDtypeStruct`` like ``args``, with shapes from ``shapes_specs`` (a string,
    ``None``, or a pytree prefix of ``args``); placeholders are filled from the arguments' shapes.

      >>> import numpy as np
      >>> symbolic_args_specs((np.ones((3, 1)), np.ones((3, 4))), "a, ...")[1].shape
      (a, 4)
    """
    from .. import core
    from ..jit import ShapeDtypeStruct
    from ..pytree.prefix import broadcast_prefix
    from ..tree_util import tree_flatten, tree_unflatten
    from .shape_poly import SymbolicScope

    leaves, treedef = tree_flatten(args)
    if isinstance(args, tuple) and isinstance(shapes_specs, list):
        shapes_specs = tuple(shapes_specs)
    specs = broadcast_prefix(shapes_specs, args, is_leaf=lambda x: x is None)
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot use both `scope` and `constraints`")
    out = []
    for leaf, spec in zip(leaves, specs):
        aval = leaf if isinstance(leaf, ShapeDtypeStruct) else core.get_aval(leaf)
        out.append(ShapeDtypeStruct(symbolic_shape(spec, like=aval.shape, scope=scope), aval.dtype))
    return tree_unflatten(treedef, out)
