"""``jax.scipy.stats``: log-densities, densities and distribution functions, one module per family.

>>> from engine.scipy.stats import norm
>>> norm.logpdf(0.0)
Array(-0.9189385, dtype=float32, weak_type=True)
"""

from . import (  # noqa: F401
    bernoulli,
    beta,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)
