"""Bessel functions of the first kind of integer order and spherical harmonics of
jax.scipy.special: ``bessel_jn`` (Zhang and Jin's backward recurrence, normalised by the
Neumann sum ``J_0 + 2 J_2 + 2 J_4 + ... = 1``) and ``sph_harm_y`` (normalised associated
Legendre functions by their three-term recurrences), composed of lax operations as JAX
composes them, so they differentiate, vmap and jit.

>>> bessel_jn(jnp.array([1.0, 2.0]), v=1, n_iter=20)
Array([[0.7651977, 0.2238908],
       [0.4400506, 0.5767248]], dtype=float32)
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import core, lax
from .. import numpy as jnp
from ..api import jit, vmap
from ..numpy._promote import promote_dtypes_inexact

# ---------------------------------------------------------------------------------------------
# J_n by backward recurrence J_{k-1} = 2k / z J_k - J_{k+1}, started far above n from (0, 1e-16)
# and scaled so the Neumann sum is 1.


def _recurrence_step(carry, k):
    f0, f1, neumann, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    neumann = lax.cond(jnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0], (neumann, f))
    return (f1, f, neumann, z), f


def _bessel_jn_scalar(z, *, v: int, n_iter: int):
    zero = np.array(0.0, z.dtype)
    init = (zero, np.array(1e-16, z.dtype), zero, z)
    (_, _, neumann, _), values = lax.scan(_recurrence_step, init, lax.iota(z.dtype, n_iter + 1), reverse=True)
    last = values[0]  # (the last step's value, read before the orders kept, as JAX's program)
    return values[: v + 1] / (neumann - last)


@functools.partial(jit, static_argnames=["v", "n_iter"])
def bessel_jn(z, *, v: int, n_iter: int = 50):
    """Bessel functions of the first kind ``J_0(z) .. J_v(z)`` of real ``z``, stacked on a new
    leading axis (shape ``(v + 1, *z.shape)``). ``n_iter`` recurrence steps (the default 50 is
    enough for ``|z|`` up to about 20)."""
    z = jnp.asarray(z)
    (z,) = promote_dtypes_inexact(z)
    if jnp.iscomplexobj(z):
        # (JAX's own check misses complex64, which then fails in rem with a TypeError.)
        raise TypeError(f"bessel_jn does not accept dtype {z.dtype.name}: complex input not supported.")
    v = operator.index(core.concrete_or_error(v, "Argument v of bessel_jn.").item())
    n_iter = int(core.concrete_or_error(n_iter, "Argument n_iter of bessel_jn."))
    fn = functools.partial(_bessel_jn_scalar, v=v, n_iter=n_iter)
    for _ in range(z.ndim):
        fn = vmap(fn)
    return jnp.moveaxis(fn(z), -1, 0)


# ---------------------------------------------------------------------------------------------
# Normalised associated Legendre functions P_l^m(x) for 0 <= m, l <= l_max: the diagonal
# P_l^l, the first off-diagonal P_{l+1}^l = sqrt(2l + 3) x P_l^l, then
# P_l^m = d0(l, m) x P_{l-1}^m - d1(l, m) P_{l-2}^m for l = 2 .. l_max.


def _recurrence_masks(l_max: int, dtype, is_normalized: bool):
    """(d0, d1) of the three-term recurrence, laid out so that step i of the loop adds
    ``d0[i] * x * roll(p, 1) - d1[i] * roll(p, 2)`` exactly on the entries with l = i + m."""
    m, l = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype), jnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    if is_normalized:
        l2, m2 = l * l, m * m
        two_l, lm1_2 = 2.0 * l, (l - 1.0) * (l - 1.0)
        d0 = jnp.sqrt((4.0 * l2 - 1.0) / (l2 - m2))
        d1 = jnp.sqrt(((two_l + 1.0) * (lm1_2 - m2)) / ((two_l - 3.0) * (l2 - m2)))
    else:
        d0 = (2.0 * l - 1.0) / (l - m)
        d1 = (l + m - 1.0) / (l - m)
    above_diagonal, two_above = jnp.triu_indices(l_max + 1, 1), jnp.triu_indices(l_max + 1, 2)
    zeros = jnp.zeros((l_max + 1, l_max + 1), dtype=dtype)
    d0 = zeros.at[above_diagonal].set(d0[above_diagonal])
    d1 = zeros.at[two_above].set(d1[two_above])
    i, j, k = jnp.ogrid[: l_max + 1, : l_max + 1, : l_max + 1]
    on_plane = (i + j - k == 0).astype(dtype)
    return jnp.einsum("jk,ijk->ijk", d0, on_plane), jnp.einsum("jk,ijk->ijk", d1, on_plane)


@functools.partial(jit, static_argnums=(0, 2))
def _gen_associated_legendre(l_max: int, x, is_normalized: bool):
    """P_l^m(x), shape (m, l, len(x)); normalised (``is_normalized``) so the spherical harmonics
    are orthonormal, else as scipy's ``lpmn`` (with the Condon-Shortley phase)."""
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
    a_idx = jnp.arange(1, l_max + 1, dtype=x.dtype)
    b_idx = jnp.arange(l_max, dtype=x.dtype)
    if is_normalized:
        p00 = 0.5 / jnp.sqrt(np.pi)
        f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a_idx))
        f_b = jnp.sqrt(2.0 * b_idx + 3.0)
    else:
        p00 = 1.0
        f_a = jnp.cumprod(1.0 - 2.0 * a_idx)
        f_b = 2.0 * b_idx + 1.0
    p = p.at[(0, 0)].set(p00)
    sin_powers = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    on_diagonal = p00 * jnp.einsum("i,ij->ij", f_a, sin_powers)
    diagonal = jnp.diag_indices(l_max + 1)
    p = p.at[(diagonal[0][1:], diagonal[1][1:])].set(on_diagonal)
    off_diagonal = jnp.einsum("ij,ij->ij", jnp.einsum("i,j->ij", f_b, x), p[jnp.diag_indices(l_max)])
    p = p.at[(diagonal[0][:l_max], diagonal[1][:l_max] + 1)].set(off_diagonal)
    d0, d1 = _recurrence_masks(l_max, x.dtype, is_normalized)

    def step(i, p):
        c0, c1 = d0[i], d1[i]  # (taken first, as JAX's body takes them)
        shifted_x = jnp.einsum("ijk,k->ijk", jnp.roll(p, shift=1, axis=1), x)
        return p + (
            jnp.einsum("ij,ijk->ijk", c0, shifted_x)
            - jnp.einsum("ij,ijk->ijk", c1, jnp.roll(p, shift=2, axis=1))
        )

    p = p.astype(jnp.result_type(p, x, d0))
    if l_max > 1:
        p = lax.fori_loop(lower=2, upper=l_max + 1, body_fun=step, init_val=p)
    return p


@jit
def _gen_derivatives(p, x):
    """dP_l^m/dx of the unnormalised functions ``p`` (shape (m, l, len(x))), from the recurrences
    for P_l^{m-1} and P_l^{m+1} in terms of degree l - 1 (JAX's; m = 1 is singular at |x| = 1 and
    has its own formula)."""
    num_m, num_l, _ = p.shape
    p_m_lm1 = jnp.pad(p, ((0, 0), (1, 0), (0, 0)))[:, :num_l, :]  # P_{l-1}^m
    p_mp2_lm1 = jnp.pad(p_m_lm1, ((0, 2), (0, 0), (0, 0)))[2 : num_m + 2, :, :]  # P_{l-1}^{m+2}
    p_mm2_lm1 = jnp.pad(p_m_lm1, ((2, 0), (0, 0), (0, 0)))[:num_m, :, :]  # P_{l-1}^{m-2}
    # the negative orders m - 2 < 0 the recurrence reads, from P_l^-m = (-1)^m (l-m)!/(l+m)! P_l^m
    # (each block slices p before its coefficient, as JAX's program)
    if num_l > 1:
        l_vec = jnp.arange(1, num_l - 1, dtype=x.dtype)
        p_1 = p[1, 1 : num_l - 1, :]
        p_mm2_lm1 = p_mm2_lm1.at[1, 2:num_l, :].set(jnp.einsum("i,ij->ij", -1.0 / ((l_vec + 1) * l_vec), p_1))
    if num_l > 2:
        l_vec = jnp.arange(2, num_l - 1, dtype=x.dtype)
        p_2 = p[2, 2 : num_l - 1, :]
        coeff = 1.0 / ((l_vec + 2) * (l_vec + 1) * l_vec * (l_vec - 1))
        p_mm2_lm1 = p_mm2_lm1.at[0, 3:num_l, :].set(jnp.einsum("i,ij->ij", coeff, p_2))
    m, l = jnp.meshgrid(jnp.arange(num_m, dtype=x.dtype), jnp.arange(num_l, dtype=x.dtype), indexing="ij")
    zeros = jnp.zeros((num_m, num_l), dtype=x.dtype)
    upper = jnp.triu_indices(num_m, 0, num_l)
    no_row = jnp.zeros((num_l,), dtype=x.dtype)

    def masked(c, drop_m1=False):
        c = zeros.at[upper].set(c[upper])
        return c.at[1, :].set(no_row) if drop_m1 else c

    a0 = -0.5 / (m - 1.0)
    a0_masked = masked(a0, True)
    b0 = l + m
    c0 = masked(a0 * (b0 - 2.0) * (b0 - 1.0), True)
    p_mm1_l = jnp.einsum("ij,ijk->ijk", a0_masked, p_m_lm1) + jnp.einsum(
        "ij,ijk->ijk", c0, p_mm2_lm1
    )  # P_l^{m-1}
    d0 = -0.5 / (m + 1.0)
    d0_masked = masked(d0)
    e0 = masked(d0 * b0 * (b0 + 1.0))
    p_mp1_l = jnp.einsum("ij,ijk->ijk", d0_masked, p_mp2_lm1) + jnp.einsum("ij,ijk->ijk", e0, p_m_lm1)
    f0 = b0 * (l - m + 1.0) / 2.0
    derivative = jnp.einsum("ij,ijk->ijk", masked(f0), p_mm1_l) - 0.5 * p_mp1_l
    if num_m > 1:
        l_vec = jnp.arange(num_l, dtype=p.dtype)
        g0 = jnp.einsum("i,ij->ij", (l_vec + 1) * l_vec, p[0, :, :])
        if num_l > 2:
            g0 = g0 - p[2, :, :]
        derivative = derivative.at[1, :, :].set(jnp.einsum("j,ij->ij", 0.5 / jnp.sqrt(1 - x * x), g0))
        derivative = derivative.at[1, 0, :].set(0)
    return derivative


def _legendre_degree(m, n, z, who: str) -> int:
    if lax.dtype(z) not in (np.float32, np.float64):
        raise TypeError(f"z.dtype={lax.dtype(z)} is not supported, see docstring for supported types.")
    if z.ndim != 1:
        raise ValueError("z must be a 1D array.")
    m = int(core.concrete_or_error(m, f"Argument m of {who}."))
    n = int(core.concrete_or_error(n, f"Argument n of {who}."))
    if m != n:
        raise NotImplementedError("Computations for m!=n are not yet supported.")
    return n


def lpmn(m: int, n: int, z):
    """The associated Legendre functions of the first kind ``P_l^m(z)`` and their derivatives for
    orders and degrees ``0 .. n`` (``m`` must equal ``n``), each of shape ``(n + 1, n + 1, len(z))``
    (order, degree, point). Deprecated in JAX.

    >>> lpmn(1, 1, jnp.array([0.5]))[0][:, :, 0]
    Array([[ 1.       ,  0.5      ],
           [ 0.       , -0.8660254]], dtype=float32)
    """
    z = jnp.asarray(z)
    values = _gen_associated_legendre(_legendre_degree(m, n, z, "lpmn"), z, False)
    return values, _gen_derivatives(values, z)


def lpmn_values(m: int, n: int, z, is_normalized: bool):
    """The values of :func:`lpmn` (no derivatives), normalised (``is_normalized``) so that the
    spherical harmonics built from them are orthonormal. Deprecated in JAX."""
    z = jnp.asarray(z)
    return _gen_associated_legendre(_legendre_degree(m, n, z, "lpmn"), z, is_normalized)


@functools.partial(jit, static_argnums=(4,))
def _sph_harm(n, m, theta, phi, n_max: int):
    legendre = _gen_associated_legendre(n_max, jnp.cos(theta), True)
    p = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    phase = lax.complex(jnp.cos(angle), jnp.sin(angle))
    y = lax.complex(p * jnp.real(phase), p * jnp.imag(phase))
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(y), y)  # Y_n^-m = (-1)^m conj(Y_n^m)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics ``Y_n^m(theta, phi)`` (degree ``n``, order ``|m| <= n``, polar angle
    ``theta`` in [0, pi], azimuth ``phi``), a complex 1-D array. ``n_max``, the largest degree,
    must be static under transformations (default ``max(n)``)."""
    if diff_n is not None:
        raise NotImplementedError("The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    n_max = int(
        core.concrete_or_error(
            n_max,
            "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically specified to use "
            "`sph_harm` within JAX transformations.",
        )
    )
    return _sph_harm(n, m, theta, phi, n_max)
