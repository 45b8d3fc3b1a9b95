"""engine.prng_rbg (the rbg / unsafe_rbg PRNGs) against values recorded from JAX 0.10.2 on CPU
(tests/jax_reference/rbg.json, written by tests/jax_reference/record_rbg.py)."""

import json
import pathlib

import numpy as np
import pytest

from engine import prng_rbg

REF = json.loads((pathlib.Path(__file__).parent / "jax_reference" / "rbg.json").read_text())


@pytest.mark.parametrize("case", REF["bit_generator"], ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_rng_bit_generator_matches_jax(case):
    key, dtype, shape, new_key, bits = case
    got_key, got_bits = prng_rbg.rng_bit_generator(np.array(key, np.uint32), tuple(shape), dtype)
    assert got_key.tolist() == new_key
    assert got_bits.dtype == np.dtype(dtype) and got_bits.shape == tuple(shape)
    assert got_bits.tolist() == bits


@pytest.mark.parametrize("case", REF["impls"], ids=lambda c: f"{c['impl']}-{c['seed']}")
def test_impl_matches_jax(case):
    seed, split, fold_in, random_bits = prng_rbg.IMPLS[case["impl"]]
    key = seed(case["seed"])
    assert key.tolist() == case["key"]
    assert split(key, 3).tolist() == case["split"]
    assert split(key, (2, 2)).tolist() == case["split_shape"]
    assert fold_in(key, 17).tolist() == case["fold_in"]
    assert random_bits(key, 32, (6,)).tolist() == case["bits32"]
    assert random_bits(key, 8, (5,)).tolist() == case["bits8"]
    assert random_bits(key, 16, (2, 3)).tolist() == case["bits16"]


def test_philox_known_answer():
    # Random123's known-answer vector for Philox-4x32-10, all-ones key and counter.
    ones = [np.full(1, 0xFFFFFFFF, np.uint32)] * 4
    got = [hex(int(w[0])) for w in prng_rbg.philox4x32(ones, (0xFFFFFFFF, 0xFFFFFFFF))]
    assert got == ["0x408f276d", "0x41c83b0e", "0xa20bc7c6", "0x6d5451fd"]


def test_bad_key_and_dtype_raise():
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        prng_rbg.rng_bit_generator(np.zeros(2, np.uint32), (3,))
    with pytest.raises(TypeError, match="unsupported dtype"):
        prng_rbg.rng_bit_generator(np.zeros(4, np.uint32), (3,), np.int32)


def test_any_key_traces_and_running_a_bad_one_fails():
    # As JAX 0.10.2: its shape rule takes any key (make_jaxpr text recorded); running a key the
    # algorithm cannot take fails (XLA's lowering refuses it there).
    import engine as jax
    from engine import lax

    three_fry = lax.RandomAlgorithm.RNG_THREE_FRY
    text = str(
        jax.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2,), algorithm=three_fry))(np.uint32([1, 2]))
    )
    want = (
        "{ lambda ; a:u32[2]. let\n    b:u32[2] c:u32[2] = rng_bit_generator[\n      algorithm=RNG_THREE_FRY\n"
        "      dtype=uint32\n      out_sharding=None\n      shape=(2,)\n    ] a\n  in (b, c) }"
    )
    assert text == want
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        lax.rng_bit_generator(np.uint32([1, 2]), (2,))
