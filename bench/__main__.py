"""``make bench``: run every ``bench/bench_*.py`` module's ``main()`` in one process.

    python -m bench                # all of them
    python -m bench engine jit     # only bench_engine and bench_jit

Each module prints its own table; a module that fails is reported and the others still run. The
exit status is 1 if any module failed.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent


def modules(selected: list[str]) -> list[str]:
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if selected:
        wanted = {s if s.startswith("bench_") else f"bench_{s}" for s in selected}
        unknown = wanted - set(names)
        if unknown:
            raise SystemExit(
                f"no such benchmark module: {', '.join(sorted(unknown))} (have {', '.join(names)})"
            )
        names = [n for n in names if n in wanted]
    return names


def run_one(name: str) -> bool:
    print(f"\n== {name} " + "=" * max(0, 70 - len(name)), flush=True)
    start = time.perf_counter()
    try:
        main = importlib.import_module(f"bench.{name}").main
        # mains parse their own options: hand them none, not `python -m bench`'s
        status = main([]) if inspect.signature(main).parameters else main()
    except SystemExit as e:
        status = e.code
    except Exception:  # noqa: BLE001 - one broken benchmark must not hide the others
        traceback.print_exc()
        status = 1
    print(
        f"-- {name}: {'ok' if not status else f'FAILED ({status})'} in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    return not status


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(HERE.parent))
    results = [run_one(name) for name in modules(argv)]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
