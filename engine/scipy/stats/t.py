"""Student's t distribution."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from ... import numpy as jnp
from .. import special


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = _const(x, 2)
    z = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    half_df_plus_half = lax.add(half_df, _const(x, 0.5))
    scale_sq_pi = lax.mul(lax.mul(scale, scale), _const(x, np.pi))
    log_sqrt_term = lax.div(lax.log(lax.mul(scale_sq_pi, df)), two)
    log_normalizer = lax.sub(
        lax.add(special.gammaln(half_df), log_sqrt_term), special.gammaln(half_df_plus_half)
    )
    quadratic = lax.div(lax.mul(z, z), df)
    return lax.neg(lax.add(log_normalizer, lax.mul(half_df_plus_half, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
