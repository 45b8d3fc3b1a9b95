// Loaded by index.html before the app (a file, not an inline script: the CSP allows no inline script).
// 1. Set the theme before first paint to avoid a flash.
try {
  var t = localStorage.getItem("jaxplay.theme");
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
} catch (e) {}
// 2. When the server runs code without isolating users from each other (unsafe-single-user), say so
//    on every page load: /api/health carries the warning.
fetch("/api/health")
  .then(function (r) { return r.ok ? r.json() : null; })
  .then(function (health) {
    if (!health || !health.warning) return;
    // One line with the gist (the warning's part before its first colon); the whole text on demand
    // (a <details>), so on a phone the banner does not take a quarter of the window.
    var show = function () {
      var bar = document.createElement("div");
      bar.setAttribute("role", "alert");
      bar.setAttribute("data-testid", "sandbox-warning");
      bar.style.cssText =
        "position:sticky;top:0;z-index:1000;padding:4px 12px;background:#b91c1c;color:#fff;font:13px/1.4 system-ui,sans-serif";
      var more = document.createElement("details");
      var gist = document.createElement("summary");
      var colon = health.warning.indexOf(":");
      gist.textContent = "Warning: " + (colon > 0 ? health.warning.slice(0, colon) : health.warning);
      gist.style.cssText = "cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis";
      var full = document.createElement("div");
      full.setAttribute("data-testid", "sandbox-warning-details");
      full.textContent = health.warning;
      full.style.cssText = "padding:2px 0 2px 14px";
      more.appendChild(gist);
      more.appendChild(full);
      bar.appendChild(more);
      document.body.insertBefore(bar, document.body.firstChild);
    };
    if (document.body) show(); else document.addEventListener("DOMContentLoaded", show);
  })
  .catch(function () {});
