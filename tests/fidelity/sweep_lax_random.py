"""The sweep's less common jax.lax cases and transformations of them (top_k, multi-operand sort,
cumulative reductions, the special functions under grad, random_gamma_grad, rng_bit_generator,
approx_max_k, associative_scan over pytrees, map with batch_size, unrolled fori_loop, switch
under vmap), the jax.random samplers with array parameters, dtypes, key implementations and
under grad / vmap / jit, and tree_util-driven APIs inside jit.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_numpy_api import register, transformed
    from .sweep_programs import _f32, _pos, _prob, _unit
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_numpy_api import register, transformed  # type: ignore[no-redef]
    from sweep_programs import _f32, _pos, _prob, _unit  # type: ignore[no-redef]

CASES: dict = {}
_lx = register(CASES, "lax")
ALL = "grad vmap jit_grad jvp"
_i = lambda *shape: np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)  # noqa: E731

# --- sorting, top_k, approx_max_k -------------------------------------------------------------------
_lx("top_k[k1]", lambda m, x: m.top_k(x, 1), _f32(5), t=ALL)
_lx("top_k[2d_grad]", lambda m, x: m.top_k(x, 2)[0], _f32(3, 4), t="grad vmap jvp")
_lx("top_k[nan]", lambda m, x: m.top_k(x, 2), np.array([1.0, np.nan, 3.0], np.float32))
_lx(
    "sort[multi_num_keys2]",
    lambda m, a, b, c: m.sort((a, b, c), num_keys=2),
    _i(5) % 2,
    _f32(5),
    _f32(5, seed=1),
)
_lx("sort[grad]", lambda m, x: m.sort(x), _f32(2, 4), t=ALL)
_lx(
    "sort[multi_grad]", lambda m, a, b: m.sort((a, b), num_keys=1)[1], _f32(5), _f32(5, seed=1), t="grad vmap"
)
_lx("sort[bool]", lambda m, x: m.sort(x), np.array([True, False, True]))
_lx(
    "sort_key_val[dim0]",
    lambda m, k, v: m.sort_key_val(k, v, dimension=0),
    _f32(3, 2),
    _f32(3, 2, seed=1),
    t="grad",
)
_lx("approx_max_k[recall]", lambda m, x: m.approx_max_k(x, 2, recall_target=0.9), _f32(3, 8))
_lx("approx_min_k[f32]", lambda m, x: m.approx_min_k(x, 3), _f32(2, 8), t="grad")
_lx(
    "approx_max_k[reduction_dim0]",
    lambda m, x: m.approx_max_k(x, 1, reduction_dimension=0, aggregate_to_topk=False),
    _f32(4, 3),
)

# --- cumulative reductions, reduce_precision, integer bits --------------------------------------
for _fn in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
    _lx(f"{_fn}[grad]", lambda m, x, _fn=_fn: getattr(m, _fn)(x, axis=1), _f32(2, 4), t=ALL)
_lx("cumlogsumexp[reverse_grad]", lambda m, x: m.cumlogsumexp(x, reverse=True), _f32(5), t="grad")
_lx("cummax[int]", lambda m, x: m.cummax(x), np.array([3, 1, 4, 1, 5], np.int32))
_lx("reduce_precision[f16]", lambda m, x: m.reduce_precision(x, 5, 10), _f32(4) * 1e3, t="grad jvp")
_lx(
    "reduce_precision[bf16_vmap]",
    lambda m, x: m.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
    _f32(3),
    t="vmap",
)
_lx("population_count[u8]", lambda m, x: m.population_count(x), np.array([0, 7, 255], np.uint8))
_lx("clz[i64_as_i32]", lambda m, x: m.clz(x), np.array([1, 1 << 20, -1], np.int32))
_lx("nextafter[grad_free]", lambda m, x, y: m.nextafter(x, y), _f32(3), np.full(3, np.inf, np.float32))
_lx(
    "shift_right_logical[u8]",
    lambda m, x: m.shift_right_logical(x, np.uint8(2)),
    np.array([0, 7, 255], np.uint8),
)

# --- special functions under transformations ----------------------------------------------------
_lx("lgamma[grad]", lambda m, x: m.lgamma(x), _pos(3), t=ALL)
_lx("digamma[grad]", lambda m, x: m.digamma(x), _pos(3), t="grad vmap jvp")
_lx("igamma[grad_a]", lambda m, a, x: m.igamma(a, x), _pos(3), _pos(3, seed=1), t="grad vmap")
_lx("igamma[grad_x]", lambda m, x, a: m.igamma(a, x), _pos(3, seed=1), _pos(3), t="grad jvp")
_lx("igammac[grad]", lambda m, x, a: m.igammac(a, x), _pos(3, seed=1), _pos(3), t="grad")
_lx("igamma_grad_a[f32]", lambda m, a, x: m.igamma_grad_a(a, x), _pos(3), _pos(3, seed=1))
_lx("random_gamma_grad[f32]", lambda m, a, x: m.random_gamma_grad(a, x), _pos(3), _pos(3, seed=1), t="vmap")
_lx("bessel_i0e[grad]", lambda m, x: m.bessel_i0e(x), _f32(3), t="grad jvp")
_lx("bessel_i1e[grad]", lambda m, x: m.bessel_i1e(x), _f32(3), t="grad vmap")
_lx("erf_inv[grad]", lambda m, x: m.erf_inv(x), _unit(3), t=ALL)
_lx("erf[grad]", lambda m, x: m.erf(x), _f32(3), t="grad")
_lx("erfc[grad]", lambda m, x: m.erfc(x), _f32(3), t="jvp")
_lx("polygamma[grad_x]", lambda m, x: m.polygamma(np.float32(1.0), x), _pos(3), t="grad")
_lx("zeta[grad_q]", lambda m, q: m.zeta(np.float32(3.0), q), _pos(3), t="grad")
_lx("betainc[grad_x]", lambda m, x: m.betainc(np.float32(2.0), np.float32(3.0), x), _prob(3), t="grad")
_lx("logistic[grad]", lambda m, x: m.logistic(x), _f32(3), t="grad jvp")
_lx("atan2[grad]", lambda m, x, y: m.atan2(x, y), _f32(3), _pos(3), t="grad jvp")
_lx("rem[grad]", lambda m, x, y: m.rem(x, y), _f32(3) * 4, _pos(3), t="grad")
_lx("pow[grad]", lambda m, x, y: m.pow(x, y), _pos(3), _f32(3), t="grad jvp")
_lx("integer_pow[grad]", lambda m, x: m.integer_pow(x, 4), _f32(3), t="grad jvp")
_lx("rsqrt[grad]", lambda m, x: m.rsqrt(x), _pos(3), t="grad")
_lx("cbrt[grad]", lambda m, x: m.cbrt(x), _pos(3), t="grad")
_lx("tan[grad]", lambda m, x: m.tan(x), _unit(3), t="grad jvp")
_lx("clamp[grad]", lambda m, x: m.clamp(np.float32(-0.5), x, np.float32(0.5)), _f32(4), t="grad jvp vmap")
_lx("select_n[grad]", lambda m, a, b: m.select_n(a > b, a, b), _f32(3), _f32(3, seed=1), t="grad vmap")
_lx("rng_uniform[f32]", lambda m, a, b: m.rng_uniform(a, b, (3,)), np.float32(0.0), np.float32(1.0))

# --- rng_bit_generator -------------------------------------------------------------------------
_lx(
    "rng_bit_generator[default]",
    lambda m, k: m.rng_bit_generator(k, (2, 3)),
    np.array([1, 2, 3, 4], np.uint32),
)
_lx(
    "rng_bit_generator[u8_philox]",
    lambda m, k: m.rng_bit_generator(k, (4,), dtype=np.uint8, algorithm=m.RandomAlgorithm.RNG_PHILOX),
    np.array([1, 2, 3, 4], np.uint32),
)
_lx(
    "rng_bit_generator[three_fry]",
    lambda m, k: m.rng_bit_generator(k, (2,), dtype=np.uint32, algorithm=m.RandomAlgorithm.RNG_THREE_FRY),
    np.array([1, 2], np.uint32),
)


# --- control flow ----------------------------------------------------------------------------
def _ctl(name, t=""):
    def deco(build):
        CASES[f"lax.{name}"] = build
        for kind in t.split():
            CASES[f"{kind}(lax.{name})"] = transformed(build, kind)
        return build

    return deco


@_ctl("associative_scan[pytree]", t="grad vmap")
def _(jax):
    def combine(a, b):
        return (a[0] * b[0], a[1] * b[0] + b[1])

    return (lambda x, y: jax.lax.associative_scan(combine, (x, y))[1]), (_pos(5), _f32(5))


@_ctl("associative_scan[logaddexp]", t="grad")
def _(jax):
    return (lambda x: jax.lax.associative_scan(jax.numpy.logaddexp, x)), (_f32(6),)


@_ctl("map[batch_size_uneven]", t="grad vmap")
def _(jax):
    return (lambda xs: jax.lax.map(lambda r: jax.numpy.sin(r) * r.sum(), xs, batch_size=2)), (_f32(5, 2),)


@_ctl("map[pytree]", t="grad")
def _(jax):
    return (lambda xs, ys: jax.lax.map(lambda a: a[0] * a[1], (xs, ys))), (_f32(3), _f32(3, seed=1))


@_ctl("fori_loop[unroll_true]", t="grad jvp")
def _(jax):
    return (lambda x: jax.lax.fori_loop(0, 3, lambda i, c: jax.numpy.sin(c) * i, x, unroll=True)), (_f32(3),)


@_ctl("fori_loop[scan_grad]", t="grad vmap jit_grad")
def _(jax):
    return (lambda x: jax.lax.fori_loop(0, 4, lambda i, c: c * x + 1.0, x)), (_f32(3),)


@_ctl("switch[vmap_index]")
def _(jax):
    branches = [lambda v: v + 1.0, jax.numpy.sin, lambda v: v * v]
    return jax.vmap(lambda i, x: jax.lax.switch(i, branches, x)), (np.array([0, 2, 1, 5], np.int32), _f32(4))


@_ctl("switch[grad_operands]", t="grad vmap")
def _(jax):
    branches = [lambda a, b: a * b, lambda a, b: a - b]
    return (lambda x, y: jax.lax.switch(1, branches, x, y)), (_f32(3), _f32(3, seed=1))


@_ctl("cond[vmap_pred]")
def _(jax):
    return jax.vmap(lambda x: jax.lax.cond(x > 0, jax.numpy.sin, jax.numpy.cos, x)), (_f32(4),)


@_ctl("while_loop[jvp]")
def _(jax):
    f = lambda x: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))[1]  # noqa: E731
    return (lambda x, t: jax.jvp(f, (x,), (t,))), (_f32(3), _f32(3, seed=1))


@_ctl("scan[unroll_true_grad]", t="grad")
def _(jax):
    return (lambda xs: jax.lax.scan(lambda c, x: (c * x, c), 1.0, xs, unroll=True)[0]), (_f32(4),)


@_ctl("scan[jit_inside]", t="grad")
def _(jax):
    body = jax.jit(lambda c, x: (c + jax.numpy.sin(x), c))
    return (lambda xs: jax.lax.scan(body, 0.0, xs)[1]), (_f32(4),)


# --- jax.random ----------------------------------------------------------------------------------
def _rnd(name, sample, *args, t=""):
    """``random.NAME[raw]`` / ``[typed]``: ``sample(jax, key, *args)`` on a key made from a seed
    argument inside the traced function (typed keys returned as their key_data)."""
    for typed in (False, True):

        def make(jax, typed=typed):
            def f(seed, *a):
                k = jax.random.key(seed) if typed else jax.random.PRNGKey(seed)
                out = sample(jax, k, *a)
                return jax.tree_util.tree_map(
                    lambda v: (
                        jax.random.key_data(v) if jax.dtypes.issubdtype(v.dtype, jax.dtypes.prng_key) else v
                    ),
                    out,
                )

            return f, (np.int32(0), *args)

        CASES[f"random.{name}[{'typed' if typed else 'raw'}]"] = make


def _rnd_grad(name, sample, *args):
    """grad of a sampler's sum with respect to its first parameter (reparameterized samplers)."""

    def make(jax):
        k = jax.random.PRNGKey(1)
        return jax.grad(lambda p, *a: sample(jax, k, p, *a).sum()), args

    CASES[f"grad(random.{name})"] = make


_rnd(
    "uniform[array_bounds]",
    lambda jax, k, lo, hi: jax.random.uniform(k, (3,), minval=lo, maxval=hi),
    np.float32(-1.0),
    _pos(3),
)
_rnd("uniform[bf16]", lambda jax, k: jax.random.uniform(k, (2,), jax.numpy.bfloat16))
_rnd("normal[f16_shape2]", lambda jax, k: jax.random.normal(k, (2, 2), jax.numpy.float16))
_rnd("normal[c64]", lambda jax, k: jax.random.normal(k, (2,), jax.numpy.complex64))
_rnd("bernoulli[p_array]", lambda jax, k, p: jax.random.bernoulli(k, p), _prob(4))
_rnd(
    "categorical[axis0_shape]",
    lambda jax, k, lg: jax.random.categorical(k, lg, axis=0, shape=(2, 4)),
    _f32(3, 4),
)
_rnd(
    "categorical[replace_false]",
    lambda jax, k, lg: jax.random.categorical(k, lg, shape=(2,), replace=False),
    _f32(4),
)
_rnd(
    "randint[array_bounds]",
    lambda jax, k, lo: jax.random.randint(k, (3,), lo, 10),
    np.array([0, 2, 4], np.int32),
)
_rnd("randint[u8]", lambda jax, k: jax.random.randint(k, (3,), 0, 200, dtype=jax.numpy.uint8))
_rnd(
    "choice[axis1_no_replace]",
    lambda jax, k, x: jax.random.choice(k, x, (2,), replace=False, axis=1),
    _f32(2, 4),
)
_rnd(
    "choice[p_no_replace]",
    lambda jax, k, p: jax.random.choice(k, 4, (2,), replace=False, p=p),
    np.array([0.1, 0.2, 0.3, 0.4], np.float32),
)
_rnd("permutation[axis1]", lambda jax, k, x: jax.random.permutation(k, x, axis=1), _f32(2, 3))
_rnd("gamma[alpha_array]", lambda jax, k, a: jax.random.gamma(k, a), _pos(3))
_rnd("gamma[f16]", lambda jax, k: jax.random.gamma(k, 0.5, (2,), jax.numpy.float16))
_rnd("beta[arrays]", lambda jax, k, a, b: jax.random.beta(k, a, b), _pos(3), _pos(3, seed=1))
_rnd("dirichlet[shape]", lambda jax, k, a: jax.random.dirichlet(k, a, (2,)), _pos(3))
_rnd("poisson[lam_array]", lambda jax, k, lam: jax.random.poisson(k, lam), _pos(3) * 20)
_rnd(
    "binomial[arrays]",
    lambda jax, k, n, p: jax.random.binomial(k, n, p),
    np.array([3.0, 10.0, 50.0], np.float32),
    _prob(3),
)
_rnd("truncated_normal[arrays]", lambda jax, k, lo: jax.random.truncated_normal(k, lo, 1.0), -_pos(3))
_rnd(
    "multivariate_normal[cholesky]",
    lambda jax, k, c: jax.random.multivariate_normal(k, np.zeros(2, np.float32), c, method="svd"),
    np.eye(2, dtype=np.float32) * 2,
)
_rnd("orthogonal[batched]", lambda jax, k: jax.random.orthogonal(k, 2, (2,)))
_rnd("ball[p1]", lambda jax, k: jax.random.ball(k, 3, p=1.0))
_rnd("generalized_normal[p_array]", lambda jax, k, p: jax.random.generalized_normal(k, p, (3,)), _pos(3) + 1)
_rnd("t[df_array]", lambda jax, k, df: jax.random.t(k, df), _pos(3) + 2)
_rnd("loggamma[array]", lambda jax, k, a: jax.random.loggamma(k, a), _pos(3))
_rnd("exponential[f16]", lambda jax, k: jax.random.exponential(k, (2,), jax.numpy.float16))
_rnd("bits[u64_as_u32_shape]", lambda jax, k: jax.random.bits(k, (2, 2), jax.numpy.uint16))
_rnd("split[shape]", lambda jax, k: jax.random.split(k, (2, 2)))
_rnd("fold_in[array]", lambda jax, k, d: jax.random.fold_in(k, d), np.int32(5))
_rnd("clone[typed]", lambda jax, k: jax.random.clone(k))
_rnd_grad("normal_loc", lambda jax, k, loc: loc + jax.random.normal(k, (3,)), _f32(3))
_rnd_grad("gamma_alpha", lambda jax, k, a: jax.random.gamma(k, a), _pos(3))
_rnd_grad("beta_a", lambda jax, k, a: jax.random.beta(k, a, 2.0), _pos(3))
_rnd_grad("dirichlet_alpha", lambda jax, k, a: jax.random.dirichlet(k, a)[0], _pos(3))
_rnd_grad("uniform_bounds", lambda jax, k, hi: jax.random.uniform(k, (3,), maxval=hi), np.float32(2.0))
_rnd_grad(
    "truncated_normal_lower",
    lambda jax, k, lo: jax.random.truncated_normal(k, lo, 1.0, (3,)),
    np.float32(-1.0),
)
_rnd_grad("loggamma_a", lambda jax, k, a: jax.random.loggamma(k, a), _pos(3))
for _impl in ("threefry2x32", "rbg", "unsafe_rbg"):
    CASES[f"random.key[impl_{_impl}]"] = lambda jax, _impl=_impl: (
        (lambda s: jax.random.key_data(jax.random.split(jax.random.key(s, impl=_impl)))),
        (np.int32(3),),
    )
    CASES[f"random.uniform[impl_{_impl}]"] = lambda jax, _impl=_impl: (
        (lambda s: jax.random.uniform(jax.random.key(s, impl=_impl), (3,))),
        (np.int32(3),),
    )
CASES["random.vmap_typed_split"] = lambda jax: (
    jax.vmap(lambda k: jax.random.key_data(jax.random.split(k))),
    (jax.random.split(jax.random.key(0), 3),),
)
CASES["random.vmap_typed_normal"] = lambda jax: (
    jax.vmap(lambda k: jax.random.normal(k, (2,))),
    (jax.random.split(jax.random.key(0), 3),),
)
CASES["random.jit_typed_key_arg"] = lambda jax: (
    jax.jit(lambda k, x: x * jax.random.uniform(k, x.shape)),
    (jax.random.key(0), _f32(3)),
)
CASES["random.vmap_fold_in_seeds"] = lambda jax: (
    jax.vmap(lambda i: jax.random.normal(jax.random.fold_in(jax.random.key(0), i))),
    (np.arange(3, dtype=np.int32),),
)
CASES["random.key_data_wrap_roundtrip"] = lambda jax: (
    (lambda k: jax.random.key_data(jax.random.wrap_key_data(jax.random.key_data(k) + np.uint32(1)))),
    (jax.random.key(0),),
)


# --- tree_util-driven APIs inside jit -----------------------------------------------------------
def _tree(name):
    def deco(build):
        CASES[f"tree.{name}"] = build
        return build

    return deco


@_tree("tree_map_jit")
def _(jax):
    return jax.jit(lambda p: jax.tree_util.tree_map(lambda v: v * 2.0, p)), (
        {"a": _f32(2), "b": (_f32(3), np.float32(1.0))},
    )


@_tree("tree_leaves_sum_grad")
def _(jax):
    return jax.grad(lambda p: sum(jax.numpy.sum(v**2) for v in jax.tree_util.tree_leaves(p))), (
        {"w": _f32(2, 2), "b": _f32(2)},
    )


@_tree("tree_reduce_jit")
def _(jax):
    return jax.jit(
        lambda p: jax.tree_util.tree_reduce(jax.numpy.add, jax.tree_util.tree_map(jax.numpy.sum, p))
    ), ([_f32(2), _f32(3)],)


@_tree("ravel_pytree_grad")
def _(jax):
    from jax.flatten_util import ravel_pytree  # (the running framework's)

    def f(p):
        flat, unravel = ravel_pytree(p)
        return jax.numpy.sum(unravel(flat * 2.0)["w"])

    return jax.grad(f), ({"w": _f32(2, 2), "b": np.float32(1.0)},)


@_tree("tree_transpose_vmap")
def _(jax):
    return jax.vmap(lambda p: jax.tree.map(lambda a, b: a * b, p[0], p[1])), (([_f32(3)], [_f32(3, seed=1)]),)


@_tree("namedtuple_jit")
def _(jax):
    import collections

    Point = collections.namedtuple("Point", "x y")
    return jax.jit(lambda p: Point(p.y, p.x * 2.0)), (Point(_f32(2), np.float32(3.0)),)


@_tree("register_dataclass_grad")
def _(jax):
    import dataclasses

    @dataclasses.dataclass
    class Params:
        w: object
        b: object

    jax.tree_util.register_dataclass(Params, data_fields=["w", "b"], meta_fields=[])
    return jax.grad(lambda p, x: jax.numpy.sum(p.w * x + p.b)), (Params(_f32(3), np.float32(0.5)), _f32(3))


@_tree("tree_map_none_leaves")
def _(jax):
    return jax.jit(lambda p: jax.tree_util.tree_map(lambda v: v + 1.0, p)), ({"a": _f32(2), "b": None},)


@_tree("tree_flatten_with_path_jit")
def _(jax):
    def f(p):
        leaves = jax.tree_util.tree_flatten_with_path(p)[0]
        return [v * len(jax.tree_util.keystr(k)) for k, v in leaves]

    return jax.jit(f), ({"ab": _f32(2), "c": [np.float32(1.0)]},)
