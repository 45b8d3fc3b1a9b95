// Estimated cost per source line in the editor's gutter: a heat bar on each line the shown stage
// spends FLOPs on, its share of the stage total as intensity, the numbers in the tooltip. Added
// to an existing editor with appendConfig, so the editor module need not know about it.

import { RangeSet, StateEffect, StateField } from "@codemirror/state";
import { EditorView, GutterMarker, gutter } from "@codemirror/view";
import type { StageCost } from "./report";

/** `12.3 MFLOP`, `4.1 MB`: three significant digits with an SI prefix. */
export function formatCount(x: number, unit: string): string {
  const prefixes = ["", "k", "M", "G", "T", "P"];
  let i = 0;
  while (Math.abs(x) >= 1000 && i < prefixes.length - 1) { x /= 1000; i++; }
  return `${i ? x.toPrecision(3) : Math.round(x)} ${prefixes[i]}${unit}`;
}

class HeatMarker extends GutterMarker {
  constructor(readonly share: number, readonly text: string) { super(); }
  eq(other: HeatMarker) { return other.share === this.share && other.text === this.text; }
  toDOM() {
    const el = document.createElement("div");
    el.className = "cm-cost-heat";
    el.dataset.share = this.share.toFixed(3);
    el.style.setProperty("--share", String(Math.max(0.08, this.share)));
    el.title = this.text;
    return el;
  }
}

const setCosts = StateEffect.define<StageCost | null>();

const costField = StateField.define<RangeSet<GutterMarker>>({
  create: () => RangeSet.empty,
  update(markers, tr) {
    markers = markers.map(tr.changes);
    for (const e of tr.effects) {
      if (!e.is(setCosts)) continue;
      const cost = e.value;
      if (!cost || !cost.flops) { markers = RangeSet.empty; continue; }
      const doc = tr.state.doc;
      const max = Math.max(...Object.values(cost.by_line).map((c) => c.flops), 1);
      const ranges = Object.entries(cost.by_line)
        .map(([line, c]) => [Number(line), c] as const)
        .filter(([line]) => line >= 1 && line <= doc.lines)
        .sort((x, y) => x[0] - y[0])
        .map(([line, c]) => new HeatMarker(c.flops / max,
          `estimated: ${formatCount(c.flops, "FLOP")}, ${formatCount(c.bytes, "B")} moved (${((100 * c.flops) / cost.flops).toFixed(1)}% of the stage's FLOPs)`,
        ).range(doc.line(line).from));
      markers = RangeSet.of(ranges);
    }
    return markers;
  },
});

const costGutter = [
  costField,
  gutter({ class: "cm-cost-gutter", markers: (v) => v.state.field(costField) }),
  EditorView.baseTheme({
    ".cm-cost-gutter": { width: "6px" },
    ".cm-cost-heat": { width: "5px", height: "100%", minHeight: "1em", background: "#e4596b", opacity: "var(--share)", borderRadius: "2px" },
  }),
];

const installed = new WeakSet<EditorView>();

/** Show ``cost`` (a stage's per-line estimate) in the editor's gutter; null clears it (and the
 *  gutter is not added to an editor that never showed a cost). */
export function showLineCosts(view: EditorView, cost: StageCost | null | undefined) {
  if (!installed.has(view)) {
    if (!cost) return;
    installed.add(view);
    view.dispatch({ effects: StateEffect.appendConfig.of(costGutter) });
  }
  view.dispatch({ effects: setCosts.of(cost ?? null) });
}
