// The main thread's side of the layout worker: one worker for the page, created on first use,
// requests matched to replies by id. The page never runs a layout itself, so a large graph can
// take its time without freezing the editor or the buttons.

import type { ElkNode } from "elkjs/lib/elk-api";
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
