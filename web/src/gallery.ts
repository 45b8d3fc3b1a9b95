// The gallery: ready examples from GET /api/examples, one click (or Enter) to load.

import { type Example, listExamples } from "./api";
import { empty, h, replace } from "./dom";
import { composedCall, fromAny, type Session } from "./session";

export class Gallery {
  readonly dialog: HTMLDialogElement;
  private list: HTMLElement;
  private examples: Example[] | null = null;

  constructor(private onPick: (s: Session, ex: Example) => void) {
    this.list = h("div", { class: "gallery-list", testid: "gallery-list" });
    this.dialog = h("dialog", { class: "gallery", testid: "gallery", "aria-labelledby": "gallery-title" },
      h("header", null,
        h("h2", { id: "gallery-title" }, "Examples"),
        h("button", { type: "button", class: "icon", "aria-label": "Close", testid: "gallery-close", onclick: () => this.dialog.close() }, "✕")),
      this.list);
    this.dialog.addEventListener("click", (e) => { if (e.target === this.dialog) this.dialog.close(); });
  }

  async open() {
    if (!this.dialog.open) this.dialog.showModal();
    if (this.examples) return this.renderList();
    replace(this.list, h("p", { class: "hint" }, "Loading examples…"));
    try {
      this.examples = await listExamples();
      this.renderList();
    } catch (e) {
      replace(this.list, empty("Could not load the examples.", (e as Error).message));
    }
  }

  private renderList() {
    const exs = this.examples ?? [];
    if (!exs.length) return replace(this.list, empty("No examples on this server."));
    replace(this.list, exs.map((ex) => {
      const s = fromAny(ex);
      const call = s?.function ? composedCall(s.function, s.stack) : null;
      return h("button", {
        type: "button", class: "gallery-item", testid: "gallery-item", dataset: { id: ex.id },
        onclick: () => { if (s) { this.dialog.close(); this.onPick(s, ex); } },
      },
        h("span", { class: "gallery-title" }, ex.title),
        h("span", { class: "gallery-desc" }, ex.description),
        call ? h("code", { class: "gallery-call" }, call) : h("span", { class: "gallery-call muted" }, "script"));
    }));
    (this.list.querySelector("button") as HTMLElement | null)?.focus();
  }
}
