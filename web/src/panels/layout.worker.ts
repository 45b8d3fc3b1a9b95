// Graph layout off the main thread: ELK's layered algorithm for graphs small enough for it, the
// fast layered layout for the rest (and when ELK fails, e.g. its recursion overflows the stack).

import type { ELK as ElkApi, ElkNode } from "elkjs/lib/elk-api";
import { layeredLayout } from "./layered";

export interface LayoutRequest { id: number; graph: ElkNode; engine: "elk" | "fast" }
export interface LayoutReply { id: number; graph?: ElkNode; engine?: "elk" | "fast"; error?: string; ms: number }

const ctx = self as unknown as { onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null; postMessage(m: LayoutReply): void };
let elk: Promise<ElkApi> | null = null;

async function layout(req: LayoutRequest): Promise<LayoutReply> {
  const t0 = performance.now();
  if (req.engine === "elk") {
    try {
      // Loaded on first use: parsing the bundle takes a second, and large graphs never need it.
      elk ??= import("elkjs/lib/elk.bundled.js").then((m) => {
        const api = new m.default();
        ctx.onmessage = onMessage; // the bundle installs its own handler when it sees a worker
        return api;
      });
      const graph = await (await elk).layout(structuredClone(req.graph));
      return { id: req.id, graph, engine: "elk", ms: performance.now() - t0 };
    } catch {
      // fall through to the fast layout
    }
  }
  try {
    return { id: req.id, graph: layeredLayout(req.graph), engine: "fast", ms: performance.now() - t0 };
  } catch (e) {
    return { id: req.id, error: String((e as Error).message ?? e), ms: performance.now() - t0 };
  }
}

function onMessage(e: MessageEvent<LayoutRequest>) {
  void layout(e.data).then((reply) => ctx.postMessage(reply));
}

ctx.onmessage = onMessage;
