"""Shape and dtype primitives (convert_element_type, broadcast_in_dim, reshape, transpose, squeeze,
select_n, iota, rev, pad, bitcast_convert_type), with their rules.

The reductions (``reductions``), ``dot_general`` (``dot_general``) and concatenate/split/stack/
unstack/tile (``joining``) live in their own modules and are re-exported here.
"""

from __future__ import annotations

import enum
import functools

import math

import numpy as np

from .. import ad, batching, core, dims, held_arrays, narrow_dtypes
from ..avals import float0
from ..batching import not_mapped, moveaxis
from ..core import Primitive, ShapedArray
from .. import ir
from .dot_general import dot_general_p as dot_general_p
from .joining import concatenate_p as concatenate_p
from .joining import split_p as split_p
from .joining import stack_p as stack_p
from .joining import tile_p as tile_p
from .joining import unstack_p as unstack_p
from .reductions import _shift_axes
from .reductions import accumulating as accumulating
from .reductions import reduce_max_p as reduce_max_p
from .reductions import reduce_min_p as reduce_min_p
from .reductions import reduce_sum_p as reduce_sum_p
from ..narrow_dtypes import kind as dtype_kind


def _lax():
    from . import api

    return api


# --- convert_element_type ----------------------------------------------------------------------

convert_element_type_p = Primitive("convert_element_type")


@convert_element_type_p.def_impl
def convert_values(x, *, new_dtype, weak_type=False, sharding=None):
    """numpy's astype with XLA's float-to-integer semantics: truncation, saturating at the
    integer's range, NaN to 0."""
    if narrow_dtypes.is_narrow(x.dtype):  # (eager jnp conversions call this directly)
        x = x.astype(narrow_dtypes.WIDE[x.dtype])
    if x.dtype == float0:  # (a tangent of integers holds no values: zeros, as JAX's jacfwd casts it)
        if np.dtype(new_dtype) == np.bool_:
            raise TypeError(
                "a float0 value (the tangent of an integer or boolean) cannot be converted to bool"
            )
        return np.zeros(x.shape, new_dtype)
    if dtype_kind(x.dtype) == "f" and dtype_kind(np.dtype(new_dtype)) in "iu":
        lo, hi = _int_bounds(new_dtype)
        if x.size and x.min() > x.dtype.type(lo) and x.max() < x.dtype.type(hi):
            return x.astype(new_dtype)  # (all in range, no NaN: the cast truncates, as XLA's)
        with np.errstate(invalid="ignore"):
            x = np.trunc(x)
            if np.isnan(x).any():
                x = np.where(np.isnan(x), 0, x)
            # (the bounds compare in the float's own type: float32(2**31 - 1) is 2**31, out of range)
            out = np.clip(x, lo, hi).astype(new_dtype)
            big, small = x >= hi, x <= lo
            if big.any() or small.any():
                out = np.where(big, hi, np.where(small, lo, out)).astype(new_dtype)
            return out
    if dtype_kind(x.dtype) == "c" and dtype_kind(np.dtype(new_dtype)) != "c":
        x = x.real  # XLA keeps the real part, silently (numpy's astype would warn)
    return x.astype(new_dtype)


@functools.lru_cache(maxsize=None)  # (an iinfo costs 2 us; every eager float-to-int astype asks)
def _int_bounds(dtype) -> tuple[int, int]:
    info = narrow_dtypes.iinfo(dtype)
    return info.min, info.max


convert_element_type_p.def_abstract_eval(
    lambda x, *, new_dtype, weak_type=False, sharding=None: ShapedArray(x.shape, new_dtype, weak_type)
)
ir.pp_params_rules[convert_element_type_p] = lambda eqn: [  # (the sharding is the binder type's, as JAX)
    (k, v) for k, v in sorted(eqn.params.items()) if k != "sharding"
]


def _convert_jvp(primals, tangents, *, new_dtype, weak_type=False, sharding=None):
    (x,) = primals
    (g,) = tangents
    out = convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    # (core.get_aval: jvp's primals may be Python scalars, which have no .dtype)
    if dtype_kind(np.dtype(new_dtype)) in "fc" and dtype_kind(core.get_aval(x).dtype) in "fc":
        return out, convert_element_type_p.bind(
            g, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding
        )
    return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))


ad.jvp_rules[convert_element_type_p] = _convert_jvp


def _convert_transpose(ct, x, **_):
    aval = core.get_aval(ct)
    if (aval.dtype, aval.weak_type) == (x.aval.dtype, x.aval.weak_type):
        return [ct]  # a conversion to the type ct has already is no equation (JAX's bind elides it)
    if not isinstance(ct, core.Tracer) and not aval.shape and not isinstance(aval.dtype, core.ExtendedDType):
        # A constant scalar (grad's seed): converted now, as JAX's staging folds it.
        value = core.to_numpy(ct)
        if dtype_kind(value.dtype) == "c" and dtype_kind(x.aval.dtype) != "c":
            value = value.real  # (JAX's folding keeps the real part, without numpy's warning)
        value = convert_values(value, new_dtype=x.aval.dtype)
        return [core.Array(np.asarray(value, x.aval.dtype), x.aval.weak_type)]
    return [
        convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type, sharding=None)
    ]


ad.transpose_rules[convert_element_type_p] = _convert_transpose


def folding_converts(jaxpr: ir.Jaxpr, args: list) -> tuple[ir.Jaxpr, list]:
    """``jaxpr`` with its ``convert_element_type``s of constant scalars done now, their results
    literals (as JAX's staging trace folds them, const_fold_rules): the loop-invariant part of a
    known scan converting a weak Python init passes the loop the converted literal."""
    from ..held_arrays import held

    # (a jax.Array the user holds is no foldable constant in JAX: only Python and numpy scalars)
    known = {v: a for v, a in zip(jaxpr.in_binders, args) if not isinstance(a, core.Tracer) and not held(a)}
    sub: dict = {}
    eqns = []
    for e in jaxpr.eqns:
        ins = [sub.get(x, x) if type(x) is ir.Var else x for x in e.inputs]
        e = e._replace(inputs=ins)
        (x,) = ins if e.primitive is convert_element_type_p else (None,)
        val = x.val if type(x) is ir.Literal else known.get(x) if type(x) is ir.Var else None
        if (
            val is not None
            and not np.shape(val)
            and not isinstance(e.out_binders[0].aval.dtype, core.ExtendedDType)
        ):
            out = e.out_binders[0].aval
            value = np.asarray(core.to_numpy(val))
            if value.dtype.kind == "c" and np.dtype(out.dtype).kind != "c":
                value = value.real
            folded = core.Array(
                np.asarray(convert_values(value, new_dtype=out.dtype), out.dtype), out.weak_type
            )
            sub[e.out_binders[0]] = ir.Literal(folded, out)
            continue
        eqns.append(e)
    if not sub:
        return jaxpr, args
    outs = [sub.get(x, x) if type(x) is ir.Var else x for x in jaxpr.outs]
    return ir.Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, outs), args


batching.vectorized_batcher(convert_element_type_p)


# --- broadcast_in_dim --------------------------------------------------------------------------

broadcast_in_dim_p = Primitive("broadcast_in_dim")


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding=None):
    _check_broadcast_in_dim(x, shape, broadcast_dimensions)  # (eager operations are not typed first)
    # (the operand's axes in output order first: dimensions need not increase, as in JAX)
    order = np.argsort(broadcast_dimensions, kind="stable")
    expanded = [1] * len(shape)
    for i in order:
        expanded[broadcast_dimensions[i]] = x.shape[i]
    return np.broadcast_to(np.transpose(x, order).reshape(expanded), shape)


def _layout_shown(key: str):
    """JAX holds an ``out_sharding=`` parameter over the abstract mesh (its canonicalize_sharding)
    and prints it so; the engine's keeps the mesh's devices, which the partitioner lays out over."""

    def shown(v):
        mesh = getattr(v, "mesh", None)
        return type(v)(mesh.abstract_mesh, v.spec) if hasattr(mesh, "abstract_mesh") else v

    return lambda eqn: [(k, shown(v) if k == key else v) for k, v in sorted(eqn.params.items())]


# The shape is the binder's type; trivial broadcast dimensions are not shown (as in JAX).
ir.pp_params_rules[broadcast_in_dim_p] = lambda eqn: (
    [("broadcast_dimensions", eqn.params["broadcast_dimensions"])]
    if eqn.params["broadcast_dimensions"]
    else []
)


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions, sharding=None):
    _check_broadcast_in_dim(x, shape, broadcast_dimensions)
    return ShapedArray(shape, x.dtype, x.weak_type)


def _check_broadcast_in_dim(x, shape, broadcast_dimensions) -> None:
    """JAX's shape rule: its checks in its order and its words (dimensions need not increase)."""
    if any(type(d) is int and d < 0 for d in shape):
        raise TypeError(f"broadcast_in_dim shape must have every element be nonnegative, got {tuple(shape)}.")
    if any(d < 0 for d in broadcast_dimensions):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have every element be nonnegative, got "
            f"{tuple(broadcast_dimensions)}."
        )
    if x.ndim != len(broadcast_dimensions):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
            f"broadcast_dimensions {broadcast_dimensions} for operand ndim {x.ndim}."
        )
    if len(shape) < x.ndim:
        raise TypeError(
            "broadcast_in_dim target broadcast shape must have equal or higher rank to the operand shape; "
            f"got operand ndim {x.ndim} and target broadcast ndim {len(shape)}."
        )
    if not set(broadcast_dimensions) <= set(range(len(shape))):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got "
            f"{broadcast_dimensions} for operand ndim {x.ndim} and shape {shape}."
        )
    if not all(x.shape[i] == 1 or x.shape[i] == shape[d] for i, d in enumerate(broadcast_dimensions)):
        raise TypeError(
            "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their corresponding "
            f"dimensions in the target broadcast shape; got operand of shape {x.shape}, target broadcast "
            f"shape {shape}, broadcast_dimensions {broadcast_dimensions} "
        )
    if len(set(broadcast_dimensions)) != len(broadcast_dimensions):
        raise TypeError(
            f"broadcast_in_dim broadcast_dimensions must not contain duplicates, got broadcast_dimensions "
            f"{broadcast_dimensions}"
        )


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    lax = _lax()
    # (as JAX: every size-1 operand dimension is summed over and put back by expand_dims, even
    # one broadcast to size 1; the sum runs over no axes too)
    typed = getattr(x.aval, "sharding", None)  # (the operand's layout, when its type says one)
    spec = typed._normalized(len(x.aval.shape)) if typed is not None else [()] * len(x.aval.shape)
    unit = [i for i, s in enumerate(x.aval.shape) if s == 1 and not spec[i]]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit]
    axes = tuple(i for i in range(len(shape)) if i not in kept)
    from ..sharded_types import context_sharding  # (cycles if imported at the top)
    from ..sharding import NamedSharding, PartitionSpec, spec_entry

    if typed is not None:  # (JAX's: summed into the operand's layout, its unit dimensions left out)
        kept_spec = PartitionSpec(*[spec_entry(a) for i, a in enumerate(spec) if i not in unit])
        layout = NamedSharding(typed.mesh, kept_spec)
    else:
        layout = context_sharding(len(shape) - len(axes))
    summed = lax.reduce_sum(ct, axes, out_sharding=layout)
    out = lax.expand_dims(summed, unit)
    got = core.get_aval(out).shape
    if got != x.aval.shape:  # (non-increasing dimensions: JAX's rule leaves the sum in output order)
        dt = x.aval.dtype.name
        raise ValueError(
            f"Expected cotangent type {dt}[{','.join(map(str, x.aval.shape))}] but got "
            f"{dt}[{','.join(map(str, got))}]"
        )
    return [out]


def _broadcast_in_dim_batch(size, vals, dims, *, shape, broadcast_dimensions, sharding=None):
    (x,) = vals
    x = moveaxis(x, dims[0], 0)
    new_shape = (size, *shape)
    new_dims = (0, *np.add(1, broadcast_dimensions).astype(np.int64))  # numpy ints, as JAX prints them
    if sharding is not None:  # (the batch dimension unsplit, JAX's get_sharding_for_vmap)
        sharding = sharding.with_spec((None, *sharding.spec._normalized_spec_for_aval(len(shape))))
    return broadcast_in_dim_p.bind(x, shape=new_shape, broadcast_dimensions=new_dims, sharding=sharding), 0


ad.deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)
batching.batch_rules[broadcast_in_dim_p] = _broadcast_in_dim_batch


def _is_identity(x, shape, broadcast_dimensions):
    return x.aval.shape == tuple(shape) and tuple(broadcast_dimensions) == tuple(range(len(shape)))


def _broadcast_in_dim_forward(tracers, *, shape, broadcast_dimensions, sharding=None):
    # A traced broadcast to the operand's own shape is the operand (JAX's traces forward it).
    return tracers[0] if _is_identity(tracers[0], shape, broadcast_dimensions) else None


def _forward_identity_staged(trace, tracers, **params):
    same = _broadcast_in_dim_forward(tracers, **params)
    return same if same is not None else trace.default_process_primitive(broadcast_in_dim_p, tracers, params)


def _convert_staged(trace, tracers, *, new_dtype, weak_type=False, sharding=None):
    """A scalar constant of the trace (``jnp.array(2.0)`` under ``jit``) converts now, into the
    literal it gives, as JAX's trace folds it (``add a 2.0:f32[]``, no convert_element_type); arrays
    and the jax.Arrays a function closes over are converted in the trace."""
    params = {"new_dtype": new_dtype, "weak_type": weak_type, "sharding": sharding}
    (x,) = tracers
    val = trace.builder.const_value(x)
    if (
        val is not None
        and not isinstance(val, core.Tracer)  # (an outer trace's value the body closes over)
        and not held_arrays.held(val)
        and np.ndim(val) == 0
        and not isinstance(new_dtype, core.ExtendedDType)
        and not isinstance(core.get_aval(val).dtype, core.ExtendedDType)
    ):
        folded = convert_values(
            np.asarray(core.to_numpy(val) if isinstance(val, core.Array) else val), **params
        )
        return trace.get_or_make_const_tracer(core.Array(folded, bool(weak_type)))
    return trace.default_process_primitive(convert_element_type_p, tracers, params)


def _register_forwarding():
    from ..staging import staging_rules

    staging_rules[broadcast_in_dim_p] = _forward_identity_staged
    staging_rules[convert_element_type_p] = _convert_staged
    ad.forwarding_rules[broadcast_in_dim_p] = _broadcast_in_dim_forward


_register_forwarding()


# --- reshape -----------------------------------------------------------------------------------

reshape_p = Primitive("reshape")


@reshape_p.def_impl
def _reshape_impl(x, *, new_sizes, dimensions, sharding=None):
    if (dimensions is not None and sorted(dimensions) != list(range(x.ndim))) or math.prod(
        new_sizes
    ) != x.size:
        _reshape_abstract(x, new_sizes=new_sizes, dimensions=dimensions)  # (its error, as JAX's)
    return np.reshape(x if dimensions is None else np.transpose(x, dimensions), new_sizes)


@reshape_p.def_abstract_eval
def _reshape_abstract(x, *, new_sizes, dimensions, sharding=None):
    if dimensions is not None and set(dimensions) != set(range(x.ndim)):
        raise TypeError(
            f"reshape dimensions must be a permutation of operand dimensions, got dimensions "
            f"{dimensions} for shape {x.shape}."
        )
    if dims.dim_product(new_sizes) != x.size:  # (JAX's shape rule lets it through to StableHLO's verifier)
        raise ValueError(
            "Cannot lower jaxpr with verifier errors:\n\tnumber of output elements "
            f"({dims.dim_product(new_sizes)}) doesn't match expected number of elements ({x.size})\n"
            "Define JAX_DUMP_IR_TO to dump the module."
        )
    return ShapedArray(new_sizes, x.dtype, x.weak_type)


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding=None):
    # (JAX's rule: undo the reshape into the permuted shape, then the permutation)
    from ..sharded_types import context_sharding  # (a cycle if imported at the top)

    # (the operand's layout when its type says one: JAX's out_sharding=operand.aval.sharding)
    layout = getattr(x.aval, "sharding", None) or context_sharding(len(x.aval.shape))
    if dimensions is None:
        return [_lax().reshape(ct, x.aval.shape, out_sharding=layout)]
    ct = _lax().reshape(ct, tuple(x.aval.shape[d] for d in dimensions), out_sharding=layout)
    return [_lax().transpose(ct, tuple(np.argsort(dimensions)))]


ad.deflinear(reshape_p, _reshape_transpose)


def _reshape_batch(size, vals, dims, *, new_sizes, dimensions, sharding=None):
    x = moveaxis(vals[0], dims[0], 0)
    if dimensions is not None:
        dimensions = (0, *[d + 1 for d in dimensions])
    # (through lax.reshape, as JAX's rule: a batched reshape to the same shape is no equation)
    return _lax().reshape(x, (size, *new_sizes), dimensions), 0


batching.batch_rules[reshape_p] = _reshape_batch


# --- transpose ---------------------------------------------------------------------------------

transpose_p = Primitive("transpose")


def _check_permutation(x, permutation):
    if set(permutation) != set(range(np.ndim(x))) or len(permutation) != np.ndim(x):  # (JAX's check)
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, got permutation "
            f"{permutation} for operand shape {tuple(np.shape(x))}."
        )


def _transpose_impl(x, *, permutation):
    _check_permutation(x, permutation)  # (eager calls skip abstract evaluation)
    return np.transpose(x, permutation)


def _transpose_abstract(x, *, permutation):
    _check_permutation(x, permutation)
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype, x.weak_type)


transpose_p.def_impl(_transpose_impl)
transpose_p.def_abstract_eval(_transpose_abstract)
ad.deflinear(
    transpose_p, lambda ct, x, *, permutation: [_lax().transpose(ct, tuple(np.argsort(permutation)))]
)


def _transpose_batch(size, vals, dims, *, permutation):
    # One transpose taking the batch axis to the front as well (JAX's rule), not a move first.
    b = dims[0]
    return transpose_p.bind(vals[0], permutation=(b, *[p if p < b else p + 1 for p in permutation])), 0


batching.batch_rules[transpose_p] = _transpose_batch


# --- squeeze -----------------------------------------------------------------------------------

squeeze_p = Primitive("squeeze")
squeeze_p.def_impl(lambda x, *, dimensions: np.squeeze(x, dimensions) if dimensions else x)


@squeeze_p.def_abstract_eval
def _squeeze_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < x.ndim for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(
            f"cannot select an axis to squeeze out which has size not equal to one, got "
            f"shape={x.shape} and dimensions={dimensions}"
        )
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype, x.weak_type)


# JAX transposes squeeze to expand_dims (a broadcast_in_dim).
ad.deflinear(squeeze_p, lambda ct, x, *, dimensions: [_lax().expand_dims(ct, dimensions)])


def _squeeze_batch(size, vals, dims, *, dimensions):
    x = moveaxis(vals[0], dims[0], 0)
    return squeeze_p.bind(x, dimensions=tuple(d + 1 for d in dimensions)), 0


batching.batch_rules[squeeze_p] = _squeeze_batch


# --- select_n ----------------------------------------------------------------------------------

select_n_p = Primitive("select_n")
select_n_p.weak_from_abstract_eval = True  # (the cases say, not the predicate)


@select_n_p.def_impl
def _select_n_impl(which, *cases):
    _check_select_shapes(which.shape, [c.shape for c in cases])  # (eager evaluation skips abstract eval)
    _check_select_dtypes(which.dtype, [c.dtype for c in cases])
    if which.dtype == np.bool_:
        return np.where(which, cases[1], cases[0]) if len(cases) == 2 else cases[0]
    return np.choose(which, cases)


def _check_select_shapes(which_shape, shapes):
    # JAX's messages
    if any(s != shapes[0] for s in shapes[1:]):
        raise TypeError(f"select cases must have the same shapes, got [{', '.join(map(str, shapes))}].")
    if which_shape and which_shape != shapes[0]:
        raise TypeError(
            "select `which` must be scalar or have the same shape as cases, got `which` shape "
            f"{which_shape} but case shape {shapes[0]}."
        )


def _check_select_dtypes(which_dtype, dtypes):
    # JAX's messages (its dtype rule: lax's same-dtypes check, then the predicate's)
    if any(d != dtypes[0] for d in dtypes[1:]):
        raise TypeError(
            f"lax.select requires arguments to have the same dtypes, got {', '.join(map(str, dtypes))}. "
            "(Tip: jnp.where is a similar function that does automatic type promotion on inputs)."
        )
    if narrow_dtypes.kind(which_dtype) not in "biu":
        raise TypeError(f"select `which` must be boolean or integer type, got {which_dtype}.")
    if which_dtype == np.bool_ and len(dtypes) > 2:
        raise TypeError("select with boolean `which` cannot have > 2 cases.")


@select_n_p.def_abstract_eval
def _select_n_abstract(which, *cases):
    c0 = cases[0]
    _check_select_shapes(which.shape, [c.shape for c in cases])
    _check_select_dtypes(which.dtype, [c.dtype for c in cases])
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    _, *tcases = tangents
    out = select_n_p.bind(which, *cases)
    if all(type(t) is ad.Zero for t in tcases):
        return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
    # One zeros array like the first nonzero tangent stands in for every symbolic zero (JAX
    # makes it even when no case needs it, so a linearized jaxpr shows it as a dead equation).
    zeros = _lax().full_like(next(t for t in tcases if type(t) is not ad.Zero), 0)
    return out, select_n_p.bind(which, *[zeros if type(t) is ad.Zero else t for t in tcases])


def _select_n_transpose(ct, which, *cases):
    assert not ad.is_undefined(which)
    lax = _lax()
    # (typed as the cotangent, as JAX's full_like(ct, 0): an undefined case's type says its layout)
    typed = next((c.aval.sharding for c in cases if ad.is_undefined(c) and hasattr(c.aval, "sharding")), None)
    zeros = lax.full_like(ct, 0, sharding=typed)
    which_dtype = core.get_aval(which).dtype
    if which_dtype == np.bool_:
        return [None] + [
            select_n_p.bind(which, *[ct if j == i else zeros for j in range(len(cases))])
            if ad.is_undefined(c)
            else None
            for i, c in enumerate(cases)
        ]
    # An integer index: each case's cotangent selected by ``which == i`` (as JAX's rule).
    return [None] + [
        select_n_p.bind(lax.eq(which, np.array(i, which_dtype)), zeros, ct) if ad.is_undefined(c) else None
        for i, c in enumerate(cases)
    ]


def _select_n_batch(size, vals, dims):
    # JAX's rule: no transposes where the batch dimensions agree (or a scalar predicate meets cases
    # batched alike), else every operand's batch dimension at the front.
    which, *cases = vals
    wdim, *cdims = dims
    lax = _lax()
    if all(wdim == d for d in cdims):
        if np.shape(which) != np.shape(cases[0]):  # (a per-example scalar predicate)
            which = lax.broadcast_in_dim(which, np.shape(cases[0]), (wdim,))
        return select_n_p.bind(which, *cases), wdim
    if np.ndim(which) == 0 and all(d is not not_mapped for d in cdims):
        if all(cdims[0] == d for d in cdims[1:]):
            return select_n_p.bind(which, *cases), cdims[0]
        if all(np.shape(cases[0]) == np.shape(c) for c in cases):
            others = [batching.moveaxis(c, d, cdims[0]) for c, d in zip(cases[1:], cdims[1:])]
            return select_n_p.bind(which, cases[0], *others), cdims[0]
    if np.shape(which):
        which = batching.bdim_at_front(which, wdim, size)
    if not all(np.shape(c) == () for c in cases):
        cases = [batching.bdim_at_front(c, d, size) for c, d in zip(cases, cdims)]
    if 0 < np.ndim(which) < np.ndim(cases[0]):
        which = lax.broadcast_in_dim(which, np.shape(cases[0]), (0,))
    if np.ndim(which) > np.ndim(cases[0]):
        cases = [lax.broadcast(c, np.shape(which)) for c in cases]
    return select_n_p.bind(which, *cases), 0


ad.jvp_rules[select_n_p] = _select_n_jvp
ad.transpose_rules[select_n_p] = _select_n_transpose
batching.batch_rules[select_n_p] = _select_n_batch


# --- iota --------------------------------------------------------------------------------------

iota_p = Primitive("iota")


def check_iota_dtype(dtype) -> None:
    if dtype_kind(np.dtype(dtype)) not in "iufc":
        raise TypeError(
            f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are subtypes of integer, "
            "floating, complexfloating."
        )


@iota_p.def_impl
def _iota_impl(*, dtype, shape, dimension, sharding=None):
    check_iota_dtype(dtype)  # (eager evaluation skips abstract evaluation)
    ramp = np.arange(shape[dimension], dtype=dtype).reshape(
        [s if i == dimension else 1 for i, s in enumerate(shape)]
    )
    return np.broadcast_to(ramp, shape)


@iota_p.def_abstract_eval
def _iota_abstract(*, dtype, shape, dimension, sharding=None):
    if not 0 <= dimension < len(shape):
        raise ValueError(f"iota dimension must be in range [0, {len(shape)}), got {dimension}")
    check_iota_dtype(dtype)
    return ShapedArray(shape, dtype, False)


# --- empty2: a scalar whose value does not matter (JAX pads cond residuals with it) --------------


class MemorySpace(enum.Enum):
    Device = "device"

    def __str__(self):
        return f"MemorySpace.{self.name}"


empty2_p = Primitive("empty2")
empty2_p.def_impl(lambda *, dtype, memory_space: np.zeros((), dtype))  # zeros: runs stay reproducible
empty2_p.def_abstract_eval(lambda *, dtype, memory_space: ShapedArray((), dtype, False))


def empty_like(aval: ShapedArray):
    """A value of ``aval``'s type that nobody reads (JAX's ``ad_util.empty_like_aval``)."""
    out = empty2_p.bind(dtype=aval.dtype, memory_space=MemorySpace.Device)
    if getattr(aval, "vma", ()):  # (a residual of a checked shard_map body varies as it does)
        from .varying import pvary_to

        out = pvary_to(out, aval.vma)
    if not aval.shape:
        return out
    return _lax().broadcast_in_dim(out, aval.shape, (), out_sharding=getattr(aval, "sharding", None))


# --- rev ---------------------------------------------------------------------------------------

rev_p = Primitive("rev")
core.eager_checked.update((rev_p, squeeze_p))
rev_p.def_impl(lambda x, *, dimensions: np.flip(x, dimensions) if dimensions else x)


@rev_p.def_abstract_eval
def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < x.ndim:
        raise TypeError(
            f"rev dimensions must all be less than operand ndim, got dimensions {dimensions} for "
            f"operand ndim {x.ndim}."
        )
    return x


ad.deflinear(rev_p, lambda ct, x, *, dimensions: [rev_p.bind(ct, dimensions=dimensions)])
batching.batch_rules[rev_p] = lambda size, vals, dims, *, dimensions: (
    rev_p.bind(vals[0], dimensions=tuple(_shift_axes(dimensions, dims[0]))),
    dims[0],
)


# --- pad (low, high and interior padding; negative low/high padding crops) -------------------

pad_p = Primitive("pad")
core.eager_checked.add(pad_p)


@pad_p.def_impl
def _pad_impl(x, padding_value, *, padding_config):
    out = x
    for axis, (lo, hi, interior) in enumerate(padding_config):
        n = out.shape[axis]
        if interior > 0 and n > 1:
            shape = list(out.shape)
            shape[axis] = n + (n - 1) * interior
            spread = np.full(shape, padding_value, dtype=x.dtype)
            idx = [slice(None)] * out.ndim
            idx[axis] = slice(None, None, interior + 1)
            spread[tuple(idx)] = out
            out = spread
        crop = [slice(None)] * out.ndim
        crop[axis] = slice(max(-lo, 0), out.shape[axis] - max(-hi, 0))
        out = out[tuple(crop)]
        widths = [(0, 0)] * out.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=padding_value)
    return out


@pad_p.def_abstract_eval
def _pad_abstract(x, padding_value, *, padding_config):
    if padding_value.shape != ():
        raise ValueError(f"padding_value must be a scalar; got np.shape(padding_value)={padding_value.shape}")
    if len(padding_config) != x.ndim:
        raise ValueError(
            f"length of padding_config must equal the number of axes of operand, got padding_config "
            f"{padding_config} for operand shape {x.shape}"
        )
    if any(interior < 0 for _, _, interior in padding_config):
        raise ValueError(
            f"interior padding in padding_config must be nonnegative, got padding_config {padding_config}"
        )
    shape = [
        lo + hi + n + dims.max_dim(n - 1, 0) * interior
        for n, (lo, hi, interior) in zip(x.shape, padding_config)
    ]
    if any(size < 0 for size in shape):
        raise ValueError(
            f"Dimension size after padding is not at least 0, got result shape {tuple(shape)}, for "
            f"padding_config {padding_config} and operand shape {x.shape}"
        )
    if padding_value.dtype != x.dtype:
        raise TypeError(
            f"pad operand and padding_value must be same dtype: got {x.dtype.name} and "
            f"{padding_value.dtype.name}."
        )
    return ShapedArray(shape, x.dtype, x.weak_type)


def _pad_transpose(ct, x, padding_value, *, padding_config):
    lax = _lax()
    from .slicing import slice_p

    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    # JAX's arithmetic, numpy's integers included (its params print them: np.int64(-1)).
    unpad_config = tuple(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
    unpadded = pad_p.bind(ct, np.array(0, ct.dtype), padding_config=unpad_config)
    t_x = slice_p.bind(
        unpadded,
        start_indices=tuple(np.zeros_like(lo)),
        limit_indices=tuple(unpadded.shape),
        strides=tuple(np.add(interior, 1)),
    )
    t_pad = None
    if ad.is_undefined(padding_value):
        all_axes = tuple(range(len(lo)))
        t_pad = lax.sub(lax.reduce_sum(ct, all_axes), lax.reduce_sum(t_x, all_axes))
    return [t_x if ad.is_undefined(x) else None, t_pad]


def _pad_batch(size, vals, dims, *, padding_config):
    """JAX's rule: the batch dimension stays where it is (unpadded); a batched padding value
    pads with zeros, then selects the padding positions per member."""
    lax = _lax()
    x, pv = vals
    dx, dpv = dims
    if dx is not_mapped:
        x, dx = lax.broadcast(x, (size,)), 0
    config = list(padding_config)
    config.insert(dx, (0, 0, 0))
    if dpv is not_mapped:
        return pad_p.bind(x, pv, padding_config=tuple(config)), dx
    pv = batching.moveaxis(pv, dpv, 0)
    padded = pad_p.bind(x, lax.full_like(x, 0, shape=()), padding_config=tuple(config))
    inside = pad_p.bind(
        lax.full_like(x, True, np.bool_), lax.full((), False, np.bool_), padding_config=tuple(config)
    )
    return lax.select(inside, padded, lax.broadcast_in_dim(pv, core.get_aval(padded).shape, (dx,))), dx


ad.deflinear(pad_p, _pad_transpose)
batching.batch_rules[pad_p] = _pad_batch


# Moves narrow values (bfloat16, ...) as they are: numpy moves ml_dtypes' values, nothing to widen.
narrow_dtypes.keeps_narrow.update(
    (broadcast_in_dim_p, reshape_p, transpose_p, squeeze_p, select_n_p, rev_p, pad_p)
)

ir.pp_params_rules[reshape_p] = _layout_shown("sharding")
ir.pp_params_rules[iota_p] = _layout_shown("sharding")
ir.pp_params_rules[reduce_sum_p] = _layout_shown("out_sharding")

from .bitcast import bitcast_convert_type_p  # noqa: E402,F401  (its rows are there)
