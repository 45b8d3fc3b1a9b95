"""``python -m server``: serve the playground with uvicorn (127.0.0.1:8000 unless configured)."""

from __future__ import annotations

import logging

import uvicorn

from .main import create_app
from .settings import Settings


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    # One uvicorn process: the sandbox pool lives in it, and the pool is where the parallelism is.
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level="info",
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
