"""Record the HLO texts (``as_text("hlo")``) JAX 0.10.2 prints for the fidelity corpus's programs,
the StableHLO corpus's and this corpus's own (``programs.py``) into ``expected.json``.

Run with JAX's venv (tests never need JAX; they read ``expected.json``):

    /work/main/.jax-venv/bin/python tests/hlo_text/record.py
"""

import os
import pathlib
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tests.hlo_text.compare import CORPUS  # noqa: E402

if __name__ == "__main__":
    CORPUS.record()
