// The main thread's side of the layout worker: one worker for the page, created on first use,
// requests matched to replies by id. The page never runs a layout itself, so a large graph can
// take its time without freezing the editor or the buttons.

import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import type { LayoutReply, LayoutRequest } from "./layout.worker";

/** Graphs with more visible nodes than this use the fast layout; ELK is too slow above it. */
export const ELK_NODE_LIMIT = 50;

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, (r: LayoutReply) => void>();

function getWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    worker.onmessage = (e: MessageEvent<LayoutReply>) => {
      const done = pending.get(e.data.id);
      pending.delete(e.data.id);
      done?.(e.data);
    };
    worker.onerror = (e) => {
      for (const done of pending.values()) done({ id: 0, error: e.message || "layout worker failed", ms: 0 });
      pending.clear();
      worker = null;
    };
  }
  return worker;
}

export function countNodes(n: ElkNode): number {
  return (n.children ?? []).reduce((a, c) => a + 1 + countNodes(c), 0);
}

/** Lay out ``graph`` in the worker; ELK for small graphs, the fast layered layout above the limit. */
export function layoutInWorker(graph: ElkNode, engine?: "elk" | "fast"): Promise<LayoutReply> {
  const id = nextId++;
  const req: LayoutRequest = { id, graph, engine: engine ?? (countNodes(graph) <= ELK_NODE_LIMIT ? "elk" : "fast") };
  return new Promise((resolve) => {
    pending.set(id, resolve);
    getWorker().postMessage(req);
  });
}

/** Load ELK in the worker while the page is idle, ahead of the first graph: parsing its bundle
 *  and the first layouts' cold code had made the first IR graph of a session take 300-440 ms
 *  (16 nodes; later ones ~100 ms). A throwaway graph of two labelled edges warms the same paths. */
export function warmLayout(): void {
  const node = (id: string) => ({ id, width: 80, height: 30 });
  const edge = (id: string, a: string, b: string) => ({ id, sources: [a], targets: [b], labels: [{ text: "f32[]", width: 30, height: 10 }] });
  const sample: ElkNode = {
    id: "root",
    layoutOptions: ELK_OPTIONS,
    children: [node("a"), node("b"), node("c")],
    edges: [edge("e0", "a", "b"), edge("e1", "b", "c")],
  };
  const warm = () => void layoutInWorker(sample, "elk");
  if (typeof requestIdleCallback === "function") requestIdleCallback(warm, { timeout: 2000 });
  else setTimeout(warm, 500);
}

/** Options of every graph and compound box: crossing minimisation keeps the order of the nodes
 *  given an ``elk.position`` in their layer (the inputs, see inputOptions) and orders the rest as
 *  it likes. ELK's model-order options would do it too, but crash on nested boxes (elkjs 0.12). */
export const IN_ORDER = { "elk.layered.crossingMinimization.semiInteractive": "true" };

/** A jaxpr's ``i``-th input: in the top row of its box, left of the inputs after it, so
 *  ``f(x, y, z)`` reads x, y, z left to right (crossing minimisation swapped them freely, and
 *  layering put each input just above its first use, in a row of its own). */
export function inputOptions(i: number): Record<string, string> {
  return { "elk.layered.layering.layerConstraint": "FIRST", "elk.position": `(${i * 100},0)` };
}

/** The ELK options of the IR graph (the fast layout ignores them). */
export const ELK_OPTIONS = {
  "elk.algorithm": "layered",
  "elk.direction": "DOWN",
  "elk.hierarchyHandling": "INCLUDE_CHILDREN",
  "elk.layered.spacing.nodeNodeBetweenLayers": "26",
  "elk.spacing.nodeNode": "22",
  "elk.spacing.edgeLabel": "3",
  "elk.spacing.edgeNode": "12",
  "elk.edgeLabels.inline": "false",
  // NETWORK_SIMPLEX placement looked slightly tidier but took seconds at 60 nodes.
  "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
  "elk.edgeRouting": "SPLINES",
  ...IN_ORDER,
};

/** Edge labels reduced to their text (for a layout that does not place them). */
export function stripLabels(n: ElkNode) {
  for (const e of n.edges ?? []) (e as ElkExtendedEdge).labels = (e.labels ?? []).map((l) => ({ text: l.text }));
  for (const c of n.children ?? []) stripLabels(c);
}
