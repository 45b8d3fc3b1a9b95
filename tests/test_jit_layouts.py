"""jit on inputs that are views (a stride-0 broadcast from jnp.ones, transposes, slices): the
programs specialised on their layouts compute exactly what the contiguous program computes."""

import importlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp

from conftest import numba_backend
from engine.core import Array, get_aval

numba_jit = numba_backend()  # fails if numba is broken; skips only under JAXPLAY_TESTS_WITHOUT_NUMBA=1
layout_of = numba_jit.layout_of
numba_codegen = importlib.import_module("engine.backends.numba_codegen")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba_codegen, "RELAYOUT_MIN", 0)  # (small arrays here: views of any size)


BASE = np.random.default_rng(0).normal(size=(6, 12)).astype(np.float32)
VIEWS = {
    "ones": lambda: jnp.ones((6, 12)),
    "full": lambda: jnp.full((6, 12), 1.5),
    "row broadcast": lambda: jnp.broadcast_to(jnp.asarray(BASE[0]), (6, 12)),
    "column broadcast": lambda: jnp.broadcast_to(jnp.asarray(BASE[:, :1]), (6, 12)),
    "transposed": lambda: jnp.asarray(np.ascontiguousarray(BASE.T)).T,
    "sliced": lambda: jnp.asarray(np.concatenate([BASE, BASE], 1))[:, ::2],
    "column slice": lambda: jnp.asarray(np.concatenate([BASE, BASE], 1))[:, 3:15],
    "reversed": lambda: jnp.asarray(BASE)[::-1],
}
PROGRAMS = {
    # elementwise, a reduction, a re-indexing and a host matmul in one program (one compile per layout)
    "mixed": lambda x, y: (x * x + y * 2.0, jnp.sum(x * y, axis=0) + x[0], x.T * 3.0 - jnp.max(y, axis=1)),
    "matmul": lambda x, y: jnp.tanh(x @ y.T) + 1.0,
}
CASES = [(v, "mixed") for v in VIEWS] + [("transposed", "matmul"), ("ones", "matmul")]


@pytest.mark.parametrize("view,program", CASES)
def test_views_compute_what_contiguous_inputs_do(view, program):
    x = VIEWS[view]()
    c = Array(np.ascontiguousarray(np.asarray(x)))
    f = jax.jit(PROGRAMS[program])
    f(c, c)
    importlib_jit().wait_for_compiles()
    want = jax.tree_util.tree_map(np.asarray, f(c, c))  # (compiled: the first call may be interpreted)
    for args in [(x, x), (x, c)]:
        for _ in range(2):  # the first call may be interpreted while the kernels compile
            got = jax.tree_util.tree_map(np.asarray, f(*args))
            jax.tree_util.tree_map(
                lambda g, w: np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6), got, want
            )
        importlib_jit().wait_for_compiles()
        got = jax.tree_util.tree_map(np.asarray, f(*args))
        jax.tree_util.tree_map(np.testing.assert_array_equal, got, want)


def importlib_jit():
    import importlib

    return importlib.import_module("engine.jit")


def test_layouts_are_recognised():
    x = np.ones((4, 5), np.float32)
    aval = get_aval(x)
    assert layout_of(x, aval) is None
    assert layout_of(np.broadcast_to(np.float32(1), (4, 5)), aval) == ("b", ())
    assert layout_of(np.broadcast_to(np.arange(5, dtype=np.float32), (4, 5)), aval) == ("b", (1,))
    assert layout_of(np.ones((5, 4), np.float32).T, aval) == ("t", (1, 0))
    assert layout_of(np.ones((4, 10), np.float32)[:, ::2], aval) == ("s", (10, 2))
    assert layout_of(np.ones((4, 5), np.float32)[::-1], aval) == ("a",)


def test_transposed_elementwise_result_keeps_the_input_layout():
    x = jnp.asarray(np.ascontiguousarray(BASE.T)).T
    f = jax.jit(lambda x: x * 2.0 + 1.0)
    f(x)
    importlib_jit().wait_for_compiles()
    out = f(x)
    np.testing.assert_array_equal(np.asarray(out), BASE * 2.0 + 1.0)
    assert np.asarray(out).strides == np.asarray(x).strides  # computed in place order, not copied


def test_small_views_are_copied_not_dispatched(monkeypatch):
    monkeypatch.setattr(numba_codegen, "RELAYOUT_MIN", 1 << 14)
    f = jax.jit(lambda x: x * 2.0)
    assert "_relayout" not in f.lower(jnp.ones((8, 8))).source()  # a copy costs less than a dispatch
    assert "_relayout" in f.lower(jnp.ones((200, 200))).source()
    np.testing.assert_array_equal(np.asarray(f(jnp.ones((8, 8)))), np.full((8, 8), 2.0, np.float32))
