"""StableHLO text for a jaxpr, as JAX 0.10.2 prints it (``jit(f).lower(x).as_text()``).

>>> import engine, engine.numpy as jnp
>>> print(engine.jit(jnp.sin).lower(1.0).as_text())  # doctest: +NORMALIZE_WHITESPACE
module @jit_sin attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<f32>
    return %0 : tensor<f32>
  }
}
<BLANKLINE>

The engine does not compile this text (``.compile()`` runs the jaxpr on its own backends); it is
what JAX would hand to XLA, for reading. A primitive without a rule raises NotImplementedError.
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from ..ir import ClosedJaxpr, Jaxpr, Var
from . import literals, refs
from .dce import Pruner
from .lowering import Module, emit, lower_jaxpr, rules
from .lowering import _return_render
from .rules_parallel import jit_sharding_attrs, mesh_declaration, pmap_form
from .xla_hlo import module_hlo_text as hlo_text_of


def lowered_text(lowered: Any, dialect: str | None) -> str:
    """``Lowered.as_text(dialect)``: the StableHLO module, or XLA's HLO text (``dialect="hlo"``)."""
    refusal = getattr(lowered, "text_refusal", None)
    pinned = getattr(lowered, "jit_shardings", None)
    if pinned is not None and dialect != "hlo":  # (jit's in_shardings/out_shardings, when JAX's are known)
        pinned = jit_sharding_attrs(pinned[0], pinned[1], lowered.jaxpr, lowered.out_tree)
        if pinned is not None:
            refusal = None
    if refusal is not None:
        raise NotImplementedError(refusal)
    if dialect != "hlo":
        closed, name, out_tree, shardings = lowered.jaxpr, lowered.name, lowered.out_tree, None
        if pinned is not None:
            mesh, shardings = pinned
            kw = dict(result_names=result_paths(out_tree), keep_unused=lowered.keep_unused, mesh=mesh)
            return module_text(closed, name, shardings=shardings, **kw)
        shown = pmap_form(lowered)
        if shown is not None:  # (a pmap: JAX's jit of a shard_map)
            closed, out_tree, itself = shown
            if itself:
                closed, name, shardings = _pmap_module(closed)
        result_names = result_paths(out_tree)
        kw = dict(result_names=result_names, keep_unused=lowered.keep_unused, donated=lowered.donated)
        return module_text(closed, name, shardings=shardings, **kw)
    if lowered.donated and any(lowered.donated):  # (XLA's text then declares input_output_alias)
        raise NotImplementedError(
            "HLO text for a program with donated arguments is not implemented in the engine"
        )
    _refuse_vmap_of_library_function(getattr(lowered.hlo_arg_names, "args", [None])[0])
    names = lowered.hlo_arg_names() if lowered.hlo_arg_names else []
    shown = pmap_form(lowered)
    if shown is not None:  # (JAX's jit of a shard_map, over the pmap's mesh)
        closed, _, itself = shown
        if not itself:
            return module_text(closed, lowered.name, keep_unused=lowered.keep_unused, hlo_of=names)
        closed, name, shardings = _pmap_module(closed)
        names = [f"flat_args[{i}]" for i in range(len(closed.jaxpr.in_binders))]  # (the pmap's own)
        return module_text(closed, name, shardings=shardings, hlo_of=names)
    return hlo_text(lowered.jaxpr, lowered.name, names, keep_unused=lowered.keep_unused)


# The public functions of jax.numpy, lax, nn, random, scipy.special, numpy.linalg and scipy.linalg
# whose docstring breaks ``str.format`` (a ``{`` of LaTeX or code), recorded from JAX 0.10.2
_DOCSTRING_BREAKS_FORMAT = frozenset(
    """
    abs absolute acos acosh allclose arccosh arcsinh arctan2 arctanh asin asinh atan atan2 atanh
    bernoulli bessel_i0e bessel_i1e beta betainc betaln binomial boxcox boxcox1p can_cast cauchy
    cbrt celu chisquare circulant clamp comb companion cond conj conv_general_dilated_local
    conv_general_dilated_patches convolve corrcoef correlate cos cosh cov cross dawsn deg2rad dft
    digamma dirichlet dot_product_attention double_sided_maxwell dtype elu entr erf erf_inv erfc
    erfcx exp exp1 exp2 expi expit expm expm1 expn exponential f factorial fiedler fiedler_companion
    fromfunction gamma gammainc gammaincc gammaln gammasgn gelu generalized_normal geometric glu
    gumbel hadamard hard_sigmoid hard_silu hard_swish hard_tanh heaviside helmert hilbert hyp1f1
    hyp2f1 i0 i0e i1 i1e imag invert invhilbert invpascal is_finite isclose isdtype kl_div laplace
    leaky_relu lexsort lgamma log log1p log_ndtr log_sigmoid log_softmax logaddexp2 logistic logit
    logmeanexp lognormal logsumexp max maxwell min mish multigammaln multinomial multivariate_normal
    ndtr normal one_hot owens_t pareto poch poisson polar polyfit polygamma polyval rad2deg
    rademacher rayleigh real rel_entr relu relu6 rsqrt selu sici sigmoid sign silu sin sinc sinh
    soft_sign softmax softplus sparse_plus sparse_sigmoid spence sph_harm_y sqrt squareplus
    standardize swish t tan tanh toeplitz trapezoid triangular truncated_normal vander wald
    weibull_min wofz zeta
    """.split()
)


def _pmap_module(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, str, tuple[list[str], list[str]]]:
    """A pmap lowered itself (JAX's ``pmap(f).lower``, which ``jit`` of it keeps): the module is
    its ``jit`` of the shard_map, named ``_fun``, the arguments and results carrying the mesh
    shardings it was jitted with."""
    from ..jit_primitive import jit_p
    from ..parallel.spmd import shard_map_p
    from .rules_parallel import dims_text

    def only_call(j: Any, prim: Any) -> Any:
        if len(j.eqns) != 1 or j.eqns[0].primitive is not prim:
            return None
        eqn = j.eqns[0]
        same = list(eqn.inputs) == list(j.in_binders) and list(eqn.out_binders) == list(j.outs)
        return eqn if same else None

    eqn = only_call(closed.jaxpr, jit_p)
    while eqn is not None and eqn.params["name"] != "_fun":
        eqn = only_call(eqn.params["jaxpr"].jaxpr, jit_p)
    inner = eqn.params["jaxpr"] if eqn is not None else None
    smap = only_call(inner.jaxpr, shard_map_p) if inner is not None else None
    if smap is None:
        raise NotImplementedError("StableHLO text for this pmap is not implemented in the engine")
    p = smap.params

    def attrs(specs: Any, avals: Any) -> list[str]:
        return [
            f"sdy.sharding = #sdy.sharding<@mesh, {dims_text(s, len(a.shape))}>" for s, a in zip(specs, avals)
        ]

    ins = attrs(p["in_specs"], [v.aval for v in smap.inputs])
    outs = attrs(p["out_specs"], [v.aval for v in smap.out_binders])
    return inner, "_fun", (ins, outs)


def _refuse_vmap_of_library_function(fun: Any) -> None:
    """JAX's ``vmap`` keeps the signature of the function it wraps (the parameters' names) unless
    that function's docstring, appended to vmap's, breaks ``str.format``: then the parameters are
    ``args[0]``, .... The engine's library functions have docstrings of their own: a vmap of one
    that JAX's docstring breaks is refused."""
    while fun is not None and hasattr(fun, "__wrapped__"):
        inner = fun.__wrapped__
        code = getattr(fun, "__code__", None)
        if (
            code is not None
            and code.co_name == "vmap_f"
            and getattr(inner, "__module__", "").startswith("engine")
            and getattr(getattr(inner, "__code__", None), "co_name", None) == getattr(inner, "__name__", "")
            and inner.__name__ in _DOCSTRING_BREAKS_FORMAT
        ):
            raise NotImplementedError(
                f"HLO text for vmap of {inner.__name__} (JAX's argument names depend on its docstring) "
                "is not implemented in the engine"
            )
        fun = inner


def hlo_text(closed: ClosedJaxpr, name: str, arg_names: Sequence[str], *, keep_unused: bool = False) -> str:
    """XLA's HLO text for ``closed`` jitted as ``name`` (``engine.stablehlo.hlo_text``), its
    parameters named ``arg_names`` (one per flat argument, as JAX's debug info names them)."""
    return module_text(closed, name, keep_unused=keep_unused, hlo_of=list(arg_names))


__all__ = ["hlo_text", "lowered_text", "module_text", "result_paths", "rules"]


def result_paths(out_tree: Any) -> list[str]:
    """``result``, ``result[0]``, ``result['a']``: the names JAX gives a function's outputs."""
    from ..tree_util import keystr, tree_flatten_with_path, tree_unflatten

    n = out_tree.num_leaves
    try:
        tree = tree_unflatten(out_tree, [_Leaf() for _ in range(n)])
        paths = [keystr(p) for p, _ in tree_flatten_with_path(tree)[0]]
    except Exception:  # a pytree whose nodes refuse stand-in leaves: positions instead
        paths = [f"[{i}]" for i in range(n)] if n != 1 else [""]
    return ["result" + p for p in paths] if len(paths) == n else [f"result[{i}]" for i in range(n)]


class _Leaf:
    pass


def module_text(
    closed: ClosedJaxpr,
    name: str,
    *,
    result_names: Sequence[str] | None = None,
    keep_unused: bool = False,
    arg_attrs: Sequence[str] | None = None,
    donated: Sequence[bool] | None = None,
    hlo_of: Sequence[str] | None = None,
    shardings: tuple[Sequence[str], Sequence[str]] | None = None,
    mesh: tuple[tuple[str, ...], tuple[int, ...]] | None = None,
) -> str:
    """The StableHLO module JAX prints for ``closed`` jitted as ``name``.

    Args:
      closed: the program (what ``make_jaxpr`` returns).
      name: the function's name; the module is ``@jit_<name>``.
      result_names: ``jax.result_info`` of each output (default ``result``, ``result[i]``);
        ``result_paths(out_tree)`` gives JAX's names for a pytree of outputs.
      keep_unused: keep arguments the program does not use (``jit(keep_unused=True)``); by
        default they are dropped from ``@main`` as JAX drops them.
      arg_attrs: an attribute dictionary's text per kept argument (``""`` for none).
      donated: per argument, whether it is donated (``jit(donate_argnums=...)``): a donated
        argument aliases the first output of its type (``tf.aliasing_output``), as JAX's.

      hlo_of: the arguments' names: then the text is XLA's HLO for the module (``hlo_text``).
      shardings: an ``sdy.sharding`` attribute's text per argument and per result (a pmap's).
      mesh: the module's mesh (axis names, sizes) when only ``shardings`` name it.

    Raises NotImplementedError naming the first primitive that has no StableHLO rule.
    """
    from . import rules_calls, rules_control, rules_elementwise, rules_ffi, rules_indexing  # noqa: F401
    from . import rules_generic_reductions, rules_linalg, rules_random, rules_structural  # noqa: F401  (each adds rows to ``rules``)
    from . import rules_linalg_factorizations, rules_linalg_updates, rules_special, rules_state  # noqa: F401
    from . import rules_parallel  # noqa: F401

    state = refs.stateful(closed, keep_unused)  # (refs: pruned, then discharged as JAX lowers them)
    if state is not None:
        closed, jaxpr, kept = state.closed, state.closed.jaxpr, state.kept
    else:
        jaxpr, used = Pruner().jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outs), prune_inputs=False)
        kept = [i for i, u in enumerate(used) if u or keep_unused]
    n_out = len(jaxpr.outs)
    if result_names is None:
        result_names = ["result"] if n_out == 1 else [f"result[{i}]" for i in range(n_out)]
    module = Module()
    module.mesh = mesh
    main = module.add_function("main", True, [literals.aval_type(jaxpr.in_binders[i].aval) for i in kept])
    if state is not None and state.arg_attrs is not None:
        main.arg_attrs = state.arg_attrs
    elif shardings is not None:
        main.arg_attrs = [shardings[0][i] for i in kept]
    elif arg_attrs is not None:
        main.arg_attrs = list(arg_attrs)
    elif donated is not None and any(donated):
        main.arg_attrs = _aliasing_attrs(jaxpr, kept, donated)
    args: list[Any] = [None] * len(jaxpr.in_binders)
    for i, a in zip(kept, main.body.args):
        args[i] = a
    jaxpr, consts = _read_consts(jaxpr, closed.consts)
    outs = lower_jaxpr(module, main.body, jaxpr, consts, args)
    if hlo_of is not None:  # (the HLO printer reads the module before its return is emitted)
        if module.callbacks or any(literals.is_key(o.aval) for o in jaxpr.outs):
            raise NotImplementedError(
                "HLO text for a program of callbacks or returning PRNG keys is not implemented in the engine"
            )
        names = list(hlo_of)
        pinned = None
        if state is not None and state.arg_attrs is not None:  # (refs: their names are positions)
            names = []
            pinned = (main.arg_attrs, state.result_attrs)
        elif shardings is not None:  # (a pmap's)
            pinned = (main.arg_attrs, list(shardings[1]))
        return hlo_text_of(
            _module_name(name),
            main,
            outs,
            [names[i] if i < len(names) else f"Arg_{k}" for k, i in enumerate(kept)],
            list(main.body.ops),
            name,
            pinned,
            module.mesh,
        )
    keys_out = [i for i, o in enumerate(jaxpr.outs) if literals.is_key(o.aval)]
    for i in keys_out:  # (JAX pins a returned PRNG key's data to the empty mesh)
        spec = ", ".join("{}" for _ in literals.physical_shape(jaxpr.outs[i].aval))
        v = outs[i]
        outs[i] = emit(main.body, [v.type], _key_constraint(v, spec))[0]
    main.result_types = [v.type for v in outs]
    main.result_attrs = [f'jax.result_info = "{n}"' for n in result_names]
    if state is not None and state.result_attrs is not None:
        main.result_attrs = state.result_attrs
    if shardings is not None:
        main.result_attrs = [f"{a}, {s}" for a, s in zip(main.result_attrs, shardings[1])]
    emit(main.body, [], _return_render("return", outs))
    partitions = math.prod(module.mesh[1]) if module.mesh is not None else 1
    header = (
        f"module @{_module_name(name)} attributes "
        f"{{mhlo.num_partitions = {partitions} : i32, mhlo.num_replicas = 1 : i32}} {{\n"
    )
    empty_mesh = keys_out or (state is not None and state.arg_attrs is not None)
    if module.mesh is not None:
        if empty_mesh or module.callbacks:  # (JAX's order of several meshes is not known here)
            raise NotImplementedError(
                "StableHLO text for a program over a mesh that also returns keys or calls back"
            )
        header += mesh_declaration(module.mesh)
    if empty_mesh:
        header += "  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}\n"
    if module.callbacks:  # (the one-device mesh JAX places host callbacks on)
        header += (
            "  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], "
            "device_ids = dense<0> : tensor<1xi64>}}\n"
        )
    return header + "".join(f.text() for f in module.functions) + "}\n"


def _read_consts(jaxpr: Jaxpr, consts: Sequence[Any]) -> tuple[Jaxpr, list[Any]]:
    """The program's closed-over constants that its pruned equations still read: JAX's module
    declares no constant for one nothing reads (a gradient that discards its scatter's indices)."""
    read = {x for e in jaxpr.eqns for x in e.inputs if type(x) is Var}
    read.update(x for x in jaxpr.outs if type(x) is Var)
    kept = [(v, c) for v, c in zip(jaxpr.constvars, consts) if v in read]
    if len(kept) == len(jaxpr.constvars):
        return jaxpr, list(consts)
    return Jaxpr([v for v, _ in kept], jaxpr.in_binders, jaxpr.eqns, jaxpr.outs), [c for _, c in kept]


def _key_constraint(v: Any, spec: str) -> Any:
    return lambda p: f"sdy.sharding_constraint {p(v)} <@empty_mesh, [{spec}]> : {v.type}"


def _aliasing_attrs(jaxpr: Any, kept: Sequence[int], donated: Sequence[bool]) -> list[str]:
    """JAX's ``_set_up_aliases``: each output takes the first donated argument of its shape and
    dtype not yet taken; a donated argument left over is a ``jax.buffer_donor``."""
    free: dict[tuple, list[int]] = {}
    for k, i in enumerate(kept):
        if donated[i]:
            a = jaxpr.in_binders[i].aval
            free.setdefault((a.shape, a.dtype), []).append(k)
    attrs = [""] * len(kept)
    for j, o in enumerate(jaxpr.outs):
        ks = free.get((o.aval.shape, o.aval.dtype))
        if ks:
            attrs[ks.pop(0)] = f"tf.aliasing_output = {j} : i32"
    for ks in free.values():
        for k in ks:
            attrs[k] = "jax.buffer_donor = true"
    return attrs


def _module_name(name: str) -> str:
    """JAX's: ``jit(<name>)`` with each character other than a word character, ``.`` or ``-``
    made ``_``, trailing ``_`` dropped (``<lambda>`` gives ``jit__lambda``)."""
    return re.sub(r"[^\w.-]", "_", f"jit({name})").rstrip("_")
