"""The public transformations: jvp, vjp, linearize, grad, value_and_grad, jacfwd, jacrev,
hessian, vmap, jit, make_jaxpr. Each one flattens pytrees, calls a flat transformation, and
rebuilds the output tree.
"""

from __future__ import annotations

import functools
import sys
from typing import Callable

import numpy as np

from . import ad, batching, core, lax
from .constant_staging import compile_time_eval
from .pytree.prefix import axes_prefix_error
from .tree_util import (
    broadcast_prefix,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from .narrow_dtypes import kind as dtype_kind
from .pytree.flatten import flatten_args, unflatten_args
from .pytree.partial import Partial
from .tangent_checks import check_jvp_tangent, check_linearized_tangent
from .vjp_function import VJP, Backward, explicit_layout, fun_name, split_residuals
from .vmap_sizes import inconsistent_sizes
from .sharded_types import check_mapped_axes


def _flatten_fun(fun, in_tree, out_store: list):
    """Wrap a pytree function as a flat one; the output treedef lands in ``out_store``."""

    def flat(*leaves):
        args, kwargs = unflatten_args(in_tree, leaves)
        out = fun(*args, **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        out_store[:] = [out_tree]
        return out_leaves

    return flat


def _check_arrays(leaves, what):
    for x in leaves:
        if not core.is_array_like(x):
            if hasattr(x, "__jax_array__"):
                continue
            raise TypeError(
                f"Argument {x!r} of type {type(x).__name__} passed to {what} is not a valid "
                f"array type. Pass arrays, numbers, or tuples/lists/dicts of them; mark "
                f"other arguments static."
            )


def _shape_and_dtype(x, what) -> core.ShapedArray:
    """The abstract value of an argument only its shape and dtype matter for: an array, a
    ``ShapeDtypeStruct``, or any object with ``shape`` and ``dtype`` (as JAX duck-types it)."""
    from .jit import ShapeDtypeStruct, abstractify

    if isinstance(x, ShapeDtypeStruct):
        return abstractify(x)
    if not core.is_array_like(x) and hasattr(x, "shape") and hasattr(x, "dtype"):
        return core.ShapedArray(tuple(x.shape), np.dtype(x.dtype))
    _check_arrays([x], what)
    return core.get_aval(x)


def _argnums_tuple(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _partial_args(fun, argnums, args, kwargs, given=None):
    """``(f_partial, dyn_args)``: a function of only the differentiated positional args
    (``given``: ``argnums`` as the caller wrote it, for the error)."""
    nargs = len(args)
    if argnums == (0,) and nargs == 1 and not kwargs:  # (the one argument: ``fun`` itself)
        return fun, [args[0]]
    for i in argnums:
        if not -nargs <= i < nargs:
            raise TypeError(
                f"differentiating with respect to argnums={argnums if given is None else given} requires at least "
                f"{max(argnums) + 1} positional arguments to be passed by the caller, "
                f"but got only {nargs} positional arguments."
            )
    argnums = tuple(i % nargs for i in argnums)
    dyn = [args[i] for i in argnums]

    def f_partial(*dyn_args):
        full = list(args)
        for i, a in zip(argnums, dyn_args):
            full[i] = a
        return fun(*full, **kwargs)

    return f_partial, dyn


# ---------------------------------------------------------------------------------------------
# Forward and reverse mode.


def jvp(fun: Callable, primals, tangents, has_aux: bool = False):
    """Evaluate ``fun`` and its Jacobian-vector product at ``primals`` along ``tangents``.

    >>> jvp(jnp.sin, (0.0,), (1.0,))
    (Array(0., dtype=float32, weak_type=True), Array(1., dtype=float32, weak_type=True))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    primals_flat, in_tree = tree_flatten((tuple(primals), {}))
    tangents_flat, t_tree = tree_flatten((tuple(tangents), {}))
    if in_tree != t_tree:
        raise TypeError(
            f"primal and tangent arguments to jax.jvp must have the same tree structure; "
            f"primals have tree structure {in_tree} whereas tangents have {t_tree}."
        )
    _check_arrays(primals_flat, "jvp")
    for p, t in zip(primals_flat, tangents_flat):
        check_jvp_tangent(core.get_aval(p), core.get_aval(t))
    out_store = []
    f = _aux_fun(fun, has_aux, checked=False)
    flat = _flatten_fun(f, in_tree, out_store)
    tangents_flat = [
        t if dtype_kind(core.get_aval(p).dtype) in "fc" else ad.Zero(ad.tangent_aval(core.get_aval(p)))
        for p, t in zip(primals_flat, tangents_flat)
    ]
    primals_out, tangents_out = ad.jvp_flat(flat, primals_flat, tangents_flat)
    out_tree = out_store[0]
    p_out = tree_unflatten(out_tree, primals_out)
    t_out = tree_unflatten(out_tree, tangents_out)
    if has_aux:
        return p_out[0], t_out[0], p_out[1]
    return p_out, t_out


def _aux_fun(fun, has_aux, checked: bool = True):
    """``fun`` returning its ``(output, aux)`` pair (a tuple or list of two) as a tuple. As JAX's:
    ``checked`` (linearize, vjp, grad) refuses anything else with its TypeError; ``jvp`` just
    unpacks it (``iteration over a 0-d array`` for a scalar)."""
    if not has_aux:
        return fun

    def f(*args, **kwargs):
        out = fun(*args, **kwargs)
        if checked and (not isinstance(out, (list, tuple)) or len(out) != 2):
            raise TypeError(
                "expected function with aux output to return a two-element tuple, but got type "
                f"{type(out)} with value {out!r}"
            )
        ans, aux = out
        return ans, aux

    return f


def linearize(fun: Callable, *primals, has_aux: bool = False):
    """``(primals_out, f_jvp)``: the output and a function evaluating the JVP at ``primals``.
    ``f_jvp`` is a ``Partial`` whose leaves are the residuals (JAX's), so ``jit`` can return it.

    >>> y, f_jvp = linearize(jnp.sin, 0.5)
    >>> f_jvp(2.0)   # 2 * cos(0.5)
    Array(1.7551651, dtype=float32, weak_type=True)
    """
    primals_flat, in_tree = tree_flatten((primals, {}))
    _check_arrays(primals_flat, "linearize")
    out_store = []
    flat = _flatten_fun(_aux_fun(fun, has_aux), in_tree, out_store)
    primals_out, (jaxpr, consts, tangent_pvals, differentiable, tangent_avals) = ad.linearize_flat(
        flat, primals_flat
    )
    out_tree = out_store[0]
    primal_avals = [core.get_aval(p) for p in primals_flat]
    lifted = functools.partial(
        _lift_linearized, jaxpr, tangent_pvals, differentiable, primal_avals, in_tree, out_tree
    )
    f_jvp = Partial(lifted, list(consts))
    out = tree_unflatten(out_tree, primals_out)
    if has_aux:
        return out[0], f_jvp, out[1]
    return out, f_jvp


def _lift_linearized(
    jaxpr, tangent_pvals, differentiable, primal_avals, in_tree, out_tree, consts, *tangents
):
    t_flat, t_tree = tree_flatten((tangents, {}))
    if t_tree != in_tree:
        raise TypeError(f"linearized function called with tree {t_tree}, expected {in_tree}")
    for p, t in zip(primal_avals, t_flat):
        check_linearized_tangent(p, core.get_aval(t))
    unk = [t for t, d in zip(t_flat, differentiable) if d]
    from .ir import eval_jaxpr

    outs = iter(eval_jaxpr(jaxpr, [*consts, *unk]))
    res = [next(outs) if not p.is_known else p.const for p in tangent_pvals]
    return tree_unflatten(out_tree, res)


def vjp(fun: Callable, *primals, has_aux: bool = False, reduce_axes=()):
    """``(primals_out, f_vjp)`` where ``f_vjp(cotangent)`` pulls a cotangent back to the inputs.
    ``f_vjp`` is a pytree whose leaves are the residuals, as JAX lays them out
    (``engine.vjp_function``), so it linearizes even when nothing is traced.

    >>> y, f_vjp = vjp(jnp.sin, 0.5)
    >>> f_vjp(1.0)   # (cos(0.5),)
    (Array(0.87758255, dtype=float32, weak_type=True),)
    >>> jax.tree.leaves(f_vjp)   # (the one residual, cos(0.5))
    [Array(0.87758255, dtype=float32, weak_type=True)]
    """
    if reduce_axes:  # (JAX 0.10.2 still takes the keyword, empty)
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    return _vjp(fun, primals, has_aux, True)


def _vjp(fun: Callable, primals: tuple, has_aux: bool, as_pytree: bool):
    """``vjp``; with ``as_pytree`` False (``grad``, ``jacrev``: the pullback is only called), an
    eager call takes the tape (``engine.tape``), whose pullback holds its residuals itself."""
    primals_flat, in_tree = flatten_args(primals)
    _check_arrays(primals_flat, "vjp")
    out_store = []
    flat = _flatten_fun(_aux_fun(fun, has_aux), in_tree, out_store)
    if as_pytree:
        n_main = (lambda: out_store[0].children()[0].num_leaves) if has_aux else None
        primals_out, f_vjp_flat = ad.linearize_vjp_flat(flat, primals_flat, n_main)
    else:
        primals_out, f_vjp_flat = ad.vjp_flat(flat, primals_flat)
    out_tree = out_store[0]
    if has_aux:
        # The aux outputs came along as extra outputs; they get zero cotangents.
        main_tree = out_tree.children()[0]
        n_main = main_tree.num_leaves
        out_main = tree_unflatten(main_tree, primals_out[:n_main])
        aux = tree_unflatten(out_tree.children()[1], primals_out[n_main:])
        aux_avals = [core.get_aval(a) for a in primals_out[n_main:]]
    else:
        main_tree, out_main, n_main, aux_avals = (
            out_tree,
            tree_unflatten(out_tree, primals_out),
            len(primals_out),
            [],
        )
    out_avals = [core.get_aval(p) for p in primals_out[:n_main]]
    in_avals = [core.get_aval(p) for p in primals_flat]
    if isinstance(f_vjp_flat, ad.Pullback):
        args_res, opaque, spec = split_residuals(f_vjp_flat.residuals, primals_flat, in_tree.children()[0])
        transpose = f_vjp_flat.transpose
    else:  # the eager tape's pullback
        args_res, opaque, spec = [], [], None
        transpose = lambda _, cts, wanted=None, into=None: f_vjp_flat(*cts)  # noqa: E731  (values)
    layouts = [explicit_layout(p) for p in primals_flat]
    layouts = layouts if any(s is not None for s in layouts) else None
    if layouts is not None and isinstance(f_vjp_flat, ad.Pullback):  # (cotangents typed as primals)
        transpose = functools.partial(f_vjp_flat.transpose, layouts=layouts)
    backward = Backward(
        transpose, spec, in_tree, main_tree, out_avals, aux_avals, in_avals, fun_name(fun), layouts
    )
    f_vjp = VJP(backward, args_res, opaque)
    if has_aux:
        return out_main, f_vjp, aux
    return out_main, f_vjp


def linear_transpose(fun: Callable, *primals, reduce_axes=()):
    """The transpose of ``fun``, a function linear in its arguments: a function (a ``Partial``, so
    ``jit`` can return it) taking an output cotangent to the tuple of input cotangents. ``primals``
    (arrays, ``ShapeDtypeStruct``s, anything with ``shape`` and ``dtype``) give only the input shapes
    and dtypes.

    >>> f_t = linear_transpose(lambda x: 2.0 * x, 1.0)
    >>> f_t(3.0)
    (Array(6., dtype=float32, weak_type=True),)
    """
    primals_flat, in_tree = tree_flatten(primals)
    in_avals = [_shape_and_dtype(p, "linear_transpose") for p in primals_flat]
    out_store: list = []
    flat = _flatten_fun(fun, tree_flatten((primals, {}))[1], out_store)
    jaxpr, out_pvals, consts = ad.partial_eval_flat(flat, [ad.PartialVal.unknown(a) for a in in_avals])
    out_tree = out_store[0]
    out_avals = [p.aval for p in out_pvals]
    kinds = [dtype_kind(a.dtype) for a in (*in_avals, *out_avals)]
    if not (all(k in "fc" for k in kinds) or all(k in "iu" for k in kinds)):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and integer -> "
            f"integer functions, but got {[a.dtype.name for a in in_avals]} -> "
            f"{[a.dtype.name for a in out_avals]}."
        )
    unknown_outs = [not p.is_known for p in out_pvals]
    shapes = (in_tree, in_avals, out_tree, out_avals, unknown_outs)
    return Partial(functools.partial(_linear_transposed, jaxpr, shapes), list(consts))  # (JAX's: a pytree)


def _linear_transposed(jaxpr, shapes, consts, out_cotangent):
    in_tree, in_avals, out_tree, out_avals, unknown_outs = shapes
    cts, ct_tree = tree_flatten(out_cotangent)
    if ct_tree != out_tree:
        raise TypeError("cotangent tree does not match function output")
    if [(core.get_aval(c).shape, core.get_aval(c).dtype) for c in cts] != [
        (a.shape, a.dtype) for a in out_avals
    ]:
        raise TypeError("cotangent type does not match function output")
    cts_unknown = [c for c, u in zip(cts, unknown_outs) if u]
    if core.tracing_active():  # the residuals enter a trace before the cotangents, as in JAX
        trace = core.find_top_trace([*consts, *cts])
        for c in consts:
            trace.full_raise(c)
    in_cts = ad.linear_transpose_flat(jaxpr, consts, in_avals, cts_unknown)
    return tree_unflatten(in_tree, [ad.instantiate_zeros(c) for c in in_cts])


def value_and_grad(
    fun: Callable,
    argnums=0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes=(),
):
    """A function returning ``(fun(*args), grad(fun)(*args))``."""
    nums = _argnums_tuple(argnums)
    given = argnums if isinstance(argnums, int) else nums

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        f_partial, dyn = _partial_args(fun, nums, args, kwargs, given)
        _check_input_dtypes("grad", tree_flatten(dyn)[0], holomorphic, allow_int)
        if has_aux:
            ans, f_vjp, aux = _vjp(f_partial, tuple(dyn), True, False)
        else:
            ans, f_vjp = _vjp(f_partial, tuple(dyn), False, False)
        aval = core.get_aval(ans) if core.is_array_like(ans) else None
        if aval is None:
            raise TypeError(f"Gradient only defined for scalar-output functions. Output was {ans!r}.")
        if aval.shape != ():
            raise TypeError(
                f"Gradient only defined for scalar-output functions. Output had shape: "
                f"{aval.shape}. Reduce it (e.g. jnp.sum) or use jacrev/vjp."
            )
        _check_output_dtype("grad", aval.dtype, holomorphic)
        seed = lax.full((), 1.0, aval.dtype, aval.weak_type)
        if getattr(aval, "vma", ()):  # (in a checked shard_map body: varying as the result is, JAX's seed)
            from .lax.varying import pvary_to

            seed = pvary_to(seed, aval.vma)
        # (a staged shard_map's result is typed on its mesh; a value not traced has no mesh to find)
        if isinstance(ans, core.Tracer) and "engine.parallel.spmd" in sys.modules:
            from .parallel.value_mesh import seed_on_mesh

            seed = seed_on_mesh(ans, seed)
        g = f_vjp(seed)
        g = g[0] if isinstance(argnums, int) else tuple(g)
        return ((ans, aux), g) if has_aux else (ans, g)

    return value_and_grad_f  # named like fun (functools.wraps), as in JAX: jit of it prints name=fun


_NON_HOLOMORPHIC_TIP = {
    "inputs": " For holomorphic differentiation, pass holomorphic=True. For differentiation of "
    "non-holomorphic functions involving complex inputs or integer inputs, use jax.jvp directly.",
    "outputs": " For holomorphic differentiation, pass holomorphic=True. For differentiation of "
    "non-holomorphic functions involving complex outputs, use jax.vjp directly.",
}


def _check_tree_as_jax_does(check, name, tree, *flags):
    """``check`` the leaves of ``tree``, then rebuild it with None leaves, as JAX's jacfwd/jacrev
    check through ``tree_map``: a custom node's unflatten sees the Nones (and may raise there)."""
    leaves, treedef = tree_flatten(tree)
    check(name, leaves, *flags)
    tree_unflatten(treedef, [None] * len(leaves))


def _check_input_dtypes(name, leaves, holomorphic: bool, allow_int: bool):
    """JAX's rules: holomorphic derivatives need complex inputs; jacfwd needs real ones; grad and
    jacrev accept real or complex ones (integers only with allow_int)."""
    for leaf in leaves:
        aval = core.get_aval(leaf)
        if not isinstance(aval, core.ShapedArray):  # a ref: its cotangent would be an array
            inner = f"{aval.dtype.name}[{','.join(map(str, aval.shape))}]"
            raise ValueError(f"Expected cotangent type {aval} but got {inner}")
        dt = aval.dtype
        if holomorphic:
            if dtype_kind(dt) != "c":
                raise TypeError(
                    f"{name} with holomorphic=True requires inputs with complex dtype, but got {dt.name}."
                )
        elif name == "jacfwd":
            if dtype_kind(dt) != "f":
                raise TypeError(
                    f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                    f"np.floating), but got {dt.name}.{_NON_HOLOMORPHIC_TIP['inputs']}"
                )
        elif not allow_int and dtype_kind(dt) not in "fc":
            raise TypeError(
                f"{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
                f"np.inexact), but got {dt.name}. If you want to use Boolean- or integer-valued inputs, "
                f"use vjp or set allow_int to True."
            )


def _check_output_dtype(name, dtype, holomorphic: bool):
    if holomorphic:
        if dtype_kind(dtype) != "c":
            raise TypeError(
                f"{name} with holomorphic=True requires outputs with complex dtype, but got {dtype.name}."
            )
    elif dtype_kind(dtype) != "f":
        tip = (
            _NON_HOLOMORPHIC_TIP["outputs"]
            if dtype_kind(dtype) == "c"
            else " For differentiation of functions with integer outputs, use jax.vjp directly."
        )
        raise TypeError(
            f"{name} requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
            f"but got {dtype.name}.{tip}"
        )


def grad(
    fun: Callable,
    argnums=0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes=(),
):
    """The gradient of a scalar function with respect to positional argument(s) ``argnums``.

    >>> grad(jnp.tanh)(1.0)
    Array(0.41997433, dtype=float32, weak_type=True)
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        if has_aux:
            (_, aux), g = vg(*args, **kwargs)
            return g, aux
        return vg(*args, **kwargs)[1]

    return grad_f  # named like fun (functools.wraps), as in JAX: jit(grad(f)) prints name=f


# ---------------------------------------------------------------------------------------------
# vmap.


def vmap(
    fun: Callable, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None, sum_match=False
):
    """Vectorize ``fun`` over a new leading (or ``in_axes``) axis of its arguments.

    >>> xs, w = jnp.arange(6.0).reshape(2, 3), jnp.ones(3)
    >>> vmap(jnp.dot, in_axes=(0, None))(xs, w)   # one dot per row of xs
    Array([ 3., 12.], dtype=float32)
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not (in_axes is None or isinstance(in_axes, (int, np.integer, tuple))):
        raise TypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
            f"arguments passed to the function, but got {in_axes}."
        )
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")

    @functools.wraps(fun)
    def vmap_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(
                f"vmap in_axes must be an int, None, or a tuple of entries corresponding "
                f"to the positional arguments passed to the function, but got "
                f"len(in_axes)={len(in_axes)}, len(args)={len(args)}"
            )
        args_flat, in_tree = tree_flatten((args, kwargs))
        _check_arrays(args_flat, "vmap")
        try:
            axes_args = broadcast_prefix(
                in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args),
                args,
                is_leaf=lambda x: x is None,
            )
        except ValueError:
            raise axes_prefix_error("vmap in_axes", in_axes, args, lambda x: x is None) from None
        axes_flat = list(axes_args) + [0] * (len(args_flat) - len(axes_args))
        in_dims, sizes = [], []
        for x, ax in zip(args_flat, axes_flat):
            if ax is None:
                in_dims.append(None)
                continue
            nd = core.get_aval(x).ndim
            if not -nd <= ax < nd:
                raise ValueError(
                    f"vmap was requested to map its argument along axis {ax}, which "
                    f"implies that its rank should be at least {ax + 1 if ax >= 0 else -ax}, "
                    f"but is only {nd} (its shape is {core.get_aval(x).shape})\nUse "
                    f"in_axes=None for arguments that should not be mapped, e.g. "
                    f"in_axes=(0, None)."
                )
            ax = ax % nd
            in_dims.append(ax)
            sizes.append(core.get_aval(x).shape[ax])
        if not args_flat and axis_size is None:
            raise ValueError(
                "vmap wrapped function must be passed at least one argument containing an array or "
                f"axis_size must be specified, got empty *args={args} and **kwargs={kwargs}"
            )
        if not sizes and axis_size is None:
            raise ValueError(
                "vmap must have at least one non-None value in in_axes or axis_size must be specified"
            )
        size = axis_size if axis_size is not None else sizes[0]
        if any(s != size for s in sizes):
            raise ValueError(inconsistent_sizes("vmap", fun, args, kwargs, in_dims, axis_size))
        check_mapped_axes(args_flat, in_dims)
        out_store = []
        flat = _flatten_fun(fun, in_tree, out_store)

        def out_dims_spec(n):
            out_tree = out_store[0]
            try:
                dims = broadcast_prefix(
                    out_axes, tree_unflatten(out_tree, [0] * n), is_leaf=lambda x: x is None
                )
            except ValueError:
                full = tree_unflatten(out_tree, [0] * n)
                raise axes_prefix_error("vmap out_axes", out_axes, full, lambda x: x is None) from None
            return list(dims)

        def out_paths(n):
            leaves = tree_flatten_with_path(tree_unflatten(out_store[0], [0] * n))[0]
            return [keystr(path) for path, _ in leaves]

        with core.source_info_context(None):
            outs = batching.vmap_flat(
                flat, size, axis_name, in_dims, args_flat, out_dims_spec, out_paths, bool(sum_match)
            )
        return tree_unflatten(out_store[0], outs)

    return vmap_f


def _check_axes_spec(spec, what):
    for leaf in tree_flatten(spec, is_leaf=lambda x: x is None)[0]:
        if leaf is not None and not isinstance(leaf, (int, np.integer)):
            raise TypeError(
                f"vmap {what} must be an int, None, or (nested) container with those types as leaves, "
                f"but got {spec}."
            )


# ---------------------------------------------------------------------------------------------
# make_jaxpr and jit live in their own module; re-exported here for one import path.

from .jit import jit, make_jaxpr  # noqa: E402, F401


def block_until_ready(x):
    """Wait for every array in the pytree ``x`` (computation is synchronous here)."""
    for leaf in tree_flatten(x)[0]:
        if hasattr(leaf, "block_until_ready"):
            leaf.block_until_ready()
    return x


from .shape_eval import eval_shape  # noqa: E402, F401


from .ad_checkpoint import checkpoint, remat  # noqa: E402, F401
from .checkpoint_policies import checkpoint_policies  # noqa: E402, F401
from .jacobians import hessian, jacfwd, jacobian, jacrev  # noqa: E402, F401


class _NullContext:
    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fun):
        return fun


named_scope = core.named_scope


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun`` with its equations under the name ``name`` (default: ``fun``'s name), as JAX 0.10.2
    does it: a name on their name stack (``source_info.scope``), no call of its own in the jaxpr.

    >>> import engine as jax
    >>> f = jax.named_call(jax.numpy.sin, name="layer")
    >>> [e.source_info.scope for e in jax.make_jaxpr(f)(1.0).jaxpr.eqns]
    ['layer']
    """
    scope = name if name is not None else getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def named(*args, **kwargs):
        with core.named_scope(scope):
            return fun(*args, **kwargs)

    return named


ensure_compile_time_eval = compile_time_eval
default_matmul_precision = _NullContext


def default_backend() -> str:
    return "cpu"
