"""The jax.scipy.special functions composed of lax operations (engine/scipy/special_*.py):
derivatives (their custom JVP rules) against float64 finite differences, vmap against a loop, jit
against eager. Values against JAX itself are in test_jax_reference.py (topic 'special_more').

Derivatives and vmap run with jit disabled (the functions JAX jits inside would otherwise compile
numba kernels for float64 finite differences); the jit check covers the cheaper-to-compile ones."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.scipy import special as sp
from engine.test_util import check_batching, check_grads

X = np.array([0.4, 1.3, 2.5, 6.0], np.float32)
U = np.array([0.1, 0.35, 0.6, 0.9], np.float32)

# (function, args, derivative order checked)
CASES = {
    "erfcx": (sp.erfcx, (np.array([-1.5, 0.2, 3.0, 12.0], np.float32),), 2),
    "dawsn": (sp.dawsn, (np.array([-4.0, 0.5, 3.5, 7.0], np.float32),), 2),
    "owens_t": (sp.owens_t, (X - 2, np.array([0.5, -3.0, 1.5, 0.2], np.float32)), 1),
    "wofz_real_part": (lambda x, y: sp.wofz(x + 1j * y).real, (X - 1, U), 1),
    "expi": (sp.expi, (np.array([-3.0, 0.7, 3.0, 5.0], np.float32),), 2),
    "exp1": (sp.exp1, (X,), 1),  # E_1'' = -E_{-1}', and JAX's E_n is NaN for n < 0
    "expn": (lambda x: sp.expn(3, x), (X,), 1),
    "sici": (sp.sici, (np.array([-5.0, 0.5, 3.0, 9.0], np.float32),), 2),
    "spence": (sp.spence, (np.array([0.3, 0.7, 1.7, 3.0], np.float32),), 1),  # forward only (below)
    "fresnel": (sp.fresnel, (np.array([-2.0, 0.3, 1.7, 4.0], np.float32),), 2),
    # (second order would reverse-differentiate the parameter series' while loops: JAX refuses too)
    "hyp1f1_x": (lambda x: sp.hyp1f1(np.float32(1.2), np.float32(2.5), x), (X - 2,), 1),
    "hyp1f1_ab": (lambda a, b: sp.hyp1f1(a, b, np.float32(0.7)), (U + 1, X + 1), 1),
    "hyp2f1_x": (lambda x: sp.hyp2f1(np.float32(1.0), np.float32(1.5), np.float32(2.5), x), (U - 0.3,), 1),
    "hyp2f1_abc": (lambda a, b, c: sp.hyp2f1(a, b, c, np.float32(0.4)), (U + 1, X, X + 2), 1),
    "bessel_jn": (
        lambda z: sp.bessel_jn(z, v=3, n_iter=30),
        (np.array([2.5, 4.0, 6.0, 9.0], np.float32),),
        1,
    ),
    "sph_harm_y": (
        lambda t, p: sp.sph_harm_y(np.array([0, 1, 2, 3]), np.array([0, -1, 2, 1]), t, p).real,
        (U * 3, X),
        1,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args, order = CASES[name]
    # spence's reverse pass meets NaN partials of the pieces where() discards (0 * NaN).
    modes = ("fwd",) if name == "spence" else ("fwd", "rev")
    with engine.disable_jit():
        check_grads(f, args, order=order, modes=modes, atol=5e-3, rtol=5e-3, eps=1e-3)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"sph_harm_y"}))  # sph_harm_y takes 1-D arrays
def test_vmap_matches_loop(name):
    f, args, _ = CASES[name]
    with engine.disable_jit():
        check_batching(f, [np.stack([a, a * np.float32(0.9)]) for a in args], 0, atol=1e-5, rtol=1e-5)


def test_vmap_of_a_vmapped_while_loop():
    """expn's per-element while loops under an outer vmap (the inner predicate leads the carries)."""
    xs = np.stack([X, X * np.float32(0.9)])
    check_batching(lambda x: sp.expn(3, x), [xs], 0, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("name", ["erfcx", "dawsn", "owens_t", "sici", "fresnel", "bessel_jn", "spence"])
def test_jit_matches_eager(name):
    f, args, _ = CASES[name]
    with engine.disable_jit():
        want = engine.tree.leaves(f(*args))
    for got, w in zip(engine.tree.leaves(engine.jit(f)(*args)), want):
        np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=2e-6, atol=1e-7)


def test_closed_forms():
    with engine.disable_jit():
        _closed_forms()


def _closed_forms():
    np.testing.assert_allclose(np.asarray(sp.expn(0, np.float32(2.0))), np.exp(-2.0) / 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(sp.spence(np.float32(0.0))), np.pi**2 / 6, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(sp.hyp1f1(1.0, 1.0, np.float32(1.5))), np.exp(1.5), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(sp.hyp2f1(1.0, 1.0, 2.0, np.float32(0.5))), 2 * np.log(2), rtol=1e-6
    )
    np.testing.assert_allclose(np.asarray(sp.owens_t(np.float32(0.0), 1.0)), 0.125, rtol=1e-6)
    si, ci = sp.sici(np.float32(np.inf))
    assert (float(si), float(ci)) == (np.float32(np.pi / 2), 0.0)


def test_real_only_functions_refuse_complex():
    for f in (sp.dawsn, sp.expi, sp.exp1, sp.sici):
        with pytest.raises(ValueError, match="complex"):
            f(np.complex64(1j))
    with pytest.raises(TypeError, match="int32"):
        sp.spence(np.arange(3, dtype=np.int32))


def test_lpmn_derivatives_are_the_values_derivatives():
    """lpmn's second output (its own recurrences, negative orders included) is d/dz of its first,
    which autodiff takes through the value recurrences; both against scipy's."""
    scipy_special = pytest.importorskip("scipy.special")
    from engine.scipy.special_spherical import lpmn

    z = np.array([-0.7, 0.1, 0.5, 0.9])
    values, derivatives = lpmn(4, 4, z.astype(np.float32))
    by_autodiff = engine.vmap(engine.jacfwd(lambda x: lpmn(4, 4, x[None])[0][..., 0]))(z.astype(np.float32))
    np.testing.assert_allclose(np.moveaxis(np.asarray(by_autodiff), 0, -1), derivatives, rtol=2e-4, atol=2e-4)
    for k, x in enumerate(z):  # (scipy's lpmn went in 1.15: its successor, without the phase)
        want, want_d = scipy_special.assoc_legendre_p_all(4, 4, x, diff_n=1)
        np.testing.assert_allclose(np.asarray(values)[..., k], want[:, :5].T, rtol=2e-5, atol=2e-5)
        np.testing.assert_allclose(np.asarray(derivatives)[..., k], want_d[:, :5].T, rtol=2e-4, atol=2e-4)
