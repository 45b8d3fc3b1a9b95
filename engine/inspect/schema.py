"""The run report: the one contract between engine, server and page.

The engine fills it (``engine.inspect.run``), the server only limits and transports it, and the
page only renders it. The page's types are generated from these models (``make types`` writes
``web/src/report.gen.ts``; ``make lint`` fails when it is out of date).
Non-finite floats are sent as the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"`` because
JSON has no spelling for them.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from pydantic import BaseModel, Field
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from .transforms import ALIASES, OPTION_HINTS, TRANSFORMS

REPORT_VERSION = 1

if TYPE_CHECKING:
    TransformName = str
else:  # the registry's names, as an enum in the JSON Schema
    TransformName = Literal[tuple(TRANSFORMS)]


class TransformOption(BaseModel):
    name: str
    hint: str = Field(description="What an empty option box means (the page's placeholder).")


class TransformInfo(BaseModel):
    """A transformation the stack can hold (``GET /api/transforms``)."""

    name: TransformName
    options: list[TransformOption] = Field(description="Keyword options, in display order.")
    aliases: list[str] = Field(default_factory=list, description="Other names code may call it by.")


def transform_infos() -> list[TransformInfo]:
    return [
        TransformInfo(
            name=t.name,
            options=[TransformOption(name=o, hint=OPTION_HINTS.get(o, "")) for o in t.options],
            aliases=[a for a, target in ALIASES.items() if target == t.name],
        )
        for t in TRANSFORMS.values()
    ]


class TransformSpec(BaseModel):
    """One layer of a transformation stack, innermost first.

    ``options`` maps keyword names to Python expressions, exactly as they appear in code:
    ``{"in_axes": "(None, 0)", "axis_name": "'i'"}``.
    """

    name: TransformName
    options: dict[str, str] = Field(default_factory=dict)


class RunRequest(BaseModel):
    code: str
    function: Optional[str] = Field(None, description="Target function; None runs the code as a script.")
    stack: list[TransformSpec] = Field(default_factory=list, description="Innermost first.")
    args: list[str] = Field(default_factory=list, description="Arguments as Python expressions.")


class SourceInfo(BaseModel):
    file: str = "<user>"
    line: int
    column: Optional[int] = None
    function: Optional[str] = None
    callers: list[str] = Field(
        default_factory=list, description="The user functions that called `function`, outermost first."
    )
    scope: Optional[str] = Field(None, description="jax.named_scope / jax.named_call names, 'outer/inner'.")


Number = Union[float, str, None]  # str for "NaN"/"Infinity"/"-Infinity"


class ArraySummary(BaseModel):
    kind: Literal["array"] = "array"
    shape: list[int]
    dtype: str
    weak_type: bool = False
    min: Number = None
    max: Number = None
    mean: Number = None
    nan_count: int = 0
    inf_count: int = 0
    data: Any = Field(None, description="Nested lists up to the size cap, else None.")
    truncated: bool = False
    devices: Optional[list[int]] = None  # device ids holding the shards, for sharded arrays


class TreeNode(BaseModel):
    kind: Literal["tuple", "list", "dict", "namedtuple", "none", "object"]
    type_name: Optional[str] = None
    keys: Optional[list[str]] = None
    children: list["Value"] = Field(default_factory=list)
    repr: Optional[str] = None


class CheckifyError(BaseModel):
    # A checkify Error value: the failure it holds, or none.
    kind: Literal["checkify_error"] = "checkify_error"
    message: Optional[str] = None  # err.get(): None when no check failed
    error_type: Optional[str] = None  # the failure's class: FailedCheckError, NaNError, ...
    source: Optional[SourceInfo] = None  # the user line whose check failed


Value = Union[ArraySummary, CheckifyError, TreeNode]


class Frame(BaseModel):
    file: str
    line: int
    function: str
    text: Optional[str] = None
    user: bool = False


warnings.filterwarnings("ignore", message='Field name "mro" in "RunError" shadows', category=UserWarning)


class RunError(BaseModel):
    type: str
    mro: list[str] = Field(default_factory=list)
    message: str
    line: Optional[int] = None
    column: Optional[int] = None
    end_line: Optional[int] = None
    end_column: Optional[int] = None
    layer: Optional[str] = Field(None, description="The transformation that raised, e.g. 'jit' or 'vmap'.")
    suggestion: Optional[str] = None
    traceback: list[Frame] = Field(default_factory=list)
    limit: Optional[Literal["timeout", "cpu", "memory", "output", "code_size", "killed"]] = None


class IRVar(BaseModel):
    id: str
    shape: list[int]
    dtype: str
    weak_type: bool = False
    type: str = Field(
        "",
        description="The type as the text prints it when it shows more than shape "
        "and dtype: on a mesh with explicit axes, its sharding (f32[8@x,4]).",
    )


class IRAtom(BaseModel):
    var: Optional[str] = None
    literal: Optional[str] = None


class EqnCost(BaseModel):
    """Estimated work of an equation (see ``engine.inspect.cost``): not a measurement."""

    flops: float = 0.0
    bytes: float = Field(0.0, description="Bytes read and written, as if unfused.")


class StageCost(BaseModel):
    flops: float = 0.0
    bytes: float = 0.0
    by_line: dict[int, EqnCost] = Field(default_factory=dict, description="Per user source line.")
    estimate: Literal[True] = True


class IRNode(BaseModel):
    id: str
    primitive: str
    params: dict[str, str] = Field(default_factory=dict)
    inputs: list[IRAtom] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    source: Optional[SourceInfo] = None
    subgraphs: list["IRGraph"] = Field(default_factory=list)
    added: bool = Field(False, description="Introduced by this stage's transformation.")
    origin: Optional[str] = Field(
        None,
        description="Id of the first stage's equation this one descends from (the same source line, "
        "matched stage to stage); equations a transformation added take their line's. Stable across "
        "stages, so any two stages can be diffed by it.",
    )
    cost: Optional[EqnCost] = None


class IRGraph(BaseModel):
    name: str
    invars: list[str] = Field(default_factory=list)
    constvars: list[str] = Field(default_factory=list)
    outvars: list[IRAtom] = Field(default_factory=list)
    vars: dict[str, IRVar] = Field(default_factory=dict)
    nodes: list[IRNode] = Field(default_factory=list)


class Stage(BaseModel):
    name: str = Field(description="e.g. 'f', 'grad(f)', 'vmap(grad(f))'.")
    transform: Optional[str] = None
    text: str
    graph: Optional[IRGraph] = None
    path_taken: bool = Field(
        False,
        description="Traced on the call's concrete inputs because Python control flow depends on "
        "them: the equations that ran for these inputs, not a program valid for all inputs.",
    )
    cost: Optional[StageCost] = None
    # A jit stage's lowered program as jit(f).lower(*args).as_text() prints it (capped), or a `//`
    # line saying why there is none; None for other stages. (A comment, not a description: the
    # generated TypeScript must stay under 800 lines.)
    stablehlo: Optional[str] = None


class KernelInfo(BaseModel):
    """One step of a jitted program: a fused kernel launch, or an equation the host runs itself
    (a matmul through BLAS, a loop, an interpreter fallback)."""

    name: str = Field(description="The kernel's name in the generated code, or 'host: <primitive>'.")
    kind: Literal["kernel", "host"] = "kernel"
    eqns: list[str] = Field(
        default_factory=list,
        description="The equations it computes, as paths of equation indices into the jitted jaxpr "
        "('n3', or 'n5/n2' inside an inlined call): under the stage's jit node in the graph.",
    )
    flops: float = 0.0
    bytes: float = Field(
        0.0,
        description="Bytes it reads and writes: for a kernel each array once (what fusion leaves), "
        "for a host step its equation's inputs and outputs.",
    )
    estimate: Literal[True] = True
    launches: int = Field(0, description="Times it ran compiled during the run (0: not measured).")
    measured_ms: Optional[float] = Field(None, description="Its fastest measured launch, in ms.")
    total_ms: Optional[float] = Field(None, description="All its measured launches, in ms.")


class JitInfo(BaseModel):
    backend: Literal["numba", "interpreter"]
    cache: Literal["hit", "miss", "disk"] = Field(
        "miss",
        description="'hit': traced before (in-memory cache); 'disk': traced, its kernels loaded from the kernel "
        "cache and none compiled (its timings have a ``load`` event from disk and no ``compile``); "
        "'miss': traced otherwise (something compiled, or nothing was loaded from disk).",
    )
    recompile_reason: Optional[str] = None  # why it traced: JAX's explain_cache_misses text
    source: Optional[str] = None
    fallbacks: list[str] = Field(default_factory=list, description="Primitives run by the interpreter.")
    tier: Literal["compiled", "interpreter"] = Field(
        "compiled",
        description="What ran the call: the compiled kernels, or the interpreter while they compiled "
        "in the background (a new program's first call).",
    )
    kernels: list[KernelInfo] = Field(
        default_factory=list,
        description="The program's steps in order, with the equations each computes, their estimated "
        "cost and (when the run executed the compiled program) measured time.",
    )
    kernel_stage: Optional[str] = Field(None, description="The stage whose jit equation `eqns` index.")
    compiled_ready_ms: Optional[float] = Field(
        None,
        description="When the background compile finished (ms since the run started); None if it was "
        "still compiling when the run ended, or if the call waited for the compile.",
    )


class TimingEvent(BaseModel):
    name: str
    category: Literal[
        "trace", "transform", "lower", "compile", "load", "execute", "transfer", "collective", "run"
    ] = Field(
        description="``load``: jit's compile step when nothing was compiled, its kernels loaded from the "
        "kernel cache on disk (``cache`` 'disk': importing the generated module, numba reading and "
        "linking each kernel's cached machine code) or already in memory (``cache`` 'hit')."
    )
    start_ms: float
    duration_ms: float
    device: Optional[int] = None
    call: Optional[int] = None
    # For jit's trace and compile steps: "hit" (in-memory cache), "miss" or "disk" (kernel cache).
    cache: Optional[Literal["hit", "miss", "disk"]] = None
    tier: Optional[Literal["compiled", "interpreter"]] = Field(
        None, description="For a jit call's execute event: which tier ran it."
    )
    background: bool = Field(
        False,
        description="Ran alongside the host's phases (a first call's compile on the background "
        "thread), not one of them.",
    )


class DeviceRecord(BaseModel):
    # Where a device's run time went: its own computation, the work of its collectives (copying
    # into and out of the exchange, reducing), and waiting in them for the other devices.
    id: int
    coords: list[int] = Field(default_factory=list)
    inputs: list[ArraySummary] = Field(default_factory=list)
    outputs: list[ArraySummary] = Field(default_factory=list)
    compute_ms: float = 0.0
    exchange_ms: float = 0.0
    collective_wait_ms: float = 0.0


class CollectiveEvent(BaseModel):
    seq: int
    primitive: str
    axis_name: str
    devices: list[int]
    start_ms: float  # when the first device entered it
    duration_ms: float  # the longest any one device spent in it, waiting included (max of device_ms)
    # Per device, in the order of ``devices``: the time each spent in it, and of that the time it
    # was blocked waiting for the others (the rest is the exchange itself).
    device_ms: list[float] = Field(default_factory=list)
    waits_ms: list[float] = Field(default_factory=list)
    nbytes: int = 0
    shape: list[int] = Field(default_factory=list)
    dtype: str = ""
    perm: Optional[list[list[int]]] = None  # ppermute's (source, destination) positions within each group
    # The device ids that exchanged with each other, one list per group (a psum over 'y' on a (4, 2)
    # mesh is 4 groups of 2), each in its axis order.
    groups: list[list[int]] = Field(default_factory=list)


class PmapInfo(BaseModel):
    # What each device of a mesh computed and exchanged in one call (all its device programs; the
    # generated TypeScript must stay under 800 lines, hence comments rather than descriptions).
    kind: Literal["pmap", "shard_map", "jit"] = "pmap"  # a pmap, a shard_map, or a jit of sharded arrays
    axis_names: list[Optional[str]] = Field(default_factory=list)
    mesh: list[int] = Field(default_factory=list)  # the mesh's shape, one size per axis
    programs: int = 1  # device programs the call ran (an eager shard_map runs one per operation)
    devices: list[DeviceRecord] = Field(default_factory=list)
    collectives: list[CollectiveEvent] = Field(default_factory=list)


class DebugStep(BaseModel):
    index: int
    node: str
    primitive: str
    source: Optional[SourceInfo] = None
    outputs: list[ArraySummary] = Field(default_factory=list)
    nonfinite: bool = False
    within: Optional[str] = None  # in a loop's body or a cond's branch: "scan iteration 2 of 5"


class DebugTrace(BaseModel):
    graph: str  # the name of the stage whose equations are stepped
    steps: list[DebugStep] = Field(default_factory=list)
    first_nonfinite: Optional[int] = None
    truncated: bool = False


class TransformedCall(BaseModel):
    id: int
    label: str  # the composed call as code, e.g. 'jit(vmap(grad(loss)))'
    function: str
    source: Optional[SourceInfo] = None
    stages: list[Stage] = Field(default_factory=list)
    jit: Optional[JitInfo] = None
    pmap: Optional[PmapInfo] = None
    debug: Optional[DebugTrace] = None
    timings: list[TimingEvent] = Field(default_factory=list)


class DebugPrint(BaseModel):
    device: Optional[int] = None
    text: str


class RunReport(BaseModel):
    version: int = REPORT_VERSION
    engine_version: str
    mode: Literal["script", "stack"]
    ok: bool
    label: Optional[str] = None
    stdout: str = ""
    stderr: str = ""
    result: Optional[Value] = None
    error: Optional[RunError] = None
    calls: list[TransformedCall] = Field(default_factory=list)
    timings: list[TimingEvent] = Field(default_factory=list)
    prints: list[DebugPrint] = Field(default_factory=list)
    device_count: int = 1
    duration_ms: float = 0.0


class RunProgress(BaseModel):
    """What a run finished since its last progress frame (``engine.inspect.progress``): the sandbox
    keeps these so that a run killed at a limit still shows them. Not sent to the page."""

    calls: list[TransformedCall] = Field(default_factory=list)
    running: Optional[TransformedCall] = None  # the call under way when the frame was sent (no stages yet)
    timings: list[TimingEvent] = Field(default_factory=list)
    prints: list[DebugPrint] = Field(default_factory=list)
    stdout: str = ""
    stderr: str = ""


TreeNode.model_rebuild()
IRNode.model_rebuild()


class _AsSent(GenerateJsonSchema):
    """Models as sent: every field is in the JSON (defaults included), so every one is required."""

    def field_is_required(self, field, total) -> bool:
        return self.mode == "serialization" or super().field_is_required(field, total)

    def field_title_should_be_set(self, schema) -> bool:
        return False  # a field's title only repeats its name (and the generated types must stay short)


def openapi_components() -> dict:
    """What the page reads (reports, as sent) and sends (requests, as validated), as an OpenAPI
    document of components: ``make types`` turns it into ``web/src/report.gen.ts``."""
    _, schema = models_json_schema(
        [(RunReport, "serialization"), (TransformInfo, "serialization"), (RunRequest, "validation")],
        ref_template="#/components/schemas/{model}",
        schema_generator=_AsSent,
    )
    return {
        "openapi": "3.1.0",
        "info": {"title": "jaxplay run report", "version": str(REPORT_VERSION)},
        "paths": {},
        "components": {"schemas": schema["$defs"]},
    }
