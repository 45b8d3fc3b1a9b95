#!/bin/sh
# Generate web/src/report.gen.ts (the page's report types) from the pydantic models in
# engine/inspect/schema.py, through their OpenAPI form and openapi-typescript (pinned in
# package-lock.json). With --check, fail if the committed file differs (make lint).
set -e
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -c "import json; from engine.inspect.schema import openapi_components as c; print(json.dumps(c(), indent=1, sort_keys=True))" >"$tmp/openapi.json"
(cd web && npx --no-install openapi-typescript "$tmp/openapi.json" -o "$tmp/report.gen.ts" >/dev/null 2>&1)
if [ "$1" = --check ]; then
  if ! cmp -s "$tmp/report.gen.ts" web/src/report.gen.ts; then
    echo "web/src/report.gen.ts is out of date with engine/inspect/schema.py: run 'make types'" >&2
    diff -u web/src/report.gen.ts "$tmp/report.gen.ts" | head -40 >&2
    exit 1
  fi
else
  cp "$tmp/report.gen.ts" web/src/report.gen.ts
fi
