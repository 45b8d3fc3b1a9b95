"""The IR graph at real sizes, measured in headless Chromium against a real server.

    python -m bench ir_page

For grad of a deep tanh MLP (about 11 equations per layer), it times how long the IR panel takes
from the click on the stage tab to a drawn graph (worker layout included), in the default
grouped view and with every group expanded, and the longest the page's main thread went without
running a 16 ms heartbeat meanwhile (a long task blocks input for that long), until the text view
is complete too. A Chromium trace of the same window gives the longest main-thread task and the
CPU time the thread spent in it (on a loaded machine a task's wall time includes waiting for a
core; its CPU time is the page's own work).
The e2e test ``e2e/test_ir_views.py`` uses the same helpers with generous bounds.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"

MLP_CODE = """import jax
import jax.numpy as jnp

def mlp(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.sum(h ** 2)

def make(layers):
    return [(jnp.ones((4, 4)) * 0.1, jnp.zeros(4)) for _ in range(layers)]

x = jnp.ones((2, 4))
"""

# The page's MLP example with nested control flow (a scan over an MLP, a while_loop, a cond): its
# jit lowers nested programs, each a step of its own (e2e/test_ir_nested.py, the kernel-load report).
NESTED_MLP_CODE = """import jax
import jax.numpy as jnp
from jax import lax

def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x

def loss(params, x):
    def body(c, xi):
        return c + jnp.sum(mlp(params, xi) ** 2), None
    s, _ = lax.scan(body, 0.0, x)
    n = lax.while_loop(lambda i: i < 3, lambda i: i + 1, 0)
    return lax.cond(s > 0, lambda: s * n, lambda: -s)

params = [(jnp.ones((3, 4)) * 0.1, jnp.zeros(4)), (jnp.ones((4, 2)) * 0.1, jnp.zeros(2))]
"""

# Installs a heartbeat and a longtask observer; `window.__irBench.stop()` returns the worst gap.
HEARTBEAT_JS = """() => {
  const s = { maxGap: 0, last: performance.now(), longest: 0, timer: 0 };
  s.timer = setInterval(() => {
    const now = performance.now();
    s.maxGap = Math.max(s.maxGap, now - s.last);
    s.last = now;
  }, 16);
  try {
    s.obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) s.longest = Math.max(s.longest, e.duration); });
    s.obs.observe({ entryTypes: ["longtask"] });
  } catch (e) {}
  s.stop = () => { clearInterval(s.timer); s.obs?.disconnect(); return { maxGap: s.maxGap, longest: s.longest }; };
  window.__irBench = s;
}"""


def layers_for(equations: int) -> int:
    return max(1, round(equations / 11))


def open_mlp(page, layers: int, fragment) -> None:
    """Load the MLP session on the IR panel and wait for its run."""
    page.goto(
        "/" + fragment(MLP_CODE, "mlp", [{"name": "grad", "options": {}}], [f"make({layers})", "x"], "ir")
    )
    page.wait_for_function("Number(document.getElementById('app').dataset.runs || 0) >= 1", timeout=120_000)


def wait_graph(page, timeout: float = 120_000) -> dict:
    page.wait_for_function(
        "() => { const g = document.querySelector('[data-testid=ir-graph]'); return g && g.dataset.state === 'ready'; }",
        timeout=timeout,
    )
    return page.eval_on_selector(
        "[data-testid=ir-graph]", "g => ({nodes: +g.dataset.nodes, ms: +g.dataset.ms})"
    )


def time_render(page, action, trace: bool = False) -> dict:
    """Run ``action`` (which starts a graph render) and time it to a drawn graph, with the worst stall
    until the text view is complete too. With ``trace``, a Chromium trace of the same window also
    gives the longest main-thread task and the CPU time the thread spent in it: on a loaded
    machine the wall-clock stall includes time the renderer waited for a core, its CPU time not."""
    cdp = None
    if trace:
        cdp = page.context.new_cdp_session(page)
        events: list = []
        done: list = []
        cdp.on("Tracing.dataCollected", lambda e: events.extend(e["value"]))
        cdp.on("Tracing.tracingComplete", lambda e: done.append(1))
        cdp.send(
            "Tracing.start",
            {
                "categories": "__metadata,devtools.timeline,disabled-by-default-devtools.timeline",
                "transferMode": "ReportEvents",
            },
        )
    page.evaluate(HEARTBEAT_JS)
    page.evaluate(
        "() => { const g = document.querySelector('[data-testid=ir-graph]'); if (g) g.dataset.state = 'stale'; }"
    )
    t0 = time.perf_counter()
    action()
    info = wait_graph(page)
    wall = (time.perf_counter() - t0) * 1000
    page.wait_for_function(
        "() => { const t = document.querySelector('[data-testid=ir-text]'); return !t || t.dataset.complete === 'true'; }",
        timeout=60_000,
    )
    page.wait_for_timeout(250)  # trailing work (the minimap, the last frame)
    stalls = page.evaluate("() => window.__irBench.stop()")
    out = {"wall_ms": wall, **info, **stalls}
    if cdp is not None:
        cdp.send("Tracing.end")
        while not done:
            page.wait_for_timeout(50)
        cdp.detach()
        out.update(longest_task(events))
    return out


def longest_task(events: list) -> dict:
    """The renderer main thread's longest task in a trace: wall ms and the thread's CPU ms in it."""
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    tasks = [
        e
        for e in events
        if e.get("name") == "RunTask" and e.get("ph") == "X" and (e["pid"], e["tid"]) in main
    ]
    if not tasks:
        return {"task_ms": 0.0, "task_cpu_ms": 0.0, "max_task_cpu_ms": 0.0}
    worst = max(tasks, key=lambda e: e.get("dur", 0))
    return {
        "task_ms": worst.get("dur", 0) / 1000,
        "task_cpu_ms": worst.get("tdur", 0) / 1000,
        "max_task_cpu_ms": max(e.get("tdur", 0) for e in tasks) / 1000,
    }


def equations(page) -> int:
    text = page.locator("[data-testid=stage-equations]").inner_text()
    return int(text.split()[0])


def measure(ctx, target: int, fragment) -> list[tuple[int, str, dict]]:
    """Both views of grad(mlp) with about ``target`` equations, in a fresh page."""
    page = ctx.new_page()
    try:
        open_mlp(page, layers_for(target), fragment)
        wait_graph(page)
        n = equations(page)
        tabs = page.get_by_test_id("stage-tab")
        grouped = time_render(page, lambda: tabs.nth(tabs.count() - 1).click(), trace=True)
        expanded = time_render(page, lambda: page.get_by_test_id("graph-expand-all").click(), trace=True)
        return [(n, "grouped", grouped), (n, "all expanded", expanded)]
    finally:
        page.close()


DEFAULT_CODE = """import jax
import jax.numpy as jnp

def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)
"""


def first_graph(ctx, fragment, pages: int = 3) -> list[dict]:
    """A session's first graph: the page's default grad(tanh) opened on the IR panel in a fresh
    page (a shared link's case), from load to a drawn graph, and the worker's layout time in it
    (the first layout of a page pays for loading ELK unless the page loaded it while idle)."""
    out = []
    for _ in range(pages):
        page = ctx.new_page()
        try:
            t0 = time.perf_counter()
            page.goto("/" + fragment(DEFAULT_CODE, "tanh", [{"name": "grad", "options": {}}], ["1.0"], "ir"))
            info = wait_graph(page)
            info["load_ms"] = (time.perf_counter() - t0) * 1000
            info["layout_ms"] = page.eval_on_selector(
                "[data-testid=ir-graph]", "g => +(g.dataset.layoutMs ?? NaN)"
            )
            out.append(info)
        finally:
            page.close()
    return out


def main(argv=None) -> int:
    from playwright.sync_api import sync_playwright

    from e2e.conftest import CHROMIUM_ARGS, DIST_INDEX, session_fragment
    from server.launch import ServerProcess

    if not DIST_INDEX.exists():
        print("web/dist is not built: skipped")
        return 0
    tmp = tempfile.mkdtemp(prefix="jaxplay-bench-")
    settings = {
        "database_path": os.path.join(tmp, "s.sqlite"),
        "wall_seconds": "60",
        "cpu_seconds": "60",
        "web_dist": str(DIST_INDEX.parent),
    }
    rows = []
    with ServerProcess(
        settings=settings, log_path=os.path.join(tmp, "server.log"), startup_timeout=180
    ) as srv:
        with sync_playwright() as p:
            kw = {"headless": True, "args": CHROMIUM_ARGS}
            if os.path.exists(CHROMIUM):
                kw["executable_path"] = CHROMIUM
            browser = p.chromium.launch(**kw)
            # bypass_csp: wait_for_function evaluates strings, which the page's CSP forbids
            ctx = browser.new_context(
                viewport={"width": 1440, "height": 900}, base_url=srv.base_url, bypass_csp=True
            )
            first = first_graph(ctx, session_fragment)
            for target in (250, 1000):
                rows += measure(ctx, target, session_fragment)
            browser.close()
    print(
        f"{'equations':>9} {'view':<13} {'nodes':>6} {'to drawn (ms)':>14} {'worst stall (ms)':>17}"
        f" {'longest task (ms)':>18} {'its CPU (ms)':>13} {'most CPU in a task (ms)':>24}"
    )
    for n, view, r in rows:
        print(
            f"{n:>9} {view:<13} {r['nodes']:>6} {r['ms']:>14.0f} {r['maxGap']:>17.0f}"
            f" {r['task_ms']:>18.0f} {r['task_cpu_ms']:>13.0f} {r['max_task_cpu_ms']:>24.0f}"
        )
    med = {k: statistics.median(r[k] for r in first) for k in ("nodes", "ms", "layout_ms", "load_ms")}
    print(
        f"first graph of a session (default grad(tanh), {med['nodes']:.0f} nodes, fresh page): drawn in"
        f" {med['ms']:.0f} ms after its run, {med['layout_ms']:.0f} ms of it the layout; page load to graph"
        f" {med['load_ms']:.0f} ms (medians of {len(first)} pages)"
    )
    print(f"(load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
