"""The zygote's compiler warm-up (``server.warmup.warm_compiler``): it compiles its programs for
real, in a scratch cache it removes, writing nothing into the caches the process is configured
with, and the kernels it compiled stay loaded in the process (its forks reuse them)."""

import glob
import os
import tempfile

import numpy as np

from conftest import numba_backend
from server.warmup import _compiler_programs, warm_compiler

numba_backend()


def test_warm_compiler_compiles_in_a_scratch_cache_it_removes(tmp_path, monkeypatch):
    from engine import jit_runtime

    engine_dir, numba_dir = tmp_path / "engine", tmp_path / "numba"
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(engine_dir))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_dir))
    scratch = os.path.join(tempfile.gettempdir(), "jaxplay-warm-compiler-*")
    before = set(glob.glob(scratch))

    assert warm_compiler() == ["miss", "miss"]  # compiled, not loaded from any cache

    assert os.environ["ENGINE_CACHE_DIR"] == str(engine_dir)
    assert os.environ["NUMBA_CACHE_DIR"] == str(numba_dir)
    assert not engine_dir.exists() and not numba_dir.exists()
    assert set(glob.glob(scratch)) == before
    # The same programs, traced again, run the kernels the warm-up left loaded: no file needed.
    for name, closed, args in _compiler_programs():
        exe = jit_runtime.executable(closed, name)
        assert exe.cache == "hit"
        (out,) = exe(*args)
        assert out.dtype == np.float32 and np.isfinite(out)
    assert not engine_dir.exists() and not numba_dir.exists()
