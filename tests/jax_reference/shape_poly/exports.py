"""jnp/lax functions exported with a symbolic shape and called on a concrete argument: what JAX
0.10.2 gives (result types and values, or the error's class).

Recorded with ``/work/main/.jax-venv/bin/python tests/jax_reference/shape_poly/exports.py >
tests/jax_reference/shape_poly/exports.json``; tests/test_shape_poly.py replays them on the engine.
"""

import json

import numpy as np

# name -> (function source, symbolic shape of its float32 argument)
CASES = {
    "cumsum": ("lambda x: jnp.cumsum(x, axis=0)", "b, 3"),
    "sort": ("lambda x: jnp.sort(x, axis=0)", "b, 3"),
    "argmax": ("lambda x: jnp.argmax(x, axis=0)", "b, 3"),
    "einsum": ("lambda x: jnp.einsum('ij,kj->ik', x, x)", "b, 3"),
    "dot": ("lambda x: jnp.dot(x, x.T)", "b, 3"),
    "eye": ("lambda x: jnp.eye(x.shape[0]) @ x", "b, 3"),
    "pad": ("lambda x: jnp.pad(x, ((1, 2), (0, 0)))", "b, 3"),
    "flip": ("lambda x: jnp.flip(x, 0)", "b, 3"),
    "rev_slice": ("lambda x: x[::-1]", "b, 3"),
    "step_slice": ("lambda x: x[::2]", "b, 3"),
    "rev_step_slice": ("lambda x: x[::-2]", "b, 3"),
    "bounded_step_slice": ("lambda x: x[1:-1:2]", "b, 3"),
    "int_index_2d": ("lambda x: x[1, 2] + x[-1]", "b, 3"),
    "take": ("lambda x: jnp.take(x, jnp.array([0, 1]), axis=1)", "b, 3"),
    "index_array": ("lambda x: x[jnp.array([0, 0])]", "b, 3"),
    "dyn_index": ("lambda x: x[x.shape[0] - 1]", "b, 3"),
    "neg_index": ("lambda x: x[-1]", "b, 3"),
    "split": ("lambda x: jnp.split(x, 3, axis=1)[0]", "b, 3"),
    "split_sym": ("lambda x: jnp.split(x, 2, axis=0)[0]", "2*b, 3"),
    "repeat": ("lambda x: jnp.repeat(x, 2, axis=0)", "b, 3"),
    "tile": ("lambda x: jnp.tile(x, (2, 1))", "b, 3"),
    "linspace": ("lambda x: jnp.linspace(0., 1., x.shape[0]) + x[:, 0]", "b, 3"),
    "scan": ("lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(3), x)[1]", "b, 3"),
    "fori": ("lambda x: lax.fori_loop(0, x.shape[0], lambda i, c: c + x[i], jnp.zeros(3))", "b, 3"),
    "vmap_sum": ("lambda x: jax.vmap(lambda r: r.sum())(x)", "b, 3"),
    "var": ("lambda x: jnp.var(x, axis=0)", "b, 3"),
    "std": ("lambda x: jnp.std(x)", "b, 3"),
    "softmax": ("lambda x: jax.nn.softmax(x, axis=0)", "b, 3"),
    "logsumexp": ("lambda x: jax.nn.logsumexp(x, axis=0)", "b, 3"),
    "outer": ("lambda x: jnp.outer(x[:, 0], x[:, 1])", "b, 3"),
    "diag": ("lambda x: jnp.diag(x @ x.T)", "b, 3"),
    "triu": ("lambda x: jnp.triu(x @ x.T)", "b, 3"),
    "tril_offset": ("lambda x: jnp.tril(x @ x.T, -1) + jnp.triu(x @ x.T, 2)", "b, 3"),
    "einsum_chain": ("lambda x: jnp.einsum('ij,jk,kl->il', x.T, x, x.T)", "b, 3"),
    "trace": ("lambda x: jnp.trace(x @ x.T)", "b, 3"),
    "where1": ("lambda x: jnp.where(x > 0)[0]", "b, 3"),
    "ones_like": ("lambda x: jnp.ones_like(x) * x.shape[0]", "b, 3"),
    "full": ("lambda x: jnp.full((x.shape[0], 2), 7.)", "b, 3"),
    "astype_shape": ("lambda x: jnp.array(x.shape, dtype=jnp.float32) * 2", "b, 3"),
    "size": ("lambda x: x.size * jnp.ones(1)", "b, 3"),
    "ravel": ("lambda x: x.ravel()[:x.shape[0]]", "b, 3"),
    "swap": ("lambda x: jnp.swapaxes(x, 0, 1).reshape(3, -1)", "b, 3"),
    "minmax_dim": ("lambda x: jnp.zeros(jax.core.max_dim(x.shape[0], 4))", "b, 3"),
    "slice_update": ("lambda x: x.at[1:].set(0.)", "b, 3"),
    "at_add": ("lambda x: x.at[0].add(1.)", "b, 3"),
    "roll": ("lambda x: jnp.roll(x, 1, axis=0)", "b, 3"),
    "conv": ("lambda x: jnp.convolve(x[:, 0], jnp.ones(2), mode='same')", "b, 3"),
    "cond": ("lambda x: lax.cond(x.shape[0] > 2, lambda: x * 2, lambda: x)", "b, 3"),
    "while": (
        "lambda x: lax.while_loop(lambda c: c[0] < x.shape[0], lambda c: (c[0] + 1, c[1] + x[c[0]]), (0, jnp.zeros(3)))[1]",
        "b, 3",
    ),
    "mean_keep": ("lambda x: jnp.mean(x, axis=0, keepdims=True) - x", "b, 3"),
    "median": ("lambda x: jnp.median(x, axis=0)", "b, 3"),
    "broadcast_arrays": ("lambda x: jnp.broadcast_arrays(x, x[:1])[1]", "b, 3"),
    "concat_const": ("lambda x: jnp.concatenate([x, jnp.ones((2, 3))])", "b, 3"),
    "hstack": ("lambda x: jnp.hstack([x, x])", "b, 3"),
    "one_hot": ("lambda x: jax.nn.one_hot(jnp.arange(3), x.shape[0])", "b, 3"),
    "split_at": ("lambda x: jnp.split(x, [1], axis=0)[1]", "b, 3"),
    "dyn_slice": ("lambda x: lax.dynamic_slice(x, (1, 0), (x.shape[0] - 1, 2))", "b, 3"),
    "dyn_update": ("lambda x: lax.dynamic_update_slice(x, jnp.zeros((1, 3)), (2, 0))", "b, 3"),
    "reshape_sym": ("lambda x: x.reshape(x.shape[0] // 2, 2, 3).sum(1)", "2*b, 3"),
    "reshape_split": ("lambda x: x.reshape(2, -1, 3)", "2*b, 3"),
    "pairwise": ("lambda x: (x[:, None, :] - x[None, :, :]).sum(-1)", "b, 3"),
    "scatter_add": ("lambda x: jnp.zeros(x.shape).at[jnp.arange(x.shape[0]) % 2].add(x)", "b, 3"),
    "vmap_matmul": ("lambda x: jax.vmap(lambda r: r @ x.T)(x)", "b, 3"),
    "jvp": ("lambda x: jax.jvp(lambda y: jnp.sin(y).sum(0), (x,), (jnp.ones_like(x),))[1]", "b, 3"),
    "norm": ("lambda x: jnp.linalg.norm(x, axis=0)", "b, 3"),
    "meshgrid": ("lambda x: jnp.meshgrid(x[:, 0], x[0])[0]", "b, 3"),
}
# Both refuse, with different error classes.
ERROR_DIFFERS = {
    "conv": "JAX: TypeError (int() of a dimension); the engine: InconclusiveDimensionOperation ('b' < '2')",
}


def argument(spec: str) -> np.ndarray:
    rows = 6 if spec.startswith("2*b") else 5
    return (np.arange(rows * 3, dtype=np.float32).reshape(rows, 3) % 4) - 1.5


def outcome(jax, jnp, lax, export, name: str) -> list:
    src, spec = CASES[name]
    f = eval(src, {"jax": jax, "jnp": jnp, "np": np, "lax": lax})
    try:
        exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct(export.symbolic_shape(spec), jnp.float32))
        res = exp.call(argument(spec))
        avals = [f"{a.dtype.name}[{','.join(map(str, a.shape))}]" for a in exp.out_avals]
        return ["ok", avals, [np.asarray(v).tolist() for v in jax.tree.leaves(res)]]
    except Exception as e:
        return [type(e).__name__]


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import export, lax

    print(json.dumps({name: outcome(jax, jnp, lax, export, name) for name in CASES}, indent=1))
