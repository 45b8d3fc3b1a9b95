"""JAX's bits, eager and jitted, for what the function-level sweep (tests/fidelity/sweep_ulp.py) found
differing in the last bits: cumprod, logaddexp2, i0 / bessel_i0e, i1 / bessel_i1e, prod, cumlogsumexp,
t.logpdf, gamma samples of a constant alpha (log space), jitted frexp of subnormals, arctan2's
gradient, polygamma / zeta and digamma's gradient; recorded from JAX 0.10.2 by
tests/jax_reference/record_ulp_fixes.py."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_ulp_fixes import PATH, RECORDED, run, unpack  # noqa: E402

sys.path.pop(0)
BITS = json.loads(PATH.read_text())


@pytest.mark.parametrize("name,mode", RECORDED)
def test_bits_are_jax(name, mode, jax_on_engine):
    import jax.scipy.special  # noqa: F401  (the engine's, through jax_on_engine)
    import jax.scipy.stats  # noqa: F401

    got = run(jax_on_engine, name, mode).reshape(-1)
    want = unpack(BITS[f"{name}[{mode}]"])
    same = (got.view(np.int32) == want.view(np.int32)) | (np.isnan(got) & np.isnan(want))
    bad = np.nonzero(~same)[0]
    assert bad.size == 0, (
        f"{bad.size} of {got.size} differ, e.g. at {bad[:3]}: {got[bad[:3]]} vs JAX {want[bad[:3]]}"
    )
