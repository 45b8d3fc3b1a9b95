// `/compare`: two transformation stacks (or two versions of the code) run side by side: their
// values, a structural diff of their final IR (the stage diff, matched by origin), timings,
// fused-kernel counts and estimated cost, in one table; both IRs below. The whole comparison is
// one link (`compareUrl`), with nothing stored on the server.

import { run } from "./api";
import { formatCount } from "./cost-gutter";
import { compareUrl, parseCompare } from "./compare-url";
import { h, replace } from "./dom";
import { fmtMs } from "./format";
import { IRPanel } from "./panels/ir";
import { allNodes, diffStages } from "./panels/stage-diff";
import type { ArraySummary, RunReport, TransformSpec, TransformedCall, Value } from "./report";
import { type Session, TRANSFORMS, composedCall, defaultSession, toRequest } from "./session";
import { renderValue } from "./values";
import "./compare.css";

/** Split on commas outside brackets and quotes. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0, cur = "", quote = "";
  for (const ch of text) {
    if (quote) { cur += ch; if (ch === quote) quote = ""; continue; }
    if (ch === "'" || ch === '"') quote = ch;
    if ("([{".includes(ch)) depth++;
    if (")]}".includes(ch)) depth--;
    if (ch === "," && depth === 0) { out.push(cur.trim()); cur = ""; } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** `grad, vmap(in_axes=(None, 0)), jit` (innermost first) ⇄ transformation specs. */
export function parseStack(text: string): TransformSpec[] {
  return splitTop(text).map((item) => {
    const m = /^(\w+)\s*(?:\((.*)\))?$/s.exec(item);
    if (!m || !TRANSFORMS.includes(m[1] as never)) throw new Error(`not a transformation: ${item}`);
    const options: Record<string, string> = {};
    for (const opt of m[2] ? splitTop(m[2]) : []) {
      const eq = opt.indexOf("=");
      if (eq < 0) throw new Error(`options are name=value: ${opt}`);
      options[opt.slice(0, eq).trim()] = opt.slice(eq + 1).trim();
    }
    return { name: m[1] as TransformSpec["name"], options };
  });
}

export function formatStack(stack: TransformSpec[]): string {
  return stack.map((t) => {
    const opts = Object.entries(t.options).filter(([, v]) => v.trim()).map(([k, v]) => `${k}=${v}`);
    return opts.length ? `${t.name}(${opts.join(", ")})` : t.name;
  }).join(", ");
}

interface Side {
  name: "A" | "B";
  code: HTMLTextAreaElement;
  fn: HTMLInputElement;
  stack: HTMLInputElement;
  args: HTMLInputElement;
}

function sideInputs(name: "A" | "B", s: Session): Side {
  const key = name.toLowerCase();
  return {
    name,
    code: h("textarea", { class: "cmp-code mono", spellcheck: "false", testid: `cmp-code-${key}`, "aria-label": `Code ${name}` }, s.code),
    fn: h("input", { type: "text", class: "mono", value: s.function ?? "", testid: `cmp-fn-${key}`, "aria-label": `Function ${name}` }),
    stack: h("input", { type: "text", class: "mono", value: formatStack(s.stack), testid: `cmp-stack-${key}`, "aria-label": `Stack ${name}, innermost first` }),
    args: h("input", { type: "text", class: "mono", value: s.args.join(", "), testid: `cmp-args-${key}`, "aria-label": `Arguments ${name}` }),
  };
}

function sessionOf(side: Side): Session {
  return {
    code: side.code.value,
    function: side.fn.value.trim() || null,
    stack: parseStack(side.stack.value),
    args: splitTop(side.args.value),
    panel: "ir",
  };
}

function leaves(v: Value | null | undefined): ArraySummary[] {
  if (!v) return [];
  if (v.kind === "array") return [v];
  if (v.kind === "checkify_error") return [];
  return v.children.flatMap((c) => leaves(c));
}

function flat(d: unknown): number[] {
  if (Array.isArray(d)) return d.flatMap(flat);
  if (typeof d === "number") return [d];
  if (typeof d === "boolean") return [Number(d)];
  if (typeof d === "string") return [d === "NaN" ? NaN : d === "-Infinity" ? -Infinity : Infinity];
  return [];
}

/** Do the two results agree (shapes, dtypes, values to float32 precision)? */
function compareValues(a: RunReport, b: RunReport): { same: boolean; text: string } {
  const la = leaves(a.result), lb = leaves(b.result);
  if (la.length !== lb.length) return { same: false, text: `different structure: ${la.length} vs ${lb.length} arrays` };
  let maxDiff = 0;
  for (let i = 0; i < la.length; i++) {
    if (la[i].shape.join() !== lb[i].shape.join()) return { same: false, text: `array ${i}: shape [${la[i].shape}] vs [${lb[i].shape}]` };
    if (la[i].dtype !== lb[i].dtype) return { same: false, text: `array ${i}: ${la[i].dtype} vs ${lb[i].dtype}` };
    const xa = flat(la[i].data), xb = flat(lb[i].data);
    if (xa.length !== xb.length) return { same: true, text: "same shapes and dtypes (values too large to compare here)" };
    for (let j = 0; j < xa.length; j++) {
      const d = Math.abs(xa[j] - xb[j]);
      if (Number.isNaN(d) ? !(Number.isNaN(xa[j]) && Number.isNaN(xb[j])) : d > 1e-5 * (1 + Math.abs(xa[j]))) {
        return { same: false, text: `array ${i} differs at element ${j}: ${xa[j]} vs ${xb[j]}` };
      }
      if (!Number.isNaN(d)) maxDiff = Math.max(maxDiff, d);
    }
  }
  return { same: true, text: `values match (max |Δ| = ${maxDiff.toPrecision(2)})` };
}

function mainCall(r: RunReport): TransformedCall | null {
  return r.calls.find((c) => c.stages.length) ?? r.calls[0] ?? null;
}

function metrics(r: RunReport) {
  const call = mainCall(r);
  const ev = call?.timings ?? r.timings;
  const sum = (...cats: string[]) => ev.filter((e) => cats.includes(e.category)).reduce((a, e) => a + e.duration_ms, 0);
  const final = call?.stages[call.stages.length - 1];
  const src = call?.jit?.source ?? "";
  return {
    label: call?.label ?? r.label ?? "script",
    ok: r.ok ? "ok" : `failed: ${r.error?.type ?? ""}`,
    equations: final?.graph ? `${final.graph.nodes.length} (${[...allNodes(final.graph)].length} with nested)` : "—",
    cost: final?.cost ? `≈ ${formatCount(final.cost.flops, "FLOP")} · ${formatCount(final.cost.bytes, "B")}` : "—",
    kernels: call?.jit ? `${(src.match(/^@nb\.njit/gm) ?? []).length} fused${(src.match(/_matmul\(/g) ?? []).length ? ` + ${(src.match(/_matmul\(/g) ?? []).length} matmul` : ""}` : "not jitted",
    execute: fmtMs(sum("execute")),
    compile: fmtMs(sum("trace", "transform", "lower", "compile", "load")),
    total: fmtMs(r.duration_ms),
  };
}

export async function startCompare(root: HTMLElement) {
  root.classList.add("compare-page");
  const parsed = parseCompare(location.hash);
  const a = sideInputs("A", parsed.a ?? defaultSession());
  const b = sideInputs("B", parsed.b ?? parsed.a ?? defaultSession());
  const sameCode = h("input", { type: "checkbox", testid: "cmp-same-code", checked: !parsed.b || parsed.b.code === (parsed.a?.code ?? parsed.b.code) });
  const linkBox = h("input", { type: "text", readonly: true, class: "mono cmp-link", testid: "cmp-link", "aria-label": "Link to this comparison" });
  const results = h("div", { class: "cmp-results", testid: "cmp-results" });
  const runBtn = h("button", { type: "button", class: "btn primary", testid: "cmp-run" }, "Run both");
  const syncCode = () => { b.code.hidden = sameCode.checked; if (sameCode.checked) b.code.value = a.code.value; };
  sameCode.addEventListener("change", syncCode);
  a.code.addEventListener("input", () => { if (sameCode.checked) b.code.value = a.code.value; });
  syncCode();
  const column = (side: Side) => h("div", { class: "cmp-side" },
    h("h3", null, `Stack ${side.name}`),
    h("label", null, "function ", side.fn),
    h("label", null, "stack, innermost first ", side.stack),
    h("label", null, "arguments ", side.args));
  replace(root,
    h("header", { class: "cmp-head" }, h("a", { href: "/", class: "brand" }, "jaxplay"), h("strong", null, "Compare two stacks"), h("span", { class: "grow" }), runBtn),
    h("div", { class: "cmp-inputs" },
      h("div", { class: "cmp-codes" }, a.code, b.code),
      h("label", { class: "muted" }, sameCode, " the same code on both sides"),
      h("div", { class: "cmp-sides" }, column(a), column(b)),
      h("div", { class: "cmp-share" }, h("span", { class: "muted" }, "Link to this comparison (nothing is stored): "), linkBox)),
    results);

  const go = async () => {
    if (runBtn.getAttribute("aria-disabled") === "true") return; // (both still running)
    syncCode();
    let sa: Session, sb: Session;
    try { sa = sessionOf(a); sb = sessionOf(b); } catch (e) {
      replace(results, h("p", { class: "error-text", testid: "cmp-error" }, (e as Error).message));
      return;
    }
    const url = compareUrl(sa, sb);
    linkBox.value = url ?? "(too long for a link)";
    if (url) history.replaceState(null, "", url.slice(location.origin.length));
    replace(results, h("p", { class: "muted" }, "Running both…"));
    // aria-disabled, not disabled, as the playground's Run: a disabled button drops the focus.
    runBtn.setAttribute("aria-disabled", "true");
    try {
      const ctl = new AbortController();
      const [ra, rb] = await Promise.all([run(toRequest(sa), ctl.signal), run(toRequest(sb), ctl.signal)]);
      renderResults(results, sa, sb, ra, rb);
    } catch (e) {
      replace(results, h("p", { class: "error-text", testid: "cmp-error" }, (e as Error).message));
    } finally {
      runBtn.setAttribute("aria-disabled", "false");
      root.dataset.runs = String(Number(root.dataset.runs ?? 0) + 1);
    }
  };
  runBtn.addEventListener("click", () => void go());
  if (parsed.a) await go();
}

function renderResults(el: HTMLElement, sa: Session, sb: Session, ra: RunReport, rb: RunReport) {
  const ma = metrics(ra), mb = metrics(rb);
  const values = compareValues(ra, rb);
  const ca = mainCall(ra), cb = mainCall(rb);
  const fa = ca?.stages[ca.stages.length - 1], fb = cb?.stages[cb.stages.length - 1];
  const diff = fa?.graph && fb?.graph ? diffStages(fa, fb) : null;
  const row = (name: string, x: string, y: string, testid: string) =>
    h("tr", { testid }, h("th", null, name), h("td", { class: "mono" }, x), h("td", { class: "mono" }, y));
  const table = h("table", { class: "cmp-table" },
    h("thead", null, h("tr", null, h("th", null, ""), h("th", null, `A: ${composedCall(sa.function ?? "script", sa.stack)}`), h("th", null, `B: ${composedCall(sb.function ?? "script", sb.stack)}`))),
    h("tbody", null,
      row("run", ma.ok, mb.ok, "cmp-row-ok"),
      h("tr", { testid: "cmp-row-value" }, h("th", null, "result"), h("td", null, h("div", { class: "cmp-value" }, renderValue(ra.result))), h("td", null, h("div", { class: "cmp-value" }, renderValue(rb.result)))),
      row("equations (final stage)", ma.equations, mb.equations, "cmp-row-equations"),
      row("estimated cost", ma.cost, mb.cost, "cmp-row-cost"),
      row("kernels", ma.kernels, mb.kernels, "cmp-row-kernels"),
      row("trace + transform + compile", ma.compile, mb.compile, "cmp-row-compile"),
      row("execute", ma.execute, mb.execute, "cmp-row-execute"),
      row("whole run", ma.total, mb.total, "cmp-row-total")));
  const irA = new IRPanel({ onSourceLines: () => undefined });
  const irB = new IRPanel({ onSourceLines: () => undefined });
  replace(el,
    h("p", { class: `cmp-verdict ${values.same ? "ok" : "bad"}`, testid: "cmp-values" }, values.text),
    h("p", { class: "cmp-verdict", testid: "cmp-ir-diff" }, diff ? `IR, B's final stage against A's: ${diff.summary.replace(/^.*? vs .*?: /, "")}` : "No IR to compare."),
    table,
    h("div", { class: "cmp-irs" }, h("div", { class: "cmp-ir", testid: "cmp-ir-a" }, irA.el), h("div", { class: "cmp-ir", testid: "cmp-ir-b" }, irB.el)));
  irA.show(ca);
  irB.show(cb);
}
