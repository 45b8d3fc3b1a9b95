"""Shared memory between the host and the device processes.

An ``Arena`` is a file in ``/dev/shm`` that is unlinked the moment it is opened: processes forked
afterwards inherit the descriptor and map the same pages, and nothing is left behind by any kind
of exit (the pages go away with the last descriptor). It grows with ``ftruncate``; each process
remaps when told the new size. The host owns allocation (``Allocator``); devices only read and
write at offsets they are given.
"""

from __future__ import annotations

import bisect
import math
import mmap
import os
import tempfile
import weakref

import numpy as np

ALIGN = 64


def _open_unlinked() -> int:
    root = (
        "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    )
    for _ in range(100):
        path = os.path.join(root, f"engine-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        os.unlink(path)
        return fd
    raise OSError("could not create a shared-memory file")


class Arena:
    """A growable shared mapping; ``view(offset, shape, dtype)`` is a numpy array on it."""

    def __init__(self, size: int = 1 << 20, fd: int | None = None):
        self.fd = _open_unlinked() if fd is None else fd
        self.size = 0
        self.mm = None
        self.addr = 0
        if fd is None:
            os.ftruncate(self.fd, size)
        self._closer = weakref.finalize(self, _close_fd, self.fd)
        self.remap(size)

    def remap(self, size: int) -> None:
        """Map at least ``size`` bytes (the file already has them)."""
        if size > self.size:
            # Old maps stay alive while numpy views use them; the file only grows.
            self.mm = mmap.mmap(self.fd, size)
            self.size = size
            self.addr = np.frombuffer(self.mm, np.uint8, 1).ctypes.data  # where the map starts

    def grow(self, size: int) -> None:
        if size > self.size:
            size = max(size, self.size * 2)
            size = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE * mmap.PAGESIZE
            os.ftruncate(self.fd, size)
            self.remap(size)

    def view(self, offset: int, shape, dtype) -> np.ndarray:
        count = math.prod(shape)
        if count == 0:
            return np.zeros(shape, dtype)
        return np.frombuffer(self.mm, dtype, count, offset).reshape(shape)

    def close(self) -> None:
        self._closer()


def _close_fd(fd):
    try:
        os.close(fd)
    except OSError:
        pass


SMALL = 4096  # blocks up to this size are recycled by size, without coalescing
SMALL_KEEP = 64  # ... at most this many of each size


class Allocator:
    """First-fit allocation of ``ALIGN``-aligned blocks in an arena, growing it when full. Small
    blocks freed are kept by size and handed out again first (a warm call allocates and frees the
    same small blocks every time)."""

    def __init__(self, arena: Arena):
        self.arena = arena
        self.free_starts: list[int] = [0]
        self.free_sizes: dict[int, int] = {0: arena.size}
        self.used: dict[int, int] = {}
        self.recycled: dict[int, list[int]] = {}

    def alloc(self, nbytes: int) -> int:
        n = max(ALIGN, (int(nbytes) + ALIGN - 1) // ALIGN * ALIGN)
        if n <= SMALL:
            spare = self.recycled.get(n)
            if spare:
                start = spare.pop()
                self.used[start] = n
                return start
        for start in self.free_starts:
            size = self.free_sizes[start]
            if size >= n:
                self._take(start, size, n)
                return start
        # Grow: the new tail joins the last free block if that one ends at the old end.
        old = self.arena.size
        tail = (
            self.free_starts[-1]
            if self.free_starts and self.free_starts[-1] + self.free_sizes[self.free_starts[-1]] == old
            else None
        )
        need = n - (old - tail if tail is not None else 0)
        self.arena.grow(old + need)
        added = self.arena.size - old
        if tail is None:
            self._insert(old, added)
            tail = old
        else:
            self.free_sizes[tail] += added
        self._take(tail, self.free_sizes[tail], n)
        return tail

    def _take(self, start, size, n):
        i = bisect.bisect_left(self.free_starts, start)
        del self.free_starts[i]
        del self.free_sizes[start]
        if size > n:
            self._insert(start + n, size - n)
        self.used[start] = n

    def _insert(self, start, size):
        bisect.insort(self.free_starts, start)
        self.free_sizes[start] = size

    def free(self, start: int) -> None:
        n = self.used.pop(start, None)
        if n is None:
            return
        if n <= SMALL:
            spare = self.recycled.setdefault(n, [])
            if len(spare) < SMALL_KEEP:
                spare.append(start)
                return
        i = bisect.bisect_left(self.free_starts, start)
        # Coalesce with the next and the previous free block.
        if i < len(self.free_starts) and self.free_starts[i] == start + n:
            nxt = self.free_starts.pop(i)
            n += self.free_sizes.pop(nxt)
        if i > 0:
            prev = self.free_starts[i - 1]
            if prev + self.free_sizes[prev] == start:
                self.free_sizes[prev] += n
                return
        self._insert(start, n)

    @property
    def bytes_in_use(self) -> int:
        return sum(self.used.values())
