import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SEED_PROGRAMS = SHARED / "seed-programs"
os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")

import importlib  # noqa: E402

import pytest  # noqa: E402

# A broken setup fails, it does not skip: tests that need numba import it for real, and a missing
# or broken numba is an error, unless this variable says the run is numba-less on purpose (the
# engine itself falls back to its interpreter; tests/test_without_numba.py checks that path).
WITHOUT_NUMBA = os.environ.get("JAXPLAY_TESTS_WITHOUT_NUMBA") == "1"


def numba_backend():
    """``engine.backends.numba_jit`` (an ImportError fails the caller), or a skip under
    JAXPLAY_TESTS_WITHOUT_NUMBA=1."""
    if WITHOUT_NUMBA:
        pytest.skip("JAXPLAY_TESTS_WITHOUT_NUMBA=1: numba-less run", allow_module_level=True)
    return importlib.import_module("engine.backends.numba_jit")
