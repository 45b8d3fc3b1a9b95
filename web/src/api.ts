// The HTTP API: runs, snippets, examples. `?mock=NAME` serves web/fixtures/NAME.json instead of
// calling the server (development only; the production page always talks to the real API).

import type { RunReport, RunRequest, TransformInfo } from "./report";
import { normalizeReport } from "./report";
import type { ExpectedLeaf } from "./expected";
import type { Session } from "./session";
import { toRequest } from "./session";

export class ApiError extends Error {
  /** A run report sent with an error status (e.g. 413 for code over the size limit). */
  report: RunReport | null = null;

  constructor(message: string, readonly status = 0, readonly kind: "http" | "network" | "abort" = "http") {
    super(message);
  }
}

export interface Example {
  id: string;
  title: string;
  description: string;
  code: string;
  function?: string | null;
  stack?: unknown[];
  args?: string[];
  topic?: string;
  expected?: ExpectedLeaf[];
  devices?: number;
}

interface Fixture { request: RunRequest; report: RunReport }

const fixtures = import.meta.glob<Fixture>("../fixtures/*.json", { import: "default" });

export function mockName(): string | null {
  return new URLSearchParams(location.search).get("mock");
}

export async function loadFixture(name: string): Promise<Fixture | null> {
  const load = fixtures[`../fixtures/${name}.json`];
  return load ? await load() : null;
}

async function detail(res: Response, err: { report: RunReport | null }): Promise<string> {
  try {
    const body = await res.json();
    if (body && typeof body === "object" && "engine_version" in body && "ok" in body) {
      err.report = normalizeReport(body);
      return err.report.error?.message ?? "";
    }
    const d = body?.detail ?? body?.message ?? body?.error;
    if (typeof d === "string") return d;
    if (Array.isArray(d)) return d.map((x) => x?.msg ?? JSON.stringify(x)).join("; ");
    return d ? JSON.stringify(d) : res.statusText;
  } catch {
    return res.statusText;
  }
}

/** What a cancelled run leaves: no report, so say why and how to get one. */
const CANCELLED = "You stopped the run (Cancel or Esc) before it finished, so there is no result. Press Run (Ctrl+Enter) to run it again; " +
  "a run that never ends is stopped at the time limit, and its report names the line it was on.";

function httpError(status: number, text: string): ApiError {
  const prefix: Record<number, string> = {
    413: "The code is too large for the server's limit",
    422: "The server rejected the request",
    429: "The server is busy (too many runs at once); try again in a moment",
    503: "The server is busy; try again in a moment",
    504: "The run took too long and was stopped",
  };
  const head = prefix[status] ?? `Server error ${status}`;
  return new ApiError(text && text !== head ? `${head}: ${text}` : head, status);
}

async function request(url: string, init: RequestInit = {}): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if ((e as Error).name === "AbortError") throw new ApiError(CANCELLED, 0, "abort");
    throw new ApiError("Cannot reach the server. Is it running?", 0, "network");
  }
  if (!res.ok) {
    const carrier = { report: null as RunReport | null };
    const err = httpError(res.status, await detail(res, carrier));
    err.report = carrier.report;
    throw err;
  }
  return res;
}

export async function run(req: RunRequest, signal: AbortSignal): Promise<RunReport> {
  const mock = mockName();
  if (mock) {
    const fx = await loadFixture(mock);
    if (!fx) throw new ApiError(`No fixture named ${mock}`);
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, 350);
      signal.addEventListener("abort", () => { clearTimeout(t); reject(new ApiError(CANCELLED, 0, "abort")); });
    });
    return normalizeReport(fx.report);
  }
  let res: Response;
  try {
    res = await request("/api/run", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(req),
      signal,
    });
  } catch (e) {
    // Over the code-size limit the server answers 413 with a run report that explains it.
    if (e instanceof ApiError && e.report) return e.report;
    throw e;
  }
  try {
    return normalizeReport(await res.json());
  } catch (e) {
    if ((e as Error).name === "AbortError") throw new ApiError(CANCELLED, 0, "abort");
    throw new ApiError("The server sent a report the page cannot read");
  }
}

/** Store the session's run request (immutable, content-addressed); returns the snippet id. */
export async function saveSnippet(s: Session): Promise<string> {
  const res = await request("/api/snippets", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ request: toRequest(s) }),
  });
  const body = await res.json();
  const id = body?.id ?? body?.snippet?.id;
  if (typeof id !== "string" && typeof id !== "number") throw new ApiError("The server did not return a snippet id");
  return String(id);
}

/** A stored snippet: `{id, title, request: RunRequest, engine_version, device_count, created_at}`. */
export async function loadSnippet(id: string): Promise<Record<string, unknown>> {
  const res = await request(`/api/snippets/${encodeURIComponent(id)}`);
  return await res.json();
}

/** The transformations a stack can hold and their options: the server's one registry. */
export async function listTransforms(): Promise<TransformInfo[]> {
  const res = await request("/api/transforms");
  return await res.json();
}

export async function listExamples(): Promise<Example[]> {
  const res = await request("/api/examples");
  const body = await res.json();
  const items: any[] = Array.isArray(body) ? body : body?.examples ?? [];
  return items.map((e, i) => ({
    ...e,
    id: String(e.id ?? e.slug ?? i),
    title: e.title ?? e.name ?? `Example ${i + 1}`,
    description: e.description ?? "",
    code: e.code ?? "",
  }));
}
