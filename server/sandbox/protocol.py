"""Framing on the server <-> zygote pipes: a 4-byte big-endian length, then that many bytes.

The first message to a zygote is its ``ZygoteConfig`` as JSON; then come run requests.
"""

from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, Optional, TypedDict

if TYPE_CHECKING:
    import asyncio  # the zygote never loads it

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


async def read_message_async(reader: asyncio.StreamReader) -> bytes:
    """Async counterpart for the server side (an ``asyncio.StreamReader``); raises at end of stream."""
    header = await reader.readexactly(HEADER.size)
    (length,) = HEADER.unpack(header)
    if length > MAX_MESSAGE:
        raise ValueError(f"message of {length} bytes")
    return await reader.readexactly(length)


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


class ZygoteConfig(TypedDict):
    """What ``pool.zygote_config`` tells a zygote (the settings it needs, and where it stands)."""

    slot: int
    server_pid: int
    project_root: str
    isolation: str  # "auto", "root", "uid" or "unsafe-single-user"
    slot_uid_base: int
    runner: str  # "module:function"
    preload: list[str]
    hidden_paths: list[str]
    sandbox_tmp: str
    wall_seconds: float
    cpu_seconds: int
    memory_bytes: int
    output_bytes: int
    report_bytes: int
    file_bytes: int
    open_files: int
    process_limit: int
    tmp_bytes: int
    nice: int
    env: dict[str, str]
    device_count: int
    warm_examples: bool
    kernel_cache_dir: str
    kernel_service: bool
