"""Reverse mode: ``vjp_flat`` (the eager tape's, or a linearization transposed) and the pullback
that holds its residuals apart from the linear program that reads them."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import tape
from .ad import Tangent, UndefPrimal, Zero, linearize_flat
from .backward_pass import backward_pass
from .core import ShapedArray, Value
from .ir import Jaxpr

# f_vjp(*cotangents out) -> a cotangent for each primal in.
VJP = Callable[..., list[Tangent]]


def vjp_flat(f: Callable[..., Sequence[Value]], primals: Sequence[Value]) -> tuple[list[Value], VJP]:
    """``(primals_out, f_vjp)`` with ``f_vjp(*cotangents) -> cotangents for each primal``."""
    if tape.eager():  # nothing traced: the tape of cached per-primitive linearizations
        return tape.vjp_flat(f, primals)
    return linearize_vjp_flat(f, primals)


def linearize_vjp_flat(
    f: Callable[..., Sequence[Value]], primals: Sequence[Value], n_main: Callable[[], int] | None = None
) -> tuple[list[Value], VJP]:
    """``vjp_flat`` by linearizing the whole function and transposing its linear jaxpr (``n_main``:
    ``linearize_flat``'s)."""
    primals_out, (jaxpr, consts, tangent_pvals, differentiable, tangent_avals) = linearize_flat(
        f, primals, n_main
    )
    unknown_outs = [not p.is_known for p in tangent_pvals]

    def transpose(
        residuals: Sequence[Value], cts: Sequence[Tangent], layouts=None, wanted=None, into=None
    ) -> list[Tangent | None]:
        """``layouts``: the primals' shardings on an explicit mesh (or None), which their
        cotangents are typed by, as JAX's undefined primals are; ``wanted``: which inputs'
        cotangents are wanted (None: all; the others' own work is skipped); ``into``: per input,
        a ref its cotangent is added into where it arises (its result is then None), or None."""
        cts_unk = [ct for ct, u in zip(cts, unknown_outs) if u]
        undef: list[Any]
        if layouts is None:
            undef = [UndefPrimal(a) for a, d in zip(tangent_avals, differentiable) if d]
        else:
            from .parallel.explicit_types import typed_aval

            undef = [
                UndefPrimal(typed_aval(a, s)) for a, d, s in zip(tangent_avals, differentiable, layouts) if d
            ]
        if wanted is not None:
            wanted = [w for w, d in zip(wanted, differentiable) if d]
        refs = [r for r, d in zip(into or [None] * len(differentiable), differentiable) if d]
        if any(r is not None for r in refs):
            from .state.transpose import IntoRef

            undef = [u if r is None else IntoRef(u.aval, r) for u, r in zip(undef, refs)]
        cts_in = backward_pass(jaxpr, [*residuals, *undef], cts_unk, wanted=wanted)
        it, refs_it = iter(cts_in), iter(refs)
        out: list[Tangent | None] = []
        for a, d in zip(tangent_avals, differentiable):
            out.append((next(it) if next(refs_it) is None else None) if d else Zero(a))
        return out

    return primals_out, Pullback(transpose, consts)


class Pullback:
    """``linearize_vjp_flat``'s pullback, its residuals (the linear jaxpr's constants: what the
    forward pass computed) apart from the ``transpose`` that reads them, so that ``jax.vjp`` can
    make a pytree of them (``engine.vjp_function``)."""

    __slots__ = ("transpose", "residuals")

    def __init__(self, transpose: Callable[..., list[Tangent]], residuals: Sequence[Value]):
        self.transpose, self.residuals = transpose, list(residuals)

    def __call__(self, *cts: Tangent) -> list[Tangent]:
        return self.transpose(self.residuals, cts)


def linear_transpose_flat(
    jaxpr: Jaxpr, consts: Sequence[Value], in_avals: Sequence[ShapedArray], cts: Sequence[Tangent]
) -> list[Tangent]:
    undef = [UndefPrimal(a) for a in in_avals]
    return backward_pass(jaxpr, [*consts, *undef], cts)
