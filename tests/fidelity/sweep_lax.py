"""The sweep's jax.lax and jax.random half: the public lax functions (elementwise, reductions,
cumulative ops, sorting, slicing, padding, windows, dot/conv, control flow with small bodies) and
the jax.random samplers, each on raw uint32 keys (``PRNGKey``) and typed keys (``key``).

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``. A sampler's case returns
``key_data`` of any typed key it produces so its value can be compared.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_programs import _f32, _pos, _prob, _unit
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_programs import _f32, _pos, _prob, _unit  # type: ignore[no-redef]

CASES: dict = {}


def _add(name, make):
    CASES[name] = make


def _lax(fn, args, **kwargs):
    def make(jax):
        f = getattr(jax.lax, fn)
        return (lambda *a: f(*a, **kwargs)), args()

    return make


def _i32(*shape, lo=0):
    return (np.arange(int(np.prod(shape)), dtype=np.int32) + lo).reshape(shape)


_F = lambda: (_f32(2, 3),)  # noqa: E731
_P = lambda: (_pos(2, 3),)  # noqa: E731
_U = lambda: (_unit(2, 3),)  # noqa: E731
_I = lambda: (_i32(2, 3, lo=-2),)  # noqa: E731
_U32 = lambda: (np.array([1, 7, 255, 0xF0F0F0F0], np.uint32),)  # noqa: E731

# --- elementwise ------------------------------------------------------------------------------
for _fn in """abs neg sign floor ceil round exp exp2 expm1 log1p tanh logistic sin cos tan sinh
cosh asinh atan erf erfc erf_inv is_finite square cbrt lgamma digamma bessel_i0e bessel_i1e
conj""".split():
    _add(f"lax.{_fn}[f32]", _lax(_fn, _U if _fn in ("erf_inv",) else _F))
for _fn in "log sqrt rsqrt reciprocal acosh".split():
    _add(f"lax.{_fn}[pos]", _lax(_fn, lambda: (_pos(2, 3) + 1,)))
for _fn in "asin acos atanh".split():
    _add(f"lax.{_fn}[unit]", _lax(_fn, _U))
_add(
    "lax.tan[accuracy]",
    lambda jax: ((lambda x: jax.lax.tan(x, accuracy=jax.lax.AccuracyMode.HIGHEST)), (_f32(2, 3),)),
)
_add(
    "grad(lax.sin[accuracy])",
    lambda jax: (
        jax.grad(lambda x: jax.lax.sin(x, accuracy=jax.lax.AccuracyMode.HIGHEST).sum()),
        (_f32(2, 3),),
    ),
)
_add("lax.round[to_even]", _lax("round", _F, rounding_method=1))
for _fn in "abs neg sign square".split():
    _add(f"lax.{_fn}[int]", _lax(_fn, _I))
for _fn in "bitwise_not population_count clz".split():
    _add(f"lax.{_fn}[int]", _lax(_fn, _I))
    _add(f"lax.{_fn}[uint32]", _lax(_fn, _U32))
for _fn in "add sub mul div max min pow atan2 rem nextafter eq ne lt le gt ge".split():
    _add(f"lax.{_fn}[f32]", _lax(_fn, lambda: (_pos(2, 3), _pos(2, 3, seed=1))))
for _fn in "add sub mul div rem max min eq lt bitwise_and bitwise_or bitwise_xor".split():
    _add(f"lax.{_fn}[int]", _lax(_fn, lambda: (_i32(2, 3, lo=-2), _i32(2, 3, lo=1))))
_add("lax.add[scalar]", _lax("add", lambda: (_f32(3), np.float32(2.0))))
_add("lax.mulhi[uint32]", _lax("mulhi", lambda: (_U32()[0], np.array([3, 0xFFFFFFFF, 9, 2], np.uint32))))
for _fn in "shift_left shift_right_logical shift_right_arithmetic".split():
    _add(f"lax.{_fn}[int]", _lax(_fn, lambda: (_i32(2, 3, lo=-2), np.full((2, 3), 2, np.int32))))
    _add(f"lax.{_fn}[uint32]", _lax(_fn, lambda: (_U32()[0], np.array([1, 4, 31, 3], np.uint32))))
for _fn in "real imag conj abs".split():
    _add(f"lax.{_fn}[c64]", _lax(_fn, lambda: (np.array([1 + 2j, -0.5j, 3], np.complex64),)))
_add("lax.complex[f32]", _lax("complex", lambda: (_f32(3), _f32(3, seed=1))))
for _n in (0, 1, 2, 3, -2, 5):
    _add(f"lax.integer_pow[{_n}]", _lax("integer_pow", _P, y=_n))
_add("lax.integer_pow[int3]", _lax("integer_pow", _I, y=3))
_add("lax.clamp[f32]", _lax("clamp", lambda: (np.float32(-0.5), _f32(2, 3), np.float32(0.5))))
_add("lax.clamp[arrays]", _lax("clamp", lambda: (-_pos(2, 3), _f32(2, 3, seed=1), _pos(2, 3, seed=2))))
_add("lax.select[f32]", _lax("select", lambda: (_f32(2, 3) > 0, _f32(2, 3, seed=1), _f32(2, 3, seed=2))))
_add(
    "lax.select_n[3]",
    _lax("select_n", lambda: (np.array([0, 1, 2], np.int32), _f32(3), _f32(3, seed=1), _f32(3, seed=2))),
)
_add("lax.igamma[f32]", _lax("igamma", lambda: (_pos(3), _pos(3, seed=1))))
_add("lax.igammac[f32]", _lax("igammac", lambda: (_pos(3), _pos(3, seed=1))))
_add("lax.polygamma[f32]", _lax("polygamma", lambda: (np.array([1.0, 2.0, 3.0], np.float32), _pos(3))))
_add("lax.zeta[f32]", _lax("zeta", lambda: (_pos(3) + 1, _pos(3, seed=1))))
_add("lax.betainc[f32]", _lax("betainc", lambda: (_pos(3), _pos(3, seed=1), _prob(3))))
_add("lax.reduce_precision[bf16]", _lax("reduce_precision", _F, exponent_bits=8, mantissa_bits=7))
_add("lax.stop_gradient[f32]", _lax("stop_gradient", _F))

# --- dtypes -----------------------------------------------------------------------------------
for _dt in ("int32", "float16", "bfloat16", "bool", "uint8", "float32"):
    _add(
        f"lax.convert_element_type[f32->{_dt}]",
        lambda jax, _dt=_dt: ((lambda x: jax.lax.convert_element_type(x, getattr(jax.numpy, _dt))), _F()),
    )
_add(
    "lax.convert_element_type[int->f32]",
    lambda jax: ((lambda x: jax.lax.convert_element_type(x, jax.numpy.float32)), _I()),
)
_add(
    "lax.convert_element_type[weak]",
    lambda jax: ((lambda x: jax.lax.convert_element_type(x * 2, jax.numpy.int32)), (1.5,)),
)
for _src, _dt, _arg in (
    ("f32", "uint32", _F),
    ("f32", "int32", _F),
    ("uint32", "float32", _U32),
    ("f32", "uint16", _F),
    ("f32", "float16", _F),
):
    _add(
        f"lax.bitcast_convert_type[{_src}->{_dt}]",
        lambda jax, _dt=_dt, _arg=_arg: (
            (lambda x: jax.lax.bitcast_convert_type(x, getattr(jax.numpy, _dt))),
            _arg(),
        ),
    )

# --- reductions and cumulative ops -----------------------------------------------------------
for _fn in "reduce_sum reduce_max reduce_min reduce_prod".split():
    _add(f"lax.{_fn}[axis1]", _lax(_fn, _F, axes=(1,)))
    _add(f"lax.{_fn}[all]", _lax(_fn, _F, axes=(0, 1)))
for _fn in "reduce_and reduce_or reduce_xor".split():
    _add(f"lax.{_fn}[bool]", _lax(_fn, lambda: (_f32(2, 3) > 0,), axes=(0,)))
    _add(f"lax.{_fn}[int]", _lax(_fn, _I, axes=(1,)))
for _fn in ("argmax", "argmin"):
    _add(
        f"lax.{_fn}[f32]",
        lambda jax, _fn=_fn: ((lambda x: getattr(jax.lax, _fn)(x, 1, jax.numpy.int32)), _F()),
    )
for _fn in "cumsum cumprod cummax cummin cumlogsumexp".split():
    _add(f"lax.{_fn}[axis0]", _lax(_fn, _F, axis=0))
    _add(f"lax.{_fn}[reverse]", _lax(_fn, _F, axis=1, reverse=True))
_add("lax.cumsum[int]", _lax("cumsum", _I, axis=1))
_add("lax.reduce[add]", lambda jax: ((lambda x: jax.lax.reduce(x, 0.0, jax.lax.add, (0,))), _F()))
_add(
    "lax.reduce[max_int]",
    lambda jax: ((lambda x: jax.lax.reduce(x, np.int32(-100), jax.lax.max, (1,))), _I()),
)
_add(
    "lax.reduce[pair]",
    lambda jax: (
        (lambda x, y: jax.lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (1,))),
        (_f32(2, 3), _pos(2, 3)),
    ),
)

# --- windows ----------------------------------------------------------------------------------
_W = lambda: (_f32(4, 5),)  # noqa: E731
_add(
    "lax.reduce_window[add]",
    lambda jax: ((lambda x: jax.lax.reduce_window(x, 0.0, jax.lax.add, (2, 2), (1, 1), "VALID")), _W()),
)
_add(
    "lax.reduce_window[max_same]",
    lambda jax: ((lambda x: jax.lax.reduce_window(x, -np.inf, jax.lax.max, (2, 3), (2, 1), "SAME")), _W()),
)
_add(
    "lax.reduce_window[min_pad]",
    lambda jax: (
        (lambda x: jax.lax.reduce_window(x, np.inf, jax.lax.min, (2, 2), (1, 2), ((1, 0), (0, 1)))),
        _W(),
    ),
)
_add(
    "lax.reduce_window[mul]",
    lambda jax: ((lambda x: jax.lax.reduce_window(x, 1.0, jax.lax.mul, (2, 1), (1, 1), "VALID")), _W()),
)
_add(
    "lax.reduce_window[dilated]",
    lambda jax: (
        (
            lambda x: jax.lax.reduce_window(
                x, 0.0, jax.lax.add, (2, 2), (1, 1), "VALID", base_dilation=(1, 1), window_dilation=(2, 1)
            )
        ),
        _W(),
    ),
)

# --- shapes, slicing, indexing -----------------------------------------------------------------
_M = lambda: (_f32(3, 4),)  # noqa: E731
_add(
    "lax.pad[f32]", _lax("pad", lambda: (_f32(2, 3), np.float32(0.0)), padding_config=((1, 0, 0), (0, 2, 1)))
)
_add(
    "lax.pad[negative]",
    _lax("pad", lambda: (_f32(3, 4), np.float32(-1.0)), padding_config=((-1, 1, 0), (1, -2, 0))),
)
_add("lax.rev[f32]", _lax("rev", _M, dimensions=(0, 1)))
_add("lax.rev[one]", _lax("rev", _M, dimensions=(1,)))
_add("lax.slice[f32]", _lax("slice", _M, start_indices=(0, 1), limit_indices=(2, 4)))
_add("lax.slice[strided]", _lax("slice", _M, start_indices=(0, 0), limit_indices=(3, 4), strides=(2, 3)))
_add("lax.slice_in_dim[f32]", _lax("slice_in_dim", _M, start_index=1, limit_index=3, axis=1))
_add("lax.index_in_dim[f32]", _lax("index_in_dim", _M, index=1, axis=0, keepdims=False))
_add(
    "lax.dynamic_slice[f32]",
    lambda jax: (
        (lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 2))),
        (_f32(3, 4), np.int32(1), np.int32(2)),
    ),
)
_add(
    "lax.dynamic_slice[clamped]",
    lambda jax: ((lambda x, i: jax.lax.dynamic_slice(x, (i, 0), (2, 3))), (_f32(3, 4), np.int32(5))),
)
_add(
    "lax.dynamic_slice_in_dim[f32]",
    lambda jax: ((lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, axis=1)), (_f32(3, 4), np.int32(1))),
)
_add(
    "lax.dynamic_index_in_dim[f32]",
    lambda jax: (
        (lambda x, i: jax.lax.dynamic_index_in_dim(x, i, axis=0, keepdims=False)),
        (_f32(3, 4), np.int32(2)),
    ),
)
_add(
    "lax.dynamic_update_slice[f32]",
    lambda jax: (
        (lambda x, u, i: jax.lax.dynamic_update_slice(x, u, (i, np.int32(1)))),
        (_f32(3, 4), _f32(2, 2, seed=1), np.int32(1)),
    ),
)
_add(
    "lax.dynamic_update_slice_in_dim[f32]",
    lambda jax: (
        (lambda x, u, i: jax.lax.dynamic_update_slice_in_dim(x, u, i, axis=0)),
        (_f32(3, 4), _f32(1, 4, seed=1), np.int32(2)),
    ),
)
_add(
    "lax.dynamic_update_index_in_dim[f32]",
    lambda jax: (
        (lambda x, u, i: jax.lax.dynamic_update_index_in_dim(x, u, i, axis=1)),
        (_f32(3, 4), _f32(3, seed=1), np.int32(0)),
    ),
)
_add(
    "lax.index_take[f32]",
    lambda jax: ((lambda x, i: jax.lax.index_take(x, (i,), (0,))), (_f32(3, 4), np.array([2, 0], np.int32))),
)
_add(
    "lax.concatenate[f32]",
    lambda jax: ((lambda a, b: jax.lax.concatenate([a, b], 1)), (_f32(2, 3), _f32(2, 1, seed=1))),
)
_add("lax.reshape[f32]", _lax("reshape", _M, new_sizes=(2, 6)))
_add("lax.reshape[dims]", _lax("reshape", _M, new_sizes=(6, 2), dimensions=(1, 0)))
_add("lax.transpose[f32]", _lax("transpose", _M, permutation=(1, 0)))
_add("lax.squeeze[f32]", _lax("squeeze", lambda: (_f32(1, 3, 1),), dimensions=(0, 2)))
_add("lax.expand_dims[f32]", _lax("expand_dims", _M, dimensions=(0, 2)))
_add("lax.broadcast[f32]", _lax("broadcast", _M, sizes=(2,)))
_add(
    "lax.broadcast_in_dim[f32]",
    _lax("broadcast_in_dim", lambda: (_f32(3),), shape=(2, 3), broadcast_dimensions=(1,)),
)
_add("lax.broadcast_to_rank[f32]", _lax("broadcast_to_rank", lambda: (_f32(3),), rank=3))
_add("lax.collapse[f32]", _lax("collapse", lambda: (_f32(2, 3, 4),), start_dimension=0, stop_dimension=2))
_add("lax.tile[f32]", _lax("tile", _M, reps=(2, 1)))
_add("lax.iota[int32]", lambda jax: ((lambda: jax.lax.iota(jax.numpy.int32, 5)), ()))
_add(
    "lax.broadcasted_iota[f32]",
    lambda jax: ((lambda: jax.lax.broadcasted_iota(jax.numpy.float32, (2, 3), 1)), ()),
)
_add("lax.full[f32]", lambda jax: ((lambda: jax.lax.full((2, 3), 1.5, jax.numpy.float32)), ()))
_add("lax.full_like[f32]", _lax("full_like", _M, fill_value=2))
_add("lax.split[f32]", _lax("split", lambda: (_f32(5, 2),), sizes=(2, 3), axis=0))
_add(
    "lax.gather[rows]",
    lambda jax: (
        (
            lambda x, i: jax.lax.gather(
                x,
                i,
                jax.lax.GatherDimensionNumbers(
                    offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
                ),
                (1, 4),
            )
        ),
        (_f32(3, 4), np.array([[2], [0]], np.int32)),
    ),
)
_add(
    "lax.scatter_add[rows]",
    lambda jax: (
        (
            lambda x, i, u: jax.lax.scatter_add(
                x,
                i,
                u,
                jax.lax.ScatterDimensionNumbers(
                    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
                ),
            )
        ),
        (_f32(3, 4), np.array([[2], [0]], np.int32), _f32(2, 4, seed=1)),
    ),
)

# --- sorting ----------------------------------------------------------------------------------
_add("lax.sort[f32]", _lax("sort", lambda: (_f32(2, 5),)))
_add("lax.sort[dim0]", _lax("sort", lambda: (_f32(3, 2),), dimension=0))
_add("lax.sort[multi]", lambda jax: ((lambda a, b: jax.lax.sort((a, b), num_keys=1)), (_f32(5), _i32(5))))
_add("lax.sort[unstable]", _lax("sort", lambda: (_f32(5),), is_stable=False))
_add("lax.sort_key_val[f32]", _lax("sort_key_val", lambda: (_f32(5), _i32(5))))
_add("lax.top_k[f32]", _lax("top_k", lambda: (_f32(2, 5),), k=3))
_add("lax.top_k[int]", _lax("top_k", lambda: (np.array([3, 1, 4, 1, 5], np.int32),), k=2))
_add("lax.approx_max_k[f32]", _lax("approx_max_k", lambda: (_f32(2, 5),), k=2))

# --- dot and conv -----------------------------------------------------------------------------
_add("lax.dot[mat]", _lax("dot", lambda: (_f32(2, 3), _f32(3, 4, seed=1))))
_add("lax.dot[vec]", _lax("dot", lambda: (_f32(3), _f32(3, seed=1))))
_add(
    "lax.dot[pref]",
    lambda jax: (
        (lambda a, b: jax.lax.dot(a, b, preferred_element_type=jax.numpy.float32)),
        (_i32(2, 3), _i32(3, 2)),
    ),
)
_add(
    "lax.dot_general[batch]",
    _lax(
        "dot_general",
        lambda: (_f32(2, 3, 4), _f32(2, 4, 5, seed=1)),
        dimension_numbers=(((2,), (1,)), ((0,), (0,))),
    ),
)
_add(
    "lax.dot_general[outer]",
    _lax("dot_general", lambda: (_f32(2), _f32(3, seed=1)), dimension_numbers=(((), ()), ((), ()))),
)
_add(
    "lax.dot_general[highest]",
    lambda jax: (
        (
            lambda a, b: jax.lax.dot_general(
                a, b, (((1,), (0,)), ((), ())), precision=jax.lax.Precision.HIGHEST
            )
        ),
        (_f32(2, 3), _f32(3, 2, seed=1)),
    ),
)
_add(
    "lax.dot[F16_F16_F16]",
    lambda jax: (
        (lambda a, b: jax.lax.dot(a, b, precision=jax.lax.DotAlgorithmPreset.F16_F16_F16)),
        (_f32(2, 3), _f32(3, 4, seed=1)),
    ),
)
_add(
    "lax.dot[F32_F32_F32_name]",
    _lax("dot", lambda: (_f32(2, 3), _f32(3, 4, seed=1)), precision="F32_F32_F32"),
)
_add(
    "lax.ragged_dot[f32]",
    _lax("ragged_dot", lambda: (_f32(5, 3), _f32(2, 3, 4, seed=1), np.array([2, 2], np.int32))),
)
_add(
    "lax.ragged_dot_general[contracting]",
    lambda jax: (
        (
            lambda a, b: jax.lax.ragged_dot_general(
                a,
                b,
                np.array([2, 3], np.int32),
                jax.lax.RaggedDotDimensionNumbers((([1], [0]), ([], [])), [1], []),
            )
        ),
        (_f32(2, 5), _f32(5, 3, seed=1)),
    ),
)
_add(
    "grad(lax.ragged_dot)",
    lambda jax: (
        jax.grad(lambda x, w: jax.lax.ragged_dot(x, w, np.array([2, 2], np.int32)).sum(), argnums=(0, 1)),
        (_f32(5, 3), _f32(2, 3, 4, seed=1)),
    ),
)
_add(
    "vmap(lax.ragged_dot)",
    lambda jax: (
        jax.vmap(jax.lax.ragged_dot),
        (_f32(2, 5, 3), _f32(2, 2, 3, 4, seed=1), np.array([[2, 2], [1, 4]], np.int32)),
    ),
)
_add(
    "lax.conv_general_dilated_local[nhwc]",
    _lax(
        "conv_general_dilated_local",
        lambda: (_f32(2, 3, 6, 5), _f32(12, 5, 4, 7, seed=1)),
        window_strides=(1, 1),
        padding="VALID",
        filter_shape=(2, 2),
        dimension_numbers=("NCHW", "IHWO", "NHWC"),
    ),
)
_add(
    "lax.scaled_dot[f32]",
    lambda jax: (
        (
            lambda a, b, sa, sb: jax.lax.scaled_dot(
                a, b, lhs_scale=sa, rhs_scale=sb, preferred_element_type=jax.numpy.float32
            )
        ),
        (_f32(3, 8), _f32(8, 2, seed=1), _pos(3, 2), _pos(2, 2, seed=1)),
    ),
)
_add(
    "pmap(lax.pswapaxes)",
    lambda jax: (jax.pmap(lambda v: jax.lax.pswapaxes(v, "i", 0), axis_name="i"), (_f32(4, 4, 3),)),
)
_add(
    "pmap(lax.all_to_all[tiled])",
    lambda jax: (
        jax.pmap(lambda v: jax.lax.all_to_all(v, "i", 0, 1, tiled=True), axis_name="i"),
        (_f32(4, 4, 3),),
    ),
)
_add(
    "pmap(lax.all_to_all[untiled])",
    lambda jax: (jax.pmap(lambda v: jax.lax.all_to_all(v, "i", 0, 1), axis_name="i"), (_f32(4, 4, 3),)),
)
_add("lax.batch_matmul[f32]", _lax("batch_matmul", lambda: (_f32(2, 3, 4), _f32(2, 4, 2, seed=1))))
_CX, _CW = lambda: _f32(1, 2, 6, 6), lambda: _f32(3, 2, 3, 3, seed=1)  # noqa: E731
_add("lax.conv[valid]", _lax("conv", lambda: (_CX(), _CW()), window_strides=(1, 1), padding="VALID"))
_add("lax.conv[same_strided]", _lax("conv", lambda: (_CX(), _CW()), window_strides=(2, 2), padding="SAME"))
_add(
    "lax.conv_general_dilated[nhwc]",
    _lax(
        "conv_general_dilated",
        lambda: (_f32(1, 6, 6, 2), _f32(3, 3, 2, 4, seed=1)),
        window_strides=(1, 1),
        padding=((1, 1), (0, 0)),
        rhs_dilation=(2, 1),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    ),
)
_add(
    "lax.conv_general_dilated[groups]",
    _lax(
        "conv_general_dilated",
        lambda: (_f32(1, 4, 5, 5), _f32(4, 2, 2, 2, seed=1)),
        window_strides=(1, 1),
        padding="VALID",
        feature_group_count=2,
    ),
)
_add(
    "lax.conv_general_dilated[1d_lhs_dilation]",
    _lax(
        "conv_general_dilated",
        lambda: (_f32(2, 1, 5), _f32(2, 1, 3, seed=1)),
        window_strides=(1,),
        padding=((1, 1),),
        lhs_dilation=(2,),
    ),
)
_add(
    "lax.conv_with_general_padding[f32]",
    _lax(
        "conv_with_general_padding",
        lambda: (_CX(), _CW()),
        window_strides=(1, 1),
        padding=((1, 0), (0, 1)),
        lhs_dilation=None,
        rhs_dilation=None,
    ),
)
_add(
    "lax.conv_transpose[f32]",
    _lax(
        "conv_transpose",
        lambda: (_f32(1, 4, 4, 2), _f32(3, 3, 2, 3, seed=1)),
        strides=(2, 2),
        padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    ),
)
_add(
    "lax.conv_general_dilated_patches[f32]",
    _lax(
        "conv_general_dilated_patches",
        lambda: (_f32(1, 2, 4, 4),),
        filter_shape=(2, 2),
        window_strides=(1, 1),
        padding="VALID",
    ),
)


# --- control flow with small bodies -----------------------------------------------------------
def _ctl(name):
    def register(build):
        CASES[f"lax.{name}"] = build
        return build

    return register


@_ctl("cond[two]")
def _(jax):
    return (lambda p, x: jax.lax.cond(p, jax.numpy.sin, jax.numpy.cos, x)), (np.bool_(True), _f32(3))


@_ctl("cond[int_pred]")
def _(jax):
    return (lambda p, x: jax.lax.cond(p, lambda v: v + 1.0, lambda v: v * 2.0, x)), (np.int32(0), _f32(3))


@_ctl("cond[operands]")
def _(jax):
    f = lambda p, x, y: jax.lax.cond(p, lambda a, b: (a * b, a), lambda a, b: (a - b, b), x, y)  # noqa: E731
    return f, (np.bool_(False), _f32(3), _f32(3, seed=1))


@_ctl("switch[three]")
def _(jax):
    branches = [lambda v: v + 1.0, lambda v: v * v, jax.numpy.sin]
    return (lambda i, x: jax.lax.switch(i, branches, x)), (np.int32(1), _f32(3))


@_ctl("switch[clamped]")
def _(jax):
    branches = [lambda v: -v, jax.numpy.exp]
    return (lambda i, x: jax.lax.switch(i, branches, x)), (np.int32(7), np.float32(0.5))


@_ctl("fori_loop[static]")
def _(jax):
    return (lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x)), (_f32(3),)


@_ctl("fori_loop[dynamic]")
def _(jax):
    return (lambda n, x: jax.lax.fori_loop(0, n, lambda i, c: c + 1.0, x)), (np.int32(4), _f32(3))


@_ctl("fori_loop[unroll]")
def _(jax):
    return (lambda x: jax.lax.fori_loop(1, 5, lambda i, c: c * i, x, unroll=2)), (_f32(3),)


@_ctl("while_loop[count]")
def _(jax):
    return (lambda x: jax.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 1.5), (0, x))), (
        _f32(3),
    )


@_ctl("scan[cumsum]")
def _(jax):
    return (lambda xs: jax.lax.scan(lambda c, x: (c + x, c), 0.0, xs)), (_f32(4),)


@_ctl("scan[length_none_xs]")
def _(jax):
    return (lambda c: jax.lax.scan(lambda c, _: (c * 2.0, c), c, None, length=3)), (_f32(2),)


@_ctl("scan[reverse_unroll]")
def _(jax):
    f = lambda c, xs: jax.lax.scan(lambda c, x: (c * x, c + x), c, xs, reverse=True, unroll=2)  # noqa: E731
    return f, (np.float32(1.0), _f32(4))


@_ctl("scan[pytree]")
def _(jax):
    def step(c, x):
        return {"a": c["a"] + x["u"], "b": c["b"] * 2}, x["u"] - c["a"]

    init = {"a": np.float32(0.0), "b": np.int32(1)}
    return (lambda c, xs: jax.lax.scan(step, c, xs)), (init, {"u": _f32(3)})


@_ctl("map[f32]")
def _(jax):
    return (lambda xs: jax.lax.map(lambda r: jax.numpy.sum(r * r), xs)), (_f32(3, 2),)


@_ctl("map[batch_size]")
def _(jax):
    return (lambda xs: jax.lax.map(lambda r: r * 2.0, xs, batch_size=2)), (_f32(4, 2),)


@_ctl("associative_scan[add]")
def _(jax):
    return (lambda x: jax.lax.associative_scan(jax.lax.add, x)), (_f32(5),)


@_ctl("associative_scan[mul_reverse_axis1]")
def _(jax):
    return (lambda x: jax.lax.associative_scan(jax.lax.mul, x, reverse=True, axis=1)), (_f32(2, 4),)


@_ctl("associative_scan[max]")
def _(jax):
    return (lambda x: jax.lax.associative_scan(jax.lax.max, x)), (_f32(8),)


@_ctl("custom_root[sqrt]")
def _(jax):
    def f(y):
        def solve(g, y0):
            return jax.lax.fori_loop(0, 5, lambda i, x: x - g(x) / (2 * x), y0)

        return jax.lax.custom_root(lambda x: x * x - y, 1.0, solve, lambda g, v: v / 2.0)

    return f, (np.float32(2.0),)


@_ctl("custom_linear_solve[diag]")
def _(jax):
    def f(b):
        return jax.lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, v: v / 2.0, symmetric=True)

    return f, (_f32(3),)


# --- jax.random -------------------------------------------------------------------------------
def _key(jax, typed):
    return jax.random.key(0) if typed else jax.random.PRNGKey(0)


def _raw(jax, out):
    """``key_data`` of typed keys among ``out``'s leaves (their values compare as uint32)."""
    tu = jax.tree_util
    return tu.tree_map(
        lambda v: jax.random.key_data(v) if jax.dtypes.issubdtype(v.dtype, jax.dtypes.prng_key) else v, out
    )


def _rnd(name, sample, args=lambda: ()):
    """``random.NAME[raw]`` and ``random.NAME[typed]``: ``sample(jax, key, *args)`` on a key made
    inside the traced function from a seed argument."""
    for typed in (False, True):

        def make(jax, typed=typed):
            def f(seed, *a):
                k = jax.random.key(seed) if typed else jax.random.PRNGKey(seed)
                return _raw(jax, sample(jax, k, *a))

            return f, (np.int32(0), *args())

        CASES[f"random.{name}[{'typed' if typed else 'raw'}]"] = make


def _rnd_key_arg(name, sample, args=lambda: ()):
    """As ``_rnd`` but the key is an argument of the traced function."""
    for typed in (False, True):

        def make(jax, typed=typed):
            return (lambda k, *a: _raw(jax, sample(jax, k, *a))), (_key(jax, typed), *args())

        CASES[f"random.{name}[{'typed' if typed else 'raw'}_arg]"] = make


_rnd("key", lambda jax, k: k)
_rnd("split", lambda jax, k: jax.random.split(k))
_rnd("split_3", lambda jax, k: jax.random.split(k, 3))
_rnd("fold_in", lambda jax, k: jax.random.fold_in(k, 7))
_rnd("bits", lambda jax, k: jax.random.bits(k, (3,)))
_rnd("bits_u8", lambda jax, k: jax.random.bits(k, (5,), jax.numpy.uint8))
_rnd("uniform", lambda jax, k: jax.random.uniform(k, (3,)))
_rnd("uniform_range", lambda jax, k: jax.random.uniform(k, (2, 2), minval=-1.0, maxval=3.0))
_rnd("uniform_f16", lambda jax, k: jax.random.uniform(k, (3,), jax.numpy.float16))
_rnd("normal", lambda jax, k: jax.random.normal(k, (3,)))
_rnd("bernoulli", lambda jax, k: jax.random.bernoulli(k, 0.3, (4,)))
_rnd("categorical", lambda jax, k, lg: jax.random.categorical(k, lg), lambda: (_f32(2, 4),))
_rnd("randint", lambda jax, k: jax.random.randint(k, (4,), 0, 10))
_rnd("randint_neg", lambda jax, k: jax.random.randint(k, (3,), -5, 5))
_rnd("permutation_int", lambda jax, k: jax.random.permutation(k, 5))
_rnd("permutation_array", lambda jax, k, x: jax.random.permutation(k, x), lambda: (_f32(4),))
_rnd(
    "permutation_independent",
    lambda jax, k, x: jax.random.permutation(k, x, axis=1, independent=True),
    lambda: (_f32(2, 3),),
)
_rnd("choice", lambda jax, k: jax.random.choice(k, 5, (3,)))
_rnd("choice_no_replace", lambda jax, k, x: jax.random.choice(k, x, (2,), replace=False), lambda: (_f32(4),))
_rnd(
    "choice_p",
    lambda jax, k, p: jax.random.choice(k, 3, (4,), p=p),
    lambda: (np.array([0.2, 0.5, 0.3], np.float32),),
)
_rnd("gamma", lambda jax, k: jax.random.gamma(k, 2.0, (3,)))
_rnd("loggamma", lambda jax, k: jax.random.loggamma(k, 0.5, (2,)))
_rnd("beta", lambda jax, k: jax.random.beta(k, 2.0, 3.0, (3,)))
_rnd("dirichlet", lambda jax, k, a: jax.random.dirichlet(k, a), lambda: (_pos(3),))
_rnd("truncated_normal", lambda jax, k: jax.random.truncated_normal(k, -1.0, 2.0, (3,)))
_rnd("exponential", lambda jax, k: jax.random.exponential(k, (3,)))
_rnd("laplace", lambda jax, k: jax.random.laplace(k, (3,)))
_rnd("logistic", lambda jax, k: jax.random.logistic(k, (3,)))
_rnd("gumbel", lambda jax, k: jax.random.gumbel(k, (3,)))
_rnd("cauchy", lambda jax, k: jax.random.cauchy(k, (3,)))
_rnd("rademacher", lambda jax, k: jax.random.rademacher(k, (4,)))
_rnd("poisson", lambda jax, k: jax.random.poisson(k, 3.0, (3,)))
_rnd("binomial", lambda jax, k: jax.random.binomial(k, 5.0, 0.3, (3,)))
_rnd("geometric", lambda jax, k: jax.random.geometric(k, 0.4, (3,)))
_rnd("chisquare", lambda jax, k: jax.random.chisquare(k, 3.0, (2,)))
_rnd("t", lambda jax, k: jax.random.t(k, 3.0, (2,)))
_rnd("pareto", lambda jax, k: jax.random.pareto(k, 2.0, (3,)))
_rnd("weibull_min", lambda jax, k: jax.random.weibull_min(k, 1.0, 2.0, (3,)))
_rnd("lognormal", lambda jax, k: jax.random.lognormal(k, 0.5, (3,)))
_rnd("maxwell", lambda jax, k: jax.random.maxwell(k, (3,)))
_rnd("rayleigh", lambda jax, k: jax.random.rayleigh(k, 1.0, (3,)))
_rnd("wald", lambda jax, k: jax.random.wald(k, 1.0, (3,)))
_rnd("triangular", lambda jax, k: jax.random.triangular(k, 0.0, 0.5, 1.0, (3,)))
_rnd("generalized_normal", lambda jax, k: jax.random.generalized_normal(k, 1.5, (3,)))
_rnd("double_sided_maxwell", lambda jax, k: jax.random.double_sided_maxwell(k, 0.0, 1.0, (3,)))
_rnd("ball", lambda jax, k: jax.random.ball(k, 2, shape=(2,)))
_rnd("orthogonal", lambda jax, k: jax.random.orthogonal(k, 3))
_rnd(
    "multivariate_normal",
    lambda jax, k: jax.random.multivariate_normal(
        k, np.zeros(2, np.float32), np.eye(2, dtype=np.float32), (3,)
    ),
)
_rnd(
    "multinomial",
    lambda jax, k, p: jax.random.multinomial(k, 5.0, p),
    lambda: (np.array([0.2, 0.3, 0.5], np.float32),),
)
_rnd("f", lambda jax, k: jax.random.f(k, 3.0, 4.0, (2,)))
_rnd_key_arg("split", lambda jax, k: jax.random.split(k))
_rnd_key_arg("fold_in", lambda jax, k, d: jax.random.fold_in(k, d), lambda: (np.uint32(3),))
_rnd_key_arg("uniform", lambda jax, k: jax.random.uniform(k, (3,)))
_rnd_key_arg("normal", lambda jax, k: jax.random.normal(k, (2,)))
_rnd_key_arg("key_data", lambda jax, k: jax.random.key_data(k))
_add(
    "random.wrap_key_data[f32]",
    lambda jax: (
        (lambda d: jax.random.key_data(jax.random.split(jax.random.wrap_key_data(d)))),
        (np.array([0, 42], np.uint32),),
    ),
)
_add(
    "random.vmap_split[raw]",
    lambda jax: ((jax.vmap(lambda k: jax.random.split(k))), (np.array([[0, 1], [2, 3]], np.uint32),)),
)
_add(
    "random.vmap_normal[raw]",
    lambda jax: ((jax.vmap(lambda k: jax.random.normal(k, (2,)))), (np.array([[0, 1], [2, 3]], np.uint32),)),
)
