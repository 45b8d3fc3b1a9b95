// The Devices panel: a grid of the simulated devices with their input and output shards, where
// their time went (compute, the collectives' exchanges, waiting in collectives for the other
// devices), and the selected collective drawn between the cards.

import { empty, h, s } from "../dom";
import { fmtBytes, fmtMs, preview, typeStr } from "../format";
import type { ArraySummary, CollectiveEvent, DeviceRecord, TransformedCall } from "../report";

const KIND_LABEL: Record<string, string> = { pmap: "pmap", shard_map: "shard_map", jit: "jit on the mesh" };

export function renderDevices(call: TransformedCall | null, deviceCount: number): HTMLElement {
  const info = call?.pmap;
  if (!call || !info || !info.devices.length) {
    return empty("No devices ran in this call.", `The engine simulates ${deviceCount} devices. Run a pmap, a shard_map or a jit of sharded arrays to see what each one computed and exchanged.`);
  }
  const devices = [...info.devices].sort((a, b) => a.id - b.id);
  const mesh = meshLayout(info.mesh, devices);
  const maxTime = Math.max(...devices.map((d) => d.compute_ms + d.exchange_ms + d.collective_wait_ms), 1e-6);
  // axis_index is recorded with the collectives but moves no data: it is listed, not drawn.
  const groups = groupCollectives(info.collectives.filter((c) => c.primitive !== "axis_index"), info.axis_names);
  // null: every collective at once, unless that many hubs would hide the cards.
  let selected: number | null = groups.reduce((n, g) => n + g.groups.length, 0) > 6 ? 0 : null;

  const grid = mesh
    ? h("div", { class: "device-grid mesh-grid", testid: "mesh-grid", style: `--cols: ${mesh.cols}` },
      ...meshHeaders(mesh, info.axis_names),
      ...devices.map((d) => card(d, maxTime, info.axis_names, mesh)))
    // Up to four across, fewer (more rows) where the panel is narrow: a card is at least 150px.
    : h("div", { class: "device-grid", testid: "device-grid", style: { gridTemplateColumns: `repeat(auto-fill, minmax(max(150px, calc((100% - ${Math.min(4, devices.length) - 1} * 22px) / ${Math.min(4, devices.length)})), 1fr))` } },
      devices.map((d) => card(d, maxTime, info.axis_names, null)));
  // Lines run from the cards' edges over the grid; hubs sit above them, in the gaps between rows of cards.
  const lines = s("svg", { class: "collective-overlay lines", "aria-hidden": "true" });
  const hubs = s("svg", { class: "collective-overlay hubs", "aria-hidden": "true" });
  const stage = h("div", { class: "device-stage" }, lines, grid, hubs);

  const chips = h("div", { class: "collectives", role: "listbox", "aria-label": "Collectives" });
  const renderChips = () => {
    chips.replaceChildren(
      h("button", {
        type: "button", role: "option", class: `chip collective-chip${selected === null ? " active" : ""}`, testid: "collective-all",
        "aria-selected": String(selected === null), onclick: () => { selected = null; renderChips(); draw(); },
      }, `all (${groups.length})`),
      ...groups.map((g, i) => h("button", {
        type: "button", role: "option", class: `chip collective-chip${i === selected ? " active" : ""}`, testid: "collective",
        "aria-selected": String(i === selected), dataset: { count: String(g.events.length), axis: g.axisName, groups: String(g.groups.length) },
        title: g.events.map((c) => `#${c.seq} ${c.dtype ? typeStr(c.dtype, c.shape) : ""} ${fmtMs(c.duration_ms)}`).join("\n"),
        onclick: () => { selected = i; renderChips(); draw(); },
      }, h("b", null, g.primitive), ` over ${g.axis}`, g.events.length > 1 ? h("span", { class: "times" }, ` ×${g.events.length}`) : "",
        ` · ${groupSummary(g)} · ${fmtMs(g.ms)}${g.nbytes ? ` · ${fmtBytes(g.nbytes)}` : ""}`)));
  };

  const draw = () => {
    lines.replaceChildren();
    hubs.replaceChildren();
    grid.querySelectorAll(".device-card").forEach((el) => el.classList.remove("in-collective"));
    const shown = selected === null ? groups : [groups[selected]];
    if (!shown.length || !shown[0]) return;
    const base = stage.getBoundingClientRect();
    for (const svg of [lines, hubs]) {
      svg.setAttribute("width", String(base.width));
      svg.setAttribute("height", String(base.height));
    }
    lines.appendChild(s("defs", null, s("marker", { id: "carrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" },
      s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))));
    const rects = new Map<number, DOMRect>();
    grid.querySelectorAll<HTMLElement>(".device-card").forEach((el) => rects.set(Number(el.dataset.device), el.getBoundingClientRect()));
    const center = (id: number) => {
      const r = rects.get(id)!;
      return { x: r.left - base.left + r.width / 2, y: r.top - base.top + r.height / 2 };
    };
    // Where a line from a card's centre towards ``to`` leaves the card: lines are drawn over the
    // cards (under them, they were hidden but for the gaps), so they start and end at the edges.
    const edge = (id: number, to: { x: number; y: number }) => {
      const r = rects.get(id)!, c = center(id);
      const dx = to.x - c.x, dy = to.y - c.y;
      const t = Math.min(dx ? r.width / 2 / Math.abs(dx) : Infinity, dy ? r.height / 2 / Math.abs(dy) : Infinity, 1);
      return { x: c.x + dx * t, y: c.y + dy * t };
    };
    // Hubs go in the gap under a row of cards (never onto a card's text): the gap just below a point.
    const rowGap = parseFloat(getComputedStyle(grid).rowGap) || 24;
    const gaps = [...new Set([...rects.values()].map((r) => Math.round(r.bottom - base.top + rowGap / 2)))].sort((a, b) => a - b);
    const gapBelow = (y: number) => gaps.find((g) => g >= y - 1) ?? gaps[gaps.length - 1];
    shown.forEach((g, k) => {
      const members = g.groups.flat().filter((id) => rects.has(id));
      grid.querySelectorAll<HTMLElement>(".device-card").forEach((el) => {
        if (members.includes(Number(el.dataset.device))) el.classList.add("in-collective");
      });
      const perm = g.events[0].perm;
      if (perm?.length) {
        for (const group of g.groups) {
          for (const [src, dst] of perm) {
            if (!rects.has(group[src]) || !rects.has(group[dst])) continue;
            const ca = center(group[src]), cb = center(group[dst]);
            let mx = (ca.x + cb.x) / 2 + (cb.y - ca.y) * 0.15, my = (ca.y + cb.y) / 2 - (cb.x - ca.x) * 0.15;
            let a = edge(group[src], { x: mx, y: my }), b = edge(group[dst], { x: mx, y: my });
            // Cards of one row with cards between them (a ring's way back): the arc runs under the
            // row, from bottom edge to bottom edge, rather than across the cards between.
            const ra = rects.get(group[src])!, rb = rects.get(group[dst])!;
            const row = (r: DOMRect) => Math.abs(r.top - ra.top) < 1;
            if (row(rb) && [...rects.values()].some((r) => row(r) && r.left > Math.min(ra.left, rb.left) + 1 && r.left < Math.max(ra.left, rb.left) - 1)) {
              a = { x: ca.x, y: ra.bottom - base.top };
              b = { x: cb.x, y: rb.bottom - base.top };
              // (rightward and leftward arcs at different depths, so a pair's two arcs stay apart)
              [mx, my] = [(a.x + b.x) / 2, a.y + (cb.x < ca.x ? 44 : 28)];
            }
            lines.appendChild(s("path", { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: "collective-line", "marker-end": "url(#carrow)" }));
          }
        }
        return;
      }
      // Several collectives at once: their hubs side by side.
      const offset = (k - (shown.length - 1) / 2) * 96;
      for (const group of g.groups) {
        const ids = group.filter((id) => rects.has(id));
        const pts = ids.map(center);
        if (!pts.length) continue;
        const cy = pts.reduce((a, p) => a + p.y, 0) / pts.length;
        const hub = { x: pts.reduce((a, p) => a + p.x, 0) / pts.length + offset, y: gapBelow(cy) };
        // From the middle of the card's edge that faces the hub's gap (its bottom or its top).
        for (const [i, id] of ids.entries()) {
          const r = rects.get(id)!, p = pts[i];
          const y = hub.y >= p.y ? r.bottom - base.top : r.top - base.top;
          lines.appendChild(s("line", { x1: p.x, y1: y, x2: hub.x, y2: hub.y, class: "collective-line" }));
        }
        const label = g.primitive, w = Math.max(50, label.length * 7.6 + 18);
        hubs.appendChild(s("g", { class: "hub", testid: "collective-hub", "data-primitive": g.primitive, "data-devices": group.join(",") },
          s("title", null, `${g.primitive} over ${g.axis} among devices ${group.join(", ")}${g.events.length > 1 ? ` ×${g.events.length}` : ""}`),
          s("rect", { x: hub.x - w / 2, y: hub.y - 13, width: w, height: 26, rx: 13 }),
          s("text", { x: hub.x, y: hub.y + 4, "text-anchor": "middle" }, label)));
      }
    });
  };
  // A mesh wider than the panel (a phone's width, four columns) wraps: its cards flow in rows,
  // each naming its coordinates, instead of the panel scrolling sideways. The width it needs:
  // the row names, the columns at their narrowest, the gaps between and the grid's padding.
  let rowNames = 60;
  const fitMesh = () => {
    if (!mesh) return;
    if (!grid.classList.contains("wrapped")) rowNames = Math.max(0, ...[...grid.querySelectorAll(".mesh-row")].map((r) => r.getBoundingClientRect().width));
    const needed = rowNames + mesh.cols * (MESH_COL_MIN + MESH_COL_GAP) + 12;
    grid.classList.toggle("wrapped", stage.clientWidth > 0 && stage.clientWidth < needed);
    grid.dataset.layout = grid.classList.contains("wrapped") ? "wrapped" : "mesh";
  };
  renderChips();
  const ro = new ResizeObserver(() => { fitMesh(); draw(); });
  ro.observe(stage);
  requestAnimationFrame(() => { fitMesh(); draw(); });

  return h("div", { class: "devices", testid: "devices-panel", dataset: { kind: info.kind } },
    h("div", { class: "panel-intro" },
      h("span", { testid: "mesh-facts" }, h("b", null, `${devices.length} devices`), info.mesh.length ? ` · mesh ${info.mesh.join(" × ")}` : "",
        ` · ${axisSummary(info.axis_names, info.mesh)} · ${KIND_LABEL[info.kind] ?? info.kind}`,
        info.programs > 1 ? h("span", { class: "muted", title: "An eager shard_map runs one device program per operation; inputs are the first one's, outputs the last one's." }, ` · ${info.programs} device programs`) : ""),
      h("span", { class: "legend" },
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-execute" }), "compute"),
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-transfer" }), "exchange"),
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-collective" }), "waiting on collectives"))),
    groups.length ? chips : h("p", { class: "hint", testid: "no-collectives" },
      "No collectives in this call: each device computed its block alone. To combine blocks across devices, name the axis (axis_name='i') and call e.g. jax.lax.psum(x, 'i') in the function."),
    stage,
    info.collectives.length ? collectiveTable(info.collectives, info.axis_names) : null);
}

interface MeshLayout { mesh: number[]; rows: number; cols: number }

/** A mesh column's narrowest width and the gap between columns (styles.css, .mesh-grid), in px. */
const MESH_COL_MIN = 100;
const MESH_COL_GAP = 14;

/** A mesh of two or more axes as a grid: the last axis across, the others down (row-major). */
function meshLayout(mesh: number[], devices: DeviceRecord[]): MeshLayout | null {
  if (mesh.length < 2 || !devices.every((d) => d.coords.length === mesh.length)) return null;
  const cols = mesh[mesh.length - 1];
  return { mesh, rows: devices.length / cols, cols };
}

function rowOf(coords: number[], mesh: number[]): number {
  return coords.slice(0, -1).reduce((row, c, i) => row * mesh[i] + c, 0);
}

function axisTag(name: string | null | undefined, i: number): string {
  return name ?? `axis ${i}`;
}

/** The axis names on the sides: the last axis over the columns, the others down the rows. */
function meshHeaders(m: MeshLayout, names: (string | null)[]): HTMLElement[] {
  const last = m.mesh.length - 1;
  const lead = names.slice(0, last).map((n, i) => axisTag(n, i)).join(", ");
  const out = [h("div", { class: "mesh-corner", testid: "mesh-corner" }, h("span", null, `${lead} ↓`), h("span", null, `${axisTag(names[last], last)} →`))];
  for (let c = 0; c < m.cols; c++) {
    out.push(h("div", { class: "mesh-axis mesh-col", testid: "mesh-col", style: { gridRow: "1", gridColumn: String(c + 2) } }, `${axisTag(names[last], last)}=${c}`));
  }
  for (let r = 0; r < m.rows; r++) {
    const coords: number[] = [];
    for (let i = last - 1, rest = r; i >= 0; i--) { coords.unshift(rest % m.mesh[i]); rest = Math.floor(rest / m.mesh[i]); }
    out.push(h("div", { class: "mesh-axis mesh-row", testid: "mesh-row", style: { gridRow: String(r + 2), gridColumn: "1" } },
      coords.map((c, i) => `${axisTag(names[i], i)}=${c}`).join(" ")));
  }
  return out;
}

/** An axis as the user named it; the engine names an unnamed one `<axis N>`. */
function axisLabel(name: string | null | undefined, names: (string | null)[]): string {
  if (name && !/^<axis \d+>$/.test(name)) return `'${name}'`;
  const n = name ? Number(/\d+/.exec(name)![0]) : 0;
  const depth = Math.max(names.length, n + 1);
  const where = depth > 1 ? (n === 0 ? "outer " : n === depth - 1 ? "inner " : `level ${n + 1} `) : "";
  return `the ${where}axis (no axis_name)`;
}

function axisSummary(names: (string | null)[], mesh: number[]): string {
  const dims = Math.max(names.length, mesh.length, 1);
  const parts = Array.from({ length: dims }, (_, i) => {
    const name = names[i];
    if (name) return `'${name}'${mesh[i] !== undefined ? ` (${mesh[i]})` : ""}`;
    // Unnamed: say what that means (collectives cannot name it) rather than print "unnamed".
    const where = dims > 1 ? `${i === 0 ? "outer" : i === dims - 1 ? "inner" : `level ${i + 1}`} ` : "";
    return `${where}${mesh[i] !== undefined ? `of size ${mesh[i]} ` : ""}(no axis_name)`;
  });
  return `${dims > 1 ? "axes" : "axis"} ${parts.join(" × ")}`;
}

interface CollectiveGroup {
  primitive: string;
  axis: string;
  axisName: string;
  devices: number[];
  /** Devices that exchanged with each other (a psum over 'y' on a (4, 2) mesh: 4 groups of 2). */
  groups: number[][];
  events: CollectiveEvent[];
  ms: number;
  nbytes: number;
}

/** Collectives of one kind over the same axes and devices, as one entry (a nested pmap repeats them). */
function groupCollectives(cs: CollectiveEvent[], names: (string | null)[]): CollectiveGroup[] {
  const entries = new Map<string, CollectiveGroup>();
  for (const c of cs) {
    const groups = c.groups?.length ? c.groups : [c.devices];
    const key = `${c.primitive}|${c.axis_name}|${JSON.stringify(groups)}|${JSON.stringify(c.perm ?? null)}`;
    let g = entries.get(key);
    if (!g) entries.set(key, (g = { primitive: c.primitive, axis: axesLabel(c.axis_name, names), axisName: c.axis_name, devices: c.devices, groups, events: [], ms: 0, nbytes: 0 }));
    g.events.push(c);
    g.ms += c.duration_ms;
    g.nbytes += c.nbytes;
  }
  return [...entries.values()];
}

/** A collective's axes: one, or a tuple ("x,y" in the event) as ('x', 'y'). */
function axesLabel(axis: string, names: (string | null)[]): string {
  const parts = axis.split(",");
  return parts.length > 1 ? `(${parts.map((p) => axisLabel(p, names)).join(", ")})` : axisLabel(axis, names);
}

function groupSummary(g: CollectiveGroup): string {
  const sizes = new Set(g.groups.map((x) => x.length));
  if (g.groups.length === 1) return `${g.devices.length} devices`;
  return sizes.size === 1 ? `${g.groups.length} groups of ${[...sizes][0]} devices` : `${g.groups.length} groups`;
}

function card(d: DeviceRecord, maxTime: number, names: (string | null)[], mesh: MeshLayout | null): HTMLElement {
  const pct = (ms: number) => `${Math.max(0.5, (ms / maxTime) * 100)}%`;
  const at = d.coords.map((c, i) => `${axisTag(names[i], i)}=${c}`).join(" ");
  // Its cell in the mesh (custom properties, so a wrapped mesh can let the cards flow instead).
  const place = mesh ? `--row: ${rowOf(d.coords, mesh.mesh) + 2}; --col: ${d.coords[d.coords.length - 1] + 2}` : undefined;
  return h("article", { class: "device-card", testid: "device-card", style: place, dataset: { device: String(d.id), coords: d.coords.join(",") }, tabindex: 0, "aria-label": `Device ${d.id}${at ? ` at ${at}` : ""}` },
    // (each "axis=i" on one line: the pairs wrap between them, never inside)
    h("header", null, h("b", null, `Device ${d.id}`), d.coords.length > 1 ? h("span", { class: "muted mono device-coords", testid: "device-coords" },
      d.coords.map((c, i) => [i ? " " : "", h("span", { class: "coord" }, `${axisTag(names[i], i)}=${c}`)])) : null),
    h("div", { class: "time-bar", title: `compute ${fmtMs(d.compute_ms)}, exchange ${fmtMs(d.exchange_ms)}, waiting ${fmtMs(d.collective_wait_ms)}` },
      h("span", { class: "cat-execute", style: { width: pct(d.compute_ms) } }),
      h("span", { class: "cat-transfer", style: { width: pct(d.exchange_ms) } }),
      h("span", { class: "cat-collective", style: { width: pct(d.collective_wait_ms) } })),
    h("div", { class: "time-facts mono", testid: "time-facts" },
      h("span", { title: "its own computation", dataset: { ms: String(d.compute_ms) } }, `compute ${fmtMs(d.compute_ms)}`),
      h("span", { title: "the collectives' own work: copying into and out of the exchange, reducing", testid: "exchange-time", dataset: { ms: String(d.exchange_ms) } }, `exchange ${fmtMs(d.exchange_ms)}`),
      h("span", { title: "blocked in collectives, waiting for the other devices to arrive", testid: "wait-time", dataset: { ms: String(d.collective_wait_ms) } }, `wait ${fmtMs(d.collective_wait_ms)}`)),
    shards("in", d.inputs, "shard-in"),
    shards("out", d.outputs, "shard-out"));
}

function shards(label: string, xs: ArraySummary[], testid: string): HTMLElement {
  return h("div", { class: "shards" },
    h("span", { class: "shard-label" }, label),
    h("div", null, xs.length ? xs.map((a) => h("div", { class: "shard", testid, title: `${typeStr(a.dtype, a.shape)} ${preview(a, 12)}`, dataset: a.data !== undefined && a.data !== null ? { json: JSON.stringify(a.data) } : undefined },
      h("span", { class: "type-chip small" }, typeStr(a.dtype, a.shape)), " ", h("span", { class: "mono" }, preview(a, 4)))) : h("span", { class: "muted" }, "—")));
}

/** The collective events' column headers, and a shorter word for those too long for a phone's column. */
const COLLECTIVE_COLUMNS: [string, string?][] = [
  ["#"], ["primitive", "prim."], ["axis"], ["devices", "devs"], ["value"], ["bytes"], ["start"], ["duration", "dur."],
  ["longest wait", "wait"],
];

function collectiveTable(cs: CollectiveEvent[], names: (string | null)[]): HTMLElement {
  return h("details", { class: "collective-table" },
    h("summary", null, `Collective events (${cs.length})`),
    h("table", { class: "plain" },
      h("thead", null, h("tr", null, COLLECTIVE_COLUMNS.map(([full, short]) => h("th", { scope: "col", "aria-label": full },
        // (a phone shows the short word, which fits its column whole: styles.css)
        short ? [h("span", { class: "col-full" }, full), h("abbr", { class: "col-short", title: full }, short)] : full)))),
      h("tbody", null, cs.map((c) => h("tr", null,
        h("td", null, String(c.seq)), h("td", { class: "mono" }, c.primitive), h("td", { class: "mono" }, axesLabel(c.axis_name, names)),
        h("td", null, (c.groups?.length ? c.groups : [c.devices]).map((g) => `{${g.join(", ")}}`).join(" ")), h("td", { class: "mono" }, c.dtype ? typeStr(c.dtype, c.shape) : ""),
        h("td", null, fmtBytes(c.nbytes)), h("td", null, fmtMs(c.start_ms)),
        h("td", { title: "The longest any one device spent in it, its wait included" }, fmtMs(c.duration_ms)),
        h("td", { testid: "collective-wait", title: perDevice(c) }, fmtMs(Math.max(0, ...(c.waits_ms ?? [])))))))));
}

/** Each device's time in a collective and the part of it spent waiting for the others. */
function perDevice(c: CollectiveEvent): string {
  return c.devices.map((d, i) => `device ${d}: ${fmtMs(c.device_ms?.[i] ?? 0)} in it, ${fmtMs(c.waits_ms?.[i] ?? 0)} waiting`).join("\n");
}
