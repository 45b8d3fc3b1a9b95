import os
import pathlib
import tempfile

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


def _cpu_flags() -> set[str]:
    try:
        text = pathlib.Path("/proc/cpuinfo").read_text()
    except OSError:
        return {"avx512f"}  # (unknown: taken as the recording kind)
    return set(
        next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    )


# JAX's bits in tests/jax_reference were recorded on an AVX-512 CPU. On one without it (an AVX2 EPYC,
# measured), JAX's own bits differ for a few programs (XLA's and OpenBLAS's kernels are the CPU's),
# and numpy's float64 functions are the C library's instead of AVX-512 SVML's, so some of the
# engine's listed differences from JAX are not there.
RECORDING_CPU = "avx512f" in _cpu_flags()


def numba_backend():
    """``engine.backends.numba_jit`` (an ImportError fails the caller), or a skip under
    JAXPLAY_TESTS_WITHOUT_NUMBA=1."""
    if WITHOUT_NUMBA:
        pytest.skip("JAXPLAY_TESTS_WITHOUT_NUMBA=1: numba-less run", allow_module_level=True)
    return importlib.import_module("engine.backends.numba_jit")


@pytest.fixture(scope="module")
def test_kernel_cache():
    """The module's jit kernels in the tests' own cache directory, not the default
    ~/.cache/jaxplay-engine: concurrent server zygotes delete the kernel files they did not vouch
    for there, while this process loads them ("no locator available"). Use it with
    ``pytestmark = pytest.mark.usefixtures("test_kernel_cache")``."""
    mp = pytest.MonkeyPatch()
    mp.setenv("ENGINE_CACHE_DIR", os.path.join(tempfile.gettempdir(), "jaxplay-test-kernels"))
    yield
    mp.undo()


@pytest.fixture
def private_kernel_cache(tmp_path, monkeypatch):
    """Each test's jit kernels in a cache directory of its own (nothing carries over between
    tests)."""
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path / "kernels"))


# page -> (matched, scored, skipped) cells of JAX's documentation (tests/test_jax_docs.py)
DOC_SCORES: dict[str, tuple[int, int, int]] = {}


# module -> (docstrings passing, docstrings scored, examples matched, examples scored) of JAX's API
# docstring examples (tests/test_jax_docstrings.py)
DOCSTRING_SCORES: dict[str, tuple[int, int, int, int]] = {}


def _docstring_summary(write):
    write("JAX docstring examples matched on the engine (docstrings passing / scored, examples):")
    for module, (fo, f, eo, e) in sorted(DOCSTRING_SCORES.items()):
        write(f"  {module:28s} {fo:3d} / {f:3d}   examples {eo:4d} / {e:4d}")
    tot = [sum(v[i] for v in DOCSTRING_SCORES.values()) for i in range(4)]
    write(
        f"  {'total':28s} {tot[0]:3d} / {tot[1]:3d}   examples {tot[2]:4d} / {tot[3]:4d}"
        f"   ({100 * tot[2] / max(tot[3], 1):.1f}%)"
    )


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    if DOCSTRING_SCORES:
        _docstring_summary(write)
    if not DOC_SCORES:
        return
    write("JAX documentation cells matched on the engine (matched / scored, skipped):")
    for page, (matched, scored, skipped) in sorted(DOC_SCORES.items()):
        write(f"  {page:28s} {matched:3d} / {scored:3d}   ({skipped} skipped)")
    m, s = sum(v[0] for v in DOC_SCORES.values()), sum(v[1] for v in DOC_SCORES.values())
    write(f"  {'total':28s} {m:3d} / {s:3d}   ({100 * m / max(s, 1):.1f}%)")


@pytest.fixture(scope="module")
def jax_on_engine():
    """``import jax`` resolves to the engine (as under ``python -m engine run``) for a module's tests."""
    from engine import compat

    compat.install()
    import jax

    yield jax
    compat.uninstall()
