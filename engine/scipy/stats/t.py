"""Student's t distribution."""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    scaled_x = (x - loc) / scale
    df_over_two = df / 2
    df_plus_one_over_two = df_over_two + 0.5
    normalize_term = (
        special.gammaln(df_over_two)
        + jnp.log(scale * scale * np.pi * df) / 2
        - special.gammaln(df_plus_one_over_two)
    )
    quadratic = scaled_x * scaled_x / df
    return -(normalize_term + df_plus_one_over_two * jnp.log1p(quadratic))


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
