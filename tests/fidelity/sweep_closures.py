"""The sweep's cases for functions that close over concrete values (issue 13): JAX stages a captured
``jax.Array`` as a constvar, scalar or not, keeping its weak type (so a weakly typed one meets a
float32 operand through convert_element_type), while a captured numpy array stays a constvar only
when it is not a scalar, and numpy scalars, 0-d numpy arrays and Python scalars become literals.
Each case makes its captured values in ``make`` (before any trace), under make_jaxpr, jit, grad,
vmap, hessian of a jit and inside cond and scan bodies. Cases follow sweep_programs' convention:
``make(jax) -> (fun, args)``."""

from __future__ import annotations

import numpy as np

try:
    from .sweep_programs import _f32
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_programs import _f32  # type: ignore[no-redef]

CASES: dict = {}

# captured value kind -> how to make it (given jax)
_CAPTURED = {
    "jnp_scalar": lambda jax: jax.numpy.array(2.0),  # weakly typed
    "jnp_int_scalar": lambda jax: jax.numpy.array(2),  # weakly typed int
    "jnp_f32_scalar": lambda jax: jax.numpy.float32(2.0),  # strongly typed
    "jnp_reduction": lambda jax: jax.numpy.sum(jax.numpy.ones(3)),
    "jnp_vector": lambda jax: jax.numpy.arange(3.0),
    "np_vector": lambda jax: np.arange(3.0, dtype=np.float32),
    "np_0d": lambda jax: np.array(2.0, np.float32),
    "np_scalar": lambda jax: np.float32(2.0),
    "py_float": lambda jax: 2.0,
    "py_int": lambda jax: 2,
}


def _add(name, make):
    CASES[f"closure.{name}"] = make


def _times(kind):
    def make(jax):
        c = _CAPTURED[kind](jax)
        return (lambda x: x * c), (_f32(3),)

    return make


def _jit_times(kind):
    def make(jax):
        c = _CAPTURED[kind](jax)
        return jax.jit(lambda x: x * c), (_f32(3),)

    return make


for _kind in _CAPTURED:
    _add(f"mul[{_kind}]", _times(_kind))
    _add(f"jit_mul[{_kind}]", _jit_times(_kind))


def _scalar_arg(jax):
    c = jax.numpy.array(2.0)
    return (lambda x: x * c), (np.float32(1.0),)


def _affine(jax):
    c, v = jax.numpy.array(2.0), jax.numpy.arange(3.0)
    return (lambda x: x * v + c), (_f32(3),)


def _grad(jax):
    c, v = jax.numpy.array(2.0), jax.numpy.arange(3.0)
    return jax.grad(lambda x: jax.numpy.sum(x * v) * c), (_f32(3),)


def _vmap(jax):
    c, v = jax.numpy.array(2.0), jax.numpy.arange(3.0)
    return jax.vmap(lambda x: x * v + c), (_f32(2, 3),)


def _hessian_of_jit(jax):
    jnp, v = jax.numpy, jax.numpy.arange(3.0)
    return jax.hessian(jax.jit(lambda x: jnp.sum(jnp.sin(x) * v))), (_f32(3),)


def _cond(jax):
    c, v = jax.numpy.array(2.0), jax.numpy.arange(3.0)
    return (lambda x: jax.lax.cond(x[0] > 0, lambda y: y * c, lambda y: y + v, x)), (_f32(3),)


def _scan(jax):
    c, v = jax.numpy.array(0.5), jax.numpy.arange(3.0)

    def f(x):
        return jax.lax.scan(lambda h, xi: (h * c + xi * v, h), jax.numpy.zeros(3), x)

    return f, (_f32(4, 3),)


def _np_vector_grad(jax):
    w = np.arange(3.0, dtype=np.float32)
    return jax.grad(lambda x: jax.numpy.sum(x * w) * np.float32(2.0)), (_f32(3),)


_add("scalar_arg[jnp_scalar]", _scalar_arg)
_add("affine[jnp_scalar,jnp_vector]", _affine)
_add("grad[jnp_scalar,jnp_vector]", _grad)
_add("vmap[jnp_scalar,jnp_vector]", _vmap)
_add("hessian_of_jit[jnp_vector]", _hessian_of_jit)
_add("cond[jnp_scalar,jnp_vector]", _cond)
_add("scan[jnp_scalar,jnp_vector]", _scan)
_add("grad[np_vector,np_scalar]", _np_vector_grad)


def _captured(jax):
    jnp = jax.numpy
    return jnp.array(2.0), jnp.arange(3.0)


def _more(jax):
    """More places a closure meets: vmap of jit, loops, jvp, linearize, jit of grad, int and bool."""
    jnp, lax = jax.numpy, jax.lax
    c, v = _captured(jax)
    b, i, n0 = jnp.array(True), jnp.array(3, jnp.int32), np.array(2.0, np.float32)
    x3 = _f32(3)
    return {
        "vmap_jit[jnp_scalar,jnp_vector]": (jax.vmap(jax.jit(lambda x: x * c + v)), (_f32(2, 3),)),
        "while_loop[jnp_int_scalar,jnp_scalar]": (
            lambda x: lax.while_loop(lambda s: s[0] < i, lambda s: (s[0] + 1, s[1] * c), (0, x)),
            (x3,),
        ),
        "fori_loop[jnp_scalar,jnp_vector]": (lambda x: lax.fori_loop(0, 3, lambda k, y: y * c + v, x), (x3,)),
        "where[jnp_bool_scalar]": (lambda x: jnp.where(b, x, x * c), (x3,)),
        "grad_jit[jnp_scalar,jnp_vector]": (jax.grad(jax.jit(lambda x: jnp.sum(x * v) * c)), (x3,)),
        "jit_grad[jnp_scalar,jnp_vector]": (jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) * v) * c)), (x3,)),
        "jvp[jnp_scalar,jnp_vector]": (lambda x, t: jax.jvp(lambda y: y * c + v, (x,), (t,)), (x3, x3)),
        "linearize[jnp_scalar]": (lambda x: jax.linearize(lambda y: jnp.sin(y) * c, x)[1](x), (x3,)),
        "add[jnp_int_scalar]": (lambda x: x + i, (np.ones(3, np.int32),)),
        "grad[np_0d]": (jax.grad(lambda x: jnp.sum(x * n0)), (x3,)),
    }


def _add_group(prefix, group, names):
    """Register each case of ``group(jax)`` (a dict by name) as ``prefix + name``."""
    for name in names:
        CASES[prefix + name] = lambda jax, name=name: group(jax)[name]


_add_group(
    "closure.",
    _more,
    (
        "vmap_jit[jnp_scalar,jnp_vector]",
        "while_loop[jnp_int_scalar,jnp_scalar]",
        "fori_loop[jnp_scalar,jnp_vector]",
        "where[jnp_bool_scalar]",
        "grad_jit[jnp_scalar,jnp_vector]",
        "jit_grad[jnp_scalar,jnp_vector]",
        "jvp[jnp_scalar,jnp_vector]",
        "linearize[jnp_scalar]",
        "add[jnp_int_scalar]",
        "grad[np_0d]",
    ),
)


# Arrays made inside the trace. Under jit JAX stages what jnp.array/asarray return (lax.stage), so
# they are tracers there: a boolean mask made of constants is not concrete (NonConcreteBooleanIndex
# Error), a numpy array is one constvar however often it is used or wrapped, a scalar one folds into
# the literal its conversion gives, and an array nothing reads is no constvar.
_F64 = np.array([3.0, 4.0, 5.0])  # float64: its float32 copy is the constant, once


def _made_in_trace(jax):
    jnp = jax.numpy
    x3 = _f32(3)
    c = jnp.arange(
        3.0
    )  # a jax.Array made before the trace: asarray gives it back, array copies it in the trace
    return {
        "jax_array_copies": (
            lambda x: x + jnp.array(c) + jnp.asarray(c) + jnp.array(c, dtype=jnp.int32),
            (x3,),
        ),
        "list": (lambda x: x * jnp.array([1.0, 2.0, 3.0]), (x3,)),
        "int_list": (lambda x: x + jnp.array([1, 2, 3]), (x3,)),
        "scalar": (lambda x: x + jnp.array(2.0) + jnp.asarray(3) + jnp.array(np.float32(4)), (x3,)),
        "unused": (lambda x: (jnp.array([1.0, 2.0]), jnp.asarray(_F64), x)[2], (x3,)),
        "np_f64_reused": (lambda x: x + _F64 + jnp.asarray(_F64) + jnp.array(_F64) + _F64, (x3,)),
        "np_f64_dtype": (
            lambda x: x * jnp.asarray(_F64, dtype=jnp.float32) + jnp.array(_F64, ndmin=2),
            (x3,),
        ),
        "bool_mask_list": (lambda x: x[jnp.array([True, False, True])], (x3,)),
        "bool_mask_asarray_np": (lambda x: x[jnp.asarray(np.array([True, False, True]))], (x3,)),
        "bool_mask_np": (lambda x: x[np.array([True, False, True])], (x3,)),
        "at_bool_mask_list": (lambda x: x.at[jnp.array([True, False, True])].set(0.0), (x3,)),
        "where_list": (lambda x: jnp.where(jnp.array([True, False, True]), x, 0.0), (x3,)),
        "python_if": (lambda x: x * 2 if jnp.array(3.0) > 2 else x, (x3,)),
        "grad_list": (jax.grad(lambda x: jnp.sum(x * jnp.array([1.0, 2.0, 3.0]))), (x3,)),
        "vmap_list": (jax.vmap(lambda x: x * jnp.array([1.0, 2.0, 3.0])), (_f32(2, 3),)),
    }


_add_group(
    "made_in_trace.",
    _made_in_trace,
    (
        "jax_array_copies",
        "list",
        "int_list",
        "scalar",
        "unused",
        "np_f64_reused",
        "np_f64_dtype",
        "bool_mask_list",
        "bool_mask_asarray_np",
        "bool_mask_np",
        "at_bool_mask_list",
        "where_list",
        "python_if",
        "grad_list",
        "vmap_list",
    ),
)
