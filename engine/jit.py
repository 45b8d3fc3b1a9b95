"""``jit`` and ``make_jaxpr``: stage a function to a jaxpr once per input signature and run the
jaxpr with a backend (numba where available, else the numpy interpreter).

This module is the public wrapper: ``JitFunction`` (argument handling, the staged cache per
signature and the warm-call fast path), ``Lowered``/``Compiled`` and ``make_jaxpr``. The call
primitive ``jit_p`` and its rules are in ``jit_primitive``; backends, executables and tiered
compilation in ``jit_runtime`` (their public names are re-exported here).
"""

from __future__ import annotations

import contextlib
import functools
import inspect as _pyinspect
import sys
import time
import weakref
from typing import Any, Callable, Sequence

import numpy as np
import numpy.typing as npt

from . import (
    ad,
    compile_log,
    core,
    donation,
    invalid_values,
    ir,
    jit_cache_miss,
    jit_runtime,
    jit_signature,
    key_reuse,
    monitoring,
    narrow_dtypes,
    source_info,
    transfers,
)
from .compiled_call import check_call_avals, check_call_tree, check_no_tracers
from .config import config as _config
from .config import disable_jit
from .core import Array, DType, ShapedArray, Tracer, Value
from .errors import check_static_hashable
from .ir import ClosedJaxpr
from .call_operands import call_arguments, hoist_call_consts, mesh_shardings, refs_go_last
from .jit_primitive import jit_p as jit_p
from .jit_primitive import bind_call
from .jit_runtime import CompileJob as CompileJob
from .jit_runtime import Executable, _tier
from .jit_runtime import Interpreter as Interpreter
from .jit_runtime import _executables as _executables
from .jit_runtime import compiles_paused as compiles_paused
from .jit_runtime import executable as executable
from .jit_runtime import get_backend as get_backend
from .jit_runtime import interpret_seconds as interpret_seconds
from .jit_runtime import set_backend as set_backend
from .jit_runtime import wait_for_compiles as wait_for_compiles
from .random_keys import PRNGKeyArray
from .state import Ref, is_ref
from .state.checks import arg_names, check_no_aliased_args, check_no_closed_over_args, check_no_returned_refs
from .state.checks import check_valid_outputs
from .pytree.treedef import PyTreeDef
from .staging import as_shown, displaying, staged_pmaps, staging_for_display, trace_to_jaxpr
from .tree_util import tree_flatten, tree_unflatten


def _written_float(x: float) -> Array:
    out = Array(np.asarray(x, core.default_dtype(float)), True)
    out.python_value = x  # type: ignore[attr-defined]  # (printed as written, as JAX prints it)
    return out


def _abstractify(x: Value) -> ShapedArray:
    if type(x) is ShapeDtypeStruct:  # (jit(f).trace/lower take abstract arguments too)
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return core.get_aval(x)


class Traced:
    """``jit(f).trace(*args)``: the function staged to a jaxpr for these argument types."""

    def __init__(self, lowered: "Lowered"):
        # (shown as make_jaxpr shows it: unread results as `_`, typed on a mesh with explicit axes)
        self.jaxpr = as_shown(lowered.jaxpr, lowered.leaves, bool(lowered.args_on_mesh))
        self.fun_name = lowered.name
        self.out_tree = lowered.out_tree
        self.signature = lowered.signature  # (in_tree, argument names), for Compiled.input_formats
        self._lowered = lowered

    @property
    def out_avals(self) -> Any:
        return tree_unflatten(self.out_tree, list(self.jaxpr.out_avals))

    def lower(self) -> "Lowered":
        # The jit's lowering itself: its argument names, donation and options stay with it.
        return self._lowered


@core.jax_class_path("jax._src.stages.Lowered")
class Lowered:
    """``jit(f).lower(*args)``: the staged program before compilation."""

    def __init__(self, closed: ClosedJaxpr, name: str, out_tree: PyTreeDef, args: Sequence[Any] = ()):
        self.jaxpr = closed
        self.name = name
        self.out_tree = out_tree
        # the arguments' layouts, when some are sharded over a mesh (the program runs per device)
        self.args_on_mesh = [a for a in args if getattr(a, "on_mesh", False)] and list(args)
        self.leaves = list(args)
        self.signature: Any = None  # (in_tree, argument names) when lowered from a jit
        self.keep_unused = False  # (jit's options, for the module text)
        self.text_refusal: str | None = None  # (why the text cannot be JAX's: NotImplementedError)
        self.donated: list[bool] | None = None
        self.hlo_arg_names: Callable[[], list[str]] | None = None  # (JAX's names: x, d['a'])
        self.relower: Any = None  # (a program with a pmap lowers again: its text is of JAX's form)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The StableHLO module JAX prints for this program (``engine.stablehlo``), or XLA's HLO text
        (``dialect="hlo"``). The engine does not compile it: ``.compile()`` runs the jaxpr on its
        own backends."""
        if dialect not in (None, "stablehlo", "hlo"):
            raise NotImplementedError(f"as_text(dialect={dialect!r}): the engine prints stablehlo and hlo")
        if self.args_on_mesh:  # (JAX's text then carries the shardings and partition counts)
            raise NotImplementedError(
                "as_text() for arguments sharded over a mesh: the engine prints no sharding annotations"
            )
        if debug_info:  # (JAX adds loc(...) source locations; printing none would be wrong)
            raise NotImplementedError("as_text(debug_info=True): the engine prints no source locations")
        from .stablehlo import lowered_text

        return lowered_text(self, dialect)

    def cost_analysis(self) -> dict[str, float]:
        """FLOPs (``transcendentals`` apart) and bytes accessed, counted from the jaxpr as XLA's HLO
        cost analysis counts them (``engine.inspect.cost.cost_analysis``: exact for dots,
        reductions and one-operation elementwise ops; the per-operand entries XLA adds are not
        reproduced).

        >>> jax.jit(lambda x, y: x @ y).lower(jnp.ones((2, 3)), jnp.ones((3, 4))).cost_analysis()['flops']
        48.0
        """
        from .inspect.cost import cost_analysis

        return cost_analysis(self.jaxpr.jaxpr)

    def compiler_ir(self, dialect: str | None = None) -> str:
        """JAX returns an MLIR module object; the engine returns its text (``str()`` of JAX's)."""
        return self.as_text(dialect)

    def source(self) -> str | None:
        backend = get_backend()
        if hasattr(backend, "lower_source"):
            return backend.lower_source(jit_runtime.with_lowerings(self.jaxpr), self.name)
        return None

    def compile(self) -> "Compiled":
        if self.args_on_mesh:  # runs as one program per device: no host executable
            ir.check_lowerable(self.jaxpr.jaxpr)  # (what compiling refuses, as for one device)
            return Compiled(None, self)
        return Compiled(executable(self.jaxpr, self.name), self)


@core.jax_class_path("jax._src.stages.Compiled")
class Compiled:
    def __init__(self, exe: Executable | None, lowered: Lowered):
        self.exe = exe
        self.lowered = lowered

    def as_text(self) -> str:
        if self.exe is None:
            from .parallel.compiled_text import partitioned_text

            return partitioned_text(self.lowered.jaxpr, self.lowered.name, self.lowered.args_on_mesh)
        # A backend's note on its executable: the compiled text, or a function that makes it.
        text: Callable[[], str] | str | None = getattr(self.exe, "compiled_text", None)
        if callable(text):
            return text()
        backend = getattr(get_backend(), "name", "?")
        return text or (
            f"# jaxplay engine: the jaxpr jit({self.lowered.name}) compiles with its {backend} backend "
            f"(not XLA); .lowered.source() shows the generated code\n{self.lowered.jaxpr}"
        )

    def memory_analysis(self) -> None:
        """XLA's buffer-assignment sizes (temporaries, arguments, outputs); JAX returns None where a
        backend has none, as here: the engine does not plan buffers ahead of running."""
        return None

    def cost_analysis(self) -> dict[str, float]:
        """As :meth:`Lowered.cost_analysis` (the engine's compiled program is the same jaxpr)."""
        return self.lowered.cost_analysis()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = tree_flatten((args, kwargs))
        if self.lowered.signature is not None:  # (a jit's: the executable runs only what it was built for)
            check_call_tree(in_tree, self.lowered.signature[0])
        check_no_tracers(leaves)
        check_call_avals(
            self.lowered.jaxpr.in_avals, [_abstractify(x) for x in leaves], self.lowered.hlo_arg_names
        )
        if "engine.experimental.layout" in sys.modules:
            names = self.lowered.signature[1] if self.lowered.signature else ()
            sys.modules["engine.experimental.layout"].check_argument_layouts(
                leaves, [names[i] if i < len(names) else f"args[{i}]" for i in range(len(leaves))]
            )
        outs = bind_call(self.lowered.jaxpr, leaves, self.lowered.name)
        return tree_unflatten(self.lowered.out_tree, outs)

    @property
    def input_formats(self) -> Any:
        """The layouts and shardings the program takes: ``(args, kwargs)`` as the function's."""
        from .experimental.layout import compiled_formats

        formats = compiled_formats(self.lowered.jaxpr.in_avals)
        if self.lowered.signature is None:
            return tuple(formats), {}
        return tree_unflatten(self.lowered.signature[0], formats)

    @property
    def output_formats(self) -> Any:
        from .experimental.layout import compiled_formats

        return tree_unflatten(self.lowered.out_tree, compiled_formats(self.lowered.jaxpr.out_avals))


_LEAF_TREE = tree_flatten(0)[1]

# Static arguments: ("pos", index, value) and ("kw", name, value).
Statics = tuple[tuple[str, Any, Any], ...]
StagedKey = tuple[Statics, PyTreeDef, tuple[ShapedArray, ...]]
StagedEntry = tuple[ClosedJaxpr, PyTreeDef, list[Any]]  # (jaxpr, out tree, hoisted tracer consts and refs)
FastKey = tuple[object, ...]  # see _fast_key
# (executable, out tree, weak types, single output, the backend it was compiled with)
FastEntry = tuple[Executable, PyTreeDef, list[bool], bool, object]
StaticConfig = tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]  # static argnums, names; donated
# (The fast cache is also asked for None, the key of arguments that have none: never found.)
Caches = tuple[dict[StagedKey, StagedEntry], dict[FastKey | None, FastEntry]]

# function -> {static configuration: (staged cache, fast-path cache)}; weak: its caches go with it
_caches_by_function: "weakref.WeakKeyDictionary[Callable[..., Any], dict[StaticConfig, Caches]]" = (
    weakref.WeakKeyDictionary()
)


def _shared_caches(fun: Callable[..., Any], config: StaticConfig) -> Caches:
    try:
        per_fun = _caches_by_function.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: a cache of its own
        return {}, {}
    if config not in per_fun:
        per_fun[config] = ({}, {})
    return per_fun[config]


def clear_caches() -> None:
    """Forget every traced and compiled ``jit`` function (JAX's ``jax.clear_caches``): the next call
    of each traces again."""
    for per_fun in list(_caches_by_function.values()):
        for staged, fast in per_fun.values():
            staged.clear()
            fast.clear()


@core.jax_class_path("jaxlib._jax.PjitFunction")
class JitFunction:
    """The callable that ``jit`` returns; caches one staged jaxpr per input signature."""

    keep_unused = False  # (jit(keep_unused=True): unused arguments stay in the lowered module)
    text_refusal: str | None = None  # (why its lowered module cannot be printed as JAX's)

    def __init__(
        self,
        fun: Callable[..., Any],
        static_argnums: int | Sequence[int] | None = (),
        static_argnames: str | Sequence[str] | None = (),
        donate_argnums: int | Sequence[int] | None = (),
        name: str | None = None,
        donate_argnames: str | Sequence[str] | None = (),
    ):
        self.fun = fun
        self.__wrapped__ = fun
        functools.update_wrapper(self, fun, updated=())
        sig = jit_signature.signature(fun)  # (read once: resolving both kinds of argument needs it)
        self.static_argnums, self.static_argnames = jit_signature.resolve(
            sig, static_argnums, static_argnames
        )
        self.static_argnums = tuple(sorted(set(self.static_argnums)))
        donate_argnums, donate_argnames = jit_signature.resolve(
            sig, donate_argnums, donate_argnames, "donate"
        )
        self.donate_argnums, self.donate_argnames = donation.argnums_and_names(
            donate_argnums, donate_argnames, list(sig.parameters) if sig is not None else None
        )
        self.name: str = name if name else getattr(fun, "__name__", "fun")
        # One cache per function and static configuration, as JAX's: jit(f) twice traces f once.
        self._cache, self._fast = _shared_caches(
            fun, (self.static_argnums, self.static_argnames, self.donate_argnums)
        )
        self._has_pmap: set[StagedKey] = set()  # keys whose program stages a pmap (shown differently)
        self.timings: dict[
            str, float
        ] = {}  # seconds of the last call's stages: trace, lower, compile, execute

    def __get__(self, obj: object, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _split(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[Statics, tuple[int, ...], list[Any], dict[str, Any]]:
        nargs = len(args)
        static_nums = tuple(i % nargs for i in self.static_argnums if -nargs <= i < nargs) if nargs else ()
        statics: list[tuple[str, Any, Any]] = []
        dyn_args = []
        for i, a in enumerate(args):
            if i in static_nums:
                statics.append(("pos", i, a))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                statics.append(("kw", k, v))
            else:
                dyn_kwargs[k] = v
        for _, _, v in statics:
            check_static_hashable(v)
        return tuple(statics), static_nums, dyn_args, dyn_kwargs

    def _stage(
        self,
        statics: Statics,
        static_nums: tuple[int, ...],
        nargs: int,
        in_tree: PyTreeDef,
        avals: list[ShapedArray],
        in_shardings: Sequence[Any] | None = None,
        names: Callable[[], list[str]] | None = None,  # the arguments', for errors while tracing
    ) -> tuple[ClosedJaxpr, PyTreeDef]:
        """Trace once; returns the closed jaxpr and output tree."""
        out_store: list[PyTreeDef] = []

        def flat(*leaves: Value) -> list[Value]:
            dyn_args, dyn_kwargs = tree_unflatten(in_tree, leaves)
            it = iter(dyn_args)
            args = []
            static_pos = {k: v for kind, k, v in statics if kind == "pos"}
            for i in range(nargs):
                args.append(static_pos[i] if i in static_pos else next(it))
            kwargs = dict(dyn_kwargs)
            kwargs.update({k: v for kind, k, v in statics if kind == "kw"})
            out = self.fun(*args, **kwargs)
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree]
            for leaf in out_leaves:
                if is_ref(leaf):
                    names = functools.partial(arg_names, self.fun, args, dyn_kwargs, tuple(static_pos))
                    check_no_returned_refs(self.fun, out, leaves, names)
                if not core.is_array_like(leaf):
                    check_valid_outputs(self.fun, "jit", out)
            return out_leaves

        closed = trace_to_jaxpr(flat, avals, in_shardings, (self.fun, "jit", names))
        return closed, out_store[0]

    def _arg_names(
        self, args: tuple[Any, ...], dyn_kwargs: dict[str, Any], static_nums: tuple[int, ...]
    ) -> Callable[[], list[str]]:
        return functools.partial(arg_names, self.fun, args, dyn_kwargs, static_nums)

    def _fast_key(self, args: tuple[Any, ...]) -> FastKey | None:
        """Signature of positional array/number arguments in canonical dtypes, or None."""
        key: list[object] = []
        for a in args:
            t = type(a)
            if t is Array:
                v = a._value
                key.append((v.shape, v.dtype, a.weak_type))
            elif t is np.ndarray and a.dtype not in core._CANONICAL:
                key.append((a.shape, a.dtype, False))
            elif t is float or t is int:
                key.append(t)
            elif t is PRNGKeyArray:  # typed keys: their storage goes to the executable as it is
                key.append((a._value.shape, a.dtype.name, False))
            else:
                return None
        if core.x64_enabled[0]:  # the flag decides what a trace makes, as in JAX's cache key
            key.append("x64")
        if not _config.values["jax_threefry_partitionable"]:  # (in JAX's trace context too)
            key.append("threefry_original")
        return tuple(key)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (self.donate_argnums or self.donate_argnames) and not core.tracing_active():
            out = self._call_slow(args, kwargs)
            leaves = tree_flatten((args, dict(sorted(kwargs.items()))))[0]
            flags = donation.flags(self.donate_argnums, self.donate_argnames, args, kwargs)
            donation.donate([x for x, d in zip(leaves, flags) if d], tree_flatten(out)[0])
            return out
        # Fast path (the warm-call budget): no trace active, nobody listening, positional
        # array arguments of a signature seen before -> call the compiled executable directly.
        fast = self._fast
        if (
            fast
            and not kwargs
            and len(core._state.stack) == 1
            and core._state.dynamic is None
            and not monitoring._listeners
            and not _config.values["jax_disable_jit"]
            and not invalid_values.active[0]
            and not transfers.active[0]
            and not key_reuse.active[0]
        ):
            entry = fast.get(self._fast_key(args))
            if entry is not None and entry[4] is jit_runtime._backend:  # (set_backend invalidates)
                exe, out_tree, weak, single, _ = entry
                t0 = time.perf_counter()
                outs = exe(
                    *[
                        a._value
                        if type(a) is Array
                        else core.host_copy(a)  # (results may alias it: a copy, as JAX's transfer)
                        if type(a) is np.ndarray
                        else a._value
                        if type(a) is PRNGKeyArray
                        else np.asarray(a, core._PYTHON_DTYPE[type(a)])
                        for a in args
                    ]
                )
                self.timings["execute"] = time.perf_counter() - t0
                if single:
                    return core.array_of(outs[0], weak[0])
                return tree_unflatten(out_tree, [core.array_of(o, w) for o, w in zip(outs, weak)])
        return self._call_slow(args, kwargs)

    def _call_slow(self, args: tuple[Any, ...], kwargs: dict[str, Any], shardings: Any = None) -> Any:
        if _config.values["jax_disable_jit"]:
            return self.fun(*args, **kwargs)
        if invalid_values.active[0] and not core.tracing_active():
            with invalid_values.running_program():
                out = self._call_staged(args, kwargs)

            def deoptimized() -> Any:
                with disable_jit():
                    return self.fun(*args, **kwargs)

            invalid_values.check_jit_outputs(self.name, tree_flatten(out)[0], deoptimized)
            return out
        return self._call_staged(args, kwargs, shardings)

    @staticmethod
    def _staged_key(
        statics: Statics,
        in_tree: PyTreeDef,
        avals: tuple[ShapedArray, ...],
        in_shardings: Sequence[Any] | None,
    ) -> StagedKey:
        keyed = statics if in_shardings is None else (*statics, ("shardings", None, tuple(in_shardings)))
        if core.x64_enabled[0]:  # a function traced without x64 is traced again with it, as in JAX
            keyed = (*keyed, ("jax_enable_x64", None, True))
        if not _config.values["jax_threefry_partitionable"]:  # (random bits are lowered by layout)
            keyed = (*keyed, ("jax_threefry_partitionable", None, False))
        if ir.replaying[0] > 0 or ad.transposing[0] > 0:  # (JAX's trace context: the abstract mesh
            keyed = (*keyed, ("replaying", None, True))  # a replayed or transposed equation sets)
        if source_info.xla_metadata[0]:  # (its equations carry the set_xla_metadata context)
            keyed = (*keyed, ("xla_metadata", None, source_info.xla_metadata[0]))
        return (keyed, in_tree, avals)

    def _call_staged(self, args: tuple[Any, ...], kwargs: dict[str, Any], shardings: Any = None) -> Any:
        statics, static_nums, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        try:
            avals = tuple(map(_abstractify, leaves))
        except TypeError as e:
            raise TypeError(
                f"{e} (in a call to jit-compiled function {self.name}; mark non-array "
                f"arguments static with static_argnums)"
            ) from None
        if transfers.active[0]:
            for x in leaves:
                transfers.entering(x)
        in_shardings = mesh_shardings(leaves)
        key = self._staged_key(statics, in_tree, avals, in_shardings)
        if any(getattr(x, "on_one_device_mesh", False) for x in leaves):  # (committed to devices)
            from .parallel.result_shardings import check_one_device

            fun_name = getattr(self.fun, "__qualname__", self.name)
            check_one_device(leaves, self._arg_names(args, dyn_kwargs, static_nums)(), fun_name)
        if any(not isinstance(a, ShapedArray) for a in avals):  # (refs: Ref{...})
            check_no_aliased_args(self.fun, leaves, self._arg_names(args, dyn_kwargs, static_nums))
        entry: StagedEntry | None = None if displaying() and key in self._has_pmap else self._cache.get(key)
        if entry is not None:
            donation.check_not_donated(leaves)
        listening = monitoring.listening()
        if entry is None:
            logged = compile_log.active()  # jax.no_tracing / log_compiles / explain_cache_misses
            miss = None  # why it missed: asked here only, never on a hit
            names = self._arg_names(args, dyn_kwargs, static_nums)  # (a partial: found when asked)
            if listening or logged:
                miss = jit_cache_miss.explain(self.fun, self._cache, key, names)
            if logged:
                compile_log.on_miss(self.name, self.fun, avals, miss)
            t0 = time.perf_counter()
            pmaps = staged_pmaps()
            closed, out_tree = self._stage(
                statics, static_nums, len(args), in_tree, list(avals), in_shardings, names
            )
            shown_only = False
            if staged_pmaps() != pmaps:  # (a pmap's shown form is JAX's, not the program that runs)
                self._has_pmap.add(key)
                shown_only = displaying()
            closed, hoisted, _ = hoist_call_consts(closed)
            if any(type(c) is Ref for c in hoisted):
                check_no_closed_over_args(self.fun, hoisted, leaves, names)
            t_trace = time.perf_counter() - t0
            entry = (closed, out_tree, hoisted)
            if not shown_only and not any(isinstance(h, Tracer) for h in hoisted):  # (refs stay the same)
                self._cache[key] = entry
            if listening:
                monitoring.emit(
                    "jit_trace",
                    name=self.name,
                    jaxpr=closed,
                    seconds=t_trace,
                    cache="miss",
                    reason=miss.reason if miss is not None else None,
                    miss_kind=miss.kind if miss is not None else None,
                    fun=self.fun,
                )
        elif listening:
            monitoring.emit(
                "jit_trace",
                name=self.name,
                jaxpr=entry[0],
                seconds=0.0,
                cache="hit",
                reason=None,
                fun=self.fun,
            )
        closed, out_tree, hoisted = entry
        self.timings["trace"] = t_trace if "t_trace" in locals() else 0.0
        t0 = time.perf_counter()
        _tier.last = (None, None)  # (a staged call runs nothing: no tier)
        if core.tracing_active():  # a Python float argument prints as written in the caller's jaxpr
            leaves = [_written_float(x) if type(x) is float else x for x in leaves]
        else:  # (a numpy argument is copied, as JAX transfers it; a trace copies its own: staging.py)
            leaves = [core.host_copy(x) if type(x) is np.ndarray else x for x in leaves]
        if key_reuse.active[0] and not core.tracing_active():
            key_reuse.jit_call(closed, leaves, 0 if refs_go_last(hoisted) else len(hoisted))
        donated = donation.of_call(self, args, dyn_kwargs, static_nums)  # (JAX's donated_invars say so)
        flat = shardings and shardings(dyn_args, leaves, out_tree, closed.out_avals, len(hoisted))
        call_args, donated, flat = call_arguments(hoisted, leaves, donated, flat)
        outs = bind_call(closed, call_args, self.name, donated, self.keep_unused, flat)
        self.timings["execute"] = time.perf_counter() - t0
        if listening:
            tier, job = _tier.last
            monitoring.emit(
                "jit_execute",
                name=self.name,
                jaxpr=closed,
                seconds=self.timings["execute"],
                tier=tier,
                job=job,
                fun=self.fun,
            )
        if not hoisted and not statics and not dyn_kwargs and not core.tracing_active():
            fkey = self._fast_key(args)
            if fkey is not None and (
                fkey not in self._fast or self._fast[fkey][4] is not jit_runtime._backend
            ):
                exe = jit_runtime.direct_executable(closed)
                # (typed-key outputs are wrapped by the general path: array_of)
                keys_out = any(isinstance(a.dtype, core.ExtendedDType) for a in closed.out_avals)
                keys_out = keys_out or any(  # (and results in host memory: placed there by jit_p's impl)
                    getattr(a, "memory_space", core.DEVICE) is not core.DEVICE for a in closed.out_avals
                )
                if exe is not None and not keys_out:  # compiled by the call above
                    self.timings.update(
                        lower=getattr(exe, "lower_time", 0.0), compile=getattr(exe, "compile_time", 0.0)
                    )
                    single = out_tree == _LEAF_TREE
                    self._fast[fkey] = (
                        exe,
                        out_tree,
                        jit_runtime.result_weak_types(closed, jit_runtime.compiled_form(closed)),
                        single,
                        jit_runtime._backend,
                    )
        return tree_unflatten(out_tree, outs)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        statics, static_nums, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        avals = [_abstractify(x) for x in leaves]
        # A signature a call traced already is not traced again, nor is a call's after ``lower``
        # (as in JAX, whose trace cache the two share): unless the trace hoisted an outer tracer or
        # a ref out of its constants, or shows a pmap in another form than the one that runs.
        key = self._staged_key(statics, in_tree, tuple(avals), None)
        entry: StagedEntry | None = None
        in_shardings = mesh_shardings(leaves)
        shared = key not in self._has_pmap and in_shardings is None
        if shared and not displaying():  # (a trace to be shown stages a pmap as JAX does: not cached)
            entry = self._cache.get(key)
        pmaps = staged_pmaps()
        if entry is not None and not entry[2]:
            closed, out_tree = entry[0], entry[1]
        else:
            if entry is None and compile_log.active():  # (a miss: logged, or refused, as a call's)
                names = self._arg_names(args, dyn_kwargs, static_nums)
                miss = jit_cache_miss.explain(self.fun, self._cache, key, names)
                compile_log.on_miss(self.name, self.fun, avals, miss)
            closed, out_tree = self._stage(statics, static_nums, len(args), in_tree, avals, in_shardings)
            if shared and entry is None and staged_pmaps() == pmaps and not displaying():
                if not hoist_call_consts(closed)[1]:  # (no outer tracer or ref among its consts)
                    self._cache[key] = (closed, out_tree, [])
        lowered = Lowered(closed, self.name, out_tree, leaves)
        lowered.relower = functools.partial(self.lower, *args, **kwargs) if staged_pmaps() != pmaps else None
        inspecting = sys.modules.get("engine.inspect_sharding")
        if inspecting is not None and not lowered.args_on_mesh:  # (JAX calls back while lowering)
            inspecting.at_lower(closed)
        lowered.signature = (in_tree, self._argument_names(args, dyn_args, leaves))
        lowered.hlo_arg_names = self._arg_names(args, dyn_kwargs, static_nums)
        lowered.keep_unused, lowered.text_refusal = self.keep_unused, self.text_refusal
        lowered.donated = donation.of_call(self, args, dyn_kwargs, static_nums)
        return lowered

    def _argument_names(
        self, args: Sequence[Any], dyn_args: Sequence[Any], leaves: Sequence[Any]
    ) -> list[str]:
        """A name per argument leaf, as JAX's errors name them (``y``, ``args[2]``)."""
        try:
            params = list(_pyinspect.signature(self.fun).parameters)
        except (TypeError, ValueError):
            params = []
        if len(dyn_args) != len(args) or len(leaves) != len(args):  # statics or pytrees: positions
            return [f"args[{i}]" for i in range(len(leaves))]
        return [params[i] if i < len(params) else f"args[{i}]" for i in range(len(leaves))]

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        lowered = self.lower(*args, **kwargs)
        return Traced(lowered)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast.clear()

    def __repr__(self) -> str:
        return f"<PjitFunction of {self.fun!r}>"  # (JAX's C++ class prints so)


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] | None = (),
    static_argnames: str | Sequence[str] | None = (),
    donate_argnums: int | Sequence[int] | None = (),
    donate_argnames: str | Sequence[str] | None = (),
    keep_unused: bool = False,
    device: object = None,
    backend: str | None = None,
    inline: bool = False,
    in_shardings: Any = None,
    out_shardings: Any = None,
    compiler_options: dict[str, Any] | None = None,  # (XLA's options: accepted, unused here)
) -> Any:  # a JitFunction (a ShardedJit with shardings; without ``fun``, a decorator making one)
    """Compile ``fun``: trace it once per input signature to a jaxpr, then run that.

    >>> fast_f = jit(lambda x: x * x + x * 2.0)
    >>> fast_f(jnp.ones(3))
    Array([3., 3., 3.], dtype=float32)
    """
    if fun is None:
        return lambda f: jit(
            f,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            donate_argnums=donate_argnums,
            donate_argnames=donate_argnames,
            keep_unused=keep_unused,
            in_shardings=in_shardings,
            out_shardings=out_shardings,
        )
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    jitted = JitFunction(
        fun, static_argnums, static_argnames, donate_argnums, donate_argnames=donate_argnames
    )
    jitted.keep_unused = bool(keep_unused)
    if in_shardings is not None or out_shardings is not None:
        from .experimental.layout import strip_formats

        in_shardings, out_shardings = strip_formats(in_shardings), strip_formats(out_shardings)
    if in_shardings is not None or out_shardings is not None:
        from .parallel.sharded_jit import with_shardings

        jitted.text_refusal = "the text of a jit with in_shardings/out_shardings is not implemented"
        return with_shardings(jitted, in_shardings, out_shardings)
    return jitted


def make_jaxpr(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[Any, int]] | None = None,  # (named axes bound while tracing: psum's)
    return_shape: bool = False,
) -> Callable[..., Any]:
    """A function that returns the jaxpr of ``fun`` at the given example arguments.

    >>> print(make_jaxpr(lambda x, y: jnp.sin(x) * 2.0 + jnp.cos(y) / 3.0 - x * y)(1.0, 2.0))
    { lambda ; a:f32[] b:f32[]. let
        c:f32[] = sin a
        d:f32[] = mul c 2.0:f32[]
        e:f32[] = cos b
        f:f32[] = div e 3.0:f32[]
        g:f32[] = add d f
        h:f32[] = mul a b
        i:f32[] = sub g h
      in (i,) }
    """
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args: Any, **kwargs: Any) -> ClosedJaxpr | tuple[ClosedJaxpr, Any]:
        statics = {i: a for i, a in enumerate(args) if i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static_argnums]
        leaves, in_tree = tree_flatten((tuple(dyn), kwargs))
        out_store: list[tuple[PyTreeDef, list[Value]]] = []

        def flat(*xs: Value) -> list[Value]:
            d, kw = tree_unflatten(in_tree, xs)
            it = iter(d)
            full = [statics[i] if i in statics else next(it) for i in range(len(args))]
            out = fun(*full, **kw)
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [(out_tree, out_leaves)]
            if not all(map(core.is_array_like, out_leaves)):  # (refused as jit refuses it)
                check_valid_outputs(fun, "jit", out)
            return out_leaves

        on_mesh = mesh_shardings(leaves)
        with staging_for_display(), contextlib.ExitStack() as env:
            from .lax.parallel import extend_axis_env

            for name, size in axis_env or ():
                env.enter_context(extend_axis_env(name, size))
            names = functools.partial(arg_names, fun, args, kwargs, static_argnums)  # (JAX's: for jit)
            closed = trace_to_jaxpr(flat, [abstractify(x) for x in leaves], on_mesh, (fun, "jit", names))
        closed = as_shown(closed, leaves, on_mesh is not None)
        if return_shape:
            out_tree, out_leaves = out_store[0]
            from .tree_util import tree_unflatten as unf

            shapes = unf(out_tree, [ShapeDtypeStruct(a.shape, a.dtype) for a in closed.out_avals])
            return closed, shapes
        return closed

    return make_jaxpr_f


def abstractify(x: Value) -> core.ShapedArray:
    """The abstract value of an argument to stage: an array's, or a ShapeDtypeStruct's."""
    if isinstance(x, ShapeDtypeStruct):
        return core.ShapedArray(x.shape, x.dtype, x.weak_type)
    return core.get_aval(x)


@core.jax_class_path("jax.ShapeDtypeStruct")
class ShapeDtypeStruct:
    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(
        self,
        shape: Sequence[int],
        dtype: DType | npt.DTypeLike,
        weak_type: bool = False,
        *,
        sharding: Any = None,
    ):
        self.dtype: DType = dtype if isinstance(dtype, core.ExtendedDType) else narrow_dtypes.to_dtype(dtype)
        self.shape, self.weak_type, self.sharding = tuple(shape), weak_type, sharding

    def __repr__(self) -> str:
        placed = "" if self.sharding is None else f", sharding={self.sharding}"
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{placed}{weak})"

    @classmethod
    def like(cls, x: Value) -> "ShapeDtypeStruct":
        """The shape and dtype of ``x`` (an array, tracer or ShapeDtypeStruct)."""
        aval = core.get_aval(x) if not isinstance(x, ShapeDtypeStruct) else x
        return cls(aval.shape, aval.dtype, getattr(aval, "weak_type", False))
