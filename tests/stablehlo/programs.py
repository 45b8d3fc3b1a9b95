"""Programs for the StableHLO corpus beyond the fidelity corpus's: one per primitive JAX lowers to a
single StableHLO/CHLO operation (and a few more shapes of the common ones), in the same form as
``tests/fidelity/programs.py`` (a function of no arguments returning ``(f, args)``, the globals
bound to JAX or the engine by ``bind``)."""

from __future__ import annotations

import numpy as np

PROGRAMS: dict = {}

jax = jnp = lax = random = nn = None  # bound by `bind`


def binder(namespace: dict):
    """A corpus module's ``bind``: points the globals of ``namespace`` (its ``globals()``) named
    jax, jnp, lax, random and nn at JAX or the engine."""

    def bind(jax_module, jnp_module, lax_module, random_module, nn_module) -> None:
        namespace.update(jax=jax_module, jnp=jnp_module, lax=lax_module, random=random_module, nn=nn_module)

    return bind


def registrar(programs: dict, prefix: str):
    """A corpus module's ``@program``: registers a builder in ``programs`` as ``prefix`` + its name."""

    def program(fn):
        name = prefix + fn.__name__
        assert name not in programs, name
        programs[name] = fn
        return fn

    return program


bind = binder(globals())
program = registrar(PROGRAMS, "shlo_")


def f32(*shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def i32(*shape, hi=4):
    return np.random.RandomState(1).randint(0, hi, shape).astype(np.int32)


def _lax_unary(name, arg):
    def build():
        return getattr(lax, name), (arg(),)

    build.__name__ = f"lax_{name}"
    program(build)


for _name in ["acosh", "asinh", "atanh", "erf_inv", "lgamma", "digamma", "is_finite", "logistic", "exp2",
              "rsqrt", "cbrt", "round", "sign", "expm1", "log1p", "tan"]:  # fmt: skip
    _lax_unary(_name, lambda: np.abs(f32(3)) * 0.5 + 1.0)

for _name in ["population_count", "bitwise_not"]:
    _lax_unary(_name, lambda: i32(4, hi=100))


def _lax_binary(name, a, b, suffix=""):
    def build():
        return getattr(lax, name), (a(), b())

    build.__name__ = f"lax_{name}{suffix}"
    program(build)


for _name in ["atan2", "nextafter", "rem", "pow", "max", "min"]:
    _lax_binary(_name, lambda: f32(3), lambda: np.abs(f32(3, seed=1)) + 0.5)

for _name in ["shift_right_arithmetic", "shift_left", "shift_right_logical", "bitwise_and", "bitwise_or",
              "bitwise_xor", "div", "rem"]:  # fmt: skip
    _lax_binary(
        _name, lambda: i32(4, hi=50) + 1, lambda: i32(4) + 1, "_int" if _name in ("rem", "div") else ""
    )


@program
def round_half_away():
    return (lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)), (f32(4),)


@program
def clamp_scalar_bounds():
    return (lambda x: lax.clamp(-0.5, x, 0.5)), (f32(4),)


@program
def select_n_three_cases():
    return (lambda i, x: lax.select_n(i, x, x * 2, x * 3)), (i32(4, hi=3), f32(4))


@program
def integer_pow_seven():
    return (lambda x: lax.integer_pow(x, 7)), (f32(3),)


@program
def integer_pow_minus_three():
    return (lambda x: lax.integer_pow(x, -3)), (f32(2, 2),)


@program
def batched_matmul():
    return jnp.matmul, (f32(2, 3, 4), f32(2, 4, 5))


@program
def einsum_contract_two():
    return (lambda a, b: jnp.einsum("ijk,jkl->il", a, b)), (f32(2, 3, 4), f32(3, 4, 5))


@program
def dot_int():
    return jnp.dot, (i32(3, 4), i32(4))


@program
def cumprod_axis1():
    return (lambda x: jnp.cumprod(x, axis=1)), (f32(2, 3),)


@program
def cummax_reverse():
    return (lambda x: lax.cummax(x, reverse=True)), (f32(5),)


@program
def argmin_axis0():
    return (lambda x: jnp.argmin(x, axis=0)), (f32(3, 4),)


@program
def max_int_reduce():
    return (lambda x: jnp.max(x, axis=1)), (i32(3, 4),)


@program
def any_all():
    return (lambda x: (jnp.any(x > 0), jnp.all(x > 0))), (f32(3, 4),)


@program
def strided_slice():
    return (lambda x: x[1::2, ::3]), (f32(5, 7),)


@program
def pad_interior_negative():
    return (lambda x: lax.pad(x, 0.0, [(1, -1, 2)])), (f32(4),)


@program
def rev_two_axes():
    return (lambda x: lax.rev(x, (0, 1))), (f32(2, 3),)


@program
def concatenate_three():
    return (lambda a, b: jnp.concatenate([a, b, a], axis=1)), (f32(2, 2), f32(2, 3))


@program
def reshape_transpose():
    return (lambda x: x.reshape(3, 2, 2).transpose(2, 0, 1)), (f32(12),)


@program
def expand_squeeze():
    return (lambda x: jnp.squeeze(jnp.expand_dims(x, (0, 2)), 0)), (f32(3),)


@program
def iota_2d():
    return (lambda x: x + lax.broadcasted_iota(jnp.float32, (3, 4), 1)), (f32(3, 4),)


@program
def convert_bool_int_float():
    return (lambda x: (x.astype(bool), x.astype(jnp.int32), (x > 0).astype(jnp.uint8))), (f32(3),)


@program
def bitcast_f32_i32():
    return (lambda x: lax.bitcast_convert_type(x, jnp.int32)), (f32(3),)


@program
def reduce_precision_bf16():
    return (lambda x: lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7)), (f32(3),)


@program
def sort_two_keys():
    return (lambda a, b: lax.sort((a, b), num_keys=2)), (i32(5), f32(5))


@program
def sort_int_descending():
    return (lambda x: -jnp.sort(-x)), (i32(6, hi=9),)


@program
def while_batched_predicate():
    return jax.vmap(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)), (
        np.abs(f32(3)) + 1.0,
    )


@program
def cond_three_branches():
    return (lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x)), (np.int32(1), f32(3))


@program
def scan_with_consts_and_ys():
    w = f32(3, 3)
    return (lambda xs: lax.scan(lambda c, x: (jnp.tanh(w @ c + x), c.sum()), jnp.zeros(3), xs)), (f32(4, 3),)


@program
def fori_loop_traced_carry():
    return (lambda x: lax.fori_loop(0, 4, lambda i, c: c + i * x, jnp.zeros_like(x))), (f32(3),)


@program
def gather_2d_rows():
    return (lambda x, i: x[i]), (f32(5, 3), i32(4, hi=5))


@program
def scatter_add_2d():
    return (lambda x, i, u: x.at[i].add(u)), (f32(5, 3), i32(4, hi=5), f32(4, 3))


@program
def scatter_max():
    return (lambda x, i, u: x.at[i].max(u)), (f32(5), i32(3, hi=5), f32(3))


@program
def dynamic_slice_2d():
    return (lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2))), (f32(4, 4), np.int32(1))


@program
def dynamic_update_slice_2d():
    return (lambda x, u, i: lax.dynamic_update_slice(x, u, (i, i))), (f32(4, 4), f32(2, 2), np.int32(1))


@program
def split_three():
    return (lambda x: jnp.split(x, 3, axis=1)), (f32(2, 6),)


@program
def nested_jit_twice():
    inner = jax.jit(lambda x: x * 2.0 + 1.0)
    return (lambda x: inner(inner(x)) + inner(x + 1.0)), (f32(3),)


@program
def constant_array_closure():
    c = np.linspace(0, 1, 6, dtype=np.float32).reshape(2, 3)
    return (lambda x: x * c + c.sum()), (f32(2, 3),)


@program
def large_constant_hex():
    c = np.arange(128, dtype=np.float32) / 7
    return (lambda x: x + c), (f32(128),)


@program
def unused_argument():
    return (lambda x, y, z: x + z), (f32(2), f32(3), f32(2))


@program
def pytree_outputs():
    return (lambda x: {"b": [x, x * 2], "a": (x.sum(),)}), (f32(2),)


@program
def softmax_axis0():
    return (lambda x: jax.nn.softmax(x, axis=0)), (f32(3, 2),)


@program
def logsumexp_rows():
    return (lambda x: jax.nn.logsumexp(x, axis=1)), (f32(2, 4),)


@program
def one_hot_labels():
    return (lambda y: jax.nn.one_hot(y, 4)), (i32(3, hi=4),)


@program
def where_three_arg():
    return (lambda x: jnp.where(x > 0, x, 0.1 * x)), (f32(4),)


@program
def mean_var_std():
    return (lambda x: (jnp.mean(x), jnp.var(x, axis=0), jnp.std(x))), (f32(3, 4),)


@program
def linspace_arange():
    return (lambda x: x + jnp.linspace(0.0, 1.0, 4) + jnp.arange(4)), (f32(4),)


@program
def grad_mse_linear():
    def loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    return jax.grad(loss), (f32(3), f32(5, 3), f32(5))


@program
def value_and_grad_tanh_mlp():
    def loss(p, x):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.sum(h @ p["w2"])

    params = {"w1": f32(3, 4), "b1": f32(4), "w2": f32(4, 2)}
    return jax.value_and_grad(loss), (params, f32(2, 3))


@program
def vmap_dot():
    return jax.vmap(jnp.dot), (f32(4, 3), f32(4, 3))


@program
def jvp_sin_cos():
    return (lambda x, t: jax.jvp(lambda y: jnp.sin(y) * jnp.cos(y), (x,), (t,))), (f32(3), f32(3))


@program
def top_k_values():
    return (lambda x: lax.top_k(x, 2)), (f32(5),)


@program
def real_imag_complex():
    return (lambda x, y: (lax.complex(x, y) * 2).real), (f32(3), f32(3))


@program
def conv_nchw_same():
    return (lambda x, w: lax.conv(x, w, (1, 1), "SAME")), (f32(1, 2, 5, 5), f32(3, 2, 3, 3))


@program
def conv_nhwc_dilated():
    return (
        lambda x, w: lax.conv_general_dilated(
            x, w, (2, 1), [(1, 1), (0, 0)], lhs_dilation=(1, 2), rhs_dilation=(2, 1),
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
        )
    ), (f32(1, 6, 6, 2), f32(2, 2, 2, 4))  # fmt: skip


@program
def jnp_convolve_full():
    return jnp.convolve, (f32(5), f32(3))


@program
def grad_conv_weights():
    return jax.grad(lambda w, x: jnp.sum(lax.conv(x, w, (1,), "VALID") ** 2)), (f32(2, 1, 3), f32(1, 1, 6))


@program
def gather_fill_mode():
    return (lambda x, i: x.at[i].get(mode="fill", fill_value=-1.0)), (f32(5), i32(3, hi=8))


@program
def take_along_axis_rows():
    return (lambda x, i: jnp.take_along_axis(x, i, axis=1)), (f32(3, 4), i32(3, 2))


@program
def take_fill_int():
    return (lambda x, i: jnp.take(x, i, mode="fill")), (i32(6, hi=9), i32(4, hi=8))


@program
def concatenate_twenty():
    return (lambda x: jnp.concatenate([x * i for i in range(20)])), (f32(2),)


@program
def stack_axis1_unstack():
    return (lambda a, b: [y.sum() for y in jnp.unstack(jnp.stack([a, b], axis=1))]), (f32(3), f32(3))


@program
def tile_2d():
    return (lambda x: jnp.tile(x, (2, 3))), (f32(2, 2),)


@program
def scan_unroll_remainder_ys():
    return (lambda xs: lax.scan(lambda c, x: (c * x, c + x), jnp.ones(2), xs, unroll=2)), (f32(5, 2),)


@program
def scan_unroll_reverse():
    return (lambda xs: lax.scan(lambda c, x: (c + x, c), jnp.zeros(2), xs, reverse=True, unroll=3)), (
        f32(7, 2),
    )


@program
def scan_full_unroll_true():
    return (lambda xs: lax.scan(lambda c, x: (c + x, x * 2), 0.0, xs, unroll=True)), (f32(3),)


@program
def debug_print_two():
    def f(x):
        jax.debug.print("a {}", x)
        y = jnp.sin(x)
        jax.debug.print("b {} {}", x, y)
        return y

    return f, (f32(3),)


@program
def debug_print_in_while():
    def body(c):
        jax.debug.print("c={c}", c=c)
        return c * 2

    return (lambda x: lax.while_loop(lambda c: c < 10, body, x)), (np.float32(1),)


@program
def donate_and_keep_unused():
    return jax.jit(lambda x, y, z: x + y, donate_argnums=(0, 2), keep_unused=True), (f32(3), f32(3), f32(2))


@program
def random_init_inside_jit():
    def init(seed):
        k1, k2 = random.split(random.PRNGKey(seed))
        return random.normal(k1, (3, 2)), random.uniform(k2, (4,))

    return init, (np.int32(0),)


@program
def random_new_style_key_bits():
    return (lambda k: random.bits(random.wrap_key_data(k), (2, 3))), (np.array([0, 42], np.uint32),)


@program
def scatter_clip_mode():
    return (lambda x, i, u: x.at[i].set(u, mode="clip")), (f32(5, 3), i32(4, hi=8), f32(4, 3))


# --- reductions whose computation is a jaxpr param: the reducer region, compact when MLIR prints it so


@program
def generic_reduce_max_not_identity():
    return (lambda x: lax.reduce(x, np.float32(2.0), lax.max, (1,))), (f32(2, 3),)


@program
def generic_reduce_pair():
    return (lambda x, y: lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,))), (
        f32(2, 3),
        f32(2, 3, seed=1),
    )


@program
def generic_reduce_with_literal():
    return (lambda x: lax.reduce(x, np.float32(1.0), lambda a, b: a * b + 0.5, (0, 1))), (f32(2, 3),)


@program
def generic_reduce_window_mul():
    return (lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 1), (1, 1), "VALID")), (f32(4, 3),)


@program
def generic_reduce_window_padded_init():
    return (lambda x: lax.reduce_window(x, 0.5, lax.max, (2, 2), (1, 2), ((1, 0), (0, 1)))), (f32(4, 5),)


@program
def generic_reduce_window_jvp():
    def f(x, t):
        return jax.jvp(
            lambda v: lax.reduce_window(v, np.float32(1.0), lax.mul, (2, 1), (1, 1), "VALID"), (x,), (t,)
        )

    return f, (f32(4, 3), f32(4, 3, seed=1))


# --- LAPACK-backed linear algebra: custom calls with column-major layouts and a sharding rule


@program
def linalg_lu_wide():
    return lax.linalg.lu, (f32(3, 4),)


@program
def linalg_lu_batched_complex():
    return lax.linalg.lu, ((f32(2, 3, 2, 2) + 1j * f32(2, 3, 2, 2, seed=1)).astype(np.complex64),)


@program
def linalg_lu_one_by_one():
    return lax.linalg.lu, (f32(1, 1),)


@program
def linalg_lu_pivots_to_permutation():
    return (lambda p: lax.linalg.lu_pivots_to_permutation(p, 5)), (
        np.array([[2, 2, 3], [1, 4, 2]], np.int32),
    )


@program
def linalg_triangular_solve_right_transposed_unit():
    def f(a, b):
        return lax.linalg.triangular_solve(
            a, b, left_side=False, lower=True, transpose_a=True, unit_diagonal=True
        )

    return f, (f32(3, 3), f32(2, 3))


@program
def linalg_triangular_solve_conjugate_batched():
    def f(a, b):
        return lax.linalg.triangular_solve(a, b, left_side=True, conjugate_a=True)

    c = (f32(2, 3, 3) + 1j * f32(2, 3, 3, seed=1)).astype(np.complex64)
    return f, (c, c[..., :2] * 2)


# --- SPMD: shard_map's manual computation and its collectives, sharding constraints, pmap (JAX's
# jit of a shard_map; jit, vmap or checkpoint of a pmap lower the pmap itself, as JAX's keep its lower)


def _mesh(*shape_and_names):
    shape, names = shape_and_names[: len(shape_and_names) // 2], shape_and_names[len(shape_and_names) // 2 :]
    devices = np.array(jax.devices()[: int(np.prod(shape))]).reshape(shape)
    return jax.sharding.Mesh(devices, names)


def _smap(f, mesh, in_specs, out_specs):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)


def _P(*entries):
    return jax.sharding.PartitionSpec(*entries)


@program
def shard_map_pmin_over_first_axis():
    return _smap(lambda b: lax.pmin(b, "i"), _mesh(4, 2, "i", "j"), _P("i", "j"), _P("i", "j")), (f32(8, 4),)


@program
def shard_map_psum_over_axes_out_of_mesh_order():
    f = _smap(lambda b: lax.psum(b, ("j", "i")), _mesh(4, 2, "i", "j"), _P("i", "j"), _P("i", "j"))
    return f, (f32(8, 4),)


@program
def shard_map_all_gather_untiled_and_on_dim1():
    def body(b):
        return lax.all_gather(b, "i"), lax.all_gather(b, "j", axis=1, tiled=True)

    f = _smap(body, _mesh(4, 2, "i", "j"), _P("i", "j"), (_P(None, "i", "j"), _P("i")))
    return f, (f32(8, 4),)


@program
def shard_map_psum_scatter_untiled():
    return _smap(lambda b: lax.psum_scatter(b, "i"), _mesh(4, 2, "i", "j"), _P(None), _P("i")), (f32(4, 3),)


@program
def shard_map_all_to_all_and_int_psum():
    def body(b, n):
        return lax.all_to_all(b, "i", 0, 0, tiled=True), lax.psum(n, "i"), lax.pmax(n > 2, "i")

    f = _smap(body, _mesh(4, "i"), (_P("i"), _P("i")), (_P("i"), _P(), _P()))
    return f, (f32(16), i32(8, hi=5))


@program
def shard_map_size_one_axis_and_closure():
    return _smap(lambda b: b * 2 + jnp.arange(2.0), _mesh(1, 2, "a", "b"), _P("a", "b"), _P("a", "b")), (
        f32(4, 4),
    )


@program
def shard_map_jit_and_scan_inside():
    def body(b):
        s = lax.scan(lambda c, y: (lax.psum(c, "i") + y, c), b[0], b)[0]
        return jax.jit(lambda v: lax.psum(jnp.sin(v), "i"))(b) + s

    return _smap(body, _mesh(4, "i"), _P("i"), _P()), (f32(8),)


@program
def shard_map_grad():
    f = _smap(lambda b: lax.psum(jnp.sum(b**2), "i"), _mesh(4, "i"), _P("i"), _P())
    return jax.grad(f), (f32(8),)


@program
def sharding_constraint_unconstrained_and_scalar():
    mesh = _mesh(4, 2, "i", "j")

    def f(a):
        b = lax.with_sharding_constraint(
            a + 1, jax.sharding.NamedSharding(mesh, _P(jax.sharding.PartitionSpec.UNCONSTRAINED, "j"))
        )
        return b, lax.with_sharding_constraint(jnp.sum(a), jax.sharding.NamedSharding(mesh, _P()))

    return f, (f32(8, 4),)


@program
def sharding_constraint_grad():
    s = jax.sharding.NamedSharding(_mesh(4, 2, "i", "j"), _P(("i", "j")))
    return jax.grad(lambda a: jnp.sum(lax.with_sharding_constraint(a * a, s))), (f32(8, 4),)


@program
def pmap_tree_in_and_out_unused_arg():
    return jax.pmap(lambda d, u: {"a": d["x"] * 2, "b": (jnp.sin(d["y"]),)}), (
        {"x": f32(4, 3), "y": f32(4)},
        f32(4, 2),
    )


@program
def pmap_called_twice_in_jit():
    p = jax.pmap(lambda x: x * 2.0)
    return (lambda x: p(x) + p(x * 3)), (f32(4, 3),)


@program
def pmap_under_vmap_vmap_lowers_the_pmap():
    return jax.vmap(jax.vmap(jax.pmap(lambda x: x * 2.0))), (f32(2, 3, 4),)


@program
def pmap_under_checkpoint_lowers_the_pmap():
    return jax.checkpoint(jax.pmap(jnp.cos)), (f32(4, 3),)


@program
def pmap_collectives():
    def body(x, y):
        a = lax.all_gather(x, "i") * lax.axis_index("i")
        return a, lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 3), (3, 0)]), lax.psum((x, y), "i")

    return jax.pmap(body, axis_name="i"), (f32(4, 2), f32(4))


@program
def pmap_vjp_and_keys():
    def f(x, t, k):
        out = jax.vjp(jax.pmap(jnp.sin), x)[1](t)
        return out, jax.pmap(lambda kk: random.normal(kk, (2,)))(k)

    return f, (f32(4, 3), f32(4, 3, seed=1), random.split(random.PRNGKey(0), 4))


@program
def shard_map_one_device_mesh():  # (no manual computation, and no mesh: the collectives stay)
    f = _smap(lambda b: lax.psum(b, "i") + lax.axis_index("i"), _mesh(1, "i"), _P("i"), _P("i"))
    return f, (f32(4),)


@program
def shard_map_collectives_over_positional_axes():  # (the positional axes reduced first)
    def body(b):
        return lax.psum(b, ("i", 0)), lax.pmax(b, (0, "i")), lax.pmin(b, ("i", 1)), lax.psum(b, 0)

    return _smap(body, _mesh(4, "i"), _P("i"), (_P(), _P(), _P(), _P("i"))), (f32(8, 3),)


# --- refs made inside vmap (a batched ref) and jvp (a primal ref and a tangent ref), discharged --------


def _ref_scale_and_bump(x):
    r = jax.new_ref(x)
    r[...] = r[...] * 2.0
    r[1] += x[0]
    return jnp.sum(jax.freeze(r) * x)


@program
def refs_made_inside_vmap():
    return jax.vmap(_ref_scale_and_bump), (f32(2, 3),)


@program
def refs_made_inside_jvp():
    return (lambda x, t: jax.jvp(_ref_scale_and_bump, (x,), (t,))), (f32(3), f32(3, seed=1))


# --- lax.linalg's tridiagonal reduction and solve (LAPACK sytrd/hetrd, gtsv custom calls), and the
# symmetric product, Cholesky update and QDWH JAX lowers as traced functions


def _c64(*shape):
    return (f32(*shape) + 1j * f32(*shape, seed=1)).astype(np.complex64)


@program
def linalg_tridiagonal():
    return lax.linalg.tridiagonal, (f32(3, 3),)


@program
def linalg_tridiagonal_upper_batched_complex():
    return (lambda a: lax.linalg.tridiagonal(a, lower=False)), (_c64(2, 3, 3),)


@program
def linalg_tridiagonal_solve():
    return lax.linalg.tridiagonal_solve, (f32(4), f32(4, seed=1), f32(4, seed=2), f32(4, 2, seed=3))


@program
def linalg_tridiagonal_solve_batched_complex():
    return lax.linalg.tridiagonal_solve, (_c64(2, 3), _c64(2, 3) + 2, _c64(2, 3), _c64(2, 3, 1))


@program
def linalg_tridiagonal_solve_grad():
    def f(dl, d, du, b):
        return jnp.sum(lax.linalg.tridiagonal_solve(dl, d, du, b) ** 2)

    return jax.grad(f, argnums=(1, 3)), (f32(4), f32(4, seed=1) + 3, f32(4, seed=2), f32(4, 2, seed=3))


@program
def linalg_symmetric_product():
    return (lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5)), (
        f32(3, 2),
        f32(3, 3, seed=1),
    )


@program
def linalg_symmetric_product_batched_symmetrized():
    def f(a, c):
        return lax.linalg.symmetric_product(a, c, symmetrize_output=True)

    return f, (f32(2, 3, 4), f32(2, 3, 3, seed=1))


@program
def linalg_cholesky_update():
    return lax.linalg.cholesky_update, (np.triu(f32(3, 3)) + 3 * np.eye(3, dtype=np.float32), f32(3, seed=1))


@program
def linalg_qdwh():
    return lax.linalg.qdwh, (f32(3, 3),)


@program
def linalg_qdwh_wide_hermitian_options():
    return (lambda x: lax.linalg.qdwh(x, is_hermitian=True, max_iterations=3, eps=1e-3)), (f32(3, 3),)


@program
def linalg_hessenberg():
    return lax.linalg.hessenberg, (f32(3, 3),)


@program
def linalg_hessenberg_batched_complex():
    return lax.linalg.hessenberg, (_c64(2, 4, 4),)


@program
def linalg_schur():
    return lax.linalg.schur, (f32(3, 3),)


@program
def linalg_schur_complex_no_vectors():
    return (lambda x: lax.linalg.schur(x, compute_schur_vectors=False)), (_c64(2, 3, 3),)


@program
def linalg_householder_product():
    return lax.linalg.householder_product, (f32(4, 3), f32(2))


@program
def linalg_ormqr_right_transposed():
    def f(a, taus, c):
        return lax.linalg.ormqr(a, taus, c, left=False, transpose=True)

    return f, (f32(4, 3), f32(3), f32(2, 4))


@program
def linalg_qr_raw():  # (geqrf)
    return (lambda a: jnp.linalg.qr(a, mode="raw")), (f32(2, 4, 3),)


@program
def linalg_slogdet_qr():
    return (lambda a: jnp.linalg.slogdet(a, method="qr")), (f32(3, 3),)


@program
def lax_optimization_barrier():
    return (lambda x, n: lax.optimization_barrier((x * 2, n))), (f32(3), np.int32(2))


@program
def lax_clz():
    return lax.clz, (np.array([1, 7, 0, -1, 1 << 20], np.int32),)


@program
def lax_cumlogsumexp():
    return (lambda x: lax.cumlogsumexp(x, axis=1, reverse=True)), (f32(2, 5),)


@program
def jnp_cumlogsumexp_grad():
    return jax.grad(lambda x: jnp.sum(lax.cumlogsumexp(x) * x)), (f32(4),)


@program
def lax_rng_bit_generator():
    return (lambda k: lax.rng_bit_generator(k, (2, 3))), (np.arange(4, dtype=np.uint32),)


@program
def lax_rng_bit_generator_uint8_philox():
    def f(k):
        return lax.rng_bit_generator(k, (5,), np.uint8, lax.RandomAlgorithm.RNG_PHILOX)

    return f, (np.arange(4, dtype=np.uint32),)


# --- special functions: CHLO operations (bessel_i1e, polygamma, zeta) and bessel_i0e's traced expansion


@program
def lax_bessel_i0e():
    return lax.bessel_i0e, (np.array([0.5, -3.0, 9.0], np.float32),)


@program
def lax_bessel_i0e_float16():
    return lax.bessel_i0e, (np.array([0.5, 9.0], np.float16),)


@program
def lax_bessel_i1e_grad():
    return jax.grad(lax.bessel_i1e), (np.float32(0.5),)


@program
def lax_polygamma_broadcast():
    return lax.polygamma, (np.array([1.0, 2.0], np.float32), np.float32(0.5))


@program
def lax_zeta():
    return lax.zeta, (np.array([2.0, 3.0], np.float32), np.array([1.0, 2.0], np.float32))


# --- approximate top-k (XLA's exact fallback on CPU, a custom call with a comparator) and XLA's
# stateful rng


@program
def lax_approx_max_k():
    return (lambda x: lax.approx_max_k(x, 2)), (f32(3, 4),)


@program
def lax_approx_min_k_dim0_not_aggregated():
    def f(x):
        return lax.approx_min_k(x, 2, reduction_dimension=0, recall_target=0.9, aggregate_to_topk=False)

    return f, (f32(3, 4),)


@program
def lax_approx_max_k_twice():
    return (lambda x: (lax.approx_max_k(x, 1), lax.approx_max_k(x * 2, 3))), (f32(5),)


@program
def lax_rng_uniform():
    return (lambda a, b: lax.rng_uniform(a, b, (2, 3))), (np.float32(0), np.float32(1))


@program
def lax_rng_uniform_int_scalar():
    return (lambda a, b: lax.rng_uniform(a, b, ())), (np.int32(0), np.int32(5))
