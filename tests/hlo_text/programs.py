"""Programs for the HLO text corpus beyond the fidelity and StableHLO corpora: what XLA's
canonicalization changes (constants uniqued, hoisted and made splats, ``x * 1`` folded, operands
swapped), ``jax.experimental.xla_metadata``'s frontend attributes and FFI custom calls, in the same
form as ``tests/fidelity/programs.py`` (a function of no arguments returning ``(f, args)``, the
globals bound to JAX or the engine by ``bind``)."""

from __future__ import annotations

import numpy as np

PROGRAMS: dict = {}

jax = jnp = lax = random = nn = None  # bound by `bind`


def bind(jax_module, jnp_module, lax_module, random_module, nn_module) -> None:
    globals().update(jax=jax_module, jnp=jnp_module, lax=lax_module, random=random_module, nn=nn_module)


def program(fn):
    name = "hlo_" + fn.__name__
    assert name not in PROGRAMS, name
    PROGRAMS[name] = fn
    return fn


def f32(*shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def _metadata():
    import importlib

    return importlib.import_module(jax.__name__ + ".experimental.xla_metadata").set_xla_metadata


@program
def repeated_names():
    return (lambda x: jnp.sin(jnp.sin(jnp.sin(x)))), (1.0,)


@program
def scalar_constants_hoisted():
    return (lambda x, y: (jnp.sin(x) * 2.0 + 3.0, y * 2.0)), (1.0, f32(3))


@program
def splat_after_scalars():
    return (lambda x, y: (x * 2.0, y * 3.0, y + 4.0)), (f32(3), 1.0)


@program
def identities_folded():
    return (lambda x, y: (y * 2.0, x * 2.0, y * 2.0 + 1.0, x * 1.0, y + 0.0, x - 0.0)), (f32(3), 1.0)


@program
def splat_in_place_of_its_scalar():
    return (lambda x, y: (x * 2.0, y * 2.0, x > 0.5, x * 3.0)), (f32(3), 1.0)


@program
def constant_operand_swapped():
    return (lambda y: (2.0 * y, y / 1.0, 0.0 - y, y * 0.0, jnp.maximum(y, 2.0))), (1.0,)


@program
def literal_spellings():
    return (lambda x: (x < jnp.inf, x * -0.5, x > 1e-30, x * 0.1, x + 1e20)), (f32(3),)


@program
def argument_names():
    return (lambda d, *rest: d["a"] * d["b"][0] + rest[0] + rest[1]), ({"a": 1.0, "b": [2.0]}, 3.0, 4.0)


@program
def six_arguments_and_outputs():
    return (lambda a, b, c, d, e, f: (a + b, c, d, e, f, a * f)), tuple(float(i) for i in range(6))


@program
def slices_and_concatenation():
    return (lambda x: (x[0, 1:], x[::2], jnp.concatenate([x, x]), x.reshape(4, 1))), (f32(2, 2),)


@program
def dots():
    return (
        lambda x: (
            x @ x,
            lax.dot(x, x, precision="highest"),
            jnp.einsum("bij,bjk->bik", x[None] + 1, x[None] + 1),
        )
    ), (f32(2, 2),)


@program
def compares_and_selects():
    return (lambda x: (jnp.where(x > 0, x, -x), x == x, lax.clamp(-1.0, x, 1.0), jnp.arange(3))), (f32(3),)


@program
def converts():
    return (lambda x: (x.astype(jnp.int32), x.astype(jnp.int32).astype(jnp.float32) * 2.0)), (f32(2, 3),)


@program
def value_tagging():
    set_xla_metadata = _metadata()

    def f(x):
        return set_xla_metadata(jnp.sin(x) * jnp.cos(x), breakpoint=True)

    return f, (1.0,)


@program
def context_tagging():
    set_xla_metadata = _metadata()

    def f(x):
        with set_xla_metadata(_xla_log=True, level=3):
            y = jnp.sin(x)
        return set_xla_metadata(y * jnp.cos(y), a="b")

    return f, (f32(3),)


@program
def grad_with_one_folded():
    return jax.grad(lambda x: jnp.sin(x) * jnp.cos(x)), (3.0,)


@program
def integer_reduction():
    return (lambda x: (jnp.sum(x), x + 3)), (np.arange(4, dtype=np.int32),)


@program
def dynamic_slicing():
    return (
        lambda x, i: (lax.dynamic_slice(x, (i,), (2,)) * 2.0, lax.dynamic_update_slice(x, x[:2] * 3.0, (2,)))
    ), (f32(5), np.int32(1))


@program
def reversal_and_padding():
    return (lambda x: (lax.rev(x, (0,)) * 2.0, lax.pad(x, 0.0, ((1, 2, 0),)))), (f32(3),)


def i32(*shape, high=4, seed=0):
    return np.random.RandomState(seed).randint(0, high, shape).astype(np.int32)


@program
def gather_sorted_unique():
    return (lambda x, i: x.at[i].get(indices_are_sorted=True, unique_indices=True)), (f32(5), i32(2))


@program
def gather_batched_rows():
    return jax.vmap(lambda x, i: x[i]), (f32(3, 4), i32(3, 2))


@program
def scatter_of_constants():
    return (lambda: jnp.zeros(5).at[1].set(2.0)), ()


@program
def scatter_whole_operand():
    return (lambda x, v: x.at[:].set(v)), (f32(5), f32(5, seed=1))


@program
def scatter_subtract_and_max():
    return (lambda x, i, v: x.at[i].subtract(v).at[i].max(v)), (f32(5), i32(3), f32(3, seed=1))


@program
def scatter_int_add_one():
    return (lambda x: x.at[0].add(1)), (np.arange(4, dtype=np.int32),)


@program
def scatter_apply_two_ops():
    return (lambda x, i: x.at[i].apply(lambda v: jnp.sin(jnp.cos(v)))), (f32(5), i32(2))


@program
def scatter_apply_with_constants():
    # (the update computation's constants: named as its other instructions are, when it is converted)
    return (
        lambda x, i: x.at[i].apply(lambda t: t * 2.0 + 1.0).at[0].apply(lambda t: lax.max(t, 3.0) - 1.0)
    ), (
        f32(5),
        i32(2),
    )


@program
def called_computation_returning_a_transpose():
    # (a call has its computation's root's shape, in the transposed layout too)
    g = jax.jit(lambda y: jnp.sin(y).T)
    return (lambda x: g(x) * 2.0), (f32(2, 3),)


def _splat(value, n):
    return lax.broadcast_in_dim(value, (n,), ())


@program
def swapped_with_a_broadcast_splat():
    # (a commutative operation swapped with a splat takes the location of the splat's broadcast)
    return (lambda x, y: (lax.add(_splat(1.0, 5), x) * x, lax.max(_splat(2.0, 5), y), jnp.add(2.0, x))), (
        f32(5),
        f32(5, seed=1),
    )


@program
def swapped_multiply_with_a_broadcast_splat():
    return (lambda x: lax.mul(_splat(3.0, 5), x)), (f32(5),)


@program
def while_captures_in_use_order():
    # (a, b carried unchanged: captured, b first as the condition reads it; c unused: dropped)
    def f(x, a, b, c):
        body = lambda s: (s[0] + 1, s[1], s[2], s[3], s[4] * s[1] + 1.0)  # noqa: E731
        return lax.while_loop(lambda s: s[0] < s[2], body, (0, a, b, c, x))

    return f, (f32(3), np.float32(2.0), np.int32(4), np.float32(5.0))


@program
def nested_loops():
    def f(x):
        inner = lambda v: lax.fori_loop(0, 2, lambda j, w: w * 1.5, v)  # noqa: E731
        return lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, inner(s[1])), (0, x))

    return f, (1.0,)


@program
def loop_body_reduction():
    return (lambda x: lax.fori_loop(0, 3, lambda i, v: v + jnp.sum(v), x)), (f32(4),)


@program
def batched_predicate_carries():
    def f(x, n):
        return lax.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, s[1] * 2.0, s[2] - 1.0), (0, x, x))

    return jax.vmap(f), (f32(3), np.arange(3, dtype=np.int32))


@program
def reverse_scan_of_pairs():
    def f(xs, ys, w):
        return lax.scan(lambda c, p: (c * w + p[0], c - p[1]), 0.0, (xs, ys), reverse=True)

    return f, (f32(4), f32(4, seed=1), 0.5)


@program
def loop_in_a_jitted_function():
    g = jax.jit(lambda v: lax.fori_loop(0, 3, lambda i, w: w * 2.0, v))
    return (lambda x: g(x) + g(x * 3.0)), (f32(2),)


@program
def transposed_layouts_kept():
    # (an elementwise operation, compare, convert, select keep their first operand's layout)
    return (
        lambda x, y: (y + x.T, x.T + y, x.T > 0, jnp.sin(x.T).astype(jnp.int32), lax.select(y > 0, x.T, y))
    ), (f32(2, 3), f32(3, 2, seed=1))


@program
def transposed_layouts_new_shapes():
    # (a dot, reduction, slice, broadcast, concatenate, reshape make a value in the default layout)
    def f(x, y):
        t = jnp.sin(x.T)
        return (
            t @ x,
            jnp.sum(t, axis=0),
            t[1:],
            lax.broadcast_in_dim(t, (4, 3, 2), (1, 2)),
            jnp.concatenate([t, y]),
        )

    return f, (f32(2, 3), f32(3, 2, seed=1))


@program
def transposed_layouts_through_ops():
    # (a transpose of a transposed value is a bitcast back; a reverse and a clamp keep the layout)
    return (lambda x: (jnp.sin(x.T).T, lax.rev(jnp.cos(x.T), (0,)), lax.clamp(0.0, jnp.tan(x.T), 1.0))), (
        f32(2, 3),
    )


@program
def transposed_value_called():
    g = jax.jit(jnp.sin)
    return (lambda x: g(x.T) + g(x.T * 2.0)), (f32(2, 3),)


@program
def broadcasts_of_constants_of_unequal_elements():
    # (kept as broadcasts; one that only adds a unit dimension is a reshape, folded: a constant)
    c = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    return (
        lambda x, y: (
            lax.broadcast_in_dim(c, (2, 3, 4), (0, 1)) * x,
            lax.broadcast_in_dim(c[0], (3, 2), (0,)),
            lax.broadcast_in_dim(c[1], (3, 1), (0,)) + y,
        )
    ), (np.arange(24, dtype=np.int32).reshape(2, 3, 4), np.arange(3, dtype=np.int32).reshape(3, 1))


@program
def dynamic_slices_at_constant_indices():
    # (XLA makes each a slice, its start clamped to where the slice fits; the indices go unused)
    return (lambda x, y: (lax.dynamic_slice(x, (7,), (2,)), lax.dynamic_slice(y, (0, 1), (2, 2)) * 2.0)), (
        f32(5),
        f32(3, 4),
    )


@program
def dynamic_slice_at_a_constant_and_a_traced_index():
    return (lambda x, i: lax.dynamic_slice(x, (1, i), (2, 2))), (f32(3, 4), np.int32(1))


@program
def slices_of_splats():
    return (
        lambda x: (
            lax.slice(_splat(2.0, 5), (1,), (3,)) + x,
            lax.dynamic_slice(_splat(1.0, 4), (1,), (2,)) * x,
        )
    ), (f32(2),)


@program
def pads_of_constants():
    return (
        lambda x: (
            lax.pad(jnp.ones(2), 0.0, [(1, 2, 0)]),
            lax.pad(jnp.array([1.0, 2.0]), 0.0, [(-1, 2, 1)]) * x,
        )
    ), (f32(4),)


@program
def sort_two_float_keys_rows():
    # (the comparator: lt_to of the last key, or eq_to and lt_to of the first; floats canonicalized)
    return (lambda x, y: lax.sort((x, y, x * 2.0), dimension=1, num_keys=2)), (f32(2, 3), f32(2, 3, seed=1))


@program
def sort_inside_loop():
    return (lambda x: lax.fori_loop(0, 2, lambda i, v: jnp.sort(v * -1.0), x)), (f32(4),)


@program
def convolution_window_fields():
    # (a window field only when some dimension differs from its default; group counts, precision)
    def f(x, w, y, v, k):
        a = lax.conv_general_dilated(
            x, w, (1, 1), [(-1, 2), (0, 0)], feature_group_count=2, precision=lax.Precision.HIGHEST
        )
        b = lax.conv_general_dilated(
            y, v, (1, 1), "VALID", batch_group_count=2, precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)
        )
        c = lax.conv(x, k, (2, 1), "VALID")
        return a, b, c

    return f, (
        f32(1, 4, 5, 5),
        f32(2, 2, 3, 3, seed=1),
        f32(2, 4, 5, 5, seed=2),
        f32(2, 4, 3, 3, seed=3),
        f32(2, 4, 1, 1),
    )


@program
def convolution_without_spatial_dimensions():
    return (lambda x, w: lax.conv_general_dilated(x, w, (), [], dimension_numbers=("NC", "OI", "NC"))), (
        f32(2, 3),
        f32(4, 3, seed=1),
    )


@program
def dots_without_contraction():
    # (an outer product and a batched one: dots of no contracting dimensions, kept as dots)
    return (
        lambda x, y: (
            lax.dot_general(x, y, (((), ()), ((), ()))),
            lax.dot_general(x, y, (((), ()), ((0,), (0,)))),
            lax.dot_general(x[:, None], y, (((), ()), ((0,), (0,)))) * 2.0,
        )
    ), (f32(3), f32(3, seed=1))


@program
def checkpoint_of_one_argument():
    return jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))), (1.0,)


@program
def reduce_precisions():
    return (lambda x: (lax.reduce_precision(x, 5, 10), lax.reduce_precision(x * 2.0, 8, 7))), (f32(3),)


def _full(value):
    return lax.full((), value, "float32")


@program
def constant_negated():
    # (an operation of constants is a constant at its location: the swapped multiply is named neg)
    return (lambda x: lax.neg(_full(2.0)) * x), (1.0,)


@program
def sine_of_a_negated_constant():
    return (lambda x: jnp.sin(lax.neg(_full(2.0))) + x), (1.0,)


@program
def constants_divided():
    return (lambda x: lax.div(_full(1.0), _full(3.0)) - x), (1.0,)


@program
def floor_of_a_constant_kept():
    return (lambda x: lax.floor(_full(0.7)) + x), (1.0,)


@program
def literal_swapped_used_further():
    # (a literal's location renames the swapped multiply: mul_jit__lambda__)
    return (lambda x: jnp.sin(2.0 * x)), (1.0,)


@program
def merged_literal_keeps_names():
    return (lambda x: (2.0 * x, 2.0 * jnp.sin(x))), (1.0,)


@program
def identity_before_a_late_fold():
    # (log(2) * 1 is the log's constant, named log; 2 * 3 and -2 * 3 are new constants at the multiply)
    return (lambda x: lax.log(_full(2.0)) * _full(1.0) * jnp.sin(x)), (1.0,)


@program
def constants_multiplied():
    return (lambda x: (_full(-1.5) * _full(1.0)) * jnp.exp(x)), (1.0,)


@program
def negated_constant_multiplied():
    return (lambda x: (lax.neg(_full(2.0)) * _full(3.0)) * jnp.sin(x)), (1.0,)


@program
def select_of_a_constant_predicate():
    # (a splat predicate picks its branch; an array of booleans prints {1, 0} and is kept)
    return (
        lambda x, y: (lax.select(lax.full((), True, "bool"), x, jnp.sin(x)),
                      lax.select(np.array([True, False]), y, jnp.cos(y)))
    ), (1.0, f32(2))  # fmt: skip


@program
def reduce_window_dilated():
    def f(x):
        return lax.reduce_window(
            x, 1.0, lambda a, b: a * b, (2, 2), (1, 1), "VALID", base_dilation=(2, 1), window_dilation=(1, 2)
        )

    return f, (f32(4, 5),)


@program
def generic_reduce_in_a_loop():
    def step(i, v):
        best = lax.reduce(
            (v, v * 2.0), (-np.inf, 0.0), lambda a, b: (jnp.maximum(a[0], b[0]), a[1] + b[1]), (0,)
        )
        return v + best[0] - best[1]

    return (lambda x: lax.fori_loop(0, 2, step, x)), (f32(3),)


@program
def iota_of_one_element():
    # (zeros: x + 0 is then x)
    i32 = np.ones((3, 1), np.int32)
    return (lambda x, y: (lax.iota("int32", 1) + x, lax.broadcasted_iota("int32", (3, 1), 1) + y)), (
        i32[0],
        i32,
    )


@program
def reshapes_merged():
    # (a reshape of a reshape is one, named after both locations; back to its operand's shape, none)
    return (
        lambda x, y: (jnp.sin(x.reshape(2, 3).reshape(6)), jnp.sin(lax.broadcast_in_dim(y, (1, 3), (1,)).reshape(3, 1)))
    ), (f32(6), f32(3))  # fmt: skip


@program
def broadcasts_merged():
    # (a broadcast of a broadcast is one broadcast of the inner operand)
    return (
        lambda x: jnp.sin(lax.broadcast_in_dim(lax.broadcast_in_dim(x, (3, 2), (1,)), (4, 3, 2), (1, 2)))
    ), (f32(2),)


@program
def cosh_expanded():
    # (XLA expands it: exp(x + log(1/2)) + exp(log(1/2) - x))
    return (lambda x, y: (jnp.cosh(x) * y, jnp.sin(y))), (f32(2, 3), f32(2, 3, seed=1))


@program
def atan_expanded():
    # (XLA expands it: atan2(x, 1))
    return (lambda x: jnp.sin(jnp.arctan(x))), (1.5,)


@program
def compare_of_constants_evaluated():
    # (an array of booleans XLA evaluated, printed {1, 0, 0}, selecting)
    return (lambda x, y: lax.select(lax.lt(np.arange(3, dtype=np.int32), np.int32(1)), x, jnp.sin(y))), (
        f32(3),
        f32(3, seed=1),
    )


@program
def while_constant_carried():
    # (2.0 carried unchanged: sunk into the body, a copy first, and no longer carried)
    body = lambda c: (c[0] + 1, c[1], c[2] * c[1])  # noqa: E731
    return (lambda x: lax.while_loop(lambda c: c[0] < 3, body, (0, 2.0, x))), (1.0,)


@program
def while_constant_carried_to_both_regions():
    body = lambda c: (c[0] + 1, c[1], c[2] * c[1])  # noqa: E731
    return (lambda x: lax.while_loop(lambda c: c[2] < c[1], body, (0, np.float32(9.0), x))), (1.0,)


@program
def asin_expanded():
    # (XLA expands it: 2 * atan2(x, 1 + sqrt((1 - x) * (1 + x))), the doubling an add)
    return (lambda x: jnp.arcsin(x) * x), (0.5,)


@program
def acos_expanded():
    # (XLA expands it: atan2(sqrt((1 - x) * (1 + x)), x))
    return (lambda x: jnp.exp(jnp.arccos(x))), (f32(2, 2) * 0.1,)


@program
def sinh_after_an_operation():
    # (the folded log(1/2) goes first among the expansion's constants when an operation precedes)
    return (lambda x: jnp.sinh(jnp.sin(x))), (f32(3),)


@program
def asinh_atanh_after_operations():
    return (lambda x: jnp.arcsinh(jnp.sin(x)) * jnp.cos(x)), (f32(2, 3),)


@program
def argmax_twice_and_used():
    return (lambda x: jnp.argmax(x, axis=1).astype(jnp.float32) * 2.0 + jnp.argmax(x * 2, axis=1)), (
        f32(3, 4),
    )


@program
def grad_cond_of_vectors():
    f = lambda x: lax.cond(x.sum() > 0, lambda x: jnp.sin(x).sum(), lambda x: (x * x).sum(), x)  # noqa: E731
    return jax.grad(f), (f32(3),)


@program
def jacfwd_of_cube():
    return jax.jacfwd(lambda x: x**3), (f32(3),)


@program
def tile_rows():
    return (lambda x: jnp.tile(x, (2, 1))), (f32(2, 3),)


@program
def cond_branch_returning_constants():  # (a branch of no operands: an empty tuple, its constants numbered last to first)
    def f(p, x):
        return lax.cond(
            p, lambda x: (x, x + 1, x * 3), lambda x: (np.float32(1), np.float32(2), np.float32(3)), x
        )

    return f, (True, np.float32(2))
