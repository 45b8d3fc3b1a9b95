"""Products and contractions: dot, matmul (``@``), vdot, inner, outer, tensordot, einsum, kron,
and 1-d convolve/correlate.

Everything lowers to ``lax.dot_general`` (plus reshapes/transposes), so derivatives and batching come
from that one primitive's rules; convolve/correlate lower to ``lax.conv_general_dilated`` as in JAX.
"""

from __future__ import annotations

import string

import numpy as np
import opt_einsum

from .. import core, dims, lax
from ..core import Tracer
from ._dtypes import dtype_and_weak, promote_types_weak, to_dtype
from ..jitted_tangents import typed_as_primals
from ._promote import (
    as_operand,
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
)
from ._staged import staged_as_jit
from ._ufunc_dispatch import check_committed


def _pet(preferred_element_type):
    return None if preferred_element_type is None else core.canonical_dtype(to_dtype(preferred_element_type))


def _dot_general(a, b, dn, preferred_element_type=None, out_sharding=None, precision=None):
    (ca, cb), _ = dn
    sa = tuple(a.shape[i] for i in ca)
    sb = tuple(b.shape[i] for i in cb)
    if sa != sb:  # (lax.dot_general's shape rule: JAX's jnp functions leave it to that)
        raise TypeError(
            f"dot_general requires contracting dimensions to have the same shape, got {sa} and {sb}."
        )
    pet = a.dtype if preferred_element_type is None else preferred_element_type  # as JAX's jnp records it
    return lax.dot_general(
        a, b, dn, precision=precision, preferred_element_type=_pet(pet), out_sharding=out_sharding
    )


def _operands(name, a, b, preferred_element_type):
    """JAX's dot / matmul: the operands as they are (dot_general takes mixed dtypes, int8 x float32
    or bool x bool), accumulated in and recorded as preferred their result type unless told
    otherwise; returns the operands, that type and whether the result is weak."""
    check_arraylike(name, a, b)
    a, b = typed_as_primals((as_operand(a), as_operand(b)))  # (jitted in JAX)
    if preferred_element_type is not None:
        return a, b, _pet(preferred_element_type), False
    pet, weak = promote_types_weak(dtype_and_weak(x) for x in (a, b))
    return a, b, core.canonical_dtype(pet), weak


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """numpy's ``dot``: inner product of vectors, matrix products, last-by-second-to-last axes.

    >>> jnp.dot(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    check_committed("dot", ("a", "b"), a, b)
    a, b, pet, weak = _operands("dot", a, b, preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        contract = ((), ())
    else:
        contract = ((a.ndim - 1,), (0 if b.ndim == 1 else b.ndim - 2,))
    out = _dot_general(a, b, (contract, ((), ())), pet, out_sharding, precision)
    return convert(out, pet, weak)  # (JAX's _convert_element_type of the result: weak as the join)


_MATRIX_PRODUCT = (((1,), (0,)), ((), ()))


def _eager_matmul(a, b):
    """``a @ b`` of two concrete float32 matrices, nothing staging or guarded, or None: the one
    ``dot_general`` the general path binds, its impl called as ``EvalTrace`` calls it (a
    third of an eager product's time was the layers between). Weak where both operands are."""
    if (
        core.staging_anywhere[0]
        or core._transfer_guarded[0]
        or type(a) is not core.Array
        or type(b) is not core.Array
    ):
        return None
    av, bv = a._value, b._value
    if (
        av.ndim != 2
        or bv.ndim != 2
        or av.dtype.char != "f"
        or bv.dtype.char != "f"
        or av.shape[1] != bv.shape[0]
    ):
        return None
    out = core.impl_rules[lax.dot_general_p](
        av,
        bv,
        dimension_numbers=_MATRIX_PRODUCT,
        precision=None,
        preferred_element_type=av.dtype,
        out_sharding=None,
    )
    return core.Array(out, a.weak_type and b.weak_type)


def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with numpy's rules: 1-D operands are promoted, leading axes broadcast.

    >>> (jnp.ones((5, 2, 3)) @ jnp.ones((3, 4))).shape
    (5, 2, 4)
    """
    if precision is None and preferred_element_type is None and out_sharding is None:
        fast = _eager_matmul(a, b)
        if fast is not None:
            return fast
    a, b, pet, weak = _operands("matmul", a, b, preferred_element_type)
    for i, x in enumerate((a, b)):
        if x.ndim < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has ndim {x.ndim}")
    ka = a.shape[-1]
    kb = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if ka != kb:  # (lax.dot_general's shape rule, as in JAX)
        raise TypeError(
            f"dot_general requires contracting dimensions to have the same shape, got {(ka,)} and {(kb,)}."
        )
    # JAX's formulation: one dot_general over the broadcast batch axes (size-1 ones squeezed),
    # then a transpose into numpy's output order, so the jaxpr matches JAX's.
    a_is_mat, b_is_mat = a.ndim > 1, b.ndim > 1
    a_batch_dims = a.shape[:-2] if a_is_mat else ()
    b_batch_dims = b.shape[:-2] if b_is_mat else ()
    nb = max(len(a_batch_dims), len(b_batch_dims))
    a_batch_dims = (None,) * (nb - len(a_batch_dims)) + tuple(a_batch_dims)
    b_batch_dims = (None,) * (nb - len(b_batch_dims)) + tuple(b_batch_dims)
    a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch = [], [], [], [], []
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (ba, bb) in enumerate(zip(a_batch_dims, b_batch_dims)):
        if ba is None:
            idx_b_other.append(i)
        elif bb is None:
            idx_a_other.append(i)
        elif ba == 1 and bb == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif ba == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif bb == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a_other))
            b_batch.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible shapes for matmul arguments: {a.shape} and {b.shape}")
    if a_is_mat:
        idx_a_other.append(nb)
    if b_is_mat:
        idx_b_other.append(nb + a_is_mat)
    perm = tuple(int(p) for p in np.argsort(idx_batch + idx_a_other + idx_b_other))
    if a_squeeze:
        a = lax.squeeze(a, tuple(a_squeeze))
    if b_squeeze:
        b = lax.squeeze(b, tuple(b_squeeze))
    dn = (((a.ndim - 1,), (b.ndim - 1 - b_is_mat,)), (tuple(a_batch), tuple(b_batch)))
    direct = perm == tuple(range(len(perm))) and not both_squeeze
    out = _dot_general(a, b, dn, pet, out_sharding if direct else None, precision)
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, tuple(both_squeeze))
    if out_sharding is not None and not direct:
        from ..sharding import reshard

        out = reshard(out, out_sharding)
    return convert(out, pet, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened arrays, conjugating the first (as numpy does)."""
    from ._shape import ravel
    from ._complex_parts import conj

    return dot(conj(ravel(a)), ravel(b), precision=precision, preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Vector dot products along ``axis``, the first argument conjugated: JAX's vectorized
    ``vdot`` over the other (batch) dimensions.

    >>> jnp.vecdot(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """
    import functools

    from ._creation import vectorize
    from ._shape import moveaxis

    check_arraylike("jnp.vecdot", x1, x2)
    x1, x2 = as_operand(x1), as_operand(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with axis={axis}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    dot1 = functools.partial(vdot, precision=precision, preferred_element_type=preferred_element_type)
    return vectorize(dot1, signature="(n),(n)->()")(x1, x2)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contraction of the last axes of ``a`` and ``b`` (JAX's: a tensordot; a product of scalars)."""
    check_arraylike("inner", a, b)
    a, b = as_operand(a), as_operand(b)
    if a.ndim == 0 or b.ndim == 0:
        from ._ufuncs import multiply

        if preferred_element_type is not None:
            pet = _pet(preferred_element_type)
            a, b = convert(a, pet), convert(b, pet)
        return multiply(a, b)
    return tensordot(a, b, (-1, -1), precision=precision, preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """Outer product of the flattened arrays.

    >>> jnp.outer(jnp.arange(2), jnp.arange(3)).shape
    (2, 3)
    """
    from ._shape import ravel
    from ._ufuncs import multiply

    check_arraylike("outer", a, b)
    a, b = promote_dtypes(a, b)  # (before the broadcasts, as JAX's)
    a, b = ravel(a), ravel(b)
    return multiply(lax.expand_dims(a, (1,)), lax.expand_dims(b, (0,)))


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Contract ``axes`` (an int: last N of ``a`` with first N of ``b``; or two axis lists);
    ``out_sharding`` lays the result out (the ``dot_general`` carries it, as JAX's)."""
    a, b, pet, weak = _operands("tensordot", a, b, preferred_element_type)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n > min(a.ndim, b.ndim):
            raise TypeError(
                f"Number of tensordot axes (axes {n}) exceeds input ranks ({a.shape} and {b.shape})"
            )
        ca, cb = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    else:
        xa, xb = axes
        xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
        xb = [xb] if isinstance(xb, (int, np.integer)) else list(xb)
        if len(xa) != len(xb):
            raise TypeError(f"tensordot requires axes lists to have equal length, got {xa} and {xb}.")
        ca = tuple(canonicalize_axis(i, a.ndim) for i in xa)
        cb = tuple(canonicalize_axis(i, b.ndim) for i in xb)
    out = _dot_general(a, b, ((ca, cb), ((), ())), pet, out_sharding, precision)
    return convert(out, pet, weak)  # (JAX's _convert_element_type of the result: weak as the join)


@staged_as_jit
def kron(a, b):
    """Kronecker product: blocks ``a[i, j] * b`` (JAX's expand_dims and one mul).

    >>> kron(jnp.array([1, 2]), jnp.array([1, 10]))
    Array([ 1, 10,  2, 20], dtype=int32)
    """
    a, b = promote_dtypes(a, b)
    if a.dtype == np.bool_:  # (JAX's lax.mul of bools raises; the engine's mul takes them)
        raise TypeError(
            "mul does not accept dtype bool at position 0. Accepted dtypes at position 0 are "
            "subtypes of integer, floating, complexfloating."
        )
    if a.ndim < b.ndim:
        a = lax.expand_dims(a, tuple(range(b.ndim - a.ndim)))
    elif b.ndim < a.ndim:
        b = lax.expand_dims(b, tuple(range(a.ndim - b.ndim)))
    ai = lax.expand_dims(a, tuple(range(1, 2 * a.ndim, 2)))
    bi = lax.expand_dims(b, tuple(range(0, 2 * b.ndim, 2)))
    return lax.reshape(lax.mul(ai, bi), tuple(x * y for x, y in zip(a.shape, b.shape)))


@staged_as_jit(static_argnames=("axisa", "axisb", "axisc", "axis"))
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors get a zero third component), composed as JAX's:
    components indexed off the last axis, the three products stacked by ``array``.

    >>> cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
    Array([0., 0., 1.], dtype=float32)
    """
    from ._creation import array, zeros_like
    from ._shape import moveaxis

    check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else zeros_like(a0)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


# --- einsum ----------------------------------------------------------------------------------


def _parse_einsum(subscripts: str, shapes):
    subscripts = subscripts.replace(" ", "")
    if "->" in subscripts:
        lhs, out = subscripts.split("->")
        explicit = True
    else:
        lhs, out, explicit = subscripts, None, False
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: {len(ins)} input specs for {len(shapes)} operands")
    used = set(c for c in subscripts if c.isalpha())
    free_letters = [c for c in string.ascii_letters if c not in used]
    max_ell = 0
    for spec, shape in zip(ins, shapes):
        if "..." in spec:
            max_ell = max(max_ell, len(shape) - (len(spec) - 3))
    ell = "".join(free_letters[:max_ell])
    labels = []
    for spec, shape in zip(ins, shapes):
        if "..." in spec:
            n = len(shape) - (len(spec) - 3)
            if n < 0:
                raise ValueError(f"einsum: operand of shape {shape} has too few axes for {spec!r}")
            spec = spec.replace("...", ell[max_ell - n :])
        if len(spec) != len(shape):
            raise ValueError(
                f"einsum: spec {spec!r} does not match operand of rank {len(shape)} (shape {shape})"
            )
        labels.append(spec)
    if explicit:
        out = out.replace("...", ell)
    else:
        counts = {}
        for spec in labels:
            for c in spec:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    for c in out:
        if not any(c in spec for spec in labels):
            raise ValueError(f"Output character {c!r} did not appear in the input")
    return labels, out


def _einsum_sublists(operands):
    """The interleaved form ``einsum(x, [0, 1], y, [1, 2], [0, 2])`` as a string spec."""
    ops, specs = [], []
    args = list(operands)
    out = None
    while len(args) >= 2:
        ops.append(args.pop(0))
        specs.append(args.pop(0))
    if args:
        out = args[0]

    def letters(sub):
        return "".join("..." if s is Ellipsis else string.ascii_letters[int(s)] for s in sub)

    spec = ",".join(letters(s) for s in specs) + ("" if out is None else "->" + letters(out))
    return spec, ops


def _einsum_sum(x, axes, preferred):
    """JAX's einsum sum: in the result type where the operand's is narrower, bools or-ed."""
    if promote_types_weak([dtype_and_weak(x), (preferred, False)])[0] != x.dtype:
        x = convert(x, preferred)
    return lax.reduce_or(x, axes) if x.dtype == np.bool_ else lax.reduce_sum(x, axes)


def _sum_repeats(x, labels: str, keep: set, preferred):
    """Repeated labels in one operand (``'ii'``), as JAX contracts them: mask with the Kronecker
    delta over their axes, then sum all of them (or all but the last, if the label is kept)."""
    counts: dict = {}
    for c in labels:
        counts[c] = counts.get(c, 0) + 1
    for c, count in counts.items():
        if count < 2:
            continue
        axes = [i for i, n in enumerate(labels) if n == c]
        base_shape = tuple(x.shape[i] for i in axes)
        iotas = [lax.broadcasted_iota(np.dtype("uint32"), base_shape, i) for i in range(len(axes))]
        eye = lax.eq(iotas[0], iotas[1])
        for i1, i2 in zip(iotas[1:-1], iotas[2:]):
            eye = lax.bitwise_and(eye, lax.eq(i1, i2))
        if base_shape != x.shape:
            eye = lax.broadcast_in_dim(eye, x.shape, tuple(axes))
        x = lax.select(eye, x, lax.full_like(x, 0))
        if c not in keep:
            x = _einsum_sum(x, tuple(axes), preferred)
            labels = labels.replace(c, "")
        else:
            x = _einsum_sum(x, tuple(axes[:-1]), preferred)
            labels = labels.replace(c, "", count - 1)
    return x, labels


def _sum_labels(x, labels: str, names, preferred):
    """Sum out the axes labelled ``names`` (in that order)."""
    if not names:
        return x, labels
    x = _einsum_sum(x, tuple(labels.index(c) for c in names), preferred)
    return x, "".join(c for c in labels if c not in names)


def _drop_singletons(x, labels: str, other_shape, other_labels: str):
    """Size-1 axes whose label the other operand has bigger: a sum over one element, dropped so the
    other operand's size wins (broadcasting, as JAX's einsum does)."""
    drop = []
    for i, c in enumerate(labels):
        j = other_labels.find(c)
        if x.shape[i] == 1 and j != -1 and other_shape[j] != 1:
            drop.append(i)
    if not drop:
        return x, labels
    return lax.squeeze(x, tuple(drop)), "".join(c for i, c in enumerate(labels) if i not in drop)


class _InOrder(opt_einsum.paths.PathOptimizer):
    """``optimize=False``: contract the operands left to right."""

    def __call__(self, inputs, *args, **kwargs):
        return [(0, 1)] * (len(inputs) - 1)


def _contract_pair(
    a, la: str, b, lb: str, removed, result: str, laid_out=None, precision=None, preferred=None
):
    """One pairwise step of an einsum path, as JAX's einsum takes it: broadcast size-1 axes, sum
    labels private to one side, take repeated labels' diagonals, then one ``dot_general`` whose
    operand order avoids a transpose when it can (opt_einsum contracts right to left)."""
    a, la = _drop_singletons(a, la, b.shape, lb)
    b, lb = _drop_singletons(b, lb, a.shape, la)
    counts_a, counts_b = {c: la.count(c) for c in la}, {c: lb.count(c) for c in lb}
    a, la = _sum_labels(a, la, [c for c in removed if counts_a.get(c) == 1 and c not in counts_b], preferred)
    b, lb = _sum_labels(b, lb, [c for c in removed if counts_b.get(c) == 1 and c not in counts_a], preferred)
    a, la = _sum_repeats(a, la, set(result + lb), preferred)
    b, lb = _sum_repeats(b, lb, set(result + la), preferred)
    contract = [c for c in removed if c in la or c in lb]
    batch = [c for c in result if c in la and c in lb]
    gone = set(batch) | set(contract)
    rest_a, rest_b = "".join(c for c in la if c not in gone), "".join(c for c in lb if c not in gone)
    cont_a, cont_b = tuple(la.index(c) for c in contract), tuple(lb.index(c) for c in contract)
    batch_a, batch_b = tuple(la.index(c) for c in batch), tuple(lb.index(c) for c in batch)
    names = "".join(batch) + rest_b + rest_a
    if names == result:
        return lax.dot_general(
            b,
            a,
            ((cont_b, cont_a), (batch_b, batch_a)),
            precision=precision,
            preferred_element_type=preferred,
            out_sharding=_by_labels(laid_out, names),
        ), names
    names = "".join(batch) + rest_a + rest_b
    return lax.dot_general(
        a,
        b,
        ((cont_a, cont_b), (batch_a, batch_b)),
        precision=precision,
        preferred_element_type=preferred,
        out_sharding=_by_labels(laid_out, names),
    ), names


def _by_labels(laid_out, names: str):
    """The sharding of a contraction's result whose dimensions are ``names``: ``laid_out`` is
    (the einsum's out_sharding, label -> its spec entry), or None."""
    if laid_out is None:
        return None
    sharding, entries = laid_out
    return sharding.with_spec(tuple(entries[c] for c in names))


def einsum(
    subscripts,
    *operands,
    out=None,
    optimize="auto",
    precision=None,
    preferred_element_type=None,
    _dot_general=None,
    out_sharding=None,
):
    """Einstein summation, contracted pairwise in the order opt_einsum's path optimizer picks
    (``optimize``: ``"auto"`` as in JAX, ``True`` for ``"optimal"``, ``False`` for left to right,
    or any opt_einsum strategy or explicit path).

    >>> jnp.einsum('ij,bj->bi', jnp.ones((2, 3)), jnp.ones((4, 3))).shape
    (4, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = _einsum_sublists((subscripts,) + operands)
    check_arraylike("einsum", *operands)
    ops = list(typed_as_primals(tuple(as_operand(o) for o in operands)))  # (jitted in JAX)
    # As JAX's: the operands keep their dtypes; the result type (the join, or the preferred type)
    # goes to each dot_general, sums convert to it first, and the result is converted to it.
    if preferred_element_type is None:
        preferred, weak = promote_types_weak(dtype_and_weak(o) for o in ops)
        preferred = core.canonical_dtype(preferred)
    else:
        preferred, weak = _pet(preferred_element_type), False
    _parse_einsum(subscripts, [o.shape for o in ops])  # (the engine's errors for a bad spec)
    path = "optimal" if optimize is True else _InOrder() if optimize is False else optimize
    # (the path is chosen on sizes; a symbolic size stands in as 8 for that, as in JAX)
    shapes = [tuple(d if dims.is_constant_dim(d) else 8 for d in o.shape) for o in ops]
    _, contractions = opt_einsum.contract_path(
        subscripts, *shapes, shapes=True, einsum_call=True, use_blas=True, optimize=path
    )
    terms = list(ops)
    laid_out = None  # the final contraction lays its result out by out_sharding (no reshard after)
    if out_sharding is not None and contractions and len(contractions[-1][0]) == 2:
        from ..sharding import as_sharding

        out_labels = contractions[-1][2].split("->")[1]
        sharding = as_sharding(out_sharding, "einsum")
        laid_out = (
            sharding,
            dict(zip(out_labels, sharding.spec._normalized_spec_for_aval(len(out_labels)).partitions)),
        )
    for k, (indices, removed_set, einstr, *_) in enumerate(contractions):
        removed = sorted(removed_set)
        ins, result = einstr.split("->")
        in_labels = ins.split(",")
        if len(indices) == 1:
            x, lx = terms.pop(indices[0]), in_labels[0]
            x, lx = _sum_labels(x, lx, [c for c in removed if lx.count(c) == 1], preferred)
            x, lx = _sum_repeats(x, lx, set(result), preferred)
        elif len(indices) == 2:
            a, b = terms.pop(indices[0]), terms.pop(indices[1])
            last = laid_out if k == len(contractions) - 1 else None
            x, lx = _contract_pair(
                a, in_labels[0], b, in_labels[1], removed, result, last, precision, preferred
            )
        else:
            raise NotImplementedError(
                "jax.numpy.einsum does not support simultaneous contraction of 3 or more operands. "
                "Typically this means you've passed an unsupported path to the einsum optimize parameter."
            )
        if lx != result:
            x = lax.transpose(x, tuple(lx.index(c) for c in result))
        terms.append(x)
    x = convert(terms[0], preferred, weak)
    if out_sharding is not None and laid_out is None:
        from ..sharding import reshard

        x = reshard(x, out_sharding)
    return x


def einsum_path(subscripts, *operands, optimize="auto"):
    """The contraction path einsum takes and opt_einsum's description of it (JAX's einsum_path).

    >>> path, info = jnp.einsum_path("ij,jk,kl", jnp.ones((2, 3)), jnp.ones((3, 4)), jnp.ones((4, 5)))
    >>> path
    [(0, 1), (0, 1)]
    """
    path = "optimal" if optimize is True else _InOrder() if optimize is False else optimize
    return opt_einsum.contract_path(subscripts, *operands, optimize=path)


@staged_as_jit(static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:  # numpy's default for convolutions: an inexact result
        x, y = promote_dtypes_inexact(x, y)
    else:
        x, y = promote_dtypes(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse_out = False
    if op == "correlate":
        from ._complex_parts import conj

        y = conj(y)
        if x.shape[0] < y.shape[0]:
            x, y, reverse_out = y, x, True
    else:
        from ._shape import flip

        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = flip(y)
    n = y.shape[0]
    if mode == "valid":
        padding = [(0, 0)]
    elif mode == "same":
        padding = [(n // 2, n - n // 2 - 1)]
    elif mode == "full":
        padding = [(n - 1, n - 1)]
    else:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = lax.conv_general_dilated(
        lax.expand_dims(x, (0, 1)),
        lax.expand_dims(y, (0, 1)),
        (1,),
        padding,
        precision=precision,
        preferred_element_type=_pet(preferred_element_type),
    )
    if reverse_out:
        out = lax.rev(out, (2,))
    return lax.squeeze(out, (0, 1))


@staged_as_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """Convolution of two 1-d arrays (numpy's ``convolve``; ``mode`` is ``'full'``, ``'same'`` or
    ``'valid'``); integer inputs give a float result unless ``preferred_element_type`` says otherwise.

    >>> jnp.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1]))
    Array([1., 3., 5., 3.], dtype=float32)
    """
    check_arraylike("convolve", a, v)
    return _conv(
        as_operand(a), as_operand(v), mode=mode, op="convolve", precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


@staged_as_jit(static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-d arrays, ``c[k] = sum_j a[k + j] * conj(v[j])`` (numpy's
    ``correlate``; ``mode`` is ``'valid'`` by default, or ``'same'``/``'full'``).

    >>> jnp.correlate(jnp.array([1., 2., 3.]), jnp.array([0., 1.]))
    Array([2., 3.], dtype=float32)
    """
    check_arraylike("correlate", a, v)
    return _conv(
        as_operand(a), as_operand(v), mode=mode, op="correlate", precision=precision,
        preferred_element_type=preferred_element_type,
    )  # fmt: skip


del Tracer
