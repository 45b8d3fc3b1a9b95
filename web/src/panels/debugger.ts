// The Debugger panel: step through the equations of a stage, forward and back, with each
// intermediate's shape, dtype and value summary; the first NaN/Inf is flagged and can be jumped to.

import { empty, h, replace } from "../dom";
import { fmtNum, preview, typeStr } from "../format";
import type { DebugStep, TransformedCall } from "../report";
import { userLine } from "../report";
import { renderValue } from "../values";

export interface DebugHandlers {
  onSourceLines(lines: number[]): void;
}

export class DebuggerPanel {
  readonly el: HTMLElement;
  private call: TransformedCall | null = null;
  private index = 0;
  private list: HTMLElement | null = null;
  private detail: HTMLElement | null = null;
  private counter: HTMLElement | null = null;

  constructor(private handlers: DebugHandlers) {
    this.el = h("div", { class: "debugger", testid: "debugger-panel" });
  }

  /** Show a call's debug trace (keeps the position when it is the same call). */
  show(call: TransformedCall | null) {
    const same = this.call?.id === call?.id && this.call?.debug?.steps.length === call?.debug?.steps.length;
    this.call = call;
    const trace = call?.debug;
    if (!trace || !trace.steps.length) {
      replace(this.el, empty("No equations recorded for stepping.", whyNoTrace(call)));
      return;
    }
    if (!same) this.index = trace.first_nonfinite ?? 0;
    const steps = trace.steps;
    const btn = (label: string, title: string, testid: string, f: () => void, extra: Record<string, unknown> = {}) =>
      h("button", { type: "button", class: "btn", title, "aria-label": title, testid, onclick: f, ...extra }, label);
    this.counter = h("span", { class: "step-counter mono", testid: "debug-counter", "aria-live": "polite" });
    const controls = h("div", { class: "debug-controls", role: "toolbar", "aria-label": "Step through equations" },
      btn("|◀", "First equation (Home)", "debug-first", () => this.go(0)),
      btn("◀ Back", "Previous equation (←)", "debug-prev", () => this.go(this.index - 1)),
      btn("Step ▶", "Next equation (→)", "debug-next", () => this.go(this.index + 1)),
      btn("▶|", "Last equation (End)", "debug-last", () => this.go(steps.length - 1)),
      this.counter,
      trace.first_nonfinite != null
        ? btn("⚠ Jump to first NaN/Inf", "Jump to the first equation producing NaN or Inf", "debug-jump-nonfinite", () => this.go(trace.first_nonfinite!), { class: "btn danger" })
        : h("span", { class: "badge ok", testid: "debug-all-finite" }, "all values finite"));
    this.list = h("ol", { class: "step-list", testid: "debug-steps", tabindex: 0, "aria-label": "Equations",
      onkeydown: (e: KeyboardEvent) => this.keys(e) },
      steps.map((st, i) => h("li", {
        class: `step${st.nonfinite ? " nonfinite" : ""}${i === trace.first_nonfinite ? " first-nonfinite" : ""}`,
        testid: "debug-step", dataset: { index: String(i) },
        onclick: () => this.go(i),
      },
        h("span", { class: "step-index mono" }, String(st.index)),
        h("span", { class: "prim mono" }, ...breakable(st.primitive)),
        // (the value gives way first: the primitive and where it ran stay whole; a narrow list
        // puts the value on a line of its own, styles.css)
        h("span", { class: "step-value" },
          h("span", { class: "mono muted step-type" }, st.outputs.map((o) => typeStr(o.dtype, o.shape)).join(", ")),
          h("span", { class: "mono step-preview" }, st.outputs[0] ? preview(st.outputs[0], 3) : "")),
        h("span", { class: "step-meta" },
          h("span", { class: "muted step-within", testid: "debug-within", title: st.within ?? null }, shortWithin(st.within)),
          userLine(st.source) ? h("span", { class: "muted step-line", title: `line ${userLine(st.source)}` }, `L${userLine(st.source)}`) : null,
          st.nonfinite ? h("span", { class: "badge danger" }, "NaN/Inf") : null))));
    this.detail = h("div", { class: "step-detail", testid: "debug-detail" });
    replace(this.el,
      h("div", { class: "panel-intro" },
        h("span", null, "Stepping ", h("code", null, trace.graph), ` · ${steps.length} equation${steps.length === 1 ? "" : "s"}${trace.truncated ? " (truncated)" : ""}`),
        h("span", { class: "muted" }, "← → to step, Home/End to jump")),
      controls,
      h("div", { class: "debug-body" }, this.list, this.detail));
    this.go(this.index);
  }

  private keys(e: KeyboardEvent) {
    const n = this.call?.debug?.steps.length ?? 0;
    const to = { ArrowRight: this.index + 1, ArrowDown: this.index + 1, ArrowLeft: this.index - 1, ArrowUp: this.index - 1, Home: 0, End: n - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.go(to);
  }

  go(i: number) {
    const steps = this.call?.debug?.steps;
    if (!steps?.length || !this.list || !this.detail || !this.counter) return;
    this.index = Math.max(0, Math.min(steps.length - 1, i));
    const st = steps[this.index];
    this.list.querySelectorAll("li").forEach((li, k) => {
      li.classList.toggle("current", k === this.index);
      li.setAttribute("aria-current", k === this.index ? "step" : "false");
    });
    (this.list.children[this.index] as HTMLElement | undefined)?.scrollIntoView({ block: "nearest" });
    this.counter.textContent = `${this.index + 1} / ${steps.length}`;
    // aria-disabled, not disabled: stepping to either end from the keyboard kept the focus on a
    // disabled button, which drops it to the page's body (go() stays at the ends by itself).
    this.el.querySelector('[data-testid="debug-prev"]')!.setAttribute("aria-disabled", String(this.index === 0));
    this.el.querySelector('[data-testid="debug-next"]')!.setAttribute("aria-disabled", String(this.index === steps.length - 1));
    replace(this.detail, stepDetail(st));
    const line = userLine(st.source);
    this.handlers.onSourceLines(line ? [line] : []);
  }

  get currentLine(): number | null {
    return userLine(this.call?.debug?.steps[this.index]?.source);
  }
}

/** A primitive's name with a line break allowed after each underscore (convert_element_/type, never
 *  convert_elem/ent_type). */
function breakable(name: string): (string | HTMLElement)[] {
  return name.split("_").flatMap((part, i, all) => (i < all.length - 1 ? [`${part}_`, h("wbr")] : [part]));
}

/** "scan iteration 3 of 4 › cond branch 1" as the step list has room for it: "scan 3/4 › branch 1". */
function shortWithin(within: string | null | undefined): string {
  return (within ?? "").replace(/scan iteration (\d+) of (\d+)/g, "scan $1/$2").replace(/while iteration/g, "while").replace(/cond branch/g, "branch");
}

function stepDetail(st: DebugStep): HTMLElement {
  return h("div", null,
    h("div", { class: "step-title" },
      h("span", { class: "prim mono big" }, st.primitive),
      h("span", { class: "muted mono" }, `node ${st.node}`),
      userLine(st.source) ? h("span", { class: "muted" }, `line ${st.source!.line}${st.source!.function ? ` in ${st.source!.function}` : ""}`) : null,
      st.within ? h("span", { class: "badge", testid: "debug-detail-within" }, st.within) : null,
      st.nonfinite ? h("span", { class: "badge danger", testid: "debug-nonfinite-flag" }, "produces NaN/Inf") : null),
    st.outputs.map((o, i) => h("section", { class: "step-output" },
      h("h4", null, `output ${i}`, h("span", { class: "muted" }, ` · min ${fmtNum(o.min)} · max ${fmtNum(o.max)} · mean ${fmtNum(o.mean)}`)),
      renderValue(o))));
}

/** Why a call has no steps to show, and what to do instead (the report records none for calls
 *  that ran on devices, failed, or took over 16 MiB of inputs). */
function whyNoTrace(call: TransformedCall | null): string {
  if (!call) return "This run made no transformed call: pick a function and stack grad, jit or vmap on it, or call them in the script.";
  if (call.pmap) {
    return "This call ran on several devices (pmap, shard_map or a sharded jit), which the debugger does not replay: " +
      "the Devices panel shows each device's inputs and outputs. Remove pmap from the stack to step through the rest.";
  }
  if (!call.stages.length) return "The call stopped before it was traced: the Output panel says why.";
  return "The debugger replays calls that finish, on inputs up to 16 MiB: fix the error the Output panel shows, or use smaller inputs.";
}
