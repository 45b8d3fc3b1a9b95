// The Devices panel: a grid of the simulated devices with their input and output shards, compute
// time and collective waits, and the selected collective drawn between the cards.

import { empty, h, s } from "../dom";
import { fmtBytes, fmtMs, preview, typeStr } from "../format";
import type { ArraySummary, CollectiveEvent, DeviceRecord, TransformedCall } from "../report";

export function renderDevices(call: TransformedCall | null, deviceCount: number): HTMLElement {
  const info = call?.pmap;
  if (!call || !info || !info.devices.length) {
    return empty("No pmap in this call.", `The engine simulates ${deviceCount} devices. Run a pmap example to see what each one computed and exchanged.`);
  }
  const devices = [...info.devices].sort((a, b) => a.id - b.id);
  const cols = info.mesh.length >= 2 ? info.mesh[info.mesh.length - 1] : Math.min(4, devices.length);
  const maxTime = Math.max(...devices.map((d) => d.compute_ms + d.collective_wait_ms), 1e-6);
  const groups = groupCollectives(info.collectives, info.axis_names);
  let selected: number | null = null; // null: every group at once

  const grid = h("div", { class: "device-grid", style: { gridTemplateColumns: `repeat(${cols}, minmax(150px, 1fr))` } },
    devices.map((d) => card(d, maxTime)));
  // Lines run under the cards; hubs sit above them, so a hub between two cards stays visible.
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
        "aria-selected": String(i === selected), dataset: { count: String(g.events.length) },
        title: g.events.map((c) => `#${c.seq} ${c.dtype ? typeStr(c.dtype, c.shape) : ""} ${fmtMs(c.duration_ms)}`).join("\n"),
        onclick: () => { selected = i; renderChips(); draw(); },
      }, h("b", null, g.primitive), ` over ${g.axis}`, g.events.length > 1 ? h("span", { class: "times" }, ` ×${g.events.length}`) : "",
        ` · ${g.devices.length} devices · ${fmtMs(g.ms)}${g.nbytes ? ` · ${fmtBytes(g.nbytes)}` : ""}`)));
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
    shown.forEach((g, k) => {
      const centers = new Map<number, { x: number; y: number }>();
      let bottom = 0;
      grid.querySelectorAll<HTMLElement>(".device-card").forEach((el) => {
        const id = Number(el.dataset.device);
        if (!g.devices.includes(id)) return;
        el.classList.add("in-collective");
        const r = el.getBoundingClientRect();
        centers.set(id, { x: r.left - base.left + r.width / 2, y: r.top - base.top + r.height / 2 });
        bottom = Math.max(bottom, r.bottom - base.top);
      });
      const perm = g.events[0].perm;
      if (perm?.length) {
        for (const [src, dst] of perm) {
          const a = centers.get(src), b = centers.get(dst);
          if (!a || !b) continue;
          const mx = (a.x + b.x) / 2 + (b.y - a.y) * 0.15, my = (a.y + b.y) / 2 - (b.x - a.x) * 0.15;
          lines.appendChild(s("path", { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: "collective-line", "marker-end": "url(#carrow)" }));
        }
        return;
      }
      const pts = [...centers.values()];
      if (!pts.length) return;
      // Several groups at once: their hubs side by side around the common centre.
      const offset = (k - (shown.length - 1) / 2) * 96;
      // Devices in one row: the hub goes below the row, not onto the cards' text.
      const oneRow = pts.every((p) => Math.abs(p.y - pts[0].y) < 1);
      const hub = {
        x: pts.reduce((a, p) => a + p.x, 0) / pts.length + offset,
        y: oneRow ? bottom + 24 : pts.reduce((a, p) => a + p.y, 0) / pts.length,
      };
      for (const p of pts) lines.appendChild(s("line", { x1: p.x, y1: p.y, x2: hub.x, y2: hub.y, class: "collective-line" }));
      const label = g.primitive, w = Math.max(50, label.length * 7.6 + 18);
      hubs.appendChild(s("g", { class: "hub", testid: "collective-hub", "data-primitive": g.primitive },
        s("title", null, `${g.primitive} over ${g.axis}${g.events.length > 1 ? ` ×${g.events.length}` : ""}`),
        s("rect", { x: hub.x - w / 2, y: hub.y - 13, width: w, height: 26, rx: 13 }),
        s("text", { x: hub.x, y: hub.y + 4, "text-anchor": "middle" }, label)));
    });
  };
  renderChips();
  const ro = new ResizeObserver(() => draw());
  ro.observe(stage);
  requestAnimationFrame(draw);

  return h("div", { class: "devices", testid: "devices-panel" },
    h("div", { class: "panel-intro" },
      h("span", { testid: "mesh-facts" }, h("b", null, `${devices.length} devices`), info.mesh.length ? ` · mesh ${info.mesh.join(" × ")}` : "",
        ` · ${axisSummary(info.axis_names, info.mesh)}`),
      h("span", { class: "legend" },
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-execute" }), "compute"),
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-collective" }), "waiting on collectives"))),
    info.collectives.length ? chips : h("p", { class: "hint" }, "No collectives in this call."),
    stage,
    info.collectives.length ? collectiveTable(info.collectives, info.axis_names) : null);
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
    const size = mesh[i] !== undefined ? ` (${mesh[i]})` : "";
    return (name ? `'${name}'` : dims > 1 ? `${i === 0 ? "outer" : i === dims - 1 ? "inner" : `level ${i + 1}`} unnamed` : "unnamed") + size;
  });
  return `${dims > 1 ? "axes" : "axis"} ${parts.join(" × ")}`;
}

interface CollectiveGroup {
  primitive: string;
  axis: string;
  devices: number[];
  events: CollectiveEvent[];
  ms: number;
  nbytes: number;
}

/** Collectives of one kind over the same axis and devices, as one group (a nested pmap repeats them). */
function groupCollectives(cs: CollectiveEvent[], names: (string | null)[]): CollectiveGroup[] {
  const groups = new Map<string, CollectiveGroup>();
  for (const c of cs) {
    const key = `${c.primitive}|${c.axis_name}|${c.devices.join(",")}|${JSON.stringify(c.perm ?? null)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { primitive: c.primitive, axis: axisLabel(c.axis_name, names), devices: c.devices, events: [], ms: 0, nbytes: 0 }));
    g.events.push(c);
    g.ms += c.duration_ms;
    g.nbytes += c.nbytes;
  }
  return [...groups.values()];
}

function card(d: DeviceRecord, maxTime: number): HTMLElement {
  const pct = (ms: number) => `${Math.max(0.5, (ms / maxTime) * 100)}%`;
  return h("article", { class: "device-card", testid: "device-card", dataset: { device: String(d.id) }, tabindex: 0, "aria-label": `Device ${d.id}` },
    h("header", null, h("b", null, `Device ${d.id}`), d.coords.length > 1 ? h("span", { class: "muted mono" }, `(${d.coords.join(", ")})`) : null),
    h("div", { class: "time-bar", title: `compute ${fmtMs(d.compute_ms)}, waiting ${fmtMs(d.collective_wait_ms)}` },
      h("span", { class: "cat-execute", style: { width: pct(d.compute_ms) } }),
      h("span", { class: "cat-collective", style: { width: pct(d.collective_wait_ms) } })),
    h("div", { class: "time-facts mono" }, h("span", { title: "compute" }, `compute ${fmtMs(d.compute_ms)}`), h("span", { title: "waiting on collectives" }, `wait ${fmtMs(d.collective_wait_ms)}`)),
    shards("in", d.inputs, "shard-in"),
    shards("out", d.outputs, "shard-out"));
}

function shards(label: string, xs: ArraySummary[], testid: string): HTMLElement {
  return h("div", { class: "shards" },
    h("span", { class: "shard-label" }, label),
    h("div", null, xs.length ? xs.map((a) => h("div", { class: "shard", testid, dataset: a.data !== undefined && a.data !== null ? { json: JSON.stringify(a.data) } : undefined },
      h("span", { class: "type-chip small" }, typeStr(a.dtype, a.shape)), " ", h("span", { class: "mono" }, preview(a, 4)))) : h("span", { class: "muted" }, "—")));
}

function collectiveTable(cs: CollectiveEvent[], names: (string | null)[]): HTMLElement {
  return h("details", { class: "collective-table" },
    h("summary", null, `Collective events (${cs.length})`),
    h("table", { class: "plain" },
      h("thead", null, h("tr", null, ["#", "primitive", "axis", "devices", "value", "bytes", "start", "duration"].map((t) => h("th", null, t)))),
      h("tbody", null, cs.map((c) => h("tr", null,
        h("td", null, String(c.seq)), h("td", { class: "mono" }, c.primitive), h("td", { class: "mono" }, axisLabel(c.axis_name, names)),
        h("td", null, c.devices.join(", ")), h("td", { class: "mono" }, c.dtype ? typeStr(c.dtype, c.shape) : ""),
        h("td", null, fmtBytes(c.nbytes)), h("td", null, fmtMs(c.start_ms)), h("td", null, fmtMs(c.duration_ms)))))));
}
