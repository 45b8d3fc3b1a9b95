"""``jnp.ufunc``: numpy's universal-function objects, as JAX 0.10.2 has them (``jnp.add.reduce``,
``.accumulate``, ``.at``, ``.reduceat``, ``.outer``, ``nin``/``nout``/``identity``), and
``jnp.frompyfunc`` to make one from a scalar function.

The built-in ones (``add``, ``multiply``, ``maximum``, ...) call the jnp function itself: each is
the only instance of its own subclass whose ``__call__`` is that function, so ``jnp.add(x, y)``
costs what calling the function costs. Their ``reduce``/``accumulate``/``at`` are the jnp
reductions where JAX uses them (``jnp.add.reduce`` is ``jnp.sum`` over axis 0), else the generic
loops JAX writes (``fori_loop``/``scan`` over the function); each method is staged as a ``jit``
named after it, as JAX's methods are.
"""

from __future__ import annotations

import inspect

import math
import operator
from typing import Any, Callable

import numpy as np

from .. import api, core, lax
from ..core import Array
from ._promote import as_operand, canonicalize_axes, canonicalize_axis, check_arraylike, convert
from ._staged import staged_as_jit
from ..narrow_dtypes import kind as dtype_kind

_AT_INPLACE = (
    "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
    "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; e.g.\n"
    ">>> arr = jnp.add.at(arr, ind, val, inplace=False)\n"
)
_PROPS = ("func", "nin", "nout", "nargs", "identity", "call", "reduce", "accumulate", "at", "reduceat")


class ufunc:
    """A function applied elementwise to broadcast arrays, with numpy's ufunc methods.

    >>> jnp.add.nin, jnp.add.identity, jnp.add.reduce(jnp.arange(4))
    (2, 0, Array(6, dtype=int32))
    >>> jnp.multiply.outer(jnp.arange(1, 3), jnp.arange(3))
    Array([[0, 1, 2],
           [0, 2, 4]], dtype=int32)
    """

    def __init__(
        self,
        func: Callable[..., Any],
        /,
        nin: int,
        nout: int,
        *,
        name: str | None = None,
        nargs: int | None = None,
        identity: Any = None,
        call: Callable[..., Any] | None = None,
        reduce: Callable[..., Any] | None = None,
        accumulate: Callable[..., Any] | None = None,
        at: Callable[..., Any] | None = None,
        reduceat: Callable[..., Any] | None = None,
    ):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        # read-only, so that a ufunc stays a valid static argument (hash and equality use them)
        self._props = dict(
            func=func,
            nin=operator.index(nin),
            nout=operator.index(nout),
            nargs=operator.index(nargs or nin),
            identity=identity,
            call=call,
            reduce=reduce,
            accumulate=accumulate,
            at=at,
            reduceat=reduceat,
        )

    _func = property(lambda self: self._props["func"])
    nin = property(lambda self: self._props["nin"])
    nout = property(lambda self: self._props["nout"])
    nargs = property(lambda self: self._props["nargs"])
    identity = property(lambda self: self._props["identity"])

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        call = self._props["call"]
        return call(*args) if call is not None else _call_vectorized(args, self)

    def _binary_only(self, method: str):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
        """Reduce ``a`` along ``axis`` (default 0) with the binary function.

        >>> jnp.bitwise_or.reduce(jnp.array([[1, 2, 3], [4, 5, 6]]), axis=1)
        Array([3, 7], dtype=int32)
        """
        _hashable(axis, dtype, out, keepdims)
        return _reduce(self, a, axis, dtype, out, keepdims, initial, where)

    def accumulate(self, a, axis: int = 0, dtype=None, out=None):
        """The running reduction along ``axis``.

        >>> jnp.multiply.accumulate(jnp.array([1, 2, 3, 4]))
        Array([ 1,  2,  6, 24], dtype=int32)
        """
        _hashable(axis, dtype)
        return _accumulate(self, a, axis, dtype, out)

    def at(self, a, indices, b=None, /, *, inplace: bool = True):
        """``a`` with the function applied at ``indices`` (repeated indices apply repeatedly);
        JAX arrays are immutable, so ``inplace=False`` is required.

        >>> jnp.add.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1.0, inplace=False)
        Array([2., 0., 1.], dtype=float32)
        """
        if inplace:
            raise NotImplementedError(_AT_INPLACE)
        if any(isinstance(i, slice) for i in (indices if isinstance(indices, tuple) else (indices,))):
            # (JAX's at is jitted with indices an argument, which a slice cannot be)
            raise TypeError(
                f"Error interpreting argument to {self}.at as an abstract array. The problematic value "
                "is of type <class 'slice'> and was passed to the function at path indices."
            )
        return _at(a, indices, () if b is None else (b,), self)

    def reduceat(self, a, indices, axis: int = 0, dtype=None, out=None):
        """Reductions of the segments of ``a`` that start at each of ``indices`` along ``axis``.

        >>> jnp.add.reduceat(jnp.arange(1, 9), jnp.array([0, 2, 5]))
        Array([ 3, 12, 21], dtype=int32)
        """
        _hashable(axis, dtype)
        return _reduceat(self, a, indices, axis, dtype, out)

    def outer(self, A, B, /):
        """The function applied to every pair of elements: shape ``(*A.shape, *B.shape)``.

        >>> jnp.add.outer(jnp.ones((1, 3)), jnp.ones(2)).shape
        (1, 3, 2)
        """
        return _outer(self, A, B)


def _hashable(*static):
    """JAX's methods take these as static arguments of a jit, so an array there is refused (even
    eagerly, where the engine does not stage)."""
    for v in static:
        try:
            hash(v)
        except TypeError as e:
            raise ValueError(
                "Non-hashable static arguments are not supported. An error occurred while trying to hash "
                f"an object of type {type(v)}, {v}. The error was:\n{type(e).__name__}: {e}\n"
            ) from None


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> ufunc:
    """A ``jnp.ufunc`` from a function of ``nin`` scalars returning ``nout`` values.

    >>> import operator
    >>> add = frompyfunc(operator.add, nin=2, nout=1, identity=0)
    >>> add.accumulate(jnp.arange(4))
    Array([0, 1, 3, 6], dtype=int32)
    """
    return ufunc(func, nin, nout, identity=identity)


def builtin(func: Callable[..., Any], nin: int, *, identity=None, reduce=None, accumulate=None, at=None):
    """The ufunc of a jnp function: calling it is calling ``func``, past a check that ``out`` and
    ``where`` are not given (JAX's NotImplementedError; any other keyword is a TypeError). The check
    is the one frame between ``jnp.add(x, y)`` and the function (~0.3us of an eager add's ~2us)."""

    def call(self, *args, out=None, where=None):
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return func(*args)

    call.__qualname__ = "ufunc.__call__"  # (named so in the TypeError of an unknown keyword)
    call.__wrapped__ = func  # type: ignore[attr-defined]
    # (what inspect reports, as for JAX's ufuncs: jit names the arguments args[0], args[1])
    call.__signature__ = inspect.signature(ufunc.__call__)  # type: ignore[attr-defined]
    cls = type("ufunc", (ufunc,), {"__call__": call, "__module__": __name__})
    return cls(func, nin, 1, identity=identity, call=func, reduce=reduce, accumulate=accumulate, at=at)


# --- the methods: staged as jit, ``self`` static, as JAX's ----------------------------------------


@staged_as_jit(name="_call_vectorized", static_argnames=("uf",))
def _call_vectorized(args, uf):  # (uf last: the arguments stay positional, as in JAX's jaxpr)
    from ._creation import vectorize

    return vectorize(uf._func)(*args)


@staged_as_jit(name="reduce", static_argnames=("uf", "axis", "dtype", "out", "keepdims"))
def _reduce(uf, a, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=None):
    check_arraylike(f"{uf.__name__}.reduce", a)
    uf._binary_only("reduce")
    if out is not None:
        raise NotImplementedError(f"out argument of {uf.__name__}.reduce()")
    if initial is not None:
        check_arraylike(f"{uf.__name__}.reduce", initial)
    if where is not None:
        check_arraylike(f"{uf.__name__}.reduce", where)
        if uf.identity is None and initial is None:
            raise ValueError(
                f"reduction operation {uf.__name__!r} does not have an identity, "
                "so to use a where mask one has to specify 'initial'."
            )
        if core.get_aval(where).dtype != np.bool_:
            raise ValueError(f"where argument must have dtype=bool; got dtype={core.get_aval(where).dtype}")
    reduce = uf._props["reduce"] or _reduce_by_loop
    kw = dict(axis=axis, dtype=dtype, keepdims=keepdims, initial=initial, where=where)
    return reduce(a, **kw) if uf._props["reduce"] else reduce(uf, a, **kw)


def _one_dtype(uf, *xs):
    """The dtype ``uf`` gives on ones of the operands' dtypes."""
    ones = [Array(np.ones((), core.get_aval(x).dtype)) for x in xs]
    return api.eval_shape(uf._func, *ones).dtype


def _reduce_by_loop(uf, arr, axis=0, dtype=None, keepdims=False, initial=None, where=None):
    from ._shape import broadcast_to, moveaxis
    from ._selection import where as where_

    arr = as_operand(arr)
    initial = uf.identity if initial is None else initial
    dtype = _one_dtype(uf, arr, arr) if dtype is None else dtype
    if where is not None:
        where = broadcast_to(where, arr.shape)
    if isinstance(axis, tuple):
        raise NotImplementedError("tuple of axes")
    if axis is None:
        final_shape = (1,) * arr.ndim if keepdims else ()
        arr, axis = lax.reshape(arr, (arr.size,)), 0
        where = None if where is None else lax.reshape(where, (where.size,))
    else:
        axis = canonicalize_axis(axis, arr.ndim)
        final_shape = (*arr.shape[:axis], *((1,) if keepdims else ()), *arr.shape[axis + 1 :])
    if axis != 0:
        arr = moveaxis(arr, axis, 0)
        where = None if where is None else moveaxis(where, axis, 0)
    if arr.shape[0] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {uf.__name__} which has no identity")
        return lax.full(final_shape, initial, dtype)

    def body(i, acc):
        new = uf(acc, convert(arr[i], dtype))
        return new if where is None else where_(where[i], new, acc)

    start, first = (1, arr[0]) if initial is None else (0, initial)
    first = broadcast_to(convert(as_operand(first), dtype), arr.shape[1:])
    result = lax.fori_loop(start, arr.shape[0], body, first)
    return lax.reshape(result, final_shape) if keepdims else result


@staged_as_jit(name="accumulate", static_argnames=("uf", "axis", "dtype"))
def _accumulate(uf, a, axis=0, dtype=None, out=None):
    uf._binary_only("accumulate")
    if out is not None:
        raise NotImplementedError(f"out argument of {uf.__name__}.accumulate()")
    accumulate = uf._props["accumulate"]
    if accumulate is not None:
        return accumulate(a, axis=axis, dtype=dtype)
    from ._selection import _where
    from ._shape import moveaxis

    check_arraylike(f"{uf.__name__}.accumulate", a)
    arr = as_operand(a)
    dtype = _one_dtype(uf, arr, arr) if dtype is None else dtype
    if axis is None or isinstance(axis, tuple):
        raise ValueError("accumulate does not allow multiple axes")
    axis = canonicalize_axis(axis, arr.ndim)
    if arr.size == 0:
        return lax.full(arr.shape, 0, dtype)
    arr = moveaxis(arr, axis, 0)

    def step(carry, _):
        i, acc = carry
        y = _where(i == 0, convert(arr[0], dtype), uf(convert(acc, dtype), convert(arr[i], dtype)))
        return (i + 1, y), y

    _, result = lax.scan(step, (0, convert(arr[0], dtype)), None, length=arr.shape[0])
    return moveaxis(result, 0, axis)


def _index_tuple(indices):
    if isinstance(indices, tuple):
        return indices
    if isinstance(indices, (list, range)):  # (JAX refuses every non-tuple sequence index)
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            "`arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 "
            "for more information."
        )
    return (indices,)


@staged_as_jit(name="at", static_argnames=("uf",))
def _at(a, indices, args, uf):
    at = uf._props["at"]
    if at is not None:
        return at(as_operand(a), indices, *args)
    from ._shape import broadcast_shapes_, broadcast_to

    check_arraylike(f"{uf.__name__}.at", a, *args)
    dtype = _one_dtype(uf, a, *args)
    a = convert(as_operand(a), dtype)
    args = tuple(convert(as_operand(x), dtype) for x in args)
    indices = _index_tuple(indices)
    if not indices:
        return a
    shape = broadcast_shapes_(*(np.shape(i) for i in indices))
    if not shape:
        return a.at[indices].set(uf(a.at[indices].get(), *args))
    n = math.prod(shape)
    if args:
        b = args[0]
        b = broadcast_to(b, (*shape, *b.shape[len(shape) :]))
        args = (lax.reshape(b, (n, *b.shape[len(shape) :])),)
    flat = [
        i if isinstance(i, slice) else lax.reshape(broadcast_to(as_operand(i), shape), (n,)) for i in indices
    ]

    def step(carry, _):
        k, acc = carry
        idx = tuple(i[k] for i in flat)
        acc = acc.at[idx].set(uf(acc.at[idx].get(), *(x[k] for x in args)))
        return (k + 1, acc), None

    (_, out), _ = lax.scan(step, (0, a), None, length=n)
    return out


@staged_as_jit(name="reduceat", static_argnames=("uf", "axis", "dtype"))
def _reduceat(uf, a, indices, axis=0, dtype=None, out=None):
    uf._binary_only("reduceat")
    if out is not None:
        raise NotImplementedError(f"out argument of {uf.__name__}.reduceat()")
    from ._selection import _where
    from ._shape import append
    from ._take import take

    check_arraylike(f"{uf.__name__}.reduceat", a, indices)
    a = as_operand(a)
    (indices,) = _index_tuple(indices)
    indices = as_operand(indices)
    if a.ndim == 0:
        raise ValueError(f"reduceat: a must have 1 or more dimension, got {a.shape=}")
    if indices.ndim != 1:
        raise ValueError(f"reduceat: indices must be one-dimensional, got {indices.shape=}")
    if axis is None or isinstance(axis, (tuple, list)):
        raise ValueError("reduceat requires a single integer axis.")
    axis = canonicalize_axis(axis, a.ndim)
    result = take(a, indices, axis=axis)
    # each segment's [start, end) along ``axis``, shaped to broadcast against ``result``
    bounds = lax.expand_dims(append(indices, a.shape[axis]), [d for d in range(result.ndim) if d != axis])
    start = lax.slice_in_dim(bounds, 0, bounds.shape[axis] - 1, axis=axis)
    end = lax.slice_in_dim(bounds, 1, bounds.shape[axis], axis=axis)

    def body(i, acc):
        inside = (i > start) & (i < end)
        return _where(inside, uf(acc, take(a, lax.expand_dims(i, (0,)), axis=axis)), acc)

    return lax.fori_loop(0, a.shape[axis], body, result)


@staged_as_jit(name="outer", static_argnames=("uf",))
def _outer(uf, A, B):
    uf._binary_only("outer")
    check_arraylike(f"{uf.__name__}.outer", A, B)
    A, B = as_operand(A), as_operand(B)
    flat_a, flat_b = lax.reshape(A, (A.size,)), lax.reshape(B, (B.size,))
    result = api.vmap(api.vmap(uf, (None, 0)), (0, None))(flat_a, flat_b)
    return lax.reshape(result, (*A.shape, *B.shape))


# --- the reductions JAX gives the built-in ufuncs ---------------------------------------------------


def _int_reduce(name, lax_fn, init):
    """``jnp.bitwise_and.reduce`` and the like: integer (or bool) operands only."""

    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        from ._reductions import _keep

        a = as_operand(a)
        if dtype_kind(a.dtype) not in "biu":
            raise ValueError(f"integer argument required; got dtype={a.dtype}")
        return _monoid_reduce(a, lax_fn, init, axis, dtype, keepdims, initial, where, _keep)

    reduce.__name__ = name
    return reduce


def _logical_reduce(name, lax_fn, init):
    """``jnp.logical_and.reduce`` and the like: operands as bools (complex by their real part)."""

    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        from ._reductions import _keep

        a = as_operand(a)
        if dtype_kind(a.dtype) == "c":
            a = lax.real(a)
        a = convert(a, np.dtype(np.bool_))
        return _monoid_reduce(a, lax_fn, init, axis, dtype, keepdims, initial, where, _keep)

    reduce.__name__ = name
    return reduce


def _monoid_reduce(a, lax_fn, init, axis, dtype, keepdims, initial, where, _keep):
    from ._dtypes import to_dtype

    result_dtype = a.dtype if dtype is None else core.canonical_dtype(to_dtype(dtype))
    a = convert(a, result_dtype)
    axes = canonicalize_axes(axis, a.ndim)
    fill = np.array(init).astype(result_dtype)
    if where is not None:  # (the scalar fill broadcast inside jnp.where, as JAX's _reduction)
        from ._selection import where as where_

        a = where_(where, a, np.array(fill > 0) if result_dtype == np.bool_ else fill)
    res = lax_fn(a, axes)
    combine = {lax.reduce_and: lax.bitwise_and, lax.reduce_or: lax.bitwise_or}.get(lax_fn, lax.bitwise_xor)
    if initial is not None:
        init_arr = convert(as_operand(initial), a.dtype)
        if init_arr.shape != ():
            raise ValueError(f"initial value must be a scalar. Got array of shape {init_arr.shape}")
        res = combine(init_arr, res)
    return convert(_keep(res, axes, a.ndim, keepdims), result_dtype)


def _extreme_reduce(extreme):
    def reduce(a, axis=None, dtype=None, keepdims=False, initial=None, where=None):
        a = as_operand(a)
        if dtype is not None:
            from ._dtypes import to_dtype

            a = convert(a, core.canonical_dtype(to_dtype(dtype)))
        return extreme(a, axis=axis, keepdims=keepdims, initial=initial, where=where)

    return reduce


def _logsumexp(a, axis=None, dtype=None, keepdims=False, initial=None, where=None, *, base2=False):
    """log(sum(exp(a))) over ``axis``, shifted by the (gradient-stopped) finite maximum."""
    from ._promote import promote_args_inexact
    from ._reductions import max as max_, sum as sum_
    from ._ufuncs import _logaddexp_custom_jvp

    (a,) = promote_args_inexact("logsumexp", a)
    ln2 = float(np.log(2))
    if base2:
        initial = None if initial is None else initial * ln2
        a = a * ln2
    axes = canonicalize_axes(axis, a.ndim)
    amax = max_(
        lax.real(a) if dtype_kind(a.dtype) == "c" else a,
        axis=axes,
        keepdims=keepdims,
        where=where,
        initial=-np.inf,
    )
    amax = lax.stop_gradient(lax.select(lax.is_finite(amax), amax, lax.full_like(amax, 0)))
    amax_b = amax if keepdims else lax.expand_dims(amax, axes)
    sumexp = sum_(lax.exp(lax.sub(a, convert(amax_b, a.dtype))), axis=axes, keepdims=keepdims, where=where)
    result = lax.add(lax.log(sumexp), convert(amax, sumexp.dtype))
    if initial is not None:  # (lax-level: the initial value is not promoted first)
        result = _logaddexp_custom_jvp()(as_operand(initial), result)
    return result / ln2 if base2 else result


def _scatter_at(method: str, bool_as_int: bool = True):
    """A ufunc's ``at``: ``x.at[indices].<method>(b)``; bools go through int32 and back, as JAX's."""

    def at(a, indices, b):
        if bool_as_int and a.dtype == np.bool_:
            a = convert(a, np.dtype(np.int32))
            b = convert(convert(as_operand(b), np.dtype(np.bool_)), np.dtype(np.int32))
            return convert(getattr(a.at[indices], method)(b), np.dtype(np.bool_))
        return getattr(a.at[indices], method)(b)

    return at


def builtins_of(ns: dict) -> dict:
    """The ufuncs JAX 0.10.2 makes of jnp's functions (``ns``: name -> the plain jnp function)."""
    from . import _reductions as r

    b = {
        "add": dict(identity=0, reduce=r.sum, accumulate=r.cumsum, at=_scatter_at("add")),
        "multiply": dict(identity=1, reduce=r.prod, accumulate=r.cumprod, at=_scatter_at("mul")),
        "bitwise_and": dict(identity=-1, reduce=_int_reduce("reduce_bitwise_and", lax.reduce_and, -1)),
        "bitwise_or": dict(identity=0, reduce=_int_reduce("reduce_bitwise_or", lax.reduce_or, 0)),
        "bitwise_xor": dict(identity=0, reduce=_int_reduce("reduce_bitwise_xor", lax.reduce_xor, 0)),
        "subtract": dict(at=_scatter_at("subtract", bool_as_int=False)),
        "minimum": dict(reduce=_extreme_reduce(r.min)),
        "maximum": dict(reduce=_extreme_reduce(r.max)),
        "logical_and": dict(
            identity=True, reduce=_logical_reduce("reduce_logical_and", lax.reduce_and, True)
        ),
        "logical_or": dict(identity=False, reduce=_logical_reduce("reduce_logical_or", lax.reduce_or, False)),
        "logical_xor": dict(
            identity=False, reduce=_logical_reduce("reduce_logical_xor", lax.reduce_xor, False)
        ),
        "logaddexp": dict(identity=-np.inf, reduce=_logsumexp),
        "logaddexp2": dict(identity=-np.inf, reduce=lambda a, **k: _logsumexp(a, base2=True, **k)),
    }
    out = {name: builtin(ns[name], 2, **props) for name, props in b.items()}
    out["negative"] = builtin(ns["negative"], 1)
    return out
