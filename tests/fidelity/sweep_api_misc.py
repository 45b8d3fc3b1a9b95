"""The sweep's cases for the smaller lax names issue 13 added: ``lax.empty`` (its dtype parameter
printed as the user gave it), ``lax.shape_as_value``, and the token primitives ``create_token`` and
``after_all``. Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``."""

from __future__ import annotations

import numpy as np

try:
    from .sweep_programs import _f32
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_programs import _f32  # type: ignore[no-redef]

CASES: dict = {}


def _add(name, make):
    CASES[name] = make


_add("lax.empty[jnp_f32]", lambda jax: ((lambda: jax.lax.empty((2, 3), jax.numpy.float32)), ()))
_add("lax.empty[int_shape]", lambda jax: ((lambda: jax.lax.empty(3, jax.numpy.float32)), ()))
_add("lax.empty[np_int32]", lambda jax: ((lambda: jax.lax.empty((2,), np.int32)), ()))
_add("lax.empty[name]", lambda jax: ((lambda: jax.lax.empty((), "float32")), ()))
_add("lax.empty[np_dtype]", lambda jax: ((lambda: jax.lax.empty((2, 2), np.dtype("int8"))), ()))
_add(
    "lax.empty[added]",
    lambda jax: ((lambda x: x + jax.lax.empty((2, 3), jax.numpy.float32)), (_f32(2, 3),)),
)
_add(
    "grad(lax.empty)",
    lambda jax: (jax.grad(lambda x: x * jax.lax.empty((), jax.numpy.float32)), (np.float32(1.5),)),
)
_add("jit(lax.empty)", lambda jax: (jax.jit(lambda: jax.lax.empty((3,), np.int32)), ()))
_add("lax.shape_as_value[scalar]", lambda jax: ((lambda: jax.lax.shape_as_value(())), ()))
_add("lax.shape_as_value[2d]", lambda jax: ((lambda: jax.lax.shape_as_value((2, 3))), ()))
_add(
    "lax.shape_as_value[of_arg]",
    lambda jax: ((lambda x: x.sum() + jax.lax.shape_as_value(x.shape)), (_f32(2, 3),)),
)


def _record_sharding(sharding):  # (a named callback: JAX prints it as <function ... at 0xXXXXXXXXXXXX>)
    del sharding


_add(
    "debug.inspect_array_sharding[builtin]",
    lambda jax: ((lambda x: jax.debug.inspect_array_sharding(x, callback=print) or x * 2.0), (_f32(3),)),
)
_add(
    "debug.inspect_array_sharding[tree]",
    lambda jax: (
        (lambda x, y: jax.debug.inspect_array_sharding({"x": x, "y": y}, callback=_record_sharding)),
        (_f32(3), np.int32(2)),
    ),
)
_add(
    "jit(grad(debug.inspect_array_sharding))",
    lambda jax: (
        jax.jit(
            jax.grad(lambda x: (jax.debug.inspect_array_sharding(x, callback=_record_sharding), x * x)[1])
        ),
        (np.float32(2.0),),
    ),
)


def _through_empty_ref(jax):
    def f(x):
        r = jax.empty_ref(jax.typeof(x))
        r[...] = x * 2
        y = r[1:]
        jax.free_ref(r)
        return y

    return f, (_f32(3),)


_add("empty_ref[set_get_free]", _through_empty_ref)
_add(
    "empty_ref[freeze_scalar]",
    lambda jax: ((lambda x: jax.freeze(jax.empty_ref(x)) + x), (np.float32(1.0),)),
)

# tokens: JAX's CPU backend has them (create_token, after_all); a token argument prints as Tok
_add("lax.create_token", lambda jax: ((lambda: jax.lax.create_token()), ()))
_add(
    "lax.after_all[two]",
    lambda jax: ((lambda t: jax.lax.after_all(jax.lax.create_token(), t)), (jax.lax.create_token(),)),
)
_add("lax.after_all[none]", lambda jax: ((lambda: jax.lax.after_all()), ()))
_add(
    "jit(lax.after_all)[with_array]",
    lambda jax: (
        jax.jit(lambda t, x: (jax.lax.after_all(t, jax.lax.create_token()), x * 2.0)),
        (jax.lax.create_token(), _f32(3)),
    ),
)
