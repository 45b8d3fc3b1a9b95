"""Snippets for what lax's shape and dtype rules refuse, called eagerly and under jit: slices and
dynamic slices that do not fit, pads, concatenations, reshapes, reversals, squeezes, top_k, sorts,
cumulative reductions, reduce_window, gathers and scatters given the wrong dimensions, dtypes an
operation does not accept; and the everyday mistakes a user meets first (a psum outside any mapped
axis, trees that do not match, ``grad`` of an integer output, ``int()`` of a vector, ...). Eagerly
the engine runs a primitive's numpy implementation, which would accept some of these (numpy clamps
a slice that does not fit): such primitives check their operands first (``core.eager_checked``).
Registered in snippets.py; ``test_refusals_say_what_jax_says`` compares the messages."""

_X = "x = jnp.arange(3.)\nx23 = jnp.arange(6.).reshape(2, 3)\n"

# name -> an expression of lax on x (f32[3]) and x23 (f32[2, 3]) that JAX refuses
_LAX = {
    "dynamic_slice_too_big": "lax.dynamic_slice(x, (0,), (5,))",
    "dynamic_slice_negative": "lax.dynamic_slice(x, (0,), (-1,))",
    "dynamic_update_slice_too_big": "lax.dynamic_update_slice(x, jnp.ones(5), (0,))",
    "dynamic_update_slice_rank": "lax.dynamic_update_slice(x, jnp.ones((1, 1)), (0,))",
    "dynamic_update_slice_dtype": "lax.dynamic_update_slice(x, jnp.ones(1, jnp.int32), (0,))",
    "pad_crops_too_much": "lax.pad(x, 0., ((-2, -2, 0),))",
    "pad_config_rank": "lax.pad(x, 0., ((0, 0, 0), (0, 0, 0)))",
    "pad_dtype": "lax.pad(x, jnp.int32(0), ((1, 1, 0),))",
    "concatenate_ranks": "lax.concatenate([x, x23], 0)",
    "concatenate_dimension": "lax.concatenate([x, x], 1)",
    "concatenate_shapes": "lax.concatenate([x23, x23.T], 0)",
    "concatenate_dtypes": "lax.concatenate([x, x.astype(jnp.int32)], 0)",
    "reshape_dimensions": "lax.reshape(x23, (6,), dimensions=(0,))",
    "rev_dimension": "lax.rev(x, (1,))",
    "squeeze_not_one": "lax.squeeze(x, (0,))",
    "squeeze_out_of_bounds": "lax.squeeze(x, (3,))",
    "expand_dims_out_of_bounds": "lax.expand_dims(x, (5,))",
    "top_k_too_big": "lax.top_k(x, 5)",
    "cumsum_axis": "lax.cumsum(x, 2)",
    "cumsum_bool": "lax.cumsum(x > 0)",
    "cummax_axis": "lax.cummax(x, 1)",
    "sort_dimension": "lax.sort(x, dimension=3)",
    "sort_shapes": "lax.sort((x, x23))",
    "sort_key_val_shapes": "lax.sort_key_val(x, x23)",
    "iota_negative": "lax.iota(jnp.int32, -1)",
    "integer_pow_negative": "lax.integer_pow(x.astype(jnp.int32), -1)",
    "neg_bool": "lax.neg(x > 0)",
    "sign_bool": "lax.sign(x > 0)",
    "abs_bool": "lax.abs(x > 0)",
    "complex_int": "lax.complex(x.astype(jnp.int32), x.astype(jnp.int32))",
    "conj_int": "lax.conj(x.astype(jnp.int32))",
    "reduce_precision_int": "lax.reduce_precision(x.astype(jnp.int32), 5, 10)",
    "nextafter_dtypes": "lax.nextafter(x, x.astype(jnp.float16))",
    "reduce_window_too_big": "lax.reduce_window(x, 0., lax.add, (5,), (1,), 'VALID')",
    "reduce_window_rank": "lax.reduce_window(x, 0., lax.add, (1, 1), (1,), 'VALID')",
    "gather_collapsed_dims": (
        "lax.gather(x, jnp.array([[0]]), lax.GatherDimensionNumbers((), (1,), (0,)), (1,))"
    ),
    "scatter_add_updates": (
        "lax.scatter_add(x, jnp.array([[0]]), jnp.ones(3), lax.ScatterDimensionNumbers((), (0,), (0,)))"
    ),
    "dot_general_batch_contracting": "lax.dot_general(x23, x23, (((1,), (1,)), ((0,), (1,))))",
    "slice_past_the_end": "lax.slice(x23, (0, 0), (2, 5))",
    "slice_limit_before_start": "lax.slice(x23, (0, 2), (2, 1))",
    "slice_rank": "lax.slice(x, (0, 0), (1, 1))",
}

# only under jit: JAX's eager calls take other paths with other words (lax.slice runs as a
# dynamic_slice there)
_JIT_ONLY = {"slice_past_the_end", "slice_limit_before_start", "slice_rank"}

SHAPE_RULES = [
    (f"{name}_eager", _X + f"out = {code}") for name, code in _LAX.items() if name not in _JIT_ONLY
]
SHAPE_RULES += [
    (f"{name}_jit", _X + f"out = jax.jit(lambda x, x23: {code})(x, x23)") for name, code in _LAX.items()
]

SHAPE_RULES += [
    ("ok_broadcast_in_dim_same_rank", _X + "out = lax.broadcast_in_dim(x, (3,), ())"),
    (
        "ok_broadcast_in_dim_same_rank_jit",
        _X + "out = jax.jit(lambda x: lax.broadcast_in_dim(x, (3,), ()))(x)",
    ),
    ("psum_unbound", "out = jax.jit(lambda x: lax.psum(x, 'i'))(1.0)"),
    ("pmean_unbound", "out = lax.pmean(1.0, 'batch')"),
    ("tree_map_lengths", "out = jax.tree.map(lambda a, b: a + b, (1, 2, 3), (1, 2))"),
    ("while_cond_float", "out = lax.while_loop(lambda c: c, lambda c: c - 1, 3.0)"),
    ("while_cond_vector", "out = lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(2))"),
    ("vmap_out_axes_out_of_bounds", "out = jax.vmap(lambda x: x.sum(), out_axes=1)(jnp.ones((3, 3)))"),
    ("vmap_no_mapped_axis", "out = jax.vmap(lambda x: x, in_axes=None)(jnp.ones(3))"),
    ("grad_argnums_out_of_range", "out = jax.grad(lambda x: x, argnums=1)(1.0)"),
    ("slice_traced_stop", "out = jax.jit(lambda x, i: x[:i])(jnp.ones(3), 2)"),
    ("int_of_vector", "out = int(jnp.ones(3))"),
    ("float_of_matrix", "out = float(jnp.ones((2, 2)))"),
    ("inv_not_square", "out = jnp.linalg.inv(jnp.ones((2, 3)))"),
    ("array_of_str", "out = jnp.array('abc')"),
    ("grad_of_argmax", "out = jax.grad(lambda x: jnp.argmax(x))(jnp.ones(3))"),
    ("grad_of_int_cast", "out = jax.grad(lambda x: x.astype(int))(1.0)"),
    ("matmul_contracting", "out = jnp.ones((2, 3)) @ jnp.ones((4, 2))"),
    ("dot_contracting", "out = jnp.dot(jnp.ones(3), jnp.ones(4))"),
    ("matmul_contracting_jit", "out = jax.jit(lambda a, b: a @ b)(jnp.ones((2, 3)), jnp.ones((4, 2)))"),
    ("clip_a_max", "out = jnp.clip(jnp.ones(3), 0, a_max=1)"),
    ("cond_vector_pred", "out = lax.cond(jnp.arange(3) > 0, lambda: 1.0, lambda: 2.0)"),
]

# jnp, random, control flow and transformations given what JAX refuses (x3: f32[3], x23: f32[2, 3])
_JNP = {
    "sum_axis": "jnp.sum(x23, axis=3)",
    "mean_axis": "jnp.mean(x23, axis=-3)",
    "max_axis_tuple": "jnp.max(x23, axis=(0, 0))",
    "argmax_axis": "jnp.argmax(x23, axis=2)",
    "concat_axis": "jnp.concatenate([x23, x23], axis=2)",
    "concat_shapes": "jnp.concatenate([x23, x3], axis=0)",
    "stack_shapes": "jnp.stack([x3, x23])",
    "stack_axis": "jnp.stack([x3, x3], axis=3)",
    "expand_dims_axis": "jnp.expand_dims(x3, 3)",
    "squeeze_non1": "jnp.squeeze(x23, axis=0)",
    "moveaxis_bad": "jnp.moveaxis(x23, 0, 5)",
    "transpose_bad": "jnp.transpose(x23, (0, 2))",
    "swapaxes_bad": "jnp.swapaxes(x23, 0, 4)",
    "flip_axis": "jnp.flip(x3, axis=1)",
    "roll_axis": "jnp.roll(x3, 1, axis=2)",
    "cumsum_axis": "jnp.cumsum(x3, axis=1)",
    "sort_axis": "jnp.sort(x3, axis=1)",
    "split_uneven": "jnp.split(x3, 2)",
    "repeat_bad": "jnp.repeat(x3, jnp.array([1, 2]))",
    "pad_bad": "jnp.pad(x3, ((1, 1), (1, 1)))",
    "reshape_two_minus1": "jnp.reshape(x23, (-1, -1))",
    "reshape_bad": "x23.reshape(4, 2)",
    "broadcast_to_bad": "jnp.broadcast_to(x23, (3, 3))",
    "where_two_args": "jnp.where(x3 > 0, x3)",
    "einsum_bad_dims": "jnp.einsum('ij,jk->ik', x23, x23)",
    "einsum_bad_spec": "jnp.einsum('ij->k', x23)",
    "linspace_neg": "jnp.linspace(0, 1, -1)",
    "arange_zero_step": "jnp.arange(0, 10, 0)",
    "eye_neg": "jnp.eye(-1)",
    "zeros_neg": "jnp.zeros((-1,))",
    "full_shape_mismatch": "jnp.full((2, 3), jnp.ones(4))",
    "take_along_shapes": "jnp.take_along_axis(x23, jnp.zeros((3, 3), int), axis=1)",
    "take_axis": "jnp.take(x3, jnp.array([0]), axis=3)",
    "diag_3d": "jnp.diag(jnp.ones((2, 2, 2)))",
    "trace_axes": "jnp.trace(x23, axis1=0, axis2=0)",
    "matmul_scalar": "jnp.matmul(2.0, x3)",
    "vdot_shapes": "jnp.vdot(x3, x23)",
    "tensordot_bad": "jnp.tensordot(x23, x23, axes=([1], [1, 0]))",
    "cross_bad": "jnp.cross(jnp.ones(4), jnp.ones(4))",
    "interp_bad": "jnp.interp(x3, jnp.ones(2), jnp.ones(3))",
    "histogram_bins": "jnp.histogram(x3, bins=-1)",
    "astype_str": "x3.astype('float128')",
    "dtype_bad": "jnp.zeros(3, dtype='foo')",
    "unique_jit": "jax.jit(jnp.unique)(x3)",
    "nonzero_jit": "jax.jit(jnp.nonzero)(x3)",
    "boolean_mask_jit": "jax.jit(lambda x: x[x > 0])(x3)",
    "array_ragged": "jnp.array([[1, 2], [3]])",
    "at_set_shape": "x3.at[0].set(jnp.ones(2))",
    "at_bad_mode": "x3.at[0].get(mode='foo')",
    "index_too_many": "x3[0, 0]",
    "index_float_array": "x3[jnp.array([0.5])]",
    "bool_index_shape": "x3[jnp.array([True, False])]",
    "logsumexp_axis": "jsp.special.logsumexp(x3, axis=1)",
    "softmax_axis": "jax.nn.softmax(x3, axis=2)",
    "one_hot_neg": "jax.nn.one_hot(jnp.array([0, 1]), -1)",
    "random_choice_big": "jax.random.choice(jax.random.key(0), 3, (5,), replace=False)",
    "random_randint_dtype": "jax.random.randint(jax.random.key(0), (2,), 0, 10, dtype=jnp.float32)",
    "fori_float_bounds": "jax.lax.fori_loop(0.0, 3, lambda i, c: c, 0.)",
    "scan_no_length": "jax.lax.scan(lambda c, x: (c, c), 0., None)",
    "scan_xs_mismatch": "jax.lax.scan(lambda c, x: (c, x), 0., (jnp.ones(3), jnp.ones(4)))",
    "map_fn_bad": "jax.lax.map(lambda x: x, 3)",
    "switch_index_float": "jax.lax.switch(1.5, [lambda: 1., lambda: 2.])",
    "cond_no_operands_types": "jax.lax.cond(True, lambda: 1., lambda: jnp.ones(2))",
    "custom_jvp_nondiff": "jax.custom_jvp(lambda x: x, nondiff_argnums=(3,))(1.)",
    "jit_static_bad_argnum": "jax.jit(lambda x: x, static_argnums=(3,))(1.)",
    "jit_static_argname_missing": "jax.jit(lambda x: x, static_argnames=('y',))(1.)",
    "jit_donate_bad": "jax.jit(lambda x: x, donate_argnums=(2,))(1.)",
    "vmap_in_axes_len": "jax.vmap(lambda x, y: x, in_axes=(0, 0, 0))(x3, x3)",
    "grad_kwargs": "jax.grad(lambda x: x)(x=1.)",
    "jacfwd_int": "jax.jacfwd(lambda x: x)(1)",
    "hessian_int": "jax.hessian(lambda x: x)(1)",
    "device_put_bad": "jax.device_put(x3, 'cpu')",
    "tree_unflatten_bad": "jax.tree.unflatten(jax.tree.structure((1, 2)), [1])",
}
_XS = "x3 = jnp.arange(3.)\nx23 = jnp.arange(6.).reshape(2, 3)\n"
SHAPE_RULES += [(f"jnp_{name}", _XS + f"out = {code}") for name, code in _JNP.items()]

# lax functions given an axis out of range or negative, where JAX says which (x: f32[2, 3])
_AXES = {
    "reduce_sum": "lax.reduce_sum(x, (3,))",
    "reduce_sum_neg": "lax.reduce_sum(x, (-1,))",
    "reduce_max": "lax.reduce_max(x, (2,))",
    "argmax": "lax.argmax(x, 3, jnp.int32)",
    "argmin_neg": "lax.argmin(x, -1, jnp.int32)",
    "reduce": "lax.reduce(x, 0., lax.add, (3,))",
    "split": "lax.split(x, [1, 2], axis=3)",
    "split_neg": "lax.split(x, [1, 2], axis=-1)",
    "unstack": "lax.unstack(x, axis=3)",
    "slice_in_dim": "lax.slice_in_dim(x, 0, 1, axis=3)",
    "index_in_dim": "lax.index_in_dim(x, 0, axis=3)",
    "dsl_in_dim": "lax.dynamic_slice_in_dim(x, 0, 1, axis=3)",
    "dindex_in_dim": "lax.dynamic_index_in_dim(x, 0, axis=3)",
    "dus_in_dim": "lax.dynamic_update_slice_in_dim(x, x[:1], 0, axis=3)",
    "dui_in_dim": "lax.dynamic_update_index_in_dim(x, x[0], 0, axis=3)",
    "collapse": "lax.collapse(x, 1, 3)",
    "cumlogsumexp": "lax.cumlogsumexp(x, 3)",
    "stack_axis": "lax.stack([x, x], axis=4)",
    "squeeze_neg": "lax.squeeze(x[None], (-3,))",
    "sort_neg": "lax.sort(x, dimension=-1)",
    "transpose_neg": "lax.transpose(x, (-1, 0))",
    "bid_neg": "lax.broadcast_in_dim(x, (2, 3, 4), (0, -2))",
    "reduce_and": "lax.reduce_and(x > 0, (5,))",
    "reduce_prod_neg": "lax.reduce_prod(x, (-2,))",
    "expand_neg": "lax.expand_dims(x, (-1,))",
    "iota_dim": "lax.broadcasted_iota(jnp.int32, (2,), 1)",
    "dsl_neg_axis": "lax.dynamic_slice_in_dim(x, 0, 1, axis=-1)",
}
SHAPE_RULES += [
    (f"axis_{name}", "x = jnp.arange(6.).reshape(2, 3)\n" + f"out = {code}") for name, code in _AXES.items()
]
