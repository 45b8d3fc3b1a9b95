// Pan, zoom and the minimap of the IR graph: where the drawn graph sits in its stage. The graph
// view owns what is drawn; this owns the transform, the stage's input handlers and the minimap.

/** A drawn node's box in graph coordinates. */
export interface Box { x: number; y: number; w: number; h: number }

/** The smallest zoom "fit" uses: below it labels are not legible, and the minimap takes over. */
const READABLE_K = 0.85;

/** How much of an open box's frame "fit" keeps in view when it cannot show all of it: its title. */
const TITLE_W = 150;

/** The fewest drawn nodes that get a minimap: a smaller graph is seen whole. */
const MINIMAP_FROM = 25;

/** How far the overlays (find bar, tool column) reach into the stage, in CSS pixels. */
export interface Insets { top: number; right: number; bottom: number; left: number }

export interface ViewportHandlers {
  /** The stage's edges the overlays cover: "fit" places the graph in what is left. */
  insets: () => Insets;
  /** A click on the stage outside any node. */
  onBackgroundClick: () => void;
  /** The "f" key on the stage (focus on the selected node's neighbourhood). */
  onFocusKey: () => void;
}

export class Viewport {
  private tx = 0; private ty = 0; private k = 1;
  private contentW = 1; private contentH = 1;
  private size: { width: number; height: number } | null = null;
  private minimapImage: HTMLCanvasElement | null = null;
  private accent = "#36c";
  /** The user turned the minimap off (its button in the tool column); kept for the page's life. */
  static minimapOff = false;

  constructor(
    private stage: HTMLElement,
    private canvas: HTMLElement,
    private minimap: HTMLCanvasElement,
    private boxes: Map<string, Box>,
    private handlers: ViewportHandlers,
  ) {
    this.installPanZoom();
    this.installMinimap();
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      this.size = r.width ? { width: r.width, height: r.height } : null;
      this.drawMinimapViewport();
    }).observe(this.stage);
  }

  /** A new drawing of ``width`` x ``height`` graph units. */
  setContent(width: number, height: number) {
    this.contentW = width;
    this.contentH = height;
    this.canvas.style.width = `${Math.ceil(width)}px`;
    this.canvas.style.height = `${Math.ceil(height)}px`;
    // Shown or not before "fit", which leaves the graph clear of it.
    this.minimap.hidden = this.boxes.size < MINIMAP_FROM || Viewport.minimapOff;
  }

  /** Show or hide the minimap (the user's choice); false when it is off. */
  toggleMinimap(): boolean {
    Viewport.minimapOff = !Viewport.minimapOff;
    this.minimap.hidden = this.boxes.size < MINIMAP_FROM || Viewport.minimapOff;
    // Shown again where it covers the fewest nodes of the view as it is now.
    this.minimap.style.right = this.minimap.style.bottom = "";
    this.placeMinimap();
    this.drawMinimapViewport();
    return !Viewport.minimapOff;
  }

  /** The stage's size in CSS pixels, kept by a ResizeObserver: reading it from the DOM while a
   *  slice of the graph waits to be rendered would force that rendering early. */
  private viewSize(): { width: number; height: number } {
    if (!this.size) {
      this.size = { width: this.stage.clientWidth, height: this.stage.clientHeight };
      if (!this.size.width) { this.size = null; return { width: 600, height: 400 }; }
    }
    return this.size;
  }

  private apply() {
    // Pan and zoom move the canvas with a CSS transform: a transform inside an SVG would change
    // its text's screen scale, and Chromium then lays out every label again (100+ ms on a
    // 1,000-node graph); a CSS transform around the SVGs only re-rasters.
    this.canvas.style.transform = `translate(${this.tx}px,${this.ty}px) scale(${this.k})`;
    // Semantic zoom: edge labels (name: type) only where they are legible, sub-lines likewise.
    this.canvas.classList.toggle("zoomed-out", this.k < 0.85);
    this.canvas.classList.toggle("zoomed-far", this.k < 0.45);
    this.drawMinimapViewport();
  }

  /** Fit the whole graph when labels stay readable; otherwise readable zoom at the top (inputs), centred.
   *  The graph goes in the part of the stage the overlays leave free, so no node starts hidden. */
  fit() {
    // Back where the stylesheet puts it, so "fit" measures its column from there.
    this.minimap.style.right = this.minimap.style.bottom = "";
    const { width: W, height: H } = this.viewSize();
    let m = this.handlers.insets();
    // Clear of the minimap's column too when the graph fits beside it at a readable zoom; a wider
    // graph would only be squeezed (it passes under the minimap anyway: its button hides it).
    if (this.minimap.offsetWidth) {
      const clear = { ...m, right: Math.max(m.right, W - this.minimap.offsetLeft + 12) };
      if (this.contentW * READABLE_K <= W - clear.left - clear.right) m = clear;
    }
    const w = Math.max(1, W - m.left - m.right), h = Math.max(1, H - m.top - m.bottom);
    this.k = Math.min(1.25, Math.max(Math.min(w / this.contentW, h / this.contentH), READABLE_K));
    const tooWide = this.contentW * this.k > w;
    this.tx = m.left + (tooWide ? 0 : (w - this.contentW * this.k) / 2);
    this.ty = m.top + (this.contentH * this.k > h ? 0 : (h - this.contentH * this.k) / 2);
    if (tooWide) this.tx = m.left - this.topWindow(w / this.k, h / this.k) * this.k;
    this.apply();
    this.placeMinimap();
  }

  /** For a graph wider than the stage: the left edge (graph units) of the ``span`` wide window along
   *  its top ``depth`` (the inputs, the first equations) that shows the most boxes whole, the
   *  leftmost of equals (inputs read left to right), never past the graph's edges. An open box's
   *  frame counts by its title (its top-left corner). Centring on the top-left box showed empty
   *  stage left of it and cut off the inputs on its right. */
  private topWindow(span: number, depth: number): number {
    const row = [...this.boxes.values()]
      .map((b) => (b.w > span || b.h > depth ? { x: b.x, y: b.y, w: Math.min(b.w, TITLE_W), h: 30 } : b))
      .filter((b) => b.y + b.h <= depth);
    const clamp = (x: number) => Math.max(0, Math.min(this.contentW - span, x));
    let best = 0, most = -1;
    for (const x0 of row.flatMap((b) => [clamp(b.x), clamp(b.x + b.w - span)]).sort((a, b) => a - b)) {
      const n = row.reduce((a, b) => a + Number(b.x >= x0 && b.x + b.w <= x0 + span), 0);
      if (n > most) { most = n; best = x0; }
    }
    return best;
  }

  /** After "fit": move the minimap to where it covers the fewest nodes (none, where a place allows:
   *  a graph wider than the stage runs under its corner), along the stage's bottom edge, then up its
   *  left edge below the find bar; the stylesheet's corner first among equals. It stays shown where
   *  every place covers some node: a big graph is where it is needed (its button puts it away). */
  private placeMinimap() {
    const mm = this.minimap;
    if (mm.hidden || !mm.offsetWidth || !this.boxes.size) return;
    const { width: W, height: H } = this.viewSize();
    const mw = mm.offsetWidth, mh = mm.offsetHeight, edge = 8, clear = 6;
    const k = this.k, tx = this.tx, ty = this.ty;
    // A box that holds the whole spot is an expanded equation's frame around it: what it would hide
    // there are the nodes inside, which are counted themselves.
    const covered = (x: number, y: number) => {
      const x0 = x - clear, x1 = x + mw + clear, y0 = y - clear, y1 = y + mh + clear;
      let n = 0;
      for (const b of this.boxes.values()) {
        const l = tx + b.x * k, t = ty + b.y * k, r = l + b.w * k, d = t + b.h * k;
        if (r > x0 && l < x1 && d > y0 && t < y1 && !(l <= x0 && r >= x1 && t <= y0 && d >= y1)) n++;
      }
      return n;
    };
    const right = W - edge - mw, bottom = H - edge - mh, top = this.handlers.insets().top;
    const spots: [number, number][] = [];
    for (let x = right; x > edge; x -= mw / 4) spots.push([x, bottom]);
    for (let y = bottom; y >= top; y -= mh / 4) spots.push([edge, y]);
    let spot = spots[0], least = Infinity;
    for (const [x, y] of spots) {
      const n = covered(x, y);
      if (n < least) { spot = [x, y]; least = n; }
      if (!n) break;
    }
    if (!spot) return;
    // Anchored to the stage's bottom right, as the stylesheet places it, so a resize keeps it on the stage.
    if (spot[0] !== right) mm.style.right = `${W - spot[0] - mw}px`;
    if (spot[1] !== bottom) mm.style.bottom = `${H - spot[1] - mh}px`;
  }

  fitTo(ids: Set<string>) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const id of ids) {
      const b = this.boxes.get(id);
      if (!b) continue;
      x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.w); y1 = Math.max(y1, b.y + b.h);
    }
    if (!isFinite(x0)) return;
    const { width: W, height: H } = this.viewSize();
    this.k = Math.min(1.25, Math.max(READABLE_K, Math.min((W - 40) / (x1 - x0), (H - 40) / (y1 - y0))));
    this.tx = W / 2 - ((x0 + x1) / 2) * this.k;
    this.ty = H / 2 - ((y0 + y1) / 2) * this.k;
    this.apply();
  }

  /** Pan the least that shows a box (screen coordinates) whole, or its top left corner when it is
   *  larger than the free part of the stage. */
  private reveal(n: DOMRect) {
    const s = this.stage.getBoundingClientRect();
    const m = this.handlers.insets(), pad = 12;
    const shift = (lo: number, hi: number, from: number, to: number) =>
      hi - lo > to - from || lo < from ? from - lo : hi > to ? to - hi : 0;
    const dx = shift(n.left, n.right, s.left + m.left + pad, s.right - m.right - pad);
    const dy = shift(n.top, n.bottom, s.top + m.top + pad, s.bottom - m.bottom - pad);
    if (!dx && !dy) return;
    this.tx += dx;
    this.ty += dy;
    this.apply();
  }

  centerOn(id: string) {
    const b = this.boxes.get(id);
    if (!b) return;
    const { width: W, height: H } = this.viewSize();
    this.k = Math.max(this.k, READABLE_K);
    this.tx = W / 2 - (b.x + b.w / 2) * this.k;
    this.ty = H / 2 - (b.y + b.h / 2) * this.k;
    this.apply();
  }

  zoomBy(f: number, cx?: number, cy?: number) {
    const box = this.viewSize();
    const px = cx ?? box.width / 2, py = cy ?? box.height / 2;
    const k = Math.min(4, Math.max(0.05, this.k * f));
    this.tx = px - ((px - this.tx) * k) / this.k;
    this.ty = py - ((py - this.ty) * k) / this.k;
    this.k = k;
    this.apply();
  }

  private minimapScale() {
    const mw = this.minimap.width, mh = this.minimap.height;
    const sc = Math.min(mw / this.contentW, mh / this.contentH);
    return { sc, ox: (mw - this.contentW * sc) / 2, oy: (mh - this.contentH * sc) / 2 };
  }

  /** The minimap's picture of every node, drawn once per layout (``paint`` gives a node's colour,
   *  or null to leave it out); the viewport box goes on top. */
  renderMinimap(paint: (id: string) => string | null, accent: string) {
    this.accent = accent;
    const img = document.createElement("canvas");
    img.width = this.minimap.width;
    img.height = this.minimap.height;
    const ctx = img.getContext("2d");
    if (!ctx) return;
    const { sc, ox, oy } = this.minimapScale();
    for (const [id, b] of this.boxes) {
      const color = paint(id);
      if (color === null) continue;
      ctx.fillStyle = color;
      ctx.fillRect(ox + b.x * sc, oy + b.y * sc, Math.max(1, b.w * sc), Math.max(1, b.h * sc));
    }
    this.minimapImage = img;
    this.minimap.hidden = this.boxes.size < MINIMAP_FROM || Viewport.minimapOff;
    this.drawMinimapViewport();
  }

  drawMinimapViewport() {
    const ctx = this.minimap.getContext("2d");
    if (!ctx || !this.minimapImage || this.minimap.hidden) return;
    ctx.clearRect(0, 0, this.minimap.width, this.minimap.height);
    ctx.drawImage(this.minimapImage, 0, 0);
    const { sc, ox, oy } = this.minimapScale();
    const box = this.viewSize();
    const x = (-this.tx / this.k) * sc + ox, y = (-this.ty / this.k) * sc + oy;
    ctx.strokeStyle = this.accent;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x, y, (box.width / this.k) * sc, (box.height / this.k) * sc);
  }

  private installMinimap() {
    let dragging = false;
    const moveTo = (e: PointerEvent) => {
      const r = this.minimap.getBoundingClientRect();
      const { sc, ox, oy } = this.minimapScale();
      const gx = (e.clientX - r.left - ox) / sc, gy = (e.clientY - r.top - oy) / sc;
      const box = this.viewSize();
      this.tx = box.width / 2 - gx * this.k;
      this.ty = box.height / 2 - gy * this.k;
      this.apply();
    };
    this.minimap.addEventListener("pointerdown", (e) => { dragging = true; this.minimap.setPointerCapture(e.pointerId); moveTo(e); });
    this.minimap.addEventListener("pointermove", (e) => { if (dragging) moveTo(e); });
    this.minimap.addEventListener("pointerup", () => { dragging = false; });
  }

  private installPanZoom() {
    let drag: { x: number; y: number; tx: number; ty: number } | null = null;
    const stage = this.stage;
    // A node focused with Tab is panned into the part of the stage the overlays leave free. The
    // browser would scroll the (overflow: hidden) stage instead, under the pan transform, where fit
    // and the minimap never look, and never towards the top or left: any such scroll becomes a pan.
    stage.addEventListener("focusin", (e) => {
      // Only keyboard focus: a click focuses the node under the pointer, which must not move.
      const node = (e.target as Element).closest?.(".node");
      if (node?.matches(":focus-visible")) this.reveal(node.getBoundingClientRect());
    });
    stage.addEventListener("scroll", () => {
      if (!stage.scrollLeft && !stage.scrollTop) return;
      this.tx -= stage.scrollLeft;
      this.ty -= stage.scrollTop;
      stage.scrollLeft = 0;
      stage.scrollTop = 0;
      this.apply();
    });
    stage.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = stage.getBoundingClientRect();
      this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
    }, { passive: false });
    stage.addEventListener("pointerdown", (e) => {
      if ((e.target as Element).closest(".node")) return;
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty };
      stage.setPointerCapture(e.pointerId);
      stage.classList.add("dragging");
    });
    stage.addEventListener("pointermove", (e) => {
      if (!drag) return;
      this.tx = drag.tx + e.clientX - drag.x;
      this.ty = drag.ty + e.clientY - drag.y;
      this.apply();
    });
    const end = () => { drag = null; stage.classList.remove("dragging"); };
    stage.addEventListener("pointerup", end);
    stage.addEventListener("pointercancel", end);
    stage.addEventListener("click", (e) => {
      if (!(e.target as Element).closest(".node")) this.handlers.onBackgroundClick();
    });
    stage.tabIndex = 0;
    stage.addEventListener("keydown", (e) => {
      const step = 40;
      if (e.target !== stage) return;
      if (e.key === "+" || e.key === "=") this.zoomBy(1.2);
      else if (e.key === "-") this.zoomBy(1 / 1.2);
      else if (e.key === "0") this.fit();
      else if (e.key === "f") this.handlers.onFocusKey();
      else if (e.key === "ArrowLeft") this.tx += step;
      else if (e.key === "ArrowRight") this.tx -= step;
      else if (e.key === "ArrowUp") this.ty += step;
      else if (e.key === "ArrowDown") this.ty -= step;
      else return;
      e.preventDefault();
      this.apply();
    });
  }
}
