"""``make test``'s pytest run, in two phases, so that CI's two cores both work (its budget is 60
minutes; one pytest process used one core).

1. The engine's own tests, which start no server, sandbox or browser and time nothing: files in
   chunks taken from one queue by two pytest processes side by side (each chunk's output is shown
   when it ends, so the two never interleave). The largest files go first, each in a chunk alone.
2. Then, alone on the machine, the tests whose limits are wall-clock (servers and their sandboxes,
   pmap's processes, the example libraries' runs) and the browser tests: another process beside
   them could make a run meet its time limit.

    python tests/run_all.py [pytest options for both phases]

Exits non-zero if any chunk or phase failed.
"""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WALL_CLOCK = re.compile(r"^(from|import) server\b|ServerProcess|playwright", re.M)
OWN_PROCESSES = {"test_pmap_runtime.py", "test_example_libraries.py"}  # (processes with deadlines)
LARGEST = [
    "test_jax_reference.py",
    "test_x64.py",
    "test_numpy_ops.py",
    "test_jax_docs.py",
    "test_fidelity.py",
]
CHUNK = 8  # files per chunk: each pytest start imports the engine and numba again (~3 s)


def phases() -> tuple[list[list[str]], list[str]]:
    files = sorted(ROOT.glob("tests/test_*.py"))
    timed = [f for f in files if f.name in OWN_PROCESSES or WALL_CLOCK.search(f.read_text())]
    engine = [f for f in files if f not in timed]
    first = [f for name in LARGEST for f in engine if f.name == name]
    rest = [f for f in engine if f not in first]
    chunks = [[str(f)] for f in first] + [
        [str(f) for f in rest[i : i + CHUNK]] for i in range(0, len(rest), CHUNK)
    ]
    chunks.append(["--doctest-modules", str(ROOT / "engine")])  # (the docstrings' examples)
    return chunks, [str(f) for f in timed] + [str(ROOT / "e2e")]


def run_chunks(chunks: list[list[str]], options: list[str], workers: int = 2) -> list[str]:
    """Each chunk in a pytest process, ``workers`` at a time; the chunks that failed."""
    todo: queue.Queue[list[str]] = queue.Queue()
    for chunk in chunks:
        todo.put(chunk)
    failed: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        while True:
            try:
                chunk = todo.get_nowait()
            except queue.Empty:
                return
            with tempfile.TemporaryFile("w+") as out:
                code = subprocess.call(
                    [sys.executable, "-m", "pytest", *options, *chunk],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=ROOT,
                )
                out.seek(0)
                with lock:
                    names = " ".join(Path(f).name for f in chunk)
                    print(f"\n=== {names}: {'passed' if code == 0 else f'FAILED (exit {code})'}", flush=True)
                    sys.stdout.write(out.read())
                    sys.stdout.flush()
                    if code != 0:
                        failed.append(names)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return failed


def main(options: list[str]) -> int:
    chunks, timed = phases()
    failed = run_chunks(chunks, [*options, "--durations=5"])
    print(
        f"\n=== the tests with wall-clock limits and the browser tests, alone: {len(timed)} paths", flush=True
    )
    if subprocess.call([sys.executable, "-m", "pytest", *options, "--durations=25", *timed], cwd=ROOT) != 0:
        failed.append("the tests with wall-clock limits and the browser tests")
    for names in failed:
        print(f"FAILED: {names}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
