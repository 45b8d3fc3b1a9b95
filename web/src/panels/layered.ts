// A fast layered (Sugiyama-style) layout for large graphs, in ELK's input/output format so the
// drawing code does not care which engine ran. ELK's layered algorithm gives nicer pictures but
// takes seconds for a few hundred nodes; this one is linear-ish and lays out thousands of nodes in
// tens of milliseconds: longest-path layers, a few barycenter sweeps to order each layer, nodes
// pulled towards their neighbours then packed apart, edges drawn as cubic curves (no routing
// around nodes). Compound nodes are laid out bottom-up; edges never cross a compound's border
// (the graph model keeps them per level), so each level is an independent layout.

import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";

const LAYER_GAP = 34;
const NODE_GAP = 18;
const PAD = 12;
const SWEEPS = 4;

interface Padding { top: number; left: number; bottom: number; right: number }

function padding(n: ElkNode): Padding {
  const spec = n.layoutOptions?.["elk.padding"];
  const out = { top: PAD, left: PAD, bottom: PAD, right: PAD };
  if (spec) for (const m of spec.matchAll(/(top|left|bottom|right)=(\d+(?:\.\d+)?)/g)) out[m[1] as keyof Padding] = Number(m[2]);
  return out;
}

/** Lay out ``root`` in place (children positions, compound sizes, edge sections) and return it. */
export function layeredLayout(root: ElkNode): ElkNode {
  layoutLevel(root, true);
  return root;
}

function layoutLevel(parent: ElkNode, isRoot: boolean) {
  const kids = parent.children ?? [];
  for (const c of kids) if (c.children?.length) layoutLevel(c, false);
  const pad = isRoot ? { top: PAD, left: PAD, bottom: PAD, right: PAD } : padding(parent);
  const n = kids.length;
  if (!n) { parent.width = Math.max(parent.width ?? 0, pad.left + pad.right + 40); parent.height = Math.max(parent.height ?? 0, pad.top + pad.bottom + 20); return; }
  const index = new Map<string, number>();
  kids.forEach((c, i) => index.set(c.id, i));
  const succ: number[][] = kids.map(() => []);
  const pred: number[][] = kids.map(() => []);
  const edges = (parent.edges ?? []) as ElkExtendedEdge[];
  for (const e of edges) {
    const a = index.get(e.sources[0]), b = index.get(e.targets[0]);
    if (a === undefined || b === undefined || a === b) continue;
    succ[a].push(b);
    pred[b].push(a);
  }
  // Longest-path layering in topological (Kahn) order; nodes left on a cycle keep input order.
  const layer = new Array<number>(n).fill(0);
  const indeg = pred.map((p) => p.length);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) queue.push(i);
  const seen = new Array<boolean>(n).fill(false);
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q];
    seen[v] = true;
    for (const w of succ[v]) {
      layer[w] = Math.max(layer[w], layer[v] + 1);
      if (--indeg[w] === 0) queue.push(w);
    }
  }
  for (let i = 0; i < n; i++) if (!seen[i]) for (const p of pred[i]) if (seen[p] || p < i) layer[i] = Math.max(layer[i], layer[p] + 1);
  // Sources (inputs, constants) sit just above their first use, not all in the top layer.
  for (let i = 0; i < n; i++) {
    if (!pred[i].length && succ[i].length) layer[i] = Math.max(0, Math.min(...succ[i].map((w) => layer[w])) - 1);
  }
  const depth = Math.max(...layer) + 1;
  const layers: number[][] = Array.from({ length: depth }, () => []);
  for (let i = 0; i < n; i++) layers[layer[i]].push(i);
  // Barycenter ordering: down sweeps use predecessors, up sweeps successors.
  const pos = new Array<number>(n).fill(0);
  for (const l of layers) l.forEach((v, i) => (pos[v] = i));
  const bary = (v: number, nb: number[]) => (nb.length ? nb.reduce((a, w) => a + pos[w], 0) / nb.length : pos[v]);
  for (let s = 0; s < SWEEPS; s++) {
    const down = s % 2 === 0;
    const order = down ? layers : [...layers].reverse();
    for (const l of order) {
      const key = new Map(l.map((v) => [v, bary(v, down ? pred[v] : succ[v])]));
      l.sort((a, b) => key.get(a)! - key.get(b)! || a - b);
      l.forEach((v, i) => (pos[v] = i));
    }
  }
  // Nodes given an ``elk.position`` (a jaxpr's inputs) keep its order among the places they took
  // in their layer, as ELK's semi-interactive crossing minimisation keeps it.
  const given = kids.map((c) => {
    const m = /^\(\s*(-?[\d.]+)/.exec(c.layoutOptions?.["elk.position"] ?? "");
    return m ? Number(m[1]) : null;
  });
  for (const l of layers) {
    const slots = l.flatMap((v, i) => (given[v] === null ? [] : [i]));
    const byPos = slots.map((i) => l[i]).sort((a, b) => given[a]! - given[b]!);
    slots.forEach((i, k) => (l[i] = byPos[k]));
  }
  // x: each node wants the mean centre of its already-placed predecessors; a left-to-right pass
  // keeps the gaps. y: layers stacked by their tallest node.
  const w = kids.map((c) => c.width ?? 60), h = kids.map((c) => c.height ?? 28);
  const cx = new Array<number>(n).fill(0);
  let y = pad.top;
  const layerY: number[] = [];
  for (const l of layers) {
    let right = -Infinity;
    for (const v of l) {
      const want = pred[v].length ? pred[v].reduce((a, p) => a + cx[p], 0) / pred[v].length : 0;
      cx[v] = Math.max(want, right + NODE_GAP + w[v] / 2);
      right = cx[v] + w[v] / 2;
    }
    layerY.push(y);
    y += Math.max(...l.map((v) => h[v])) + LAYER_GAP;
  }
  let minX = Infinity, maxX = -Infinity;
  for (let i = 0; i < n; i++) { minX = Math.min(minX, cx[i] - w[i] / 2); maxX = Math.max(maxX, cx[i] + w[i] / 2); }
  layers.forEach((l, li) => {
    for (const v of l) {
      kids[v].x = cx[v] - w[v] / 2 - minX + pad.left;
      kids[v].y = layerY[li];
    }
  });
  parent.width = Math.max(maxX - minX + pad.left + pad.right, 40);
  parent.height = y - LAYER_GAP + pad.bottom;
  for (const e of edges) {
    const a = index.get(e.sources[0]), b = index.get(e.targets[0]);
    if (a === undefined || b === undefined) continue;
    const A = kids[a], B = kids[b];
    const start = { x: A.x! + w[a] / 2, y: A.y! + h[a] };
    const end = { x: B.x! + w[b] / 2, y: B.y! };
    const dy = Math.max(16, (end.y - start.y) / 2);
    e.sections = [{ id: `${e.id}s`, startPoint: start, endPoint: end, bendPoints: [{ x: start.x, y: start.y + dy }, { x: end.x, y: end.y - dy }] }];
    for (const lab of e.labels ?? []) if (lab.width) { lab.x = (start.x + end.x) / 2 + 4; lab.y = (start.y + end.y) / 2 - 6; }
  }
}
