"""The chi-squared distribution: gamma(df / 2, scale 2)."""

from __future__ import annotations

from . import gamma
from ._common import promote


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    return gamma.logpdf(x, df / 2, loc, 2 * scale)


def pdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.pdf", x, df, loc, scale)
    return gamma.pdf(x, df / 2, loc, 2 * scale)


def cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.cdf", x, df, loc, scale)
    return gamma.cdf(x, df / 2, loc, 2 * scale)


def logcdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.logcdf", x, df, loc, scale)
    return gamma.logcdf(x, df / 2, loc, 2 * scale)


def sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.sf", x, df, loc, scale)
    return gamma.sf(x, df / 2, loc, 2 * scale)


def logsf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote("chi2.logsf", x, df, loc, scale)
    return gamma.logsf(x, df / 2, loc, 2 * scale)
