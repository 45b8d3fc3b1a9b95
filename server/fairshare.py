"""Fair share of one replica's sandbox between clients: a cap on each client's runs in flight
(running or queued) and a token bucket on how fast each may start them; and a bucket of its own
on how fast each may store shared links (each one a row of up to the body limit, kept forever).

A client is its address, or, for a request relayed by a trusted proxy, the address that proxy
puts in ``client_ip_header``. Limits are per replica; the load balancer spreads a client's runs.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from starlette.requests import Request

    from .settings import Settings

IDLE_FORGET_SECONDS = 600.0  # a client idle this long has a full bucket again: drop its entry
SWEEP_EVERY = 10.0  # seconds between looks for idle entries (each look walks every entry)
MAX_CLIENTS = 50_000  # past this, the longest-idle entries go at once (a flood of fresh addresses)


@dataclass
class Bucket:
    tokens: float
    stamp: float
    in_flight: int = 0


class FairShare:
    def __init__(self, settings: "Settings"):
        self.per_client = settings.client_runs
        self.rate = settings.client_rate
        self.burst = max(1, settings.client_burst)
        self.header = settings.client_ip_header
        self.proxies = [ipaddress.ip_network(p, strict=False) for p in settings.trusted_proxies]
        self.buckets: dict[str, Bucket] = {}
        self.share_rate, self.share_burst = settings.client_share_rate, max(1, settings.client_share_burst)
        self.shares: dict[str, Bucket] = {}
        self.in_flight = 0  # every client's: what draining waits for
        self._next_sweep = 0.0
        self._lock = threading.Lock()

    def client(self, request: "Request") -> str:
        peer = request.client.host if request.client else "unknown"
        relayed = request.headers.get(self.header)
        if relayed and self._trusted(peer):
            return client_key(relayed.split(",")[-1].strip())
        return client_key(peer)

    def _trusted(self, peer: str) -> bool:
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(address in net for net in self.proxies)

    def admit(self, client: str) -> Optional[float]:
        """Take a slot for ``client``; None if admitted, else the seconds to wait before retrying."""
        now = time.monotonic()
        with self._lock:
            self._forget_idle(now)
            b = self.buckets.setdefault(client, Bucket(tokens=self.burst, stamp=now))
            b.tokens = min(self.burst, b.tokens + (now - b.stamp) * self.rate)
            b.stamp = now
            if b.in_flight >= self.per_client:
                return 1.0
            if b.tokens < 1.0:
                return (1.0 - b.tokens) / self.rate if self.rate > 0 else 60.0
            b.tokens -= 1.0
            b.in_flight += 1
            self.in_flight += 1
            return None

    def admit_share(self, client: str) -> Optional[float]:
        """Take a share token for ``client``; None if admitted, else the seconds to wait."""
        now = time.monotonic()
        with self._lock:
            self._forget_idle(now)
            b = self.shares.setdefault(client, Bucket(tokens=self.share_burst, stamp=now))
            b.tokens = min(self.share_burst, b.tokens + (now - b.stamp) * self.share_rate)
            b.stamp = now
            if b.tokens < 1.0:
                return (1.0 - b.tokens) / self.share_rate if self.share_rate > 0 else 60.0
            b.tokens -= 1.0
            return None

    def release(self, client: str) -> None:
        with self._lock:
            self.buckets[client].in_flight -= 1
            self.in_flight -= 1

    def _forget_idle(self, now: float) -> None:
        # Not on every call: a walk of every entry per request is what a flood of new addresses
        # would make expensive. Unless the entries pass MAX_CLIENTS (memory), then at once.
        for buckets in (self.buckets, self.shares):
            if len(buckets) < 1024 or (now < self._next_sweep and len(buckets) <= MAX_CLIENTS):
                continue
            idle = sorted((b.stamp, k) for k, b in buckets.items() if not b.in_flight)
            for stamp, key in idle:
                if now - stamp <= IDLE_FORGET_SECONDS and len(buckets) <= MAX_CLIENTS * 3 // 4:
                    break
                del buckets[key]
        if now >= self._next_sweep:
            self._next_sweep = now + SWEEP_EVERY


def client_key(address: str) -> str:
    """An IPv6 client is its /64 (one subscriber's usual allocation, which it may walk through at
    will); an IPv4-mapped one its IPv4 address; anything else as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
