// The IR as an interactive graph: equations as nodes (primitive, literals, source line), values as
// edges (name, shape, dtype), drawn to SVG with pan and zoom. Layout runs in a web worker (ELK for
// small graphs, a fast layered layout for large ones), so the page stays responsive. Structure
// keeps large graphs readable: runs of equations from one source line fold into one box, and
// sub-jaxprs (jit, pmap, cond branches, loop bodies, custom rules) are collapsible boxes; both are
// collapsed by default above a size. Search, a minimap and focus-on-neighbourhood help find things.

import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import { h, s } from "../dom";
import { typeStr } from "../format";
import type { IRGraph, IRNode } from "../report";
import { userLine } from "../report";
import { SLICE_MS, nextFrame, yieldToMain } from "../slices";
import { type GroupBy, allNodes, eqnHead, eqnLabel, findPath, groupKey, groupRuns, summarizePrims } from "./graph-structure";
import { type Box, Viewport } from "./graph-viewport";
import { ELK_NODE_LIMIT, ELK_OPTIONS, IN_ORDER, countNodes, inputOptions, layoutInWorker, stripLabels } from "./layout";
import "./ir-views.css";

const CHAR_W = 7.4;
/** The expand/collapse toggle's share of a box's width, from its right edge (18 wide, 4 from the edge). */
const TOGGLE_W = 22;
/** Characters of a node's label (`primitive[params] literals`); the tooltip has all of it. */
const LABEL_MAX = 34;
/** How groups fold, for every graph view of the page (the user's last choice). */
let groupBy: GroupBy = "line";
/** Sub-jaxprs with at most this many equations open by default when the stage is just that call. */
const OPEN_INNER_UP_TO = 80;
const PLAIN_EDGES_ABOVE = 300;
/** Room around what a drawing band holds: strokes, arrowheads, the focus and selection outlines. */
const BAND_MARGIN = 12;
/** A band's greatest height (graph units), however many items a time slice draws: how much of a
 * large graph the browser renders off screen must not depend on how fast this machine drew it. */
const BAND_MAX = 480;

/** Extra per-node marks from other views (diff status, cost heat), keyed by the IR node. */
export interface NodeDecoration {
  cls?: string;
  /** Set as the node's data-diff attribute: "added" or "changed". */
  diff?: string;
  note?: string;
}

interface Meta {
  /** "sub": the box of one of an equation's sub-jaxprs (a cond branch, a while's body). */
  kind: "eqn" | "group" | "in" | "out" | "const" | "sub";
  node?: IRNode;
  members?: IRNode[];
  label: string;
  sub?: string;
  title: string;
  compound?: boolean;
  expanded?: boolean;
  collapsible?: string; // key for toggling
  line?: number | null;
  deco?: NodeDecoration;
  heat?: number;
  /** For a group: what it folds by ("line", "function" or "scope"). */
  group?: string;
}

export interface GraphHandlers {
  onSelect(node: IRNode | null): void;
}

export interface RenderStats {
  nodes: number;
  engine: "elk" | "fast";
  layoutMs: number;
  totalMs: number;
}

export class GraphView {
  readonly el: HTMLElement;
  /** The visible window onto the graph: pan and zoom events land here. */
  private stage: HTMLElement;
  /** The graph at its own size, moved and scaled by a CSS transform; holds the SVG layers. */
  private canvas: HTMLElement;
  private edgeLayers: HTMLElement;
  private nodeLayers: HTMLElement;
  private status: HTMLElement;
  private searchInput: HTMLInputElement;
  private searchCount: HTMLElement;
  private focusBtn: HTMLButtonElement;
  private view: Viewport;
  private meta = new Map<string, Meta>();
  private nodeEls = new Map<string, SVGGElement>();
  private boxes = new Map<string, Box>();
  private edgeEls: { el: SVGPathElement; from: string; to: string }[] = [];
  private visibleOf = new Map<IRNode, string>();
  private expanded = new Set<string>();
  private openGroups = new Set<string>();
  /** Theme colours for the minimap, read before drawing (reading them later forces a restyle). */
  private colors = { fg: "#889", accent: "#36c" };
  private selected: string | null = null;
  private focused = false;
  private graph: IRGraph | null = null;
  private renderSeq = 0;
  private matches: IRNode[] = [];
  private matchIndex = -1;
  private decorate: (n: IRNode) => NodeDecoration | undefined = () => undefined;
  private heatOf: ((n: IRNode) => number) | null = null;
  private heatMax = 1;
  private linkedLine: number | null = null;
  /** Equations picked elsewhere (a kernel's), outlined wherever they are drawn. */
  private marked: Set<IRNode> | null = null;
  private plainEdges = false;
  /** The last render's timings, for the benchmark and the status line. */
  lastStats: RenderStats | null = null;

  constructor(private handlers: GraphHandlers) {
    const defs = s("svg", { class: "graph-defs", width: 0, height: 0, "aria-hidden": "true" },
      s("defs", null,
        s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))));
    this.edgeLayers = h("div", { class: "graph-layers" });
    this.nodeLayers = h("div", { class: "graph-layers" });
    this.canvas = h("div", { class: "graph-canvas" }, defs, this.edgeLayers, this.nodeLayers);
    this.stage = h("div", { class: "graph-stage", role: "group", "aria-label": "IR graph" }, this.canvas);
    this.focusBtn = h("button", { type: "button", class: "icon", title: "Focus on the selected node's neighbourhood (f)", "aria-label": "Focus on neighbourhood", "aria-pressed": "false", testid: "graph-focus", disabled: true, onclick: () => this.toggleFocus() }, "◎");
    const tools = h("div", { class: "graph-tools" },
      h("button", { type: "button", class: "icon", title: "Zoom in", "aria-label": "Zoom in", onclick: () => this.view.zoomBy(1.25) }, "+"),
      h("button", { type: "button", class: "icon", title: "Zoom out", "aria-label": "Zoom out", onclick: () => this.view.zoomBy(0.8) }, "−"),
      h("button", { type: "button", class: "icon", title: "Fit to view (0)", "aria-label": "Fit to view", testid: "graph-fit", onclick: () => this.fit() }, "⤢"),
      this.focusBtn,
      h("button", { type: "button", class: "icon", title: "Expand every group and sub-jaxpr", "aria-label": "Expand all", testid: "graph-expand-all", onclick: () => this.setAllExpanded(true) }, "⊞"),
      h("button", { type: "button", class: "icon", title: "Collapse every group and sub-jaxpr", "aria-label": "Collapse all", testid: "graph-collapse-all", onclick: () => this.setAllExpanded(false) }, "⊟"),
      // The minimap covers the stage's corner: "fit" keeps the graph clear of it, but a graph
      // larger than the stage passes under it, so it can be put away.
      h("button", {
        type: "button", class: "icon", title: "Show or hide the minimap", "aria-label": "Minimap", testid: "graph-minimap-toggle",
        "aria-pressed": String(!Viewport.minimapOff),
        onclick: (e: Event) => (e.currentTarget as HTMLElement).setAttribute("aria-pressed", String(this.view.toggleMinimap())),
      }, "▣"));
    this.searchInput = h("input", {
      type: "search", class: "graph-search", placeholder: "Find: primitive, variable, line 7…", "aria-label": "Find in graph", testid: "graph-search",
      oninput: () => this.search(this.searchInput.value),
      onkeydown: (e: KeyboardEvent) => { if (e.key === "Enter") { e.preventDefault(); void this.nextMatch(e.shiftKey ? -1 : 1); } },
    });
    this.searchCount = h("span", { class: "graph-search-count muted", testid: "graph-search-count" });
    this.status = h("span", { class: "graph-status muted", testid: "graph-status", "aria-live": "polite" });
    // A strip under the drawing area, never over it: zoomed in, nodes reach every edge of the stage.
    // Each swatch stays with its words when it wraps.
    const legend = h("div", { class: "graph-legend" },
      h("span", { class: "legend-item" }, h("span", { class: "swatch added" }), "added by this stage"),
      h("span", { class: "legend-item" }, h("span", { class: "swatch linked" }), "from the selected source line"),
      // The stage diff's marks, keyed only while some node carries one (ir-views.css).
      h("span", { class: "legend-item diff-key", testid: "legend-diff-changed" }, h("span", { class: "swatch diff-changed" }), "changed from the stage diffed with"),
      h("span", { class: "legend-item diff-key", testid: "legend-diff-added" }, h("span", { class: "swatch diff-added" }), "new against it"));
    const minimap = h("canvas", { class: "graph-minimap", width: 180, height: 120, testid: "graph-minimap", "aria-label": "Minimap: click to move there" });
    const find = h("div", { class: "graph-find" }, this.searchInput, this.searchCount,
      h("select", {
        testid: "graph-group-by", "aria-label": "Group equations by", title: "Fold runs of equations by their source line, the user function they came from, or their jax.named_scope",
        onchange: (e: Event) => this.setGroupBy((e.target as HTMLSelectElement).value as GroupBy),
      }, (["line", "function", "scope"] as const).map((v) => h("option", { value: v, selected: groupBy === v }, `by ${v}`))),
      this.status);
    // The tool column has its own strip beside the drawing, never over it: a graph wider than the
    // stage ran under the column's buttons, which hid its nodes there whatever the pan.
    this.el = h("div", { class: "graph", testid: "ir-graph" },
      h("div", { class: "graph-area" }, h("div", { class: "graph-port" }, this.stage, find, minimap), tools), legend);
    const gap = 12;
    this.view = new Viewport(this.stage, this.canvas, minimap, this.boxes, {
      insets: () => ({
        top: find.offsetTop + find.offsetHeight + gap,
        right: gap,
        bottom: gap,
        left: 20,
      }),
      onBackgroundClick: () => { if (this.selected) this.select(null); },
      onFocusKey: () => this.toggleFocus(),
    });
  }

  /** Keep what the user opened and picked in ``prev`` when it drew ``graph`` too (the same stage
   *  drawn again for another view, diff or heat), rather than starting closed again. */
  keepStateOf(prev: GraphView | null, graph: IRGraph) {
    if (!prev || prev.graph !== graph) return;
    this.graph = graph;
    this.expanded = new Set(prev.expanded);
    this.openGroups = new Set(prev.openGroups);
    this.selected = prev.selected;
  }

  /** Fit the whole graph when labels stay readable; otherwise readable zoom at the top (inputs), centred. */
  fit() {
    this.view.fit();
  }

  /** Marks from other views (the stage diff); applied at the next render. */
  setDecorations(fn: (n: IRNode) => NodeDecoration | undefined) {
    this.decorate = fn;
  }

  /** A cost per node drawn as a heat tint (groups sum their members); null turns it off. */
  setHeat(fn: ((n: IRNode) => number) | null) {
    this.heatOf = fn;
  }

  async render(graph: IRGraph): Promise<RenderStats | null> {
    const t0 = performance.now();
    if (graph !== this.graph) {
      // A stage that is one call (jit, pmap) of a small program: open it right away.
      this.expanded.clear();
      this.openGroups.clear();
      this.focused = false;
      if (graph.nodes.length <= 3) {
        for (const n of graph.nodes) {
          const inner = n.subgraphs.reduce((a, sg) => a + sg.nodes.length, 0);
          if (inner && inner <= OPEN_INNER_UP_TO) this.expanded.add(n.id);
        }
      }
    }
    this.graph = graph;
    const seq = ++this.renderSeq;
    this.el.dataset.state = "layout";
    // Let the panel around the graph paint first; building a big model takes a moment.
    await new Promise((r) => setTimeout(r, 0));
    if (seq !== this.renderSeq) return null;
    this.meta.clear();
    this.visibleOf.clear();
    const body = this.build(graph, "");
    this.heatMax = Math.max(1e-30, ...[...this.meta.values()].map((m) => m.heat ?? 0));
    // Building the model and handing it to the worker (a structured clone) are each a task's work.
    await yieldToMain();
    if (seq !== this.renderSeq) return null;
    const root: ElkNode = { id: "root", layoutOptions: ELK_OPTIONS, ...body };
    const total = countNodes(root);
    const labelled = total <= ELK_NODE_LIMIT;
    // Large graphs draw plain edges: arrowhead markers and per-edge tooltips cost more to
    // render than the rest of the graph (edges run downwards, so the direction stays clear).
    this.plainEdges = total > PLAIN_EDGES_ABOVE;
    if (!labelled) stripLabels(root);
    this.status.textContent = `laying out ${total} nodes…`;
    this.el.dataset.state = "layout";
    const reply = await layoutInWorker(root);
    if (seq !== this.renderSeq) return null;
    if (!reply.graph) {
      this.status.textContent = "";
      this.edgeLayers.replaceChildren();
      this.nodeLayers.replaceChildren(h("p", { class: "graph-failed" }, `Layout failed: ${reply.error ?? "unknown error"}`));
      this.el.dataset.state = "failed";
      return null;
    }
    const ok = await this.draw(reply.graph, seq);
    if (!ok) return null;
    const { fg, accent } = this.colors;
    this.view.renderMinimap((id) => {
      const m = this.meta.get(id);
      return m?.expanded ? null : m?.node?.added || m?.members?.some((n) => n.added) ? accent : fg;
    }, accent);
    if (this.matches.length) this.markMatches();
    this.highlightLine(this.linkedLine);
    this.applyMarks();
    const stats: RenderStats = { nodes: total, engine: reply.engine ?? "fast", layoutMs: reply.ms, totalMs: performance.now() - t0 };
    this.lastStats = stats;
    this.status.textContent = `${total} nodes · ${Math.round(stats.totalMs)} ms`;
    this.el.dataset.state = "ready";
    this.el.dataset.nodes = String(total);
    this.el.dataset.ms = String(Math.round(stats.totalMs));
    this.el.dataset.layoutMs = String(Math.round(reply.ms));
    return stats;
  }

  /** Children and edges for a graph (or an expanded sub-jaxpr), ids prefixed to stay unique. */
  private build(g: IRGraph, prefix: string): { children: ElkNode[]; edges: ElkExtendedEdge[] } {
    const children: ElkNode[] = [];
    const edges: ElkExtendedEdge[] = [];
    const producer = new Map<string, string>();
    const varType = (v: string) => {
      const x = g.vars[v];
      return x ? x.type || typeStr(x.dtype, x.shape) : "";
    };
    const box = (id: string, m: Meta, extra: Partial<ElkNode> = {}): ElkNode => {
      this.meta.set(id, m);
      const w = Math.max(m.label.length, (m.sub ?? "").length * 0.9) * CHAR_W + (m.collapsible ? 44 : 26);
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
      children.push(box(id, { kind: "in", label: v, sub: varType(v), title: `input ${i}: ${v}: ${varType(v)}` }, { layoutOptions: inputOptions(i) }));
    });
    let edgeN = 0;
    const seenEdge = new Set<string>();
    const edge = (from: string, to: string, v: string) => {
      const key = `${from}>${to}:${v}`;
      if (seenEdge.has(key)) return;
      seenEdge.add(key);
      const text = `${v}: ${varType(v)}`;
      edges.push({
        id: `${prefix}e${edgeN++}`, sources: [from], targets: [to],
        labels: [{ text, width: text.length * 6.2 + 4, height: 12 }],
      });
    };
    const connect = (n: IRNode, id: string, members?: Set<string>) => {
      for (const a of n.inputs) {
        if (!a.var) continue;
        const from = producer.get(a.var);
        if (from && from !== id && !(members?.has(a.var))) edge(from, id, a.var);
      }
    };
    for (const run of groupRuns(g.nodes, groupBy)) {
      const first = run[0];
      const groupId = `${prefix}g:${first.id}`;
      if (run.length > 1 && !this.openGroups.has(groupId)) {
        const line = userLine(first.source);
        const prims = summarizePrims(run);
        const decos = run.map((n) => this.decorate(n)).filter((d): d is NodeDecoration => !!d?.diff);
        const deco: NodeDecoration | undefined = decos.length ? {
          diff: decos.length === run.length && decos.every((d) => d.diff === "added") ? "added" : "changed",
          cls: decos.length === run.length && decos.every((d) => d.diff === "added") ? "diff-added" : "diff-changed",
          note: `${decos.length} of ${run.length} equations changed or added`,
        } : undefined;
        const m: Meta = {
          kind: "group", members: run, line, collapsible: groupId, deco,
          heat: this.heatOf ? run.reduce((a, n) => a + this.heatOf!(n), 0) : undefined,
          label: `▸ ${groupName(first, groupBy, g.nodes.length)} · ${run.length} eqns`, sub: shorten(prims, 40),
          title: `${run.length} equations from ${groupTitle(first, groupBy, g.nodes.length)}: ${prims}\nDouble-click or + to expand`,
          group: groupKind(first, groupBy, g.nodes.length),
        };
        const outs = new Set<string>();
        for (const n of run) { this.registerHidden(n, groupId); n.outputs.forEach((o) => outs.add(o)); }
        for (const n of run) connect(n, groupId, outs);
        for (const o of outs) producer.set(o, groupId);
        children.push(box(groupId, m));
        continue;
      }
      for (const n of run) {
        const id = `${prefix}${n.id}`;
        this.visibleOf.set(n, id);
        const label = eqnLabel(n, LABEL_MAX);
        const deco = this.decorate(n);
        const title = [
          `${n.outputs.join(" ")} = ${eqnHead(n)} ${n.inputs.map((a) => a.var ?? a.literal).join(" ")}`,
          userLine(n.source) ? `line ${n.source!.line}${n.source!.function ? ` in ${n.source!.function}` : ""}` : "",
          n.added ? "added by this stage's transformation" : "",
          deco?.note ?? "",
        ].filter(Boolean).join("\n");
        const line = userLine(n.source);
        const sub = line ? `line ${line}` : undefined;
        const inGroup = run.length > 1 ? groupId : undefined;
        if (n.subgraphs.length) {
          const key = id;
          const expanded = this.expanded.has(key);
          const eqns = n.subgraphs.reduce((a, sg) => a + sg.nodes.length, 0);
          const heat = this.heatOf?.(n);
          const m: Meta = { kind: "eqn", node: n, line, deco, heat, label: `${expanded ? "▾" : "▸"} ${label}`, sub: expanded ? sub : `${eqns} eqn${eqns === 1 ? "" : "s"} inside · ${sub ?? ""}`, title, compound: true, expanded, collapsible: key };
          if (expanded) {
            const inner = n.subgraphs.map((sg, i) => this.build(sg, `${id}/${i}/`));
            this.meta.set(id, m);
            // Several sub-jaxprs (a while's cond and body, a cond's branches) each get a box named
            // by its param, as make_jaxpr prints it; one (scan, jit, custom_jvp) needs none.
            const boxes = n.subgraphs.length > 1 ? inner.map((x, i): ElkNode => {
              const sid = `${id}/${i}`;
              this.meta.set(sid, { kind: "sub", label: n.subgraphs[i].name, title: `${n.subgraphs[i].name} of ${n.primitive}`, expanded: true });
              return { id: sid, width: 80, height: 40, layoutOptions: { "elk.padding": "[top=30,left=10,bottom=10,right=10]", ...IN_ORDER }, children: x.children, edges: x.edges };
            }) : null;
            children.push({
              id,
              layoutOptions: { "elk.padding": "[top=44,left=12,bottom=12,right=12]", ...IN_ORDER },
              children: boxes ?? inner.flatMap((x) => x.children),
              edges: boxes ? [] : inner.flatMap((x) => x.edges),
            });
          } else {
            for (const sg of n.subgraphs) for (const inner of allNodes(sg)) this.registerHidden(inner, id);
            children.push(box(id, m));
          }
        } else {
          children.push(box(id, { kind: "eqn", node: n, line, deco, heat: this.heatOf?.(n), label, sub, title, collapsible: inGroup }));
        }
        n.outputs.forEach((o) => producer.set(o, id));
        connect(n, id);
      }
    }
    g.outvars.forEach((a, i) => {
      const id = `${prefix}out:${i}`;
      const lbl = a.var ?? a.literal ?? "?";
      children.push(box(id, { kind: "out", label: `out ${i}`, sub: a.var ? varType(a.var) : lbl, title: `output ${i}: ${lbl}` }));
      if (a.var && producer.get(a.var)) edge(producer.get(a.var)!, id, a.var);
    });
    return { children, edges };
  }

  private registerHidden(n: IRNode, visible: string) {
    this.visibleOf.set(n, visible);
    for (const sg of n.subgraphs) for (const inner of allNodes(sg)) this.visibleOf.set(inner, visible);
  }

  /**
   * Draw the laid-out graph a slice at a time: each slice is built detached as an SVG layer of its
   * own, attached, and the browser renders it before the next slice starts. Separate layers keep
   * each frame's style, layout and paint to that slice (one big SVG repaints whole), and every
   * slice ends well within a frame, so input is never held up for long.
   */
  private async draw(root: ElkNode, seq: number): Promise<boolean> {
    this.nodeEls.clear();
    this.boxes.clear();
    this.edgeEls = [];
    const nodeSteps: { c: ElkNode; m: Meta; x: number; y: number }[] = [];
    const edgeSteps: { e: ElkExtendedEdge; ox: number; oy: number }[] = [];
    const walk = (n: ElkNode, ox: number, oy: number) => {
      for (const c of n.children ?? []) {
        const x = ox + (c.x ?? 0), y = oy + (c.y ?? 0);
        const m = this.meta.get(c.id);
        if (m) {
          this.boxes.set(c.id, { x, y, w: c.width ?? 60, h: c.height ?? 28 });
          nodeSteps.push({ c, m, x, y });
        }
        if (c.children?.length) walk(c, x, y);
      }
      for (const e of (n.edges ?? []) as ElkExtendedEdge[]) edgeSteps.push({ e, ox, oy });
    };
    walk(root, 0, 0);
    const contentW = root.width ?? 1, contentH = root.height ?? 1;
    this.view.setContent(contentW, contentH);
    this.edgeLayers.replaceChildren();
    this.nodeLayers.replaceChildren();
    const css = getComputedStyle(this.el);
    this.colors = {
      fg: css.getPropertyValue("--node-border").trim() || "#889",
      accent: css.getPropertyValue("--accent").trim() || "#36c",
    };
    // Zoom first, while the graph is empty: the zoom classes restyle every label.
    this.view.fit();
    // Compound boxes (expanded sub-jaxprs) first, so they lie under their contents; then what is
    // nearest the top (the inputs, where "fit" looks first).
    nodeSteps.sort((a, b) => Number(!!b.m.expanded) - Number(!!a.m.expanded) || a.y - b.y || a.x - b.x);
    const layer = () => s("svg", { class: "graph-layer", width: Math.ceil(contentW), height: Math.ceil(contentH) });
    const slices: (() => void)[] = [];
    // Each slice's layer sits in a band as tall as what it draws (the items come sorted by height),
    // which the browser does not style, lay out or paint while it is off screen (content-visibility):
    // a large graph costs what is in view, the rest as it is panned into view.
    const sliceOf = <T>(items: T[], host: HTMLElement, span: (item: T) => [number, number], drawOne: (item: T, into: SVGSVGElement) => void) => {
      let i = 0;
      const band = (t0: number) => {
        const into = layer();
        let top = Infinity, bottom = -Infinity;
        do {
          const [y0, y1] = span(items[i]);
          top = Math.min(top, y0);
          bottom = Math.max(bottom, y1);
          drawOne(items[i++], into);
        } while (i < items.length && performance.now() - t0 < SLICE_MS && span(items[i])[1] - top < BAND_MAX);
        top = Math.max(0, Math.floor(top) - BAND_MARGIN);
        bottom = Math.ceil(bottom) + BAND_MARGIN;
        into.style.top = `${-top}px`;
        host.appendChild(h("div", { class: "graph-band", style: { top: `${top}px`, width: `${Math.ceil(contentW)}px`, height: `${bottom - top}px` } }, into));
      };
      // A slice fills bands until its time is up (a band ends at BAND_MAX, the slice goes on).
      const next = () => {
        const t0 = performance.now();
        do band(t0); while (i < items.length && performance.now() - t0 < SLICE_MS);
        if (i < items.length) slices.push(next);
      };
      if (items.length) slices.push(next);
    };
    const edgeSpan = ({ e, oy }: { e: ElkExtendedEdge; oy: number }): [number, number] => {
      let y0 = Infinity, y1 = -Infinity;
      for (const sec of e.sections ?? []) for (const p of [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint]) { y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y); }
      for (const l of e.labels ?? []) if (l.y !== undefined) { y0 = Math.min(y0, l.y); y1 = Math.max(y1, l.y + 14); }
      return y0 <= y1 ? [y0 + oy, y1 + oy] : [oy, oy];
    };
    edgeSteps.sort((a, b) => edgeSpan(a)[0] - edgeSpan(b)[0]);
    sliceOf(edgeSteps, this.edgeLayers, edgeSpan, ({ e, ox, oy }, into) => this.drawEdge(e, ox, oy, into));
    sliceOf(nodeSteps, this.nodeLayers, ({ c, y }) => [y, y + (c.height ?? 28)], ({ c, m, x, y }, into) => into.appendChild(this.drawNode(c, m, x, y)));
    // Slices queue the next one as they go (each knows where it stopped).
    // (the first slice too: the task that received the layout has done its share)
    for (let k = 0; k < slices.length; k++) {
      await nextFrame();
      if (seq !== this.renderSeq) return false;
      slices[k]();
    }
    this.applySelection();
    return true;
  }

  private drawEdge(e: ElkExtendedEdge, ox: number, oy: number, into: SVGSVGElement) {
    for (const sec of e.sections ?? []) {
      const pts = [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint];
      const d = splinePath(pts.map((p) => ({ x: p.x + ox, y: p.y + oy })));
      const el = this.plainEdges ? s("path", { d, class: "edge" })
        : s("path", { d, class: "edge", "marker-end": "url(#arrow)" }, s("title", null, e.labels?.[0]?.text ?? ""));
      this.edgeEls.push({ el, from: e.sources[0], to: e.targets[0] });
      into.appendChild(el);
    }
    for (const l of e.labels ?? []) {
      if (l.x === undefined) continue;
      into.appendChild(s("text", { x: ox + (l.x ?? 0) + 2, y: oy + (l.y ?? 0) + 10, class: "edge-label" }, l.text ?? ""));
    }
  }

  private drawNode(c: ElkNode, m: Meta, x: number, y: number): SVGGElement {
    const w = c.width ?? 60, hgt = c.height ?? 28;
    const node = m.node;
    const cls = ["node", m.kind === "group" ? "eqn group" : m.kind, node?.added || m.members?.some((n) => n.added) ? "added" : "",
      m.compound ? "compound" : "", m.expanded ? "expanded" : "", m.kind === "eqn" && m.collapsible && !m.compound ? "grouped" : "", m.deco?.cls ?? ""].filter(Boolean).join(" ");
    const shape = m.kind === "in" || m.kind === "out" || m.kind === "const"
      ? s("rect", { width: w, height: hgt, rx: hgt / 2, ry: hgt / 2 })
      : s("rect", { width: w, height: hgt, rx: 6, ry: 6 });
    const heat = m.heat !== undefined ? m.heat / this.heatMax : undefined;
    const heatEl = heat !== undefined && heat > 0 && !m.expanded
      ? s("rect", { class: "heat", width: w, height: hgt, rx: 6, ry: 6, style: `fill-opacity:${(0.12 + 0.6 * Math.min(1, heat)).toFixed(2)}` })
      : null;
    // An open box is as wide as its contents: its label is cut to stay clear of the toggle.
    const room = Math.max(4, Math.floor((w - 10 - (m.collapsible ? 30 : 10)) / CHAR_W));
    // A closed box with a toggle centres its text on what the toggle leaves (its width has room for it).
    const toggled = !!m.collapsible && (m.kind === "group" || !!m.compound);
    const cx = toggled ? (w - TOGGLE_W) / 2 : w / 2;
    const text = m.expanded
      ? [s("text", { x: 10, y: 18, class: "node-label" }, shorten(m.label, room)), m.sub ? s("text", { x: 10, y: 33, class: "node-sub" }, shorten(m.sub, Math.floor(room / 0.9))) : null]
      : [s("text", { x: cx, y: m.sub ? 17 : 18, "text-anchor": "middle", class: "node-label" }, m.label),
         m.sub ? s("text", { x: cx, y: 32, "text-anchor": "middle", class: "node-sub" }, m.sub) : null];
    const clickable = m.kind === "eqn" || m.kind === "group";
    const g = s("g", {
      class: cls, transform: `translate(${x},${y})`, "data-id": c.id, testid: m.kind === "eqn" ? "ir-node" : m.kind === "group" ? "ir-group" : `ir-${m.kind}`,
      "data-primitive": node?.primitive, "data-line": m.line ?? undefined, "data-added": node?.added ? "true" : undefined,
      "data-count": m.members ? m.members.length : undefined, "data-group": m.group, "data-heat": heat !== undefined ? heat.toFixed(3) : undefined, "data-diff": m.deco?.diff,
      tabindex: clickable ? 0 : undefined, role: clickable ? "button" : undefined,
      "aria-label": clickable ? m.title.split("\n").join(", ") : undefined,
    }, s("title", null, m.title), shape, heatEl, text);
    if (clickable) {
      const activate = (e: Event) => {
        e.stopPropagation();
        if (m.collapsible && (e as MouseEvent).detail >= 2) return;
        this.select(c.id);
      };
      g.addEventListener("click", activate);
      g.addEventListener("dblclick", (e) => { e.stopPropagation(); if (m.collapsible) this.toggle(m.collapsible); });
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.select(c.id); }
        if (m.collapsible && (e.key === "+" || e.key === "-" || e.key === "ArrowRight" || e.key === "ArrowLeft")) { e.preventDefault(); this.toggle(m.collapsible); }
      });
      if (toggled) {
        const btn = s("g", { class: "toggle", transform: `translate(${w - TOGGLE_W},4)`, testid: "graph-toggle" },
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
    const set = key.includes("g:") ? this.openGroups : this.expanded;
    if (set.has(key)) set.delete(key); else set.add(key);
    if (this.graph) void this.render(this.graph);
  }

  /** Fold runs of equations by source line, user function or named scope (kept for later graphs). */
  setGroupBy(by: GroupBy) {
    groupBy = by;
    this.openGroups.clear();
    if (this.graph) void this.render(this.graph);
  }

  private setAllExpanded(open: boolean) {
    this.expanded.clear();
    this.openGroups.clear();
    if (open && this.graph) {
      const visit = (g: IRGraph, prefix: string) => {
        for (const run of groupRuns(g.nodes, groupBy)) {
          if (run.length > 1) this.openGroups.add(`${prefix}g:${run[0].id}`);
          for (const n of run) {
            if (!n.subgraphs.length) continue;
            this.expanded.add(`${prefix}${n.id}`);
            n.subgraphs.forEach((sg, i) => visit(sg, `${prefix}${n.id}/${i}/`));
          }
        }
      };
      visit(this.graph, "");
    }
    if (this.graph) void this.render(this.graph);
  }

  /** Open whatever hides ``target`` (its line group, the sub-jaxprs around it); true if anything changed. */
  private reveal(target: IRNode): boolean {
    if (!this.graph) return false;
    const path = findPath(this.graph, target, "", groupBy);
    if (!path) return false;
    let changed = false;
    for (const key of path) {
      const set = key.includes("g:") ? this.openGroups : this.expanded;
      if (!set.has(key)) { set.add(key); changed = true; }
    }
    return changed;
  }

  private select(id: string | null) {
    this.selected = this.selected === id ? null : id;
    if (!this.selected && this.focused) this.toggleFocus();
    this.applySelection();
    const m = this.selected ? this.meta.get(this.selected) : null;
    this.handlers.onSelect(m?.node ?? m?.members?.[0] ?? null);
  }

  /** Select ``node`` (picked in the text view), opening the group or sub-jaxpr that hides it. */
  async selectNode(node: IRNode) {
    if (this.reveal(node) && this.graph) await this.render(this.graph);
    const id = this.visibleOf.get(node);
    if (id) { this.selected = id; this.view.centerOn(id); }
    this.applySelection();
  }

  private applySelection() {
    for (const [id, g] of this.nodeEls) g.classList.toggle("selected", id === this.selected);
    this.focusBtn.disabled = !this.selected;
    if (this.focused) this.applyFocus();
  }

  // ---- focus on a neighbourhood -----------------------------------------------------------------

  private toggleFocus() {
    this.focused = !this.focused && !!this.selected;
    this.focusBtn.setAttribute("aria-pressed", String(this.focused));
    this.applyFocus();
    if (this.focused) this.view.fitTo(this.neighbourhood(this.selected!, 2));
  }

  /** Nodes within ``hops`` edges of ``id``, in either direction. */
  private neighbourhood(id: string, hops: number): Set<string> {
    const adj = new Map<string, string[]>();
    for (const e of this.edgeEls) {
      (adj.get(e.from) ?? adj.set(e.from, []).get(e.from)!).push(e.to);
      (adj.get(e.to) ?? adj.set(e.to, []).get(e.to)!).push(e.from);
    }
    const out = new Set([id]);
    let frontier = [id];
    for (let i = 0; i < hops; i++) {
      const next: string[] = [];
      for (const v of frontier) for (const w of adj.get(v) ?? []) if (!out.has(w)) { out.add(w); next.push(w); }
      frontier = next;
    }
    return out;
  }

  private applyFocus() {
    const keep = this.focused && this.selected ? this.neighbourhood(this.selected, 2) : null;
    for (const [id, g] of this.nodeEls) g.classList.toggle("dim", !!keep && !keep.has(id) && !id.startsWith(`${this.selected}/`));
    for (const e of this.edgeEls) e.el.classList.toggle("dim", !!keep && !(keep.has(e.from) && keep.has(e.to)));
    this.el.classList.toggle("focused", !!keep);
  }

  // ---- search ---------------------------------------------------------------------------------

  /** Mark the equations that match ``query`` (primitive, variable name, ``line N``, params). */
  search(query: string) {
    const q = query.trim().toLowerCase();
    this.matches = [];
    this.matchIndex = -1;
    if (q && this.graph) {
      const lineQ = /^(?:line\s*)?(\d+)$/.exec(q);
      for (const n of allNodes(this.graph)) {
        const hit = lineQ ? userLine(n.source) === Number(lineQ[1])
          : n.primitive.toLowerCase().includes(q) || n.outputs.some((o) => o.toLowerCase() === q)
            || n.inputs.some((a) => a.var?.toLowerCase() === q)
            || Object.entries(n.params).some(([k, v]) => `${k}=${v}`.toLowerCase().includes(q));
        if (hit) this.matches.push(n);
      }
    }
    this.markMatches();
  }

  private markMatches() {
    const hits = new Set<string>();
    for (const n of this.matches) { const id = this.visibleOf.get(n); if (id) hits.add(id); }
    for (const [id, g] of this.nodeEls) g.classList.toggle("match", hits.has(id));
    const q = this.searchInput.value.trim();
    this.searchCount.textContent = q ? `${this.matchIndex >= 0 ? `${this.matchIndex + 1}/` : ""}${this.matches.length} match${this.matches.length === 1 ? "" : "es"}` : "";
  }

  /** Go to the next (or previous) match, opening the group or sub-jaxpr that hides it. */
  async nextMatch(step = 1) {
    if (!this.matches.length || !this.graph) return;
    this.matchIndex = (this.matchIndex + step + this.matches.length) % this.matches.length;
    const target = this.matches[this.matchIndex];
    if (this.reveal(target)) await this.render(this.graph);
    const id = this.visibleOf.get(target);
    if (id) { this.selected = id; this.applySelection(); this.view.centerOn(id); this.handlers.onSelect(target); }
    this.markMatches();
  }

  /** Outline ``nodes`` (a kernel's equations), opening the groups and sub-jaxprs that hide them,
   *  and bring the first into view; null clears the marks. Returns how many boxes are marked. */
  async markNodes(nodes: IRNode[] | null): Promise<number> {
    this.marked = nodes && nodes.length ? new Set(nodes) : null;
    let changed = false;
    for (const n of nodes ?? []) changed = this.reveal(n) || changed;
    if (changed && this.graph) await this.render(this.graph);
    const count = this.applyMarks();
    const first = nodes?.map((n) => this.visibleOf.get(n)).find((id) => id);
    if (first) this.view.centerOn(first);
    return count;
  }

  private applyMarks(): number {
    const ids = new Set<string>();
    for (const n of this.marked ?? []) { const id = this.visibleOf.get(n); if (id) ids.add(id); }
    for (const [id, g] of this.nodeEls) g.classList.toggle("kernel-mark", ids.has(id));
    this.el.dataset.marked = String(ids.size);
    return ids.size;
  }

  /** Mark nodes whose source is this line (editor cursor → graph). */
  highlightLine(line: number | null) {
    this.linkedLine = line;
    let count = 0;
    for (const [id, g] of this.nodeEls) {
      const on = line !== null && this.meta.get(id)?.line === line;
      g.classList.toggle("linked", on);
      if (on) count++;
    }
    return count;
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

/** A group's label: the function (innermost), the scope, or the line. */
function groupName(first: IRNode, by: GroupBy, count: number): string {
  const key = groupKey(first, by, count) ?? "";
  if (key.startsWith("scope:")) return key.slice(6);
  if (key.startsWith("line:")) return `line ${key.slice(5)}`;
  return `${first.source?.function ?? "?"}()`;
}

function groupTitle(first: IRNode, by: GroupBy, count: number): string {
  const key = groupKey(first, by, count) ?? "";
  if (key.startsWith("scope:")) return `named scope ${key.slice(6)}`;
  if (key.startsWith("line:")) return `line ${key.slice(5)}${first.source?.function ? ` in ${first.source.function}` : ""}`;
  return `function ${key} (line ${first.source?.line ?? "?"} first)`;
}

function groupKind(first: IRNode, by: GroupBy, count: number): string {
  const key = groupKey(first, by, count) ?? "";
  return key.startsWith("scope:") ? "scope" : key.startsWith("line:") ? "line" : "function";
}
