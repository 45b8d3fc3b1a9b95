"""Replicas behind nginx sharing PostgreSQL: sustained runs/s and p99 with one replica, then two.

Each replica has one sandbox worker, so two replicas double the workers. On a 2-core host the
server, nginx and PostgreSQL compete with the workers for the same cores: two replicas cannot
scale here, and the table says what they do.
"""

from __future__ import annotations

import os
import statistics

from bench.bench_server import PLAIN, percentile, sustained
from server.launch import ServerProcess
from server.services import Nginx, PostgresCluster


def measure(pg_url: str, replicas: int, seconds: float, clients: int) -> tuple[float, list[float], dict]:
    settings = {
        "runner": PLAIN,
        "database_url": pg_url,
        "workers": 1,
        "queue_size": 64,
        "warm_examples": "false",
    }
    servers = [ServerProcess(settings).start() for _ in range(replicas)]
    try:
        with Nginx([f"127.0.0.1:{s.port}" for s in servers]) as lb:
            sustained(lb.base_url, 1.0, 50, clients)  # warm the connections and the workers
            return sustained(lb.base_url, seconds, 5000, clients)
    finally:
        for s in servers:
            s.stop()


def main(argv: list[str] | None = None) -> int:
    rows = []
    with PostgresCluster() as pg:
        for replicas in (1, 2):
            rate, latencies, statuses = measure(pg.url, replicas, seconds=8.0, clients=8)
            rows.append(
                (
                    f"{replicas} replica{'s' if replicas > 1 else ''} x 1 worker behind nginx",
                    f"{rate:.1f} runs/s",
                    f"p99 {percentile(latencies, 99):.1f} ms, p50 {statistics.median(latencies):.1f} ms",
                    f"statuses {statuses}",
                )
            )
    print(f"8 clients, plain runner, cores: {os.cpu_count()}, load {os.getloadavg()[0]:.1f}")
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
