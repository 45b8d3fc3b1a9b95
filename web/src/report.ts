// A hand-written mirror of engine/inspect/schema.py: the run report, the one contract between
// engine, server and page. Field names are identical to the pydantic models; keep the two in step.
// Non-finite floats arrive as the strings "NaN", "Infinity" and "-Infinity".

export const REPORT_VERSION = 1;

export type TransformName =
  | "grad" | "value_and_grad" | "jacfwd" | "jacrev" | "hessian" | "vmap" | "jit" | "pmap";

/** One layer of a transformation stack, innermost first. Options are Python expressions. */
export interface TransformSpec {
  name: TransformName;
  options: Record<string, string>;
}

export interface RunRequest {
  code: string;
  /** Target function; null runs the code as a script. */
  function: string | null;
  /** Innermost first. */
  stack: TransformSpec[];
  /** Arguments as Python expressions. */
  args: string[];
}

export interface SourceInfo {
  file: string;
  line: number;
  column?: number | null;
  function?: string | null;
}

/** float, or "NaN" / "Infinity" / "-Infinity", or null. */
export type NumberLike = number | string | null;

export interface ArraySummary {
  kind: "array";
  shape: number[];
  dtype: string;
  weak_type?: boolean;
  min?: NumberLike;
  max?: NumberLike;
  mean?: NumberLike;
  nan_count?: number;
  inf_count?: number;
  /** Nested lists up to the size cap, else null. */
  data?: unknown;
  truncated?: boolean;
  /** Device ids holding the shards, for sharded arrays. */
  devices?: number[] | null;
}

export interface TreeNode {
  kind: "tuple" | "list" | "dict" | "namedtuple" | "none" | "object";
  type_name?: string | null;
  keys?: string[] | null;
  children: Value[];
  repr?: string | null;
}

export type Value = ArraySummary | TreeNode;

export interface Frame {
  file: string;
  line: number;
  function: string;
  text?: string | null;
  user?: boolean;
}

export type LimitKind = "timeout" | "cpu" | "memory" | "output" | "code_size" | "killed";

export interface RunError {
  type: string;
  mro: string[];
  message: string;
  line?: number | null;
  column?: number | null;
  end_line?: number | null;
  end_column?: number | null;
  /** The transformation that raised, e.g. 'jit' or 'vmap'. */
  layer?: string | null;
  suggestion?: string | null;
  traceback: Frame[];
  limit?: LimitKind | null;
}

export interface IRVar {
  id: string;
  shape: number[];
  dtype: string;
  weak_type?: boolean;
}

export interface IRAtom {
  var?: string | null;
  literal?: string | null;
}

export interface IRNode {
  id: string;
  primitive: string;
  params: Record<string, string>;
  inputs: IRAtom[];
  outputs: string[];
  source?: SourceInfo | null;
  subgraphs: IRGraph[];
  /** Introduced by this stage's transformation. */
  added?: boolean;
  /** The first stage's equation this one descends from; stable across stages (for diffs). */
  origin?: string | null;
  cost?: EqnCost | null;
}

/** Estimated work (engine/inspect/cost.py), not a measurement. */
export interface EqnCost {
  flops: number;
  bytes: number;
}

export interface StageCost {
  flops: number;
  bytes: number;
  /** Keyed by user source line. */
  by_line: Record<string, EqnCost>;
  estimate: true;
}

export interface IRGraph {
  name: string;
  invars: string[];
  constvars: string[];
  outvars: IRAtom[];
  vars: Record<string, IRVar>;
  nodes: IRNode[];
}

export interface Stage {
  /** e.g. 'f', 'grad(f)', 'vmap(grad(f))'. */
  name: string;
  transform?: string | null;
  text: string;
  graph?: IRGraph | null;
  /** Traced on the call's concrete inputs (Python control flow depends on them): the path taken. */
  path_taken?: boolean;
  cost?: StageCost | null;
}

export interface JitInfo {
  backend: "numba" | "interpreter";
  cache: "hit" | "miss" | "disk";
  recompile_reason?: string | null;
  source?: string | null;
  /** Primitives run by the interpreter. */
  fallbacks: string[];
  /** What ran the call: the kernels, or the interpreter while they compiled in the background. */
  tier?: "compiled" | "interpreter";
  /** When the background compile finished (ms since the run started), if it did during the run. */
  compiled_ready_ms?: number | null;
}

export type TimingCategory =
  | "trace" | "transform" | "lower" | "compile" | "execute" | "transfer" | "collective" | "run";

export interface TimingEvent {
  name: string;
  category: TimingCategory;
  start_ms: number;
  duration_ms: number;
  device?: number | null;
  call?: number | null;
  /** For jit's trace and compile steps: "hit" (in-memory cache), "miss" or "disk" (kernel cache). */
  cache?: "hit" | "miss" | "disk" | null;
  /** For a jit call's execute event: which tier ran it. */
  tier?: "compiled" | "interpreter" | null;
  /** Ran alongside the host's phases (a first call's compile on the background thread). */
  background?: boolean;
}

export interface DeviceRecord {
  id: number;
  coords: number[];
  inputs: ArraySummary[];
  outputs: ArraySummary[];
  compute_ms: number;
  collective_wait_ms: number;
}

export interface CollectiveEvent {
  seq: number;
  primitive: string;
  axis_name: string;
  devices: number[];
  start_ms: number;
  duration_ms: number;
  nbytes: number;
  shape: number[];
  dtype: string;
  perm?: number[][] | null;
}

export interface PmapInfo {
  axis_names: (string | null)[];
  mesh: number[];
  devices: DeviceRecord[];
  collectives: CollectiveEvent[];
}

export interface DebugStep {
  index: number;
  node: string;
  primitive: string;
  source?: SourceInfo | null;
  outputs: ArraySummary[];
  nonfinite: boolean;
}

export interface DebugTrace {
  /** Name of the stage whose equations are stepped. */
  graph: string;
  steps: DebugStep[];
  first_nonfinite?: number | null;
  truncated: boolean;
}

export interface TransformedCall {
  id: number;
  /** The composed call as code, e.g. 'jit(vmap(grad(loss)))'. */
  label: string;
  function: string;
  source?: SourceInfo | null;
  stages: Stage[];
  jit?: JitInfo | null;
  pmap?: PmapInfo | null;
  debug?: DebugTrace | null;
  timings: TimingEvent[];
}

export interface DebugPrint {
  device?: number | null;
  text: string;
}

export interface RunReport {
  version: number;
  engine_version: string;
  mode: "script" | "stack";
  ok: boolean;
  label?: string | null;
  stdout: string;
  stderr: string;
  result?: Value | null;
  error?: RunError | null;
  calls: TransformedCall[];
  timings: TimingEvent[];
  prints: DebugPrint[];
  device_count: number;
  duration_ms: number;
}

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
