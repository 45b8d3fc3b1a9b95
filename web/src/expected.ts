// Checking a result against an example's expected values (the gallery's `expected` leaves).

import { flatten } from "./format";
import type { ArraySummary, Value } from "./report";

export interface ExpectedLeaf {
  shape: number[];
  data: number[];
  rtol?: number;
  atol?: number;
}

export interface Check {
  status: "match" | "mismatch" | "unknown";
  detail: string;
}

export function resultLeaves(v: Value | null | undefined): ArraySummary[] {
  if (!v) return [];
  if (v.kind === "array") return [v as ArraySummary];
  if (v.kind === "checkify_error") return [];
  return (v.children ?? []).flatMap(resultLeaves);
}

export function checkExpected(result: Value | null | undefined, expected: ExpectedLeaf[]): Check {
  const leaves = resultLeaves(result);
  if (leaves.length !== expected.length) {
    return { status: "mismatch", detail: `expected ${expected.length} value${expected.length === 1 ? "" : "s"}, got ${leaves.length}` };
  }
  for (let i = 0; i < leaves.length; i++) {
    const got = leaves[i], want = expected[i];
    if (got.shape.join(",") !== want.shape.join(",")) {
      return { status: "mismatch", detail: `value ${i}: shape (${got.shape.join(", ")}) instead of (${want.shape.join(", ")})` };
    }
    if (got.data === null || got.data === undefined) return { status: "unknown", detail: `value ${i} is too large to compare here` };
    const g = flatten(got.data);
    const rtol = want.rtol ?? 2e-4, atol = want.atol ?? 2e-5;
    for (let k = 0; k < want.data.length; k++) {
      const a = g[k], b = want.data[k];
      const ok = (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= atol + rtol * Math.abs(b);
      if (!ok) return { status: "mismatch", detail: `value ${i}, element ${k}: ${a} instead of ${b}` };
    }
  }
  return { status: "match", detail: expected.length === 1 ? "1 value matches the reference" : `${expected.length} values match the reference` };
}
