"""Reverse mode of refs, as JAX's: a ref made inside ``grad`` / ``linearize`` / ``vjp`` is a pair of
refs (``jvp``), its tangent ref staged in the linear program with its reads and writes, and the
backward pass gives that ref a cotangent ref (``RefCotangent``, JAX's ``RefAccum``), made when a
cotangent first reaches it. Each state primitive's transpose acts on it:

* ``freeze`` -> the cotangent ref is made from (or added to by) the frozen value's cotangent;
* ``get`` -> ``addupdate`` of the read's cotangent into it;
* ``swap`` -> ``swap`` of the written value's place with the output's cotangent, what was there
  being the written value's cotangent;
* ``addupdate`` -> ``get``: the added value's cotangent is what the place holds;
* ``new_ref`` -> ``freeze`` of it: the cotangent of the initial value (an ``empty_ref``'s is
  frozen and dropped; a ``free_ref`` transposes to nothing).

``VJP.with_refs`` gives an array input a ref its cotangent is added into (``IntoRef``): a slice
of that input (``slice``, ``dynamic_slice``) transposes to an ``addupdate`` of the slice's window
of the ref, so the whole cotangent is never made (JAX's fancy transposes); a ``jit`` passes the
ref into its transposed body.
"""

from __future__ import annotations

from typing import Any, Sequence

from .. import ad, backward_pass
from ..core import Value
from .allocation import empty_ref_p, free_ref_p
from ..indexing import dslice
from ..lax.dynamic_slicing import dynamic_slice_p
from ..lax.slicing import slice_p
from .primitives import addupdate_p, freeze_p, get_p, new_ref_p, ref_addupdate, swap_p
from .types import WHOLE, AbstractRef, PyTreeDef


class RefCotangent(backward_pass.CotangentAccumulator):
    """The cotangent of a ref of the linear program: a ref, made when a cotangent first reaches it."""

    __slots__ = ("aval", "ref")

    def __init__(self, aval: AbstractRef):
        self.aval = aval.inner_aval
        self.ref: Any = None

    def accum(self, ct: Any) -> None:
        if type(ct) is ad.Zero:
            return
        if self.ref is None:
            self.ref = new_ref_p.bind(ct, kind=None, memory_space=None)
        else:
            addupdate_p.bind(self.ref, ct, tree=WHOLE)

    def made(self) -> Any:
        """The cotangent ref, made of zeros if no cotangent reached it yet."""
        if self.ref is None:
            self.ref = new_ref_p.bind(ad.zeros_like_aval(self.aval), kind=None, memory_space=None)
        return self.ref

    def project(self) -> Any:
        return self.made()

    @classmethod
    def unproject(cls, aval: AbstractRef, value: Any) -> RefCotangent:
        acc = cls(aval)
        acc.ref = value
        return acc

    def freeze(self) -> Any:
        return ad.Zero(self.aval) if self.ref is None else freeze_p.bind(self.ref)


backward_pass.accumulators[AbstractRef] = RefCotangent


class IntoRef(backward_pass.ValueAccumulator):
    """The cotangent of an array input, added into the ref ``VJP.with_refs`` was given for it."""

    __slots__ = ("aval", "ref")

    def __init__(self, aval: Any, ref: Any):
        self.aval, self.ref = aval, ref

    def accum(self, ct: Any) -> None:
        if ct is not None and type(ct) is not ad.Zero:
            addupdate_p.bind(self.ref, ct, tree=WHOLE)

    def project(self) -> Any:
        return self.ref

    @classmethod
    def unproject(cls, aval: Any, value: Any) -> IntoRef:
        return cls(aval.inner_aval if isinstance(aval, AbstractRef) else aval, value)


def _slice_into(ct: Any, acc: IntoRef, *, start_indices, limit_indices, strides) -> None:
    if type(ct) is not ad.Zero:
        steps = strides or (1,) * len(start_indices)
        ref_addupdate(acc.ref, tuple(map(slice, start_indices, limit_indices, steps)), ct)


def _dynamic_slice_into(ct: Any, acc: IntoRef, *starts: Value, slice_sizes) -> None:
    if type(ct) is not ad.Zero:
        ref_addupdate(acc.ref, tuple(map(dslice, starts, slice_sizes)), ct)


def _none(n: int) -> list[None]:
    return [None] * n


def _new_ref_transpose(ct_ref: RefCotangent, x: Value, **params: Any) -> list[Any]:
    return [ct_ref.freeze()]


def _freeze_transpose(ct: Any, ct_ref: RefCotangent) -> list[Any]:
    ct_ref.accum(ct)
    return [None]


def _get_transpose(ct: Any, ct_ref: RefCotangent, *idx: Value, tree: PyTreeDef) -> list[Any]:
    if tree != WHOLE and type(ct) is not ad.Zero:
        addupdate_p.bind(ct_ref.made(), ct, *idx, tree=tree)
    else:
        ct_ref.accum(ct)
    return _none(1 + len(idx))


def _swap_transpose(ct: Any, ct_ref: RefCotangent, x: Any, *idx: Value, tree: PyTreeDef) -> list[Any]:
    if ct_ref.ref is None:  # nothing reached the ref yet: the written value's cotangent is zero
        if type(ct) is not ad.Zero:
            swap_p.bind(ct_ref.made(), ct, *idx, tree=tree)
        return _none(2 + len(idx))
    x_ct = swap_p.bind(ct_ref.ref, ad.instantiate_zeros(ct), *idx, tree=tree)
    return [None, x_ct, *_none(len(idx))]


def _addupdate_transpose(
    cts: Sequence[Any], ct_ref: RefCotangent, x: Any, *idx: Value, tree: PyTreeDef
) -> list[Any]:
    if ct_ref.ref is None or not ad.is_undefined(x):
        return _none(2 + len(idx))
    return [None, get_p.bind(ct_ref.ref, *idx, tree=tree), *_none(len(idx))]


def _empty_ref_transpose(ct_ref: RefCotangent, **params: Any) -> list[Any]:
    ct_ref.freeze()  # (JAX's backward pass freezes it, though nothing reads the value)
    return []


backward_pass.value_accumulating[slice_p] = _slice_into
backward_pass.value_accumulating[dynamic_slice_p] = _dynamic_slice_into
ad.transpose_rules[new_ref_p] = _new_ref_transpose
ad.transpose_rules[empty_ref_p] = _empty_ref_transpose
ad.transpose_rules[free_ref_p] = lambda cts, ct_ref: [None]
ad.transpose_rules[freeze_p] = _freeze_transpose
ad.transpose_rules[get_p] = _get_transpose
ad.transpose_rules[swap_p] = _swap_transpose
ad.transpose_rules[addupdate_p] = _addupdate_transpose
