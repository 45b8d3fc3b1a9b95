"""Snippets for the jax.scipy.special functions built from lax operations (erfcx, wofz, dawsn,
owens_t, fresnel, the exponential and trigonometric integrals, spence, hypergeometric functions,
Bernoulli numbers, Bessel J_n, spherical harmonics) and their derivatives. Registered in snippets.py."""

S = "from jax.scipy import special as sp\n"
X = S + "x = jnp.array([-30., -3., -0.5, 0., 0.3, 2., 9., 9.5, 30., 1e5, jnp.inf, -jnp.inf, jnp.nan])\n"
P = S + "x = jnp.array([1e-3, 0.3, 1., 2., 3.5, 4.5, 7., 12., 20., 40., 70., 200.])\n"

SPECIAL_MORE = [
    ("erfcx", X + "out = (sp.erfcx(x), sp.erfcx(2), sp.erfcx(jnp.float32(0.5)))", 2e-6),
    ("erfcx_complex", S + "out = sp.erfcx(jnp.array([1 + 1j, -2 + 0.5j, 0.3 - 2j]))", 2e-6),
    ("erfcx_grad", S + "out = jax.vmap(jax.grad(sp.erfcx))(jnp.array([-2., 0., 1., 12.]))", 2e-6),
    ("wofz", S + "out = (sp.wofz(jnp.array([1 + 1j, -2 - 0.5j, 0.3j, 3., -1j])), sp.wofz(0.5))", 2e-6),
    (
        "wofz_grad",
        S + "out = jax.grad(lambda z: sp.wofz(z), holomorphic=True)(jnp.complex64(0.5 + 0.7j))",
        2e-6,
    ),
    ("dawsn", X + "out = (sp.dawsn(x), sp.dawsn(jnp.array([3.2, 3.3, 6.2, 6.3])), sp.dawsn(1))", 2e-6),
    ("dawsn_grad", S + "out = jax.vmap(jax.grad(sp.dawsn))(jnp.array([-4., 0., 1., 5., 8.]))", 2e-6),
    ("err_dawsn_complex", S + "out = sp.dawsn(jnp.array([1j]))"),
    (
        "owens_t",
        S + "h = jnp.array([0., 0.5, -1., 2., 3., 0.1, jnp.nan, 1.])\n"
        "a = jnp.array([0.5, 2., -0.3, 1., 5., 1e-3, 1., jnp.inf])\n"
        "out = (sp.owens_t(h, a), sp.owens_t(0.5, 2.), sp.owens_t(h[:, None], a[None, :3]))",
        2e-6,
    ),
    (
        "owens_t_grad",
        S
        + "out = (jax.grad(sp.owens_t, (0, 1))(0.5, 2.), jax.vmap(jax.grad(sp.owens_t, 1))(jnp.array([0., 1., 2.]), jnp.array([0.5, -3., 1.])))",
        2e-6,
    ),
    (
        "expi",
        X
        + "out = (sp.expi(x), sp.expi(P := jnp.array([1e-3, 1.9, 2.1, 5., 9., 17., 33., 65., 80.])), sp.expi(2))",
        2e-6,
    ),
    ("exp1", X + "out = (sp.exp1(x), sp.exp1(jnp.array([1e-3, 0.7, 1., 1.5, 4., 60.])), sp.exp1(1))", 2e-6),
    (
        "expn",
        X
        + "out = (sp.expn(3, x), sp.expn(jnp.array([0, 1, 2, 5, 6000, -1]), jnp.array([0.5, 2., 0., 1., 3., 1.])), "
        "sp.expn(jnp.arange(4)[:, None], jnp.array([0.2, 1.5])[None]), sp.expn(2, 0.5))",
        2e-6,
    ),
    (
        "expint_grads",
        S + "x = jnp.array([0.3, 1.5, 5., 40.])\n"
        "out = (jax.vmap(jax.grad(sp.expi))(x), jax.vmap(jax.grad(sp.expi))(-x), jax.vmap(jax.grad(sp.exp1))(x), "
        "jax.vmap(jax.grad(lambda x: sp.expn(3, x)))(x), jax.grad(sp.expi)(2.))",
        2e-6,
    ),
    ("sici", X + "out = (sp.sici(x), sp.sici(jnp.array([3.9, 4.1, 7.9, 8.1, 1e9, 2e9])), sp.sici(1))", 2e-6),
    (
        "sici_grad",
        S + "x = jnp.array([-3., 0.5, 6., 20.])\n"
        "out = (jax.vmap(jax.grad(lambda x: sp.sici(x)[0]))(x), jax.vmap(jax.grad(lambda x: sp.sici(x)[1]))(x))",
        2e-6,
    ),
    (
        "spence",
        S + "x = jnp.array([-1., 0., 1e-4, 0.3, 0.5, 1., 1.4, 1.6, 2., 2.5, 10., 1e4, jnp.inf, jnp.nan])\n"
        "out = (sp.spence(x), sp.spence(jnp.float32(3.)), jax.vmap(jax.grad(sp.spence))(jnp.array([0.3, 0.7, 1.7, 3.])))",
        2e-6,
    ),
    ("err_spence_int", S + "out = sp.spence(jnp.arange(3))"),
    ("err_expi_complex", S + "out = sp.expi(jnp.array([1j]))"),
    (
        "expi_jit_vmap",
        S
        + "out = (jax.jit(sp.expi)(jnp.array([-1., 3.])), jax.vmap(lambda n, x: sp.expn(n, x))(jnp.array([1., 2.]), jnp.array([0.5, 3.])))",
        2e-6,
    ),
    (
        "fresnel",
        X + "out = (sp.fresnel(x), sp.fresnel(jnp.array([1.5, 1.6, 5., 36973., 4e4])), sp.fresnel(2))",
        2e-6,
    ),
    (
        "fresnel_grad",
        S
        + "out = jax.vmap(jax.grad(lambda x: sp.fresnel(x)[0] + 2 * sp.fresnel(x)[1]))(jnp.array([-2., 0.3, 1.7, 4.]))",
        2e-6,
    ),
    ("err_fresnel_complex", S + "out = sp.fresnel(jnp.array([1j]))"),
    (
        "hyp1f1",
        S + "a = jnp.array([1., 0.5, 0., 2., 3., -1.5, 1.])\nb = jnp.array([2., 1.5, 1., 2., 0., 2.5, 3.])\n"
        "x = jnp.array([0.5, -3., 2., 1.5, 1., 20., 120.])\nout = (sp.hyp1f1(a, b, x), sp.hyp1f1(1., 2., 0.5), sp.hyp1f1(0.5, 1.5, jnp.array([[-1.], [2.]])))",
        2e-5,
    ),
    (
        "hyp1f1_grad",
        S
        + "out = (jax.grad(sp.hyp1f1, (0, 1, 2))(1.2, 2.5, 0.7), jax.vmap(jax.grad(sp.hyp1f1, 2))(jnp.array([0.5, 2.]), jnp.array([1., 3.]), jnp.array([-1., 4.])))",
        2e-5,
    ),
    (
        "hyp2f1",
        S
        + "a = jnp.array([1., -2., 0.5, 1., 0., 1., 2., 1.5, 0.3, -3., 1.])\nb = jnp.array([1., 1.5, 1., 1.5, 2., 2., 1., 0.5, 0.7, 2., 1.])\n"
        "c = jnp.array([2., 3., 1., 3.5, 1., 2., 3., 2., 1.2, -4., 2.])\nx = jnp.array([0.5, 0.3, 0.95, 1., 0.4, 0.95, 0.97, -0.5, 0.92, 0.5, 1.5])\n"
        "out = (sp.hyp2f1(a, b, c, x), sp.hyp2f1(1., 1., 2., 0.5), sp.hyp2f1(1., 2., 3., -2.))",
        2e-5,
    ),
    ("hyp2f1_grad", S + "out = jax.grad(sp.hyp2f1, (0, 1, 2, 3))(1., 1.5, 2.5, 0.5)", 2e-5),
    ("bernoulli", S + "out = (sp.bernoulli(0), sp.bernoulli(2), sp.bernoulli(3), sp.bernoulli(12))", 2e-6),
    ("err_bernoulli_negative", S + "out = sp.bernoulli(-1)"),
    (
        "bessel_jn",
        S + "z = jnp.array([0.5, 1., 2., 10., 20.])\n"
        "out = (sp.bessel_jn(z, v=3, n_iter=20), sp.bessel_jn(z.reshape(5, 1), v=0, n_iter=30), sp.bessel_jn(jnp.array([1., 2.]), v=1), sp.bessel_jn(1.5, v=2, n_iter=15))",
        2e-5,
    ),
    (
        "bessel_jn_grad",
        S
        + "out = jax.vmap(jax.grad(lambda z: sp.bessel_jn(z, v=2, n_iter=20)[2]))(jnp.array([0.5, 1.5, 7.]))",
        2e-5,
    ),
    ("err_bessel_jn_complex", S + "out = sp.bessel_jn(jnp.array([1j]), v=1)"),
    (
        "sph_harm_y",
        S + "n = jnp.array([0, 1, 2, 3, 4, 2])\nm = jnp.array([0, -1, 2, 1, -3, 0])\n"
        "theta = jnp.array([0.3, 0.5, 1., 2., 2.8, 1.2])\nphi = jnp.array([0.1, 0.2, 0.3, 0.4, 5., 1.])\n"
        "out = (sp.sph_harm_y(n, m, theta, phi), sp.sph_harm_y(n, m, theta, phi, n_max=2), sp.sph_harm_y(jnp.array([1]), jnp.array([1]), 0.7, jnp.array([0.2])))",
        2e-5,
    ),
    (
        "sph_harm_y_grad",
        S
        + "out = jax.grad(lambda t: sp.sph_harm_y(jnp.array([2, 3]), jnp.array([1, -2]), t, jnp.array([0.3, 1.])).real.sum())(jnp.array([0.5, 1.5]))",
        2e-5,
    ),
    ("err_sph_harm_diff_n", S + "out = sp.sph_harm_y(jnp.array([1]), jnp.array([0]), 0.5, 0.5, diff_n=1)"),
    ("err_sph_harm_removed", S + "out = sp.sph_harm"),
    # (deprecated in JAX, still there: a DeprecationWarning on access)
    (
        "lpmn",
        S + "import warnings\nwarnings.simplefilter('ignore')\nz = jnp.array([-0.7, 0.1, 0.5, 0.99])\n"
        "out = [sp.lpmn(n, n, z) for n in (0, 1, 2, 4)] + [sp.lpmn_values(n, n, z, norm) for n in (1, 3) for norm in (True, False)]",
        2e-5,
    ),
    (
        "lpmn_grad",
        S + "import warnings\nwarnings.simplefilter('ignore')\nz = jnp.array([-0.7, 0.1, 0.5, 0.9])\n"
        "out = (jax.grad(lambda z: sp.lpmn_values(3, 3, z, False).sum())(z), jax.jit(lambda z: sp.lpmn(2, 2, z)[1])(z))",
        2e-5,
    ),
    ("err_lpmn_m_ne_n", S + "out = sp.lpmn(1, 2, jnp.array([0.5]))"),
    ("err_lpmn_2d", S + "out = sp.lpmn(1, 1, jnp.array([[0.5]]))"),
    ("err_lpmn_int", S + "out = sp.lpmn(1, 1, jnp.arange(3))"),
]
