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
    var show = function () {
      var bar = document.createElement("div");
      bar.setAttribute("role", "alert");
      bar.setAttribute("data-testid", "sandbox-warning");
      bar.textContent = "Warning: " + health.warning;
      bar.style.cssText =
        "position:sticky;top:0;z-index:1000;padding:6px 12px;background:#b91c1c;color:#fff;font:13px/1.4 system-ui,sans-serif";
      document.body.insertBefore(bar, document.body.firstChild);
    };
    if (document.body) show(); else document.addEventListener("DOMContentLoaded", show);
  })
  .catch(function () {});
