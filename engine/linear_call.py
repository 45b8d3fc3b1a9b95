"""``jax.custom_derivatives.linear_call``: a function linear in some arguments, with its own
transpose, as one ``linear_call`` equation (printed as JAX prints it).

``linear_call(fun, fun_transpose, residual_args, linear_args)`` is ``fun(residual_args,
linear_args)``; differentiated, its tangent is ``fun`` of the linear arguments' tangents, and
transposed (``grad``, ``linear_transpose``) it is ``fun_transpose(residual_args, cotangent)``.
"""

from __future__ import annotations

import functools
import re

from . import ad, core, ir
from .backends.rows import Special, lowerings
from .custom_derivatives import _eval_call
from .lax.control_flow_common import _trace
from .tree_util import tree_flatten, tree_unflatten

linear_call_p = core.Primitive("linear_call", multiple_results=True)
linear_call_p.weak_from_abstract_eval = True


def linear_call(fun, fun_transpose, residual_args, linear_args):
    """``fun(residual_args, linear_args)``, transposed by ``fun_transpose(residual_args, ct)``.

    >>> def f(r, x): return r * x
    >>> def f_t(r, ct): return 3. * r * ct
    >>> jax.grad(lambda x: linear_call(f, f_t, 5., x))(2.)
    Array(15., dtype=float32, weak_type=True)
    """
    res_leaves, res_tree = tree_flatten(residual_args)
    lin_leaves, lin_tree = tree_flatten(linear_args)
    out_trees = []

    def callee(*xs):
        res = tree_unflatten(res_tree, list(xs[: len(res_leaves)]))
        lin = tree_unflatten(lin_tree, list(xs[len(res_leaves) :]))
        outs, out_tree = tree_flatten(fun(res, lin))
        out_trees.append(out_tree)
        return outs

    closed, consts = _trace(callee, [core.get_aval(x) for x in res_leaves + lin_leaves])
    res_avals = [core.get_aval(x) for x in res_leaves]

    @_memoize
    def transpose_thunk():
        out_avals = [ad.tangent_aval(a) for a in closed.out_avals]

        def transposed(*xs):
            res = tree_unflatten(res_tree, list(xs[: len(res_avals)]))
            ct = tree_unflatten(out_trees[0], list(xs[len(res_avals) :]))
            return tree_flatten(fun_transpose(res, ct))[0]

        return _trace(transposed, [*res_avals, *out_avals])

    outs = linear_call_p.bind(
        *consts,
        *res_leaves,
        *lin_leaves,
        callee=closed,
        transpose_thunk=transpose_thunk,
        num_callee_consts=len(consts),
        num_res=len(res_leaves),
    )
    return tree_unflatten(out_trees[0], outs)


def _memoize(thunk):
    saved = []

    @functools.wraps(thunk)
    def memoized():
        if not saved:
            saved.append(thunk())
        return saved[0]

    memoized.__qualname__ = "_memoize.<locals>.memoized"
    return memoized


def _impl(*args, callee, transpose_thunk, num_callee_consts, num_res):
    return [core.to_numpy(o) for o in _eval_call(*args, call_jaxpr=callee)]


def _jvp(primals, tangents, *, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    if any(type(t) is not ad.Zero for t in tangents[:n]):
        raise NotImplementedError(
            "linear_call: differentiating with respect to residual_args is not supported"
        )
    params = dict(
        callee=callee, transpose_thunk=transpose_thunk, num_callee_consts=num_callee_consts, num_res=num_res
    )
    outs = linear_call_p.bind(*primals, **params)
    touts = linear_call_p.bind(*primals[:n], *[ad.instantiate_zeros(t) for t in tangents[n:]], **params)
    return outs, touts


def _transpose(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    transposed, consts = transpose_thunk()
    res = args[num_callee_consts:n]
    cts_in = ir.eval_jaxpr(transposed.jaxpr, [*consts, *res, *[ad.instantiate_zeros(c) for c in cts]])
    return [None] * n + list(cts_in)


def _pp_params(eqn):
    p = eqn.params
    thunk = re.sub(
        r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), repr(p["transpose_thunk"])
    )
    return [
        ("callee", p["callee"]),
        ("num_callee_consts", p["num_callee_consts"]),
        ("num_res", p["num_res"]),
        ("transpose_thunk", thunk),
    ]


linear_call_p.def_impl(_impl)
linear_call_p.def_abstract_eval(lambda *avals, callee, **_: list(callee.out_avals))
ad.jvp_rules[linear_call_p] = _jvp
ad.transpose_rules[linear_call_p] = _transpose
ir.pp_params_rules[linear_call_p] = _pp_params
lowerings[linear_call_p] = Special("inline")  # compiled code runs ``fun``'s jaxpr
