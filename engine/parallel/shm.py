"""Shared memory between the host and the device processes.

An ``Arena`` is a file in ``/dev/shm`` that is unlinked the moment it is opened: processes forked
afterwards inherit the descriptor and map the same pages, and nothing is left behind by any kind
of exit (the pages go away with the last descriptor). It grows with ``ftruncate``; each process
remaps when told the new size. The host owns allocation (``Allocator``); devices only read and
write at offsets they are given.
"""

from __future__ import annotations

import bisect
import errno
import math
import mmap
import os
import resource
import tempfile
import weakref

import numpy as np

ALIGN = 64
MiB = 1 << 20


class DeviceMemoryError(OSError):
    """A device's memory (its shared-memory file) could not be created or grown. An OSError, as
    the failing call's; the message says what was asked for and which limit refused it, where
    a bare errno ("[Errno 27] File too large") would leave the user guessing."""


def _file_size_limit() -> int | None:
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def _refused(action: str, size: int | None, e: OSError) -> DeviceMemoryError:
    what = f"{action} to {size / MiB:.1f} MiB" if size is not None else action
    limit = _file_size_limit()
    if e.errno == errno.EFBIG and limit is not None:
        why = (
            f"this process may not make a file larger than {limit / MiB:.0f} MiB (its file size limit, "
            "RLIMIT_FSIZE), and each simulated device keeps all its arrays in one shared-memory file. "
            "Use smaller arrays per device (fewer or smaller shards), free arrays no longer needed, "
            "or raise the limit"
        )
    else:
        why = e.strerror or str(e)
    err = DeviceMemoryError(f"could not {what}: {why}")
    err.errno = e.errno  # (without strerror: str() would then be "[Errno 27] File too large")
    return err


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
        except OSError as e:
            raise _refused(f"create a device's shared memory in {root}", None, e) from e
        os.unlink(path)
        return fd
    raise DeviceMemoryError(f"could not create a device's shared memory in {root}: no free name")


class Arena:
    """A growable shared mapping; ``view(offset, shape, dtype)`` is a numpy array on it."""

    def __init__(self, size: int = 1 << 20, fd: int | None = None):
        self.fd = _open_unlinked() if fd is None else fd
        self.size = 0
        self.mm = None
        self.addr = 0
        if fd is None:
            self._truncate(size)
        # Only the process that opened the descriptor closes it: in a fork the number may have been
        # closed already (a sandbox closes what it does not hand over) and reused by another file.
        self._closer = weakref.finalize(self, _close_fd, self.fd, os.getpid())
        self.remap(size)

    def remap(self, size: int) -> None:
        """Map at least ``size`` bytes (the file already has them)."""
        if size > self.size:
            # Old maps stay alive while numpy views use them; the file only grows.
            try:
                self.mm = mmap.mmap(self.fd, size)
            except OSError as e:
                raise _refused("map a device's memory", size, e) from e
            self.size = size
            self.addr = np.frombuffer(self.mm, np.uint8, 1).ctypes.data  # where the map starts

    def grow(self, size: int) -> None:
        if size > self.size:
            page = mmap.PAGESIZE
            need = (size + page - 1) // page * page
            size = max(need, self.size * 2)
            # Doubling must not ask for more than a file may hold when what is needed would fit
            # (a sandboxed run's RLIMIT_FSIZE: 48 MiB needed of a 40 MiB arena fits in 64 MiB).
            limit = _file_size_limit()
            if limit is not None and need <= limit < size:
                size = max(need, limit // page * page)
            self._truncate(size)
            self.remap(size)

    def _truncate(self, size: int) -> None:
        try:
            os.ftruncate(self.fd, size)
        except OSError as e:
            raise _refused("grow a device's memory", size, e) from e

    def view(self, offset: int, shape, dtype) -> np.ndarray:
        count = math.prod(shape)
        if count == 0:
            return np.zeros(shape, dtype)
        return np.frombuffer(self.mm, dtype, count, offset).reshape(shape)

    def close(self) -> None:
        self._closer()


def _close_fd(fd, owner):
    if os.getpid() != owner:
        return
    try:
        os.close(fd)
    except OSError:
        pass


SMALL = 4096  # blocks up to this size are recycled by size, without coalescing
SMALL_KEEP = 64  # ... at most this many of each size


class Allocator:
    """First-fit allocation of ``ALIGN``-aligned blocks in an arena, growing it when full. Small
    blocks freed are kept by size and handed out again first (a warm call allocates and frees the
    same small blocks every time).

    A block can belong to an object (``own``): it is freed once the object is collected. The
    collector only queues it, through a weak reference whose callback is C code (``list.append``),
    and the next ``alloc`` frees it. A ``__del__`` would run Python code wherever the collector
    happens to run, and a Ctrl-C landing in it is printed and dropped ("Exception ignored in"):
    a program looping on pmap would then not stop."""

    def __init__(self, arena: Arena):
        self.arena = arena
        self.free_starts: list[int] = [0]
        self.free_sizes: dict[int, int] = {0: arena.size}
        self.used: dict[int, int] = {}
        self.recycled: dict[int, list[int]] = {}
        self.owners: dict[weakref.ref, int] = {}  # an owner's weak reference -> its block
        self.collected: list[weakref.ref] = []  # references whose owners are gone

    def own(self, owner, start: int) -> None:
        """Free block ``start`` once ``owner`` is collected."""
        self.owners[weakref.ref(owner, self.collected.append)] = start

    def reclaim(self) -> None:
        """Free the blocks of owners collected since the last call."""
        collected, owners = self.collected, self.owners
        while collected:
            self.free(owners.pop(collected.pop()))

    def alloc(self, nbytes: int) -> int:
        if self.collected:
            self.reclaim()
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
        self.reclaim()
        return sum(self.used.values())
