"""Workloads of the interactive-speed benchmark, written once for both sides: each factory takes a
JAX-like module (the engine, or the real JAX in the side venv) and returns the callable to time.
A callable may carry ``settle``: called untimed after each timed call (the engine's background
compiles finish there, so they never run into the next measurement, nor into JAX's).
"""

from __future__ import annotations

import itertools

import numpy as np


def _block(jax, out):
    # (an array's own method: the engine's tree-walking block_until_ready costs 1 us by itself)
    return out.block_until_ready() if hasattr(out, "block_until_ready") else jax.block_until_ready(out)


def _background_wait(jax):
    """The engine's "wait for background compiles", or None (JAX compiles before it returns)."""
    if not jax.__name__.startswith("engine"):
        return None
    import importlib

    return getattr(importlib.import_module("engine.jit"), "wait_for_compiles", None)


def eager_add(jax):
    """``x + x`` on 10 floats, eagerly."""
    x = jax.numpy.ones(10, np.float32)
    x = x + 0  # a materialized array on both sides
    if jax.__name__.startswith("engine"):  # (synchronous: nothing to wait for, as numpy's row)
        return lambda: x + x
    return lambda: _block(jax, x + x)


def numpy_add(jax=None):
    """numpy's own ``a + a`` on 10 floats: the reference of the eager add (engine side only)."""
    a = np.ones(10, np.float32)
    return lambda: a + a


def _composite_tanh(jnp):
    def tanh(x):
        y = jnp.exp(-2.0 * x)
        return (1.0 - y) / (1.0 + y)

    return tanh


def eager_tanh_grad(jax):
    """The seed program's ``grad(tanh)`` (exp, sub, add, div) at 1.0, warm, eagerly."""
    g = jax.grad(_composite_tanh(jax.numpy))
    return lambda: _block(jax, g(1.0))


def eager_plain_tanh_grad(jax):
    """``grad(jnp.tanh)`` at 1.0, warm, eagerly: one primitive's JVP and transpose."""
    g = jax.grad(jax.numpy.tanh)
    return lambda: _block(jax, g(1.0))


def eager_gamma_grad(jax):
    """``grad(sum(random.gamma(key, alpha)))`` for 200 alphas, warm, eagerly: a ``lax.map`` of two
    ``while_loop``\\ s per sample (``random_gamma_grad``) and the sampler's rejection loops."""
    key, alpha = jax.random.key(0), jax.numpy.full((200,), 2.5, np.float32)
    g = jax.grad(lambda a: jax.numpy.sum(jax.random.gamma(key, a)))
    return lambda: _block(jax, g(alpha))


_fresh = itertools.count(1)


def first_calls(jax):
    """The first calls of 5 freshly written small jitted functions (new constants each time, so
    nothing is cached: as when a user edits a function and runs it again)."""
    jnp = jax.numpy
    x = jnp.asarray(np.linspace(-1, 1, 100, dtype=np.float32))
    y = jnp.asarray(np.linspace(0, 2, 100, dtype=np.float32))
    m = jnp.asarray(np.linspace(-1, 1, 256, dtype=np.float32).reshape(16, 16))

    def run():
        c = float(next(_fresh)) + 0.5
        fs = [
            (jax.jit(lambda x: x * x + x * c), (x,)),
            (jax.jit(lambda x: jnp.sin(x) * jnp.exp(-x) + c), (x,)),
            (jax.jit(lambda x, y: jnp.sum(x * y) + c), (x, y)),
            (jax.jit(lambda m: jnp.tanh(m @ m + c)), (m,)),
            (jax.jit(lambda x: jnp.where(x > c, x, x * c).mean()), (x,)),
        ]
        for f, args in fs:
            _block(jax, f(*args))

    wait = _background_wait(jax)
    if wait is not None:
        run.settle = wait
    return run


def second_calls(jax):
    """The same 5 functions' second calls (the compiled tier once it is ready)."""
    jnp = jax.numpy
    x = jnp.asarray(np.linspace(-1, 1, 100, dtype=np.float32))
    y = jnp.asarray(np.linspace(0, 2, 100, dtype=np.float32))
    m = jnp.asarray(np.linspace(-1, 1, 256, dtype=np.float32).reshape(16, 16))
    c = 0.5
    fs = [
        (jax.jit(lambda x: x * x + x * c), (x,)),
        (jax.jit(lambda x: jnp.sin(x) * jnp.exp(-x) + c), (x,)),
        (jax.jit(lambda x, y: jnp.sum(x * y) + c), (x, y)),
        (jax.jit(lambda m: jnp.tanh(m @ m + c)), (m,)),
        (jax.jit(lambda x: jnp.where(x > c, x, x * c).mean()), (x,)),
    ]
    for f, args in fs:
        _block(jax, f(*args))
    wait = _background_wait(jax)
    if wait is not None:
        wait()

    def run():
        for f, args in fs:
            _block(jax, f(*args))

    return run


N = 5000


def fusion(jax, layout: str):
    """``jit(x*x + x*2.0)`` on f32[5000, 5000] inputs of a given layout: ``contiguous``,
    ``ones`` (the engine's ``jnp.ones`` is a stride-0 broadcast), ``transposed`` (``x.T``),
    ``strided`` (``x[:, ::2]``), ``contiguous-half`` (a contiguous f32[5000, 2500])."""
    jnp = jax.numpy
    base = np.random.default_rng(0).normal(size=(N, N)).astype(np.float32)
    if layout == "ones":
        x = jnp.ones((N, N), jnp.float32)
    elif layout == "transposed":
        x = jnp.asarray(base).T
    elif layout == "strided":
        x = jnp.asarray(base)[:, ::2]
    elif layout == "contiguous-half":
        x = jnp.asarray(np.ascontiguousarray(base[:, ::2]))
    else:
        x = jnp.asarray(base)
    f = jax.jit(lambda x: x * x + x * 2.0)
    _warm(jax, lambda: f(x))
    return lambda: _block(jax, f(x))


def compute_chain(jax, layout: str):
    """``jit(tanh(exp(sin(x)) * 0.5) * cos(x))``, compute-bound (transcendentals), on ``x[:, ::2]``
    of f32[5000, 5000] (``strided``) or a contiguous f32[5000, 2500] (``contiguous-half``): when a
    kernel is not limited by memory, reading through strides costs next to nothing."""
    jnp = jax.numpy
    base = np.random.default_rng(0).normal(size=(N, N)).astype(np.float32)
    x = jnp.asarray(base)[:, ::2] if layout == "strided" else jnp.asarray(np.ascontiguousarray(base[:, ::2]))
    f = jax.jit(lambda x: jnp.tanh(jnp.exp(jnp.sin(x)) * 0.5) * jnp.cos(x))
    _warm(jax, lambda: f(x))
    return lambda: _block(jax, f(x))


def _warm(jax, call):
    """One call, then the engine's background compiles finished: timed calls run the kernel."""
    _block(jax, call())
    wait = _background_wait(jax)
    if wait is not None:
        wait()


def fusion_of_view(jax, view: str, copy: bool = False):
    """``jit(x*x + x*2.0)`` applied to a view of f32[5000, 5000] taken in each call, as user code
    writes ``f(x[:, ::2])`` or ``f(x.T)``: the engine passes the view (its kernel reads the strides),
    JAX copies at slicing time and runs its kernel on the copy. ``copy``: the view is copied to C
    order first (what a numpy user, or a kernel that only takes contiguous inputs, pays)."""
    jnp = jax.numpy
    x = jnp.asarray(np.random.default_rng(0).normal(size=(N, N)).astype(np.float32))
    take = (lambda x: x[:, ::2]) if view == "strided" else (lambda x: x.T)
    f = jax.jit(lambda x: x * x + x * 2.0)
    call = (lambda: f(jnp.array(take(x), copy=True))) if copy else (lambda: f(take(x)))
    _warm(jax, call)
    return lambda: _block(jax, call())


def numpy_copy(jax=None, layout: str = "contiguous"):
    """numpy's copy of f32[5000, 2500] into a kept buffer, from a contiguous array or from
    ``x[:, ::2]``: what reading through the strides costs the memory system itself (engine side
    only, a floor for the strided rows)."""
    base = np.random.default_rng(0).normal(size=(N, N)).astype(np.float32)
    src = base[:, ::2] if layout == "strided" else np.ascontiguousarray(base[:, ::2])
    out = np.empty((N, N // 2), np.float32)
    return lambda: np.copyto(out, src)


def read_every_line(jax=None):
    """A numba kernel (2 threads, as the jit's) that reads all of a contiguous f32[5000, 5000] and
    writes f32[5000, 2500] (``out[i, j] = x[i, 2j] + x[i, 2j + 1]``): the memory traffic of a
    kernel on ``x[:, ::2]``, which touches every cache line of ``x``, read in order. Engine side
    only: the floor of the strided rows (None without numba)."""
    try:
        import numba as nb
    except ImportError:
        return None
    from engine.backends.numba_runtime import _par

    @nb.njit(nb.void(nb.int64, nb.int64, nb.float32[:, ::1], nb.float32[:, ::1]), nogil=True)
    def pairs(lo, hi, src, dst):
        for i in range(lo, hi):
            row, d = src[i], dst[i]
            for j in range(d.shape[0]):
                d[j] = row[np.uint64(2) * np.uint64(j)] + row[np.uint64(2) * np.uint64(j) + np.uint64(1)]

    base = np.random.default_rng(0).normal(size=(N, N)).astype(np.float32)
    out = np.empty((N, N // 2), np.float32)
    return lambda: _par(pairs, N, base, out)


def pmap_normalize(jax, computed: bool = False):
    """``pmap(x / psum(x))`` over 8 devices, warm dispatch. ``computed``: ``x / psum(x * x)``, whose
    psum operand is computed on the devices (the engine reduces a program input where the host
    wrote it, with no barrier; a computed operand goes through the exchange and a barrier)."""
    if computed:
        normalize = jax.pmap(lambda x: x / jax.lax.psum(x * x, "i"), axis_name="i")
    else:
        normalize = jax.pmap(lambda x: x / jax.lax.psum(x, "i"), axis_name="i")
    x = jax.numpy.arange(float(jax.device_count()))
    _block(jax, normalize(x))
    return lambda: _block(jax, normalize(x))


def jit_chain(jax):
    """``jit(tanh(x) * exp(-x*x) + sin(x) / 2)`` on f32[5000, 5000] (bench_jit's second row)."""
    jnp = jax.numpy
    x = jnp.asarray(np.random.default_rng(0).normal(size=(N, N)).astype(np.float32))
    g = jax.jit(lambda x: jnp.tanh(x) * jnp.exp(-x * x) + jnp.sin(x) / 2)
    return lambda: _block(jax, g(x))


def mlp_grads(jax):
    """Per-example gradients of a 784-512-256-10 tanh MLP, batch 128 (bench_jit's MLP row)."""
    jnp = jax.numpy
    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    params = [
        (jnp.asarray(rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m)), jnp.zeros(n, jnp.float32))
        for m, n in zip(sizes[:-1], sizes[1:])
    ]
    xb = jnp.asarray(rng.normal(size=(128, 784)).astype(np.float32))
    yb = jnp.asarray(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)])

    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.tanh(jnp.dot(h, w) + b)
        w, b = params[-1]
        return jnp.sum((jnp.dot(h, w) + b - y) ** 2)

    f = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0, 0)))
    return lambda: jax.block_until_ready(f(params, xb, yb))


def warm_call(jax):
    """A warm ``jit(x*x + x*2.0)`` call on 10 floats (bench_jit's warm-call row)."""
    f = jax.jit(lambda x: x * x + x * 2.0)
    x = jax.numpy.ones(10)
    return lambda: _block(jax, f(x))
