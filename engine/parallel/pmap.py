"""``pmap``: run a function once per device, in the device processes, with collectives between
them.

``pmap(f)(x)`` traces ``f`` at per-device shapes to a closed jaxpr and binds the call primitive
``pmap_p`` (params: the jaxpr, ``axis_name``, ``axis_size``, ``in_axes``, ``out_axes``, devices).
Like ``jit_p``, its rules transform the inner jaxpr, so ``grad``, ``vmap`` and ``jit`` of a pmapped
function stay pmapped and their work (the backward pass included) runs on the devices. Executing
``pmap_p`` ships the program (pickled once, cached per device by hash), places the argument shards
in device memory and collects sharded results that stay there until read.

A ``pmap`` traced inside another becomes a ``pmap_p`` equation of the outer program; the devices
form a mesh (outer x inner) and each group of devices runs the inner map, gathering its outputs.

This module is the public wrapper (``pmap``, ``PmapFunction``); the primitive, its execution and
its rules are in ``pmap_primitive``.
"""

from __future__ import annotations

import functools
import time
from typing import Callable

import numpy as np

from .. import core, monitoring
from .. import random_keys as rk
from ..core import Array, ShapedArray, Tracer
from ..lax import api as lax_api
from ..random_primitives import random_unwrap, random_wrap
from ..staging import displaying, note_staged_pmap
from ..pytree.prefix import prefix_error
from ..tree_util import broadcast_prefix, tree_flatten, tree_leaves, tree_map, tree_unflatten
from . import topology as _devices
from .sharded import ShardedArray
from .pmap_primitive import AnonymousAxis as AnonymousAxis
from .pmap_primitive import _bind, _drop_axis, _run_on_devices, _shown, _trace_body
from .pmap_primitive import _emit as _emit
from .pmap_primitive import _program as _program
from .pmap_primitive import _programs as _programs
from .pmap_primitive import pmap_p as pmap_p

# ---------------------------------------------------------------------------------------------
# The public API.


def _normalize_axis(ax, ndim, what):
    if ax is None:
        return None
    if not isinstance(ax, (int, np.integer)):
        raise TypeError(f"pmap {what} must be an int, None, or a tree of them, got {ax!r}")
    return int(ax) % ndim if ndim else int(ax)


def _transformed_under(main, dyn) -> bool:
    """``main`` is the staging trace ``dyn`` itself or a jvp/partial-eval/batch trace above it."""
    if main is dyn:
        return True
    from .. import ad, batching

    return main.level > dyn.level and issubclass(
        main.trace_type, (ad.JVPTrace, ad.PartialEvalTrace, batching.BatchTrace)
    )


class PmapFunction:
    """The callable that ``pmap`` returns; caches one traced program per input signature."""

    def __init__(self, fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices):
        self.fun = fun
        functools.update_wrapper(self, fun, updated=())
        self.name = getattr(fun, "__name__", "fun")
        self.axis_name = AnonymousAxis() if axis_name is None else axis_name
        self.in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
        self.out_axes = out_axes
        statics = static_broadcasted_argnums
        self.static_argnums = (statics,) if isinstance(statics, int) else tuple(statics or ())
        self.devices = (
            None
            if devices is None
            else tuple(d.id if isinstance(d, _devices.Device) else int(d) for d in devices)
        )
        self._cache: dict = {}
        self._axes_cache: dict = {}  # (argument tree, static positions) -> flat in_axes
        self._shown_cache: dict = {}  # signature -> (jit of its shard_map form, its output tree)
        # Warm calls: positional arrays only, run eagerly. Keyed by each argument's type and aval,
        # it skips flattening and re-validating what an earlier call with the same avals checked.
        self._warm: dict = {}

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"<pmap({self.name})>"

    def _flat_axes(self, dyn_args, kwargs):
        in_axes = self.in_axes
        try:
            if in_axes is None or isinstance(in_axes, (int, np.integer)):
                in_axes = (in_axes,) * len(dyn_args)
            elif not isinstance(in_axes, tuple) or len(in_axes) != len(dyn_args):
                raise ValueError  # (a container is a prefix of the arguments' tuple, as in JAX)
            axes = broadcast_prefix(in_axes, tuple(dyn_args), is_leaf=lambda x: x is None)
        except ValueError:
            raise _in_axes_error(self.in_axes, dyn_args, kwargs) from None
        return list(axes) + [0] * len(tree_flatten(kwargs)[0])

    def __call__(self, *args, **kwargs):
        if self._warm and not kwargs and core._state.dynamic is None and not core.tracing_active():
            warm = self._warm.get(tuple(map(_warm_signature, args)))
            if warm is not None and not monitoring.listening():
                closed, out_tree, flat_axes, out_axes, size = warm
                outs = _run_on_devices(
                    args, closed, self.name, self.axis_name, size, flat_axes, out_axes, self.devices
                )
                return tree_unflatten(out_tree, outs)
        nargs = len(args)
        static_nums = {i % nargs for i in self.static_argnums if -nargs <= i < nargs}
        statics = tuple((i, args[i]) for i in sorted(static_nums))
        for i, v in statics:
            try:
                hash(v)
            except TypeError:
                raise ValueError(  # (JAX's words)
                    "Non-hashable static arguments are not supported, as this can lead to unexpected "
                    f"cache-misses. Static argument (index {i}) of type {type(v)} for function "
                    f"{self.name} is non-hashable."
                ) from None
        dyn_args = [a for i, a in enumerate(args) if i not in static_nums]
        if isinstance(self.in_axes, tuple) and static_nums and len(self.in_axes) == nargs:
            in_axes_spec = tuple(a for i, a in enumerate(self.in_axes) if i not in static_nums)
        else:
            in_axes_spec = self.in_axes
        leaves, in_tree = tree_flatten((tuple(dyn_args), kwargs))
        # Typed PRNG keys cross to the devices as their uint32 data (wrapped again inside).
        key_in = tuple(rk.is_typed(x) for x in leaves)
        if any(key_in):
            leaves = [random_unwrap(x) if k else x for x, k in zip(leaves, key_in)]
        axes_key = (in_tree, tuple(sorted(static_nums)))
        axes = self._axes_cache.get(axes_key)
        if axes is None:
            saved, self.in_axes = self.in_axes, in_axes_spec
            try:
                axes = self._flat_axes(dyn_args, kwargs)
            finally:
                self.in_axes = saved
            self._axes_cache[axes_key] = axes
        if any(key_in):  # (a negative axis counts from the end of the key shape, before the data axis)
            axes = [a - 1 if k and a is not None and a < 0 else a for a, k in zip(axes, key_in)]
        avals, flat_axes, size = self._check_args(leaves, axes, dyn_args, in_axes_spec)
        if core._state.dynamic is not None:
            note_staged_pmap()
        if self._stages_as_jax(leaves, flat_axes):
            return self._staged_as_shard_map(statics, nargs, in_tree, leaves, flat_axes, key_in, size)
        key = (statics, in_tree, tuple(flat_axes), tuple(avals), key_in, core.x64_enabled[0])  # (as jit's)
        entry = self._cache.get(key)
        listening = monitoring.listening()
        if entry is None:
            t0 = time.perf_counter()
            entry = self._trace(statics, nargs, in_tree, flat_axes, avals, size, key_in)
            if not entry[2]:
                self._cache[key] = entry
            if listening:
                monitoring.emit(
                    "pmap_trace",
                    name=self.name,
                    jaxpr=entry[0],
                    cache="miss",
                    seconds=time.perf_counter() - t0,
                    fun=self.fun,
                )
        elif listening:
            monitoring.emit(
                "pmap_trace", name=self.name, jaxpr=entry[0], cache="hit", seconds=0.0, fun=self.fun
            )
        closed, out_tree, hoisted, out_axes, key_out = entry
        if not hoisted and not core.tracing_active() and not any(isinstance(x, Tracer) for x in leaves):
            # Eager: straight to the devices (binding would convert device arrays to numpy first).
            outs = _run_on_devices(
                leaves, closed, self.name, self.axis_name, size, tuple(flat_axes), out_axes, self.devices
            )
            if (
                not kwargs
                and not statics
                and not any(key_in)
                and not any(key_out)
                and len(leaves) == nargs
                and core._state.dynamic is None
            ):
                signature = tuple(map(_warm_signature, args))
                if None not in signature:
                    self._warm[signature] = (closed, out_tree, tuple(flat_axes), out_axes, size)
        else:
            outs = _bind(
                hoisted,
                leaves,
                flat_axes,
                out_axes,
                closed,
                name=self.name,
                axis_name=self.axis_name,
                axis_size=size,
                devices=self.devices,
            )
        if any(key_out):
            outs = [random_wrap(o) if k else o for o, k in zip(outs, key_out)]
        return tree_unflatten(out_tree, outs)

    def _stages_as_jax(self, leaves, flat_axes) -> bool:
        """Whether this call is staged into a jaxpr made to be shown (make_jaxpr, the page's stages),
        directly or under jvp/grad/vmap (shard_map has their rules), with axes JAX's ``jit(shard_map)`` form expresses: then it is staged in that form."""
        dyn = core._state.dynamic
        return (
            dyn is not None
            and displaying()
            and not getattr(_shown, "depth", 0)
            and _transformed_under(core.find_top_trace(leaves).main, dyn)
            and self.devices is None
            and _non_negative(self.in_axes)
            and _non_negative(self.out_axes)
            and isinstance(self.axis_name, (str, AnonymousAxis))
        )

    def _staged_as_shard_map(self, statics, nargs, in_tree, leaves, flat_axes, key_in, size):
        """JAX 0.10.2's pmap: ``jit[name=_fun]`` around a ``shard_map`` over a 1-D mesh of the first
        ``size`` devices, whose body squeezes each device's block and expands each result. The
        shard_map runs its body on the same device processes (``spmd._shard_map_impl``)."""
        # (JAX caches the jitted shard_map per signature: calls of one pmap share its jaxpr)
        key = (statics, nargs, in_tree, tuple(flat_axes), key_in, size, core.x64_enabled[0])
        cached = self._shown_cache.get(key)
        if cached is None:
            cached = self._shown_cache[key] = self._shown_jit(
                statics, nargs, in_tree, flat_axes, key_in, size
            )
        jitted, out_store = cached
        _shown.depth = getattr(_shown, "depth", 0) + 1
        try:
            outs = tree_flatten(jitted(*leaves))[0]
        finally:
            _shown.depth -= 1
        out_tree, key_out = out_store
        outs = [random_wrap(o) if k else o for o, k in zip(outs, key_out)]
        return tree_unflatten(out_tree, outs)

    def _shown_jit(self, statics, nargs, in_tree, flat_axes, key_in, size):
        """The ``jit(_fun)`` of the shard_map, and the list its trace stores the output tree in."""
        from ..jit import jit
        from ..sharding import Mesh, PartitionSpec
        from .spmd import shard_map

        axis = "_internal_pmap_axis_name" if isinstance(self.axis_name, AnonymousAxis) else self.axis_name
        mesh = Mesh(np.array(_devices.devices()[:size]), (axis,))
        static_pos = dict(statics)
        out_store: list = []

        def body(*blocks):
            xs = [lax_api.squeeze(b, (ax,)) if ax is not None else b for b, ax in zip(blocks, flat_axes)]
            xs = [random_wrap(x) if k else x for x, k in zip(xs, key_in)]
            dyn, kwargs = tree_unflatten(in_tree, xs)
            it = iter(dyn)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(nargs)]
            out_leaves, out_tree = tree_flatten(self.fun(*full, **kwargs))
            key_out = tuple(rk.is_typed(o) for o in out_leaves)
            out_store[:] = [out_tree, key_out]
            outs = [random_unwrap(o) if k else o for o, k in zip(out_leaves, key_out)]
            out_axes = broadcast_prefix(self.out_axes, tree_unflatten(out_tree, outs))
            outs = [o if ax is None else lax_api.expand_dims(o, (ax,)) for o, ax in zip(outs, out_axes)]
            return tree_unflatten(out_tree, outs)

        def spec(ax):  # (JAX's _axes_to_pspec: the axis name at the mapped dimension)
            return PartitionSpec() if ax is None else PartitionSpec(*[None] * ax, axis)

        out_specs = tree_map(spec, self.out_axes, is_leaf=lambda a: a is None)
        in_specs = tuple(map(spec, flat_axes))
        mapped = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)

        def _fun(*xs):
            return mapped(*xs)

        return jit(_fun), out_store

    def _check_args(self, leaves, axes, dyn_args, in_axes_spec):
        avals, flat_axes, sizes = [], [], []
        for i, (x, ax) in enumerate(zip(leaves, axes)):
            aval = (
                ShapedArray(x.shape, x.dtype, x.weak_type)
                if isinstance(x, ShardedArray)
                else core.get_aval(x)
            )
            if ax is not None:
                if not -aval.ndim <= ax < aval.ndim:
                    raise ValueError(_rank_error(ax, aval, i, len(leaves), dyn_args, in_axes_spec))
                ax = ax % aval.ndim
                sizes.append((aval.shape[ax], ax, aval))
            flat_axes.append(ax)
            avals.append(_drop_axis(aval, ax))
        if not sizes:
            raise ValueError(
                "pmap requires at least one argument with a mapped axis (in_axes other than None)"
            )
        size = sizes[0][0]
        if any(s != size for s, _, _ in sizes):
            lines = "\n".join(
                f"* one axis had size {s}: axis {ax} of an argument of type {a.str_short()}"
                for s, ax, a in sizes
            )
            raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped:\n{lines}")
        available = len(self.devices) if self.devices is not None else _devices.device_count()
        if self.devices is not None and size != available:
            raise ValueError(
                f"Leading axis size of input to pmapped function must equal the number "
                f"of local devices passed to pmap. Got axis_size={size}, "
                f"num_local_devices={available}."
            )
        if size > available:
            raise ValueError(
                f"compiling computation that requires {size} logical devices, but only "
                f"{available} XLA devices are available (num_replicas={size}). The mapped "
                f"axis of a pmap cannot be larger than the device count; set "
                f"XLA_FLAGS=--xla_force_host_platform_device_count=N for more."
            )
        return avals, flat_axes, size

    def _trace(self, statics, nargs, in_tree, flat_axes, avals, size, key_in):
        out_store = []
        static_pos = dict(statics)

        def flat(*xs):
            xs = [random_wrap(x) if k else x for x, k in zip(xs, key_in)]
            dyn, kwargs = tree_unflatten(in_tree, xs)
            it = iter(dyn)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(nargs)]
            out = self.fun(*full, **kwargs)
            out_leaves, out_tree = tree_flatten(out)
            key_out = tuple(rk.is_typed(o) for o in out_leaves)
            out_store[:] = [out_tree, key_out]
            return [random_unwrap(o) if k else o for o, k in zip(out_leaves, key_out)]

        closed, hoisted = _trace_body(flat, avals, self.axis_name, size)
        out_tree, key_out = out_store
        try:
            out_axes = broadcast_prefix(
                self.out_axes,
                tree_unflatten(out_tree, [0] * len(closed.out_avals)),
                is_leaf=lambda x: x is None,
            )
        except ValueError as e:  # (JAX's pmap lets broadcast_prefix's own error through)
            raise e from None
        out_axes = tuple(
            None if o is None else _normalize_axis(o, a.ndim + 1, "out_axes")
            for o, a in zip(out_axes, closed.out_avals)
        )
        return closed, out_tree, hoisted, out_axes, key_out


def _warm_signature(x):
    """What a warm call must match in an argument: its type and aval (None: take the slow path)."""
    t = type(x)
    if t is Array or t is ShardedArray:
        return t, x.aval
    if t is np.ndarray:
        return t, x.shape, x.dtype
    return None


def _in_axes_error(in_axes, dyn_args, kwargs) -> ValueError:
    """JAX's: the first mismatch of ``(in_axes, 0)`` against ``(args, kwargs)``, explained."""
    error = prefix_error("pmap in_axes", (in_axes, 0), (tuple(dyn_args), kwargs), lambda x: x is None)
    msg = (error.args[0] if error else "pmap in_axes does not match the arguments") + (
        "\n\nThe 'full pytree' here is the tuple of arguments passed positionally to the pmapped function, "
        "and the value of `in_axes` must be a tree prefix of that tuple. But it was not a prefix."
    )
    if kwargs:
        msg += (
            "\n\nWhen some arguments are passed by keyword to the pmapped function, they are not included "
            "in the comparison to `in_axes`. Instead, each argument passed by keyword is mapped over its "
            "leading axis. See the description of `in_axes` in the `pmap` docstring: "
            "https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html#jax.pmap"
        )
    return ValueError(
        msg + "\n\nCheck that the value of the `in_axes` argument to `pmap` is a tree prefix of the tuple "
        "of arguments passed positionally to the pmapped function."
    )


def _rank_error(ax, aval, i, n_leaves, dyn_args, in_axes_spec) -> str:
    msg = (
        f"pmap was requested to map its argument along axis {ax}, which implies that its rank "
        f"should be at least {ax + 1 if ax >= 0 else -ax}, but is only {aval.ndim} (its shape is "
        f"{aval.shape})."
    )
    if len(dyn_args) > 1 and n_leaves == len(dyn_args):
        spec = ", ".join("None" if j == i else "0" for j in range(len(dyn_args)))
        msg += f" To broadcast argument {i} to every device instead of mapping it, pass in_axes=({spec})."
    else:
        msg += " Pass in_axes=None for arguments that should be broadcast, e.g. in_axes=(0, None)."
    return msg


def pmap(
    fun: Callable | None = None,
    axis_name=None,
    *,
    in_axes=0,
    out_axes=0,
    static_broadcasted_argnums=(),
    devices=None,
    backend=None,
    axis_size=None,
    donate_argnums=(),
    global_arg_shapes=None,
):
    """Map ``fun`` over a leading axis of its arguments, one slice per device, in the device
    processes; collectives (``lax.psum`` ...) over ``axis_name`` act across the devices.

    >>> pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.))
    Array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)
    """
    if fun is None:
        return lambda f: pmap(
            f,
            axis_name,
            in_axes=in_axes,
            out_axes=out_axes,
            static_broadcasted_argnums=static_broadcasted_argnums,
            devices=devices,
        )
    if not callable(fun):
        raise TypeError(f"pmap: expected a callable, got {fun!r}")
    return PmapFunction(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices)


def _non_negative(axes) -> bool:
    """Whether every axis of an in_axes/out_axes tree is None or a non-negative int (the axes JAX's
    shard_map form of pmap places as written)."""
    return all(isinstance(a, int) and a >= 0 for a in tree_leaves(axes))
