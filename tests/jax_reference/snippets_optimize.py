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

LOGISTIC = (
    "from jax.scipy.optimize import minimize\n"
    "rng = np.random.default_rng(0)\n"
    "X = rng.normal(size=(100, 20)).astype(np.float32)\n"
    "y = (X @ rng.normal(size=20) + 0.5 * rng.normal(size=100) > 0).astype(np.float32)\n"
    "def loss(w, X, y):\n"
    "    p = 0.5 * (jnp.tanh((X @ w[1:] + w[0]) / 2) + 1)\n"
    "    return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))\n"
)
HIMMELBLAU = (
    "from jax.scipy.optimize import minimize\n"
    "def himmelblau(p):\n    return (p[0] ** 2 + p[1] - 11) ** 2 + (p[0] + p[1] ** 2 - 7) ** 2\n"
)
# Bit for bit (rtol 0): the steps JAX takes, which depend on the multiply-adds XLA fuses in the
# loops' bodies (backends/multiply_add.py).
_FIELDS = "(r.x, r.fun, r.jac, r.nit, r.nfev, r.njev, r.status)"

OPTIMIZE = [
    (
        "bfgs_logistic_bits",
        LOGISTIC + f"r = minimize(loss, jnp.zeros(21), (X, y), method='BFGS')\nout = {_FIELDS}",
        0.0,
    ),
    (
        "bfgs_logistic_steps_bits",
        LOGISTIC
        + "out = [tuple(minimize(loss, jnp.zeros(21), (X, y), method='BFGS', options=dict(maxiter=k)))[:5] for k in (1, 2, 4)]",
        0.0,
    ),
    (
        "bfgs_himmelblau_bits",
        HIMMELBLAU + f"r = minimize(himmelblau, jnp.array([-1.0, 0.5]), method='BFGS')\nout = {_FIELDS}",
        0.0,
    ),
    (
        "lbfgs_logistic_bits",
        LOGISTIC + f"r = minimize(loss, jnp.zeros(21), (X, y), method={LBFGS})\nout = {_FIELDS}",
        0.0,
    ),
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
