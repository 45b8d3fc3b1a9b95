// The IR as an interactive graph: equations as nodes (primitive, literals, source line), values as
// edges (name, shape, dtype); a layered ELK layout drawn to SVG with pan and zoom; sub-jaxprs of
// jit/pmap/cond/scan as collapsible boxes; nodes added by the stage's transformation highlighted.

import type { ELK as ElkApi, ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import { h, s } from "../dom";
import { typeStr } from "../format";
import type { IRGraph, IRNode } from "../report";
import { userLine } from "../report";

// ELK is large: load it on first use, so the page itself starts fast.
let elkPromise: Promise<ElkApi> | null = null;
function getElk(): Promise<ElkApi> {
  elkPromise ??= import("elkjs/lib/elk.bundled.js").then((m) => new m.default());
  return elkPromise;
}
const CHAR_W = 7.4;

interface Meta {
  kind: "eqn" | "in" | "out" | "const";
  node?: IRNode;
  label: string;
  sub?: string;
  title: string;
  compound?: boolean;
  expanded?: boolean;
  collapsible?: string; // key for toggling
}

export interface GraphHandlers {
  onSelect(node: IRNode | null): void;
}

export class GraphView {
  readonly el: HTMLElement;
  private svg: SVGSVGElement;
  private viewport: SVGGElement;
  private meta = new Map<string, Meta>();
  private nodeEls = new Map<string, SVGGElement>();
  private expanded = new Set<string>();
  private tx = 0; private ty = 0; private k = 1;
  private contentW = 1; private contentH = 1;
  private selected: string | null = null;
  private graph: IRGraph | null = null;
  private renderSeq = 0;

  constructor(private handlers: GraphHandlers) {
    this.viewport = s("g", { class: "viewport" });
    this.svg = s("svg", { class: "graph-svg", role: "group", "aria-label": "IR graph" },
      s("defs", null,
        s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))),
      this.viewport);
    const tools = h("div", { class: "graph-tools" },
      h("button", { type: "button", class: "icon", title: "Zoom in", "aria-label": "Zoom in", onclick: () => this.zoomBy(1.25) }, "+"),
      h("button", { type: "button", class: "icon", title: "Zoom out", "aria-label": "Zoom out", onclick: () => this.zoomBy(0.8) }, "−"),
      h("button", { type: "button", class: "icon", title: "Fit to view", "aria-label": "Fit to view", testid: "graph-fit", onclick: () => this.fit() }, "⤢"));
    this.el = h("div", { class: "graph", testid: "ir-graph" }, this.svg, tools,
      h("div", { class: "graph-legend" }, h("span", { class: "swatch added" }), "added by this stage",
        h("span", { class: "swatch linked" }), "from the selected source line"));
    this.installPanZoom();
  }

  async render(graph: IRGraph) {
    if (graph !== this.graph) {
      // A stage that is one call (jit, pmap) of a small program: open it right away.
      this.expanded.clear();
      if (graph.nodes.length <= 3) {
        for (const n of graph.nodes) {
          const inner = n.subgraphs.reduce((a, sg) => a + sg.nodes.length, 0);
          if (inner && inner <= 80) this.expanded.add(n.id);
        }
      }
    }
    this.graph = graph;
    const seq = ++this.renderSeq;
    this.meta.clear();
    const root: ElkNode = {
      id: "root",
      layoutOptions: {
        "elk.algorithm": "layered",
        "elk.direction": "DOWN",
        "elk.hierarchyHandling": "INCLUDE_CHILDREN",
        "elk.layered.spacing.nodeNodeBetweenLayers": "26",
        "elk.spacing.nodeNode": "22",
        "elk.spacing.edgeLabel": "3",
        "elk.spacing.edgeNode": "12",
        "elk.edgeLabels.inline": "false",
        "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
        "elk.edgeRouting": "SPLINES",
      },
      ...this.build(graph, ""),
    };
    let laid: ElkNode;
    try {
      laid = await (await getElk()).layout(root);
    } catch (e) {
      this.viewport.replaceChildren(s("text", { x: 10, y: 20, class: "tick" }, `Layout failed: ${(e as Error).message}`));
      return;
    }
    if (seq !== this.renderSeq) return;
    this.draw(laid);
    this.fit();
  }

  /** Children and edges for a graph (or an expanded sub-jaxpr), ids prefixed to stay unique. */
  private build(g: IRGraph, prefix: string): { children: ElkNode[]; edges: ElkExtendedEdge[] } {
    const children: ElkNode[] = [];
    const edges: ElkExtendedEdge[] = [];
    const producer = new Map<string, string>();
    const varType = (v: string) => {
      const x = g.vars[v];
      return x ? typeStr(x.dtype, x.shape) : "";
    };
    const box = (id: string, m: Meta, extra: Partial<ElkNode> = {}): ElkNode => {
      this.meta.set(id, m);
      const w = Math.max(m.label.length, (m.sub ?? "").length * 0.85) * CHAR_W + 26;
      return { id, width: Math.max(56, w), height: m.sub ? 40 : 28, ...extra };
    };
    for (const v of g.constvars) {
      const id = `${prefix}const:${v}`;
      producer.set(v, id);
      children.push(box(id, { kind: "const", label: v, sub: varType(v), title: `constant ${v}: ${varType(v)}` }));
    }
    g.invars.forEach((v, i) => {
      const id = `${prefix}in:${v}`;
      producer.set(v, id);
      children.push(box(id, { kind: "in", label: v, sub: varType(v), title: `input ${i}: ${v}: ${varType(v)}` }));
    });
    let edgeN = 0;
    const edge = (from: string, to: string, v: string): ElkExtendedEdge => {
      const text = `${v}: ${varType(v)}`;
      return {
        id: `${prefix}e${edgeN++}`, sources: [from], targets: [to],
        labels: [{ text, width: text.length * 6.2 + 4, height: 12 }],
      };
    };
    for (const n of g.nodes) {
      const id = `${prefix}${n.id}`;
      n.outputs.forEach((o) => producer.set(o, id));
      const lits = n.inputs.filter((a) => a.literal != null).map((a) => a.literal!);
      const label = lits.length ? `${n.primitive} ${lits.join(" ")}` : n.primitive;
      const params = Object.entries(n.params).map(([k, v]) => `${k}=${v}`);
      const title = [
        `${n.outputs.join(" ")} = ${n.primitive}${params.length ? `[${params.join(", ")}]` : ""} ${n.inputs.map((a) => a.var ?? a.literal).join(" ")}`,
        userLine(n.source) ? `line ${n.source!.line}${n.source!.function ? ` in ${n.source!.function}` : ""}` : "",
        n.added ? "added by this stage's transformation" : "",
      ].filter(Boolean).join("\n");
      const line = userLine(n.source);
      const sub = line ? `line ${line}` : params.length ? shorten(params.join(" "), 28) : undefined;
      if (n.subgraphs.length) {
        const key = id;
        const expanded = this.expanded.has(key);
        const eqns = n.subgraphs.reduce((a, sg) => a + sg.nodes.length, 0);
        const m: Meta = { kind: "eqn", node: n, label: `${expanded ? "▾" : "▸"} ${label}`, sub: expanded ? sub : `${eqns} eqn${eqns === 1 ? "" : "s"} inside · ${sub ?? ""}`, title, compound: true, expanded, collapsible: key };
        if (expanded) {
          const inner = n.subgraphs.map((sg, i) => this.build(sg, `${id}/${i}/`));
          this.meta.set(id, m);
          children.push({
            id,
            layoutOptions: { "elk.padding": "[top=44,left=12,bottom=12,right=12]" },
            children: inner.flatMap((x) => x.children),
            edges: inner.flatMap((x) => x.edges),
          });
        } else {
          children.push(box(id, m));
        }
      } else {
        children.push(box(id, { kind: "eqn", node: n, label, sub, title }));
      }
      for (const a of n.inputs) {
        if (!a.var) continue;
        const from = producer.get(a.var);
        if (from) edges.push(edge(from, id, a.var));
      }
    }
    g.outvars.forEach((a, i) => {
      const id = `${prefix}out:${i}`;
      const lbl = a.var ?? a.literal ?? "?";
      children.push(box(id, { kind: "out", label: `out ${i}`, sub: a.var ? varType(a.var) : lbl, title: `output ${i}: ${lbl}` }));
      if (a.var && producer.get(a.var)) edges.push(edge(producer.get(a.var)!, id, a.var));
    });
    return { children, edges };
  }

  private draw(root: ElkNode) {
    this.nodeEls.clear();
    const edgeLayer = s("g", { class: "edges" });
    const nodeLayer = s("g", { class: "nodes" });
    const walk = (n: ElkNode, ox: number, oy: number) => {
      for (const c of n.children ?? []) {
        const x = ox + (c.x ?? 0), y = oy + (c.y ?? 0);
        const m = this.meta.get(c.id);
        if (m) nodeLayer.appendChild(this.drawNode(c, m, x, y));
        if (c.children?.length) walk(c, x, y);
      }
      for (const e of n.edges ?? []) {
        for (const sec of e.sections ?? []) {
          const pts = [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint];
          edgeLayer.appendChild(s("path", { d: splinePath(pts.map((p) => ({ x: p.x + ox, y: p.y + oy }))), class: "edge", "marker-end": "url(#arrow)" },
            s("title", null, e.labels?.[0]?.text ?? "")));
        }
        for (const l of e.labels ?? []) {
          edgeLayer.appendChild(s("text", { x: ox + (l.x ?? 0) + 2, y: oy + (l.y ?? 0) + 10, class: "edge-label" }, l.text ?? ""));
        }
      }
    };
    walk(root, 0, 0);
    this.contentW = root.width ?? 1;
    this.contentH = root.height ?? 1;
    this.viewport.replaceChildren(edgeLayer, nodeLayer);
    this.applySelection();
  }

  private drawNode(c: ElkNode, m: Meta, x: number, y: number): SVGGElement {
    const w = c.width ?? 60, hgt = c.height ?? 28;
    const cls = ["node", m.kind, m.node?.added ? "added" : "", m.compound ? "compound" : "", m.expanded ? "expanded" : ""].filter(Boolean).join(" ");
    const shape = m.kind === "in" || m.kind === "out" || m.kind === "const"
      ? s("rect", { width: w, height: hgt, rx: hgt / 2, ry: hgt / 2 })
      : s("rect", { width: w, height: hgt, rx: 6, ry: 6 });
    const text = m.expanded
      ? [s("text", { x: 10, y: 18, class: "node-label" }, m.label), m.sub ? s("text", { x: 10, y: 33, class: "node-sub" }, m.sub) : null]
      : [s("text", { x: w / 2, y: m.sub ? 17 : 18, "text-anchor": "middle", class: "node-label" }, m.label),
         m.sub ? s("text", { x: w / 2, y: 32, "text-anchor": "middle", class: "node-sub" }, m.sub) : null];
    const g = s("g", {
      class: cls, transform: `translate(${x},${y})`, "data-id": c.id, testid: m.kind === "eqn" ? "ir-node" : `ir-${m.kind}`,
      "data-primitive": m.node?.primitive, "data-line": userLine(m.node?.source) ?? undefined, "data-added": m.node?.added ? "true" : undefined,
      tabindex: m.kind === "eqn" ? 0 : undefined, role: m.kind === "eqn" ? "button" : undefined,
      "aria-label": m.kind === "eqn" ? m.title.split("\n").join(", ") : undefined,
    }, s("title", null, m.title), shape, text);
    if (m.kind === "eqn") {
      const activate = (e: Event) => {
        e.stopPropagation();
        if (m.compound && m.collapsible && (e as MouseEvent).detail >= 2) return;
        this.select(c.id);
      };
      g.addEventListener("click", activate);
      g.addEventListener("dblclick", (e) => { e.stopPropagation(); if (m.collapsible) this.toggle(m.collapsible); });
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.select(c.id); }
        if (m.collapsible && (e.key === "+" || e.key === "-" || e.key === "ArrowRight" || e.key === "ArrowLeft")) { e.preventDefault(); this.toggle(m.collapsible); }
      });
      if (m.collapsible) {
        const btn = s("g", { class: "toggle", transform: `translate(${w - 22},4)` },
          s("title", null, m.expanded ? "Collapse" : "Expand"),
          s("rect", { width: 18, height: 18, rx: 4 }),
          s("text", { x: 9, y: 13.5, "text-anchor": "middle" }, m.expanded ? "−" : "+"));
        btn.addEventListener("click", (e) => { e.stopPropagation(); this.toggle(m.collapsible!); });
        g.appendChild(btn);
      }
    }
    this.nodeEls.set(c.id, g);
    return g;
  }

  private toggle(key: string) {
    if (this.expanded.has(key)) this.expanded.delete(key); else this.expanded.add(key);
    if (this.graph) void this.render(this.graph);
  }

  private select(id: string | null) {
    this.selected = this.selected === id ? null : id;
    this.applySelection();
    const m = this.selected ? this.meta.get(this.selected) : null;
    this.handlers.onSelect(m?.node ?? null);
  }

  /** Select the node with this IR id (from the text view or the debugger). */
  selectNode(nodeId: string) {
    for (const [id, m] of this.meta) if (m.node?.id === nodeId && !id.includes("/")) { this.selected = id; break; }
    this.applySelection();
  }

  private applySelection() {
    for (const [id, g] of this.nodeEls) g.classList.toggle("selected", id === this.selected);
  }

  /** Mark nodes whose source is this line (editor cursor → graph). */
  highlightLine(line: number | null) {
    let count = 0;
    for (const [id, g] of this.nodeEls) {
      const on = line !== null && userLine(this.meta.get(id)?.node?.source) === line;
      g.classList.toggle("linked", on);
      if (on) count++;
    }
    return count;
  }

  // ---- pan & zoom -----------------------------------------------------------------------------

  private apply() {
    this.viewport.setAttribute("transform", `translate(${this.tx},${this.ty}) scale(${this.k})`);
    // Semantic zoom: edge labels (name: type) only where they are legible; edges keep a tooltip.
    this.svg.classList.toggle("zoomed-out", this.k < 0.85);
  }

  /** Fit the width, keep labels readable (a tall graph is top-aligned and panned), centre the rest. */
  fit() {
    const box = this.svg.getBoundingClientRect();
    const W = box.width || 600, H = box.height || 400;
    const pad = 20;
    const fitW = (W - 2 * pad) / this.contentW, fitH = (H - 2 * pad) / this.contentH;
    this.k = Math.min(1.25, fitW, Math.max(Math.min(fitW, fitH), 0.8));
    this.tx = (W - this.contentW * this.k) / 2;
    this.ty = this.contentH * this.k > H - 2 * pad ? pad : (H - this.contentH * this.k) / 2;
    this.apply();
  }

  private zoomBy(f: number, cx?: number, cy?: number) {
    const box = this.svg.getBoundingClientRect();
    const px = cx ?? box.width / 2, py = cy ?? box.height / 2;
    const k = Math.min(4, Math.max(0.15, this.k * f));
    this.tx = px - ((px - this.tx) * k) / this.k;
    this.ty = py - ((py - this.ty) * k) / this.k;
    this.k = k;
    this.apply();
  }

  private installPanZoom() {
    let drag: { x: number; y: number; tx: number; ty: number } | null = null;
    this.svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = this.svg.getBoundingClientRect();
      this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
    }, { passive: false });
    this.svg.addEventListener("pointerdown", (e) => {
      if ((e.target as Element).closest(".node")) return;
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty };
      this.svg.setPointerCapture(e.pointerId);
      this.svg.classList.add("dragging");
    });
    this.svg.addEventListener("pointermove", (e) => {
      if (!drag) return;
      this.tx = drag.tx + e.clientX - drag.x;
      this.ty = drag.ty + e.clientY - drag.y;
      this.apply();
    });
    const end = () => { drag = null; this.svg.classList.remove("dragging"); };
    this.svg.addEventListener("pointerup", end);
    this.svg.addEventListener("pointercancel", end);
    this.svg.addEventListener("click", (e) => {
      if (!(e.target as Element).closest(".node") && this.selected) this.select(null);
    });
    this.svg.tabIndex = 0;
    this.svg.addEventListener("keydown", (e) => {
      const step = 40;
      if (e.target !== this.svg) return;
      if (e.key === "+" || e.key === "=") this.zoomBy(1.2);
      else if (e.key === "-") this.zoomBy(1 / 1.2);
      else if (e.key === "0") this.fit();
      else if (e.key === "ArrowLeft") this.tx += step;
      else if (e.key === "ArrowRight") this.tx -= step;
      else if (e.key === "ArrowUp") this.ty += step;
      else if (e.key === "ArrowDown") this.ty -= step;
      else return;
      e.preventDefault();
      this.apply();
    });
  }
}

function shorten(t: string, n: number): string {
  return t.length > n ? t.slice(0, n - 1) + "…" : t;
}

/** A smooth path through ELK's spline control points (or a polyline for two points). */
function splinePath(pts: { x: number; y: number }[]): string {
  if (pts.length === 2) return `M${pts[0].x},${pts[0].y} L${pts[1].x},${pts[1].y}`;
  let d = `M${pts[0].x},${pts[0].y}`;
  let i = 1;
  // ELK SPLINES emit cubic Bézier control points in groups of three.
  for (; i + 2 < pts.length; i += 3) d += ` C${pts[i].x},${pts[i].y} ${pts[i + 1].x},${pts[i + 1].y} ${pts[i + 2].x},${pts[i + 2].y}`;
  for (; i < pts.length; i++) d += ` L${pts[i].x},${pts[i].y}`;
  return d;
}
