// `/embed/<id>`: a stored snippet, read-only, for an iframe in docs: its code, its result and one
// panel (`?panel=output|ir|timings`, else the snippet's own; the call, and the IR panel's stage
// and view, in the fragment, as a share link's), and an "Open in playground" link
// that carries the code in the URL fragment (nothing is stored for it).

import { loadSnippet, run } from "./api";
import { h, replace } from "./dom";
import { IRPanel } from "./panels/ir";
import { openCallIndex } from "./report";
import { renderOutput } from "./panels/output";
import { renderTimings } from "./panels/timings";
import { type PanelName, type Session, encodeFragment, fromAny, parseViewFragment, toRequest } from "./session";
import "./embed.css";

const EMBED_PANELS: PanelName[] = ["output", "ir", "timings"];

/** The playground link for ``s``: code in the fragment when it fits, else the stored snippet. */
export function playgroundLink(s: Session, snippetId: string | null): string {
  const frag = encodeFragment(s);
  if (frag) return `${location.origin}/#${frag}`;
  return snippetId ? `${location.origin}/s/${snippetId}` : `${location.origin}/`;
}

export async function startEmbed(id: string, root: HTMLElement) {
  root.classList.add("embed");
  const body = h("div", { class: "embed-body", testid: "embed-body" }, h("p", { class: "muted" }, "Loading…"));
  replace(root, body);
  let s: Session | null;
  try {
    const raw = await loadSnippet(id);
    s = fromAny(raw.request) ?? fromAny(raw);
    if (!s) throw new Error("the snippet could not be read");
  } catch (e) {
    replace(body, h("p", { class: "error-text", testid: "embed-error" }, `Could not load snippet ${id}: ${(e as Error).message}`));
    return;
  }
  // The call, stage, form and look the embed was shared with (the link's view fragment); the
  // "Open in playground" link carries them too.
  const viewed = (hash: string): Session => {
    const view = parseViewFragment(hash);
    return { ...s!, stage: view.stage, ir: view.ir, irView: view.irView, heat: view.heat, diff: view.diff, call: view.call };
  };
  const session = viewed(location.hash);
  const want = new URLSearchParams(location.search).get("panel") as PanelName | null;
  const panel: PanelName = want && EMBED_PANELS.includes(want) ? want : EMBED_PANELS.includes(session.panel) ? session.panel : "output";
  const lines = session.code.replace(/\n$/, "").split("\n");
  const code = h("pre", { class: "embed-code", testid: "embed-code" },
    lines.map((l, i) => h("div", { class: "embed-line" }, h("span", { class: "embed-ln" }, String(i + 1)), l || " ")));
  const status = h("span", { class: "muted", testid: "embed-status" }, "running…");
  const result = h("div", { class: "embed-panel", testid: "embed-panel", "data-panel": panel });
  const open = h("a", { href: playgroundLink(session, id), target: "_blank", rel: "noopener", testid: "open-in-playground" }, "Open in playground ↗");
  const head = h("div", { class: "embed-head" },
    h("strong", null, "jaxplay"),
    h("code", { class: "mono" }, session.function ?? "script"),
    status,
    h("span", { class: "grow" }),
    open);
  replace(root, head, h("div", { class: "embed-main" }, code, result));
  try {
    const report = await run(toRequest(session), new AbortController().signal);
    status.textContent = report.ok ? `ok · ${report.label ?? ""}` : "failed";
    status.dataset.ok = String(report.ok);
    const noop = () => undefined;
    const show = (hash: string) => {
      const view = parseViewFragment(hash);
      // The call the playground showed, picked as the playground picks it.
      const call = report.calls[openCallIndex(report, view.call)] ?? null;
      if (panel === "ir") {
        const ir = new IRPanel({ onSourceLines: noop });
        ir.preferStage(view.stage);
        ir.setForm(view.ir ?? "jaxpr");
        ir.setLook(view);
        replace(result, ir.el);
        ir.show(call);
      } else if (panel === "timings") {
        replace(result, renderTimings(report, report.calls.length > 1 ? call?.id ?? null : null));
      } else {
        replace(result, renderOutput(report, { gotoLine: noop }));
      }
    };
    show(location.hash);
    // A page hosting the embed may point it at another call or stage by its fragment alone, which
    // loads nothing: the same run is shown again, as asked (it kept showing the first view).
    window.addEventListener("hashchange", () => {
      show(location.hash);
      open.setAttribute("href", playgroundLink(viewed(location.hash), id));
    });
  } catch (e) {
    status.textContent = "failed";
    result.appendChild(h("p", { class: "error-text" }, (e as Error).message));
  }
  root.dataset.runs = "1";
}
