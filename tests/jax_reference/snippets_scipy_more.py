"""Snippets for jax.scipy.signal/fft/ndimage/integrate and jax.image (issue 13's API surface).
Registered in snippets.py."""

R = "r = np.random.RandomState(0)\n"
IMG = R + "img = jnp.asarray(r.rand(5, 7, 3), jnp.float32)\n"

SCIPY_MORE = [
    (
        "signal_convolve",
        R
        + "a = jnp.asarray(r.randn(6), jnp.float32); b = jnp.asarray(r.randn(3), jnp.float32)\nfrom jax.scipy import signal\nout = [signal.convolve(a, b, m) for m in ('full', 'same', 'valid')] + [signal.correlate(a, b, m) for m in ('full', 'same', 'valid')] + [signal.convolve(b, a, 'same'), signal.convolve(a, b, method='fft')]",
        1e-4,
    ),
    (
        "signal_convolve_nd",
        R
        + "a = jnp.asarray(r.randn(5, 6), jnp.float32); b = jnp.asarray(r.randn(2, 3), jnp.float32)\nfrom jax.scipy import signal\nout = [signal.convolve2d(a, b, m) for m in ('full', 'same', 'valid')] + [signal.correlate2d(a, b, m) for m in ('full', 'same', 'valid')] + [signal.correlate2d(b, a, 'valid'), signal.correlate2d(b, a), signal.convolve(a[None], b[None], 'same')]",
        1e-4,
    ),
    (
        "signal_fftconvolve",
        R
        + "a = jnp.asarray(r.randn(5, 6), jnp.float32); b = jnp.asarray(r.randn(5, 3), jnp.float32)\nfrom jax.scipy import signal\nout = [signal.fftconvolve(a, b, m) for m in ('full', 'same', 'valid')] + [signal.fftconvolve(a, b, axes=1), signal.fftconvolve(a, b, 'same', axes=(1,))]",
        1e-4,
    ),
    (
        "signal_grad",
        R
        + "a = jnp.asarray(r.randn(6), jnp.float32); b = jnp.asarray(r.randn(3), jnp.float32)\nfrom jax.scipy import signal\nout = (jax.grad(lambda a: signal.convolve(a, b, 'same').sum())(a), jax.grad(lambda b: (signal.fftconvolve(a, b) ** 2).sum())(b))",
        1e-4,
    ),
    (
        "signal_detrend",
        R
        + "x = jnp.asarray(r.randn(3, 8), jnp.float32) + jnp.arange(8.)\nfrom jax.scipy import signal\nout = (signal.detrend(x), signal.detrend(x, type='constant'), signal.detrend(x, axis=0), signal.detrend(x, bp=[3]))",
        1e-4,
    ),
    (
        "signal_bad",
        "from jax.scipy import signal\nout = signal.convolve(jnp.ones(3), jnp.ones(2), mode='other')",
    ),
    (
        "scipy_dct",
        R
        + "x = jnp.asarray(r.randn(4, 5), jnp.float32)\nfrom jax.scipy import fft\nout = (fft.dct(x), fft.dct(x, axis=0, norm='ortho'), fft.dct(x, n=7), fft.idct(x), fft.idct(x, norm='ortho', axis=0), fft.idct(fft.dct(x)), fft.dct(x.astype(jnp.complex64) * 1j))",
        1e-4,
    ),
    (
        "scipy_dctn",
        R
        + "x = jnp.asarray(r.randn(3, 4, 5), jnp.float32)\nfrom jax.scipy import fft\nout = (fft.dctn(x), fft.dctn(x, axes=(0, 2), norm='ortho'), fft.dctn(x, s=(6, 6)), fft.idctn(x), fft.idctn(fft.dctn(x, norm='ortho'), norm='ortho'), jax.grad(lambda x: fft.dctn(x)[0, 1, 2])(x))",
        1e-4,
    ),
    ("scipy_dct_type", "from jax.scipy import fft\nout = fft.dct(jnp.ones(3), type=3)"),
    (
        "integrate_trapezoid",
        "from jax.scipy.integrate import trapezoid\nout = (trapezoid(jnp.array([1., 2., 4.])), trapezoid(jnp.array([1., 2., 4.]), dx=0.5), trapezoid(jnp.array([1., 2., 4.]), x=jnp.array([0., 1., 3.])))",
    ),
    (
        "map_coordinates",
        "from jax.scipy.ndimage import map_coordinates\nimg = jnp.arange(12.).reshape(3, 4)\nc = [jnp.array([0.5, 2.7, -0.3, 1.]), jnp.array([1.2, 3.5, 0., -1.6])]\nout = [map_coordinates(img, c, o, mode=m) for o in (0, 1) for m in ('constant', 'nearest', 'wrap', 'mirror', 'reflect')] + [map_coordinates(img, c, 1, cval=-1.), map_coordinates(jnp.arange(12).reshape(3, 4), c, 1)]",
        1e-5,
    ),
    (
        "map_coordinates_grad",
        "from jax.scipy.ndimage import map_coordinates\nimg = jnp.arange(12.).reshape(3, 4) ** 1.5\nout = (jax.grad(lambda x: map_coordinates(img, [x, x[::-1]], 1).sum())(jnp.array([0.5, 1.2])), jax.grad(lambda im: map_coordinates(im, [jnp.array([0.5, 1.7]), jnp.array([2.2, 0.1])], 1).sum())(img))",
        1e-4,
    ),
    (
        "map_coordinates_order",
        "from jax.scipy.ndimage import map_coordinates\nout = map_coordinates(jnp.ones(3), [jnp.array([0.5])], 3)",
    ),
    (
        "image_resize",
        IMG
        + "out = [jax.image.resize(img, (8, 4, 3), m) for m in ('nearest', 'linear', 'lanczos3', 'lanczos5', 'cubic', 'cubic-pytorch', 'area')]",
        1e-4,
    ),
    (
        "image_resize_no_antialias",
        IMG
        + "out = [jax.image.resize(img, (3, 10, 3), m, antialias=False) for m in ('linear', 'lanczos3', 'cubic', 'cubic-pytorch', jax.image.ResizeMethod.LANCZOS5)]",
        1e-4,
    ),
    (
        "image_scale_translate",
        IMG
        + "out = (jax.image.scale_and_translate(img, (6, 6, 3), (0, 1), jnp.array([1.3, 0.7]), jnp.array([0.5, -1.]), 'cubic'), jax.image.scale_and_translate(img, (5, 9, 3), (1,), jnp.array([1.5]), jnp.array([0.25]), 'linear', antialias=False))",
        1e-4,
    ),
    (
        "image_grad",
        IMG + "out = jax.grad(lambda x: jax.image.resize(x, (4, 4, 3), 'linear')[1, 1, 1])(img)",
        1e-4,
    ),
    ("image_bad_method", IMG + "out = jax.image.resize(img, (4, 4, 3), 'bogus')"),
    (
        "image_nearest_refused",
        IMG
        + "out = jax.image.scale_and_translate(img, (4, 4, 3), (0,), jnp.array([1.]), jnp.array([0.]), 'nearest')",
    ),
]

P = "pts = (jnp.array([1., 2., 4.]), jnp.array([0., 1., 2., 3.]))\nvals = jnp.arange(12.).reshape(3, 4) ** 1.5\n"
Q = "q = jnp.array([[1.5, 0.5], [3.9, 2.2], [0.5, 1.], [2., 3.]])\n"

SCIPY_MORE += [
    (
        "interpolate_rgi",
        P
        + Q
        + "from jax.scipy.interpolate import RegularGridInterpolator as RGI\nf = RGI(pts, vals)\nout = (f(q), f(q, method='nearest'), RGI(pts, vals, fill_value=None)(q), RGI(pts, vals, fill_value=-1.)(q), f((jnp.array([1.5, 2.5]), jnp.array([0.2, 2.9]))), RGI(pts, jnp.stack([vals, -vals], -1))(q), jax.jit(lambda q: f(q))(q))",
        1e-5,
    ),
    (
        "interpolate_rgi_grad",
        P
        + Q
        + "from jax.scipy.interpolate import RegularGridInterpolator as RGI\nout = (jax.grad(lambda v: RGI(pts, v)(q[:2]).sum())(vals), jax.grad(lambda q: RGI(pts, vals)(q).sum())(q[:2]))",
        1e-4,
    ),
    (
        "interpolate_rgi_bad",
        P
        + "from jax.scipy.interpolate import RegularGridInterpolator as RGI\nout = RGI(pts, vals, method='cubic')",
    ),
    (
        "cluster_vq",
        "from jax.scipy.cluster.vq import vq\nout = (vq(jnp.array([[0.0, 0.0], [5.0, 5.0], [2., 3.]]), jnp.array([[1.0, 1.0], [4.0, 4.0]])), vq(jnp.array([1., 7., 3.]), jnp.array([2., 6.])))",
    ),
    (
        "nn_orthogonal",
        "from jax.nn import initializers as I\nk = jax.random.key(0)\nout = (I.orthogonal()(k, (3, 3)), I.orthogonal(2., column_axis=0)(k, (2, 3, 4)), I.orthogonal()(jax.random.PRNGKey(1), (4, 2)), I.delta_orthogonal()(k, (3, 2, 2)), I.delta_orthogonal()(k, (3, 3, 2, 4)))",
        1e-5,
    ),
    ("nn_orthogonal_bad", "out = jax.nn.initializers.orthogonal()(jax.random.key(0), (3,))"),
    (
        "stages",
        "import jax.stages as s\nf = jax.jit(lambda x: x + 1)\nout = (isinstance(f, s.Wrapped), isinstance(f.lower(1.), s.Lowered), isinstance(f.lower(1.).compile(), s.Compiled), isinstance(f.trace(1.), s.Traced), isinstance(len, s.Wrapped))",
    ),
    (
        "no_tracing",
        "g = jax.jit(lambda x: x * 2)\na = g(jnp.ones(3))\nwith jax.no_tracing():\n    b = g(jnp.zeros(3))\nout = (a, b)",
    ),
    (
        "no_tracing_refuses",
        "g = jax.jit(lambda x: x * 2)\nwith jax.no_tracing():\n    out = g(jnp.ones(3, jnp.int16))",
    ),
]
