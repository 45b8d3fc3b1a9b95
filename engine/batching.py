"""Vectorizing map: each value carries the axis along which it is batched (or ``not_mapped``)."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Callable, Final, Sequence, cast

import numpy as np

from . import core, dims, leak_check
from .core import MainTrace, Params, ShapedArray, Trace, Tracer, Value
from .tracer_origins import summarize

if TYPE_CHECKING:
    from .ir import ClosedJaxpr


class NotMapped(enum.Enum):
    """The batch dimension of a value that is not batched (one member, so ``is`` narrows)."""

    token = 0

    def __repr__(self) -> str:
        return "not_mapped"

    __str__ = __repr__


not_mapped: Final = NotMapped.token
BatchDim = int | NotMapped

# rule(axis_size, vals, dims, **params) -> (out, out_dims): out_dims is a BatchDim, or a list of
# them for a primitive with multiple results.
batch_rules: dict[core.Primitive, Callable[..., tuple[Value, Any]]] = {}
# Collectives consult the axis name; `vmap(..., axis_name=)` registers its frame here.
axis_frames: list["AxisFrame"] = []


class AxisFrame:
    __slots__ = ("name", "size", "main")

    def __init__(self, name: object, size: int, main: MainTrace | None):
        self.name, self.size, self.main = name, size, main


def _dtype_shape(aval: ShapedArray) -> str:
    return f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"


@core.jax_class_path("jax._src.interpreters.batching.BatchTracer")
class BatchTracer(Tracer):
    # created_on: the user's line that called the vmapped function, set on its arguments' tracers
    # only (JAX notes every tracer's line; the engine finds it once per call, not per operation)
    __slots__ = ("val", "batch_dim", "created_on")
    created_on: core.SourceInfo | None

    def __init__(self, trace: BatchTrace, val: Value, batch_dim: BatchDim):
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    def _origin_msg(self) -> str:
        info = getattr(self, "created_on", None)
        if info is None:
            return ""
        return f"\nThis BatchTracer with object id {id(self)} was created on line:\n  {summarize(info)}"

    @property
    def aval(self) -> ShapedArray:
        aval = core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        if type(aval) is not ShapedArray:  # a batched mutable array ref
            return aval.update(shape=tuple(shape))
        return ShapedArray(tuple(shape), aval.dtype, aval.weak_type, vma=aval.vma)

    def __repr__(self) -> str:
        a, v = self.aval, core.get_aval(self.val)
        if self.batch_dim is not_mapped:
            return f"VmapTracer(aval={_dtype_shape(a)}, batched=None)"
        return f"VmapTracer(aval={_dtype_shape(a)}, batched={_dtype_shape(v)})"

    def full_lower(self) -> Value:
        if self.batch_dim is not_mapped:
            return core.full_lower(self.val)
        return self


class BatchTrace(Trace):
    def pure(self, val: Value) -> BatchTracer:
        return BatchTracer(self, val, not_mapped)

    lift = pure

    # The main carries the AxisFrame ``vmap_flat``/``batch_jaxpr`` made it with (read inline: hot).
    @property
    def axis_size(self) -> int:
        frame: AxisFrame = self.main.global_data
        return frame.size

    @property
    def axis_name(self) -> object:
        frame: AxisFrame = self.main.global_data
        return frame.name

    def process_primitive(self, primitive: core.Primitive, tracers: Sequence[Value], params: Params) -> Value:
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if all(d is not_mapped for d in dims):
            return primitive.bind(*vals, **params)
        rule = batch_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Batching rule for '{primitive}' not implemented")
        with _current_batch_trace(self):
            out, out_dims = rule(self.axis_size, vals, dims, **params)
        if primitive.multiple_results:
            return [BatchTracer(self, o, d) for o, d in zip(out, out_dims)]
        return BatchTracer(self, out, out_dims)


_trace_ctx: list[BatchTrace] = []


class _current_batch_trace:
    """Lets collective rules find the vmap whose axis they act on."""

    def __init__(self, trace: BatchTrace):
        self.trace = trace

    def __enter__(self) -> None:
        _trace_ctx.append(self.trace)

    def __exit__(self, *exc: object) -> None:
        _trace_ctx.pop()


def current_batch_trace() -> BatchTrace | None:
    return _trace_ctx[-1] if _trace_ctx else None


def moveaxis(x: Value, src: int, dst: int) -> Value:
    from . import lax

    if src == dst:
        return x
    ndim = np.ndim(x) if not isinstance(x, Tracer) else x.ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def bdim_at_front(x: Value, bdim: BatchDim, size: int) -> Value:
    """Move the batch axis to 0, broadcasting an unmapped value to the batch size."""

    if bdim is not_mapped:
        return broadcast_at(x, size, 0)
    return moveaxis(x, bdim, 0)


def broadcast_at(x: Value, size: int, axis: int) -> Value:
    """An unmapped value broadcast to the batch size along a new ``axis`` (JAX's batching.broadcast)."""
    from . import lax

    # numpy integer dims, as JAX's rule computes them (its jaxprs print them so)
    shape = list(core.get_aval(x).shape)
    shape.insert(axis, size)
    dims = tuple(np.int64(i) for i in range(len(shape)) if i != axis)
    if isinstance(x, (bool, int, float, complex)):
        return lax.broadcast_in_dim(x, tuple(shape), dims)
    return lax.structural.broadcast_in_dim_p.bind(
        x, shape=tuple(shape), broadcast_dimensions=dims, sharding=None
    )


def batch_leading(
    closed: ClosedJaxpr, size: int, vals: Sequence[Value], dims: Sequence[BatchDim]
) -> tuple[list[Value], list[bool], list[ShapedArray], Callable[..., list[Value]]]:
    """For a batching rule of a primitive that runs a body on devices (``pmap``, ``shard_map``):
    the operands with their batch axis moved to the front, which of them are mapped, the body's
    input avals with that axis, and the body batched over it (outputs batched at the front)."""
    from .ir import eval_jaxpr

    trace = current_batch_trace()
    vname = trace.axis_name if trace is not None else None
    moved: list[Value] = []
    mapped: list[bool] = []
    avals: list[ShapedArray] = []
    for v, d, aval in zip(vals, dims, closed.in_avals):
        is_mapped = d is not not_mapped
        moved.append(moveaxis(v, d, 0) if is_mapped else v)  # type: ignore[arg-type]
        mapped.append(is_mapped)
        avals.append(aval.update(shape=(size, *aval.shape)) if is_mapped else aval)
    inner_dims: list[BatchDim | None] = [0 if m else None for m in mapped]

    def body(*xs: Value) -> list[Value]:
        return vmap_flat(
            lambda *ys: eval_jaxpr(closed.jaxpr, ys, closed.consts),
            size,
            vname,
            inner_dims,
            xs,
            lambda n: [0] * n,
        )

    return moved, mapped, avals, body


# The ids of the refs vmaps being traced map over (their arguments): any other eager ref a vmapped
# function writes is one it closes over, which JAX's batching rules refuse.
mapped_refs: list[int] = []


def vmap_flat(
    f: Callable[..., Sequence[Value]],
    axis_size: int,
    axis_name: object,
    in_dims: Sequence[BatchDim | None],
    args: Sequence[Value],
    out_dims_spec: Callable[[int], Sequence[int | None]],
    out_paths: Callable[[int], Sequence[str]] | None = None,
    sum_match: bool = False,
) -> list[Value]:
    """Run ``f`` batched; ``out_dims_spec(n_outs)`` gives where to put each output's batch axis
    (``out_paths(n_outs)``, if given, the outputs' key paths that JAX's errors name). With
    ``sum_match`` (JAX's vmap keyword), a batched output wanted unbatched is summed over its axis."""
    # (the user's vmap is the caller naming its outputs' paths: its tracers note the calling line)
    vals_out, dims_out = vmap_traced(f, axis_size, axis_name, in_dims, args, out_paths is not None)
    wanted = out_dims_spec(len(vals_out))
    results = []
    for i, (v, d, w) in enumerate(zip(vals_out, dims_out, wanted)):
        if w is None:
            if d is not not_mapped and sum_match:  # (as JAX's matchaxis: ``x.sum(d)``, jnp's sum)
                from .numpy import sum as jnp_sum

                results.append(jnp_sum(v, axis=d))
                continue
            if d is not not_mapped and out_paths is not None:
                raise ValueError(
                    f"at vmap out_axes{out_paths(len(vals_out))[i]}, got axis spec None but output was "
                    f"batched on axis {d}"
                )
            if d is not not_mapped:
                raise ValueError(
                    "vmap has out_axes=None for an output that is mapped over the batch "
                    "axis; only outputs that do not depend on the batched inputs can be unmapped."
                )
            results.append(v)
            continue
        # straight to where it is wanted, as JAX's matchaxis (no stop at the front)
        w = dims.canonicalize_axis(w, core.get_aval(v).ndim + (d is not_mapped))
        results.append(broadcast_at(v, axis_size, w) if d is not_mapped else moveaxis(v, d, w))
    return results


def vmap_traced(
    f: Callable[..., Sequence[Value]],
    axis_size: int,
    axis_name: object,
    in_dims: Sequence[BatchDim | None],
    args: Sequence[Value],
    note_line: bool = False,
) -> tuple[list[Value], list[BatchDim]]:
    """Run ``f`` batched: its outputs with the batch dimensions they came out with (``note_line``:
    the arguments' tracers note the user's line calling it, for errors about them)."""
    from .state.types import Ref

    frame = AxisFrame(axis_name, axis_size, None)
    mapped = [id(x) for x, d in zip(args, in_dims) if d is not None and isinstance(x, Ref)]
    with core.new_main(BatchTrace, frame) as main:
        frame.main = main
        trace = BatchTrace(main)
        tracers_in = [BatchTracer(trace, x, d) if d is not None else x for x, d in zip(args, in_dims)]
        if note_line:
            _note_line(tracers_in)
        mapped_refs.extend(mapped)
        try:
            outs = f(*tracers_in)
        finally:
            del mapped_refs[len(mapped_refs) - len(mapped) :]
        invalid = [o for o in outs if not (isinstance(o, core.Tracer) or core.is_array_like(o))]
        if invalid:
            raise TypeError(
                f"Output from batched function {invalid[0]!r} with type {type(invalid[0])} is not a valid JAX type"
            )
        tracers_out = [trace.full_raise(o) for o in outs]
        vals_out = [t.val for t in tracers_out]
        dims_out = [t.batch_dim for t in tracers_out]
    if leak_check.enabled():
        del trace, tracers_in, tracers_out, outs
        leak_check.check(main)
    return vals_out, dims_out


def _note_line(tracers: Sequence[Value]) -> None:
    """The user's line calling a vmapped function, on its arguments' tracers (in a function of its
    own: the caller keeps no tracer in a variable, which a leak check would find)."""
    called_on = core.current_source_info()
    for t in tracers:
        if type(t) is BatchTracer:
            t.created_on = called_on


# Rule helpers ---------------------------------------------------------------------------------


def is_elementwise(prim: core.Primitive) -> bool:
    """Whether ``prim`` maps its operands element by element (batched by ``vectorized_batcher`` or
    ``broadcast_batcher``)."""
    name = getattr(batch_rules.get(prim), "__qualname__", "")
    return name.startswith(("vectorized_batcher", "broadcast_batcher"))


def broadcast_batcher(primitive: core.Primitive, size_one: bool = False) -> Callable[..., tuple[Value, Any]]:
    """Elementwise n-ary ops whose operands share one shape or are scalars (0-d).

    Scalars stay scalars when unmapped (so a constant like ``2.0`` is never broadcast to the batch);
    everything else gets its batch axis at the front. With ``size_one`` (ops that broadcast size-1
    axes themselves) unmapped operands get a size-1 batch axis instead, as JAX's rule does.
    """

    def rule(
        axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], **params: Any
    ) -> tuple[Value, Any]:
        from . import lax

        _check_examples(primitive, vals, dims, params)
        if size_one:
            return _size_one_batch(primitive, vals, dims, params)

        first = next(d for d in dims if d is not not_mapped)
        ranks = [core.get_aval(v).ndim for v in vals]
        if all(d == first for d in dims) and len(set(ranks)) == 1:
            out = primitive.bind(*vals, **params)
            return out, ([first] * len(out) if primitive.multiple_results else first)
        # The per-example shape of the result: that of any non-scalar operand.
        example: tuple[int, ...] = ()
        for v, d in zip(vals, dims):
            shape = core.get_aval(v).shape
            if d is not not_mapped:
                shape = shape[:d] + shape[d + 1 :]
            if shape:
                example = shape
                break
        new_vals = []
        for v, d in zip(vals, dims):
            shape = core.get_aval(v).shape
            if d is not_mapped:
                if shape:
                    v = lax.broadcast_in_dim(v, (axis_size, *shape), tuple(range(1, len(shape) + 1)))
            else:
                v = moveaxis(v, d, 0)
                if len(shape) == 1 and example:  # a per-example scalar meets shaped operands
                    v = lax.broadcast_in_dim(v, (axis_size, *example), (0,))
            new_vals.append(v)
        out = primitive.bind(*new_vals, **params)
        return out, ([0] * len(out) if primitive.multiple_results else 0)

    batch_rules[primitive] = rule
    return rule


def _check_examples(
    primitive: core.Primitive, vals: Sequence[Value], dims: Sequence[BatchDim], params: dict[str, Any]
) -> None:
    """Operands of differing per-example shapes are checked as one example's, so a refusal names
    the shapes the user wrote (JAX's rule sees those), not the batched ones."""
    if len(set(dims)) == 1 and len({np.shape(v) for v in vals}) == 1:
        return  # (the common case: one shape, one batch axis)
    avals = []
    for v, d in zip(vals, dims):
        a = core.get_aval(v)
        avals.append(a if d is not_mapped else a.update(shape=a.shape[:d] + a.shape[d + 1 :]))
    if len({a.shape for a in avals if a.shape}) > 1:
        primitive.abstract_eval(*avals, **params)


def _size_one_batch(
    primitive: core.Primitive, vals: Sequence[Value], dims: Sequence[BatchDim], params: Params
) -> tuple[Value, Any]:
    # JAX's broadcast_batcher: agreeing batch axes bind as they are; otherwise every operand gets
    # its batch axis in front (size 1 when unmapped) and the op's own broadcasting does the rest.
    from . import lax

    avals = [core.get_aval(v) for v in vals]
    shape, dim = next((a.shape, d) for a, d in zip(avals, dims) if d is not not_mapped)
    if all(a.shape == shape and d == dim for a, d in zip(avals, dims) if a.ndim):
        out = primitive.bind(*vals, **params)
        return out, ([dim] * len(out) if primitive.multiple_results else dim)
    new_vals = []
    for v, a, d in zip(vals, avals, dims):
        if a.ndim:
            if d is not_mapped:  # numpy integers, as JAX's rule makes them (they print so)
                front = tuple(np.int64(i) for i in range(1, a.ndim + 1))
                v = lax.structural.broadcast_in_dim_p.bind(
                    v, shape=(1, *a.shape), broadcast_dimensions=front, sharding=None
                )
            else:
                v = moveaxis(v, d, 0)
        new_vals.append(v)
    nd = max(core.get_aval(v).ndim for v in new_vals)
    new_vals = [
        v
        if d is not_mapped or core.get_aval(v).ndim == nd
        else lax.expand_dims(v, tuple(range(core.get_aval(v).ndim, nd)))
        for v, d in zip(new_vals, dims)
    ]
    out = primitive.bind(*new_vals, **params)
    return out, ([0] * len(out) if primitive.multiple_results else 0)


def vectorized_batcher(primitive: core.Primitive) -> Callable[..., tuple[Value, Any]]:
    """Unary elementwise ops: the batch axis passes straight through."""

    def rule(
        axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim], **params: Any
    ) -> tuple[Value, Any]:
        out = primitive.bind(*vals, **params)
        return out, dims[0]

    batch_rules[primitive] = rule
    return rule


def _register_ad_rows() -> None:
    from . import ad

    def add_any(axis_size: int, vals: Sequence[Value], dims: Sequence[BatchDim]) -> tuple[Value, Any]:
        # JAX's add_batched: an unmapped operand is broadcast at the other's batch axis.
        (x, y), (dx, dy) = vals, dims
        if dx == dy:
            return ad.add_jaxvals_p.bind(x, y), dx
        if dx is not_mapped:
            return ad.add_jaxvals_p.bind(_broadcast_at(x, axis_size, cast(int, dy)), y), dy
        if dy is not_mapped:
            return ad.add_jaxvals_p.bind(x, _broadcast_at(y, axis_size, dx)), dx
        return ad.add_jaxvals_p.bind(moveaxis(x, dx, dy), y), dy

    batch_rules[ad.add_jaxvals_p] = add_any


def _broadcast_at(x: Value, size: int, axis: int) -> Value:
    """``x`` with a new axis of ``size`` at ``axis`` (numpy integer dims, as JAX's broadcast makes)."""
    from . import lax

    shape = list(core.get_aval(x).shape)
    shape.insert(axis, size)
    dims = tuple(np.delete(np.arange(len(shape)), axis))
    return lax.structural.broadcast_in_dim_p.bind(
        x, shape=tuple(shape), broadcast_dimensions=dims, sharding=None
    )


_register_ad_rows()


def batch_jaxpr(
    closed: ClosedJaxpr,
    axis_size: int,
    in_dims: Sequence[BatchDim | None],
    axis_name: object = None,
    force_out: Sequence[bool] | None = None,
    keep_out_dims: bool = False,
) -> tuple[ClosedJaxpr, list[BatchDim]]:
    """Batch a closed jaxpr: ``(batched ClosedJaxpr, out_dims)``.

    Mapped outputs come out with their batch axis at 0; unmapped ones stay unmapped (so e.g. the
    primal outputs of a jvp under jacfwd are not broadcast), unless ``force_out[i]`` asks for it.
    ``keep_out_dims``: mapped outputs keep the axis where the batched body put it (JAX's
    ``batch_jaxpr2``, which its jit and compute_on batch with: no transpose inside the call).
    """
    from .ir import eval_jaxpr
    from .staging import trace_to_jaxpr

    out_dims_store: list[list[BatchDim]] = []

    def f(*xs: Value) -> list[Value]:
        frame = AxisFrame(axis_name, axis_size, None)
        with core.new_main(BatchTrace, frame) as main:
            frame.main = main
            trace = BatchTrace(main)
            tracers = [
                BatchTracer(trace, x, not_mapped if d is None or d is not_mapped else d)
                for x, d in zip(xs, in_dims)
            ]
            outs = eval_jaxpr(closed.jaxpr, tracers, closed.consts)
            outs = [trace.full_raise(o) for o in outs]
            vals, dims = [o.val for o in outs], [o.batch_dim for o in outs]
        res: list[Value] = []
        res_dims: list[BatchDim] = []
        for i, (v, d) in enumerate(zip(vals, dims)):
            if keep_out_dims or (d is not_mapped and not (force_out and force_out[i])):
                res.append(v)
                res_dims.append(d)
            else:
                res.append(bdim_at_front(v, d, axis_size))
                res_dims.append(0)
        out_dims_store[:] = [res_dims]
        return res

    from .state.types import AbstractRef

    avals = [
        core.get_aval(v) if not isinstance(v, (ShapedArray, AbstractRef)) else v
        for v in _in_avals(closed, axis_size, in_dims)
    ]
    batched = trace_to_jaxpr(f, avals)
    return batched, out_dims_store[0]


def _in_avals(closed: ClosedJaxpr, axis_size: int, in_dims: Sequence[BatchDim | None]) -> list[ShapedArray]:
    out = []
    for a, d in zip(closed.in_avals, in_dims):
        if d is None or d is not_mapped:
            out.append(a)
        else:
            shape = list(a.shape)
            shape.insert(d, axis_size)
            out.append(a.update(shape=tuple(shape)))  # (an array, or a batched ref)
    return out
