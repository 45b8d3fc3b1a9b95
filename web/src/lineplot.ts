// A 1-D result's line plot, drawn by uPlot: its axes are as wide as their tick labels, the line
// breaks at NaN/inf, hovering reads out `[i] = value`, and its width follows the panel's. uPlot
// loads with the first plot (a chunk of its own: most runs never show one).

import type uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { h } from "./dom";
import { fmtNum } from "./format";

const HEIGHT = 180;
const FONT_PX = 11; // (whole pixels: uPlot scales the font's size by the device's pixel ratio)

/** A theme colour, read when drawn so a theme toggle repaints in the new colours. */
function cssVar(el: Element, name: string, fallback: string): string {
  const from = el.isConnected ? el : document.documentElement;
  return getComputedStyle(from).getPropertyValue(name).trim() || fallback;
}

/** Decimals a tick step needs: 0.25 needs 2, 0.05 needs 2, 5 needs 0. */
function stepDecimals(step: number): number {
  const exp = Math.floor(Math.log10(step) + 1e-9);
  const mantissa = step / 10 ** exp;
  return Math.max(0, -exp + (Math.abs(mantissa - Math.round(mantissa)) > 1e-6 ? 1 : 0));
}

/** Tick labels: as many decimals as the step between ticks needs, powers of ten for magnitudes
 *  below 1e-3 or from 1e6 (the way fmtNum writes values). */
export function tickLabels(ticks: number[], step: number): string[] {
  const big = Math.max(0, ...ticks.map(Math.abs));
  if (big >= 1e6 || (big > 0 && big < 1e-3)) {
    // (the digits the step needs at the largest tick's power of ten)
    const digits = Math.min(stepDecimals(step / 10 ** Math.floor(Math.log10(big) + 1e-9)), 6);
    return ticks.map((v) => (v === 0 ? "0" : v.toExponential(digits)));
  }
  const decimals = Math.min(stepDecimals(step), 12);
  return ticks.map((v) => (Math.abs(v) < step / 2 ? "0" : v.toFixed(decimals)));
}

type UPlot = typeof uPlot;
let loading: Promise<UPlot> | null = null;
const loadUPlot = () => (loading ??= import("uplot").then((m) => m.default));

/** An axis just wide (or tall) enough for its labels: uPlot's ticks and gap plus the widest label. */
function sizeToLabels(u: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  const axis = u.axes[axisIdx] as uPlot.Axis & { _size?: number };
  if (cycleNum > 1 && axis._size) return axis._size; // (settled: stop uPlot's re-measuring loop)
  const base = (axis.ticks?.size ?? 10) + (axis.gap ?? 5);
  if (axisIdx === 0) return base + FONT_PX + 6;
  u.ctx.font = (axis.font as unknown as [string])[0];
  const widest = Math.max(0, ...(values ?? []).map((v) => u.ctx.measureText(v).width));
  return Math.ceil(base + widest / devicePixelRatio + 4);
}

// Plots on the page, repainted when the theme changes (dropped once they have left the page).
const plots = new Set<{ u: uPlot; shown: boolean }>();
function dropGone() {
  for (const p of plots) if (p.shown && !p.u.root.isConnected) { p.u.destroy(); plots.delete(p); }
}
new MutationObserver(() => {
  dropGone();
  for (const p of plots) p.u.redraw(false, true);
}).observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });

export function linePlot(ys: number[], label = ""): HTMLElement {
  const box = h("div", { class: "lineplot", role: "img", "aria-label": `Line plot of ${ys.length} values ${label}`.trim(),
    style: { minHeight: `${HEIGHT}px` } });
  const readout = h("div", { class: "readout", testid: "lineplot-readout" }, " ");
  void loadUPlot().then((U) => draw(U, ys, box, readout));
  return h("figure", { class: "chart", testid: "lineplot" }, box, readout);
}

function draw(U: UPlot, ys: number[], box: HTMLElement, readout: HTMLElement) {
  const n = ys.length;
  const xs = ys.map((_, i) => i);
  // uPlot breaks a line at null: NaN and inf become gaps, as they have no place on the axis.
  const finite = ys.map((v) => (Number.isFinite(v) ? v : null));
  const muted = () => cssVar(box, "--muted", "#5f6778");
  const font = `${FONT_PX}px ${cssVar(document.documentElement, "--mono", "monospace")}`;
  const axis = (scale: string): uPlot.Axis => ({
    scale, font, size: sizeToLabels, gap: 4,
    stroke: muted,
    grid: { stroke: () => cssVar(box, "--border", "#dcdfe5"), dash: [3, 3], width: 1 },
    ticks: { stroke: () => cssVar(box, "--border", "#dcdfe5"), width: 1, size: 4 },
  });
  const opts: uPlot.Options = {
    width: 560,
    height: HEIGHT,
    legend: { show: false },
    cursor: { y: false, drag: { x: true, y: false }, points: { size: 7 } },
    scales: {
      x: { time: false },
      // A constant or all-non-finite array still gets an axis to sit on.
      y: { range: (_u, lo, hi) => (lo == null || hi == null ? [0, 1] : U.rangeNum(lo, hi, 0.1, true)) },
    },
    axes: [
      // Indices: whole steps only.
      { ...axis("x"), incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6],
        values: (_u, ticks) => ticks.map((v) => String(v)) },
      { ...axis("y"), values: (_u, ticks, _i, _space, step) => tickLabels(ticks, step) },
    ],
    series: [
      {},
      {
        label: "value",
        stroke: () => cssVar(box, "--accent", "#4f46e5"),
        width: 2,
        spanGaps: false,
        points: { show: n <= 40, size: 5, fill: () => cssVar(box, "--accent", "#4f46e5") },
      },
    ],
    hooks: {
      // The zero line, when the axis crosses it.
      drawAxes: [(u) => {
        const { min, max } = u.scales.y;
        if (min == null || max == null || !(min < 0 && max > 0)) return;
        const y = Math.round(u.valToPos(0, "y", true));
        const { ctx, bbox } = u;
        ctx.save();
        ctx.strokeStyle = muted();
        ctx.lineWidth = U.pxRatio;
        ctx.setLineDash([]);
        ctx.beginPath();
        ctx.moveTo(bbox.left, y);
        ctx.lineTo(bbox.left + bbox.width, y);
        ctx.stroke();
        ctx.restore();
      }],
      setCursor: [(u) => {
        const i = u.cursor.idx;
        readout.textContent = i == null || u.cursor.left == null || u.cursor.left < 0 ? " " : `[${i}] = ${fmtNum(ys[i], 6)}`;
      }],
    },
  };
  dropGone();
  const u = new U(opts, [xs, finite], box);
  const entry = { u, shown: false };
  plots.add(entry);
  new ResizeObserver((entries) => {
    const width = Math.floor(entries[entries.length - 1].contentRect.width);
    if (width > 0 && width !== u.width) u.setSize({ width, height: HEIGHT });
    if (width > 0) entry.shown = true;
  }).observe(box);
}
