// A structural diff of two stages of one call: equations matched by origin (the first stage's
// equation they descend from, which the engine records stage to stage) and primitive, then
// compared: added, removed, or changed (output shapes, dtypes, params), with batch dimensions
// named when a shape only gained one axis. Works for any two stages, not just neighbours.

import { typeStr } from "../format";
import type { IRGraph, IRNode, Stage } from "../report";
import { userLine } from "../report";
import { allNodes } from "./graph-structure";

export interface NodeChange {
  kind: "added" | "changed";
  what: string[];
}

export interface StageDiff {
  added: IRNode[];
  removed: IRNode[];
  changed: IRNode[];
  unchanged: number;
  /** Per node of the newer stage: its change, if any. */
  byNode: Map<IRNode, NodeChange>;
  summary: string;
}

interface Entry { node: IRNode; graph: IRGraph }

function entries(g: IRGraph): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const seen = new Map<string, number>();
  const walk = (graph: IRGraph) => {
    for (const n of graph.nodes) {
      const base = `${n.origin ?? `line ${userLine(n.source) ?? "?"}`}|${n.primitive}`;
      const k = seen.get(base) ?? 0;
      seen.set(base, k + 1);
      out.set(`${base}#${k}`, { node: n, graph });
      for (const sg of n.subgraphs) walk(sg);
    }
  };
  walk(g);
  return out;
}

function outTypes(e: Entry): { shape: number[]; dtype: string; weak: boolean }[] {
  return e.node.outputs.map((o) => {
    const v = e.graph.vars[o];
    return { shape: v?.shape ?? [], dtype: v?.dtype ?? "?", weak: !!v?.weak_type };
  });
}

/** The axis ``b`` gained over ``a`` (same shape with one more dimension), or null. */
function batchAxis(a: number[], b: number[]): { axis: number; size: number } | null {
  if (b.length !== a.length + 1) return null;
  for (let ax = 0; ax < b.length; ax++) {
    if (a.every((d, i) => d === b[i < ax ? i : i + 1])) return { axis: ax, size: b[ax] };
  }
  return null;
}

/** What changed between two matched equations, in words; empty when nothing did. */
function compare(a: Entry, b: Entry, batches: Map<string, number>): string[] {
  const what: string[] = [];
  const ta = outTypes(a), tb = outTypes(b);
  ta.forEach((x, i) => {
    const y = tb[i];
    if (!y) return;
    if (x.shape.join() !== y.shape.join()) {
      const batch = batchAxis(x.shape, y.shape);
      if (batch) {
        const key = `${batch.size}@${batch.axis}`;
        batches.set(key, (batches.get(key) ?? 0) + 1);
        what.push(`batched: ${typeStr(x.dtype, x.shape)} → ${typeStr(y.dtype, y.shape)} (axis ${batch.axis} of ${batch.size})`);
      } else {
        what.push(`shape: ${typeStr(x.dtype, x.shape)} → ${typeStr(y.dtype, y.shape)}`);
      }
    } else if (x.dtype !== y.dtype) {
      what.push(`dtype: ${typeStr(x.dtype, x.shape)} → ${typeStr(y.dtype, y.shape)}`);
    } else if (x.weak !== y.weak) {
      what.push(`weak type: ${x.weak} → ${y.weak}`);
    }
  });
  if (ta.length !== tb.length) what.push(`outputs: ${ta.length} → ${tb.length}`);
  const keys = new Set([...Object.keys(a.node.params), ...Object.keys(b.node.params)]);
  for (const k of [...keys].sort()) {
    const pa = a.node.params[k], pb = b.node.params[k];
    if (pa !== pb) what.push(`${k}: ${pa ?? "—"} → ${pb ?? "—"}`);
  }
  return what;
}

function countPrims(nodes: IRNode[]): string {
  const c = new Map<string, number>();
  for (const n of nodes) c.set(n.primitive, (c.get(n.primitive) ?? 0) + 1);
  const top = [...c].sort((x, y) => y[1] - x[1]);
  const shown = top.slice(0, 3).map(([p, k]) => `${k} ${p}`);
  return shown.join(", ") + (top.length > 3 ? ", …" : "");
}

/** Diff stage ``a`` (older) against ``b`` (newer). */
export function diffStages(a: Stage, b: Stage): StageDiff {
  const ea = a.graph ? entries(a.graph) : new Map<string, Entry>();
  const eb = b.graph ? entries(b.graph) : new Map<string, Entry>();
  const byNode = new Map<IRNode, NodeChange>();
  const added: IRNode[] = [], changed: IRNode[] = [], removed: IRNode[] = [];
  const batches = new Map<string, number>();
  let unchanged = 0;
  let paramChanges = 0;
  for (const [k, y] of eb) {
    const x = ea.get(k);
    if (!x) { added.push(y.node); byNode.set(y.node, { kind: "added", what: [] }); continue; }
    const what = compare(x, y, batches);
    if (what.length) {
      changed.push(y.node);
      byNode.set(y.node, { kind: "changed", what });
      if (what.some((w) => !/^(batched|shape|dtype|weak type|outputs):/.test(w))) paramChanges++;
    } else unchanged++;
  }
  for (const [k, x] of ea) if (!eb.has(k)) removed.push(x.node);
  const parts: string[] = [];
  if (changed.length) {
    const [batch, count] = [...batches].sort((p, q) => q[1] - p[1])[0] ?? [];
    const detail: string[] = [];
    if (batch) {
      const [size, axis] = batch.split("@");
      detail.push(`${count} re-shaped with a ${axis === "0" ? "leading " : ""}batch of ${size}${axis === "0" ? "" : ` at axis ${axis}`}`);
    }
    if (paramChanges) detail.push(`${paramChanges} with new params`);
    parts.push(`${changed.length} equation${changed.length === 1 ? "" : "s"} changed${detail.length ? ` (${detail.join(", ")})` : ""}`);
  }
  if (added.length) parts.push(`${added.length} added (${countPrims(added)})`);
  if (removed.length) parts.push(`${removed.length} removed (${countPrims(removed)})`);
  if (!parts.length) parts.push("no equation changed");
  parts.push(`${unchanged} unchanged`);
  const label = b.transform ? `${b.transform}` : b.name;
  return { added, removed, changed, unchanged, byNode, summary: `${label} vs ${a.name}: ${parts.join("; ")}` };
}

/** Every node of a graph, nested ones included (re-exported for the panel). */
export { allNodes };
