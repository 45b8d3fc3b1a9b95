// The IR panel: one tab per stage of the stack (f, grad(f), vmap(grad(f)), …, lowered code), each
// with the jaxpr as an interactive graph and as text (a jit stage also as its lowered StableHLO).
// Nodes and text lines link to source lines.

import { empty, h, replace } from "../dom";
import { formatCount } from "../cost-gutter";
import { UNIT_SEP } from "../format";
import type { IRGraph, IRNode, KernelInfo, Stage, StageCost, TransformedCall } from "../report";
import { userLine } from "../report";
import { runSliced } from "../slices";
import { GraphView } from "./graph";
import { allNodes } from "./graph-structure";
import { nestedLinks } from "./jaxpr-links";
import { StablehloView } from "./stablehlo";
import { type StageDiff, diffStages } from "./stage-diff";

export interface IRHandlers {
  /** A node (or text line) was selected: highlight its source line(s). */
  onSourceLines(lines: number[]): void;
  /** The user picked a stage (by name), for the session to remember. */
  onStage?(name: string): void;
  /** The shown stage's estimated cost per source line (null: none shown), for the editor gutter. */
  onStageCost?(cost: StageCost | null): void;
  /** A link that opens this session in the two-stack comparison, when it fits in a URL. */
  compareLink?(): string | null;
  /** The user switched between the jaxpr and the lowered StableHLO, for the session to remember. */
  onForm?(form: IRForm): void;
  /** The user changed the panel's look (view, heat, diff base), for the session (and its links) to keep. */
  onLook?(look: IRLook): void;
}

/** The IR panel's look as a session keeps it: null for each default (graph and text, no heat, the
 *  previous stage as the diff base); the diff base is "none" or a stage index. */
export interface IRLook { irView: "graph" | "text" | null; heat: "flops" | "bytes" | null; diff: string | null }

type View = "graph" | "text" | "both";
/** Which program a jit stage shows: its jaxpr (graph and text) or its lowered StableHLO text. */
export type IRForm = "jaxpr" | "stablehlo";
type Heat = "off" | "flops" | "bytes";

/** Continuation blocks (sub-jaxprs, long params) of at least this many lines get a fold marker. */
const FOLD_MIN_LINES = 3;
const TEXT_CHUNK = 40;
/** …and start folded when longer than this. */
const FOLD_OPEN_UP_TO = 8;

export class IRPanel {
  readonly el: HTMLElement;
  private tabs: HTMLElement;
  private body: HTMLElement;
  private call: TransformedCall | null = null;
  private stageIndex = 0;
  private view: View = "both";
  private form: IRForm = "jaxpr";
  private hlo: StablehloView | null = null;
  private graph: GraphView | null = null;
  /** The last graph drawn, whose opened boxes a Text → Graph switch keeps. */
  private lastGraph: GraphView | null = null;
  /** The text's lines, with the equations each prints and how to unfold the block hiding it. */
  private textLines: { el: HTMLElement; nodes: IRNode[]; unfold?: () => void }[] = [];
  private linkedLine: number | null = null;
  /** A stage name to open when the next call shown has it (a restored session's). */
  private preferred: string | null = null;
  private wrapText = true;
  /** The stage to diff against: an index, or -1 for the previous stage; null for no diff. */
  private compareWith: number | null = -1;
  private heat: Heat = "off";
  private diff: StageDiff | null = null;
  private textSeq = 0;
  /** The equation last picked in the graph or text, kept while its stage is drawn again. */
  private picked: { stage: Stage; node: IRNode } | null = null;

  constructor(private handlers: IRHandlers) {
    this.tabs = h("div", { class: "stage-tabs", role: "tablist", "aria-label": "Stages", onscroll: () => this.markOverflow() });
    new ResizeObserver(() => this.markOverflow()).observe(this.tabs);
    this.body = h("div", { class: "stage-body" });
    this.el = h("div", { class: "ir", testid: "ir-panel" }, this.tabs, this.body);
  }

  show(call: TransformedCall | null) {
    const sameCall = this.call && call && this.call.id === call.id && this.call.label === call.label;
    this.call = call;
    this.dropStablehlo();
    if (!call) {
      this.handlers.onStageCost?.(null);
      replace(this.tabs);
      this.markOverflow();
      replace(this.body, empty("No transformed call yet.", "Run a function with a stack, or a script that calls grad, jit, vmap or pmap."));
      return;
    }
    const n = call.stages.length + (call.jit ? 1 : 0);
    if (!n) {
      this.handlers.onStageCost?.(null);
      replace(this.tabs);
      this.markOverflow();
      replace(this.body, empty("No IR recorded for this call.", "Its stages were not traced; pick it as the target function with a stack to see them."));
      return;
    }
    if (!sameCall || this.stageIndex >= n) this.stageIndex = Math.max(0, call.stages.length - 1);
    const want = this.preferred === null ? -1 : this.stageNames().indexOf(this.preferred);
    if (want >= 0) { this.stageIndex = want; this.preferred = null; }
    this.renderTabs();
    this.renderStage();
  }

  /** Show jit stages as this form (stages without a lowered program show their jaxpr). */
  /** Show the panel as a restored session had it. */
  setLook(look: Partial<IRLook>) {
    this.view = look.irView ?? "both";
    this.heat = look.heat ?? "off";
    this.compareWith = look.diff == null ? -1 : look.diff === "none" ? null : Number(look.diff);
    if (this.call) this.renderStage();
  }

  private lookChanged() {
    this.handlers.onLook?.({
      irView: this.view === "both" ? null : this.view,
      heat: this.heat === "off" ? null : this.heat,
      diff: this.compareWith === -1 ? null : this.compareWith === null ? "none" : String(this.compareWith),
    });
  }

  setForm(form: IRForm) {
    this.form = form;
    if (this.call) this.renderStage();
  }

  /** Open the stage with this name when a call that has it is shown. */
  preferStage(name: string | null) {
    this.preferred = name;
  }

  private stageNames(): string[] {
    const call = this.call!;
    return [...call.stages.map((s) => s.name), ...(call.jit ? ["lowered code"] : [])];
  }

  private renderTabs() {
    const call = this.call!;
    const names = this.stageNames();
    replace(this.tabs, names.map((name, i) => {
      const stage = call.stages[i];
      return h("button", {
        type: "button", role: "tab", class: `stage-tab${i === this.stageIndex ? " active" : ""}`, testid: "stage-tab",
        "aria-selected": String(i === this.stageIndex), tabindex: i === this.stageIndex ? 0 : -1,
        onclick: () => { this.stageIndex = i; this.markActiveTab(); this.renderStage(); this.handlers.onStage?.(name); },
        onkeydown: (e: KeyboardEvent) => this.tabKeys(e, names.length),
        title: name,
      }, stage?.transform ? h("span", { class: "stage-transform" }, stage.transform) : null, h("span", { class: "mono stage-name" }, name));
    }));
    this.revealActiveTab();
  }

  /** Move the active mark to the open stage's tab. The tabs stay: replacing them would drop the
   *  focus of the one just clicked (and make the browser lay out the page again, mid-click). */
  private markActiveTab() {
    [...this.tabs.children].forEach((tab, i) => {
      const on = i === this.stageIndex;
      tab.classList.toggle("active", on);
      tab.setAttribute("aria-selected", String(on));
      tab.setAttribute("tabindex", on ? "0" : "-1");
    });
    this.revealActiveTab();
  }

  /** Scroll the tab strip so the open stage's tab is in view (the last, innermost-out stage opens
   *  first, and long stage names push it past the right edge). */
  private revealActiveTab() {
    // After the frame's layout: the panel is put in the page after it renders.
    requestAnimationFrame(() => {
      const tab = this.tabs.children[this.stageIndex] as HTMLElement | undefined;
      if (!tab || !this.tabs.clientWidth) return;
      const strip = this.tabs.getBoundingClientRect(), box = tab.getBoundingClientRect();
      // Clear of the 40px edge fade (styles.css) where more tabs lie beyond, with a few pixels to spare.
      if (box.right > strip.right - 44) this.tabs.scrollLeft += box.right - strip.right + 44;
      else if (box.left < strip.left + 44) this.tabs.scrollLeft -= strip.left - box.left + 44;
      this.markOverflow();
    });
  }

  /** Which edges of the tab strip have tabs scrolled out of view past them ("left", "right"): the
   *  strip fades out there, so a strip that scrolls looks like one. */
  private markOverflow() {
    const t = this.tabs, max = t.scrollWidth - t.clientWidth;
    const edges = [t.scrollLeft > 1 ? "left" : "", max - t.scrollLeft > 1 ? "right" : ""].filter(Boolean);
    t.dataset.overflow = edges.join(" ");
  }

  private tabKeys(e: KeyboardEvent, n: number) {
    const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!d) return;
    e.preventDefault();
    this.stageIndex = (this.stageIndex + d + n) % n;
    this.markActiveTab();
    this.renderStage();
    this.handlers.onStage?.(this.stageNames()[this.stageIndex]);
    (this.tabs.children[this.stageIndex] as HTMLElement | undefined)?.focus();
  }

  /** The stage is drawn anew on every switch: a focused switch (view, heat, form, diff base) hands
   *  the focus on to its new self, where it fell to the page's body. */
  private renderStage() {
    const a = document.activeElement;
    const key = a instanceof HTMLElement && this.body.contains(a) ? a.dataset.testid ?? "" : "";
    this.drawStage();
    if (/^(ir-view-|heat-|ir-form-|diff-base$)/.test(key) && !this.body.contains(document.activeElement)) {
      (this.body.querySelector(`[data-testid="${key}"]`) as HTMLElement | null)?.focus();
    }
  }

  private drawStage() {
    this.dropStablehlo();
    const call = this.call!;
    const stage = call.stages[this.stageIndex];
    if (!stage) {
      this.graph = null;
      this.handlers.onStageCost?.(null);
      replace(this.body, this.renderLowered());
      return;
    }
    this.handlers.onStageCost?.(stage.cost ?? null);
    const baseIndex = this.compareWith === -1 ? this.stageIndex - 1 : this.compareWith;
    const base = baseIndex !== null && baseIndex !== this.stageIndex ? call.stages[baseIndex] : undefined;
    this.diff = base?.graph && stage.graph ? diffStages(base, stage) : null;
    const added = stage.graph ? countAdded(stage.graph) : 0;
    const viewBtn = (v: View, label: string) => h("button", {
      type: "button", class: `seg${this.view === v ? " active" : ""}`, "aria-pressed": String(this.view === v), testid: `ir-view-${v}`,
      onclick: () => { this.view = v; this.renderStage(); this.lookChanged(); },
    }, label);
    const hlo = stage.stablehlo ?? null;
    const showHlo = hlo !== null && this.form === "stablehlo";
    const formBtn = (f: IRForm, label: string) => h("button", {
      type: "button", class: `seg${this.form === f ? " active" : ""}`, "aria-pressed": String(this.form === f), testid: `ir-form-${f}`,
      onclick: () => { this.form = f; this.renderStage(); this.handlers.onForm?.(f); },
    }, label);
    const head = h("div", { class: "stage-head" },
      h("div", { class: "stage-facts" },
        h("code", { class: "mono" }, stage.name),
        stage.graph ? h("span", { class: "muted", testid: "stage-equations" }, `${stage.graph.nodes.length} equation${stage.graph.nodes.length === 1 ? "" : "s"}`) : null,
        stage.path_taken ? h("span", { class: "badge warn", testid: "path-taken", title: "Python control flow depends on the inputs, so this is the path these inputs took, not a program for every input" }, "path taken for these inputs") : null,
        added ? h("span", { class: "badge accent", testid: "added-count" }, `${added} added by ${stage.transform ?? "this stage"}`) : null),
      hlo !== null ? h("div", { class: "segmented", role: "group", "aria-label": "IR form" }, formBtn("jaxpr", "jaxpr"), formBtn("stablehlo", "StableHLO")) : null,
      // A stage without a graph (its tracing failed) is text only: no view, diff or heat switches.
      showHlo || !stage.graph ? null : h("div", { class: "segmented", role: "group", "aria-label": "View" }, viewBtn("graph", "Graph"), viewBtn("text", "Text"), viewBtn("both", "Both")));
    if (showHlo) {
      this.graph = null;
      this.textLines = [];
      replace(this.body, head, this.renderStablehlo(hlo));
      return;
    }
    const untraced = untracedNote(call, this.stageIndex);
    const parts: HTMLElement[] = stage.graph ? [head, this.renderCompare(call, stage)] : untraced ? [head, untraced] : [head];
    const kernels = this.renderKernels(call, stage);
    if (kernels) parts.push(kernels);
    const view = stage.graph ? this.view : "text";
    const content = h("div", { class: `stage-content view-${view}` });
    parts.push(content);
    const previous = this.graph ?? this.lastGraph;
    this.graph = null;
    if (this.picked?.stage !== stage) this.picked = null;
    if (view !== "text" && stage.graph) {
      this.graph = new GraphView({ onSelect: (n) => this.selectNode(n, "graph") });
      this.graph.keepStateOf(previous, stage.graph);
      this.lastGraph = this.graph;
      const diff = this.diff;
      if (diff) this.graph.setDecorations((n) => {
        const c = diff.byNode.get(n);
        return c ? { diff: c.kind, cls: `diff-${c.kind}`, note: c.kind === "added" ? "added since the compared stage" : c.what.join("\n") } : undefined;
      });
      if (this.heat !== "off") {
        const key = this.heat;
        this.graph.setHeat((n) => n.cost?.[key] ?? 0);
      }
      content.appendChild(this.graph.el);
      void this.graph.render(stage.graph).then(() => this.graph?.highlightLine(this.linkedLine));
    }
    if (view !== "graph") content.appendChild(this.renderText(stage));
    replace(this.body, parts);
  }

  /** The diff and cost row: which stage to compare with, the one-line summary, removed equations,
   *  the estimated cost and the heat overlay switch. */
  private renderCompare(call: TransformedCall, stage: Stage): HTMLElement {
    const options = [
      h("option", { value: "prev", selected: this.compareWith === -1 }, "previous stage"),
      ...call.stages.map((s, i) => i === this.stageIndex ? null : h("option", { value: String(i), selected: this.compareWith === i }, s.name)),
      h("option", { value: "none", selected: this.compareWith === null }, "nothing"),
    ];
    const select = h("select", {
      testid: "diff-base", "aria-label": "Compare with",
      onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        this.compareWith = v === "prev" ? -1 : v === "none" ? null : Number(v);
        this.renderStage();
        this.lookChanged();
      },
    }, options);
    const d = this.diff;
    const removed = d && d.removed.length ? h("details", { class: "diff-removed", testid: "diff-removed" },
      h("summary", null, `${d.removed.length} removed`),
      h("ul", null, d.removed.slice(0, 200).map((n) => h("li", { class: "mono" }, `${n.primitive}${userLine(n.source) ? ` (line ${userLine(n.source)})` : ""}`)))) : null;
    const heatBtn = (v: Heat, label: string) => h("button", {
      type: "button", class: `seg${this.heat === v ? " active" : ""}`, "aria-pressed": String(this.heat === v), testid: `heat-${v}`,
      onclick: () => { this.heat = v; this.renderStage(); this.lookChanged(); },
    }, label);
    const cost = stage.cost;
    const compare = this.handlers.compareLink?.() ?? null;
    return h("div", { class: "stage-compare" },
      h("label", { class: "muted" }, "Diff with ", select),
      h("span", { class: "diff-summary", testid: "stage-diff-summary", title: d ? d.summary : null }, d ? d.summary : this.compareWith === null ? "" : "nothing to compare with"),
      removed,
      h("span", { class: "grow" }),
      compare ? h("a", { href: compare, target: "_blank", rel: "noopener", testid: "compare-link", title: "Run this and another stack side by side" }, "compare stacks ↗") : null,
      cost ? h("span", { class: "muted", testid: "stage-cost", title: "Estimated from shapes and primitives (XLA cost-analysis style), not measured" },
        `≈ ${formatCount(cost.flops, "FLOP")} · ${formatCount(cost.bytes, "B")} (estimate)`) : null,
      h("div", { class: "segmented", role: "group", "aria-label": "Cost heat" }, heatBtn("off", "no heat"), heatBtn("flops", "FLOPs"), heatBtn("bytes", "bytes")));
  }

  /** The jitted program's steps (fused kernels, host steps) on the stage the jit staged: the
   *  equations each computes (click: outlined in the graph), estimated cost, measured time. */
  private renderKernels(call: TransformedCall, stage: Stage): HTMLElement | null {
    const steps = call.jit?.kernels ?? [];
    if (!steps.length || call.jit?.kernel_stage !== stage.name || !stage.graph) return null;
    const jitNode = stage.graph.nodes.find((n) => n.primitive === "jit");
    if (!jitNode) return null;
    const byId = new Map<string, IRNode>();
    for (const sg of jitNode.subgraphs) for (const n of allNodes(sg)) byId.set(n.id, n);
    const nodesOf = (k: KernelInfo) => k.eqns.map((e) => byId.get(`${jitNode.id}/${e}`)).filter((n): n is IRNode => !!n);
    const measured = steps.some((k) => k.launches > 0);
    const rows = steps.map((k, i) => {
      const row = h("tr", {
        testid: "kernel-row", "data-kind": k.kind, "data-eqns": String(k.eqns.length), tabindex: 0,
        onclick: () => void pick(i),
        onkeydown: (e: KeyboardEvent) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); void pick(i); } },
      },
        h("td", { class: "mono" }, k.name),
        h("td", { class: "num" }, String(k.eqns.length)),
        h("td", { class: "num" }, formatCount(k.flops, "FLOP")),
        h("td", { class: "num" }, formatCount(k.bytes, "B")),
        h("td", { class: "num", testid: "kernel-measured" }, k.measured_ms != null
          ? `${formatMs(k.measured_ms)}${k.launches > 1 ? ` (fastest of ${k.launches})` : ""}` : "—"));
      return row;
    });
    let active = -1;
    const pick = async (i: number) => {
      active = active === i ? -1 : i;
      rows.forEach((r, j) => r.classList.toggle("active", j === active));
      await this.graph?.markNodes(active >= 0 ? nodesOf(steps[active]) : null);
    };
    const kernelsN = steps.filter((k) => k.kind === "kernel").length;
    return h("details", { class: "kernel-steps", testid: "kernel-steps" },
      h("summary", null, `${kernelsN} fused kernel${kernelsN === 1 ? "" : "s"} and ${steps.length - kernelsN} host step${steps.length - kernelsN === 1 ? "" : "s"}: cost per kernel (estimate)`,
        measured ? "" : h("span", { class: "muted" }, " · not measured: the call ran interpreted while the kernels compiled")),
      h("table", { class: "kernel-table" },
        h("thead", null, h("tr", null, h("th", null, "step"), h("th", null, "eqns"),
          h("th", { title: "Estimated from shapes and primitives, not measured" }, "≈ FLOPs"),
          h("th", { title: "Estimated: each array the kernel reads or writes, once" }, "≈ bytes"),
          h("th", { title: "Measured during the run: the fastest launch" }, "measured"))),
        h("tbody", null, rows)));
  }

  private renderText(stage: Stage): HTMLElement {
    // Equation lines map to top-level nodes in order when their counts agree. Lines indented
    // deeper than the equations (sub-jaxprs, long params) belong to the equation above them and
    // fold under it; long blocks start folded.
    const lines = stage.text.split("\n");
    const nodes = stage.graph?.nodes ?? [];
    // Jaxprs used twice (or long nested ones) print first, as JAX prints them: `let name = { ... } in`.
    // Their lines are not equations of this stage; each block folds under its `let` line.
    const shared = new Set<number>();
    for (let i = 0, open = false; i < lines.length; i++) {
      if (!open && /^let \S+ = \{ lambda /.test(lines[i])) open = true;
      if (open) shared.add(i);
      if (open && /\} in$/.test(lines[i])) open = false;
    }
    const isEqn = (l: string, i: number) => !shared.has(i) && /^\s+\S.*=\s*\S/.test(l);
    const indent = (l: string) => l.length - l.trimStart().length;
    const baseIndent = Math.min(...lines.filter(isEqn).map(indent));
    const eqnAt = new Map<number, number>();
    lines.forEach((l, i) => { if (isEqn(l, i) && indent(l) === baseIndent) eqnAt.set(i, eqnAt.size); });
    // A one-equation jaxpr prints on one line, as JAX prints it: `{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }`.
    if (!eqnAt.size && lines.length === 1 && nodes.length === 1 && / let .+ = /.test(lines[0])) eqnAt.set(0, 0);
    const linkable = eqnAt.size === nodes.length;
    // The fold structure, from the strings alone: which equation line owns each deeper line.
    const ownerOf = new Array<number>(lines.length).fill(-1);
    const blockSize = new Map<number, number>();
    let owner = -1;
    lines.forEach((text, i) => {
      if (eqnAt.has(i) || (shared.has(i) && text.startsWith("let "))) owner = i;
      else if (owner >= 0 && text.trim() && (shared.has(i) || indent(text) > baseIndent)) { ownerOf[i] = owner; blockSize.set(owner, (blockSize.get(owner) ?? 0) + 1); }
      else owner = -1;
    });
    const nestedAt = linkable ? nestedLinks(lines, eqnAt, ownerOf, nodes) : new Map<number, IRNode[]>();
    const foldable = [...blockSize].filter(([, n]) => n >= FOLD_MIN_LINES).map(([i]) => i);
    const open = new Map(foldable.map((i) => [i, blockSize.get(i)! <= FOLD_OPEN_UP_TO]));
    const blockEls = new Map<number, HTMLElement[]>();
    const setFold = new Map<number, (open: boolean) => void>();
    this.textLines = [];
    const pre = h("pre", { class: `jaxpr${this.wrapText ? " wrap" : ""}`, testid: "ir-text" });
    const makeLine = (i: number): HTMLElement => {
      const text = lines[i];
      const k = linkable ? eqnAt.get(i) ?? -1 : -1;
      const printed = k >= 0 ? [nodes[k]] : nestedAt.get(i) ?? [];
      const node = printed[0] ?? null;
      const el = h("div", {
        class: `jaxpr-line${node?.added ? " added" : ""}${node ? " eqn" : ""}`,
        dataset: userLine(node?.source) ? { line: String(userLine(node?.source)) } : undefined,
        onclick: node ? () => this.selectNode(node, "text") : undefined,
      }, highlightJaxpr(text));
      if (userLine(node?.source)) el.title = `line ${userLine(node?.source)}`;
      // Wrapped, a line's continuation rows hang 2 columns in from where its text starts (after
      // its indent, and the fold marker's 2 columns), as JAX's printer indents an equation's params.
      const lead = text.length - text.trimStart().length + (open.has(i) ? 2 : 0);
      el.style.setProperty("--hang", `${lead + 2}ch`);
      const change = node ? this.diff?.byNode.get(node) : undefined;
      if (change) {
        el.classList.add(`diff-${change.kind}`);
        el.dataset.diff = change.kind;
        el.title = [el.title, change.kind === "added" ? "added since the compared stage" : change.what.join("\n")].filter(Boolean).join("\n");
      }
      const own = ownerOf[i];
      if (own >= 0 && open.has(own)) {
        (blockEls.get(own) ?? blockEls.set(own, []).get(own)!).push(el);
        if (!open.get(own)) el.classList.add("folded-away");
      }
      if (open.has(i)) {
        const marker = h("span", { class: "jaxpr-fold", testid: "ir-fold", role: "button", "aria-label": "Fold or unfold" });
        const note = h("span", { class: "jaxpr-folded-note" }, ` … ${blockSize.get(i)} more lines`);
        const set = (o: boolean) => {
          open.set(i, o);
          marker.textContent = o ? "▾" : "▸";
          marker.setAttribute("aria-expanded", String(o));
          note.hidden = o;
          for (const l of blockEls.get(i) ?? []) l.classList.toggle("folded-away", !o);
        };
        const toggle = (e: Event) => { e.stopPropagation(); set(!open.get(i)); };
        marker.addEventListener("click", toggle);
        note.addEventListener("click", toggle);
        el.prepend(marker);
        el.appendChild(note);
        set(open.get(i)!);
        setFold.set(i, set);
      }
      this.textLines.push({ el, nodes: printed, unfold: own >= 0 && open.has(own) ? () => { if (!open.get(own)) setFold.get(own)?.(true); } : undefined });
      return el;
    };
    // Lines go in chunks the browser skips laying out while they are off screen
    // (content-visibility); the first is built now, the rest a time slice per frame, so a
    // 1,000-line stage never holds up the page.
    const chunks = Math.ceil(lines.length / TEXT_CHUNK);
    const buildChunk = (c: number) => {
      const div = h("div", { class: "jaxpr-chunk" });
      for (let i = c * TEXT_CHUNK; i < Math.min(lines.length, (c + 1) * TEXT_CHUNK); i++) div.appendChild(makeLine(i));
      pre.appendChild(div);
    };
    const seq = ++this.textSeq;
    if (chunks) buildChunk(0);
    const rest = Array.from({ length: Math.max(0, chunks - 1) }, (_, k) => () => buildChunk(k + 1));
    void runSliced(rest, () => seq !== this.textSeq, true).then((done) => {
      if (!done) return;
      pre.dataset.complete = "true";
      this.highlightLine(this.linkedLine);
      // The equation picked before this stage was drawn again (another view, diff or heat).
      const picked = this.picked?.node;
      if (picked) for (const t of this.textLines) t.el.classList.toggle("selected", t.nodes.includes(picked));
    });
    const foldAll = (o: boolean) => { for (const i of foldable) { open.set(i, o); setFold.get(i)?.(o); for (const l of blockEls.get(i) ?? []) l.classList.toggle("folded-away", !o); } };
    const tools = h("div", { class: "text-tools" },
      h("label", null, h("input", {
        type: "checkbox", checked: this.wrapText, testid: "ir-wrap",
        onchange: (e: Event) => { this.wrapText = (e.target as HTMLInputElement).checked; pre.classList.toggle("wrap", this.wrapText); },
      }), "wrap long lines"),
      foldable.length ? h("button", { type: "button", class: "link", testid: "ir-unfold-all", onclick: () => foldAll(true) }, "unfold all") : null,
      foldable.length ? h("button", { type: "button", class: "link", onclick: () => foldAll(false) }, "fold all") : null);
    return h("div", { class: "text-pane", testid: "ir-text-pane" }, tools, pre);
  }

  private dropStablehlo() {
    this.hlo?.destroy();
    this.hlo = null;
  }

  /** The stage's lowered program as `jax.jit(f).lower(*args).as_text()` prints it. */
  private renderStablehlo(text: string): HTMLElement {
    const view = this.hlo = new StablehloView(text, this.wrapText);
    const tools = h("div", { class: "text-tools" },
      h("span", { class: "muted" }, "What ", h("code", null, "jax.jit(f).lower(*args).as_text()"), " prints for this stage"),
      h("label", null, h("input", {
        type: "checkbox", checked: this.wrapText,
        onchange: (e: Event) => { this.wrapText = (e.target as HTMLInputElement).checked; view.setWrap(this.wrapText); },
      }), "wrap long lines"));
    return h("div", { class: "stage-content view-hlo" }, h("div", { class: "text-pane hlo-pane" }, tools, view.el));
  }

  private renderLowered(): HTMLElement {
    const jit = this.call!.jit!;
    return h("div", { class: "lowered", testid: "lowered-code" },
      h("div", { class: "stage-facts" },
        h("span", { class: "badge" }, `backend: ${jit.backend}`),
        h("span", { class: `badge ${jit.cache === "hit" ? "ok" : ""}`, testid: "jit-cache" }, `cache ${jit.cache}`),
        jit.recompile_reason ? h("span", { class: "muted compile-reason", testid: "compile-reason" }, `compiled because: ${jit.recompile_reason}`) : null),
      jit.fallbacks.length ? h("p", { class: "hint" }, `Run by the interpreter (each with why): ${jit.fallbacks.join("; ")}`) : null,
      jit.source ? h("pre", { class: "code-block" }, jit.source) : empty("No generated source.", jit.backend === "interpreter" ? "This call ran on the interpreter." : undefined));
  }

  /** The source line of the equation picked in the shown stage, if any. */
  get pickedLine(): number | null {
    return userLine(this.picked?.node.source);
  }

  private selectNode(node: IRNode | null, from: "graph" | "text") {
    const stage = this.call?.stages[this.stageIndex];
    this.picked = node && stage ? { stage, node } : null;
    let shown = false;
    for (const t of this.textLines) {
      const on = !!node && t.nodes.includes(node);
      t.el.classList.toggle("selected", on);
      // A node picked in the graph brings its line into view, unfolding the block that hides it.
      if (on && from === "graph" && !shown) { shown = true; t.unfold?.(); t.el.scrollIntoView({ block: "nearest" }); }
    }
    if (node && from === "text") void this.graph?.selectNode(node);
    const line = userLine(node?.source);
    this.handlers.onSourceLines(line ? [line] : []);
  }

  /** The editor cursor moved to a line: mark that line's nodes. */
  highlightLine(line: number | null) {
    this.linkedLine = line;
    this.graph?.highlightLine(line);
    for (const t of this.textLines) t.el.classList.toggle("linked", line !== null && t.nodes.some((n) => userLine(n.source) === line));
  }
}

function countAdded(g: IRGraph): number {
  return g.nodes.filter((n) => n.added).length;
}

/** Why a stage has no program: its function could not be traced alone (a collective's axis that
 *  only a later stage's pmap binds); its error, shown where the IR goes, read as if it were the IR. */
function untracedNote(call: TransformedCall, index: number): HTMLElement | null {
  const stage = call.stages[index];
  if (!stage || stage.graph || !stage.text.startsWith("(tracing failed:")) return null;
  const axis = /unbound axis name: ([^\s.)]+)/.exec(stage.text)?.[1];
  const later = call.stages.slice(index + 1).some((s) => s.graph);
  return h("p", { class: "notice stage-untraced", role: "note", testid: "stage-untraced" },
    `${stage.name} could not be traced on its own, so this stage has no program: below is what tracing it raised.`,
    axis ? ` It uses a collective over the axis '${axis}', which only a transformation that names it (pmap, or vmap or shard_map with that axis name) defines.` : "",
    later ? " The stages after it show the program the call ran." : "");
}

/** Light jaxpr highlighting: primitive names and types. */
function highlightJaxpr(line: string): (HTMLElement | string)[] {
  const m = /^(\s*)(.*?)(=\s*)([a-z_][\w]*)(\[.*?\])?(.*)$/.exec(line);
  if (!m || line.trimStart().startsWith("{") || line.trimStart().startsWith("in ")) return [line || " "];
  return [m[1], m[2], m[3], h("span", { class: "prim" }, m[4]), m[5] ? h("span", { class: "params" }, m[5]) : "", m[6]];
}

function formatMs(ms: number): string {
  return ms >= 1 ? `${ms.toFixed(2)}${UNIT_SEP}ms` : `${(ms * 1000).toFixed(ms >= 0.01 ? 0 : 1)}${UNIT_SEP}µs`;
}
