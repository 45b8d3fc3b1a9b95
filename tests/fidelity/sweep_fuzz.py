"""The sweep's differential-fuzz cases: the corners the other sweep modules cross thinly, where an
engine is most likely to be silently wrong. Dtype promotion across the narrow and unusual dtypes
(int8 ... complex64, bfloat16, bool) with Python scalars; integer division, remainder, power and
shifts at negative operands, zero divisors and overflow; nan / inf through min / max / argmax /
sort / cumsum / clip / round; empty and zero-size arrays through reductions and indexing; negative
strides, None / Ellipsis / boolean-mask indexing and ``.at[]`` updates with repeated indices and
modes; reductions with ``where=`` / ``initial=``; out-of-range axes; grads at kinks (abs, maximum
at ties, relu, sqrt at 0, ``where`` with a nan branch).

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``; ``call(jax, *args)`` here.
"""

from __future__ import annotations

import itertools

import numpy as np

CASES: dict = {}


def _add(name, call, *args):
    def make(jax):
        return (lambda *a: call(jax, *a)), args

    CASES[f"fuzz.{name}"] = make


def _arr(values, dtype):
    """A numpy array of ``dtype`` (bfloat16 by name, so JAX's and the engine's both resolve)."""

    def build(jax):
        return jax.numpy.asarray(np.asarray(values), dtype=dtype)

    return build


def _add_built(name, call, *builders):
    """A case whose arguments are made with the running framework (bfloat16 arrays)."""

    def make(jax):
        return (lambda *a: call(jax, *a)), tuple(b(jax) for b in builders)

    CASES[f"fuzz.{name}"] = make


NAN, INF = float("nan"), float("inf")

# --- dtype promotion: every pair of the narrow / unusual dtypes, and each with Python scalars ----
DTYPES = "bool int8 uint8 int16 uint32 int64 float16 bfloat16 complex64".split()
_SAMPLE = {"bool": [True, False], "complex64": [1 + 2j, -3j]}
SCALARS = {"int": 3, "float": 2.5, "complex": 1j, "bool": True, "negint": -2}


def _sample(dt):
    return _arr(_SAMPLE.get(dt, [1, 2]), dt)


for _a, _b in itertools.combinations_with_replacement(DTYPES, 2):
    _add_built(f"promote[{_a}+{_b}]", lambda jax, x, y: x + y, _sample(_a), _sample(_b))
for _a in DTYPES:
    for _s, _v in SCALARS.items():
        _add_built(f"promote[{_a}*{_s}]", lambda jax, x, v=_v: x * v, _sample(_a))
        _add_built(f"promote[{_s}-{_a}]", lambda jax, x, v=_v: v - x, _sample(_a))
for _a in ("int8", "uint8", "float16", "bfloat16"):
    _add_built(f"promote[{_a}_where_scalar]", lambda jax, x: jax.numpy.where(x > 1, x, 0.5), _sample(_a))
    _add_built(f"promote[{_a}_maximum_int]", lambda jax, x: jax.numpy.maximum(x, 300), _sample(_a))
    _add_built(f"promote[{_a}_true_divide]", lambda jax, x: x / 2, _sample(_a))
    _add_built(f"promote[{_a}_power_float]", lambda jax, x: x**0.5, _sample(_a))
    _add_built(f"promote[{_a}_mean]", lambda jax, x: x.mean(), _sample(_a))
    _add_built(f"promote[{_a}_sum]", lambda jax, x: x.sum(), _sample(_a))
    _add_built(f"promote[{_a}_cumsum]", lambda jax, x: jax.numpy.cumsum(x), _sample(_a))
_add("promote[weak_scalars]", lambda jax, a, b: a * b + 1, 2.0, 3)
_add("promote[weak_int_float]", lambda jax, a: jax.numpy.asarray(a) + 1.5, 2)
_add("promote[weak_bool_int]", lambda jax, a: a + True, 2)
_add("promote[uint8_overflow_literal]", lambda jax, x: x + 255, np.array([1, 2], np.uint8))
_add("promote[int8_neg_literal]", lambda jax, x: x * -1, np.array([-128, 5], np.int8))
_add("promote[uint32_int32]", lambda jax, x, y: x + y, np.array([1], np.uint32), np.array([-1], np.int32))
_add("promote[bool_sum]", lambda jax, x: jax.numpy.sum(x), np.array([True, True, False]))
_add("promote[bool_mul]", lambda jax, x: x * x, np.array([True, False]))
_add("promote[bool_sub]", lambda jax, x: x - x, np.array([True, False]))
_add("promote[bool_neg]", lambda jax, x: -x, np.array([True, False]))
_add("promote[c64_float_literal]", lambda jax, x: x * 2.5, np.array([1 + 1j], np.complex64))
_add("promote[int_pow_neg_float]", lambda jax, x: x**-1.0, np.array([2, 4], np.int32))

# --- integer division, remainder, power and shifts ----------------------------------------------
_I = np.array([7, -7, 7, -7, 0, 5], np.int32)
_D = np.array([2, 2, -2, -2, 3, 0], np.int32)
for _fn in "floor_divide remainder mod fmod divmod true_divide".split():
    _add(f"intdiv[{_fn}]", lambda jax, x, y, f=_fn: getattr(jax.numpy, f)(x, y), _I, _D)
for _fn in ("div", "rem"):
    _add(f"intdiv[lax.{_fn}]", lambda jax, x, y, f=_fn: getattr(jax.lax, f)(x, y), _I, _D)
_add("intdiv[int8_min_by_neg1]", lambda jax, x: x // np.int8(-1), np.array([-128, 4], np.int8))
_add("intdiv[int8_min_rem_neg1]", lambda jax, x: x % np.int8(-1), np.array([-128, 4], np.int8))
_add(
    "intdiv[uint8_floor_divide]",
    lambda jax, x, y: x // y,
    np.array([200, 7], np.uint8),
    np.array([3, 0], np.uint8),
)
_add("intdiv[uint8_mod]", lambda jax, x, y: x % y, np.array([200, 7], np.uint8), np.array([3, 0], np.uint8))
_add(
    "intdiv[float_floor_divide]",
    lambda jax, x, y: x // y,
    np.array([7.0, -7.0, 1.0, -1.0], np.float32),
    np.array([2.0, 2.0, 0.0, 0.0], np.float32),
)
_add(
    "intdiv[float_mod_signs]",
    lambda jax, x, y: x % y,
    np.array([7.0, -7.0, 7.0, -0.0], np.float32),
    np.array([-2.0, 2.0, INF, 3.0], np.float32),
)
_add("intdiv[scalar_floordiv]", lambda jax, x: x // 2, np.array([-3, 3], np.int32))
_add("intdiv[rfloordiv]", lambda jax, x: 7 // x, np.array([-3, 3], np.int32))
_add("intdiv[rmod]", lambda jax, x: -7 % x, np.array([-3, 3], np.int32))
_P = np.array([2, -2, 0, 3], np.int32)
_add("intpow[int_int]", lambda jax, x, y: jax.numpy.power(x, y), _P, np.array([3, 2, 0, 1], np.int32))
_add("intpow[int_neg_exp]", lambda jax, x, y: jax.numpy.power(x, y), _P, np.array([-1, -1, -1, -2], np.int32))
_add("intpow[int_literal_neg]", lambda jax, x: x**-1, _P)
_add("intpow[int_literal]", lambda jax, x: x**3, np.array([2, -2, 1000], np.int32))
_add("intpow[uint8_overflow]", lambda jax, x: x**2, np.array([16, 3], np.uint8))
_add(
    "intpow[lax_integer_pow_neg]", lambda jax, x: jax.lax.integer_pow(x, -2), np.array([2.0, 0.0], np.float32)
)
_add(
    "intpow[zero_pow_zero]",
    lambda jax, x, y: x**y,
    np.array([0.0, 0.0], np.float32),
    np.array([0.0, -1.0], np.float32),
)
_add("intpow[neg_pow_frac]", lambda jax, x: x**0.5, np.array([-4.0, 4.0], np.float32))
_add("intpow[float_power_int]", lambda jax, x: jax.numpy.float_power(x, 2), np.array([3, -3], np.int32))
_S = np.array([1, -8, 255, 1], np.int32)
_add("shift[left_big]", lambda jax, x, s: jax.numpy.left_shift(x, s), _S, np.array([31, 1, 32, 40], np.int32))
_add("shift[right_neg]", lambda jax, x, s: jax.numpy.right_shift(x, s), _S, np.array([1, 1, 32, 0], np.int32))
_add(
    "shift[right_neg_amount]",
    lambda jax, x, s: jax.numpy.right_shift(x, s),
    _S,
    np.array([-1, -1, 2, 0], np.int32),
)
_add("shift[uint8_left]", lambda jax, x: jax.numpy.left_shift(x, 4), np.array([255, 16], np.uint8))
_add("shift[uint8_right_8]", lambda jax, x: x >> 8, np.array([255, 16], np.uint8))
_add("shift[int8_right]", lambda jax, x: x >> 9, np.array([-128, 16], np.int8))
_add("shift[lax_logical]", lambda jax, x: jax.lax.shift_right_logical(x, np.int32(1)), _S)
_add("shift[lax_arith_oob]", lambda jax, x: jax.lax.shift_right_arithmetic(x, np.int32(33)), _S)
_add("shift[lax_left_oob]", lambda jax, x: jax.lax.shift_left(x, np.int32(32)), _S)
_add("int[abs_min]", lambda jax, x: jax.numpy.abs(x), np.array([-128, -3], np.int8))
_add("int[neg_min]", lambda jax, x: -x, np.array([-128, -3], np.int8))
_add("int[sign]", lambda jax, x: jax.numpy.sign(x), np.array([-5, 0, 7], np.int16))
_add("int[uint_sign]", lambda jax, x: jax.numpy.sign(x), np.array([0, 7], np.uint32))
_add("int[uint8_sub_wrap]", lambda jax, x: x - np.uint8(5), np.array([3, 9], np.uint8))
_add("int[invert_bool]", lambda jax, x: ~x, np.array([True, False]))
_add("int[invert_uint8]", lambda jax, x: ~x, np.array([0, 200], np.uint8))
_add(
    "int[gcd_neg]",
    lambda jax, x, y: jax.numpy.gcd(x, y),
    np.array([-12, 0, 7], np.int32),
    np.array([18, 0, -21], np.int32),
)
_add(
    "int[lcm_neg]",
    lambda jax, x, y: jax.numpy.lcm(x, y),
    np.array([-4, 0, 6], np.int32),
    np.array([6, 5, -4], np.int32),
)
_add(
    "int[float_to_int_nan]",
    lambda jax, x: x.astype(np.int32),
    np.array([NAN, INF, -INF, 2.7, -2.7], np.float32),
)
_add("int[float_to_uint8_neg]", lambda jax, x: x.astype(np.uint8), np.array([-1.0, 300.0, 2.5], np.float32))
_add("int[int_to_bool]", lambda jax, x: x.astype(bool), np.array([0, -1, 2], np.int32))
_add("int[float_to_bool_nan]", lambda jax, x: x.astype(bool), np.array([0.0, NAN, -0.0], np.float32))

# --- nan / inf through min / max / argmax / sort / cumsum / clip / round ---------------------------
_N = np.array([1.0, NAN, -INF, INF, -0.0, 0.0, 2.0], np.float32)
for (
    _fn
) in "max min argmax argmin nanmax nanmin nanargmax nanargmin sort argsort cumsum cumprod ptp median".split():
    _add(f"nan[{_fn}]", lambda jax, x, f=_fn: getattr(jax.numpy, f)(x), _N)
_add("nan[maximum]", lambda jax, x: jax.numpy.maximum(x, 1.0), _N)
_add("nan[minimum_pair]", lambda jax, x: jax.numpy.minimum(x, x[::-1]), _N)
_add("nan[fmax]", lambda jax, x: jax.numpy.fmax(x, x[::-1]), _N)
_add("nan[clip]", lambda jax, x: jax.numpy.clip(x, -1.0, 1.5), _N)
_add("nan[clip_nan_bound]", lambda jax, x: jax.numpy.clip(x, NAN, 1.5), _N)
_add("nan[clip_inverted]", lambda jax, x: jax.numpy.clip(x, 2.0, 1.0), _N)
_add("nan[clip_int_float_bound]", lambda jax, x: jax.numpy.clip(x, 1.5, 3.5), np.array([0, 2, 5], np.int32))
_add("nan[round]", lambda jax, x: jax.numpy.round(x), np.array([0.5, 1.5, 2.5, -0.5, -2.5, NAN], np.float32))
_add(
    "nan[round_decimals]",
    lambda jax, x: jax.numpy.round(x, 1),
    np.array([0.25, 0.35, -1.45, INF], np.float32),
)
_add(
    "nan[round_int_neg_decimals]",
    lambda jax, x: jax.numpy.round(x, -1),
    np.array([15, 25, -15, 14], np.int32),
)
_add("nan[lax_round_away]", lambda jax, x: jax.lax.round(x), np.array([0.5, 1.5, 2.5, -0.5], np.float32))
_add("nan[floor_ceil_inf]", lambda jax, x: (jax.numpy.floor(x), jax.numpy.ceil(x), jax.numpy.trunc(x)), _N)
_add("nan[sort_desc]", lambda jax, x: jax.numpy.sort(x, descending=True), _N)
_add("nan[argsort_desc]", lambda jax, x: jax.numpy.argsort(x, descending=True), _N)
_add("nan[unique]", lambda jax, x: jax.numpy.unique(x), np.array([NAN, 1.0, NAN, 1.0], np.float32))
_add("nan[sign]", lambda jax, x: jax.numpy.sign(x), _N)
_add("nan[cummax]", lambda jax, x: jax.lax.cummax(x), _N)
_add("nan[nancumsum]", lambda jax, x: jax.numpy.nancumsum(x), _N)
_add("nan[max_axis_complex]", lambda jax, x: jax.numpy.max(x), np.array([1 + 2j, 1 + 3j, -5j], np.complex64))
_add("nan[argmax_bool]", lambda jax, x: jax.numpy.argmax(x), np.array([False, True, True]))
_add(
    "nan[sort_complex_nan]",
    lambda jax, x: jax.numpy.sort(x),
    np.array([1 + NAN * 1j, 1 + 0j, -1j], np.complex64),
)
_add(
    "nan[searchsorted_nan]",
    lambda jax, x: jax.numpy.searchsorted(x, np.float32(NAN)),
    np.array([1.0, 2.0, NAN], np.float32),
)
_add("nan[isclose_inf]", lambda jax, x: jax.numpy.isclose(x, x), _N)
_add("nan[allclose_nan]", lambda jax, x: jax.numpy.allclose(x, x, equal_nan=True), _N)
_add("nan[logaddexp_inf]", lambda jax, x: jax.numpy.logaddexp(x, x), _N)
_add("nan[nan_to_num]", lambda jax, x: jax.numpy.nan_to_num(x, nan=1.0, posinf=9.0), _N)
_add(
    "nan[int_argmax_ties]",
    lambda jax, x: (jax.numpy.argmax(x), jax.numpy.argmin(x)),
    np.array([3, 1, 3, 1], np.int32),
)

# --- empty and zero-size arrays -------------------------------------------------------------------
_E = np.zeros((0, 3), np.float32)
for _fn in "sum prod mean var max min argmax any all cumsum sort nansum nanmax median count_nonzero".split():
    _add(f"empty[{_fn}]", lambda jax, x, f=_fn: getattr(jax.numpy, f)(x), _E)
    _add(f"empty[{_fn}_axis0]", lambda jax, x, f=_fn: getattr(jax.numpy, f)(x, axis=0), _E)
_add("empty[max_initial]", lambda jax, x: jax.numpy.max(x, initial=-1.0), _E)
_add("empty[argmax_axis1]", lambda jax, x: jax.numpy.argmax(x, axis=1), _E)
_add("empty[int_sum]", lambda jax, x: jax.numpy.sum(x), np.zeros((0,), np.int8))
_add("empty[int_mean]", lambda jax, x: jax.numpy.mean(x), np.zeros((0,), np.int32))
_add("empty[slice]", lambda jax, x: x[2:1], np.arange(4, dtype=np.float32))
_add("empty[index_list]", lambda jax, x: x[np.array([], np.int32)], np.arange(4, dtype=np.float32))
_add("empty[mask_none]", lambda jax, x: x[np.zeros(4, bool)], np.arange(4, dtype=np.float32))
_add("empty[reshape]", lambda jax, x: x.reshape(3, 0, -1), _E)
_add("empty[concat]", lambda jax, x, y: jax.numpy.concatenate([x, y]), _E, np.ones((1, 3), np.float32))
_add("empty[matmul]", lambda jax, x: x.T @ x, _E)
_add("empty[at_add]", lambda jax, x: x.at[np.array([], np.int32)].add(1.0), np.arange(3, dtype=np.float32))
_add("empty[take_from_empty]", lambda jax, x: jax.numpy.take(x, np.array([0]), axis=0, mode="fill"), _E)
_add("empty[index_empty]", lambda jax, x: x[0], _E)
_add("empty[linspace0]", lambda jax: jax.numpy.linspace(0.0, 1.0, 0))
_add("empty[arange_neg]", lambda jax: jax.numpy.arange(3, 1))
_add("empty[repeat0]", lambda jax, x: jax.numpy.repeat(x, 0), np.arange(3, dtype=np.float32))

# --- indexing: negative strides, None / Ellipsis / masks, .at[] modes ---------------------------
_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
_V = np.arange(5, dtype=np.float32)
_add("index[neg_step]", lambda jax, x: x[::-1, ::-2, 3:0:-2], _X)
_add("index[neg_step_oob]", lambda jax, x: x[10:-10:-3], _V)
_add("index[neg_start_stop]", lambda jax, x: x[-2:-5:-1], _V)
_add("index[none_ellipsis]", lambda jax, x: x[None, ..., None, 1], _X)
_add("index[ellipsis_mid]", lambda jax, x: x[0, ..., ::2], _X)
_add("index[two_ellipsis]", lambda jax, x: x[..., 0, ...], _X)
_add("index[bool_mask_numpy]", lambda jax, x: x[np.array([True, False, True, True, False])], _V)
_add("index[bool_mask_2d]", lambda jax, x: x[np.array([[True, False, True], [False, False, True]])], _X)
_add("index[bool_mask_traced]", lambda jax, x: x[x > 2], _V)
_add("index[bool_scalar]", lambda jax, x: x[True], _V)
_add("index[bool_wrong_len]", lambda jax, x: x[np.array([True, False])], _V)
_add("index[int_oob]", lambda jax, x: x[7], _V)
_add("index[int_neg_oob]", lambda jax, x: x[-7], _V)
_add("index[array_oob_clamp]", lambda jax, x: x[np.array([7, -7, -1])], _V)
_add("index[advanced_split]", lambda jax, x: x[np.array([0, 1]), :, np.array([1, 2])], _X)
_add("index[advanced_bcast]", lambda jax, x: x[np.array([[0], [1]]), np.array([0, 2])], _X)
_add("index[float_index]", lambda jax, x: x[1.0], _V)
_add("index[too_many]", lambda jax, x: x[0, 0], _V)
_add("index[list_index]", lambda jax, x: x[[0, 2]], _V)
_add("index[scalar_array_index]", lambda jax, x: x[np.int32(3)], _V)
_add("index[uint8_index]", lambda jax, x: x[np.array([4, 1], np.uint8)], _V)
_add("index[get_fill]", lambda jax, x: x.at[np.array([1, 9, -1])].get(mode="fill", fill_value=-5.0), _V)
_add("index[get_fill_default]", lambda jax, x: x.at[np.array([1, 9, -9])].get(mode="fill"), _V)
_add(
    "index[get_fill_int]",
    lambda jax, x: x.at[np.array([1, 9])].get(mode="fill"),
    np.arange(4, dtype=np.int32),
)
_add("index[get_clip]", lambda jax, x: x.at[np.array([1, 9, -9])].get(mode="clip"), _V)
_add("index[dynamic_slice_clamp]", lambda jax, x: jax.lax.dynamic_slice(x, (np.int32(4),), (3,)), _V)
_REP = np.array([1, 1, 3, 1], np.int32)
for _op in ("set", "add", "multiply", "min", "max"):
    _add(
        f"at[{_op}_repeated]",
        lambda jax, x, v, o=_op: getattr(x.at[_REP], o)(v),
        _V,
        np.array([5.0, -1.0, 2.0, 7.0], np.float32),
    )
for _mode in ("drop", "clip", "promise_in_bounds"):
    _add(f"at[add_oob_{_mode}]", lambda jax, x, m=_mode: x.at[np.array([0, 6, -1, -6])].add(10.0, mode=m), _V)
    _add(f"at[set_oob_{_mode}]", lambda jax, x, m=_mode: x.at[np.array([0, 6, -6])].set(9.0, mode=m), _V)
_add("at[set_default_oob]", lambda jax, x: x.at[np.array([6, -6])].set(9.0), _V)
_add("at[set_int_oob_scalar]", lambda jax, x: x.at[6].set(9.0), _V)
_add("at[set_slice_neg_step]", lambda jax, x: x.at[::-2].set(np.array([1.0, 2.0, 3.0], np.float32)), _V)
_add("at[add_mask]", lambda jax, x: x.at[np.array([True, False, True, False, True])].add(1.0), _V)
_add("at[set_none_ellipsis]", lambda jax, x: x.at[..., None, 1:].set(0.0), _X)
_add("at[add_int_to_float]", lambda jax, x: x.at[0].add(1), _V)
_add("at[set_float_to_int]", lambda jax, x: x.at[0].set(2.7), np.arange(3, dtype=np.int32))
_add("at[add_float_to_uint8]", lambda jax, x: x.at[0].add(-1.5), np.array([1, 2], np.uint8))
_add("at[div_int]", lambda jax, x: x.at[0].divide(2), np.array([7, 2], np.int32))
_add("at[power_repeated]", lambda jax, x: x.at[np.array([0, 0])].power(2.0), np.array([3.0, 2.0], np.float32))
_add(
    "at[apply_repeated]",
    lambda jax, x: x.at[np.array([0, 0, 1])].apply(lambda t: t * 2),
    np.array([3.0, 2.0], np.float32),
)
_add("at[set_bcast_wrong]", lambda jax, x: x.at[0:2].set(np.ones(3, np.float32)), _V)
_add(
    "at[unique_indices]",
    lambda jax, x: x.at[np.array([2, 0])].add(1.0, unique_indices=True, indices_are_sorted=False),
    _V,
)

# --- reductions with where= / initial= -----------------------------------------------------------
_R = np.array([[1.0, -2.0, 3.0], [4.0, NAN, -6.0]], np.float32)
_W = np.array([[True, False, True], [False, False, True]])
for _fn in "sum prod max min mean var std any all nansum nanmean nanmax".split():
    _add(
        f"where[{_fn}]",
        lambda jax, x, w, f=_fn: getattr(jax.numpy, f)(
            x, where=w, **({"initial": 0.0} if f in ("max", "min", "nanmax") else {})
        ),
        _R,
        _W,
    )
    _add(
        f"where[{_fn}_axis0]",
        lambda jax, x, w, f=_fn: getattr(jax.numpy, f)(
            x, axis=0, where=w, **({"initial": -9.0} if f in ("max", "min", "nanmax") else {})
        ),
        _R,
        _W,
    )
_add("where[max_no_initial]", lambda jax, x, w: jax.numpy.max(x, where=w), _R, _W)
_add("where[sum_initial]", lambda jax, x: jax.numpy.sum(x, initial=10.0), _R)
_add(
    "where[prod_initial_int]",
    lambda jax, x: jax.numpy.prod(x, initial=2, axis=1),
    np.array([[1, 2], [3, 4]], np.int32),
)
_add("where[max_initial_bigger]", lambda jax, x: jax.numpy.max(x, axis=1, initial=3.5), _R)
_add("where[min_initial_int_float]", lambda jax, x: jax.numpy.min(x, initial=0.5), np.array([1, 2], np.int32))
_add(
    "where[sum_where_bcast]", lambda jax, x: jax.numpy.sum(x, axis=1, where=np.array([True, False, True])), _R
)
_add("where[mean_all_false]", lambda jax, x: jax.numpy.mean(x, where=np.zeros((2, 3), bool)), _R)
_add("where[sum_dtype_int8]", lambda jax, x: jax.numpy.sum(x, dtype=np.int8), np.array([100, 100], np.int8))
_add("where[sum_bool_dtype]", lambda jax, x: jax.numpy.sum(x, dtype=bool), np.array([0, 2], np.int32))
_add("where[mean_int_dtype]", lambda jax, x: jax.numpy.mean(x, dtype=np.int32), np.array([1, 2], np.int32))
_add("where[cumsum_bool]", lambda jax, x: jax.numpy.cumsum(x), np.array([True, True]))
_add("where[cumsum_uint8]", lambda jax, x: jax.numpy.cumsum(x), np.array([200, 100], np.uint8))
_add("where[prod_int8]", lambda jax, x: jax.numpy.prod(x), np.array([100, 100], np.int8))
_add("where[var_ddof_big]", lambda jax, x: jax.numpy.var(x, ddof=5), np.ones(3, np.float32))
_add("where[var_complex]", lambda jax, x: jax.numpy.var(x), np.array([1 + 1j, 2 - 1j], np.complex64))
_add("where[std_int]", lambda jax, x: jax.numpy.std(x), np.array([1, 2, 4], np.int8))

# --- out-of-range axes --------------------------------------------------------------------------
_A = np.ones((2, 3), np.float32)
_AXIS_CALLS = {
    "sum": lambda jnp, x, a: jnp.sum(x, axis=a),
    "argmax": lambda jnp, x, a: jnp.argmax(x, axis=a),
    "cumsum": lambda jnp, x, a: jnp.cumsum(x, axis=a),
    "sort": lambda jnp, x, a: jnp.sort(x, axis=a),
    "concatenate": lambda jnp, x, a: jnp.concatenate([x, x], axis=a),
    "stack": lambda jnp, x, a: jnp.stack([x, x], axis=a),
    "expand_dims": lambda jnp, x, a: jnp.expand_dims(x, a),
    "squeeze": lambda jnp, x, a: jnp.squeeze(x, a),
    "take": lambda jnp, x, a: jnp.take(x, np.array([0]), axis=a),
    "moveaxis": lambda jnp, x, a: jnp.moveaxis(x, a, 0),
    "flip": lambda jnp, x, a: jnp.flip(x, a),
    "roll": lambda jnp, x, a: jnp.roll(x, 1, axis=a),
    "mean": lambda jnp, x, a: jnp.mean(x, axis=a),
    "max": lambda jnp, x, a: jnp.max(x, axis=a),
    "diff": lambda jnp, x, a: jnp.diff(x, axis=a),
    "split": lambda jnp, x, a: jnp.split(x, 1, axis=a),
    "repeat": lambda jnp, x, a: jnp.repeat(x, 2, axis=a),
    "softmax": lambda jnp, x, a: jnp.linalg.norm(x, axis=a),
    "median": lambda jnp, x, a: jnp.median(x, axis=a),
    "count_nonzero": lambda jnp, x, a: jnp.count_nonzero(x, axis=a),
}
for _fn, _call in _AXIS_CALLS.items():
    for _ax in (2, -3):
        _add(f"axis[{_fn}_{_ax}]", lambda jax, x, c=_call, a=_ax: c(jax.numpy, x, a), _A)
_add("axis[sum_dup]", lambda jax, x: jax.numpy.sum(x, axis=(0, -2)), _A)
_add("axis[sum_neg_tuple]", lambda jax, x: jax.numpy.sum(x, axis=(-1, 0)), _A)
_add("axis[squeeze_not_one]", lambda jax, x: jax.numpy.squeeze(x, 1), _A)
_add("axis[lax_reduce_oob]", lambda jax, x: jax.lax.reduce_sum(x, (2,)), _A)
_add("axis[softmax_oob]", lambda jax, x: jax.nn.softmax(x, axis=2), _A)

# --- grads at kinks --------------------------------------------------------------------------------
_K = np.array([-1.0, 0.0, 1.0], np.float32)
_KINKS = {
    "abs": lambda jnp, x: jnp.abs(x),
    "maximum_tie": lambda jnp, x: jnp.maximum(x, 0.0),
    "minimum_tie": lambda jnp, x: jnp.minimum(x, x),
    "fmax_tie": lambda jnp, x: jnp.fmax(x, 0.0),
    "relu": lambda jnp, x: jnp.where(x > 0, x, 0.0),
    "sqrt0": lambda jnp, x: jnp.sqrt(jnp.abs(x)),
    "where_nan_branch": lambda jnp, x: jnp.where(x > 0, jnp.sqrt(x), 0.0),
    "where_safe": lambda jnp, x: jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0),
    "clip_bounds": lambda jnp, x: jnp.clip(x, -1.0, 1.0),
    "max_tie": lambda jnp, x: jnp.max(jnp.abs(x)),
    "min_tie": lambda jnp, x: jnp.min(x * x),
    "sort_tie": lambda jnp, x: jnp.sort(jnp.abs(x))[2],
    "norm0": lambda jnp, x: jnp.linalg.norm(x * 0.0),
    "pow_half0": lambda jnp, x: (x * x) ** 0.5,
    "pow_zero": lambda jnp, x: jnp.power(x, 0.0),
    "pow_one_at0": lambda jnp, x: jnp.power(x, 1.0),
    "x_pow_x": lambda jnp, x: jnp.power(jnp.abs(x), x),
    "sign": lambda jnp, x: jnp.sign(x) * x,
    "round": lambda jnp, x: jnp.round(x) + jnp.floor(x),
    "logsumexp_neginf": lambda jnp, x: jnp.log(jnp.sum(jnp.exp(jnp.where(x < 0, -jnp.inf, x)))),
    "log0": lambda jnp, x: jnp.log(x * x),
    "arctan2_00": lambda jnp, x: jnp.arctan2(x * 0.0, x * 0.0),
    "hypot_00": lambda jnp, x: jnp.hypot(x * 0.0, x * 0.0),
    "xlogy0": lambda jnp, x: x * jnp.log(jnp.abs(x)),
    "argmax_index": lambda jnp, x: x[jnp.argmax(x * 0.0)],
    "cumprod_zero": lambda jnp, x: jnp.cumprod(x)[-1],
    "prod_zero": lambda jnp, x: jnp.prod(x),
    "prod_two_zeros": lambda jnp, x: jnp.prod(x * x - x * x + x * (x > 0)),
    "var_const": lambda jnp, x: jnp.std(x * 0.0),
    "mod": lambda jnp, x: jnp.mod(x, 1.0),
    "remainder_neg": lambda jnp, x: jnp.remainder(x, -0.75),
    "nan_max": lambda jnp, x: jnp.nanmax(jnp.where(x > 0, jnp.nan, x)),
    "median_tie": lambda jnp, x: jnp.median(jnp.abs(x)),
    "expm1_log1p_neg1": lambda jnp, x: jnp.log1p(x),
    "cbrt0": lambda jnp, x: jnp.cbrt(x),
    "sinc0": lambda jnp, x: jnp.sinc(x),
    "integer_pow_neg": lambda jnp, x: (x + 2.0) ** -2,
}
for _fn, _call in _KINKS.items():
    _add(f"grad[{_fn}]", lambda jax, x, c=_call: jax.grad(lambda v: jax.numpy.sum(c(jax.numpy, v)))(x), _K)
_add("grad[relu_nn]", lambda jax, x: jax.grad(lambda v: jax.nn.relu(v).sum())(x), _K)
_add(
    "grad[relu6_nn]",
    lambda jax, x: jax.grad(lambda v: jax.nn.relu6(v).sum())(x),
    np.array([0.0, 6.0, 3.0], np.float32),
)
_add("grad[hard_tanh]", lambda jax, x: jax.grad(lambda v: jax.nn.hard_tanh(v).sum())(x), _K)
_add("grad[leaky_relu0]", lambda jax, x: jax.grad(lambda v: jax.nn.leaky_relu(v).sum())(x), _K)
_add("grad[elu0]", lambda jax, x: jax.grad(lambda v: jax.nn.elu(v).sum())(x), _K)
_add(
    "grad[softplus_inf]",
    lambda jax, x: jax.grad(lambda v: jax.nn.softplus(v).sum())(x),
    np.array([-INF, 100.0, INF], np.float32),
)
_add("grad[abs_complex]", lambda jax, x: jax.grad(lambda v: jax.numpy.abs(v * (1 + 1j)))(x), np.float32(0.0))
_add(
    "grad[maximum_tie_scalar]",
    lambda jax, x, y: jax.grad(jax.numpy.maximum, argnums=(0, 1))(x, y),
    np.float32(1.0),
    np.float32(1.0),
)
_add(
    "grad[minimum_tie_scalar]",
    lambda jax, x, y: jax.grad(jax.numpy.minimum, argnums=(0, 1))(x, y),
    np.float32(1.0),
    np.float32(1.0),
)
_add(
    "grad[lax_max_tie]",
    lambda jax, x, y: jax.grad(jax.lax.max, argnums=(0, 1))(x, y),
    np.float32(1.0),
    np.float32(1.0),
)
_add(
    "grad[clip_at_bound]", lambda jax, x: jax.grad(lambda v: jax.numpy.clip(v, 0.0, 1.0))(x), np.float32(1.0)
)
_add("grad[jvp_abs0]", lambda jax, x: jax.jvp(jax.numpy.abs, (x,), (np.float32(1.0),)), np.float32(0.0))
_add("grad[jvp_sqrt0]", lambda jax, x: jax.jvp(jax.numpy.sqrt, (x,), (np.float32(1.0),)), np.float32(0.0))
_add("grad[int_input]", lambda jax, x: jax.grad(lambda v: v * 2)(x), np.int32(3))
_add(
    "grad[grad_of_sort_nan]",
    lambda jax, x: jax.grad(lambda v: jax.numpy.sort(v)[0])(x),
    np.array([NAN, 1.0, 0.0], np.float32),
)
_add(
    "grad[argsort_nan_vmap]",
    lambda jax, x: jax.vmap(jax.numpy.argmax)(x),
    np.array([[NAN, 1.0], [0.0, 2.0]], np.float32),
)
_add(
    "grad[max_nan_grad]",
    lambda jax, x: jax.grad(lambda v: jax.numpy.max(v))(x),
    np.array([NAN, 1.0, NAN], np.float32),
)
_add("grad[second_abs0]", lambda jax, x: jax.grad(jax.grad(jax.numpy.abs))(x), np.float32(0.0))
_add(
    "grad[logaddexp_neginf]",
    lambda jax, x: jax.grad(lambda v: jax.numpy.logaddexp(v, v))(x),
    np.float32(-INF),
)
_add("grad[float16]", lambda jax, x: jax.grad(lambda v: (v * v).sum())(x), np.array([1.0, 2.0], np.float16))

# --- weak types through creation, methods and reductions ----------------------------------------
_WEAK = {
    "asarray_float": lambda jnp, x: jnp.asarray(2.5) * x,
    "where_scalars": lambda jnp, x: jnp.where(x > 1, 1.0, 2.0),
    "where_scalar_int": lambda jnp, x: jnp.where(x > 1, x, 7),
    "zeros_like_weak": lambda jnp, x: jnp.zeros_like(x * 0 + 1.0),
    "full_like_weak": lambda jnp, x: jnp.full_like(2.0, 3),
    "astype_keeps": lambda jnp, x: jnp.asarray(2.0).astype(jnp.float32),
    "sum_weak": lambda jnp, x: jnp.sum(jnp.asarray(2.0)),
    "mean_weak": lambda jnp, x: jnp.mean(jnp.asarray(3)),
    "clip_scalars": lambda jnp, x: jnp.clip(2.0, 0, 1),
    "maximum_scalars": lambda jnp, x: jnp.maximum(2, 3.5),
    "array_list_mixed": lambda jnp, x: jnp.array([1, 2.5]),
    "array_list_bool_int": lambda jnp, x: jnp.array([True, 2]),
    "arange_float_step": lambda jnp, x: jnp.arange(0, 1, 0.25),
    "arange_int_float_stop": lambda jnp, x: jnp.arange(3.0),
    "linspace_int": lambda jnp, x: jnp.linspace(0, 10, 4, dtype=jnp.int32),
    "linspace_neg_int": lambda jnp, x: jnp.linspace(-10, 0, 4, dtype=jnp.int32),
    "square_weak": lambda jnp, x: jnp.square(3),
    "sqrt_int_scalar": lambda jnp, x: jnp.sqrt(4),
    "abs_weak": lambda jnp, x: jnp.abs(-2.0),
    "exp_bool": lambda jnp, x: jnp.exp(x > 1),
    "floor_int": lambda jnp, x: jnp.floor(x.astype(jnp.int32)),
    "ceil_bool": lambda jnp, x: jnp.ceil(x > 1),
    "matmul_int_float": lambda jnp, x: x.astype(jnp.int8) @ x,
    "dot_bool": lambda jnp, x: jnp.dot(x > 1, x > 0),
    "cumsum_weak": lambda jnp, x: jnp.cumsum(jnp.asarray(2.0)),
    "item_float": lambda jnp, x: jnp.asarray(x[0].item()) + 1,
    "int_uint32_compare": lambda jnp, x: jnp.asarray(x, jnp.uint32) < jnp.asarray(x, jnp.int32) - 3,
    "uint32_plus_int32": lambda jnp, x: jnp.asarray(x, jnp.uint32) + jnp.asarray(x, jnp.int32),
    "int8_plus_uint8": lambda jnp, x: jnp.asarray(x, jnp.int8) + jnp.asarray(x, jnp.uint8),
    "f16_plus_bf16": lambda jnp, x: jnp.asarray(x, jnp.float16) + jnp.asarray(x, jnp.bfloat16),
    "bf16_times_int8": lambda jnp, x: jnp.asarray(x, jnp.bfloat16) * jnp.asarray(x, jnp.int8),
    "c64_plus_f16": lambda jnp, x: jnp.asarray(x, jnp.complex64) + jnp.asarray(x, jnp.float16),
    "bf16_sum": lambda jnp, x: jnp.sum(jnp.asarray(x * 100.1, jnp.bfloat16)),
    "bf16_cumsum": lambda jnp, x: jnp.cumsum(jnp.asarray(x * 100.1, jnp.bfloat16)),
    "f16_mean_large": lambda jnp, x: jnp.mean(jnp.asarray(x * 30000, jnp.float16)),
    "f16_var": lambda jnp, x: jnp.var(jnp.asarray(x * 300, jnp.float16)),
    "f16_exp_overflow": lambda jnp, x: jnp.exp(jnp.asarray(x * 10, jnp.float16)),
    "bf16_divide": lambda jnp, x: jnp.asarray(x, jnp.bfloat16) / 3,
    "f16_dot": lambda jnp, x: jnp.dot(jnp.asarray(x * 100, jnp.float16), jnp.asarray(x * 100, jnp.float16)),
    "int8_dot_overflow": lambda jnp, x: jnp.dot(jnp.asarray(x * 40, jnp.int8), jnp.asarray(x * 40, jnp.int8)),
    "uint8_sum_overflow": lambda jnp, x: jnp.sum(jnp.asarray(x * 100, jnp.uint8)),
    "int8_prod_dtype": lambda jnp, x: jnp.prod(jnp.asarray(x * 10, jnp.int8)),
    "int16_cumprod": lambda jnp, x: jnp.cumprod(jnp.asarray(x * 50, jnp.int16)),
    "bool_cumprod": lambda jnp, x: jnp.cumprod(x > 1),
    "bool_max": lambda jnp, x: jnp.max(x > 1),
    "bool_argmin": lambda jnp, x: jnp.argmin(x > 1),
    "bool_add": lambda jnp, x: (x > 1) + (x > 2),
    "bool_pow": lambda jnp, x: (x > 1) ** 2,
    "bool_true_divide": lambda jnp, x: (x > 1) / (x > 0),
    "bool_floor_divide": lambda jnp, x: (x > 1) // (x > 0),
    "bool_sign": lambda jnp, x: jnp.sign(x > 1),
    "int_reciprocal": lambda jnp, x: jnp.reciprocal(x.astype(jnp.int32)),
    "int_float_power": lambda jnp, x: x.astype(jnp.int32) ** 2.0,
    "int_neg_uint": lambda jnp, x: -jnp.asarray(x, jnp.uint8),
    "int_abs_uint": lambda jnp, x: jnp.abs(jnp.asarray(x, jnp.uint32)),
    "heaviside_int": lambda jnp, x: jnp.heaviside(x.astype(jnp.int32) - 2, 5),
    "copysign_int": lambda jnp, x: jnp.copysign(x.astype(jnp.int32), -1),
    "fmod_neg_float": lambda jnp, x: jnp.fmod(-x, 1.5),
    "nextafter_f16": lambda jnp, x: jnp.nextafter(jnp.asarray(x, jnp.float16), 10),
    "ldexp_int": lambda jnp, x: jnp.ldexp(x, x.astype(jnp.int32)),
    "frexp_zero": lambda jnp, x: jnp.frexp(x - 1),
    "isclose_int": lambda jnp, x: jnp.isclose(x.astype(jnp.int32), 2),
    "round_f16": lambda jnp, x: jnp.round(jnp.asarray(x * 1.25, jnp.float16), 1),
    "round_bf16": lambda jnp, x: jnp.round(jnp.asarray(x * 1.25, jnp.bfloat16)),
}
_WX = np.array([1.0, 2.0, 3.0], np.float32)
for _fn, _call in _WEAK.items():
    _add(f"weak[{_fn}]", lambda jax, x, c=_call: c(jax.numpy, x), _WX)

# --- gathers, scatters and sorts beyond the basics ------------------------------------------------
_G = np.array([4.0, -1.0, NAN, 0.0, -0.0, 2.0], np.float32)
_GI = np.array([5, -1, -6, 0, 7], np.int32)
_MORE = {
    "take_default": lambda jax, x, i: jax.numpy.take(x, i),
    "take_wrap": lambda jax, x, i: jax.numpy.take(x, i, mode="wrap"),
    "take_clip": lambda jax, x, i: jax.numpy.take(x, i, mode="clip"),
    "take_along_neg": lambda jax, x, i: jax.numpy.take_along_axis(x, i, axis=0),
    "index_traced": lambda jax, x, i: x[i],
    "at_get_traced_neg": lambda jax, x, i: x.at[i].get(mode="fill", fill_value=9.0),
    "at_add_traced": lambda jax, x, i: x.at[i].add(1.0),
    "at_set_traced_drop": lambda jax, x, i: x.at[i].set(7.0, mode="drop"),
    "at_min_traced": lambda jax, x, i: x.at[i].min(-5.0),
    "choose_wrap": lambda jax, x, i: jax.numpy.choose(i % 2, [x[:5], -x[:5]]),
    "choose_clip": lambda jax, x, i: jax.numpy.choose(i, [x[:5], -x[:5]], mode="clip"),
    "choose_raise": lambda jax, x, i: jax.numpy.choose(i, [x[:5], -x[:5]]),
    "dyn_slice_neg": lambda jax, x, i: jax.lax.dynamic_slice(x, (i[1],), (2,)),
    "dyn_update_oob": lambda jax, x, i: jax.lax.dynamic_update_slice(x, np.ones(3, np.float32), (i[0],)),
    "dyn_index_neg": lambda jax, x, i: jax.lax.dynamic_index_in_dim(x, i[1], keepdims=False),
    "sort_neg_zero": lambda jax, x, i: jax.numpy.sort(x),
    "argsort_stable_nan": lambda jax, x, i: jax.numpy.argsort(jax.numpy.concatenate([x, x])),
    "lax_sort_two": lambda jax, x, i: jax.lax.sort((x, jax.numpy.arange(6.0)), num_keys=1),
    "top_k_nan": lambda jax, x, i: jax.lax.top_k(x, 3),
    "cumsum_reverse": lambda jax, x, i: jax.lax.cumsum(x, reverse=True),
    "cummin_nan": lambda jax, x, i: jax.lax.cummin(x),
    "cumlogsumexp": lambda jax, x, i: jax.lax.cumlogsumexp(x),
    "searchsorted_right": lambda jax, x, i: jax.numpy.searchsorted(jax.numpy.sort(x), x, side="right"),
    "searchsorted_int": lambda jax, x, i: jax.numpy.searchsorted(jax.numpy.sort(i), i, method="compare_all"),
    "unique_counts": lambda jax, x, i: jax.numpy.unique(i % 3, return_counts=True, return_inverse=True),
    "unique_size_fill": lambda jax, x, i: jax.numpy.unique(i, size=7, fill_value=-9),
    "nonzero_size": lambda jax, x, i: jax.numpy.nonzero(x, size=8, fill_value=-1),
    "argwhere_size": lambda jax, x, i: jax.numpy.argwhere(x > 0, size=2),
    "select": lambda jax, x, i: jax.numpy.select([x > 1, x < 0], [x, -x], default=NAN),
    "piecewise": lambda jax, x, i: jax.numpy.piecewise(x, [x < 0, x > 1], [-1.0, lambda v: v * 2, 0.5]),
    "bincount_neg": lambda jax, x, i: jax.numpy.bincount(jax.numpy.abs(i), length=8),
    "histogram_nan": lambda jax, x, i: jax.numpy.histogram(x, bins=3, range=(-1.0, 4.0)),
    "digitize": lambda jax, x, i: jax.numpy.digitize(x, np.array([-1.0, 0.0, 2.0], np.float32)),
    "interp_nan": lambda jax, x, i: jax.numpy.interp(
        x, np.array([0.0, 1.0, 2.0], np.float32), np.array([1.0, 3.0, 0.0], np.float32)
    ),
    "clamp_lax_order": lambda jax, x, i: jax.lax.clamp(np.float32(1.0), x, np.float32(0.0)),
    "rem_float_signs": lambda jax, x, i: jax.lax.rem(x, np.float32(-1.5)),
    "integer_pow_big": lambda jax, x, i: jax.lax.integer_pow(i, 11),
    "pow_int_lax": lambda jax, x, i: jax.lax.pow(x, np.int32(3)),
    "pow_complex0": lambda jax, x, i: jax.numpy.power(x.astype(np.complex64) * 0, 0.0),
    "sqrt_complex_neg": lambda jax, x, i: jax.numpy.sqrt(x.astype(np.complex64) - 3),
    "log_complex_zero": lambda jax, x, i: jax.numpy.log(x.astype(np.complex64) * 0),
    "abs_complex_inf": lambda jax, x, i: jax.numpy.abs(jax.lax.complex(x, x * np.float32(INF))),
    "sign_complex": lambda jax, x, i: jax.numpy.sign(jax.lax.complex(x, -x)),
    "argmax_complex": lambda jax, x, i: jax.numpy.argmax(x.astype(np.complex64)),
    "sort_complex": lambda jax, x, i: jax.numpy.sort(jax.lax.complex(x, x[::-1])),
    "max_complex": lambda jax, x, i: jax.numpy.max(jax.lax.complex(jax.numpy.nan_to_num(x), x[::-1] * 0)),
    "convert_nan_int_jit": lambda jax, x, i: jax.jit(lambda v: v.astype(np.int32))(x * INF),
    "convert_big_uint8": lambda jax, x, i: jax.lax.convert_element_type(x * 100, np.uint8),
    "convert_neg_uint32": lambda jax, x, i: (x * 1e10 - 1e10).astype(np.uint32),
    "bitcast_f32_i32": lambda jax, x, i: jax.lax.bitcast_convert_type(x, np.int32),
    "population_count": lambda jax, x, i: jax.lax.population_count(i),
    "clz": lambda jax, x, i: jax.lax.clz(i),
    "bitwise_not_int": lambda jax, x, i: jax.numpy.bitwise_not(i),
    "bitwise_count": lambda jax, x, i: jax.numpy.bitwise_count(i),
    "left_shift_neg": lambda jax, x, i: jax.numpy.left_shift(i, -1),
    "right_shift_u8_traced": lambda jax, x, i: jax.numpy.right_shift(i.astype(np.uint8), i.astype(np.uint8)),
}
for _fn, _call in _MORE.items():
    _add(f"more[{_fn}]", _call, _G, _GI)

# --- dtype arguments and integer / bool inputs of the wider jnp API ------------------------------
_B = {
    "sum_uint8": lambda jnp, x: jnp.sum(jnp.asarray(x * 100, jnp.uint8)),
    "sum_int8_promote_off": lambda jnp, x: jnp.sum(jnp.asarray(x * 100, jnp.int8), promote_integers=False),
    "cumsum_dtype_int8": lambda jnp, x: jnp.cumsum(x * 60, dtype=jnp.int8),
    "cumprod_dtype_f16": lambda jnp, x: jnp.cumprod(x * 100, dtype=jnp.float16),
    "prod_bool": lambda jnp, x: jnp.prod(x > 1),
    "diff_bool": lambda jnp, x: jnp.diff(x > 1.5),
    "diff_uint8": lambda jnp, x: jnp.diff(jnp.asarray(x[::-1], jnp.uint8)),
    "ediff1d_int": lambda jnp, x: jnp.ediff1d(x.astype(jnp.int32), to_begin=-1.5),
    "einsum_int8": lambda jnp, x: jnp.einsum(
        "i,i->", jnp.asarray(x * 50, jnp.int8), jnp.asarray(x * 50, jnp.int8)
    ),
    "convolve_int": lambda jnp, x: jnp.convolve(x.astype(jnp.int32), x.astype(jnp.int32)),
    "trapezoid_int": lambda jnp, x: jnp.trapezoid(x.astype(jnp.int32)),
    "outer_bool": lambda jnp, x: jnp.outer(x > 1, x > 2),
    "kron_uint8": lambda jnp, x: jnp.kron(jnp.asarray(x, jnp.uint8), jnp.asarray(x, jnp.uint8)),
    "cross_int": lambda jnp, x: jnp.cross(x.astype(jnp.int32), x[::-1].astype(jnp.int32)),
    "linalg_det_int": lambda jnp, x: jnp.linalg.det(
        jnp.outer(x, x).astype(jnp.int32) + jnp.eye(3, dtype=jnp.int32)
    ),
    "isin_nan": lambda jnp, x: jnp.isin(jnp.array([1.0, jnp.nan]), jnp.array([jnp.nan, 1.0])),
    "argsort_desc_stable": lambda jnp, x: jnp.argsort(
        jnp.array([1, 3, 1, 3, 2]), descending=True, stable=True
    ),
    "mean_bool_where": lambda jnp, x: jnp.mean(x > 1, where=x < 3),
    "average_int_weights": lambda jnp, x: jnp.average(x.astype(jnp.int32), weights=jnp.array([1, 0, 1])),
    "average_zero_weights": lambda jnp, x: jnp.average(x, weights=jnp.zeros(3)),
    "percentile_int": lambda jnp, x: jnp.percentile(x.astype(jnp.int32), 40),
    "quantile_nearest_half": lambda jnp, x: jnp.quantile(jnp.arange(4.0), 0.5, method="nearest"),
    "histogram_int": lambda jnp, x: jnp.histogram(x.astype(jnp.int32), bins=2),
    "searchsorted_bool": lambda jnp, x: jnp.searchsorted(jnp.array([False, True]), True),
    "nanmean_int": lambda jnp, x: jnp.nanmean(x.astype(jnp.int32)),
    "nanvar_all_nan": lambda jnp, x: jnp.nanvar(x * jnp.nan),
    "nanmin_all_nan": lambda jnp, x: jnp.nanmin(x * jnp.nan),
    "nanargmax_all_nan": lambda jnp, x: jnp.nanargmax(x * jnp.nan),
    "corrcoef_const": lambda jnp, x: jnp.corrcoef(x * 0, x),
    "cov_int": lambda jnp, x: jnp.cov(x.astype(jnp.int32)),
    "std_ddof_n": lambda jnp, x: jnp.std(x, ddof=3),
    "ptp_uint8": lambda jnp, x: jnp.ptp(jnp.asarray(x, jnp.uint8)),
    "cbrt_neg": lambda jnp, x: jnp.cbrt(-x),
    "fmod_int_zero": lambda jnp, x: jnp.fmod(x.astype(jnp.int32), 0),
    "remainder_float_zero": lambda jnp, x: jnp.remainder(x, 0.0),
    "floor_divide_neg_zero": lambda jnp, x: jnp.floor_divide(-x * 0, 1.0),
    "true_divide_int_zero": lambda jnp, x: x.astype(jnp.int32) / 0,
    "power_float_int_neg": lambda jnp, x: jnp.power(x * 0, -1),
    "float_power_neg": lambda jnp, x: jnp.float_power(-x, 0.5),
    "exp2_int": lambda jnp, x: jnp.exp2(x.astype(jnp.int8)),
    "log_uint8": lambda jnp, x: jnp.log(jnp.asarray(x, jnp.uint8)),
    "arctan2_int": lambda jnp, x: jnp.arctan2(x.astype(jnp.int32), -x.astype(jnp.int32)),
    "hypot_inf_nan": lambda jnp, x: jnp.hypot(jnp.inf, jnp.nan),
    "logaddexp2_int": lambda jnp, x: jnp.logaddexp2(x.astype(jnp.int32), 1),
    "sinc_int": lambda jnp, x: jnp.sinc(x.astype(jnp.int32) - 2),
    "angle_int": lambda jnp, x: jnp.angle(-x.astype(jnp.int32)),
    "angle_deg": lambda jnp, x: jnp.angle(x * 1j, deg=True),
    "real_int": lambda jnp, x: jnp.real(x.astype(jnp.int32)),
    "conj_bool": lambda jnp, x: jnp.conj(x > 1),
    "clip_uint8_neg": lambda jnp, x: jnp.clip(jnp.asarray(x, jnp.uint8), -1, 2),
    "clip_int_none": lambda jnp, x: jnp.clip(x.astype(jnp.int32), max=1),
    "nan_to_num_int": lambda jnp, x: jnp.nan_to_num(x.astype(jnp.int32), nan=5),
    "nan_to_num_f16": lambda jnp, x: jnp.nan_to_num(jnp.asarray(x * jnp.inf, jnp.float16)),
    "around_half": lambda jnp, x: jnp.around(x - 0.5),
    "fix_neg": lambda jnp, x: jnp.fix(-x + 0.5),
    "rint_int": lambda jnp, x: jnp.rint(x.astype(jnp.int32)),
    "modf_neg": lambda jnp, x: jnp.modf(-x - 0.25),
    "frexp_inf": lambda jnp, x: jnp.frexp(x * jnp.inf),
    "ldexp_overflow": lambda jnp, x: jnp.ldexp(x, 200),
    "spacing_zero": lambda jnp, x: jnp.spacing(x * 0),
    "gcd_uint8": lambda jnp, x: jnp.gcd(jnp.asarray(x * 4, jnp.uint8), jnp.asarray(x * 6, jnp.uint8)),
    "lcm_overflow": lambda jnp, x: jnp.lcm(jnp.asarray(x * 40, jnp.int8), jnp.asarray(x * 30, jnp.int8)),
}
for _fn, _call in _B.items():
    _add(f"api[{_fn}]", lambda jax, x, c=_call: c(jax.numpy, x), _WX)
