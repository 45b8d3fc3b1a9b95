"""``jax.ffi``: calling foreign functions (XLA FFI handlers) from traced code.

``ffi_call`` stages an ``ffi_call`` equation exactly as JAX does (its parameters, its ``vmap``
methods), so jaxprs print as JAX's. Running one needs a handler registered for the CPU under the
target name: without one the call fails with XLA's ``NOT_FOUND`` error, as in JAX. A handler is
machine code compiled against XLA's FFI ABI, which the engine (numpy, no XLA) cannot call: running a
registered one raises ``NotImplementedError`` naming it instead of computing something else.

    >>> import engine as jax, numpy as np
    >>> f = jax.ffi.ffi_call("my_op", jax.ShapeDtypeStruct((3,), np.float32), vmap_method="broadcast_all")
    >>> print(jax.make_jaxpr(lambda x: f(x))(np.ones(3, np.float32)))  # doctest: +ELLIPSIS
    { lambda ; a:f32[3]. let
        b:f32[3] = ffi_call[
    ...
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import batching, core, ir
from .errors import JaxRuntimeError
from .tree_util import tree_flatten, tree_unflatten

_handlers: dict[tuple[str, str], Any] = {}
_VMAP_METHODS = (
    None,
    "sequential",
    "sequential_unrolled",
    "expand_dims",
    "broadcast_all",
    "legacy_vectorized",
)


def pycapsule(funcptr: Any) -> Any:
    """A handler pointer (a ctypes function) in the form ``register_ffi_target`` takes."""
    return funcptr


def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1, **_: Any) -> None:
    """Register ``fn`` as the handler of target ``name`` on ``platform``."""
    _handlers[(name, platform.lower())] = fn


def ffi_call(
    target_name: str,
    result_shape_dtypes: Any,
    *,
    has_side_effect: bool = False,
    vmap_method: str | None = None,
    input_layouts: Any = None,
    output_layouts: Any = None,
    input_output_aliases: dict[int, int] | None = None,
    custom_call_api_version: int = 4,
    legacy_backend_config: str | None = None,
) -> Callable[..., Any]:
    """A function calling the FFI target ``target_name``; its results have the shapes and dtypes of
    ``result_shape_dtypes`` (a ``ShapeDtypeStruct`` or a sequence of them); keyword arguments of
    the call are the handler's static attributes."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be one of the allowed methods {list(_VMAP_METHODS)}")
    leaves, tree = tree_flatten(result_shape_dtypes)
    result_avals = tuple(core.ShapedArray(tuple(r.shape), np.dtype(r.dtype)) for r in leaves)

    def call(*args: Any, **attributes: Any) -> Any:
        from . import numpy as jnp

        operands = [jnp.asarray(a) for a in args]
        outs = ffi_call_p.bind(
            *operands,
            target_name=target_name,
            result_avals=result_avals,
            attributes=tuple(sorted(attributes.items())),
            custom_call_api_version=custom_call_api_version,
            has_side_effect=has_side_effect,
            input_layouts=_layouts(input_layouts, [o.ndim for o in operands]),
            output_layouts=_layouts(output_layouts, [a.ndim for a in result_avals]),
            input_output_aliases=tuple(sorted((input_output_aliases or {}).items())),
            legacy_backend_config=legacy_backend_config,
            vmap_method=vmap_method,
        )
        return tree_unflatten(tree, list(outs))

    return call


def _layouts(given: Any, ranks: list[int]) -> tuple:
    """Minor-to-major per operand, as XLA takes them (default: row-major)."""
    if given is None:
        return tuple(tuple(range(r - 1, -1, -1)) for r in ranks)
    return tuple(tuple(g) if g is not None else tuple(range(r - 1, -1, -1)) for g, r in zip(given, ranks))


ffi_call_p = core.Primitive("ffi_call", multiple_results=True)


def _missing(target_name: str) -> Exception:
    return JaxRuntimeError(
        f"NOT_FOUND: No FFI handler registered for {target_name} on a platform Host (canonical host)"
    )


@ffi_call_p.def_impl
def _ffi_call_impl(*args: Any, target_name: str, **_: Any) -> list:
    if (target_name, "cpu") not in _handlers:
        raise _missing(target_name)
    raise NotImplementedError(
        f"ffi_call of {target_name!r}: its handler is machine code for XLA's FFI, which the engine "
        "(numpy, no XLA) cannot call"
    )


ffi_call_p.def_abstract_eval(lambda *avals, result_avals, **_: list(result_avals))
ir.effectful.add(ffi_call_p)  # JAX keeps a call whose results are unused only with has_side_effect


def _refuse_unregistered(eqn: ir.JaxprEqn) -> None:
    name = eqn.params["target_name"]
    if (name, "cpu") not in _handlers:
        raise _missing(name)


ir.lowering_refusals[ffi_call_p] = _refuse_unregistered


class _Shown:
    """A parameter printed as JAX prints it."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _display(eqn: ir.JaxprEqn) -> list[tuple[str, Any]]:
    avals = tuple(
        _Shown(f"ShapedArray({a.dtype.name}[{','.join(map(str, a.shape))}])")
        for a in eqn.params["result_avals"]
    )
    return sorted({**eqn.params, "result_avals": avals}.items())


ir.pp_params_rules[ffi_call_p] = _display


def _ffi_call_batch(axis_size: int, vals: list, dims: list, *, vmap_method: str | None, **params: Any):
    """JAX's ``vmap_method``s: ``broadcast_all`` gives every operand the batch dimension (leading)
    and calls once; ``expand_dims`` adds a size-1 one to unbatched operands; ``sequential`` maps
    the call over the batch (a ``scan``)."""
    from . import lax

    if vmap_method in ("broadcast_all", "expand_dims"):
        moved = []
        for v, d in zip(vals, dims):
            if d is batching.not_mapped:
                v = lax.broadcast(v, (axis_size if vmap_method == "broadcast_all" else 1,))
            else:
                v = batching.bdim_at_front(v, d, axis_size)
            moved.append(v)
        avals = tuple(core.ShapedArray((axis_size, *a.shape), a.dtype) for a in params["result_avals"])
        p = {**params, "result_avals": avals, "vmap_method": vmap_method}
        p["input_layouts"] = _layouts(None, [m.ndim for m in moved])
        p["output_layouts"] = _layouts(None, [a.ndim for a in avals])
        return ffi_call_p.bind(*moved, **p), [0] * len(avals)
    if vmap_method in ("sequential", "sequential_unrolled"):
        batched = [
            batching.bdim_at_front(v, d, axis_size)
            for v, d in zip(vals, dims)
            if d is not batching.not_mapped
        ]
        which = [d is not batching.not_mapped for d in dims]

        def one(xs):
            it = iter(xs)
            args = [next(it) if b else v for v, b in zip(vals, which)]
            return ffi_call_p.bind(*args, vmap_method=vmap_method, **params)

        outs = lax.map(one, batched)
        return list(outs), [0] * len(params["result_avals"])
    raise NotImplementedError(
        f"ffi_call of {params['target_name']!r} under vmap needs a vmap_method (got {vmap_method!r}), as in JAX"
    )


batching.batch_rules[ffi_call_p] = _ffi_call_batch
