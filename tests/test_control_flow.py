"""lax control flow: values, grads, vmaps, under jit (numba and interpreter) and eagerly."""

import importlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.core import Array
from conftest import numba_backend

jit_mod = importlib.import_module("engine.jit")
f32 = lambda v: Array(np.asarray(v, np.float32))


def piecewise(x):
    return lax.cond(lax.gt(x, 0.0), lambda y: lax.mul(y, y), lambda y: lax.neg(lax.sin(y)), x)


@pytest.fixture(params=["numba", "interpreter"])
def backend(request, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kernels"))
    if request.param == "interpreter":
        jit_mod.set_backend(jit_mod.Interpreter())
    else:
        nb = numba_backend()
        jit_mod.set_backend(nb.NumbaBackend())
    yield request.param
    jit_mod.set_backend(None)


@pytest.mark.parametrize("x", [2.0, -1.0])
def test_cond_value_grad_jit(backend, x):
    want = x * x if x > 0 else -np.sin(x)
    dwant = 2 * x if x > 0 else -np.cos(x)
    assert np.isclose(float(piecewise(x)), want, rtol=1e-6)
    assert np.isclose(float(jax.jit(piecewise)(x)), want, rtol=1e-6)
    assert np.isclose(float(jax.grad(piecewise)(x)), dwant, rtol=1e-6)
    assert np.isclose(float(jax.jit(jax.grad(piecewise))(x)), dwant, rtol=1e-6)
    assert np.isclose(float(jax.grad(jax.jit(piecewise))(x)), dwant, rtol=1e-6)


def test_vmap_cond_batched_predicate_is_select(backend):
    xs = f32([2.0, -1.0, 0.5])
    want = np.where(np.asarray(xs) > 0, np.asarray(xs) ** 2, -np.sin(np.asarray(xs)))
    np.testing.assert_allclose(jax.vmap(piecewise)(xs), want, rtol=1e-6)
    jaxpr = str(jax.make_jaxpr(jax.vmap(piecewise))(xs))
    assert "select_n" in jaxpr and "cond[" not in jaxpr
    np.testing.assert_allclose(
        jax.jit(jax.vmap(jax.grad(piecewise)))(xs),
        np.where(np.asarray(xs) > 0, 2 * np.asarray(xs), -np.cos(np.asarray(xs))),
        rtol=1e-6,
    )


def test_vmap_cond_unbatched_predicate_stays_cond(backend):
    f = lambda p, x: lax.cond(p, lambda y: lax.mul(y, 2.0), lambda y: lax.neg(y), x)
    xs = f32([1.0, 2.0])
    out = jax.vmap(f, in_axes=(None, 0))(True, xs)
    np.testing.assert_allclose(out, [2.0, 4.0])
    assert "cond[" in str(jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0)))(True, xs))


def test_switch_clamps_index(backend):
    brs = [lambda x: x, lambda x: lax.neg(x), lambda x: lax.mul(x, 3.0)]
    assert float(lax.switch(2, brs, 2.0)) == 6.0
    assert float(lax.switch(7, brs, 2.0)) == 6.0
    assert float(jax.jit(lambda i, x: lax.switch(i, brs, x))(-3, 2.0)) == 2.0


def cumprod(x):
    return lax.scan(lambda c, xi: (lax.mul(c, xi), lax.mul(c, xi)), 1.0, x)


def test_scan_value_grad_vmap(backend):
    x = f32([1.0, 2.0, 3.0, 4.0])
    c, ys = cumprod(x)
    assert float(c) == 24.0 and np.asarray(ys).tolist() == [1.0, 2.0, 6.0, 24.0]
    c2, ys2 = jax.jit(cumprod)(x)
    np.testing.assert_allclose(ys2, ys)
    g = jax.grad(lambda x: cumprod(x)[0])(x)
    np.testing.assert_allclose(g, [24.0, 12.0, 8.0, 6.0])
    np.testing.assert_allclose(jax.jit(jax.grad(lambda x: cumprod(x)[0]))(x), g)
    np.testing.assert_allclose(jax.grad(jax.jit(lambda x: cumprod(x)[0]))(x), g)
    np.testing.assert_allclose(
        jax.vmap(lambda x: cumprod(x)[1])(f32([[1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0]])),
        [[1.0, 2.0, 6.0, 24.0], [2.0, 6.0, 24.0, 120.0]],
    )
    _, yr = lax.scan(lambda c, x: (lax.add(c, x), c), 0.0, x, reverse=True)
    assert np.asarray(yr).tolist() == [9.0, 7.0, 4.0, 0.0]


def test_grad_of_jitted_scan_whose_carry_starts_known(backend):
    # Horner's rule from a zero carry: the carry's tangent starts as a known zero but the body makes
    # it unknown, so the unknown scan reads a known input (it must become a residual of the jit).
    def polyval(p, x):
        y, _ = lax.scan(lambda y, c: (lax.add(lax.mul(y, x), c), None), lax.full_like(x, 0), p)
        return y

    p, x = f32([1.0, -2.0, 3.0]), f32([0.5, 2.0])
    loss = lambda p, x: lax.reduce_sum(polyval(p, x), (0,))
    want_p = [float(np.sum(np.asarray(x) ** k)) for k in (2, 1, 0)]
    want_x = 2 * np.asarray(p)[0] * np.asarray(x) + np.asarray(p)[1]
    jitted = jax.jit(polyval)
    for f in (loss, lambda p, x: lax.reduce_sum(jitted(p, x), (0,))):
        gp, gx = jax.grad(f, argnums=(0, 1))(p, x)
        np.testing.assert_allclose(gp, want_p, rtol=1e-6)
        np.testing.assert_allclose(gx, want_x, rtol=1e-6)
        np.testing.assert_allclose(jax.jit(jax.grad(f))(p, x), want_p, rtol=1e-6)


def test_scan_jvp_matches_finite_difference(backend):
    x = f32([0.3, -0.2, 0.5])
    f = lambda x: lax.scan(lambda c, xi: (lax.sin(lax.add(c, xi)), lax.mul(c, c)), 0.1, x)[1]
    _, t = jax.jvp(f, (x,), (f32([1.0, 0.0, 0.0]),))
    eps = 1e-3
    fd = (
        np.asarray(f(f32(np.asarray(x) + [eps, 0, 0]))) - np.asarray(f(f32(np.asarray(x) - [eps, 0, 0])))
    ) / (2 * eps)
    np.testing.assert_allclose(t, fd, rtol=1e-2, atol=1e-4)


def test_fori_loop_static_is_reverse_differentiable(backend):
    g = lambda x: lax.fori_loop(0, 3, lambda i, c: lax.mul(c, x), 1.0)
    assert float(g(2.0)) == 8.0
    assert float(jax.grad(g)(2.0)) == 12.0
    assert float(jax.jit(jax.grad(g))(2.0)) == 12.0
    assert "scan[" in str(jax.make_jaxpr(g)(2.0))
    s = lambda n: lax.fori_loop(0, 5, lambda i, c: lax.add(c, i), 0)
    assert int(s(0)) == 10


def test_while_loop_forward_mode_only(backend):
    w = lambda x: lax.while_loop(lambda c: lax.lt(c, 10.0), lambda c: lax.mul(c, x), 1.0)
    assert float(w(2.0)) == 16.0
    assert float(jax.jit(w)(2.0)) == 16.0
    p, t = jax.jvp(w, (2.0,), (1.0,))
    assert float(p) == 16.0 and float(t) == 32.0
    np.testing.assert_allclose(jax.vmap(w)(f32([2.0, 3.0])), [16.0, 27.0])
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        jax.grad(w)(2.0)


def _while_sin(x):
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * c[1]), (0, x))[1]


def _fd(f, x, t, eps=1e-6):
    """Central finite differences of ``f`` at ``x`` along ``t``, traced in float64 (a loop's body
    then computes in float64 too)."""
    x, t = np.asarray(x, np.float64), np.asarray(t, np.float64)
    with jax.enable_x64(True):
        return (np.asarray(f(x + eps * t)) - np.asarray(f(x - eps * t))) / (2 * eps)


def test_linearize_of_while_loop(backend):
    """As JAX's partial eval of a while: the known carries from a loop of the known part, the unknown
    ones from the whole loop staged again (values recorded from JAX 0.10.2, x32)."""
    y, f_jvp = jax.linearize(_while_sin, 1.3)
    np.testing.assert_allclose(y, 1.1044238, rtol=1e-6)
    np.testing.assert_allclose(f_jvp(1.0), 2.4115815, rtol=1e-6)
    np.testing.assert_allclose(f_jvp(1.0), _fd(_while_sin, 1.3, 1.0), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(f_jvp)(1.0), 2.4115815, rtol=1e-6)
    at = lambda x, t: jax.linearize(_while_sin, x)[1](t)
    np.testing.assert_allclose(jax.jit(at)(1.3, 1.0), 2.4115815, rtol=1e-6)
    np.testing.assert_allclose(jax.jacfwd(lambda x: at(x, 1.0))(1.3), -3.765654, rtol=1e-5)
    np.testing.assert_allclose(
        jax.vmap(lambda x: at(x, 1.0))(f32([1.3, 0.4])), [2.4115815, 0.01131633], rtol=1e-5
    )
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.grad(_while_sin)(1.3)


def test_linearize_of_while_loop_with_body_consts_and_float_condition(backend):
    w, x = f32([0.5, -0.3, 0.8]), f32([0.1, 0.2, 0.3])

    def k(w, x):
        return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, jnp.tanh(c[1] * w) + x), (0, x))[1]

    y, k_jvp = jax.linearize(k, w, x)
    np.testing.assert_allclose(y, [0.19636321, 0.15376052, 0.90207964], rtol=1e-5)
    ones = f32([1.0, 1.0, 1.0])
    np.testing.assert_allclose(k_jvp(ones, ones), [2.3037508, 0.889361, 3.220237], rtol=1e-5)
    wx = np.concatenate([w, x])
    np.testing.assert_allclose(
        k_jvp(ones, ones), _fd(lambda v: k(v[:3], v[3:]), wx, np.ones(6)), rtol=1e-4, atol=1e-6
    )
    m = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 1.7 + jnp.sin(c), x)
    y, m_jvp = jax.linearize(m, 1.1)
    np.testing.assert_allclose([y, m_jvp(1.0)], [14.02721, 6.390659], rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(m_jvp)(jnp.arange(3.0)), [0.0, 6.390659, 12.781318], rtol=1e-5)
    np.testing.assert_allclose(m_jvp(1.0), _fd(m, 1.1, 1.0), rtol=1e-4)


def test_linearize_of_jitted_fori_loop_with_dynamic_bounds(backend):
    """The split on a jit's equations (the loop inside the jit is a while: its bound is traced)."""
    g = jax.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * jnp.cos(c) + i, x))
    y, g_jvp = jax.linearize(lambda x: g(x, 4), 0.7)
    np.testing.assert_allclose([y, g_jvp(1.0)], [1.7978125, 0.5812468], rtol=1e-5)
    np.testing.assert_allclose(g_jvp(1.0), _fd(lambda x: g(x, 4), 0.7, 1.0), rtol=1e-4)
    at = jax.jit(lambda x, n, t: jax.linearize(lambda x: g(x, n), x)[1](t))
    np.testing.assert_allclose(at(0.7, 4, 1.0), 0.5812468, rtol=1e-5)
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work for lax.while_loop"):
        jax.grad(lambda x: g(x, 4))(0.7)


def test_fori_loop_dynamic_bounds_is_while(backend):
    f = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: lax.add(c, i), 0))
    assert int(f(5)) == 10
    assert "while[" in str(jax.make_jaxpr(lambda n: lax.fori_loop(0, n, lambda i, c: lax.add(c, i), 0))(5))


def test_map_and_closures(backend):
    y = f32([1.0, 2.0])
    out = jax.jit(lambda xs: lax.map(lambda v: lax.mul(v, y), xs))(f32([[1.0, 1.0], [2.0, 2.0]]))
    np.testing.assert_allclose(out, [[1.0, 2.0], [2.0, 4.0]])


def test_bodies_are_printed_inline():
    text = str(jax.make_jaxpr(piecewise)(1.0))
    assert "branches=(" in text and "sin" in text and "mul" in text


def test_errors():
    with pytest.raises(TypeError, match="cond branches must have equal output types but they differ"):
        lax.cond(True, lambda x: x, lambda x: lax.convert_element_type(x, np.int32), 1.0)
    with pytest.raises(
        TypeError, match="scan body function carry input and carry output must have equal types"
    ):
        lax.scan(lambda c, x: (lax.convert_element_type(c, np.int32), x), 1.0, f32([1.0]))


def _numba_exe(f, *args, rtol=2e-6):
    nb = numba_backend()
    args = [Array(np.asarray(a)) for a in args]
    closed = jax.jit(f).lower(*args).jaxpr
    exe = nb.NumbaBackend().compile(closed, "f")
    want = jit_mod.Interpreter().compile(closed, "f")(*[np.asarray(a) for a in args])
    got = exe(*[np.asarray(a) for a in args])
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=rtol)
    return exe


def test_scalar_loops_compile_to_one_kernel(tmp_path, monkeypatch):
    # Loops over scalars run inside one numba kernel (no host round trip per iteration, no
    # sub-executables), and agree with the interpreter.
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    import engine.numpy as jnp

    loops = [
        (lambda x: lax.fori_loop(0, 2000, lambda i, c: c * 0.999 + jnp.sin(i.astype(jnp.float32)), x), 1.0),
        (lambda x: lax.while_loop(lambda c: c[0] < 300, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)), 1.01),
        (lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs), np.arange(7, dtype=np.float32)),
        (
            lambda xs: lax.scan(lambda c, x: (c * 2 + x, c), np.int32(1), xs, reverse=True),
            np.arange(5, dtype=np.int32),
        ),
        (lambda n: lax.fori_loop(0, n, lambda i, c: c + i * i, 0), np.int32(50)),  # dynamic bounds
        (
            lambda x: lax.fori_loop(
                0,
                300,
                lambda i, c: lax.cond(
                    i % 3 == 0,
                    lambda c: c * 0.5,  # cond
                    lambda c: c + 1.0,
                    c,
                ),
                x,
            ),
            1.0,
        ),
        (
            lambda x: lax.fori_loop(
                0,
                50,
                lambda i, c: lax.switch(i % 4, [lambda c: c + 1, lambda c: c * 2, lambda c: c - 3], c),
                x,
            ),
            np.int32(1),
        ),
    ]
    for f, x in loops:
        exe = _numba_exe(f, x, rtol=1e-4)  # (2000 float32 steps: rounding accumulates)
        assert "def w" in exe.source and "sub" not in exe.source and "_sub" not in exe.source, exe.source
        assert exe.fallbacks == []


def test_elementwise_array_loops_run_blocked_in_one_kernel(tmp_path, monkeypatch):
    # An elementwise body over arrays: one kernel that runs every step on a block of elements
    # (array and scalar carries, shaped and scalar consts, sizes not a multiple of the block).
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    import engine.numpy as jnp

    numba_backend()
    monkeypatch.setattr(
        importlib.import_module("engine.backends.numba_codegen"), "PARALLEL_MIN", 1000
    )  # also through the thread split
    x = np.random.default_rng(0).normal(size=(37, 41)).astype(np.float32)
    w = np.random.default_rng(1).normal(size=(37, 41)).astype(np.float32)
    loops = [
        lambda x, w: lax.fori_loop(0, 20, lambda i, c: c * 0.9 + jnp.tanh(c) * w + i * 0.01, x),
        lambda x, w: lax.fori_loop(
            0, 7, lambda i, c: (c[0] + c[1] * w, c[1] * 2, c[2] + 1), (x, 1.5, np.int32(0))
        ),
        lambda x, w: lax.fori_loop(0, 5, lambda i, c: jnp.where(c > w, c - 1.0, c + w), x),
        lambda x, w: lax.fori_loop(
            0,
            np.int32(6) + (w[0, 0] > 9).astype(np.int32),  # dynamic: while
            lambda i, c: c * 1.01 + w,
            x,
        ),
        lambda x, w: lax.while_loop(lambda c: c[1] < 40.0, lambda c: (c[0] - w, c[1] * 2.0), (x, 1.0)),
        # no consts: the array carry is the kernel's first input (its block buffer is ``b0``)
        lambda x, w: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x),
    ]
    for f in loops:
        exe = _numba_exe(f, x, w, rtol=1e-5)
        assert "def w" in exe.source and "sub" not in exe.source, exe.source
        assert "for step in range(" in exe.source or "while True:" in exe.source


def test_non_elementwise_loops_keep_compiled_bodies(tmp_path, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    m = np.eye(4, dtype=np.float32) * 0.5
    exe = _numba_exe(
        lambda x, m: lax.fori_loop(0, 5, lambda i, c: c @ m + 1.0, x), np.ones((3, 4), np.float32), m
    )
    assert "def w" not in exe.source
    exe = _numba_exe(lambda x: lax.fori_loop(0, 5, lambda i, c: c - c.sum(), x), np.ones(4, np.float32))
    assert "def w" not in exe.source


def test_cond_batching_leaves_outputs_no_branch_batches_unmapped():
    # jacfwd vmaps a jvp with the primal outputs unmapped: a cond whose tangents alone are batched
    # must keep its primal outputs unbatched (this raised before), and its values are f''.
    f = lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: x**3, x)
    for x in (1.0, -1.0):
        want = 2 * np.cos(x) - x * np.sin(x) if x > 0 else 6 * x
        np.testing.assert_allclose(jax.hessian(f)(x), want, rtol=1e-5)
        np.testing.assert_allclose(jax.jacfwd(jax.grad(f))(x), want, rtol=1e-5)
    g = lambda x, y: lax.cond(y > 0, lambda x: (x * 2, y), lambda x: (x, y + 1), x)
    a, b = jax.vmap(g, in_axes=(0, None))(jnp.arange(3.0), 1.0)
    np.testing.assert_array_equal(a, [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(b, [1.0, 1.0, 1.0])


def _while_power(x):
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]


def _scan_sin(x):
    return lax.scan(lambda c, y: (jnp.sin(c) * y, c * y), x, jnp.arange(1.0, 4.0))[0]


def _special(x):
    import engine.scipy.special as sp

    return sp.gammaln(x) + sp.erf(x) + sp.digamma(x) + sp.i0e(x)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize(
    "f,modes",
    [
        (_while_power, ("fwd",)),
        (lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x), ("fwd", "rev")),
        (_scan_sin, ("fwd", "rev")),
        (_special, ("fwd", "rev")),
    ],
    ids=["while", "fori", "scan", "special"],
)
def test_check_grads_of_functions_that_jit(backend, f, modes, x64):
    """check_grads's float64 reference evaluates a jit's program, not the kernel compiled for the
    traced float32 types (which refused float64 operands: jit(while_loop) failed)."""
    from engine.test_util import check_grads

    with jax.enable_x64(x64):
        for g in (jax.jit(f), lambda x: jax.jit(f)(x) * 2.0):
            check_grads(g, (1.3,), order=2, modes=modes)
