// The run report, the one contract between engine, server and page. Its types are generated from
// the pydantic models (engine/inspect/schema.py) by `make types` into report.gen.ts, which
// `make lint` checks is up to date; this module names them and adds the page's helpers.
// Non-finite floats arrive as the strings "NaN", "Infinity" and "-Infinity".

import type { components } from "./report.gen";

type Schemas = components["schemas"];

export const REPORT_VERSION = 1;

/** A stack layer as the page keeps it: options always present (the server defaults them to {}). */
export type TransformSpec = Required<Schemas["TransformSpec"]>;
export type TransformName = TransformSpec["name"];
export type TransformInfo = Schemas["TransformInfo"];
export type RunRequest = Schemas["RunRequest"];
export type SourceInfo = Schemas["SourceInfo"];
/** float, or "NaN" / "Infinity" / "-Infinity", or null. */
export type NumberLike = number | string | null;
export type ArraySummary = Schemas["ArraySummary"];
export type TreeNode = Schemas["TreeNode"];
export type CheckifyError = Schemas["CheckifyError"];
export type Value = ArraySummary | CheckifyError | TreeNode;
export type Frame = Schemas["Frame"];
export type RunError = Schemas["RunError"];
export type LimitKind = NonNullable<RunError["limit"]>;
export type IRVar = Schemas["IRVar"];
export type IRAtom = Schemas["IRAtom"];
export type IRNode = Schemas["IRNode"];
export type IRGraph = Schemas["IRGraph"];
export type EqnCost = Schemas["EqnCost"];
export type StageCost = Schemas["StageCost"];
export type Stage = Schemas["Stage"];
export type JitInfo = Schemas["JitInfo"];
export type KernelInfo = Schemas["KernelInfo"];
export type TimingEvent = Schemas["TimingEvent"];
export type TimingCategory = TimingEvent["category"];
export type DeviceRecord = Schemas["DeviceRecord"];
export type CollectiveEvent = Schemas["CollectiveEvent"];
export type PmapInfo = Schemas["PmapInfo"];
export type DebugStep = Schemas["DebugStep"];
export type DebugTrace = Schemas["DebugTrace"];
export type TransformedCall = Schemas["TransformedCall"];
export type DebugPrint = Schemas["DebugPrint"];
export type RunReport = Schemas["RunReport"];

/** Fill in the defaults pydantic would, so renderers need not guard every optional list. */
export function normalizeReport(raw: Partial<RunReport>): RunReport {
  const r: RunReport = {
    version: raw.version ?? REPORT_VERSION,
    engine_version: raw.engine_version ?? "?",
    mode: raw.mode ?? "script",
    ok: raw.ok ?? !raw.error,
    label: raw.label ?? null,
    stdout: raw.stdout ?? "",
    stderr: raw.stderr ?? "",
    result: raw.result ?? null,
    error: raw.error ? { ...raw.error, mro: raw.error.mro ?? [], traceback: raw.error.traceback ?? [] } : null,
    calls: (raw.calls ?? []).map((c) => ({
      ...c,
      stages: (c.stages ?? []).map((s) => ({ ...s, graph: s.graph ? normalizeGraph(s.graph) : null })),
      timings: c.timings ?? [],
    })),
    timings: raw.timings ?? [],
    prints: raw.prints ?? [],
    device_count: raw.device_count ?? 1,
    duration_ms: raw.duration_ms ?? 0,
  };
  return r;
}

function normalizeGraph(g: Partial<IRGraph>): IRGraph {
  return {
    name: g.name ?? "",
    invars: g.invars ?? [],
    constvars: g.constvars ?? [],
    outvars: g.outvars ?? [],
    vars: g.vars ?? {},
    nodes: (g.nodes ?? []).map((n) => ({
      ...n,
      params: n.params ?? {},
      inputs: n.inputs ?? [],
      outputs: n.outputs ?? [],
      subgraphs: (n.subgraphs ?? []).map(normalizeGraph),
    })),
  };
}

/** A report field as a JS number (NaN/Infinity strings decoded), or null. */
export function num(v: NumberLike | undefined): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  const x = Number(v);
  return Number.isNaN(x) ? null : x;
}

/** The user's file as the engine names it in source info. */
export const USER_FILE = "<user>";

/** The line in the user's code a source info points at, or null for library code. */
export function userLine(src: SourceInfo | null | undefined): number | null {
  if (!src || !src.line) return null;
  return !src.file || src.file === USER_FILE ? src.line : null;
}

/** The call a report opens on, in the playground and in an embed alike: the one a session picked
 *  (by id) when the run has it, else for a stack run the stack's own call (the script's top-level
 *  calls run first, so it is the last with the run's label), else the script's first. */
export function openCallIndex(r: RunReport, picked: number | null = null): number {
  const chosen = picked === null ? -1 : r.calls.findIndex((c) => c.id === picked);
  if (chosen >= 0) return chosen;
  if (r.mode === "stack") {
    for (let i = r.calls.length - 1; i >= 0; i--) if (r.calls[i].label === r.label) return i;
    return Math.max(0, r.calls.length - 1);
  }
  return 0;
}
