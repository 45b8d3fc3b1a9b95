// Which equations the IR graph shows together, and walking its nested graphs: runs of equations
// from one source line (cut at their period when a loop repeats them), the keys to open to reveal a
// node, every node with the nested ones.

import type { IRGraph, IRNode } from "../report";
import { userLine } from "../report";

/** A level with more equations than this folds runs of one source line into one box. */
export const GROUP_ABOVE = 40;

/** The most equations one line group holds; longer runs are cut into pieces of this size. */
const MAX_GROUP = 32;

/**
 * Consecutive equations from one user source line, when ``grouping``; every other equation (and
 * every equation with sub-jaxprs, which is its own box) is a run of one. A line inside a Python
 * loop makes one long run that repeats itself (dot_general add tanh, dot_general add tanh, ...):
 * such runs are cut at their period, one group per iteration, so the graph keeps its shape.
 */
export function groupRuns(nodes: IRNode[], grouping: boolean): IRNode[][] {
  const runs: IRNode[][] = [];
  for (const n of nodes) {
    const line = userLine(n.source);
    const last = runs[runs.length - 1];
    if (grouping && last && line !== null && !n.subgraphs.length && !last[0].subgraphs.length && userLine(last[0].source) === line) last.push(n);
    else runs.push([n]);
  }
  return runs.flatMap((r) => {
    if (r.length < 4) return [r];
    const p = period(r.map((n) => n.primitive));
    const size = p < r.length ? p : MAX_GROUP;
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
export function findPath(g: IRGraph, target: IRNode, prefix: string): string[] | null {
  for (const run of groupRuns(g.nodes, g.nodes.length > GROUP_ABOVE)) {
    for (const n of run) {
      const here = run.length > 1 ? [`${prefix}g:${run[0].id}`] : [];
      if (n === target) return here;
      for (let i = 0; i < n.subgraphs.length; i++) {
        const inner = findPath(n.subgraphs[i], target, `${prefix}${n.id}/${i}/`);
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
