"""Snippets for the origin lines of JAX's errors about traced values beyond jit's (eval_shape,
custom_jvp/custom_vjp functions, shard_map bodies, Pallas kernels), for the refusals of concrete-only
attributes on tracers (``x.device``, ``x.addressable_shards``...), and for the leaked-tracer error
(the function traced, the line that made the value, the user's frames), and for jit's refusal of an
output that is no array. The value is the error's
class and whole message; the functions are compiled under one file name (``user.py``), so lines and
columns are the same in JAX's recording and the engine's run. Registered in snippets.py."""

from snippets_tracer_origins import _message

_FUNS = (
    "from jax.sharding import PartitionSpec as P\n"
    "from jax.experimental import pallas as pl\n"
    "def one(x, y):\n    return float(x)\n"
    "def positive(x):\n    return bool(x > 0)\n"
    "def as_numpy(x):\n    return np.asarray(x)\n"
    "@jax.custom_jvp\ndef cj(x):\n    return float(x) * jnp.sin(x)\n"
    "cj.defjvp(lambda p, t: (cj(p[0]), t[0]))\n"
    "@jax.custom_vjp\ndef cv(x, y):\n    return float(y) * x\n"
    "cv.defvjp(lambda x, y: (x, x), lambda r, g: (g, g))\n"
    "mesh = jax.make_mesh((1,), ('x',))\n"
    "def sm_body(x):\n    return float(x[0]) * x\n"
    "def kernel(x_ref, o_ref):\n    o_ref[...] = x_ref[...] * float(x_ref[0])\n"
    "def kernel_if(x_ref, o_ref):\n    if x_ref[0] > 0:\n        o_ref[...] = x_ref[...]\n"
    "def attr(name):\n    def f(x):\n        return getattr(x, name)\n    return f\n"
    "def call(name):\n    def f(x):\n        return getattr(x, name)()\n    return f\n"
)
_LEAKS = (
    "store = []\n"
    "def leak_arg(x):\n    store.append(x)\n    return x\n"
    "def leak_made(x):\n    y = jnp.sin(x) * 2\n    store.append(y)\n    return x\n"
    "def a1(x):\n    return a2(x)\ndef a2(x):\n    return a3(x)\ndef a3(x):\n    return a4(x)\n"
    "def a4(x):\n    return a5(x)\ndef a5(x):\n    y = x * 3.0\n    store.append(y)\n    return x\n"
    "def b1(x):\n    return b2(x)\ndef b2(x):\n    y = jnp.cos(x)\n    store.append(y)\n    return x\n"
    "def leak_step(c, x):\n    store.append(c)\n    return c, x\n"
)
_OUTPUTS = (
    "def text(x):\n    return 'a'\n"
    "def pair(x):\n    return (x, {'k': object()})\n"
    "def sharding(x):\n    return jax.typeof(x).sharding\n"
)
_PALLAS = (
    "pl.pallas_call({k}, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=True)(jnp.ones(8))"
)

TRACER_MESSAGES = [
    ("eval_shape_float", _message(_FUNS, "jax.eval_shape(one, 1.0, 2.0)")),
    ("eval_shape_bool", _message(_FUNS, "jax.eval_shape(positive, 1.0)")),
    ("eval_shape_array", _message(_FUNS, "jax.eval_shape(as_numpy, 1.0)")),
    ("custom_jvp_fun", _message(_FUNS, "jax.jit(cj)(1.0)")),
    ("custom_vjp_fun", _message(_FUNS, "jax.jit(cv)(1.0, 2.0)")),
    (
        "shard_map_body",
        _message(
            _FUNS, "jax.jit(jax.shard_map(sm_body, mesh=mesh, in_specs=P(), out_specs=P()))(jnp.ones(2))"
        ),
    ),
    (
        "shard_map_eager_body",
        _message(_FUNS, "jax.shard_map(sm_body, mesh=mesh, in_specs=P(), out_specs=P())(jnp.ones(2))"),
    ),
    ("pallas_kernel_float", _message(_FUNS, _PALLAS.format(k="kernel"))),
    ("pallas_kernel_bool", _message(_FUNS, _PALLAS.format(k="kernel_if"))),
    *[
        (f"jit_attribute_{name}", _message(_FUNS, f"jax.jit(attr({name!r}))(1.0)"))
        for name in (
            "device",
            "sharding",
            "addressable_shards",
            "global_shards",
            "is_fully_replicated",
            "is_fully_addressable",
            "committed",
            "traceback",
            "format",
            "nonexistent",
        )
    ],
    *[
        (f"jit_method_{name}", _message(_FUNS, f"jax.jit(call({name!r}))(1.0)"))
        for name in (
            "devices",
            "block_until_ready",
            "copy_to_host_async",
            "unsafe_buffer_pointer",
            "delete",
            "is_deleted",
            "on_device_size_in_bytes",
            "__dlpack__",
        )
    ],
    ("grad_attribute_device", _message(_FUNS, "jax.grad(attr('device'))(1.0)")),
    ("grad_attribute_nonexistent", _message(_FUNS, "jax.grad(attr('nonexistent'))(1.0)")),
    ("vmap_attribute_sharding", _message(_FUNS, "jax.vmap(attr('sharding'))(jnp.ones(2))")),
    ("vmap_attribute_nonexistent", _message(_FUNS, "jax.vmap(attr('nonexistent'))(jnp.ones(2))")),
    ("leak_jit_argument", _message(_LEAKS, "jax.jit(leak_arg)(1.0); store[0] + 1")),
    ("leak_jit_made", _message(_LEAKS, "jax.jit(leak_made)(1.0); store[0] + 1")),
    ("leak_jit_five_frames", _message(_LEAKS, "jax.jit(a1)(1.0); store[0] + 1")),
    ("leak_jit_two_frames", _message(_LEAKS, "jax.jit(b1)(1.0); jnp.sin(store[0])")),
    ("leak_into_jit", _message(_LEAKS, "jax.jit(leak_made)(1.0); jax.jit(lambda y: y + store[0])(1.0)")),
    ("leak_make_jaxpr", _message(_LEAKS, "jax.make_jaxpr(leak_made)(1.0); store[0] * 2")),
    ("leak_eval_shape", _message(_LEAKS, "jax.eval_shape(leak_arg, 1.0); store[0] + 1")),
    (
        "leak_scan_body",
        _message(_LEAKS, "jax.jit(lambda x: lax.scan(leak_step, x, jnp.ones(2)))(1.0); store[0] + 1"),
    ),
    ("leak_jvp", _message(_LEAKS, "jax.jvp(leak_arg, (1.0,), (1.0,)); store[0] + 1")),
    ("leak_vmap", _message(_LEAKS, "jax.vmap(leak_arg)(jnp.ones(2)); store[0] + 1")),
    ("jit_output_text", _message(_OUTPUTS, "jax.jit(text)(1.0)")),
    ("jit_output_component", _message(_OUTPUTS, "jax.jit(pair)(1.0)")),
    ("jit_output_sharding", _message(_OUTPUTS, "jax.jit(sharding)(1.0)")),
    ("make_jaxpr_output", _message(_OUTPUTS, "jax.make_jaxpr(pair)(1.0)")),
    ("eval_shape_output", _message(_OUTPUTS, "jax.eval_shape(text, 1.0)")),
    ("leak_float", _message(_LEAKS, "jax.jit(leak_made)(1.0); float(store[0])")),
]
