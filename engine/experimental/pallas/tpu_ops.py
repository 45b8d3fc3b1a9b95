"""Pallas's TPU operations on refs: DMAs (``make_async_copy``, ``make_async_remote_copy``,
``async_copy``, ``sync_copy``), semaphores (``semaphore_signal``/``semaphore_wait``, the barrier
semaphore) and ``run_scoped`` allocations, with JAX's signatures.

JAX traces a kernel when ``pallas_call`` is called and refuses to compile it on a CPU only after, so a
kernel written for a TPU must trace: each operation stages an equation into the kernel's jaxpr
(``dma_start``, ``dma_wait``, ``semaphore_signal``, ``semaphore_wait``, ``get_barrier_semaphore``).
Run eagerly (interpret mode) on the one host device, a local copy copies when it starts and its
wait has nothing to wait for; a semaphore is an int32 ref that a signal adds to and a wait takes from
(a wait that would block forever raises, as nothing else runs). Copies and signals to another device
need the TPU's interconnect: NotImplementedError.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

from ... import core, ir
from ...backends.rows import INTERPRETER_ONLY
from ...state.primitives import _np_index
from ...state.types import AbstractRef, Indexer, Ref, TransformedRef
from ...tree_util import tree_flatten
from . import DeviceIdType, scratch_value


_SEMAPHORE = AbstractRef(core.ShapedArray((), np.dtype(np.int32)))
_REMOTE = "copies and semaphore signals to another device need a TPU's interconnect"

# An operand that is a ref or a view of one: how many flat operands it took (the ref, then the
# view's index arrays), and the view's static index (None: the whole ref).
Part = tuple[Indexer | None, int]


def _flatten(refs: Sequence[Any]) -> tuple[list[Any], tuple[Part, ...]]:
    flat: list[Any] = []
    parts: list[Part] = []
    for r in refs:
        if isinstance(r, TransformedRef):
            flat += [r.ref, *r.operands]
            parts.append((r.indexer, 1 + len(r.operands)))
        else:
            flat.append(r)
            parts.append((None, 1))
    return flat, tuple(parts)


def _unflatten(flat: Sequence[Any], parts: Sequence[Part]) -> list[tuple[Any, Any]]:
    """Each part as (ref, numpy index into its buffer): for the eager rules."""
    out, at = [], 0
    for indexer, n in parts:
        ref, ops = flat[at], flat[at + 1 : at + n]
        out.append((ref, _np_index(ref, indexer, ops)))
        at += n
    return out


def _device_leaves(device_id: Any) -> list[Any]:
    return [] if device_id is None else tree_flatten(device_id)[0]


# ---------------------------------------------------------------------------------------------
# Copies.

dma_start_p = core.Primitive("dma_start", multiple_results=True)
dma_wait_p = core.Primitive("dma_wait", multiple_results=True)
for _p in (dma_start_p, dma_wait_p):
    _p.def_abstract_eval(lambda *avals, parts, device_id_type, remote: [])


@dma_start_p.def_impl
def _dma_start_impl(*flat: Any, parts: tuple[Part, ...], device_id_type: Any, remote: bool) -> list:
    if remote:
        raise NotImplementedError(_REMOTE)
    (src, si), (dst, di) = _unflatten(flat, parts)[:2]
    dst._buf[di] = src._buf[si]  # (started and done: one device, nothing runs alongside)
    return []


dma_wait_p.def_impl(lambda *flat, parts, device_id_type, remote: [])


@dataclasses.dataclass(frozen=True)
class AsyncCopyDescriptor:
    """A copy from ``src_ref`` to ``dst_ref`` (refs or views ``ref.at[idx]``), signalling ``dst_sem``
    (and, when remote, ``src_sem`` on the sending side) as it completes."""

    src_ref: Any
    dst_ref: Any
    dst_sem: Any
    src_sem: Any = None
    device_id: Any = None
    device_id_type: DeviceIdType = DeviceIdType.MESH

    @property
    def is_remote(self) -> bool:
        return self.src_sem is not None

    def _bind(self, prim: core.Primitive, refs: Sequence[Any]) -> None:
        flat, parts = _flatten(refs)
        devices = _device_leaves(self.device_id)
        prim.bind(*flat, *devices, parts=parts, device_id_type=self.device_id_type, remote=self.is_remote)

    def start(self, priority: int = 0, *, add: bool = False) -> None:
        sems = [self.dst_sem] if self.src_sem is None else [self.dst_sem, self.src_sem]
        self._bind(dma_start_p, [self.src_ref, self.dst_ref, *sems])

    def wait(self) -> None:
        if self.is_remote:
            self.wait_send()
        self.wait_recv()

    def wait_recv(self) -> None:
        self._bind(dma_wait_p, [self.dst_ref, self.dst_sem])

    def wait_send(self) -> None:
        if not self.is_remote:
            raise ValueError("Cannot `wait_send` on a local copy.")
        self._bind(dma_wait_p, [self.src_ref, self.src_sem])


def make_async_copy(src_ref: Any, dst_ref: Any, sem: Any) -> AsyncCopyDescriptor:
    """A local copy, started with ``.start()`` and awaited with ``.wait()``."""
    return AsyncCopyDescriptor(src_ref, dst_ref, sem)


def async_copy(
    src_ref: Any, dst_ref: Any, sem: Any, *, priority: int = 0, add: bool = False
) -> AsyncCopyDescriptor:
    """``make_async_copy`` started: the caller waits on the descriptor it returns."""
    copy = make_async_copy(src_ref, dst_ref, sem)
    copy.start(priority, add=add)
    return copy


def make_async_remote_copy(
    src_ref: Any,
    dst_ref: Any,
    send_sem: Any,
    recv_sem: Any,
    device_id: Any,
    device_id_type: DeviceIdType = DeviceIdType.MESH,
) -> AsyncCopyDescriptor:
    """A copy from this device's ``src_ref`` to ``dst_ref`` on device ``device_id``."""
    return AsyncCopyDescriptor(src_ref, dst_ref, recv_sem, send_sem, device_id, device_id_type)


def sync_copy(src_ref: Any, dst_ref: Any, *, add: bool = False) -> None:
    """A local copy done before it returns: started and awaited on a scoped DMA semaphore (JAX's way)."""
    run_scoped(lambda sem: async_copy(src_ref, dst_ref, sem, add=add).wait(), _DMA_SEMAPHORE)


# ---------------------------------------------------------------------------------------------
# Semaphores.

semaphore_signal_p = core.Primitive("semaphore_signal", multiple_results=True)
semaphore_wait_p = core.Primitive("semaphore_wait", multiple_results=True)
semaphore_signal_p.def_abstract_eval(lambda *avals, parts, device_id_type, has_core: [])
semaphore_wait_p.def_abstract_eval(lambda *avals, parts, decrement: [])


@semaphore_signal_p.def_impl
def _signal_impl(*flat: Any, parts: tuple[Part, ...], device_id_type: Any, has_core: bool) -> list:
    n = sum(k for _, k in parts)
    if len(flat) > n + 1 + has_core:
        raise NotImplementedError(_REMOTE)
    (sem, idx), inc = _unflatten(flat, parts)[0], flat[n]
    sem._buf[idx] += np.int32(core.to_numpy(inc))
    return []


@semaphore_wait_p.def_impl
def _wait_impl(*flat: Any, parts: tuple[Part, ...], decrement: bool) -> list:
    (sem, idx), value = _unflatten(flat, parts)[0], int(core.to_numpy(flat[-1]))
    if np.any(sem._buf[idx] < value):
        raise RuntimeError("semaphore_wait would wait forever: no other kernel runs to signal it")
    if decrement:
        sem._buf[idx] -= np.int32(value)
    return []


def semaphore_signal(
    sem_or_view: Any,
    inc: Any = 1,
    *,
    device_id: Any = None,
    device_id_type: DeviceIdType = DeviceIdType.MESH,
    core_index: Any = None,
) -> None:
    """Add ``inc`` to a semaphore (on device ``device_id`` when given)."""
    flat, parts = _flatten([sem_or_view])
    extra = [inc, *([] if core_index is None else [core_index]), *_device_leaves(device_id)]
    semaphore_signal_p.bind(
        *flat, *extra, parts=parts, device_id_type=device_id_type, has_core=core_index is not None
    )


def semaphore_wait(sem_or_view: Any, value: Any = 1, *, decrement: bool = True) -> None:
    """Wait until a semaphore holds ``value``, then (by default) take it away."""
    flat, parts = _flatten([sem_or_view])
    semaphore_wait_p.bind(*flat, value, parts=parts, decrement=decrement)


get_barrier_semaphore_p = core.Primitive("get_barrier_semaphore")
get_barrier_semaphore_p.def_abstract_eval(lambda: _SEMAPHORE)
get_barrier_semaphore_p.def_impl(lambda: Ref(core.Array(np.int32(0)), _SEMAPHORE.inner_aval))


def get_barrier_semaphore() -> Any:
    """The semaphore kernels of one collective (``CompilerParams(collective_id=...)``) synchronize on."""
    return get_barrier_semaphore_p.bind()


# ---------------------------------------------------------------------------------------------
# Scoped allocations.


@dataclasses.dataclass(frozen=True)
class _Semaphores:
    shape: tuple[int, ...]
    dtype: Any = np.int32
    is_semaphore = True


_DMA_SEMAPHORE = _Semaphores(())


def run_scoped(f: Callable[..., Any], *types: Any, collective_axes: Any = (), **kw_types: Any) -> Any:
    """``f`` called with a new ref for each type (``pltpu.VMEM((8, 128), jnp.float32)``, a
    ``SemaphoreType``, ...), positional and by keyword; its result is returned. The refs start
    uninitialized (NaN for floats, as a kernel's scratch does); semaphores start at zero."""
    from ...state import new_ref

    def alloc(t: Any) -> Any:
        return new_ref(scratch_value(t))

    return f(*map(alloc, types), **{k: alloc(t) for k, t in kw_types.items()})


# They read and write refs' buffers: a jitted program holding them (a kernel in interpret mode) is not
# discharged into a pure one but runs on the interpreter, which hands them the refs.
for _p in (dma_start_p, dma_wait_p, semaphore_signal_p, semaphore_wait_p, get_barrier_semaphore_p):
    INTERPRETER_ONLY[_p.name] = "Pallas TPU operations on refs' buffers (a kernel in interpret mode)"
    ir.ref_effects.add(_p)
    ir.effectful.add(_p)  # (no outputs: kept for what they do)
