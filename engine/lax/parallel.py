"""Collectives over named axes: ``psum``, ``pmean``, ``pmax``, ``pmin``, ``all_gather``,
``psum_scatter``, ``ppermute``, ``all_to_all``, ``axis_index``.

An axis name is bound either by ``vmap(..., axis_name=)`` or by ``pmap``. Under ``vmap`` the batch
rules below do the work on the batch dimension; under ``pmap`` the primitives stay in the staged
program and their implementation runs between the device processes
(``engine.parallel.collectives``). A value that a ``vmap`` does not batch reaches the
implementation directly, which applies the unmapped semantics (``psum`` of it is ``size * x``).

>>> jax.vmap(lambda x: x / psum(x, 'i'), axis_name='i')(jnp.arange(1., 4.))
Array([0.16666667, 0.33333334, 0.5       ], dtype=float32)
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from .. import ad, batching, core, ir
from ..core import Array, Primitive, ShapedArray
from ..tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = [
    "psum",
    "pmean",
    "pmax",
    "pmin",
    "all_gather",
    "psum_scatter",
    "ppermute",
    "pshuffle",
    "all_to_all",
    "pswapaxes",
    "axis_index",
    "axis_size",
]

# ---------------------------------------------------------------------------------------------
# Axis environment: which names are bound, and how big they are.

_pmap_axes: list[tuple[object, int]] = []  # pushed while pmap traces or transforms its body


@contextmanager
def extend_axis_env(name, size: int):
    """Bind ``name`` to an axis of ``size`` while a pmap body is traced."""
    _pmap_axes.append((name, int(size)))
    try:
        yield
    finally:
        _pmap_axes.pop()


def _vmap_frames() -> dict:
    """Named vmap axes active now (innermost wins): ``name -> (size, main)``."""
    frames = {}
    for main in core._state.stack:
        frame = main.global_data
        if isinstance(frame, batching.AxisFrame) and frame.name is not None:
            frames[frame.name] = (frame.size, main)
    return frames


_collectives = None


def _device_context():
    global _collectives
    if _collectives is None:
        from ..parallel import collectives

        _collectives = collectives
    return _collectives._current


def axis_size(axis_name) -> int:
    """The size of a named axis (the product for a tuple of names)."""
    size = 1
    frames = _vmap_frames()
    ctx = _device_context()
    for name in _names(axis_name):
        if name in frames:
            size *= frames[name][0]
            continue
        for n, s in reversed(_pmap_axes):
            if n == name:
                size *= s
                break
        else:
            if ctx is not None and ctx.has_axis(name):
                size *= ctx.axis_size(name)
            else:
                raise NameError(f"unbound axis name: {name}")
    return size


def _bound_names():
    names = set(_vmap_frames()) | {n for n, _ in _pmap_axes}
    ctx = _device_context()
    if ctx is not None:
        names |= set(ctx.axis_names())
    return names


def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _bound(axis_name, api: str = "psum") -> tuple:
    """``axis_name``'s names, each bound here (else JAX's NameError naming ``api``, raised at the
    user's call while tracing, not later on the devices; pmax and pmin name psum, as JAX's do);
    integers are positional axes. A trace made to be shown may stage a body alone, outside the
    pmap that binds its axes (the page's stages)."""
    from ..staging import displaying

    names = _names(axis_name)
    if not displaying():
        bound = _bound_names()
        for n in names:
            if not isinstance(n, int) and n not in bound:
                error = NameError(
                    f"Found an unbound axis name: {n}. To fix this, please call {api} under `jax.shard_map`."
                )
                # (the names bound here, for the report's hint)
                error.bound_axis_names = sorted(map(str, bound))  # type: ignore[attr-defined]
                raise error
    return names


# ---------------------------------------------------------------------------------------------
# Primitives, with JAX's params: the reductions carry ``axes`` (a tuple of names, and positional
# axes under vmap), the others ``axis_name`` (a tuple of names); all_gather and reduce_scatter also
# carry ``axis_size`` (all_to_all, as JAX's, reads it from the axis environment when it is typed:
# its abstract evaluation runs where the axis is bound, as JAX's does). ``axis_index_groups`` is always
# None but in all_to_all (the public functions refuse groups elsewhere).

psum_p = Primitive("psum", multiple_results=True)
pmax_p = Primitive("pmax")
pmin_p = Primitive("pmin")
all_gather_p = Primitive("all_gather")
psum_scatter_p = Primitive("reduce_scatter")
ppermute_p = Primitive("ppermute")
all_to_all_p = Primitive("all_to_all")
axis_index_p = Primitive("axis_index")


_NO_GROUPS = {"axis_index_groups": None}


def _pp_all_to_all(eqn):
    # JAX binds the axis name as given (one name unwrapped)
    params = dict(eqn.params)
    names = eqn.params["axis_name"]
    params.update(axis_name=names[0] if len(names) == 1 else names)
    return sorted(params.items())


ir.pp_params_rules[all_to_all_p] = _pp_all_to_all


collective_primitives = (
    psum_p,
    pmax_p,
    pmin_p,
    all_gather_p,
    psum_scatter_p,
    ppermute_p,
    all_to_all_p,
    axis_index_p,
)


def _positional(axes) -> tuple:
    """The integer (positional) axes among a reduction's ``axes``: under ``vmap`` the batch axis of
    an operand becomes one (JAX's psum reduces it there, fused with the named ones)."""
    return tuple(a for a in axes if isinstance(a, int))


def _reduced_aval(aval, axes):
    pos = _positional(axes)
    return aval.update(shape=tuple(n for i, n in enumerate(aval.shape) if i not in pos)) if pos else aval


psum_p.def_abstract_eval(lambda *avals, axes, axis_index_groups=None: [_reduced_aval(a, axes) for a in avals])
pmax_p.def_abstract_eval(lambda x, *, axes, axis_index_groups=None: _reduced_aval(x, axes))
pmin_p.def_abstract_eval(lambda x, *, axes, axis_index_groups=None: _reduced_aval(x, axes))
ppermute_p.def_abstract_eval(lambda x, *, axis_name, perm: x)
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.int32))


@all_gather_p.def_abstract_eval
def _all_gather_abstract(x, *, axis_name, axis_index_groups, axis_size, all_gather_dimension, tiled):
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return x.update(shape=tuple(shape), weak_type=False)


@psum_scatter_p.def_abstract_eval
def _psum_scatter_abstract(x, *, axis_name, axis_index_groups, axis_size, scatter_dimension, tiled):
    shape = list(x.shape)
    size = shape[scatter_dimension]
    if tiled:  # (JAX's words)
        if size % axis_size:
            raise ValueError(
                f"tiled reduce_scatter operand scatter dimension size {size} must be divisible by "
                f"shard_count {axis_size}"
            )
        shape[scatter_dimension] //= axis_size
    else:
        if size != axis_size:
            raise ValueError(
                f"reduce_scatter operand scatter dimension size {size} must match shard count {axis_size}"
            )
        del shape[scatter_dimension]
    return x.update(shape=tuple(shape), weak_type=False)


def _all_to_all_size(axis_name, axis_index_groups) -> int:
    # (no ``axis_size`` param, as JAX's: the axis environment it is typed in has it)
    return len(axis_index_groups[0]) if axis_index_groups is not None else axis_size(axis_name)


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract(x, *, axis_name, split_axis, concat_axis, tiled, axis_index_groups):
    axis_size = _all_to_all_size(axis_name, axis_index_groups)
    shape = list(x.shape)
    if shape[split_axis] % axis_size:
        raise ValueError(
            f"all_to_all: split axis {split_axis} of size {shape[split_axis]} is not "
            f"divisible by the axis size {axis_size}"
        )
    shape[split_axis] //= axis_size
    shape[concat_axis] *= axis_size
    return x.update(shape=tuple(shape), weak_type=False)


# --- implementations: unmapped semantics for vmap names, device exchange for pmap names -------


def _split_axes(axes):
    if len(core._state.stack) == 1:  # no vmap running (a device's warm run): all names are pmap's
        return 1, (), axes
    frames = _vmap_frames()
    vm = tuple(a for a in axes if a in frames)
    rest = tuple(a for a in axes if a not in frames)
    return math.prod(frames[a][0] for a in vm), vm, rest


def _on_devices(kind, x, axes, **params):
    ctx = _device_context()
    missing = [a for a in axes if a not in ctx.names] if ctx is not None else list(axes)
    if missing:
        raise NameError(
            f"unbound axis name: {missing[0]}. Collectives need an enclosing pmap or "
            f"vmap(..., axis_name=) that binds it."
        )
    return ctx.collective(kind, x, axes, **params)


def _reduce_positional(reducer, x, axes):
    pos = _positional(axes)
    return np.asarray(reducer.reduce(np.asarray(x), axis=pos, dtype=np.asarray(x).dtype)) if pos else x


@psum_p.def_impl
def _psum_impl(*xs, axes, axis_index_groups=None):
    xs = tuple(_reduce_positional(np.add, x, axes) for x in xs)
    size, vm, rest = _split_axes(tuple(a for a in axes if not isinstance(a, int)))
    outs = [np.asarray(x * np.asarray(size, x.dtype)) if vm else x for x in xs]
    if rest:
        outs = [_on_devices("psum", x, rest) for x in outs]
    return outs


def _chooser_impl(kind, reducer):
    def impl(x, *, axes, axis_index_groups=None):
        x = _reduce_positional(reducer, x, axes)
        _, vm, rest = _split_axes(tuple(a for a in axes if not isinstance(a, int)))
        return _on_devices(kind, x, rest) if rest else x

    return impl


pmax_p.def_impl(_chooser_impl("pmax", np.maximum))
pmin_p.def_impl(_chooser_impl("pmin", np.minimum))


@all_gather_p.def_impl
def _all_gather_impl(x, *, axis_name, axis_index_groups, axis_size, all_gather_dimension, tiled):
    size, vm, rest = _split_axes(axis_name)
    if vm and rest:
        raise NotImplementedError("all_gather over a vmap axis and a pmap axis at once")
    if vm:
        stacked = np.stack([x] * size, axis=all_gather_dimension)
        if tiled:
            shape = list(x.shape)
            shape[all_gather_dimension] *= size
            stacked = stacked.reshape(shape)
        return stacked
    return _on_devices("all_gather", x, rest, axis=all_gather_dimension, tiled=tiled)


@psum_scatter_p.def_impl
def _psum_scatter_impl(x, *, axis_name, axis_index_groups, axis_size, scatter_dimension, tiled):
    _, vm, rest = _split_axes(axis_name)
    if vm:
        raise NotImplementedError("psum_scatter of a value that its vmap axis does not batch")
    return _on_devices("psum_scatter", x, rest, axis=scatter_dimension, tiled=tiled)


@ppermute_p.def_impl
def _ppermute_impl(x, *, axis_name, perm):
    size, vm, rest = _split_axes(axis_name)
    if vm:
        # Unbatched: a full permutation leaves every member the same value; a partial one would
        # make it vary, which needs a batched operand (the wrapper lifts plain arrays).
        if len(vm) > 1 or rest or sorted(d for _, d in perm) != list(range(size)):
            raise NotImplementedError(
                "ppermute with a partial permutation of a value that its vmap axis does not batch"
            )
        return x
    return _on_devices("ppermute", x, rest, perm=perm)


@all_to_all_p.def_impl
def _all_to_all_impl(x, *, axis_name, split_axis, concat_axis, tiled, axis_index_groups):
    _, vm, rest = _split_axes(axis_name)
    if vm:
        if axis_index_groups is not None:
            raise NotImplementedError("Please open a feature request!")  # (JAX's vmap rule)
        raise NotImplementedError("all_to_all of a value that its vmap axis does not batch")
    return _on_devices(
        "all_to_all", x, rest, split_axis=split_axis, concat_axis=concat_axis, groups=axis_index_groups
    )


@axis_index_p.def_impl
def _axis_index_impl(*, axis_name):
    return np.asarray(_on_devices("axis_index", None, _names(axis_name)), np.int32)


# ---------------------------------------------------------------------------------------------
# Differentiation: all but pmax/pmin are linear; transposes follow JAX.


def _psum_jvp(primals, tangents, *, axes, axis_index_groups=None):
    outs = psum_p.bind(*primals, axes=axes, **_NO_GROUPS)
    nz = [type(t) is not ad.Zero for t in tangents]
    t_outs = (
        psum_p.bind(*[t for t in tangents if type(t) is not ad.Zero], axes=axes, **_NO_GROUPS)
        if any(nz)
        else []
    )
    it = iter(t_outs)
    return outs, [next(it) if n else ad.Zero(t.aval) for n, t in zip(nz, tangents)]


def _psum_transpose(cts, *args, axes, axis_index_groups=None):
    nz = [type(c) is not ad.Zero for c in cts]
    if _positional(axes):  # broadcast back along them, then the named sum (axes=() too, as JAX)
        from .reductions import _reduce_sum_transpose

        pos, named = _positional(axes), tuple(a for a in axes if not isinstance(a, int))
        cts = [_reduce_sum_transpose(c, x, axes=pos)[0] if n else c for c, x, n in zip(cts, args, nz)]
        return [psum_p.bind(c, axes=named, **_NO_GROUPS)[0] if n else None for c, n in zip(cts, nz)]
    outs = iter(
        psum_p.bind(*[c for c in cts if type(c) is not ad.Zero], axes=axes, **_NO_GROUPS) if any(nz) else []
    )
    return [next(outs) if n else None for n in nz]


ad.jvp_rules[psum_p] = _psum_jvp
ad.transpose_rules[psum_p] = _psum_transpose


# pmax and pmin have no differentiation rule, as in JAX 0.10.2: grad/jvp of either (under pmap, vmap
# with an axis name, shard_map, or over positional axes) raises "Differentiation rule for 'pmax' not
# implemented". A derivative that only needs the maximum's value can stop_gradient the operand.


def _linear(prim, transpose):
    def jvp(primals, tangents, **params):
        (t,) = tangents
        out = prim.bind(*primals, **params)
        if type(t) is ad.Zero:
            return out, ad.Zero(core.get_aval(out))
        return out, prim.bind(t, **params)

    ad.jvp_rules[prim] = jvp
    ad.transpose_rules[prim] = lambda ct, x, **params: [transpose(ad.instantiate_zeros(ct), **params)]


_linear(
    all_gather_p,
    lambda ct, *, all_gather_dimension, **params: psum_scatter_p.bind(
        ct, scatter_dimension=all_gather_dimension, **params
    ),
)
_linear(
    psum_scatter_p,
    lambda ct, *, scatter_dimension, **params: all_gather_p.bind(
        ct, all_gather_dimension=scatter_dimension, **params
    ),
)
_linear(
    ppermute_p,
    lambda ct, *, axis_name, perm: ppermute_p.bind(
        ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm)
    ),
)


def _all_to_all_transpose(ct, *, split_axis, concat_axis, tiled=False, **params):
    if not tiled and split_axis != concat_axis:
        # (untiled, the operand's unit axis at concat_axis became the axis size)
        raise _all_to_all_transpose_error(ct, split_axis, concat_axis, core.get_aval(ct).shape[concat_axis])
    return all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, tiled=tiled, **params)


def _all_to_all_transpose_error(ct, split_axis, concat_axis, size) -> ValueError:
    """JAX 0.10.2's transpose of an untiled all_to_all that moves an axis calls ``lax.all_to_all``
    on the primitive's own (expanded) operand shapes, which inserts and drops a unit axis again:
    the cotangent it makes has the wrong shape, and its backward pass refuses it."""
    aval = core.get_aval(ct)
    shape = list(aval.shape)
    split, concat = concat_axis, split_axis  # (the transpose's)
    if split < concat:
        concat += 1
        shape.insert(concat, 1)
    else:
        shape.insert(concat, 1)
        split += 1
    shape[split] //= size
    shape[concat] *= size
    del shape[split]
    want = list(aval.shape)  # the primal operand's: the output's with the two axes' sizes traded
    want[split_axis], want[concat_axis] = want[split_axis] * size, want[concat_axis] // size
    dt = aval.dtype.name
    return ValueError(
        f"Expected cotangent type {dt}[{','.join(map(str, want))}] but got {dt}[{','.join(map(str, shape))}]"
    )


_linear(all_to_all_p, _all_to_all_transpose)


def _lax():
    from . import api

    return api


# ---------------------------------------------------------------------------------------------
# Public wrappers (jax.lax signatures).


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum ``x`` (a pytree) over the named axis; every member receives the total.

    >>> jax.pmap(lambda x: x / psum(x, 'i'), axis_name='i')(jnp.arange(4.))
    Array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)
    """
    _no_groups(axis_index_groups)
    leaves, tree = tree_flatten(x)
    if not leaves:
        return x
    # (constants sum to the axis size times them, without binding: an unbound name is then the
    # axis size's error, as in JAX)
    concrete = not any(isinstance(v, core.Tracer) for v in leaves)
    axes = _names(axis_name) if concrete else _bound(axis_name)
    return tree_unflatten(tree, [_psum_leaf(v, axes) for v in leaves])


def _psum_leaf(v, axes):
    # One leaf at a time, as JAX binds them; a bool counts as an int32 (the number of members
    # where it is true), as JAX converts it first.
    if core.get_aval(v).dtype == np.bool_:
        v = _lax().convert_element_type(v, np.int32)
    if not isinstance(v, core.Tracer):
        constant = _psum_of_constants([v], axes)
        if constant is not None:
            return constant[0]
    if core.vma_checking[0] and not _positional(axes):  # (JAX's bind_psum_invariant)
        from .varying import pvary_to

        return psum_invariant_p.bind(pvary_to(v, axes), axes=axes)
    return psum_p.bind(v, axes=axes, **_NO_GROUPS)[0]


def _psum_of_constants(leaves, axes):
    """Every member holds the same constant: the sum is the axes' size times it, computed here
    (JAX's constant case: ``psum(1, 'i')`` is the axis size, no collective staged)."""
    from ..staging import displaying

    named, pos = tuple(a for a in axes if not isinstance(a, int)), _positional(axes)
    if named and displaying() and not all(n in _bound_names() for n in named):
        return None  # (a body shown alone, outside the map binding its axes)
    size = axis_size(named) if named else 1
    lax = _lax()
    out = []
    for v in leaves:
        if isinstance(v, (bool, int, float, complex)) and not pos:
            out.append(type(v)(size) * v)
        else:
            v = lax.reduce_sum(v, pos) if pos else v
            out.append(lax.mul(lax._const_like(v, size), v))
    return out


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of ``x`` over the named axis."""
    _no_groups(axis_index_groups)
    total = psum(x, axis_name)  # (first, as JAX's: an unbound name is psum's error)
    n = axis_size(axis_name)
    lax = _lax()

    def mean(v):
        divisor = lax._const_like(v, n)
        if isinstance(divisor, core.Array):
            # (JAX's divisor is psum(1)'s value: a literal in the jaxpr, but a value a tangent
            # trace captures, so a differentiated shard_map passes it as a residual)
            divisor.op_result = True
        return lax.div(v, divisor)

    return tree_map(mean, total)


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of ``x`` over the named axis."""
    _no_groups(axis_index_groups)
    return tree_map(lambda v: pmax_p.bind(v, axes=_bound(axis_name), **_NO_GROUPS), x)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of ``x`` over the named axis."""
    _no_groups(axis_index_groups)
    return tree_map(lambda v: pmin_p.bind(v, axes=_bound(axis_name), **_NO_GROUPS), x)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False, to="varying"):
    """Every member receives all members' ``x``, stacked at ``axis`` (concatenated if ``tiled``).
    ``to``: the result's type inside ``shard_map``: ``'varying'`` (the default), ``'invarying'``
    (``all_gather_invariant``) or ``'reduced'`` (``all_gather_reduced``).

    >>> jax.pmap(lambda x: all_gather(x, 'i'), axis_name='i')(jnp.arange(2.))
    Array([[0., 1.],
           [0., 1.]], dtype=float32)
    """
    if to not in ("varying", "reduced", "invarying"):
        raise ValueError(
            "Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: "
            "{'varying', 'reduced', 'invarying'}"
        )
    _no_groups(axis_index_groups)
    n = axis_size(axis_name)
    from .all_gather_typed import all_gather_invariant_p, all_gather_reduced_p

    prim = {"varying": all_gather_p, "invarying": all_gather_invariant_p, "reduced": all_gather_reduced_p}[to]
    groups = {"axis_index_groups": None} if prim is all_gather_p else {}

    def one(v):
        nd = core.get_aval(v).ndim
        dim = axis % (nd + (0 if tiled else 1)) if (nd or not tiled) else axis
        return prim.bind(
            v,
            axis_name=_names(axis_name),
            **groups,
            axis_size=n,
            all_gather_dimension=int(dim),
            tiled=bool(tiled),
        )

    return tree_map(one, x)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """``psum`` whose result is split along ``scatter_dimension``: member ``i`` keeps piece ``i``."""
    _no_groups(axis_index_groups)
    n = axis_size(axis_name)

    def one(v):
        dim = scatter_dimension % core.get_aval(v).ndim
        return psum_scatter_p.bind(
            _lift_unbatched(v, axis_name),
            axis_name=_names(axis_name),
            axis_index_groups=None,
            axis_size=n,
            scatter_dimension=int(dim),
            tiled=bool(tiled),
        )

    return tree_map(one, x)


def _lift_unbatched(x, axis_name):
    """A concrete array under ``vmap(axis_name=)`` is unbatched; collectives whose result varies
    across the axis need it batched (broadcast) so the batch rule sees it."""
    names = _names(axis_name)
    frames = _vmap_frames()
    if len(names) != 1 or names[0] not in frames or isinstance(x, core.Tracer):
        return x
    size, main = frames[names[0]]
    value = np.asarray(core.to_numpy(x))
    return batching.BatchTracer(
        batching.BatchTrace(main), Array(np.broadcast_to(value, (size, *value.shape)), core.is_weak(x)), 0
    )


def ppermute(x, axis_name, perm):
    """Send ``x`` from member ``src`` to member ``dst`` for each ``(src, dst)`` in ``perm``;
    members that receive nothing get zeros.

    >>> jax.pmap(lambda x: ppermute(x, 'i', [(0, 1), (1, 0)]), axis_name='i')(jnp.arange(2.))
    Array([1., 0.], dtype=float32)
    """
    perm = tuple((int(s), int(d)) for s, d in perm)
    _bound(axis_name, "ppermute")
    n = axis_size(axis_name)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ValueError(f"ppermute sources and destinations must be unique, got perm={perm}")
    if any(not 0 <= i < n for i in srcs + dsts):
        raise ValueError(f"ppermute perm={perm} has indices outside the axis of size {n}")
    return tree_map(
        lambda v: ppermute_p.bind(_lift_unbatched(v, axis_name), axis_name=_names(axis_name), perm=perm), x
    )


def pshuffle(x, axis_name, perm):
    """Member ``i`` receives the value of member ``perm[i]``."""
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(perm)])


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Split ``split_axis`` into one piece per member, send piece ``j`` to member ``j``, and
    concatenate what arrives along ``concat_axis`` (untiled: the split axis must have the axis
    size; it is removed and a new axis of that size appears at ``concat_axis``). With
    ``axis_index_groups`` (lists of axis indices) the exchange is within each group, member ``j``
    being the group's ``j``-th index, and the size is the first group's.

    >>> f = lambda x: all_to_all(x, 'i', 0, 0, axis_index_groups=[[0, 2], [1, 3]])
    >>> jax.pmap(f, axis_name='i')(jnp.arange(8.).reshape(4, 2))
    Array([[0., 4.],
           [2., 6.],
           [1., 5.],
           [3., 7.]], dtype=float32)
    """
    groups = None if axis_index_groups is None else tuple(tuple(int(i) for i in g) for g in axis_index_groups)
    n = axis_size(axis_name) if groups is None else len(groups[0])
    lax = _lax()

    def bind(v, split, concat, tiled):
        return all_to_all_p.bind(
            v,
            axis_name=_names(axis_name),
            split_axis=split,
            concat_axis=concat,
            tiled=tiled,
            axis_index_groups=groups,
        )

    def one(v):
        v = _lift_unbatched(v, axis_name)
        nd = core.get_aval(v).ndim
        split, concat = split_axis % nd, concat_axis % nd
        if tiled:
            if core.get_aval(v).shape[split] % n:
                raise ValueError(
                    f"The size of all_to_all split_axis ({core.get_aval(v).shape[split]}) has to be "
                    f"divisible by the size of the named axis {axis_name} ({n})"
                )
            if groups is not None:
                _check_groups(groups, axis_size(axis_name))
            return bind(v, split, concat, True)
        if core.get_aval(v).shape[split] != n:
            raise ValueError(  # (JAX's message, naming its parameter)
                "all_to_all requires the size of the mapped axis axis_name to equal "
                f"x.shape[split_axis], but they are {n} and {core.get_aval(v).shape[split]} respectively."
            )
        if groups is not None:
            _check_groups(groups, axis_size(axis_name))
        if split < concat:
            concat += 1
            v = lax.expand_dims(v, (concat,))
        elif split > concat:
            v = lax.expand_dims(v, (concat,))
            split += 1
        out = bind(v, split, concat, False)
        return lax.squeeze(out, (split,)) if split != concat else out

    return tree_map(one, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the named axis with ``x``'s positional ``axis`` (whose size must be the named axis's):
    ``all_to_all(x, axis_name, axis, axis)``, as JAX defines it.

    >>> jax.pmap(lambda x: lax.pswapaxes(x, 'i', 0), axis_name='i')(jnp.arange(4.).reshape(2, 2))
    Array([[0., 2.],
           [1., 3.]], dtype=float32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def axis_index(axis_name):
    """This member's index along the named axis (an int32 scalar).

    >>> jax.pmap(lambda x: x + axis_index('i'), axis_name='i')(jnp.zeros(3))
    Array([0., 1., 2.], dtype=float32)
    """
    names = _names(axis_name)
    frames = _vmap_frames()
    if len(names) == 1 and names[0] in frames:
        size, main = frames[names[0]]
        from . import api as lax

        # staged as an iota below the vmap, as JAX does (not a captured constant)
        return batching.BatchTracer(batching.BatchTrace(main), lax.iota(np.int32, size), 0)
    if any(n in frames for n in names):
        raise NotImplementedError("axis_index over a vmap axis together with other axes")
    _bound(axis_name, "axis_index")
    if isinstance(axis_name, (tuple, list)):  # row-major over the names (JAX stages a 1-tuple so too)
        index, stride = 0, 1
        for name in reversed(names):
            index = index + axis_index(name) * stride
            stride *= axis_size(name)
        return index
    return axis_index_p.bind(axis_name=names[0])


def _check_groups(groups, size: int) -> None:
    """Groups that do not split the axis into equal parts: XLA's verifier refuses the program
    JAX hands it (when it compiles; a traced program only shown is not refused)."""
    from ..errors import JaxRuntimeError
    from ..staging import displaying

    if displaying():
        return
    members = sorted(i for g in groups for i in g)
    if members != list(range(size)) or len({len(g) for g in groups}) != 1:
        raise JaxRuntimeError(
            "INTERNAL: during context [hlo verifier]: RET_CHECK failure num_partitions == 1 || "
            f"n == num_partitions In cross_partition mode, replica groups should contain {size} "
            f"partitions, but found {len(members)}"
        )


def _no_groups(groups):
    if groups is not None:
        raise NotImplementedError("axis_index_groups is not supported")


# ---------------------------------------------------------------------------------------------
# pvary: mark a value as varying over mesh axes (a type change: no data moves). As in JAX its
# transpose is psum_invariant (each device's cotangent of the invariant operand is a share of
# the whole) and psum_invariant's is pvary.
pvary_p = core.Primitive("pvary", multiple_results=True)
pvary_p.def_impl(lambda *xs, axes: list(xs))
pvary_p.def_abstract_eval(lambda *avals, axes: list(avals))
ad.jvp_rules[pvary_p] = lambda primals, tangents, *, axes: (
    pvary_p.bind(*primals, axes=axes),
    [t if type(t) is ad.Zero else pvary_p.bind(t, axes=axes)[0] for t in tangents],
)
ad.transpose_rules[pvary_p] = lambda cts, *args, axes: [
    psum_invariant_p.bind(ad.instantiate_zeros(c), axes=axes) for c in cts
]
batching.batch_rules[pvary_p] = lambda size, vals, dims, *, axes: (pvary_p.bind(*vals, axes=axes), list(dims))


# psum_invariant: JAX's name for a one-operand psum inside a shard_map whose varying axes are
# checked (check_vma=True): psum's values; its operand varies over its axes (lax/varying.py), its
# result does not, and its transpose is pvary.
psum_invariant_p = Primitive("psum_invariant")
psum_invariant_p.def_abstract_eval(_reduced_aval)
psum_invariant_p.def_impl(lambda x, *, axes: _psum_impl(x, axes=axes)[0])
_linear(psum_invariant_p, lambda ct, *, axes: pvary_p.bind(ct, axes=axes)[0])

collective_primitives = (*collective_primitives, psum_invariant_p)


from . import parallel_batching  # noqa: E402,F401  (registers the collectives' batching rules)
from . import all_gather_typed  # noqa: E402,F401  (all_gather(to='invarying' / 'reduced'))
