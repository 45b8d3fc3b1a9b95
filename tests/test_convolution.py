"""lax.conv_general_dilated: the numpy implementation against a direct loop over output elements,
derivatives against finite differences (check_grads, to second order, both operands), vmap against
a Python loop (every combination of mapped operands, with feature and batch groups), and jit
against eager. Values and jaxprs against JAX 0.10.2 are in tests/jax_reference (topic ``conv``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine import lax
from engine.test_util import check_batching, check_grads

# (lhs shape, rhs shape, params): canonical NCHW/OIHW unless dimension_numbers say otherwise.
CASES = {
    "same_1d": ((2, 3, 7), (2, 3, 3), dict(window_strides=(1,), padding="SAME")),
    "strided_dilated_2d": (
        (2, 2, 6, 5),
        (3, 2, 2, 3),
        dict(window_strides=(2, 1), padding=((1, 2), (-1, 1)), lhs_dilation=(1, 2), rhs_dilation=(2, 1)),
    ),
    "nhwc_same_lower": (
        (1, 5, 6, 2),
        (3, 2, 2, 4),
        dict(window_strides=(1, 2), padding="SAME_LOWER", dimension_numbers=("NHWC", "HWIO", "NHWC")),
    ),
    "feature_groups": (
        (2, 4, 5, 5),
        (6, 2, 3, 2),
        dict(window_strides=(1, 1), padding="SAME", feature_group_count=2),
    ),
    "batch_groups": (
        (4, 2, 5, 4),
        (6, 2, 2, 2),
        dict(window_strides=(1, 2), padding="VALID", batch_group_count=2),
    ),
    "transposed_3d": (
        (1, 2, 3, 2, 3),
        (2, 2, 2, 1, 2),
        dict(window_strides=(1, 1, 1), padding=((1, 1), (0, 0), (1, 0)), lhs_dilation=(2, 1, 2)),
    ),
}


def _args(lhs_shape, rhs_shape, seed=0):
    r = np.random.RandomState(seed)
    return r.randn(*lhs_shape).astype(np.float32), r.randn(*rhs_shape).astype(np.float32)


def _reference(x, w, window_strides, padding, lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
               feature_group_count=1, batch_group_count=1):  # fmt: skip
    """XLA's convolution semantics, one output element at a time (float64)."""
    dn = lax.conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    x = np.transpose(x, dn.lhs_spec).astype(np.float64)
    w = np.transpose(w, dn.rhs_spec).astype(np.float64)
    nsp = x.ndim - 2
    lhs_dilation = lhs_dilation or (1,) * nsp
    rhs_dilation = rhs_dilation or (1,) * nsp
    if isinstance(padding, str):
        window = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], rhs_dilation)]
        padding = lax.padtype_to_pads(x.shape[2:], window, window_strides, padding)
    n, c = x.shape[:2]
    o, i = w.shape[:2]
    dilated = [(s - 1) * d + 1 for s, d in zip(x.shape[2:], lhs_dilation)]
    padded = [s + lo + hi for s, (lo, hi) in zip(dilated, padding)]
    window = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], rhs_dilation)]
    out_sp = [max(0, (p - k) // s + 1) for p, k, s in zip(padded, window, window_strides)]
    n_out = n // batch_group_count
    out = np.zeros((n_out, o, *out_sp))
    o_per_fg, o_per_bg = o // feature_group_count, o // batch_group_count
    for b, f, *pos in itertools.product(range(n_out), range(o), *map(range, out_sp)):
        g = f // o_per_fg
        src_b = (f // o_per_bg) * n_out + b
        acc = 0.0
        for ci, *k in itertools.product(range(i), *map(range, w.shape[2:])):
            idx = []
            for p, kk, s, rd, ld, (lo, _), size in zip(
                pos, k, window_strides, rhs_dilation, lhs_dilation, padding, x.shape[2:]
            ):
                q = p * s + kk * rd - lo  # position in the dilated input
                if q < 0 or q % ld or q // ld >= size:
                    break
                idx.append(q // ld)
            else:
                acc += x[(src_b, g * i + ci, *idx)] * w[(f, ci, *k)]
        out[(b, f, *pos)] = acc
    return np.transpose(out, np.argsort(dn.out_spec))


@pytest.mark.parametrize("name", CASES)
def test_matches_direct_loop(name):
    lhs_shape, rhs_shape, params = CASES[name]
    x, w = _args(lhs_shape, rhs_shape)
    got = lax.conv_general_dilated(x, w, **params)
    want = _reference(x, w, **params)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_check_grads(name):
    lhs_shape, rhs_shape, params = CASES[name]
    x, w = _args(lhs_shape, rhs_shape)
    check_grads(lambda x, w: lax.conv_general_dilated(x, w, **params), (x, w), order=2, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0), (2, 1)])
def test_vmap_matches_loop(name, in_axes):
    lhs_shape, rhs_shape, params = CASES[name]
    x, w = _args(lhs_shape, rhs_shape)
    xs = np.stack([x, 2 * x + 1, -x], axis=in_axes[0]) if in_axes[0] is not None else x
    ws = np.stack([w, -w, w * w], axis=in_axes[1]) if in_axes[1] is not None else w
    check_batching(
        lambda x, w: lax.conv_general_dilated(x, w, **params), (xs, ws), in_axes, atol=1e-4, rtol=1e-4
    )


@pytest.mark.parametrize("name", CASES)
def test_jit_matches_eager_with_derivatives(name):
    lhs_shape, rhs_shape, params = CASES[name]
    x, w = _args(lhs_shape, rhs_shape)

    def loss(x, w):
        return jnp.sum(jnp.tanh(lax.conv_general_dilated(x, w, **params)))

    eager = engine.value_and_grad(loss, (0, 1))(x, w)
    jitted = engine.jit(engine.value_and_grad(loss, (0, 1)))(x, w)
    for a, b in zip(engine.tree_util.tree_leaves(eager), engine.tree_util.tree_leaves(jitted)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)


def test_jnp_convolve_correlate_match_numpy():
    r = np.random.RandomState(1)
    for na, nv in [(7, 3), (3, 7), (5, 5), (1, 4), (6, 2)]:
        a, v = r.randn(na).astype(np.float32), r.randn(nv).astype(np.float32)
        for mode in ("full", "same", "valid"):
            np.testing.assert_allclose(
                jnp.convolve(a, v, mode), np.convolve(a, v, mode), rtol=1e-5, atol=1e-5
            )
            np.testing.assert_allclose(
                jnp.correlate(a, v, mode), np.correlate(a, v, mode), rtol=1e-5, atol=1e-5, err_msg=mode
            )
    z = (r.randn(4) + 1j * r.randn(4)).astype(np.complex64)
    np.testing.assert_allclose(jnp.correlate(z, z[:2], "full"), np.correlate(z, z[:2], "full"), rtol=1e-5)


def test_convolve_gradients_and_vmap():
    a, v = _args((6,), (3,))
    check_grads(lambda a, v: jnp.convolve(a, v, "same"), (a, v), order=2, atol=1e-2, rtol=1e-2)
    check_grads(lambda a, v: jnp.correlate(v, a, "full"), (a, v), order=1, atol=1e-2, rtol=1e-2)
    check_batching(lambda a, v: jnp.correlate(a, v, "same"), (np.stack([a, a[::-1]]), v), (0, None))


def test_estimated_cost_counts_two_flops_per_multiply_add():
    from engine.inspect.cost import eqn_cost

    x, w = np.ones((2, 4, 6, 6), np.float32), np.ones((6, 2, 3, 3), np.float32)
    jaxpr = engine.make_jaxpr(
        lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)
    )(x, w).jaxpr
    [eqn] = jaxpr.eqns
    cost = eqn_cost(eqn)
    assert cost.flops == 2 * (2 * 6 * 6 * 6) * (2 * 3 * 3)  # outputs x (in features per group x window)
    assert cost.bytes == 4 * (x.size + w.size + 2 * 6 * 6 * 6)
