"""The supervisor's reader of a run's result pipe: progress frames, then the report's frame.

The run writes ``engine.inspect.progress`` frames (kind byte, 4-byte length, payload): ``P`` for what
it finished so far, ``R`` once for its report. All of it comes from user code's process, so nothing
here trusts it: progress is kept up to ``progress_bytes`` (frames past that, or longer than what is
left, are read and dropped), the report up to ``report_bytes`` (past that the run is over its
limit), and a byte sequence that is not a frame ends the parsing (what follows is only counted).
Payloads are validated later, against the report's models, by the zygote.
"""

from __future__ import annotations

import struct
from typing import Optional

HEADER = struct.Struct(">cI")  # as engine.inspect.progress.HEADER (the zygote must not import it early)
PROGRESS, REPORT = b"P", b"R"


class ResultFrames:
    def __init__(self, report_bytes: int, progress_bytes: int):
        self.report_bytes, self.progress_left = report_bytes, progress_bytes
        self.progress: list[bytes] = []
        self.report: Optional[bytes] = None  # the report frame's payload, once complete
        self.received = 0  # bytes other than kept or dropped progress: the report's, or garbage
        self.broken = False  # not a frame: nothing after it is parsed
        self._buffer = bytearray()
        self._skip = 0  # bytes of a dropped progress frame still to come

    @property
    def started(self) -> bool:
        """Whether any report bytes (or garbage) came: the run reached its report's send."""
        return self.received > 0

    def over(self) -> bool:
        return self.received > self.report_bytes

    def feed(self, chunk: bytes) -> None:
        if self._skip:
            n = min(self._skip, len(chunk))
            self._skip -= n
            chunk = chunk[n:]
        if not chunk:
            return
        if self.broken or self.report is not None:
            self.received += len(chunk)  # nothing may follow the report
            self.broken = True
            return
        self._buffer += chunk
        while not self.broken and self.report is None and len(self._buffer) >= HEADER.size:
            kind, length = HEADER.unpack_from(self._buffer)
            if kind == PROGRESS and length > self.progress_left:
                self.progress_left = 0  # (a cut stream of deltas would mislead: stop keeping them)
                have = len(self._buffer) - HEADER.size
                self._skip = max(0, length - have)
                del self._buffer[: HEADER.size + min(length, have)]
                continue
            if kind == REPORT and length > self.report_bytes:
                self.received = self.report_bytes + 1  # over the limit already, whatever follows
                self.broken = True
                break
            if kind not in (PROGRESS, REPORT):
                self.broken = True
                self.received += len(self._buffer)
                break
            if kind == REPORT:
                self.received = max(self.received, len(self._buffer))
            if len(self._buffer) < HEADER.size + length:
                return
            payload = bytes(self._buffer[HEADER.size : HEADER.size + length])
            del self._buffer[: HEADER.size + length]
            if kind == PROGRESS:
                self.progress_left -= HEADER.size + length
                self.progress.append(payload)
            else:
                self.report = payload
        if self.broken or self.report is not None:
            self.received += len(self._buffer)
            if self.report is not None and self._buffer:
                self.broken = True  # bytes after the report: not a report to trust
            self._buffer.clear()
