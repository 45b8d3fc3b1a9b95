"""Snippets for the class paths user code sees: ``type()`` of an array, of a typed key, and of the
tracer each transformation hands a function (JAX's module and class names, which the engine's
classes present, ``engine.core.jax_class_path``); that each path imports and names its class; the
reprs and the unhashable-type messages that name them. Registered in snippets.py."""

# Records type(x) (and, where it says more, repr(x)) of what each transformation passes to f.
_SEEN = (
    "import importlib\n"
    "seen = []\n"
    "def f(x):\n"
    "    t = type(x)\n"
    "    seen.append((str(t), getattr(importlib.import_module(t.__module__), t.__name__).__name__))\n"
    "    return x\n"
)


def _types(call: str) -> str:
    return _SEEN + call + "\nout = seen\n"


def _tracer_message(transform: str, expr: str) -> str:
    return (
        "msgs = []\n"
        "def f(x):\n"
        "    try:\n"
        f"        {expr}\n"
        "    except Exception as e:\n"
        "        msgs.append(f'{type(e).__name__}: {e}')\n"
        "    return x\n"
        f"{transform}\n"
        "out = msgs\n"
    )


# type(), its import path's class name, and repr (addresses cut) of each value an expression gives.
def _objects(*exprs: str) -> str:
    return (
        "import importlib, re\n"
        "def f(x):\n"
        "    return x * 2\n"
        "x = jnp.ones(2)\n"
        "out = []\n"
        f"for v in ({', '.join(exprs)},):\n"
        "    t = type(v)\n"
        "    named = getattr(importlib.import_module(t.__module__), t.__name__).__name__\n"
        "    out.append((str(t), named, re.sub(' at 0x[0-9a-f]+', '', repr(v))))\n"
    )


CLASS_PATHS = [
    ("device_class", _objects("jax.devices()[0]") + "out.append(str(jax.devices()[0]))"),
    ("jit_function_class", _objects("jax.jit(f)", "jax.jit(lambda y: y)")),
    ("stage_classes", _objects("jax.jit(f).lower(x)", "jax.jit(f).lower(x).compile()")),
    ("closed_jaxpr_class", "out = str(type(jax.make_jaxpr(lambda x: x * 2)(1.0)))"),
    # An equation prints as JAX prints it alone (its own names, outputs first); a variable by its
    # identity (cut here) and type.
    (
        "equation_and_var_reprs",
        "import re\n"
        "def f(x, y, k):\n"
        "    z = jnp.sin(x) * y\n"
        "    return jnp.sum(z, axis=0), z[0], (x * 2).astype(jnp.bfloat16), k\n"
        "cj = jax.make_jaxpr(f)(jnp.ones((2, 3)), 2.0, jax.random.key(0))\n"
        "out = [str(e) for e in cj.eqns] + [repr(cj.eqns[0])] + [\n"
        "    re.sub(r'id=[0-9]+', 'id=', repr(v)) for v in cj.jaxpr.invars + cj.jaxpr.outvars]",
    ),
    (
        "sharding_classes",
        "import importlib\n"
        "from jax.sharding import NamedSharding, PartitionSpec as P\n"
        "mesh = jax.make_mesh((1,), ('i',))\n"
        "x = jax.device_put(jnp.ones(2), NamedSharding(mesh, P('i')))\n"
        "parts = (jnp.ones(2).sharding, x.sharding, mesh, P('i'), mesh.abstract_mesh, x.addressable_shards[0],\n"
        "         jax.devices()[0].addressable_memories()[0], jax.random.key(0).dtype, jnp.float32)\n"
        "out = [(str(type(v)), getattr(importlib.import_module(type(v).__module__), type(v).__name__).__name__)\n"
        "       for v in parts]",
    ),
    (
        "jaxpr_part_classes",
        "import importlib\n"
        "cj = jax.make_jaxpr(lambda x: x * 2)(jnp.ones(2))\n"
        "eqn = cj.jaxpr.eqns[0]\n"
        "parts = (cj.jaxpr, eqn, eqn.primitive, eqn.invars[0], eqn.invars[1], cj.jaxpr.invars[0].aval,\n"
        "         jnp.ones(2).aval, jax.ShapeDtypeStruct((2,), jnp.float32), jax.eval_shape(jnp.sin, 1.0))\n"
        "out = [(str(type(v)), getattr(importlib.import_module(type(v).__module__), type(v).__name__).__name__)\n"
        "       for v in parts]",
    ),
    ("array_type", _types("f(jnp.arange(3.0))")),
    ("key_type", _types("f(jax.random.key(0))")),
    ("legacy_key_type", _types("f(jax.random.PRNGKey(0))")),
    ("jit_tracer_type", _types("jax.jit(f)(1.0)")),
    ("make_jaxpr_tracer_type", _types("jax.make_jaxpr(f)(1.0)")),
    ("eval_shape_tracer_type", _types("jax.eval_shape(f, 1.0)")),
    ("vmap_tracer_type", _types("jax.vmap(f)(jnp.ones(2))")),
    ("grad_tracer_type", _types("jax.grad(f)(1.0)")),
    ("vjp_tracer_type", _types("jax.vjp(f, 1.0)")),
    ("linearize_tracer_type", _types("jax.linearize(f, 1.0)")),
    ("jvp_tracer_type", _types("jax.jvp(f, (1.0,), (1.0,))")),
    ("jacfwd_tracer_type", _types("jax.jacfwd(f)(1.0)")),
    ("hessian_tracer_type", _types("jax.hessian(f)(1.0)")),
    ("grad_of_jit_tracer_types", _types("jax.grad(lambda x: f(jax.jit(f)(x)))(1.0)")),
    ("jit_of_grad_tracer_type", _types("jax.jit(jax.grad(f))(1.0)")),
    ("vmap_of_grad_tracer_type", _types("jax.vmap(jax.grad(f))(jnp.ones(2))")),
    (
        "shard_map_tracer_type",
        _types(
            "from jax.sharding import PartitionSpec as P\n"
            "jax.shard_map(f, mesh=jax.make_mesh((1,), ('i',)), in_specs=P(), out_specs=P())(jnp.ones(2))"
        ),
    ),
    # The tangents grad passes to a custom JVP rule: partial evaluation's tracers, and their repr.
    (
        "custom_jvp_rule_tangent_under_grad",
        "seen = []\n"
        "@jax.custom_jvp\n"
        "def g(x):\n"
        "    return x\n"
        "@g.defjvp\n"
        "def g_jvp(p, t):\n"
        "    seen.append((str(type(t[0])), repr(t[0])))\n"
        "    return p[0], t[0]\n"
        "jax.grad(g)(1.0)\n"
        "jax.linearize(g, 2.0)\n"
        "out = seen\n",
    ),
    (
        "tracer_reprs",
        "seen = []\n"
        "def f(x):\n"
        "    seen.append(repr(x))\n"
        "    return x\n"
        "jax.jit(f)(1.0); jax.grad(f)(1.0); jax.linearize(f, 1.0); jax.jvp(f, (1.0,), (2.0,))\n"
        "out = seen\n",
    ),
    ("jit_tracer_unhashable", _tracer_message("jax.jit(f)(1.0)", "hash(x)")),
    ("vmap_tracer_unhashable", _tracer_message("jax.vmap(f)(jnp.ones(2))", "hash(x)")),
    ("grad_tracer_unhashable", _tracer_message("jax.grad(f)(1.0)", "hash(x)")),
    ("array_unhashable", "try:\n    hash(jnp.ones(2))\nexcept TypeError as e:\n    out = str(e)\n"),
    (
        "static_array_refused",
        "try:\n"
        "    jax.jit(lambda x, s: x, static_argnums=1)(1.0, jnp.arange(2))\n"
        "except ValueError as e:\n"
        "    out = str(e)\n",
    ),
    # Arrays and typed keys pickle through their own functions, whatever module their class claims.
    ("array_pickles", "import pickle\nout = pickle.loads(pickle.dumps(jnp.arange(3.0)))"),
    (
        "key_pickles",
        "import pickle\nout = jax.random.key_data(pickle.loads(pickle.dumps(jax.random.key(3))))",
    ),
    # jax.Array (jnp.ndarray) is an interface: concrete arrays, keys and traced arrays are ones, a
    # traced ref is not.
    (
        "jax_array_interface",
        "import numpy as np\n"
        "out = [repr(jax.Array), jax.Array is jnp.ndarray, isinstance(jnp.ones(2), jax.Array),\n"
        "       isinstance(jax.random.key(0), jax.Array), isinstance(np.ones(2), jax.Array),\n"
        "       isinstance(1.0, jax.Array), issubclass(type(jnp.ones(2)), jax.Array),\n"
        "       issubclass(jax.core.Tracer, jax.Array)]",
    ),
    (
        "traced_values_are_jax_arrays",
        "seen = []\n"
        "def f(x):\n"
        "    seen.append((isinstance(x, jax.Array), isinstance(jax.new_ref(x), jax.Array)))\n"
        "    return x\n"
        "jax.jit(f)(1.0); jax.vmap(f)(jnp.ones(2)); jax.grad(f)(1.0); jax.jvp(f, (1.0,), (1.0,))\n"
        "out = seen",
    ),
    # A leaked tracer is named by its class in JAX's message.
    *[
        (
            f"leaked_{name}_tracer_message",
            f"leak = []\n{call}\n"
            "try:\n    leak[0] + 1\nexcept Exception as e:\n    out = [type(e).__name__, *str(e).splitlines()[:2]]\n",
        )
        for name, call in (
            ("jit", "jax.jit(lambda x: leak.append(x) or x)(1.0)"),
            ("vmap", "jax.vmap(lambda x: leak.append(x) or x)(jnp.ones(2))"),
        )
    ],
    (
        "tracer_is_a_core_tracer",
        "seen = []\njax.jit(lambda x: seen.append(isinstance(x, jax.core.Tracer)) or x)(1.0)\nout = seen",
    ),
]

_NAMED = "import importlib\ndef named(t):\n    return getattr(importlib.import_module(t.__module__), t.__name__).__name__\n"

CLASS_PATHS += [
    # A treedef is JAX's C++ PyTreeDef, the one jax.tree_util names, whichever function made it.
    (
        "treedef_class",
        _NAMED + "import pickle\n"
        "ts = [jax.tree_util.tree_structure({'a': 1}), jax.tree.structure((1, [2])), jax.tree.flatten(None)[1]]\n"
        "out = [(str(type(t)), named(type(t)), isinstance(t, jax.tree_util.PyTreeDef)) for t in ts]\n"
        "out += [type(ts[0]) is jax.tree_util.PyTreeDef, str(pickle.loads(pickle.dumps(ts[0])))]",
    ),
    # Arrays put on a device or laid out over a mesh are ArrayImpl too; their typeof a ShapedArray.
    (
        "sharded_array_classes",
        _NAMED + "from jax.sharding import NamedSharding, PartitionSpec as P, AxisType\n"
        "mesh = jax.make_mesh((1,), ('x',), axis_types=(AxisType.Explicit,))\n"
        "xs = [jax.device_put(jnp.arange(4.), NamedSharding(mesh, P('x'))),\n"
        "      jax.device_put(jnp.arange(4.), jax.devices()[0]),\n"
        "      jax.device_put(jnp.arange(4.), jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind='pinned_host'))]\n"
        "out = [(str(type(x)), named(type(x)), str(type(jax.typeof(x))), named(type(jax.typeof(x))),\n"
        "        str(jax.typeof(x))) for x in xs]",
    ),
    (
        "shard_map_typeof_class",
        "from jax.sharding import PartitionSpec as P\n"
        "seen = []\n"
        "def f(x):\n"
        "    seen.append((str(type(jax.typeof(x))), str(jax.typeof(x))))\n"
        "    return x\n"
        "jax.shard_map(f, mesh=jax.make_mesh((1,), ('i',)), in_specs=P('i'), out_specs=P('i'))(jnp.ones(2))\n"
        "out = seen",
    ),
]
