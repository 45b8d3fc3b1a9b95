import { defineConfig } from "vite";

// `npm run dev` proxies the API to a running server (JAXPLAY_PORT, default 8000) so the page can be
// developed with hot reload against the real engine; `?mock=NAME` uses web/fixtures instead.
const apiPort = process.env.JAXPLAY_PORT ?? "8000";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
  },
  // The layout worker loads ELK with a dynamic import (only small graphs need it).
  worker: { format: "es" },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": `http://127.0.0.1:${apiPort}` },
  },
});
