"""Snippets for lax.bessel_i0e/bessel_i1e, jax.scipy.special.i0/i0e/i1/i1e, jnp.i0 and
jnp.kaiser (issue 13). Registered in snippets.py."""

X = "x = jnp.array([-800., -60., -3., -1e-3, 0., 1e-8, 0.5, 2., 10., 49.9, 50.1, 120., 1e4, jnp.inf, jnp.nan])\n"
S = "from jax.scipy import special as sp\n"

BESSEL = [
    ("lax_bessel", X + "out = (lax.bessel_i0e(x), lax.bessel_i1e(x))"),
    (
        "scipy_i",
        S
        + "x = jnp.array([-20., -1.5, 0., 0.25, 3., 15.])\nout = (sp.i0(x), sp.i0e(x), sp.i1(x), sp.i1e(x), sp.i0(2))",
    ),
    ("jnp_i0", "out = (jnp.i0(jnp.array([-2., 0., 0.5, 7.])), jnp.i0(3))"),
    ("err_jnp_i0_complex", "out = jnp.i0(jnp.array([1+1j]))"),
    ("kaiser", "out = (jnp.kaiser(6, 14.), jnp.kaiser(5, 0.5), jnp.kaiser(1, 3.), jnp.kaiser(0, 3.))"),
    (
        "bessel_grads",
        "x = jnp.array([-60., -3., -1e-3, 1e-8, 0.5, 2., 10.])\n"
        "out = (jax.vmap(jax.grad(lax.bessel_i0e))(x), jax.vmap(jax.grad(lax.bessel_i1e))(x), jax.grad(lax.bessel_i1e)(jnp.float32(0.)))",
        1e-4,
    ),
    ("i0_grad_at_zero", "out = (jax.grad(jnp.i0)(0.), jax.grad(jnp.i0)(1.5), jax.grad(jnp.i0)(-1.5))"),
    ("bessel_jaxpr", "out = str(jax.make_jaxpr(jax.grad(lax.bessel_i0e))(1.))"),
    ("bessel_jit_vmap", "out = jax.jit(jax.vmap(lax.bessel_i1e))(jnp.arange(-2., 3.))"),
    (
        "boxcox",
        S + "x = jnp.array([0.5, 1., 2., 10.])\nl = jnp.array([0., 0.5, -1., 2.])\n"
        "out = (sp.boxcox(x, l), sp.boxcox1p(x, l), sp.boxcox(3., 0.), jax.grad(sp.boxcox1p)(0.5, 0.3))",
    ),
]
