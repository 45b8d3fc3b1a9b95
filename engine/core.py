"""The core: abstract values, primitives, traces and tracers, and the concrete ``Array``.

Shape follows JAX's Autodidax. A ``Primitive`` is bound to arguments; ``bind`` finds the
innermost trace among the arguments (by trace *level*, never by tracer type, which is what keeps
nested transformations from confusing each other's perturbations) and hands the primitive to that
trace. Each interpreter owns a rule table keyed by primitive; adding an operation means adding rows.
"""

from __future__ import annotations

import itertools
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NoReturn, Sequence, TypeVar

import numpy as np
import numpy.typing as npt

from . import held_arrays, invalid_values, narrow_dtypes, transfers
from .class_paths import jax_class_path as jax_class_path  # (JAX's names for the classes user code meets)
from .dims import InconclusiveDimensionOperation, dimension_as_value, is_constant_dim, max_dim, min_dim  # noqa: F401
from .invalid_values import active as _debug_values
from .eager_checks import check_eagerly
from .transfers import active as _transfer_guarded
from .errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
    function_context,
)
from .source_info import SourceInfo as SourceInfo
from .source_info import _source_override
from .source_info import current_source_info as current_source_info
from .source_info import named_scope as named_scope
from .source_info import source_info_context as source_info_context

from .array_repr import array_repr

# What 64-bit types and Python scalars become (jax_enable_x64): one table, read where values are made.
from .canonical_dtypes import _CANONICAL as _CANONICAL
from .host_copies import host_copy as host_copy, host_operand
from .canonical_dtypes import _PYTHON_DTYPE as _PYTHON_DTYPE
from .canonical_dtypes import canonical_dtype as canonical_dtype
from .canonical_dtypes import default_dtype as default_dtype
from .canonical_dtypes import python_scalar_dtype as python_scalar_dtype
from .canonical_dtypes import set_x64 as set_x64
from .canonical_dtypes import x64_enabled as x64_enabled
from .canonical_dtypes import x64_listeners as x64_listeners

# Abstract values (engine.avals), re-exported: most of the engine reads them from here.
from .avals import DEVICE as DEVICE
from .avals import DType as DType
from .avals import ExtendedDType as ExtendedDType
from .avals import MemorySpace as MemorySpace
from .avals import ShapedArray as ShapedArray
from .avals import dtype_short as dtype_short
from .avals import extended_dtypes as extended_dtypes
from .avals import extended_dtype_of as extended_dtype_of
from .avals import float0 as float0
from .avals import mem_kind_to_space as mem_kind_to_space
from .avals import mem_space_to_kind as mem_space_to_kind
from .avals import vma_checking as vma_checking, vma_hooks as vma_hooks
from .avals import raise_to_shaped as raise_to_shaped

if TYPE_CHECKING:
    from .parallel.topology import Device

# ---------------------------------------------------------------------------------------------
# An operand or result of a primitive: a concrete ``Array``, numpy array or Python scalar, or a
# ``Tracer``. Any rather than a union: engine.numpy installs the array methods on both at import.
Value = Any
# A primitive's parameters: ints, tuples, dtypes, jaxprs, callables..., as each primitive defines.
Params = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# Source information: every staged equation remembers the user line that produced it (the frame
# walk and named scopes are in ``source_info``).


def staging_source_info() -> SourceInfo | None:
    """The user line, when something may show it: a staging trace (make_jaxpr, jit) is active,
    an equation is being replayed, or the debugger listens. Eager autodiff skips the frame walk."""
    if _state.dynamic is None and getattr(_source_override, "value", None) is None:
        from . import monitoring

        if not monitoring.listening():
            return None
    return current_source_info()


# ---------------------------------------------------------------------------------------------
# Primitives and their rule tables.

impl_rules: dict["Primitive", Callable[..., Any]] = {}
abstract_eval_rules: dict["Primitive", Callable[..., Any]] = {}
# Primitives whose abstract evaluation runs before their impl when called eagerly: numpy would
# accept operands their shape rules refuse (it clamps a slice that does not fit, ignores a padding
# value's dtype), where JAX, which runs every eager operation through its shape rules, raises.
# (Not all primitives: elementwise ones check in their impl, and 2-3 us each would double them.)
eager_checked: set["Primitive"] = set()
Rule = TypeVar("Rule", bound=Callable[..., Any])


class Primitive:
    """One operation. Interpreters look up its rules in their tables, keyed by this object."""

    multiple_results = False
    # EvalTrace hands ``Array`` arguments to the impl as they are instead of as numpy (pmap sets
    # it so that device-resident ShardedArrays are used in place, not fetched to the host).
    takes_arrays = False
    # Eager outputs take their weak types from the abstract rule, not from the operands: control
    # flow, whose body decides (``cond(True, f, g, 2.0)`` is weak although its index is not).
    weak_from_abstract_eval = False
    # Eager outputs stay weak where all operands are, although the dtype changes: comparisons, whose
    # bool is weak when both operands are (JAX's standard weak-type rule).
    keeps_weak_type = False
    # Made with jax.extend.core.Primitive: its rules are the user's, so transformations call them
    # as JAX does (no cached linearization) and jit needs its lowering rule.
    defined_outside_engine = False
    # Inside a checked shard_map body each result varies as its own operand, none is pvary'd to
    # match the others (JAX's sort: its abstract rule passes the operands' types through).
    results_vary_as_operands = False

    def __init__(self, name: str, multiple_results: bool = False):
        self.name = name
        self.multiple_results = multiple_results
        # The module that made it (past subclasses' __init__): the engine's, or user or test code.
        frame = sys._getframe(1)
        while frame.f_code.co_name == "__init__" and frame.f_back is not None:
            frame = frame.f_back
        self.defined_in: str = frame.f_globals.get("__name__", "")

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: Value, **params: Any) -> Value:
        """The result of applying this primitive (a list of them if ``multiple_results``)."""
        if vma_checking[0]:
            args = vma_hooks[0](self, args, params)
        trace = find_top_trace(args)
        if trace.main.level:
            args = [trace.full_raise(a) for a in args]  # type: ignore[assignment]  # a list, not a tuple() copy: hot
        outs = trace.process_primitive(self, args, params)
        if self.multiple_results:
            return [full_lower(o) for o in outs]
        return full_lower(outs)

    def def_impl(self, fn: Rule) -> Rule:
        impl_rules[self] = fn
        return fn

    def def_abstract_eval(self, fn: Rule) -> Rule:
        abstract_eval_rules[self] = fn
        return fn

    def abstract_eval(self, *avals: ShapedArray, **params: Any) -> Any:
        """The output's ShapedArray (a list of them if ``multiple_results``)."""
        rule = abstract_eval_rules.get(self)
        if rule is None:
            raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented")
        out = rule(*avals, **params)
        if vma_checking[0]:
            out = vma_hooks[1](self, avals, params, out)
        for a in avals:
            if getattr(a, "memory_space", DEVICE) is not DEVICE:  # (rare: keep the common path short)
                from .memory_spaces import memory_space_rule

                return memory_space_rule(self, avals, params, out)
        return out


# ---------------------------------------------------------------------------------------------
# The trace stack.


class MainTrace:
    __slots__ = ("level", "trace_type", "global_data", "trace", "effects")

    def __init__(self, level: int, trace_type: type[Trace], global_data: Any = None):
        self.level, self.trace_type, self.global_data = level, trace_type, global_data
        self.trace: Trace | None = None  # the Trace object, made once (binds are hot)
        self.effects: list[Any] = []  # a partial evaluation's recipes of ref effects (kept unread)

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class _TraceState(threading.local):
    def __init__(self) -> None:
        self.stack: list[MainTrace] = [MainTrace(0, EvalTrace)]
        self.dynamic: MainTrace | None = None


_state: _TraceState  # set below, once EvalTrace exists


@contextmanager
def new_main(trace_type: type[Trace], global_data: Any = None) -> Iterator[MainTrace]:
    level = len(_state.stack)
    main = MainTrace(level, trace_type, global_data)
    _state.stack.append(main)
    try:
        yield main
    finally:
        _state.stack.pop()


# How many staging traces are open in any thread. Eager fast paths read this plain list cell
# (a thread-local read costs as much as half a numpy add); non-zero sends them the general way,
# which checks the thread's own state, so another thread's tracing only costs speed.
staging_anywhere = [0]
# How many bodies of functions JAX jits (jnp's) the current eager operations are inside, in this
# process: their AD rules then round as compiled (``engine/fused_rules.py``).
jitted_body = [0]
_staging_lock = threading.Lock()


@contextmanager
def new_dynamic(main: MainTrace) -> Iterator[None]:
    """Make ``main`` catch every bind, even of constants: how jit stages constant-only work."""
    prev, _state.dynamic = _state.dynamic, main
    with _staging_lock:
        staging_anywhere[0] += 1
    try:
        yield
    finally:
        _state.dynamic = prev
        with _staging_lock:
            staging_anywhere[0] -= 1


def tracing_active() -> bool:
    return len(_state.stack) > 1


def find_top_trace(xs: Iterable[Value]) -> Trace:
    state = _state
    top = state.stack[0]
    level = 0
    top_tracer = None
    for x in xs:
        if isinstance(x, Tracer):
            m = x._trace.main
            if m.level > level:
                top, level, top_tracer = m, m.level, x
    dyn = state.dynamic
    if dyn is not None and dyn.level > level:
        top = dyn
    elif level:
        stack = state.stack
        if level >= len(stack) or stack[level] is not top:  # its transformation has finished
            _leaked_tracer(top_tracer)
    trace = top.trace
    if trace is None:
        trace = top.trace = top.trace_type(top)
    return trace


def _leaked_tracer(tracer: Any) -> NoReturn:  # (JAX's words: engine.tracer_origins)
    from .tracer_origins import leaked_tracer_msg

    raise UnexpectedTracerError(leaked_tracer_msg(tracer))


def full_lower(val: Value) -> Value:
    return val.full_lower() if isinstance(val, Tracer) else val


class Trace:
    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, val: Value) -> Value:
        """``val`` (not traced by this trace) as a value of this trace."""
        raise NotImplementedError

    lift = pure

    def full_raise(self, val: Value) -> Value:
        if not isinstance(val, Tracer):
            return self.pure(val)
        level = self.main.level
        vmain = val._trace.main
        if vmain is self.main:
            return val
        if vmain.level < level:
            return self.lift(val)
        if vmain.level >= len(_state.stack) or _state.stack[vmain.level] is not vmain:
            _leaked_tracer(val)  # (its transformation has finished)
        if vmain.level > level:
            raise UnexpectedTracerError(
                f"Encountered an unexpected tracer: a value from an inner transformation "
                f"({vmain.trace_type.__name__}) was used after that transformation finished. "
                f"Return it from the transformed function instead of storing it in a global or closure."
            )
        raise UnexpectedTracerError("Different traces at the same level; this is an engine bug.")

    def process_primitive(self, primitive: Primitive, tracers: Sequence[Value], params: Params) -> Value:
        raise NotImplementedError


# Runs a primitive on operands sharded over a mesh on the mesh's devices (set by
# engine.parallel.partition when such arrays exist); None means "compute on the host".
sharded_eager_dispatch: Callable[[Primitive, Sequence[Value], Params], Any] | None = None
# Runs a primitive on an operand in host memory (a pinned_host array) or on a one-device mesh (set
# by engine.parallel.named): operands in one memory space, results placed in it, as JAX's standard
# rule types them, and on the mesh as JAX reports them.
memory_eager_dispatch: Callable[[Primitive, Sequence[Value], Params], Any] | None = None


class EvalTrace(Trace):
    """Level 0: run the primitive's numpy implementation on concrete values."""

    def pure(self, val: Value) -> Value:
        return val

    lift = pure

    def process_primitive(self, primitive: Primitive, vals: Sequence[Value], params: Params) -> Value:
        if _transfer_guarded[0]:
            transfers.operands(vals)
        if primitive.takes_arrays:
            args = [v if isinstance(v, Array) else host_operand(v, to_numpy(v)) for v in vals]
        else:
            for v in vals:
                if type(v) is not Array and isinstance(v, Array):
                    if v.on_mesh:
                        out = sharded_eager_dispatch(primitive, vals, params)  # type: ignore[misc]
                        if out is not None:
                            return out
                        break
                    if memory_eager_dispatch and (
                        v.on_one_device_mesh or getattr(v.aval, "memory_space", DEVICE) is not DEVICE
                    ):
                        return memory_eager_dispatch(primitive, vals, params)
            args = [v._value if type(v) is Array else host_operand(v, to_numpy(v)) for v in vals]
        if primitive in eager_checked:
            check_eagerly(primitive, vals, args, params)
        try:
            impl = impl_rules[primitive]
        except KeyError:
            raise NotImplementedError(f"Evaluation rule for '{primitive}' not implemented") from None
        if narrow_dtypes.has_narrow(args) and narrow_dtypes.widens(primitive, params):
            outs = run_narrow(primitive, impl, vals, args, params)
        else:
            outs = impl(*args, **params)
        if _debug_values[0]:
            invalid_values.check_primitive(primitive.name, outs, primitive.multiple_results)
        weak = params.get("weak_type")
        if weak is None:
            # (a user-defined impl's numpy results are strongly typed, as in JAX)
            weak = bool(vals) and not primitive.defined_outside_engine
            for v in vals:
                if not (v.weak_type if type(v) is Array else is_weak(v)):
                    weak = False
                    break
        if primitive.multiple_results:
            if primitive.weak_from_abstract_eval:
                avals = primitive.abstract_eval(*[get_aval(v) for v in vals], **params)
                return [o if isinstance(o, Array) else array_of(o, a.weak_type) for o, a in zip(outs, avals)]
            return [o if isinstance(o, Array) else array_of(o, weak and _keeps_dtype(o, args)) for o in outs]
        if primitive.weak_from_abstract_eval and not isinstance(outs, Array):
            return array_of(outs, primitive.abstract_eval(*[get_aval(v) for v in vals], **params).weak_type)
        if "weak_type" in params:  # (convert_element_type's: the result's weak type, whatever the dtypes)
            return outs if isinstance(outs, Array) else array_of(outs, bool(weak))
        keep = weak and (primitive.keeps_weak_type or _keeps_dtype(outs, args))
        return outs if isinstance(outs, Array) else array_of(outs, keep)


def run_narrow(
    primitive: Primitive, impl: Callable[..., Any], vals: Sequence[Value], args: list[Any], params: Params
) -> Any:
    """``impl`` computing with bfloat16 and the like as XLA's CPU backend does (``narrow_dtypes``)."""

    def out_dtypes() -> list[Any]:
        out = primitive.abstract_eval(*[get_aval(v) for v in vals], **params)
        return [a.dtype for a in (out if primitive.multiple_results else [out])]

    return narrow_dtypes.run_impl(impl, args, params, out_dtypes, primitive.multiple_results)


def _keeps_dtype(out: Value, args: Sequence[np.ndarray | Array]) -> bool:
    # Weakness survives only where the output keeps the inputs' dtype (as the abstract rules say):
    # comparisons (bool), argmax (int) and the like are strong, as under jit.
    # A complex value's real part, imaginary part and modulus (a real one's conjugate) stay weak too.
    od, ad = getattr(out, "dtype", None), args[0].dtype
    return od == ad or (od is not None and narrow_dtypes.kind(od) in "fc" and narrow_dtypes.kind(ad) in "fc")


_state = _TraceState()


def _scalar_conversion(value: np.ndarray) -> None:
    # (JAX's check: numpy would convert a size-1 vector too, with a warning)
    if value.ndim > 0:
        raise TypeError(f"Only scalar arrays can be converted to Python scalars; got arr.ndim={value.ndim}")


# ---------------------------------------------------------------------------------------------
# Concrete arrays.


def _canonical_np(x: npt.ArrayLike) -> np.ndarray:
    a = np.asarray(x)
    d = _CANONICAL.get(a.dtype)
    if d is not None and d != a.dtype:
        a = a.astype(d)
    return a


def is_weak(x: Value) -> bool:
    if type(x) is Array:
        return x.weak_type
    if isinstance(x, Tracer):
        return x.aval.weak_type
    if isinstance(x, Array):  # device-resident arrays (ShardedArray) keep theirs too
        return x.weak_type
    return type(x) in (int, float, complex)


# Values that are not arrays (mutable array refs): type -> its abstract value. Impls get them as
# they are (``to_numpy`` passes them through); the module defining the type adds its row.
pytype_aval_mappings: dict[type, Callable[[Any], Any]] = {}
non_array_values: set[type] = set()  # types of concrete values that are no arrays (lax's tokens)


def to_numpy(x: Value) -> np.ndarray:
    if type(x) is Array:
        value: np.ndarray = x._value
        return value
    if isinstance(x, Tracer):
        raise TracerArrayConversionError(x)
    if isinstance(x, (bool, int, float, complex)):
        return np.asarray(x, dtype=python_scalar_dtype(x))
    if isinstance(x, Array):  # subclasses (typed keys, device arrays) hold their numpy value
        return x._value
    if getattr(x, "_is_dim_expr", False):  # a symbolic dimension: only staged programs have its value
        return to_numpy(x.dimension_as_value())
    if type(x) in pytype_aval_mappings:
        opaque: np.ndarray = x  # (a ref: handed to the impl as it is)
        return opaque
    return _canonical_np(x)


def _array_from_pickle(value: np.ndarray, weak_type: bool) -> Array:
    return Array(value, weak_type)


def made_held() -> bool:
    """Whether an Array made now is one the user holds (``held_arrays``): made outside any staging
    trace (staging traces run inside new_dynamic: while none runs anywhere, the thread-local depth
    need not be read)."""
    return not staging_anywhere[0] or not held_arrays.tracing()


@jax_class_path("jaxlib._jax.ArrayImpl")
class Array:
    """An immutable array on the host, the engine's concrete value.

    >>> import engine.numpy as jnp
    >>> jnp.arange(3.0) * 2
    Array([0., 2., 4.], dtype=float32)
    """

    # python_value (set only on a Python scalar a lax op took in another operand's dtype): the
    # number as written, which a jaxpr literal prints as JAX's does; the value computed with is
    # still _value. op_result (set only on a scalar lax.full made): a value JAX computes by an
    # operation, so holds in a tracer, not a literal: linearizing a jit makes it a residual.
    # _dev (set only on an array made under jax.default_device; unset: 0): the device it lives on
    __slots__ = ("_value", "weak_type", "_aval", "python_value", "op_result", "held", "_dev", "__weakref__")
    on_mesh: bool = False  # sharded over a mesh's devices (engine.parallel.named): operations run there
    # committed to one device (put there, or laid out by a NamedSharding over one device): results
    # are computed here, placed on that device and reported as JAX reports them
    on_one_device_mesh: bool = False
    __array_priority__ = 100

    def __init__(self, value: npt.ArrayLike, weak_type: bool = False):
        if type(value) is not np.ndarray:
            value = np.asarray(value)
        d = _CANONICAL.get(value.dtype)
        if d is not None and d != value.dtype:
            value = value.astype(d)
        value.setflags(write=False)  # (half the cost of flags.writeable = False)
        self._value: np.ndarray = value
        self.weak_type = weak_type
        self._aval: ShapedArray | None = None
        # made outside a trace: a trace's constvar (staging traces run inside new_dynamic: while none
        # runs anywhere, the thread-local depth need not be read)
        self.held = made_held()
        if default_device_index[0] is not None:  # (jax.default_device: uncommitted arrays live there)
            self._dev = default_device_index[0]

    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            aval = self._aval = ShapedArray(self._value.shape, self._value.dtype, self.weak_type)
        return aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    @property
    def nbytes(self) -> int:
        return self._value.nbytes

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) != self._value.dtype:
            return self._value.astype(dtype)
        if copy:
            return self._value.copy()
        # Eager fast paths (engine.numpy's operators) wrap fresh numpy results without marking
        # them read-only, which costs as much as the arithmetic; mark them here, when handed out.
        if self._value.flags.writeable:
            self._value.flags.writeable = False
        return self._value

    def __repr__(self) -> str:
        dtype = f"dtype={self.dtype.name}" + (", weak_type=True" if self.weak_type else "")
        return array_repr(self._value, dtype)

    def __str__(self) -> str:
        return str(self._value)

    def __format__(self, spec: str) -> str:
        if self._value.ndim == 0:
            return format(self._value.item(), spec)
        return format(str(self), spec)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        _scalar_conversion(self._value)
        return int(self._value)

    def __float__(self) -> float:
        _scalar_conversion(self._value)
        return float(self._value)

    def __complex__(self) -> complex:
        _scalar_conversion(self._value)
        return complex(self._value)

    def __index__(self) -> int:
        if self._value.shape != () or narrow_dtypes.kind(self._value.dtype) not in "iu":
            raise TypeError("Only integer scalar arrays can be converted to a scalar index.")
        return int(self._value.__index__())

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of unsized object")
        n: int = self._value.shape[0]
        return n

    def __iter__(self) -> Iterator[Array]:
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (Array(v, self.weak_type) for v in self._value)

    def __hash__(self) -> NoReturn:
        raise TypeError("unhashable type: 'jaxlib._jax.ArrayImpl'")  # (JAX's C++ class, by its full name)

    def tolist(self) -> Any:  # nested lists of Python scalars, as numpy's
        return self._value.tolist()

    def tobytes(self, order: str = "C") -> bytes:  # the raw bytes, as numpy's
        return self._value.tobytes(order)  # type: ignore[arg-type]

    def item(self, *args: int) -> Any:  # a Python scalar, as numpy's
        return self._value.item(*args)

    def block_until_ready(self) -> Array:
        return self

    def copy(self) -> Array:
        return Array(self._value.copy(), self.weak_type)

    def __copy__(self) -> Array:
        return self

    def __deepcopy__(self, memo: object) -> Array:
        return self

    def __reduce__(self) -> tuple[Callable[[np.ndarray, bool], Array], tuple[np.ndarray, bool]]:
        return (_array_from_pickle, (np.array(self._value), self.weak_type))

    @property
    def addressable_shards(self) -> list[Any]:
        from .parallel.sharded import Shard

        return [Shard.whole(self)]

    def devices(self) -> set[Device]:
        from .parallel.topology import get_device

        return {get_device(getattr(self, "_dev", 0))}

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def committed(self) -> bool:
        """A computed array is not committed to its device (JAX's ``Array.committed``)."""
        return False


# jax.default_device's device id, or None (engine.config sets it, and turns eager fast paths off
# meanwhile, so that Array.__init__ makes every result)
default_device_index: list[int | None] = [None]


def array_of(value: Value, weak_type: bool = False) -> "Array":
    """The engine's concrete value for an impl's numpy result: an ``Array``, or for the numpy
    storage of an extended dtype (typed keys) that dtype's array type; a value of no data (a
    token, ``non_array_values``) as it is."""
    if type(value) in non_array_values:
        return value  # type: ignore[no-any-return]
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind == "V":
        ext = extended_dtypes.get(dtype)
        if ext is not None:
            return ext.to_user(value)
    return Array(value, weak_type)


# ---------------------------------------------------------------------------------------------
# Tracers.


@jax_class_path("jax._src.core.Tracer")
class Tracer:
    """A value being traced by one transformation; ``aval`` says what is known about it."""

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000
    _trace: Trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    def full_lower(self) -> Value:
        return self

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> DType:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    def concrete_value(self) -> Value | None:
        """The concrete value behind this tracer, if the transformation knows one, else None."""
        return None

    def _concrete(self, what: str, error_cls: Callable[[Tracer, str], Exception]) -> Value:
        val = self.concrete_value()
        if val is None:
            raise error_cls(self, what)
        return val

    def __bool__(self) -> bool:
        return bool(self._concrete("bool", TracerBoolConversionError))

    def __int__(self) -> int:
        return int(self._concrete(function_context("int"), ConcretizationTypeError))

    # (JAX's tracers never convert to float or complex, not even ones whose value is known, as a
    # tracer of grad's is: bool, int and index do)
    def __float__(self) -> NoReturn:
        raise ConcretizationTypeError(self, function_context("float"))

    def __complex__(self) -> NoReturn:
        raise ConcretizationTypeError(self, function_context("complex"))

    def __index__(self) -> int:
        return int(self._concrete("index", TracerIntegerConversionError))

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> NoReturn:
        raise TracerArrayConversionError(self)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[Value]:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        from .lax.slicing import index_in_dim  # (as JAX iterates: slice and squeeze each row)

        return (index_in_dim(self, i, keepdims=False) for i in range(self.shape[0]))

    def __hash__(self) -> NoReturn:
        raise TypeError(f"unhashable type: '{type(self).__name__}'")

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>with<{type(self).__name__}>"

    # (block_until_ready, sharding, devices() and the like: refused as JAX refuses them, by
    # engine.array_buffers)


def refuse_jax_array_protocol() -> NoReturn:
    """As in JAX 0.10.2: ``__jax_array__`` objects convert only through ``jnp.array``/``jnp.asarray``
    (and arithmetic operators); jnp/lax functions, transformations and indexing refuse them."""
    raise ValueError(
        "Triggering __jax_array__() during abstractification is no longer supported. To avoid this "
        "error, either explicitly convert your object using jax.numpy.array(), or register your "
        "object as a pytree."
    )


def get_aval(x: Value) -> ShapedArray:
    t = type(x)
    if t is Array:
        aval: ShapedArray = x.aval  # (``t is Array`` does not narrow ``x`` for the checker)
        return aval
    if isinstance(x, Tracer):
        return x.aval
    if t in (int, float, complex):
        return ShapedArray((), python_scalar_dtype(x), True)
    if t is bool:
        return ShapedArray((), np.dtype("bool"), False)
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(np.shape(x), canonical_dtype(x.dtype), False)
    if isinstance(x, Array):  # subclasses, e.g. device-resident arrays: no need to fetch data
        return x.aval
    if hasattr(x, "__jax_array__"):
        refuse_jax_array_protocol()
    rule = pytype_aval_mappings.get(t)
    if rule is not None:
        opaque_aval: ShapedArray = rule(x)  # (an AbstractRef: shaped like one)
        return opaque_aval
    raise TypeError(
        f"Value {x!r} of type {type(x).__name__} is not a valid array type. "
        f"Pass arrays, numbers, or pytrees (tuples, lists, dicts) of them."
    )


def is_array_like(x: object) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic, bool, int, float, complex)) or (
        type(x) in pytype_aval_mappings
    )


def concrete_or_none(x: Value) -> np.ndarray | None:
    """A numpy value for x if it is concrete (possibly behind tracers that know it), else None."""
    if getattr(x, "_is_dim_expr", False):  # a symbolic dimension is known only to staged programs
        return None
    if isinstance(x, Tracer):
        v = x.concrete_value()
        return None if v is None else np.asarray(to_numpy(v) if not isinstance(v, np.ndarray) else v)
    return to_numpy(x)


def concrete_or_error(x: Value, what: str) -> np.ndarray:
    v = concrete_or_none(x)
    if v is None:
        raise ConcretizationTypeError(x, what)
    return v


_ids = itertools.count()
