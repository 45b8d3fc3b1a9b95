"""``jax.experimental.sparse.linalg`` programs (``spsolve``, ``lobpcg_standard``) whose results JAX
0.10.2 recorded in ``sparse.json`` with the rest of ``sparse_cases.py`` (which includes these)."""

import numpy as np

# a nonsymmetric, diagonally dominant 5x5 system with a few off-diagonal entries
A5 = np.array(
    [
        [4.0, 1.0, 0.0, 0.0, 0.5],
        [0.0, 3.0, 0.0, 2.0, 0.0],
        [1.0, 0.0, 5.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 6.0, 0.0],
        [0.0, 2.0, 0.0, 0.0, 7.0],
    ],
    np.float32,
)
B5 = np.array([1.0, -2.0, 3.0, 0.5, 4.0], np.float32)
# a symmetric 12x12 matrix with well separated top eigenvalues
_Q = np.linalg.qr(np.cos(np.arange(144.0).reshape(12, 12) * 0.37))[0]
SYM12 = (_Q * np.array([20.0, 15.0, 11.0, *np.linspace(3.0, 0.5, 9)])) @ _Q.T
SYM12 = ((SYM12 + SYM12.T) / 2).astype(np.float32)
X12 = np.eye(12, 2, dtype=np.float32) + np.float32(0.1)


def _csr(jax, a):
    from jax.experimental import sparse

    m = sparse.CSR.fromdense(a)
    return m.data, m.indices, m.indptr


def _errors(*thunks):
    out = []
    for thunk in thunks:
        try:
            thunk()
            out.append("no error")
        except Exception as e:
            out.append(type(e).__name__ + ": " + str(e))
    return "\n".join(out)


def linalg_spsolve(jax):
    from jax.experimental.sparse import linalg

    data, indices, indptr = _csr(jax, A5)
    x = linalg.spsolve(data, indices, indptr, B5)
    jitted = jax.jit(linalg.spsolve)(data, indices, indptr, 2 * B5)
    return x, jitted, linalg.spsolve(data, indices, indptr, B5, tol=1e-3, reorder=0)


def linalg_spsolve_derivatives(jax):
    from jax.experimental.sparse import linalg

    data, indices, indptr = _csr(jax, A5)

    def f(d, b):
        return jax.numpy.sin(linalg.spsolve(d, indices, indptr, b))

    tangent = jax.jvp(f, (data, B5), (np.arange(len(data), dtype=np.float32) / 7, np.ones(5, np.float32)))
    grad_b = jax.grad(lambda b: f(data, b).sum())(B5)
    grad_data = jax.grad(lambda d: f(d, B5).sum())(data)
    return tangent, grad_b, grad_data


def linalg_spsolve_errors(jax):
    from jax.experimental.sparse import linalg

    data, indices, indptr = _csr(jax, A5)
    return _errors(
        lambda: linalg.spsolve(data, indices, indptr, B5.astype(np.float16)),
        lambda: linalg.spsolve(data, indices.astype(np.float32), indptr, B5),
        lambda: linalg.spsolve(data, indices, indptr, B5[:4]),
        lambda: linalg.spsolve(data, indices, indptr, B5, reorder=4),
        lambda: linalg.spsolve(data[None], indices, indptr, B5),
    )


def jaxpr_spsolve(jax):
    from jax.experimental.sparse import linalg

    data, indices, indptr = _csr(jax, A5)
    return str(jax.make_jaxpr(linalg.spsolve)(data, indices, indptr, B5))


def linalg_lobpcg(jax):
    from jax.experimental.sparse import linalg

    theta, U, i = linalg.lobpcg_standard(SYM12, X12)
    op_theta, op_U, op_i = linalg.lobpcg_standard(lambda v: jax.numpy.asarray(SYM12) @ v, X12[:, :1], m=50)
    # eigenvectors up to sign: compared as |U|
    return theta, abs(U), i, op_theta, abs(op_U), op_i


def linalg_lobpcg_errors(jax):
    from jax.experimental.sparse import linalg

    return _errors(
        lambda: linalg.lobpcg_standard(SYM12, X12[:, :0]),
        lambda: linalg.lobpcg_standard(SYM12, np.ones((12, 3), np.float32)),
        lambda: linalg.lobpcg_standard(lambda v: (jax.numpy.asarray(SYM12) @ v).astype(np.float16), X12),
        lambda: linalg.lobpcg_standard(lambda v: v[:5], X12),
    )


CASES = {
    name: fn
    for name, fn in list(globals().items())
    if callable(fn) and not name.startswith("_") and fn.__module__ == __name__
}
