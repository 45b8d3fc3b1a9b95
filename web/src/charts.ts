// Small, dependency-free charts: a line plot (SVG) and a heatmap (canvas), both themeable through
// CSS variables and readable by hover.

import { h, s } from "./dom";
import { fmtNum } from "./format";

/** A colour for t in [0, 1]: diverging (blue–neutral–red) or sequential (viridis-like). */
export function colorFor(t: number, diverging: boolean): [number, number, number] {
  t = Math.min(1, Math.max(0, t));
  const stops: [number, number, number][] = diverging
    ? [[49, 99, 178], [120, 170, 220], [236, 236, 236], [240, 150, 110], [190, 40, 45]]
    : [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const x = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const a = stops[i], b = stops[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * f)) as [number, number, number];
}

export interface Scale {
  lo: number;
  hi: number;
  diverging: boolean;
  /** Position of v in [0, 1] on the scale. */
  t(v: number): number;
}

export function makeScale(values: number[]): Scale {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (lo === Infinity) { lo = 0; hi = 1; }
  const diverging = lo < 0 && hi > 0;
  if (diverging) {
    const m = Math.max(-lo, hi);
    return { lo: -m, hi: m, diverging, t: (v) => (v + m) / (2 * m) };
  }
  const span = hi - lo || 1;
  return { lo, hi, diverging, t: (v) => (v - lo) / span };
}

/** Table-cell tint for a value (transparent-ish, so text stays readable in both themes). */
export function tint(v: number, scale: Scale): string {
  if (!Number.isFinite(v)) return "var(--nonfinite-bg)";
  const t = scale.t(v);
  if (scale.diverging) {
    // Blue below zero, red above, stronger with magnitude.
    const a = Math.abs(t - 0.5) * 2;
    return t < 0.5 ? `rgba(49, 110, 200, ${(0.06 + 0.5 * a).toFixed(3)})` : `rgba(210, 60, 55, ${(0.06 + 0.5 * a).toFixed(3)})`;
  }
  return `rgba(99, 102, 241, ${(0.05 + 0.45 * t).toFixed(3)})`;
}

export function linePlot(ys: number[], label = ""): HTMLElement {
  const W = 560, H = 170, L = 48, R = 10, T = 10, B = 22;
  const finite = ys.filter(Number.isFinite);
  let lo = Math.min(...finite), hi = Math.max(...finite);
  if (!finite.length) { lo = 0; hi = 1; }
  if (lo === hi) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.06;
  lo -= pad; hi += pad;
  const n = ys.length;
  const x = (i: number) => L + (n <= 1 ? 0.5 : i / (n - 1)) * (W - L - R);
  const y = (v: number) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  // Break the line at non-finite values.
  let d = "", pen = false;
  ys.forEach((v, i) => {
    if (!Number.isFinite(v)) { pen = false; return; }
    d += `${pen ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    pen = true;
  });
  const ticks = [lo + pad, (lo + hi) / 2, hi - pad];
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "lineplot", role: "img", "aria-label": `Line plot of ${n} values ${label}` },
    ticks.map((v) => s("g", null,
      s("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
      s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, fmtNum(v, 3)))),
    lo < 0 && hi > 0 ? s("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "zero" }) : null,
    s("text", { x: L, y: H - 6, class: "tick" }, "0"),
    s("text", { x: W - R, y: H - 6, "text-anchor": "end", class: "tick" }, String(n - 1)),
    s("path", { d, class: "line" }),
    n <= 40 ? ys.map((v, i) => Number.isFinite(v) ? s("circle", { cx: x(i), cy: y(v), r: 2.5, class: "dot" }) : null) : null,
  );
  const cursor = s("line", { y1: T, y2: H - B, class: "cursor", visibility: "hidden" });
  const readout = h("div", { class: "readout" }, " ");
  svg.appendChild(cursor);
  svg.addEventListener("mousemove", (e) => {
    const box = svg.getBoundingClientRect();
    const px = ((e.clientX - box.left) / box.width) * W;
    const i = Math.round(((px - L) / (W - L - R)) * (n - 1));
    if (i < 0 || i >= n) return;
    cursor.setAttribute("x1", String(x(i)));
    cursor.setAttribute("x2", String(x(i)));
    cursor.setAttribute("visibility", "visible");
    readout.textContent = `[${i}] = ${fmtNum(ys[i], 6)}`;
  });
  svg.addEventListener("mouseleave", () => { cursor.setAttribute("visibility", "hidden"); readout.textContent = " "; });
  return h("figure", { class: "chart", testid: "lineplot" }, svg, readout);
}

export function heatmap(rows: number[][]): HTMLElement {
  const nr = rows.length, nc = rows[0]?.length ?? 0;
  const scale = makeScale(rows.flat());
  const canvas = h("canvas", { width: nc, height: nr, class: "heatmap-canvas", role: "img", "aria-label": `Heatmap of a ${nr} by ${nc} array` });
  const ctx = canvas.getContext("2d");
  if (ctx) {
    const img = ctx.createImageData(nc, nr);
    rows.forEach((row, i) => row.forEach((v, j) => {
      const k = (i * nc + j) * 4;
      const [r, g, b] = Number.isFinite(v) ? colorFor(scale.t(v), scale.diverging) : [255, 0, 255];
      img.data[k] = r; img.data[k + 1] = g; img.data[k + 2] = b; img.data[k + 3] = 255;
    }));
    ctx.putImageData(img, 0, 0);
  }
  const readout = h("div", { class: "readout" }, " ");
  canvas.addEventListener("mousemove", (e) => {
    const box = canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - box.left) / box.width) * nc);
    const i = Math.floor(((e.clientY - box.top) / box.height) * nr);
    if (i >= 0 && i < nr && j >= 0 && j < nc) readout.textContent = `[${i}, ${j}] = ${fmtNum(rows[i][j], 6)}`;
  });
  canvas.addEventListener("mouseleave", () => { readout.textContent = " "; });
  const bar = h("div", { class: "colorbar" },
    h("span", null, fmtNum(scale.lo, 3)),
    h("span", {
      class: "ramp",
      style: { background: `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((t) => `rgb(${colorFor(t, scale.diverging).join(",")})`).join(", ")})` },
    }),
    h("span", null, fmtNum(scale.hi, 3)));
  const aspect = Math.min(2.5, Math.max(0.4, nc / nr));
  canvas.style.aspectRatio = String(aspect);
  return h("figure", { class: "chart heatmap", testid: "heatmap" },
    h("div", { class: "heatmap-axes" },
      h("span", { class: "axis-y" }, `axis 0 (${nr})`),
      canvas),
    h("div", { class: "axis-x" }, `axis 1 (${nc})`),
    bar, readout);
}
