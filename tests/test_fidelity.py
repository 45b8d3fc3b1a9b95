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
    # Where JAX refuses to trace a case, the engine refuses it with the same error class.
    refused = [n for n in want if "error" in want[n] and n in got and got[n] != want[n]]
    assert not refused, f"JAX raises where the engine does not (or another error): {refused}"


# Recorded from JAX 0.10.2 (vmap of two jitted functions sharing a jitted helper): fresh variable
# names skip the shared jaxprs' names ('g' here), so remainder's body goes f, h, i...
_SHARED_NAMES_TEXT = """\
let g = { lambda ; a:f32[3]. let
    b:f32[3] = floor a
    c:f32[3] = jit[name=remainder jaxpr=remainder] b 2:i32[]
  in (c,) } in
let remainder = { lambda ; d:f32[3] e:i32[]. let
    f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] e
    h:f32[3] = rem d f
    i:bool[3] = ne h 0.0:f32[]
    j:bool[3] = lt h 0.0:f32[]
    k:bool[] = lt f 0.0:f32[]
    l:bool[3] = ne j k
    m:bool[3] = and l i
    n:f32[3] = add h f
    o:f32[3] = select_n m h n
  in (o,) } in
{ lambda ; p:f32[3]. let
    q:f32[3] = jit[name=g jaxpr=g] p
    r:f32[3] = jit[
      name=h
      jaxpr={ lambda ; p:f32[3]. let
          s:f32[3] = floor p
          r:f32[3] = jit[name=remainder jaxpr=remainder] s 2:i32[]
        in (r,) }
    ] p
    t:f32[3] = mul p 2.0:f32[]
    u:f32[3] = jit[name=g jaxpr=g] t
  in (q, r, u) }"""


def test_fresh_names_skip_shared_jaxpr_names():
    import engine as jax
    import engine.numpy as jnp

    @jax.jit
    def g(c):
        return jnp.floor(c) % 2

    @jax.jit
    def h(c):
        return jnp.floor(c) % 2

    x = jnp.array([0.5, 1.5, -2.5])
    assert str(jax.make_jaxpr(jax.vmap(lambda c: (g(c), h(c), g(c * 2))))(x)) == _SHARED_NAMES_TEXT
