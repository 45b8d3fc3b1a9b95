"""What the tenth differential fuzz (lax operations with their parameters, and jnp / lax operations
under vmap with random in_axes and out_axes, the jaxpr texts and values compared with JAX 0.10.2's;
issue 13) found. Max and min pooling's derivatives were a composite of pads and strided slices
where JAX stages ``select_and_gather_add`` (their JVP) and ``select_and_scatter_add`` (its
transpose), which JAX refuses to transpose with window dilation; reduce_window_sum's transpose was
the pullback of that composite where JAX pads the cotangent and sums its windows; the window
reductions' batch rule moved the batch dimension to the front (JAX's keeps it in place), as did
select_n's where the cases agree and bitcast_convert_type's; optimization_barrier's JVP let the
tangents through where JAX puts them behind a barrier of their own (and transposes it); ``astype``
or ``jnp.asarray`` of a concrete array inside a trace converted it on the host, where JAX stages
the conversion of the constant (and eagerly, ``lax.convert_element_type`` of a numpy array of the
target dtype returned the numpy array); a weak float floor-divided by an array lost its weak type;
a while loop under nested vmap batched a counter the predicate reads only through an inner vmap
(JAX puts the outer batch dimension after the predicate's); exp2 of bfloat16 and float16 rounded
once where JAX's lowering, ``exp(log(2) * x)``, rounds each step; ppermute under vmap was a one-hot
matrix product where JAX takes along the batch dimension (and asserts a whole permutation); invalid
raw PRNG keys and negative ``lax.rev`` dimensions were refused in the engine's words (or not at
all), not JAX's. A fuzz of jnp functions' jaxprs under grad, jvp, jacrev and vmap found linearize
staging zeros for an output whose tangent is symbolically zero (JAX's are made in the tangent
trace, which the transpose never reads), sort's JVP expanding its permutation once per tangent
(JAX's once for all), argmin/argmax with ``keepdims`` and no axis reshaping where JAX expands dims,
and norm's refusals in other words; jnp.stack checked shapes itself, where JAX's stack primitive
does (so under vmap its message names the batched shapes); asin and acos of bfloat16 and float16
rounded once where JAX's lowering rounds each step. Registered in snippets.py."""

_X = "x = jnp.sin(jnp.arange(12, dtype=jnp.float32) * 1.7 + 0.3).reshape(3, 4)\n"
_POOL = (
    _X
    + "def pool(x, op=lax.max, init=-jnp.inf, win=(2, 3), strides=(2, 1), pad='SAME', base=None, wdil=None):\n"
    "    return lax.reduce_window(x, init, op, win, strides, pad, base, wdil)\n"
)

FUZZ10 = [
    (
        "max_and_min_pooling_derivatives",
        _POOL + "fs = [lambda x: pool(x), lambda x: pool(x, lax.min, jnp.inf, (2, 2), (2, 2), 'VALID'),"
        " lambda x: pool(x, base=(1, 2)), lambda x: pool(jnp.round(x * 2), win=(3, 2), strides=(1, 1))]\n"
        "out = [(str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.sin(f(x)))))(x)), jax.grad(lambda x: jnp.sum(jnp.sin(f(x))))(x),"
        " str(jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (jnp.cos(x),)))(x)), jax.jvp(f, (x,), (jnp.cos(x),)),"
        " str(jax.make_jaxpr(jax.vmap(jax.grad(lambda x: jnp.sum(f(x)))))(jnp.stack([x, x * 2])))) for f in fs]",
    ),
    (
        "max_pooling_vjp_refuses_window_dilation",
        _POOL + "f = lambda x: pool(x, win=(2, 2), wdil=(2, 1))\n"
        "try:\n"
        "    jax.grad(lambda x: jnp.sum(f(x)))(x)\n"
        "    refused = None\n"
        "except NotImplementedError as e:\n"
        "    refused = str(e)\n"
        "out = (refused, jax.jvp(f, (x,), (jnp.cos(x),)))",
    ),
    (
        "window_sum_transpose_and_batching_in_place",
        _POOL + "f = lambda x: pool(x, lax.add, 0., (1, 3), (2, 2), 'VALID')\n"
        "g = lambda x: pool(x, lax.add, 0., (2, 3), (2, 1), 'SAME')\n"
        "xb = jnp.stack([x, -x], 1)\n"
        "out = (str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(f(x))))(x)), jax.grad(lambda x: jnp.sum(f(x) ** 2))(x),"
        " str(jax.make_jaxpr(jax.vmap(g, in_axes=1))(xb)), jax.vmap(g, in_axes=1)(xb),"
        " str(jax.make_jaxpr(jax.vmap(lambda x: pool(x), in_axes=1))(xb)))",
    ),
    (
        "select_n_and_bitcast_batch_in_place",
        "x = jnp.sin(jnp.arange(24, dtype=jnp.float32)).reshape(3, 2, 4)\n"
        "p = jnp.array([0, 1])\n"
        "fs = [(lambda x: lax.select_n(1, x, -x), 1), (lambda x: lax.select_n(jnp.int32(1), x, x.T.T * 2), 1),"
        " (lambda x: lax.select_n(x > 0, x, -x), 1), (lambda x, p: lax.select_n(p, x, -x), (1, 0)),"
        " (lambda x: lax.bitcast_convert_type(x, jnp.int32), 1), (lambda x: lax.bitcast_convert_type(x, jnp.int16), 1)]\n"
        "out = [(str(jax.make_jaxpr(jax.vmap(f, in_axes=a))(*((x,) if a == 1 else (x, p)))),"
        " jax.vmap(f, in_axes=a)(*((x,) if a == 1 else (x, p)))) for f, a in fs]",
    ),
    (
        "optimization_barrier_jvp_and_transpose",
        _X + "f = lambda x: lax.optimization_barrier(x * 2.0) * x\n"
        "out = (str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(f(x))))(x)), jax.grad(lambda x: jnp.sum(f(x)))(x),"
        " str(jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(x)),"
        " str(jax.make_jaxpr(lambda x: jax.linear_transpose(lambda t: lax.optimization_barrier((t * 2, t)), x)((x, x)))(x)))",
    ),
    (
        "constant_conversions_are_staged",
        "i = jnp.arange(3, dtype=jnp.int32)\n"
        "n = np.arange(3, dtype=np.int32)\n"
        "x = jnp.ones(3)\n"
        "fs = [lambda x: x + i.astype(jnp.float32), lambda x: x + jnp.asarray(i, jnp.float32), lambda x: x + jnp.array(i, dtype=jnp.float32),"
        " lambda x: x + jnp.asarray(n, jnp.float32), lambda x: x + i.astype(jnp.float32).astype(jnp.int32), lambda x: x + jnp.sin(i)]\n"
        "out = [(str(jax.make_jaxpr(f)(x)), jax.jit(f)(x), f(x)) for f in fs]",
    ),
    (
        "weak_float_floor_divided_by_an_array",
        "b = jnp.array([3, 2, 5], dtype=jnp.uint8)\n"
        "out = (1.5 // b, 1.5 % b, jnp.floor_divide(2.5, jnp.arange(1, 4)), jnp.divmod(jnp.asarray(7.5), 2.0),"
        " str(jax.make_jaxpr(lambda b: 1.5 // b)(b)), jax.jit(lambda b: 1.5 // b)(b))",
    ),
    (
        "while_under_nested_vmap_keeps_an_unbatched_counter",
        "x = jnp.sin(jnp.arange(48, dtype=jnp.float32) * 1.7).reshape(2, 3, 2, 4)\n"
        "y = jnp.cos(jnp.arange(12, dtype=jnp.float32)).reshape(3, 4)\n"
        "k = jnp.array([1, 2])\n"
        "f = lambda x, y, k: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] + y, c[1] + 1), (x, k))[0]\n"
        "g = jax.vmap(jax.vmap(f, in_axes=(1, None, 0)), in_axes=(0, None, None))\n"
        "out = (str(jax.make_jaxpr(g)(x, y, k)), g(x, y, k))",
    ),
    (
        "exp2_of_narrow_floats_rounds_each_step",
        "out = [(jnp.exp2(x), jax.jit(jnp.exp2)(x), jax.grad(lambda v: jnp.sum(jnp.exp2(v)).astype(jnp.float32))(x))"
        " for x in (jnp.linspace(-5, 5, 9).astype(jnp.bfloat16), jnp.linspace(-5, 5, 9).astype(jnp.float16))]",
        0.0,
    ),
    (
        "lax_convert_of_a_numpy_array_is_an_array",
        "vs = [np.array([1.0, 2.0]), np.array([1.0], np.float32), np.array([1, 2], np.int32)]\n"
        "out = [(type(lax.convert_element_type(v, jnp.float32)).__name__, lax.convert_element_type(v, jnp.float32)) for v in vs]",
    ),
    (
        "ppermute_under_vmap_takes_along_the_batch",
        "x = jnp.sin(jnp.arange(12, dtype=jnp.float32)).reshape(3, 4)\n"
        "f = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 0)]), axis_name='i')\n"
        "g = jax.vmap(lambda v: lax.ppermute(v, 'i', [(0, 1), (1, 2), (2, 0)]), axis_name='i', in_axes=1)\n"
        "out = (str(jax.make_jaxpr(f)(x)), f(x), str(jax.make_jaxpr(g)(x.T)), g(x.T), jax.grad(lambda x: jnp.sum(jnp.sin(f(x))))(x))",
    ),
    (
        "invalid_raw_keys_say_what_jax_says",
        "def first_line(k):\n"
        "    try:\n"
        "        jax.random.normal(k, (2,))\n"
        "    except TypeError as e:\n"
        "        return str(e).splitlines()[0].split(' for impl=')[0]\n"
        "out = [first_line(k) for k in (jnp.ones(2), jnp.ones(3, jnp.uint32), np.ones(2), 3, jnp.ones((), jnp.uint32))]",
    ),
    (
        "rev_refuses_negative_dimensions",
        "try:\n"
        "    lax.rev(jnp.ones((2, 3)), (-1,))\n"
        "    refused = None\n"
        "except TypeError as e:\n"
        "    refused = str(e)\n"
        "out = (refused, lax.rev(jnp.arange(6.).reshape(2, 3), (1,)))",
    ),
    (
        "jnp_functions_under_ad_stage_what_jax_stages",
        "x = jnp.sin(jnp.arange(12, dtype=jnp.float32) * 1.7 + 0.3).reshape(3, 4)\n"
        "fs = [lambda x: jnp.all(x > -2, axis=-1), lambda x: jnp.mean(x.astype(jnp.int8), axis=1), lambda x: jnp.argpartition(x, 2, axis=1)]\n"
        "out = [str(jax.make_jaxpr(jax.jacrev(lambda x: f(x).astype(jnp.float32)))(x)) for f in fs]"
        " + [str(jax.make_jaxpr(lambda x: jax.jvp(lambda x: jnp.lexsort((x[0], x[1])), (x,), (jnp.cos(x),)))(x)),"
        " str(jax.make_jaxpr(lambda x: jax.jvp(lambda x: lax.sort((x, -x, x * 2), num_keys=1), (x,), (jnp.cos(x),)))(x)),"
        " str(jax.make_jaxpr(jax.vmap(lambda x: jnp.argmin(x, keepdims=True)))(jnp.stack([x, -x]))),"
        " jax.linearize(lambda x: (x > 0).astype(jnp.float32), x)[1](x)]",
    ),
    (
        "norm_refusals_say_what_jax_says",
        "x = jnp.ones((2, 3, 4))\n"
        "def err(f):\n"
        "    try:\n"
        "        f()\n"
        "    except ValueError as e:\n"
        "        return str(e)\n"
        "out = [err(lambda: jnp.linalg.norm(x, axis=(0, 1, 2))), err(lambda: jnp.linalg.norm(x[0], ord=0)),"
        " err(lambda: jnp.linalg.norm(x[0], ord=3))]",
    ),
    (
        "stack_refusals_under_vmap_name_the_batched_shapes",
        "a, b = jnp.array([0.5, -1.25, 2.0]), jnp.array([3, -2, 5], dtype=jnp.int32)\n"
        "def err(f):\n"
        "    try:\n"
        "        return f()\n"
        "    except Exception as e:\n"
        "        return type(e).__name__ + ': ' + str(e).splitlines()[0]\n"
        "out = [err(lambda: jax.vmap(lambda a, b: jnp.stack([jnp.asarray(a), jnp.asarray(b) * jnp.ones_like(a)]), in_axes=(0, None))(a, b)),"
        " err(lambda: jnp.stack([a, a[:1]])), err(lambda: jnp.stack([a, a[None]])), err(lambda: jax.lax.stack([a, b])),"
        " err(lambda: jnp.stack([a, a], axis=3)), err(lambda: jnp.stack([a, b], axis=-1))]",
    ),
    (
        "asin_acos_of_narrow_floats_round_each_step",
        "out = [(f(x), jax.jit(f)(x)) for f in (jnp.arcsin, jnp.arccos)"
        " for x in (jnp.linspace(-1.2, 1.2, 25).astype(jnp.bfloat16), jnp.linspace(-1.2, 1.2, 25).astype(jnp.float16))]",
        0.0,
    ),
]
