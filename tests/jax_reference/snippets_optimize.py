"""Snippets for jax.scipy.optimize.minimize (BFGS and JAX's experimental L-BFGS). Registered in
snippets.py."""

ROSEN = (
    "from jax.scipy.optimize import minimize\n"
    "def rosen(x):\n    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)\n"
)
LBFGS = "'l-bfgs-experimental-do-not-rely-on-this'"
QUAD = (
    "from jax.scipy.optimize import minimize\n"
    "A = jnp.array([[3., 1., 0.], [1., 4., 1.], [0., 1., 2.]])\nb = jnp.array([1., -2., 0.5])\n"
    "def quad(x, A, b):\n    return 0.5 * x @ A @ x - b @ x\n"
)

OPTIMIZE = [
    # (this run ends in a failed line search near the minimum: the gradient there is float32 roundoff)
    ("bfgs_rosen", ROSEN + "out = tuple(minimize(rosen, jnp.zeros(3), method='BFGS'))", 1e-3),
    ("bfgs_rosen_2d", ROSEN + "out = tuple(minimize(rosen, jnp.array([-1.2, 1.0]), method='BFGS'))", 1e-3),
    ("bfgs_quadratic_args", QUAD + "out = tuple(minimize(quad, jnp.zeros(3), (A, b), method='bfgs'))", 1e-4),
    (
        "bfgs_options",
        ROSEN
        + "out = tuple(minimize(rosen, jnp.zeros(4), method='BFGS', options=dict(maxiter=5, gtol=1e-3)))",
        1e-4,
    ),
    (
        "bfgs_norm",
        QUAD + "out = tuple(minimize(quad, jnp.ones(3), (A, b), method='BFGS', options={'norm': 2}))",
        1e-4,
    ),
    (
        "bfgs_already_optimal",
        "from jax.scipy.optimize import minimize\nout = tuple(minimize(lambda x: jnp.sum(x ** 2), jnp.zeros(2), method='BFGS'))",
    ),
    ("lbfgs_rosen", ROSEN + f"out = tuple(minimize(rosen, jnp.zeros(3), method={LBFGS}))", 1e-4),
    # (the minimum is reached in 4 steps; whether the 5th line search then fails depends on a
    # gradient of roundoff size, so only where it ends is compared)
    (
        "lbfgs_quadratic",
        QUAD
        + f"r = minimize(quad, jnp.zeros(3), (A, b), method={LBFGS})\nout = (r.x, r.fun, bool(r.nit >= 4))",
        1e-4,
    ),
    (
        "lbfgs_quadratic_steps",
        QUAD + f"out = tuple(minimize(quad, jnp.zeros(3), (A, b), method={LBFGS}, options=dict(maxiter=3)))",
        1e-4,
    ),
    (
        "lbfgs_options",
        ROSEN
        + f"out = tuple(minimize(rosen, jnp.array([-1.2, 1.0]), method={LBFGS}, options=dict(maxiter=10, maxcor=3)))",
        1e-3,
    ),
    (
        "lbfgs_complex",
        "from jax.scipy.optimize import minimize\n"
        f"out = tuple(minimize(lambda z: jnp.sum(jnp.abs(z - (1 + 2j)) ** 2), jnp.zeros(2, jnp.complex64), method={LBFGS}))",
        1e-4,
    ),
    (
        "jit_bfgs",
        QUAD + "out = jax.jit(lambda x0: minimize(quad, x0, (A, b), method='BFGS').x)(jnp.zeros(3))",
        1e-4,
    ),
    (
        "vmap_bfgs",
        ROSEN
        + "out = jax.vmap(lambda x0: minimize(rosen, x0, method='BFGS').fun)(jnp.array([[0., 0.], [-1.2, 1.], [2., 2.]]))",
        1e-3,
    ),
    ("err_method", ROSEN + "out = minimize(rosen, jnp.zeros(2), method='Nelder-Mead')"),
    ("err_args", QUAD + "out = minimize(quad, jnp.zeros(3), [A, b], method='BFGS')"),
    ("fields", "from jax.scipy.optimize import OptimizeResults\nout = list(OptimizeResults._fields)"),
]
