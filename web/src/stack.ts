// The transformation stack builder: target function, layers (innermost first) with their options,
// arguments as Python expressions, and the composed call shown as code.

import { h, replace } from "./dom";
import type { TransformName, TransformSpec } from "./report";
import {
  composedCall, type FunctionDef, OPTION_HINTS, parseFunctions, type Session, TRANSFORM_OPTIONS, TRANSFORMS,
} from "./session";

export class StackBuilder {
  readonly el: HTMLElement;
  private functions: FunctionDef[] = [];
  private body: HTMLElement;
  private callEl: HTMLElement;
  /** Layers whose every option is shown (by default only those set, and the first). */
  private expanded = new WeakSet<TransformSpec>();

  constructor(private session: Session, private onChange: () => void) {
    this.body = h("div", { class: "stack-body" });
    this.callEl = h("code", { class: "composed", testid: "composed-call" });
    this.el = h("section", { class: "stack", "aria-label": "Transformation stack", testid: "stack-builder" },
      this.body,
      h("div", { class: "composed-row" }, h("span", { class: "label" }, "Call"), this.callEl));
    this.setCode(session.code);
  }

  /** Re-parse the functions defined in the code; re-render only when they changed. */
  setCode(code: string) {
    const fns = parseFunctions(code);
    const key = (f: FunctionDef[]) => f.map((x) => `${x.name}(${x.params.join(",")})`).join(";");
    if (key(fns) === key(this.functions) && this.body.childElementCount) return;
    this.functions = fns;
    this.render();
  }

  setSession(s: Session) {
    this.session = s;
    this.functions = parseFunctions(s.code);
    this.render();
  }

  private changed(rerender = false) {
    if (rerender) this.render();
    else this.renderCall();
    this.onChange();
  }

  /** The builder is drawn anew on each change: the focus goes to the new counterpart of what held
   *  it (a removed layer's: the next layer's, else the first "+" chip), not to the page's body. */
  private render() {
    const spot = focusSpot(this.body);
    this.draw();
    if (!spot || this.body.contains(document.activeElement)) return;
    const layers = this.body.querySelectorAll<HTMLElement>(".layer");
    const scope = spot.layer < 0 ? this.body : layers[Math.min(spot.layer, layers.length - 1)];
    const target = scope?.querySelectorAll<HTMLElement>(`[data-testid="${spot.testid}"]`)[spot.nth]
      // (the last argument's row gone: "+ argument", else the first "+" chip)
      ?? (spot.testid === "arg-remove" ? this.body.querySelector<HTMLElement>('[data-testid="add-arg"]') : null)
      ?? this.body.querySelector<HTMLElement>(".adders button");
    target?.focus();
  }

  private draw() {
    const s = this.session;
    const known = this.functions.some((f) => f.name === s.function);
    const select = h("select", {
      id: "target-fn", testid: "target-select", "aria-label": "Target function",
      onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        s.function = v || null;
        const fn = this.functions.find((f) => f.name === v);
        if (fn && s.args.every((a) => !a.trim())) s.args = fn.params.map(() => "");
        this.changed(true);
      },
    },
      h("option", { value: "" }, "Whole script (no stack)"),
      this.functions.map((f) => h("option", { value: f.name }, `${f.name}(${f.params.join(", ")})`)),
      s.function && !known ? h("option", { value: s.function }, `${s.function} (not found)`) : null,
    );
    select.value = s.function ?? "";

    const target = h("div", { class: "field-row" }, h("label", { for: "target-fn", class: "label" }, "Function"), select);
    if (!s.function) {
      replace(this.body, target, h("p", { class: "hint" },
        "The code runs as a script; every transformed call it makes is listed in the panels. ",
        "Pick a function to build a stack of transformations around it."));
      this.renderCall();
      return;
    }

    const layers = h("ol", { class: "layers", "aria-label": "Transformations, innermost first" },
      s.stack.map((_layer, i) => this.renderLayer(i)));
    const adders = h("div", { class: "adders", role: "group", "aria-label": "Add a transformation" },
      TRANSFORMS.map((name) => h("button", {
        class: "chip", type: "button", testid: `add-${name}`, title: `Wrap in ${name}`,
        onclick: () => { s.stack.push({ name, options: {} }); this.changed(true); this.focusLast(); },
      }, `+ ${name}`)));

    replace(this.body,
      target,
      h("div", { class: "label sub" }, "Transformations ", h("span", { class: "hint" }, "innermost first")),
      s.stack.length ? layers : h("p", { class: "hint" }, "No transformations: the function is called as it is."),
      adders,
      this.renderArgs());
    this.renderCall();
  }

  private renderLayer(i: number): HTMLElement {
    const s = this.session;
    const layer = s.stack[i];
    const name = h("select", {
      class: "layer-name", testid: "layer-name", "aria-label": `Transformation ${i + 1}`,
      onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value as TransformName;
        const allowed = TRANSFORM_OPTIONS[v];
        layer.name = v;
        layer.options = Object.fromEntries(Object.entries(layer.options).filter(([k]) => allowed.includes(k)));
        this.changed(true);
      },
    }, TRANSFORMS.map((t) => h("option", { value: t }, t)));
    name.value = layer.name;
    // One row per layer: the options shown are the ones set (or, with none set, the transformation's
    // first); the rest wait behind a "+N" toggle (pmap has four: they never fit one laptop row).
    const all = TRANSFORM_OPTIONS[layer.name] ?? []; // empty until the registry loads
    const expanded = this.expanded.has(layer);
    const isSet = (opt: string) => !!(layer.options[opt] ?? "").trim();
    const shown = all.filter((opt, k) => expanded || isSet(opt) || (k === 0 && !all.some(isSet)));
    const hidden = all.filter((opt) => !shown.includes(opt));
    const opts = shown.map((opt) => {
      const id = `opt-${i}-${opt}`;
      return h("span", { class: "opt" },
        h("label", { for: id }, opt),
        h("input", {
          id, type: "text", spellcheck: "false", autocomplete: "off", testid: `opt-${opt}`,
          placeholder: OPTION_HINTS[opt] ?? "", title: `${opt}: ${OPTION_HINTS[opt] ?? ""}`, value: layer.options[opt] ?? "",
          oninput: (e: Event) => { layer.options[opt] = (e.target as HTMLInputElement).value; this.changed(); },
        }));
    });
    const toggle = hidden.length || (expanded && all.length > 1)
      ? h("button", {
        type: "button", class: "chip more-opts", testid: "layer-more",
        "aria-expanded": String(expanded),
        title: expanded ? "Show only the options that are set" : `More options: ${hidden.join(", ")}`,
        "aria-label": expanded ? `Fewer ${layer.name} options` : `More ${layer.name} options: ${hidden.join(", ")}`,
        onclick: () => {
          if (expanded) this.expanded.delete(layer); else this.expanded.add(layer);
          this.render();
          const row = this.body.querySelectorAll<HTMLElement>(".layer")[i];
          const target = expanded ? row?.querySelector<HTMLElement>(".more-opts")
            : row?.querySelector<HTMLElement>(`[data-testid="opt-${hidden[0]}"]`);
          target?.focus();
        },
      }, expanded ? "−" : `+${hidden.length}`)
      : null;
    const move = (d: number) => {
      const j = i + d;
      if (j < 0 || j >= s.stack.length) return;
      [s.stack[i], s.stack[j]] = [s.stack[j], s.stack[i]];
      this.changed(true);
      (this.body.querySelectorAll<HTMLElement>(".layer")[j]?.querySelector(d < 0 ? ".up" : ".down") as HTMLElement | null)?.focus();
    };
    return h("li", { class: "layer", testid: "stack-layer", dataset: { name: layer.name } },
      h("span", { class: "layer-index" }, String(i + 1)),
      name,
      h("span", { class: "opts" }, opts, toggle),
      h("span", { class: "layer-tools" },
        // (aria-disabled: a layer moved to either end keeps the focus on the button that moved it)
        h("button", { type: "button", class: "icon up", title: "Move inward", "aria-label": "Move inward", testid: "layer-up", "aria-disabled": String(i === 0), onclick: () => move(-1) }, "↑"),
        h("button", { type: "button", class: "icon down", title: "Move outward", "aria-label": "Move outward", testid: "layer-down", "aria-disabled": String(i === s.stack.length - 1), onclick: () => move(1) }, "↓"),
        h("button", {
          type: "button", class: "icon remove", title: "Remove", "aria-label": `Remove ${layer.name}`, testid: "layer-remove",
          onclick: () => { s.stack.splice(i, 1); this.changed(true); },
        }, "✕")));
  }

  private renderArgs(): HTMLElement {
    const s = this.session;
    const fn = this.functions.find((f) => f.name === s.function);
    const params = fn?.params ?? [];
    // Rows follow the signature: a function that no longer takes an argument loses its row.
    if (fn && !fn.open && s.args.length > params.length) s.args.length = params.length;
    const n = Math.max(params.length, s.args.length, fn && !fn.open ? 0 : 1);
    while (s.args.length < n) s.args.push("");
    const rows = s.args.map((a, i) => {
      const id = `arg-${i}`;
      return h("div", { class: "arg" },
        h("label", { for: id, class: "mono" }, params[i] ?? `arg${i}`),
        h("input", {
          id, type: "text", spellcheck: "false", autocomplete: "off", testid: "arg-input", value: a,
          placeholder: "Python expression, e.g. jnp.ones(3)",
          oninput: (e: Event) => { s.args[i] = (e.target as HTMLInputElement).value; this.changed(); },
        }),
        i >= params.length
          // Named for its row, as a layer's "Remove grad" is; the test id lets the focus move on
          // to the next row's button when this row goes.
          ? h("button", {
            type: "button", class: "icon remove", title: "Remove argument", "aria-label": `Remove argument ${params[i] ?? `arg${i}`}`,
            testid: "arg-remove", onclick: () => { s.args.splice(i, 1); this.changed(true); },
          }, "✕")
          : null);
    });
    return h("div", { class: "args" },
      h("div", { class: "label sub" }, "Arguments ", h("span", { class: "hint" }, "Python expressions; the code's names are in scope")),
      // (one grid for all rows: the inputs line up whatever each name's length)
      rows.length ? h("div", { class: "arg-rows" }, rows) : h("p", { class: "hint" }, `${s.function}() takes no arguments.`),
      !fn || fn.open
        ? h("button", { type: "button", class: "link", testid: "add-arg", onclick: () => { s.args.push(""); this.changed(true); } }, "+ argument")
        : null);
  }

  private renderCall() {
    const s = this.session;
    if (!s.function) {
      this.callEl.textContent = "python script.py";
      return;
    }
    const args = [...s.args];
    while (args.length && !args[args.length - 1].trim()) args.pop();
    this.callEl.textContent = `${composedCall(s.function, s.stack)}(${args.map((a) => a.trim() || "…").join(", ")})`;
  }

  private focusLast() {
    const inputs = this.body.querySelectorAll<HTMLElement>(".layer:last-child .layer-name");
    inputs[0]?.focus();
  }
}

/** The focused control in ``body``: its layer (-1: outside the layers), test id and place among
 *  its namesakes there (the second argument's input). */
function focusSpot(body: HTMLElement): { layer: number; testid: string; nth: number } | null {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement) || !body.contains(a) || !a.dataset.testid) return null;
  const row = a.closest<HTMLElement>(".layer");
  const scope = row ?? body;
  const nth = [...scope.querySelectorAll(`[data-testid="${a.dataset.testid}"]`)].indexOf(a);
  return { layer: row ? [...body.querySelectorAll(".layer")].indexOf(row) : -1, testid: a.dataset.testid, nth };
}
