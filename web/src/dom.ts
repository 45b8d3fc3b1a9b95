// A tiny hyperscript helper: h("div", {class: "x", onclick: f}, child, "text").

export type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, attrs?: Attrs | null, ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function s<K extends keyof SVGElementTagNameMap>(
  tag: K, attrs?: Attrs | null, ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  applyAttrs(el, attrs);
  append(el, children);
  return el;
}

function applyAttrs(el: Element, attrs?: Attrs | null) {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") {
      el.addEventListener(k.slice(2).toLowerCase(), v as EventListener);
    } else if (k === "style" && typeof v === "object") {
      Object.assign((el as HTMLElement).style, v);
    } else if (k === "dataset" && typeof v === "object") {
      Object.assign((el as HTMLElement).dataset, v);
    } else if (k === "testid") {
      el.setAttribute("data-testid", String(v));
    } else if (v === true) {
      el.setAttribute(k, "");
    } else if (k === "value" && el instanceof HTMLInputElement) {
      el.value = String(v);
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

export function append(el: Node, children: Child[]) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

export function clear(el: Element) {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function replace(el: Element, ...children: Child[]) {
  clear(el);
  append(el, children);
}

/** A small empty-state message for a panel. */
export function empty(text: string, hint?: string): HTMLElement {
  return h("div", { class: "empty" }, h("p", null, text), hint ? h("p", { class: "hint" }, hint) : null);
}

/** A box holding ``draw(width)``, drawn again whenever the box's own width changes (at least
 * ``min``), so a chart is as wide as its panel on a phone and on a desk alike. */
export function fittedToWidth(cls: string, draw: (width: number) => Node, initial: number, min: number): HTMLDivElement {
  const box = h("div", { class: cls }, draw(initial));
  let drawn = initial;
  new ResizeObserver((entries) => {
    const width = Math.max(min, Math.floor(entries[entries.length - 1].contentRect.width));
    if (width !== drawn) { drawn = width; box.replaceChildren(draw(width)); }
  }).observe(box);
  return box;
}
