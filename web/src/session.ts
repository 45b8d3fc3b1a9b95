// The session: everything a user set up (code, target function, stack, arguments, open panel).
// It is what Share stores and what `/s/<id>` and the URL fragment restore.

import type { RunRequest, TransformInfo, TransformName, TransformSpec } from "./report";

export type PanelName = "output" | "ir" | "timings" | "devices" | "debugger";
export const PANELS: PanelName[] = ["output", "ir", "timings", "devices", "debugger"];

export interface Session {
  code: string;
  function: string | null;
  stack: TransformSpec[];
  args: string[];
  panel: PanelName;
  /** The IR stage open (by name), when one was picked. */
  stage?: string | null;
  /** "stablehlo" when jit stages show their lowered StableHLO instead of the jaxpr. */
  ir?: "stablehlo" | null;
  /** How the IR panel looks when not as it opens (graph and text, no heat, diffed with the stage
   *  before): its view, cost heat and what the stage is diffed with ("none" or a stage index). */
  irView?: "graph" | "text" | null;
  heat?: "flops" | "bytes" | null;
  diff?: string | null;
  /** The transformed call picked in the call picker (its id), when not the one a run opens. */
  call?: number | null;
}

/** The IR panel's look, from any of a session's spellings (fragment keys included); defaults are null. */
function irLook(o: any): Pick<Session, "irView" | "heat" | "diff"> {
  const view = o.irView ?? o.v, heat = o.heat ?? o.h, diff = o.diff ?? o.d;
  return {
    irView: view === "graph" || view === "text" ? view : null,
    heat: heat === "flops" || heat === "bytes" ? heat : null,
    diff: typeof diff === "string" && /^(none|\d{1,3})$/.test(diff) ? diff : null,
  };
}

// The transformations, their options (in display order) and the placeholders of the option
// inputs come from the server's registry (`GET /api/transforms`, engine/inspect/transforms.py):
// `setTransforms` fills these in before the page first renders.
export const TRANSFORMS: TransformName[] = [];
export const TRANSFORM_OPTIONS = {} as Record<TransformName, string[]>;
export const OPTION_HINTS: Record<string, string> = {};
/** A line calling one of them (aliases such as `jacobian` included): `jax.vmap(`. */
let transformCall = /^(?!)/;

export function setTransforms(list: TransformInfo[]): void {
  TRANSFORMS.splice(0, TRANSFORMS.length, ...list.map((t) => t.name));
  for (const t of list) {
    TRANSFORM_OPTIONS[t.name] = t.options.map((o) => o.name);
    for (const o of t.options) OPTION_HINTS[o.name] = o.hint;
  }
  const names = list.flatMap((t) => [t.name, ...(t.aliases ?? [])]);
  transformCall = new RegExp(`^(?:jax\\.)?(?:${names.join("|")})\\(\\s*`);
}

export const DEFAULT_CODE = `import jax
import jax.numpy as jnp

def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)

def loss(w, x):
    return jnp.sum(tanh(w * x) ** 2)
`;

export function defaultSession(): Session {
  return {
    code: DEFAULT_CODE,
    function: "tanh",
    stack: [{ name: "grad", options: {} }],
    args: ["1.0"],
    panel: "output",
  };
}

export interface FunctionDef {
  name: string;
  line: number;
  params: string[];
  /** For `name = jax.jit(g, ...)`: the function it wraps. */
  wraps?: string | null;
  /** The number of positional arguments is open (`*args`, or a wrapped function not found). */
  open?: boolean;
}

/** The functions defined in the code (`def name(a, b=1):` lines, nested ones too). */
export function parseFunctions(code: string): FunctionDef[] {
  const out: FunctionDef[] = [];
  const seen = new Set<string>();
  const lines = code.split("\n");
  lines.forEach((text, i) => {
    const m = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/.exec(text);
    if (!m || seen.has(m[1])) return;
    seen.add(m[1]);
    // Collect the parameter list, which may span lines.
    let sig = text.slice(m[0].length);
    for (let j = i + 1; !balanced(sig) && j < lines.length && j < i + 20; j++) sig += " " + lines[j];
    out.push({ name: m[1], line: i + 1, params: parseParams(sig), open: hasVarargs(sig) });
  });
  // Top-level names bound to a transformed function (`step = jax.pmap(update, ...)`) or a lambda:
  // they take the arguments of the function they wrap.
  const transform = transformCall;
  lines.forEach((text, i) => {
    const m = /^([A-Za-z_]\w*)\s*=\s*(.*)$/.exec(text);
    if (!m || seen.has(m[1])) return;
    let rhs = m[2];
    const lambda = /^lambda\b([^:]*):/.exec(rhs);
    let params: string[], wraps: string | null = null, open: boolean;
    if (lambda) {
      params = parseParams(lambda[1] + ")");
      open = hasVarargs(lambda[1] + ")");
    } else {
      if (!transform.test(rhs)) return;
      while (transform.test(rhs)) rhs = rhs.replace(transform, "");
      wraps = /^[A-Za-z_]\w*/.exec(rhs)?.[0] ?? null;
      const inner = out.find((f) => f.name === wraps);
      params = inner?.params ?? [];
      open = !inner || !!inner.open;
    }
    seen.add(m[1]);
    out.push({ name: m[1], line: i + 1, params, wraps, open });
  });
  return out;
}

function balanced(sig: string): boolean {
  let depth = 1;
  for (const ch of sig) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    if (depth === 0) return true;
  }
  return false;
}

function hasVarargs(sig: string): boolean {
  return /(^|[(,])\s*\*\s*[A-Za-z_]/.test(sig);
}

function parseParams(sig: string): string[] {
  const params: string[] = [];
  let depth = 1, cur = "";
  for (const ch of sig) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    if (depth === 0) break;
    if (ch === "," && depth === 1) { params.push(cur); cur = ""; } else cur += ch;
  }
  params.push(cur);
  return params
    .map((p) => p.split("=")[0].split(":")[0].trim())
    .filter((p) => p && p !== "/" && p !== "*" && !p.startsWith("*"));
}

/** The composed call as code: `jit(vmap(grad(loss), in_axes=(None, 0)))`. */
export function composedCall(fn: string, stack: TransformSpec[]): string {
  let expr = fn;
  for (const t of stack) {
    const opts = Object.entries(t.options)
      .filter(([, v]) => v.trim() !== "")
      .map(([k, v]) => `${k}=${v.trim()}`);
    expr = `${t.name}(${[expr, ...opts].join(", ")})`;
  }
  return expr;
}

export function toRequest(s: Session): RunRequest {
  const scriptMode = !s.function;
  return {
    code: s.code,
    function: scriptMode ? null : s.function,
    stack: scriptMode ? [] : s.stack.map((t) => ({ name: t.name, options: cleanOptions(t.options) })),
    args: scriptMode ? [] : trimArgs(s.args),
  };
}

function cleanOptions(o: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v.trim() !== "") out[k] = v.trim();
  return out;
}

function trimArgs(args: string[]): string[] {
  const out = args.map((a) => a.trim());
  while (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

// ---- URL fragment: small sessions live in `#s=<base64url(JSON)>` -------------------------------

export const FRAGMENT_LIMIT = 4000;

export function encodeFragment(s: Session): string | null {
  const json = JSON.stringify(compact(s));
  const bytes = new TextEncoder().encode(json);
  let bin = "";
  bytes.forEach((b) => (bin += String.fromCharCode(b)));
  const enc = btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return enc.length <= FRAGMENT_LIMIT ? `s=${enc}` : null;
}

export function decodeFragment(hash: string): Session | null {
  const m = /(?:^#?|&)s=([A-Za-z0-9_-]+)/.exec(hash);
  if (!m) return null;
  try {
    const b64 = m[1].replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "===".slice((b64.length + 3) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return fromAny(JSON.parse(new TextDecoder().decode(bytes)));
  } catch {
    return null;
  }
}

function compact(s: Session) {
  return {
    c: s.code, f: s.function, t: s.stack, a: s.args, p: s.panel, ...(s.stage ? { g: s.stage } : {}), ...(s.ir ? { i: s.ir } : {}),
    ...(s.irView ? { v: s.irView } : {}), ...(s.heat ? { h: s.heat } : {}), ...(s.diff ? { d: s.diff } : {}),
    ...(s.call != null ? { k: s.call } : {}),
  };
}

/** A session from a fragment, a stored snippet or a gallery example, tolerant of missing fields. */
export function fromAny(o: any): Session | null {
  if (!o || typeof o !== "object") return null;
  const code = o.code ?? o.c;
  if (typeof code !== "string") return null;
  const stack = (o.stack ?? o.t ?? []) as any[];
  const panel = o.panel ?? o.p ?? o.ui?.panel;
  const args = (o.args ?? o.a ?? []) as unknown[];
  return {
    code,
    function: (o.function ?? o.f ?? null) || null,
    stack: Array.isArray(stack)
      ? stack
          .filter((t) => t && TRANSFORMS.includes(t.name))
          .map((t) => ({ name: t.name as TransformName, options: stringOptions(t.options) }))
      : [],
    args: Array.isArray(args) ? args.map(String) : [],
    panel: PANELS.includes(panel) ? panel : "output",
    stage: typeof (o.stage ?? o.g) === "string" ? (o.stage ?? o.g) : null,
    ir: (o.ir ?? o.i) === "stablehlo" ? "stablehlo" : null,
    call: callId(o.call ?? o.k),
    ...irLook(o),
  };
}

/** A call id from a session or a fragment (a number or its digits), or null. */
function callId(v: unknown): number | null {
  const n = typeof v === "string" && /^\d{1,6}$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= 0 ? n : null;
}

function stringOptions(o: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (o && typeof o === "object") for (const [k, v] of Object.entries(o)) out[k] = String(v);
  return out;
}

/** The view part of a share link's fragment: the open panel, IR stage and form, the IR panel's
 *  look and the call picked, `p=ir&g=jit(f)&i=stablehlo&v=text&h=flops&d=0&k=1`. */
export function viewFragment(s: Session): string {
  return `p=${s.panel}${s.stage ? `&g=${encodeURIComponent(s.stage)}` : ""}${s.ir ? `&i=${s.ir}` : ""}` +
    `${s.irView ? `&v=${s.irView}` : ""}${s.heat ? `&h=${s.heat}` : ""}${s.diff ? `&d=${s.diff}` : ""}${s.call != null ? `&k=${s.call}` : ""}`;
}

export function parseViewFragment(hash: string): { panel: PanelName | null; stage: string | null; ir: "stablehlo" | null; call: number | null } & Pick<Session, "irView" | "heat" | "diff"> {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const panel = params.get("p") as PanelName | null;
  return {
    panel: panel && PANELS.includes(panel) ? panel : null, stage: params.get("g"), ir: params.get("i") === "stablehlo" ? "stablehlo" : null,
    call: callId(params.get("k")),
    ...irLook({ v: params.get("v"), h: params.get("h"), d: params.get("d") }),
  };
}
