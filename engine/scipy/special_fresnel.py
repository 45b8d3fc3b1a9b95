"""The Fresnel integrals of jax.scipy.special, ``S(x) = int_0^x sin(pi t^2 / 2) dt`` and
``C(x) = int_0^x cos(pi t^2 / 2) dt``, composed of lax operations as JAX composes them: Cephes'
fresnl (float64) and fresnlf (float32; half precisions go through it) approximations, with
JAX's custom JVP ``(sin(pi x^2 / 2), cos(pi x^2 / 2))``.

>>> fresnel(jnp.array([0.5, 2.0]))
(Array([0.06473243, 0.34341568], dtype=float32), Array([0.49234423, 0.4882534 ], dtype=float32))
"""

from __future__ import annotations

import numpy as np

from .. import numpy as jnp
from ..api import jit
from ..custom_derivatives import custom_jvp
from ..numpy._promote import promote_args_inexact
from ._coefficients import table as _table

# Power series in t = x^4 below x^2 = 2.5625, auxiliary functions f, g in u = 1 / (pi x^2)^2
# beyond (float32: polynomials; float64: rational functions).
_SN32 = _table(
    """
    1.6476294637887e-09 -1.522754752581096e-07 8.4247488085024e-06 -0.0003120693124703272
    0.007244727626597022 -0.09228055941124598 0.5235987735681432
    """
)
_CN32 = _table(
    """
    1.416802502367354e-08 -1.157231412229871e-06 5.387223446683264e-05 -0.001604381798862293
    0.02818489036795073 -0.2467398198317899 0.9999999760004487
    """
)
_FN32 = _table(
    """
    -1903009855649.792 135594238805.0252 -4158143148.511033 73438484.63587323
    -873235.6681548485 8560.51546627547 -103.2877601091159 2.999401847870011
    """
)
_GN32 = _table(
    """
    -186084399762.465 12783506733.93208 -377938771.3202229 6492611.570598858
    -77877.89623358162 860.2931494734327 -14.93439396592284 0.9999841934744914
    """
)
_SN64 = _table(
    """
    -2991.8191940101983 708840.0452577386 -62974148.62058625 2548908805.7337637
    -44297951805.96978 318016297876.5678
    """
)
_SD64 = _table(
    """
    1.0 281.3762688899943 45584.78108065326 5173438.887700964
    419320245.8981112 22441179564.534092 607366389490.0846
    """
)
_CN64 = _table(
    """
    -4.9884311457357354e-08 9.504280628298596e-06 -0.0006451914356839651 0.018884331939670384
    -0.20552590095501388 1.0
    """
)
_CD64 = _table(
    """
    3.99982968972496e-12 9.154392157746574e-10 1.2500186247959882e-07 1.2226278902417902e-05
    0.0008680295429417843 0.04121420907221998 1.0
    """
)
_FN64 = _table(
    """
    0.4215435550436775 0.1434079197807589 0.011522095507358577 0.000345017939782574
    4.6361374928786735e-06 3.055689837902576e-08 1.0230451416490724e-10 1.7201074326816183e-13
    1.3428327623306275e-16 3.763297112699879e-20
    """
)
_FD64 = _table(
    """
    1.0 0.7515863983533789 0.11688892585919138 0.0064405152650885865
    0.00015593440916415301 1.8462756734893055e-06 1.1269922476399903e-08 3.6014002958937136e-11
    5.887545336215784e-14 4.5200143407412973e-17 1.2544323709001127e-20
    """
)
_GN64 = _table(
    """
    0.5044420736433832 0.1971028335255234 0.018764858409257526 0.0006840793809153931
    1.1513882611188428e-05 9.828524436884223e-08 4.4534441586175015e-10 1.0826804113902088e-12
    1.375554606332618e-15 8.363544356306774e-19 1.8695871016278324e-22
    """
)
_GD64 = _table(
    """
    1.0 1.4749575992512833 0.33774898912002 0.02536037414203388
    0.0008146791071843061 1.2754507566772912e-05 1.0431458965757199e-07 4.6068072814652043e-10
    1.1027321506624028e-12 1.3879653125957886e-15 8.391588162831187e-19 1.8695871016278324e-22
    """
)


@jit
def sincospisquaredhalf(x):
    """``sin(pi x^2 / 2)`` and ``cos(pi x^2 / 2)`` accurate for large ``x``: the angle reduced
    modulo 2 before multiplying by pi (with s = x mod 2, x^2 / 2 = s (x - s / 2) mod 2)."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sin = jnp.where(
        r < 0.5,
        jnp.sin(np.pi * r),
        jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))),
    )
    cos = jnp.where(
        r == 0.5, 0.0, jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)), jnp.sin(np.pi * (r - 1.5)))
    )
    return sin, cos


def _poly(coefficients, dtype):
    return jnp.array(coefficients, dtype=dtype)


@custom_jvp
def fresnel(x):
    """The Fresnel integrals ``(S(x), C(x))`` of real ``x`` (accurate as Cephes in [-10, 10])."""
    (xa,) = promote_args_inexact("fresnel", x)
    dtype = xa.dtype
    if jnp.iscomplexobj(xa):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if dtype == np.float64:
        single = False
    elif dtype in (np.float32, np.float16) or dtype.name == "bfloat16":
        single, xa = True, xa.astype(np.float32)
        # The single-precision fits have no denominators; JAX's program still builds an empty
        # table for each of the four (four broadcasts of shape (0,) in its jaxpr).
        for _ in range(4):
            jnp.empty(0)
    else:
        raise NotImplementedError(f"Support for {dtype} dtype is not implemented yet.")
    fdtype = xa.dtype
    x = jnp.abs(xa)
    x2 = x * x
    t = x2 * x2
    if single:
        s_small = x * x2 * jnp.polyval(_poly(_SN32, fdtype), t)
        c_small = x * jnp.polyval(_poly(_CN32, fdtype), t)
    else:
        s_small = x * x2 * jnp.polyval(_poly(_SN64, fdtype), t) / jnp.polyval(_poly(_SD64, fdtype), t)
        c_small = x * jnp.polyval(_poly(_CN64, fdtype), t) / jnp.polyval(_poly(_CD64, fdtype), t)
    sin, cos = sincospisquaredhalf(x)
    if single:
        s_large = c_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sin
        s_large = 0.5 - 1 / (np.pi * x) * cos
    t = np.pi * x2
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * jnp.polyval(_poly(_FN32, fdtype), u)
        g = t * jnp.polyval(_poly(_GN32, fdtype), u)
    else:
        f = 1.0 - u * jnp.polyval(_poly(_FN64, fdtype), u) / jnp.polyval(_poly(_FD64, fdtype), u)
        g = t * jnp.polyval(_poly(_GN64, fdtype), u) / jnp.polyval(_poly(_GD64, fdtype), u)
    t = np.pi * x
    c_mid = 0.5 + (f * sin - g * cos) / t
    s_mid = 0.5 - (f * cos + g * sin) / t
    infinite, small, large = jnp.isinf(xa), x2 < 2.5625, x > 36974.0
    s = jnp.where(infinite, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_mid)))
    c = jnp.where(infinite, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_mid)))
    negative = xa < 0.0
    s, c = jnp.where(negative, -s, s), jnp.where(negative, -c, c)
    if dtype != fdtype:
        s, c = s.astype(dtype), c.astype(dtype)
    return s, c


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    sin, cos = sincospisquaredhalf(x)
    return fresnel(x), (sin * x_dot, cos * x_dot)
