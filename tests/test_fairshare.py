"""Fair share without a server: the token bucket, the per-client cap and who counts as a client."""

from __future__ import annotations

from types import SimpleNamespace

from starlette.datastructures import Headers

from server.fairshare import FairShare
from server.settings import Settings


def request(peer: str, **headers: str):
    return SimpleNamespace(client=SimpleNamespace(host=peer), headers=Headers(headers))


def test_in_flight_cap_then_release():
    fair = FairShare(Settings(client_runs=2, client_rate=100, client_burst=100))
    assert fair.admit("a") is None and fair.admit("a") is None
    assert fair.admit("a") is not None  # a third at once is refused
    assert fair.admit("b") is None  # another client is not affected
    fair.release("a")
    assert fair.admit("a") is None
    assert fair.in_flight == 3


def test_token_bucket_refills_at_the_rate(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("server.fairshare.time.monotonic", lambda: now[0])
    fair = FairShare(Settings(client_runs=100, client_rate=2.0, client_burst=3))
    for _ in range(3):
        assert fair.admit("a") is None
    wait = fair.admit("a")
    assert wait is not None and abs(wait - 0.5) < 1e-9  # one token comes back in 1/rate seconds
    now[0] += 0.5
    assert fair.admit("a") is None and fair.admit("a") is not None


def test_only_a_trusted_proxy_may_name_the_client():
    fair = FairShare(Settings(trusted_proxies=["10.0.0.0/8"]))
    assert fair.client(request("10.1.2.3", **{"X-Real-IP": "203.0.113.7"})) == "203.0.113.7"
    assert fair.client(request("198.51.100.1", **{"X-Real-IP": "203.0.113.7"})) == "198.51.100.1"
    assert fair.client(request("10.1.2.3")) == "10.1.2.3"
