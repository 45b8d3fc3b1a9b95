"""Tests for engine.prng (numpy reference PRNG) and engine.random (the traceable API).

Reference values were produced by JAX 0.10.2 on CPU (default config: threefry2x32,
jax_threefry_partitionable=True, x64 off) and are pinned here.
"""

import doctest

import numpy as np
import pytest

from engine import prng as P

K0 = np.array([0, 0], np.uint32)
K42 = np.array([0, 42], np.uint32)

# --- values from JAX 0.10.2 -------------------------------------------------
JAX = dict(
    split0=[[1797259609, 2579123966], [928981903, 3453687069]],
    split0_3=[[1797259609, 2579123966], [928981903, 3453687069], [4146024105, 2718843009]],
    split42_4=[
        [1832780943, 270669613],
        [64467757, 2916123636],
        [2465931498, 255383827],
        [3134548294, 894150801],
    ],
    split42_2x3=[
        [[1832780943, 270669613], [64467757, 2916123636], [2465931498, 255383827]],
        [[3134548294, 894150801], [2954079971, 3276725750], [2765691542, 824333390]],
    ],
    split_chain=[
        [3187376881, 129218101],
        [2350016172, 1168365246],
        [257214496, 567757975],
        [1383271662, 289976367],
        [4101366060, 3895272353],
    ],
    # fold_in(K0, d) for d in (0, 1, 7, 2**32 - 1), then fold_in(K42, 123456)
    fold_in=[
        [1797259609, 2579123966],
        [928981903, 3453687069],
        [2716826189, 292468403],
        [743310391, 3789761811],
        [793847391, 18989694],
    ],
    bits0_3x4=[
        [4070199207, 4202968722, 1427181096, 2012915765],
        [2447653815, 710830403, 1332275837, 2961296638],
        [3207338339, 734502358, 4232062733, 108588429],
    ],
    bits42_scalar=2098992034,
    bits42_u8=[162, 217, 249, 215, 21, 216, 153],
    bits42_u16=[5026, 12505, 63993, 49623, 29461, 20184, 47001],
    uniform0=[
        0.9476670026779175,
        0.9785798788070679,
        0.33229148387908936,
        0.46866846084594727,
        0.569888710975647,
    ],
    # uniform(K42, (2, 3), minval=-2, maxval=5)
    uniform42=[
        [1.4209669828414917, 2.758580207824707, 2.3139004707336426],
        [1.9271125793457031, 1.1545122861862183, 2.1010608673095703],
    ],
    # uniform(K42, (3, 2), minval=[0, 10], maxval=[1, 20])
    uniform_arr=[
        [0.48870956897735596, 16.797971725463867],
        [0.6162714958190918, 15.610160827636719],
        [0.4506446123123169, 15.858658790588379],
    ],
    uniform_f16=[0.076171875, 0.1904296875, 0.9755859375, 0.7568359375],
    normal0=[
        1.622642159461975,
        2.0252647399902344,
        -0.4335944354534149,
        -0.07861734926700592,
        0.17609089612960815,
    ],
    normal7_scalar=0.4512351453304291,
    normal42_head=[
        -0.02830461598932743,
        0.4671318531036377,
        0.2957029640674591,
        0.15354591608047485,
        -0.12403281778097153,
        0.21692314743995667,
        -1.440878987312317,
        0.755859911441803,
    ],
    normal_f16=[-1.4296875, -0.87548828125, 1.974609375, 0.69677734375],
    randint0=[9, 0, 2, 3, 1],  # randint(K0, (5,), 0, 10)
    randint42=[
        184,
        514,
        736,
        539,
        804,
        979,
        102,
        652,
        344,
        271,
        982,
        314,
        935,
        211,
        837,
        110,
        863,
        479,
        665,
        609,
    ],  # (20,), -5, 1000
    randint_full=[977810628, 1236381714, -1367112521, -1019495231, -1671904627, -1277190805],
    randint_u8=[196, 18, 183, 193, 141, 107],  # (6,), 0, 256, uint8
    randint_i8=[-56, 14, -29, 69, 9, -81],  # (6,), -100, 100, int8
    randint_arr=[[4, 14, 271], [4, 19, 619]],  # (2, 3), [0, 10, 100], [5, 20, 1000]
    bernoulli0=[False, False, False, False, False, True, False, False, False, True],  # p=.3
    bernoulli42_p=[False, False, True],  # p=[.1, .5, .9]
    perm0_10=[0, 1, 8, 5, 6, 4, 3, 2, 7, 9],
    perm42_4x3=[[6, 7, 8], [9, 10, 11], [0, 1, 2], [3, 4, 5]],
    perm42_axis1=[[2, 3, 0, 1], [6, 7, 4, 5], [10, 11, 8, 9]],
    perm42_indep=[[2, 3, 0, 1], [7, 4, 5, 6], [10, 11, 8, 9]],
    perm42_2000_head=[1474, 815, 539, 874, 1693, 84, 995, 1191, 1713, 508],
    exponential42=[
        0.670817494392395,
        1.1388006210327148,
        0.9578199982643127,
        0.8232924938201904,
        0.5990096926689148,
    ],
    gumbel42=[
        0.3340933918952942,
        0.952019453048706,
        0.7255305647850037,
        0.5481715202331543,
        0.2268049567937851,
    ],
    categorical42=[[2, 0], [2, 0], [1, 0], [1, 0]],
    choice42=[4, 4, 1, 9, 9],
    choice42_norep=[7, 4, 2, 5, 3],
    choice42_p=[2, 2, 2, 2, 2, 2],
    truncated_normal42=[
        0.14770005643367767,
        0.5684449076652527,
        0.42102551460266113,
        0.29997000098228455,
        0.0691138207912445,
    ],
)


def ulp_diff(a, b):
    a = np.asarray(a, np.float32).view(np.int32).astype(np.int64)
    b = np.asarray(b, np.float32).view(np.int32).astype(np.int64)
    return np.abs(a - b)


# ---------------------------------------------------------------------------
# prng.py: the numpy reference
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key,ctr,out",
    [
        # Random123 known-answer vectors for threefry2x32, 20 rounds: (key, counter) -> output.
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ],
)
def test_threefry_known_answers(key, ctr, out):
    y0, y1 = P.threefry2x32(*key, *ctr)
    assert (int(y0), int(y1)) == out
    assert y0.dtype == np.uint32


def test_threefry_vectorized_and_broadcasting():
    x0 = np.arange(10, dtype=np.uint32)
    x1 = np.arange(10, 20, dtype=np.uint32)
    y0, y1 = P.threefry2x32(np.uint32(3), np.uint32(4), x0, x1)
    for i in range(10):
        a, b = P.threefry2x32(3, 4, int(x0[i]), int(x1[i]))
        assert (int(y0[i]), int(y1[i])) == (int(a), int(b))
    y0, y1 = P.threefry2x32(np.uint32(3), np.uint32(4), x0.reshape(2, 5), np.uint32(0))
    assert y0.shape == (2, 5)
    assert P.threefry2x32(0, 0, np.zeros((0,), np.uint32), 0)[0].shape == (0,)


def test_keys():
    assert P.PRNGKey(0).tolist() == [0, 0]
    assert P.PRNGKey(42).tolist() == [0, 42]
    assert P.PRNGKey(-1).tolist() == [0, 4294967295]
    assert P.PRNGKey(2**32 + 5).tolist() == [0, 5]  # x64 off: seed mod 2**32
    assert P.PRNGKey(np.int32(-7)).tolist() == [0, 4294967289]
    assert P.PRNGKey(0).dtype == np.uint32
    assert P.key(3).tolist() == [0, 3]
    with pytest.raises(TypeError):
        P.PRNGKey(1.5)
    with pytest.raises(TypeError):
        P.PRNGKey(np.arange(2))


def test_split_fold_in_known_values():
    assert P.split(K0).tolist() == JAX["split0"]
    assert P.split(K0, 3).tolist() == JAX["split0_3"]
    assert P.split(K42, 4).tolist() == JAX["split42_4"]
    assert P.split(K42, (2, 3)).tolist() == JAX["split42_2x3"]
    assert P.split(P.split(K42)[1], 5).tolist() == JAX["split_chain"]
    got = [P.fold_in(K0, d).tolist() for d in (0, 1, 7, 2**32 - 1)] + [P.fold_in(K42, 123456).tolist()]
    assert got == JAX["fold_in"]
    with pytest.raises(TypeError):
        P.fold_in(K0, np.arange(3))
    with pytest.raises(TypeError, match="PRNG key"):
        P.split(np.zeros(3, np.uint32))


def test_bits_known_values():
    assert P.bits(K0, (3, 4)).tolist() == JAX["bits0_3x4"]
    assert int(P.bits(K42)) == JAX["bits42_scalar"]
    assert P.bits(K42, (7,), np.uint8).tolist() == JAX["bits42_u8"]
    assert P.bits(K42, (7,), np.uint16).tolist() == JAX["bits42_u16"]
    b64 = P.random_bits(K42, 64, (3,))
    assert b64.dtype == np.uint64
    lo = P.threefry2x32(0, 42, 0, np.arange(3, dtype=np.uint32))
    assert ((b64 >> np.uint64(32)).astype(np.uint32) == lo[0]).all()


def test_uniform_known_values():
    u = P.uniform(K0, (5,))
    assert u.dtype == np.float32
    assert u.tolist() == np.float32(JAX["uniform0"]).tolist()
    assert P.uniform(K42, (2, 3), minval=-2.0, maxval=5.0).tolist() == np.float32(JAX["uniform42"]).tolist()
    got = P.uniform(K42, (3, 2), minval=np.array([0.0, 10.0]), maxval=np.array([1.0, 20.0]))
    assert got.tolist() == np.float32(JAX["uniform_arr"]).tolist()
    got = P.uniform(K42, (4,), dtype=np.float16)
    assert got.dtype == np.float16 and got.astype(np.float32).tolist() == JAX["uniform_f16"]
    assert P.uniform(K0, (), dtype=np.float64).dtype == np.float32  # x64 off
    with pytest.raises(ValueError):
        P.uniform(K0, (3,), minval=np.zeros(4))


def test_uniform_range_statistics():
    u = P.uniform(P.PRNGKey(1), (20000,))
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01
    # The mantissa trick gives multiples of 2**-23.
    assert np.all((u * 2**23) == np.round(u * 2**23))


def test_normal_matches_jax():
    n = P.normal(K0, (5,))
    assert n.dtype == np.float32
    np.testing.assert_allclose(n, np.float32(JAX["normal0"]), rtol=1e-6, atol=0)
    assert ulp_diff(n, JAX["normal0"]).max() <= 2
    assert ulp_diff(P.normal(P.PRNGKey(7)), JAX["normal7_scalar"]).max() <= 2
    assert ulp_diff(P.normal(K42, (1000,))[:8], JAX["normal42_head"]).max() <= 2
    got = P.normal(K42, (4,), np.float16)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), JAX["normal_f16"], rtol=2e-3)


def test_normal_statistics():
    n = P.normal(P.PRNGKey(3), (50000,))
    assert abs(n.mean()) < 0.02 and abs(n.std() - 1) < 0.02
    assert np.isfinite(n).all()


def test_erf_inv():
    from math import erf

    xs = np.float32([-0.999, -0.9, -0.5, -1e-3, 0.0, 1e-6, 0.3, 0.7, 0.99, 0.999999])
    y = P.erf_inv_f32(xs)
    back = np.array([erf(float(v)) for v in y])
    np.testing.assert_allclose(back, xs, rtol=2e-6, atol=1e-7)
    assert P.erf_inv_f32(np.float32(1.0)) == np.inf
    assert P.erf_inv_f32(np.float32(-1.0)) == -np.inf


def test_randint_known_values():
    r = P.randint(K0, (5,), 0, 10)
    assert r.dtype == np.int32 and r.tolist() == JAX["randint0"]
    assert P.randint(K42, (20,), -5, 1000).tolist() == JAX["randint42"]
    assert P.randint(K42, (6,), -(2**31), 2**31 - 1).tolist() == JAX["randint_full"]
    r8 = P.randint(K42, (6,), 0, 256, np.uint8)
    assert r8.dtype == np.uint8 and r8.tolist() == JAX["randint_u8"]
    assert P.randint(K42, (6,), -100, 100, np.int8).tolist() == JAX["randint_i8"]
    assert P.randint(K42, (4,), 5, 5).tolist() == [5, 5, 5, 5]
    assert P.randint(K42, (4,), 5, 2).tolist() == [5, 5, 5, 5]
    got = P.randint(K42, (2, 3), np.array([0, 10, 100]), np.array([5, 20, 1000]))
    assert got.tolist() == JAX["randint_arr"]


def test_bernoulli_permutation_known_values():
    b = P.bernoulli(K0, 0.3, (10,))
    assert b.dtype == np.bool_ and b.tolist() == JAX["bernoulli0"]
    assert P.bernoulli(K42, np.array([0.1, 0.5, 0.9])).tolist() == JAX["bernoulli42_p"]
    with pytest.raises(TypeError):
        P.bernoulli(K0, 1, (2,))
    assert P.permutation(K0, 10).tolist() == JAX["perm0_10"]
    assert P.permutation(K42, np.arange(12).reshape(4, 3)).tolist() == JAX["perm42_4x3"]
    assert P.permutation(K42, np.arange(12).reshape(3, 4), axis=1).tolist() == JAX["perm42_axis1"]
    assert (
        P.permutation(K42, np.arange(12).reshape(3, 4), axis=1, independent=True).tolist()
        == JAX["perm42_indep"]
    )
    big = P.permutation(K42, 2000)  # two sort rounds
    assert big[:10].tolist() == JAX["perm42_2000_head"]
    assert sorted(big.tolist()) == list(range(2000))
    assert P.shuffle(K42, np.arange(12).reshape(3, 4), axis=1).tolist() == JAX["perm42_indep"]


def test_other_samplers_known_values():
    assert P.exponential(K42, (5,)).tolist() == np.float32(JAX["exponential42"]).tolist()
    assert ulp_diff(P.gumbel(K42, (5,)), JAX["gumbel42"]).max() <= 2
    logits = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
    assert P.categorical(K42, logits, shape=(4, 2)).tolist() == JAX["categorical42"]
    assert P.choice(K42, 10, (5,)).tolist() == JAX["choice42"]
    assert P.choice(K42, 10, (5,), replace=False).tolist() == JAX["choice42_norep"]
    assert P.choice(K42, 5, (6,), p=np.array([0.1, 0.2, 0.3, 0.2, 0.2])).tolist() == JAX["choice42_p"]
    np.testing.assert_allclose(P.truncated_normal(K42, -1.0, 2.0, (5,)), JAX["truncated_normal42"], rtol=1e-5)


def test_prng_doctests():
    res = doctest.testmod(P)
    assert res.failed == 0 and res.attempted > 0


# ---------------------------------------------------------------------------
# random.py: the traceable API, against prng.py and under transformations
# ---------------------------------------------------------------------------

import engine as jax  # noqa: E402
from engine import core, ir, lax  # noqa: E402
from engine import random_keys as rk  # noqa: E402
from engine.core import Array  # noqa: E402
import engine.numpy as jnp  # noqa: E402
from engine import random as R  # noqa: E402

A = np.asarray


def same(a, b, ulps=0):
    a, b = A(a), A(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    if a.dtype.kind == "f" and isinstance(ulps, float):  # absolute tolerance
        np.testing.assert_allclose(a, b, rtol=0, atol=ulps)
    elif a.dtype.kind == "f":
        assert ulp_diff(a, b).max(initial=0) <= ulps, (a, b)
    else:
        assert np.array_equal(a, b), (a, b)


# (name, engine.random call, prng call, allowed ulps)
CASES = [
    ("split", lambda m, k: m.split(k), 0),
    ("split_shape", lambda m, k: m.split(k, (2, 3)), 0),
    ("fold_in", lambda m, k: m.fold_in(k, 123456), 0),
    ("bits", lambda m, k: m.bits(k, (3, 4)), 0),
    ("bits8", lambda m, k: m.bits(k, (7,), np.uint8), 0),
    ("uniform", lambda m, k: m.uniform(k, (5,)), 0),
    (
        "uniform_range",
        lambda m, k: m.uniform(k, (2, 3), minval=-2.0, maxval=5.0),
        1e-6,
    ),  # 1 rounding (prng: FMA)
    (
        "uniform_arr",
        lambda m, k: m.uniform(k, (3, 2), minval=np.float32([0, 10]), maxval=np.float32([1, 20])),
        4e-6,
    ),
    ("uniform_f16", lambda m, k: m.uniform(k, (4,), np.float16), 0),
    ("normal", lambda m, k: m.normal(k, (1000,)), 3),  # lax.erf_inv vs prng.erf_inv_f32
    ("normal_scalar", lambda m, k: m.normal(k), 3),
    ("randint", lambda m, k: m.randint(k, (20,), -5, 1000), 0),
    ("randint_full", lambda m, k: m.randint(k, (6,), -(2**31), 2**31 - 1), 0),
    ("randint_u8", lambda m, k: m.randint(k, (6,), 0, 256, np.uint8), 0),
    ("randint_i8", lambda m, k: m.randint(k, (6,), -100, 100, np.int8), 0),
    ("randint_arr", lambda m, k: m.randint(k, (2, 3), np.int32([0, 10, 100]), np.int32([5, 20, 1000])), 0),
    ("randint_empty", lambda m, k: m.randint(k, (3,), 5, 5), 0),
    ("bernoulli", lambda m, k: m.bernoulli(k, 0.3, (10,)), 0),
    ("bernoulli_p", lambda m, k: m.bernoulli(k, np.float32([0.1, 0.5, 0.9])), 0),
    ("perm", lambda m, k: m.permutation(k, 10), 0),
    ("perm_rows", lambda m, k: m.permutation(k, np.arange(12).reshape(4, 3)), 0),
    ("perm_axis1", lambda m, k: m.permutation(k, np.arange(12).reshape(3, 4), axis=1), 0),
    ("perm_indep", lambda m, k: m.permutation(k, np.arange(12.0).reshape(3, 4), axis=0, independent=True), 0),
    ("shuffle", lambda m, k: m.shuffle(k, np.arange(12).reshape(3, 4), axis=1), 0),
    ("exponential", lambda m, k: m.exponential(k, (5,)), 1),
    ("gumbel", lambda m, k: m.gumbel(k, (5,)), 1),
    ("categorical", lambda m, k: m.categorical(k, np.float32([[0, 1, 2], [3, 0, -1]]), shape=(4, 2)), 0),
    ("categorical_ax0", lambda m, k: m.categorical(k, np.float32([[0, 1, 2], [3, 0, -1]]), axis=0), 0),
    ("choice", lambda m, k: m.choice(k, 10, (5,)), 0),
    ("choice_norep", lambda m, k: m.choice(k, 10, (5,), replace=False), 0),
    ("choice_arr", lambda m, k: m.choice(k, np.arange(20.0).reshape(5, 4), (3,), axis=1), 0),
    ("truncated_normal", lambda m, k: m.truncated_normal(k, -1.0, 2.0, (5,)), 4),
]


@pytest.mark.parametrize("name,call,ulps", CASES, ids=[c[0] for c in CASES])
def test_random_matches_prng(name, call, ulps):
    for seed in (0, 42):
        same(call(R, R.PRNGKey(seed)), call(P, P.PRNGKey(seed)), ulps)


def test_random_known_values():
    assert A(R.split(R.PRNGKey(0))).tolist() == JAX["split0"]
    assert A(R.PRNGKey(0)).dtype == np.uint32 and A(R.key_data(R.key(42))).tolist() == [0, 42]
    assert A(R.uniform(R.PRNGKey(0), (5,))).tolist() == np.float32(JAX["uniform0"]).tolist()
    np.testing.assert_allclose(A(R.normal(R.PRNGKey(0), (5,))), JAX["normal0"], rtol=1e-6)
    assert A(R.randint(R.PRNGKey(0), (5,), 0, 10)).tolist() == JAX["randint0"]
    assert A(R.permutation(R.PRNGKey(0), 10)).tolist() == JAX["perm0_10"]
    assert isinstance(R.uniform(R.PRNGKey(0)), jax.Array)


# Functions of one key, checked eagerly vs jit vs vmap (over 4 keys).
TRACED = [
    ("split", lambda k: R.split(k, 3)),
    ("fold_in", lambda k: R.fold_in(k, 7)),
    ("bits", lambda k: R.bits(k, (2, 3))),
    ("uniform", lambda k: R.uniform(k, (5,), minval=-1.0, maxval=3.0)),
    ("normal", lambda k: R.normal(k, (5,))),
    ("randint", lambda k: R.randint(k, (5,), 0, 100)),
    ("bernoulli", lambda k: R.bernoulli(k, 0.4, (6,))),
    ("permutation", lambda k: R.permutation(k, 8)),
    ("permutation_axis", lambda k: R.permutation(k, np.arange(12).reshape(3, 4), axis=1)),
    ("categorical", lambda k: R.categorical(k, np.float32([0.0, 1.0, 2.0]), shape=(5,))),
    ("choice", lambda k: R.choice(k, 10, (3,), replace=False)),
    ("truncated_normal", lambda k: R.truncated_normal(k, -1.0, 1.0, (3,))),
]
# eager, jitted and batched values alike, to the bit: JAX compiles truncated_normal (eagerly too)
# and XLA fuses its multiply-adds, as the engine's jit does and its eager call therefore does too
TRACED_ULPS: dict[str, float] = {}


@pytest.mark.parametrize("name,f", TRACED, ids=[t[0] for t in TRACED])
def test_random_under_jit_and_vmap(name, f):
    k = R.PRNGKey(0)
    ulps = TRACED_ULPS.get(name, 0)
    same(jax.jit(f)(k), f(k), ulps)
    keys = R.split(R.PRNGKey(1), 4)
    ref = np.stack([A(f(A(keys)[i])) for i in range(4)])
    same(jax.vmap(f)(keys), ref)
    same(jax.jit(jax.vmap(f))(keys), ref, ulps)
    same(jax.vmap(jax.jit(f))(keys), ref, ulps)


def test_vmap_over_seeds_data_and_bounds():
    seeds = np.arange(5, dtype=np.int32)
    same(jax.vmap(R.PRNGKey)(seeds), np.stack([P.PRNGKey(int(s)) for s in seeds]))
    k = R.PRNGKey(3)
    same(
        jax.vmap(lambda d: R.fold_in(k, d))(seeds), np.stack([P.fold_in(P.PRNGKey(3), int(s)) for s in seeds])
    )
    los = np.float32([0.0, 1.0, 2.0])
    same(
        jax.vmap(lambda lo: R.uniform(k, (3,), minval=lo, maxval=10.0))(los),
        np.stack([A(R.uniform(k, (3,), minval=float(lo), maxval=10.0)) for lo in los]),
    )
    his = np.int32([5, 50, 500])
    same(
        jax.vmap(lambda hi: R.randint(k, (4,), 0, hi))(his),
        np.stack([P.randint(P.PRNGKey(3), (4,), 0, int(h)) for h in his]),
    )
    # Batched key with an unbatched counter shape: in_axes on a nested vmap.
    keys = R.split(k, 3)
    out = jax.vmap(jax.vmap(lambda kk: R.uniform(kk, (2,))))(A(R.split(k, 6)).reshape(2, 3, 2))
    assert A(out).shape == (2, 3, 2)
    same(A(out)[1, 2], P.uniform(P.split(P.PRNGKey(3), 6)[5], (2,)))
    del keys


def test_threefry_primitive_batching_broadcasts():
    # vmap over one operand of the primitive while others stay unbatched scalars.
    x = np.arange(6, dtype=np.uint32).reshape(3, 2)
    f = lambda c: R.threefry2x32_p.bind(np.uint32(1), np.uint32(2), np.uint32(0), c)
    y0, y1 = jax.vmap(f)(x)
    r0, r1 = P.threefry2x32(1, 2, 0, x)
    same(y0, r0)
    same(y1, r1)


def test_grad_through_samplers():
    k = R.PRNGKey(0)
    g = jax.grad(lambda mu: lax.reduce_sum(lax.add(R.normal(k, (3,)), lax.full((3,), mu, np.float32)), (0,)))(
        1.0
    )
    assert float(g) == 3.0
    u = A(R.uniform(k, (3,)))
    g = jax.grad(lambda s: lax.reduce_sum(lax.mul(R.uniform(k, (3,)), lax.full((3,), s, np.float32)), (0,)))(
        2.0
    )
    np.testing.assert_allclose(float(g), u.sum(), rtol=1e-6)


def test_jaxpr_stages_key_primitives_and_compiles_to_threefry():
    from engine import random_lowering

    closed = jax.make_jaxpr(lambda k: R.normal(k, (3,)))(R.PRNGKey(0))
    text = str(closed)
    assert "random_wrap[impl=fry]" in text and "random_bits[bit_width=32 shape=(3,)]" in text
    assert "jit[\n      name=_normal" in text and "erf_inv" in text and "threefry2x32" not in text
    # Compiled code runs the same program on the keys' uint32 data, hashed by threefry2x32.
    physical = random_lowering.physical_program(closed)
    assert "threefry2x32" in str(physical) and "key<fry>" not in str(physical)
    assert physical.jaxpr.in_avals[0].shape == (2,)
    same(ir.eval_closed(physical, R.PRNGKey(0))[0], R.normal(R.PRNGKey(0), (3,)))


def test_random_errors():
    with pytest.raises(TypeError, match="PRNG key"):
        R.uniform(np.zeros(3, np.uint32))
    with pytest.raises(TypeError, match="PRNG key"):
        R.normal(np.zeros(2, np.float32))
    with pytest.raises(ValueError):
        R.uniform(R.PRNGKey(0), (3,), minval=np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        R.randint(R.PRNGKey(0), (3,), 0, 5, np.float32)
    with pytest.raises(TypeError):
        R.bernoulli(R.PRNGKey(0), 1)
    with pytest.raises(TypeError):
        R.fold_in(R.PRNGKey(0), np.arange(2))
    with pytest.raises(ValueError):
        R.choice(R.PRNGKey(0), 3, (5,), replace=False)


def test_random_doctests():
    res = doctest.testmod(R, extraglobs={"np": np, "Array": jax.Array})
    assert res.failed == 0 and res.attempted > 0


# --- the key primitives (random_seed, random_wrap, random_bits, ...) ---------------------------


def test_key_primitives_on_key_arrays_match_per_key_values():
    from engine import random_primitives as RP

    keys = R.split(R.key(3), 4)
    bits = RP.random_bits(keys, 32, (2, 3))
    assert bits.shape == (4, 2, 3) and bits.dtype == np.uint32
    data = A(R.key_data(keys))
    for i in range(4):
        same(bits[i], P.random_bits(data[i], 32, (2, 3)))
    splits = RP.random_split(keys, (5,))
    assert splits.shape == (4, 5) and splits.dtype == R.key(0).dtype
    same(R.key_data(splits)[2], P.split(data[2], 5))
    msgs = Array(np.uint32([7, 8, 9, 10]))
    folded = R.key_data(RP.random_fold_in(keys, msgs))
    for i in range(4):
        same(A(folded)[i], P.fold_in(data[i], 7 + i))
    seeds = R.key_data(RP.random_seed(Array(np.int32([0, -1, 42]))))
    same(seeds, np.stack([P.PRNGKey(s) for s in (0, -1, 42)]))


def test_key_primitives_batch_and_have_float0_tangents():
    keys = R.split(R.key(1), 3)
    same(
        R.key_data(jax.vmap(lambda k: R.split(k, 2))(keys)),
        np.stack([A(R.key_data(R.split(k, 2))) for k in keys]),
    )
    same(
        R.key_data(jax.vmap(R.fold_in, (None, 0))(R.key(1), np.arange(3))),
        np.stack([A(R.key_data(R.fold_in(R.key(1), i))) for i in range(3)]),
    )
    same(jax.vmap(lambda k: R.bits(k, (2,)))(keys), np.stack([A(R.bits(k, (2,))) for k in keys]))
    # Keys are not differentiable: their tangents (and those of bits) are float0, as in JAX.
    out, tan = jax.jvp(
        lambda x, k: (R.key_data(R.split(k)), x * 2.0), (1.0, R.key(0)), (1.0, np.zeros((), core.float0))
    )
    assert tan[0].dtype == core.float0 and float(tan[1]) == 2.0


def test_categorical_without_replacement_draws_distinct_categories_as_jax():
    # Values recorded from JAX 0.10.2 (Gumbel top-k: the k draws lead the output shape).
    lg = np.float32([[0, 1, 2, 3], [3, 0, -1, 0.5]])
    got = A(R.categorical(R.key(0), lg, shape=(3, 2), replace=False))
    assert got.tolist() == [[1, 0], [3, 3], [0, 1]]
    assert all(len(set(got[:, b])) == 3 for b in range(2))
    assert A(R.categorical(R.key(1), lg, axis=0, shape=(2, 4), replace=False)).tolist() == [
        [1, 0, 1, 0],
        [0, 1, 0, 1],
    ]
    with pytest.raises(ValueError, match="cannot exceed number of categories"):
        R.categorical(R.key(1), lg, shape=(5, 2), replace=False)


def test_complex_normal_has_independent_parts_of_variance_half_as_jax():
    # Values recorded from JAX 0.10.2: (normal(k_re) + 1j normal(k_im)) / sqrt(2), split keys.
    got = A(R.normal(R.key(3), (3,), np.complex64))
    assert got.dtype == np.complex64
    want = np.complex64([-1.6817402 - 1.3740652j, -1.206442 + 0.07411618j, -0.34746975 - 0.0336509j])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="must be a float or complex dtype, got int32"):
        R.normal(R.key(3), (3,), np.int32)


def test_random_gamma_grad_is_jaxs_series_and_continued_fraction():
    # Values recorded from JAX 0.10.2 (series for x <= 1 or x <= a, continued fraction beyond; 0 at
    # x == 0, NaN for a <= 0 or NaN), to a few ulps; float16 is computed in float32.
    a = np.float32([0.5, 2.0, 2.0, 5.0, 1.0, -1.0, 3.0])
    x = np.float32([0.3, 2.0, 7.5, 1.0, 0.0, 1.0, np.nan])
    want = [
        1.009802222251892,
        1.0862085819244385,
        1.9536043405532837,
        0.41468819975852966,
        0.0,
        np.nan,
        np.nan,
    ]
    np.testing.assert_allclose(A(lax.random_gamma_grad(a, x)), np.float32(want), rtol=3e-7)
    half = lax.random_gamma_grad(np.float16(2.0), np.float16(3.0))
    assert half.dtype == np.float16 and float(half) == float(np.float16(1.322))
    text = str(jax.make_jaxpr(lax.random_gamma_grad)(a, x))
    assert text.count("while[") == 2 and "random_gamma_grad" not in text


def test_rng_uniform_stages_jaxs_primitive_and_draws_in_range():
    # JAX 0.10.2's make_jaxpr (recorded); its numbers are XLA's hidden state, so only ranges are checked.
    want = "{ lambda ; a:f32[] b:f32[]. let c:f32[3] = rng_uniform[shape=(3,)] a b in (c,) }"
    assert str(jax.make_jaxpr(lambda a, b: lax.rng_uniform(a, b, (3,)))(np.float32(0), np.float32(1))) == want
    u = A(lax.rng_uniform(np.float32(2), np.float32(3), (4, 5)))
    assert u.shape == (4, 5) and u.dtype == np.float32 and ((u >= 2) & (u < 3)).all()
    w = lax.rng_uniform(0.0, 1.0, (2,))
    assert w.dtype == np.float32 and w.weak_type
    i = A(lax.rng_uniform(np.int32(3), np.int32(6), (50,)))
    assert i.dtype == np.int32 and set(i.tolist()) <= {3, 4, 5}
    j = A(jax.jit(lambda a: lax.rng_uniform(a, a + 1, (3,)))(np.float32(5)))
    assert ((j >= 5) & (j < 6)).all()
    with pytest.raises(ValueError, match="must be scalars"):
        lax.rng_uniform(np.zeros(2, np.float32), np.float32(1), (3,))


def test_gamma_grads_map_the_derivative_and_hoist_its_invariants_as_jax():
    # Values recorded from JAX 0.10.2. Its grad of gamma maps random_gamma_grad over the samples (a
    # scan, on CPU) whose known body's const-only part (-log(finfo.max)) runs once before the loop.
    a = np.float32([0.5, 2.0, 7.0])
    g = jax.grad(lambda a: R.gamma(R.key(0), a).sum())(a)
    np.testing.assert_allclose(A(g), np.float32([1.7750096, 1.0179105, 0.9073702]), rtol=2e-6)
    lg = jax.grad(lambda a: R.loggamma(R.key(1), a).sum())(a)
    np.testing.assert_allclose(A(lg), np.float32([7.8165874, 0.65582776, 0.12046623]), rtol=2e-6)
    text = str(jax.make_jaxpr(jax.grad(lambda a: R.gamma(R.key(0), a).sum()))(a))
    before_scan = text[: text.index("scan[")]
    assert "neg" in before_scan.rsplit("random_gamma", 1)[1] and "num_consts=1" in text


def test_clone_is_an_identity_that_stages_random_clone():
    # JAX 0.10.2 stages random_clone on typed keys and on raw key data alike (make_jaxpr recorded).
    k = R.key(7)
    same(R.key_data(R.clone(k)), R.key_data(k))
    same(R.clone(R.key_data(k)), R.key_data(k))
    assert (
        str(jax.make_jaxpr(R.clone)(k))
        == "{ lambda ; a:key<fry>[]. let b:key<fry>[] = random_clone a in (b,) }"
    )
    raw = jax.make_jaxpr(R.clone)(np.uint32([0, 7]))
    assert str(raw) == "{ lambda ; a:u32[2]. let b:u32[2] = random_clone a in (b,) }"
    keys = R.split(k, 3)
    same(R.key_data(jax.vmap(R.clone)(keys)), R.key_data(keys))
    same(jax.vmap(R.clone, 1, 1)(A(R.key_data(keys)).T), A(R.key_data(keys)).T)
    # compiled: the physical program drops it; the draws from a clone are the key's own
    same(jax.jit(lambda k: R.normal(R.clone(k), (3,)))(k), R.normal(k, (3,)))
    out, tan = jax.jvp(lambda x: (R.clone(R.key_data(k)), x * 2.0), (1.0,), (1.0,))
    assert tan[0].dtype == core.float0


def test_typed_key_jaxprs_are_jaxs():
    # Recorded from JAX 0.10.2 (make_jaxpr with typed keys as arguments).
    want = {
        "split": "{ lambda ; a:key<fry>[]. let\n    b:key<fry>[2] = random_split[shape=(2,)] a\n  in (b,) }",
        "fold_in": "{ lambda ; a:key<fry>[] b:i32[]. let\n    c:u32[] = convert_element_type[new_dtype=uint32 "
        "weak_type=False] b\n    d:key<fry>[] = random_fold_in a c\n  in (d,) }",
        "bits": "{ lambda ; a:key<fry>[]. let\n    b:u32[2] = random_bits[bit_width=32 shape=(2,)] a\n  in (b,) }",
    }
    k = R.key(0)
    assert str(jax.make_jaxpr(lambda k: R.split(k))(k)) == want["split"]
    assert str(jax.make_jaxpr(lambda k, d: R.fold_in(k, d))(k, 3)) == want["fold_in"]
    assert str(jax.make_jaxpr(lambda k: R.bits(k, (2,)))(k)) == want["bits"]


def test_compiled_programs_on_typed_keys_match_eager():
    from engine import random_lowering

    k = R.key(0)

    def f(k):
        a, b = R.split(k)
        return R.split(a, 3), R.normal(b, (4,)), R.randint(R.fold_in(k, 5), (3,), 0, 10)

    closed = jax.make_jaxpr(f)(k)
    physical = random_lowering.physical_program(closed)
    assert "key<fry>" not in str(physical) and "threefry2x32" in str(physical)
    exe = jax.jit(f).lower(k).compile()
    got, want = exe(k), f(k)
    same(R.key_data(got[0]), R.key_data(want[0]))
    same(got[1], want[1])
    same(got[2], want[2])
    assert not [fb for fb in exe.exe.fallbacks if "interpreter" in fb]

    # Keys carried through control flow, scattered, selected, concatenated: compiled on key data too.
    def loops(k, ks):
        carried = lax.fori_loop(0, 3, lambda i, c: R.split(c)[0], k)
        _, bits = lax.scan(lambda c, kk: (c, R.bits(kk)), 0, ks)
        chosen = lax.cond(True, lambda k: R.fold_in(k, 3), lambda k: k, k)
        stacked = jnp.concatenate([ks.at[1].set(k), jnp.where(False, k, chosen)[None]])
        return carried, bits, stacked

    ks = R.split(R.key(5), 3)
    exe = jax.jit(loops).lower(k, ks).compile()
    assert not [fb for fb in exe.exe.fallbacks if "interpreter" in fb]
    for g, w in zip(exe(k, ks), loops(k, ks)):
        same(R.key_data(g) if rk.is_typed(g) else g, R.key_data(w) if rk.is_typed(w) else w)

    # An operation on keys without a rule on key data (stack): that program runs interpreted, correctly.
    closed = jax.make_jaxpr(lambda a, b: jnp.stack([a, b]))(k, R.key(1))
    with pytest.raises(NotImplementedError, match="typed PRNG keys"):
        random_lowering.physical_program(closed)
    same(R.key_data(jax.jit(lambda a, b: jnp.stack([a, b]))(k, R.key(1))), np.uint32([[0, 0], [0, 1]]))


def test_warm_jit_calls_with_typed_keys_take_the_fast_path():
    from engine import jit_runtime

    f = jax.jit(lambda k, x: x + R.normal(k, (3,)))
    k, x = R.key(0), Array(np.ones(3, np.float32))
    first = A(f(k, x))
    jit_runtime.wait_for_compiles()  # (the first call may have run interpreted while they compiled)
    # the kernels fuse sqrt(2) * erf_inv(u) + x, as XLA does (the interpreter tier does not fuse
    # across the nested jit of normal: README)
    want = A(f(k, x))
    same(want, first, 1)
    same(want, A(R.normal(k, (3,))) + 1, 1)
    for _ in range(3):  # the later calls go straight to the executable, with the keys' storage
        same(f(k, x), want)
    assert any(sig and sig[0] == ((), "key<fry>", False) for sig in f._fast)


def test_typed_keys_through_eval_shape_and_device_put():
    ks = R.split(R.key(0), 4)
    s = jax.eval_shape(lambda k: R.split(k), ks[0])
    assert s.shape == (2,) and s.dtype == ks.dtype
    put = jax.device_put(ks)  # (keys stay host arrays)
    assert put.dtype == ks.dtype and np.array_equal(A(R.key_data(put)), A(R.key_data(ks)))
