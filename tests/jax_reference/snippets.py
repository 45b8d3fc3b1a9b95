"""Snippets replayed under JAX 0.10.2 (record.py) and under the engine (test_jax_reference.py).

``SNIPPETS[topic]`` is a list of ``(name, code)`` or ``(name, code, rtol)``; the code sets ``out``.
"""

Z = "z = jnp.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], dtype=jnp.complex64)\n"

COMPLEX = [
    ("real_scalar", "out = jnp.real(1 + 2j)"),
    ("imag_scalar", "out = jnp.imag(1 + 2j)"),
    ("conj_scalar", "out = jnp.conj(1 + 2j)"),
    ("real_array", Z + "out = (jnp.real(z), jnp.imag(z), jnp.conj(z), z.real, z.imag, z.conj())"),
    ("abs_angle", Z + "out = (jnp.abs(z), jnp.angle(z), jnp.angle(z, deg=True))"),
    ("real_of_real", "out = (jnp.real(jnp.arange(3.)), jnp.imag(jnp.arange(3.)), jnp.conj(jnp.arange(3)))"),
    ("arith", Z + "out = (z + z, z - 1, z * z, z / (1 + 1j), 2 * z, z ** 2, -z, z ** 0.5)"),
    ("exp_log", Z + "out = (jnp.exp(z), jnp.log(z), jnp.log1p(z), jnp.expm1(z), jnp.sqrt(z))"),
    ("trig", Z + "out = (jnp.sin(z), jnp.cos(z), jnp.tan(z), jnp.tanh(z), jnp.sinh(z), jnp.cosh(z))"),
    ("inverse_trig", Z + "out = (jnp.arcsin(z), jnp.arccos(z), jnp.arctan(z), jnp.arcsinh(z))"),
    ("sign", Z + "out = jnp.sign(z)"),
    ("matmul", Z + "m = jnp.outer(z, jnp.conj(z))\nout = (m @ z, jnp.dot(z, z), jnp.vdot(z, z))"),
    ("einsum", Z + "out = jnp.einsum('i,i->', z, z)"),
    ("reductions", Z + "out = (jnp.sum(z), jnp.mean(z), jnp.prod(z), jnp.cumsum(z))"),
    ("var_std_norm", Z + "out = (jnp.var(z), jnp.std(z), jnp.linalg.norm(z))"),
    ("max_min", Z + "out = (jnp.max(z), jnp.min(z), jnp.sort(z))"),
    ("isclose", Z + "out = (jnp.allclose(z, z), jnp.isclose(z, z + 1e-3j))"),
    ("round", Z + "out = jnp.round(z * 1.3)"),
    ("iscomplex", Z + "out = (jnp.iscomplex(z.real + 0j), jnp.isreal(z), jnp.iscomplexobj(z))"),
    ("linspace", "out = jnp.linspace(0, 1j, 3)"),
    ("astype_real", Z + "out = z.astype(jnp.float32)"),
    ("lax_complex", "out = lax.complex(jnp.float32(1), jnp.float32(2))"),
    ("lax_conj_real", "out = lax.conj(1.0)"),
    ("where", Z + "out = jnp.where(jnp.array([True, False, True]), z, 0)"),
    # Autodiff: JAX's convention (no conjugation in transposes).
    ("vjp_z_conj_z", "out = jax.vjp(lambda z: z * jnp.conj(z), 1 + 2j)[1](1.0 + 0j)"),
    ("grad_abs_sq", "out = jax.grad(lambda z: jnp.abs(z) ** 2)(3 + 4j)"),
    ("grad_abs", "out = jax.grad(jnp.abs)(1 + 2j)"),
    ("grad_real_part", "out = jax.grad(lambda z: jnp.real(z * jnp.conj(z)))(1 + 2j)"),
    ("grad_holomorphic", "out = jax.grad(lambda z: z * z, holomorphic=True)(1 + 2j)"),
    ("grad_holomorphic_sin", "out = jax.grad(jnp.sin, holomorphic=True)(1 + 2j)"),
    (
        "grad_holomorphic_exp_log",
        "out = jax.grad(lambda z: jnp.exp(z) * jnp.log(z), holomorphic=True)(0.5 + 1j)",
    ),
    ("grad_real_of_complex_path", "out = jax.grad(lambda x: jnp.abs(jnp.exp(1j * x) * x))(2.0)"),
    (
        "grad_real_imag",
        "out = jax.grad(lambda x: jnp.real(jnp.exp(1j * x)) + jnp.imag(jnp.exp(2j * x)))(0.3)",
    ),
    ("jvp_abs", "out = jax.jvp(jnp.abs, (1 + 2j,), (1j,))"),
    ("jacfwd_holo", "out = jax.jacfwd(lambda z: z * z, holomorphic=True)(jnp.array([1 + 2j, 3j]))"),
    ("jacrev_holo", "out = jax.jacrev(lambda z: z * z, holomorphic=True)(jnp.array([1 + 2j, 3j]))"),
    ("jacfwd_real_to_complex", "out = jax.jacfwd(lambda x: jnp.exp(1j * x))(jnp.array([1., 2.]))"),
    ("jacrev_abs", "out = jax.jacrev(jnp.abs)(1 + 2j)"),
    ("hessian_holo", "out = jax.hessian(lambda z: z ** 3, holomorphic=True)(1 + 1j)"),
    ("vmap_complex", Z + "out = jax.vmap(lambda z: jnp.abs(z) * jnp.conj(z))(z)"),
    ("jit_complex", Z + "out = jax.jit(lambda z: jnp.exp(z) * jnp.conj(z) + jnp.real(z))(z)"),
    ("jit_grad_complex", "out = jax.jit(jax.grad(lambda z: jnp.abs(jnp.sin(z)) ** 2))(1 + 2j)"),
    # What JAX refuses (an error here, never a wrong value).
    ("err_grad_complex_out", "out = jax.grad(lambda z: z * z)(1 + 2j)"),
    ("err_grad_holo_real_out", "out = jax.grad(lambda z: jnp.real(z * z), holomorphic=True)(1 + 2j)"),
    ("err_grad_holo_real_in", "out = jax.grad(lambda z: z * z, holomorphic=True)(1.)"),
    ("err_jacfwd_complex_in", "out = jax.jacfwd(lambda z: z * z)(1 + 2j)"),
    ("err_jacrev_complex_out", "out = jax.jacrev(lambda x: jnp.exp(1j * x))(jnp.array([1., 2.]))"),
    ("err_floor", "out = lax.floor(jnp.complex64(1 + 2j))"),
    ("err_lt", "out = lax.lt(jnp.complex64(1 + 2j), jnp.complex64(1j))"),
    ("err_rem", "out = lax.rem(jnp.complex64(1 + 2j), jnp.complex64(1j))"),
    ("err_erf", "out = lax.erf(jnp.complex64(1 + 2j))"),
    ("err_argmax", Z + "out = jnp.argmax(z)"),
    ("err_clip", Z + "out = jnp.clip(z, 0, 1)"),
    ("err_mod", Z + "out = z % z"),
    ("err_less", Z + "out = z < z"),
]

LAX_ERRORS = [
    ("add_int_float", "out = lax.add(1, 1.0)"),
    ("add_float_int_array", "out = lax.add(jnp.int32(1), 1.0)"),
    ("add_same_scalars", "out = (lax.add(1.0, 2.0), lax.add(1, 2))"),
    ("tree_map_mixed_keys", "out = jax.tree.map(lambda x: x, {1: 1.0, 'a': 2.0})"),
    ("tree_leaves_mixed_keys", "out = jax.tree.leaves({1: 1.0, 'a': 2.0})"),
    ("tree_map_int_keys", "out = jax.tree.map(lambda x: x * 2, {2: 1.0, 1: 2.0})"),
]

SNIPPETS = {"complex": COMPLEX, "lax_errors": LAX_ERRORS}
COMPLEX += [
    (
        "less_lexicographic",
        "a = jnp.array([1 + 2j, 1 + 1j, 0 + 5j])\nb = jnp.array([1 + 1j, 1 + 1j, 1 + 0j])\nout = (a < b, a <= b, a > b, a >= b)",
    ),
]

# Known differences, checked for everything but the weak type: JAX returns a strong cotangent for
# a weak complex input of a non-holomorphic function (but a weak one for real inputs); the engine
# matches the input's weak type in both cases.
WEAK_TYPE_DIFFERS = {"grad_abs_sq", "grad_abs", "grad_real_part", "jit_grad_complex"}
