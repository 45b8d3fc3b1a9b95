"""``engine.numpy``: JAX's ``jax.numpy`` on the engine (``import engine.numpy as jnp``).

Functions promote dtypes with JAX's lattice and weak types (``jax_enable_x64`` decides the defaults), broadcast like numpy, and
lower to ``engine.lax``, so everything here can be traced, differentiated and batched.

>>> import engine.numpy as jnp
>>> x = jnp.arange(3.0)
>>> (x * 2).sum()
Array(6., dtype=float32)
"""

from __future__ import annotations

import numpy as _np

from .. import narrow_dtypes as _narrow_dtypes
from ..core import Array, Tracer
from . import _dtypes, linalg  # noqa: F401
from ._contract import (
    convolve,
    correlate,
    cross,
    dot,
    einsum,
    einsum_path,
    inner,
    kron,
    matmul,
    outer,
    tensordot,  # noqa: F401
    vdot,
    vecdot,
)
from ._creation import (
    arange,
    array,
    asarray,
    copy,
    diag_indices,
    empty,
    empty_like,
    eye,  # noqa: F401
    frombuffer,
    fromfunction,
    full,
    full_like,
    geomspace,
    identity,
    indices,
    linspace,
    logspace,
    meshgrid,
    ones,
    ones_like,
    tri,
    tril,
    tril_indices,
    triu,
    triu_indices,
    zeros,
    zeros_like,
)
from ._dtypes import (
    bool_,
    can_cast,
    canonicalize_dtype,
    complex64,
    complex128,
    complex_,  # noqa: F401
    complexfloating,
    double,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    float_,
    floating,
    generic,
    iinfo,
    inexact,
    int8,
    int16,
    int32,
    int64,
    int_,
    integer,
    isdtype,
    issubdtype,
    number,
    promote_types,
    result_type,
    signedinteger,
    single,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    unsignedinteger,
)
from ._take import take, take_along_axis  # noqa: F401
from ._reductions import (
    all,
    allclose,
    amax,
    amin,
    any,
    argmax,
    argmin,
    array_equal,  # noqa: F401
    array_equiv,
    average,
    count_nonzero,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    isclose,
    max,
    mean,
    min,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nansum,
    prod,
    ptp,
    std,
    sum,
    var,
)
from ._shape import (
    append,
    array_split,
    atleast_1d,
    atleast_2d,  # noqa: F401
    atleast_3d,
    broadcast_arrays,
    broadcast_to,
    column_stack,
    concat,
    concatenate,
    dsplit,
    dstack,
    expand_dims,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    matrix_transpose,
    moveaxis,
    ndim,
    permute_dims,
    ravel,
    repeat,
    reshape,
    roll,
    rot90,
    shape,
    size,
    split,
    squeeze,
    stack,
    swapaxes,
    tile,
    transpose,
    vsplit,
    vstack,
)
from ._pad import pad
from ._searching import (
    argpartition,
    argsort,
    argwhere,
    flatnonzero,
    isin,
    nonzero,
    partition,
    searchsorted,
    sort,
    unique,
)
from ._diagonal import (
    diag,
    diag_indices_from,
    diagflat,
    diagonal,
    fill_diagonal,
    trace,
    tril_indices_from,
    triu_indices_from,
)
from ._shape import broadcast_shapes_ as broadcast_shapes  # noqa: F401
from ._ufuncs import (
    abs,
    absolute,
    acos,
    acosh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,  # noqa: F401
    arctan2,
    arctanh,
    around,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cbrt,
    ceil,
    copysign,
    cos,
    cosh,
    deg2rad,
    degrees,
    divide,
    divmod,
    exp,
    exp2,
    expm1,
    fabs,
    float_power,
    floor,
    floor_divide,
    fmod,
    heaviside,
    hypot,
    ldexp,
    log,
    log1p,
    log2,
    log10,
    mod,
    positive,
    pow,
    power,
    rad2deg,
    radians,
    reciprocal,
    remainder,
    rint,
    round,
    sign,
    signbit,
    sin,
    sinc,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
    true_divide,
    trunc,
)
from ._logic import (
    bitwise_count,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_not,
    bitwise_right_shift,
    equal,
    greater,
    greater_equal,
    invert,
    isfinite,
    isinf,
    isnan,
    isneginf,
    isposinf,
    left_shift,
    less,
    less_equal,
    logical_not,
    not_equal,
    right_shift,
)
from ._selection import (
    clip,
    fmax,
    fmin,
    nan_to_num,
    piecewise,
    select,
    where,
)
from ._complex_parts import (
    conj,
    conjugate,
    imag,
    iscomplexobj,
    isrealobj,
    isscalar,
    real,
)
from ._shape import (
    apply_along_axis,
    block,
    resize,
    rollaxis,
    unstack,
)
from ._index_tricks import (
    compress,
    delete,  # noqa: F401
    insert,
    ix_,
    ravel_multi_index,
    unravel_index,
)
from ._polynomial import (
    polyval,
    vander,
)
from ._statistics import (
    bincount,
    corrcoef,
    cov,
    diff,
    ediff1d,
    interp,
    median,  # noqa: F401
    nanargmax,
    nanargmin,
    nanmedian,
    nanpercentile,
    nanquantile,
    nanstd,
    nanvar,
    percentile,
    quantile,
    trapezoid,
)
from ._complex_parts import angle, iscomplex, isreal  # noqa: F401
from ._ufuncs import gcd, lcm, modf, nextafter  # noqa: F401
from ._creation import vectorize  # noqa: F401
from ._casting import astype  # noqa: F401
from ._methods import install_array_methods
from ._histograms import digitize, histogram, histogram2d, histogram_bin_edges, histogramdd  # noqa: F401
from ._windows import bartlett, blackman, hamming, hanning, i0, kaiser  # noqa: F401
from ._float_bits import frexp, spacing  # noqa: F401
from ._setops import (  # noqa: F401
    intersect1d,
    setdiff1d,
    setxor1d,
    union1d,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
)
from ._polynomial_arith import poly, polyadd, polyder, polydiv, polyfit, polyint, polymul, polysub, roots  # noqa: F401
from ._array_edits import (  # noqa: F401
    apply_over_axes,
    choose,
    extract,
    gradient,
    lexsort,
    packbits,
    place,
    put,
    put_along_axis,
    sort_complex,
    trim_zeros,
    unpackbits,
    unwrap,
)
from ._index_grids import c_, index_exp, mgrid, ogrid, r_, s_  # noqa: F401
from ._numpy_names import (  # noqa: F401
    ComplexWarning,
    array_repr,
    array_str,
    cdouble,
    character,
    csingle,
    flexible,
    fromfile,
    fromiter,
    from_dlpack,
    fromstring,
    get_printoptions,
    iterable,
    load,
    mask_indices,
    matvec,
    object_,
    printoptions,
    save,
    savez,
    set_printoptions,
    vecmat,
)

bool = bool_  # noqa: A001  (jnp.bool, as in numpy 2)
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None


from ..basearray import Array as ndarray  # noqa: E402  (jnp.ndarray is jax.Array, as in JAX)


install_array_methods()
from . import _logic, _selection, _ufuncs  # noqa: E402
from ._ufunc_api import builtins_of as _builtins_of, frompyfunc, ufunc  # noqa: E402,F401

# jnp.add, jnp.maximum, ... are jnp.ufunc objects, as in JAX (the functions inside stay plain)
_u = _builtins_of({**vars(_logic), **vars(_selection), **vars(_ufuncs)})
add, subtract, multiply, negative = _u["add"], _u["subtract"], _u["multiply"], _u["negative"]
maximum, minimum, logaddexp, logaddexp2 = _u["maximum"], _u["minimum"], _u["logaddexp"], _u["logaddexp2"]
bitwise_and, bitwise_or, bitwise_xor = _u["bitwise_and"], _u["bitwise_or"], _u["bitwise_xor"]
logical_and, logical_or, logical_xor = _u["logical_and"], _u["logical_or"], _u["logical_xor"]
del _u
from . import fft  # noqa: F401,E402  (jnp.fft)


def __getattr__(name):
    # jnp.bfloat16 and the other narrow types import ml_dtypes (most of a second) when first named
    if name in _narrow_dtypes.NAMES:
        t = globals()[name] = _dtypes.narrow_scalar_type(name)
        return t
    if name == "fix":  # (removed from JAX's jnp: its deprecation message)
        raise AttributeError(
            "jax.numpy.fix was deprecated in JAX v0.9.0, and will be removed in JAX v0.10.0. "
            "Use jax.numpy.trunc instead."
        )
    raise AttributeError(f"module 'jax.numpy' has no attribute {name!r}")  # (the name scripts import)


def __dir__():
    return sorted(set(globals()) | _narrow_dtypes.NAMES)
