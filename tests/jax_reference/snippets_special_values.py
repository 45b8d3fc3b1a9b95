"""Special values, bit for bit: every elementwise lax/jnp operation on +-0, +-inf, NaNs with the
sign bit set and clear, the smallest and largest subnormals, the smallest normal, the largest
finite value, arguments where exp over- and underflows, and a few ordinary values; binary ones on
every pair of them. Each in three modes: eagerly, under ``jax.jit`` with the values as arguments,
and under ``jax.jit`` closing over them (XLA folds constants while compiling). Gradients at the
points where rules choose a side (abs, sqrt, maximum, where at 0 ...).

Each snippet's ``out`` is ``[bits, dtype, weak_type]``: the results' raw bits (as hex, the
machine's byte order), so a NaN's sign and payload, -0.0 and subnormals are compared exactly. ``tests/test_special_values.py``
replays them (float64 ones with x64 on: ``record_x64.py special_values``), with its exclusions."""

# The inputs, by dtype: numpy arrays (closed over: XLA constants), and X (and Y), jnp arrays.
_PRELUDE = """
import ml_dtypes
def specials(dt):
    dt = np.dtype(dt)
    fi = ml_dtypes.finfo(dt) if dt.name == 'bfloat16' else np.finfo(dt)
    tiny, sub = float(fi.smallest_normal), float(fi.smallest_subnormal)
    top = float(fi.max)
    ln_max, ln_tiny, ln_sub = np.log(top), np.log(tiny), np.log(sub)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, sub, -sub, tiny - sub, -(tiny - sub), tiny, -tiny,
         top, -top, ln_max * 0.999, ln_max * 1.001, ln_tiny, ln_sub * 0.99, ln_sub * 1.01,
         1.0, -1.0, 0.5, -2.5, 2.0, 3.0, 0.1, -0.75, 10.0, 1e-3, 0.9999]
    a = np.array(v, np.float64).astype(dt)
    bits = a.view('u%d' % dt.itemsize).copy()
    one = np.array([1], 'u%d' % dt.itemsize)
    sign = one << (8 * dt.itemsize - 1)
    nan_ = np.array([np.nan], dt).view(bits.dtype)[0] & ~sign[0]
    bits[4], bits[5] = nan_, nan_ | sign[0]  # (astype may not keep a NaN's sign)
    return bits.view(dt)
def bits(y):
    y = np.asarray(y)
    return y.view('u%d' % y.dtype.itemsize) if y.dtype.itemsize > 1 else y.view(np.uint8)
def result(y):
    return [bits(y).tobytes().hex(), np.asarray(y).dtype.name, bool(getattr(y, 'weak_type', False))]
"""

UNARY = {
    "sin": "lax.sin(x)",
    "cos": "lax.cos(x)",
    "tan": "lax.tan(x)",
    "asin": "lax.asin(x)",
    "acos": "lax.acos(x)",
    "atan": "lax.atan(x)",
    "sinh": "lax.sinh(x)",
    "cosh": "lax.cosh(x)",
    "asinh": "lax.asinh(x)",
    "acosh": "lax.acosh(x)",
    "atanh": "lax.atanh(x)",
    "exp": "lax.exp(x)",
    "exp2": "lax.exp2(x)",
    "expm1": "lax.expm1(x)",
    "log": "lax.log(x)",
    "log1p": "lax.log1p(x)",
    "log2": "jnp.log2(x)",
    "log10": "jnp.log10(x)",
    "tanh": "lax.tanh(x)",
    "logistic": "lax.logistic(x)",
    "sqrt": "lax.sqrt(x)",
    "rsqrt": "lax.rsqrt(x)",
    "cbrt": "lax.cbrt(x)",
    "abs": "lax.abs(x)",
    "neg": "lax.neg(x)",
    "sign": "lax.sign(x)",
    "floor": "lax.floor(x)",
    "ceil": "lax.ceil(x)",
    "round_even": "lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)",
    "round_away": "lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)",
    "jnp_round": "jnp.round(x)",
    "jnp_trunc": "jnp.trunc(x)",
    "is_finite": "lax.is_finite(x)",
    "isnan": "jnp.isnan(x)",
    "isinf": "jnp.isinf(x)",
    "signbit": "jnp.signbit(x)",
    "erf": "lax.erf(x)",
    "erfc": "lax.erfc(x)",
    "erf_inv": "lax.erf_inv(x)",
    "lgamma": "lax.lgamma(x)",
    "digamma": "lax.digamma(x)",
    "square": "lax.square(x)",
    "reciprocal": "jnp.reciprocal(x)",
    "ipow_2": "lax.integer_pow(x, 2)",
    "ipow_3": "lax.integer_pow(x, 3)",
    "ipow_m1": "lax.integer_pow(x, -1)",
    "ipow_m2": "lax.integer_pow(x, -2)",
    "ipow_0": "lax.integer_pow(x, 0)",
    "mul_zero": "x * 0",
    "add_zero": "x + 0",
    "sub_zero": "x - 0",
    "mul_one": "x * 1",
    "div_two": "x / 2",
    "pow_half": "x ** 0.5",
    "relu": "jax.nn.relu(x)",
    "sigmoid": "jax.nn.sigmoid(x)",
    "softplus": "jax.nn.softplus(x)",
    "nan_to_num": "jnp.nan_to_num(x)",
    "clip": "jnp.clip(x, -1, 1)",
    "convert_f32": "x.astype(np.float32)",
    "convert_i32": "x.astype(np.int32)",
}

BINARY = {
    "add": "lax.add(x, y)",
    "sub": "lax.sub(x, y)",
    "mul": "lax.mul(x, y)",
    "div": "lax.div(x, y)",
    "rem": "lax.rem(x, y)",
    "pow": "lax.pow(x, y)",
    "atan2": "lax.atan2(x, y)",
    "max": "lax.max(x, y)",
    "min": "lax.min(x, y)",
    "nextafter": "lax.nextafter(x, y)",
    "copysign": "jnp.copysign(x, y)",
    "mod": "jnp.remainder(x, y)",
    "fmod": "jnp.fmod(x, y)",
    "floor_divide": "jnp.floor_divide(x, y)",
    "hypot": "jnp.hypot(x, y)",
    "logaddexp": "jnp.logaddexp(x, y)",
    "fmax": "jnp.fmax(x, y)",
    "eq": "lax.eq(x, y)",
    "lt": "lax.lt(x, y)",
    "ge": "lax.ge(x, y)",
}

# Gradients at points where a rule picks a side or divides by zero (summed, so one cotangent).
GRADS = {
    "abs": "jnp.abs(x)",
    "sqrt": "jnp.sqrt(x)",
    "cbrt": "jnp.cbrt(x)",
    "maximum0": "jnp.maximum(x, 0.0)",
    "minimum0": "jnp.minimum(x, 0.0)",
    "max_self": "jnp.maximum(x, x)",
    "relu": "jax.nn.relu(x)",
    "where": "jnp.where(x > 0, x, 0.0)",
    "where_sqrt": "jnp.where(x > 0, jnp.sqrt(x), 0.0)",
    "clip": "jnp.clip(x, -1.0, 1.0)",
    "log": "jnp.log(x)",
    "pow_half": "x ** 0.5",
    "ipow_2": "x ** 2",
    "ipow_m1": "x ** -1",
    "tanh": "jnp.tanh(x)",
    "logistic": "jax.nn.sigmoid(x)",
    "softplus": "jax.nn.softplus(x)",
    "exp": "jnp.exp(x)",
    "sign": "jnp.sign(x)",
    "round": "jnp.round(x)",
    "norm": "jnp.sqrt(x * x)",
    "atan2": "jnp.arctan2(x, 1.0)",
    "hypot": "jnp.hypot(x, 0.0)",
    "logsumexp_pair": "jax.nn.logsumexp(jnp.stack([x, jnp.zeros_like(x)]), axis=0)",
}

# float16 and bfloat16 are computed in float32 by XLA's CPU kernels (and rounded back): the unary
# operations and the grid of binary ones, eagerly and under jit (constant folding is float32's).
DTYPES = ("float32", "float16", "bfloat16", "float64")
MODES = ("eager", "jit", "const")


def _unary(dt, mode, expr):
    x = f"specials('{dt}')"
    if mode == "eager":
        return f"x = jnp.asarray({x})\ny = {expr}\nout = result(y)"
    if mode == "jit":
        return f"y = jax.jit(lambda x: {expr})(jnp.asarray({x}))\nout = result(y)"
    return f"c = {x}\ny = jax.jit(lambda: (lambda x: {expr})(c))()\nout = result(y)"


def _binary(dt, mode, expr):
    grid = f"s = specials('{dt}')\nxs, ys = np.repeat(s, s.size), np.tile(s, s.size)\n"
    if mode == "eager":
        return grid + f"x, y = jnp.asarray(xs), jnp.asarray(ys)\nz = {expr}\nout = result(z)"
    if mode == "jit":
        return grid + f"z = jax.jit(lambda x, y: {expr})(jnp.asarray(xs), jnp.asarray(ys))\nout = result(z)"
    return grid + f"z = jax.jit(lambda: (lambda x, y: {expr})(xs, ys))()\nout = result(z)"


def _grad(dt, mode, expr):
    g = f"jax.grad(lambda x: jnp.sum({expr}))"
    x = f"specials('{dt}')"
    if mode == "eager":
        return f"y = {g}(jnp.asarray({x}))\nout = result(y)"
    if mode == "jit":
        return f"y = jax.jit({g})(jnp.asarray({x}))\nout = result(y)"
    return f"c = {x}\ny = jax.jit(lambda: {g}(c))()\nout = result(y)"


# Python scalars: weak types (float64 under x64), each value on its own.
_PY = "vals = [float(v) for v in specials('float32')]\n"


def _scalars(expr):
    return (
        _PY + "ys = [(lambda x: " + expr + ")(v) for v in vals]\n"
        "out = [np.stack([bits(y) for y in ys]).tobytes().hex(), sorted({np.asarray(y).dtype.name for y in ys}),"
        " sorted({bool(getattr(y, 'weak_type', False)) for y in ys})]"
    )


def _cases():
    for dt in DTYPES:
        for mode in MODES:
            for name, expr in UNARY.items():
                yield f"{name}_{dt}_{mode}", _PRELUDE + _unary(dt, mode, expr)
            for name, expr in BINARY.items():
                yield f"{name}_{dt}_{mode}", _PRELUDE + _binary(dt, mode, expr)
            if dt in ("float32", "float64"):
                for name, expr in GRADS.items():
                    yield f"grad_{name}_{dt}_{mode}", _PRELUDE + _grad(dt, mode, expr)
    for name, expr in UNARY.items():
        if not expr.startswith("x"):  # (x * 0 of a Python float is Python's)
            yield f"{name}_python_scalar", _PRELUDE + _scalars(expr)


SPECIAL_VALUES = list(_cases())
