"""Sweep public jax.numpy / jax.nn / jax.numpy.linalg / jax.scipy.special functions (and, in
sweep_programs.py and sweep_lax.py, more of jax.scipy, jax.lax, jax.random and transformed
programs; in sweep_numpy_api.py, sweep_numpy_shapes.py, sweep_linalg_fft.py, sweep_nn_scipy.py
and sweep_lax_random.py the rest of the public API a learner touches, with typical and less
common arguments and grad / vmap / jit(grad) / jvp of them; in sweep_fuzz.py the corners where
values go silently wrong): ``make_jaxpr`` texts and values,
JAX 0.10.2 against the engine.

    /work/main/.jax-venv/bin/python tests/fidelity/sweep.py dump /tmp/jax.json
    PYTHONPATH=$PWD .venv/bin/python tests/fidelity/sweep.py dump /tmp/engine.json --engine
    python tests/fidelity/sweep.py compare /tmp/jax.json /tmp/engine.json [--show]
    /work/main/.jax-venv/bin/python tests/fidelity/sweep.py record     # -> sweep_expected.json
    /work/main/.jax-venv/bin/python tests/fidelity/sweep.py record --only=nested_ad.   # those cases
    PYTHONPATH=$PWD .venv/bin/python tests/fidelity/sweep.py differing    # -> sweep_differing.txt

tests/test_fidelity.py asserts every recorded text not listed in sweep_differing.txt identical; that
file groups its cases under ``#`` lines naming the cause, and ``differing`` keeps the groups.

Each function runs on a few typical argument sets (float32 arrays, weakly-typed Python scalars,
ints, bools, axis/keepdims variants), the differentiable jnp / jax.nn ones under grad, vmap and jit
of grad too (``transformed_cases``, built like sweep_programs' transformed cases); a function that
rejects an argument set is recorded with its error class. ``compare`` counts identical texts (after
alpha-renaming) and lists value differences first, then text differences.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

try:
    from . import (
        sweep_api_misc,
        sweep_closures,
        sweep_debugging,
        sweep_fuzz,
        sweep_lax,
        sweep_lax_random,
        sweep_linalg_fft,
        sweep_nested_ad,
        sweep_nn_scipy,
        sweep_numpy_api,
        sweep_numpy_shapes,
        sweep_programs,
        sweep_refs,
        sweep_ulp,
    )
except ImportError:  # run as a script
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sweep_api_misc  # type: ignore[no-redef]
    import sweep_closures  # type: ignore[no-redef]
    import sweep_debugging  # type: ignore[no-redef]
    import sweep_fuzz  # type: ignore[no-redef]
    import sweep_lax  # type: ignore[no-redef]
    import sweep_lax_random  # type: ignore[no-redef]
    import sweep_linalg_fft  # type: ignore[no-redef]
    import sweep_nested_ad  # type: ignore[no-redef]
    import sweep_nn_scipy  # type: ignore[no-redef]
    import sweep_numpy_api  # type: ignore[no-redef]
    import sweep_numpy_shapes  # type: ignore[no-redef]
    import sweep_programs  # type: ignore[no-redef]
    import sweep_refs  # type: ignore[no-redef]
    import sweep_ulp  # type: ignore[no-redef]

_f32, _pos, _unit = sweep_programs._f32, sweep_programs._pos, sweep_programs._unit
NAN = float("nan")


def _with_nans():
    return np.array([[1.0, NAN, 3.0], [NAN, NAN, NAN]], np.float32)


# Argument sets: name -> (args, kwargs). Unary functions run on all of "f32", "scalar", "int", "bool".
UNARY_ARGS = {
    "f32": lambda: ((_f32(2, 3),), {}),
    "pos": lambda: ((_pos(2, 3),), {}),
    "gt1": lambda: ((_pos(2, 3) + 1,), {}),
    "even": lambda: ((_f32(2, 4),), {}),
    "unit": lambda: ((_unit(2, 3),), {}),
    "scalar": lambda: ((0.5,), {}),
    "int": lambda: ((np.arange(6, dtype=np.int32).reshape(2, 3),), {}),
    "bool": lambda: ((np.array([True, False, True]),), {}),
}
BINARY_ARGS = {
    "f32": lambda: ((_pos(2, 3), _pos(2, 3, seed=1)), {}),
    "f32_scalar": lambda: ((_pos(2, 3), 2.0), {}),
    "int": lambda: ((np.arange(1, 7, dtype=np.int32).reshape(2, 3), np.int32(2)), {}),
    "bcast": lambda: ((_pos(2, 3), _pos(3, seed=1)), {}),
}
REDUCTION_ARGS = {
    "f32": lambda: ((_f32(2, 3),), {}),
    "axis0": lambda: ((_f32(2, 3),), {"axis": 0}),
    "axis1_keep": lambda: ((_f32(2, 3),), {"axis": 1, "keepdims": True}),
    "int": lambda: ((np.arange(6, dtype=np.int32).reshape(2, 3),), {}),
    "bool": lambda: ((np.array([True, False, True]),), {}),
    "nans": lambda: ((_with_nans(),), {}),
    "nans_axis1": lambda: ((_with_nans(),), {"axis": 1}),
    "all_nan": lambda: ((np.array([NAN, NAN], np.float32),), {}),
}

UNARY = """abs absolute negative positive sign floor ceil round rint trunc fix exp exp2 expm1 log log2 log10
log1p sqrt cbrt square reciprocal sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh
deg2rad rad2deg degrees radians isnan isinf isfinite signbit logical_not invert real imag conj conjugate
angle sinc i0 nan_to_num isreal iscomplex isneginf isposinf fabs spacing frexp modf""".split()
BINARY = """add subtract multiply divide true_divide floor_divide power float_power mod remainder fmod
maximum minimum fmax fmin arctan2 hypot logaddexp logaddexp2 copysign nextafter heaviside equal not_equal
less less_equal greater greater_equal logical_and logical_or logical_xor ldexp divmod""".split()
INT_BINARY = "bitwise_and bitwise_or bitwise_xor left_shift right_shift gcd lcm".split()
REDUCTIONS = """sum prod max min mean var std median ptp any all argmax argmin count_nonzero nansum
nanprod nanmax nanmin nanmean nanvar nanstd nanargmax nanargmin nanmedian cumsum cumprod nancumsum
nancumprod average amax amin""".split()
NN = """relu relu6 sigmoid softplus soft_sign silu swish log_sigmoid elu leaky_relu hard_tanh celu selu
gelu glu log_softmax softmax logsumexp standardize hard_sigmoid hard_silu hard_swish sparse_plus
sparse_sigmoid squareplus mish identity""".split()
SPECIAL = """erf erfc erfinv expit logit gammaln digamma ndtr ndtri log_ndtr entr i0 i0e i1 i1e sinc
gamma erfcx dawsn exp1 expi spence sici fresnel""".split()
SPECIAL_BINARY = "owens_t".split()
LINALG_SQUARE = "det slogdet inv eigvalsh cholesky matrix_rank pinv svd qr norm eigh".split()

# Of the functions above, the ones with a real-valued float output that grad accepts; their
# grad / vmap / jit_grad variants are swept too, on an argument set inside the function's domain.
NOT_DIFFERENTIABLE = set(
    """isnan isinf isfinite signbit logical_not invert isreal iscomplex isneginf isposinf spacing fix
    equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor nextafter
    ldexp any all argmax argmin count_nonzero nanargmax nanargmin""".split()
)
UNARY_DOMAIN = {
    **dict.fromkeys("log log2 log10 log1p sqrt cbrt reciprocal".split(), "pos"),
    **dict.fromkeys("arcsin arccos arctanh".split(), "unit"),
    "arccosh": "gt1",
}


def cases():
    """Yield (case name, module path, function name, args builder)."""
    for fn in UNARY:
        for arg in ("f32", "scalar", "int", "bool"):
            yield f"jnp.{fn}[{arg}]", "numpy", fn, UNARY_ARGS[arg]
    for fn in BINARY:
        for arg in ("f32", "f32_scalar", "int", "bcast"):
            yield f"jnp.{fn}[{arg}]", "numpy", fn, BINARY_ARGS[arg]
    for fn in INT_BINARY:
        yield f"jnp.{fn}[int]", "numpy", fn, BINARY_ARGS["int"]
    for fn in REDUCTIONS:
        for arg in REDUCTION_ARGS:
            yield f"jnp.{fn}[{arg}]", "numpy", fn, REDUCTION_ARGS[arg]
    for fn in ("nanpercentile", "nanquantile", "percentile", "quantile"):
        q = 50.0 if "percentile" in fn else 0.5
        for arg in ("f32", "nans", "nans_axis1", "all_nan"):
            base = REDUCTION_ARGS[arg]
            yield (
                f"jnp.{fn}[{arg}]",
                "numpy",
                fn,
                (lambda base=base, q=q: ((base()[0][0], q), base()[1])),
            )
    for fn in NN:
        for arg in ("f32", "scalar"):
            yield f"nn.{fn}[{arg}]", "nn", fn, UNARY_ARGS[arg]
    for fn in SPECIAL:
        for arg in ("pos", "unit", "scalar"):
            yield f"special.{fn}[{arg}]", "scipy.special", fn, UNARY_ARGS[arg]
    for fn in SPECIAL_BINARY:
        for arg in ("f32", "f32_scalar"):
            yield f"special.{fn}[{arg}]", "scipy.special", fn, BINARY_ARGS[arg]
    for fn in LINALG_SQUARE:
        yield f"linalg.{fn}[f32]", "numpy.linalg", fn, lambda: ((_spd(3),), {})


def transformed_cases():
    """Yield (transformation, case name, module path, function name, args builder): the
    transformations users stack most, on the differentiable jnp and jax.nn functions above."""
    kinds = ("grad", "vmap", "jit_grad")
    for fn in UNARY:
        if fn not in NOT_DIFFERENTIABLE:
            arg = UNARY_DOMAIN.get(fn, "f32")
            for kind in kinds:
                yield kind, f"jnp.{fn}[{arg}]", "numpy", fn, UNARY_ARGS[arg]
    for fn in BINARY:
        if fn not in NOT_DIFFERENTIABLE:
            for kind, arg in [(k, "f32") for k in kinds] + [("grad", "bcast"), ("vmap", "bcast")]:
                yield kind, f"jnp.{fn}[{arg}]", "numpy", fn, BINARY_ARGS[arg]
    for fn in REDUCTIONS:
        if fn not in NOT_DIFFERENTIABLE:
            for kind, arg in [(k, "f32") for k in kinds] + [("grad", "axis1_keep"), ("vmap", "axis0")]:
                yield kind, f"jnp.{fn}[{arg}]", "numpy", fn, REDUCTION_ARGS[arg]
    for fn in ("nanpercentile", "nanquantile", "percentile", "quantile"):
        q = 50.0 if "percentile" in fn else 0.5
        for kind in kinds:
            yield kind, f"jnp.{fn}[f32]", "numpy", fn, (lambda q=q: ((_f32(2, 3), q), {}))
    for fn in NN:
        arg = "even" if fn == "glu" else "f32"
        for kind in kinds:
            yield kind, f"nn.{fn}[{arg}]", "nn", fn, UNARY_ARGS[arg]


def _spd(n):
    a = _f32(n, n, seed=3)
    return (a @ a.T + n * np.eye(n)).astype(np.float32)


def _value(out):
    leaves = out if isinstance(out, (tuple, list)) else [out]
    vals = []
    for leaf in leaves:
        if hasattr(leaf, "_asdict"):
            leaf = tuple(leaf)
        arr = np.asarray(leaf)
        vals.append({"dtype": str(arr.dtype), "shape": list(arr.shape), "v": arr.astype(object).tolist()})
    return vals


def all_cases():
    """Yield (case name, make): ``make(jax)`` returns ``(fun, args)`` for the running framework
    and raises AttributeError/ImportError where it lacks the API."""
    import importlib

    def plain(mod, fn, build):
        def make(jax):
            f = getattr(importlib.import_module(f"jax.{mod}"), fn)
            args, kwargs = build()
            return (lambda *a: f(*a, **kwargs)), args

        return make

    for name, mod, fn, build in cases():
        yield name, plain(mod, fn, build)
    for kind, name, mod, fn, build in transformed_cases():
        yield f"{kind}({name})", sweep_programs._transformed(plain(mod, fn, build), kind)
    yield from sweep_programs.CASES.items()
    yield from sweep_lax.CASES.items()
    yield from sweep_api_misc.CASES.items()
    yield from sweep_closures.CASES.items()
    yield from sweep_debugging.CASES.items()
    yield from sweep_refs.CASES.items()
    yield from sweep_nested_ad.CASES.items()
    # the wider API: jnp's sorting/sets/histograms/polynomials/einsum/indexing/manipulation,
    # linalg and fft variants, nn / scipy / image, less common lax, random and tree_util
    for module in (sweep_numpy_api, sweep_numpy_shapes, sweep_linalg_fft, sweep_nn_scipy, sweep_lax_random):
        yield from module.CASES.items()
    # the corners an engine is most often silently wrong in (dtype promotion, integer division,
    # nan/inf, empty arrays, indexing modes, where=/initial=, bad axes, grads at kinks)
    yield from sweep_fuzz.CASES.items()


def _import_modules():
    import importlib

    for mod in sweep_programs.MODULES:
        try:
            importlib.import_module("jax." + mod)
        except ImportError:
            pass


def _texts(jax, only: str = "") -> dict:
    """Case name -> ``{"jaxpr": text}`` or ``{"error": class name}`` (functions the running
    framework lacks are left out); ``only``: the cases whose name starts with it."""
    _import_modules()
    out = {}
    for name, make in all_cases():
        if not name.startswith(only):
            continue
        try:
            g, args = make(jax)
        except (AttributeError, ImportError):
            continue
        try:
            out[name] = {"jaxpr": str(jax.make_jaxpr(g)(*args))}
        except Exception as e:
            out[name] = {"error": type(e).__name__}
    return out


def record(only: str = ""):
    """Record JAX's texts of every case into ``sweep_expected.json`` (tests read it, never JAX);
    ``only``: re-record the cases whose name starts with it, keeping the others' texts."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"  # the pmap cases
    import jax

    assert jax.__version__ == "0.10.2", jax.__version__
    jax.config.update("jax_pprint_use_color", False)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sweep_expected.json")
    cases = _texts(jax, only)
    if only:
        kept = json.load(open(out))["cases"]
        cases = {**{n: v for n, v in kept.items() if not n.startswith(only)}, **cases}
    with open(out, "w") as fh:
        json.dump({"jax_version": jax.__version__, "cases": cases}, fh, indent=0, sort_keys=True)
        fh.write("\n")


def engine_texts() -> dict:
    """The engine's texts of every case (``import jax`` resolving to the engine meanwhile)."""
    from engine import compat

    compat.install()
    try:
        import jax

        return _texts(jax)
    finally:
        compat.uninstall()


def listed_differing(text: str) -> list[str]:
    """The case names in ``sweep_differing.txt`` (``#`` lines head groups with their cause)."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _regroup(old: str, differing: set) -> str:
    """``old``'s groups, keeping their ``#`` headers, without the cases that now match; a group
    left empty goes with its header; new differing cases go in a last, unexplained group."""
    groups: list[tuple[list[str], list[str]]] = []
    for line in old.splitlines():
        if line.startswith("#"):
            if not groups or groups[-1][1]:
                groups.append(([], []))
            groups[-1][0].append(line)
        elif line.strip():
            if not groups:
                groups.append(([], []))
            groups[-1][1].append(line.strip())
    seen = {n for _, names in groups for n in names}
    fresh = sorted(differing - seen)
    if fresh:
        groups.append((["# not yet explained"], fresh))
    blocks = []
    for header, names in groups:
        kept = [n for n in names if n in differing]
        if kept:
            blocks.append("\n".join(header + kept) + "\n")
    return "\n".join(blocks)


def write_differing():
    """List the cases whose engine text differs from the recorded one in ``sweep_differing.txt``,
    in the groups (causes) the file already has."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from tests.fidelity.compare import alpha_rename

    here = os.path.dirname(os.path.abspath(__file__))
    want = json.load(open(os.path.join(here, "sweep_expected.json")))["cases"]
    got = engine_texts()
    differing = {
        n
        for n, w in want.items()
        if "jaxpr" in w and alpha_rename(got.get(n, {}).get("jaxpr", "")) != alpha_rename(w["jaxpr"])
    }
    path = os.path.join(here, "sweep_differing.txt")
    old = open(path).read() if os.path.exists(path) else ""
    with open(path, "w") as fh:
        fh.write(_regroup(old, differing))
    texts = sum("jaxpr" in w for w in want.values())
    print(f"{texts - len(differing)}/{texts} identical; {len(differing)} listed as differing")


def dump(path, use_engine, only=""):
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    if use_engine:
        import engine.compat

        engine.compat.install()
    import jax

    if not use_engine:
        jax.config.update("jax_pprint_use_color", False)
    _import_modules()
    out = {}
    for name, make in all_cases():
        if not name.startswith(only):
            continue
        rec = {}
        try:
            g, args = make(jax)
        except (AttributeError, ImportError) as e:
            out[name] = {"missing": f"{type(e).__name__}"}
            continue
        try:
            rec["jaxpr"] = str(jax.make_jaxpr(g)(*args))
        except Exception as e:
            rec["jaxpr_error"] = type(e).__name__
        try:
            rec["value"] = _value(jax.tree_util.tree_leaves(g(*args)))
        except Exception as e:
            rec["value_error"] = type(e).__name__
        try:  # the same case compiled: a rule's jit path can differ from its eager one
            rec["jit_value"] = _value(jax.tree_util.tree_leaves(jax.jit(g)(*args)))
        except Exception as e:
            rec["jit_value_error"] = type(e).__name__
        out[name] = rec
    with open(path, "w") as fh:
        json.dump(out, fh, default=str)


def _close(a, b):
    if a["dtype"] != b["dtype"] or a["shape"] != b["shape"]:
        return False
    x, y = np.asarray(a["v"], dtype=object), np.asarray(b["v"], dtype=object)
    try:
        xf, yf = x.astype(np.complex128), y.astype(np.complex128)
    except (TypeError, ValueError):
        return bool(np.all(x == y))
    return bool(np.allclose(xf, yf, rtol=2e-5, atol=1e-6, equal_nan=True))


def compare(jax_path, engine_path, show=False):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from tests.fidelity.compare import alpha_rename

    ref, eng = json.load(open(jax_path)), json.load(open(engine_path))
    same = total = 0
    value_diffs, text_diffs, missing = [], [], []
    for name, r in ref.items():
        e = eng.get(name, {})
        if "missing" in r:
            continue
        total += 1
        if "missing" in e:
            missing.append(name)
            continue
        if "jaxpr" in r and alpha_rename(r["jaxpr"]) == alpha_rename(e.get("jaxpr", "")):
            same += 1
        elif "jaxpr" in r or "jaxpr" in e:
            text_diffs.append(name)
        if "value" in r:
            if "value" not in e or len(e["value"]) != len(r["value"]):
                value_diffs.append((name, r["value"], e.get("value") or e.get("value_error")))
            elif not all(_close(a, b) for a, b in zip(r["value"], e["value"])):
                value_diffs.append((name, r["value"], e["value"]))
        elif "value" in e:
            value_diffs.append((name, r.get("value_error"), "engine accepts"))
        if "jit_value" in r and "jit_value" in e:
            if len(e["jit_value"]) != len(r["jit_value"]) or not all(
                _close(a, b) for a, b in zip(r["jit_value"], e["jit_value"])
            ):
                value_diffs.append((f"jit {name}", r["jit_value"], e["jit_value"]))
        elif "jit_value" in r and "jit_value" not in e:
            value_diffs.append((f"jit {name}", r["jit_value"], e.get("jit_value_error")))
        elif "jit_value" in e and "jit_value_error" in r:
            value_diffs.append((f"jit {name}", r["jit_value_error"], "engine accepts"))
    print(f"compared {total}, identical jaxprs {same}, text diffs {len(text_diffs)}, ", end="")
    print(f"value diffs {len(value_diffs)}, missing in engine {len(missing)}")
    for name, a, b in value_diffs:
        print("VALUE", name, "\n  jax:   ", str(a)[:300], "\n  engine:", str(b)[:300])
    for name in text_diffs:
        print("TEXT ", name)
        if show:
            print(ref[name].get("jaxpr", ref[name]))
            print(eng[name].get("jaxpr", eng[name]))
    print("MISSING", " ".join(missing))


class _Slow(BaseException):
    pass


def _too_slow(*_):
    raise _Slow


def ulp_dump(path, use_engine, only=""):
    """Each ``sweep_ulp`` case's eager and jitted outputs (arrays, or the error's class; ``_Slow``
    past 30 s) pickled."""
    import pickle
    import signal

    signal.signal(signal.SIGALRM, _too_slow)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if use_engine:
        import engine.compat

        engine.compat.install()
    import jax

    _import_modules()
    out = {}
    for i, (name, make) in enumerate(sweep_ulp.cases().items()):
        if not name.startswith(only):
            continue
        if i % 50 == 0:  # (what is done so far, for a long run)
            print(i, name, file=sys.stderr, flush=True)
            with open(path, "wb") as fh:
                pickle.dump(out, fh)
        for mode in ("eager", "jit"):
            signal.alarm(30)  # (a case that runs on: recorded as such, the sweep goes on)
            try:
                g, args = make(jax)
                g = jax.jit(g) if mode == "jit" else g
                out[f"{name}[{mode}]"] = [np.asarray(x) for x in jax.tree_util.tree_leaves(g(*args))]
            except (Exception, _Slow) as e:
                out[f"{name}[{mode}]"] = type(e).__name__
            finally:
                signal.alarm(0)
    with open(path, "wb") as fh:
        pickle.dump(out, fh)


def ulp_compare(jax_path, engine_path):
    """The cases whose outputs differ from JAX's bits, with the largest distance in ulps (-1: shapes
    or dtypes differ), and those where one side raises."""
    import pickle

    ref, eng = pickle.load(open(jax_path, "rb")), pickle.load(open(engine_path, "rb"))
    differing = []
    for name, r in ref.items():
        e = eng.get(name)
        if isinstance(r, str) or isinstance(e, str) or e is None:
            if r != e and not (isinstance(r, str) and isinstance(e, str)):
                differing.append(
                    (
                        name,
                        f"raises: jax {r if isinstance(r, str) else 'no'}, engine {e if isinstance(e, str) else 'no'}",
                    )
                )
            continue
        d = [sweep_ulp.ulps(a, b) for a, b in zip(r, e)] if len(r) == len(e) else [-1]
        if any(d):
            differing.append((name, f"max ulp {max(d) if min(d) >= 0 else -1}"))
    print(f"{len(ref) - len(differing)}/{len(ref)} identical")
    for name, what in differing:
        print(f"{name:60s} {what}")


if __name__ == "__main__":
    if sys.argv[1] == "ulp-dump":
        only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
        ulp_dump(sys.argv[2], "--engine" in sys.argv, only[0] if only else "")
    elif sys.argv[1] == "ulp-compare":
        ulp_compare(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "record":
        only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
        record(only[0] if only else "")
    elif sys.argv[1] == "differing":
        write_differing()
    elif sys.argv[1] == "dump":
        only = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--only=")]
        dump(sys.argv[2], "--engine" in sys.argv, only[0] if only else "")
    else:
        compare(sys.argv[2], sys.argv[3], "--show" in sys.argv)
