"""Programs on ``jax.experimental.sparse`` whose results JAX 0.10.2 recorded in ``sparse.json``
(``record_sparse.py``, run in JAX's venv) and ``tests/test_sparse.py`` replays on the engine. Each
case takes the ``jax`` module (JAX's or the engine's) and returns arrays, BCOO arrays or jaxpr texts.
"""

import numpy as np
import sparse_conv_cases
import sparse_linalg_cases

M = np.array([[0.0, 1.0, 0.0, 2.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0]], np.float32)
Y = np.array([3.0, 6.0, 5.0], np.float32)
B3 = np.array(
    [[[0, 1, 0], [2, 0, 0]], [[0, 0, 3], [0, 0, 0]], [[5, 0, 0], [0, 6, 7]]], np.float32
)  # (3, 2, 3): a batch of three 2x3 matrices
W = np.arange(12, dtype=np.float32).reshape(4, 3) / 4 - 1


def _sp(jax):
    from jax.experimental import sparse

    return sparse


def fromdense(jax):
    return _sp(jax).BCOO.fromdense(M)


def fromdense_padded(jax):
    return _sp(jax).BCOO.fromdense(M, nse=6)


def fromdense_batched(jax):
    return _sp(jax).BCOO.fromdense(B3, n_batch=1)


def fromdense_dense_axis(jax):
    return _sp(jax).BCOO.fromdense(B3, n_dense=1)


def todense_batched(jax):
    return _sp(jax).BCOO.fromdense(B3, n_batch=1, nse=3).todense()


def transpose_matvec(jax):
    return _sp(jax).BCOO.fromdense(M).T @ Y


def vec_mat(jax):
    return jax.numpy.asarray(Y) @ _sp(jax).BCOO.fromdense(M)


def mat_mat_both_sides(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    return sp @ W, jax.numpy.asarray(W).T @ sp.T


def batched_matmul(jax):
    sp = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return sp @ W[:3, :2]


def jit_grad_docs(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    return jax.jit(jax.grad(lambda y: (sp.T @ y).sum()))(Y)


def sparsify_docs(jax):
    import jax.numpy as jnp

    return _sp(jax).sparsify(lambda m, v: 2 * jnp.dot(jnp.log1p(m.T), v) + 1)(_sp(jax).BCOO.fromdense(M), Y)


def sparsify_unary_chain(jax):
    import jax.numpy as jnp

    f = _sp(jax).sparsify(lambda m: -(jnp.sin(m) * 3.0) + jnp.abs(m))
    return f(_sp(jax).BCOO.fromdense(M - 2 * (M > 1.5)))


def scalar_and_dense_multiply(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    return (sp * 2.0).todense(), (sp * M).todense(), (jax.numpy.asarray(M) * sp).data


def reduce_sums(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    b = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return sp.sum(0).todense(), sp.sum(1).todense(), sp.sum(), b.sum(0).todense(), b.sum((0, 2)).todense()


def sparse_grad(jax):
    X = _sp(jax).BCOO.fromdense(np.arange(6.0, dtype=np.float32))
    g = _sp(jax).grad(lambda X, y: X @ y)(X, np.arange(6.0, dtype=np.float32) + 1)
    return g, g.data


def sparse_value_and_grad(jax):
    X = _sp(jax).BCOO.fromdense(M)
    value, g = _sp(jax).value_and_grad(lambda X, y: ((X.T @ y) ** 2).sum())(X, Y)
    return value, g.data, g.indices


def grad_wrt_data(jax):
    sp = _sp(jax).BCOO.fromdense(M)

    def f(d, y):
        m = _sp(jax).BCOO((d, sp.indices), shape=(3, 4))
        return jax.numpy.sum(jax.numpy.tanh(m.T @ y))

    return jax.grad(f, argnums=(0, 1))(sp.data, Y)


def vmap_matvec(jax):
    sp = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return jax.vmap(lambda m, v: m @ v)(sp, W[:3])


def vmap_fromdense(jax):
    out = jax.vmap(lambda m: _sp(jax).BCOO.fromdense(m, nse=3))(B3)
    return out, out.todense()


def vmap_todense_of_data(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    return jax.vmap(lambda d: _sp(jax).BCOO((d, sp.indices), shape=(3, 4)).todense())(
        np.stack([sp.data, 2 * sp.data])
    )


def eye_and_empty(jax):
    s = _sp(jax)
    return (
        s.eye(3),
        s.eye(3, 4, k=1).todense(),
        s.eye(4, k=-2).todense(),
        s.eye(3, n_batch=1).todense(),
        s.empty((2, 3)),
    )


def random_bcoo(jax):
    s = _sp(jax)
    a = s.random_bcoo(jax.random.key(0), (4, 5), nse=3)
    b = s.random_bcoo(jax.random.key(1), (2, 3, 4), n_batch=1, nse=0.5)
    return a, b


DUP_DATA = np.array([1.0, 2.0, 0.0, 3.0, 4.0], np.float32)
DUP_INDICES = np.array([[2, 1], [0, 3], [1, 1], [2, 1], [3, 4]], np.int32)  # a repeat, a zero, padding


def _dup(jax):
    return _sp(jax).BCOO((DUP_DATA, DUP_INDICES), shape=(3, 4))


def sum_duplicates(jax):
    m = _dup(jax)
    return (
        m.sum_duplicates(),
        m.sum_duplicates(remove_zeros=False),
        m.sum_duplicates(nse=5),
        m.sum_duplicates(nse=1),
    )


def sort_indices(jax):
    m = _dup(jax).sort_indices()
    return m, m.indices_sorted


def sparsify_nonlinear_on_duplicates(jax):
    import jax.numpy as jnp

    return _sp(jax).sparsify(lambda m: jnp.sin(m))(_dup(jax)).todense()


def grad_through_sum_duplicates(jax):
    def f(d):
        m = _sp(jax).BCOO((d, DUP_INDICES), shape=(3, 4)).sum_duplicates(nse=3, remove_zeros=False)
        return (m.data**2).sum() + m.todense()[2, 1] * 3

    return jax.grad(f)(DUP_DATA)


def grad_through_sort_indices(jax):
    def f(d):
        m = _sp(jax).BCOO((d, DUP_INDICES), shape=(3, 4)).sort_indices()
        return (m.data * np.arange(5.0, dtype=np.float32)).sum()

    return jax.grad(f)(DUP_DATA)


def vmap_sum_duplicates(jax):
    data = np.stack([DUP_DATA, -2 * DUP_DATA])
    f = lambda d: _sp(jax).BCOO((d, DUP_INDICES), shape=(3, 4)).sum_duplicates(nse=4, remove_zeros=False)  # noqa: E731
    out = jax.vmap(f)(data)
    return out.data, out.indices, out.todense()


def random_bcoo_sorted(jax):
    return _sp(jax).random_bcoo(jax.random.key(3), (5, 6), nse=7, sorted_indices=True)


def bcsr_fromdense(jax):
    s = _sp(jax)
    m = s.BCSR.fromdense(M)
    p = s.BCSR.fromdense(M, nse=6)
    b = s.BCSR.fromdense(B3, n_batch=1)
    return (m, m.indices, m.indptr, p.indices, p.indptr, b, b.indices, b.indptr, b.todense(), p.todense())


def bcsr_matmul(jax):
    m = _sp(jax).BCSR.fromdense(M)
    b = _sp(jax).BCSR.fromdense(B3, n_batch=1)
    return m @ W, b @ W[:3, :2], m @ Y[:3].repeat(2)[:4]


def bcsr_grad_and_vmap(jax):
    m = _sp(jax).BCSR.fromdense(M)

    def f(d, x):
        return jax.numpy.sum(jax.numpy.sin(_sp(jax).BCSR((d, m.indices, m.indptr), shape=(3, 4)) @ x))

    g = jax.grad(f, argnums=(0, 1))(m.data, W)
    b = _sp(jax).BCSR.fromdense(B3, n_batch=1)
    return g, jax.vmap(lambda a, v: a @ v)(b, W[:3]), jax.jit(lambda a: a.todense())(m)


def bcsr_bcoo_conversions(jax):
    m = _sp(jax).BCSR.fromdense(M)
    c = m.to_bcoo()
    back = _sp(jax).BCSR.from_bcoo(_sp(jax).BCOO.fromdense(M))
    return c, back, back.indptr, _sp(jax).empty((2, 3), sparse_format="bcsr")


def jaxpr_bcsr(jax):
    m = _sp(jax).BCSR.fromdense(M)
    return str(jax.make_jaxpr(lambda a, x: a @ x)(m, W)), str(
        jax.make_jaxpr(lambda x: _sp(jax).BCSR.fromdense(x, nse=4))(M)
    )


def indexing_and_slicing(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    b = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return (
        sp[1],
        sp[1].todense(),
        sp[:, 1:3].todense(),
        sp[::2, ::3].todense(),
        b[2].todense(),
        b[:, 1],
        [r.todense() for r in sp],
    )


def structural_ops(jax):
    import jax.numpy as jnp
    from jax import lax

    s = _sp(jax)
    sp, b = s.BCOO.fromdense(M), s.BCOO.fromdense(B3, n_batch=1)
    f = s.sparsify(
        lambda m: (
            jnp.concatenate([m, m * 2.0]),
            jnp.concatenate([m, m], axis=1),
            m.reshape(4, 3),
            m.reshape(12),
            m[::-1, ::-1],
            m[None],
            lax.dynamic_slice(m, (1, 2), (2, 2)),
        )
    )
    g = s.sparsify(lambda m: (m.reshape(3, 6), jnp.concatenate([m, m]), m[:, ::-1], m[1:]))
    return (
        [x.todense() for x in f(sp)]
        + [x.todense() for x in g(b)]
        + [s.bcoo_squeeze(sp[None], dimensions=(0,))]
    )


def jit_dynamic_slice(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    f = jax.jit(lambda m, i: _sp(jax).bcoo_dynamic_slice(m, (i, 1), (2, 3)).todense())
    return f(sp, 0), f(sp, 1), f(sp, 5)


def more_sparse_jacfwd(jax):
    X = _sp(jax).BCOO.fromdense(M)
    j = _sp(jax).jacfwd(lambda X, y: X.T @ y)(X, Y)
    return j, j.data


def more_sparse_jacrev(jax):
    X = _sp(jax).BCOO.fromdense(M)
    return _sp(jax).jacrev(lambda X, y: X.T @ y, argnums=(0, 1))(X, Y)[1]


def more_grad_has_aux(jax):
    X = _sp(jax).BCOO.fromdense(M)
    g, aux = _sp(jax).grad(lambda X: ((X @ W).sum(), X.nse), has_aux=True)(X)
    return g.data, aux


def more_jit_closure(jax):
    X = _sp(jax).BCOO.fromdense(M)
    return jax.jit(lambda y: jax.numpy.sin(X.T @ y))(Y)


def more_vmap_in_axes_none(jax):
    X = _sp(jax).BCOO.fromdense(M)
    return jax.vmap(lambda x, y: x @ y, in_axes=(None, 0))(
        X, W.T[:, :4] if False else np.ones((5, 4), np.float32)
    )


def more_add_sparse_different(jax):
    a = _sp(jax).BCOO.fromdense(M)
    b = _sp(jax).BCOO.fromdense(M.T.reshape(3, 4) * 0 + np.eye(3, 4, dtype=np.float32))
    c = a + b
    return c, c.todense(), (a - b).todense()


def more_add_dense(jax):
    a = _sp(jax).BCOO.fromdense(M)
    return a + M, jax.numpy.asarray(M) + a


def more_mul_sparse_same(jax):
    a = _sp(jax).BCOO.fromdense(M)
    return (a * a).todense(), _sp(jax).sparsify(lambda x: x * x.T.T)(a).todense()


def more_astype_abs_neg(jax):
    a = _sp(jax).BCOO.fromdense(M - 2)
    return a.astype("int32"), abs(a).data, (-a).data, (a / 2.0).data, (a**2).data


def more_grad_sparsify_dense_arg(jax):
    a = _sp(jax).BCOO.fromdense(M)
    f = _sp(jax).sparsify(lambda m, v: jax.numpy.sum(jax.numpy.tanh(m @ v) ** 2))
    return jax.grad(f, argnums=1)(a, np.arange(4.0, dtype=np.float32) / 10)


def more_todense_repr_tracer(jax):
    a = _sp(jax).BCOO.fromdense(M)
    out = []
    jax.jit(lambda m: out.append(repr(m)) or m.data)(a)
    jax.vmap(lambda m: out.append(repr(m)) or m.data)(_sp(jax).BCOO.fromdense(B3, n_batch=1))
    return "\n".join(out)


def more_fromdense_errors(jax):
    try:
        _sp(jax).BCOO((np.ones(3), np.zeros((2, 2), np.int32)), shape=(3, 4))
    except Exception as e:
        return type(e).__name__ + ": " + str(e)


def more_bcoo_int_matmul(jax):
    a = _sp(jax).BCOO.fromdense(np.arange(12).reshape(3, 4))
    return a @ np.arange(4), 2 * a.T @ np.array([3, 4, 2])


def more_transpose_batched(jax):
    b = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    t = b.transpose((0, 2, 1))
    return t, t.todense(), b.sum(), b.sum(1).todense()


def more_dense_axis(jax):
    d = _sp(jax).BCOO.fromdense(B3, n_dense=1)
    return (
        d,
        d.todense(),
        (d * 2).data,
        (W[:2, :3].T @ d.reshape(3, 2, 3)[:, :, 0] if False else d.sum(0).todense()),
    )


def more_eye_variants(jax):
    s = _sp(jax)
    return (
        s.eye(4, 3, k=-1),
        s.eye(2, 5, k=3),
        s.eye(3, n_dense=1).todense(),
        s.eye(3, 3, k=1, n_batch=1),
        s.eye(3, k=5),
    )


def more_multiply_sparse(jax):
    s = _sp(jax)
    a, b = s.BCOO.fromdense(M), s.BCOO.fromdense(M[::-1] + np.eye(3, 4, dtype=np.float32))
    c = s.bcoo_multiply_sparse(a, b)
    bb = s.BCOO.fromdense(B3, n_batch=1)
    return c, c.todense(), (bb * s.BCOO.fromdense(B3[::-1], n_batch=1)).todense()


def coo_format(jax):
    s = _sp(jax)
    c = s.COO.fromdense(M)
    p = s.COO.fromdense(M, nse=6)
    return (
        c.data,
        c.row,
        c.col,
        p.row,
        p.data,
        c.todense(),
        c @ np.arange(4.0, dtype=np.float32),
        c @ W,
        c.T @ Y,
        c.T @ W[:3],
        s.coo_matvec(c, Y, transpose=True),
        s.eye(3, 4, k=1, sparse_format="coo").todense(),
        s.empty((2, 3), sparse_format="coo").todense(),
    )


def csr_format(jax):
    s = _sp(jax)
    c = s.CSR.fromdense(M)
    p = s.CSR.fromdense(M, nse=6)
    d = s.CSC.fromdense(M)
    return (
        c.data,
        c.indices,
        c.indptr,
        p.indices,
        p.indptr,
        c.todense(),
        p.todense(),
        c @ np.arange(4.0, dtype=np.float32),
        c @ W,
        d.data,
        d.indices,
        d.indptr,
        d.todense(),
        d @ np.arange(4.0, dtype=np.float32),
        d.T @ Y,
        s.eye(4, 3, k=-1, sparse_format="csr").todense(),
        s.eye(3, 4, k=1, sparse_format="csc").todense(),
    )


def coo_csr_grads(jax):
    s = _sp(jax)
    c, r = s.COO.fromdense(M), s.CSR.fromdense(M, nse=6)

    def f(d, v):
        return jax.numpy.sum(jax.numpy.sin(s.COO((d, c.row, c.col), shape=(3, 4)) @ v))

    def g(d, B):
        return jax.numpy.sum(jax.numpy.tanh(s.CSR((d, r.indices, r.indptr), shape=(3, 4)) @ B) ** 2)

    def h(m):
        return jax.numpy.sum(s.csr_fromdense(m, nse=4).todense() * m) + jax.numpy.sum(
            s.coo_fromdense(m, nse=4).todense() ** 3
        )

    return (
        jax.grad(f, (0, 1))(c.data, W[:, 0]),
        jax.grad(g, (0, 1))(r.data, W / 4),
        jax.grad(h)(M),
        jax.jit(lambda a, v: a @ v)(c, W),
    )


def jaxpr_coo_csr(jax):
    s = _sp(jax)
    return (
        str(jax.make_jaxpr(lambda m: s.COO.fromdense(m, nse=4))(M)),
        str(jax.make_jaxpr(lambda m: s.CSR.fromdense(m, nse=4))(M)),
        str(jax.make_jaxpr(lambda a, v: a @ v)(s.COO.fromdense(M), W)),
        str(jax.make_jaxpr(lambda a, v: a @ v)(s.CSR.fromdense(M), Y[:3].repeat(2)[:4])),
    )


def sparsify_control_flow(jax):
    from jax import lax

    s = _sp(jax)
    sp = s.BCOO.fromdense(M)

    def f(m, v, flag):
        c = lax.cond(flag, lambda a: a * 2.0, lambda a: -a, m)
        w = lax.while_loop(lambda st: st[0] < 3, lambda st: (st[0] + 1, st[1] * 1.5), (0, m))[1]
        loop = lax.fori_loop(0, 3, lambda i, acc: acc + m @ v * i, v[:3] * 0)
        return c, w, loop

    def g(m, v):
        def step(acc, _):
            return acc * 0.5 + m @ v, None

        return lax.scan(step, np.zeros(3, np.float32), None, length=3)[0]

    c, w, loop = s.sparsify(f)(sp, np.arange(4.0, dtype=np.float32), True)
    c2 = s.sparsify(f)(sp, np.arange(4.0, dtype=np.float32), False)[0]
    return c, w, loop, c2.todense(), s.sparsify(g)(sp, np.ones(4, np.float32))


def update_layout(jax):
    s = _sp(jax)
    b = s.BCOO.fromdense(B3, n_batch=1)
    d = s.BCOO.fromdense(B3, n_dense=1)
    plain = s.BCOO.fromdense(B3)
    out = [
        b.update_layout(n_batch=0),
        d.update_layout(n_dense=0),
        plain.update_layout(n_batch=1, on_inefficient=None),
        plain.update_layout(n_dense=1, on_inefficient=None),
        b.update_layout(n_batch=0, n_dense=1, on_inefficient=None),
        s.BCOO.fromdense(B3, n_batch=2).update_layout(n_batch=1),
    ]
    try:
        plain.update_layout(n_batch=1)
    except Exception as e:
        out.append(type(e).__name__)
    return out + [m.todense() for m in out[:6]]


def concatenate_mixed_layouts(jax):
    s = _sp(jax)
    row = s.BCOO.fromdense(M[:1])
    batched = s.BCOO.fromdense(M[1:], n_batch=1)
    out = s.bcoo_concatenate([row, batched], dimension=0)
    stacked = s.sparsify(lambda a, b: jax.numpy.stack([a, b]))(s.BCOO.fromdense(M), s.BCOO.fromdense(2 * M))
    return out, out.todense(), stacked.todense()


def fancy_indexing(jax):
    import jax.numpy as jnp

    s = _sp(jax)
    sp, b = s.BCOO.fromdense(M), s.BCOO.fromdense(B3, n_batch=1)
    rows = sp[jnp.array([2, 0])]
    cols = sp[:, jnp.array([3, 1, 1])]
    picked = sp[jnp.array([0, 2]), jnp.array([1, 2])]
    traced = jax.jit(lambda m, i: m[i].todense())(sp, 1)
    return rows, rows.todense(), cols.todense(), picked.todense(), b[jnp.array([1, 2])].todense(), traced


def empty_arrays(jax):
    import jax.numpy as jnp

    s = _sp(jax)
    e = s.empty((3, 4))
    z = s.BCOO.fromdense(np.zeros((3, 0), np.float32))
    return (
        e.todense(),
        e @ jnp.ones(4),
        e.sum_duplicates(nse=0),
        z,
        z.todense(),
        s.empty((2, 3), sparse_format="bcsr").todense(),
    )


def bcsr_structure(jax):
    s = _sp(jax)
    a, b = s.BCSR.fromdense(M), s.BCSR.fromdense(2 * M + np.eye(3, 4, dtype=np.float32))
    cat = s.bcsr_concatenate([a, b], dimension=0)
    grown = s.bcsr_broadcast_in_dim(a, shape=(2, 3, 4), broadcast_dimensions=(1, 2))
    stacked = s.sparsify(lambda x, y: jax.numpy.stack([x, y]))(a, b)
    return cat, cat.indptr, cat.todense(), grown, grown.todense(), stacked.todense()


def jaxpr_fromdense(jax):
    return str(jax.make_jaxpr(lambda m: _sp(jax).BCOO.fromdense(m, nse=4))(M))


def jaxpr_todense(jax):
    return str(jax.make_jaxpr(lambda m: m.todense())(_sp(jax).BCOO.fromdense(M)))


def jaxpr_transpose_matvec(jax):
    return str(jax.make_jaxpr(lambda m, y: m.T @ y)(_sp(jax).BCOO.fromdense(M), Y))


def jaxpr_vec_mat(jax):
    return str(jax.make_jaxpr(lambda m, y: y @ m)(_sp(jax).BCOO.fromdense(M), Y))


def jaxpr_multiply_dense(jax):
    return str(jax.make_jaxpr(lambda m, d: m * d)(_sp(jax).BCOO.fromdense(M), M))


def jaxpr_sparsify_docs(jax):
    import jax.numpy as jnp

    f = _sp(jax).sparsify(lambda m, v: 2 * jnp.dot(jnp.log1p(m.T), v) + 1)
    return str(jax.make_jaxpr(f)(_sp(jax).BCOO.fromdense(M), Y))


def jaxpr_grad_rhs(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    return str(jax.make_jaxpr(jax.grad(lambda y: (sp.T @ y).sum()))(Y))


def jaxpr_grad_data(jax):
    sp = _sp(jax).BCOO.fromdense(M)
    f = lambda d: (_sp(jax).BCOO((d, sp.indices), shape=(3, 4)).T @ Y).sum()  # noqa: E731
    return str(jax.make_jaxpr(jax.grad(f))(sp.data))


def jaxpr_vmap_todense(jax):
    sp = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return str(jax.make_jaxpr(jax.vmap(lambda m: m.todense()))(sp))


_errors = sparse_linalg_cases._errors  # each thunk's error class and message, or "no error"


def spdot_matmul(jax):  # bcoo_spdot_general: both operands sparse, the result sparse
    s = _sp(jax)
    a, b = s.BCOO.fromdense(M), s.BCOO.fromdense(M.T + np.eye(4, 3, dtype=np.float32))
    v = s.BCOO.fromdense(Y)
    gram = s.bcoo_dot_general(a, a, dimension_numbers=(([0], [0]), ([], [])))
    return a @ b, (a @ b).todense(), b @ a, gram, gram.todense(), v @ a, v @ v, (v @ v).todense()


def spdot_padded_and_int(jax):
    s = _sp(jax)
    a = s.BCOO.fromdense(M, nse=6)
    ints = s.BCOO.fromdense(np.arange(12).reshape(3, 4) % 3)
    return a @ a.T, (a @ a.T).todense(), ints @ ints.T, (ints @ ints.T).todense()


def spdot_batched(jax):
    s = _sp(jax)
    lhs = s.BCOO.fromdense(B3, n_batch=1)
    rhs = s.BCOO.fromdense(np.transpose(B3, (0, 2, 1)) + 1.0, n_batch=1)
    shared = s.bcoo_dot_general(lhs, rhs, dimension_numbers=(([2], [1]), ([0], [0])))
    own = s.bcoo_dot_general(lhs, s.BCOO.fromdense(W[:3]), dimension_numbers=(([2], [0]), ([], [])))
    rhs_own = s.bcoo_dot_general(
        s.BCOO.fromdense(W[:3, 0]), rhs, dimension_numbers=(([0], [1]), ([], []))
    )  # (the rhs's own batch axis may lead: lhs has no free sparse axis)
    return shared, shared.todense(), own, own.todense(), rhs_own, rhs_own.todense()


def spdot_transformed(jax):
    s = _sp(jax)
    a = s.BCOO.fromdense(M)
    b = s.BCOO.fromdense(M.T + np.eye(4, 3, dtype=np.float32))

    def f(d, e):
        return (s.BCOO((d, a.indices), shape=(3, 4)) @ s.BCOO((e, b.indices), shape=(4, 3))).data

    jitted = jax.jit(lambda x, y: x @ y)(a, b)
    mapped = jax.vmap(lambda d: f(d, b.data))(np.stack([a.data, 2 * a.data - 1]))
    both = jax.vmap(f)(np.stack([a.data, -a.data]), np.stack([b.data, b.data + 1]))
    tangent = jax.jvp(f, (a.data, b.data), (np.ones_like(a.data), np.arange(b.nse, dtype=np.float32)))
    jac = jax.jacfwd(f)(a.data, b.data)
    return jitted, jitted.todense(), mapped, both, tangent, jac


def spdot_errors(jax):
    s = _sp(jax)
    a, dense_axis = s.BCOO.fromdense(M), s.BCOO.fromdense(B3, n_dense=1)
    batched = s.BCOO.fromdense(B3, n_batch=1)

    def f(d):
        return (s.BCOO((d, a.indices), shape=(3, 4)) @ a.T).data.sum()

    return _errors(
        lambda: s.bcoo_dot_general(
            dense_axis, s.BCOO.fromdense(W[:2]), dimension_numbers=(([1], [0]), ([], []))
        ),
        lambda: s.bcoo_dot_general(batched, batched, dimension_numbers=(([0], [0]), ([], []))),
        lambda: s.bcoo_dot_general(a, batched, dimension_numbers=(([1], [1]), ([], []))),
        lambda: s.bcoo_dot_general(a, s.BCOO.fromdense(W[:3]), dimension_numbers=(([1], [1]), ([], []))),
        lambda: jax.grad(f)(a.data),
    )


def jaxpr_spdot(jax):
    a = _sp(jax).BCOO.fromdense(M)
    b = _sp(jax).BCOO.fromdense(B3, n_batch=1)
    return (
        str(jax.make_jaxpr(lambda x, y: x @ y)(a, a.T)),
        str(jax.make_jaxpr(lambda x, y: (x @ y).data)(b, b.transpose((0, 2, 1)))),
        str(
            jax.make_jaxpr(
                lambda d: jax.jvp(
                    lambda e: (_sp(jax).BCOO((e, a.indices), shape=(3, 4)) @ a.T).data, (d,), (d,)
                )
            )(a.data)
        ),
        str(
            jax.make_jaxpr(jax.vmap(lambda d: (_sp(jax).BCOO((d, a.indices), shape=(3, 4)) @ a.T).data))(
                np.stack([a.data, a.data])
            )
        ),
    )


def jaxpr_sparsify_nested_jit(jax):
    import jax.numpy as jnp

    s = _sp(jax)
    a = s.BCOO.fromdense(M)
    matvec = s.sparsify(lambda m, v: jax.jit(lambda x, y: jnp.sin(x) @ y)(m, v) * 2)
    sparse_out = s.sparsify(lambda m: jax.jit(lambda x: jnp.sin(x) * 2)(m).sum(0))
    dense_only = s.sparsify(lambda m, v: m @ jax.jit(jnp.cos)(v))
    return (
        str(jax.make_jaxpr(matvec)(a, Y[:1].repeat(4))),
        matvec(a, np.arange(4.0, dtype=np.float32)),
        str(jax.make_jaxpr(sparse_out)(a)),
        sparse_out(a),
        str(jax.make_jaxpr(dense_only)(a, np.arange(4.0, dtype=np.float32))),
    )


def bcsr_sparsify_unary(jax):  # (a BCSR's indices are not known unique: duplicates are summed first)
    import jax.numpy as jnp

    s = _sp(jax)
    out = s.sparsify(lambda m: -jnp.sin(jnp.abs(m)))(s.BCSR.fromdense(M - 2 * (M > 1.5)))
    return out, out.indptr, out.todense()


def spdot_jit_vmap_unbatched_lhs(jax):
    s = _sp(jax)
    rhs = s.BCOO.fromdense(np.stack([M.T, 2 * M.T]), n_batch=1)
    f = jax.jit(jax.vmap(lambda a, b: (a @ b).todense(), in_axes=(None, 0)))
    return f(s.BCOO.fromdense(M), rhs)


CASES = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn) and not name.startswith("_") and fn.__module__ == __name__
}
CASES.update(sparse_linalg_cases.CASES)
CASES.update(sparse_conv_cases.CASES)
