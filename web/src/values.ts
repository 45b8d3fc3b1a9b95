// Rendering of result values: scalars, arrays as tinted tables, 1-D line plots, 2-D heatmaps, and
// pytrees as collapsible trees.

import { heatmap, makeScale, tint } from "./charts";
import { h } from "./dom";
import { flatten, fmtNum, size, typeStr } from "./format";
import { linePlot } from "./lineplot";
import type { ArraySummary, CheckifyError, TreeNode, Value } from "./report";
import { num } from "./report";

export function renderValue(v: Value | null | undefined, depth = 0): HTMLElement {
  if (!v) return h("span", { class: "muted" }, "None");
  if (v.kind === "array") return renderArray(v as ArraySummary);
  if (v.kind === "checkify_error") return renderCheckifyError(v as CheckifyError);
  return renderTree(v as TreeNode, depth);
}

/** checkify's Error value: the failure it holds and the line whose check failed, or that none did. */
function renderCheckifyError(e: CheckifyError): HTMLElement {
  if (e.message === null || e.message === undefined) {
    return h("div", { class: "checkify-error ok", testid: "checkify-error", dataset: { failed: "false" } },
      h("span", { class: "badge ok" }, "Error(None)"), " no check failed");
  }
  const where = e.source ? `line ${e.source.line}${e.source.function ? ` in ${e.source.function}` : ""}` : null;
  return h("div", { class: "checkify-error failed", testid: "checkify-error", dataset: { failed: "true", line: e.source ? String(e.source.line) : "" } },
    h("span", { class: "badge danger" }, e.error_type ?? "Error"),
    where ? h("span", { class: "muted", testid: "checkify-error-line" }, ` at ${where}`) : null,
    h("pre", { class: "mono checkify-message", testid: "checkify-error-message" }, e.message));
}

function renderTree(t: TreeNode, depth: number): HTMLElement {
  if (t.kind === "none") return h("span", { class: "py-none", testid: "value-none" }, "None");
  if (t.kind === "object" && !t.children.length) {
    return h("span", { class: "py-object mono", testid: "value-object", title: t.type_name ?? "" }, t.repr ?? t.type_name ?? "object");
  }
  const open = t.kind === "dict" || t.kind === "namedtuple" ? "{" : t.kind === "list" ? "[" : "(";
  const name = t.type_name && t.type_name !== t.kind ? t.type_name : t.kind;
  const details = h("details", { class: "tree", testid: "value-tree", open: depth < 3 },
    h("summary", null, h("span", { class: "mono" }, name), " ",
      h("span", { class: "muted" }, `${open}${t.children.length} item${t.children.length === 1 ? "" : "s"}${open === "{" ? "}" : open === "[" ? "]" : ")"}`)),
    h("ul", null, t.children.map((c, i) => h("li", null,
      h("span", { class: "tree-key mono" }, t.keys?.[i] !== undefined ? `${t.keys[i]}` : `[${i}]`),
      renderValue(c, depth + 1)))));
  return details;
}

export function arrayHeader(a: ArraySummary): HTMLElement {
  const nan = a.nan_count ?? 0, inf = a.inf_count ?? 0;
  return h("div", { class: "array-head" },
    h("span", { class: "type-chip", title: a.weak_type ? "weakly typed" : "" }, typeStr(a.dtype, a.shape), a.weak_type ? "·weak" : ""),
    a.shape.length ? h("span", { class: "stats" },
      h("span", null, "min ", h("b", null, fmtNum(a.min))),
      h("span", null, "max ", h("b", null, fmtNum(a.max))),
      h("span", null, "mean ", h("b", null, fmtNum(a.mean)))) : null,
    nan ? h("span", { class: "badge danger", testid: "nan-badge" }, `${nan} NaN`) : null,
    inf ? h("span", { class: "badge warn", testid: "inf-badge" }, `${inf} Inf`) : null,
    a.devices?.length ? h("span", { class: "badge" }, `sharded over ${a.devices.length} devices`) : null,
    a.truncated ? h("span", { class: "badge muted" }, "values truncated") : null);
}

function renderArray(a: ArraySummary): HTMLElement {
  const el = h("div", { class: "array", testid: "value-array", dataset: { shape: JSON.stringify(a.shape), dtype: a.dtype } });
  if (a.data !== null && a.data !== undefined) el.dataset.json = JSON.stringify(a.data);
  el.appendChild(arrayHeader(a));
  if (a.data === null || a.data === undefined) {
    el.appendChild(h("p", { class: "hint" }, a.truncated ? "Too large to send whole; the summary above covers every element." : "No values."));
    return el;
  }
  const nd = a.shape.length;
  if (nd === 0) {
    const v = num(a.data as never);
    el.appendChild(h("div", { class: `scalar mono${v !== null && !Number.isFinite(v) ? " nonfinite" : ""}`, testid: "scalar" }, fmtNum(a.data as never, 8)));
    return el;
  }
  if (nd === 1) {
    const ys = flatten(a.data);
    if (ys.length >= 3) el.appendChild(linePlot(ys));
    el.appendChild(collapsible(table([ys]), ys.length > 64, `Table (${ys.length} values)`));
    return el;
  }
  if (nd === 2) {
    el.appendChild(matrix(a.data as unknown[][]));
    return el;
  }
  // 3-D and up: the leading indices, each as a 2-D slice.
  const lead = a.shape.slice(0, nd - 2);
  const slices = Math.min(size(lead), 6);
  const flat = flatten(a.data);
  const [r, c] = a.shape.slice(nd - 2);
  for (let k = 0; k < slices; k++) {
    const idx = unravel(k, lead);
    const rows: number[][] = [];
    for (let i = 0; i < r; i++) rows.push(flat.slice(k * r * c + i * c, k * r * c + (i + 1) * c));
    el.appendChild(h("div", { class: "slice" }, h("div", { class: "slice-label mono" }, `[${idx.join(", ")}, :, :]`), matrix(rows)));
  }
  if (size(lead) > slices) el.appendChild(h("p", { class: "hint" }, `… ${size(lead) - slices} more slices`));
  return el;
}

function matrix(data: unknown[][]): HTMLElement {
  const rows = data.map((row) => flatten(row));
  const nr = rows.length, nc = rows[0]?.length ?? 0;
  const wrap = h("div", { class: "matrix" });
  const big = nr * nc > 400;
  if (nr >= 2 && nc >= 2 && nr * nc >= 12) wrap.appendChild(heatmap(rows));
  wrap.appendChild(collapsible(table(rows), big, `Table (${nr} × ${nc})`));
  return wrap;
}

function collapsible(content: HTMLElement, collapsed: boolean, label: string): HTMLElement {
  if (!collapsed) return content;
  return h("details", { class: "table-details" }, h("summary", null, label), content);
}

function table(rows: number[][]): HTMLElement {
  const scale = makeScale(rows.flat());
  const maxCols = 200;
  const nc = Math.min(rows[0]?.length ?? 0, maxCols);
  return h("div", { class: "table-wrap" },
    h("table", { class: "values", testid: "value-table" },
      h("thead", null, h("tr", null, rows.length > 1 ? h("th", null, "") : null,
        Array.from({ length: nc }, (_, j) => h("th", null, String(j))))),
      h("tbody", null, rows.slice(0, 200).map((row, i) => h("tr", null,
        rows.length > 1 ? h("th", null, String(i)) : null,
        row.slice(0, maxCols).map((v) => h("td", { style: { background: tint(v, scale) }, class: Number.isFinite(v) ? "" : "nonfinite" }, fmtNum(v))))))));
}

function unravel(k: number, shape: number[]): number[] {
  const idx: number[] = [];
  for (let d = shape.length - 1; d >= 0; d--) { idx.unshift(k % shape[d]); k = Math.floor(k / shape[d]); }
  return idx;
}
