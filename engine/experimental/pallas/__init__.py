"""``jax.experimental.pallas``: kernels written on refs, run as JAX runs them on a CPU.

JAX compiles a ``pallas_call`` for GPUs and TPUs only: on a CPU it runs a kernel in interpret mode
(``interpret=True``) and refuses otherwise, when the call is compiled (``ValueError: Only interpret
mode is supported on CPU backend.``). The engine does the same. In interpret mode the kernel runs
once per point of ``grid``: each ``BlockSpec``'s ``index_map`` picks the block of each operand
(block indices times ``block_shape``), the kernel reads and writes refs (``engine.state``) holding
those blocks, and the output blocks are written back. Outputs start uninitialized, as in JAX
(NaN for floats, the minimum for integers), and blocks that run past an array's end are padded.

    >>> import engine as jax, engine.numpy as jnp
    >>> def double(x_ref, o_ref):
    ...     o_ref[...] = 2 * x_ref[...]
    >>> pallas_call(double, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32), grid=(2,),
    ...             in_specs=[BlockSpec((2,), lambda i: (i,))], out_specs=BlockSpec((2,), lambda i: (i,)),
    ...             interpret=True)(jnp.arange(4.0))
    Array([0., 2., 4., 6.], dtype=float32)
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import itertools
import math
import threading
from typing import Any, Callable, Sequence

import numpy as np

from ... import batching, core, ir, narrow_dtypes
from ...backends.rows import INTERPRETER_ONLY
from ...narrow_dtypes import kind as dtype_kind
from ...parallel.pmap_primitive import compile_refusals
from ...tree_util import tree_flatten, tree_unflatten

_CPU_REFUSAL = "Only interpret mode is supported on CPU backend."


class MemorySpace(enum.Enum):
    """Where a block lives; on a CPU in interpret mode every space is host memory."""

    ANY = "any"
    HOST = "host"

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


ANY = MemorySpace.ANY
HOST = MemorySpace.HOST


class DeviceIdType(enum.Enum):
    """How a remote copy names its target device: by mesh coordinates or by logical id."""

    MESH = "mesh"
    LOGICAL = "logical"


@dataclasses.dataclass(frozen=True)
class BlockSpec:
    """Which block of an operand each kernel invocation sees.

    ``index_map(*grid_indices)`` returns block indices; element offsets are block index times
    ``block_shape``. A ``None`` in ``block_shape`` is a dimension of size 1 the kernel does not see;
    an ``Element(n, padding)`` one is indexed by element offset.
    Without a ``block_shape`` the kernel sees the whole array.
    """

    block_shape: Sequence[int | None] | None = None
    index_map: Callable[..., Any] | None = None
    memory_space: Any = None
    pipeline_mode: Any = None


@dataclasses.dataclass(frozen=True)
class Element:
    """A block dimension indexed by element: ``index_map`` returns the block's first element (in the
    array grown by ``padding``, low and high) instead of a block index."""

    block_size: int
    padding: tuple[int, int] = (0, 0)


@dataclasses.dataclass(frozen=True)
class BoundedSlice:
    """A block dimension of at most ``block_size`` elements whose ``index_map`` returns a
    ``pl.ds(start, size)`` (TPU pipelines); the kernel's ref has ``block_size`` there."""

    block_size: int


_program_ids = threading.local()


def program_id(axis: int) -> Any:
    """The index, along grid axis ``axis``, of the kernel invocation running now (while the kernel is
    traced, a ``program_id`` equation, as JAX stages it)."""
    ids, grid = _current_grid("program_id")
    if ids is None:
        grid[axis]  # (an axis the grid does not have raises)
        return program_id_p.bind(axis=axis)
    return core.Array(np.int32(ids[axis]))


program_id_p = core.Primitive("program_id")
program_id_p.def_abstract_eval(lambda *, axis: core.ShapedArray((), np.dtype(np.int32)))
INTERPRETER_ONLY["program_id"] = "only in a kernel traced for pallas_call (interpret mode gives numbers)"


def num_programs(axis: int) -> int:
    """The grid's size along ``axis``."""
    _, grid = _current_grid("num_programs")
    return grid[axis]


def _current_grid(what: str) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    stack = getattr(_program_ids, "stack", None)
    if not stack:
        raise ValueError(f"pl.{what} can only be called inside a kernel run by pallas_call")
    return stack[-1]


@contextlib.contextmanager
def _running(ids: tuple[int, ...] | None, grid: tuple[int, ...]):
    _program_ids.stack = getattr(_program_ids, "stack", []) + [(ids, grid)]
    try:
        yield
    finally:
        _program_ids.stack = _program_ids.stack[:-1]


def when(condition: Any) -> Callable[[Callable[[], None]], None]:
    """``@pl.when(cond)`` runs the decorated function only where ``cond`` holds."""

    def decorate(f: Callable[[], None]) -> None:
        from ... import lax

        try:
            taken = bool(condition)
        except Exception:  # a traced condition: staged as a cond
            lax.cond(condition, f, lambda: None)
            return
        if taken:
            f()

    return decorate


def pallas_call(
    kernel: Callable[..., None],
    out_shape: Any,
    *,
    grid: int | Sequence[int] = (),
    in_specs: Any = None,
    out_specs: Any = None,
    scratch_shapes: Sequence[Any] = (),
    grid_spec: "GridSpec | None" = None,
    interpret: bool = False,
    name: str | None = None,
    **_compiler_options: Any,
) -> Callable[..., Any]:
    """A function running ``kernel`` over ``grid`` on blocks of its operands (see the module doc).

    ``out_shape`` is a pytree of ``ShapeDtypeStruct``s (or arrays) giving the outputs' shapes;
    ``in_specs``/``out_specs`` are ``BlockSpec``s per operand/output (default: whole arrays);
    ``scratch_shapes`` are buffers the kernel gets after its outputs, kept across the grid. A
    ``grid_spec`` gives all of these at once; with ``num_scalar_prefetch=n`` (TPU's
    ``PrefetchScalarGridSpec``) the first ``n`` operands are passed whole, first to the kernel and
    after the grid indices to every ``index_map``.
    """
    prefetch = 0
    if grid_spec is not None:
        grid, in_specs, out_specs = grid_spec.grid, grid_spec.in_specs, grid_spec.out_specs
        scratch_shapes = grid_spec.scratch_shapes
        prefetch = getattr(grid_spec, "num_scalar_prefetch", 0)
    grid = (grid,) if isinstance(grid, int) else tuple(grid)
    out_leaves, out_tree = tree_flatten(out_shape)
    out_avals = [core.ShapedArray(tuple(o.shape), np.dtype(o.dtype)) for o in out_leaves]

    def call(*args: Any) -> Any:
        from ... import numpy as jnp

        leaves, _ = tree_flatten(args)
        leaves = [jnp.asarray(x) for x in leaves]
        in_blocks = _specs(in_specs, len(leaves) - prefetch, "in_specs")
        out_blocks = _specs(out_specs, len(out_avals), "out_specs")
        run = _Run(kernel, grid, leaves[:prefetch], tuple(scratch_shapes))
        if not interpret:
            # JAX traces the kernel when the call is made and refuses when it compiles: a kernel's
            # own errors come first.
            trace_kernel(run, leaves[prefetch:], in_blocks, out_avals, out_blocks)
            outs = pallas_call_p.bind(*leaves, out_avals=tuple(out_avals), name=name or kernel_name(kernel))
        else:  # (traced first too, as JAX does: a value the kernel needs concrete is refused)
            trace_kernel(run, leaves[prefetch:], in_blocks, out_avals, out_blocks)
            outs = _interpret(run, leaves[prefetch:], in_blocks, out_avals, out_blocks)
        return tree_unflatten(out_tree, list(outs))

    return call


@dataclasses.dataclass(frozen=True)
class GridSpec:
    """``grid``, ``in_specs``, ``out_specs`` and ``scratch_shapes`` of a ``pallas_call`` together."""

    grid: Any = ()
    in_specs: Any = None
    out_specs: Any = None
    scratch_shapes: Sequence[Any] = ()


def kernel_name(kernel: Callable[..., Any]) -> str:
    return getattr(getattr(kernel, "func", kernel), "__name__", "kernel")


def _specs(specs: Any, n: int, what: str) -> list[BlockSpec]:
    if specs is None:
        return [BlockSpec()] * n
    leaves = [specs] if isinstance(specs, BlockSpec) else list(tree_flatten(specs, is_leaf=_is_spec)[0])
    if len(leaves) != n:
        raise ValueError(f"pallas_call: {what} has {len(leaves)} BlockSpecs for {n} arrays")
    return [BlockSpec() if s is None else s for s in leaves]


def _is_spec(x: Any) -> bool:
    return isinstance(x, BlockSpec) or x is None


# ---------------------------------------------------------------------------------------------
# Interpret mode.


def _block_shape(spec: BlockSpec, shape: tuple[int, ...]) -> list[Any]:
    """Per dimension: a block size, None (size 1, squeezed away) or an ``Element``."""
    if spec.block_shape is None:
        return list(shape)
    if len(spec.block_shape) != len(shape):
        raise ValueError(
            f"Block shape {tuple(spec.block_shape)} must have the same number of dimensions as the "
            f"array shape {shape}."
        )
    return list(spec.block_shape)


def _size(b: Any) -> int:
    return 1 if b is None else b.block_size if isinstance(b, (Element, BoundedSlice)) else b


def _uninitialized(shape: Sequence[int], dtype: np.dtype) -> Any:
    from ... import numpy as jnp

    if dtype_kind(dtype) == "f":
        return jnp.full(shape, np.nan, dtype)
    if dtype_kind(dtype) in "iu":
        return jnp.full(shape, narrow_dtypes.iinfo(dtype).min, dtype)
    return jnp.zeros(shape, dtype)


def scratch_value(t: Any) -> Any:
    """What a scratch buffer of type ``t`` holds at first: uninitialized, but a semaphore is zero."""
    shape, dtype = tuple(t.shape), np.dtype(t.dtype)
    if (
        getattr(t, "is_semaphore", False)
        or getattr(getattr(t, "memory_space", None), "value", "") == "semaphore_mem"
    ):
        return core.Array(np.zeros(shape, dtype))
    return _uninitialized(shape, dtype)


def _low(b: Any) -> int:
    return b.padding[0] if isinstance(b, Element) else 0


def _padded(x: Any, blocks: Sequence[Any]) -> Any:
    """``x`` grown with uninitialized values: by an ``Element`` dimension's padding, else to a whole
    number of blocks."""
    from ... import lax

    pads = [
        (b.padding[0], b.padding[1], 0) if isinstance(b, Element) else (0, -d % _size(b), 0)
        for d, b in zip(x.shape, blocks)
    ]
    if not any(lo or hi for lo, hi, _ in pads):
        return x
    return lax.pad(x, _uninitialized((), x.dtype), pads)


def _offsets(spec: BlockSpec, ids: tuple, blocks: Sequence[Any], ndim: int) -> list[Any]:
    """Where each block starts: block index times block size, or an ``Element`` dimension's index
    itself (an element offset into the padded array). ``ids``: the grid indices, then the scalar
    prefetch refs."""
    if spec.index_map is None:
        return [0] * ndim
    idx = spec.index_map(*ids)
    idx = (idx,) if not isinstance(idx, (tuple, list)) else tuple(idx)
    if len(idx) != ndim:
        raise ValueError(f"index_map returned {len(idx)} block indices for an array of rank {ndim}")
    return [i if isinstance(b, Element) else i * _size(b) for i, b in zip(idx, blocks)]


@dataclasses.dataclass
class _Run:
    kernel: Callable[..., None]
    grid: tuple[int, ...]
    prefetched: list[Any]
    scratch_shapes: tuple[Any, ...]


def trace_kernel(run: _Run, args, in_specs, out_avals, out_specs) -> ir.ClosedJaxpr:
    """The kernel as a jaxpr over refs to its blocks (then its prefetched, output and scratch refs), as
    JAX traces it: ``program_id`` is an equation, TPU operations (``pltpu``) stage theirs."""
    from ...staging import trace_to_jaxpr
    from ...state.checks import arg_names
    from ...state.types import AbstractRef

    def ref(shape: Sequence[int], dtype: Any) -> AbstractRef:
        return AbstractRef(core.ShapedArray(tuple(shape), np.dtype(dtype)))

    def seen(blocks: Sequence[Any]) -> list[int]:  # (a None dimension is squeezed away)
        return [_size(b) for b in blocks if b is not None]

    avals = [ref(x.shape, x.dtype) for x in run.prefetched]
    avals += [ref(seen(_block_shape(s, tuple(x.shape))), x.dtype) for s, x in zip(in_specs, args)]
    avals += [ref(seen(_block_shape(s, a.shape)), a.dtype) for s, a in zip(out_specs, out_avals)]
    avals += [ref(s.shape, s.dtype) for s in run.scratch_shapes]

    def body(*refs: Any) -> list[Any]:
        with _running(None, run.grid):
            run.kernel(*refs)
        return []

    names = functools.partial(arg_names, run.kernel, avals, {})  # (errors: "for pallas_call kernel")
    return trace_to_jaxpr(body, avals, None, (run.kernel, "pallas_call kernel", names))


def _interpret(run: _Run, args, in_specs, out_avals, out_specs) -> list[Any]:
    from ... import lax
    from ...state import new_ref

    kernel, grid = run.kernel, run.grid
    prefetch_refs = [new_ref(x) for x in run.prefetched]
    scratch = [new_ref(scratch_value(s)) for s in run.scratch_shapes]
    in_blocks = [_block_shape(s, tuple(x.shape)) for s, x in zip(in_specs, args)]
    out_blocks = [_block_shape(s, a.shape) for s, a in zip(out_specs, out_avals)]
    ins = [_padded(x, b) for x, b in zip(args, in_blocks)]
    outs = [_padded(_uninitialized(a.shape, a.dtype), b) for a, b in zip(out_avals, out_blocks)]
    for ids in itertools.product(*(range(g) for g in grid)):
        mapped = (*(core.Array(np.int32(i)) for i in ids), *prefetch_refs)
        in_at = [_offsets(s, mapped, b, x.ndim) for s, b, x in zip(in_specs, in_blocks, ins)]
        out_at = [_offsets(s, mapped, b, o.ndim) for s, b, o in zip(out_specs, out_blocks, outs)]
        in_refs = [new_ref(_read(x, at, b)) for x, at, b in zip(ins, in_at, in_blocks)]
        out_refs = [new_ref(_read(o, at, b)) for o, at, b in zip(outs, out_at, out_blocks)]
        with _running(tuple(ids), grid):
            kernel(*prefetch_refs, *in_refs, *out_refs, *scratch)
        for k, (ref, at, b) in enumerate(zip(out_refs, out_at, out_blocks)):
            block = ref[...].reshape([_size(d) for d in b])
            outs[k] = lax.dynamic_update_slice(outs[k], block, at)
    return [
        o[tuple(slice(_low(b), _low(b) + d) for d, b in zip(a.shape, bs))]
        for o, a, bs in zip(outs, out_avals, out_blocks)
    ]


def _read(x: Any, at: Sequence[Any], blocks: Sequence[Any]) -> Any:
    from ... import lax

    block = lax.dynamic_slice(x, at, [_size(b) for b in blocks])
    squeezed = tuple(d for d, b in enumerate(blocks) if b is None)
    return lax.squeeze(block, squeezed) if squeezed else block


# ---------------------------------------------------------------------------------------------
# The compiled path, which a CPU refuses.

pallas_call_p = core.Primitive("pallas_call", multiple_results=True)


@pallas_call_p.def_impl
def _pallas_call_impl(*args: Any, out_avals: tuple, name: str) -> list:
    raise ValueError(_CPU_REFUSAL)


compile_refusals[pallas_call_p] = lambda: ValueError(_CPU_REFUSAL)  # (a mesh's program: when compiled)


pallas_call_p.def_abstract_eval(lambda *avals, out_avals, name: list(out_avals))


def _refuse_compiling(eqn: ir.JaxprEqn) -> None:
    raise ValueError(_CPU_REFUSAL)


ir.lowering_refusals[pallas_call_p] = _refuse_compiling


def _pallas_call_batch(axis_size: int, vals: Sequence[Any], dims: Sequence[Any], *, out_avals, name):
    """vmap adds the batch as a leading dimension of every operand and output, as JAX's batching of
    ``pallas_call`` does (there, as a new grid axis)."""
    vals = [batching.bdim_at_front(v, d, axis_size) for v, d in zip(vals, dims)]
    batched = tuple(core.ShapedArray((axis_size, *a.shape), a.dtype) for a in out_avals)
    return pallas_call_p.bind(*vals, out_avals=batched, name=name), [0] * len(batched)


batching.batch_rules[pallas_call_p] = _pallas_call_batch


from ...indexing import ds as ds, dslice as dslice  # noqa: E402
from .tpu_ops import run_scoped as run_scoped  # noqa: E402  (last: they build on this module)
from .tpu_ops import semaphore_signal as semaphore_signal, semaphore_wait as semaphore_wait  # noqa: E402
