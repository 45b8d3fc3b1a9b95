"""Compare the engine's StableHLO texts (``as_text()``) of the fidelity corpus's programs and this
corpus's own (``programs.py``) with JAX 0.10.2's, recorded in ``expected.json`` by ``record.py``.

    python -m tests.stablehlo.compare [NAME ...]     # prints each difference, then the summary
"""

from __future__ import annotations

import pathlib
import sys

from tests.lowered_corpus import Corpus

CORPUS = Corpus(
    pathlib.Path(__file__).resolve().parent,
    None,
    ("tests.fidelity.programs", "tests.stablehlo.programs", "tests.stablehlo.programs_learner"),
    "stablehlo",
)
expected, all_programs, run = CORPUS.expected, CORPUS.all_programs, CORPUS.run

if __name__ == "__main__":
    CORPUS.main(sys.argv[1:])
