"""What the eleventh differential fuzz (typed PRNG key arrays through jnp, lax and the array
methods, eagerly and under jit, vmap and make_jaxpr, compared with JAX 0.10.2; issue 13) found.
A key array had every numeric method of an array: ``astype`` cast its words to floats, ``sum``
and ``sort`` computed on them, ``bool(key)`` was True, ``jnp.asarray(key, dtype=jnp.uint32)`` and
``lax.convert_element_type`` gave numbers, where JAX leaves those methods abstract
(NotImplementedError) and refuses the conversions (``Cannot convert_element_type from key<fry>
to ...``); ``jnp.zeros_like``, ``ones_like``, ``full_like``, ``full`` with a key, ``jnp.take``,
``device_get``, ``copy`` and a ``scan`` stacking keys failed, or made an array of the key storage's
void dtype; ``==`` and ``!=`` on keys were refused (JAX compares all their words: ``eq``); an
out-of-bounds key index raised where JAX clamps; tracers' ``itemsize``/``nbytes`` of keys failed;
and the reductions, ``unique``, ``nonzero``, ``argmax`` and promotion with a number gave numpy's
errors or values. Also: vmap's refusal of an output of no JAX type, and matrix_transpose's of a
1-d array, in JAX's words. A fuzz of printing and of the tree utilities found tracers under grad and
jvp printing their primal's Python float (``0.3333333432674408``) where JAX prints the array's
``str`` (``0.33333334``), ShapeDtypeStruct's repr without ``weak_type=True``, ``jnp.arange`` and
``lax.iota`` of bools computing where JAX's iota refuses them, ``flatten_up_to`` refusing a tree in
the engine's words only (JAX's now come first), a dict's ``node_data`` keys a tuple (JAX's: a
list), and ``Partial`` printing its engine class. A fuzz of indexing (random index expressions read
and updated, under jit, grad and vmap) found ``.at[...].apply`` failing eagerly wherever the index
selects whole windows (slices, Ellipsis, None, a batch under vmap), and under vmap over the indices
the function not applied at all. A fuzz of custom derivatives found ``defjvps`` summing tangents
with ``add`` (JAX: ``add_any``), a ``symbolic_zeros`` rule under vmap of grad failing on its zero
tangents, a ``custom_jvp`` call with an unused output kept whole under grad of jit (JAX drops the
output, and its work), the transpose of a jit returning instantiated zeros for cotangents that are
symbolic zeros (JAX returns none: the zero is made outside), and ``defvjp``'s ``optimize_remat``
refused. A fuzz of products with mixed operand dtypes found einsum, tensordot and inner converting
their operands where JAX's dot_general takes them as they are (with the result type preferred),
and outer promoting after its broadcasts. A fuzz of control flow found a cond on a Python number staging
its comparison with 0 (JAX compares on the host: no equation) and a jitted scan of no operands
whose only output is its carry failing in the simplifier. A fuzz of debug printing found a Python
number inside a printed container (``x.shape``) reaching the callback strongly typed, where JAX's
eager, vmapped and differentiated calls make it weak. Registered in snippets.py."""

_KEYS = (
    "k = jax.random.key(3)\n"
    "ks = jax.random.split(k, 4)\n"
    "def err(f):\n"
    "    try:\n"
    "        return repr(f())\n"
    "    except Exception as e:\n"
    "        return f'{type(e).__name__}: {e}'\n"
)

FUZZ11 = [
    (
        "key_array_numeric_methods_are_abstract",
        _KEYS
        + "names = ['astype', 'sum', 'max', 'argsort', 'sort', 'cumsum', 'item', 'round', 'view', 'conj', 'clip']\n"
        "out = [err(lambda: getattr(ks, n)()) for n in names] + [err(lambda: ks.real), err(lambda: ks.mT),"
        " err(lambda: bool(k)), err(lambda: int(k)), err(lambda: float(k)), err(lambda: ks.tolist()), err(lambda: len(k)),"
        " err(lambda: np.array(ks)), ks.itemsize, ks.nbytes, err(lambda: format(k, '')), err(lambda: format(k, '>5'))]",
    ),
    (
        "key_conversions_refused",
        _KEYS
        + "out = [err(lambda: jnp.astype(ks, jnp.float32)), err(lambda: lax.convert_element_type(k, jnp.uint32)),"
        " err(lambda: jax.jit(lambda k: k.astype(jnp.float32))(k)), err(lambda: jnp.asarray(k, dtype=jnp.uint32)),"
        " err(lambda: jnp.result_type(ks, 1)), err(lambda: ks + 1), err(lambda: ks < ks), err(lambda: -ks),"
        " err(lambda: jnp.nonzero(ks)), err(lambda: jnp.sum(ks)), err(lambda: jax.jit(jnp.cumsum)(ks)),"
        " err(lambda: jnp.unique(ks)), err(lambda: jnp.all(ks)), err(lambda: jax.jit(jnp.argmax)(ks)),"
        " err(lambda: jnp.sort(ks)), str(jax.make_jaxpr(jnp.argsort)(ks)), str(jax.make_jaxpr(jnp.argmax)(ks))]",
    ),
    (
        "keys_filled_copied_taken",
        _KEYS + "def body(c, x):\n"
        "    c, s = jax.random.split(c)\n"
        "    return c, (s, jnp.zeros_like(c))\n"
        "out = [err(lambda: jnp.zeros_like(ks)), err(lambda: jnp.ones_like(k)), err(lambda: jnp.full_like(ks, 5)),"
        " err(lambda: jnp.full((2,), k)), err(lambda: jnp.zeros(2, dtype=ks.dtype)), err(lambda: jnp.empty_like(ks)),"
        " str(jax.make_jaxpr(jnp.zeros_like)(ks)), str(jax.make_jaxpr(lambda a: jnp.full((3,), a))(k)),"
        " str(jax.make_jaxpr(lambda a: jnp.full_like(a, 7))(ks)), err(lambda: jax.device_get({'a': k})),"
        " err(lambda: jnp.array(ks, copy=True)), err(lambda: ks.copy()), err(lambda: jnp.take(ks, jnp.array([0, 5]))),"
        " str(jax.make_jaxpr(lambda a: jnp.take(a, jnp.array([0, 3])))(ks)), err(lambda: ks[7]), err(lambda: k[0]),"
        " err(lambda: jax.lax.scan(body, k, jnp.arange(3))), err(lambda: jax.jit(lambda k: jax.lax.scan(body, k, jnp.arange(2)))(k)),"
        " err(lambda: jax.tree.map(jnp.zeros_like, {'k': k, 'x': 1.0})), jnp.iscomplexobj(ks)]",
    ),
    (
        "key_equality",
        _KEYS
        + "out = [str(jax.make_jaxpr(lambda a, b: a == b)(ks, k)), str(jax.make_jaxpr(lambda a, b: a != b)(ks, ks)),"
        " str(jax.make_jaxpr(jnp.array_equal)(ks, ks)), err(lambda: ks == ks[1]), err(lambda: ks != k),"
        " err(lambda: jax.jit(lambda a, b: a == b)(ks, ks[::-1])), err(lambda: jax.vmap(lambda a: a != ks[0])(ks)),"
        " err(lambda: jnp.array_equal(ks, ks)), err(lambda: jnp.where(ks == k, ks, ks[::-1]))]",
    ),
    (
        "key_tracer_sizes_and_vmap_outputs",
        _KEYS
        + "out = [err(lambda: jax.jit(lambda a: a.itemsize)(ks)), err(lambda: jax.jit(lambda a: a.nbytes)(ks)),"
        " str(jax.make_jaxpr(lambda a: a.itemsize)(ks)), err(lambda: jax.vmap(lambda a: format(a, ''))(ks)),"
        " err(lambda: jax.vmap(lambda x: 'a')(jnp.ones(2))), err(lambda: jnp.ones(3).mT),"
        " err(lambda: jax.vmap(lambda a: a.mT)(jnp.ones((2, 3))))]",
    ),
    (
        "tracer_reprs_and_shape_structs",
        "x = jnp.float32(1) / 3\n"
        "seen = []\n"
        "jax.grad(lambda v: (seen.append(repr(v)), v * 2)[1])(x)\n"
        "jax.jvp(lambda v: (seen.append(repr(v)), v * 2)[1], (x,), (x,))\n"
        "jax.grad(jax.grad(lambda v: (seen.append(repr(v)), v ** 3)[1]))(x)\n"
        "jax.grad(lambda v: (seen.append(repr(v)), v * 2)[1])(jnp.bfloat16(1) / 3)\n"
        "out = seen + [repr(jax.eval_shape(lambda: jnp.asarray(2.5))), repr(jax.eval_shape(lambda v: v * 2, 1.0)),"
        " repr(jax.ShapeDtypeStruct((2,), jnp.int32)), repr(jax.ShapeDtypeStruct((), jnp.float32, weak_type=True))]",
    ),
    (
        "iota_refuses_bools",
        _KEYS
        + "out = [err(lambda: jnp.arange(3, dtype=bool)), err(lambda: jnp.arange(True)), err(lambda: lax.iota(bool, 2)),"
        " err(lambda: jnp.indices((2,), dtype=bool)), err(lambda: jnp.arange(0.0, 1.0, 0.5, dtype=bool)),"
        " err(lambda: jax.jit(lambda: jnp.arange(2, dtype=bool))())]",
    ),
    (
        "flatten_up_to_in_jax_words",
        "from collections import namedtuple, OrderedDict, defaultdict\n"
        "Pt = namedtuple('Pt', ['x', 'y']); Qt = namedtuple('Qt', ['x', 'y'])\n"
        "def first(a, b):\n"
        "    try:\n"
        "        return repr(jax.tree.structure(a).flatten_up_to(b))\n"
        "    except ValueError as e:\n"
        "        return str(e).splitlines()[0]\n"
        "cases = [([0, 0], (1, 2)), ([0, 0], [1]), ((0, 0), [1, 2]), ((0, 0), (1,)), ({'a': 0}, {'b': 1}), ({'a': 0}, [1]),"
        " (Pt(0, 0), (1, 2)), (Pt(0, 0), Qt(1, 2)), (None, 1), (OrderedDict(a=0), {'a': 1}), ({'a': 0}, OrderedDict(a=1)),"
        " (OrderedDict(a=0, b=0), OrderedDict(b=1, a=2)), (defaultdict(list, a=0), defaultdict(int, a=0)),"
        " ((0, [0]), (1, 2)), ({'a': [0, 0]}, {'a': [1]}), (jax.tree_util.Partial(jnp.add, 0.), [1])]\n"
        "out = [first(a, b) for a, b in cases] + [repr(jax.tree.structure({'b': 1, 'a': 2}).node_data()),"
        " repr(jax.tree.structure(jax.tree_util.Partial(jnp.add, 1.0)).node_data()[0]), repr(jax.tree_util.Partial)]",
    ),
    (
        "at_apply_over_windows",
        "x = jnp.sin(jnp.arange(12, dtype=jnp.float32) * 1.3 + 0.2).reshape(4, 3)\n"
        "out = [x.at[::-1, ...].apply(jnp.sin), x.at[jnp.array([1, 1]), ::2].apply(jnp.cos), x.at[None].apply(jnp.sin),"
        " jax.vmap(lambda v: v.at[1].apply(jnp.sin))(jnp.stack([x, x * 2])),"
        " jax.vmap(lambda i: x.at[..., i].apply(jnp.exp))(jnp.array([0, 2])), jax.jit(lambda v: v.at[:, 1:].apply(jnp.tanh))(x)]",
    ),
    (
        "custom_derivatives_rules",
        "@jax.custom_jvp\n"
        "def f(x, y):\n"
        "    return x * jnp.exp(y)\n"
        "f.defjvps(lambda dx, ans, x, y: dx * jnp.exp(y), lambda dy, ans, x, y: ans * dy)\n"
        "@jax.custom_jvp\n"
        "def g(x, y):\n"
        "    return x * y\n"
        "def g_jvp(p, t):\n"
        "    x, y = p; dx, dy = t\n"
        "    dx = jnp.zeros_like(x) if type(dx) is jax.custom_derivatives.SymbolicZero else dx\n"
        "    dy = jnp.zeros_like(y) if type(dy) is jax.custom_derivatives.SymbolicZero else dy\n"
        "    return g(x, y), dx * y + x * dy\n"
        "g.defjvp(g_jvp, symbolic_zeros=True)\n"
        "@jax.custom_jvp\n"
        "def h(d):\n"
        "    return {'a': jnp.tanh(d['x']), 'b': d['x'] * d['y']}\n"
        "@h.defjvp\n"
        "def h_jvp(p, t):\n"
        "    (d,), (dd,) = p, t\n"
        "    out = h(d)\n"
        "    return out, {'a': (1 - out['a'] ** 2) * dd['x'], 'b': dd['x'] * d['y'] + d['x'] * dd['y']}\n"
        "@jax.custom_vjp\n"
        "def k(x, y):\n"
        "    return x * y\n"
        "k.defvjp(lambda x, y: (x * y, x), lambda x, g: (None, x * g))\n"
        "@jax.custom_vjp\n"
        "def m(x, y):\n"
        "    return x ** 2 * y\n"
        "m.defvjp(lambda x, y: (m(x, y), (x, y)), lambda r, g: (2 * r[0] * r[1] * g, r[0] ** 2 * g), optimize_remat=True)\n"
        "x, y = jnp.float32(0.7), jnp.float32(1.3)\n"
        "xs, ys = jnp.sin(jnp.arange(1.0, 4.0)), jnp.cos(jnp.arange(1.0, 4.0))\n"
        "hf = lambda x, y: h({'x': x, 'y': y})['a'] + h({'x': x, 'y': y})['b']\n"
        "out = [str(jax.make_jaxpr(lambda x, y: jax.jvp(f, (x, y), (jnp.ones_like(x), jnp.zeros_like(y))))(x, y)),"
        " jax.jacfwd(f)(x, y), jax.grad(lambda x, y: jnp.sum(jax.vmap(g)(x, y)))(xs, ys),"
        " jax.jit(jax.grad(lambda x, y: jnp.sum(jax.vmap(g)(x, y))))(xs, ys), str(jax.make_jaxpr(jax.grad(jax.jit(hf)))(x, y)),"
        " jax.grad(jax.jit(hf))(x, y), str(jax.make_jaxpr(jax.grad(jax.jit(k)))(x, y)), jax.grad(jax.jit(k), argnums=(0, 1))(x, y),"
        " jax.grad(m, argnums=(0, 1))(x, y), jax.jit(jax.vmap(jax.grad(m)))(xs, ys)]",
    ),
    (
        "mixed_dtype_products",
        "A = jnp.sin(jnp.arange(12.0) * 0.7 + 0.1).reshape(3, 4) * 3\n"
        "a16, b8 = A.astype(jnp.float16), (jnp.cos(jnp.arange(20.0)).reshape(4, 5) * 2).astype(jnp.int8)\n"
        "b32, w32 = jnp.cos(jnp.arange(20.0)).reshape(4, 5), A[1]\n"
        "fs = [lambda a, b: jnp.einsum('ij,jk->ik', a, b), lambda a, b: jnp.einsum('ij,jk->ik', a, b, precision=jax.lax.Precision.HIGHEST),"
        " lambda a, b: jnp.tensordot(a, b, axes=1), lambda a, b: jnp.inner(a, b.T), lambda a, b: jnp.outer(a[0], b[0]),"
        " lambda a, b: jnp.einsum('ij,ij->', a[:, :4], b[:3, :4]), lambda a, b: jnp.einsum('ii->i', a[:, :3] > 0),"
        " lambda a, b: jnp.einsum('ij,jk->ik', a > 0, b > 0), lambda a, b: jnp.tensordot(a > 0, b > 0, axes=1)]\n"
        "out = [(str(jax.make_jaxpr(f)(a, b)), f(a, b)) for f in fs for a, b in ((a16, b8), (A, b8), (a16, b32))]"
        " + [str(jax.make_jaxpr(jax.vmap(lambda a, w: jnp.einsum('ij,j->i', a, w)))(jnp.stack([a16, a16]), jnp.stack([w32, w32])))]",
    ),
    (
        "vectorize_core_dimension_error",
        "def err(f):\n"
        "    try:\n"
        "        return repr(f())\n"
        "    except Exception as e:\n"
        "        return f'{type(e).__name__}: {e}'\n"
        "out = [err(lambda: jnp.vecmat(jnp.ones(3), jnp.ones((4, 5)))), err(lambda: jnp.vectorize(jnp.dot, signature='(n),(n)->()')(jnp.ones(2), jnp.ones(3)))]",
    ),
    (
        "cond_on_host_numbers_and_bare_scans",
        "x = jnp.arange(4.0)\n"
        "preds = [1, 0, 2.5, np.int32(3), np.float32(0), True]\n"
        "f = lambda x: lax.scan(lambda c, t: (c, t), 0.0, None, length=3)\n"
        "out = [str(jax.make_jaxpr(lambda x: lax.cond(p, lambda: x, lambda: -x))(x)) for p in preds]"
        " + [lax.cond(p, lambda: x, lambda: -x) for p in preds] + [jax.jit(f)(x), str(jax.make_jaxpr(f)(x)),"
        " jax.jit(lambda x: lax.scan(lambda c, t: (c, (t, c)), 0.0, None, length=2))(x)]",
    ),
    (
        "debug_callbacks_get_weak_python_numbers",
        "x = jnp.array([[0.5, 1.0, 2.0], [1.0, 2.0, 3.0]])\n"
        "seen = []\n"
        "cb = lambda a, b: seen.append(repr((a, b)))\n"
        "def f(x):\n"
        "    jax.debug.callback(cb, x.shape, 2.5)\n"
        "    return jnp.sum(x)\n"
        "f(x[0]); jax.jit(f)(x[0]); jax.vmap(f)(x); jax.grad(f)(x[0]); jax.vmap(jax.jit(f))(x)\n"
        "jax.effects_barrier()\n"
        "out = seen",
    ),
]
