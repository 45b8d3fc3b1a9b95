"""``python -m server``: serve the playground with uvicorn (127.0.0.1:8000 unless configured).

SIGTERM drains: the replica reports not ready, refuses new runs with 503 + Retry-After, lets the
runs it has finish (up to ``drain_seconds``), then shuts down. A second signal exits at once.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from types import FrameType
from typing import Any, Optional

import uvicorn
from pydantic import ValidationError

from .connection_guard import guarded_protocol
from .main import create_app
from .settings import Settings, settings_problem

log = logging.getLogger("jaxplay.server")


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, drain_seconds: float):
        super().__init__(config)
        self.drain_seconds = drain_seconds
        self._draining = False

    def handle_exit(self, sig: int, frame: Optional[FrameType]) -> None:
        app: Any = self.config.app  # the FastAPI app (uvicorn types it as any ASGI app)
        if self._draining or self.should_exit:
            return super().handle_exit(sig, frame)
        self._draining = True
        app.state.draining = True
        log.info("draining: %d runs in flight; refusing new ones", app.state.fair.in_flight)
        threading.Thread(target=self._exit_when_idle, args=(sig, frame), daemon=True).start()

    def _exit_when_idle(self, sig: int, frame: Optional[FrameType]) -> None:
        deadline = time.monotonic() + self.drain_seconds
        app: Any = self.config.app
        while app.state.fair.in_flight and time.monotonic() < deadline:
            time.sleep(0.05)
        log.info("drained; shutting down")
        super().handle_exit(sig, frame)


def parse_args(argv: list[str]) -> argparse.Namespace:
    """``--host``/``--port`` override ``JAXPLAY_HOST``/``JAXPLAY_PORT``; anything else is refused
    (silently ignoring ``--port 9000`` would serve on 8000 and leave the user guessing)."""
    settings_help = "\n".join(
        f"  {Settings.model_config.get('env_prefix', '')}{name.upper():<28} {field.description or ''}"
        for name, field in Settings.model_fields.items()
    )
    parser = argparse.ArgumentParser(
        prog="python -m server",
        description="Serve the playground. Every setting is an environment variable:",
        epilog=settings_help,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", help="interface to bind (JAXPLAY_HOST)")
    parser.add_argument("--port", type=int, help="TCP port (JAXPLAY_PORT)")
    return parser.parse_args(argv)


def settings_from(argv: list[str]) -> Settings:
    """The settings: the environment's, with ``--host``/``--port`` over it; exits naming a bad one."""
    args = parse_args(argv)
    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    try:
        return Settings(**overrides)
    except ValidationError as e:
        sys.exit(f"jaxplay: {settings_problem(e)}")


def main(argv: Optional[list[str]] = None) -> None:
    settings = settings_from(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # One uvicorn process: the sandbox pool lives in it, and the pool is where the parallelism is.
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        http=guarded_protocol(settings),  # h11 with header/body deadlines and a per-client connection cap
        log_level="info",
        timeout_graceful_shutdown=5,
    )
    DrainingServer(config, settings.drain_seconds).run()


if __name__ == "__main__":
    main()
