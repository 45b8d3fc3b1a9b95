// The playground page: wires the editor, the stack builder, the panels, run/cancel, share and the
// gallery together. Components live in their own files; this one only holds the app state.

import "./styles.css";
import { ApiError, type Example, listTransforms, loadFixture, loadSnippet, mockName, run, saveSnippet } from "./api";
import { type Check, checkExpected } from "./expected";
import { type Child, empty, h, replace } from "./dom";
import { compareUrl } from "./compare-url";
import { showLineCosts } from "./cost-gutter";
import { Editor } from "./editor";
import { Gallery } from "./gallery";
import { DebuggerPanel } from "./panels/debugger";
import { renderDevices } from "./panels/devices";
import { IRPanel } from "./panels/ir";
import { warmLayout } from "./panels/layout";
import { renderOutput, requestError } from "./panels/output";
import { renderRecompiles } from "./panels/recompiles";
import { renderTimings } from "./panels/timings";
import { openCallIndex, type RunReport, type StageCost, type TransformedCall } from "./report";
import {
  decodeFragment, defaultSession, encodeFragment, fromAny, PANELS, type PanelName, parseFunctions, parseViewFragment,
  type Session, setTransforms, toRequest, viewFragment,
} from "./session";
import { StackBuilder } from "./stack";
import { applyTheme, initialTheme, toggleTheme } from "./theme";

/** One panel of the report: everything the page knows about it, in one row of `App.panels`. */
interface Panel {
  label: string;
  /** Whether the report has anything for it (an empty panel's tab is quiet). */
  hasContent(r: RunReport): boolean;
  /** The badge on its tab. */
  count(r: RunReport): string | null;
  /** The calls it can show (the call picker prefers these). */
  shows(c: TransformedCall): boolean;
  /** Its content for the report (stateful panels keep and return their element). */
  render(r: RunReport): Child[];
}

class App {
  private session: Session = defaultSession();
  private report: RunReport | null = null;
  /** The run before this one, for comparing its compiles with this run's. */
  private previousReport: RunReport | null = null;
  private failure: ApiError | null = null;
  private callIndex = 0;
  private controller: AbortController | null = null;
  private runStarted = 0;
  private tick = 0;
  private snippetPath: string | null = null;
  /** Something the last run did differently from what was asked, shown above its output. */
  private notice: string | null = null;
  /** The gallery example last loaded, with its run request, to compare results with `expected`. */
  private example: { request: string; ex: Example } | null = null;

  private editor!: Editor;
  private stack!: StackBuilder;
  private ir: IRPanel;
  private debugger: DebuggerPanel;
  private gallery: Gallery;

  // DOM
  private runBtn!: HTMLButtonElement;
  private cancelBtn!: HTMLButtonElement;
  private progress!: HTMLElement;
  private tabs!: HTMLElement;
  private callPicker!: HTMLElement;
  private panelBody!: HTMLElement;
  private toast!: HTMLElement;
  private sharePop!: HTMLElement;
  private shareBtn!: HTMLElement;
  private staleNote!: HTMLElement;
  /** The request the shown results came from, to tell when the code, stack or arguments moved on. */
  private ranRequest = "";

  constructor(private root: HTMLElement) {
    applyTheme(initialTheme());
    this.ir = new IRPanel({
      onSourceLines: (l) => this.editor.highlightLines(l),
      onStage: (name) => { this.session.stage = name; this.sessionChanged(); },
      onForm: (form) => { this.session.ir = form === "stablehlo" ? form : null; this.sessionChanged(); },
      onLook: (look) => { Object.assign(this.session, look); this.sessionChanged(); },
      onStageCost: (cost) => this.showCosts(cost),
      compareLink: () => compareUrl(this.session, this.session),
    });
    this.debugger = new DebuggerPanel({ onSourceLines: (l) => this.editor.highlightLines(l) });
    this.gallery = new Gallery((s, ex) => {
      this.load(s);
      this.example = { request: JSON.stringify(toRequest(s)), ex };
      void this.runInstead();
    });
    this.layout();
  }

  private layout() {
    this.runBtn = h("button", { type: "button", class: "btn primary", testid: "run", title: "Run (Ctrl/Cmd+Enter)", onclick: () => void this.run() },
      "▶ Run", h("kbd", null, navigator.platform.includes("Mac") ? "⌘↵" : "Ctrl ↵"));
    this.cancelBtn = h("button", { type: "button", class: "btn", testid: "cancel", hidden: true, title: "Cancel the run (Esc)", onclick: () => this.cancel() }, "■ Cancel");
    this.progress = h("span", { class: "progress", testid: "progress", role: "status", "aria-live": "polite", hidden: true },
      h("span", { class: "spinner", "aria-hidden": "true" }), h("span", { class: "progress-text" }, "Running…"));
    const shareBtn = this.shareBtn = h("button", {
      type: "button", class: "btn", testid: "share", "aria-haspopup": "dialog", "aria-expanded": "false", "aria-controls": "share-pop",
      onclick: () => void this.share(),
    }, "Share");
    this.sharePop = h("div", { class: "share-pop", hidden: true, testid: "share-pop", id: "share-pop", role: "dialog", "aria-label": "Share link" });
    const header = h("header", { class: "topbar" },
      h("a", { class: "brand", href: "/", title: "jaxplay" }, h("span", { class: "logo", "aria-hidden": "true" }, "∂"), h("span", { class: "brand-name" }, "jaxplay")),
      h("button", { type: "button", class: "btn", testid: "open-gallery", onclick: () => void this.gallery.open() }, "Examples"),
      h("div", { class: "run-group" }, this.runBtn, this.cancelBtn, this.progress),
      h("span", { class: "spacer" }),
      h("div", { class: "share-wrap" }, shareBtn, this.sharePop),
      // A switch that says which theme is on (its label alone read the same in both).
      h("button", {
        type: "button", class: "icon theme-toggle", testid: "theme-toggle", title: "Toggle light/dark theme", "aria-label": "Dark theme",
        "aria-pressed": String(document.documentElement.dataset.theme === "dark"),
        onclick: (e: Event) => (e.currentTarget as HTMLElement).setAttribute("aria-pressed", String(toggleTheme() === "dark")),
      }, h("span", { class: "sun" }, "☀"), h("span", { class: "moon" }, "☾")));

    const editorWrap = h("div", { class: "editor", testid: "editor" });
    this.editor = new Editor(editorWrap, this.session.code, () => void this.run());
    this.editor.onChange((code) => { this.session.code = code; this.stack.setCode(code); this.sessionChanged(); this.editor.setError(null); });
    this.editor.onLineClick((line) => { this.ir.highlightLine(line); });
    this.stack = new StackBuilder(this.session, () => this.sessionChanged());

    this.tabs = h("nav", { class: "panel-tabs", role: "tablist", "aria-label": "Panels" });
    this.callPicker = h("div", { class: "call-picker" });
    this.panelBody = h("div", { class: "panel-body", role: "tabpanel", testid: "panel-body", id: "panel-body", tabindex: 0 });
    this.toast = h("div", { class: "toast", role: "status", "aria-live": "polite" });
    this.staleNote = h("div", { class: "stale-note", testid: "stale-note", role: "status", hidden: true },
      "Edited since this run: the results below are for the previous code, stack or arguments. ",
      h("button", { type: "button", class: "link", testid: "stale-run", onclick: () => void this.run() }, "Run again"));

    const left = h("section", { class: "left", "aria-label": "Code" }, editorWrap, this.stack.el);
    const splitter = h("div", { class: "splitter", role: "separator", "aria-orientation": "vertical", "aria-label": "Width of the code column", tabindex: 0 });
    const right = h("section", { class: "right", "aria-label": "Results" }, this.tabs, this.staleNote, this.callPicker, this.panelBody);
    const main = h("main", { class: "workspace" }, left, splitter, right);
    this.installSplitter(splitter, main);
    replace(this.root, header, main, this.toast, this.gallery.dialog);

    document.addEventListener("keydown", (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") { e.preventDefault(); void this.run(); }
      else if (e.key === "Escape" && this.controller) { this.cancel(); }
      else if (e.key === "Escape" && !this.sharePop.hidden) { this.closeShare(); }
    });
    document.addEventListener("click", (e) => {
      if (!this.sharePop.hidden && !(e.target as Element).closest(".share-wrap")) this.closeShare();
    });
    this.renderTabs();
    this.renderPanel();
  }

  private installSplitter(splitter: HTMLElement, main: HTMLElement) {
    // A focusable separator says where it is (WAI-ARIA's window splitter): the code column's share.
    const state = (pct: number) => {
      const now = Math.round(pct);
      Object.entries({ "aria-valuemin": 25, "aria-valuemax": 70, "aria-valuenow": now, "aria-valuetext": `code ${now}%, results ${100 - now}%` })
        .forEach(([k, v]) => splitter.setAttribute(k, String(v)));
    };
    const set = (frac: number) => {
      const pct = Math.min(70, Math.max(25, frac * 100));
      main.style.setProperty("--left", `${pct.toFixed(1)}%`);
      state(pct);
    };
    state(46); // (styles.css's --left)
    splitter.addEventListener("pointerdown", (e) => {
      splitter.setPointerCapture(e.pointerId);
      const move = (ev: PointerEvent) => { const r = main.getBoundingClientRect(); set((ev.clientX - r.left) / r.width); };
      const up = () => { splitter.removeEventListener("pointermove", move); splitter.removeEventListener("pointerup", up); };
      splitter.addEventListener("pointermove", move);
      splitter.addEventListener("pointerup", up);
    });
    splitter.addEventListener("keydown", (e) => {
      const cur = parseFloat(main.style.getPropertyValue("--left") || "46") / 100;
      if (e.key === "ArrowLeft") set(cur - 0.03); else if (e.key === "ArrowRight") set(cur + 0.03); else return;
      e.preventDefault();
    });
  }

  // ---- session --------------------------------------------------------------------------------

  load(s: Session) {
    this.example = null;
    this.session = s;
    this.ir.preferStage(s.stage ?? null);
    this.ir.setForm(s.ir ?? "jaxpr");
    this.ir.setLook(s);
    this.editor.setCode(s.code);
    this.stack.setSession(s);
    this.report = null;
    this.failure = null;
    this.sessionChanged();
    this.renderTabs();
    this.renderPanel();
  }

  private fragmentTimer = 0;
  private sessionChanged() {
    this.markStale();
    clearTimeout(this.fragmentTimer);
    this.fragmentTimer = window.setTimeout(() => {
      // A shared link's page keeps its short URL while it shows the stored snippet; once edited,
      // the page goes back to "/" and small sessions live in the fragment.
      if (this.snippetPath && this.snippetMatches()) {
        history.replaceState(null, "", `${this.snippetPath}${location.search}#${viewFragment(this.session)}`);
        return;
      }
      this.snippetPath = null;
      const frag = encodeFragment(this.session);
      history.replaceState(null, "", `/${location.search}${frag ? `#${frag}` : ""}`);
    }, 250);
  }

  private snippetSnapshot = "";
  private snippetMatches(): boolean {
    return JSON.stringify(toRequest(this.session)) === this.snippetSnapshot;
  }

  // ---- running --------------------------------------------------------------------------------

  /** Run the session. `keepPanel`: a shared link opens the panel it names even when that panel has
   *  nothing to show (its empty state says why); other runs fall back to Output then. */
  /** The run going on (or the last one), for a run that replaces it to wait for. */
  private pending: Promise<void> = Promise.resolve();

  async run({ keepPanel = false } = {}) {
    if (this.controller) return;
    this.pending = this.runNow(keepPanel);
    return this.pending;
  }

  /** Cancel the run going on, if any, and run the session as it is now: an example picked while
   *  a run went on was loaded but not run, and the old run's results showed under its code. */
  private async runInstead() {
    if (this.controller) {
      this.cancel();
      await this.pending;
    }
    await this.run();
  }

  private async runNow(keepPanel: boolean) {
    const focused = document.activeElement;
    const controller = new AbortController();
    this.controller = controller;
    this.setRunning(true);
    this.editor.setError(null);
    this.notice = this.dropStaleFunction();
    this.ranRequest = JSON.stringify(toRequest(this.session));
    try {
      const report = await run(toRequest(this.session), controller.signal);
      this.previousReport = this.report;
      this.report = report;
      this.showCosts(null); // the IR panel shows its stage's costs again
      this.failure = null;
      this.callIndex = openCallIndex(report, this.session.call ?? null);
      const err = report.error;
      if (err?.line) this.editor.setError({ line: err.line, column: err.column, end_line: err.end_line, end_column: err.end_column, message: `${err.type}: ${err.message}` });
      // A failed run shows its error; a link's panel stays open even when it has nothing to show.
      if (!report.ok) this.session.panel = "output";
      else if (!keepPanel && this.session.panel !== "output" && !this.panelHasContent(this.session.panel)) this.session.panel = "output";
    } catch (e) {
      this.failure = e instanceof ApiError ? e : new ApiError(String(e));
      this.report = null;
      this.session.panel = "output";
    } finally {
      this.controller = null;
      this.setRunning(false);
    }
    this.markStale();
    this.renderTabs();
    this.renderPanel();
    this.keepFocus(focused);
    // In the one-column layout the results sit below the editor and the stack: bring them up.
    if (matchMedia("(max-width: 980px)").matches) {
      const smooth = !matchMedia("(prefers-reduced-motion: reduce)").matches;
      this.tabs.scrollIntoView({ block: "start", behavior: smooth ? "smooth" : "auto" });
    }
    // Completed runs, counted for automation: a test waits for this to grow.
    this.root.dataset.runs = String(Number(this.root.dataset.runs ?? 0) + 1);
  }

  /** The panel is drawn anew after a run and the stale note hides: a focus that was in what went
   *  away (a graph node, "Run again") goes to the new results, not to the page's body. */
  private keepFocus(before: Element | null) {
    const now = document.activeElement;
    // (a hidden element keeps the focus until the browser's next rendering update moves it to the body)
    const lost = !now || now === document.body || !now.isConnected || !now.checkVisibility();
    if (before && before !== document.body && lost) this.panelBody.focus({ preventScroll: true });
  }

  /** Results shown for a request that is no longer the session's say so (line links may point
   *  at moved lines, values at old code). */
  private markStale() {
    if (!this.staleNote) return; // the stack builder reports its first state before the layout is done
    const stale = !!(this.report || this.failure) && !this.controller && JSON.stringify(toRequest(this.session)) !== this.ranRequest;
    this.staleNote.hidden = !stale;
    this.root.classList.toggle("stale", stale);
  }

  cancel() {
    this.controller?.abort();
  }

  /** A target function the code no longer mentions cannot be called: run the code as a script
   *  instead (the stack stays, for when a function is picked again) and say so. */
  private dropStaleFunction(): string | null {
    const fn = this.session.function;
    if (!fn) return null;
    if (parseFunctions(this.session.code).some((f) => f.name === fn)) return null;
    if (new RegExp(`(^|[^\\w.])${fn}\\b`).test(this.session.code)) return null;
    this.session.function = null;
    this.stack.setSession(this.session);
    this.sessionChanged();
    return `The code no longer defines ${fn}(), so it ran as a script. Pick a function to use the stack again.`;
  }

  setCode(code: string) {
    this.editor.setCode(code);
  }

  getCode(): string {
    return this.editor.code;
  }

  private setRunning(on: boolean) {
    // aria-disabled, not disabled: a disabled button drops the focus to the page's body, so a
    // keyboard user who ran with Enter started again from the top of the page (run() ignores
    // presses while a run is going). Cancel hides itself: its focus goes back to Run.
    this.runBtn.setAttribute("aria-disabled", String(on));
    const cancelling = document.activeElement === this.cancelBtn;
    this.cancelBtn.hidden = !on;
    if (!on && cancelling) this.runBtn.focus();
    this.progress.hidden = !on;
    this.root.classList.toggle("running", on);
    if (on && !this.report) this.renderPanel();
    clearInterval(this.tick);
    if (on) {
      this.runStarted = performance.now();
      const text = this.progress.querySelector(".progress-text")!;
      text.textContent = "Running…";
      this.tick = window.setInterval(() => {
        text.textContent = `Running… ${((performance.now() - this.runStarted) / 1000).toFixed(1)} s`;
      }, 100);
    }
  }

  private get call(): TransformedCall | null {
    return this.report?.calls[this.callIndex] ?? null;
  }

  /** The call a panel shows: the selected one, or the first that has what the panel needs. */
  private callFor(panel: PanelName): TransformedCall | null {
    const calls = this.report?.calls ?? [];
    const has = (c: TransformedCall) => this.panels[panel].shows(c);
    const cur = this.call;
    if (cur && has(cur)) return cur;
    return calls.find(has) ?? cur;
  }

  private panelHasContent(p: PanelName): boolean {
    return !!this.report && this.panels[p].hasContent(this.report);
  }

  private readonly panels: Record<PanelName, Panel> = {
    output: {
      label: "Output",
      hasContent: () => true,
      count: (r) => (r.ok ? null : "!"),
      shows: () => true,
      render: (r) => [
        this.notice ? h("p", { class: "notice", testid: "run-notice", role: "note" }, this.notice) : "",
        renderOutput(r, { gotoLine: (line) => this.gotoLine(line), openFirstNonfinite: this.firstNonfiniteOpener(r) },
          this.expectedCheck(r)),
      ],
    },
    ir: {
      label: "IR",
      hasContent: (r) => r.calls.some((c) => c.stages.length),
      count: (r) => (r.calls.length ? String(r.calls.length) : null),
      shows: () => true,
      render: () => { this.ir.show(this.callFor("ir")); return [this.ir.el]; },
    },
    timings: {
      label: "Timings",
      hasContent: (r) => r.timings.length > 0 || r.calls.some((c) => c.timings.length),
      count: () => null,
      shows: () => true,
      render: (r) => [
        renderTimings(r, r.calls.length > 1 ? this.call?.id ?? null : null),
        renderRecompiles(r, this.previousReport),
      ],
    },
    devices: {
      label: "Devices",
      hasContent: (r) => r.calls.some((c) => c.pmap),
      count: (r) => { const n = r.calls.find((c) => c.pmap)?.pmap?.devices.length; return n ? String(n) : null; },
      shows: (c) => !!c.pmap,
      render: (r) => [renderDevices(this.callFor("devices"), r.device_count)],
    },
    debugger: {
      label: "Debugger",
      hasContent: (r) => r.calls.some((c) => c.debug?.steps.length),
      count: () => null,
      shows: (c) => !!c.debug?.steps.length,
      render: () => { this.debugger.show(this.callFor("debugger")); return [this.debugger.el]; },
    },
  };

  // ---- panels ---------------------------------------------------------------------------------

  private renderTabs() {
    const r = this.report;
    // The tabs are drawn anew: a focused tab hands the focus on to the new active one.
    const focused = this.tabs.contains(document.activeElement);
    replace(this.tabs, PANELS.map((p) => {
      const active = p === this.session.panel;
      let count = r ? this.panels[p].count(r) : null;
      if (!r && this.failure && this.failure.kind !== "abort" && p === "output") count = "!";
      return h("button", {
        type: "button", role: "tab", class: `panel-tab${active ? " active" : ""}${r && !this.panelHasContent(p) ? " quiet" : ""}`,
        testid: `tab-${p}`, id: `panel-tab-${p}`, "aria-controls": "panel-body", "aria-selected": String(active), tabindex: active ? 0 : -1,
        onclick: () => this.showPanel(p),
        onkeydown: (e: KeyboardEvent) => {
          const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
          if (!d) return;
          e.preventDefault();
          const next = PANELS[(PANELS.indexOf(this.session.panel) + d + PANELS.length) % PANELS.length];
          this.showPanel(next); // (which hands the focus on to its tab)
        },
      }, this.panels[p].label, count ? h("span", { class: `count${count === "!" ? " alert" : ""}`, "aria-hidden": count === "!" ? "true" : null }, count) : null,
      // (the "!" is a picture of the failure: a screen reader hears it in words)
      count === "!" ? h("span", { class: "sr-only" }, " (the run failed)") : null);
    }));
    if (focused) (this.tabs.querySelector(`[data-testid="tab-${this.session.panel}"]`) as HTMLElement | null)?.focus();
  }

  showPanel(p: PanelName) {
    this.session.panel = p;
    this.sessionChanged();
    this.renderTabs();
    this.renderPanel();
  }

  private renderCallPicker(panel: PanelName) {
    const calls = this.report?.calls ?? [];
    if (panel === "output" || calls.length <= 1) {
      replace(this.callPicker);
      this.callPicker.hidden = true;
      return;
    }
    this.callPicker.hidden = false;
    const shown = this.callFor(panel);
    const sel = h("select", {
      id: "call-select", testid: "call-select", "aria-label": "Transformed call",
      onchange: (e: Event) => {
        this.callIndex = Number((e.target as HTMLSelectElement).value);
        // The call picked travels with the session (a share link's fragment), as the stage does.
        this.session.call = calls[this.callIndex]?.id ?? null;
        this.sessionChanged();
        this.renderPanel();
      },
    }, calls.map((c, i) => h("option", { value: String(i) }, `#${c.id} ${c.label}${c.source ? ` — line ${c.source.line}` : ""}`)));
    sel.value = String(shown ? calls.indexOf(shown) : this.callIndex);
    // It is drawn anew with the panel: a focused picker hands the focus on, so the arrow keys go on
    // from call to call.
    const focused = this.callPicker.contains(document.activeElement);
    replace(this.callPicker, h("label", { for: "call-select", class: "label" }, "Call"), sel,
      h("span", { class: "muted" }, `${calls.length} transformed calls in this run`));
    if (focused) sel.focus();
  }

  private renderPanel() {
    const panel = this.session.panel;
    this.renderCallPicker(panel);
    this.panelBody.dataset.panel = panel;
    this.panelBody.setAttribute("aria-labelledby", `panel-tab-${panel}`);
    const r = this.report;
    // The editor's cost marks are the IR panel's shown stage's: another panel, a failed request or
    // no report clears them (the IR panel sets them again when it shows a stage).
    if (panel !== "ir" || !r) this.showCosts(null);
    if (!r) {
      if (this.failure) {
        replace(this.panelBody, requestError(this.failure.message, this.failure.kind));
      } else if (this.controller) {
        // A first run (a shared link's, an example's): say so rather than "Nothing run yet".
        replace(this.panelBody, h("div", { class: "empty", testid: "panel-running" },
          h("p", null, h("span", { class: "spinner inline", "aria-hidden": "true" }), " Running…"),
          h("p", null, "The results appear here when the run ends.")));
      } else {
        replace(this.panelBody, welcome());
      }
      return;
    }
    replace(this.panelBody, ...this.panels[panel].render(r));
    // The editor's linked line is the shown panel's: the Debugger sets its step's line as it
    // renders, the IR panel's is its picked equation's, and no other panel has one.
    if (panel !== "debugger") {
      const line = panel === "ir" ? this.ir.pickedLine : null;
      this.editor.highlightLines(line ? [line] : [], false);
    }
  }

  private costFrame = 0;
  /** The editor's cost marks, set in the next frame: the editor then measures itself along with the
   *  frame's layout, not once more in the middle of drawing a stage. The last call wins. */
  private showCosts(cost: StageCost | null) {
    cancelAnimationFrame(this.costFrame);
    this.costFrame = requestAnimationFrame(() => showLineCosts(this.editor.view, cost));
  }

  private gotoLine(line: number) {
    this.editor.highlightLines([line]);
    this.editor.focus();
  }

  /** Opens the Debugger at the first NaN/Inf, if a call produced one. */
  private firstNonfiniteOpener(r: RunReport): (() => void) | undefined {
    const nanCall = r.calls.findIndex((c) => c.debug?.first_nonfinite != null);
    return nanCall < 0 ? undefined : () => {
      this.callIndex = nanCall;
      this.showPanel("debugger");
      this.debugger.go(r.calls[nanCall].debug!.first_nonfinite!);
    };
  }

  /** When the session is an unchanged gallery example with reference values, compare the result. */
  private expectedCheck(r: RunReport): Check | null {
    const ex = this.example;
    if (!ex || !ex.ex.expected?.length || r.mode !== "stack") return null;
    // Both the report and the session must be the example's (not a run the example replaced).
    if (JSON.stringify(toRequest(this.session)) !== ex.request || this.ranRequest !== ex.request) return null;
    return checkExpected(r.result, ex.ex.expected);
  }

  // ---- share ----------------------------------------------------------------------------------

  /** Hide the share popup; the focus, if it was in there, goes back to the Share button (not to the page). */
  private closeShare() {
    const inside = this.sharePop.contains(document.activeElement);
    this.sharePop.hidden = true;
    this.shareBtn.setAttribute("aria-expanded", "false");
    if (inside) this.shareBtn.focus();
  }

  private async share() {
    this.sharePop.hidden = false;
    this.shareBtn.setAttribute("aria-expanded", "true");
    replace(this.sharePop, h("p", { class: "hint" }, "Saving…"));
    try {
      const id = await saveSnippet(this.session);
      // The stored snippet is the run request; the open panel travels in the link's fragment.
      const url = `${location.origin}/s/${id}#${viewFragment(this.session)}`;
      this.snippetPath = `/s/${id}`;
      this.snippetSnapshot = JSON.stringify(toRequest(this.session));
      history.replaceState(null, "", `/s/${id}${location.search}#${viewFragment(this.session)}`);
      let copied = false;
      try { await navigator.clipboard.writeText(url); copied = true; } catch { /* clipboard may be unavailable */ }
      // The embed opens the panel shared, on the call shown, and the IR panel at its stage and
      // view, as the link does.
      const panel = ["output", "ir", "timings"].includes(this.session.panel) ? this.session.panel : "output";
      const embed = `<iframe src="${location.origin}/embed/${id}?panel=${panel}#${viewFragment(this.session)}" width="100%" height="420" style="border:0"></iframe>`;
      // A read-only text and its Copy button, one row that takes the popup's width.
      const copyRow = (text: string, testid: string, label: string) => {
        const field = h("input", { type: "text", readonly: true, value: text, testid, "aria-label": label, onfocus: (e: Event) => (e.target as HTMLInputElement).select() });
        return [field, h("div", { class: "share-row" }, field,
          h("button", { type: "button", class: "btn", testid: `${testid}-copy`, "aria-label": `Copy the ${label.toLowerCase()}`, onclick: async () => { field.select(); try { await navigator.clipboard.writeText(text); this.notify("Copied"); } catch { document.execCommand("copy"); } } }, "Copy"))] as const;
      };
      const [input, linkRow] = copyRow(url, "share-link", "Share link");
      replace(this.sharePop,
        h("label", { class: "label" }, copied ? "Link copied to the clipboard" : "Copy this link"), linkRow,
        h("p", { class: "hint" }, "Opening it restores the code, the stack, the arguments, the open panel, and the IR stage with its view, heat and diff."),
        h("label", { class: "label" }, "Embed (read-only, for an iframe in docs)"), copyRow(embed, "share-embed", "Embed code")[1]);
      input.focus();
    } catch (e) {
      replace(this.sharePop, h("p", { class: "error-text", testid: "share-error" }, `Could not share: ${(e as Error).message}`));
    }
  }

  private notify(text: string) {
    this.toast.textContent = text;
    this.toast.classList.add("show");
    setTimeout(() => this.toast.classList.remove("show"), 1800);
  }

  // ---- start ----------------------------------------------------------------------------------

  async start() {
    warmLayout();
    try {
      setTransforms(await listTransforms());
      this.stack.setSession(this.session); // now with the registry's transformations
    } catch (e) {
      this.failure = e instanceof ApiError ? e : new ApiError(String(e));
      this.renderTabs();
      this.renderPanel();
      return;
    }
    const m = /^\/s\/([A-Za-z0-9_-]+)\/?$/.exec(location.pathname);
    const mock = mockName();
    if (m) {
      try {
        const raw = await loadSnippet(m[1]);
        const s = fromAny(raw.request) ?? fromAny(raw);
        if (!s) throw new ApiError("The shared snippet could not be read");
        const view = parseViewFragment(location.hash);
        if (view.panel) s.panel = view.panel;
        s.stage = view.stage;
        s.ir = view.ir;
        Object.assign(s, { irView: view.irView, heat: view.heat, diff: view.diff, call: view.call });
        this.load(s);
        this.snippetPath = location.pathname;
        this.snippetSnapshot = JSON.stringify(toRequest(s));
        await this.run({ keepPanel: true });
        this.showPanel(s.panel);
      } catch (e) {
        this.failure = e instanceof ApiError ? e : new ApiError(String(e));
        this.failure = new ApiError(`Could not open the shared link: ${this.failure.message}`, this.failure.status);
        this.renderTabs();
        this.renderPanel();
      }
      return;
    }
    const fromHash = decodeFragment(location.hash);
    if (fromHash) {
      this.load(fromHash);
      await this.run({ keepPanel: true });
      this.showPanel(fromHash.panel);
      return;
    }
    if (mock) {
      const fx = await loadFixture(mock);
      if (fx) {
        const s = fromAny(fx.request);
        if (s) { this.load(s); await this.run(); }
      }
    }
  }
}

function welcome(): HTMLElement {
  return h("div", { class: "welcome", testid: "welcome" },
    h("h2", null, "Write a function, stack transformations on it, run it."),
    h("ul", null,
      h("li", null, "Pick a function and add ", h("code", null, "grad"), ", ", h("code", null, "vmap"), ", ", h("code", null, "jit"), " or ", h("code", null, "pmap"), " layers below the editor, or run the file as a script."),
      h("li", null, "Press ", h("kbd", null, "Ctrl"), " + ", h("kbd", null, "Enter"), " to run. The IR tab shows the program after every transformation; click a node to find its line."),
      h("li", null, "Timings, Devices and Debugger show where time went, what each simulated device did, and every intermediate value.")),
    empty("Nothing run yet.", "Open Examples for a guided tour."));
}

// A small handle for automation (the end-to-end tests) and the browser console.
declare global {
  interface Window { jaxplay: { setCode(code: string): void; getCode(): string; run(): Promise<void> } }
}

// `/embed/<id>` is the read-only page for iframes; everything else is the playground.
const embedId = /^\/embed\/([A-Za-z0-9]+)\/?$/.exec(location.pathname)?.[1];
// Both read stacks, so the transformation registry comes first (a failure to fetch it shows up as
// the snippet's or the run's own error).
const registry = () => listTransforms().then(setTransforms).catch(() => undefined);
if (embedId) {
  void registry().then(() => import("./embed")).then((m) => m.startEmbed(embedId, document.getElementById("app")!));
} else if (/^\/compare\/?$/.test(location.pathname)) {
  void registry().then(() => import("./compare")).then((m) => m.startCompare(document.getElementById("app")!));
} else {
  const app = new App(document.getElementById("app")!);
  void app.start();
  window.jaxplay = {
    setCode: (code) => app.setCode(code),
    getCode: () => app.getCode(),
    run: () => app.run(),
  };
}
