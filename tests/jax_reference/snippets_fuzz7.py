"""What the seventh run of the differential fuzzer of transformation stacks
(``tests/fuzz_transforms.py``, seeds 600..749) found, failing before its fix. A reduction over
dimensions of length 1 only is a reshape in XLA (its initial value is its identity), eagerly and
under jit: ``jnp.sum`` of ``[-0.]`` is -0. Registered in snippets.py."""

_Z = "x = jnp.array([[-0.0], [1.0], [0.0]], jnp.float32)\n"

FUZZ7 = [
    (
        "sum_of_one_keeps_negative_zero",
        _Z + "out = [jnp.signbit(v) for v in (jnp.sum(x, axis=1), jnp.sum(x[0]), jnp.sum(x[:1], axis=0),"
        " jax.jit(lambda x: jnp.sum(x, axis=1))(x), jax.jit(lambda x: jnp.sum(x * x * -1.0, axis=1))(x),"
        " jnp.sum(x.astype(jnp.complex64), axis=1).real)]",
        0.0,
    ),
]
