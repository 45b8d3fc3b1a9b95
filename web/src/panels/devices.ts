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
  let selected = 0;

  const grid = h("div", { class: "device-grid", style: { gridTemplateColumns: `repeat(${cols}, minmax(150px, 1fr))` } },
    devices.map((d) => card(d, maxTime)));
  const overlay = s("svg", { class: "collective-overlay", "aria-hidden": "true" });
  const stage = h("div", { class: "device-stage" }, grid, overlay);

  const chips = h("div", { class: "collectives", role: "listbox", "aria-label": "Collectives" });
  const renderChips = () => {
    chips.replaceChildren(...info.collectives.map((c, i) => h("button", {
      type: "button", role: "option", class: `chip collective-chip${i === selected ? " active" : ""}`, testid: "collective",
      "aria-selected": String(i === selected),
      onclick: () => { selected = i; renderChips(); draw(); },
    }, h("b", null, c.primitive), ` over '${c.axis_name}' · ${c.devices.length} devices · ${fmtMs(c.duration_ms)}${c.nbytes ? ` · ${fmtBytes(c.nbytes)}` : ""}`)));
  };

  const draw = () => {
    const c = info.collectives[selected];
    overlay.replaceChildren();
    grid.querySelectorAll(".device-card").forEach((el) => el.classList.remove("in-collective"));
    if (!c) return;
    const base = stage.getBoundingClientRect();
    overlay.setAttribute("width", String(base.width));
    overlay.setAttribute("height", String(base.height));
    const centers = new Map<number, { x: number; y: number }>();
    grid.querySelectorAll<HTMLElement>(".device-card").forEach((el) => {
      const id = Number(el.dataset.device);
      if (!c.devices.includes(id)) return;
      el.classList.add("in-collective");
      const r = el.getBoundingClientRect();
      centers.set(id, { x: r.left - base.left + r.width / 2, y: r.top - base.top + r.height / 2 });
    });
    overlay.appendChild(s("defs", null, s("marker", { id: "carrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto" },
      s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }))));
    if (c.perm?.length) {
      for (const [src, dst] of c.perm) {
        const a = centers.get(src), b = centers.get(dst);
        if (!a || !b) continue;
        const mx = (a.x + b.x) / 2 + (b.y - a.y) * 0.15, my = (a.y + b.y) / 2 - (b.x - a.x) * 0.15;
        overlay.appendChild(s("path", { d: `M${a.x},${a.y} Q${mx},${my} ${b.x},${b.y}`, class: "collective-line", "marker-end": "url(#carrow)" }));
      }
    } else {
      const pts = [...centers.values()];
      const hub = { x: pts.reduce((a, p) => a + p.x, 0) / pts.length, y: pts.reduce((a, p) => a + p.y, 0) / pts.length };
      for (const p of pts) overlay.appendChild(s("line", { x1: p.x, y1: p.y, x2: hub.x, y2: hub.y, class: "collective-line" }));
      overlay.appendChild(s("g", { class: "hub" },
        s("circle", { cx: hub.x, cy: hub.y, r: 26 }),
        s("text", { x: hub.x, y: hub.y + 4, "text-anchor": "middle" }, c.primitive)));
    }
  };
  renderChips();
  const ro = new ResizeObserver(() => draw());
  ro.observe(stage);
  requestAnimationFrame(draw);

  return h("div", { class: "devices", testid: "devices-panel" },
    h("div", { class: "panel-intro" },
      h("span", null, h("b", null, `${devices.length} devices`), info.mesh.length ? ` · mesh ${info.mesh.join(" × ")}` : "",
        info.axis_names.length ? ` · axis ${info.axis_names.map((a) => (a === null ? "(unnamed)" : `'${a}'`)).join(", ")}` : ""),
      h("span", { class: "legend" },
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-execute" }), "compute"),
        h("span", { class: "legend-item" }, h("span", { class: "swatch cat-collective" }), "waiting on collectives"))),
    info.collectives.length ? chips : h("p", { class: "hint" }, "No collectives in this call."),
    stage,
    info.collectives.length ? collectiveTable(info.collectives) : null);
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

function collectiveTable(cs: CollectiveEvent[]): HTMLElement {
  return h("details", { class: "collective-table" },
    h("summary", null, `Collective events (${cs.length})`),
    h("table", { class: "plain" },
      h("thead", null, h("tr", null, ["#", "primitive", "axis", "devices", "value", "bytes", "start", "duration"].map((t) => h("th", null, t)))),
      h("tbody", null, cs.map((c) => h("tr", null,
        h("td", null, String(c.seq)), h("td", { class: "mono" }, c.primitive), h("td", { class: "mono" }, c.axis_name),
        h("td", null, c.devices.join(", ")), h("td", { class: "mono" }, c.dtype ? typeStr(c.dtype, c.shape) : ""),
        h("td", null, fmtBytes(c.nbytes)), h("td", null, fmtMs(c.start_ms)), h("td", null, fmtMs(c.duration_ms)))))));
}
