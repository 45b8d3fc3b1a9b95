"""A run stopped by a limit, or crashing, still shows what it finished: the calls it completed (with
their IR stages and timings), what it printed, and where it was when it was stopped.

The run streams progress frames to the sandbox (``engine.inspect.progress``) ahead of its report;
the supervisor keeps them under a size cap without trusting them (``server.sandbox.result_frames``)
and the zygote validates them with the report's models. The unit tests feed the reader hostile
streams; the API tests stop real runs at the time limit (interrupted, or killed when the run
ignores the interrupt), and crash one.
"""

from __future__ import annotations

import json

import httpx
import pytest

from engine.inspect import progress
from engine.inspect.schema import RunProgress
from server.launch import ServerProcess
from server.sandbox import child
from server.sandbox.reports import stopped_where
from server.sandbox.result_frames import HEADER, ResultFrames


def frame(kind: bytes, payload: bytes) -> bytes:
    return HEADER.pack(kind, len(payload)) + payload


def feed_bytewise(frames: ResultFrames, data: bytes) -> None:
    for i in range(len(data)):
        frames.feed(data[i : i + 1])


def test_frames_split_anywhere_give_the_progress_and_the_report():
    delta = json.dumps({"stdout": "a\n"}).encode()
    data = frame(b"P", delta) + frame(b"P", delta) + frame(b"R", b'{"x": 1}')
    frames = ResultFrames(report_bytes=1 << 20, progress_bytes=1 << 20)
    feed_bytewise(frames, data)
    assert frames.progress == [delta, delta] and frames.report == b'{"x": 1}' and not frames.broken
    assert progress.merge(frames.progress).stdout == "a\na\n"
    # The reader's framing and variable are the runner's.
    assert HEADER.format == progress.HEADER.format and child.PROGRESS_FD_ENV == progress.PROGRESS_FD_ENV


def test_progress_past_its_cap_is_dropped_and_the_report_still_arrives():
    big = b"x" * 5000
    data = frame(b"P", b"{}") + frame(b"P", big) + frame(b"P", b"{}") + frame(b"R", b"{}")
    frames = ResultFrames(report_bytes=1 << 20, progress_bytes=100)
    feed_bytewise(frames, data)
    # The frame over the cap ends the keeping (a stream of deltas with a hole would mislead).
    assert frames.progress == [b"{}"] and frames.report == b"{}" and not frames.broken


def test_a_report_frame_over_the_report_cap_is_over_the_limit():
    frames = ResultFrames(report_bytes=1000, progress_bytes=1000)
    frames.feed(HEADER.pack(b"R", 1 << 30) + b"{")
    assert frames.over() and frames.report is None


def test_bytes_that_are_not_frames_end_the_parsing():
    frames = ResultFrames(report_bytes=1000, progress_bytes=1000)
    frames.feed(frame(b"P", b"{}") + b"garbage that is no frame" + frame(b"R", b"{}"))
    assert frames.broken and frames.progress == [b"{}"] and frames.report is None and frames.started
    # Unbounded garbage goes over the limit (the supervisor then stops the run).
    frames.feed(b"x" * 2000)
    assert frames.over()
    # Bytes after the report make it untrustworthy too.
    after = ResultFrames(report_bytes=1000, progress_bytes=1000)
    after.feed(frame(b"R", b"{}") + b"more")
    assert after.broken


def test_merge_stops_at_the_first_invalid_delta():
    good = RunProgress(stdout="one\n").model_dump_json().encode()
    bad = json.dumps({"calls": [{"id": "not a number"}]}).encode()
    merged = progress.merge([good, bad, good])
    assert merged.stdout == "one\n" and merged.calls == []


def test_the_stack_a_killed_run_wrote_gives_its_line():
    asked = 'out\nStack (most recent call first):\n  File "/lib/x.py", line 3 in g\n  File "<user>", line 7 in f\n'
    assert stopped_where(asked, crashed=False) == ("out\n", 7)
    # A crash's stack stays on stderr; without a user frame there is no line; without a stack, nothing.
    crash = "Fatal Python error: Segmentation fault\n\n" + asked[4:]
    assert stopped_where(crash, crashed=True) == (crash, 7)
    assert (
        stopped_where('Stack (most recent call first):\n  File "/lib/x.py", line 3 in g\n', True)[1] is None
    )
    assert stopped_where("plain stderr\n", crashed=False) == ("plain stderr\n", None)


# --- through the API, with the engine's runner -------------------------------------------------

JIT_CALL = "import jax\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * 2.0\n\ny = jax.jit(f)(1.0)\nprint('f done')\n"
Y_LINE = "f done\n"


@pytest.fixture(scope="module")
def engine_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("log") / "server.log"
    settings = {
        "database_path": tmp_path_factory.mktemp("db") / "s.sqlite",
        "workers": 1,
        "wall_seconds": 10,
        # (above the wall time, so a busy loop meets the wall limit first on a quiet machine too)
        "cpu_seconds": 30,
        # (small: the memory test's processes must fill it before the wall limit, and first-touch
        # page faults on this kind of virtual machine run at 300-500 MiB/s, under load far less)
        "memory_bytes": 512 << 20,
    }
    with ServerProcess(settings, log_path=str(log)) as s:
        yield s


def run(server, code: str) -> dict:
    return httpx.post(server.base_url + "/api/run", json={"code": code}, timeout=90).json()


def finished_jit_call(report: dict) -> dict:
    call = report["calls"][0]
    assert call["label"] == "jit(f)" and call["source"]["line"] == 7
    assert [s["name"] for s in call["stages"]] == ["f", "jit(f)"]
    assert "sin" in call["stages"][1]["text"]
    assert any(t["name"].startswith("run jit(f)") for t in call["timings"])
    return call


def test_interrupted_at_the_time_limit_keeps_what_it_finished(engine_server):
    report = run(engine_server, JIT_CALL + "while True:\n    pass\n")
    error = report["error"]
    assert not report["ok"] and error["limit"] == "timeout", error
    assert error["line"] in (9, 10) and f"line {error['line']}" in error["message"]
    assert report["stdout"] == Y_LINE
    finished_jit_call(report)
    assert len(report["calls"]) == 1 and "1 transformed call" in error["message"]


def test_killed_at_the_time_limit_inside_a_call_keeps_what_it_finished(engine_server):
    # The run ignores the interrupt, so it is killed: what it streamed is all there is.
    code = (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        + JIT_CALL
        + "def spin(x):\n    while True:\n        pass\n\njax.jit(spin)(y)\n"
    )
    # (the lines above moved down by 2: f's call is on line 9, spin's on line 15)
    report = run(engine_server, code)
    error = report["error"]
    assert not report["ok"] and error["limit"] == "timeout", error
    assert report["stdout"] == Y_LINE
    call = report["calls"][0]
    assert call["label"] == "jit(f)" and call["source"]["line"] == 9 and len(call["stages"]) == 2
    running = report["calls"][1]
    assert running["label"] == "jit(spin)" and running["stages"] == []
    # Asked for its stack before the kill, it said which line it was stuck on, inside the call.
    line = error["line"]
    assert line in (12, 13), error  # (the loop's `while` or its `pass`)
    assert f"It was running line {line}, in jit(spin) called on line 15." in error["message"]
    assert "most recent call first" not in report["stderr"]  # (that stack was for the sandbox)


def test_a_crash_keeps_what_it_finished(engine_server):
    report = run(engine_server, JIT_CALL + "import ctypes\nctypes.string_at(0)\n")
    error = report["error"]
    assert not report["ok"] and error["limit"] == "killed" and "SIGSEGV" in error["message"], error
    assert error["line"] == 10 and "It was running line 10." in error["message"]
    assert "Segmentation fault" in report["stderr"]  # (a crash's own stack is shown)
    assert report["stdout"].startswith(Y_LINE)
    finished_jit_call(report)
    # The next run is a fresh one.
    assert run(engine_server, "print(6 * 7)")["stdout"] == "42\n"


def test_killed_at_the_memory_limit_keeps_what_it_finished(engine_server):
    # Processes that each stay under the per-process limit (RLIMIT_DATA is the 512 MiB budget; a
    # child has the engine's ~160 MiB of data besides its own) and together pass the run's budget
    # (~170 MiB of the engine, shared, plus 640 MiB): the watchdog kills the run at once, so what
    # it streamed is all there is.
    code = JIT_CALL + (
        "import os, time\nfor _ in range(4):\n    if os.fork() == 0:\n"
        "        b = bytearray(160 << 20)\n        b[::4096] = b'x' * len(b[::4096])\n"
        "        time.sleep(30)\n        os._exit(0)\ntime.sleep(30)\n"
    )
    report = run(engine_server, code)
    error = report["error"]
    assert not report["ok"] and error["limit"] == "memory", (error, report["stderr"])
    assert report["stdout"] == Y_LINE and "1 transformed call" in error["message"]
    assert error["line"] in (10, 11, 16), error  # forking, or sleeping while its children fill memory
    assert "MemoryError" not in report["stderr"]  # (no child met the per-process limit)
    finished_jit_call(report)


def test_stopped_at_the_cpu_limit_inside_a_compiled_loop_names_the_loop_line(tmp_path):
    # SIGXCPU cannot stop a loop running in a numba kernel (Python's handler waits for the kernel):
    # the supervisor asks for the run's stack before the kernel's kill at the hard limit, and the
    # host code's lines (engine/backends/host_lines.py) are the user's: the loop's line is named,
    # in the jitted call made on line 7 (it named the call only).
    code = (
        "import jax\nfrom jax import lax\n\ndef spin(x):\n"
        "    return lax.fori_loop(0, 2**31 - 1, lambda i, c: c * 0.5 + jax.numpy.sin(c), x)\n"
        "\ny = jax.jit(spin)(1.0)\nprint(y)\n"
    )
    settings = {"database_path": tmp_path / "s.sqlite", "workers": 1, "wall_seconds": 60, "cpu_seconds": 2}
    with ServerProcess(settings, log_path=str(tmp_path / "server.log")) as s:
        report = run(s, code)
    error = report["error"]
    assert not report["ok"] and error["limit"] == "cpu", error
    assert error["line"] == 5, error
    assert "It was running line 5, in jit(spin) called on line 7." in error["message"], error
    assert [c["label"] for c in report["calls"]] == ["jit(spin)"]
