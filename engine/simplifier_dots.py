"""XLA's algebraic simplifications of matrix products and of transposes: the rules
``algebraic_simplifier`` runs for ``dot_general`` and ``transpose`` (registered into its table on
import). Each decides how a dot reads its operands (``lax/dot_order.dot_layout``), which picks its
summation order."""

from __future__ import annotations

import numpy as np

from . import core
from .algebraic_simplifier import _TRANSPOSED, _USES, _eqn, _operand_of, _real_float, rules
from .lax import elementwise as ew
from .lax import structural as st


def _fold_transposes(eqn, inputs, producer):
    """dot(transpose(A), B) => dot(A, B) with A's dimensions renamed (XLA's TransposeFolding) for
    a transpose of rows and columns behind the batch dimensions it keeps, one of them contracted:
    the dot then reads A as stored, which picks its summation order (``dot_order.dot_layout``:
    ``x @ w.T`` is YNNPACK's packed kernel, ``x.T @ g`` XLA's own loop). The transpose stays for
    its other users."""
    (xc, yc), (xb, yb) = eqn.params["dimension_numbers"]
    dims = [[list(xc), list(xb)], [list(yc), list(yb)]]
    new_inputs = list(inputs)
    for i, x in enumerate(inputs):
        t = _operand_of(x, st.transpose_p, producer)
        contract, batch = dims[i]
        if t is None or len(contract) != 1 or x.aval.ndim != len(batch) + 2:
            continue
        perm = [int(p) for p in t.params["permutation"]]
        if any(perm[d] != d for d in batch):
            continue
        new_inputs[i] = t.inputs[0]
        dims[i] = [[perm[d] for d in contract], [perm[d] for d in batch]]
    if new_inputs == list(inputs):
        return None
    numbers = ((tuple(dims[0][0]), tuple(dims[1][0])), (tuple(dims[0][1]), tuple(dims[1][1])))
    params = dict(eqn.params, dimension_numbers=numbers)
    dot, out = _eqn(eqn.primitive, new_inputs, eqn.out_binders[0].aval, params)
    _USES[-1][out] = _USES[-1].get(eqn.out_binders[0], 1)  # (read as the dot it replaces is)
    return [dot], out


def _transpose_of_transpose(eqn, inputs, producer):
    """transpose(transpose(A)) => A, or one transpose of A (XLA's simplifier): the weight
    gradient of ``h @ emb.T`` is the transpose of a transposed dot, which is the dot itself
    (row-major, YNNPACK's), not two turns of its result's layout (``_transposed_dot``)."""
    t = _operand_of(inputs[0], st.transpose_p, producer)
    if t is None:
        return None
    inner, outer = t.params["permutation"], eqn.params["permutation"]
    perm = tuple(int(inner[int(q)]) for q in outer)
    if perm == tuple(range(len(perm))):
        return [], t.inputs[0]
    merged, out = _eqn(
        st.transpose_p, [t.inputs[0]], eqn.out_binders[0].aval, dict(eqn.params, permutation=perm)
    )
    return [merged], out


def _transposed_dot(eqn, inputs, producer):
    """transpose(dot(A, B)) of a matrix product without batch dimensions, the transpose the dot's
    one use: XLA's simplifier makes it dot(transpose(B), transpose(A)) when A and B are matrices
    (whose transposes then fold into the dot: ``(x @ w).T`` reads ``w`` k-major, XLA's own loop).
    Of operands with more dimensions (a weight gradient ``einsum('btd,btf->df')`` transposed by
    its rule) XLA gives the dot a column-major result instead, which YNNPACK does not take: its
    own loop, one fma chain per output, here the matrices B (k, n) and A (k, m) so contracted."""
    d = _operand_of(inputs[0], st.dot_general_p, producer)
    if d is None or tuple(eqn.params["permutation"]) != (1, 0) or _USES[-1].get(inputs[0], 1) != 1:
        return None
    if eqn.out_binders[0] in _TRANSPOSED[-1]:  # (turned back by its one reader: the dot itself)
        return None
    (ac, bc), (ab, bb) = d.params["dimension_numbers"]
    a, b = d.inputs
    if ab or bb or a.aval.dtype != np.float32 or b.aval.dtype != np.float32:
        return None
    prec = d.params.get("precision")
    params = dict(d.params, precision=prec[::-1] if isinstance(prec, tuple) else prec)
    if a.aval.ndim == 2 and b.aval.ndim == 2:
        params["dimension_numbers"] = ((tuple(bc), tuple(ac)), ((), ()))
        dot, out = _eqn(d.primitive, [b, a], eqn.out_binders[0].aval, params)
        return [dot], out
    matrices = []
    for x, c in ((b, bc), (a, ac)):  # (each k-major: its contracted dimensions lead)
        if sorted(int(i) for i in c) != list(range(len(c))):
            return None
        k = int(np.prod([x.aval.shape[i] for i in c]))
        aval = core.ShapedArray((k, x.aval.size // k), x.aval.dtype, x.aval.weak_type)
        r, m = _eqn(st.reshape_p, [x], aval, dict(new_sizes=aval.shape, dimensions=None, sharding=None))
        matrices.append((r, m))
    params["dimension_numbers"] = (((0,), (0,)), ((), ()))
    dot, out = _eqn(d.primitive, [m for _, m in matrices], eqn.out_binders[0].aval, params)
    return [*(r for r, _ in matrices), dot], out


def _dot(eqn, inputs, producer):
    """A dot whose contracted dimensions all have size 1 is a product of broadcasts (XLA's
    strength reduction), which LLVM then fuses into a sum reading it: a Kalman update's
    ``m + K @ r`` (K (n, 1)) is one fma an element. Otherwise ``_fold_transposes``."""
    (xc, yc), (xb, yb) = eqn.params["dimension_numbers"]
    out = eqn.out_binders[0].aval
    x, y = inputs
    if x is y and x.aval.ndim == 1 and not xb and _real_float(x) and x.aval.dtype == out.dtype:
        return _square_summed(x, out)  # (a batch dimension makes x * x itself: einsum('i,i->i'))
    if not all(_real_float(v) and v.aval.dtype == out.dtype for v in inputs) or any(
        v.aval.shape[d] != 1 for v, c in ((x, xc), (y, yc)) for d in c
    ):
        return _fold_transposes(eqn, inputs, producer)
    new, wide, nb = [], [], len(xb)
    for v, c, b, at in ((x, xc, xb, nb), (y, yc, yb, out.ndim - (y.aval.ndim - len(yc) - nb))):
        free = [d for d in range(v.aval.ndim) if d not in c and d not in b]
        kept = [*b, *free]  # (the batch dimensions lead the result, then x's free ones, y's)
        shape = tuple(v.aval.shape[d] for d in kept)
        t, moved = _eqn(
            st.transpose_p,
            [v],
            core.ShapedArray(tuple(v.aval.shape[d] for d in (*kept, *c)), out.dtype),
            dict(permutation=(*kept, *c)),
        )
        r, flat = _eqn(
            st.reshape_p,
            [moved],
            core.ShapedArray(shape, out.dtype),
            dict(new_sizes=shape, dimensions=None, sharding=None),
        )
        dims = (*range(nb), *range(at, at + len(free)))
        w, full = _eqn(
            st.broadcast_in_dim_p,
            [flat],
            out,
            dict(shape=out.shape, broadcast_dimensions=dims, sharding=None),
        )
        new += [t, r, w]
        wide.append(full)
    mul, product = _eqn(ew.mul_p, wide, out)
    return [*new, mul], product


def _square_summed(x, out):
    """x . x, x a vector => sum(x * x): XLA strength-reduces a dot of two vectors to a product and
    a sum, and the sum of a square adds its products unfused (``sum_order``'s ``load_square``): CG's
    r . r in a while loop's body was an ulp off JAX, the engine's dot fusing them. (A dot of two
    other vectors already adds as that sum does.)"""
    from .lax.reductions import reduce_sum_p

    mul, product = _eqn(ew.mul_p, [x, x], x.aval)
    total, summed = _eqn(reduce_sum_p, [product], out, dict(axes=(0,), out_sharding=None))
    return [mul, total], summed


def _transposed_product(eqn, inputs, producer):
    """transpose(A' * B'), A' and B' broadcasts => the product of A and B broadcast in the
    transposed order: one loop writing the result where XLA's fusion writes it. A per-example
    weight gradient (``vmap(grad)`` of ``x @ w``: ``_dot``'s outer product, transposed by the dot's
    rule) was a product written once and turned once, 2x the memory traffic of the result."""
    m = _operand_of(inputs[0], ew.mul_p, producer)
    if m is None or _USES[-1].get(inputs[0], 1) != 1:
        return None
    perm = [int(p) for p in eqn.params["permutation"]]
    where = {d: i for i, d in enumerate(perm)}  # (an operand's dimension d lands at where[d])
    new, wide = [], []
    for x in m.inputs:
        b = _operand_of(x, st.broadcast_in_dim_p, producer)
        if b is None:
            return None
        dims = tuple(where[int(d)] for d in b.params["broadcast_dimensions"])
        if list(dims) != sorted(dims):
            return None
        w, full = _eqn(
            st.broadcast_in_dim_p,
            list(b.inputs),
            eqn.out_binders[0].aval,
            dict(b.params, shape=eqn.out_binders[0].aval.shape, broadcast_dimensions=dims),
        )
        new.append(w)
        wide.append(full)
    mul, product = _eqn(ew.mul_p, wide, eqn.out_binders[0].aval)
    return [*new, mul], product


rules[st.dot_general_p] = _dot
rules[st.transpose_p] = lambda eqn, inputs, producer: (
    _transpose_of_transpose(eqn, inputs, producer)
    or _transposed_dot(eqn, inputs, producer)
    or _transposed_product(eqn, inputs, producer)
)
