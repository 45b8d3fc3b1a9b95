"""Record what JAX 0.10.2 prints for jnp's broadcasts and ``vmap`` on an explicit mesh (run with
JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_explicit_broadcasts.py

``jnp.where``, ``jnp.select`` and ``jnp.broadcast_arrays`` lay the operands they broadcast out as
``lax.broadcast_shardings`` types their common result (a scalar ``0.`` beside an ``f32[4@x,4]`` is
broadcast to ``f32[4@x,4]``); ``vmap`` refuses mapped dimensions split differently. Each entry is
the jaxpr's text, or the error's class and message. ``tests/test_sharding.py`` checks the engine
prints the same.
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np


def programs(jax):
    """name -> (function, arguments), on a (2, 2) mesh of Explicit axes set as the context."""
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    jax.set_mesh(mesh)
    a = jax.device_put(np.arange(16, dtype=np.float32).reshape(4, 4), P("x", None))
    v = jax.device_put(np.arange(4, dtype=np.float32), P("y"))
    w = jax.device_put(np.arange(4, dtype=np.float32), P("x"))
    col = jax.device_put(np.arange(4, dtype=np.float32).reshape(4, 1), P("x", None))
    plain = np.arange(4, dtype=np.float32)
    return {
        "where_scalar": (lambda x: jnp.where(x > 3, 0.0, x), (a,)),
        "where_vector": (lambda x, y: jnp.where(x > 3, y, x), (a, v)),
        "where_column": (lambda x, y: jnp.where(x > 3, y, 1.0), (a, col)),
        "broadcast_arrays": (lambda x, y: jnp.broadcast_arrays(x, y), (a, v)),
        "broadcast_arrays_scalar": (lambda x: jnp.broadcast_arrays(x, 2.0), (a,)),
        "select": (lambda x: jnp.select([x > 1, x > 5], [x, 2 * x], 0.0), (a,)),
        "masked_mean": (lambda x: jnp.mean(x, where=x > 2), (a,)),
        "vmap_rows": (jax.vmap(lambda r: r * 2), (a,)),
        "vmap_unsplit_beside_split": (jax.vmap(lambda r, s: r + s), (v, plain)),
        "vmap_split_differently": (jax.vmap(lambda r, s: r + s), (v, w)),
        "vmap_split_alike": (jax.vmap(lambda r, s: r + s), (w, w)),
        "vmap_unmapped_split": (jax.vmap(lambda r, s: r * s, in_axes=(0, None)), (a, v)),
        # types JAX refuses while tracing (make_jaxpr raises them, as jit does)
        "transpose_add": (lambda x: x + x.T, (a,)),
        "outer": (lambda y: jnp.outer(y, y), (v,)),
        "contract_split": (lambda x: x.T @ x, (a,)),
        # shared bodies and unread results are typed; iotas laid out as JAX's helpers lay them
        "logsumexp": (lambda x: jax.scipy.special.logsumexp(x, axis=1), (a,)),
        "var": (lambda x: jnp.var(x, axis=0), (a,)),
        "nan_to_num": (lambda x: jnp.nan_to_num(x), (a,)),
        "take_along_argsort": (lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), (a,)),
        "one_hot": (lambda x: jax.nn.one_hot(jnp.argmax(x, axis=1), 4), (a,)),
        # an indexed update is typed as the dimensions it is a slice of
        "at_set_column": (lambda x: x.at[:, 0].set(1.0), (a,)),
        "at_set_column_vector": (lambda x: x.at[:, 0].set(jnp.arange(4.0)), (a,)),
        "at_add_block": (lambda x: x.at[1:3].add(1.0), (a,)),
        # a layout that does not divide a dimension is refused while tracing
        "zeros_indivisible": (lambda y: y.sum() + jnp.zeros(3, out_sharding=P("x")), (v,)),
        "einsum_indivisible": (
            lambda y: y.sum() + jnp.einsum("ij,j->i", jnp.ones((1, 4)), jnp.ones(4), out_sharding=P("x")),
            (v,),
        ),
        # zero tangents are typed as their primals (instantiated in the forward and backward pass)
        "grad_at_set": (jax.grad(lambda x: x.at[:, 0].set(1.0).sum()), (a,)),
        "grad_where_scalar": (jax.grad(lambda x: jnp.where(x > 5, x, 0.0).sum()), (a,)),
        "grad_take": (jax.grad(lambda x: jnp.take(x, jnp.array([0, 2]), axis=1).sum()), (a,)),
        "grad_dynamic_slice": (jax.grad(lambda x: jax.lax.dynamic_slice_in_dim(x, 1, 2, axis=1).sum()), (a,)),
    }


def shown(jax, f, args) -> str:
    try:
        return str(jax.make_jaxpr(f)(*args))
    except Exception as e:  # noqa: BLE001 - (the refusal is what is recorded)
        return f"{type(e).__name__}: {e}"


if __name__ == "__main__":
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    import jax

    texts = {name: shown(jax, f, args) for name, (f, args) in programs(jax).items()}
    out = pathlib.Path(__file__).with_name("explicit_broadcasts.json")
    out.write_text(json.dumps(texts, indent=1) + "\n")
