"""Record what JAX 0.10.2 logs under ``jax_explain_cache_misses`` for the programs of
``snippets_cache_misses.py`` into ``cache_misses.json`` (run with JAX's venv);
``tests/test_cache_misses.py`` runs them on the engine and compares.

    /work/main/.jax-venv/bin/python tests/jax_reference/record_cache_misses.py

Each program runs as its own file; in the messages that file's directory is written ``<dir>`` and
a function's ``id=`` number ``<id>`` (they differ from run to run).
"""

import json
import logging
import os
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from snippets_cache_misses import CASES, source  # noqa: E402


class Messages(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append((record.name, record.getMessage()))


def normalize(message: str, directory: str) -> str:
    return re.sub(r"id=\d+", "id=<id>", message.replace(directory, "<dir>"))


def run_cases(logger_name: str) -> dict:
    """Each case's (logger, message) pairs that mention a tracing cache miss."""
    import jax

    jax.config.update("jax_explain_cache_misses", True)
    out = {}
    with tempfile.TemporaryDirectory() as d:
        for name in CASES:
            path = pathlib.Path(d) / f"{name}.py"
            path.write_text(source(name))
            handler = Messages()
            logger = logging.getLogger(logger_name)
            logger.addHandler(handler)
            try:
                exec(compile(source(name), str(path), "exec"), {"__name__": "__main__"})
            finally:
                logger.removeHandler(handler)
            out[name] = [[n, normalize(m, d)] for n, m in handler.records if "TRACING CACHE MISS" in m]
    return out


if __name__ == "__main__":
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"  # (a mesh of 2 CPU devices)
    recorded = run_cases("jax")
    (HERE / "cache_misses.json").write_text(json.dumps(recorded, indent=1) + "\n")
