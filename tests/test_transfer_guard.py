"""``jax.transfer_guard`` beyond the refusals ``test_jax_reference`` replays (the snippets in
``jax_reference/snippets_transfer_guard.py``, recorded under JAX 0.10.2): the ``"log"`` level logs
exactly the transfers ``"disallow"`` refuses, and the guard at ``"allow"`` leaves the eager fast
paths on."""

from __future__ import annotations

import json
import logging
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record import run  # noqa: E402
from snippets_transfer_guard import CASES  # noqa: E402

sys.path.remove(str(HERE))

RECORDED = json.loads((HERE / "transfer_guard_matrix.json").read_text())
SETUP = "x = jnp.arange(3.)\ny = jnp.ones((2, 3))\ni = jnp.array(1)\nk = jax.random.key(1)\n"


def _namespace(jax):
    import jax.numpy as jnp
    from jax import lax

    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np}


@pytest.mark.parametrize("name,stmt", [c for c in CASES if f"disallow-{c[0]}" in RECORDED])
def test_log_logs_what_disallow_refuses(name, stmt, jax_on_engine, caplog):
    """JAX logs a transfer (to stderr, from C++) wherever "disallow" would refuse it; the engine
    logs the same message to the ``jax.transfer_guard`` logger, and nothing where JAX allows."""
    want = RECORDED[f"disallow-{name}"]
    ns = _namespace(jax_on_engine)
    exec(SETUP, ns)  # (the setup's own transfers are not the statement's)
    with caplog.at_level(logging.WARNING, logger="jax.transfer_guard"):
        # (a statement may log its transfer and then raise, as JAX's jnp.tri(2, k=True) does)
        run(
            f"with jax.transfer_guard('log'):\n    try:\n        _ = {stmt}\n    except TypeError:\n        pass\nout = True",
            ns,
        )
    messages = [r.getMessage() for r in caplog.records if r.name == "jax.transfer_guard"]
    if "error" in want:
        assert messages, f"JAX refuses {stmt} under 'disallow'; the engine logged nothing under 'log'"
        assert messages[0] == want["message"].removeprefix("INVALID_ARGUMENT: Disallowed ")
    else:
        assert messages == [], f"JAX allows {stmt}; the engine logged {messages}"


def test_allow_leaves_the_fast_paths_on(jax_on_engine):
    """A guard makes every eager op take the checked (general) path; at "allow", and after the
    block, the numpy fast paths are back."""
    from engine import core, transfers

    base = core.staging_anywhere[0]
    with jax_on_engine.transfer_guard("log"):
        assert transfers.active[0] and core.staging_anywhere[0] == base + 1
        with jax_on_engine.transfer_guard("allow"):
            assert not transfers.active[0] and core.staging_anywhere[0] == base
    assert not transfers.active[0] and core.staging_anywhere[0] == base


def test_jitted_library_function_checks_its_arguments_not_its_constants(jax_on_engine):
    """jnp.mean is jitted in JAX: a NumPy argument is a transfer, the count it divides by is not."""
    jnp = jax_on_engine.numpy
    x = jnp.arange(4.0)
    with jax_on_engine.transfer_guard("disallow"):
        assert float(jnp.mean(x)) == 1.5
        with pytest.raises(jax_on_engine.errors.JaxRuntimeError, match=r"float32\[4\]"):
            jnp.mean(np.arange(4.0))
