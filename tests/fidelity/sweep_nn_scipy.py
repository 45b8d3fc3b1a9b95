"""The sweep's jax.nn, jax.scipy and jax.image cases beyond sweep.py / sweep_programs.py: the nn
functions' keyword arguments (softmax where=, one_hot, standardize, dot_product_attention,
initializers), the scipy.special / scipy.stats functions not covered there (and the cdf / sf /
ppf families), scipy.linalg, scipy.signal, ndimage.map_coordinates, integrate, optimize,
spatial.transform, and jax.image.resize / scale_and_translate.

Cases follow sweep_programs' convention: ``make(jax) -> (fun, args)``.
"""

from __future__ import annotations

import numpy as np

try:
    from .sweep_numpy_api import register
    from .sweep_programs import _f32, _pos, _prob, _spd, _unit
except ImportError:  # run as a script (sweep.py put this directory on sys.path)
    from sweep_numpy_api import register  # type: ignore[no-redef]
    from sweep_programs import _f32, _pos, _prob, _spd, _unit  # type: ignore[no-redef]

CASES: dict = {}
_nn = register(CASES, "nn")
_ini = register(CASES, "nn.initializers")
_sp = register(CASES, "scipy.special")
_st = register(CASES, "scipy.stats")
_sl = register(CASES, "scipy.linalg")
_sg = register(CASES, "scipy.signal")
_sc = register(CASES, "scipy")
_im = register(CASES, "image")
ALL = "grad vmap jit_grad jvp"
_X = _f32(2, 4)
_KEY = np.array([0, 42], np.uint32)  # a raw key (PRNGKey(42)'s words)

# --- jax.nn ---------------------------------------------------------------------------------------
_nn("softmax[where]", lambda m, x: m.softmax(x, where=x > -0.5), _X, t=ALL)
_nn("softmax[axis0]", lambda m, x: m.softmax(x, axis=0), _X, t="grad vmap")
_nn("softmax[axes]", lambda m, x: m.softmax(x, axis=(0, 1)), _X, t="grad")
_nn("log_softmax[where]", lambda m, x: m.log_softmax(x, where=x > -0.5), _X, t="grad vmap")
_nn("log_softmax[axis0]", lambda m, x: m.log_softmax(x, axis=0), _X, t="grad")
_nn(
    "logsumexp[b_return_sign]",
    lambda m, x, b: m.logsumexp(x, axis=1, b=b, return_sign=True),
    _X,
    _f32(2, 4, seed=1),
)
_nn("logsumexp[where]", lambda m, x: m.logsumexp(x, where=x > 0), _X, t="grad")
_nn("logmeanexp[f32]", lambda m, x: m.logmeanexp(x, axis=1), _X, t="grad")
_nn("log1mexp[f32]", lambda m, x: m.log1mexp(x), _pos(3), t="grad")
_nn("one_hot[int]", lambda m, x: m.one_hot(x, 4), np.array([0, 2, 3], np.int32))
_nn(
    "one_hot[dtype_axis]",
    lambda m, x: m.one_hot(x, 3, dtype=np.int32, axis=0),
    np.array([[0, 2], [1, 5]], np.int32),
)
_nn("one_hot[float_labels]", lambda m, x: m.one_hot(x, 3), np.array([0.0, 2.0, -1.0], np.float32))
_nn("standardize[axis0]", lambda m, x: m.standardize(x, axis=0), _X, t="grad vmap")
_nn(
    "standardize[mean_var]", lambda m, x: m.standardize(x, mean=0.5, variance=2.0, epsilon=1e-3), _X, t="grad"
)
_nn("standardize[where]", lambda m, x: m.standardize(x, where=x > -1), _X)
_nn("gelu[exact]", lambda m, x: m.gelu(x, approximate=False), _X, t=ALL)
_nn("leaky_relu[slope]", lambda m, x: m.leaky_relu(x, negative_slope=0.2), _X, t="grad")
_nn("elu[alpha]", lambda m, x: m.elu(x, alpha=0.5), _X, t="grad")
_nn("celu[alpha]", lambda m, x: m.celu(x, alpha=2.0), _X, t="grad")
_nn("glu[axis0]", lambda m, x: m.glu(x, axis=0), _X, t="grad")
_nn("squareplus[b]", lambda m, x: m.squareplus(x, b=2.0), _X, t="grad")
_nn("relu[at_zero]", lambda m, x: m.relu(x), np.array([0.0, -1.0, 2.0], np.float32), t="grad jvp")
_nn("relu6[int]", lambda m, x: m.relu6(x), np.array([-3, 3, 9], np.int32))
_nn("sigmoid[int]", lambda m, x: m.sigmoid(x), np.array([0, 1], np.int32))
_nn("tanh[f32]", lambda m, x: m.tanh(x), _X, t="grad")
_Q, _K, _V = _f32(2, 4, 2, 8), _f32(2, 5, 2, 8, seed=1), _f32(2, 5, 2, 8, seed=2)
_nn(
    "dot_product_attention[plain]",
    lambda m, q, k, v: m.dot_product_attention(q, k, v),
    _Q,
    _K,
    _V,
    t="grad vmap",
)
_nn(
    "dot_product_attention[causal]",
    lambda m, q, v: m.dot_product_attention(q, q, v, is_causal=True),
    _Q,
    _f32(2, 4, 2, 8, seed=2),
    t="grad",
)
_nn(
    "dot_product_attention[bias_mask]",
    lambda m, q, k, v, b: m.dot_product_attention(q, k, v, bias=b, mask=b > 0),
    _Q,
    _K,
    _V,
    _f32(2, 2, 4, 5, seed=3),
)
_nn(
    "dot_product_attention[scale_3d]",
    lambda m, q, k, v: m.dot_product_attention(q, k, v, scale=0.5),
    _f32(4, 2, 8),
    _f32(5, 2, 8, seed=1),
    _f32(5, 2, 8, seed=2),
)
_nn(
    "dot_product_attention[gqa]",
    lambda m, q, k, v: m.dot_product_attention(q, k, v),
    _f32(1, 3, 4, 8),
    _f32(1, 3, 2, 8, seed=1),
    _f32(1, 3, 2, 8, seed=2),
)
_nn(
    "dot_product_attention[seq_lengths]",
    lambda m, q, k, v: m.dot_product_attention(
        q,
        k,
        v,
        query_seq_lengths=np.array([3, 4], np.int32),
        key_value_seq_lengths=np.array([5, 2], np.int32),
    ),
    _Q,
    _K,
    _V,
)
_nn(
    "dot_product_attention[local_window]",
    lambda m, q: m.dot_product_attention(q, q, q, local_window_size=(1, 1)),
    _Q,
)

# --- initializers (on a raw key argument) ----------------------------------
for _name, _shape in (
    ("glorot_normal", (3, 4)),
    ("glorot_uniform", (3, 4)),
    ("he_normal", (3, 4)),
    ("he_uniform", (2, 3, 4)),
    ("lecun_normal", (3, 4)),
    ("lecun_uniform", (3, 4)),
    ("xavier_uniform", (4, 2)),
    ("kaiming_normal", (4, 2)),
    ("orthogonal", (3, 3)),
    ("normal", (3,)),
    ("uniform", (3,)),
    ("truncated_normal", (3,)),
    ("delta_orthogonal", (3, 3, 4, 4)),
):
    _ini(f"{_name}[raw_key]", lambda m, k, _name=_name, _shape=_shape: getattr(m, _name)()(k, _shape), _KEY)
_ini("zeros[f32]", lambda m, k: m.zeros(k, (2, 3)), _KEY)
_ini("ones[int]", lambda m, k: m.ones(k, (2,), np.int32), _KEY)
_ini("constant[f32]", lambda m, k: m.constant(-0.5)(k, (2, 2)), _KEY)
_ini("normal[stddev]", lambda m, k: m.normal(stddev=0.1)(k, (3,)), _KEY)
_ini(
    "variance_scaling[fan_avg_uniform]",
    lambda m, k: m.variance_scaling(2.0, "fan_avg", "uniform")(k, (3, 4)),
    _KEY,
)
_ini(
    "variance_scaling[truncated_axes]",
    lambda m, k: m.variance_scaling(1.0, "fan_in", "truncated_normal", in_axis=0, out_axis=1)(k, (3, 4)),
    _KEY,
)
_ini("glorot_normal[dtype_f16]", lambda m, k: m.glorot_normal()(k, (2, 2), np.float16), _KEY)


# --- scipy.special ---------------------------------------------------------------------------------
_sp("logsumexp[b_axis]", lambda m, x, b: m.logsumexp(x, axis=0, b=b), _X, _pos(2, 4), t="grad")
_sp("logsumexp[keepdims_sign]", lambda m, x: m.logsumexp(x, axis=1, keepdims=True, return_sign=True), _X)
_sp("softmax[axis]", lambda m, x: m.softmax(x, axis=0), _X, t="grad")
_sp("log_softmax[f32]", lambda m, x: m.log_softmax(x), _X, t="grad")
_sp("loggamma[f32]", lambda m, x: m.loggamma(x), _pos(3), t="grad")
_sp("gammasgn[f32]", lambda m, x: m.gammasgn(x), _f32(4))
_sp(
    "xlogy[zero]",
    lambda m, x, y: m.xlogy(x, y),
    np.array([0.0, 1.0], np.float32),
    np.array([0.0, 2.0], np.float32),
    t="grad jvp",
)
_sp("sici[f32]", lambda m, x: m.sici(x), _pos(3))
_sp("fresnel[f32]", lambda m, x: m.fresnel(x), _f32(3))
_sp("bessel_jn[v3_n]", lambda m, x: m.bessel_jn(x, v=3, n_iter=20), _pos(3))
_sp("gammainc[grad_x]", lambda m, x, a: m.gammainc(a, x), _pos(3), _pos(3, seed=1) + 1, t="grad")
_sp("zeta[q_none]", lambda m, x: m.zeta(x), _pos(3) + 1.5)
_sp("poch[int]", lambda m, x: m.poch(x, 3.0), _pos(3), t="grad")
_sp("i0e[large]", lambda m, x: m.i0e(x), np.array([0.0, 20.0, -30.0], np.float32), t="grad")
_sp("ndtri[edges]", lambda m, x: m.ndtri(x), np.array([0.0, 1e-30, 0.5, 1.0], np.float32))
_sp("log_ndtr[tails]", lambda m, x: m.log_ndtr(x), np.array([-40.0, -5.0, 0.0, 8.0], np.float32), t="grad")

# --- scipy.stats: the cdf / sf / ppf / logsf families and the pdfs -------------------------------
for _name, _args in {
    "norm.sf": (_f32(3),),
    "norm.logsf": (_f32(3),),
    "norm.isf": (_prob(3),),
    "norm.pdf": (_f32(3), 0.5, 2.0),
    "expon.cdf": (_pos(3),),
    "expon.sf": (_pos(3), 0.1, 2.0),
    "expon.ppf": (_prob(3),),
    "logistic.cdf": (_f32(3),),
    "logistic.ppf": (_prob(3),),
    "logistic.sf": (_f32(3),),
    "laplace.cdf": (_f32(3),),
    "cauchy.cdf": (_f32(3),),
    "cauchy.ppf": (_prob(3),),
    "uniform.cdf": (_prob(3),),
    "uniform.ppf": (_prob(3), 1.0, 2.0),
    "gamma.cdf": (_pos(3), 2.0),
    "gamma.sf": (_pos(3), 2.0),
    "beta.cdf": (_prob(3), 2.0, 3.0),
    "beta.sf": (_prob(3), 2.0, 3.0),
    "chi2.cdf": (_pos(3), 3.0),
    "chi2.sf": (_pos(3), 3.0),
    "t.pdf": (_f32(3), 4.0),
    "poisson.pmf": (np.array([0.0, 2.0, 5.0], np.float32), _pos(3)),
    "poisson.cdf": (np.array([0.0, 2.0, 5.0], np.float32), _pos(3)),
    "binom.pmf": (np.array([0.0, 2.0, 5.0], np.float32), 6.0, _prob(3)),
    "bernoulli.cdf": (np.array([0.0, 1.0, 1.0], np.float32), _prob(3)),
    "bernoulli.ppf": (_prob(3), 0.3),
    "geom.pmf": (np.array([1.0, 2.0, 4.0], np.float32), _prob(3)),
    "nbinom.pmf": (np.array([1.0, 2.0, 4.0], np.float32), 3.0, _prob(3)),
    "multivariate_normal.pdf": (_f32(2, 3), np.zeros(3, np.float32), _spd(3)),
    "dirichlet.pdf": (np.array([0.2, 0.3, 0.5], np.float32), _pos(3)),
    "vonmises.pdf": (_unit(3), 2.0),
    "pareto.pdf": (_pos(3) + 1, 2.0),
    "gumbel_r.sf": (_f32(3),),
    "gumbel_l.cdf": (_f32(3),),
    "truncnorm.sf": (_unit(3), -1.0, 2.0),
    "truncnorm.logcdf": (_unit(3), -1.0, 2.0),
    "gennorm.pdf": (_unit(3), 1.5),
    "betabinom.pmf": (np.array([1.0, 3.0], np.float32), 5.0, 2.0, 3.0),
}.items():
    _parts = _name.split(".")
    _st(
        f"{_name}[f32]",
        lambda m, *a, _parts=_parts: getattr(getattr(m, _parts[0]), _parts[1])(*a),
        *_args,
        t="grad" if _args[0].dtype == np.float32 and "ppf" not in _name else "",
    )
_st(
    "norm.logpdf[loc_scale_arrays]",
    lambda m, x, loc, s: m.norm.logpdf(x, loc, s),
    _f32(3),
    _f32(3, seed=1),
    _pos(3),
    t="grad vmap",
)
_st("mode[axis_none]", lambda m, x: m.mode(x, axis=None), np.array([1.0, 2.0, 2.0, 3.0], np.float32))
_st(
    "rankdata[methods]",
    lambda m, x: [m.rankdata(x, method=k) for k in ("min", "max", "dense", "ordinal")],
    np.array([3.0, 1.0, 3.0, 2.0], np.float32),
)
_st("rankdata[axis]", lambda m, x: m.rankdata(x, axis=1), _X)
_st("sem[ddof_axis]", lambda m, x: m.sem(x, axis=1, ddof=0), _X)
_st(
    "gaussian_kde.evaluate[2d]",
    lambda m, d, x: m.gaussian_kde(d, bw_method=0.5).evaluate(x),
    _f32(2, 10),
    _f32(2, 3, seed=1),
)
_st(
    "gaussian_kde.pdf[weights]",
    lambda m, d, w, x: m.gaussian_kde(d, weights=w).pdf(x),
    _f32(8),
    _pos(8),
    _f32(3, seed=1),
)

# --- scipy.linalg ------------------------------------------------------------------------------
_S, _N = _spd(3), _f32(3, 3, seed=5)
_sl("lu[f32]", lambda m, a: m.lu(a), _N)
_sl("lu[permute_l]", lambda m, a: m.lu(a, permute_l=True), _N)
_sl("lu_solve[f32]", lambda m, a, b: m.lu_solve(m.lu_factor(a), b), _N, _f32(3, seed=1), t="grad")
_sl("solve[assume_pos]", lambda m, a, b: m.solve(a, b, assume_a="pos"), _S, _f32(3, seed=1), t="grad")
_sl("solve[sym_lower]", lambda m, a, b: m.solve(a, b, assume_a="sym", lower=True), _S, _f32(3, seed=1))
_sl(
    "solve_triangular[trans_unit]",
    lambda m, a, b: m.solve_triangular(a, b, trans=1, unit_diagonal=True),
    np.triu(_N),
    _f32(3, 2, seed=1),
)
_sl("cholesky[upper]", lambda m, a: m.cholesky(a), _S, t="grad")
_sl("cho_factor[lower]", lambda m, a: m.cho_factor(a, lower=True), _S)
_sl("qr[economic]", lambda m, a: m.qr(a, mode="economic"), _f32(4, 3))
_sl("qr[pivoting]", lambda m, a: m.qr(a, pivoting=True), _f32(4, 3))
_sl("qr[r]", lambda m, a: m.qr(a, mode="r"), _f32(4, 3))
_sl("svd[no_full]", lambda m, a: m.svd(a, full_matrices=False), _f32(4, 3))
_sl("eigh[eigvals_only]", lambda m, a: m.eigh(a, eigvals_only=True), _S, t="grad")
_sl("eigh[b_none_lower_false]", lambda m, a: m.eigh(a, lower=False), _S)
_sl("det[f32]", lambda m, a: m.det(a), _N, t="grad")
_sl("inv[f32]", lambda m, a: m.inv(a), _N, t="grad")
_sl("expm[batched]", lambda m, a: m.expm(a), np.stack([_N, _N * 0.5]) / 3)
_sl("expm[max_squarings]", lambda m, a: m.expm(a, max_squarings=4), _N / 3)
_sl(
    "block_diag[f32]",
    lambda m, a, b: m.block_diag(a, b, np.float32(2.0)),
    _f32(2, 2),
    _f32(1, 3, seed=1),
    t="grad",
)
_sl("toeplitz[c_r]", lambda m, c, r: m.toeplitz(c, r), _f32(3), _f32(4, seed=1), t="grad")
_sl("toeplitz[c]", lambda m, c: m.toeplitz(c), _f32(3))
_sl("hankel[c_r]", lambda m, c, r: m.hankel(c, r), _f32(3), _f32(3, seed=1))
_sl("circulant[f32]", lambda m, c: m.circulant(c), _f32(3))
_sl("companion[f32]", lambda m, c: m.companion(c), np.array([1.0, -3.0, 2.0], np.float32))
_sl("hilbert[3]", lambda m, x: m.hilbert(3) * x, np.float32(2.0))
_sl("pascal[3]", lambda m: m.pascal(3))
_sl("dft[4]", lambda m: m.dft(4))
_sl("leslie[f32]", lambda m, f, s: m.leslie(f, s), _pos(3), _prob(2))
_sl("convolution_matrix[same]", lambda m, a: m.convolution_matrix(a, 4, mode="same"), _f32(3))
_sl("fiedler[f32]", lambda m, a: m.fiedler(a), _f32(3))
_sl("helmert[full]", lambda m, x: m.helmert(3, full=True) * x, np.float32(2.0))
_sl("schur[complex]", lambda m, a: m.schur(a, output="complex"), _N)
_sl("rsf2csf[f32]", lambda m, a: m.rsf2csf(*m.schur(a)), _N)
_sl(
    "eigh_tridiagonal[f32]",
    lambda m, d, e: m.eigh_tridiagonal(d, e, eigvals_only=True),
    _f32(4) + 3,
    _f32(3, seed=1),
)
_sl("qr_multiply[f32]", lambda m, a, c: m.qr_multiply(a, c), _f32(3, 3), _f32(3, seed=1))
_sl("polar[left_svd]", lambda m, a: m.polar(a, side="left", method="svd"), _N)
_sl("sqrtm[blocksize]", lambda m, a: m.sqrtm(a), _S * 2)

# --- scipy.signal ----------------------------------------------------------------------------------
for _mode in ("full", "same", "valid"):
    _sg(
        f"convolve[{_mode}]",
        lambda m, a, b, _mode=_mode: m.convolve(a, b, mode=_mode),
        _f32(6),
        _f32(3, seed=1),
        t="grad",
    )
    _sg(
        f"convolve2d[{_mode}]",
        lambda m, a, b, _mode=_mode: m.convolve2d(a, b, mode=_mode),
        _f32(4, 5),
        _f32(2, 3, seed=1),
    )
_sg("correlate[f32]", lambda m, a, b: m.correlate(a, b), _f32(6), _f32(3, seed=1), t="grad")
_sg("correlate2d[same]", lambda m, a, b: m.correlate2d(a, b, mode="same"), _f32(4, 5), _f32(2, 3, seed=1))
_sg("convolve[fft]", lambda m, a, b: m.convolve(a, b, method="fft"), _f32(6), _f32(3, seed=1))
_sg("fftconvolve[f32]", lambda m, a, b: m.fftconvolve(a, b), _f32(6), _f32(3, seed=1), t="grad")
_sg(
    "fftconvolve[same_axes]",
    lambda m, a, b: m.fftconvolve(a, b, mode="same", axes=1),
    _f32(2, 6),
    _f32(2, 3, seed=1),
)
_sg("detrend[linear]", lambda m, x: m.detrend(x), _f32(8), t="grad")
_sg("detrend[constant]", lambda m, x: m.detrend(x, type="constant", axis=0), _f32(4, 2))
_sg("csd[f32]", lambda m, x, y: m.csd(x, y, nperseg=8), _f32(32), _f32(32, seed=1))
_sg("welch[hann_overlap]", lambda m, x: m.welch(x, nperseg=8, noverlap=2, scaling="spectrum"), _f32(32))
_sg("stft[boundary_none]", lambda m, x: m.stft(x, nperseg=8, boundary=None, padded=False), _f32(32))

# --- ndimage, integrate, optimize, spatial.transform ---------------------------------------------
_C = np.array([[0.5, 1.5, 2.2], [0.1, 2.9, 1.0]], np.float32)
_sc(
    "ndimage.map_coordinates[order1]",
    lambda m, a, c: m.ndimage.map_coordinates(a, c, order=1),
    _f32(4, 4),
    _C,
    t="grad vmap",
)
_sc(
    "ndimage.map_coordinates[order0]",
    lambda m, a, c: m.ndimage.map_coordinates(a, c, order=0),
    _f32(4, 4),
    _C,
)
for _mode in ("constant", "nearest", "wrap", "mirror", "reflect"):
    _sc(
        f"ndimage.map_coordinates[{_mode}]",
        lambda m, a, c, _mode=_mode: m.ndimage.map_coordinates(a, c * 2 - 1, order=1, mode=_mode, cval=-1.0),
        _f32(4, 4),
        _C,
    )
_sc("integrate.trapezoid[f32]", lambda m, y: m.integrate.trapezoid(y), _f32(5), t="grad")
_sc(
    "integrate.trapezoid[x_axis]",
    lambda m, y, x: m.integrate.trapezoid(y, x, axis=0),
    _f32(4, 2),
    np.sort(_f32(4, seed=1)),
)
_sc(
    "optimize.minimize[BFGS_rosen]",
    lambda m, x0: (
        m.optimize.minimize(
            lambda x: (1 - x[0]) ** 2 + 10 * (x[1] - x[0] ** 2) ** 2,
            x0,
            method="BFGS",
            options={"maxiter": 5},
        ).x
    ),
    np.zeros(2, np.float32),
)
_sc(
    "optimize.minimize[LBFGS]",
    lambda m, x0: (
        m.optimize.minimize(
            lambda x: ((x - 2.0) ** 2).sum(),
            x0,
            method="l-bfgs-experimental-do-not-rely-on-this",
            options={"maxiter": 3},
        ).fun
    ),
    np.zeros(2, np.float32),
)
_sc(
    "optimize.minimize[args]",
    lambda m, x0, a: (
        m.optimize.minimize(lambda x, a: ((x - a) ** 2).sum(), x0, args=(a,), method="BFGS", tol=1e-3).x
    ),
    np.zeros(2, np.float32),
    _f32(2),
)
_quat = np.array([0.1, 0.2, 0.3, 0.9], np.float32)
_sc(
    "spatial.transform.Rotation.from_quat[apply]",
    lambda m, q, v: m.spatial.transform.Rotation.from_quat(q).apply(v),
    _quat,
    _f32(3),
    t="grad",
)
_sc(
    "spatial.transform.Rotation.as_matrix[f32]",
    lambda m, q: m.spatial.transform.Rotation.from_quat(q).as_matrix(),
    _quat,
)
_sc(
    "spatial.transform.Rotation.from_euler[xyz]",
    lambda m, a: m.spatial.transform.Rotation.from_euler("xyz", a).as_quat(),
    _f32(3),
)
_sc(
    "spatial.transform.Rotation.as_rotvec[f32]",
    lambda m, q: m.spatial.transform.Rotation.from_quat(q).as_rotvec(),
    _quat,
)
_sc(
    "spatial.transform.Rotation.from_rotvec[inv_mul]",
    lambda m, v: (
        m.spatial.transform.Rotation.from_rotvec(v).inv() * m.spatial.transform.Rotation.from_rotvec(v)
    ).as_quat(),
    _f32(3),
)
_sc(
    "spatial.transform.Rotation.as_euler[zyx]",
    lambda m, q: m.spatial.transform.Rotation.from_quat(q).as_euler("zyx"),
    _quat,
)
_sc(
    "spatial.transform.Slerp[f32]",
    lambda m, q, t: m.spatial.transform.Slerp.init(
        np.array([0.0, 1.0], np.float32), m.spatial.transform.Rotation.from_quat(q)
    )(t).as_quat(),
    np.stack([_quat, np.array([0.0, 0.0, 0.0, 1.0], np.float32)]),
    np.float32(0.3),
)

# --- jax.image ---------------------------------------------------------------------------------
_I = _f32(4, 6)
for _method in ("nearest", "linear", "cubic", "lanczos3", "lanczos5"):
    _im(
        f"resize[{_method}_up]",
        lambda m, x, _method=_method: m.resize(x, (6, 9), _method),
        _I,
        t="grad" if _method != "nearest" else "",
    )
    _im(f"resize[{_method}_down]", lambda m, x, _method=_method: m.resize(x, (2, 3), _method), _I)
_im("resize[no_antialias]", lambda m, x: m.resize(x, (2, 3), "linear", antialias=False), _I, t="grad")
_im("resize[channels]", lambda m, x: m.resize(x, (1, 8, 4, 3), "bilinear"), _f32(1, 4, 2, 3), t="vmap")
_im("resize[enum]", lambda m, x: m.resize(x, (3, 3), m.ResizeMethod.CUBIC), _I)
_im(
    "scale_and_translate[f32]",
    lambda m, x, s, t: m.scale_and_translate(x, (6, 8), (0, 1), s, t, "linear"),
    _I,
    np.array([1.5, 1.2], np.float32),
    np.array([0.5, -1.0], np.float32),
    t="grad",
)
