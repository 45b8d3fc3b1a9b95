// The Timings panel: a timeline of trace / transform / lower / compile / execute (and transfers
// and collectives), one lane for the host and one per device, with totals per category. A jit
// step whose kernels came from the kernel cache is a "load", not a "compile".

import { empty, fittedToWidth, h, s } from "../dom";
import { fmtMs, fmtTimeTicks } from "../format";
import type { RunReport, TimingCategory, TimingEvent } from "../report";

export const CATEGORIES: TimingCategory[] = ["trace", "transform", "lower", "compile", "load", "execute", "transfer", "collective", "run"];

export function renderTimings(report: RunReport, callId: number | null): HTMLElement {
  // The run's own events and every call's, once each.
  const seen = new Set<string>();
  const events = [...report.timings, ...report.calls.flatMap((c) => c.timings)].filter((e) => {
    const key = `${e.name}|${e.category}|${e.start_ms}|${e.device}|${e.call}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  }).sort((a, b) => a.start_ms - b.start_ms || b.duration_ms - a.duration_ms);
  if (!events.length) return empty("No timings recorded.", "Run something first.");

  const lanes = new Map<string, TimingEvent[]>();
  const laneOf = (e: TimingEvent) =>
    e.category === "run" ? "run" : e.background ? "background" : e.device == null ? "host" : `device ${e.device}`;
  for (const e of events) {
    const k = laneOf(e);
    if (!lanes.has(k)) lanes.set(k, []);
    lanes.get(k)!.push(e);
  }
  const order = (k: string) => (k === "run" ? -3 : k === "host" ? -2 : k === "background" ? -1 : Number(k.split(" ")[1]));
  const laneNames = [...lanes.keys()].sort((a, b) => order(a) - order(b));

  const t0 = Math.min(...events.map((e) => e.start_ms));
  const t1 = Math.max(...events.map((e) => e.start_ms + e.duration_ms));
  const span = Math.max(t1 - t0, 1e-3);
  const LABEL = 84, ROW = 22, TOP = 24, GAP = 6;

  // The timeline is one Tab stop (a pmap's has dozens of bars): the bar last focused holds it, and
  // the arrow keys, Home and End move between bars (WAI-ARIA's roving tabindex). Kept across redraws.
  let current = 0;
  const rove = (svg: Element, to: number) => {
    const bars = [...svg.querySelectorAll<SVGGElement>("[data-testid=timeline-bar]")];
    current = Math.max(0, Math.min(bars.length - 1, to));
    bars.forEach((b, i) => b.setAttribute("tabindex", i === current ? "0" : "-1"));
    return bars[current];
  };
  const STEPS: Record<string, (at: number, n: number) => number> = {
    ArrowRight: (at) => at + 1, ArrowDown: (at) => at + 1, ArrowLeft: (at) => at - 1, ArrowUp: (at) => at - 1,
    Home: () => 0, End: (_, n) => n - 1,
  };
  const onKey = (k: KeyboardEvent) => {
    const svg = k.currentTarget as SVGSVGElement, step = STEPS[k.key];
    const bars = [...svg.querySelectorAll("[data-testid=timeline-bar]")];
    const at = bars.indexOf(document.activeElement as Element);
    if (!step || at < 0) return;
    k.preventDefault();
    rove(svg, step(at, bars.length))?.focus();
  };

  // Drawn as wide as its box in CSS pixels (redrawn when that changes), so labels keep their size
  // and the whole run fits the panel, however narrow.
  const draw = (W: number) => {
    let index = 0;
    const x = (t: number) => LABEL + ((t - t0) / span) * (W - LABEL - 10);
    // (at least 4 units: a sub-millisecond trace in a long run must still be seen and hovered)
    const right = (e: TimingEvent) => x(e.start_ms) + Math.max(4, x(e.start_ms + e.duration_ms) - x(e.start_ms));
    // What a bar covers as drawn: a cache hit is a diamond HIT_MARK wide around its start.
    const extent = (e: TimingEvent): Extent => e.cache === "hit"
      ? { left: x(e.start_ms) - HIT_MARK / 2, right: x(e.start_ms) + HIT_MARK / 2 }
      : { left: x(e.start_ms), right: right(e) };
    // Nested or overlapping bars of one lane go to sub-rows (greedy interval packing), as drawn at
    // this width: two thin bars a few units apart would otherwise cover each other's middle.
    const rows = new Map<string, { e: TimingEvent; row: number }[]>();
    const laneRows = new Map<string, number>();
    for (const lane of laneNames) {
      const ends: number[] = [];
      const placed = lanes.get(lane)!.map((e) => {
        const { left, right: end } = extent(e);
        let row = ends.findIndex((prev) => prev <= left + 1e-6);
        if (row < 0) { row = ends.length; ends.push(0); }
        ends[row] = end;
        return { e, row };
      });
      rows.set(lane, placed);
      laneRows.set(lane, Math.max(1, ends.length));
    }
    const laneY = new Map<string, number>();
    let yAcc = TOP;
    for (const lane of laneNames) { laneY.set(lane, yAcc); yAcc += laneRows.get(lane)! * ROW + GAP; }
    const H = yAcc + 4;
    // Ticks count from the first event, as the bars' tooltips do ("… at 3.2 ms").
    const ticks = niceTicks(0, span, Math.max(2, Math.round(W / 150)));
    const tickLabels = fmtTimeTicks(ticks);
    return s("svg", { viewBox: `0 0 ${W} ${H}`, class: "timeline", role: "group", "aria-label": "Timeline of the run (arrow keys move between bars)", onkeydown: onKey },
      ticks.map((t, k) => s("g", null,
        s("line", { x1: x(t0 + t), x2: x(t0 + t), y1: TOP - 4, y2: H, class: "grid" }),
        s("text", { x: x(t0 + t), y: 12, "text-anchor": t === 0 ? "start" : x(t0 + t) > W - 40 ? "end" : "middle", class: "tick", testid: "timeline-tick" }, tickLabels[k]))),
      laneNames.map((lane, i) => {
        const top = laneY.get(lane)!;
        return s("g", { class: "lane", testid: "timeline-lane", "data-lane": lane },
          i % 2 ? s("rect", { x: 0, y: top - GAP / 2, width: W, height: laneRows.get(lane)! * ROW + GAP, class: "lane-band" }) : null,
          s("text", { x: LABEL - 8, y: top + 15, "text-anchor": "end", class: "lane-label" }, lane),
          rows.get(lane)!.map(({ e, row }, _, placed) => {
            const y = top + row * ROW;
            const w = right(e) - x(e.start_ms), label = barLabel(e.name, w);
            const hit = hitSpan(placed, e, row, extent, LABEL - 14, W - 2);
            const dim = callId !== null && e.call != null && e.call !== callId;
            const details = `${e.name} (${e.category})\n${fmtMs(e.duration_ms)} at ${fmtMs(e.start_ms - t0)}${e.device != null ? `\ndevice ${e.device}` : ""}${e.call != null ? `\ncall #${e.call}` : ""}`;
            // A touch screen shows no tooltip: a tap writes the details under the chart, scrolled
            // into view (a bar at the foot of a phone's screen left them below it, unseen).
            const show = () => {
              readout.textContent = details.replace(/\n/g, " · ");
              readout.scrollIntoView({ block: "nearest", inline: "nearest" });
            };
            // Reachable from the keyboard too: focus writes the same details (a tooltip needs a mouse).
            const i = index++;
            return s("g", {
              class: `bar cat-${e.category}${dim ? " dim" : ""}`, testid: "timeline-bar", "data-category": e.category,
              tabindex: i === current ? 0 : -1, role: "button", "aria-label": details.replace(/\n/g, ", "),
              onclick: show,
              onfocus: (f: FocusEvent) => { rove((f.currentTarget as SVGGElement).ownerSVGElement!, i); show(); },
              onkeydown: (k: KeyboardEvent) => { if (k.key === "Enter" || k.key === " ") { k.preventDefault(); show(); } },
            },
              s("title", null, details),
              e.cache === "hit"
                ? s("path", { d: `M${x(e.start_ms)},${y + 3} l${HIT_MARK / 2},7.5 l${-HIT_MARK / 2},7.5 l${-HIT_MARK / 2},-7.5 z`, class: "cache-hit", testid: "cache-hit-marker" })
                : s("rect", { x: x(e.start_ms), y: y + 2, width: w, height: ROW - 5, rx: 3 }),
              // An invisible target up to HIT wide around the bar (a finger, or a mouse, misses a
              // 4-unit bar), never reaching past halfway into the gap to a neighbour in its row.
              s("rect", { x: hit.left, y, width: hit.right - hit.left, height: ROW, class: "bar-hit", testid: "timeline-bar-hit" }),
              label === null ? null : s("text", { x: x(e.start_ms) + 5, y: y + 14.5, class: "bar-label" }, label));
          }));
      }));
  };
  const readout = h("div", { class: "timeline-readout muted", testid: "timeline-readout", "aria-live": "polite" }, "Tap a bar for its details.");
  const wrap = fittedToWidth("timeline-wrap", draw, 900, MIN_WIDTH);

  const wall = report.duration_ms || span;
  const totals = exclusiveTotals(events.filter((e) => e.device == null && !e.background && e.category !== "run"));
  const phases = CATEGORIES.filter((c) => c !== "run" && totals.has(c));
  const other = Math.max(0, wall - phases.reduce((a, c) => a + totals.get(c)!, 0));
  const item = (key: string, label: string, ms: number) =>
    h("span", { class: "legend-item", testid: "phase-total", dataset: { category: key, ms: String(ms) } },
      h("span", { class: `swatch cat-${key}` }), label, h("b", null, fmtMs(ms)));
  const legend = h("div", { class: "legend" },
    phases.map((c) => item(c, c === "load" ? "load kernels" : c, totals.get(c)!)),
    item("other", "other Python", other),
    h("span", { class: "legend-item total", testid: "wall-total", dataset: { ms: String(wall) } }, "= wall time", h("b", null, fmtMs(wall))));
  return h("div", { class: "timings", testid: "timings-panel" },
    h("div", { class: "panel-intro" },
      h("span", null, `Wall time ${fmtMs(wall)}`),
      h("span", { class: "muted" }, "Host phases below never overlap and add up to the wall time; device lanes and background compiles run alongside. Hover or tap a bar for details.")),
    legend,
    wrap,
    readout);
}

/** The narrowest the timeline is drawn: a phone's panel (390px screen) holds it whole, so the last
 *  bar keeps its margin from the panel's edge instead of running under it. */
const MIN_WIDTH = 280;
/** The narrowest a bar's click and tap target is, in CSS pixels. */
const HIT = 24;

/** The width of a cache hit's diamond marker. */
const HIT_MARK = 12;

type Extent = { left: number; right: number };

/** The x extent of bar ``e``'s target in ``row`` of its lane: the bar widened to HIT around its
 *  middle, but no further than halfway into the gap to another bar of its row (halfway to a wide
 *  neighbour's middle lay inside it, and the neighbour, drawn later, took the tap: CI), nor past
 *  the chart's ``min``..``max``. */
function hitSpan(
  placed: { e: TimingEvent; row: number }[], e: TimingEvent, row: number,
  extent: (e: TimingEvent) => Extent, min: number, max: number,
): Extent {
  const own = extent(e);
  const c = (own.left + own.right) / 2;
  // A bar near the chart's edge gets its width on the other side (a thin first bar was clipped to
  // 17 px). Bars of one row never overlap (they are packed by these extents).
  let lo = min, hi = max;
  for (const p of placed) {
    if (p.row !== row || p.e === e) continue;
    const o = extent(p.e);
    if (o.right <= own.left + 1e-6) lo = Math.max(lo, (o.right + own.left) / 2);
    else hi = Math.min(hi, (own.right + o.left) / 2);
  }
  const w = Math.max(Math.min(HIT, hi - lo), own.right - own.left);
  const left = Math.min(Math.max(c - w / 2, lo), hi - w);
  return { left, right: left + w };
}

/** Time per category where each instant goes to the innermost event covering it (the latest to
 *  start), so nested events (a compile inside the first execute) are not counted twice. */
export function exclusiveTotals(events: TimingEvent[]): Map<TimingCategory, number> {
  const totals = new Map<TimingCategory, number>();
  const cuts = [...new Set(events.flatMap((e) => [e.start_ms, e.start_ms + e.duration_ms]))].sort((a, b) => a - b);
  for (let i = 0; i + 1 < cuts.length; i++) {
    const a = cuts[i], b = cuts[i + 1];
    let inner: TimingEvent | null = null;
    for (const e of events) {
      if (e.start_ms <= a && e.start_ms + e.duration_ms >= b && (!inner || e.start_ms > inner.start_ms || (e.start_ms === inner.start_ms && e.duration_ms < inner.duration_ms))) inner = e;
    }
    if (inner) totals.set(inner.category, (totals.get(inner.category) ?? 0) + (b - a));
  }
  for (const e of events) if (!totals.has(e.category)) totals.set(e.category, 0);
  return totals;
}

/** The words a bar ``w`` units wide shows of its event's name, as measured in the label's font:
 *  the whole name, or its start cut with an ellipsis (a long "run pmap(update, axis_name=…)" bar
 *  showed no label at all, however wide), or none when not even a few letters fit. */
function barLabel(name: string, w: number): string | null {
  const room = w - 10;
  if (textWidth(name) <= room) return name;
  for (let n = Math.min(name.length - 1, Math.floor(room / 4)); n >= 4; n--) {
    const cut = `${name.slice(0, n).trimEnd()}…`;
    if (textWidth(cut) <= room) return cut;
  }
  return null;
}

let measurer: CanvasRenderingContext2D | null = null;
/** The width of ``text`` in a bar label's font (styles.css: 10.5px sans). */
function textWidth(text: string): number {
  if (!measurer) {
    measurer = document.createElement("canvas").getContext("2d");
    if (!measurer) return text.length * 7;
    measurer.font = `10.5px ${getComputedStyle(document.body).fontFamily}`;
  }
  return measurer.measureText(text).width;
}

function niceTicks(lo: number, hi: number, n: number): number[] {
  const span = hi - lo || 1;
  const raw = span / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Number(t.toFixed(6)));
  return out;
}
