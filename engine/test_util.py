"""Checks for derivative and batching rules, in the spirit of ``jax.test_util``.

``check_grads`` compares forward mode against central finite differences computed in float64
(the function is replayed on a trace that runs each primitive's numpy implementation on float64
values, so the reference is not limited by the engine's float32 default), compares reverse mode
against forward mode through ``<u, J v> == <J^T u, v>``, and recurses to higher orders by
checking the derivative functions themselves. ``check_batching`` compares ``vmap`` with a
Python loop over the batch.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import api, core, ir
from .jit_primitive import jit_p
from .core import ShapedArray, Trace, Tracer
from .tree_util import tree_flatten, tree_unflatten
from .narrow_dtypes import kind as dtype_kind

__all__ = ["check_grads", "check_jvp", "check_vjp", "check_batching", "eval_float64"]


# ---------------------------------------------------------------------------------------------
# A float64 evaluation trace for finite-difference references.


class _F64Tracer(Tracer):
    __slots__ = ("val",)

    def __init__(self, trace, val):
        self._trace = trace
        self.val = val

    @property
    def aval(self):
        # Report the dtype the engine would have, so code that builds constants from avals
        # (and inner transformations' abstract evaluation) sees a consistent float32 program.
        return ShapedArray(self.val.shape, core.canonical_dtype(self.val.dtype), False)

    def concrete_value(self):
        return self.val


def _widen(x) -> np.ndarray:
    x = np.asarray(x)
    if dtype_kind(x.dtype) == "f":
        return x.astype(np.float64)
    return x.astype(np.complex128) if dtype_kind(x.dtype) == "c" else x


class _F64Trace(Trace):
    def pure(self, val):
        return _F64Tracer(self, _widen(core.to_numpy(val)))

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        if primitive is jit_p:  # (its impl runs a program compiled for the traced, narrower types)
            closed = params["jaxpr"]
            return ir.eval_jaxpr(closed.jaxpr, tracers, closed.consts)
        vals = [t.val for t in tracers]
        if primitive.name == "bitcast_convert_type":  # reads the bits of the traced (narrower) type
            vals = [v.astype(core.canonical_dtype(v.dtype)) for v in vals]
        outs = core.impl_rules[primitive](*vals, **params)
        if primitive.multiple_results:
            return [_F64Tracer(self, _widen(o)) for o in outs]
        return _F64Tracer(self, _widen(outs))


def eval_float64(f: Callable, *args):
    """Evaluate ``f`` with every primitive's numpy implementation on float64 values.

    Returns the flat list of output leaves as numpy arrays. Primitives whose implementation
    casts (e.g. ``convert_element_type`` to float32) still round there.
    """
    leaves, tree = tree_flatten(args)
    with core.new_main(_F64Trace) as main:
        trace = _F64Trace(main)
        tracers = [_F64Tracer(trace, _widen(np.asarray(x))) for x in leaves]
        out = f(*tree_unflatten(tree, tracers))
        out_leaves, _ = tree_flatten(out)
        return [trace.full_raise(o).val for o in out_leaves]


# ---------------------------------------------------------------------------------------------
# Helpers on flat lists of leaves.


def _is_float(x) -> bool:
    return dtype_kind(core.get_aval(x).dtype) in "fc"


def _split_args(f, args):
    """``(g, float_args)``: ``g`` takes only the float leaves of ``args`` (others are closed
    over) and returns only the float leaves of ``f``'s output."""
    leaves, tree = tree_flatten(tuple(args))
    float_pos = [i for i, x in enumerate(leaves) if _is_float(x)]

    def rebuild(float_leaves):
        full = list(leaves)
        for i, x in zip(float_pos, float_leaves):
            full[i] = x
        return tree_unflatten(tree, full)

    out_leaves, _ = tree_flatten(f(*tuple(args)))
    float_out = [i for i, o in enumerate(out_leaves) if _is_float(o)]

    def g(*xs):
        outs, _ = tree_flatten(f(*rebuild(xs)))
        return [outs[i] for i in float_out]

    return g, [np.asarray(leaves[i]) for i in float_pos]


def _rand_like(rng, x):
    a = np.asarray(x)
    if dtype_kind(a.dtype) == "c":
        return (rng.standard_normal(a.shape) + 1j * rng.standard_normal(a.shape)).astype(a.dtype)
    return rng.standard_normal(a.shape).astype(a.dtype if dtype_kind(a.dtype) == "f" else np.float32)


def _wide(x) -> np.ndarray:
    x = np.asarray(x)
    return x.astype(np.complex128) if dtype_kind(x.dtype) == "c" else x.astype(np.float64)


def _inner(xs, ys) -> float:
    # Re <x, y> with the conjugate-linear first slot, as JAX's check_vjp uses.
    return float(sum(np.real(np.vdot(_wide(x), _wide(y))) for x, y in zip(xs, ys)))


def _assert_close(actual, expected, atol, rtol, what):
    for k, (a, e) in enumerate(zip(actual, expected)):
        a, e = _wide(a), _wide(e)
        if a.shape != e.shape:
            raise AssertionError(f"{what}: output {k} has shape {a.shape}, expected {e.shape}")
        if not np.allclose(a, e, atol=atol, rtol=rtol, equal_nan=True):
            err = np.max(np.abs(a - e)) if a.size else 0.0
            raise AssertionError(
                f"{what}: output {k} differs (max abs error {err:.3g}, atol={atol}, "
                f"rtol={rtol})\nactual:\n{a}\nexpected:\n{e}"
            )


def _numerical_jvp(g, primals, tangents, eps):
    plus = eval_float64(g, *[_wide(p) + eps * _wide(t) for p, t in zip(primals, tangents)])
    minus = eval_float64(g, *[_wide(p) - eps * _wide(t) for p, t in zip(primals, tangents)])
    return [(_wide(a) - _wide(b)) / (2 * eps) for a, b in zip(plus, minus)]


# ---------------------------------------------------------------------------------------------
# The checks.


def check_jvp(f: Callable, args: Sequence, *, atol=1e-3, rtol=1e-3, eps=1e-4, rng=None):
    """``jvp(f)`` along a random tangent equals central finite differences of ``f`` in float64."""
    rng = rng or np.random.default_rng(0)
    g, primals = _split_args(f, args)
    if not primals:
        return
    tangents = [_rand_like(rng, p) for p in primals]
    _, t_out = api.jvp(lambda *xs: g(*xs), tuple(primals), tuple(tangents))
    expected = _numerical_jvp(g, primals, tangents, eps)
    _assert_close(t_out, expected, atol, rtol, "JVP vs finite differences")


def check_vjp(f: Callable, args: Sequence, *, atol=1e-3, rtol=1e-3, eps=1e-4, rng=None, against: str = "jvp"):
    """``<u, J v> == <J^T u, v>`` for random ``u`` and ``v``: reverse mode against forward mode
    (``against='jvp'``) or against finite differences (``against='fd'``)."""
    rng = rng or np.random.default_rng(1)
    g, primals = _split_args(f, args)
    if not primals:
        return
    tangents = [_rand_like(rng, p) for p in primals]
    if against == "jvp":
        outs, jv = api.jvp(lambda *xs: g(*xs), tuple(primals), tuple(tangents))
    else:
        outs = g(*primals)
        jv = _numerical_jvp(g, primals, tangents, eps)
    if not outs:
        return
    cotangents = [_rand_like(rng, o) for o in outs]
    _, f_vjp = api.vjp(lambda *xs: g(*xs), *primals)
    # JAX's transposes do not conjugate: the adjoint of the JVP is conj . vjp . conj.
    jtu = [np.conj(np.asarray(c)) for c in f_vjp([np.conj(c) for c in cotangents])]
    ip_fwd = _inner(cotangents, jv)
    ip_rev = _inner(jtu, tangents)
    scale = sum(float(np.sum(np.abs(_wide(c) * _wide(j)))) for c, j in zip(cotangents, jv))
    if not abs(ip_fwd - ip_rev) <= atol + rtol * max(abs(ip_fwd), scale):
        raise AssertionError(
            f"VJP vs {against}: <u, J v> = {ip_fwd:.6g} but <J^T u, v> = "
            f"{ip_rev:.6g} (atol={atol}, rtol={rtol})"
        )


def check_grads(
    f: Callable, args: Sequence, order: int, modes=("fwd", "rev"), atol=None, rtol=None, eps=None
):
    """Check ``f``'s derivatives up to ``order`` (as ``jax.test_util.check_grads``).

    Forward mode is compared with float64 finite differences; reverse mode with forward mode via
    the inner-product identity. For ``order > 1`` the same checks run on the JVP function
    ``(x, t) -> jvp(f, x, t)`` and on the VJP function ``x -> vjp(f, x)(u)`` for a fixed ``u``.

    >>> check_grads(lax.sin, (1.0,), order=2)
    """
    atol = 2e-3 if atol is None else atol
    rtol = 2e-3 if rtol is None else rtol
    eps = 1e-4 if eps is None else eps
    rng = np.random.default_rng(0)
    tol = dict(atol=atol, rtol=rtol, eps=eps)

    def _check(f, args, order):
        if "fwd" in modes:
            check_jvp(f, args, rng=rng, **tol)
            if order > 1:
                g, primals = _split_args(f, args)
                tangents = [_rand_like(rng, p) for p in primals]
                n = len(primals)

                def f_jvp(*xs):
                    return api.jvp(lambda *ys: g(*ys), tuple(xs[:n]), tuple(xs[n:]))

                _check(f_jvp, (*primals, *tangents), order - 1)
        if "rev" in modes:
            check_vjp(f, args, rng=rng, against="jvp" if "fwd" in modes else "fd", **tol)
            if order > 1:
                g, primals = _split_args(f, args)
                outs = g(*primals)
                cotangents = [_rand_like(rng, o) for o in outs]

                def f_vjp(*xs):
                    return api.vjp(lambda *ys: g(*ys), *xs)[1](cotangents)

                _check(f_vjp, tuple(primals), order - 1)

    _check(f, tuple(args), order)


def check_batching(f: Callable, args: Sequence, in_axes, *, atol=1e-5, rtol=1e-5):
    """``vmap(f, in_axes)(*args)`` equals stacking ``f`` applied to each batch member."""
    args = tuple(args)
    in_axes = (in_axes,) * len(args) if isinstance(in_axes, int) or in_axes is None else tuple(in_axes)
    sizes = {np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None}
    if len(sizes) != 1:
        raise ValueError(f"check_batching needs one batch size across mapped arguments, got {sizes}")
    (size,) = sizes
    per_member = []
    for i in range(size):
        member = [a if ax is None else np.take(np.asarray(a), i, axis=ax) for a, ax in zip(args, in_axes)]
        per_member.append(tree_flatten(f(*member))[0])
    batched, _ = tree_flatten(api.vmap(f, in_axes=in_axes)(*args))
    for k, out in enumerate(batched):
        got = np.asarray(out)
        want = np.stack([np.asarray(m[k]) for m in per_member]) if size else None
        if want is None:
            continue
        if got.shape != want.shape or got.dtype != want.dtype:
            raise AssertionError(
                f"vmap output {k}: got {got.dtype}{list(got.shape)}, the loop gives "
                f"{want.dtype}{list(want.shape)} (in_axes={in_axes})"
            )
        if dtype_kind(got.dtype) in "fc":
            ok = np.allclose(got, want, atol=atol, rtol=rtol, equal_nan=True)
        else:
            ok = np.array_equal(got, want)
        if not ok:
            raise AssertionError(
                f"vmap output {k} differs from the loop (in_axes={in_axes})\nvmap:\n{got}\nloop:\n{want}"
            )
