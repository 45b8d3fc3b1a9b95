"""Functions traced with symbolic shapes: the jaxprs and result types JAX 0.10.2 gives, and the
values of calling them, exported, on concrete arguments.

Recorded with ``/work/main/.jax-venv/bin/python tests/jax_reference/shape_poly/programs.py [x64] >
tests/jax_reference/shape_poly/programs[_x64].json``; tests/test_shape_poly.py replays them on the engine.
"""

import json

import numpy as np

# name -> (function source, symbolic shape, dtype, concrete argument shape)
PROGRAMS = {
    "sin_mul": ("lambda x: jnp.sin(x) * 2.", "b, 4", "float32", (3, 4)),
    "concatenate": ("lambda x: jnp.concatenate([x, x], axis=1)", "a, b", "int32", (3, 4)),
    "reshape_product": ("lambda x: jnp.reshape(x, (x.shape[0] * x.shape[1],))", "b, 4", "int32", (2, 4)),
    "reshape_minus_one": ("lambda x: jnp.reshape(x, (-1, 2))", "b, 4", "float32", (3, 4)),
    "mean_by_dim": ("lambda x: jnp.sum(x, axis=0) / x.shape[0]", "b, c", "int32", (3, 4)),
    "dims_as_values": (
        "lambda x: (5. + x.shape[0], x.shape[0] - np.arange(5, dtype=jnp.int32), "
        "x + x.shape[0] + jnp.sin(x.shape[0]))",
        "b",
        "int32",
        (3,),
    ),
    "mean": ("lambda x: jnp.mean(x, axis=1)", "b, c", "float32", (2, 5)),
    "matmul": ("lambda x: x.T @ x", "b, 3", "float32", (4, 3)),
    "broadcast_to": ("lambda x: jnp.broadcast_to(x, (3, x.shape[0]))", "b", "float32", (2,)),
    "transpose_add": ("lambda x: jnp.transpose(x) + 1", "a, b", "float32", (2, 3)),
    "reduce_max": ("lambda x: jnp.max(x, axis=0)", "a, b", "float32", (3, 2)),
    "expand_dims": ("lambda x: jnp.expand_dims(x, 0)[:, :, None]", "a, b", "float32", (2, 3)),
    "zeros_ones": ("lambda x: jnp.zeros(x.shape) + jnp.ones((x.shape[0], 1))", "b, 3", "float32", (2, 3)),
    "array_of_dim": ("lambda x: jnp.array(x.shape[0]) + x", "b", "int32", (3,)),
    "slice_const": ("lambda x: x[0:16]", "b + 15", "int32", (17,)),
    "slice_neg": ("lambda x: x[1:-1]", "b", "float32", (5,)),
    "arange": ("lambda x: jnp.arange(x.shape[0]) * x", "b", "int32", (4,)),
    "where": ("lambda x: jnp.where(x > 0, x, 0.)", "a, b", "float32", (2, 3)),
    "grad": ("lambda x: jax.grad(lambda y: jnp.sum(y ** 2))(x)", "a, 3", "float32", (2, 3)),
    "vmap": ("lambda x: jax.vmap(jnp.sin)(x)", "a, 3", "float32", (2, 3)),
    "stack": ("lambda x: jnp.stack([x, x])", "a", "float32", (3,)),
    "dim_times_array": ("lambda x: x.shape[0] * x", "a", "float32", (3,)),
}


def argument(shape, dtype):
    return (np.arange(int(np.prod(shape))) % 7 - 3).reshape(shape).astype(dtype)


# recorded again with jax_enable_x64 (programs_x64.json): dimensions are int64 values then
X64_PROGRAMS = ("dims_as_values", "arange", "mean_by_dim", "array_of_dim")


def record(jax, jnp, export, names=tuple(PROGRAMS)) -> dict:
    out = {}
    for name in names:
        src, spec, dtype, shape = PROGRAMS[name]
        f = eval(src, {"jax": jax, "jnp": jnp, "np": np})
        sds = jax.ShapeDtypeStruct(export.symbolic_shape(spec), np.dtype(dtype))
        exp = export.export(jax.jit(f))(sds)
        res = exp.call(argument(shape, dtype))
        out[name] = {
            "jaxpr": str(jax.make_jaxpr(f)(sds)),
            "out_avals": repr(exp.out_avals),
            "values": [np.asarray(r).tolist() for r in jax.tree.leaves(res)],
            "dtypes": [str(np.asarray(r).dtype) for r in jax.tree.leaves(res)],
        }
    return out


if __name__ == "__main__":
    import sys

    import jax
    import jax.numpy as jnp
    from jax import export

    if sys.argv[1:] == ["x64"]:
        jax.config.update("jax_enable_x64", True)
        print(json.dumps(record(jax, jnp, export, X64_PROGRAMS), indent=1))
    else:
        print(json.dumps(record(jax, jnp, export), indent=1))
