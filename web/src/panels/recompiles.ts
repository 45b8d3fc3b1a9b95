// Why it recompiled: every recorded call of a jitted function on one timeline, each marked as a
// fresh compile, a kernel-cache (disk) load or an in-memory cache hit, with the reason the engine
// gives for a miss (JAX's explain_cache_misses text: of the signatures seen before, the closest and
// what differs from it — an argument's shape, dtype or weak type, a static value, the pytree, the
// config — or a function never seen, made anew at each call) and what tracing and compiling cost.
// Where a call's kernels came from is read off the same events the Timings timeline draws (its
// "compile" and "load" bars), so the table's counts and the timeline's bars agree.

import { fittedToWidth, h, s } from "../dom";
import { fmtMs } from "../format";
import type { RunReport, TimingEvent, TransformedCall } from "../report";
import { userLine } from "../report";
import { exclusiveTotals } from "./timings";

type Status = "compile" | "recompile" | "disk" | "memory" | "hit";
/** Where a traced call's kernels came from: compiled (any of them), loaded from the kernel cache,
 *  or all already in memory; null when it has none (the interpreter ran it) or none settled yet. */
type Kernels = "compiled" | "disk" | "memory" | null;

interface CallFact {
  call: TransformedCall;
  status: Status;
  kernels: Kernels;
  reason: string;
  start: number;
  traceMs: number;
  compileMs: number;
}

const STATUS_TEXT: Record<Status, string> = {
  compile: "first compile",
  recompile: "recompiled",
  disk: "from kernel cache",
  memory: "kernels in memory",
  hit: "cache hit",
};

const COMPILE_TITLE = "Lowering, then compiling the kernels or loading them from the kernel cache (the call's \"lower\", \"compile\" and \"load kernels\" bars on the timeline)";

const KERNELS_NOTE: Record<Exclude<Kernels, null>, string> = {
  compiled: "",
  disk: "\n(its kernels loaded from the kernel cache)",
  memory: "\n(its kernels were already in memory)",
};

/** A miss's reason as the page says it: JAX's explain_cache_misses lines (as the report has them), led
 *  as JAX leads a miss that had earlier signatures, and without the mesh-axis annotation JAX adds to
 *  a type whose rank changed: for an array on no mesh it is an empty "({})", which says nothing
 *  ("now f32[2,2] and before f32[3]", where it read "now f32[2,2]({}) and before f32[3]({})"). */
export function readableReason(reason: string): string {
  const text = reason.replaceAll("({})", "");
  return /^(different input |Tracing context)/.test(text)
    ? "all previously seen cache keys differ. For the closest previous key:\n" + text
    : text;
}

/** Where the call's kernels came from, by its jit steps on the timeline. */
function kernelsOf(ev: TimingEvent[]): Kernels {
  const steps = ev.filter((e) => (e.category === "compile" || e.category === "load") && e.name.includes("jit("));
  if (steps.some((e) => e.category === "compile")) return "compiled";
  if (steps.some((e) => e.cache === "disk")) return "disk";
  return steps.length ? "memory" : null;
}

/** The call's own tracing and lowering + compiling (or loading) time: its host events inside its run
 *  bar, each instant counted once (a lowering encloses its nested programs' compiles), plus its
 *  background compile. (The report's own re-tracing and lowering for display come after the run.) */
function costs(ev: TimingEvent[]): { traceMs: number; compileMs: number } {
  const run = ev.find((e) => e.category === "run");
  const inside = (e: TimingEvent) => !run || (e.start_ms >= run.start_ms - 1e-6 && e.start_ms + e.duration_ms <= run.start_ms + run.duration_ms + 1e-6);
  const host = ev.filter((e) => e.category !== "run" && !e.background && e.device == null && inside(e));
  const totals = exclusiveTotals(host);
  const got = (c: "trace" | "lower" | "compile" | "load") => totals.get(c) ?? 0;
  const background = ev.filter((e) => e.background && (e.category === "compile" || e.category === "load")).reduce((a, e) => a + e.duration_ms, 0);
  return { traceMs: got("trace"), compileMs: got("lower") + got("compile") + got("load") + background };
}

function facts(report: RunReport): CallFact[] {
  const out: CallFact[] = [];
  const seen = new Set<string>();
  for (const call of report.calls) {
    if (!call.jit) continue;
    const ev = call.timings;
    const first = !seen.has(call.label);
    seen.add(call.label);
    const kernels = call.jit.cache === "hit" ? null : kernelsOf(ev);
    // A later call that missed is a recompile whatever its kernels came from: the reason is the
    // point; where its kernels came from is said after it.
    const status: Status = call.jit.cache === "hit" ? "hit" : !first ? "recompile"
      : kernels === "disk" ? "disk" : kernels === "memory" ? "memory" : "compile";
    // (A report without a reason for a miss is one recorded before the engine kept them.)
    const reason = (status === "hit" ? "same argument types and static values as an earlier call"
      : (call.jit.recompile_reason != null ? readableReason(call.jit.recompile_reason) : null) ?? (first ? "first call with these argument types" : "traced again"))
      + (status === "recompile" && kernels ? KERNELS_NOTE[kernels] : "");
    const run = ev.find((e) => e.category === "run");
    out.push({ call, status, kernels, reason, start: run?.start_ms ?? ev[0]?.start_ms ?? 0, ...costs(ev) });
  }
  return out;
}

function summarize(rows: CallFact[]): string {
  const fns = new Set(rows.map((r) => r.call.label));
  const count = (st: Status) => rows.filter((r) => r.status === st).length;
  const kernels = (k: Kernels) => rows.filter((r) => r.kernels === k).length;
  const compileTotal = rows.reduce((a, r) => a + r.traceMs + r.compileMs, 0);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const traced = rows.length - count("hit");
  // (kernels counted as the timeline's bars say: a call with a "compile" bar compiled, one with
  // only "load kernels … (disk cache)" bars loaded)
  const memory = kernels("memory");
  return `${plural(rows.length, "call")} of ${plural(fns.size, "jitted function")}: `
    + `${plural(count("hit"), "cache hit")}, ${traced} traced (${count("recompile")} recompiled), `
    + `of which ${kernels("compiled")} compiled their kernels and ${kernels("disk")} loaded them from the kernel cache`
    + (memory ? ` (${memory} had them in memory already)` : "")
    + `; ${fmtMs(compileTotal)} tracing, lowering and compiling or loading`;
}

/** The traces and compiles of a run's jitted calls (and the previous run's, summed up), or null
 *  when it made none. */
export function renderRecompiles(report: RunReport, previous?: RunReport | null): HTMLElement | null {
  const rows = facts(report);
  if (!rows.length) return null;
  const fns = [...new Set(rows.map((r) => r.call.label))];
  const summary = summarize(rows);
  const before = previous ? facts(previous) : [];
  // Timeline: one lane per jitted function, calls in run order along x. Drawn as wide as its box in
  // CSS pixels (redrawn when that changes), as the Timings panel's: scaled from a fixed width, its
  // labels were a few pixels tall on a phone. The label column takes what the width allows.
  const laneH = 26, pad = 10, charW = 6.4;
  const t0 = Math.min(...rows.map((r) => r.start)), t1 = Math.max(...rows.map((r) => r.start + r.traceMs + r.compileMs), t0 + 1);
  const draw = (W: number) => {
    const left = Math.round(Math.min(190, Math.max(96, W * 0.3)));
    const fit = Math.max(6, Math.floor((left - 10) / charW));
    const x = (t: number) => left + ((t - t0) / (t1 - t0)) * (W - left - pad);
    const H = fns.length * laneH + 24;
    return s("svg", { class: "recompile-timeline", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": "Compiles over time" },
      fns.map((fn, i) => s("text", { x: 4, y: i * laneH + 17, class: "tick" }, fn.length > fit ? fn.slice(0, fit - 1) + "…" : fn,
        fn.length > fit ? s("title", null, fn) : null)),
      rows.map((r, k) => {
        const lane = fns.indexOf(r.call.label);
        const w = Math.max(4, x(r.start + r.traceMs + r.compileMs) - x(r.start));
        return s("rect", {
          x: x(r.start), y: lane * laneH + 5, width: w, height: laneH - 10, rx: 3, class: `rc-mark rc-${r.status}`, testid: "recompile-mark", "data-call": k,
        }, s("title", null, `call ${r.call.id + 1}${userLine(r.call.source) ? ` (line ${userLine(r.call.source)})` : ""}: ${STATUS_TEXT[r.status]} — ${r.reason}`));
      }),
      // The axis's ends: "0" (as the Timings timeline's), not "0 µs" beside "56.3 ms".
      s("text", { x: left, y: fns.length * laneH + 18, class: "tick", testid: "recompile-tick" }, "0"),
      s("text", { x: W - pad, y: fns.length * laneH + 18, class: "tick", "text-anchor": "end", testid: "recompile-tick" }, fmtMs(t1 - t0)));
  };
  const svg = fittedToWidth("recompile-timeline-wrap", draw, 760, 240);
  // (explicit roles: on a phone the rows lay out as cards, styles below, and stay a table to screen
  // readers; the labelled cells say what their numbers are where the header row is not shown)
  const table = h("table", { class: "recompile-table", role: "table" },
    h("thead", null, h("tr", { role: "row" }, [["call", "rc-call"], ["line", "rc-line"], ["function", "rc-function"], ["what happened", "rc-status"], ["why", "rc-reason"], ["trace", "num"], ["compile or load", "num"]].map(([c, cls]) => h("th", { role: "columnheader", scope: "col", class: cls, title: c === "compile or load" ? COMPILE_TITLE : null }, c)))),
    h("tbody", null, rows.map((r) => h("tr", { role: "row", testid: "recompile-row", "data-status": r.status },
      h("td", { role: "cell", class: "rc-call", dataset: { label: "call" } }, String(r.call.id + 1)),
      h("td", { role: "cell", class: "rc-line", dataset: { label: "line" } }, userLine(r.call.source) ? String(userLine(r.call.source)) : "—"),
      h("td", { role: "cell", class: "mono rc-function" }, r.call.label),
      h("td", { role: "cell", class: "rc-status" }, h("span", { class: `rc-chip rc-${r.status}` }, STATUS_TEXT[r.status])),
      h("td", { role: "cell", class: "rc-reason" }, r.reason),
      h("td", { role: "cell", class: "num", dataset: { label: "trace" } }, fmtMs(r.traceMs)),
      h("td", { role: "cell", class: "num", dataset: { label: "compile or load" }, title: COMPILE_TITLE }, fmtMs(r.compileMs))))));
  return h("section", { class: "recompiles", testid: "recompiles" },
    h("h3", null, "Traces and compiles"),
    h("p", { class: "muted", testid: "recompile-summary" }, summary),
    before.length ? h("p", { class: "muted", testid: "recompile-previous" }, `The run before: ${summarize(before)}`) : null,
    svg, table);
}
