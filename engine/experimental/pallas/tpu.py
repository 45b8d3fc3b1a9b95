"""``jax.experimental.pallas.tpu``: TPU memory spaces and compiler parameters. A CPU runs kernels in
interpret mode only (where every space is host memory) and has no TPU to describe:
``get_tpu_info()`` raises as JAX's does on a CPU."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable


class MemorySpace(enum.Enum):
    ANY = "any"
    VMEM = "vmem"
    SMEM = "smem"
    CMEM = "cmem"
    SEMAPHORE = "semaphore_mem"
    HBM = "hbm"
    HOST = "host"

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"

    def __call__(self, shape: tuple[int, ...], dtype: Any) -> "Allocation":
        """A scratch buffer of ``shape`` and ``dtype`` in this memory space (``scratch_shapes``)."""
        return Allocation(tuple(shape), dtype, self)


@dataclasses.dataclass(frozen=True)
class Allocation:
    shape: tuple[int, ...]
    dtype: Any
    memory_space: MemorySpace


class SemaphoreType(enum.Enum):
    """Semaphores a TPU kernel signals and waits on (DMA completion, or counts of its own); in
    scratch shapes, one (``SemaphoreType.DMA``) or an array of them (``SemaphoreType.DMA((n,))``)."""

    REGULAR = "regular"
    DMA = "dma"
    BARRIER = "barrier"

    def __call__(self, shape: tuple[int, ...]) -> Allocation:
        return Allocation(tuple(shape), "int32", MemorySpace.SEMAPHORE)

    is_semaphore = True

    @property
    def shape(self) -> tuple[int, ...]:
        return ()

    @property
    def dtype(self) -> str:
        return "int32"


@dataclasses.dataclass(frozen=True)
class CompilerParams:
    """Mosaic's compilation options (accepted; interpret mode has nothing to tune)."""

    dimension_semantics: Any = None
    allow_input_fusion: Any = None
    vmem_limit_bytes: int | None = None
    collective_id: int | None = None
    flags: Any = None
    serialization_format: int = 1
    internal_scratch_in_bytes: int | None = None
    disable_bounds_checks: bool = False
    has_side_effects: bool = False


@dataclasses.dataclass(frozen=True)
class PrefetchScalarGridSpec:
    """A grid spec whose first ``num_scalar_prefetch`` operands are read whole before the grid runs
    (into SMEM on a TPU) and handed to the kernel and to every ``index_map``."""

    num_scalar_prefetch: int
    grid: Any = ()
    in_specs: Any = None
    out_specs: Any = None
    scratch_shapes: Any = ()


ANY = MemorySpace.ANY
VMEM = MemorySpace.VMEM
SMEM = MemorySpace.SMEM
HBM = MemorySpace.HBM
SEMAPHORE = MemorySpace.SEMAPHORE


def get_tpu_info() -> Any:
    """The TPU's chip version and cores; on a CPU there is none (JAX's error)."""
    raise ValueError("Unsupported TPU device kind: cpu")


def emit_pipeline(
    body: Callable[..., None], *, grid: Any, in_specs: Any = (), out_specs: Any = (), **options: Any
):
    """A pipeline of ``body`` over ``grid``, copying blocks between HBM and VMEM. The copies' slices
    are cut to the TPU's tiles, which JAX infers from the chip's generation (``get_tpu_info``): on a
    CPU calling the pipeline raises as ``get_tpu_info()`` does."""

    def pipeline(*refs: Any, **kwargs: Any) -> None:
        if any(getattr(r, "shape", ()) for r in refs):  # (a rank-0 block has no tiles)
            get_tpu_info()
        raise NotImplementedError("emit_pipeline over blocks of rank 0 only")

    return pipeline


from .tpu_ops import (  # noqa: E402,F401  (JAX's pltpu names for them)
    async_copy,
    get_barrier_semaphore,
    make_async_copy,
    make_async_remote_copy,
    semaphore_signal,
    semaphore_wait,
    sync_copy,
)
