"""The sweep's cases for mutable array refs made inside transformed functions (issue 13):
``jax.new_ref``, reads and writes (``ref[...]``, ``ref[i] +=``, ``jax.ref.addupdate``) and
``jax.freeze`` under grad, jvp, vmap and jit, and their compositions. Cases follow sweep_programs'
convention: ``make(jax) -> (fun, args)``."""

from __future__ import annotations

import numpy as np

try:
    from .sweep_programs import _f32
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_programs import _f32  # type: ignore[no-redef]

CASES: dict = {}


def _add(name, make):
    CASES[name] = make


def _scale_and_bump(jax):
    """A ref made from the argument, written whole and at one index, then frozen."""

    def f(x):
        r = jax.new_ref(x)
        r[...] = r[...] * 2.0
        r[1] += x[0]
        return jax.numpy.sum(jax.freeze(r) * x)

    return f


def _slices(jax):
    """Reads of two overlapping slices of a ref."""

    def f(x):
        r = jax.new_ref(x)
        return jax.numpy.sum(r[1:] * r[:2])

    return f


def _accumulate(jax):
    """A zero-initialized accumulator ref, added to with jax.ref.addupdate."""

    def f(x):
        acc = jax.new_ref(jax.numpy.zeros_like(x))
        jax.ref.addupdate(acc, ..., jax.numpy.sin(x))
        jax.ref.addupdate(acc, 0, x[2] * x[1])
        return jax.numpy.sum(jax.freeze(acc) ** 2)

    return f


def _scalar(jax):
    def f(x):
        r = jax.new_ref(x)
        r[...] += x * x
        return jax.freeze(r)

    return f


for _name, _fun in (
    ("scale_and_bump", _scale_and_bump),
    ("slices", _slices),
    ("accumulate", _accumulate),
):
    _add(f"grad(refs[{_name}])", lambda jax, _fun=_fun: (jax.grad(_fun(jax)), (_f32(3),)))
    _add(
        f"jvp(refs[{_name}])",
        lambda jax, _fun=_fun: (
            (lambda x, t: jax.jvp(_fun(jax), (x,), (t,))),
            (_f32(3), _f32(3, seed=1)),
        ),
    )
    _add(f"vmap(refs[{_name}])", lambda jax, _fun=_fun: (jax.vmap(_fun(jax)), (_f32(2, 3),)))
    _add(f"jit(grad(refs[{_name}]))", lambda jax, _fun=_fun: (jax.jit(jax.grad(_fun(jax))), (_f32(3),)))

_add("grad(refs[scalar])", lambda jax: (jax.grad(_scalar(jax)), (np.float32(1.5),)))
_add("jit(refs[scale_and_bump])", lambda jax: (jax.jit(_scale_and_bump(jax)), (_f32(3),)))
_add("grad(jit(refs[scale_and_bump]))", lambda jax: (jax.grad(jax.jit(_scale_and_bump(jax))), (_f32(3),)))
_add(
    "vmap(grad(refs[scale_and_bump]))", lambda jax: (jax.vmap(jax.grad(_scale_and_bump(jax))), (_f32(2, 3),))
)
_add("vmap(jit(refs[accumulate]))", lambda jax: (jax.vmap(jax.jit(_accumulate(jax))), (_f32(2, 3),)))
_add(
    "jvp(refs[scalar])",
    lambda jax: ((lambda x, t: jax.jvp(_scalar(jax), (x,), (t,))), (np.float32(1.5), np.float32(0.5))),
)


# A ref made inside jvp and used by a jit, a loop or a cond body: JAX's forward mode passes the
# primal ref and its tangent ref into the body, whose reads and writes come in pairs.
def _through_jit(jax):
    def f(x):
        r = jax.new_ref(x)

        @jax.jit
        def h(r, y):
            r[...] += jax.numpy.sin(y)

        h(r, x)
        return jax.freeze(r) * x

    return f


def _fori_closed_over(jax):
    def f(x):
        r = jax.new_ref(jax.numpy.zeros_like(x))

        def body(i, c):
            r[...] += x * c
            return c * 1.5

        jax.lax.fori_loop(0, 3, body, 1.0)
        return jax.freeze(r)

    return f


def _fori_reads(jax):
    def f(x):
        r = jax.new_ref(x)
        return jax.lax.fori_loop(0, 3, lambda i, c: c + r[i], 0.0)

    return f


def _scan_closed_over(jax):
    def f(x):
        r = jax.new_ref(x)

        def body(c, xi):
            r[...] = r[...] * xi
            return c + r[0], xi

        c, _ = jax.lax.scan(body, 0.0, x)
        return c + jax.numpy.sum(jax.freeze(r))

    return f


def _scan_one_element(jax):
    def f(x):
        r = jax.new_ref(x)

        def body(c, xi):
            r[0] += xi * c
            return c * 2.0, None

        jax.lax.scan(body, 1.0, x)
        return jax.freeze(r)

    return f


def _while_closed_over(jax):
    def f(x):
        r = jax.new_ref(x)

        def body(i):
            r[...] = r[...] * 1.5 + x
            return i + 1

        jax.lax.while_loop(lambda i: i < 2, body, 0)
        return jax.freeze(r)

    return f


def _cond_closed_over(jax):
    def f(x):
        r = jax.new_ref(x)
        jax.lax.cond(x[0] > 0, lambda: r.__setitem__(..., r[...] * 3.0), lambda: None)
        return jax.freeze(r)

    return f


for _name, _fun in (
    ("through_jit", _through_jit),
    ("fori_closed_over", _fori_closed_over),
    ("fori_reads", _fori_reads),
    ("scan_closed_over", _scan_closed_over),
    ("scan_one_element", _scan_one_element),
    ("while_closed_over", _while_closed_over),
    ("cond_closed_over", _cond_closed_over),
):
    _add(
        f"jvp(refs[{_name}])",
        lambda jax, _fun=_fun: (
            (lambda x, t: jax.jvp(_fun(jax), (x,), (t,))),
            (np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, -1.0, 2.0], np.float32)),
        ),
    )


# Refs under reverse mode beyond grad: vjp, linearize, jacrev; written in a loop, passed into a jit;
# made empty, or freed before a read (the primal read a jit of grad drops as dead code).


def _fori_accumulate(jax):
    """An accumulator ref written in a fori_loop body (closed over by the loop)."""

    def f(x):
        r = jax.new_ref(jax.numpy.zeros_like(x))

        def body(i, c):
            r[...] = r[...] + x * c
            return c * 2.0

        jax.lax.fori_loop(0, 3, body, 1.0)
        return jax.numpy.sum(jax.freeze(r) ** 2)

    return f


def _fori_index(jax):
    """A ref read and written at the loop index in a fori_loop body."""

    def f(x):
        r = jax.new_ref(x)

        def body(i, c):
            r[i] = r[i] * x[i] + c
            return c

        jax.lax.fori_loop(0, 3, body, 0.5)
        return jax.numpy.sum(jax.freeze(r))

    return f


def _made_frozen(jax):
    def f(x):
        r = jax.new_ref(x * 2.0)
        r[0] += jax.numpy.sin(x[1])
        return jax.freeze(r) * x

    return f


def _slice_bump(jax):
    def f(x):
        r = jax.new_ref(x)
        r[1:] += x[:2] * x[1:]
        return jax.freeze(r)

    return f


def _pass_to_jit(jax):
    """A ref made in the differentiated function, written by a jitted function it is passed to."""

    @jax.jit
    def bump(r, y):
        r[...] += y * y

    def f(x):
        r = jax.new_ref(x)
        bump(r, x)
        return jax.numpy.sum(jax.freeze(r) * x)

    return f


def _free_then_read(jax):
    def f(x):
        r = jax.new_ref(x)
        jax.free_ref(r)
        return jax.numpy.sum(r[...])

    return f


def _empty(jax):
    def f(x):
        r = jax.empty_ref(jax.typeof(x))
        r[...] = x * 2
        return jax.numpy.sum(jax.freeze(r))

    return f


_x3 = lambda: _f32(3)  # noqa: E731
_add("grad(refs[fori_accumulate])", lambda jax: (jax.grad(_fori_accumulate(jax)), (_x3(),)))
_add("grad(refs[fori_index])", lambda jax: (jax.grad(_fori_index(jax)), (_x3(),)))
for _name, _fun in (("fori_accumulate", _fori_accumulate), ("fori_index", _fori_index)):
    _add(
        f"jvp(refs[{_name}])",
        lambda jax, _fun=_fun: ((lambda x, t: jax.jvp(_fun(jax), (x,), (t,))), (_x3(), _f32(3, seed=1))),
    )
_add(
    "vjp(refs[made_frozen])",
    lambda jax: ((lambda x, ct: jax.vjp(_made_frozen(jax), x)[1](ct)), (_x3(), _f32(3, seed=1))),
)
_add(
    "jit(vjp(refs[made_frozen]))",
    lambda jax: (jax.jit(lambda x, ct: jax.vjp(_made_frozen(jax), x)[1](ct)), (_x3(), _f32(3, seed=1))),
)
_add("jacrev(refs[slice_bump])", lambda jax: (jax.jacrev(_slice_bump(jax)), (_x3(),)))
_add(
    "linearize(refs[slice_bump])",
    lambda jax: ((lambda x, t: jax.linearize(_slice_bump(jax), x)[1](t)), (_x3(), _f32(3, seed=1))),
)
_add("grad(refs[pass_to_jit])", lambda jax: (jax.grad(_pass_to_jit(jax)), (_x3(),)))
for _name, _fun in (("accumulate", _accumulate), ("slices", _slices)):
    _add(f"grad(jit(refs[{_name}]))", lambda jax, _fun=_fun: (jax.grad(jax.jit(_fun(jax))), (_x3(),)))
_add("grad(jit(refs[scalar]))", lambda jax: (jax.grad(jax.jit(_scalar(jax))), (np.float32(1.5),)))
_add("grad(refs[free_then_read])", lambda jax: (jax.grad(_free_then_read(jax)), (_x3(),)))
_add("jit(grad(refs[free_then_read]))", lambda jax: (jax.jit(jax.grad(_free_then_read(jax))), (_x3(),)))
_add("jit(grad(refs[empty]))", lambda jax: (jax.jit(jax.grad(_empty(jax))), (_x3(),)))
_add("grad(jit(refs[empty]))", lambda jax: (jax.grad(jax.jit(_empty(jax))), (_x3(),)))
