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


def test_an_ipv6_client_is_its_slash_64():
    # Walking through the addresses of one's own /64 must not buy a fresh bucket for each.
    fair = FairShare(Settings(client_runs=1, client_rate=100, client_burst=100))
    first, same = request("2001:db8:1:2::1"), request("2001:db8:1:2:ffff:ffff:ffff:fffe")
    assert fair.client(first) == fair.client(same) == "2001:db8:1:2::/64"
    assert fair.client(request("2001:db8:1:3::1")) != fair.client(first)
    assert fair.client(request("::ffff:198.51.100.1")) == "198.51.100.1"
    assert fair.admit(fair.client(first)) is None and fair.admit(fair.client(same)) is not None
    proxied = FairShare(Settings(trusted_proxies=["10.0.0.0/8"]))
    assert proxied.client(request("10.1.2.3", **{"X-Real-IP": "2001:db8::7"})) == "2001:db8::/64"


def test_a_flood_of_new_clients_stays_bounded_and_cheap(monkeypatch):
    # Each new address is an entry; a flood of them may neither grow the table without bound nor
    # make every request walk it (the walk runs at most every SWEEP_EVERY seconds).
    from server import fairshare

    now = [1000.0]
    monkeypatch.setattr("server.fairshare.time.monotonic", lambda: now[0])
    monkeypatch.setattr(fairshare, "MAX_CLIENTS", 4000, raising=False)
    fair = FairShare(Settings(client_runs=4, client_rate=1, client_burst=1))
    walks = [0]

    class Walked(dict):
        def items(self):
            walks[0] += 1
            return super().items()

    fair.buckets, fair.shares = Walked(), Walked()
    for i in range(10_000):
        client = f"198.51.{i // 256}.{i % 256}"
        assert fair.admit(client) is None
        fair.release(client)
        assert fair.admit_share(client) is None
        now[0] += 0.001  # 1000 new addresses a second
    assert len(fair.buckets) <= 4000 and len(fair.shares) <= 4000
    assert walks[0] < 100  # not one per request
