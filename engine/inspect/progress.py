"""What a run has finished so far, streamed while it goes on, so that a run killed at a limit (or
crashing) still shows the calls, prints and timings it completed.

The playground's sandbox names a descriptor in ``ENGINE_PROGRESS_FD`` (``fd:pid``); the runner
writes ``RunProgress`` deltas there as frames: a kind byte (``P`` for progress; the sandbox ends
the stream with its ``R`` frame, the whole report), a 4-byte big-endian length, then that many
bytes of JSON. A frame is sent when a recorded call starts (with its label and line) and when it
ends (with its whole record), and for printed lines (``PRINT_BURST``, ``PRINT_EVERY``). The stream
stops at ``PROGRESS_BYTES``. The reader trusts none of it: it bounds the sizes and validates every
frame with the ``RunProgress`` model.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import time
from typing import TYPE_CHECKING, Optional

from .schema import RunProgress

if TYPE_CHECKING:
    from .record import Recorder

PROGRESS_FD_ENV = "ENGINE_PROGRESS_FD"
HEADER = struct.Struct(">cI")
PROGRESS, REPORT = b"P", b"R"
PROGRESS_BYTES = 8 << 20  # the most a run streams (the report itself is bounded on its own)
# Frames for printed lines: each line goes at once while the run prints now and then; a run printing
# in a tight loop gets one frame per millisecond once it has spent a burst of them (a line printed
# in the last millisecond before a crash may then be lost).
PRINT_BURST, PRINT_EVERY = 32, 0.001
ATOMIC = 4096  # PIPE_BUF: a write this small reaches the pipe whole or not at all
_INTERRUPTS = {signal.SIGINT, signal.SIGUSR1, signal.SIGXCPU}


def frame(kind: bytes, payload: bytes) -> bytes:
    return HEADER.pack(kind, len(payload)) + payload


def write_frame(fd: int, data: bytes) -> None:
    """Write a whole frame. One that does not fit a single atomic pipe write is written with the
    sandbox's interrupts blocked: a limit's signal arriving half-way would leave a cut frame that
    hides every later one, the final report included."""
    if len(data) <= ATOMIC:
        os.write(fd, data)
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _INTERRUPTS)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def progress_fd() -> Optional[int]:
    """The descriptor to stream to: ``ENGINE_PROGRESS_FD`` is ``fd:pid``, and only that process's
    (a program the run starts inherits the variable, not the pipe)."""
    fd, _, pid = os.environ.get(PROGRESS_FD_ENV, "").partition(":")
    return int(fd) if fd.isdigit() and pid == str(os.getpid()) else None


class ProgressStream:
    """Sends what the recorder and the output captures gained since the last frame."""

    def __init__(self, fd: int, rec: Recorder, out, err):
        self.fd, self.rec, self.out, self.err = fd, rec, out, err
        self.pid = os.getpid()  # device processes forked by pmap inherit the captures: never them
        self.left = PROGRESS_BYTES
        self.calls = self.timings = self.prints = 0
        self.out_at = self.err_at = 0  # parts of each capture already sent
        self.tokens, self.refilled = float(PRINT_BURST), 0.0

    def _text(self, capture, at: int) -> tuple[str, int]:
        parts = capture.parts
        return "".join(parts[at:]), len(parts)

    def printed(self) -> None:
        """A line was printed: sent now while the burst allows (else it goes with the next frame)."""
        now = time.perf_counter()
        self.tokens = min(PRINT_BURST, self.tokens + (now - self.refilled) / PRINT_EVERY)
        self.refilled = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.send()

    def send(self) -> None:
        """A frame with everything new, and the call running now (the recorder's current one)."""
        if self.left <= 0 or os.getpid() != self.pid:
            return
        rec = self.rec
        done = len(rec.calls) - (1 if rec.current is not None else 0)  # (the running one is not done)
        running = rec.calls[done].model_dump_json() if rec.current is not None else "null"
        stdout, out_at = self._text(self.out, self.out_at)
        stderr, err_at = self._text(self.err, self.err_at)
        # (assembled from pydantic's own JSON: several times faster than dumping dicts)
        parts = (
            '{"calls":[', ",".join(c.model_dump_json() for c in rec.calls[self.calls : done]),
            '],"running":', running,
            ',"timings":[', ",".join(t.model_dump_json() for t in rec.timings[self.timings :]),
            '],"prints":[', ",".join(p.model_dump_json() for p in rec.prints[self.prints :]),
            '],"stdout":', json.dumps(stdout), ',"stderr":', json.dumps(stderr), "}",
        )  # fmt: skip
        data = frame(PROGRESS, "".join(parts).encode("utf-8", "replace"))
        if len(data) > self.left:
            self.left = 0  # nothing more: a frame cut short would say less than none
            return
        self.left -= len(data)
        write_frame(self.fd, data)
        self.calls, self.timings, self.prints = done, len(rec.timings), len(rec.prints)
        self.out_at, self.err_at = out_at, err_at


def merge(frames: list[bytes]) -> RunProgress:
    """The frames' deltas as one ``RunProgress``, up to the first that is not valid (``running``
    is the last frame's: the call that was under way when the stream ended, if any)."""
    total = RunProgress()
    for data in frames:
        try:
            delta = RunProgress.model_validate_json(data)
        except ValueError:
            break
        total.calls += delta.calls
        total.timings += delta.timings
        total.prints += delta.prints
        total.stdout += delta.stdout
        total.stderr += delta.stderr
        total.running = delta.running
    return total
