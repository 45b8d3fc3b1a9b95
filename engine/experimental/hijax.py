"""``jax.experimental.hijax``: user-defined primitives whose derivative and batching rules are
methods of a class (``VJPHiPrimitive``), expanded into ordinary operations once the
transformations are done.

A subclass says its input and output types and implements ``expand``; ``vjp_fwd`` and
``vjp_bwd_retval`` (or ``vjp_bwd``) serve ``grad``/``vjp``, ``jvp`` serves ``jvp``, ``lin`` and
``linearized`` serve ``linearize``, ``batch_dim_rule`` or ``batch`` serve ``vmap``. Each call binds
one ``call_hi_primitive`` equation whose only parameter is the instance (printed as
``Name[params]``); evaluation and compiled code run ``expand``'s jaxpr (traced once per instance
type and parameters).

    >>> class Twice(VJPHiPrimitive):
    ...     def __init__(self, x_aval):
    ...         self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
    ...         super().__init__()
    ...     def expand(self, x):
    ...         return 2.0 * x
    ...     def vjp_fwd(self, nzs_in, x):
    ...         return self(x), None
    ...     def vjp_bwd_retval(self, res, g):
    ...         return (2.0 * g,)
    >>> import engine
    >>> engine.grad(lambda x: Twice(engine.typeof(x))(x))(3.0)
    Array(2., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ad, batching, core, ir, tape
from ..backends.rows import INTERPRETER_ONLY, Special, lowerings
from ..core import ShapedArray  # noqa: F401  (jax.experimental.hijax.ShapedArray)
from .. import errors
from ..custom_derivatives import _eval_call
from ..staging import trace_to_jaxpr
from ..tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten

Zero = ad.Zero  # (a symbolic zero cotangent, as a backward rule receives it)

call_hi_primitive_p = core.Primitive("call_hi_primitive", multiple_results=True)


def instantiate_zeros(x: Any) -> Any:
    """A symbolic zero as an array of zeros (anything else as it is)."""
    return ad.instantiate_zeros(x) if isinstance(x, ad.Zero) else x


def _overrides(prim: VJPHiPrimitive, name: str) -> bool:
    return getattr(type(prim), name) is not getattr(VJPHiPrimitive, name)


class VJPHiPrimitive:
    """A primitive defined by a class: ``in_avals`` (a tuple of pytrees of types), ``out_aval``
    (a pytree of types) and ``params`` (static, hashable; also readable as attributes) are set by
    the subclass's ``__init__`` before it calls ``super().__init__()``."""

    in_avals: tuple
    out_aval: Any
    params: dict

    def __init__(self):
        for name in ("in_avals", "out_aval", "params"):
            if not hasattr(self, name):
                raise AttributeError(f"subclass __init__ should set `self.{name}`")
        if _overrides(self, "vjp_bwd") and _overrides(self, "vjp_bwd_retval"):
            raise AttributeError(
                f"subclass {type(self)} should not override both `vjp_bwd` and `vjp_bwd_retval`"
            )
        self.in_avals_flat, self.in_tree = tree_flatten(tuple(self.in_avals))
        self.out_avals_flat, self.out_tree = tree_flatten(self.out_aval)
        self.__dict__.update(self.params)
        self.check(*self.in_avals)

    def expand(self, *args):
        raise NotImplementedError(f"subclass {type(self)} must implement `expand`")

    def vjp_fwd(self, nzs_in, /, *args):
        raise NotImplementedError(f"for grad support, subclass {type(self)} must implement `vjp_fwd`")

    def vjp_bwd(self, res, outgrad, /, *arg_accums):
        grads = self.vjp_bwd_retval(res, outgrad)
        tree_map(lambda accum, g: accum.accum(g), arg_accums, tuple(grads))  # (None: a zero)

    def vjp_bwd_retval(self, res, outgrad, /):
        raise NotImplementedError(
            f"for grad support, subclass {type(self)} must implement `vjp_bwd` or `vjp_bwd_retval`"
        )

    def jvp(self, primals, tangents):
        raise NotImplementedError(f"for jvp support, subclass {type(self)} must implement `jvp`")

    def lin(self, nzs_in, *primals):
        raise NotImplementedError(
            f"for linearize support, subclass {type(self)} must implement `lin` and `linearized`"
        )

    def linearized(self, residuals, *tangents):
        raise NotImplementedError(
            f"for linearize support, subclass {type(self)} must implement `lin` and `linearized`"
        )

    def batch(self, axis_data, args, dims):
        """``(outputs, output dims)`` under ``vmap``: by default a primitive of the batched types
        (``VmapOf``: its expansion and rules are this one's, vmapped), its output dimensions as
        ``batch_dim_rule`` says."""
        out_dim = self.batch_dim_rule(axis_data, dims)
        return VmapOf(self, axis_data, dims, out_dim)(*args), out_dim

    def batch_dim_rule(self, axis_data, dims, /):
        raise NotImplementedError(
            f"for vmap support, subclass {type(self)} must implement `batch` or `batch_dim_rule`"
        )

    def check(self, *arg_tys):
        return None

    def has_rule(self, name: str) -> bool:
        """Whether the class defines the rule ``name`` (``jvp``, ``vjp_fwd``, ``lin``)."""
        return _overrides(self, name)

    def __call__(self, *args):
        flat, tree = tree_flatten(args)
        if tree != self.in_tree:
            raise TypeError(f"{self}: arguments {tree} do not match the declared input types {self.in_tree}")
        if not core.tracing_active() and not any(isinstance(x, core.Tracer) for x in flat):
            return self.expand(*args)  # (eagerly, as JAX's: the expansion runs on the values given)
        return tree_unflatten(self.out_tree, call_hi_primitive_p.bind(*flat, _prim=self))

    def __repr__(self):
        return f"{type(self).__name__}[{self.params}]"

    def __hash__(self):
        return hash((type(self).__name__, tuple(self.params.items())))

    def __eq__(self, other):
        return type(self) is type(other) and self.params == other.params


def _unmapped(axis_data, d, aval):
    if d is None:
        return aval
    shape = (*aval.shape[:d], axis_data.size, *aval.shape[d:])
    return core.ShapedArray(shape, aval.dtype, weak_type=aval.weak_type)


def _none_leaf(x) -> bool:
    return x is None


class VmapOf(VJPHiPrimitive):
    """``prim`` over a batch: inputs and outputs with the mapped dimensions ``in_dims`` and
    ``out_dim``; its expansion and rules are ``prim``'s, vmapped (so ``grad`` of a ``vmap`` still
    takes the primitive's own VJP rules)."""

    def __init__(self, prim, axis_data, in_dims, out_dim):
        unmap = lambda d, a: _unmapped(axis_data, d, a)  # noqa: E731
        self.in_avals = tree_map(unmap, tuple(in_dims), tuple(prim.in_avals), is_leaf=_none_leaf)
        self.out_aval = tree_map(unmap, out_dim, prim.out_aval, is_leaf=_none_leaf)
        self.params = dict(prim=prim, axis_data=axis_data, in_dims=tuple(in_dims), out_dim=out_dim)
        super().__init__()

    def has_rule(self, name: str) -> bool:
        return self.prim.has_rule(name)

    def _vmap(self, fun, in_axes, out_axes, **kw):
        from ..api import vmap

        data = self.axis_data
        return vmap(
            fun, in_axes=in_axes, out_axes=out_axes, axis_size=data.size, axis_name=data.axis_name, **kw
        )

    def expand(self, *args):
        return self._vmap(self.prim.expand, self.in_dims, self.out_dim)(*args)

    def jvp(self, primals, tangents):
        dims = self.in_dims
        return self._vmap(self.prim.jvp, (dims, dims), (self.out_dim, self.out_dim))(primals, tangents)

    def vjp_fwd(self, nzs_in, *args):
        fwd = lambda *xs: tuple(self.prim.vjp_fwd(nzs_in, *xs)[:2])  # noqa: E731
        return self._vmap(fwd, self.in_dims, (self.out_dim, 0))(*args)

    def vjp_bwd_retval(self, res, g):
        prim = self.prim
        g = tree_map(instantiate_zeros, g, is_leaf=lambda x: isinstance(x, ad.Zero))

        def one(r, g):  # (None, a zero cotangent, as zeros: every vmapped output has a batch axis)
            cts = prim.vjp_bwd_retval(r, g)
            return tuple(
                tree_map(ad.zeros_like_aval, aval) if ct is None else ct
                for ct, aval in zip(cts, prim.in_avals)
            )

        # (an unmapped input's cotangent: summed over the batch, as JAX's sum_match)
        return self._vmap(one, (0, self.out_dim), self.in_dims, sum_match=True)(res, g)

    def batch_dim_rule(self, axis_data, in_dims):
        fix = lambda d, d_: d if (d is None or d_ is None) else d - (d_ < d)  # noqa: E731
        inner = tree_map(fix, tuple(in_dims), self.in_dims, is_leaf=_none_leaf)
        out_dim = self.prim.batch_dim_rule(axis_data, inner)
        shift = lambda d, d_: d if (d is None or d_ is None) else d + (d_ <= d)  # noqa: E731
        return tree_map(shift, out_dim, self.out_dim, is_leaf=_none_leaf)


class ValAccum:
    """Where ``vjp_bwd`` adds an input's cotangent (``accum``)."""

    def __init__(self, aval):
        self.aval, self.value = aval, None

    def accum(self, value):
        if value is not None and not isinstance(value, ad.Zero):
            self.value = value if self.value is None else self.value + value


class NullAccum:
    """An input whose cotangent nobody asked for: ``vjp_bwd`` may skip its work."""

    def __init__(self, aval):
        self.aval = aval

    def accum(self, value):
        return None


class AxisData:
    """What a ``batch`` rule is told about the mapped axis (an anonymous axis: a fresh name)."""

    def __init__(self, size, name):
        self.size, self.axis_name = size, name
        self.name = object() if name is None else name

    def __repr__(self):
        return f"AxisData(name={self.name!r}, size={self.size}, spmd_name=None, explicit_mesh_axis=None)"


# ---------------------------------------------------------------------------------------------
# The rules.

_expansions: dict = {}


def expansion(prim: VJPHiPrimitive) -> ir.ClosedJaxpr:
    """``expand`` traced on the declared types (once per instance type and parameters, as JAX's
    tracing cache keeps it)."""
    key = (prim, tuple(prim.in_avals_flat))
    found = _expansions.get(key)
    if found is None:

        def flat(*xs):
            out = prim.expand(*tree_unflatten(prim.in_tree, list(xs)))
            return tree_flatten(out)[0]

        if len(_expansions) > 256:  # (a vmapped primitive's key holds its fresh axis)
            _expansions.clear()
        found = _expansions[key] = trace_to_jaxpr(flat, list(prim.in_avals_flat))
    return found


def _impl(*args, _prim):
    """The expansion's jaxpr on the values (traced once, as JAX compiles it once); an ``expand``
    that branches on its inputs' values runs on them instead (JAX's eager evaluation)."""
    try:
        closed = expansion(_prim)
    except errors.ConcretizationTypeError:
        out = _prim.expand(
            *tree_unflatten(_prim.in_tree, [core.Array(a) if isinstance(a, np.ndarray) else a for a in args])
        )
        return [core.to_numpy(o) for o in tree_flatten(out)[0]]
    return [core.to_numpy(o) for o in _eval_call(*args, call_jaxpr=closed)]  # (weak types: declared)


call_hi_primitive_p.def_impl(_impl)


def _abstract_eval(*avals, _prim):
    # (the declared types as plain avals: jax.typeof's carry layouts the equation does not print)
    plain = lambda a: core.ShapedArray(a.shape, a.dtype, weak_type=a.weak_type)  # noqa: E731
    return [plain(a) if isinstance(a, core.ShapedArray) else a for a in _prim.out_avals_flat]


call_hi_primitive_p.def_abstract_eval(_abstract_eval)
call_hi_primitive_p.weak_from_abstract_eval = True
lowerings[call_hi_primitive_p] = Special("inline")  # (compiled code runs the expansion in line)


def _linearizing(tangents) -> bool:
    """Whether these tangents are being linearized (``grad``, ``vjp``, ``linearize``) rather than
    pushed forward (``jvp``): JAX asks a primitive's VJP rules then."""
    return any(isinstance(t, ad.PartialEvalTracer) for t in tangents)


def _jvp(primals, tangents, *, _prim):
    """JAX asks ``vjp_fwd`` when it linearizes (``grad``, ``vjp``), ``lin`` for ``linearize``
    and ``jvp`` when it pushes tangents forward. The engine's reverse mode is a JVP partially
    evaluated, so a rule is chosen by what the class has: ``jvp`` for tangents pushed forward
    (not while linearizing, where the VJP rules win), else ``vjp_fwd`` (its backward rule then
    transposes the tangent), else ``lin``."""
    nzs = [type(t) is not ad.Zero for t in tangents]
    ps = tree_unflatten(_prim.in_tree, primals)
    ts = lambda: tree_unflatten(_prim.in_tree, [ad.instantiate_zeros(t) for t in tangents])  # noqa: E731
    has = _prim.has_rule
    if has("jvp") and not (_linearizing(tangents) and (has("vjp_fwd") or has("lin"))):
        out, tout = _prim.jvp(ps, ts())
        return tree_flatten(out)[0], tree_flatten(tout)[0]
    if has("vjp_fwd") or not has("lin"):
        if not has("vjp_fwd") and not _linearizing(tangents):
            _prim.jvp(ps, ts())  # (JAX's NotImplementedError: forward mode asks for `jvp`)
        return _vjp_jvp(_prim, primals, tangents, nzs)
    out, res = _prim.lin(tree_unflatten(_prim.in_tree, nzs), *ps)[:2]
    return tree_flatten(out)[0], tree_flatten(_prim.linearized(res, *ts()))[0]


def _vjp_jvp(prim, primals, tangents, nzs):
    out, res = prim.vjp_fwd(tree_unflatten(prim.in_tree, nzs), *tree_unflatten(prim.in_tree, primals))[:2]
    out_flat = tree_flatten(out)[0]
    res_flat, res_tree = tree_flatten(res)

    def bwd(residuals, cts):
        res_value = tree_unflatten(res_tree, list(residuals))
        g = tree_unflatten(prim.out_tree, list(cts))
        accums = [ValAccum(a) if nz else NullAccum(a) for a, nz in zip(prim.in_avals_flat, nzs)]
        prim.vjp_bwd(res_value, g, *tree_unflatten(prim.in_tree, accums))
        return [a.value if isinstance(a, ValAccum) else None for a in accums]

    bwd.__name__ = f"{type(prim).__name__}.vjp_bwd"
    live = [t for t, nz in zip(tangents, nzs) if nz]
    touts = call_hi_primitive_linearized_p.bind(
        *res_flat,
        *live,
        _prim=prim,
        num_res=len(res_flat),
        bwd=bwd,
        out_avals=tuple(
            ad.tangent_aval(a) for a in _abstract_eval(_prim=prim)
        ),  # (declared: weak types kept)
        in_zeros=tuple(not nz for nz in nzs),
    )
    return out_flat, touts


# The tangent map of a primitive differentiated by its VJP rules: only ever transposed (its
# backward rule); evaluated or batched, it is forward mode, which asks for ``jvp``.
call_hi_primitive_linearized_p = core.Primitive("call_hi_primitive_linearized", multiple_results=True)
call_hi_primitive_linearized_p.def_abstract_eval(lambda *avals, out_avals, **_: list(out_avals))


def _forward_mode(*_, _prim, **__):
    return _prim.jvp(None, None)  # (its NotImplementedError: the class has no `jvp`)


def _linearized_transpose(cts, *args, _prim, num_res, bwd, out_avals, in_zeros):
    cts_in = bwd(args[:num_res], list(cts))
    return [None] * num_res + [c for c, z in zip(cts_in, in_zeros) if not z]


call_hi_primitive_linearized_p.def_impl(_forward_mode)
INTERPRETER_ONLY[call_hi_primitive_linearized_p.name] = (
    "linearization residue of a hijax primitive: transposed away before any executable runs"
)
batching.batch_rules[call_hi_primitive_linearized_p] = lambda axis_size, vals, dims, **p: _forward_mode(**p)
ad.transpose_rules[call_hi_primitive_linearized_p] = _linearized_transpose
ir.pp_params_rules[call_hi_primitive_linearized_p] = lambda eqn: [
    ("_prim", type(eqn.params["_prim"])),
    ("nz_in_flat", tuple(not z for z in eqn.params["in_zeros"])),
    ("residuals_tree", "..."),
]


def _batch(axis_size, vals, dims, *, _prim):
    trace = batching.current_batch_trace()
    in_dims = [None if d is batching.not_mapped else d for d in dims]
    args = tree_unflatten(_prim.in_tree, list(vals))
    out, out_dims = _prim.batch(
        AxisData(axis_size, trace.axis_name if trace is not None else None),
        args,
        tree_unflatten(_prim.in_tree, in_dims),
    )
    dims_flat = broadcast_prefix(out_dims, out)  # (an output dim per output, None: not mapped)
    return tree_flatten(out)[0], [batching.not_mapped if d is None else d for d in dims_flat]


ad.jvp_rules[call_hi_primitive_p] = _jvp
batching.batch_rules[call_hi_primitive_p] = _batch
tape.GENERAL_PATH.add(call_hi_primitive_p)  # (user rules may branch on the residuals' values)
