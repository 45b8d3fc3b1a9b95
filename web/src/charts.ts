// The heatmap (canvas pixels, one per element) and the colour scales that tint value tables: drawn by
// hand, as no chart library draws an array as an image with a colour bar in less. The line plot is
// uPlot's (lineplot.ts).

import { h } from "./dom";
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
