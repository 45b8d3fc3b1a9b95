"""What each device of a mesh computed and exchanged in a recorded call, from the engine's
``pmap_execute`` events (pmap, shard_map and jit of sharded arrays all report them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .debugger import DEBUG_DATA_CAP
from .schema import CollectiveEvent, DeviceRecord, PmapInfo, TransformedCall
from .values import summarize_array

if TYPE_CHECKING:
    from .record import Recorder

COLLECTIVE_CAP = 400  # collective events per call


def device_facts(rec: Recorder, record: TransformedCall, kind: str, data: dict, t_end: float, call_id: int):
    """pmap reports ``pmap_execute`` with ``axis_names``, ``mesh``, ``devices`` (dicts with ``id``,
    ``inputs``/``outputs`` arrays, ``compute_ms``, ``exchange_ms``, ``collective_wait_ms``),
    ``collectives`` (dicts of ``CollectiveEvent`` fields, with ``waits_ms`` and ``times_ms`` by
    device id) and ``seconds``; any missing key is simply left out."""
    seconds = data.get("seconds") or 0.0
    if seconds:
        rec.event(
            record.timings,
            f"{kind.replace('_', ' ')} {data.get('name', '')}".strip(),
            "execute" if kind.endswith("execute") else "trace",
            t_end - seconds,
            seconds,
            call=call_id,
        )
    if kind == "pmap_execute" and seconds:
        # device and collective times are relative to the start of the pmap call
        t0 = t_end - seconds
        transfer_s = (data.get("transfer_ms") or 0.0) / 1e3
        if transfer_s:
            rec.event(record.timings, "transfer to devices", "transfer", t0, transfer_s, call=call_id)
        for d in (data.get("devices") or [])[:64]:
            busy_ms = sum(d.get(k) or 0.0 for k in ("compute_ms", "exchange_ms", "collective_wait_ms"))
            busy_s = busy_ms / 1e3
            rec.event(
                record.timings,
                f"compute {data.get('name', '')}".strip(),
                "execute",
                t0 + transfer_s,
                busy_s,
                device=d.get("id"),
                call=call_id,
            )
        for c in (data.get("collectives") or [])[:COLLECTIVE_CAP]:
            rec.event(
                record.timings,
                f"{c.get('primitive', 'collective')} over {c.get('axis_name', '?')}",
                "collective",
                t0 + (c.get("start_ms") or 0.0) / 1e3,
                (c.get("duration_ms") or 0.0) / 1e3,
                call=call_id,
            )
    if kind != "pmap_execute":
        return
    try:
        t0 = rec.device_programs_t0.setdefault(call_id, t_end - seconds)
        _merge_device_program(record, data, (t_end - seconds - t0) * 1e3)
    except Exception:  # noqa: BLE001 - a malformed event must not break the report
        pass


def _merge_device_program(record: TransformedCall, data: dict, offset_ms: float) -> None:
    """One device program's records into the call's: the first program's inputs, the last one's
    outputs, compute and waits summed, collectives in order (an eager shard_map runs a program per
    operation; a call that runs on another mesh afterwards keeps the first mesh's records)."""
    mesh, names = list(data.get("mesh", [])), list(data.get("axis_names", []))
    raw = data.get("devices", [])[:64]
    info = record.pmap
    if info is not None and (
        info.mesh != mesh
        or info.axis_names != names
        or [d.id for d in info.devices] != [d["id"] for d in raw]
    ):
        return
    outputs = [
        [s for s in (summarize_array(x, DEBUG_DATA_CAP) for x in d.get("outputs", [])) if s] for d in raw
    ]
    collectives = []
    for c in data.get("collectives", [])[:COLLECTIVE_CAP]:
        fields = {k: v for k, v in c.items() if k in CollectiveEvent.model_fields}
        fields["start_ms"] = fields.get("start_ms", 0.0) + offset_ms
        # per device, in the order of ``devices`` (JSON objects would key them by strings)
        by_device = {"waits_ms": c.get("waits_ms") or {}, "device_ms": c.get("times_ms") or {}}
        for name, values in by_device.items():
            fields[name] = [float(values.get(d, 0.0)) for d in fields.get("devices", [])]
        collectives.append(CollectiveEvent(**fields))
    if info is None:
        record.pmap = PmapInfo(
            kind=data.get("api", "pmap"),
            axis_names=names,
            mesh=mesh,
            devices=[
                DeviceRecord(
                    id=d["id"],
                    coords=list(d.get("coords", [])),
                    inputs=[
                        s for s in (summarize_array(x, DEBUG_DATA_CAP) for x in d.get("inputs", [])) if s
                    ],
                    outputs=out,
                    compute_ms=d.get("compute_ms", 0.0),
                    exchange_ms=d.get("exchange_ms", 0.0),
                    collective_wait_ms=d.get("collective_wait_ms", 0.0),
                )
                for d, out in zip(raw, outputs)
            ],
            collectives=collectives,
        )
        return
    info.programs += 1
    for dev, d, out in zip(info.devices, raw, outputs):
        dev.outputs = out
        dev.compute_ms += d.get("compute_ms", 0.0)
        dev.exchange_ms += d.get("exchange_ms", 0.0)
        dev.collective_wait_ms += d.get("collective_wait_ms", 0.0)
    for c in collectives:
        if len(info.collectives) < COLLECTIVE_CAP:
            info.collectives.append(c.model_copy(update={"seq": len(info.collectives)}))
