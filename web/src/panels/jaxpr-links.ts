// Which line of a stage's jaxpr text prints which equation of a sub-jaxpr (scan and while bodies,
// cond branches, pjit, custom_jvp): the graph and the text select each other's nested equations.
// Sub-jaxprs print inline under their equation, or once at the top (`let name = { lambda ... } in`)
// when named in a param (`jaxpr=name`); either way they print in the order of the graph's nested
// nodes, depth first, so the two lists match one to one when their lengths agree.

import type { IRNode } from "../report";

/** An equation line: its binders (`b:f32[]`, `_:f32[]`, several), `=`, the primitive. */
const EQN = /^\s+(?:[\w]+:[^\s=]+\s+)+=\s+[a-z_]/;
/** A one-line sub-jaxpr holds one equation: `{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }`. */
const ONE_LINE = /\{ lambda [^{}]*\. let \S+:\S+ .*= [a-z_].* in \(/;
/** Params that name a sub-jaxpr printed at the top: `jaxpr=loss`, `body_jaxpr=jaxpr1`. */
const REF = /\b\w*jaxpr\w*=([A-Za-z_]\w*)/g;
/** A name on its own line, inside `branches=(` … `)`. */
const BARE = /^\s+([A-Za-z_]\w*)\s*$/;

/** The nested nodes of ``n``, depth first, in print order. */
function nested(n: IRNode): IRNode[] {
  return n.subgraphs.flatMap((g) => g.nodes.flatMap((m) => [m, ...nested(m)]));
}

/**
 * For each text line that prints a nested equation, the nodes it prints (more than one when a
 * sub-jaxpr printed at the top is used twice).
 * @param eqnAt top-level equation lines: line index → index in ``nodes``
 * @param ownerOf the equation (or `let` line) each deeper line belongs to, -1 for none
 */
export function nestedLinks(lines: string[], eqnAt: Map<number, number>, ownerOf: number[], nodes: IRNode[]): Map<number, IRNode[]> {
  // Sub-jaxprs printed at the top: name → their lines after the `let name = {` line.
  const shared = new Map<string, number[]>();
  lines.forEach((l, i) => {
    const m = /^let (\S+) = \{ lambda /.exec(l);
    if (m) shared.set(m[1], lines.map((_, j) => j).filter((j) => ownerOf[j] === i));
  });
  const owned = new Map<number, number[]>();
  ownerOf.forEach((o, j) => { if (o >= 0) (owned.get(o) ?? owned.set(o, []).get(o)!).push(j); });
  // An equation's lines with each named sub-jaxpr's lines spliced in where it is named.
  const expand = (idx: number[], depth: number): number[] => idx.flatMap((j) => {
    if (depth > 20) return [j];
    const names = [...lines[j].matchAll(REF)].map((m) => m[1]);
    const bare = BARE.exec(lines[j]);
    if (bare) names.push(bare[1]);
    return [j, ...names.filter((n) => shared.has(n)).flatMap((n) => expand(shared.get(n)!, depth + 1))];
  });
  const links = new Map<number, IRNode[]>();
  for (const [i, k] of eqnAt) {
    const inner = nested(nodes[k]);
    if (!inner.length) continue;
    const eqnLines = expand([i, ...(owned.get(i) ?? [])], 0).slice(1)
      .filter((j) => EQN.test(lines[j]) || ONE_LINE.test(lines[j]));
    if (eqnLines.length !== inner.length) continue;
    eqnLines.forEach((j, x) => (links.get(j) ?? links.set(j, []).get(j)!).push(inner[x]));
  }
  return links;
}
