"""The state primitives — ``new_ref``, ``get``, ``swap``, ``addupdate``, ``freeze`` — their rules, and
the functions of ``jax.ref`` on them.

Where a ref lives decides how an operation on it runs:

* an eager ``Ref`` (made outside any transformation): reads and writes act on its buffer; under a
  staging trace (``jit``, ``make_jaxpr``, a ``scan`` body) they are staged with the ref as a
  constant of the jaxpr, printed as JAX prints them (``c:f32[3] <- b[1:]``, ``b[...] <- d``);
* a ref made inside a staging trace: a tracer of type ``Ref{...}``; the jaxpr runs on the
  interpreter, which passes ``Ref`` objects between equations (``jit_runtime`` sends programs
  with state there, never to compiled code);
* a ref made inside ``jvp``, ``grad`` / ``linearize`` / ``vjp`` or ``vmap``: first-class, a pair
  of refs (``jvp``; under a linearization the tangent ref is staged in the linear program, whose
  transposition gives it a cotangent ref: ``transpose``) or a batched ref (``vmap``), as JAX makes
  them;
* a ref made under the eager tape of ``grad`` (nothing traced), or inside a ``vmap`` inside a
  linearization: a ``Ref`` whose value is that transformation's tracer; reads and writes are
  functional indexing and ``.at[]`` updates of the value, so the transformation only ever sees
  pure array operations (a ``scan``, ``while``, ``cond`` or ``jit`` body using one is discharged:
  see ``discharge``);
* a batched ref under ``vmap`` (made inside, or passed as a batched argument): a static index gains
  the batch dimension (``vmap``); otherwise the batch rules below read the whole ref, index it per
  batch member, and write it back whole.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import ad, batching, core, ir
from .. import pretty_printer as pp
from ..core import Tracer, Value
from ..staging import JaxprTrace
from .types import (
    WHOLE,
    AbstractRef,
    Indexer,
    PyTreeDef,
    Ref,
    index_tree,
    indexed_aval,
    is_ref,
    parse_index,
    tree_indexer,
)
from ..narrow_dtypes import kind as dtype_kind


class _StatePrimitive(core.Primitive):
    """Binds by where the ref lives (see the module docstring) before any trace sees it."""

    def bind(self, *args: Value, **params: Any) -> Any:
        return _bind(self, args, params)

    def bind_traced(self, *args: Value, **params: Any) -> Any:
        return core.Primitive.bind(self, *args, **params)


new_ref_p = _StatePrimitive("new_ref")
get_p = _StatePrimitive("get")
swap_p = _StatePrimitive("swap")
addupdate_p = _StatePrimitive("addupdate", multiple_results=True)
freeze_p = _StatePrimitive("freeze")
STATE_PRIMITIVES = (new_ref_p, get_p, swap_p, addupdate_p, freeze_p)
for _p in STATE_PRIMITIVES:
    ir.effectful.add(_p)  # never dropped as dead code: their effect is the point
    ir.ref_effects.add(_p)


# ---------------------------------------------------------------------------------------------
# Binding.


# Levels of staging traces that are discharging state (``discharge.run_discharged``): refs made
# there are functional too.
discharging: list[int] = []


# Levels of the traces of cond/switch branches traced directly inside a vmap (engine.lax.cond).
vmapped_branch_levels: list[int] = []


def bound_inside_vmap() -> bool:
    """An equation bound now reaches a vmap's batching rule as it is: the innermost trace that is
    a vmap or stages a body is a vmap (jvp and grad traces between pass equations on to it)."""
    for m in reversed(core._state.stack[1:]):
        if m.trace_type is batching.BatchTrace:
            return True
        if m.trace_type is JaxprTrace:
            return False
    return False


def _vmap_refuses_cond_first() -> bool:
    """A write refused under vmap is inside a cond branch staged directly in the innermost vmap:
    JAX batches that cond as one equation, and its rule refuses a branch with ref effects first."""
    stack = core._state.stack
    inner = max((m.level for m in stack[1:] if m.trace_type is batching.BatchTrace), default=0)
    staged = next((m.level for m in stack[inner + 1 :] if m.trace_type is JaxprTrace), None)
    return staged in vmapped_branch_levels


def _staging_innermost() -> bool:
    top = core._state.stack[-1]
    return top.trace_type is JaxprTrace and top.level not in discharging


def _under_vmap() -> bool:
    """A vmap is being traced: an eager ref it does not map over is unbatched there, and JAX's
    batching rules refuse any write to it."""
    return any(m.trace_type is batching.BatchTrace for m in core._state.stack[1:])


def vmap_inside_program() -> bool:
    """A vmap is being traced inside the program being run or staged (above any discharge): refs
    made here are made inside that vmap."""
    base = max(discharging, default=0)
    return any(m.trace_type is batching.BatchTrace and m.level > base for m in core._state.stack[1:])


def _captured_by_staging(ref: Ref) -> bool:
    """A functional ref used while a body (scan, cond, jit...) nested inside its transformation is
    being staged."""
    top = core._state.stack[-1]
    value = ref._traced
    level = max(value._trace.main.level if isinstance(value, Tracer) else 0, ref.level)
    return top.trace_type is JaxprTrace and top.level > level


def check_live(prim: core.Primitive, ref: Ref) -> None:
    """JAX's discharge of a jitted program forgets a ref at its ``free_ref`` or ``freeze``: a later
    read or write binds on the bare value (its abstract eval refuses), a second free or freeze finds
    nothing to forget (a ``KeyError`` of the ref's type's id)."""
    if not ref.freed:
        return
    err: Exception
    if prim.name in ("free_ref", "freeze"):
        err = KeyError(id(ref.aval))
    else:
        err = ValueError(f"`{prim.name}` must be called on `Ref` types: {ref._inner}.")
    err.refused_by_discharge = True  # type: ignore[attr-defined]  # (not a reason to interpret instead)
    raise err


def _functional_use(prim: core.Primitive, ref: Ref) -> None:
    check_live(prim, ref)
    if prim in (swap_p, addupdate_p) and ref.vmapped == "unbatched":
        raise _write_error(prim, ref.aval, "vmap")  # (JAX's batching rules refuse any write to it)
    if prim is freeze_p and ref.level in discharging:
        ref.freed = True


def _lowered(x: Value) -> Value:
    """``x`` without wrappers that carry nothing (a zero tangent, an unbatched vmap value)."""
    while isinstance(x, Tracer):
        y = x.full_lower()
        if y is x:
            break
        x = y
    return x


def _bind(prim: _StatePrimitive, args: Sequence[Value], params: dict[str, Any]) -> Any:
    if prim is new_ref_p:
        (x,) = args
        from .jvp import innermost, is_forward_mode, new_ref_jvp

        main = innermost(core._state.stack)
        if main is None:
            return _new_ref_impl(x, **params)
        if main.trace_type is JaxprTrace and main.level not in discharging:
            return prim.bind_traced(x, **params)
        if is_forward_mode(main):  # a ref of jvp: a primal ref and a tangent ref
            return new_ref_jvp(main, x, params)
        from .vmap import is_batching, new_ref_vmap

        if is_batching(main):  # a ref of vmap: batched itself
            return new_ref_vmap(main, x, params)
        ref = Ref(x, core.get_aval(x), traced=True)  # a non-staging transformation's ref: functional
        if vmap_inside_program():
            ref.vmapped = "batched"  # (JAX's vmap batches every new_ref made inside it)
        return ref
    ref, rest = args[0], [_lowered(a) for a in args[1:]]
    if isinstance(ref, Ref):
        if ref.is_traced:
            if _captured_by_staging(ref):  # a body being staged closes over it: a real ref there,
                return prim.bind_traced(ref, *rest, **params)  # discharged when the body is bound
            _functional_use(prim, ref)
            return _functional(prim, ref, rest, params)
        if (
            prim is not get_p
            and _under_vmap()
            and id(ref) not in batching.mapped_refs
            and not _made_by_vmap(ref)
        ):
            if _vmap_refuses_cond_first():
                raise NotImplementedError("State effect not supported in vmap-of-cond.")
            raise _write_error(prim, ref.aval, "vmap")
        if not any(isinstance(a, Tracer) for a in rest):
            if core._state.dynamic is not None:  # inside jit/make_jaxpr: the effect is staged
                return prim.bind_traced(ref, *rest, **params)
            return impl_rules[prim](ref, *rest, **params)
        if isinstance(core.find_top_trace(rest), JaxprTrace):
            return prim.bind_traced(ref, *rest, **params)
        if prim is get_p:  # a traced index into an eager ref: index a snapshot of its value
            return _functional(prim, Ref(ref.value(), ref._inner, traced=True), rest, params)
        _check_writable(prim, ref, rest, params)
    return prim.bind_traced(ref, *rest, **params)


def _made_by_vmap(ref: Ref) -> bool:
    from .vmap import made_inside

    return ref in made_inside


def _write_error(prim: _StatePrimitive, ty: Any, under: str) -> Exception:
    """JAX's errors for a write of a transformed value into a ref the transformation does not own."""
    if under == "vmap":
        what = "a set/swap operation" if prim is swap_p else "an addupdate operation"
        return Exception(
            f"performing {what} with vmapped value on an unbatched array reference of type {ty}. "
            "Move the array reference to be an argument to the vmapped function?"
        )
    return Exception(
        "performing a set/swap operation with a differentiated value on a non-differentiated "
        f"array reference of type {ty}. Move the array reference to be an argument of the "
        "differentiated function?"
    )


def _check_writable(prim: _StatePrimitive, ref: Ref, rest: Sequence[Value], params: dict[str, Any]) -> None:
    from .. import tape

    val = rest[0]
    if isinstance(val, batching.BatchTracer) and val.batch_dim is not batching.not_mapped:
        raise _write_error(prim, ref.aval, "vmap")
    if isinstance(val, (ad.JVPTracer, ad.PartialEvalTracer, tape.TapeTracer)):
        # JAX's rule writes the primal before it refuses the tangent: so does this, eagerly.
        primal = _lowered(getattr(val, "primal", None))
        if primal is not None and not isinstance(primal, Tracer) and core._state.dynamic is None:
            if not any(isinstance(i, Tracer) for i in rest[1:]):
                impl_rules[prim](ref, primal, *rest[1:], **params)
        raise _write_error(prim, ref.aval, "grad")


# ---------------------------------------------------------------------------------------------
# Eager rules (on Ref buffers) and functional rules (on a ref holding a traced value).


def _np_index(ref: Ref, indexer: Indexer | None, operands: Sequence[Value]) -> Any:
    if indexer is None:
        return ...
    shape = ref.shape
    arrays = []
    dims = [(k, d) for k, d in enumerate(indexer.dims) if d[0] in ("array", "dslice")]
    for (k, d), a in zip(dims, operands):
        i = np.asarray(core.to_numpy(a)).astype(np.int64)
        n = shape[k]
        if d[0] == "dslice":  # (a start clamped so the slice fits, as dynamic_slice's)
            arrays.append(int(np.clip(i, 0, max(n - (d[1] - 1) * d[2] - 1, 0))))
        else:
            arrays.append(np.clip(np.where(i < 0, i + n, i), 0, n - 1))  # out of bounds clamps, as JAX's
    return indexer.numpy_index(arrays)


def _new_ref_impl(x: Value, kind: Any = None, memory_space: Any = None) -> Ref:
    ref = Ref(x, core.get_aval(x))
    if _under_vmap():  # (made by a vmap's rule, or its jvp's inside it: the vmap writes it)
        from .vmap import made_inside

        made_inside.add(ref)
    return ref


def _get_impl(ref: Ref, *idx: Value, tree: PyTreeDef) -> core.Array:
    indexer = tree_indexer(tree)
    assert ref._buf is not None
    return core.Array(np.array(ref._buf[_np_index(ref, indexer, idx)]), ref._inner.weak_type)


def _swap_impl(ref: Ref, val: Value, *idx: Value, tree: PyTreeDef) -> core.Array:
    indexer = tree_indexer(tree)
    _check_value(ref.aval, core.get_aval(val), indexer, [core.get_aval(i) for i in idx], "swap")
    assert ref._buf is not None
    ix = _np_index(ref, indexer, idx)
    old = np.array(ref._buf[ix])
    ref._buf[ix] = core.to_numpy(val)
    ref._written = True
    return core.Array(old, ref._inner.weak_type)


def _addupdate_impl(ref: Ref, val: Value, *idx: Value, tree: PyTreeDef) -> list[Value]:
    indexer = tree_indexer(tree)
    _check_value(ref.aval, core.get_aval(val), indexer, [core.get_aval(i) for i in idx], "addupdate")
    assert ref._buf is not None
    np.add.at(ref._buf, _np_index(ref, indexer, idx), core.to_numpy(val))
    if not core.get_aval(val).weak_type:  # (adding a weakly typed value keeps a weak ref weak, as in JAX)
        ref._written = True
    return []


def _freeze_impl(ref: Ref) -> core.Array:
    assert ref._buf is not None
    return core.Array(ref._buf.copy(), ref._inner.weak_type and not ref._written)


impl_rules: dict[core.Primitive, Any] = {
    get_p: _get_impl,
    swap_p: _swap_impl,
    addupdate_p: _addupdate_impl,
    freeze_p: _freeze_impl,
}


def functional_get(value: Value, indexer: Indexer | None, idx: Sequence[Value]) -> Value:
    return value if indexer is None else value[indexer.numpy_index(idx)]  # type: ignore[index]


def functional_set(value: Value, indexer: Indexer | None, idx: Sequence[Value], val: Value) -> Value:
    if indexer is None:
        return val
    return value.at[indexer.numpy_index(idx)].set(val)  # type: ignore[union-attr]


def functional_add(value: Value, indexer: Indexer | None, idx: Sequence[Value], val: Value) -> Value:
    if indexer is None:
        return value + val  # type: ignore[operator]
    return value.at[indexer.numpy_index(idx)].add(val)  # type: ignore[union-attr]


def _functional(prim: _StatePrimitive, ref: Ref, rest: Sequence[Value], params: dict[str, Any]) -> Any:
    value = ref._traced if ref.is_traced else ref.value()
    if prim is freeze_p:
        return value
    indexer = tree_indexer(params["tree"])
    if prim is get_p:
        return functional_get(value, indexer, rest)
    val, idx = rest[0], rest[1:]
    _check_value(ref.aval, core.get_aval(val), indexer, [core.get_aval(i) for i in idx], prim.name)
    if prim is swap_p:
        old = functional_get(value, indexer, idx)
        ref._traced = functional_set(value, indexer, idx, val)
        return old
    ref._traced = functional_add(value, indexer, idx, val)
    return []


# ---------------------------------------------------------------------------------------------
# Types.


def _check_value(ref: AbstractRef, val: Any, indexer: Indexer | None, idx: Sequence[Any], what: str) -> Any:
    if isinstance(val, AbstractRef):
        raise ValueError("Cannot store a Ref into another Ref. Did you forget to load from it using `[...]`?")
    expected = indexed_aval(ref.inner_aval, indexer, idx)
    if expected.shape != val.shape:
        raise ValueError(
            f"Invalid shape for `{what}`. Ref shape: {ref.shape}. Expected shape: {expected.shape}. "
            f"Value shape: {val.shape}. Transforms: {_transforms_text(indexer)}. "
        )
    if expected.dtype != val.dtype:
        raise ValueError(
            f"Invalid dtype for `{what}`. Ref dtype: {expected.dtype}. Value dtype: {val.dtype}. "
        )
    return expected


def _transforms_text(indexer: Indexer | None) -> str:
    return "()" if indexer is None else f"({indexer!r},)"


def _ref_aval(x: Any) -> AbstractRef:
    if not isinstance(x, AbstractRef):
        raise ValueError(f"Can only index a `Ref`, got {x}.")
    return x


core.abstract_eval_rules[new_ref_p] = lambda x, kind=None, memory_space=None: AbstractRef(x)
core.abstract_eval_rules[get_p] = lambda ref, *idx, tree: indexed_aval(
    _ref_aval(ref).inner_aval, tree_indexer(tree), idx
)
core.abstract_eval_rules[swap_p] = lambda ref, val, *idx, tree: _check_value(
    _ref_aval(ref), val, tree_indexer(tree), idx, "swap"
)


def _addupdate_abstract_eval(ref: Any, val: Any, *idx: Any, tree: PyTreeDef) -> list[Any]:
    indexer = tree_indexer(tree)
    _check_value(_ref_aval(ref), val, indexer, idx, "addupdate")
    return []


core.abstract_eval_rules[addupdate_p] = _addupdate_abstract_eval
core.abstract_eval_rules[freeze_p] = lambda ref: _ref_aval(ref).inner_aval


# ---------------------------------------------------------------------------------------------
# Printing, as JAX 0.10.2 prints state equations.


def _pp_index(
    eqn: ir.JaxprEqn, ref: ir.Atom, indexer: Indexer | None, idx: Sequence[ir.Atom], ctx: Any
) -> str:
    name = ir._pp_atom(ref, ctx)
    if indexer is None:
        return f"{name}[...]"
    shape = ref.aval.shape
    parts = []
    it = iter(idx)
    for d, n in zip(indexer.dims, shape):
        if d[0] == "slice":
            _, start, size, _stride = d
            end = start + size
            parts.append(f"{start or ''}:{'' if end == n else end}")  # (JAX's printer omits strides)
        elif d[0] == "int":
            parts.append(str(d[1]))
        elif d[0] == "dslice":  # (JAX's printer: start:start+size)
            a = next(it)
            start = str(np.asarray(core.to_numpy(a.val)).item()) if type(a) is ir.Literal else ctx.name(a)
            parts.append(f"{start}:{start}+{d[1]}")
        else:
            a = next(it)
            parts.append(
                str(np.asarray(core.to_numpy(a.val)).item()) if type(a) is ir.Literal else ctx.name(a)
            )
    return f"{name}[{','.join(parts)}]"


def _typed(v: ir.Var, ctx: Any) -> str:
    return f"{ctx.name(v)}:{v.aval.str_short()}"


def _pp_get(eqn: ir.JaxprEqn, ctx: Any) -> pp.Doc:
    ref, *idx = eqn.inputs
    target = _pp_index(eqn, ref, tree_indexer(eqn.params["tree"]), idx, ctx)
    return pp.text(f"{_typed(eqn.out_binders[0], ctx)} <- {target}")


def _pp_swap(eqn: ir.JaxprEqn, ctx: Any) -> pp.Doc:
    ref, val, *idx = eqn.inputs
    (out,) = eqn.out_binders
    target = _pp_index(eqn, ref, tree_indexer(eqn.params["tree"]), idx, ctx)
    v = ir._pp_atom(val, ctx)
    # A set (the old value is not read) at the top level; in a sub-jaxpr, JAX shows a dropped old
    # value as a swap into _ (its printer names only the top-level jaxpr's unread values _)
    if ctx.name(out) == "_" and id(eqn) in ctx.top_level:
        return pp.text(f"{target} <- {v}")
    return pp.text(f"{_typed(out, ctx)}, {target} <- {target}, {v}")


def _pp_addupdate(eqn: ir.JaxprEqn, ctx: Any) -> pp.Doc:
    ref, val, *idx = eqn.inputs
    target = _pp_index(eqn, ref, tree_indexer(eqn.params["tree"]), idx, ctx)
    return pp.text(f"{target} += {ir._pp_atom(val, ctx)}")


ir.pp_eqn_rules[get_p] = _pp_get
ir.pp_eqn_rules[swap_p] = _pp_swap
ir.pp_eqn_rules[addupdate_p] = _pp_addupdate
ir.pp_params_rules[new_ref_p] = lambda eqn: [("kind", None), ("memory_space", None)]


# ---------------------------------------------------------------------------------------------
# Differentiation: the JVP rules are in ``jvp`` (refs made inside jvp or grad are pairs of refs),
# the transpose rules in ``transpose``; a differentiated value written into a ref made outside is
# refused by the JVP rules.


# ---------------------------------------------------------------------------------------------
# Batching: a batched ref is read whole, indexed per batch member, and written back whole.


def _vmapped(
    fn: Any, size: int, args: Sequence[Value], dims: Sequence[Any], out_dims: Sequence[int]
) -> list[Value]:
    in_dims = [None if d is batching.not_mapped else d for d in dims]
    return batching.vmap_flat(fn, size, None, in_dims, list(args), lambda n: list(out_dims))


def _get_batch(size: int, vals: Sequence[Value], dims: Sequence[Any], *, tree: PyTreeDef) -> Any:
    indexer = tree_indexer(tree)
    ref, *idx = vals
    rd, *idims = dims
    if indexer is None:
        return get_p.bind(ref, tree=WHOLE), rd
    whole = get_p.bind(ref, tree=WHOLE)
    (out,) = _vmapped(lambda r, *i: [functional_get(r, indexer, i)], size, [whole, *idx], [rd, *idims], [0])
    return out, 0


def _write_batch(prim: _StatePrimitive) -> Any:
    def rule(size: int, vals: Sequence[Value], dims: Sequence[Any], *, tree: PyTreeDef) -> Any:
        indexer = tree_indexer(tree)
        ref, val, *idx = vals
        rd, vd, *idims = dims
        if rd is batching.not_mapped:
            raise _write_error(prim, core.get_aval(ref), "vmap")
        if indexer is None:
            val = batching.moveaxis(batching.bdim_at_front(val, vd, size), 0, rd)
            if prim is swap_p:
                return swap_p.bind(ref, val, tree=WHOLE), rd
            return addupdate_p.bind(ref, val, tree=WHOLE), []
        whole = get_p.bind(ref, tree=WHOLE)
        update = functional_set if prim is swap_p else functional_add

        def per_member(r: Value, v: Value, *i: Value) -> list[Value]:
            return [functional_get(r, indexer, i), update(r, indexer, i, v)]

        old, new = _vmapped(per_member, size, [whole, val, *idx], [rd, vd, *idims], [0, rd])
        swap_p.bind(ref, new, tree=WHOLE)
        return (old, 0) if prim is swap_p else ([], [])

    return rule


batching.batch_rules[get_p] = _get_batch
batching.batch_rules[swap_p] = _write_batch(swap_p)
batching.batch_rules[addupdate_p] = _write_batch(addupdate_p)
batching.batch_rules[freeze_p] = lambda size, vals, dims: (freeze_p.bind(vals[0]), dims[0])


# ---------------------------------------------------------------------------------------------
# The API (``jax.new_ref``, ``jax.freeze``, ``jax.ref.*``).


def _implicit_cast(dtype: Any, value: Value) -> Value:
    """As JAX's refs take values: a weak float into a float ref, any integer into an int ref."""
    from .. import lax

    aval = core.get_aval(value)
    kind, vkind = dtype_kind(np.dtype(dtype)), dtype_kind(aval.dtype)
    if (aval.weak_type and kind == "f" and vkind == "f") or (kind in "iu" and vkind in "iu"):
        if aval.dtype != dtype or aval.weak_type:
            return lax.convert_element_type(value, dtype)
    return value


def _check_ref(ref: Any, what: str) -> None:
    if not is_ref(ref):
        raise ValueError(f"Can only call `{what}` on a `Ref`: {ref}.")


def new_ref(init_val: Value, *, kind: Any = None, memory_space: Any = None) -> Any:
    """A new mutable array reference holding ``init_val``.

    >>> import engine as jax, engine.numpy as jnp
    >>> jax.new_ref(jnp.arange(3))
    Ref([0, 1, 2], dtype=int32)
    """
    if is_ref(init_val):
        raise ValueError("Cannot make a Ref of a Ref (no higher-order refs).")
    return new_ref_p.bind(init_val, kind=kind, memory_space=memory_space)


def freeze(ref: Any) -> Value:
    """The final value of ``ref``, which should not be used afterwards.

    >>> import engine as jax
    >>> jax.freeze(jax.new_ref(1.0))
    Array(1., dtype=float32, weak_type=True)
    """
    _check_ref(ref, "freeze")
    return freeze_p.bind(ref)


def ref_get(ref: Any, idx: Any = None) -> Value:
    """``ref[idx]`` for a NumPy-style index ``idx``.

    >>> import engine as jax, engine.numpy as jnp
    >>> jax.ref.get(jax.new_ref(jnp.arange(5)), slice(1, 3))
    Array([1, 2], dtype=int32)
    """
    _check_ref(ref, "ref_get")
    indexer, operands = parse_index(idx, tuple(ref.shape))
    return get_p.bind(ref, *operands, tree=index_tree(indexer))


def ref_swap(ref: Any, idx: Any, value: Value, _function_name: str = "ref_swap") -> Value:
    """Writes ``value`` at ``ref[idx]`` and returns what was there.

    >>> import engine as jax, engine.numpy as jnp
    >>> ref = jax.new_ref(jnp.arange(5))
    >>> jax.ref.swap(ref, 3, 10)
    Array(3, dtype=int32)
    >>> ref
    Ref([ 0,  1,  2, 10,  4], dtype=int32)
    """
    _check_ref(ref, _function_name)
    value = _implicit_cast(ref.dtype, value)
    indexer, operands = parse_index(idx, tuple(ref.shape))
    return swap_p.bind(ref, value, *operands, tree=index_tree(indexer))


def ref_set(ref: Any, idx: Any, value: Value) -> None:
    """``ref[idx] = value``.

    >>> import engine as jax, engine.numpy as jnp
    >>> ref = jax.new_ref(jnp.zeros(3))
    >>> jax.ref.set(ref, 1, 10.0)
    >>> ref
    Ref([ 0., 10.,  0.], dtype=float32)
    """
    ref_swap(ref, idx, value, _function_name="ref_set")


def ref_addupdate(ref: Any, idx: Any, x: Value) -> None:
    """Adds ``x`` to ``ref[idx]`` in place (one ``addupdate``, not a read and a write).

    >>> import engine as jax, engine.numpy as jnp
    >>> ref = jax.new_ref(jnp.arange(5))
    >>> jax.ref.addupdate(ref, 2, 10)
    >>> ref
    Ref([ 0,  1, 12,  3,  4], dtype=int32)
    """
    _check_ref(ref, "ref_addupdate")
    indexer, operands = parse_index(idx, tuple(ref.shape))
    addupdate_p.bind(ref, x, *operands, tree=index_tree(indexer))
