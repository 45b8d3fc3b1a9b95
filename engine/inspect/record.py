"""Recording transformed calls: the IR after each layer, jit facts, timings, debugger steps.

Scripts get instrumented versions of the public transformations (``jax.grad``, ``jax.jit``, ...):
each returns a ``Transformed`` that remembers its layers (innermost first) and calls the real
engine transformation on a *marked* inner function. Markers do three things while the real code
runs: keep the list of active transformations (for errors), capture the argument types each layer
hands to the one inside it (so ``grad(f)`` inside ``vmap`` is traced per example, as it really
runs), and tag exceptions with the layer that raised them.

Only outermost calls are recorded (a ``jit`` called inside a recorded ``grad`` is part of that
call's stages). Each distinct (function, signature) gets full detail once; later calls get the
timings and jit cache facts only, and everything is capped.
"""

from __future__ import annotations

import functools
import importlib
import sys
import time
from types import FrameType
from typing import Any, Callable

import numpy as np

import engine
from engine import core
from engine.core import Array, Tracer
from engine.ir import ClosedJaxpr, Jaxpr
from engine.backends.rows import explained
from engine.call_operands import mesh_shardings
from engine.jit_runtime import not_compiled
from engine.staging import as_shown, staging_for_display, trace_to_jaxpr
from engine.tree_util import tree_flatten, tree_unflatten

from . import errors as report_errors
from . import jit_timings, transforms
from .concrete_path import trace_on_path
from .cost import memoized as cost_memoized
from .cost import stage_cost
from .debugger import debug_trace
from .device_programs import device_facts
from .graph import jaxpr_graph, jaxpr_text_and_names, mark_added
from .kernels import kernel_steps
from .lowered import lowered_text, why_not
from .schema import (
    DebugPrint,
    JitInfo,
    SourceInfo,
    Stage,
    TimingEvent,
    TransformedCall,
)
from .values import nbytes

CALL_CAP = 100  # recorded calls per run
DETAIL_CAP = 16  # calls with stages, jit source and debugger steps
EVENT_CAP = 400  # timing events per call
PRINT_CAP = 2000  # debug.print lines per run
DEBUG_ARG_BYTES = 16 << 20  # skip the debugger for calls on more input data than this
OPTION_REPR_CAP = 80
SOURCE_CAP = 100_000
KERNEL_WAIT_SECONDS = 3.0  # how long a report waits for a first call's kernels, to time them

TRANSFORMS = (*transforms.TRANSFORMS, *transforms.ALIASES, *transforms.RECORDED_ONLY)

_recorder: "Recorder | None" = None


def _short_repr(v) -> str:
    if callable(v) and hasattr(v, "__name__"):
        text = v.__name__
    else:
        try:
            text = repr(v)
        except Exception:  # noqa: BLE001
            text = f"<{type(v).__name__}>"
    return text if len(text) <= OPTION_REPR_CAP else text[:OPTION_REPR_CAP] + "…"


def _user_source(user_file: str) -> SourceInfo | None:
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == user_file:
            return SourceInfo(file=user_file, line=frame.f_lineno, function=frame.f_code.co_name)
        frame = frame.f_back
    return None


def _fun_source(fun) -> SourceInfo | None:
    code = getattr(fun, "__code__", None)
    if code is None:
        return None
    return SourceInfo(file=code.co_filename, line=code.co_firstlineno, function=code.co_name)


# ---------------------------------------------------------------------------------------------
# Argument specs: which leaves are traced (abstract) and which stay Python constants.


class ArgSpec:
    """The types of a call's arguments: enough to trace a stage again without the values."""

    def __init__(self, args, kwargs, static_pos=(), static_names=(), python_scalars_static=False):
        self.tree = None
        self.statics: list[Any] = []  # per leaf: the constant, or None for traced leaves
        self.avals: list[core.ShapedArray] = []
        self.dynamic: list[bool] = []
        parts = [(a, i in static_pos) for i, a in enumerate(args)]
        parts += [(v, k in static_names) for k, v in sorted(kwargs.items())]
        leaves, self.tree = tree_flatten((tuple(args), dict(kwargs)))
        # per-leaf static flags follow the per-argument ones
        flags = []
        for value, static in parts:
            n = len(tree_flatten(value)[0])
            flags += [static] * n
        for leaf, static in zip(leaves, flags):
            dyn = not static and self._traced(leaf, python_scalars_static)
            self.dynamic.append(dyn)
            self.statics.append(None if dyn else leaf)
            if dyn:
                self.avals.append(core.get_aval(leaf))
        # (the arguments on a mesh, by dynamic position: the stages are typed with their shardings)
        dynamic = [x for x, d in zip(leaves, self.dynamic) if d]
        self.shardings = mesh_shardings(dynamic)
        self.on_mesh = (
            None
            if self.shardings is None
            else [x if s is not None else None for x, s in zip(dynamic, self.shardings)]
        )

    @staticmethod
    def _traced(leaf, python_scalars_static) -> bool:
        if isinstance(leaf, (Tracer, Array, np.ndarray, np.generic)):
            return True
        if isinstance(leaf, (bool, int, float, complex)):
            return not python_scalars_static
        return hasattr(leaf, "__jax_array__")

    def flat_fun(self, fun: Callable, out_store: list):
        def flat(*dyn):
            it = iter(dyn)
            leaves = [next(it) if d else s for d, s in zip(self.dynamic, self.statics)]
            args, kwargs = tree_unflatten(self.tree, leaves)
            out = fun(*args, **kwargs)
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree]
            return out_leaves

        return flat

    def dynamic_leaves(self, args, kwargs) -> list:
        leaves = tree_flatten((tuple(args), dict(kwargs)))[0]
        return [x for x, d in zip(leaves, self.dynamic) if d]

    def placeholders(self):
        """Zero-strided stand-ins with these types (no memory), for ``jit(f).lower``."""
        it = iter(self.avals)
        leaves = []
        for d, s in zip(self.dynamic, self.statics):
            if d:
                a = next(it)
                leaves.append(Array(np.broadcast_to(np.zeros((), a.dtype), a.shape), a.weak_type))
            else:
                leaves.append(s)
        return tree_unflatten(self.tree, leaves)


def stage_jaxpr(fun: Callable, spec: ArgSpec) -> ClosedJaxpr:
    with staging_for_display():  # (shown, as make_jaxpr shows it)
        closed = trace_to_jaxpr(spec.flat_fun(fun, []), list(spec.avals), spec.shardings)
    return as_shown(closed, spec.on_mesh or [None] * len(spec.avals), spec.on_mesh is not None)


# ---------------------------------------------------------------------------------------------
# Instrumented transformations.


def _real_transform(name: str):
    if name == "jacobian":
        name = "jacrev"
    t = transforms.TRANSFORMS.get(name)
    module = engine if t is None or t.module == "engine" else importlib.import_module(t.module)
    fn = getattr(module, name, None)
    if fn is None:
        raise NotImplementedError(f"jax.{name} is not available in this engine yet")
    return fn


class Transformed:
    """What an instrumented ``jax.grad``/``jax.jit``/... returns: the real transformed function,
    plus the layers under it for the report."""

    def __init__(
        self,
        name: str,
        fun: Callable,
        args: tuple = (),
        kwargs: dict | None = None,
        options: str | None = None,
    ):
        kwargs = dict(kwargs or {})
        if not callable(fun):
            raise TypeError(f"{name} expected a callable as its first argument, got {fun!r}")
        self.transform = "jacrev" if name == "jacobian" else name
        self.inner = fun
        self.base = fun.base if isinstance(fun, Transformed) else fun
        self.layers: tuple[Transformed, ...] = (fun.layers if isinstance(fun, Transformed) else ()) + (self,)
        if options is None:
            options = ", ".join(
                [_short_repr(a) for a in args] + [f"{k}={_short_repr(v)}" for k, v in kwargs.items()]
            )
        inner_label = fun.label if isinstance(fun, Transformed) else getattr(fun, "__name__", "fun")
        self.label = f"{name}({inner_label}{', ' + options if options else ''})"
        inner_real = fun.real if isinstance(fun, Transformed) else fun
        self.real = _real_transform(name)(_marked(inner_real, self), *args, **kwargs)
        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            try:
                setattr(self, attr, getattr(self.real, attr))
            except AttributeError:
                pass
        self.__wrapped__ = self.real

    def __call__(self, *args, **kwargs):
        rec = _recorder
        if rec is None or rec.current is not None or core.tracing_active():
            return self.call_real(args, kwargs)
        return rec.record_call(self, args, kwargs)

    def call_real(self, args, kwargs):
        try:
            return self.real(*args, **kwargs)
        except BaseException as e:
            report_errors.tag_layer(e, self.transform)
            raise

    def __getattr__(self, name):  # jit(f).lower, .clear_cache, ...
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real, name)

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"<{self.label}>"


def _marked(inner: Callable, layer: Transformed):
    """``inner`` as ``layer``'s transformation sees it: tracked, captured, and tagging errors."""
    inner_layer = layer.inner if isinstance(layer.inner, Transformed) else None

    def marked(*args, **kwargs):
        rec = _recorder
        if rec is None:
            return inner(*args, **kwargs)
        rec.active.append(layer.transform)
        call = rec.current
        if call is not None and id(layer) not in call.captures:
            try:
                call.captures[id(layer)] = ArgSpec(args, kwargs, python_scalars_static=True)
            except Exception:  # noqa: BLE001 - capturing is best effort
                pass
        try:
            return inner(*args, **kwargs)
        except BaseException as e:
            if inner_layer is not None:
                report_errors.tag_layer(e, inner_layer.transform)  # raised by the inner machinery
            else:
                report_errors.tag_layer(
                    e, report_errors.layer_for_user_error(e, rec.active) or layer.transform
                )
            raise
        finally:
            rec.active.pop()

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(marked, attr, getattr(inner, attr))
        except (AttributeError, TypeError):
            pass
    marked.__wrapped__ = inner
    return marked


def instrumented_transforms() -> dict[str, Callable]:
    """``jax.grad``, ``jax.jit``, ...: versions that return ``Transformed`` objects."""

    def make(name):
        real = getattr(engine, transforms.ALIASES.get(name, name), None)

        def transform(fun=None, *args, **kwargs):
            if fun is None:  # decorator with options: @jax.jit(static_argnums=0) style
                return functools.partial(transform, *args, **kwargs)
            return Transformed(name, fun, args, kwargs)

        transform.__name__ = name
        transform.__doc__ = getattr(real, "__doc__", None)
        transform.__wrapped__ = real
        return transform

    out = {
        name: make(name)
        for name in TRANSFORMS
        if (name != "pmap" or hasattr(engine, "pmap"))
        and transforms.TRANSFORMS.get(name, transforms.TRANSFORMS["grad"]).module == "engine"  # jax.X only
    }
    return out


# ---------------------------------------------------------------------------------------------
# The recorder.


class CallRecord:
    def __init__(self, t: Transformed, detailed: bool):
        self.t = t
        self.detailed = detailed
        self.captures: dict[int, ArgSpec] = {}
        self.events: list[tuple[str, dict, float]] = []
        self.jit_jaxpr: ClosedJaxpr | None = None  # what the call's jit layer staged and ran


class Recorder:
    """Collects everything a run reports besides stdout and the result."""

    def __init__(self, user_file: str = report_errors.USER_FILE):
        self.user_file = user_file
        self.t0 = time.perf_counter()
        self.calls: list[TransformedCall] = []
        self.timings: list[TimingEvent] = []
        self.prints: list[DebugPrint] = []
        self.active: list[str] = []
        self.current: CallRecord | None = None
        self.building = False
        self.detailed_signatures: set = set()
        self.dropped_calls = 0
        self.detail_calls = True  # stack mode details only the stack's own call
        self.dropped_prints = 0
        self.write_stdout: Callable[[str], None] | None = None
        self.device_prints: list[tuple[int, str]] = []
        self._compiled_until = 0.0  # perf_counter time the last jit compile ended
        self.compile_jobs: list[tuple[TransformedCall, object, int]] = []  # interpreted calls' jobs
        self.kernel_records: list[tuple[JitInfo, ClosedJaxpr]] = []  # measured at the end of the run
        self.device_programs_t0: dict[int, float] = {}  # per call: when its first device program started
        self.on_progress: Callable[[], None] | None = None  # a call started or ended (the sandbox streams)

    # --- time ---
    def ms(self, t: float | None = None) -> float:
        return ((time.perf_counter() if t is None else t) - self.t0) * 1000.0

    def event(
        self,
        into: list,
        name: str,
        category: str,
        start: float,
        seconds: float,
        device: int | None = None,
        call: int | None = None,
        cache: str | None = None,
        tier: str | None = None,
        background: bool = False,
    ) -> None:
        if len(into) < EVENT_CAP:
            into.append(
                TimingEvent(
                    name=name,
                    category=category,
                    start_ms=round(self.ms(start), 4),
                    duration_ms=round(seconds * 1000.0, 4),
                    device=device,
                    call=call,
                    cache=cache,
                    tier=tier,
                    background=background,
                )
            )

    def jit_event(self, into: list, kind: str, data: dict, t_end: float, call: int | None = None) -> None:
        jit_timings.jit_event(self, into, kind, data, t_end, call)

    def settle_compile_jobs(self) -> None:
        jit_timings.settle_compile_jobs(self)

    # --- sinks ---
    def on_event(self, kind: str, data: dict) -> None:
        if self.building:
            return
        now = time.perf_counter()
        if self.current is not None:
            self.current.events.append((kind, data, now))
        elif kind.startswith("jit_"):
            self.jit_event(self.timings, kind, data, now)

    def on_print(self, text: str, device: int | None) -> None:
        if self.building:  # the debugger's replay of a call prints nothing new
            return
        if device is not None and self.current is not None:
            self.device_prints.append((device, text))  # ordered by device when the call ends
            return
        self._print(text, device)

    def _flush_device_prints(self) -> None:
        """Device lines of one call, device by device (each device's own order kept): devices run
        concurrently, so arrival order is not reproducible, but this order is."""
        pending, self.device_prints = self.device_prints, []
        for device, text in sorted(pending, key=lambda p: p[0]):
            self._print(text, device)

    def _print(self, text: str, device: int | None) -> None:
        if len(self.prints) < PRINT_CAP:
            self.prints.append(DebugPrint(device=device, text=text))
        else:
            self.dropped_prints += 1
        if self.write_stdout is not None:
            self.write_stdout(text + "\n")

    # --- calls ---
    def record_call(self, t: Transformed, args, kwargs, force_detail: bool = False):
        if len(self.calls) >= CALL_CAP:
            self.dropped_calls += 1
            return t.call_real(args, kwargs)
        static_pos, static_names = _static_positions(t)
        try:
            top = ArgSpec(args, kwargs, static_pos, static_names)
            signature = (
                id(t),
                str(top.tree),
                tuple(top.avals),
                tuple(_short_repr(s) for s in top.statics if s is not None),
            )
        except Exception:  # noqa: BLE001 - unusual arguments: record without stages
            top, signature = None, None
        detailed = top is not None and (
            force_detail
            or (
                self.detail_calls
                and signature not in self.detailed_signatures
                and len(self.detailed_signatures) < DETAIL_CAP
            )
        )
        if detailed:
            self.detailed_signatures.add(signature)
        call_id = len(self.calls)
        record = TransformedCall(
            id=call_id,
            label=t.label,
            function=getattr(t.base, "__name__", "fun"),
            source=_user_source(self.user_file) or _fun_source(t.base),
        )
        self.calls.append(record)
        rec = CallRecord(t, detailed)
        self.current = rec
        if self.on_progress is not None:
            self.on_progress()
        start = time.perf_counter()
        error = None
        try:
            out = t.call_real(args, kwargs)
        except BaseException as e:
            error = e
        finally:
            seconds = time.perf_counter() - start
            self.current = None
            self.active.clear()
            self._flush_device_prints()
        self.event(record.timings, f"run {t.label}", "run", start, seconds, call=call_id)
        try:
            self._monitor_facts(record, rec, call_id)
        except Exception as e:  # noqa: BLE001 - the report must survive its own bugs
            record.stages.append(Stage(name="(report error)", text=f"{type(e).__name__}: {e}"))
        if detailed:
            self.current = rec  # nested transformed calls made while re-tracing are not new calls
            self.building = True
            try:
                self._detail(record, rec, top, args, kwargs, call_id, ok=error is None)
            except Exception as e:  # noqa: BLE001 - the report must survive its own bugs
                record.stages.append(Stage(name="(report error)", text=f"{type(e).__name__}: {e}"))
            finally:
                self.building = False
                self.current = None
        if self.on_progress is not None:
            self.on_progress()
        if error is not None:
            raise error
        return out

    def _monitor_facts(self, record: TransformedCall, rec: CallRecord, call_id: int) -> None:
        """Jit cache facts and timings, pmap device records, from the engine's events."""
        self.settle_compile_jobs()
        jit_layer = next((l for l in reversed(rec.t.layers) if l.transform == "jit"), None)
        jit_fun = getattr(jit_layer.real, "fun", None) if jit_layer is not None else None
        for kind, data, t_end in rec.events:
            if kind.startswith("jit_"):
                self.jit_event(record.timings, kind, data, t_end, call=call_id)
            if kind == "jit_trace":
                if jit_fun is not None and data.get("fun") is jit_fun and record.jit is None:
                    record.jit = JitInfo(
                        backend=_backend_name(),
                        cache=data.get("cache", "miss"),
                        recompile_reason=data.get("reason"),
                    )
                    rec.jit_jaxpr = data.get("jaxpr")
                    record.jit.fallbacks = explained(not_compiled(_executable_of(data.get("jaxpr"))))
            elif kind in ("jit_lower", "jit_compile"):
                if kind == "jit_lower" and record.jit is not None and data.get("fallbacks"):
                    record.jit.fallbacks = explained([str(f) for f in data["fallbacks"]])
            elif kind == "jit_execute":
                tier = data.get("tier")
                if record.jit is not None and tier is not None and data.get("fun") is jit_fun:
                    record.jit.tier = tier
                job = data.get("job")
                if job is not None and all(j is not job for _, j, _ in self.compile_jobs):
                    self.compile_jobs.append((record, job, call_id))
            elif kind.startswith("pmap"):
                device_facts(self, record, kind, data, t_end, call_id)
        jit_timings.kernels_cache(record)

    def _detail(
        self, record: TransformedCall, rec: CallRecord, top: ArgSpec, args, kwargs, call_id: int, ok: bool
    ) -> None:
        layers = rec.t.layers
        funcs = [rec.t.base] + [l.real for l in layers]
        names = [getattr(rec.t.base, "__name__", "fun")] + [l.label for l in layers]
        specs = [rec.captures.get(id(layers[i])) for i in range(len(layers))] + [top]
        previous = None
        final_closed, final_path = None, False
        traced: dict[int, Stage] = {}  # the stages that traced, by position in the stack
        for i, (fun, name) in enumerate(zip(funcs, names)):
            spec = specs[i] or top
            start = time.perf_counter()
            path_taken = False
            try:
                try:
                    closed = stage_jaxpr(fun, spec)
                except (core.ConcretizationTypeError, core.TracerIntegerConversionError):
                    # Python control flow (or a range bound, a list index) on traced values: trace the path these inputs take,
                    # as the eager call itself did (only when the stage sees the call's inputs).
                    if not ok or spec.avals != top.avals:
                        raise
                    closed = trace_on_path(spec.flat_fun(fun, []), top.dynamic_leaves(args, kwargs))
                    path_taken = True
            except Exception as e:  # noqa: BLE001 - e.g. the error the call itself raised
                record.stages.append(
                    Stage(
                        name=name,
                        transform=layers[i - 1].transform if i else None,
                        text=f"(tracing failed: {type(e).__name__}: {str(e)[:500]})",
                    )
                )
                previous = None
                continue
            finally:
                self.event(
                    record.timings,
                    f"{'trace' if i == 0 else 'transform'} {name}",
                    "trace" if i == 0 else "transform",
                    start,
                    time.perf_counter() - start,
                    call=call_id,
                )
            text, var_names = jaxpr_text_and_names(closed)
            with cost_memoized():  # (the graph's nodes and the stage's totals cost each equation once)
                graph = jaxpr_graph(closed.jaxpr, name, names=var_names)
                costs = stage_cost(closed.jaxpr, self.user_file)
            mark_added(graph, previous)
            previous = graph
            traced[i] = Stage(
                name=name,
                transform=layers[i - 1].transform if i else None,
                text=text,
                graph=graph,
                path_taken=path_taken,
                cost=costs,
            )
            record.stages.append(traced[i])
            if i == len(funcs) - 1:
                final_closed, final_path = closed, path_taken
        # (stack mode only: there the call is the run's last work; a script would wait mid-way)
        if ok and not self.detail_calls and rec.t.layers and rec.t.layers[-1].transform == "jit":
            self._measure_jit(rec, top.dynamic_leaves(args, kwargs))
        self._jit_source(record, rec, specs, call_id, traced)
        if (
            ok
            and final_closed is not None
            and not _runs_on_devices(final_closed.jaxpr)
            and sum(nbytes(x) for x in top.dynamic_leaves(args, kwargs)) <= DEBUG_ARG_BYTES
        ):
            label = f"{names[-1]} (path taken for these inputs)" if final_path else names[-1]
            record.debug = debug_trace(final_closed, top.dynamic_leaves(args, kwargs), label)

    def _jit_source(
        self, record: TransformedCall, rec: CallRecord, specs, call_id: int, traced: dict[int, Stage]
    ) -> None:
        layers = rec.t.layers
        idx = next((i for i in range(len(layers) - 1, -1, -1) if layers[i].transform == "jit"), None)
        for i, layer in enumerate(layers[:idx] if idx is not None else ()):  # inner jit stages
            if layer.transform == "jit" and i + 1 in traced:
                lower = functools.partial(_lower, layer.real, specs[i + 1] or specs[-1])
                traced[i + 1].stablehlo = lowered_text(lower)
        if idx is None:
            return
        jit_fn = layers[idx].real
        spec = specs[idx + 1] if specs[idx + 1] is not None else specs[-1]
        if record.jit is None:
            record.jit = JitInfo(backend=_backend_name())
        if not hasattr(jit_fn, "lower"):
            return
        start = time.perf_counter()
        program = None
        # The program that ran (with its launch times) when it is compiled, else the lowering.
        ran = _executable_of(rec.jit_jaxpr)
        if not record.jit.fallbacks:  # (compiled after the call's facts were taken)
            record.jit.fallbacks = explained(not_compiled(ran))
        try:
            lowered = _lower(jit_fn, spec)
            if idx + 1 in traced:
                traced[idx + 1].stablehlo = lowered_text(lambda: lowered)
            backend = importlib.import_module("engine.jit").get_backend()
            if hasattr(backend, "lower_program"):
                # (the executable that ran, when it was compiled from this very program)
                program = backend.lower_program(_runs_form(rec.jit_jaxpr, lowered.jaxpr), lowered.name, ran)
            source = program.source if program is not None else lowered.source()
            if program is not None and not record.jit.fallbacks:
                # (a first call that ran interpreted: what the compiled program leaves to the host
                # is known from its lowering, whether or not the background compile finished)
                record.jit.fallbacks = explained(not_compiled(program))
        except Exception as e:  # noqa: BLE001
            source = f"# lowering failed: {type(e).__name__}: {e}"
            if idx + 1 in traced and traced[idx + 1].stablehlo is None:
                traced[idx + 1].stablehlo = why_not(e)
        self.event(
            record.timings,
            f"lower {layers[idx].label}",
            "lower",
            start,
            time.perf_counter() - start,
            call=call_id,
        )
        if source:
            record.jit.source = (
                source if len(source) <= SOURCE_CAP else source[:SOURCE_CAP] + "\n# … (truncated)"
            )
        record.jit.kernels = _on_traced_graph(
            kernel_steps(ran if getattr(ran, "launches", None) is not None else program), rec.jit_jaxpr
        )
        if record.jit.kernels:
            record.jit.kernel_stage = record.stages[idx + 1].name if idx + 1 < len(record.stages) else None
            if rec.jit_jaxpr is not None:
                self.kernel_records.append((record.jit, rec.jit_jaxpr))

    def _measure_jit(self, rec: CallRecord, leaves: list) -> None:
        """A stack's call that ran interpreted while its kernels compiled measured none: once they
        are ready (waiting up to ``KERNEL_WAIT_SECONDS``), run the compiled program on the call's
        own inputs once, so its kernels are timed (the outermost jit only: its inputs are the
        call's; prints inside are not repeated while details are built)."""
        closed = rec.jit_jaxpr
        if closed is None:
            return
        runtime = importlib.import_module("engine.jit_runtime")
        exe = _executable_of(closed)
        if exe is None:
            job = runtime._jobs.get(runtime.compiled_form(closed))
            if job is None or not job.done.wait(KERNEL_WAIT_SECONDS):
                return
            exe = job.exe
        counts = getattr(exe, "launch_counts", None)
        if counts is None or any(counts):
            return
        avals = closed.in_avals
        if len(leaves) != len(avals) or any(core.get_aval(x).shape != a.shape for x, a in zip(leaves, avals)):
            return
        try:
            exe(
                *[np.asarray(x._value if isinstance(x, Array) else x, a.dtype) for x, a in zip(leaves, avals)]
            )
        except Exception:  # noqa: BLE001 - a measurement must not break the report
            return

    def measure_kernels(self) -> None:
        """Kernel times of the whole run: calls after a call's details were taken ran too."""
        for info, closed in self.kernel_records:
            ran = _executable_of(closed)
            if getattr(ran, "launch_counts", None) is None:
                continue
            measured = _on_traced_graph(kernel_steps(ran), closed)
            if [k.name for k in measured] == [k.name for k in info.kernels]:
                info.kernels = measured


def _runs_on_devices(jaxpr: Jaxpr) -> bool:
    """Replaying a pmap equation reruns it on every device, and the debugger could only show it
    as one opaque step; the call's PmapInfo already has each device's inputs and outputs."""
    for eqn in jaxpr.eqns:
        if "pmap" in eqn.primitive.name or eqn.primitive.name == "shard_map":
            return True
        inner = eqn.params.get("jaxpr") if eqn.primitive.name == "jit" else None
        if isinstance(inner, ClosedJaxpr) and _runs_on_devices(inner.jaxpr):
            return True
    return False


def _lower(jit_fn, spec: ArgSpec):
    """``jit_fn.lower`` on stand-ins of the types the stage was traced with."""
    args, kwargs = spec.placeholders()
    return jit_fn.lower(*args, **kwargs)


def _static_positions(t: Transformed):
    real = t.real
    return tuple(getattr(real, "static_argnums", ()) or ()), tuple(getattr(real, "static_argnames", ()) or ())


def _backend_name() -> str:
    jit_mod = importlib.import_module("engine.jit")
    name = getattr(jit_mod.get_backend(), "name", "interpreter")
    return "numba" if "numba" in str(name) else "interpreter"


def _executable_of(closed):
    """The executable jit runs for ``closed``: compiled for its simplified form (the algebraic
    simplifier's rewrites), cached under that program."""
    jit_mod = importlib.import_module("engine.jit")
    if closed is None:
        return None
    try:
        return jit_mod._executables.get(importlib.import_module("engine.jit_runtime").compiled_form(closed))
    except (TypeError, NotImplementedError):  # (unhashable parameters; a primitive jit cannot lower)
        return None


def _runs_form(closed, lowered):
    """The program jit runs for the call's ``closed`` (its simplified form, whose equations
    ``_on_traced_graph`` names on the traced graph), else ``lowered``: a first call that ran
    interpreted is reported from a lowering, and one of the traced program named other kernels than
    the program that ran, so ``measure_kernels`` dropped their times."""
    if closed is None:
        return lowered
    try:
        return importlib.import_module("engine.jit_runtime").compiled_form(closed)
    except (TypeError, NotImplementedError):  # (as ``_executable_of``)
        return lowered


def _on_traced_graph(kernels: list, closed) -> list:
    """Kernel steps with their equations named as on the traced program's graph: when jit ran a
    simplified program, its equation ``nK`` is the traced equation it came from."""
    if closed is None or not kernels:
        return kernels
    try:
        lowered = importlib.import_module("engine.jit_runtime").with_lowerings(closed)
    except NotImplementedError:  # (a primitive jit cannot lower: nothing was simplified)
        return kernels
    simplifier = importlib.import_module("engine.algebraic_simplifier")
    positions = simplifier.traced_positions(lowered)
    folding = importlib.import_module("engine.constant_folding")
    kept = folding.kept_positions(folding.fold(simplifier.simplify(lowered)))
    if kept is not None:  # (equations XLA folds to constants ran no kernel)
        positions = [kept_i if positions is None else positions[kept_i] for kept_i in kept]
    heads = [int(path.partition("/")[0][1:]) for k in kernels for path in k.eqns]
    if positions is None or any(i >= len(positions) for i in heads):
        return kernels  # (the kernels are of another program than the one simplified here)
    for k in kernels:
        named = []
        for path in k.eqns:
            head, _, rest = path.partition("/")
            top = f"n{positions[int(head[1:])]}"
            named.append(top + ("/" + rest if rest else ""))
        k.eqns = list(dict.fromkeys(named))
    return kernels
