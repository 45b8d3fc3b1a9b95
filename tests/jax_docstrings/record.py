"""Record what JAX 0.10.2 prints and raises for the examples in its public API docstrings.

    /work/main/.jax-venv/bin/python tests/jax_docstrings/record.py [MODULE ...]

Walks the public names of ``MODULES`` and the methods their public classes define (each object once,
under the first module that exports it), parses each docstring's ``>>>`` examples with
``doctest.DocTestParser``, and runs them in order in a fresh namespace (``docstring_runner.py``),
twice. It records JAX's actual outputs, not the text the docstring shows. Writes
``recorded/<module>.json``: per docstring, where it is in JAX's source (file, line, qualified name)
and, per example, a hash of its source and what it printed and raised. No source text: the test
reads it back from a JAX checkout (``docstring_source.py``). A docstring that is not a literal in
JAX's source (built at import time, or numpy's on an object JAX re-exports) is recorded as not
scored, with the reason.

An example is skipped (not run, here nor on the engine) when it needs what a CPU process without
files or network lacks (``static_skip``), is marked ``+SKIP`` in JAX, or raises a NameError because
an earlier one was skipped; an example whose output differs between two runs is not scored.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import json
import os
import pathlib
import re
import sys
import types
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import docstring_source  # noqa: E402
from doc_cells import cell_hash  # noqa: E402
from docstring_runner import run_in_subprocess  # noqa: E402

# In this order: an object exported by several modules is recorded under the first.
MODULES = [
    "jax.numpy",
    "jax.numpy.linalg",
    "jax.numpy.fft",
    "jax.lax",
    "jax.nn",
    "jax.nn.initializers",
    "jax.random",
    "jax.scipy.stats",
    "jax.scipy.linalg",
    "jax.scipy.signal",
    "jax.scipy.fft",
    "jax.scipy.ndimage",
    "jax.scipy.integrate",
    "jax.scipy.interpolate",
    "jax.scipy.spatial.transform",
    "jax.tree_util",
    "jax.tree",
    "jax",
    "jax.dtypes",
    "jax.debug",
    "jax.sharding",
    "jax.ops",
    "jax.experimental.sparse",
    "jax.errors",
    "jax.ref",
    "jax.custom_derivatives",
    "jax.custom_batching",
    "jax.ad_checkpoint",
    "jax.experimental.checkify",
    "jax.experimental.jet",
    "jax.experimental.random",
    "jax.experimental.multihost_utils",
    "jax.export",
    "jax.profiler",
    "jax.scipy.cluster",
]
# Public modules whose docstrings have no ``>>>`` example in JAX 0.10.2 (or only other libraries'
# docstrings, as example_libraries' namedtuples): nothing to record. jax.lax.linalg's are recorded
# under jax.lax.
NO_EXAMPLES = [
    "jax.scipy.special",
    "jax.image",
    "jax.stages",
    "jax.ffi",
    "jax.experimental.ode",
    "jax.experimental.mesh_utils",
    "jax.example_libraries.optimizers",
    "jax.example_libraries.stax",
]

_SKIP_PATTERNS = [
    (r"['\"](gpu|tpu|cuda|rocm)['\"]|\b(gpu|tpu)s?\(|jax\.devices\(\s*['\"]", "needs a GPU/TPU"),
    (r"\bjax\.distributed\b|process_index|process_count", "needs several hosts"),
    (r"\bopen\(|\bnp\.(save|load)|tempfile|\bpathlib\b|\bos\.", "reads or writes files"),
    (r"\b(urllib|requests|http)\b", "needs the network"),
    (r"\bprofiler\.", "profiles to files"),
    (r"\btime\.(time|perf_counter)\(|\btimeit\b", "timing"),
]


def static_skip(example: doctest.Example) -> str | None:
    if example.options.get(doctest.SKIP):
        return "marked +SKIP in JAX's docstring"
    for pattern, reason in _SKIP_PATTERNS:
        if re.search(pattern, example.source):
            return reason
    return None


def _learned_skip(outcome: dict | None) -> str | None:
    if outcome is None or outcome["error"] is None:
        return None
    if outcome["error"] in ("ModuleNotFoundError", "ImportError"):
        return "needs a module the reference venv lacks"
    if outcome["error"] == "NameError":
        return "uses a name the docstring does not define (or a skipped example's)"
    return None


def _submodules(module: str) -> list[str]:
    """A module and its public submodules that are not in ``MODULES`` themselves
    (``jax.scipy.stats.norm``, ...)."""
    mod = importlib.import_module(module)
    subs = [
        f"{module}.{n}"
        for n in sorted(dir(mod))
        if not n.startswith("_")
        and isinstance(getattr(mod, n), types.ModuleType)
        and getattr(mod, n).__name__ == f"{module}.{n}"  # not a module it imports (jet's `ad_util`)
    ]
    return [module] + [s for s in subs if s not in MODULES and s.startswith(module + ".")]


def _locate(obj, sources: tuple[str, ...], index: dict) -> dict | None:
    """The docstring in JAX's source with these examples, preferring the object's own file."""
    places = index.get(sources, [])
    try:
        own = pathlib.Path(inspect.getsourcefile(inspect.unwrap(obj)) or "").as_posix()
    except (TypeError, ValueError):
        own = ""
    mine = [p for p in places if own.endswith("/" + p["path"])]
    return (mine or places or [None])[0]


def _defined_in(member, cls) -> bool:
    """Is ``member`` a method or property of ``cls``: a function (jit-wrapped ones too, as
    ``jnp.ufunc.reduce``) written in its body, or a plain function or property attached to it (as
    ``jax.Array.view``), not another object it refers to (an enum member, a nested class)?"""
    if isinstance(member, (types.FunctionType, property, classmethod, staticmethod)):
        return True
    qualname = getattr(member, "__qualname__", None)
    return callable(member) and isinstance(qualname, str) and qualname.startswith(f"{cls.__qualname__}.")


def _public_members(mod) -> list[tuple[str, object]]:
    """(name, object) of a module's public names, then of the methods and properties its public
    classes define themselves (``custom_jvp.defjvp``), named ``Class.member`` (not under an alias
    such as ``jax.numpy.ndarray``, so they are recorded under the class's own name)."""
    members = []
    for name in sorted(dir(mod)):
        obj = getattr(mod, name, None)
        if name.startswith("_") or isinstance(obj, types.ModuleType):
            continue
        members.append((name, obj))
        if (
            isinstance(obj, type)
            and obj.__name__.rsplit(".", 1)[-1] == name
            and obj.__module__.split(".")[0] == "jax"
        ):
            members += [
                (f"{name}.{k}", v)
                for k, v in sorted(vars(obj).items())
                if not k.startswith("_") and _defined_in(v, obj)
            ]
    return members


def docstrings(module: str, seen: set, index: dict) -> list[dict]:
    parser = doctest.DocTestParser()
    found = []
    for modname in _submodules(module) if module != "jax" else [module]:
        mod = importlib.import_module(modname)
        for name, obj in _public_members(mod):
            doc = getattr(obj, "__doc__", None)
            if id(obj) in seen or isinstance(obj, (int, float, str, tuple, dict)) or not isinstance(doc, str):
                continue
            examples = parser.get_examples(doc)
            if not examples:
                continue
            seen.add(id(obj))
            place = _locate(obj, tuple(e.source for e in examples), index)
            skip = [static_skip(e) for e in examples]
            found.append(
                {
                    "name": f"{modname}.{name}",
                    "place": place,
                    "examples": [e.source for e in examples],
                    "skip": skip if place else [docstring_source.unreadable_reason(obj)] * len(examples),
                }
            )
    return found


def record(module: str, seen: set, index: dict) -> dict | None:
    spec = docstrings(module, seen, index)
    if not spec:
        return None
    for _ in range(4):
        first = run_in_subprocess("jax", sys.executable, spec)
        changed = False
        for entry, outcomes in zip(spec, first):
            learned = [s or _learned_skip(o) for s, o in zip(entry["skip"], outcomes)]
            changed |= learned != entry["skip"]
            entry["skip"] = learned
        if not changed:
            break
    second = run_in_subprocess("jax", sys.executable, spec)
    out = []
    for entry, a_all, b_all in zip(spec, first, second):
        if entry["place"] is None:
            out.append({"name": entry["name"], "unscored": entry["skip"][0]})
            continue
        examples = []
        for source, skip, a, b in zip(entry["examples"], entry["skip"], a_all, b_all):
            ex: dict = {"hash": cell_hash(source)}
            if skip:
                ex["skip"] = skip
            else:
                ex.update(out=a["out"], error=a["error"])
                if (a["out"], a["error"]) != (b["out"], b["error"]):
                    ex["unscored"] = "output differs between two runs of JAX (ids, timing)"
            examples.append(ex)
        out.append({"name": entry["name"], **entry["place"], "examples": examples})
    return {"module": module, "docstrings": out}


def main(modules: list[str]):
    import jax

    os.environ["JAXPLAY_EXAMPLE_TIMEOUT_S"] = "900"  # JAX's outcome, however slow the machine
    warnings.simplefilter("ignore")
    out_dir = HERE / "recorded"
    out_dir.mkdir(exist_ok=True)
    seen: set = set()
    index = docstring_source.index_package(pathlib.Path(jax.__file__).parent)
    for module in MODULES:  # every module is walked, so `seen` assigns objects as a full run does
        rec = (
            record(module, seen, index)
            if not modules or module in modules
            else (docstrings(module, seen, index), None)[1]
        )
        if rec is None:
            continue
        rec["jax_version"] = jax.__version__
        (out_dir / f"{module}.json").write_text(json.dumps(rec, indent=1) + "\n")
        exs = [e for d in rec["docstrings"] for e in d.get("examples", [])]
        n_run = sum(1 for e in exs if "skip" not in e)
        print(f"{module}: {len(rec['docstrings'])} docstrings, {len(exs)} examples, {n_run} run", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
