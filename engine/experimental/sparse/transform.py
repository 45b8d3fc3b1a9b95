"""``sparsify``: run a function written for dense arrays on BCOO arrays.

The function is staged to a jaxpr on the dense shapes of its arguments, then interpreted: an
equation whose operands are all dense is bound as it is, one with a BCOO operand goes to that
primitive's row of ``sparse_rules``, which computes on the stored elements (``mul`` of a BCOO and a
dense array extracts the dense values at the indices, ``dot_general`` becomes ``bcoo_dot_general``,
...). A primitive without a row raises NotImplementedError naming it. BCOO's operators are jnp
functions under ``sparsify``, as in JAX.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ... import core, lax
from ... import numpy as jnp
from ...ir import Literal
from ...call_operands import _hoist_tracer_consts
from ...jit_primitive import jit_p, with_body
from ...staging import trace_to_jaxpr
from ...tree_util import tree_flatten, tree_unflatten
from ._base import JAXSparse
from .bcoo_structure import (
    bcoo_broadcast_in_dim,
    bcoo_concatenate,
    bcoo_dynamic_slice,
    bcoo_gather,
    bcoo_reshape,
    bcoo_rev,
    bcoo_slice,
    bcoo_squeeze,
)
from .bcoo_conv import bcoo_conv_general_dilated
from .bcsr import BCSR, bcsr_broadcast_in_dim, bcsr_concatenate, bcsr_dot_general
from .bcoo import (
    BCOO,
    bcoo_dot_general,
    bcoo_multiply_dense,
    bcoo_multiply_sparse,
    bcoo_reduce_sum,
    bcoo_transpose,
)

# primitive -> rule(*operands (BCOO or dense), **params) -> list of outputs (BCOO or dense)
sparse_rules: dict[core.Primitive, Callable[..., list[Any]]] = {}
# the same for equations with a BCSR operand
bcsr_rules: dict[core.Primitive, Callable[..., list[Any]]] = {}


def is_sparse(x) -> bool:
    return isinstance(x, JAXSparse)


def _aval(x):
    if is_sparse(x):
        return core.ShapedArray(x.shape, x.dtype, core.get_aval(x.data).weak_type)
    return core.raise_to_shaped(core.get_aval(x))


def eval_sparse(jaxpr, consts, args) -> list[Any]:
    """Interpret ``jaxpr`` on ``args``, some of them BCOO arrays."""
    env: dict[Any, Any] = {}

    def read(x):
        return x.val if type(x) is Literal else env[x]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.in_binders, args))
    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        with core.source_info_context(eqn.source_info):
            if any(is_sparse(v) for v in ins):
                table = bcsr_rules if any(isinstance(v, BCSR) for v in ins) else sparse_rules
                rule = table.get(eqn.primitive)
                if rule is None:
                    # (JAX 0.10.2's words; e.g. BCSR has no mul rule there, BCOO does)
                    raise NotImplementedError(f"sparse rule for {eqn.primitive.name} is not implemented.")
                outs = rule(*ins, **eqn.params)
            else:
                outs = eqn.primitive.bind(*ins, **eqn.params)
                outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.out_binders, outs))
    return [read(x) for x in jaxpr.outs]


def sparsify(f: Callable, use_tracer: bool = False) -> Callable:
    """A version of ``f`` that takes BCOO arrays wherever it takes arrays.

    >>> from engine.experimental import sparse
    >>> M = sparse.BCOO.fromdense(jnp.array([[0., 1.], [2., 0.]]))
    >>> sparse.sparsify(lambda m, v: 2 * jnp.sin(m) @ v)(M, jnp.ones(2))
    Array([1.6829419, 1.8185948], dtype=float32)
    """
    if use_tracer:
        raise NotImplementedError(
            "sparsify(use_tracer=True): the engine sparsifies with its jaxpr interpreter only"
        )

    @functools.wraps(f)
    def wrapped(*args, **params):
        leaves, in_tree = tree_flatten(args, is_leaf=is_sparse)
        out_tree = []

        def flat(*xs):
            out = f(*tree_unflatten(in_tree, list(xs)), **params)
            outs, tree = tree_flatten(out)
            out_tree.append(tree)
            return outs

        closed = trace_to_jaxpr(flat, [_aval(x) for x in leaves])
        outs = eval_sparse(closed.jaxpr, closed.consts, leaves)
        return tree_unflatten(out_tree[0], outs)

    return wrapped


def _with_data(mat: BCOO, data, **info) -> BCOO:
    """``mat``'s sparsity (the same indices buffer, which later rules compare by identity) with new data."""
    keep = {"indices_sorted": mat.indices_sorted, "unique_indices": mat.unique_indices, **info}
    return BCOO((data, mat.indices), shape=mat.shape, **keep)


# --- elementwise ---------------------------------------------------------------------------------


def _unary_rule(prim, linear: bool):
    def rule(x, **params):
        if not linear and not x.unique_indices:  # f(a) + f(b) is not f(a + b): sum duplicates first
            x = x.sum_duplicates(nse=x.nse, remove_zeros=False)
        # the same format and sparsity (its index buffers and flags), the data mapped
        bufs, tree = tree_flatten(x)
        return [tree_unflatten(tree, [prim.bind(x.data, **params), *bufs[1:]])]

    return rule


_ZERO_PRESERVING = (
    "abs asin asinh atan atanh bessel_i1e expm1 log1p sign sin sinh sqrt square tan tanh convert_element_type"
)
for _name in _ZERO_PRESERVING.split():
    sparse_rules[getattr(lax, f"{_name}_p")] = _unary_rule(getattr(lax, f"{_name}_p"), linear=False)
for _name in "conj copy imag neg real".split():
    sparse_rules[getattr(lax, f"{_name}_p")] = _unary_rule(getattr(lax, f"{_name}_p"), linear=True)
bcsr_rules.update(sparse_rules)  # (the unary rules keep either format)


def _integer_pow_rule(x, *, y):
    if y <= 0:
        raise NotImplementedError(
            f"sparse rule for integer_pow with non-positive exponent {y} is not implemented because it would "
            "result in dense output. If this is your intent, use sparse.todense() to convert your argument "
            "to a dense array."
        )
    return _unary_rule(lax.integer_pow_p, linear=False)(x, y=y)


sparse_rules[lax.integer_pow_p] = _integer_pow_rule
bcsr_rules[lax.integer_pow_p] = _integer_pow_rule


def _add_rule(x, y):
    if is_sparse(x) and is_sparse(y):
        if x.shape != y.shape:
            raise NotImplementedError("Addition between sparse matrices of different shapes.")
        if x.indices is y.indices:
            return [_with_data(x, lax.add(x.data, y.data))]
        if x.indices.ndim != y.indices.ndim or x.data.ndim != y.data.ndim:
            raise NotImplementedError(
                "Addition between sparse matrices with different batch/dense dimensions."
            )
        axis = x.indices.ndim - 2  # both sets of stored elements, one after the other
        indices = lax.concatenate([x.indices, y.indices], axis)
        return [BCOO((lax.concatenate([x.data, y.data], axis), indices), shape=x.shape)]
    sp, dense = (x, y) if is_sparse(x) else (y, x)
    if tuple(core.get_aval(dense).shape) != tuple(lax.broadcast_shapes(sp.shape, core.get_aval(dense).shape)):
        raise NotImplementedError(
            "Addition between a sparse array X and a dense array Y is not implemented when the output shape "
            "is larger than Y.shape. This is to prevent silent densification of a large sparse array. If this "
            "is your intent, you can explicitly cast the sparse array to a dense matrix."
        )
    return [sp.todense() + dense]


def _sub_rule(x, y):
    if is_sparse(x) and is_sparse(y):
        return _add_rule(x, _unary_rule(lax.neg_p, linear=True)(y)[0])
    raise NotImplementedError("Subtraction between sparse and dense array.")


def _mul_rule(x, y, out_dtype=None):
    if is_sparse(x) and is_sparse(y):
        if x.indices is y.indices and x.unique_indices:
            return [_with_data(x, lax.mul(x.data, y.data), unique_indices=True)]
        return [bcoo_multiply_sparse(x, y)]
    sp, dense = (x, y) if is_sparse(x) else (y, x)
    return [_with_data(sp, bcoo_multiply_dense(sp, dense))]


def _div_rule(x, y):
    if is_sparse(y):
        raise NotImplementedError(
            "Division by a sparse array is not implemented because it would result in dense output. If this is "
            "your intent, use sparse.todense() to convert your arguments to a dense array."
        )
    return [_with_data(x, bcoo_multiply_dense(x, 1.0 / jnp.asarray(y)))]


sparse_rules[lax.add_p] = _add_rule
sparse_rules[lax.sub_p] = _sub_rule
sparse_rules[lax.mul_p] = _mul_rule
sparse_rules[lax.div_p] = _div_rule


# --- structure, contraction, reduction -----------------------------------------------------------


def _transpose_rule(x, *, permutation):
    permutation = tuple(permutation)
    out = bcoo_transpose(x, permutation=permutation)
    nb, ns = x.n_batch, x.n_sparse
    batch_same = permutation[:nb] == tuple(range(nb))
    dense_same = permutation[nb + ns :] == tuple(range(nb + ns, x.ndim))
    sparse_same = permutation[nb : nb + ns] == tuple(range(nb, nb + ns))
    # Buffers the permutation leaves alone stay the same objects (so ``x.T * x.T`` shares indices).
    data = x.data if batch_same and dense_same else out.data
    indices = x.indices if batch_same and sparse_same else out.indices
    return [
        BCOO(
            (data, indices),
            shape=out.shape,
            indices_sorted=out.indices_sorted,
            unique_indices=out.unique_indices,
        )
    ]


def _dot_general_rule(
    lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    return [
        bcoo_dot_general(
            lhs, rhs, dimension_numbers=dimension_numbers, preferred_element_type=preferred_element_type
        )
    ]


def _reduce_sum_rule(x, *, axes, out_sharding=None):
    mat = bcoo_reduce_sum(x, axes=axes)
    return [mat.data.sum() if mat.shape == () else mat]


def _jit_rule(*args, jaxpr, name, **params):
    # The call stays a call (as JAX's sparsify keeps the pjit): its body is sparsified into a new
    # jaxpr taking the sparse operands' buffers, whose outputs are the sparse results' buffers.
    leaves, in_tree = tree_flatten(list(args))
    out_tree = []

    def body(*xs):
        outs, tree = tree_flatten(eval_sparse(jaxpr.jaxpr, jaxpr.consts, tree_unflatten(in_tree, list(xs))))
        out_tree.append(tree)
        return outs

    closed, hoisted = _hoist_tracer_consts(trace_to_jaxpr(body, [_aval(x) for x in leaves]))
    outs = jit_p.bind(*hoisted, *leaves, **with_body({"name": name, **params}, closed))
    return tree_unflatten(out_tree[0], outs)


def _standard(fn):
    def rule(*args, **params):
        if not all(is_sparse(a) for a in args):
            raise NotImplementedError(
                f"{fn.__name__} of a sparse and a dense array (sparsify): make both sparse"
            )
        return [fn(*args, **params)]

    return rule


def _dynamic_slice_rule(x, *starts, slice_sizes):
    if any(is_sparse(s) for s in starts):
        raise NotImplementedError("dynamic_slice at sparse start indices (sparsify)")
    return [bcoo_dynamic_slice(x, starts, slice_sizes)]


sparse_rules[lax.squeeze_p] = _standard(lambda x, *, dimensions: bcoo_squeeze(x, dimensions=dimensions))
sparse_rules[lax.rev_p] = _standard(lambda x, *, dimensions: bcoo_rev(x, dimensions))
sparse_rules[lax.concatenate_p] = _standard(lambda *xs, dimension: bcoo_concatenate(xs, dimension=dimension))
sparse_rules[lax.slice_p] = _standard(
    lambda x, *, start_indices, limit_indices, strides: bcoo_slice(
        x, start_indices=start_indices, limit_indices=limit_indices, strides=strides
    )
)
sparse_rules[lax.broadcast_in_dim_p] = _standard(
    lambda x, *, shape, broadcast_dimensions, **_: bcoo_broadcast_in_dim(
        x, shape=shape, broadcast_dimensions=broadcast_dimensions
    )
)
sparse_rules[lax.reshape_p] = _standard(
    lambda x, *, new_sizes, dimensions, **_: bcoo_reshape(x, new_sizes=new_sizes, dimensions=dimensions)
)
sparse_rules[lax.dynamic_slice_p] = _dynamic_slice_rule


def _gather_rule(operand, indices, **params):
    if is_sparse(indices):
        raise NotImplementedError("gather at sparse indices (sparsify)")
    return [bcoo_gather(operand, indices, **params)]


sparse_rules[lax.gather_p] = _gather_rule


def _stack(*xs, axis):
    # as JAX's: each operand gains the axis (broadcast_in_dim), then they are concatenated along it
    shape = (*xs[0].shape[:axis], 1, *xs[0].shape[axis:])
    dims = tuple(d if d < axis else d + 1 for d in range(xs[0].ndim))
    grown = [bcoo_broadcast_in_dim(x, shape=shape, broadcast_dimensions=dims) for x in xs]
    return bcoo_concatenate(grown, dimension=axis)


sparse_rules[lax.stack_p] = _standard(_stack)
sparse_rules[lax.transpose_p] = _transpose_rule
sparse_rules[lax.dot_general_p] = _dot_general_rule
sparse_rules[lax.reduce_sum_p] = _reduce_sum_rule
sparse_rules[jit_p] = _jit_rule
sparse_rules[lax.conv_general_dilated_p] = lambda lhs, rhs, **params: [  # (either operand may be dense)
    bcoo_conv_general_dilated(lhs, rhs, **params)
]


# --- control flow: the bodies are sparsified, and the loop carries BCOO arrays as pytrees --------


def _run(closed, *args):
    return eval_sparse(closed.jaxpr, closed.consts, list(args))


def _cond_rule(index, *operands, branches):
    if is_sparse(index):
        raise NotImplementedError("cond on a sparse predicate (sparsify)")
    return list(lax.switch(index, [functools.partial(_run, b) for b in branches], *operands))


def _while_rule(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cconsts, bconsts = args[:cond_nconsts], args[cond_nconsts : cond_nconsts + body_nconsts]
    init = list(args[cond_nconsts + body_nconsts :])
    # (a body that changes a carry's sparsity, as an nse or its flags, fails the loop's type check, as in JAX)
    return lax.while_loop(
        lambda c: _run(cond_jaxpr, *cconsts, *c)[0], lambda c: _run(body_jaxpr, *bconsts, *c), init
    )


def _scan_rule(*args, jaxpr, num_consts, num_carry, length, reverse, unroll):
    consts, init, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )

    def step(carry, x):
        outs = _run(jaxpr, *consts, *carry, *x)
        return outs[:num_carry], outs[num_carry:]

    carry, ys = lax.scan(step, list(init), list(xs), length=length, reverse=reverse, unroll=unroll)
    return [*carry, *ys]


sparse_rules[lax.cond_p] = _cond_rule
sparse_rules[lax.while_p] = _while_rule
sparse_rules[lax.scan_p] = _scan_rule


def _bcsr_dot_general_rule(
    lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    return [
        bcsr_dot_general(
            lhs, rhs, dimension_numbers=dimension_numbers, preferred_element_type=preferred_element_type
        )
    ]


bcsr_rules[lax.dot_general_p] = _bcsr_dot_general_rule
bcsr_rules[lax.broadcast_in_dim_p] = _standard(
    lambda x, *, shape, broadcast_dimensions, **_: bcsr_broadcast_in_dim(
        x, shape=shape, broadcast_dimensions=broadcast_dimensions
    )
)
bcsr_rules[lax.concatenate_p] = _standard(lambda *xs, dimension: bcsr_concatenate(xs, dimension=dimension))
bcsr_rules[lax.stack_p] = _standard(
    lambda *xs, axis: BCSR.from_bcoo(_stack(*(x.to_bcoo() for x in xs), axis=axis))
)


def _inline_jit_rule(*args, jaxpr, **params):
    # (beyond JAX, whose sparsify has no jit rule for BCSR operands: the call is inlined)
    return eval_sparse(jaxpr.jaxpr, jaxpr.consts, list(args))


bcsr_rules[jit_p] = _inline_jit_rule


# --- BCOO's operators: jnp functions, sparsified -------------------------------------------------


def _swap(f):
    return lambda a, b: f(b, a)


def _sum(self, *args, **kwargs):
    """The sum over the given axes (all by default)."""
    return sparsify(lambda x: x.sum(*args, **kwargs))(self)


def _astype(self, *args, **kwargs):
    """The array with its data cast to a dtype."""
    return sparsify(lambda x: x.astype(*args, **kwargs))(self)


def _reshape(self, *args, **kwargs):
    return sparsify(lambda x: x.reshape(*args, **kwargs))(self)


def _getitem(self, index):
    return sparsify(lambda x: x[index])(self)


def _iter(self):
    return (self[i] for i in range(self.shape[0]))


def _pow(self, exponent):
    return sparsify(lambda x: jnp.power(x, exponent))(self)


_METHODS = {
    "sum": _sum,
    "astype": _astype,
    "reshape": _reshape,
    "__abs__": sparsify(jnp.abs),
    "__neg__": sparsify(jnp.negative),
    "__pos__": sparsify(jnp.positive),
    "__matmul__": sparsify(jnp.matmul),
    "__rmatmul__": sparsify(_swap(jnp.matmul)),
    "__mul__": sparsify(jnp.multiply),
    "__rmul__": sparsify(_swap(jnp.multiply)),
    "__truediv__": sparsify(jnp.divide),
    "__add__": sparsify(jnp.add),
    "__radd__": sparsify(_swap(jnp.add)),
    "__sub__": sparsify(jnp.subtract),
    "__rsub__": sparsify(_swap(jnp.subtract)),
    "__pow__": _pow,
    "__getitem__": _getitem,
    "__iter__": _iter,
}
for _method, _impl in _METHODS.items():
    setattr(BCOO, _method, _impl)
for _method in ("__matmul__", "__rmatmul__"):
    setattr(BCSR, _method, _METHODS[_method])
