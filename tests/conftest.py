import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SEED_PROGRAMS = SHARED / "seed-programs"
os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")
