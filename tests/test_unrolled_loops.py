"""Loops over small arrays compile whole (``engine/backends/numba_unrolled.py``): an RK4
``fori_loop`` over an ``f32[2]`` state, its gradient's two scans and its ``vmap`` are one kernel
each, with no body compiled as a program of its own and driven from a host loop (8 numba compiles
a loop, and a host step per iteration, made the playground's first run of such a script hit its
time limit). Values are JAX 0.10.2's (``jax.numpy`` on the same script), bit for bit."""

import re

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from conftest import numba_backend

nb_jit = numba_backend()


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kernels"))


def f(y, k):
    return jnp.array([y[1], -k * y[0] - 0.1 * y[1]])


def rk4(y0, k, dt=0.01, n=500):
    def body(i, y):
        k1 = f(y, k)
        k2 = f(y + dt / 2 * k1, k)
        k3 = f(y + dt / 2 * k2, k)
        k4 = f(y + dt * k3, k)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

    return lax.fori_loop(0, n, body, y0)


Y0 = np.array([1.0, 0.0], np.float32)
CASES = {  # name -> (function, argument, JAX's result as float32 bytes in hex)
    "rk4": (lambda k: rk4(Y0, k), np.float32(2.0), "833a123f711c47bf"),
    "grad": (jax.grad(lambda k: rk4(Y0, k)[0]), np.float32(2.0), "ab4b71bf"),
    "vmap": (
        jax.vmap(lambda k: rk4(Y0, k)),
        np.linspace(1.0, 3.0, 5, dtype=np.float32),
        "9913373e03c63f3f4658433f2825203e833a123f711c47bf2fea4dbc65849dbfef630bbf740770bf",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_small_array_loops_compile_whole(name):
    fn, arg, _ = CASES[name]
    closed = jax.make_jaxpr(fn)(arg)
    scans = str(closed).count("scan[")
    program = nb_jit.NumbaBackend().lower_program(closed, name)
    src = program.source
    # every scan one kernel looping over its 500 steps; no body compiled apart (a ``sub`` called
    # from a host loop)
    assert len(re.findall(r"^    for i in range\(500( - 1, -1, -1)?\):", src, re.M)) == scans > 0, src
    assert "sub" not in src and "for i" not in src.split("def build(env):")[1], src


@pytest.mark.parametrize("name", CASES)
def test_small_array_loops_values(name):
    fn, arg, want = CASES[name]
    assert np.asarray(jax.jit(fn)(arg)).tobytes().hex() == want
    assert np.asarray(fn(arg)).tobytes().hex() == want  # (eagerly: the loop runs as its jit)


def test_small_array_while_declines_cleanly():
    """A body the unrolled form has no rule for (a dynamic index) still compiles, the old way."""

    def body(i, y):
        return y.at[i % 3].add(1.0)

    g = jax.jit(lambda y: lax.fori_loop(0, 7, body, y))
    np.testing.assert_array_equal(np.asarray(g(np.zeros(3, np.float32))), [3.0, 2.0, 2.0])


def test_in_order_sums_compile_once_for_every_layout():
    """``fma_in_order`` runs one specialization whatever its operands' layout and writability: a
    layout first met inside the sandbox would have to be compiled and cached there, which its
    read-only file system refuses (the run failed)."""
    pytest.importorskip("numba")
    from engine.backends import numba_sum

    x = np.arange(18, dtype=np.float32).reshape(2, 9)
    ro = x.copy()
    ro.flags.writeable = False
    want = numba_sum.fma_in_order(x, x, None, True)
    start = np.broadcast_to(np.float32(1), (2,))  # (a read-only view)
    for a in (x, ro, np.asfortranarray(x), np.asfortranarray(ro), x[:, ::1]):
        np.testing.assert_array_equal(numba_sum.fma_in_order(a, a, None, True), want)
        np.testing.assert_array_equal(numba_sum.fma_in_order(a, a, start, False), want + 1)
    assert len(numba_sum._rows.signatures) == 1


def rows_body(c, x):
    """A scan body with rows of every kind: slices, pads, concatenations, reversals, transposes,
    selects, integer arithmetic, a sum of one element, multiply-adds."""
    a, n = c
    b = jnp.concatenate([a[1:], a[:1]], 0) * 0.5 + jnp.pad(x, (1, 0))[None, 1:] * a
    b = jnp.where(b > 0.1, b, -b)[::-1].T.T - a[:1].sum(0)
    n = n * 3 + (n > 4).astype(jnp.int32) - n // 2
    return (b * 1.01, n), b[0, 0] + x[1]


ROWS_ARGS = (
    np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2),
    np.arange(2, dtype=np.int32),
    np.linspace(0, 2, 40, dtype=np.float32).reshape(20, 2),
)


def test_unrolled_body_computes_what_the_body_program_does(monkeypatch):
    """``rows_body``'s rows unrolled give the bits of the body compiled as its own program (the
    form used before, still used beyond the size limits)."""
    from engine.backends import numba_unrolled

    def run(a, n, xs):
        return lax.scan(rows_body, (a, n), xs)

    args = ROWS_ARGS
    closed = jax.make_jaxpr(run)(*args)
    assert "sub" not in nb_jit.NumbaBackend().lower_program(closed, "run").source
    backend = nb_jit.NumbaBackend()
    got = backend.compile(closed, "run")(*args)
    monkeypatch.setattr(numba_unrolled, "MAX_ELEMENTS", 0)  # (every value too large: declined)
    fresh = nb_jit.NumbaBackend()
    assert "sub" in fresh.lower_program(closed, "run").source
    want = fresh.compile(closed, "run")(*args)
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
