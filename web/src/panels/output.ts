// The Output panel: the error (with its line, layer and suggested fix), stdout, debug prints and
// the result value.

import { h, s } from "../dom";
import { fmtMs } from "../format";
import type { Check } from "../expected";
import type { ArraySummary, RunError, RunReport, TreeNode, Value } from "../report";
import { renderValue } from "../values";

const LIMITS: Record<string, [string, string]> = {
  timeout: ["Time limit reached", "Look for a loop that never ends, or make the inputs smaller. The page is ready for the next run."],
  cpu: ["CPU limit reached", "Make the inputs smaller or the loops shorter."],
  memory: ["Memory limit reached", "Make the arrays smaller."],
  output: ["Output limit reached", "Print less, or print summaries (shapes, min/max) instead of whole arrays."],
  code_size: ["Code too large", "Split the code, or remove what the run does not need."],
  killed: ["Run stopped", "The sandbox stopped the run."],
};

export interface OutputHandlers {
  gotoLine(line: number): void;
  /** Open the Debugger at the first equation producing NaN/Inf; absent when no trace has one. */
  openFirstNonfinite?: () => void;
}

/** NaN and Inf counts over every array of a value. */
export function nonfiniteCounts(v: Value | null | undefined): { nan: number; inf: number } {
  const out = { nan: 0, inf: 0 };
  const walk = (x: Value | null | undefined) => {
    if (!x) return;
    if (x.kind === "array") { out.nan += (x as ArraySummary).nan_count ?? 0; out.inf += (x as ArraySummary).inf_count ?? 0; }
    else if (x.kind !== "checkify_error") (x as TreeNode).children?.forEach(walk);
  };
  walk(v);
  return out;
}

/** The run's status line: failed, stopped at a limit, finished with NaN/Inf in the result, or ok. */
function runStatus(report: RunReport, handlers: OutputHandlers): HTMLElement {
  const limit = report.error?.limit;
  if (limit) {
    const [title] = LIMITS[limit] ?? ["Limit reached"];
    return h("span", { class: "status fail", testid: "run-status", dataset: { state: "limit" } }, `✕ ${title}`);
  }
  if (!report.ok) return h("span", { class: "status fail", testid: "run-status", dataset: { state: "failed" } }, "✕ failed");
  const { nan, inf } = nonfiniteCounts(report.result);
  if (nan || inf) {
    const what = [nan ? `${nan} NaN` : "", inf ? `${inf} Inf` : ""].filter(Boolean).join(" and ");
    return h("span", { class: "status warn", testid: "run-status", dataset: { state: "nonfinite" } },
      `⚠ result has ${what}`,
      handlers.openFirstNonfinite
        ? h("button", { type: "button", class: "link", testid: "goto-first-nonfinite", onclick: handlers.openFirstNonfinite }, "show the first in the Debugger")
        : null);
  }
  return h("span", { class: "status ok", testid: "run-status", dataset: { state: "ok" } }, "✓ ok");
}

export function renderError(err: RunError, handlers: OutputHandlers): HTMLElement {
  if (err.limit) {
    const [title, hint] = LIMITS[err.limit] ?? ["Limit reached", ""];
    return h("div", { class: "error-box limit", role: "alert", testid: "error-box", dataset: { limit: err.limit } },
      h("div", { class: "error-title" }, h("span", { class: "error-icon", "aria-hidden": "true" }, stopwatch()), title),
      h("p", { class: "error-message", testid: "error-message" }, err.message),
      err.line ? h("div", { class: "error-where" }, "stopped at ", h("button", {
        type: "button", class: "link", testid: "error-line", dataset: { line: String(err.line) },
        onclick: () => handlers.gotoLine(err.line!),
      }, `line ${err.line}`)) : null,
      traceback(err, handlers),
      h("p", { class: "hint" }, hint));
  }
  const where: (HTMLElement | string)[] = [];
  if (err.line) {
    where.push(h("button", {
      type: "button", class: "link", testid: "error-line", dataset: { line: String(err.line) },
      onclick: () => handlers.gotoLine(err.line!),
    }, `line ${err.line}${err.column ? `, column ${err.column}` : ""}`));
  }
  if (err.layer) where.push(h("span", { class: "badge", testid: "error-layer" }, `raised under ${err.layer}`));
  const userFrames = err.traceback.filter((f) => f.user);
  return h("div", { class: "error-box", role: "alert", testid: "error-box", dataset: { type: err.type } },
    h("div", { class: "error-title" }, h("span", { class: "error-icon", "aria-hidden": "true" }, "✕"),
      h("span", { class: "mono", testid: "error-type" }, err.type)),
    h("pre", { class: "error-message", testid: "error-message" }, err.message),
    where.length ? h("div", { class: "error-where" }, "at ", where) : null,
    err.suggestion ? h("div", { class: "suggestion", testid: "error-suggestion" },
      h("span", { class: "label" }, "Suggested fix"), h("p", null, err.suggestion)) : null,
    traceback(err, handlers, userFrames.length > 1));
}

function traceback(err: RunError, handlers: OutputHandlers, open = false): HTMLElement | null {
  if (!err.traceback.length) return null;
  return h("details", { class: "traceback", open },
    h("summary", null, `Traceback (${err.traceback.length} frame${err.traceback.length === 1 ? "" : "s"})`),
    h("ol", null, err.traceback.map((f) => h("li", { class: f.user ? "user" : "lib" },
      f.user
        ? h("button", { type: "button", class: "link mono", onclick: () => handlers.gotoLine(f.line) }, `line ${f.line}`)
        : h("span", { class: "mono muted", title: f.file }, `${libraryPath(f.file)}:${f.line}`),
      h("span", { class: "mono" }, ` in ${f.function}`),
      f.text ? h("code", { class: "frame-text" }, f.text) : null))));
}

/** A library frame's file from its package on ('engine/api.py', 'numpy/_core/fromnumeric.py'): the
 *  server's own directories say nothing to the reader and push the function name off the line. */
export function libraryPath(file: string): string {
  const site = file.lastIndexOf("-packages/");
  if (site >= 0) return file.slice(site + "-packages/".length);
  const engine = file.lastIndexOf("/engine/");
  return engine >= 0 ? file.slice(engine + 1) : file;
}

/** The limit icon as SVG: the "⏱" glyph is missing from many system fonts. */
function stopwatch(): SVGElement {
  return s("svg", { viewBox: "0 0 16 16", width: 13, height: 13, class: "icon-svg", testid: "limit-icon" },
    s("circle", { cx: 8, cy: 9, r: 5.5, fill: "none", stroke: "currentColor", "stroke-width": 1.8 }),
    s("path", { d: "M8 9V6M6 1.5h4M12.2 4.3l1-1", fill: "none", stroke: "currentColor", "stroke-width": 1.8, "stroke-linecap": "round" }));
}

export function requestError(message: string, kind: string): HTMLElement {
  return h("div", { class: `error-box ${kind === "abort" ? "cancelled" : ""}`, role: "alert", testid: "error-box", dataset: { kind } },
    h("div", { class: "error-title" }, h("span", { class: "error-icon", "aria-hidden": "true" }, kind === "abort" ? "■" : "!"),
      kind === "abort" ? "Cancelled" : "Request failed"),
    h("p", { class: "error-message", testid: "error-message" }, message));
}

export function renderOutput(report: RunReport, handlers: OutputHandlers, check?: Check | null): HTMLElement {
  const parts: HTMLElement[] = [];
  parts.push(h("div", { class: "run-meta" },
    runStatus(report, handlers),
    // A long stack label is cut to the line with an ellipsis; the whole label is its tooltip.
    report.label ? h("code", { class: "mono run-label", testid: "run-label", title: report.label }, report.label) : h("span", null, report.mode === "script" ? "script" : ""),
    h("span", { class: "muted" }, fmtMs(report.duration_ms)),
    report.calls.length ? h("span", { class: "muted" }, `${report.calls.length} transformed call${report.calls.length === 1 ? "" : "s"}`) : null,
    h("span", { class: "muted run-engine" }, `engine ${report.engine_version}`)));
  // A limit cut the run short: say so before any of its (partial) output.
  if (report.error?.limit) parts.push(renderError(report.error, handlers));
  if (check && report.ok) {
    parts.push(h("div", { class: `expected-check ${check.status}`, testid: "expected-check", dataset: { status: check.status } },
      check.status === "match" ? "✓ Matches the example's expected values" : check.status === "mismatch" ? "✕ Differs from the example's expected values" : "Expected values not compared",
      h("span", { class: "muted" }, ` — ${check.detail}`)));
  }
  if (report.error && !report.error.limit) parts.push(renderError(report.error, handlers));
  if (report.result !== null && report.result !== undefined) {
    parts.push(h("section", { class: "result" }, h("h3", null, "Result"), h("div", { testid: "result" }, renderValue(report.result))));
  }
  if (report.stdout) parts.push(h("section", null, h("h3", null, "stdout"), h("pre", { class: "stdout", testid: "stdout" }, report.stdout)));
  if (report.prints.length) {
    parts.push(h("section", null, h("h3", null, "debug.print"),
      h("pre", { class: "stdout prints", testid: "prints" }, report.prints.map((p) => h("div", null,
        p.device != null ? h("span", { class: "device-tag" }, `dev ${p.device}`) : null, p.text)))));
  }
  if (report.stderr) parts.push(h("section", null, h("h3", null, "stderr"), h("pre", { class: "stdout stderr", testid: "stderr" }, report.stderr)));
  if (report.ok && !report.error && !report.stdout && (report.result === null || report.result === undefined) && !report.prints.length) {
    parts.push(h("p", { class: "hint" }, "The run finished without output. Print something, or pick a function and a stack."));
  }
  return h("div", { class: "output", testid: "output" }, parts);
}
