"""``jax.export.export`` and ``Exported``: a jitted function staged for given argument types, with
what is needed to call it later, in this process or (serialized) another one.

The engine's exported program is its closed jaxpr (JAX's is StableHLO); ``serialize`` writes it
as validated data (``engine.export.serialization``), never as pickled objects. The engine runs on
one platform, ``"cpu"``: a function may be exported for others (nothing runs then), and calling
it where its platforms do not include ``"cpu"`` raises JAX's error.

>>> import engine as jax, engine.numpy as jnp, numpy as np
>>> from engine import export
>>> exp = export.export(jax.jit(jnp.sin))(np.arange(4, dtype=np.float32))
>>> exp.in_avals
(ShapedArray(float32[4]),)
>>> export.deserialize(exp.serialize()).call(np.array([0.5], np.float32).repeat(4))
Array([0.47942555, 0.47942555, 0.47942555, 0.47942555], dtype=float32)
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Optional, Sequence

import numpy as np

from .. import core
from ..config import config
from ..core import ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, subjaxprs
from ..pytree.treedef import PyTreeDef
from . import shape_poly_eval

minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


class DisabledSafetyCheck:
    """A safety check that ``export`` (or a later call) skips: build one with ``platform()`` or
    ``custom_call(target)``.

    >>> DisabledSafetyCheck.custom_call("my_target")
    custom_call:my_target
    """

    @classmethod
    def platform(cls) -> "DisabledSafetyCheck":
        """Allow calling on a platform the function was not exported for (checked at call time)."""
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> "DisabledSafetyCheck":
        """Allow exporting a custom call to ``target_name`` (``"ALL"``: any target)."""
        return cls(f"custom_call:{target_name}")

    def is_custom_call(self) -> str | None:
        """The custom call target this check allows, or None."""
        m = re.match(r"custom_call:(.+)$", self._impl)
        return m.group(1) if m else None

    def __init__(self, _impl: str):
        self._impl = _impl

    def __str__(self) -> str:
        return self._impl

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, DisabledSafetyCheck) and self._impl == other._impl

    def __hash__(self) -> int:
        return hash(self._impl)


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
    """A function staged by ``export`` for one set of argument types: its argument and result
    structures and types, shardings, platforms, and program. ``call`` runs it from JAX code
    (under ``jit`` and reverse-mode AD as JAX allows); ``serialize`` turns it into bytes."""

    fun_name: str
    in_tree: PyTreeDef
    in_avals: tuple[ShapedArray, ...]
    out_tree: PyTreeDef
    out_avals: tuple[ShapedArray, ...]
    _has_named_shardings: bool
    _in_named_shardings: tuple[Any, ...]
    _out_named_shardings: tuple[Any, ...]
    in_shardings_hlo: tuple[Any, ...]
    out_shardings_hlo: tuple[Any, ...]
    nr_devices: int
    platforms: tuple[str, ...]
    ordered_effects: tuple[Any, ...]
    unordered_effects: tuple[Any, ...]
    disabled_safety_checks: tuple[DisabledSafetyCheck, ...]
    calling_convention_version: int
    module_kept_var_idx: tuple[int, ...]
    uses_global_constants: bool
    _arg_names: tuple[str, ...] = dataclasses.field(repr=False)  # (JAX's argument locations)
    _program: ClosedJaxpr = dataclasses.field(repr=False)
    _get_vjp: Optional[Callable[["Exported"], "Exported"]]

    @property
    def mlir_module_serialized(self) -> bytes:
        """The exported program as bytes: the engine's jaxpr data (JAX's is StableHLO bytecode)."""
        from .serialization import program_bytes

        return program_bytes(self)

    def mlir_module(self) -> str:
        """The program as StableHLO text, as JAX prints the exported module (without the source
        locations of its operations; each argument's location is its name, as in JAX)."""
        from ..stablehlo import module_text, result_paths

        text = module_text(self._program, self.fun_name, result_names=result_paths(self.out_tree))
        text = text.replace(" attributes {", " attributes {jax.uses_shape_polymorphism = false, ", 1)
        kept = [i for i in self.module_kept_var_idx if i < len(self._arg_names)]

        def located(m: re.Match) -> str:
            k = int(m.group(1))
            return f'{m.group(0)} loc("{self._arg_names[kept[k]]}")' if k < len(kept) else m.group(0)

        head, sep, rest = text.partition("func.func public @main(")
        sig, nl, body = rest.partition("\n")
        return head + sep + re.sub(r"%arg(\d+): tensor<[^>]*>", located, sig) + nl + body

    def __str__(self) -> str:
        return f"Exported(fun_name={self.fun_name}, ...)"

    def in_shardings_jax(self, mesh) -> tuple[Any, ...]:
        """The input shardings over ``mesh`` (a Mesh or AbstractMesh like the one exported with),
        for ``jax.device_put`` or ``jax.jit``; None where the input's sharding was unspecified."""
        return tuple(_sharding_on(s, mesh) for s in self._in_named_shardings)

    def out_shardings_jax(self, mesh) -> tuple[Any, ...]:
        """The output shardings over ``mesh`` (see ``in_shardings_jax``)."""
        return tuple(_sharding_on(s, mesh) for s in self._out_named_shardings)

    def has_vjp(self) -> bool:
        """Whether this Exported can give its VJP (a deserialized one: up to its ``vjp_order``)."""
        return self._get_vjp is not None

    def vjp(self) -> "Exported":
        """The exported VJP: takes the primal arguments then a cotangent per primal output
        (flat), returns the cotangents of the flat primal arguments."""
        if self._get_vjp is None:
            raise ValueError("No VJP is available")
        return self._get_vjp(self)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """The Exported as bytes for ``jax.export.deserialize``, with ``vjp_order`` orders of its
        VJP (2 allows ``grad(grad(f))`` of the deserialized function)."""
        from .serialization import serialize

        return serialize(self, vjp_order=vjp_order)

    def call(self, *args, **kwargs):
        """Call the exported function on arrays with the exported argument structure and types."""
        from ._call import call_exported

        return call_exported(self)(*args, **kwargs)


def _sharding_on(s, mesh):
    if s is None or mesh is None:
        return s
    want = s.mesh
    got = mesh.abstract_mesh if hasattr(mesh, "abstract_mesh") else mesh
    if (got.axis_sizes, got.axis_names, got.axis_types) != (
        want.axis_sizes,
        want.axis_names,
        want.axis_types,
    ):
        raise ValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for export {want}.")
    from ..sharding import NamedSharding

    return NamedSharding(mesh, s.spec, memory_kind=s.memory_kind)


def default_export_platform() -> str:
    """The platform ``export`` targets when not told: the engine's, ``'cpu'``."""
    return "cpu"


# ---------------------------------------------------------------------------------------------
# Exporting.


def _jitted(fun) -> Any:
    """``fun`` as a jit function, or None when JAX would refuse it (not the result of ``jit``).
    jax.numpy's functions are jitted in JAX, so the engine's are accepted too."""
    from ..jit import JitFunction, jit
    from ..parallel.sharded_jit import ShardedJit

    if isinstance(fun, (JitFunction, ShardedJit)):
        return fun
    if (
        callable(fun)
        and not isinstance(fun, type)
        and getattr(fun, "__module__", "").startswith("engine.numpy")
    ):
        return jit(fun)
    return None


def export(
    fun_jit: Callable[..., Any],
    *,
    platforms: Sequence[str] | None = None,
    disabled_checks: Sequence[DisabledSafetyCheck] = (),
) -> Callable[..., Exported]:
    """Export a ``jit`` function: the result takes arguments (arrays or ``jax.ShapeDtypeStruct``s)
    and returns an :class:`Exported` for their types.

    >>> import engine as jax, numpy as np
    >>> exp = export(jax.jit(lambda x: 2 * x))(jax.ShapeDtypeStruct((3,), np.float32))
    >>> exp.call(np.ones(3, np.float32))
    Array([2., 2., 2.], dtype=float32)
    """
    jitted = _jitted(fun_jit)
    if jitted is None:
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    checks = tuple(disabled_checks)

    def do_export(*args_specs, **kwargs_specs) -> Exported:
        version = config.read("jax_export_calling_convention_version")
        lo, hi = minimum_supported_calling_convention_version, maximum_supported_calling_convention_version
        if not (isinstance(version, int) and lo <= version <= hi):
            raise ValueError(
                f"The requested export calling convention version {version} is outside the "
                f"range of supported versions [{lo}..{hi}]"
            )
        lowering_platforms = tuple(platforms) if platforms is not None else (default_export_platform(),)
        return _export_traced(jitted, args_specs, kwargs_specs, lowering_platforms, checks, version)

    return do_export


def _export_traced(jitted, args, kwargs, platforms, checks, version) -> Exported:
    from ..extend.mlir.lowering import custom_call_targets, expand

    traced = jitted.trace(*args, **kwargs)
    targets = custom_call_targets(traced.jaxpr.jaxpr)
    _check_program(traced.jaxpr.jaxpr, targets, checks)
    # Primitives with registered lowering rules are exported as their lowering (engine primitives),
    # unless it calls a custom target: that program keeps them (it can be exported, not run).
    program = traced.jaxpr if targets else expand(traced.jaxpr)
    in_tree = traced.signature[0]
    base = getattr(jitted, "_jitted", jitted)
    _, _, dyn_args, dyn_kwargs = base._split(args, kwargs)
    leaves = in_tree.flatten_up_to((tuple(dyn_args), dyn_kwargs))
    in_shardings = _in_shardings(leaves, getattr(jitted, "in_shardings", None))
    out_shardings = _out_shardings(getattr(jitted, "out_shardings", None), len(program.out_avals))
    in_avals = tuple(program.in_avals)
    # JAX's errors for symbolic dimensions that calls could not give values to
    if shape_poly_eval.is_polymorphic(in_avals):
        shape_poly_eval.check_solvable(in_avals, shape_poly_eval.arg_names(in_tree))
    shape_poly_eval.check_dim_vars_used(program, in_avals)
    used = _used_inputs(program.jaxpr)
    return _make_exported(
        fun_name=traced.fun_name,
        in_tree=in_tree,
        in_avals=in_avals,
        out_tree=traced.out_tree,
        out_avals=tuple(program.out_avals),
        in_shardings=in_shardings,
        out_shardings=out_shardings,
        nr_devices=_nr_devices(in_shardings + out_shardings),
        platforms=platforms,
        checks=checks,
        version=version,
        kept=tuple(i for i in range(len(in_avals)) if used[i]),
        arg_names=tuple(traced.signature[1]),
        program=program,
    )


def _make_exported(
    *, in_shardings, out_shardings, checks, version, kept, arg_names, program, **fields
) -> Exported:
    return Exported(
        _has_named_shardings=True,
        _in_named_shardings=in_shardings,
        _out_named_shardings=out_shardings,
        in_shardings_hlo=(None,) * len(in_shardings),
        out_shardings_hlo=(None,) * len(out_shardings),
        ordered_effects=(),
        unordered_effects=(),
        disabled_safety_checks=checks,
        calling_convention_version=version,
        module_kept_var_idx=kept,
        uses_global_constants=False,
        _arg_names=arg_names,
        _program=program,
        _get_vjp=_exported_vjp,
        **fields,
    )


def _abstract(sharding):
    """A NamedSharding over the abstract mesh of ``sharding`` (what an export keeps: no devices)."""
    from ..sharding import Mesh, NamedSharding

    if not isinstance(sharding, NamedSharding):
        return None
    mesh = sharding.mesh.abstract_mesh if isinstance(sharding.mesh, Mesh) else sharding.mesh
    return NamedSharding(mesh, sharding.spec, memory_kind=sharding.memory_kind)


def _in_shardings(leaves, jit_shardings) -> tuple[Any, ...]:
    if jit_shardings is not None:
        shardings = (
            jit_shardings if isinstance(jit_shardings, (list, tuple)) else (jit_shardings,) * len(leaves)
        )
        return tuple(_abstract(s) for s in shardings)
    return tuple(_abstract(getattr(x, "sharding", None)) for x in leaves)


def _out_shardings(jit_shardings, n: int) -> tuple[Any, ...]:
    if jit_shardings is None:
        return (None,) * n
    shardings = jit_shardings if isinstance(jit_shardings, (list, tuple)) else (jit_shardings,) * n
    return tuple(_abstract(s) for s in shardings)


def _nr_devices(shardings) -> int:
    sizes = {s.mesh.size for s in shardings if s is not None and not s.mesh.empty}
    return max(sizes) if sizes else 1


def _used_inputs(jaxpr: Jaxpr) -> list[bool]:
    """Which inputs the program reads (JAX's module drops the others: ``module_kept_var_idx``)."""
    read = {id(x) for e in jaxpr.eqns for x in e.inputs} | {id(x) for x in jaxpr.outs}
    return [id(v) in read for v in jaxpr.in_binders]


# Primitives that call back into Python on the host: JAX cannot serialize them.
_HOST_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})


def _check_program(jaxpr: Jaxpr, targets: Sequence[str], checks: Sequence[DisabledSafetyCheck]) -> None:
    """JAX's export checks: no host callbacks, no custom calls to targets not allowed by ``checks``."""
    allowed = {c.is_custom_call() for c in checks} - {None}
    refused = [f"stablehlo.custom_call @{t}" for t in targets if "ALL" not in allowed and t not in allowed]

    def walk(j: Jaxpr) -> None:
        for eqn in j.eqns:
            name = eqn.primitive.name
            if name in _HOST_CALLBACKS:
                raise NotImplementedError("serialization of host_callbacks is not yet implemented")
            if name == "ffi_call":
                target = eqn.params.get("target_name")
                if "ALL" not in allowed and target not in allowed:
                    refused.append(f"ffi_call to {target!r}")
            for sub in subjaxprs(eqn):
                walk(sub)

    walk(jaxpr)
    if refused:
        raise ValueError(
            "Cannot serialize code with custom calls whose targets have no compatibility guarantees. "
            "See https://docs.jax.dev/en/latest/export/export.html#compatibility-guarantees-for-custom-calls. "
            "Examples are:\n" + "\n".join(refused) + ".\n"
        )


# ---------------------------------------------------------------------------------------------
# The VJP of an Exported: exported on demand while the program is at hand (so it follows the
# function's custom_vjp rules and remat), as JAX does.


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The cotangent type of an output: float0 for integer and boolean outputs."""
    if np.issubdtype(aval.dtype, np.inexact):
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type)
    return ShapedArray(aval.shape, core.float0)


def _exported_vjp(primal: Exported) -> Exported:
    from .. import api
    from ..ir import jaxpr_as_fun
    from ..jit import ShapeDtypeStruct, jit

    program, n_in = primal._program, len(primal.in_avals)

    def fun_vjp_jax(*args_and_out_cts_flat_jax):
        primals, cts = args_and_out_cts_flat_jax[:n_in], args_and_out_cts_flat_jax[n_in:]
        _, pullback = api.vjp(lambda *xs: list(jaxpr_as_fun(program)(*xs)), *primals)
        return tuple(pullback(list(cts)))

    avals = list(primal.in_avals) + [tangent_aval(a) for a in primal.out_avals]
    specs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in avals]
    exp = export(jit(fun_vjp_jax), platforms=primal.platforms, disabled_checks=primal.disabled_safety_checks)
    vjp = exp(*specs)
    # its shardings: the primal's, inputs then outputs (the cotangents' are the outputs')
    return dataclasses.replace(
        vjp,
        _in_named_shardings=primal._in_named_shardings + primal._out_named_shardings,
        _out_named_shardings=primal._in_named_shardings,
        nr_devices=primal.nr_devices,
    )
