"""``jax.scipy.stats``: log-densities, densities and distribution functions, one module per family.

>>> from engine.scipy.stats import norm
>>> norm.cdf(0.0)
Array(0.5, dtype=float32)
"""

from . import (  # noqa: F401
    bernoulli,
    beta,
    betabinom,
    binom,
    cauchy,
    chi2,
    dirichlet,
    expon,
    gamma,
    gennorm,
    geom,
    gumbel_l,
    gumbel_r,
    laplace,
    logistic,
    multinomial,
    multivariate_normal,
    nbinom,
    norm,
    pareto,
    poisson,
    t,
    truncnorm,
    uniform,
    vonmises,
    wrapcauchy,
)
from ._descriptive import mode, rankdata, sem  # noqa: F401
from .kde import gaussian_kde  # noqa: F401
