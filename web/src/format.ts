import type { ArraySummary, NumberLike } from "./report";
import { num } from "./report";

const SHORT_DTYPE: Record<string, string> = {
  float32: "f32", float64: "f64", float16: "f16", bfloat16: "bf16",
  int32: "i32", int64: "i64", int8: "i8", int16: "i16", uint8: "u8", uint32: "u32",
  bool: "bool", complex64: "c64", float0: "float0",
};

export function shortDtype(dtype: string): string {
  return SHORT_DTYPE[dtype] ?? dtype;
}

/** `f32[3,4]`, the way jaxprs spell types. */
export function typeStr(dtype: string, shape: number[]): string {
  return `${shortDtype(dtype)}[${shape.join(",")}]`;
}

export function fmtNum(v: NumberLike | undefined, digits = 4): string {
  const x = num(v);
  if (x === null) return "—";
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e9) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(digits - 1);
  return String(Number(x.toPrecision(digits + 1)));
}

/** Between a number and its unit: a no-break space, so a narrow box never puts "ms" on a line of
 *  its own (a device card's "exchange 0.54 ms" did). */
export const UNIT_SEP = "\u00a0";

export function fmtMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)}${UNIT_SEP}s`;
  if (ms >= 10) return `${ms.toFixed(1)}${UNIT_SEP}ms`;
  if (ms >= 0.1) return `${ms.toFixed(2)}${UNIT_SEP}ms`;
  return `${(ms * 1000).toFixed(0)}${UNIT_SEP}µs`;
}

/** Labels for an axis of times in ms at nice steps (niceTicks'): one unit for the whole axis (µs
 *  under 1 ms, s from 1 s), as many decimals as the step needs and no trailing zeros, so the axis
 *  reads "0, 200 ms, 400 ms" or "0, 0.5 s, 1 s, 1.5 s", never "200.0 ms" beside "1.00 s". */
export function fmtTimeTicks(ticks: number[]): string[] {
  const top = Math.max(0, ...ticks.map(Math.abs));
  const [scale, unit] = top >= 1000 ? [1e-3, "s"] : top < 1 ? [1e3, "µs"] : [1, "ms"];
  const step = ticks.length > 1 ? Math.abs(ticks[1] - ticks[0]) * scale : top * scale || 1;
  const decimals = Math.min(6, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  return ticks.map((t) => {
    if (t === 0) return "0";
    const text = (t * scale).toFixed(decimals).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "");
    return `${text}${UNIT_SEP}${unit}`;
  });
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n}${UNIT_SEP}B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)}${UNIT_SEP}KiB`;
  return `${(n / 1024 / 1024).toFixed(1)}${UNIT_SEP}MiB`;
}

/** Flatten nested lists of numbers (or NaN strings) to numbers. */
export function flatten(data: unknown): number[] {
  const out: number[] = [];
  const walk = (d: unknown) => {
    if (Array.isArray(d)) d.forEach(walk);
    else if (typeof d === "boolean") out.push(d ? 1 : 0);
    else out.push(num(d as NumberLike) ?? NaN);
  };
  walk(data);
  return out;
}

export function size(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** A one-line preview of an array's values: `[0.1, 0.2, …]`. */
export function preview(a: ArraySummary, maxItems = 6): string {
  if (a.data === null || a.data === undefined) return a.truncated ? "(too large to preview)" : "";
  if (a.shape.length === 0) return fmtNum(a.data as NumberLike);
  const flat = flatten(a.data);
  const items = flat.slice(0, maxItems).map((x) => fmtNum(x, 3));
  return `[${items.join(", ")}${flat.length > maxItems ? ", …" : ""}]`;
}
