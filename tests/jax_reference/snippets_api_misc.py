"""Snippets for the smaller public names issue 13 found missing: ``lax.empty``, ``lax.dtype``,
``lax.shape_as_value``, ``jax.errors``' ``InconclusiveDimensionOperation`` and ``JaxprTypeError``,
``jax.Shard``, ``jax.sharding.AbstractDevice`` and ``ManualAxisType``. Registered in snippets.py;
their make_jaxpr texts are in the sweep (tests/fidelity/sweep_lax.py)."""

_MESH = "mesh = jax.make_mesh((2, 2), ('x', 'y'))\n"

API_MISC = [
    # lax.empty: JAX's CPU lowering fills it with zeros, as the engine does
    (
        "empty_values",
        "out = (lax.empty(3, jnp.float32), lax.empty((2, 3), jnp.int32), lax.empty((), 'bool'), "
        "jax.jit(lambda: lax.empty((2,), np.int32))(), jax.jit(lambda x: x + lax.empty((2,), x.dtype))(jnp.ones(2)))",
    ),
    (
        "empty_transformed",
        "f = lambda x: (x * lax.empty((), jnp.float32)).sum()\n"
        "out = (jax.grad(f)(1.0), jax.vmap(lambda x: x + lax.empty((3,), jnp.float32))(jnp.ones((2, 3))), "
        "jax.eval_shape(lambda: lax.empty((4, 1), jnp.int8)).shape)",
    ),
    ("err_empty_list_shape", "out = lax.empty([2], jnp.float32)"),
    # lax.dtype: jax._src.dtypes.dtype, canonicalizing all but JAX arrays
    (
        "dtype_of_values",
        "out = [str(lax.dtype(v)) for v in (1.0, 3, True, 1j, jnp.ones(2), np.int8(1), 'float64', np.float64, "
        "int, float, np.arange(3), jnp.zeros(2, jnp.bfloat16), np.dtype('uint16'), [1.0, 2.0])]",
    ),
    ("err_dtype_none", "out = lax.dtype(None)"),
    ("err_dtype_ragged_list", "out = lax.dtype([1, [2]])"),
    ("err_dtype_unknown_name", "out = lax.dtype('foo')"),
    ("err_dtype_string_array", "out = lax.dtype('U3')"),
    # lax.shape_as_value: a numpy vector for known shapes, an empty int32 array for ()
    (
        "shape_as_value",
        "out = (lax.shape_as_value((2, 3)), lax.shape_as_value(()), type(lax.shape_as_value((2,))).__name__, "
        "jax.jit(lambda x: lax.shape_as_value(x.shape) * 2)(jnp.ones((4, 5))))",
    ),
    # jax.errors: the classes, their bases, and what raises them
    (
        "error_classes",
        "E = jax.errors\n"
        "out = ([c.__name__ for c in E.InconclusiveDimensionOperation.__mro__], "
        "[c.__name__ for c in E.JaxprTypeError.__mro__])",
    ),
    (
        "inconclusive_comparison_is_the_errors_class",
        "a, b = jax.export.symbolic_shape('a, b')\n"
        "try:\n    a >= b\n    out = None\n"
        "except jax.errors.InconclusiveDimensionOperation as e:\n    out = str(e).split(chr(10))[0]",
    ),
    (
        "check_jaxpr_accepts_a_well_typed_jaxpr",
        "from jax.extend import core as jc\n"
        "out = jc.check_jaxpr(jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3)).jaxpr)",
    ),
    # jax.Shard: the class of addressable_shards items, its attributes and repr
    (
        "shard_class_and_repr",
        "x = jnp.arange(8.)\ns = x.addressable_shards[0]\n"
        "out = (type(s) is jax.Shard, isinstance(s, jax.Shard), repr(s), str(s.index), s.replica_id, s.data, "
        "str(s.device))",
    ),
    (
        "shards_of_a_sharded_array",
        _MESH + "y = jax.device_put(jnp.arange(32.).reshape(4, 8), jax.NamedSharding(mesh, jax.P('x')))\n"
        "out = [(repr(s), isinstance(s, jax.Shard)) for s in y.addressable_shards]",
    ),
    # jax.sharding.AbstractDevice: the device kind of an AbstractMesh
    (
        "abstract_device",
        _MESH + "from jax.sharding import AbstractDevice\n"
        "d = mesh.abstract_mesh.abstract_device\n"
        "out = (repr(d), d == AbstractDevice('cpu', None, 'cpu'), hash(d) == hash(AbstractDevice('cpu', None, 'cpu')), "
        "d.device_kind, d.num_cores, d.platform, repr(mesh.abstract_mesh), "
        "repr(jax.sharding.AbstractMesh((2,), ('x',), abstract_device=AbstractDevice('cpu', None, 'cpu'))))",
    ),
    ("err_abstract_device_missing_fields", "out = jax.sharding.AbstractDevice('cpu')"),
    (
        "err_abstract_device_frozen",
        "d = jax.sharding.AbstractDevice('cpu', None, 'cpu')\nd.platform = 'gpu'\nout = d",
    ),
    # jax.sharding.ManualAxisType: interned, immutable sets of varying/unreduced/reduced axes
    (
        "manual_axis_type",
        "M = jax.sharding.ManualAxisType\nm = M(varying=frozenset({'x'}))\n"
        "out = (repr(m), m is M(varying={'x'}), sorted(m.vur), m.empty, M().empty, repr(m.update(reduced={'y'})), "
        "repr(M(unreduced={'x'}).to_ct_mat()), M(reduced={'y'}) is M(reduced={'y'}))",
    ),
    ("err_manual_axis_type_overlap", "out = jax.sharding.ManualAxisType(varying={'x'}, unreduced={'x'})"),
    ("err_manual_axis_type_positional", "out = jax.sharding.ManualAxisType({'x'})"),
    (
        "manual_axis_type_in_shard_map",
        "mesh = jax.make_mesh((2,), ('x',), axis_types=(jax.sharding.AxisType.Explicit,))\n"
        "x = jax.device_put(jnp.arange(8.), jax.NamedSharding(mesh, jax.P('x')))\nseen = []\n"
        "def f(x):\n    seen.append(repr(jax.typeof(x).manual_axis_type))\n    return x\n"
        "jax.shard_map(f, mesh=mesh, in_specs=jax.P('x'), out_specs=jax.P('x'))(x)\nout = seen",
    ),
]

# jax.debug.log: jax.debug.print's text as an INFO record of the "jax._src.debugging" logger, from
# the line that called it (made when traced), handled whatever the logger's level
_LOG = (
    "import logging\nrecs = []\nh = logging.Handler()\nh.emit = recs.append\n"
    "lg = logging.getLogger('jax._src.debugging')\nlg.addHandler(h)\n"
    "def g(x):\n    jax.debug.log('x = {}', x)\n    jax.debug.log('y = {y}', y=x * 2)\n"
    "    jax.debug.log('plain')\n    return x * 3\n"
)
_RECORDS = "out = (res, [(r.name, r.levelname, r.filename, r.lineno, r.getMessage()) for r in recs])"
_INSPECT = "seen = []\ncb = lambda s: seen.append(repr(s))\nx = jnp.arange(8.)\n"
_SHARDED = (
    "mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(jax.sharding.AxisType.Auto,) * 2)\n"
    "xs = jax.device_put(jnp.arange(32.).reshape(8, 4), jax.NamedSharding(mesh, jax.P('x', 'y')))\n"
    "def f(x):\n    y = jnp.sin(x)\n    jax.debug.inspect_array_sharding(y, callback=cb)\n    return y * 2\n"
)
API_MISC += [
    (
        "log_eager_vmap_grad",
        _LOG + "try:\n    res = (g(3.0), jax.vmap(g)(jnp.arange(2.)), jax.grad(g)(1.0))\n"
        "finally:\n    lg.removeHandler(h)\n" + _RECORDS,
    ),
    (
        "log_under_jit",
        _LOG + "lg.setLevel(logging.ERROR)\n"
        "try:\n    res = jax.jit(lambda x: (jax.debug.log('j = {}', x), x + 1)[1])(5.0)\n"
        "finally:\n    lg.removeHandler(h)\n    lg.setLevel(logging.NOTSET)\n" + _RECORDS,
    ),
    ("err_log_unused_argument", "out = jax.debug.log('plain', 1.0)"),
    ("err_print_unused_keyword", "out = jax.debug.print('{x}', x=1.0, y=2.0)"),
    ("err_print_two_call_form_extra", "out = jax.debug.print(1.0, ordered=True)"),
    (
        "debug_effects",
        "out = (str(jax.debug.DebugEffect()), str(jax.debug.OrderedDebugEffect()), "
        "jax.debug.DebugEffect.__name__, jax.debug.OrderedDebugEffect.__name__)",
    ),
    # jax.debug.inspect_array_sharding: eagerly the array's sharding; inside jit once, when the
    # program compiles (on a mesh the partitioned value's, on one device a replicated GSPMDSharding)
    (
        "inspect_eager",
        _INSPECT + _SHARDED + "jax.debug.inspect_array_sharding({'a': x, 'b': jnp.ones(2)}, callback=cb)\n"
        "jax.debug.inspect_array_sharding(xs, callback=cb)\nout = seen",
    ),
    (
        "inspect_under_jit_once",
        _INSPECT + _SHARDED + "jf = jax.jit(f)\nsteps = []\nfor arg in (xs, xs, x, x):\n"
        "    jf(arg)\n    steps.append(list(seen))\n    seen.clear()\nout = steps",
    ),
    (
        "inspect_under_vmap_grad",
        _INSPECT + _SHARDED + "steps = []\n"
        "for run in (lambda: jax.vmap(f)(jnp.ones((3, 2))), lambda: jax.grad(lambda x: f(x).sum())(x),\n"
        "            lambda: jax.jit(jax.grad(lambda x: f(x).sum()))(x)):\n"
        "    run()\n    steps.append(list(seen))\n    seen.clear()\nout = steps",
    ),
]

# jax.empty_ref / jax.free_ref: staged only (no eager rule, as in JAX); a jitted program with one
# is discharged, the ref's initial values zeros
_EMPTY_REF = (
    "def f(x):\n    r = jax.empty_ref(jax.typeof(x))\n    r[...] = x * 2\n    y = r[...]\n"
    "    jax.free_ref(r)\n    return y + 1\n"
    "def g(x):\n    r = jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.int32))\n    r[0] = 5\n    r[1] = 7\n"
    "    return jax.freeze(r) * x\n"
)
API_MISC += [
    (
        "empty_ref_under_jit",
        _EMPTY_REF + "out = (jax.jit(f)(jnp.arange(3.)), jax.jit(g)(jnp.int32(3)), "
        "jax.jit(lambda: jax.freeze(jax.empty_ref(jax.ShapeDtypeStruct((2,), jnp.float32))))(), "
        "jax.grad(lambda x: jax.jit(f)(x).sum())(jnp.arange(3.)), "
        "jax.jit(lambda x: (jax.free_ref(jax.new_ref(x)), x)[0])(jnp.ones(2)))",
    ),
    (
        "empty_ref_jaxprs",
        _EMPTY_REF + "out = [str(jax.make_jaxpr(fn)(*a)) for fn, a in ((f, (jnp.arange(3.),)), "
        "(g, (jnp.int32(3),)), (lambda x: jax.freeze(jax.empty_ref(x)), (1.0,)))]",
    ),
    ("err_empty_ref_eager", "out = jax.empty_ref(jax.ShapeDtypeStruct((3,), jnp.float32))"),
    ("err_empty_ref_eager_of_array", "out = jax.empty_ref(jnp.ones(3))"),
    ("free_ref_eager", "r = jax.new_ref(jnp.ones(2))\nout = (jax.free_ref(r), r[...])"),
]

# jnp.float6_e2m3fn, float6_e3m2fn, int1, uint1 (ml_dtypes'): what JAX does with them on a CPU is
# type-level (its CPU backend cannot hold float6 arrays, and mishandles int1/uint1 ones); the engine
# computes with them as with the other narrow types
_NARROW6 = (
    "names = ['float6_e2m3fn', 'float6_e3m2fn', 'int1', 'uint1']\nts = [getattr(jnp, n) for n in names]\n"
)
API_MISC += [
    (
        "narrow_types_described",
        _NARROW6 + "out = [(str(jnp.dtype(t)), jnp.dtype(t).itemsize, "
        "repr(jnp.finfo(t) if 'float' in n else jnp.iinfo(t)), jnp.issubdtype(t, jnp.floating), "
        "jnp.issubdtype(t, jnp.signedinteger), jnp.isdtype(t, 'integral'), str(jax.dtypes.canonicalize_dtype(t))) "
        "for n, t in zip(names, ts)]",
    ),
    (
        "narrow_types_promote",
        _NARROW6 + "out = [str(jnp.promote_types(jnp.float6_e2m3fn, jnp.int8)), "
        "str(jnp.result_type(jnp.float6_e3m2fn, 1.0)), str(jnp.result_type(jnp.int1, 1)), "
        "str(jnp.promote_types(jnp.uint1, jnp.uint1))]",
    ),
    ("err_float6_promotes_with_float32", "out = jnp.promote_types(jnp.float6_e2m3fn, jnp.float32)"),
    ("err_float6_promotes_with_bfloat16", "out = jnp.promote_types(jnp.float6_e3m2fn, jnp.bfloat16)"),
    ("err_int1_promotes_with_int8", "out = jnp.promote_types(jnp.int1, jnp.int8)"),
    ("err_uint1_promotes_with_float32", "out = jnp.promote_types(jnp.uint1, jnp.float32)"),
    (
        "narrow_types_staged",
        _NARROW6 + "out = [(str(jax.eval_shape(lambda x: x + x, jax.ShapeDtypeStruct((3,), t))), "
        "str(jax.make_jaxpr(lambda x: x.astype(jnp.float32))(jax.ShapeDtypeStruct((3,), t)))) for t in ts]",
    ),
]

# lax.create_token / lax.after_all: tokens on the CPU, eager and through jit (values of no data)
API_MISC += [
    (
        "tokens",
        "t = lax.create_token()\nu = lax.create_token(jnp.ones(2))\n"
        "j = jax.jit(lambda t, x: (lax.after_all(t, lax.create_token()), x * 2.0))(t, jnp.ones(2))\n"
        "out = (type(t).__name__, type(lax.after_all(t, u)).__name__, type(lax.after_all()).__name__, "
        "type(j[0]).__name__, j[1], type(jax.jit(lambda: lax.create_token())()).__name__, "
        "str(jax.typeof(t)) if hasattr(jax, 'typeof') else None, "
        "jax.jit(lambda x: (lax.after_all(lax.create_token()), x + 1)[1])(jnp.ones(2)))",
    ),
    ("err_after_all_of_an_array", "out = lax.after_all(lax.create_token(), jnp.ones(2))"),
    ("err_after_all_of_an_array_under_jit", "out = jax.jit(lambda x: lax.after_all(x))(jnp.ones(2))"),
]
API_MISC += [
    (
        "inspect_when_lowered",
        _INSPECT + "def h(x):\n    jax.debug.inspect_array_sharding(x, callback=cb)\n    return x + 1\n"
        "jh = jax.jit(h)\nsteps = []\nfor run in (lambda: jh.lower(x), lambda: jh.lower(x).compile(), lambda: jh(x)):\n"
        "    run()\n    steps.append(list(seen))\n    seen.clear()\nout = steps",
    ),
    # jax._src.test_util.create_mesh (JAX's documentation imports it): Auto axes, devices in order,
    # or sorted by id; too few devices skip the test calling it
    *[
        (
            f"jtu_create_mesh_{i}",
            "from jax._src import test_util as jtu\n"
            f"m = jtu.create_mesh({args})\n"
            "out = (m.axis_names, tuple(m.shape.items()), [d.id for d in m.devices.flat], str(m.axis_types), "
            "m.devices.shape)",
        )
        for i, args in enumerate(
            [
                "(2,), ('x',)",
                "(4, 2), ('a', 'b')",
                "(2, 2, 2), ('a', 'b', 'c'), iota_order=True",
                "(2,), ('x',), axis_types=(jax.sharding.AxisType.Explicit,)",
            ]
        )
    ],
    (
        "jtu_create_mesh_too_few",
        "import unittest\nfrom jax._src import test_util as jtu\n"
        "try:\n    jtu.create_mesh((16,), ('x',))\n    out = None\nexcept unittest.SkipTest as e:\n    out = str(e)",
    ),
    (
        "jtu_check_grads",
        "from jax._src import test_util as jtu\nout = jtu.check_grads(jnp.sin, (1.0,), order=2)",
    ),
    # linearize's function is a Partial whose leaves are the residuals: jit can return it
    (
        "linearize_fn_is_partial",
        "y, f = jax.linearize(jnp.sin, 1.0)\n"
        "out = (type(f).__name__, isinstance(f, jax.tree_util.Partial), jax.tree.leaves(f), f(2.0))",
    ),
    (
        "linearize_fn_returned_by_jit",
        "y, f = jax.jit(lambda x: jax.linearize(lambda a: jnp.sin(a) * a, x))(1.5)\nout = (y, f(2.0))",
    ),
    (
        "linearize_fn_through_vmap",
        "fs = jax.vmap(lambda x: jax.linearize(jnp.sin, x)[1])(jnp.arange(3.))\nout = fs(jnp.ones(3))",
    ),
    (
        "linear_transpose_fn_is_partial",
        "f_t = jax.linear_transpose(lambda x: 2.0 * x + jnp.sin(1.0) * x, 1.0)\n"
        "out = (type(f_t).__name__, isinstance(f_t, jax.tree_util.Partial), f_t(3.0))",
    ),
    (
        "linear_transpose_fn_returned_by_jit",
        "g = jax.jit(lambda c: jax.linear_transpose(lambda x: c * x, 1.0))(2.0)\nout = (type(g).__name__, g(3.0))",
    ),
    # a Partial over a functools.partial keeps that partial whole, as the static function
    (
        "partial_of_functools_partial",
        "import functools, operator\n"
        "p = jax.tree_util.Partial(functools.partial(operator.add, 1), 2)\n"
        "out = (jax.tree.leaves(p), p(), p.args)",
    ),
]
