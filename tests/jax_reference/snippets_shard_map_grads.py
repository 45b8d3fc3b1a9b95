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
    *_both(
        "grad_of_vmap_of_map",
        "    return jax.lax.psum(jnp.sum(jnp.sin(x)) * w, 'i')",
        call="jax.grad(lambda w: jnp.sum(jax.vmap(lambda w: f(x, w))(w)))(jnp.ones((3, 2)))",
    ),
    *_both(
        "fori_from_zeros_like",
        "    return jax.lax.psum(jax.lax.fori_loop(0, 3, lambda i, c: c + x * w[0], jnp.zeros_like(x)), 'i')",
    ),
    *_both(
        "hessian_inside",
        "    return jax.lax.pmean(jax.hessian(lambda w: jnp.sum(jnp.sin(x * w[0]) * w[1]))(w), 'i')",
    ),
    *_both(
        "jacfwd_inside", "    return jax.lax.psum(jax.jacfwd(lambda w: jnp.sum(jnp.sin(x * w[0])))(w), 'i')"
    ),
    *_both(
        "remat_inside",
        "    g = jax.grad(lambda w: jnp.sum(jax.checkpoint(lambda v: jnp.sin(v) * w[0])(x)))(w)\n"
        "    return jax.lax.psum(g, 'i')",
    ),
    # JAX's errors for carries and branches whose varying axes differ, and for specs too long,
    # word for word
    *[
        (
            name,
            _SETUP
            + "try:\n"
            + f"    {call}\n"
            + "    out = 'no error'\n"
            + "except (TypeError, ValueError) as e:\n"
            + "    out = type(e).__name__ + ': ' + str(e)",
        )
        for name, call in [
            (
                "err_scan_carry",
                "jax.shard_map(lambda x, w: jax.lax.scan(lambda c, xi: (c * w[0] + jnp.sin(xi), c), 0., x)[0],"
                " mesh=mesh, in_specs=(P('i'), P()), out_specs=P())(x, w)",
            ),
            (
                "err_while_carry",
                "jax.shard_map(lambda x, w: jax.lax.while_loop(lambda c: c < 10, lambda c: w[0] + 11, x[0]),"
                " mesh=mesh, in_specs=(P('i'), P()), out_specs=P('i'))(x, w)",
            ),
            (
                "err_cond_branches",
                "jax.shard_map(lambda x, w: jax.lax.cond(w[0] > 0, lambda: (jnp.sum(x), 1.), lambda: (0., 2.)),"
                " mesh=mesh, in_specs=(P('i'), P()), out_specs=P())(x, w)",
            ),
            (
                "err_switch_branches",
                "jax.shard_map(lambda x, w: jax.lax.switch(1, [lambda: jnp.sum(x), lambda: w[0]]),"
                " mesh=mesh, in_specs=(P('i'), P()), out_specs=P())(x, w)",
            ),
            (
                "err_in_spec_rank",
                "jax.shard_map(lambda a, b: a, mesh=mesh, in_specs=(P('i'), P('i')), out_specs=P('i'))(x, 1.)",
            ),
            (
                "err_in_spec_rank_varargs",
                "jax.shard_map(lambda *a: a[0], mesh=mesh, in_specs=(P('i'), P('i')), out_specs=P('i'))(x, 1.)",
            ),
            (
                "err_in_spec_rank_dict",
                "jax.shard_map(lambda d: d['a'], mesh=mesh, in_specs=P('i', None), out_specs=P('i'))"
                "({'a': jnp.ones((8, 2)), 'b': x})",
            ),
            (
                "err_out_spec_rank",
                "jax.shard_map(lambda a: (a.sum(), a.sum()), mesh=mesh, in_specs=P('i'),"
                " out_specs=(P('i'), P('i')))(x)",
            ),
            (
                "err_out_replicated_jit",
                "jax.jit(jax.shard_map(lambda a: (a.sum(), a, a.sum()), mesh=mesh, in_specs=P('i'),"
                " out_specs=(P(), P('i'), P())))(x)",
            ),
            (
                "err_out_replicated",
                "jax.shard_map(lambda a: (a, a * 2), mesh=mesh, in_specs=P('i'), out_specs=(P('i'), P()))(x)",
            ),
        ]
    ],
    (
        "pcast_unchecked_jaxpr",
        _SETUP + "f = jax.shard_map(lambda x, w: jax.lax.pcast(w, 'i', to='varying') * x[0], mesh=mesh,\n"
        "                  in_specs=(P('i'), P()), out_specs=P('i'), check_vma=False)\n"
        "out = str(jax.make_jaxpr(f)(x, w))",
    ),
    (
        "pcast_twice",
        _SETUP
        + "f = jax.shard_map(lambda x, w: jax.lax.pcast(jax.lax.pcast(w, 'i', to='varying'), 'i', to='varying'),\n"
        "                  mesh=mesh, in_specs=(P('i'), P()), out_specs=P('i'))\n"
        "out = f(x, w)",
    ),
    (
        "typeof_eager",
        _SETUP
        + "seen = []\n"
        + "jax.shard_map(lambda x, w: (seen.append(str(jax.typeof(x * w[0])) + str(jax.typeof(w))), x)[1],"
        " mesh=mesh, in_specs=(P('i'), P()), out_specs=P('i'))(x, w)\n" + "out = seen[0]",
    ),
]

# The jaxprs of gradients of shard_map: which residuals the forward body returns (a known input or
# result is forwarded instead; pmean's divisor is one; a scalar becomes f32[1]) and their specs
_GRAD_TEXTS = {
    "pmean_loss": (
        "lambda x, w: jax.lax.pmean(jnp.sum(jnp.sin(x * w[0])), 'i')",
        "(P('i'), P())",
        "P()",
    ),
    "varying_out": ("lambda x, w: x * w[0]", "(P('i'), P())", "P('i')"),
    "residual_is_result": ("lambda x, w: jnp.exp(x * w[1])", "(P('i'), P())", "P('i')"),
    "scalar_input": ("lambda x, w: jnp.sum(x) * w[0] * w[1]", "(P('i'), P())", "P('i')"),
    "two_pmeans": (
        "lambda x, w: jax.lax.pmean(x * w[0], 'i') + jax.lax.pmean(jnp.cos(x) * w[1], 'i')",
        "(P('i'), P())",
        "P()",
    ),
}

SHARD_MAP_GRADS += [
    (
        f"grad_text_{name}_{'checked' if checked else 'unchecked'}{'_jit' if jitted else ''}",
        _SETUP
        + f"f = jax.shard_map({body}, mesh=mesh, in_specs={specs}, out_specs={out}, check_vma={checked})\n"
        + "g = jax.grad(lambda x, w: jnp.sum(f(x, w)), argnums=(0, 1))\n"
        + f"out = (str(jax.make_jaxpr({'jax.jit(g)' if jitted else 'g'})(x, w)), g(x, w))",
    )
    for name, (body, specs, out) in _GRAD_TEXTS.items()
    for checked in (True, False)
    for jitted in (False, True)
]

# Other differentiations of shard_map, as jaxprs: the linear body takes the residuals first
_MESH2 = "mesh2 = jax.make_mesh((4, 2), ('i', 'j'), axis_types=(AxisType.Auto,) * 2)\nX = jnp.arange(32.).reshape(8, 4)\n"
_RING = "[(k, (k + 1) % 4) for k in range(4)]"
_OTHER_TEXTS = {
    "linearize": "lambda x: jax.linearize(jax.shard_map(lambda a: jnp.exp(a) * a, mesh=mesh, in_specs=P('i'), "
    "out_specs=P('i')), x)[1](x)",
    "vjp": "lambda x: jax.vjp(jax.shard_map(lambda a: jnp.exp(a), mesh=mesh, in_specs=P('i'), out_specs=P('i')), x)"
    "[1](x)",
    "jvp": "lambda x: jax.jvp(jax.shard_map(jnp.sin, mesh=mesh, in_specs=P('i'), out_specs=P('i')), (x,), (x,))",
    "all_gather": "jax.grad(lambda x: jax.shard_map(lambda a: jax.lax.all_gather(a, 'i', tiled=True) ** 2, "
    "mesh=mesh, in_specs=P('i'), out_specs=P())(x).sum())",
    "ppermute": f"jax.grad(lambda x: jax.shard_map(lambda a: jax.lax.ppermute(jnp.sin(a), 'i', {_RING}), "
    "mesh=mesh, in_specs=P('i'), out_specs=P('i'))(x).sum())",
    "psum_scatter": "jax.grad(lambda x: jax.shard_map(lambda a: jax.lax.psum_scatter(a * a, 'i', tiled=True), "
    "mesh=mesh, in_specs=P(), out_specs=P('i'))(x).sum())",
    "axis_index": "jax.grad(lambda x: jax.shard_map(lambda a: a * jax.lax.axis_index('i'), mesh=mesh, "
    "in_specs=P('i'), out_specs=P('i'))(x).sum())",
}
SHARD_MAP_GRADS += [
    (f"text_{name}", _SETUP + f"out = str(jax.make_jaxpr({fun})(x))") for name, fun in _OTHER_TEXTS.items()
]
SHARD_MAP_GRADS += [
    (
        "text_mesh2_psum",
        _SETUP
        + _MESH2
        + "g = jax.grad(lambda X: jax.shard_map(lambda a: jax.lax.psum(jnp.sum(a ** 2), ('i', 'j')), mesh=mesh2, "
        "in_specs=P('i', 'j'), out_specs=P())(X))\nout = (str(jax.make_jaxpr(g)(X)), g(X))",
    ),
]

# grad of a jit of a shard_map: the staged shard_map is split (JAX's partial_eval_jaxpr_custom rule)
SHARD_MAP_GRADS += [
    (
        f"grad_of_jit_text_{name}_{'checked' if checked else 'unchecked'}",
        _SETUP
        + f"f = jax.jit(jax.shard_map({body}, mesh=mesh, in_specs={specs}, out_specs={out}, check_vma={checked}))\n"
        + "g = jax.grad(lambda x, w: jnp.sum(f(x, w)), argnums=(0, 1))\n"
        + "out = (str(jax.make_jaxpr(g)(x, w)), g(x, w))",
    )
    for name, (body, specs, out) in _GRAD_TEXTS.items()
    for checked in (True, False)
]

# Bodies holding other jaxprs (remat, scan, cond), plain and differentiated
_NESTED = {
    "remat": "jax.checkpoint(lambda a: jnp.sin(jnp.sin(a)))",
    "remat_policy": "jax.checkpoint(lambda a: jnp.sin(jnp.cos(a) * a), policy=jax.checkpoint_policies.nothing_saveable)",
    "scan": "lambda a: jax.lax.scan(lambda c, y: (c * y, c), 1.0, a)[1]",
    "cond": "lambda a: jax.lax.cond(a.sum() > 0, jnp.sin, jnp.cos, a)",
    "fori": "lambda a: jax.lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * a, a)",
    "fori_unrolled": "lambda a: jax.lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * a, a, unroll=True)",
    "switch": "lambda a: jax.lax.switch(1, [jnp.sin, jnp.cos, jnp.tanh], a)",
    "switch_traced": "lambda a: jax.lax.switch((a.sum() > 1).astype(int), [jnp.sin, jnp.cos, jnp.tanh], a)",
    "cond_in_cond": (
        "lambda a: jax.lax.cond(a.sum() > 0, lambda b: jax.lax.cond(b[0] > 0, jnp.sin, jnp.cos, b), jnp.tanh, a)"
    ),
    "scan_unused_ys": "lambda a: jax.lax.scan(lambda c, y: (jnp.sin(c) * y, c * 2), a, jnp.stack([a, a]))[0]",
    "remat_of_scan": (
        "lambda a: jax.checkpoint(lambda b: jax.lax.scan(lambda c, y: (jnp.sin(c * y), None), b, jnp.stack([b, b]))[0])(a)"
    ),
    "custom_jvp": "cj",
    "custom_vjp": "cv",
    "softmax": "jax.nn.softmax",
    "sort_two_operands": "lambda a: jnp.sort(a * a[::-1])",
    "psum_scatter_of_tile": "lambda a: jax.lax.psum_scatter(jnp.tile(a, 4), 'i', tiled=True) * a",
}
# (the custom rules the custom_jvp and custom_vjp bodies call)
_CUSTOM = (
    "@jax.custom_jvp\ndef cj(a):\n    return jnp.sin(a)\n"
    "cj.defjvp(lambda p, t: (cj(p[0]), jnp.cos(p[0]) * t[0] * 2))\n"
    "@jax.custom_vjp\ndef cv(a):\n    return jnp.sin(a)\n"
    "cv.defvjp(lambda a: (jnp.sin(a), jnp.cos(a)), lambda r, g: (r * g * 3,))\n"
)
for _name, _body in _NESTED.items():
    _setup = _SETUP + (_CUSTOM if _name.startswith("custom") else "")
    _sm = f"jax.shard_map({_body}, mesh=mesh, in_specs=P('i'), out_specs=P('i'))"
    _g = f"g = jax.grad(lambda x: {_sm}(x).sum())\n"
    _out = "out = (str(jax.make_jaxpr(g)(x)), g(x))"
    SHARD_MAP_GRADS += [
        (f"nested_{_name}", _setup + f"out = str(jax.make_jaxpr({_sm})(x))"),
        (f"nested_{_name}_grad", _setup + _g + _out),
        (
            f"nested_{_name}_grad_of_jit",
            _setup + f"g = jax.grad(lambda x: jax.jit({_sm})(x).sum())\n" + _out,
        ),
        (
            f"nested_{_name}_linearize",
            _setup + f"y, g = jax.linearize({_sm}, x)\nout = (str(jax.make_jaxpr(g)(x)), g(x))",
        ),
    ]
# custom_vjp's linearization outside shard_map: custom_lin as JAX prints it
SHARD_MAP_GRADS += [
    (
        f"custom_lin_{i}",
        _CUSTOM + f"y, g = jax.linearize({f}, 1.0, 2.0)\nout = str(jax.make_jaxpr(g)(1.0, 2.0))",
    )
    for i, f in enumerate(
        ["lambda a, b: cv(a) * b", "lambda a, b: cv(a * b)", "jax.jit(lambda a, b: cv(a) + cv(b))"]
    )
]
# A VJP function inside a checked body takes cotangents typed with the axes its outputs vary over
SHARD_MAP_GRADS += [
    (
        f"vjp_cotangent_vma_{name}_{'checked' if checked else 'unchecked'}",
        _SETUP
        + f"g = lambda a: jax.vjp(lambda b: b @ jnp.outer(b, b), a)[1]({ct})[0]\n"
        + f"f = jax.shard_map(g, mesh=mesh, in_specs=P('i'), out_specs=P('i'), check_vma={checked})\n"
        + "out = (f(x), jax.jit(f)(x))",
    )
    for name, ct in [
        ("invariant", "jnp.ones(2)"),
        ("varying", "jax.lax.pcast(jnp.ones(2), 'i', to='varying')"),
    ]
    for checked in (True, False)
] + [("lax_pvary_removed", "out = jax.lax.pvary")]
# Outside jit a gradient's backward shard_map runs one operation at a time (JAX's eager values: no
# fused multiply-adds across operations; a remat's body is compiled whole); under jit it is compiled
# with the rest. Compared bit for bit.
SHARD_MAP_GRADS += [
    (
        f"rounding_{name}_{how}",
        _SETUP
        + "x = jnp.arange(8.) / 3\n"
        + f"g = jax.grad(lambda x: jax.shard_map({body}, mesh=mesh, in_specs=P('i'), out_specs=P('i'),"
        + f" check_vma={checked})(x).sum())\n"
        + f"out = {call}",
        0.0,
    )
    for name, body, checked in [
        ("matmul", "lambda a: a @ jnp.outer(a, a)", True),
        ("logsumexp", "lambda a: a - jax.nn.logsumexp(a)", False),
        (
            "remat",
            "jax.checkpoint(lambda a: jnp.sin(jnp.sin(a) * a), policy=jax.checkpoint_policies.dots_saveable)",
            True,
        ),
    ]
    for how, call in [("eager", "g(x)"), ("jit", "jax.jit(g)(x)")]
]
SHARD_MAP_GRADS += [
    (
        "rounding_fori_unrolled_grad_of_jit",
        _SETUP
        + "x = jnp.arange(8.) / 3\n"
        + "body = lambda a: jax.lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * a, a, unroll=True)\n"
        + "f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i')))\n"
        + "out = jax.grad(lambda x: f(x).sum())(x)",
        0.0,
    )
]
# The jaxprs JAX prints: a loop's invariant carry keeps its type through the transpose (a call's
# results vary as its body's do), vmap keeps a batch dimension where it is (an unsplit dimension in
# the specs), an unbatched result stays unbatched; and JAX's words for an uneven psum_scatter.
_SCANNED = (
    "@jax.shard_map(mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
    "def scanned(x):\n"
    "    def body(c, r):\n"
    "        c = c + jax.lax.psum(jnp.sum(r), 'i')\n"
    "        return c, r * c\n"
    "    return jax.lax.scan(body, 0.0, x)[1]\n"
)
_PERM = (
    "@jax.shard_map(mesh=mesh, in_specs=P('i'), out_specs=P('i'))\n"
    "def perm(x):\n"
    "    return jax.lax.ppermute(x, 'i', [(j, (j + 1) % 4) for j in range(4)]) * 2\n"
)
SHARD_MAP_GRADS += [
    (
        "jaxpr_grad_of_scan_with_invariant_carry",
        _SETUP
        + "x = jnp.arange(16.).reshape(8, 2)\n"
        + _SCANNED
        + "out = str(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(scanned(x))))(x))",
    ),
    (
        "grad_of_scan_with_invariant_carry",
        _SETUP
        + "x = jnp.arange(16.).reshape(8, 2)\n"
        + _SCANNED
        + "out = jax.grad(lambda x: jnp.sum(scanned(x)))(x)",
    ),
    (
        "jaxpr_vmap_in_axes_1",
        _SETUP
        + "x = jnp.arange(16.).reshape(8, 2)\n"
        + _PERM
        + "out = str(jax.make_jaxpr(jax.vmap(perm, in_axes=1, out_axes=1))(x))",
    ),
    (
        "vmap_in_axes_1",
        _SETUP
        + "x = jnp.arange(16.).reshape(8, 2)\n"
        + _PERM
        + "out = jax.vmap(perm, in_axes=1, out_axes=1)(x)",
    ),
    (
        "jaxpr_vmap_unbatched_result",
        _SETUP
        + "f = jax.shard_map(lambda x: jax.lax.psum(jnp.sum(x), 'i'), mesh=mesh, in_specs=P('i'), out_specs=P())\n"
        + "out = str(jax.make_jaxpr(jax.vmap(lambda a: f(x) + a))(jnp.arange(3.)))",
    ),
    (
        "psum_scatter_uneven",
        _SETUP
        + "f = jax.shard_map(lambda x: jax.lax.psum_scatter(x, 'i', tiled=True), mesh=mesh, in_specs=P('i'),"
        + " out_specs=P('i'))\n"
        + "out = f(jnp.arange(12.))",
    ),
]
# On an Explicit mesh, vmap's examples carry their types into shard_map's check of in_specs (an
# unsplit array's example is P(None): refused; a split one's is P('i'): taken).
_EXPLICIT_PERM = (
    "emesh = jax.make_mesh((4,), ('i',), axis_types=(AxisType.Explicit,))\n"
    "x = jnp.arange(16.).reshape(8, 2)\n"
    "perm = jax.shard_map(lambda x: x * 2, mesh=emesh, in_specs=P('i'), out_specs=P('i'))\n"
    "vperm = jax.vmap(perm, in_axes=1, out_axes=1)\n"
)
SHARD_MAP_GRADS += [
    (
        "err_explicit_vmap_unsplit_example",
        _SETUP + _EXPLICIT_PERM + "with jax.set_mesh(emesh):\n    out = vperm(x)",
    ),
    (
        "jaxpr_explicit_vmap_split_example",
        _SETUP
        + _EXPLICIT_PERM
        + "with jax.set_mesh(emesh):\n    xs = jax.device_put(x, P('i', None))\n"
        + "    out = (str(jax.make_jaxpr(vperm)(xs)), vperm(xs))",
    ),
]
# vmap keeps batch dimensions where they are, as JAX's rules do: a custom_jvp call (relu) and the
# collectives over another axis inside a shard_map body (all_gather, psum_scatter) take the
# batched operand as it comes, no transpose around them.
SHARD_MAP_GRADS += [
    (
        "jaxpr_vmap_relu_in_axes_1",
        "out = str(jax.make_jaxpr(jax.vmap(jax.nn.relu, in_axes=1))(jnp.ones((3, 4))))",
    ),
    (
        "jaxpr_vmap_grad_gelu_in_axes_1",
        "g = jax.vmap(jax.grad(lambda x: jnp.sum(jax.nn.gelu(x))), in_axes=1, out_axes=1)\n"
        "out = (str(jax.make_jaxpr(g)(jnp.linspace(-1., 1., 12).reshape(3, 4))), g(jnp.linspace(-1., 1., 12).reshape(3, 4)))",
    ),
    (
        "jaxpr_vmap_in_axes_1_all_gather_psum_scatter",
        _SETUP
        + "x = jnp.linspace(-1., 1., 64).reshape(8, 8)\n"
        + "def body(x):\n"
        + "    g = jax.lax.all_gather(x, 'i', tiled=True)[:2]\n"
        + "    return jax.lax.psum_scatter(jnp.concatenate([g, g, g, g]), 'i', tiled=True)\n"
        + "f = jax.vmap(jax.shard_map(body, mesh=mesh, in_specs=P('i'), out_specs=P('i')), in_axes=1, out_axes=1)\n"
        + "out = (str(jax.make_jaxpr(f)(x)), f(x))",
    ),
]
