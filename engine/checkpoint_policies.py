"""``jax.checkpoint_policies``: ``policy(primitive, *in_avals, **params) -> bool``, whether an
equation's outputs may be saved for the backward pass of a ``checkpoint`` (else they are
recomputed there), and the offloading cases a policy may return instead of a bool."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from . import core

# checkpoint_name's primitive (its rules are in ad_checkpoint.py): the names policies look at
name_p = core.Primitive("name")


def everything_saveable(*_: Any, **__: Any) -> bool:
    """Save every intermediate, as if ``checkpoint`` were not used."""
    return True


def nothing_saveable(*_: Any, **__: Any) -> bool:
    """Save nothing but the inputs (the default policy of ``checkpoint``)."""
    return False


@dataclass(frozen=True)
class DotsSaveable:
    only_if_no_batch_dims: bool

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        if self.only_if_no_batch_dims:
            if prim.name == "dot_general":
                (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
                return not lhs_b and not rhs_b
            return False
        return prim.name in ("dot_general", "conv_general_dilated")


checkpoint_dots = dots_saveable = DotsSaveable(False)
dots_with_no_batch_dims_saveable = DotsSaveable(True)


@dataclass(frozen=True)
class SaveOnlyTheseNames:
    saveable_names: frozenset

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] in self.saveable_names


@dataclass(frozen=True)
class SaveAnyNamesButThese:
    names: frozenset

    def __call__(self, prim: core.Primitive, *_: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names_which_can_be_saved: str) -> SaveOnlyTheseNames:
    """Save only values named (by ``checkpoint_name``) with one of these names."""
    return SaveOnlyTheseNames(frozenset(names_which_can_be_saved))


def save_any_names_but_these(*names_not_to_save: str) -> SaveAnyNamesButThese:
    """Save only named values, except those with these names."""
    return SaveAnyNamesButThese(frozenset(names_not_to_save))


def save_anything_except_these_names(*names_not_to_save: str) -> Callable[..., bool]:
    """Save any value (as JAX 0.10.2 does, the names are not looked at)."""
    return lambda *_, **__: True


def save_from_both_policies(
    policy_1: Callable[..., bool], policy_2: Callable[..., bool]
) -> Callable[..., bool]:
    """Save what either policy saves."""

    def policy(prim: core.Primitive, *args: Any, **params: Any) -> bool:
        out1, out2 = policy_1(prim, *args, **params), policy_2(prim, *args, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):  # (JAX's: offloading policies' answers)
            raise ValueError(
                f"The return value of the policies should be a boolean. Got: {out1} and {out2}. Please write "
                "a custom policy function directly, rather than using this helper function."
            )
        return out1 or out2

    return policy


class RecomputeType:
    """JAX's ``Recompute``: the offloading policies' answer for a value recomputed in the backward
    pass (false as a truth value, as the engine reads answers)."""

    def __bool__(self) -> bool:
        return False


class SaveableType:
    """JAX's ``Saveable``: the offloading policies' answer for a value saved where it is."""

    def __bool__(self) -> bool:
        return True


Recompute, Saveable = RecomputeType(), SaveableType()


class Offloadable(NamedTuple):
    """A policy's answer for a value kept in another memory (JAX's ``Offloadable``): the forward
    pass moves it from ``src`` to ``dst`` (``device_put``), the backward pass moves it back."""

    src: str
    dst: str


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> Callable[..., Any]:
    """Like ``dots_with_no_batch_dims_saveable``, the results kept in ``offload_dst`` memory."""
    _memory_kinds(offload_src, offload_dst)

    def policy(prim: core.Primitive, *_: Any, **params: Any) -> Any:
        if prim.name == "dot_general":
            (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
            if not lhs_b and not rhs_b:
                return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute

    return policy


def save_and_offload_only_these_names(
    *,
    names_which_can_be_saved: Any,
    names_which_can_be_offloaded: Any,
    offload_src: str,
    offload_dst: str,
) -> Callable[..., Any]:
    """Like ``save_only_these_names``; the values of the offloadable names are kept in
    ``offload_dst`` memory (moved there in the forward pass, back in the backward pass)."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "The names should be exclusive and should not intersect in `names_which_can_be_saved` and "
            f"`names_which_can_be_offloaded`. Got names_which_can_be_saved={saved}, "
            f"names_which_can_be_offloaded={offloaded} and the intersection={both}"
        )
    _memory_kinds(offload_src, offload_dst)

    def policy(prim: core.Primitive, *_: Any, **params: Any) -> Any:
        if prim is name_p and params["name"] in saved:
            return Saveable
        if prim is name_p and params["name"] in offloaded:
            return Offloadable(src=offload_src, dst=offload_dst)
        return Recompute

    return policy


def _memory_kinds(*kinds: str) -> None:
    from .sharding import check_memory_kind

    for kind in kinds:
        check_memory_kind(kind)


checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable,
    nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable,
    checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=dots_with_no_batch_dims_saveable,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_anything_except_these_names=save_anything_except_these_names,
    save_from_both_policies=save_from_both_policies,
    offload_dot_with_no_batch_dims=offload_dot_with_no_batch_dims,
    save_and_offload_only_these_names=save_and_offload_only_these_names,
)
