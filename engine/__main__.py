"""``python -m engine run [--report OUT.json] [--trace OUT.json] SCRIPT [ARGS...]``

Runs an unmodified JAX script with ``import jax`` resolving to the engine. ``--report`` writes the
run report (the same JSON the playground server returns); ``--trace`` writes the timings as a
Chrome-trace/Perfetto JSON. Output still goes to the terminal; the exit status is 1 if the script
raised.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import traceback


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a JAX script on the engine")
    run.add_argument("--report", metavar="OUT.json", help="write the run report here")
    run.add_argument("--trace", metavar="OUT.json", help="write a Chrome/Perfetto trace of the timings here")
    run.add_argument("script")
    run.add_argument("args", nargs=argparse.REMAINDER)
    return p


def _run_plain(script: str, args: list[str]) -> int:
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


def _run_recorded(script: str, args: list[str], report_path: str | None, trace_path: str | None) -> int:
    from engine.inspect import RunRequest, chrome_trace, run_code

    with open(script, encoding="utf-8") as f:
        code = f.read()
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    report, exc = run_code(RunRequest(code=code), filename=script, tee=True, argv=[script, *args])
    if report_path:
        with open(report_path, "w", encoding="utf-8") as f:
            f.write(report.model_dump_json(indent=1))
    if trace_path:
        with open(trace_path, "w", encoding="utf-8") as f:
            json.dump(chrome_trace(report), f)
    if exc is not None:
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ns = _parser().parse_args(argv)
    from engine import compat

    compat.install()
    if ns.report or ns.trace:
        return _run_recorded(ns.script, ns.args, ns.report, ns.trace)
    try:
        return _run_plain(ns.script, ns.args)
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - print like python does, then fail
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
