"""Spares: a run's process forked ahead of its request while the slot is idle (``supervise.spawn``).

A spare must hold nothing of a run until it has its request (no slot uid, no work directory, no
isolation applied yet), then become exactly the run a fresh fork would have been; a spare that is
gone, or cannot take its request, is discarded and the run forks as before. Root mode, through
the zygote's own plan (``choose_plan``), with the plain runner.
"""

from __future__ import annotations

import os
import select
import signal
import tempfile

import pytest

from engine.inspect.schema import RunReport, RunRequest
from server.launch import free_port
from server.sandbox import child, supervise, zygote
from server.sandbox.pool import zygote_config
from server.settings import Settings

PLAIN = "server.sandbox.plain_runner:run_request"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="root mode")


@pytest.fixture(scope="module")
def slot():
    # (a slot uid no other test or server on this host uses at the same time)
    settings = Settings(runner=PLAIN, slot_uid_base=63000 + 16 * (free_port() % 1000), wall_seconds=10)
    config = zygote_config(settings, 0)
    plan, _ = zygote.choose_plan(config)
    limits = supervise.Limits.of(config)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o711)
        yield plan, zygote.resolve_runner(PLAIN), limits, tmp


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


def _report(outcome: supervise.Outcome) -> tuple[RunReport, str]:
    """The run's report and what it printed (the plain runner prints to the supervised pipe)."""
    supervise.cleanup(outcome)
    assert outcome.limit is None, (outcome.limit, outcome.detail, outcome.stderr[-500:])
    assert outcome.report is not None
    return RunReport.model_validate_json(outcome.report), outcome.stdout.decode()


CODE = "import os\nprint(os.getuid(), os.getcwd(), open('/proc/self/status').read().count('Seccomp:\\t2'))\n"


def test_a_spare_waits_unisolated_then_runs_isolated(slot):
    plan, runner, limits, tmp = slot
    spare = supervise.spawn(plan, runner, limits, tmp)
    try:
        # (its name is set before the fork: it never shows the zygote's)
        assert _status(spare.pid)["Name"] == child.SPARE_NAME.decode()
        status = _status(spare.pid)
        assert status["Uid"].split()[0] == str(os.getuid())  # no slot uid yet: not a run
        assert status["Seccomp"] == "0"
        assert os.listdir(tmp) == []  # no work directory yet
        assert supervise.waiting(spare)
        assert supervise.hand_over(spare, RunRequest(code=CODE).model_dump_json().encode(), plan, tmp)
        report, out = _report(supervise.run(plan, runner, b"(handed over)", limits, tmp, spawned=spare))
    except BaseException:
        supervise.discard(spare, plan)
        raise
    assert report.ok, report.error
    uid, cwd, filtered = out.split()
    assert int(uid) == plan.uid and filtered == "1"
    # The same run as a fresh fork's.
    _, fresh = _report(
        supervise.run(plan, runner, RunRequest(code=CODE).model_dump_json().encode(), limits, tmp)
    )
    assert fresh == out
    assert os.listdir(tmp) == []


def test_a_spare_that_is_gone_is_not_used(slot):
    plan, runner, limits, tmp = slot
    spare = supervise.spawn(plan, runner, limits, tmp)
    signal.pidfd_send_signal(spare.pidfd, signal.SIGKILL)
    select.select([spare.pidfd], [], [], 10)
    assert not supervise.waiting(spare)
    message = RunRequest(code="print('fresh')").model_dump_json().encode()
    assert zygote._take(spare, plan, message, None, tmp) is None  # discarded
    assert not os.path.exists(f"/proc/{spare.pid}")
    assert _report(supervise.run(plan, runner, message, limits, tmp))[1] == "fresh\n"


def test_a_discarded_spare_exits_without_running_anything(slot):
    plan, runner, limits, tmp = slot
    spare = supervise.spawn(plan, runner, limits, tmp)
    pid = spare.pid
    supervise.discard(spare, plan)
    assert not os.path.exists(f"/proc/{pid}")
    assert os.listdir(tmp) == []


def test_a_large_request_reaches_a_spare_whole(slot):
    plan, runner, limits, tmp = slot
    # Far more than a pipe holds by default (64 KiB): hand_over grows the pipe, or refuses and the
    # run forks with the request in memory; either way the run sees all of it.
    padding = "x" * (3 << 20)
    request = RunRequest(code=f"s = {padding!r}\nprint(len(s))\n").model_dump_json().encode()
    spare = supervise.spawn(plan, runner, limits, tmp)
    taken = zygote._take(spare, plan, request, None, tmp)
    _, out = _report(supervise.run(plan, runner, request, limits, tmp, spawned=taken))
    assert out == f"{len(padding)}\n"
