"""XLA's CPU floating-point mode around what the engine computes: denormals are zero and flush to zero.

XLA's CPU client runs every computation (JAX's eager operations included: each is a small compiled
program) with the x86 MXCSR bits DAZ (a subnormal operand reads as a zero of its sign) and FTZ (a
subnormal result is written as a zero of its sign) set, in the calling thread and in its worker
threads, for float32 and float64 alike. So in JAX ``jnp.float32(2e-38) * 0.25`` is 0, ``x > 0`` is
False for ``x = 1e-39``, ``inf * 1e-40`` is NaN and ``0 / 1e-40`` too; operations that only move
bits (``abs``, ``neg``, ``select``, copies) keep subnormals, as the hardware's logical operations do.
XLA's compiler folds constants without the mode (its HloEvaluator): a folded subnormal is kept.

The engine sets the same bits while a jitted program runs, so numpy's loops and numba's kernels
behave as XLA's instructions do, rather than emulating the mode after every operation: compiled and
interpreted programs and the kernel pool's threads run with it, and constant folding explicitly
without it. Eager operations do not (they keep subnormals, unlike JAX's): two calls around each cost
~1.5 us, twice an eager ``x + y``. The user's own numpy code runs in the mode the thread had (IEEE
gradual underflow, numpy's).

The MXCSR is read and written by a two-instruction function compiled once with llvmlite (numba's
code generator, about 0.25 s to import on the first use). Elsewhere (no llvmlite, not x86-64) the
functions below do nothing and subnormals are kept, as before.

>>> old = enter()
>>> import numpy as np
>>> float(np.float32(2e-38) * np.float32(0.25)) == 0.0 or _on is None
True
>>> leave(old)
>>> float(np.float32(2e-38) * np.float32(0.25)) > 0
True
"""

from __future__ import annotations

import ctypes
import platform
import threading
from typing import Callable

FLAGS = 0x8040  # MXCSR bit 15 (FTZ) and bit 6 (DAZ)

# The compiled functions once loaded (None where there are none): _on() sets the flags and returns
# the old MXCSR, _off() clears them and returns it, _restore(old) puts it back.
# (Argument-free ctypes calls: about 0.35 us each, half what a call converting two ints costs.)
_loaded = False
_on: Callable[[], int] | None = None
_off: Callable[[], int] | None = None
_restore: Callable[[int], None] | None = None

_IR = r"""
declare void @llvm.x86.sse.stmxcsr(i8*)
declare void @llvm.x86.sse.ldmxcsr(i8*)
define i32 @update(i32 %or_bits, i32 %and_bits) alwaysinline {
  %slot = alloca i32
  %p = bitcast i32* %slot to i8*
  call void @llvm.x86.sse.stmxcsr(i8* %p)
  %old = load i32, i32* %slot
  %kept = and i32 %old, %and_bits
  %new = or i32 %kept, %or_bits
  store i32 %new, i32* %slot
  call void @llvm.x86.sse.ldmxcsr(i8* %p)
  ret i32 %old
}
define i32 @flags_on() {
  %old = call i32 @update(i32 32832, i32 -1)
  ret i32 %old
}
define i32 @flags_off() {
  %old = call i32 @update(i32 0, i32 -32833)
  ret i32 %old
}
define void @flags_restore(i32 %old) {
  %ignored = call i32 @update(i32 %old, i32 0)
  ret void
}
"""
_keep = []  # the execution engine owning the functions' code (alive as long as the process)


def _load() -> bool:
    global _on, _off, _restore, _loaded
    _loaded = True
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        import llvmlite.binding as llvm
    except ImportError:
        return False
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(_IR)
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    _keep.append(engine)
    address = engine.get_function_address
    _on = ctypes.CFUNCTYPE(ctypes.c_int)(address("flags_on"))
    _off = ctypes.CFUNCTYPE(ctypes.c_int)(address("flags_off"))
    _restore = ctypes.CFUNCTYPE(None, ctypes.c_int)(address("flags_restore"))
    return True


class _Folding(threading.local):
    depth = 0  # constant folding under way in this thread: operations it evaluates stay plain


_folding = _Folding()


def enter() -> int:
    """Set DAZ and FTZ in this thread (unless it is folding constants); returns what ``leave``
    restores."""
    if not _loaded:
        _load()
    if _on is None or _folding.depth:
        return -1
    return _on()


def leave(old: int) -> None:
    """Restore the mode ``enter`` found."""
    if old >= 0 and _restore is not None:
        _restore(old)


def enter_plain() -> int:
    """Clear DAZ and FTZ in this thread until ``leave_plain`` (XLA's constant folding)."""
    if not _loaded:
        _load()
    _folding.depth += 1
    return _off() if _off is not None else -1


def leave_plain(old: int) -> None:
    _folding.depth -= 1
    leave(old)


def call(fn: Callable, args, params=None):
    """``fn(*args, **params)`` in XLA's mode (see ``enter``)."""
    old = enter()
    try:
        return fn(*args, **params) if params else fn(*args)
    finally:
        if old >= 0 and _restore is not None:
            _restore(old)


def call_evaluated(fn: Callable, *args):
    """``fn(*args)`` with DAZ and FTZ set even while folding constants: what XLA's HloEvaluator
    computes with the host's floating-point operations (measured: ``jnp.fmod`` of folded
    constants reads a subnormal divisor as zero, as the kernels do)."""
    if not _loaded:
        _load()
    old = _on() if _on is not None else -1
    try:
        return fn(*args)
    finally:
        leave(old)


def set_for_thread() -> None:
    """Set the mode for good in a thread that only runs the engine's kernels (a pool's initializer)."""
    enter()
