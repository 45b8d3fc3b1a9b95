"""Conformance: every seed program, run by ``python -m engine run`` with ``jax`` resolving to the
engine, emits the values JAX 0.10.2 emitted (``../shared/seed-programs/README.md`` gives the rule).

The seed programs are the spec: a checkout without ``../shared/seed-programs`` fails here rather
than running an empty set.
"""

import builtins
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, SEED_PROGRAMS

ATOL, RTOL = 2e-5, 2e-4


def _params():
    paths = sorted(SEED_PROGRAMS.glob("s*.py"))
    if not paths:
        raise FileNotFoundError(f"no seed programs in {SEED_PROGRAMS} (the spec, next to this checkout)")
    return [pytest.param(path, id=path.stem) for path in paths]


def run_seed(path, tmp_path) -> tuple[list[dict], subprocess.CompletedProcess]:
    script = tmp_path / path.name
    script.write_text((SEED_PROGRAMS / "_prelude.py").read_text() + "\n" + path.read_text())
    # A private numba kernel cache: runs neither see nor leave compiled kernels elsewhere.
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGINE_CACHE_DIR=str(tmp_path / "kernels"))
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    emitted = [json.loads(line[5:]) for line in proc.stdout.splitlines() if line.startswith("EMIT ")]
    return emitted, proc


def _builtin_exception(name: str) -> bool:
    return isinstance(getattr(builtins, name, None), type) or name == "object"


def check_entry(got: dict, want: dict) -> None:
    name = want["name"]
    assert got["name"] == name
    if "error" in want:
        assert got.get("error") is not None, (
            f"{name}: the engine did not raise; JAX raised {want['error'][0]}"
        )
        required = {want["error"][0]} | {n for n in want["error"] if not _builtin_exception(n)}
        missing = required - set(got["error"])
        assert not missing, (
            f"{name}: engine raised {got['error'][0]} (chain {got['error']}), JAX {want['error']}"
        )
        return
    assert "leaves" in got, f"{name}: the engine raised {got.get('error')}"
    assert len(got["leaves"]) == len(want["leaves"]), f"{name}: pytree has a different number of leaves"
    for i, (g, w) in enumerate(zip(got["leaves"], want["leaves"])):
        assert g["shape"] == w["shape"], f"{name} leaf {i}: shape {g['shape']} != {w['shape']}"
        gd = np.array(g["data"], dtype=np.float64)
        wd = np.array(w["data"], dtype=np.float64)
        both_nan = np.isnan(gd) & np.isnan(wd)
        close = np.abs(gd - wd) <= ATOL + RTOL * np.abs(wd)
        bad = ~(close | both_nan)
        assert not bad.any(), (
            f"{name} leaf {i}: {int(bad.sum())} of {gd.size} elements differ, e.g. "
            f"got {gd[bad][:5].tolist()} want {wd[bad][:5].tolist()}"
        )


@pytest.mark.parametrize("path", list(_params()))
def test_seed_program(path, tmp_path):
    expected = [
        json.loads(line)
        for line in (SEED_PROGRAMS / "expected" / f"{path.stem}.jsonl").read_text().splitlines()
        if line.strip()
    ]
    emitted, proc = run_seed(path, tmp_path)
    detail = f"\n--- stderr (tail) ---\n{proc.stderr[-3000:]}"
    for i, want in enumerate(expected):
        assert i < len(emitted), f"missing EMIT {want['name']!r} (exit {proc.returncode}){detail}"
        check_entry(emitted[i], want)
    assert len(emitted) == len(expected), f"extra EMIT lines: {[e['name'] for e in emitted[len(expected) :]]}"
    assert proc.returncode == 0, f"exit status {proc.returncode}{detail}"
