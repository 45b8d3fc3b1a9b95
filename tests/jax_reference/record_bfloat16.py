"""Record JAX 0.10.2's answers for bfloat16 and the other ml_dtypes types into ``bfloat16.json``
(run with JAX's venv); ``tests/test_bfloat16.py`` replays the same snippets on the engine.

    /work/main/.jax-venv/bin/python tests/jax_reference/record_bfloat16.py

Each snippet sets ``out``. Arrays are recorded bit for bit (their bytes as unsigned integers), so
the test compares exactly: XLA's CPU backend rounds every bfloat16 operation once, from float32.
"""

from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np

PRELUDE = (
    "r = np.random.RandomState(0)\n"
    "x = jnp.asarray(r.randn(257).astype(np.float32)).astype(jnp.bfloat16)\n"
    "y = jnp.asarray(r.randn(257).astype(np.float32)).astype(jnp.bfloat16)\n"
    "a = jnp.asarray(r.randn(16, 32).astype(np.float32)).astype(jnp.bfloat16)\n"
    "b = jnp.asarray(r.randn(32, 8).astype(np.float32)).astype(jnp.bfloat16)\n"
    "f = jnp.asarray((r.randn(257) * 30).astype(np.float32))\n"
)

ARITHMETIC = [
    ("add", "out = x + y"),
    ("sub", "out = x - y"),
    ("mul", "out = x * y"),
    ("div", "out = x / y"),
    ("neg_abs", "out = (-x, jnp.abs(x))"),
    ("maximum", "out = jnp.maximum(x, y)"),
    ("square_pow", "out = (x ** 2, jnp.power(jnp.abs(x), y), x ** 3)"),
    ("weak_float", "out = x * 2.7 + 1.3"),
    ("weak_int", "out = x + 3"),
    ("exp_log", "out = (jnp.exp(x), jnp.log(jnp.abs(x)), jnp.log1p(jnp.abs(x)), jnp.expm1(x))"),
    ("trig", "out = (jnp.sin(x * 10), jnp.cos(x * 10), jnp.tan(x), jnp.arctan2(x, y))"),
    ("tanh_sigmoid", "out = (jnp.tanh(x), jax.nn.sigmoid(x), jax.nn.relu(x), jax.nn.gelu(x))"),
    ("sqrt_rsqrt", "out = (jnp.sqrt(jnp.abs(x)), lax.rsqrt(jnp.abs(x)), 1 / x)"),
    ("erf", "out = (lax.erf(x), lax.erf_inv(x / 4))"),
    ("rounding", "out = (jnp.floor(x * 8), jnp.round(x * 8), jnp.sign(x), jnp.clip(x, -0.5, 0.5))"),
    ("compare", "out = (x < y, x == y, jnp.where(x > 0, x, y))"),
    ("softmax", "out = jax.nn.softmax(a, axis=-1)"),
    ("logsumexp", "out = jax.nn.logsumexp(a, axis=1)"),
    ("chain", "out = jnp.tanh(x) * y + x"),
    (
        "nextafter",
        "out = (jnp.nextafter(x, jnp.bfloat16(jnp.inf)), jnp.nextafter(x, -x), jnp.nextafter(x * 0, y))",
    ),
    ("device_put", "out = (jax.device_put(x[:5]), jax.device_put(x[:5]) * 2)"),
]

PROMOTION = [
    ("bf16_f16", "out = x[:4] + jnp.ones(4, jnp.float16)"),
    ("bf16_f32", "out = x[:4] + jnp.ones(4, jnp.float32)"),
    ("bf16_i32", "out = x[:4] + jnp.arange(4)"),
    ("bf16_u8", "out = x[:4] + jnp.arange(4, dtype=jnp.uint8)"),
    ("bf16_i8", "out = x[:4] + jnp.arange(4, dtype=jnp.int8)"),
    ("bf16_bool", "out = x[:4] + jnp.array([True, False, True, False])"),
    ("bf16_weak_complex", "out = x[:2] + 1j"),
    (
        "promote_types",
        "out = [str(jnp.promote_types(jnp.bfloat16, t)) for t in "
        "(jnp.float16, jnp.float32, jnp.int8, jnp.uint16, jnp.int32, jnp.bfloat16, jnp.complex64)]",
    ),
    (
        "result_type",
        "out = [str(jnp.result_type(jnp.bfloat16, 1.0)), str(jnp.result_type(x, 1)), "
        "str(jnp.result_type(jnp.float8_e4m3fn, 2.0)), str(jnp.result_type(jnp.int4, 3))]",
    ),
    ("f8_f32", "out = jnp.ones(2, jnp.float8_e4m3fn) + jnp.ones(2)"),
    ("f8_bf16", "out = jnp.ones(2, jnp.float8_e5m2) + x[:2]"),
    ("f8_weak", "out = jnp.ones(3, jnp.float8_e4m3fn) * 1.7 + 2"),
    ("int4_int8", "out = jnp.ones(2, jnp.int4) + jnp.ones(2, jnp.int8)"),
    ("int4_weak", "out = jnp.ones(3, jnp.int4) * 7 + 1"),
    ("uint4_weak", "out = jnp.arange(4, dtype=jnp.uint4) * 5"),
    (
        "issubdtype",
        "out = [bool(jnp.issubdtype(jnp.bfloat16, t)) for t in (jnp.floating, jnp.inexact, "
        "jnp.number, jnp.integer, jnp.bfloat16, jnp.float32)] + "
        "[bool(jnp.issubdtype(jnp.int4, jnp.signedinteger)), bool(jnp.issubdtype(jnp.uint4, jnp.integer))]",
    ),
    (
        "isdtype",
        "out = [jnp.isdtype(jnp.bfloat16, 'real floating'), jnp.isdtype(jnp.float8_e5m2, 'numeric'), "
        "jnp.isdtype(jnp.int4, 'signed integer')]",
    ),
]

REDUCTIONS = [
    ("sum", "out = (jnp.sum(x), jnp.sum(a, axis=0), jnp.sum(a, axis=1, keepdims=True))"),
    ("mean_var_std", "out = (jnp.mean(x), jnp.var(x), jnp.std(a, axis=1))"),
    ("max_min_argmax", "out = (jnp.max(x), jnp.min(a, axis=0), jnp.argmax(x))"),
    ("prod", "out = jnp.prod(x[:12] + 1)"),
    ("cumsum", "out = jnp.cumsum(x[:40])"),
    ("lax_reduce_sum", "out = lax.reduce_sum(x, (0,))"),
    ("sum_f32_dtype", "out = jnp.sum(x, dtype=jnp.float32)"),
    ("norm", "out = jnp.linalg.norm(a, axis=1)"),
]

MATMUL = [
    ("matmul", "out = a @ b"),
    ("dot_1d", "out = jnp.dot(x, y)"),
    ("einsum", "out = jnp.einsum('ij,jk->ik', a, b)"),
    ("preferred_f32", "out = jnp.dot(a, b, preferred_element_type=jnp.float32)"),
    ("matvec_mixed", "out = a @ jnp.ones(32, jnp.float32)"),
]

CASTS = [
    ("from_f32", "out = f.astype(jnp.bfloat16)"),
    (
        "ties",
        "out = jnp.array([1.00390625, 1.01171875, 3.3895314e38, 3.4e38, -0.0, np.nan, np.inf], "
        "jnp.float32).astype(jnp.bfloat16)",
    ),
    ("to_f32_f16", "out = (x.astype(jnp.float32), x.astype(jnp.float16))"),
    (
        "to_ints",
        "out = ((x * 100).astype(jnp.int32), (x * 100).astype(jnp.int8), "
        "(jnp.abs(x) * 100).astype(jnp.uint8), x.astype(bool))",
    ),
    (
        "to_float8",
        "out = tuple(f.astype(t) for t in (jnp.float8_e4m3fn, jnp.float8_e5m2, "
        "jnp.float8_e4m3b11fnuz, jnp.float8_e4m3fnuz, jnp.float8_e5m2fnuz))",
    ),
    (
        "saturate",
        "s = jnp.array([300.0, -300.0, 1e10, np.nan, 127.7, np.inf, -np.inf, -1e10])\n"
        "out = tuple(v.astype(t) for v in (s, s.astype(jnp.bfloat16)) "
        "for t in (jnp.int8, jnp.uint8, jnp.int32, jnp.uint32, jnp.int4))",
    ),
    ("float8_back", "out = f.astype(jnp.float8_e4m3fn).astype(jnp.float32)"),
    (
        "float8_arith",
        "out = (f.astype(jnp.float8_e5m2) * f.astype(jnp.float8_e5m2), "
        "f.astype(jnp.float8_e4m3fn) + f.astype(jnp.float8_e4m3fn))",
    ),
    ("int4", "out = (jnp.array([-8, -1, 0, 7], jnp.int4), jnp.array([1, 15], jnp.uint4).astype(jnp.int32))"),
    (
        "bitcast",
        "out = (lax.bitcast_convert_type(x[:6], jnp.uint16), "
        "lax.bitcast_convert_type(jnp.arange(6, dtype=jnp.uint16) + 16256, jnp.bfloat16))",
    ),
    ("scalar_type", "out = (jnp.bfloat16(1.1), jnp.bfloat16(3), jnp.float8_e4m3fn(0.3))"),
]

CREATION = [
    (
        "zeros_ones_full",
        "out = (jnp.zeros(3, jnp.bfloat16), jnp.ones((2, 2), 'bfloat16'), jnp.full(3, 0.1, jnp.bfloat16))",
    ),
    (
        "arange_linspace",
        "out = (jnp.arange(5, dtype=jnp.bfloat16), jnp.linspace(0, 1, 7, dtype=jnp.bfloat16))",
    ),
    ("array_list", "out = jnp.array([0.1, 0.2, 1e-3], dtype=jnp.bfloat16)"),
    (
        "eye_like",
        "out = (jnp.eye(3, dtype=jnp.bfloat16), jnp.zeros_like(x[:3]), jnp.ones_like(x[:2], jnp.float32))",
    ),
    (
        "random",
        "out = (jax.random.normal(jax.random.key(0), (6,), jnp.bfloat16), "
        "jax.random.uniform(jax.random.key(1), (6,), jnp.bfloat16, -2.0, 3.0))",
    ),
    (
        "finfo",
        "fi = jnp.finfo(jnp.bfloat16)\n"
        "out = [float(fi.eps), float(fi.max), float(fi.tiny), int(fi.bits), str(fi.dtype), "
        "float(jnp.finfo(jnp.float8_e4m3fn).max), int(jnp.iinfo(jnp.int4).min), int(jnp.iinfo(jnp.uint4).max)]",
    ),
]

_IDX = "m = a[:6, :8]\ni = jnp.array([0, 2, 2, 5, 0, 0])\n"
INDEXING = [
    ("gather_slices", _IDX + "out = (m[i], m[1:4, ::2], lax.dynamic_slice(m, (1, 2), (2, 3)), m[::-1], m.T)"),
    ("scatter_set", _IDX + "out = (m.at[i].set(m[:6] * 2), lax.dynamic_update_slice(m, m[:2, :2], (3, 4)))"),
    # duplicates: each update rounds to bfloat16 in XLA's scatter loop
    (
        "scatter_combine",
        _IDX + "out = (m.at[i].add(m[:6] * 3.3), m.at[i].multiply(m[:6]), m.at[i].min(-m[:6]), "
        "m.at[i].max(m[:6]))",
    ),
    (
        "scatter_many",
        "out = jnp.zeros(3, jnp.bfloat16).at[jnp.zeros(300, int)].add(jnp.full(300, 0.01, jnp.bfloat16))",
    ),
    (
        "joins",
        _IDX
        + "out = (jnp.concatenate([m, m]), jnp.stack([m, m], 1), jnp.split(m, 2)[1], jnp.tile(m, (2, 1)), "
        "jnp.pad(m, ((1, 2), (0, 1)), constant_values=0.3), jnp.where(m > 0, m, 1.7))",
    ),
    ("jit_scatter", _IDX + "out = jax.jit(lambda m: m.at[i].add(m[:6] * 3.3))(m)"),
]

_I4 = "v = jnp.array([-8, 3, 7, -1], jnp.int4)\n"
INT4 = [
    ("reductions", _I4 + "out = (jnp.max(v), jnp.min(v), jnp.argmax(v), jnp.sort(v), jnp.cumsum(v))"),
    ("arithmetic", _I4 + "out = (-v, v * v, v // 2, v + 1, jax.jit(lambda v: v * 3 - 1)(v))"),
    (
        "selection",
        _I4 + "out = (jnp.clip(v, -2, 2), jnp.where(v > 0, v, 0), jnp.maximum(v, 1), v.at[0].max(5))",
    ),
    ("casts", _I4 + "out = (v.astype(jnp.bfloat16), v.astype(jnp.uint4), v.astype(jnp.float32))"),
    ("abs", _I4 + "out = jnp.abs(v)"),
]

TRANSFORMS = [
    ("grad", "out = jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(x)"),
    ("grad_matmul", "out = jax.grad(lambda a, b: jnp.mean(jnp.tanh(a @ b)), argnums=(0, 1))(a, b)"),
    ("value_and_grad", "out = jax.value_and_grad(lambda x: jnp.sum(x ** 2) / 3)(x)"),
    ("jvp", "out = jax.jvp(lambda x: jnp.exp(x) * x, (x,), (y,))"),
    ("vjp", "p, f_vjp = jax.vjp(lambda x: jnp.cos(x) * 2, x)\nout = (p, f_vjp(y))"),
    ("jacfwd", "out = jax.jacfwd(lambda v: jnp.sin(v) * v[0])(x[:4])"),
    ("vmap", "out = jax.vmap(lambda r: jnp.sum(r * r))(a)"),
    ("vmap_grad", "out = jax.vmap(jax.grad(lambda s: jnp.tanh(s) * s))(x)"),
    ("jit_chain", "out = jax.jit(lambda x, y: jnp.tanh(x) * y + x)(x, y)"),
    ("jit_reductions", "out = jax.jit(lambda a, b: (jnp.sum(a @ b), jnp.mean(a, 0), jnp.max(b)))(a, b)"),
    ("jit_grad", "out = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)))(x)"),
    ("jit_twice", "g = jax.jit(lambda x: x * 3 + 1)\ng(x)\nout = g(y)"),
    ("scan", "out = jax.lax.scan(lambda c, v: (c * 0.9 + v, c), x[0], x[1:20])"),
    ("fori", "out = jax.lax.fori_loop(0, 5, lambda i, c: c * y[:8] + 1, x[:8])"),
    ("cond", "out = jax.lax.cond(x[0] > 0, lambda v: v * 2, lambda v: v - 1, x[:5])"),
    ("astype_grad", "out = jax.grad(lambda v: jnp.sum(v.astype(jnp.bfloat16) ** 2))(f[:5])"),
]

JAXPRS = [
    ("sum", "jnp.sum", "x"),
    ("mean", "jnp.mean", "x"),
    ("matmul", "lambda a, b: a @ b", "a, b"),
    ("weak", "lambda x: x * 2 + 1.5", "x"),
    ("grad", "jax.grad(lambda x: jnp.sum(jnp.sin(x)))", "x"),
    ("astype", "lambda x: x.astype(jnp.float8_e5m2).astype(jnp.int4)", "x"),
    ("promote", "lambda x: x + jnp.ones(257, jnp.float16)", "x"),
]

REPRS = [
    ("array", "repr(x[:5])"),
    ("str", "str(a[:2, :3])"),
    ("scalar", "repr(x[0])"),
    ("float8", "repr(f[:4].astype(jnp.float8_e4m3fn))"),
    ("int4", "repr(jnp.array([-8, 3], jnp.int4))"),
    ("dtype", "repr(jnp.dtype(jnp.bfloat16)), str(jnp.bfloat16.dtype)"),
    ("aval", "str(jax.make_jaxpr(lambda x: x)(jnp.zeros(3, jnp.float8_e4m3b11fnuz)))"),
]

SNIPPETS = {
    "arithmetic": ARITHMETIC,
    "promotion": PROMOTION,
    "reductions": REDUCTIONS,
    "matmul": MATMUL,
    "casts": CASTS,
    "creation": CREATION,
    "indexing": INDEXING,
    "int4": INT4,
    "transforms": TRANSFORMS,
}


def encode(v):
    """A result as JSON: containers recursively, arrays as dtype, shape, weak_type and their bits."""
    if isinstance(v, (list, tuple)):
        return {"seq": [encode(e) for e in v]}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return {"py": v}
    a = np.asarray(v)
    bits = a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
    return {
        "dtype": a.dtype.name,
        "shape": list(a.shape),
        "weak_type": bool(getattr(v, "weak_type", False)),
        "bits": bits.ravel().tolist(),
    }


def run(code: str, ns: dict):
    env = dict(ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(PRELUDE + code, env)
    return env.get("out")


def record_all(ns: dict) -> dict:
    """Every snippet's answer (or the class and first line of the error raised)."""
    out: dict = {}
    for topic, cases in SNIPPETS.items():
        for name, code in cases:
            try:
                out[f"{topic}/{name}"] = {"value": encode(run(code, ns))}
            except Exception as e:
                out[f"{topic}/{name}"] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    for name, fn, args in JAXPRS:
        out[f"jaxpr/{name}"] = {"text": run(f"out = str(jax.make_jaxpr({fn})({args}))", ns)}
    for name, expr in REPRS:
        out[f"repr/{name}"] = {"text": run(f"out = {expr}", ns)}
    return out


def main():
    import jax
    import jax.numpy as jnp
    from jax import lax

    recorded = record_all({"jax": jax, "jnp": jnp, "lax": lax, "np": np})
    path = pathlib.Path(__file__).resolve().parent / "bfloat16.json"
    path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"{len(recorded)} answers")


if __name__ == "__main__":
    main()
