"""``custom_linear_solve``: a linear solve with user-given solvers, differentiated implicitly.

One primitive, ``custom_linear_solve``, whose params hold four closed jaxprs (``matvec``, its
transpose ``vecmat``, ``solve`` and ``transpose_solve``, each taking its constants first). Its JVP
solves again for the tangent (``A dx = db - dA x``), its transpose solves with the transposed
system, so neither differentiates through the solver.
"""

from __future__ import annotations

import operator
import weakref
from typing import Any, NamedTuple

from .. import ad, batching, core, ir
from ..backends.rows import Special, lowerings
from ..batching import not_mapped
from ..core import Primitive
from ..tree_util import tree_flatten, tree_unflatten
from ..jit_primitive import _in_rule_body
from .control_flow_common import _avals, _run, _trace


class _LinearSolveTuple(NamedTuple):
    matvec: Any
    vecmat: Any
    solve: Any
    transpose_solve: Any

    def transpose(self) -> "_LinearSolveTuple":
        return type(self)(self.vecmat, self.matvec, self.transpose_solve, self.solve)

    def __repr__(self) -> str:
        # Each jaxpr prints as a top-level one, so outputs nothing reads print as ``_`` (cg's while
        # carries), as in JAX's text; the shared ``let`` section above prints them named.
        def text(j: Any) -> str:
            if not isinstance(j, ir.ClosedJaxpr):  # (const_lengths: counts)
                return repr(j)
            return str(ir.ClosedJaxpr(ir.drop_unused_binders(j.jaxpr), j.consts))

        return "_LinearSolveTuple(" + ", ".join(f"{f}={text(getattr(self, f))}" for f in self._fields) + ")"


linear_solve_p = Primitive("custom_linear_solve", multiple_results=True)


def _split(args, const_lengths):
    out, i = [], 0
    for n in const_lengths:
        out.append(list(args[i : i + n]))
        i += n
    return _LinearSolveTuple(*out), list(args[i:])


def _flatten(groups):
    return [x for g in groups for x in g]


def _traced(fun, tree, b_avals, what, has_aux=False):
    """``fun`` on the tree of ``b`` as a closed jaxpr of its flat leaves (then, with ``has_aux``, the
    leaves of its auxiliary output), its constants, and the aux tree."""
    aux_tree: list = []

    def flat(*xs):
        out = fun(tree_unflatten(tree, list(xs)))
        if has_aux:
            out, aux = out
            aux_leaves, t = tree_flatten(aux)
            aux_tree[:] = [t]
        out, out_tree = tree_flatten(out)
        if out_tree != tree:
            raise TypeError(f"{what}() output pytree structure must match b, got {out_tree} and {tree}")
        return out + aux_leaves if has_aux else out

    closed, consts = _trace(flat, b_avals)
    # Shapes only, as JAX: a solve returning another dtype runs eagerly (see _linear_solve_abstract).
    got, want = [o.shape for o in closed.out_avals[: len(b_avals)]], [a.shape for a in b_avals]
    if got != want:
        raise ValueError(f"{what}() output shapes must match b, got {got} and {want}")
    return closed, consts, (aux_tree[0] if aux_tree else None)


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """Solve ``matvec(x) == b`` with ``solve(matvec, b)``, differentiated implicitly: the
    derivatives solve the linear system again (``transpose_solve`` for reverse mode) instead of
    differentiating through ``solve``. With ``has_aux``, ``solve`` (and ``transpose_solve``) return
    ``(x, aux)`` and so does this (``aux`` has zero derivatives).

    >>> a = jnp.array([[2., 0.], [0., 4.]])
    >>> lax.custom_linear_solve(lambda x: a @ x, jnp.array([2., 2.]), lambda mv, b: b / jnp.diag(a))
    Array([1. , 0.5], dtype=float32)
    """
    from ..api import linear_transpose

    if transpose_solve is None and symmetric:
        transpose_solve = solve  # (as JAX: a symmetric operator's solve is its own transpose)
    b_flat, tree = tree_flatten(b)
    b_avals = _avals(b_flat)
    matvec_jaxpr, matvec_consts, _ = _traced(matvec, tree, b_avals, "matvec")
    solve_jaxpr, solve_consts, aux_tree = _traced(lambda x: solve(matvec, x), tree, b_avals, "solve", has_aux)
    if transpose_solve is None:
        vecmat_jaxpr = tr_solve_jaxpr = None
        vecmat_consts: list = []
        tr_solve_consts: list = []
    else:
        if symmetric:
            vecmat = matvec
            vecmat_jaxpr, vecmat_consts = matvec_jaxpr, matvec_consts
        else:
            matvec_t = linear_transpose(matvec, b)

            def vecmat(x):
                return matvec_t(x)[0]

            vecmat_jaxpr, vecmat_consts, _ = _traced(vecmat, tree, b_avals, "vecmat")
        tr_solve_jaxpr, tr_solve_consts, tr_aux_tree = _traced(
            lambda x: transpose_solve(vecmat, x), tree, b_avals, "transpose_solve", has_aux
        )
        if tr_aux_tree != aux_tree:
            raise TypeError(
                f"transpose_solve() auxiliary output structure must match solve's, got {tr_aux_tree} "
                f"and {aux_tree}"
            )
    groups = [matvec_consts, vecmat_consts, solve_consts, tr_solve_consts]
    const_lengths = _LinearSolveTuple(*[len(g) for g in groups])
    jaxprs = _LinearSolveTuple(matvec_jaxpr, vecmat_jaxpr, solve_jaxpr, tr_solve_jaxpr)
    outs = linear_solve_p.bind(*_flatten(groups), *b_flat, const_lengths=const_lengths, jaxprs=jaxprs)
    x = tree_unflatten(tree, outs[: len(b_flat)])
    return (x, tree_unflatten(aux_tree, outs[len(b_flat) :])) if has_aux else x


def _linear_solve_impl(*args, const_lengths, jaxprs):
    params, b = _split(args, const_lengths)
    return _run(jaxprs.solve, *params.solve, *b)


def _num_aux(jaxprs):
    """Outputs of ``solve`` past the solution: its auxiliary data."""
    return len(jaxprs.solve.out_avals) - len(jaxprs.matvec.out_avals)


def _linear_solve_abstract(*avals, const_lengths, jaxprs):
    aux = jaxprs.solve.out_avals[len(jaxprs.solve.out_avals) - _num_aux(jaxprs) :]
    b = avals[sum(const_lengths) :]
    for a, o in zip(b, jaxprs.solve.out_avals):
        # JAX stages b's type and then fails to lower (ValueError); eagerly it returns solve's.
        if a.dtype != o.dtype:
            raise ValueError(
                f"custom_linear_solve under a transformation: solve() returns {o.str_short()} for b "
                f"of type {a.str_short()}; make solve return b's dtype (JAX cannot lower this either)"
            )
    return list(b) + list(aux)


def _linear_solve_jvp(primals, tangents, *, const_lengths, jaxprs):
    # A x = b, so dA x + A dx = db: dx solves A dx = db - dA x.
    kwargs = dict(const_lengths=const_lengths, jaxprs=jaxprs)
    x_aux = linear_solve_p.bind(*primals, **kwargs)
    params, _ = _split(primals, const_lengths)
    params_dot, b_dot = _split(tangents, const_lengths)
    x = x_aux[: len(b_dot)]
    if all(type(p) is ad.Zero for p in params_dot.matvec):
        rhs = b_dot
    else:
        _, dAx = ad.jvp_flat(
            lambda *xs: _run(jaxprs.matvec, *xs),
            [*params.matvec, *x],
            [*params_dot.matvec, *[ad.Zero(ad.tangent_aval(core.get_aval(v))) for v in x]],
            instantiate=False,
        )
        rhs = [
            ad.add_tangents(db, operator.neg(t) if type(t) is not ad.Zero else t) for db, t in zip(b_dot, dAx)
        ]
    rhs = [ad.instantiate_zeros(t) for t in rhs]
    x_dot = linear_solve_p.bind(*_flatten(params), *rhs, **kwargs)[: len(b_dot)]
    aux_dot = [ad.Zero(ad.tangent_aval(core.get_aval(a))) for a in x_aux[len(b_dot) :]]
    return x_aux, [*x_dot, *aux_dot]


def _linear_solve_transpose(cts, *primals, const_lengths, jaxprs):
    if jaxprs.transpose_solve is None:
        raise TypeError(
            "transpose_solve required for backwards mode automatic differentiation of custom_linear_solve"
        )
    params, b = _split(primals, const_lengths)
    if any(ad.is_undefined(p) for p in _flatten(params)):
        raise NotImplementedError("custom_linear_solve: transposing with respect to the operator")
    cts, aux_cts = cts[: len(b)], cts[len(b) :]
    if any(type(c) is not ad.Zero for c in aux_cts):
        raise NotImplementedError("custom_linear_solve: a cotangent for the auxiliary output of has_aux=True")
    cts = [ad.instantiate_zeros(c) for c in cts]
    ct_b = linear_solve_p.bind(
        *_flatten(params.transpose()),
        *cts,
        const_lengths=const_lengths.transpose(),
        jaxprs=jaxprs.transpose(),
    )
    return [None] * sum(const_lengths) + list(ct_b[: len(b)])


# Batched jaxprs, per jaxpr (weakly) and batching, as JAX caches batch_jaxpr: the solves of one
# vmapped linearization share their jaxprs (printed once, as shared `let` jaxprs).
_batched: "weakref.WeakKeyDictionary[ir.ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _linear_solve_batch(axis_size, vals, dims, *, const_lengths, jaxprs):
    # Which parts of x and b are batched is a fixpoint over all four jaxprs (as in JAX), so the
    # batched jaxprs agree with each other.
    params, b = _split(vals, const_lengths)
    params_dims, b_dims = _split(dims, const_lengths)
    bat = [[d is not not_mapped for d in g] for g in params_dims]
    matvec_bat, vecmat_bat, solve_bat, solve_t_bat = bat
    orig_b_bat = [d is not not_mapped for d in b_dims]

    def batch(closed, in_bat, force):
        key = (axis_size, tuple(in_bat), tuple(force))
        per_jaxpr = _batched.setdefault(closed, {})
        if key not in per_jaxpr:
            in_dims = [0 if x else not_mapped for x in in_bat]
            with _in_rule_body():  # (a rule's body: JAX names its calls afresh, jit(_lu_solve))
                batched, out_dims = batching.batch_jaxpr(closed, axis_size, in_dims, force_out=force)
            per_jaxpr[key] = batched, [d is not not_mapped for d in out_dims]
        return per_jaxpr[key]

    num_aux = _num_aux(jaxprs)
    b_bat = list(orig_b_bat)
    x_bat = [False] * (len(b) + num_aux)
    for _ in range(2 + len(b) + len(x_bat)):
        solve_b, solve_x_bat = batch(jaxprs.solve, solve_bat + b_bat, x_bat)
        if jaxprs.vecmat is None:
            vecmat_b, x_bat_out = None, solve_x_bat
        else:
            vecmat_b, vecmat_x_bat = batch(jaxprs.vecmat, vecmat_bat + b_bat, b_bat)
            # (as JAX: auxiliary outputs are batched once the operator's transpose is)
            x_bat_out = [p or q for p, q in zip(vecmat_x_bat + [True] * num_aux, solve_x_bat)]
        x_bat_noaux = x_bat_out[: len(b)]
        matvec_b, matvec_b_bat = batch(jaxprs.matvec, matvec_bat + x_bat_noaux, b_bat)
        if jaxprs.transpose_solve is None:
            solve_t_b, b_bat_out = None, [p or q for p, q in zip(matvec_b_bat, orig_b_bat)]
        else:
            solve_t_b, solve_t_b_bat = batch(jaxprs.transpose_solve, solve_t_bat + x_bat_noaux, x_bat_out)
            b_bat_out = [p or q or r for p, q, r in zip(matvec_b_bat, solve_t_b_bat[: len(b)], orig_b_bat)]
        if x_bat_out == x_bat and b_bat_out == b_bat:
            break
        x_bat, b_bat = x_bat_out, b_bat_out
    else:
        raise AssertionError("custom_linear_solve batching: fixpoint not reached")
    new_params = [
        batching.moveaxis(v, d, 0) if d is not not_mapped and d != 0 else v
        for v, d in zip(_flatten(params), _flatten(params_dims))
    ]
    new_b = [batching.bdim_at_front(v, d, axis_size) if now else v for v, d, now in zip(b, b_dims, b_bat)]
    outs = linear_solve_p.bind(
        *new_params,
        *new_b,
        const_lengths=const_lengths,
        jaxprs=_LinearSolveTuple(matvec_b, vecmat_b, solve_b, solve_t_b),
    )
    return outs, [0 if x else not_mapped for x in solve_x_bat]


def _linear_solve_subjaxprs(eqn):
    return [j for j in eqn.params["jaxprs"] if j is not None]


linear_solve_p.def_impl(_linear_solve_impl)
linear_solve_p.def_abstract_eval(_linear_solve_abstract)
ad.jvp_rules[linear_solve_p] = _linear_solve_jvp
ad.transpose_rules[linear_solve_p] = _linear_solve_transpose
batching.batch_rules[linear_solve_p] = _linear_solve_batch
ir.pp_params_rules[linear_solve_p] = lambda eqn: sorted(eqn.params.items())
lowerings[linear_solve_p] = Special("inline")  # compiled code runs its solve jaxpr in line
