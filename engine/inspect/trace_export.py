"""The report's timings as a Chrome trace (``chrome://tracing``, https://ui.perfetto.dev).

One process; thread 0 is the host, thread ``d + 1`` is simulated device ``d``. Each event is a
complete ("X") event; its args name the transformed call it belongs to. For a run report
``report``, ``chrome_trace(report)["traceEvents"][0]["ph"]`` is ``"M"`` (the process name).
"""

from __future__ import annotations

from .schema import RunReport

PID = 1


def chrome_trace(report: RunReport) -> dict:
    events = [dict(t) for t in report.timings]
    labels = {c.id: c.label for c in report.calls}
    for call in report.calls:
        events += [dict(t) for t in call.timings]
    threads = {0: "host"}
    out = [
        {"ph": "M", "pid": PID, "name": "process_name", "args": {"name": f"engine {report.engine_version}"}}
    ]
    body = []
    for e in sorted(events, key=lambda e: e["start_ms"]):
        tid = 0 if e.get("device") is None else e["device"] + 1
        if tid not in threads:
            threads[tid] = f"device {e['device']}"
        args = {}
        if e.get("call") is not None:
            args = {"call": e["call"], "label": labels.get(e["call"])}
        body.append(
            {
                "ph": "X",
                "pid": PID,
                "tid": tid,
                "name": e["name"],
                "cat": e["category"],
                "ts": round(e["start_ms"] * 1000.0, 3),
                "dur": round(e["duration_ms"] * 1000.0, 3),
                "args": args,
            }
        )
    out += [
        {"ph": "M", "pid": PID, "tid": tid, "name": "thread_name", "args": {"name": name}}
        for tid, name in sorted(threads.items())
    ]
    return {"traceEvents": out + body, "displayTimeUnit": "ms"}
