"""``Exported.call``: the ``call_exported`` primitive, and reverse-mode AD through the exported VJP.

One primitive per call site, as JAX has it: abstract evaluation checks the arguments against the
exported types (JAX's errors) and gives the exported result types; the impl runs the program.
There is no JVP or batching rule (JAX has none either): ``call`` wraps the primitive in a
``custom_vjp`` whose backward pass calls ``exported.vjp()``, so ``grad`` works up to the VJP
orders available and ``jvp``/``vmap`` raise JAX's errors.
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from .. import core
from ..backends.rows import INTERPRETER_ONLY
from ..core import Primitive, ShapedArray
from ..pytree.equality import equality_errors
from ..pytree.keys import SequenceKey
from ..tree_util import keystr, tree_flatten, tree_flatten_with_path
from . import shape_poly_eval
from ._export import DisabledSafetyCheck, Exported

call_exported_p = Primitive("call_exported", multiple_results=True)
call_exported_p.takes_arrays = True  # (sharded arguments reach the impl as they are)
INTERPRETER_ONLY[call_exported_p.name] = "runs the exported program (its own jit) from the interpreter"


def _arg_name(exported: Exported, i: int) -> str:
    """``args[1]``, ``kwargs['y']``: the i-th flat argument as the exported signature names it."""
    paths = tree_flatten_with_path(exported.in_tree.unflatten([0] * exported.in_tree.num_leaves))[0]
    path = paths[i][0]
    return ("args" if path[0].idx == 0 else "kwargs") + keystr(path[1:])


def _check_args(exported: Exported, avals) -> None:
    """JAX's checks of a call's argument types against the exported ones."""
    for i, (want, got) in enumerate(zip(exported.in_avals, avals)):
        if not isinstance(got, ShapedArray):
            raise ValueError(f"Expected ShapedArray but got: {got}")
        if len(want.shape) != len(got.shape):
            raise ValueError(
                f"Rank mismatch for {_arg_name(exported, i)}: expected {want.shape} and called with {got.shape}"
            )
        if want.dtype != got.dtype:
            raise ValueError(
                f"Dtype mismatch for {_arg_name(exported, i)}: expected {want.dtype} "
                f"and called with {got.dtype}"
            )
        for d, (a, b) in enumerate(zip(want.shape, got.shape)):
            if a != b and not shape_poly_eval.is_symbolic_dim(a):
                raise ValueError(
                    f"Shape mismatch for {_arg_name(exported, i)}.shape[{d}] (expected same constant): "
                    f"expected {want.shape} and called with {got.shape}"
                )


def _dim_values(exported: Exported, avals) -> dict[str, int] | None:
    """The values of the exported symbolic dimensions for arguments of ``avals`` (JAX's errors when
    the shapes do not fit), or None when the exported types have none."""
    if not shape_poly_eval.is_polymorphic(exported.in_avals):
        return None
    names = [_arg_name(exported, i) for i in range(len(avals))]
    return shape_poly_eval.solve_dim_vars(exported.in_avals, [a.shape for a in avals], names)


# program -> {dimension values: the program specialized to them} (each compiled once)
_specialized: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _program_for(exported: Exported, env: dict[str, int] | None):
    if env is None:
        return exported._program
    cache = _specialized.setdefault(exported._program, {})
    key = tuple(sorted(env.items()))
    if key not in cache:
        cache[key] = shape_poly_eval.specialize(exported._program, env)
    return cache[key]


@call_exported_p.def_abstract_eval
def _call_exported_abstract_eval(*avals, exported: Exported):
    _check_args(exported, avals)
    env = _dim_values(exported, avals)
    if env is None:
        return list(exported.out_avals)
    return [shape_poly_eval.evaluate_aval(a, env) for a in exported.out_avals]


def _devices_of(args) -> int:
    """How many devices the call runs on: the largest mesh its arguments are sharded over."""
    sizes = [getattr(getattr(getattr(a, "sharding", None), "mesh", None), "size", 1) for a in args]
    return max([1, *sizes])


def _laid_out(args, exported: Exported) -> list:
    """The arguments laid out by the exported input shardings over the devices the call runs on
    (those of the arguments' mesh, in its order), as JAX reshards them; the mesh's shape may
    differ from the exported one, its size may not."""
    from ..parallel import device_put
    from ..sharding import Mesh, NamedSharding

    devices = next(
        (
            list(m.devices.flat)
            for a in args
            if isinstance(m := getattr(getattr(a, "sharding", None), "mesh", None), Mesh)
            and m.size == exported.nr_devices
        ),
        None,
    )
    if exported.nr_devices == 1 or devices is None:
        return list(args)
    out = []
    for a, s in zip(args, exported._in_named_shardings):
        if s is not None:
            am = s.mesh
            mesh = Mesh(np.array(devices, dtype=object).reshape(am.axis_sizes), am.axis_names, am.axis_types)
            a = device_put(a, NamedSharding(mesh, s.spec))
        out.append(a)
    return out


@call_exported_p.def_impl
def _call_exported_impl(*args, exported: Exported):
    from ..jit_primitive import bind_call

    avals = [core.get_aval(a) for a in args]
    _check_args(exported, avals)
    env = _dim_values(exported, avals)
    if (
        "cpu" not in exported.platforms
        and DisabledSafetyCheck.platform() not in exported.disabled_safety_checks
    ):
        raise ValueError(
            f"Function '{exported.fun_name}' was exported for platforms '{exported.platforms}' "
            f"but it is used on '('cpu',)'."
        )
    n = _devices_of(args)
    if n != exported.nr_devices and exported.nr_devices != 1:
        raise ValueError(
            f"Function {exported.fun_name} was exported for {exported.nr_devices} devices and is called "
            f"in a context with {n} devices, which is not allowed."
        )
    # (the program's jit name reaches generated code: letters, digits and _ only)
    name = re.sub(r"\W", "_", exported.fun_name)
    outs = bind_call(_program_for(exported, env), _laid_out(args, exported), name)
    # (the results have the exported types: a deserialized function's are never weak)
    return [
        core.array_of(o._value, a.weak_type) if type(o) is core.Array and o.weak_type != a.weak_type else o
        for o, a in zip(outs, exported.out_avals)
    ]


def _path_str(path: tuple) -> str:
    """A key path into ``(args, kwargs)`` as JAX's message writes it: ``args[0]['a']``."""
    return ("args" if path[0] == SequenceKey(0) else "kwargs") + keystr(path[1:])


def call_exported(exported: Exported):
    """A function calling ``exported`` with its argument structure (``Exported.call``)."""
    from ..custom_derivatives import custom_vjp

    if not isinstance(exported, Exported):
        raise ValueError(f"The exported argument must be an export.Exported. Found {exported}.")

    @custom_vjp
    def f_flat(*args_flat):
        return call_exported_p.bind(*args_flat, exported=exported)

    def f_flat_vjp_fwd(*args_flat):
        return f_flat(*args_flat), args_flat

    def f_flat_vjp_bwd(args_flat, cts):
        exp_vjp = exported.vjp()
        expected = exp_vjp.in_avals[len(args_flat) :]
        # (a zero cotangent of an integer output is float0 for the VJP program)
        fixed = [
            np.zeros(a.shape, core.float0) if a.dtype == core.float0 else ct for ct, a in zip(cts, expected)
        ]
        return tuple(call_exported(exp_vjp)(*args_flat, *fixed))

    f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)

    def f_imported(*args, **kwargs):
        args_flat, in_tree = tree_flatten((args, kwargs))
        if in_tree != exported.in_tree:
            raise ValueError(
                "The invocation args and kwargs must have the same pytree structure as when the function "
                f"'{exported.fun_name}' was exported, but they have the following structural differences:\n"
                + "\n".join(
                    f"   - {_path_str(path)} is a {thing1} in the invocation and a {thing2} when exported, "
                    f"so {why}.\n"
                    for path, thing1, thing2, why in equality_errors(in_tree, exported.in_tree)
                )
            )
        return exported.out_tree.unflatten(f_flat(*args_flat))

    return f_imported
