"""Server benchmarks: sandbox overhead per run, sustained runs/s with p99, gallery example timings.

    python -m bench.bench_server [--runner module:function] [--seconds 10] [--runs 100]

Targets (issue 5): overhead under 15 ms median; at least 30 trivial runs/s on 2 cores with p99
under 300 ms; each gallery example under 300 ms warm and under 1.5 s on its first run.
Only loopback traffic; every phase is bounded in count and time.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import statistics
import sys
import tempfile
import time

import httpx

from server.launch import ServerProcess

PLAIN = "server.sandbox.plain_runner:run_request"
TRIVIAL = {"code": "x = 1 + 1"}


def engine_runner_exists() -> bool:
    try:
        import engine.inspect
    except ImportError:
        return False
    return hasattr(engine.inspect, "run_request")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


# Seconds between runs on the spare path: the spare is forked and waiting, as between a user's Runs.
SPARE_PAUSE = 0.05


def sandbox_overhead(runner_path: str, runs: int) -> dict[str, list[float]]:
    """A trivial run's overhead, measured in the supervisor itself (no HTTP), as the zygote sees it,
    both ways a zygote runs a request: "fork" forks the run's process when the request comes;
    "spare" hands the request to a process forked ahead after the previous run's teardown (what
    the zygote does for every run but its first, ``supervise.spawn``), timed from the request to
    the result. The result goes out before the run's teardown (kill, reap), which is timed apart
    ("teardown") and still happens before the next run. Rounds alternate between the two ways."""
    from engine.inspect.schema import RunRequest
    from server.sandbox import supervise, zygote
    from server.sandbox.pool import zygote_config
    from server.settings import Settings

    settings = Settings(runner=runner_path, slot_uid_base=61300)
    config = zygote_config(settings, 0)
    runner = zygote.resolve_runner(runner_path)
    plan, _ = zygote.choose_plan(config)
    limits = supervise.Limits.of(config)
    payload = RunRequest(**TRIVIAL).model_dump_json().encode()
    times: dict[str, list[float]] = {"fork": [], "spare": [], "teardown": []}
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o711)  # slot uids must reach their run directories inside
        for i in range(2 * runs):
            way = ("fork", "spare")[i % 2]
            spare = None
            if way == "spare":
                spare = supervise.spawn(plan, runner, limits, tmp)
                time.sleep(SPARE_PAUSE)
            t = time.perf_counter()
            if spare is not None:
                assert supervise.hand_over(spare, payload, plan, tmp)
            outcome = supervise.run(plan, runner, payload, limits, tmp, defer_cleanup=True, spawned=spare)
            times[way].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            supervise.cleanup(outcome)
            times["teardown"].append((time.perf_counter() - t) * 1000)
            assert outcome.limit is None, (outcome.limit, outcome.detail, outcome.stderr[-500:])
    return times


def sequential_latency(base_url: str, runs: int) -> list[float]:
    times = []
    with httpx.Client(base_url=base_url, timeout=30) as c:
        for _ in range(runs):
            t = time.perf_counter()
            assert c.post("/api/run", json=TRIVIAL).status_code == 200
            times.append((time.perf_counter() - t) * 1000)
    return times


def sustained(base_url: str, seconds: float, max_runs: int, clients: int) -> tuple[float, list[float], dict]:
    deadline = time.monotonic() + seconds
    latencies: list[float] = []
    statuses: dict = {}
    issued = iter(range(max_runs))

    def client():
        with httpx.Client(base_url=base_url, timeout=30) as c:
            for _ in issued:
                if time.monotonic() > deadline:
                    return
                t = time.perf_counter()
                status = c.post("/api/run", json=TRIVIAL).status_code
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200:
                    latencies.append((time.perf_counter() - t) * 1000)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(client) for _ in range(clients)]:
            f.result()
    return len(latencies) / (time.monotonic() - start), latencies, statuses


def gallery(base_url: str) -> list[tuple[str, float, float, bool]]:
    rows = []
    with httpx.Client(base_url=base_url, timeout=60) as c:
        for ex in c.get("/api/examples").json():
            request = {k: ex[k] for k in ("code", "function", "stack", "args")}
            t = time.perf_counter()
            first = c.post("/api/run", json=request).json()
            first_ms = (time.perf_counter() - t) * 1000
            warm = []
            for _ in range(3):
                t = time.perf_counter()
                c.post("/api/run", json=request)
                warm.append((time.perf_counter() - t) * 1000)
            rows.append((ex["id"], first_ms, statistics.median(warm), bool(first.get("ok"))))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--runner", default=None, help="runner path; default: the engine's if it exists, else plain"
    )
    ap.add_argument("--runs", type=int, default=100, help="runs for the overhead and latency medians")
    ap.add_argument("--seconds", type=float, default=10.0, help="duration cap of the sustained phase")
    ap.add_argument("--max-runs", type=int, default=1000, help="count cap of the sustained phase")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients in the sustained phase")
    args = ap.parse_args(argv)
    runner = args.runner or ("engine.inspect:run_request" if engine_runner_exists() else PLAIN)

    rows: list[tuple[str, str, str, str]] = []
    overhead = sandbox_overhead(runner, args.runs)
    rows.append(
        (
            "sandbox overhead, request to result (median)",
            f"{statistics.median(overhead['spare']):.1f} ms",
            "< 15 ms",
            f"p99 {percentile(overhead['spare'], 99):.1f} ms; in a spare, as the zygote runs each request "
            f"but a slot's first; load {os.getloadavg()[0]:.1f}",
        )
    )
    rows.append(
        (
            "sandbox overhead, fork to result (median)",
            f"{statistics.median(overhead['fork']):.1f} ms",
            "",
            f"p99 {percentile(overhead['fork'], 99):.1f} ms; forked at the request (no spare); "
            f"teardown after either {statistics.median(overhead['teardown']):.1f} ms",
        )
    )
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            {
                "runner": runner,
                "database_path": os.path.join(tmp, "db.sqlite"),
                "workers": os.cpu_count() or 2,
                "queue_size": 64,
            }
        ) as server,
    ):
        lat = sequential_latency(server.base_url, args.runs)
        rows.append(
            (
                "HTTP round trip, one client (median)",
                f"{statistics.median(lat):.1f} ms",
                "",
                f"p99 {percentile(lat, 99):.1f} ms",
            )
        )
        rate, latencies, statuses = sustained(server.base_url, args.seconds, args.max_runs, args.clients)
        rows.append(
            (
                f"sustained, {args.clients} clients",
                f"{rate:.1f} runs/s",
                ">= 30 runs/s",
                f"statuses {statuses}",
            )
        )
        if latencies:
            rows.append(
                (
                    "sustained latency p99",
                    f"{percentile(latencies, 99):.1f} ms",
                    "< 300 ms",
                    f"p50 {percentile(latencies, 50):.1f} ms",
                )
            )
        if runner != PLAIN:
            for ex_id, first_ms, warm_ms, ok in gallery(server.base_url):
                rows.append(
                    (
                        f"example {ex_id}",
                        f"{warm_ms:.0f} ms warm",
                        "< 300 ms",
                        f"first {first_ms:.0f} ms (< 1500){'' if ok else ', FAILED'}",
                    )
                )

    print(f"runner: {runner}   cores: {os.cpu_count()}")
    widths = [max(len(r[i]) for r in rows + [("measure", "value", "target", "notes")]) for i in range(4)]
    for row in [("measure", "value", "target", "notes"), tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
