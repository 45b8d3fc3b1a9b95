"""Snippets for arrays on a one-device mesh (``make_mesh((1,), ('x',))``, its axis Explicit): under
jit their types carry the sharding (``f32[8,4@x]``), so shard_map's in_specs are checked against it,
and results are laid out as typed, in jit and eagerly, as with more devices. The value is the
results' specs (or the error's class and message). Registered in snippets.py."""

_SETUP = (
    "from jax.sharding import PartitionSpec as P, NamedSharding, AxisType\n"
    "mesh = jax.make_mesh((1,), ('x',), axis_types=({types},))\n"
    "x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P(None, 'x')))\n"
    "y = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('x')))\n"
    "def spec(a):\n    return str(a.sharding.spec)\n"
    "def caught(f):\n"
    "    try:\n        return f()\n"
    "    except Exception as e:\n        return [type(e).__name__, str(e)]\n"
)


def _case(code: str, types: str = "AxisType.Explicit") -> str:
    return _SETUP.format(types=types) + code


_CASES = {
    "jit_typeof": "seen = []\njax.jit(lambda a: seen.extend([str(jax.typeof(a)), str(jax.typeof(a.T))]) or a)(x)\nout = seen",
    "shard_map_in_specs": "sm = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P(None, 'x'), out_specs=P(None, 'x'))\n"
    "r = jax.jit(sm)(x)\nout = [spec(r), r, spec(sm(x))]",
    "shard_map_other_out_specs": "sm = jax.shard_map(lambda a: a + 1, mesh=mesh, in_specs=P(None, 'x'), out_specs=P('x'))\n"
    "r = jax.jit(sm)(x)\nout = [spec(r), r]",
    "shard_map_ppermute": "sm = jax.shard_map(lambda a: lax.ppermute(a, 'x', ((0, 0),)), mesh=mesh, "
    "in_specs=P(None, 'x'), out_specs=P(None, 'x'))\nr = jax.jit(sm)(x)\nout = [spec(r), r]",
    "shard_map_in_specs_refused": "sm = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P(), out_specs=P())\n"
    "out = caught(lambda: jax.jit(sm)(x))",
    "jit_results_typed": "f = jax.jit(lambda a, b: [a * 2, a.T, a.sum(0), b + 1, a.sum()])\n"
    "out = [spec(r) for r in f(x, y)]",
    "jit_constant_result": "r = jax.jit(lambda a: (a, jnp.zeros(3)))(x)[1]\nout = [spec(r), r]",
    "jit_grad_result": "r = jax.jit(jax.grad(lambda a: (a ** 2).sum()))(x)\nout = [spec(r), r]",
    "eager_results_typed": "out = [spec(x.T), str(jax.typeof(x.T)), spec(x.sum(0)), spec(x * 2), spec(y + 1)]",
    "eager_sharding_type_error": "out = caught(lambda: x + y)",
    "make_jaxpr_types": "out = str(jax.make_jaxpr(lambda a: a * 2)(x))",
    "auto_axis_results": "f = jax.jit(lambda a, b: [a * 2, a.T, a.sum(0), a + b])\n"
    "sm = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P(), out_specs=P())\n"
    "out = [spec(r) for r in f(x, y)] + [spec(jax.jit(sm)(x)), spec(x.T)]",
}

ONE_DEVICE_MESH = [
    (name, _case(code, "AxisType.Auto" if name.startswith("auto") else "AxisType.Explicit"))
    for name, code in _CASES.items()
]
