// The code editor: CodeMirror 6 with Python, line numbers, Ctrl/Cmd+Enter to run, the failing line
// underlined (message on hover), and lines linked to IR nodes highlighted.

import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { EditorState, StateEffect, StateField, type Extension } from "@codemirror/state";
import {
  Decoration, type DecorationSet, drawSelection, EditorView, highlightActiveLine,
  highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers,
} from "@codemirror/view";
import { tags as t } from "@lezer/highlight";

const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword], color: "var(--syn-keyword)" },
  { tag: [t.function(t.definition(t.variableName)), t.function(t.variableName)], color: "var(--syn-function)" },
  { tag: [t.string, t.special(t.string)], color: "var(--syn-string)" },
  { tag: [t.number, t.bool, t.null], color: "var(--syn-number)" },
  { tag: t.comment, color: "var(--syn-comment)", fontStyle: "italic" },
  { tag: [t.operator, t.punctuation], color: "var(--syn-operator)" },
  { tag: [t.className, t.definition(t.className)], color: "var(--syn-class)" },
  { tag: t.meta, color: "var(--syn-meta)" },
  { tag: t.propertyName, color: "var(--syn-property)" },
  { tag: t.self, color: "var(--syn-keyword)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "13.5px", backgroundColor: "var(--editor-bg)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.55" },
  ".cm-content": { caretColor: "var(--accent)" },
  ".cm-cursor": { borderLeftColor: "var(--accent)" },
  ".cm-gutters": { backgroundColor: "var(--editor-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--editor-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--editor-active)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  ".cm-linked-line": { backgroundColor: "var(--link-line)", boxShadow: "inset 3px 0 0 var(--accent)" },
  ".cm-error-line": { backgroundColor: "var(--error-line)" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
  ".cm-tooltip-lint": { maxWidth: "480px" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--danger)" },
  "&.cm-focused": { outline: "none" },  // ringed by .editor:focus-within (styles.css), over the gutter too
});

const setLinked = StateEffect.define<number[]>();
const setErrorLine = StateEffect.define<number | null>();

const linkedField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setLinked)) deco = lineDecos(tr.state, e.value, "cm-linked-line");
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setErrorLine)) deco = lineDecos(tr.state, e.value ? [e.value] : [], "cm-error-line");
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function lineDecos(state: EditorState, lines: number[], cls: string): DecorationSet {
  const valid = [...new Set(lines)].filter((l) => l >= 1 && l <= state.doc.lines).sort((a, b) => a - b);
  return Decoration.set(valid.map((l) => Decoration.line({ class: cls }).range(state.doc.line(l).from)));
}

export interface EditorError {
  line: number;
  column?: number | null;
  end_line?: number | null;
  end_column?: number | null;
  message: string;
}

export class Editor {
  readonly view: EditorView;
  private changeListeners: ((code: string) => void)[] = [];
  private lineClickListeners: ((line: number) => void)[] = [];

  constructor(parent: HTMLElement, code: string, onRun: () => void) {
    const runKey = keymap.of([
      { key: "Mod-Enter", run: () => { onRun(); return true; }, preventDefault: true },
      { key: "Shift-Enter", run: () => { onRun(); return true; }, preventDefault: true },
    ]);
    const extensions: Extension[] = [
      runKey,
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightSpecialChars(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      syntaxHighlighting(highlight),
      python(),
      lintGutter(),
      linkedField,
      errorField,
      theme,
      EditorState.tabSize.of(4),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
      EditorView.contentAttributes.of({ "aria-label": "Python code editor. Press Escape then Tab to leave." }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) {
          const text = u.state.doc.toString();
          this.changeListeners.forEach((f) => f(text));
        }
      }),
      EditorView.domEventHandlers({
        mouseup: (_e, view) => {
          const line = view.state.doc.lineAt(view.state.selection.main.head).number;
          this.lineClickListeners.forEach((f) => f(line));
          return false;
        },
      }),
    ];
    this.view = new EditorView({ state: EditorState.create({ doc: code, extensions }), parent });
  }

  get code(): string {
    return this.view.state.doc.toString();
  }

  setCode(code: string) {
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: code },
      effects: [setLinked.of([]), setErrorLine.of(null)],
    });
    this.view.dispatch(setDiagnostics(this.view.state, []));
  }

  onChange(f: (code: string) => void) { this.changeListeners.push(f); }
  onLineClick(f: (line: number) => void) { this.lineClickListeners.push(f); }

  /** Underline the failing span (or line) with the error message as its hover tooltip.
   *  Columns are 1-based as the report gives them; end_column is exclusive. */
  setError(err: EditorError | null) {
    const doc = this.view.state.doc;
    if (!err || err.line < 1 || err.line > doc.lines) {
      this.view.dispatch(setDiagnostics(this.view.state, []));
      this.view.dispatch({ effects: setErrorLine.of(null) });
      return;
    }
    const line = doc.line(err.line);
    const indent = line.text.length - line.text.trimStart().length;
    const clampTo = (l: { from: number; to: number }, pos: number) => Math.max(l.from, Math.min(l.to, pos));
    let from = err.column ? clampTo(line, line.from + err.column - 1) : line.from + indent;
    let to = line.to;
    // A span over several lines (a whole `while` statement, a call continued on the next lines) is
    // underlined on its first line only, the line the page marks: across the line break the
    // underline ran through the next line's indentation and, for a loop, its whole body.
    if (err.end_line === err.line && err.end_column) to = clampTo(line, line.from + err.end_column - 1);
    if (to <= from) {
      // A point at the end of the line (e.g. a missing colon): mark the last character.
      if (from >= line.to) from = Math.max(line.from + indent, line.to - 1);
      to = Math.min(line.to, from + 1);
    }
    if (to <= from) { from = line.from; to = line.to; }
    const diag: Diagnostic = { from, to, severity: "error", message: err.message };
    this.view.dispatch(setDiagnostics(this.view.state, [diag]));
    this.view.dispatch({ effects: [setErrorLine.of(err.line), EditorView.scrollIntoView(from, { y: "center" })] });
  }

  /** Highlight lines linked to a selected IR node or debugger step. */
  highlightLines(lines: number[], scroll = true) {
    const doc = this.view.state.doc;
    const effects: StateEffect<unknown>[] = [setLinked.of(lines)];
    const first = lines.find((l) => l >= 1 && l <= doc.lines);
    if (scroll && first) effects.push(EditorView.scrollIntoView(doc.line(first).from, { y: "nearest" }));
    this.view.dispatch({ effects });
  }

  focus() { this.view.focus(); }
}
