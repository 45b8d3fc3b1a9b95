"""Where each simulated device's time went in a collective: blocked waiting for the others, or the
exchange itself, and how long the collective took.

A device's own record of a collective is its time in it and the part of that spent in barriers.
The report used to give a collective the span from the first device entering to the last one
leaving, which on a 2-core machine running 8 device processes in turns is mostly the devices'
different start times: a psum of program inputs (no barrier: every copy is there before the run)
showed 10.7 ms beside cards that each said "wait 0 µs". Now a collective's duration is the longest
any one device spent in it, each device's wait and time are listed, and a card's wait and exchange
are the sums of its own.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from engine import monitoring
from engine.inspect.run import run_request
from engine.inspect.schema import RunRequest
from engine.parallel.pmap_primitive import _emit


def _reply(compute_ms, wait_ms, events):
    return dict(compute_ms=compute_ms, wait_ms=wait_ms, start_ms=0.0, total_ms=0.0, events=events)


def _event(start_ms, duration_ms, wait_ms):
    return dict(
        seq=0,
        primitive="psum",
        axis_name="i",
        devices=[0, 1],
        start_ms=start_ms,
        duration_ms=duration_ms,
        wait_ms=wait_ms,
        nbytes=4,
        shape=[],
        dtype="float32",
        perm=None,
    )


def _emitted(replies):
    events = []
    prog = SimpleNamespace(name="f", mesh=(2,), closed=None)
    with monitoring.listen(lambda kind, data: events.append(data)):
        _emit(prog, [0, 1], [[], []], [[], []], replies, "i", 0.0, 0.0)
    (data,) = events
    return data


def test_a_psum_without_a_barrier_takes_what_each_device_spent_in_it():
    # Device 1 was scheduled 10.6 ms after device 0; each read the other's input in 0.1 ms.
    data = _emitted([_reply(0.5, 0.0, [_event(0.0, 0.1, 0.0)]), _reply(0.5, 0.0, [_event(10.6, 0.1, 0.0)])])
    (psum,) = data["collectives"]
    assert psum["start_ms"] == 0.0
    assert psum["duration_ms"] == pytest.approx(0.1)  # not 10.7: nobody was in it that long
    assert psum["waits_ms"] == {0: 0.0, 1: 0.0} and psum["times_ms"] == {0: 0.1, 1: 0.1}
    # The 0.1 ms of exchange is not compute.
    assert [(d["compute_ms"], d["exchange_ms"], d["collective_wait_ms"]) for d in data["devices"]] == [
        (pytest.approx(0.4), pytest.approx(0.1), 0.0)
    ] * 2


def test_a_barrier_wait_is_the_early_devices_and_the_duration_includes_it():
    # Device 0 came first and waited 10.5 ms for device 1 at the barrier.
    data = _emitted(
        [_reply(0.5, 10.5, [_event(0.0, 10.7, 10.5)]), _reply(0.5, 0.0, [_event(10.5, 0.2, 0.0)])]
    )
    (psum,) = data["collectives"]
    assert psum["duration_ms"] == pytest.approx(10.7)
    assert psum["waits_ms"] == {0: 10.5, 1: 0.0}
    exchanges = [d["exchange_ms"] for d in data["devices"]]
    assert exchanges == [pytest.approx(0.2), pytest.approx(0.2)]


CODE = """
import jax, jax.numpy as jnp
f = jax.pmap(lambda x: x / jax.lax.psum(x, 'i') + jax.lax.psum(jnp.sin(x), 'i')
             + jax.lax.all_gather(x * 2.0, 'i').sum(), axis_name='i')
f(jnp.arange(4.0))
"""


def test_the_report_cards_and_collectives_agree():
    report = run_request(RunRequest(code=CODE))
    assert report.ok, report.error
    (call,) = report.calls
    info = call.pmap
    assert [c.primitive for c in info.collectives] == ["psum", "psum", "all_gather"]
    for c in info.collectives:
        assert c.devices == [0, 1, 2, 3]
        assert len(c.device_ms) == len(c.waits_ms) == 4
        assert all(0.0 <= w <= t for w, t in zip(c.waits_ms, c.device_ms))
        assert c.duration_ms == max(c.device_ms)
    assert info.collectives[0].waits_ms == [0.0] * 4  # the input's psum needs no barrier
    for i, d in enumerate(info.devices):
        waits = sum(c.waits_ms[i] for c in info.collectives)
        exchange = sum(c.device_ms[i] - c.waits_ms[i] for c in info.collectives)
        assert d.collective_wait_ms == pytest.approx(waits, abs=1e-9)
        assert d.exchange_ms == pytest.approx(exchange, abs=1e-9)
        assert d.compute_ms >= 0.0
