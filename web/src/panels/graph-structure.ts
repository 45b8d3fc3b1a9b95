// Which equations the IR graph shows together, and walking its nested graphs: runs of equations
// from one source line, user function or named scope (cut at their period when a loop repeats
// them), the keys to open to reveal a node, every node with the nested ones.

import type { IRGraph, IRNode } from "../report";
import { userLine } from "../report";

/** An equation's primitive and params as make_jaxpr prints them: `integer_pow[y=-2]`. */
export function eqnHead(n: IRNode): string {
  const params = Object.entries(n.params).map(([k, v]) => `${k}=${v}`).join(" ");
  return params ? `${n.primitive}[${params}]` : n.primitive;
}

/** A node's label: its head and literal operands (`mul -2.0`), cut to ``max`` characters. */
export function eqnLabel(n: IRNode, max = Infinity): string {
  const lits = n.inputs.filter((a) => a.literal != null).map((a) => a.literal!);
  const text = [eqnHead(n), ...lits].join(" ");
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A level with more equations than this folds runs of one source line into one box. */
export const GROUP_ABOVE = 40;

/** The most equations one line group holds; longer runs are cut into pieces of this size. */
const MAX_GROUP = 32;

/** What runs of equations fold by: their source line, the user function (with the functions that
 *  called it) they came from, or their jax.named_scope / named_call names. */
export type GroupBy = "line" | "function" | "scope";

/** The key equations of one group share under ``by`` in a level of ``count`` equations; null:
 *  the equation stays on its own. Source lines fold above a size; functions and scopes (asked
 *  for explicitly) always, and equations outside any scope fold by line as usual. */
export function groupKey(n: IRNode, by: GroupBy, count: number): string | null {
  if (n.subgraphs.length) return null; // a box of its own
  const line = userLine(n.source);
  if (by === "scope" && n.source?.scope) return `scope:${n.source.scope}`;
  if (line === null) return null;
  if (by === "function") return [...(n.source?.callers ?? []), n.source?.function ?? "?"].join(" › ");
  return count > GROUP_ABOVE ? `line:${line}` : null;
}

/**
 * Consecutive equations with one key (see ``groupKey``); every other equation is a run of one.
 * A line inside a Python loop makes one long run that repeats itself (dot_general add tanh,
 * dot_general add tanh, ...): such runs are cut at their period, one group per iteration, so the
 * graph keeps its shape (line runs without a period are cut every ``MAX_GROUP``; a function or
 * scope stays whole).
 */
export function groupRuns(nodes: IRNode[], by: GroupBy = "line"): IRNode[][] {
  const runs: IRNode[][] = [];
  let lastKey: string | null = null;
  for (const n of nodes) {
    const key = groupKey(n, by, nodes.length);
    const last = runs[runs.length - 1];
    if (key !== null && last && key === lastKey) last.push(n);
    else runs.push([n]);
    lastKey = key;
  }
  return runs.flatMap((r) => {
    if (r.length < 4) return [r];
    const p = period(r.map((n) => n.primitive));
    const size = p < r.length ? p : groupKey(r[0], by, nodes.length)?.startsWith("line:") ? MAX_GROUP : r.length;
    const out: IRNode[][] = [];
    for (let i = 0; i < r.length; i += size) out.push(r.slice(i, i + size));
    return out;
  });
}

/** The smallest period of ``seq`` (repeated at least twice), else its length. */
function period(seq: string[]): number {
  for (let p = 1; p <= Math.min(MAX_GROUP, seq.length / 2); p++) {
    let ok = true;
    for (let i = 0; i + p < seq.length && ok; i++) ok = seq[i] === seq[i + p];
    if (ok) return p;
  }
  return seq.length;
}

/** The group and compound keys that must be open to show ``target``, outermost first. */
export function findPath(g: IRGraph, target: IRNode, prefix: string, by: GroupBy = "line"): string[] | null {
  for (const run of groupRuns(g.nodes, by)) {
    for (const n of run) {
      const here = run.length > 1 ? [`${prefix}g:${run[0].id}`] : [];
      if (n === target) return here;
      for (let i = 0; i < n.subgraphs.length; i++) {
        const inner = findPath(n.subgraphs[i], target, `${prefix}${n.id}/${i}/`, by);
        if (inner) return [...here, `${prefix}${n.id}`, ...inner];
      }
    }
  }
  return null;
}

export function* allNodes(g: IRGraph): Generator<IRNode> {
  for (const n of g.nodes) {
    yield n;
    for (const sg of n.subgraphs) yield* allNodes(sg);
  }
}

export function summarizePrims(run: IRNode[]): string {
  const counts = new Map<string, number>();
  for (const n of run) counts.set(n.primitive, (counts.get(n.primitive) ?? 0) + 1);
  return [...counts].map(([p, c]) => (c > 1 ? `${p}×${c}` : p)).join(" ");
}
