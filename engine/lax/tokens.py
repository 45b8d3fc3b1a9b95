"""``lax.create_token`` and ``lax.after_all``: XLA's tokens, values that carry no data and order
side effects (an operation taking a token runs after the one that made it). JAX's CPU backend has
them; the engine runs programs in order anyway, so a token only has to be a value of type ``Tok``
that ``jit`` takes and returns (programs with tokens run on the interpreter).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ad, batching, core
from ..backends.rows import INTERPRETER_ONLY
from ..avals import AbstractValue
from ..core import Primitive

__all__ = [
    "AbstractToken",
    "Token",
    "abstract_token",
    "after_all",
    "after_all_p",
    "create_token",
    "create_token_p",
]


class AbstractToken:
    """The type of a token: ``Tok`` in a jaxpr. (Shaped like a scalar for code that asks.)"""

    __slots__ = ()
    shape: tuple = ()
    ndim = 0
    size = 1
    dtype = np.dtype(np.bool_)
    weak_type = False
    array_abstraction_level = 1

    def update(self, *_: Any, **__: Any) -> AbstractToken:
        return self

    def strip_weak_type(self) -> AbstractToken:
        return self

    def str_short(self, *_: Any, **__: Any) -> str:
        return "Tok"

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractToken

    def __hash__(self) -> int:
        return hash("Tok")

    __repr__ = __str__ = lambda self: "AbstractToken()"  # noqa: E731


abstract_token = AbstractToken()


class Token:
    """A token value: it holds nothing (the engine's programs run their effects in order)."""

    __slots__ = ()

    def block_until_ready(self) -> Token:
        return self


core.pytype_aval_mappings[Token] = lambda t: abstract_token
core.non_array_values.add(Token)


class _TokenPrimitive(Primitive):
    """Eagerly a ``Token`` (the evaluation trace would wrap its result as an array)."""

    def bind(self, *args: Any, **params: Any) -> Any:
        if core.find_top_trace(args).main.level == 0:
            self.abstract_eval(*[core.get_aval(a) for a in args])  # (after_all's check of its operands)
            return Token()
        return super().bind(*args, **params)


create_token_p = _TokenPrimitive("create_token")
create_token_p.def_impl(lambda *_: Token())
create_token_p.def_abstract_eval(lambda *_: abstract_token)

after_all_p = _TokenPrimitive("after_all")
after_all_p.def_impl(lambda *tokens: Token())


@after_all_p.def_abstract_eval
def _after_all_abstract_eval(*avals: Any) -> AbstractToken:
    if any(a is not abstract_token and type(a) is not AbstractToken for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


for _p in (create_token_p, after_all_p):
    INTERPRETER_ONLY[_p.name] = "tokens: values of no data that only order effects (interpreted)"
    # (a token has no tangent and is never batched: transformations pass it through)
    ad.jvp_rules[_p] = lambda primals, tangents, _p=_p: (_p.bind(*primals), ad.Zero(abstract_token))
    batching.batch_rules[_p] = lambda size, vals, dims, _p=_p: (_p.bind(*vals), batching.not_mapped)


def create_token(_: Any = None) -> Any:
    """A token with no preconditions (the argument is ignored, as in JAX).

    >>> type(create_token()).__name__
    'Token'
    """
    return create_token_p.bind()


def after_all(*operands: Any) -> Any:
    """A token that comes after every one of ``operands`` (tokens).

    >>> type(after_all(create_token(), create_token())).__name__
    'Token'
    """
    return after_all_p.bind(*operands)


AbstractValue.register(AbstractToken)  # (jax.core.AbstractValue)
