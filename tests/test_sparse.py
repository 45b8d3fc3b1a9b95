"""``jax.experimental.sparse`` on the engine: the programs of ``jax_reference/sparse_cases.py`` give
what JAX 0.10.2 gave (``sparse.json``: values, dtypes, BCOO buffers and reprs, jaxpr texts), the
sparse primitives' derivatives agree with finite differences, and BCOO arrays pass through
``jit``, ``vmap`` and ``grad``."""

from __future__ import annotations

import functools
import json
import pathlib
import re
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent / "jax_reference"
sys.path.insert(0, str(HERE))
import sparse_cases  # noqa: E402
from record_sparse import encode  # noqa: E402

RECORDED = json.loads((HERE / "sparse.json").read_text())


# (case -> rtol) lobpcg's float32 eigenvectors stop at its convergence tolerance, so they move with
# the BLAS kernels' summation order, which depends on the CPU (4e-4 relative on an AVX-512 machine)
RTOL = {"linalg_lobpcg": 1e-3}


def _same(got, want, where, rtol=2e-6):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]", rtol)
    elif "text" in want:
        assert got["text"] == want["text"], f"{where}:\n{got['text']}\n!=\n{want['text']}"
    elif "repr" in want:
        assert got["repr"] == want["repr"] and got["shape"] == want["shape"], where
        _same(got["data"], want["data"], where + ".data")
        _same(got["indices"], want["indices"], where + ".indices")
    else:
        assert (got["dtype"], got["shape"]) == (want["dtype"], want["shape"]), where
        np.testing.assert_allclose(
            np.asarray(got["value"]), np.asarray(want["value"]), rtol=rtol, atol=1e-6, err_msg=where
        )


@pytest.mark.parametrize("name", sorted(sparse_cases.CASES))
def test_case_gives_what_jax_gave(name, jax_on_engine):
    if "error" in RECORDED[name]:  # what JAX refuses: the same class of error
        with pytest.raises(Exception) as info:
            sparse_cases.CASES[name](jax_on_engine)
        assert type(info.value).__name__ == RECORDED[name]["error"], info.value
        return
    _same(encode(sparse_cases.CASES[name](jax_on_engine)), RECORDED[name], name, RTOL.get(name, 2e-6))


def test_every_case_is_recorded():
    assert set(RECORDED) == set(sparse_cases.CASES)


@pytest.fixture(scope="module")
def sp():
    from engine.experimental import sparse

    return sparse


def test_grads_through_the_sparse_primitives(sp):
    import engine
    import engine.numpy as jnp
    from engine.test_util import check_grads

    mat = sp.BCOO.fromdense(sparse_cases.M)
    ind, y, w = mat.indices, jnp.asarray(sparse_cases.Y), jnp.asarray(sparse_cases.W)

    def matvec(d, v):  # bcoo_transpose, bcoo_dot_general (and, reversed, bcoo_dot_general_sampled)
        return jnp.tanh(sp.BCOO((d, ind), shape=(3, 4)).T @ v)

    def matmat_left(d, x):  # dense @ sparse: bcoo_dot_general with swapped operands
        return jnp.sin(x.T @ sp.BCOO((d, ind), shape=(3, 4)).T)

    def roundtrip(m):  # bcoo_fromdense, bcoo_extract, bcoo_todense (no zero entry: no sparsity change)
        s = sp.BCOO.fromdense(m, nse=12)
        return (s * m).todense() ** 2

    check_grads(matvec, (mat.data, y), order=2)
    check_grads(matmat_left, (mat.data, w), order=1)
    check_grads(roundtrip, (jnp.asarray(sparse_cases.M + 0.5),), order=1)
    batched = sp.BCOO.fromdense(sparse_cases.B3, n_batch=1)
    check_grads(
        lambda d, x: sp.BCOO((d, batched.indices), shape=(3, 2, 3)) @ x, (batched.data, w[:3, :2]), order=1
    )
    check_grads(
        lambda a, b: sp.bcoo_dot_general_sampled(a, b, ind, dimension_numbers=(([1], [0]), ([], []))),
        (w[:3], w.T),
        order=1,
    )
    assert engine.grad(lambda d: matvec(d, y).sum())(mat.data).shape == (4,)


def test_jit_and_vmap_of_functions_of_bcoo(sp):
    import engine
    import engine.numpy as jnp

    batched = sp.BCOO.fromdense(sparse_cases.B3, n_batch=1)
    x = jnp.asarray(sparse_cases.W[:3])
    dense = np.einsum("bij,bj->bi", sparse_cases.B3, np.asarray(x))
    np.testing.assert_allclose(
        engine.jit(lambda m, v: engine.vmap(lambda a, b: a @ b)(m, v))(batched, x), dense, rtol=1e-6
    )
    out = engine.jit(lambda m: m.T)(sp.BCOO.fromdense(sparse_cases.M))
    assert isinstance(out, sp.BCOO) and out.shape == (4, 3)
    np.testing.assert_array_equal(out.todense(), sparse_cases.M.T)
    # vmap over the data only, indices fixed; and a vmapped BCOO result keeps its batch axis
    mat = sp.BCOO.fromdense(sparse_cases.M)
    stacked = engine.vmap(lambda d: sp.BCOO((d, mat.indices), shape=(3, 4)) * 2.0)(
        jnp.stack([mat.data, -mat.data])
    )
    assert stacked.shape == (2, 3, 4) and stacked.n_batch == 1
    np.testing.assert_array_equal(stacked.todense(), np.stack([2 * sparse_cases.M, -2 * sparse_cases.M]))
    with pytest.raises(ValueError, match="n_batch=0"):
        engine.vmap(lambda m: m.todense())(mat)


def test_sparsify_scans_over_a_sparse_batch(sp):
    """Beyond JAX (whose sparsify refuses scans with xs): the scanned BCOO loses its leading batch axis
    in the body, and stacked sparse outputs gain one."""
    import engine.numpy as jnp
    from engine import lax

    batch = sp.BCOO.fromdense(sparse_cases.B3, n_batch=1)
    v = jnp.arange(3.0)

    def f(mats):
        return lax.scan(lambda acc, m: (acc + m @ v, jnp.sin(m) * 2.0), jnp.zeros(2), mats)

    total, ys = sp.sparsify(f)(batch)
    np.testing.assert_allclose(total, np.einsum("bij,j->i", sparse_cases.B3, np.arange(3.0)), rtol=1e-6)
    assert isinstance(ys, sp.BCOO) and ys.n_batch == 1
    np.testing.assert_allclose(ys.todense(), 2 * np.sin(sparse_cases.B3), rtol=1e-6)


def test_errors_name_what_is_missing(sp):
    import engine
    import engine.numpy as jnp

    mat = sp.BCOO.fromdense(sparse_cases.M)
    with pytest.raises(NotImplementedError, match="sparse rule for exp"):
        sp.sparsify(jnp.exp)(mat)
    with pytest.raises(engine.errors.ConcretizationTypeError, match="nse"):
        engine.jit(lambda m: sp.BCOO.fromdense(m))(sparse_cases.M)
    with pytest.raises(ValueError, match="nse must be specified"):
        engine.jit(lambda m: m.sum_duplicates())(mat)
    with pytest.raises(NotImplementedError, match="contracting over dense"):
        sp.BCOO.fromdense(sparse_cases.B3, n_dense=1) @ jnp.ones((3, 2))


def test_out_of_range_padding_contributes_nothing(sp):
    mat = sp.BCOO.fromdense(sparse_cases.M, nse=6)
    assert mat.indices[-1].tolist() == [3, 4] and float(mat.data[-1]) == 0.0
    np.testing.assert_array_equal(mat.todense(), sparse_cases.M)
    np.testing.assert_array_equal(mat @ np.ones(4, np.float32), sparse_cases.M.sum(1))
    assert re.fullmatch(r"BCOO\(float32\[3, 4\], nse=6\)", repr(mat))


def test_forward_derivatives_of_sparse_sparse_products(sp):
    """bcoo_spdot_general's JVP (bilinear in the two data buffers) agrees with finite differences,
    also batched; reverse mode has no transpose rule, as in JAX (recorded in spdot_errors)."""
    import engine.numpy as jnp
    from engine.test_util import check_grads

    a = sp.BCOO.fromdense(sparse_cases.M)
    b = sp.BCOO.fromdense(sparse_cases.M.T + np.eye(4, 3, dtype=np.float32))
    batched = sp.BCOO.fromdense(sparse_cases.B3, n_batch=1)

    def product(d, e):
        return jnp.tanh((sp.BCOO((d, a.indices), shape=(3, 4)) @ sp.BCOO((e, b.indices), shape=(4, 3))).data)

    def batched_product(d):
        lhs = sp.BCOO((d, batched.indices), shape=(3, 2, 3))
        return sp.bcoo_dot_general(lhs, lhs, dimension_numbers=(([2], [2]), ([0], [0]))).todense()

    check_grads(product, (a.data, b.data), order=2, modes=["fwd"])
    # (quadratic in the data, so central differences with a large step are exact but for rounding)
    check_grads(batched_product, (batched.data,), order=1, modes=["fwd"], eps=1e-2)


def test_bcsr_times_a_scalar_is_not_implemented_as_in_jax():
    from engine.experimental import sparse

    # JAX 0.10.2 has no sparsify rule for mul on a BCSR (only BCOO has one), and BCSR keeps
    # JAXSparse's operators, which raise NotImplementedError naming the class and the operator.
    m = sparse.BCSR.fromdense(np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], np.float32))
    with pytest.raises(NotImplementedError, match=r"^sparse rule for mul is not implemented\.$"):
        sparse.sparsify(lambda a: a * 2.0)(m)
    for op, name in [
        (lambda a: a * 2.0, "__mul__"),
        (lambda a: 2.0 * a, "__rmul__"),
        (lambda a: -a, "__neg__"),
    ]:
        with pytest.raises(NotImplementedError, match=rf"sparse\.bcsr\.BCSR'>\.{name}$"):
            op(m)
    np.testing.assert_array_equal(
        sparse.sparsify(lambda a: a * 2.0)(sparse.BCOO.fromdense(m.todense())).todense(),
        [[0, 2, 0], [4, 0, 6]],
    )


@pytest.mark.parametrize("padding", ["VALID", "SAME", "SAME_LOWER", [(3, 0)], [(0, 4)], [(5, 5)]])
def test_bcoo_convolution_is_the_dense_convolution(sp, padding):
    """bcoo_conv_general_dilated agrees with lax.conv_general_dilated of the dense operands, for
    sparse inputs with padding elements (nse above the stored count), kernels longer than the input,
    and either operand dense."""
    from engine import lax

    rng = np.random.default_rng(7)
    for n, k in [(9, 3), (6, 4), (3, 5), (1, 1)]:
        x = (rng.standard_normal((1, 1, n)) * (rng.random((1, 1, n)) < 0.5)).astype(np.float32)
        w = (rng.standard_normal((1, 1, k)) * (rng.random((1, 1, k)) < 0.7)).astype(np.float32)
        want = np.asarray(lax.conv_general_dilated(x, w, (1,), padding))
        xs, ws = sp.BCOO.fromdense(x, nse=n), sp.BCOO.fromdense(w, nse=k)
        for lhs, rhs in [(xs, w), (x, ws), (xs, ws)]:
            got = sp.bcoo_conv_general_dilated(lhs, rhs, window_strides=(1,), padding=padding)
            assert got.shape == want.shape
            np.testing.assert_allclose(np.asarray(got.todense()), want, rtol=1e-6, atol=1e-6)


def test_bcoo_convolution_refuses_with_jax_messages(sp):
    # JAX 0.10.2's messages, word for word (its rhs_dilation refusal also says lhs_dilation).
    x, w = sp.BCOO.fromdense(sparse_cases.sparse_conv_cases.X), sparse_cases.sparse_conv_cases.K
    conv = functools.partial(sp.bcoo_conv_general_dilated, x, w, padding=[(0, 0)])
    for kw, msg in [
        ({"window_strides": (2,)}, "bcoo convolution with non-unit window_strides."),
        ({"window_strides": (1,), "lhs_dilation": (2,)}, "bcoo convolution with lhs_dilation."),
        ({"window_strides": (1,), "rhs_dilation": (2,)}, "bcoo convolution with lhs_dilation."),
    ]:
        with pytest.raises(NotImplementedError, match=f"^{re.escape(msg)}$"):
            conv(**kw)
    with pytest.raises(
        NotImplementedError, match=r"^bcoo convolution with leading dimensions other than \(1, 1\)$"
    ):
        sp.bcoo_conv_general_dilated(x, np.concatenate([w, w]), window_strides=(1,), padding="VALID")
