"""Framing on the server <-> zygote pipes: a 4-byte big-endian length, then that many bytes."""

from __future__ import annotations

import os
import struct
from typing import Optional

HEADER = struct.Struct(">I")
MAX_MESSAGE = 1 << 30


def write_message(fd: int, payload: bytes) -> None:
    data = memoryview(HEADER.pack(len(payload)) + payload)
    while data:
        data = data[os.write(fd, data) :]


def _read_exactly(fd: int, n: int) -> Optional[bytes]:
    chunks, need = [], n
    while need:
        chunk = os.read(fd, min(need, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        need -= len(chunk)
    return b"".join(chunks)


def read_message(fd: int) -> Optional[bytes]:
    """The next message, or None at end of stream."""
    header = _read_exactly(fd, HEADER.size)
    if header is None:
        return None
    (length,) = HEADER.unpack(header)
    if length > MAX_MESSAGE:
        raise ValueError(f"message of {length} bytes")
    return _read_exactly(fd, length) if length else b""


async def read_message_async(reader) -> bytes:
    """Async counterpart for the server side (an ``asyncio.StreamReader``); raises at end of stream."""
    header = await reader.readexactly(HEADER.size)
    (length,) = HEADER.unpack(header)
    if length > MAX_MESSAGE:
        raise ValueError(f"message of {length} bytes")
    return await reader.readexactly(length)


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload
