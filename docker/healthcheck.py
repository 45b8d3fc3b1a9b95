"""HEALTHCHECK: exit 0 when /api/health answers 200 with status "ok" (stdlib only)."""

import json
import os
import sys
import urllib.request

host = os.environ.get("JAXPLAY_HOST", "127.0.0.1")
host = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
url = f"http://{host}:{os.environ.get('JAXPLAY_PORT', '8000')}/api/health"
try:
    with urllib.request.urlopen(url, timeout=4) as r:
        status = json.load(r).get("status")
except Exception as e:  # noqa: BLE001
    sys.exit(f"unhealthy: {e}")
sys.exit(0 if status == "ok" else f"unhealthy: status {status}")
