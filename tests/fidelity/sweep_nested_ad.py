"""The sweep's cases for control flow under nested differentiation and remat: ``lax.cond``,
``lax.switch``, ``fori_loop`` (a scan when its trip count is static), ``scan`` and ``while_loop``
under grad of grad, jacfwd of grad, hessian, vmap of grad of grad, and grad of (grad of)
``jax.checkpoint`` (also vmapped, jacfwd'ed, hessian'ed, linearized, and under the saving policies).
Reverse mode of a ``while_loop`` is JAX's refusal, so it is swept forward only.
Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``."""

from __future__ import annotations

import numpy as np

CASES: dict = {}


def _cond(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.cond(x > 0, lambda x: jnp.sin(x) * x, lambda x: jnp.cos(x), x)


def _switch(jax):
    lax, jnp = jax.lax, jax.numpy
    branches = [lambda x: jnp.sin(x) * x, jnp.cos, lambda x: x**3]
    return lambda x: lax.switch(jnp.clip(jnp.floor(x + 1.0), 0, 2).astype(jnp.int32), branches, x)


def _fori(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * c + x, x)


def _scan(jax):
    lax, jnp = jax.lax, jax.numpy

    def f(x):
        c, ys = lax.scan(lambda c, a: (jnp.sin(c) * a, jnp.cos(c)), x, jnp.arange(1.0, 4.0))
        return c + jnp.sum(ys)

    return f


def _while(jax):
    lax, jnp = jax.lax, jax.numpy
    return lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * c[1]), (0, x))[1]


# name -> the transformation of the scalar function ``f``, and whether it maps over a vector.
_REVERSE = {
    "grad_grad": (lambda jax, f: jax.grad(jax.grad(f)), False),
    "jacfwd_grad": (lambda jax, f: jax.jacfwd(jax.grad(f)), False),
    "hessian": (lambda jax, f: jax.hessian(f), False),
    "vmap_grad_grad": (lambda jax, f: jax.vmap(jax.grad(jax.grad(f))), True),
    "grad_checkpoint": (lambda jax, f: jax.grad(jax.checkpoint(f)), False),
    "grad_grad_checkpoint": (lambda jax, f: jax.grad(jax.grad(jax.checkpoint(f))), False),
    "vmap_grad_checkpoint": (lambda jax, f: jax.vmap(jax.grad(jax.checkpoint(f))), True),
    "jacfwd_checkpoint": (lambda jax, f: jax.jacfwd(jax.checkpoint(f)), False),
    "hessian_checkpoint": (lambda jax, f: jax.hessian(jax.checkpoint(f)), False),
}
_FORWARD = {
    "jacfwd_jacfwd": (lambda jax, f: jax.jacfwd(jax.jacfwd(f)), False),
    "vmap_jacfwd_jacfwd": (lambda jax, f: jax.vmap(jax.jacfwd(jax.jacfwd(f))), True),
    "jacfwd_checkpoint": (lambda jax, f: jax.jacfwd(jax.checkpoint(f)), False),
    "linearize_checkpoint": (lambda jax, f: lambda x: jax.linearize(jax.checkpoint(f), x)[1](2.0 * x), False),
}
_PROGRAMS = {
    "cond": (_cond, _REVERSE, (1.0, -0.5)),
    "switch3": (_switch, _REVERSE, (0.5, -0.5, 1.5)),
    "fori_loop": (_fori, _REVERSE, (0.7,)),
    "scan": (_scan, _REVERSE, (0.7,)),
    "while_loop": (_while, _FORWARD, (0.7,)),
}


def _make(program, transform, x, mapped):
    def make(jax):
        g = transform(jax, program(jax))
        if mapped:
            return g, (np.array([x, -x, 2.0 * x], np.float32),)
        return g, (x,)

    return make


for _name, (_program, _transforms, _points) in _PROGRAMS.items():
    for _kind, (_transform, _mapped) in _transforms.items():
        # (the other branches' values at further points, where the text is the same)
        for _k, _x in enumerate(_points if _kind in ("grad_grad", "grad_checkpoint") else _points[:1]):
            _suffix = "" if _k == 0 else f"[{_x}]"
            CASES[f"nested_ad.{_name}.{_kind}{_suffix}"] = _make(_program, _transform, _x, _mapped)


# --- checkpoint's saving policies (those that keep residuals in device memory) ---


def _dots_scan(jax):
    """A scan whose body has a matrix product and a named value."""
    lax, jnp = jax.lax, jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0

        def body(c, a):
            h = checkpoint_name(jnp.sin(w @ c), "h")
            return h * a, jnp.cos(h)

        c, ys = lax.scan(body, x, jnp.arange(1.0, 3.0))
        return jnp.sum(c) + jnp.sum(ys)

    return f


def _dots_batched(jax):
    """A matrix product with a batch dimension, one without, and a named value between."""
    jnp = jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0
        h = checkpoint_name(jnp.sin(x @ w), "h")
        b = jnp.einsum("bij,bj->bi", jnp.stack([w, w.T]), jnp.stack([jnp.cos(h), h]))
        return jnp.sum(jnp.tanh(b))

    return f


_POLICIES = {
    "dots_saveable": lambda cp: cp.dots_saveable,
    "dots_with_no_batch_dims_saveable": lambda cp: cp.dots_with_no_batch_dims_saveable,
    "save_only_these_names": lambda cp: cp.save_only_these_names("h"),
    "save_any_names_but_these": lambda cp: cp.save_any_names_but_these("h"),
    "everything_saveable": lambda cp: cp.everything_saveable,
    "nothing_saveable": lambda cp: cp.nothing_saveable,
    "save_from_both_policies": lambda cp: cp.save_from_both_policies(
        cp.dots_saveable, cp.save_only_these_names("h")
    ),
    "offload_dot_with_no_batch_dims": lambda cp: cp.offload_dot_with_no_batch_dims("device", "pinned_host"),
    "save_and_offload_only_these_names": lambda cp: cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["h"],
        offload_src="device",
        offload_dst="pinned_host",
    ),
}


def _make_policy(program, policy):
    def make(jax):
        f = jax.checkpoint(program(jax), policy=_POLICIES[policy](jax.checkpoint_policies))
        return jax.grad(f), (np.array([0.3, -0.6, 0.9], np.float32),)

    return make


for _name, _program in (("dots_scan", _dots_scan), ("dots_batched", _dots_batched)):
    for _policy in _POLICIES:
        CASES[f"nested_ad.{_name}.grad_checkpoint[{_policy}]"] = _make_policy(_program, _policy)


# --- the policies inside loop bodies: what JAX's scan rule saves of a remat'ed body ---


def _dots_fori(jax):
    """A fori_loop (a scan: its trip count is static) whose body has a matrix product and a name."""
    lax, jnp = jax.lax, jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0
        body = lambda i, c: jnp.cos(checkpoint_name(jnp.sin(w @ c), "h")) * c + x
        return jnp.sum(lax.fori_loop(0, 3, body, x))

    return f


def _two_names_scan(jax):
    """A reversed scan with two named values, one of them a matrix product of the xs."""
    lax, jnp = jax.lax, jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0

        def body(c, a):
            g = checkpoint_name(w @ (a * c), "g")
            h = checkpoint_name(jnp.sin(g) * c, "h")
            return jnp.tanh(h), h * g

        c, ys = lax.scan(body, x, jnp.arange(1.0, 4.0), reverse=True)
        return jnp.sum(c * c) + jnp.sum(ys)

    return f


def _invariant_dot_scan(jax):
    """A scan whose body has a matrix product of its consts alone (hoisted before the loop) and
    one of its carry."""
    lax, jnp = jax.lax, jax.numpy

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0

        def body(c, a):
            v = jnp.sin(w @ w)
            return jnp.sin(v @ c) * a, jnp.cos(c)

        c, ys = lax.scan(body, x, jnp.arange(1.0, 3.0))
        return jnp.sum(c) + jnp.sum(ys)

    return f


def _nested_scan(jax):
    """A scan in a scan, the matrix product in the inner body."""
    lax, jnp = jax.lax, jax.numpy

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0

        def inner(c, a):
            return jnp.sin(w @ c) * a, c

        def outer(c, b):
            c, ys = lax.scan(inner, c, b + jnp.arange(2.0))
            return jnp.cos(c), jnp.sum(ys)

        c, zs = lax.scan(outer, x, jnp.arange(1.0, 3.0))
        return jnp.sum(c) + jnp.sum(zs)

    return f


def _dots_cond(jax):
    """A cond whose taken branch has a matrix product and a named value."""
    lax, jnp = jax.lax, jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0

        def taken(c):
            return jnp.cos(checkpoint_name(jnp.sin(w @ c), "h")) * c

        return jnp.sum(lax.cond(jnp.sum(x) > 0, taken, lambda c: jnp.sin(c) * c, x))

    return f


def _dots_switch(jax):
    """A switch whose branches save different residuals (merged into slots by type)."""
    lax, jnp = jax.lax, jax.numpy
    from jax.ad_checkpoint import checkpoint_name

    def f(x):
        w = jnp.arange(9.0, dtype=jnp.float32).reshape(3, 3) / 10.0
        branches = [
            lambda c: jnp.tanh(checkpoint_name(w @ c, "h")) * jnp.sum(c),
            lambda c: jnp.sin(checkpoint_name(jnp.cos(c), "h")) * (w @ c),
            lambda c: c * c,
        ]
        return jnp.sum(lax.switch(jnp.int32(x[0] > 0) + jnp.int32(x[1] > 0), branches, x))

    return f


_NAMED = ("dots_saveable", "save_only_these_names", "save_any_names_but_these", "nothing_saveable")
_UNNAMED = ("dots_saveable", "everything_saveable", "nothing_saveable")
for _name, _program, _policies in (
    ("dots_fori", _dots_fori, _NAMED),
    ("two_names_scan", _two_names_scan, _NAMED),
    ("invariant_dot_scan", _invariant_dot_scan, _UNNAMED),
    ("nested_scan", _nested_scan, _UNNAMED),
    ("dots_cond", _dots_cond, (*_NAMED, "everything_saveable")),
    ("dots_switch", _dots_switch, _NAMED),
):
    for _policy in _policies:
        CASES[f"nested_ad.{_name}.grad_checkpoint[{_policy}]"] = _make_policy(_program, _policy)


def _make_transformed_policy(program, policy, transform, mapped):
    def make(jax):
        f = jax.checkpoint(program(jax), policy=_POLICIES[policy](jax.checkpoint_policies))
        x = np.array([0.3, -0.6, 0.9], np.float32)
        return transform(jax, f), ((np.stack([x, -x]),) if mapped else (x,))

    return make


# (the policy's split under further transformations: a second derivative, vmap, linearize)
_POLICY_TRANSFORMS = {
    "grad_grad_checkpoint": (lambda jax, f: jax.grad(lambda x: jnp_sum(jax, jax.grad(f)(x))), False),
    "vmap_grad_checkpoint": (lambda jax, f: jax.vmap(jax.grad(f)), True),
    "hessian_checkpoint": (lambda jax, f: jax.hessian(f), False),
    "linearize_checkpoint": (lambda jax, f: lambda x: jax.linearize(f, x)[1](2.0 * x), False),
}


def jnp_sum(jax, x):
    return jax.numpy.sum(x)


for _name, _program in (("dots_scan", _dots_scan), ("dots_cond", _dots_cond)):
    for _kind, (_transform, _mapped) in _POLICY_TRANSFORMS.items():
        CASES[f"nested_ad.{_name}.{_kind}[dots_saveable]"] = _make_transformed_policy(
            _program, "dots_saveable", _transform, _mapped
        )
