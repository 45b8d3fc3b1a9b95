// A jit stage's lowered program (StableHLO, the text `jax.jit(f).lower(*args).as_text()` prints)
// as a read-only CodeMirror view with a small MLIR highlighter: ops, SSA values, symbols, types,
// attributes, literals and comments.

import { HighlightStyle, StreamLanguage, syntaxHighlighting, type StringStream } from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState, RangeSetBuilder } from "@codemirror/state";
import { Decoration, EditorView, ViewPlugin, keymap, lineNumbers, type DecorationSet, type ViewUpdate } from "@codemirror/view";
import { tags as t } from "@lezer/highlight";
import { h } from "../dom";

/** A type with angle brackets (`tensor<2x3xcomplex<f32>>`), its brackets balanced. */
function eatAngles(stream: StringStream): void {
  let depth = 0;
  while (!stream.eol()) {
    const c = stream.next();
    if (c === "<") depth++;
    else if (c === ">" && --depth === 0) return;
  }
}

const mlir = StreamLanguage.define<null>({
  name: "mlir",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("//")) { stream.skipToEnd(); return "comment"; }
    if (stream.match(/^"(?:[^"\\]|\\.)*"/)) return "string";
    if (stream.match(/^%[\w.$#-]+(?::\d+)?/)) return "variableName";
    if (stream.match(/^[@^][\w.$-]+/)) return "labelName";
    if (stream.match(/^(?:tensor|vector|memref|complex|tuple)(?=<)/)) { eatAngles(stream); return "typeName"; }
    if (stream.match(/^!?[a-z_]\w*\.[\w.]+/)) {
      // `stablehlo.add %a` is an op; `mhlo.layout_mode = "default"` an attribute; `!stablehlo.token` a type
      if (stream.current().startsWith("!")) return "typeName";
      return stream.match(/^\s*=/, false) ? "propertyName" : "keyword";
    }
    if (stream.match(/^#[\w.$-]+/)) { if (stream.peek() === "<") eatAngles(stream); return "meta"; }
    if (stream.match(/^(?:[su]?i\d+|bf16|f\d+(?:E\w+)?|index)\b/)) return "typeName";
    if (stream.match(/^(?:0x[0-9A-Fa-f]+|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)/)) return "number";
    if (stream.match(/^(?:true|false)\b/)) return "bool";
    if (stream.match(/^(?:module|func|call|return|attributes|loc|dense|public|private)\b/)) return "keyword";
    if (stream.match(/^[A-Za-z_][\w$]*(?=\s*=)/)) return "propertyName";
    if (stream.match(/^(?:->|[=:,()[\]{}<>])/)) return "punctuation";
    stream.next();
    return null;
  },
});

const highlight = HighlightStyle.define([
  { tag: t.keyword, color: "var(--syn-keyword)" },
  { tag: t.labelName, color: "var(--syn-function)" },
  { tag: t.variableName, color: "var(--syn-property)" },
  { tag: t.typeName, color: "var(--syn-class)" },
  { tag: [t.string], color: "var(--syn-string)" },
  { tag: [t.number, t.bool], color: "var(--syn-number)" },
  { tag: t.meta, color: "var(--syn-meta)" },
  { tag: t.propertyName, color: "var(--syn-operator)", fontStyle: "italic" },
  { tag: t.comment, color: "var(--syn-comment)", fontStyle: "italic" },
  // (nowrap: a wrapped line must not break an `->` between its two characters)
  { tag: t.punctuation, color: "var(--syn-operator)", whiteSpace: "nowrap" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "12.5px", backgroundColor: "var(--panel)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.55" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", border: "none" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  "&.cm-focused": { outline: "none" },
  // A wrapped line's continuation rows hang 2 columns in from where its own text starts (--hang,
  // set per line below), as the IR's jaxpr text does: they never read as new lines, nor as lines
  // of an enclosing block.
  ".cm-lineWrapping .cm-line": { paddingLeft: "calc(6px + var(--hang, 4ch))", textIndent: "calc(-1 * var(--hang, 4ch))" },
});

/** Each visible line's indent + 2 columns as its --hang. */
const hangs = ViewPlugin.fromClass(class {
  decorations: DecorationSet;
  constructor(view: EditorView) { this.decorations = this.build(view); }
  update(u: ViewUpdate) { if (u.docChanged || u.viewportChanged) this.decorations = this.build(u.view); }
  build(view: EditorView): DecorationSet {
    const b = new RangeSetBuilder<Decoration>();
    for (const { from, to } of view.visibleRanges) {
      for (let pos = from; pos <= to;) {
        const line = view.state.doc.lineAt(pos);
        const lead = line.text.length - line.text.trimStart().length;
        b.add(line.from, line.from, Decoration.line({ attributes: { style: `--hang: ${lead + 2}ch` } }));
        pos = line.to + 1;
      }
    }
    return b.finish();
  }
}, { decorations: (v) => v.decorations });

/** The read-only view of a stage's text; `setWrap` folds long lines (attribute lists run wide). */
export class StablehloView {
  readonly el = h("div", { class: "hlo-view", testid: "stablehlo-text" });
  private readonly wrapping = new Compartment();
  private readonly view: EditorView;

  constructor(text: string, wrap: boolean) {
    this.view = new EditorView({
      parent: this.el,
      state: EditorState.create({
        doc: text.replace(/\n$/, ""),
        extensions: [
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.contentAttributes.of({ "aria-label": "StableHLO text", tabindex: "0" }),
          lineNumbers(),
          mlir,
          syntaxHighlighting(highlight),
          search({ top: true }),
          highlightSelectionMatches(),
          keymap.of(searchKeymap),
          theme,
          hangs,
          this.wrapping.of(wrap ? EditorView.lineWrapping : []),
        ],
      }),
    });
  }

  setWrap(wrap: boolean) {
    this.view.dispatch({ effects: this.wrapping.reconfigure(wrap ? EditorView.lineWrapping : []) });
  }

  /** Its listeners on the window go with it (call when the view is replaced). */
  destroy() {
    this.view.destroy();
  }
}
