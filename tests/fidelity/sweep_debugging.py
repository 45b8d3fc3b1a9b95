"""The sweep's cases for ``jax.debug`` and the host callbacks: ``debug_print`` with JAX's parameters
(format, tree of arguments, static arguments, numpy print options, logging record) and
``debug_callback``'s, under the transformations (grad, vmap's unrolling, jit, remat, linearize,
scan, while, cond), and ``io_callback`` / ``pure_callback``. Cases follow sweep_programs'
convention: ``make(jax) -> (fun, args)``; the callbacks are module-level functions, so their
printed names are the same under JAX and the engine."""

from __future__ import annotations

import numpy as np

CASES: dict = {}


def _add(name, make):
    CASES[name] = make


def _seen(*args, **kwargs):  # a named callback (printed as <function _seen at 0xXXXXXXXXXXXX>)
    del args, kwargs


def _twice(x):
    return x * 2


def _add_host(x, y):
    return x + y


def _pair(x, y):
    return x, y["k"]


_S = np.float32(1.5)
_V = np.arange(3, dtype=np.float32)


def _print_kw(jax):
    def f(x):
        jax.debug.print("x={x}", x=x)
        return x * 2.0

    return f, (_S,)


_add("debug.print[kw]", _print_kw)
_add("debug.print[positional]", lambda jax: ((lambda x: jax.debug.print("x={} {}", x, 3)), (_V,)))
_add(
    "debug.print[no_placeholders]",
    lambda jax: ((lambda x: jax.debug.print("x", x, skip_format_check=True)), (_S,)),
)
_add("debug.print[ordered]", lambda jax: ((lambda x: jax.debug.print("{}", x, ordered=True)), (_S,)))
_add(
    "debug.print[two_call_form]",
    lambda jax: ((lambda x: jax.debug.print(ordered=True, partitioned=True)("{x}", x=x)), (_S,)),
)
_add(
    "debug.print[static_args]",
    lambda jax: ((lambda x: jax.debug.print("{a} {b} {x} {c}", a="s", b=None, x=x, c=_seen)), (_S,)),
)
_add(
    "debug.print[tree]",
    lambda jax: ((lambda x, y: jax.debug.print("{} {}", (x, y), {"k": x})), (_S, np.int32(2))),
)


def _print_in_printoptions(jax):
    def f(x):
        with np.printoptions(precision=2, suppress=True):
            jax.debug.print("{}", x)

    return f, (_S,)


_add("debug.print[np_printoptions]", _print_in_printoptions)

# jax.debug.log's record names the user's file and line: a fixed file name makes it the same text
# wherever the repository is checked out.
_LOG_SOURCE = "def logged(x):\n    jax.debug.log('x={}', x)\n    return x\n"


def _log(jax):
    scope = {"jax": jax}
    exec(compile(_LOG_SOURCE, "<sweep_debugging>", "exec"), scope)
    return scope["logged"], (_S,)


_add("debug.log", _log)


def _printed_square(jax):
    return lambda x: (jax.debug.print("{}", x), x * x)[1]


def _printed_sin(jax):
    return lambda x: (jax.debug.print("{}", x), jax.numpy.sin(x))[1]


_add("grad(debug.print)", lambda jax: (jax.grad(_printed_square(jax)), (_S,)))
_add("jit(debug.print)", lambda jax: (jax.jit(_printed_square(jax)), (_S,)))
_add("vmap(debug.print)", lambda jax: (jax.vmap(_printed_square(jax)), (_V,)))
_add(
    "vmap(debug.print)[unmapped_arg]",
    lambda jax: (
        jax.vmap(lambda x, y: jax.debug.print("{} {}", x, y), in_axes=(0, None)),
        (_V[:2], _S),
    ),
)
_add(
    "vmap(debug.print)[axis1]",
    lambda jax: (jax.vmap(lambda x: jax.debug.print("{x}", x=x), in_axes=1), (np.ones((2, 2), np.float32),)),
)
_add("grad(remat(debug.print))", lambda jax: (jax.grad(jax.checkpoint(_printed_sin(jax))), (_S,)))
_add(
    "grad(remat(debug.print))[nothing_saveable]",
    lambda jax: (
        jax.grad(jax.checkpoint(_printed_sin(jax), policy=jax.checkpoint_policies.nothing_saveable)),
        (_S,),
    ),
)


def _printing_custom_jvp(jax):
    @jax.custom_jvp
    def h(x):
        jax.debug.print("h {}", x)
        return jax.numpy.sin(x)

    h.defjvp(lambda p, t: (h(p[0]), jax.numpy.cos(p[0]) * t[0]))
    return h


_add("grad(custom_jvp(debug.print))", lambda jax: (jax.grad(_printing_custom_jvp(jax)), (_S,)))
_add(
    "linearize(debug.print)",
    lambda jax: ((lambda x: jax.linearize(_printed_sin(jax), x)[1](x)), (_S,)),
)
_add("vjp(debug.print)", lambda jax: ((lambda x: jax.vjp(_printed_sin(jax), x)[1](x)), (_S,)))
_add("jvp(debug.print)", lambda jax: ((lambda x: jax.jvp(_printed_sin(jax), (x,), (x,))), (_S,)))
_add(
    "scan(debug.print)",
    lambda jax: (
        (lambda x: jax.lax.scan(lambda c, y: (jax.debug.print("{} {}", c, y), (c + y, None))[1], x, _V)),
        (np.float32(0.0),),
    ),
)
_add(
    "while(debug.print)",
    lambda jax: (
        (lambda x: jax.lax.while_loop(lambda c: c < 3, lambda c: (jax.debug.print("{}", c), c + 1)[1], x)),
        (np.int32(0),),
    ),
)
_add(
    "cond(debug.print)",
    lambda jax: (
        (lambda p, x: jax.lax.cond(p, lambda x: (jax.debug.print("t {}", x), x + 1)[1], lambda x: x * 2, x)),
        (True, _S),
    ),
)
# a cond whose branches pass an operand straight through: that output is the operand (JAX prunes it)
_add(
    "cond(debug.print)[passthrough]",
    lambda jax: (
        (lambda p, x: jax.lax.cond(p, lambda x: (jax.debug.print("t {}", x), x)[1], lambda x: x, x)),
        (True, _S),
    ),
)
_add(
    "cond[partly_passthrough]",
    lambda jax: ((lambda p, x: jax.lax.cond(p, lambda x: (x, x + 1), lambda x: (x, x), x)), (True, _S)),
)
_add(
    "switch[passthrough_of_different_operands]",
    lambda jax: (
        (
            lambda i, x, y: jax.lax.switch(
                i, [lambda x, y: (x, y), lambda x, y: (y, y), lambda x, y: (x, y)], x, y
            )
        ),
        (np.int32(1), _S, np.float32(2.0)),
    ),
)
_add(
    "grad(cond[passthrough])",
    lambda jax: (
        jax.grad(lambda x: jax.lax.cond(x > 1, lambda x: (x, x * 2), lambda x: (x, x * 3), x)[1] * 2),
        (_S,),
    ),
)
_add(
    "vmap(cond[passthrough])",
    lambda jax: (
        jax.vmap(lambda p, x: jax.lax.cond(p, lambda x: (x, x * 2), lambda x: (x, -x), x)),
        (np.array([True, False, True]), _V),
    ),
)

# jax.debug.callback: JAX's equation shows its flattening wrapper, the effect and partitioned
_add("debug.callback", lambda jax: ((lambda x: jax.debug.callback(_seen, x)), (_S,)))
_add("debug.callback[ordered]", lambda jax: ((lambda x: jax.debug.callback(_seen, x, ordered=True)), (_S,)))
_add(
    "debug.callback[static_and_kwargs]",
    lambda jax: ((lambda x: jax.debug.callback(_seen, x, "a", k=(x, 2))), (_S,)),
)
_add(
    "debug.callback[partitioned]",
    lambda jax: ((lambda x: jax.debug.callback(_seen, x, partitioned=True)), (_S,)),
)
_add(
    "debug.callback[two_call_form]",
    lambda jax: ((lambda x: jax.debug.callback(ordered=True)(_seen, x)), (_S,)),
)
_add(
    "grad(debug.callback)",
    lambda jax: (jax.grad(lambda x: (jax.debug.callback(_seen, x), x * x)[1]), (_S,)),
)
_add("vmap(debug.callback)", lambda jax: (jax.vmap(lambda x: jax.debug.callback(_seen, x)), (_V,)))


def _io_callback(jax):
    import importlib

    return importlib.import_module("jax.experimental").io_callback


# io_callback / pure_callback
_add(
    "io_callback",
    lambda jax: ((lambda x: _io_callback(jax)(_twice, jax.ShapeDtypeStruct((), np.float32), x)), (_S,)),
)
_add(
    "io_callback[ordered_no_result]",
    lambda jax: ((lambda x: _io_callback(jax)(_seen, None, x, ordered=True)), (_S,)),
)
_add(
    "pure_callback",
    lambda jax: ((lambda x: jax.pure_callback(_twice, jax.ShapeDtypeStruct((3,), np.float32), x)), (_V,)),
)
for _method in ("sequential", "expand_dims", "broadcast_all"):
    _add(
        f"vmap(pure_callback)[{_method}]",
        lambda jax, m=_method: (
            jax.vmap(
                lambda x: jax.pure_callback(_twice, jax.ShapeDtypeStruct((), np.float32), x, vmap_method=m)
            ),
            (_V,),
        ),
    )
for _method in ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized"):
    _add(
        f"vmap(pure_callback)[{_method},unmapped_arg]",
        lambda jax, m=_method: (
            jax.vmap(
                lambda x, y: jax.pure_callback(
                    _add_host, jax.ShapeDtypeStruct((2,), np.float32), x, y, vmap_method=m
                ),
                in_axes=(1, None),
            ),
            (np.ones((2, 3), np.float32), np.ones(2, np.float32)),
        ),
    )
_add(
    "vmap(io_callback)",
    lambda jax: (
        jax.vmap(
            lambda x, y: _io_callback(jax)(_add_host, jax.ShapeDtypeStruct((), np.float32), x, y),
            in_axes=(0, None),
        ),
        (_V, _S),
    ),
)
_add(
    "io_callback[tree]",
    lambda jax: (
        (lambda x: _io_callback(jax)(_pair, (jax.ShapeDtypeStruct((), np.float32),) * 2, x, y={"k": x})),
        (_S,),
    ),
)


# jax.debug.breakpoint: a debug_callback on the traced locals of the user's frames
def _stops(jax):
    def f(x):
        y = x * 2.0
        jax.debug.breakpoint()
        return y

    return f


_add("debug.breakpoint", lambda jax: (_stops(jax), (_S,)))
_add(
    "debug.breakpoint[ordered]",
    lambda jax: ((lambda x: (jax.debug.breakpoint(ordered=True), x + 1.0)[1]), (_S,)),
)
_add("debug.breakpoint[token]", lambda jax: ((lambda x: jax.debug.breakpoint(token=x * 2.0)), (_S,)))
_add("jit(debug.breakpoint)", lambda jax: (jax.jit(_stops(jax)), (_S,)))
_add("vmap(debug.breakpoint)", lambda jax: (jax.vmap(_stops(jax)), (_V,)))
_add("grad(debug.breakpoint)", lambda jax: (jax.grad(_stops(jax)), (_S,)))


# checkify: check / debug_check operands and the errors checkify threads through (or False p,
# select_n False code -1: JAX joins a failure with the no-error constants without folding them)
def _checkify(jax):
    """The checkify module, its failure numbering restarted at 1: checkify numbers failures
    process-wide (``next_code``), so the codes in a text would depend on what ran before."""
    import importlib
    import itertools
    import sys

    checkify = importlib.import_module("jax.experimental.checkify")
    sys.modules[checkify.check.__module__].next_code = itertools.count(1).__next__
    return checkify


def _checked(jax):
    ck = _checkify(jax)
    return lambda x: ck.check(x > 0, "x={x} {}", x, x=x)


_add("checkify.check", lambda jax: (_checked(jax), (_S,)))
_add(
    "checkify.debug_check",
    lambda jax: ((lambda x, ck=_checkify(jax): ck.debug_check(x > 0, "bad {}", x)), (_S,)),
)
_add("checkify(check)", lambda jax: (_checkify(jax).checkify(_checked(jax)), (_S,)))
_add(
    "checkify(two_checks)",
    lambda jax: (
        _checkify(jax).checkify(
            lambda x: (
                jax.experimental.checkify.check(x > 0, "a"),
                jax.experimental.checkify.check(x < 9, "b {}", x),
                x,
            )[2]
        ),
        (_S,),
    ),
)
_add(
    "checkify(nan)",
    lambda jax: (_checkify(jax).checkify(jax.numpy.log, errors=_checkify(jax).float_checks), (_S,)),
)
_add(
    "checkify(debug.print)",
    lambda jax: (
        _checkify(jax).checkify(lambda x: (jax.debug.print("{}", x), _checked(jax)(x))[1]),
        (_S,),
    ),
)
_add(
    "checkify(cond)",
    lambda jax: (
        _checkify(jax).checkify(
            lambda x: jax.lax.cond(x > 1, lambda x: (_checked(jax)(x), x)[1], lambda x: x * 2, x)
        ),
        (_S,),
    ),
)
_add(
    "checkify(scan)",
    lambda jax: (
        _checkify(jax).checkify(
            lambda x: jax.lax.scan(lambda c, y: (_checked(jax)(c), (c + y, None))[1], x, _V)[0]
        ),
        (_S,),
    ),
)
_add(
    "checkify(while)",
    lambda jax: (
        _checkify(jax).checkify(
            lambda x: jax.lax.while_loop(lambda c: c < 3, lambda c: (_checked(jax)(c), c + 1)[1], x)
        ),
        (_S,),
    ),
)
_add(
    "checkify(jit)", lambda jax: (_checkify(jax).checkify(jax.jit(lambda x: (_checked(jax)(x), x)[1])), (_S,))
)
_add(
    "checkify(grad)",
    lambda jax: (_checkify(jax).checkify(jax.grad(lambda x: (_checked(jax)(x), x * x)[1])), (_S,)),
)

# lax.dce_sink: kept though unused, and under jvp its tangent is sunk too
_add("lax.dce_sink", lambda jax: ((lambda x: (jax.lax.dce_sink((x * 2, x)), x + 1)[1]), (_S,)))
_add(
    "jvp(lax.dce_sink)",
    lambda jax: ((lambda x, t: jax.jvp(lambda x: (jax.lax.dce_sink(x * 2), x)[1], (x,), (t,))), (_S, _S)),
)
_add("grad(lax.dce_sink)", lambda jax: (jax.grad(lambda x: (jax.lax.dce_sink(x * 2), x * x)[1]), (_S,)))
