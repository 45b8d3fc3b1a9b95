"""``bcoo_conv_general_dilated`` programs for ``sparse_cases.py`` (recorded from JAX 0.10.2 into
``sparse.json``): BCOO and dense operands in both roles, padding strings and pairs, an out-of-range
padding element, ``jit``, ``grad`` through the data, ``sparsify`` of ``lax.conv_general_dilated`` and
``jnp.convolve``, and what it refuses (strides, dilations, groups, leading axes, 2-D)."""

import numpy as np

X = np.array([[[0.0, 1.5, 0.0, -2.0, 0.0, 3.0, 0.0]]], np.float32)  # (1, 1, 7)
K = np.array([[[1.0, -3.0, 0.5]]], np.float32)  # (1, 1, 3)
K_SPARSE = np.array([[[2.0, 0.0, 0.0, -1.0]]], np.float32)  # (1, 1, 4)


def _conv(jax, lhs, rhs, padding="VALID", **kw):
    from jax.experimental import sparse

    return sparse.bcoo_conv_general_dilated(lhs, rhs, window_strides=(1,), padding=padding, **kw)


def _bcoo(jax, x, **kw):
    from jax.experimental import sparse

    return sparse.BCOO.fromdense(x, **kw)


def conv_sparse_lhs_valid(jax):
    out = _conv(jax, _bcoo(jax, X), K)
    return out, out.todense()


def conv_sparse_rhs_same(jax):
    out = _conv(jax, X, _bcoo(jax, K_SPARSE), "SAME")
    return out, out.todense()


def conv_both_sparse_pairs(jax):
    # nse 5 > 3 stored elements: the padding elements' products must vanish
    out = _conv(jax, _bcoo(jax, X, nse=5), _bcoo(jax, K_SPARSE), [(2, 1)])
    return out, out.todense()


def conv_same_lower_and_dense_both(jax):
    return _conv(jax, _bcoo(jax, X), K, "SAME_LOWER").todense(), _conv(jax, X, K, "VALID").todense()


def conv_wider_kernel_than_input(jax):
    return _conv(jax, _bcoo(jax, K), X, "VALID").todense(), _conv(jax, _bcoo(jax, K), X, [(6, 6)]).todense()


def conv_jit(jax):
    return jax.jit(lambda x, k: _conv(jax, x, k, "SAME").todense())(_bcoo(jax, X), K)


def conv_grad_through_data(jax):
    s = _bcoo(jax, X)
    cls = type(s)

    def f(data, k):
        return (_conv(jax, cls((data, s.indices), shape=s.shape), k, "SAME").todense() ** 2).sum()

    return jax.grad(f, argnums=(0, 1))(s.data, K)


def conv_sparsify_lax(jax):
    from jax.experimental import sparse

    f = sparse.sparsify(lambda x, k: jax.lax.conv_general_dilated(x, k, (1,), "SAME"))
    out = f(_bcoo(jax, X), K)
    return out, out.todense()


def conv_sparsify_convolve(jax):
    from jax.experimental import sparse

    f = sparse.sparsify(lambda x: jax.numpy.convolve(x, K[0, 0], mode="same"))
    out = f(_bcoo(jax, X[0, 0]))
    return out, out.todense()


def conv_refuses_strides(jax):
    from jax.experimental import sparse

    return sparse.bcoo_conv_general_dilated(_bcoo(jax, X), K, window_strides=(2,), padding="VALID")


def conv_refuses_lhs_dilation(jax):
    return _conv(jax, _bcoo(jax, X), K, [(0, 0)], lhs_dilation=(2,))


def conv_refuses_rhs_dilation(jax):
    return _conv(jax, _bcoo(jax, X), K, rhs_dilation=(2,))


def conv_refuses_feature_groups(jax):
    x = np.concatenate([X, X], axis=1)  # two features in two groups: a valid dense convolution
    return _conv(jax, _bcoo(jax, x), np.concatenate([K, K]), feature_group_count=2)


def conv_refuses_leading_axes(jax):
    return _conv(jax, _bcoo(jax, X), np.concatenate([K, K]))  # two output features


def conv_leading_axes_past_the_check(jax):
    return _conv(jax, _bcoo(jax, np.concatenate([X, X])), K)  # a batch of two


def conv_refuses_2d(jax):
    from jax.experimental import sparse

    return sparse.bcoo_conv_general_dilated(
        _bcoo(jax, X[..., None]), K[..., None], window_strides=(1, 1), padding="VALID"
    )


def conv_refuses_mixed_dtypes(jax):
    return _conv(jax, _bcoo(jax, X), K.astype(np.int32))


CASES = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn) and name.startswith("conv_") and fn.__module__ == __name__
}
