"""Programs a learner lowers beyond the fidelity corpus and ``programs.py``: pmap and shard_map with
their collectives, control flow closing over arrays, custom_jvp/custom_vjp under jit, ``jnp.linalg``,
random, narrow and complex dtypes, and ``jit``'s own options (donate/static/keep_unused, pytrees).

Same form as ``programs.py``; a builder may return ``(f, args, jit_options)``, lowered as
``jit(f, **jit_options).lower(*args)`` (so donation and static arguments reach the top-level jit).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tests.stablehlo.programs import binder, f32, i32, registrar

PROGRAMS: dict = {}

jax = jnp = lax = random = nn = None  # bound by `bind`


bind = binder(globals())
program = registrar(PROGRAMS, "learner_")


def _mesh(*shape_and_names):
    shape, names = shape_and_names[: len(shape_and_names) // 2], shape_and_names[len(shape_and_names) // 2 :]
    devices = np.array(jax.devices()[: int(np.prod(shape))]).reshape(shape)
    return jax.sharding.Mesh(devices, names)


def _P(*entries):
    return jax.sharding.PartitionSpec(*entries)


def _smap(f, mesh, in_specs, out_specs, **kw):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **kw)


# --- pmap ------------------------------------------------------------------------------------------


@program
def pmap_in_axes_1():
    return jax.pmap(jnp.sin, in_axes=1), (f32(3, 4),)


@program
def pmap_out_axes_1():
    return jax.pmap(lambda x: x * 2.0, out_axes=1), (f32(4, 3),)


@program
def pmap_in_axes_mixed_out_axes_tuple():
    f = jax.pmap(lambda x, y, z: (x + y, z * 2.0), in_axes=(1, None, 0), out_axes=(0, 1))
    return f, (f32(3, 4), f32(3), f32(4, 2, 5))


@program
def pmap_out_axes_none_psum():
    return jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i", out_axes=None), (f32(4, 3),)


@program
def pmap_in_axes_dict_prefix():
    f = jax.pmap(lambda d: d["a"] * d["b"].sum(), in_axes=({"a": 0, "b": 1},))
    return f, ({"a": f32(4, 2), "b": f32(3, 4)},)


@program
def grad_of_pmap_in_axes_1():
    p = jax.pmap(lambda x: jnp.sin(x) * lax.axis_index("i"), axis_name="i", in_axes=1)
    return jax.grad(lambda x: jnp.sum(p(x))), (f32(2, 4),)


@program
def pmap_normalize_by_psum():
    return jax.pmap(lambda x: x / lax.psum(jnp.sum(x), "d"), axis_name="d"), (f32(4, 3),)


@program
def pmap_pmean_of_grads():
    def step(w, x):
        g = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
        return w - 0.1 * lax.pmean(g, "batch")

    return jax.pmap(step, axis_name="batch", in_axes=(None, 0)), (f32(3, 2), f32(4, 5, 3))


@program
def pmap_all_gather_tiled():
    return jax.pmap(lambda x: lax.all_gather(x, "i", tiled=True), axis_name="i"), (f32(4, 2),)


@program
def pmap_ppermute_ring():
    perm = [(j, (j + 1) % 4) for j in range(4)]
    return jax.pmap(lambda x: lax.ppermute(x, "i", perm), axis_name="i"), (f32(4, 3),)


@program
def pmap_all_to_all():
    return jax.pmap(lambda x: lax.all_to_all(x, "i", 0, 0), axis_name="i"), (f32(4, 4, 2),)


@program
def pmap_axis_index_scale():
    return jax.pmap(lambda x: x * lax.axis_index("i"), axis_name="i"), (f32(4, 3),)


@program
def pmap_pmax_pmin():
    return jax.pmap(lambda x: (lax.pmax(x, "i"), lax.pmin(x, "i")), axis_name="i"), (f32(4, 2),)


@program
def pmap_psum_axis_index_groups():
    f = jax.pmap(lambda x: lax.psum(x, "i", axis_index_groups=[[0, 1], [2, 3]]), axis_name="i")
    return f, (f32(4, 2),)


@program
def pmap_static_broadcasted_argnums():
    p = jax.pmap(lambda x, n: x * n, static_broadcasted_argnums=1)
    return (lambda x: p(x, 3)), (f32(4, 2),)


@program
def pmap_int_and_bool_args():
    return jax.pmap(lambda n, m: jnp.where(m, n * 2, n)), (i32(4, 3), i32(4, 3) > 1)


# --- shard_map --------------------------------------------------------------------------------------


@program
def shard_map_psum_1d():
    return _smap(lambda b: lax.psum(jnp.sum(b), "x"), _mesh(4, "x"), _P("x"), _P()), (f32(8),)


@program
def shard_map_pmean_checked():
    return _smap(lambda b: lax.pmean(b, "x"), _mesh(4, "x"), _P("x"), _P()), (f32(8, 2),)


@program
def shard_map_all_gather_tiled():
    f = _smap(lambda b: lax.all_gather(b, "x", tiled=True), _mesh(4, "x"), _P("x"), _P(), check_vma=False)
    return f, (f32(8, 2),)


@program
def shard_map_ppermute_ring():
    perm = [(j, (j + 1) % 4) for j in range(4)]
    return _smap(lambda b: lax.ppermute(b, "x", perm), _mesh(4, "x"), _P("x"), _P("x")), (f32(8),)


@program
def shard_map_axis_index():
    f = _smap(lambda b: b + lax.axis_index("x"), _mesh(4, "x"), _P("x"), _P("x"), check_vma=False)
    return f, (f32(8),)


@program
def shard_map_all_to_all_split1():
    f = _smap(lambda b: lax.all_to_all(b, "x", 1, 0, tiled=True), _mesh(4, "x"), _P("x"), _P("x"))
    return f, (f32(8, 8),)


@program
def shard_map_psum_scatter_tiled():
    f = _smap(lambda b: lax.psum_scatter(b, "x", tiled=True), _mesh(4, "x"), _P(), _P("x"), check_vma=False)
    return f, (f32(8, 3),)


@program
def shard_map_replicated_arg():
    f = _smap(lambda a, w: a @ w, _mesh(4, "x"), (_P("x"), _P()), _P("x"))
    return f, (f32(8, 3), f32(3, 2))


@program
def shard_map_matmul_2d_mesh():
    def body(a, b):
        return lax.psum(a @ b, "j")

    f = _smap(body, _mesh(2, 2, "i", "j"), (_P("i", "j"), _P("j", None)), _P("i", None))
    return f, (f32(4, 4), f32(4, 3))


@program
def shard_map_sharding_constraint_inside():
    mesh = _mesh(4, "x")

    def body(b):
        return lax.with_sharding_constraint(b * 2, jax.sharding.NamedSharding(mesh, _P()))

    return _smap(body, mesh, _P("x"), _P("x"), check_vma=False), (f32(8),)


@program
def shard_map_psum_axis_index_groups():
    f = _smap(lambda b: lax.psum(b, "x", axis_index_groups=[[0, 1], [2, 3]]), _mesh(4, "x"), _P("x"), _P("x"),
              check_vma=False)  # fmt: skip
    return f, (f32(8),)


@program
def shard_map_nested():  # (the inner one over the outer's abstract mesh, its "j" axis still free)
    def outer(b):
        inner = _smap(lambda c: lax.psum(c, "j"), jax.sharding.get_abstract_mesh(), _P("j"), _P(),
                      axis_names={"j"}, check_vma=False)  # fmt: skip
        return inner(b)

    return _smap(outer, _mesh(2, 2, "i", "j"), _P("i"), _P("i"), axis_names={"i"}, check_vma=False), (f32(8),)


@program
def shard_map_partial_manual_axis():
    f = _smap(
        lambda b: lax.psum(b, "i"), _mesh(2, 2, "i", "j"), _P("i"), _P(), axis_names={"i"}, check_vma=False
    )
    return f, (f32(8, 2),)


@program
def jit_shard_map_then_sum():
    f = _smap(lambda b: jnp.sin(b), _mesh(4, "x"), _P("x"), _P("x"))
    return (lambda x: jnp.sum(f(x) ** 2)), (f32(8),)


# --- control flow closing over arrays ----------------------------------------------------------------


@program
def cond_closes_over_array():
    def f(p, x, w):
        return lax.cond(p > 0, lambda v: v @ w, lambda v: v @ (w * 2), x)

    return f, (np.float32(1.0), f32(3), f32(3, 2))


@program
def while_closes_over_array():
    def f(x, limit):
        return lax.while_loop(lambda c: jnp.sum(c) < limit, lambda c: c * 1.5 + x, x)

    return f, (np.abs(f32(3)) + 0.1, np.float32(10.0))


@program
def fori_loop_closure_accumulate():
    def f(x, w):
        return lax.fori_loop(0, 5, lambda i, c: c + w * i, x)

    return f, (f32(3), f32(3, seed=1))


@program
def scan_pytree_xs_closure():
    def f(h, xs, w):
        def step(c, x):
            c = jnp.tanh(c @ w + x["a"] * x["b"])
            return c, c.sum()

        return lax.scan(step, h, xs)

    return f, (f32(2), {"a": f32(5, 2), "b": f32(5, 2, seed=1)}, f32(2, 2))


@program
def switch_closes_over_array():
    def f(i, x, w):
        return lax.switch(i, [lambda v: v + w, lambda v: v * w, lambda v: v - w], x)

    return f, (np.int32(1), f32(3), f32(3, seed=1))


@program
def grad_of_cond():
    f = lambda x: lax.cond(x[0] > 0, lambda v: jnp.sum(jnp.sin(v)), lambda v: jnp.sum(v**2), x)  # noqa: E731
    return jax.grad(f), (f32(3),)


@program
def vmap_of_cond_becomes_select():
    f = lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x)  # noqa: E731
    return jax.vmap(f), (f32(4), f32(4, 3))


@program
def grad_of_fori_loop():
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x).sum()  # noqa: E731
    return jax.grad(f), (f32(3),)


@program
def scan_length_no_xs():
    return (lambda c: lax.scan(lambda c, _: (c * 2.0, c), c, None, length=4)), (f32(2),)


# --- custom_jvp / custom_vjp --------------------------------------------------------------------------


def _safe_log1pexp():
    @jax.custom_jvp
    def softplus(x):
        return jnp.log1p(jnp.exp(x))

    @softplus.defjvp
    def softplus_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * jax.nn.sigmoid(x)

    return softplus


@program
def custom_jvp_under_jit():
    return _safe_log1pexp(), (f32(3),)


@program
def custom_jvp_grad():
    f = _safe_log1pexp()
    return jax.grad(lambda x: jnp.sum(f(x))), (f32(3),)


def _clip_gradient():
    @jax.custom_vjp
    def clip(x):
        return x

    def fwd(x):
        return x, None

    def bwd(_, g):
        return (jnp.clip(g, -1.0, 1.0),)

    clip.defvjp(fwd, bwd)
    return clip


@program
def custom_vjp_under_jit():
    return _clip_gradient(), (f32(3),)


@program
def custom_vjp_grad():
    clip = _clip_gradient()
    return jax.grad(lambda x: jnp.sum(clip(x * 3.0) ** 2)), (f32(3),)


@program
def custom_vjp_with_residuals_grad():
    @jax.custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    f.defvjp(lambda x, y: (f(x, y), (jnp.cos(x), jnp.sin(x), y)), lambda r, g: (r[0] * r[2] * g, r[1] * g))
    return jax.grad(lambda x, y: jnp.sum(f(x, y)), argnums=(0, 1)), (f32(3), f32(3, seed=1))


# --- jnp.linalg ------------------------------------------------------------------------------------


def _spd(n):
    a = f32(n, n)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


@program
def linalg_inv():
    return jnp.linalg.inv, (_spd(3),)


@program
def linalg_solve():
    return jnp.linalg.solve, (_spd(3), f32(3))


@program
def linalg_det():
    return jnp.linalg.det, (f32(3, 3),)


@program
def linalg_slogdet():
    return jnp.linalg.slogdet, (f32(3, 3),)


@program
def linalg_cholesky():
    return jnp.linalg.cholesky, (_spd(3),)


@program
def linalg_qr():
    return jnp.linalg.qr, (f32(4, 3),)


@program
def linalg_eigh():
    return jnp.linalg.eigh, (_spd(3),)


@program
def linalg_svd():
    return jnp.linalg.svd, (f32(3, 2),)


@program
def linalg_norm_fro_and_vector():
    return (lambda a, v: (jnp.linalg.norm(a), jnp.linalg.norm(v, ord=1))), (f32(3, 3), f32(4))


@program
def linalg_lstsq():
    return (lambda a, b: jnp.linalg.lstsq(a, b)[0]), (f32(4, 2), f32(4))


@program
def linalg_qr_complete_and_wide():
    return (lambda a, b: (jnp.linalg.qr(a, mode="complete"), jnp.linalg.qr(b))), (f32(4, 3), f32(2, 3))


@program
def linalg_qr_r_only_batched():
    return (lambda a: jnp.linalg.qr(a, mode="r")), (f32(2, 4, 3),)


@program
def linalg_cholesky_batched_and_grad():
    def f(a):
        return jnp.linalg.cholesky(a), jax.grad(lambda m: jnp.sum(jnp.linalg.cholesky(m)[0]))(a[0])

    return f, (np.stack([_spd(3), _spd(3) + np.eye(3, dtype=np.float32)]),)


@program
def linalg_eigh_upper_and_eigvalsh():
    return (lambda a: (jnp.linalg.eigh(a, UPLO="U"), jnp.linalg.eigvalsh(a))), (_spd(3),)


@program
def linalg_eigh_complex():
    a = (f32(3, 3) + 1j * f32(3, 3, seed=1)).astype(np.complex64)
    return jnp.linalg.eigh, (a + a.conj().T,)


@program
def linalg_svd_values_and_thin_batched():
    def f(a):
        return jnp.linalg.svd(a, compute_uv=False), jnp.linalg.svd(a, full_matrices=False)

    return f, (f32(2, 3, 4),)


@program
def linalg_pinv_and_matrix_rank():
    return (lambda a: (jnp.linalg.pinv(a), jnp.linalg.matrix_rank(a))), (f32(3, 2),)


@program
def linalg_grad_eigh():
    return jax.grad(lambda a: jnp.sum(jnp.linalg.eigh(a)[0] ** 2)), (_spd(3),)


# --- random -----------------------------------------------------------------------------------------


@program
def random_normal_from_seed():
    return (lambda s: random.normal(random.PRNGKey(s), (3,))), (np.int32(0),)


@program
def random_uniform_range():
    return (lambda k: random.uniform(k, (2, 3), minval=-1.0, maxval=2.0)), (np.asarray(random.PRNGKey(1)),)


@program
def random_split_fold_in():
    def f(k):
        a, b = random.split(k)
        return random.normal(random.fold_in(a, 3), (2,)) + random.normal(b, (2,))

    return f, (np.asarray(random.PRNGKey(2)),)


@program
def random_bernoulli():
    return (lambda k: random.bernoulli(k, 0.3, (4,))), (np.asarray(random.PRNGKey(0)),)


@program
def random_randint():
    return (lambda k: random.randint(k, (5,), 0, 10)), (np.asarray(random.PRNGKey(0)),)


@program
def random_categorical():
    return (lambda k, logits: random.categorical(k, logits)), (np.asarray(random.PRNGKey(0)), f32(2, 4))


@program
def random_permutation():
    return (lambda k: random.permutation(k, 5)), (np.asarray(random.PRNGKey(0)),)


@program
def random_typed_key_normal():
    return (lambda s: random.normal(random.key(s), (2, 2))), (np.int32(3),)


@program
def random_dropout():
    def dropout(k, x):
        keep = random.bernoulli(k, 0.9, x.shape)
        return jnp.where(keep, x / 0.9, 0.0)

    return dropout, (np.asarray(random.PRNGKey(0)), f32(2, 3))


@program
def random_fold_in_traced_step():
    return (lambda k, step: random.normal(random.fold_in(k, step), (3,))), (
        np.asarray(random.PRNGKey(0)),
        np.int32(5),
    )


@program
def random_vmap_over_split_keys():
    return (lambda k: jax.vmap(lambda kk: random.normal(kk, (2,)))(random.split(k, 4))), (
        np.asarray(random.PRNGKey(0)),
    )


@program
def random_normal_in_scan():
    def f(k):
        def step(key, _):
            key, sub = random.split(key)
            return key, random.uniform(sub, (2,))

        return lax.scan(step, k, None, length=3)

    return f, (np.asarray(random.PRNGKey(0)),)


# --- dtypes ------------------------------------------------------------------------------------------


@program
def bf16_matmul():
    return jnp.matmul, (f32(2, 3).astype(jnp.bfloat16), f32(3, 2, seed=1).astype(jnp.bfloat16))


@program
def bf16_sum_and_mean():
    return (lambda x: (jnp.sum(x), jnp.mean(x, axis=0))), (f32(3, 2).astype(jnp.bfloat16),)


@program
def f16_exp_add():
    return (lambda x, y: jnp.exp(x) + y), (f32(3).astype(np.float16), f32(3, seed=1).astype(np.float16))


@program
def f16_softmax():
    return jax.nn.softmax, (f32(2, 3).astype(np.float16),)


@program
def int8_add_and_convert():
    return (lambda a, b: (a + b, a.astype(jnp.float32) * 0.5)), (i32(4, hi=50).astype(np.int8), np.int8(3))


@program
def uint8_image_normalize():
    return (lambda img: img.astype(jnp.float32) / 255.0), (i32(2, 2, 3, hi=255).astype(np.uint8),)


@program
def complex64_mul_abs():
    z = (f32(3) + 1j * f32(3, seed=1)).astype(np.complex64)
    return (lambda a, b: (a * b, jnp.abs(a), jnp.conj(a))), (z, z * 2)


@program
def complex_from_real_parts():
    return (lambda re, im: jnp.exp(lax.complex(re, im))), (f32(3), f32(3, seed=1))


@program
def bool_logic():
    return (lambda a, b: (a & b, a | ~b, jnp.logical_xor(a, b))), (i32(4) > 1, i32(4) > 2)


@program
def mixed_dtype_promotion():
    return (lambda a, b, c: a * b + c), (i32(3), f32(3).astype(np.float16), 2.5)


# --- jit's options and pytrees ----------------------------------------------------------------------


@program
def donate_argnums_top_level():
    return (lambda x, y: x + y), (f32(3), f32(3)), {"donate_argnums": 0}


@program
def donate_argnums_pytree():
    def update(params, g):
        return {k: params[k] - 0.1 * g[k] for k in params}

    params = {"w": f32(3, 2), "b": f32(2)}
    return update, (params, params), {"donate_argnums": 0}


@program
def donate_argnames():
    return (lambda x, y: (x * 2, y)), (f32(3), f32(2)), {"donate_argnames": ("y",)}


@program
def static_argnums_shape():
    return (lambda x, n: jnp.tile(x, n)), (f32(2), 3), {"static_argnums": 1}


@program
def static_argnames_flag():
    def f(x, relu=False):
        return jnp.maximum(x, 0.0) if relu else x * 2

    return (lambda x: jax.jit(f, static_argnames="relu")(x, relu=True)), (f32(3),)


@program
def keep_unused_false_drops_arg():
    return (lambda x, unused: x * 2), (f32(3), f32(2)), {"keep_unused": False}


@program
def keep_unused_true_pytree():
    return (lambda x, t: x * 2), (f32(3), {"a": f32(2), "b": i32(1)}), {"keep_unused": True}


class _Batch(NamedTuple):
    x: object
    y: object


@program
def namedtuple_in_tuple_out():
    return (lambda b: (b.x @ b.y, {"n": jnp.sum(b.y)})), (_Batch(f32(2, 3), f32(3, 2)),)


@program
def list_and_none_in_pytree():
    return (lambda t: [t[0] * 2, None, t[2]["z"] + 1]), ([f32(2), None, {"z": i32(2)}],)


@program
def scalar_python_args():
    return (lambda x, a, n: x * a + n), (f32(3), 0.5, 2)


# --- more of what a learner writes: transformations, nn layers, indexing, mixed precision -------------


@program
def checkpoint_mlp_grad():
    @jax.checkpoint
    def layer(w, x):
        return jnp.tanh(x @ w)

    return jax.grad(lambda w, x: jnp.sum(layer(w, layer(w, x)))), (f32(3, 3), f32(2, 3))


@program
def custom_jvp_nondiff_argnums():
    from functools import partial

    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def scaled(k, x):
        return jnp.sin(x) * k

    @scaled.defjvp
    def scaled_jvp(k, primals, tangents):
        (x,), (t,) = primals, tangents
        return scaled(k, x), jnp.cos(x) * k * t

    return jax.grad(lambda x: jnp.sum(scaled(3.0, x))), (f32(3),)


@program
def hessian_and_jacobians():
    f = lambda x: jnp.sum(jnp.sin(x) * x**2)  # noqa: E731
    return (lambda x: (jax.hessian(f)(x), jax.jacfwd(jnp.sin)(x), jax.jacrev(jnp.cos)(x))), (f32(3),)


@program
def vmap_in_axes_and_out_axes():
    f = jax.vmap(lambda a, b: a @ b, in_axes=(1, None), out_axes=1)
    return f, (f32(3, 4, 2), f32(2, 5))


@program
def lax_map_over_rows():
    return (lambda x: lax.map(lambda r: jnp.sort(r)[::-1], x)), (f32(3, 4),)


@program
def layer_norm_gelu():
    def f(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return jax.nn.gelu((x - m) * lax.rsqrt(v + 1e-5) * g + b)

    return f, (f32(2, 4), f32(4, seed=1), f32(4, seed=2))


@program
def cross_entropy_grad():
    def loss(w, x, labels):
        logits = x @ w
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 3), -1))

    return jax.grad(loss), (f32(4, 3), f32(5, 4), i32(5, hi=3))


@program
def avg_pool_reduce_window():
    def pool(x):
        s = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        return s / 4.0

    return pool, (f32(1, 4, 4, 2),)


@program
def max_pool_grad():
    def f(x):
        return jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "SAME"))

    return jax.grad(f), (f32(3, 3),)


@program
def conv_feature_groups():
    def f(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2)

    return f, (f32(1, 4, 5, 5), f32(4, 2, 3, 3, seed=1))


@program
def at_add_traced_index_and_segment_sum():
    def f(x, i, seg):
        return x.at[i].add(1.0), jax.ops.segment_sum(x, seg, num_segments=3)

    return f, (f32(5), np.int32(2), i32(5, hi=3))


@program
def dynamic_slice_traced_start():
    return (lambda x, i: lax.dynamic_slice_in_dim(x, i, 2)), (f32(6), np.int32(3))


@program
def argsort_and_cumsum_reverse():
    return (lambda x: (jnp.argsort(x), jnp.cumsum(x[::-1])[::-1])), (f32(5),)


@program
def fft_roundtrip():
    return (lambda x: jnp.fft.irfft(jnp.fft.rfft(x), n=8)), (f32(8),)


@program
def pad_modes():
    return (lambda x: (jnp.pad(x, 2, mode="reflect"), jnp.pad(x, (1, 2), mode="edge"))), (f32(5),)


@program
def stop_gradient_target():
    return jax.grad(lambda w, x: jnp.sum((x * w - lax.stop_gradient(x * w * 2)) ** 2)), (
        f32(3),
        f32(3, seed=1),
    )


@program
def int8_matmul_int32_accumulate():
    def f(a, b):
        return lax.dot(a, b, preferred_element_type=jnp.int32)

    return f, (i32(2, 3, hi=100).astype(np.int8), i32(3, 2, hi=100).astype(np.int8))


@program
def bf16_mixed_precision_dense():
    def f(w, x):
        y = jnp.dot(x.astype(jnp.bfloat16), w.astype(jnp.bfloat16), preferred_element_type=jnp.float32)
        return jax.nn.relu(y)

    return f, (f32(3, 2), f32(4, 3))


@program
def f16_max_and_argmax():
    return (lambda x: (jnp.max(x, axis=1), jnp.argmax(x, axis=0))), (f32(3, 4).astype(np.float16),)


@program
def complex_matmul_and_grad():
    z = (f32(2, 2) + 1j * f32(2, 2, seed=1)).astype(np.complex64)

    def f(a, b):
        return a @ b, jax.grad(lambda x: jnp.abs(jnp.sum(x * x)))(a)

    return f, (z, z.T)


@program
def float64_input_becomes_f32():
    return (lambda x: x * 2), (np.arange(3.0),)


@program
def uint32_bit_mixing():
    return (lambda x: (x >> 3) ^ (x * np.uint32(2654435761))), (i32(4, hi=1000).astype(np.uint32),)


@program
def cond_pytree_operands():
    def f(p, state):
        return lax.cond(p, lambda s: {"a": s["a"] + 1, "b": s["b"]}, lambda s: s, state)

    return f, (True, {"a": f32(2), "b": i32(3)})


@program
def while_pytree_carry_counter():
    def f(x):
        def body(c):
            i, v = c
            return i + 1, v * 0.5

        return lax.while_loop(lambda c: c[0] < 4, body, (0, x))

    return f, (f32(3),)


@program
def optimizer_step_tree_map():
    def step(params, grads, lr):
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

    params = {"w": f32(2, 2), "b": [f32(2), f32(1)]}
    return step, (params, params, np.float32(0.1))


@program
def linalg_norm_spectral_and_eig_refused():
    return (lambda a: jnp.linalg.norm(a, ord=2)), (f32(3, 3),)


@program
def linalg_eig_general():
    return jnp.linalg.eig, (f32(3, 3),)


@program
def max_pool_forward_same_and_int_min_pool():
    def f(x, n):
        a = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        return a, lax.reduce_window(n, np.int32(2**31 - 1), lax.min, (2,), (1,), "VALID")

    return f, (f32(1, 5, 5, 2), i32(6, hi=9))


# --- numpy-style helpers, scipy, attention, more random ----------------------------------------------


@program
def nan_reductions_and_clip():
    return (lambda x: (jnp.nanmean(x), jnp.nanmax(x), jnp.clip(x, -0.5, 0.5))), (
        np.array([1.0, np.nan, -2.0, 0.25], np.float32),
    )


@program
def median_and_percentile():
    return (lambda x: (jnp.median(x), jnp.percentile(x, 90.0))), (f32(7),)


@program
def unique_with_size_and_bincount():
    return (lambda n: (jnp.unique(n, size=4, fill_value=-1), jnp.bincount(n, length=5))), (i32(8, hi=5),)


@program
def searchsorted_and_interp():
    xp = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
    return (lambda q, fp: (jnp.searchsorted(xp, q), jnp.interp(q, xp, fp))), (
        np.array([0.5, 2.5], np.float32),
        f32(4),
    )


@program
def triu_tril_kron_outer():
    return (lambda a, v: (jnp.triu(a, 1), jnp.tril(a), jnp.kron(a[:2, :2], a[:2, :2]), jnp.outer(v, v))), (
        f32(3, 3),
        f32(2),
    )


@program
def meshgrid_polyval():
    return (lambda x, c: (jnp.meshgrid(x, x), jnp.polyval(c, x))), (f32(3), f32(4, seed=1))


@program
def scipy_special_and_logsumexp():
    from importlib import import_module

    sp = import_module(jax.__name__ + ".scipy.special")
    return (lambda x: (sp.logsumexp(x), sp.erf(x), sp.expit(x), sp.gammaln(jnp.abs(x) + 1))), (f32(4),)


@program
def dot_product_attention():
    return jax.nn.dot_product_attention, (f32(1, 4, 2, 8), f32(1, 4, 2, 8, seed=1), f32(1, 4, 2, 8, seed=2))


@program
def manual_causal_attention():
    def attn(q, k, v):
        s = q @ k.T / np.sqrt(q.shape[-1]).astype(np.float32)
        mask = jnp.tril(jnp.ones((q.shape[0], q.shape[0]), bool))
        return jax.nn.softmax(jnp.where(mask, s, -jnp.inf), axis=-1) @ v

    return attn, (f32(4, 8), f32(4, 8, seed=1), f32(4, 8, seed=2))


@program
def associative_scan_cumsum():
    return (lambda x: lax.associative_scan(jnp.add, x)), (f32(8),)


@program
def scan_reverse_unrolled():
    return (lambda xs: lax.scan(lambda c, x: (c * 0.9 + x, c), 0.0, xs, reverse=True, unroll=2)), (f32(6),)


@program
def sort_multiple_operands():
    return (lambda k, v: lax.sort((k, v), num_keys=1)), (f32(5), i32(5))


@program
def random_choice_and_truncated_normal():
    def f(k):
        a, b = random.split(k)
        return random.choice(a, 10, (3,), replace=False), random.truncated_normal(b, -1.0, 1.0, (2,))

    return f, (np.asarray(random.PRNGKey(0)),)


@program
def random_gamma_and_poisson():
    def f(k):
        a, b = random.split(k)
        return random.gamma(a, 2.0, (2,)), random.poisson(b, 3.0, (2,))

    return f, (np.asarray(random.PRNGKey(0)),)


@program
def random_shuffle_rows():
    return (lambda k, x: random.permutation(k, x, axis=0)), (np.asarray(random.PRNGKey(1)), f32(4, 2))


@program
def vmap_switch_per_example():
    f = jax.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x))
    return f, (i32(4, hi=3), f32(4))


@program
def jit_method_static_self():
    class Model:
        def __init__(self, scale):
            self.scale = scale

        def __hash__(self):
            return hash(self.scale)

        def __eq__(self, other):
            return isinstance(other, Model) and other.scale == self.scale

        def apply(self, x):
            return jnp.tanh(x) * self.scale

    m = Model(3.0)
    return (lambda x: jax.jit(Model.apply, static_argnums=0)(m, x)), (f32(3),)


@program
def grad_with_has_aux_and_argnums():
    def loss(w, b, x):
        y = x @ w + b
        return jnp.mean(y**2), {"pred": y}

    return (lambda w, b, x: jax.grad(loss, argnums=(0, 1), has_aux=True)(w, b, x)), (
        f32(3, 2),
        f32(2),
        f32(4, 3),
    )


@program
def value_and_grad_over_pytree_params():
    def loss(p, x):
        h = jax.nn.relu(x @ p["l1"]["w"] + p["l1"]["b"])
        return jnp.sum((h @ p["l2"]) ** 2)

    params = {"l1": {"w": f32(3, 4), "b": f32(4)}, "l2": f32(4, 1)}
    return jax.value_and_grad(loss), (params, f32(2, 3))


@program
def linalg_eigvals_complex_and_left_vectors():
    z = (f32(3, 3) + 1j * f32(3, 3, seed=1)).astype(np.complex64)

    def f(a, c):
        return jnp.linalg.eigvals(a), jnp.linalg.eig(c), lax.linalg.eig(a, compute_left_eigenvectors=True)

    return f, (f32(3, 3, seed=2), z)


# --- more SPMD: pytrees through collectives, loops inside, jit's shardings ---------------------------


@program
def shard_map_psum_pytree_checked():
    def body(a, b):
        s = lax.psum({"a": jnp.sum(a), "b": b}, "x")
        return s["a"] * 2, s["b"]

    return _smap(body, _mesh(4, "x"), (_P("x"), _P("x")), (_P(), _P())), (f32(8), f32(8, seed=1))


@program
def shard_map_grad_checked():
    f = _smap(lambda w, x: lax.pmean(jnp.sum((x @ w) ** 2), "x"), _mesh(4, "x"), (_P(), _P("x")), _P())
    return jax.grad(f), (f32(3, 2), f32(8, 3))


@program
def shard_map_spec_on_second_dim():
    f = _smap(lambda b: b * lax.axis_index("x"), _mesh(4, "x"), _P(None, "x"), _P(None, "x"), check_vma=False)
    return f, (f32(2, 8),)


@program
def shard_map_all_gather_untiled_axis1():
    f = _smap(lambda b: lax.all_gather(b, "x", axis=1), _mesh(4, "x"), _P("x"), _P("x"), check_vma=False)
    return f, (f32(8, 3),)


@program
def shard_map_partial_ppermute():
    f = _smap(lambda b: lax.ppermute(b, "x", [(0, 1), (2, 3)]), _mesh(4, "x"), _P("x"), _P("x"))
    return f, (f32(8),)


@program
def shard_map_while_with_psum():
    def body(b):
        return lax.while_loop(lambda c: lax.psum(jnp.sum(c), "x") < 100.0, lambda c: c * 2.0 + 1.0, b)

    return _smap(body, _mesh(4, "x"), _P("x"), _P("x"), check_vma=False), (np.abs(f32(8)),)


@program
def shard_map_under_vmap():
    f = _smap(lambda b: lax.psum(b, "x"), _mesh(4, "x"), _P("x"), _P(), check_vma=False)
    return jax.vmap(f), (f32(3, 8),)


@program
def pmap_scan_inside():
    def body(x):
        return lax.scan(lambda c, v: (c + lax.psum(v, "i"), c), 0.0, x)

    return jax.pmap(body, axis_name="i"), (f32(4, 3),)


@program
def pmap_pmean_tuple_and_roll():
    def body(x, y):
        m = lax.pmean((x, y), "i")
        return jnp.roll(x, lax.axis_index("i")), m

    return jax.pmap(body, axis_name="i"), (f32(4, 3), f32(4))


@program
def pmap_kwargs_argument():
    p = jax.pmap(lambda x, scale: x * scale)
    return (lambda x, s: p(x, scale=s)), (f32(4, 2), f32(4))


@program
def sharding_constraint_1d_mesh():
    s = jax.sharding.NamedSharding(_mesh(4, "x"), _P("x", None))
    return (lambda a: lax.with_sharding_constraint(a * 2, s) + 1), (f32(8, 2),)


@program
def jit_in_and_out_shardings():
    mesh = _mesh(4, "x")
    ns = jax.sharding.NamedSharding
    options = {"in_shardings": (ns(mesh, _P("x")), ns(mesh, _P())), "out_shardings": ns(mesh, _P("x"))}
    return (lambda a, b: a @ b), (f32(8, 3), f32(3, 2)), options


@program
def shard_map_checked_jvp():
    f = _smap(lambda b: lax.psum(jnp.sin(b), "x"), _mesh(4, "x"), _P("x"), _P())
    return (lambda x, t: jax.jvp(f, (x,), (t,))), (f32(8), f32(8, seed=1))


@program
def shard_map_checked_vmap():
    f = _smap(lambda b: lax.pmax(b, "x") * b, _mesh(4, "x"), _P("x"), _P("x"))
    return jax.vmap(f), (f32(2, 8),)


@program
def shard_map_checked_grad_of_psum():
    f = _smap(lambda b: lax.psum(jnp.sum(b**2), "x"), _mesh(4, "x"), _P("x"), _P())
    return jax.grad(f), (f32(8),)


@program
def shard_map_unchecked_grad_of_ppermute():
    f = _smap(lambda b: lax.ppermute(b, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]), _mesh(4, "x"), _P("x"), _P("x"),
              check_vma=False)  # fmt: skip
    return jax.grad(lambda x: jnp.sum(f(x) * jnp.arange(8.0))), (f32(8),)


@program
def pmap_grad_of_pmean_loss():
    def loss(w, x):
        return lax.pmean(jnp.mean((x @ w) ** 2), "b")

    return jax.pmap(jax.grad(loss), axis_name="b", in_axes=(None, 0)), (f32(3, 2), f32(4, 5, 3))


@program
def donate_output_pytree_aliasing():
    def step(state):
        return {"count": state["count"] + 1, "w": state["w"] * 0.9}

    return step, ({"count": np.int32(0), "w": f32(3)},), {"donate_argnums": 0}


@program
def linalg_batched_solve_and_inv_grad():
    def f(a, b):
        return jnp.linalg.solve(a, b[..., None]), jax.grad(lambda m: jnp.sum(jnp.linalg.inv(m)))(a[0])

    return f, (np.stack([_spd(3), _spd(3) * 2]), f32(2, 3))
