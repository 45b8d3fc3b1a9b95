"""make_jaxpr prints what JAX 0.10.2 prints: the fidelity corpus (tests/fidelity/) against the
texts recorded from JAX (tests/fidelity/expected.json, by tests/fidelity/record.py)."""

import pytest

from tests.fidelity import compare, programs

# Raised as the engine's printing and rules come closer to JAX's; never lowered.
THRESHOLD = 1.00


@pytest.fixture(scope="module")
def results():
    return compare.run()


def test_corpus_is_recorded_and_large():
    want = compare.expected()
    assert len(programs.PROGRAMS) >= 200
    assert set(want) == set(programs.PROGRAMS), "re-run tests/fidelity/record.py"
    assert not [n for n, v in want.items() if "error" in v], "JAX rejects a corpus program"


def test_alpha_rename_ignores_names_but_not_structure():
    a = "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = jit[name=f] b in (c,) }"
    b = "{ lambda ; x:f32[]. let y:f32[] = sin x; z:f32[] = jit[name=f] y in (z,) }"
    c = "{ lambda ; x:f32[]. let y:f32[] = sin x; z:f32[] = jit[name=g] y in (z,) }"
    assert compare.alpha_rename(a) == compare.alpha_rename(b)
    assert compare.alpha_rename(a) != compare.alpha_rename(c)


def test_identical_fraction(results):
    same = [n for n, (s, _, _) in results.items() if s == "same"]
    differing = sorted(n for n in results if n not in same and n not in compare.INTENDED_DIFFERENCES)
    fraction = len(same) / len(results)
    print(
        f"\nfidelity: {len(same)}/{len(results)} identical ({fraction:.1%}); "
        f"{len(compare.INTENDED_DIFFERENCES)} intended differences; other differences: {differing}"
    )
    assert fraction >= THRESHOLD, f"identical fraction {fraction:.1%} fell below {THRESHOLD:.0%}"


def test_intended_differences_still_differ(results):
    # An entry that now matches JAX must leave the list: it is no longer a difference.
    stale = [n for n in compare.INTENDED_DIFFERENCES if results[n][0] == "same"]
    assert not stale, f"remove from INTENDED_DIFFERENCES: {stale}"


# --- the sweep of public jnp / nn / linalg / scipy.special functions (tests/fidelity/sweep.py) ---


def test_sweep_texts_match_jax():
    """Every sweep case whose text matches JAX's stays matching; the cases listed in
    sweep_differing.txt still differ (a case that starts matching must leave the list)."""
    import json

    from tests.fidelity import sweep

    want = json.loads((compare.HERE / "sweep_expected.json").read_text())["cases"]
    listed = sweep.listed_differing((compare.HERE / "sweep_differing.txt").read_text())
    got = sweep.engine_texts()
    texts = [n for n in want if "jaxpr" in want[n]]
    same = {
        n
        for n in texts
        if "jaxpr" in got.get(n, {})
        and compare.alpha_rename(got[n]["jaxpr"]) == compare.alpha_rename(want[n]["jaxpr"])
    }
    print(f"\nsweep: {len(same)}/{len(texts)} texts identical to JAX's; {len(listed)} listed as differing")
    regressed = [n for n in texts if n not in same and n not in listed]
    assert not regressed, f"texts differ from JAX's (see `sweep.py compare --show`): {regressed}"
    stale = [n for n in listed if n in same or n not in want]
    assert not stale, f"now identical, run `python tests/fidelity/sweep.py differing` to unlist: {stale}"
