"""Snippets for differentiation inside and of ``shard_map`` bodies, with and without checked varying
axes (``check_vma``): where a body's gradient of an invariant argument is summed over the devices
(``pvary``'s transpose, ``psum_invariant``) and where it is not. Recorded on 8 CPU devices
(record.py's EIGHT_DEVICE_TOPICS). Registered in snippets.py."""

_SETUP = (
    "from jax.sharding import PartitionSpec as P, AxisType\n"
    "mesh = jax.make_mesh((4,), ('i',), axis_types=(AxisType.Auto,))\n"
    "x = jnp.arange(8.)\n"
    "w = jnp.array([1., 2.])\n"
)


def _both(name, body, specs="(P('i'), P())", out="P()", call="f(x, w)"):
    return [
        (
            f"{name}_{'checked' if checked else 'unchecked'}",
            _SETUP
            + f"def body(x, w):\n{body}\n"
            + f"f = jax.shard_map(body, mesh=mesh, in_specs={specs}, out_specs={out}, check_vma={checked})\n"
            + f"out = {call}",
        )
        for checked in (True, False)
    ]


SHARD_MAP_GRADS = [
    # a gradient inside the body, then summed or averaged over the devices
    *_both(
        "grad_then_psum", "    return jax.lax.psum(jax.grad(lambda w: jnp.sum(jnp.sin(x) * w[0]))(w), 'i')"
    ),
    *_both(
        "grad_then_pmean", "    return jax.lax.pmean(jax.grad(lambda w: jnp.sum(jnp.sin(x * w[1])))(w), 'i')"
    ),
    *_both("grad_of_psum", "    return jax.grad(lambda w: jax.lax.psum(jnp.sum(jnp.sin(x) * w[0]), 'i'))(w)"),
    *_both("grad_of_pmean", "    return jax.grad(lambda w: jax.lax.pmean(jnp.sum(x * w[0] ** 2), 'i'))(w)"),
    *_both(
        "value_and_grad_mlp",
        "    def loss(w):\n"
        "        h = jnp.tanh(x[:, None] * w[None, :])\n"
        "        return jnp.mean(jax.nn.log_softmax(h) ** 2)\n"
        "    l, g = jax.value_and_grad(loss)(w)\n"
        "    return jax.lax.pmean(l, 'i'), jax.lax.pmean(g, 'i')",
        out="(P(), P())",
    ),
    *_both(
        "vjp_inside", "    y, pull = jax.vjp(lambda w: x * w[0], w)\n    return jax.lax.psum(pull(y)[0], 'i')"
    ),
    *_both("jvp_inside", "    return jax.jvp(lambda w: x * w[0], (w,), (w,))[1]", out="P('i')"),
    # the gradient of the whole shard_map
    *_both(
        "grad_of_map",
        "    return jax.lax.psum(jnp.sum(jnp.sin(x) * w[0]), 'i')",
        call="jax.grad(lambda w: f(x, w))(w)",
    ),
    *_both(
        "grad_of_map_varying_out",
        "    return x * w[0]",
        out="P('i')",
        call="jax.grad(lambda w: jnp.sum(f(x, w) ** 2))(w)",
    ),
    *_both(
        "grad_of_map_inner_grad",
        "    return jax.lax.pmean(jax.grad(lambda w: jnp.sum(jnp.sin(x * w)))(w), 'i')",
        call="jax.grad(lambda w: jnp.sum(f(x, w)))(w)",
    ),
    *_both(
        "jit_grad_inside",
        "    return jax.lax.psum(jax.jit(jax.grad(lambda w: jnp.sum(jnp.cos(x) * w[1])))(w), 'i')",
        call="jax.jit(f)(x, w)",
    ),
    # the jaxprs JAX stages for them
    (
        "jaxpr_grad_inside",
        _SETUP + "f = jax.shard_map(lambda x, w: jax.grad(lambda w: jnp.sum(x * w))(w), mesh=mesh,\n"
        "                  in_specs=(P('i'), P()), out_specs=P())\n"
        "out = str(jax.make_jaxpr(f)(x, w))",
    ),
    (
        "jaxpr_grad_then_psum",
        _SETUP + "def body(x, w):\n"
        "    return jax.lax.psum(jax.grad(lambda w: jnp.sum(jnp.sin(x * w)))(w), 'i')\n"
        "f = jax.shard_map(body, mesh=mesh, in_specs=(P('i'), P()), out_specs=P())\n"
        "out = str(jax.make_jaxpr(f)(x, w))",
    ),
]
