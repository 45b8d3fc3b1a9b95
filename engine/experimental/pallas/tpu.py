"""``jax.experimental.pallas.tpu``: TPU memory spaces and compiler parameters. A CPU runs kernels in
interpret mode only (where every space is host memory) and has no TPU to describe:
``get_tpu_info()`` raises as JAX's does on a CPU."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any


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
