"""Snippets for jnp functions added for the API surface (issue 13): histograms, windows, set
operations, polynomial arithmetic, functional edits, bit packing, index grids. Registered in
snippets.py."""

X = "x = jnp.array([0.5, 2.0, 2.5, 1.0, 4.0, 3.5, 2.0])\n"

JNP_MORE = [
    (
        "histogram",
        X
        + "out = (jnp.histogram(x), jnp.histogram(x, bins=3, range=(0., 3.)), jnp.histogram(x, bins=jnp.array([0., 1., 4.])))",
    ),
    (
        "histogram_weights_density",
        X
        + "out = (jnp.histogram(x, bins=4, weights=jnp.arange(7.)), jnp.histogram(x, bins=4, density=True))",
    ),
    (
        "histogram_bin_edges",
        X
        + "out = (jnp.histogram_bin_edges(x, bins=4), jnp.histogram_bin_edges(jnp.ones(3), bins=2), jnp.histogram_bin_edges(jnp.arange(4), 3))",
    ),
    (
        "histogram_grad_jit",
        X
        + "out = (jax.grad(lambda w: jnp.histogram(x, bins=3, weights=w)[0][1])(jnp.ones(7)), jax.jit(lambda x: jnp.histogram(x, bins=3))(x))",
    ),
    (
        "histogram2d",
        "out = jnp.histogram2d(jnp.array([0., 1., 1., 2.]), jnp.array([0., 0., 1., 2.]), bins=2)",
    ),
    (
        "histogram2d_bins",
        "out = jnp.histogram2d(jnp.array([0., 1., 1., 2.]), jnp.array([0., 0., 1., 2.]), bins=[2, 3], density=True)",
    ),
    (
        "histogramdd",
        "s = jnp.array([[0., 0., 1.], [1., 1., 0.], [1., 0., 1.], [2., 2., 2.]])\nout = jnp.histogramdd(s, bins=2, weights=jnp.arange(4.))",
    ),
    ("histogram_string_bins", X + "out = jnp.histogram(x, bins='auto')"),
    (
        "digitize",
        "b = jnp.array([1., 2., 3.])\nv = jnp.array([0.5, 1., 2.5, 3., 4.])\nout = (jnp.digitize(v, b), jnp.digitize(v, b, right=True), jnp.digitize(v, b[::-1]), jnp.digitize(v, jnp.array([])))",
    ),
    (
        "windows",
        "out = [f(n) for f in (jnp.bartlett, jnp.blackman, jnp.hamming, jnp.hanning) for n in (0, 1, 5)]",
    ),
    (
        "frexp",
        "out = (jnp.frexp(jnp.array([8., 0.3, -5., 0., jnp.inf, 1e-30])), jnp.frexp(3), jax.grad(lambda x: jnp.frexp(x)[0])(3.))",
    ),
    ("spacing", "out = (jnp.spacing(jnp.array([1., -2., 0., 1e10])), jnp.spacing(1.))"),
    (
        "setops",
        "a = jnp.array([1, 4, 2, 2, 7]); b = jnp.array([2, 3, 7, 9])\nout = (jnp.intersect1d(a, b), jnp.union1d(a, b), jnp.setdiff1d(a, b), jnp.setxor1d(a, b), jnp.intersect1d(a, b, return_indices=True))",
    ),
    (
        "setops_size",
        "a = jnp.array([1, 4, 2, 2, 7]); b = jnp.array([2, 3, 7, 9])\nout = (jnp.intersect1d(a, b, size=4), jnp.union1d(a, b, size=8), jnp.setdiff1d(a, b, size=4), jnp.setxor1d(a, b, size=6), jnp.setdiff1d(a, b, size=3, fill_value=-1), jnp.intersect1d(a, b, size=3, return_indices=True))",
    ),
    (  # traced: JAX's sized set operations (unique's padding, fill values, indices past the end)
        "setops_size_jit",
        "a = jnp.array([3., 1., 4., 1., 5., jnp.nan, 2.]); b = jnp.array([[5., 3.], [5., 8.]])\nf = jax.jit(lambda a, b: (jnp.intersect1d(a, b, size=4), jnp.intersect1d(a, b, size=3, return_indices=True), jnp.intersect1d(a[:3], b[0], size=2, assume_unique=True, return_indices=True, fill_value=-1.), jnp.setdiff1d(a, b, size=7), jnp.setdiff1d(a[:3], b, size=3, assume_unique=True), jnp.setxor1d(a, b, size=9), jnp.setxor1d(a[:3], b[1], size=4, assume_unique=True, fill_value=0.), jnp.union1d(a, b, size=5)))\nout = f(a, b)",
    ),
    (
        "unique_nan_api",
        "x = jnp.array([[1.5, jnp.nan], [jnp.nan, 1.5], [0., 2.]])\nout = (jnp.unique_all(x), jnp.unique_counts(x), jnp.unique_values(x), jnp.unique_inverse(x), jnp.unique(x), jnp.unique(x, equal_nan=False), jnp.unique_all(x, size=6), jnp.unique(x, size=3, return_index=True, return_counts=True))",
    ),
    (
        "unique_api",
        "x = jnp.array([[3, 1], [3, 2]])\nu = jnp.unique_all(x)\nout = (jnp.unique_values(x), tuple(jnp.unique_counts(x)), tuple(jnp.unique_inverse(x)), tuple(u), type(u).__name__)",
    ),
    (
        "poly",
        "out = (jnp.poly(jnp.array([1., 2.])), jnp.poly(jnp.array([])), jnp.polyadd(jnp.array([1, 2]), jnp.array([1, 0, 0])), jnp.polysub(jnp.array([1., 2.]), jnp.array([3., 1., 0.])), jnp.polymul(jnp.array([1., 1.]), jnp.array([1., -1.])), jnp.polymul(jnp.array([0., 1.]), jnp.array([1., 2.]), trim_leading_zeros=True))",
    ),
    (
        "polydiv",
        "out = (jnp.polydiv(jnp.array([1., -3., 2.]), jnp.array([1., -1.])), jnp.polydiv(jnp.array([2., 0., 1., 5.]), jnp.array([1., 3.])), jnp.polydiv(jnp.array([1., -3., 2.]), jnp.array([1., -1.]), trim_leading_zeros=True))",
    ),
    (
        "polyder_polyint",
        "p = jnp.array([1., 2., 3., 4.])\nout = (jnp.polyder(p), jnp.polyder(p, 2), jnp.polyder(p, 0), jnp.polyint(p), jnp.polyint(p, 2, k=jnp.array([1., 2.])), jnp.polyint(jnp.array([1, 1]), k=3))",
    ),
    (
        "polyfit",
        "x = jnp.array([0., 1., 2., 3.]); y = jnp.array([1., 2.9, 5.2, 6.8])\nout = (jnp.polyfit(x, y, 1), jnp.polyfit(x, y, 2, w=jnp.array([1., 2., 1., 1.])), jnp.polyfit(x, jnp.stack([y, 2 * y], 1), 1), jnp.polyfit(x, y, 1, full=True)[0], jnp.polyfit(x, y, 1, cov=True))",
        1e-4,
    ),
    (
        "put_place",
        "out = (jnp.put(jnp.zeros(5), jnp.array([0, 2, 9]), jnp.array([1., 2.]), inplace=False), jnp.put(jnp.zeros(5), jnp.array([7, -1]), 3., mode='wrap', inplace=False), jnp.put(jnp.zeros(5), jnp.array([7, -1]), 3., mode='clip', inplace=False), jnp.place(jnp.zeros(4), jnp.array([True, False, True, True]), jnp.array([1., 2.]), inplace=False))",
    ),
    ("put_inplace_refused", "out = jnp.put(jnp.zeros(3), 0, 1.)"),
    (
        "put_along_axis",
        "a = jnp.arange(6.).reshape(2, 3)\nout = (jnp.put_along_axis(a, jnp.array([[1], [2]]), 9., axis=1, inplace=False), jnp.put_along_axis(a, jnp.array([[0, 1, 0]]), jnp.array([[7., 8., 9.]]), axis=0, inplace=False), jnp.put_along_axis(a, jnp.array([4]), 1., axis=None, inplace=False))",
    ),
    (
        "choose",
        "c = [jnp.array([1, 2, 3]), jnp.array([10, 20, 30]), 100]\nout = (jnp.choose(jnp.array([0, 1, 2]), c), jnp.choose(jnp.array([3, -1, 0]), c, mode='wrap'), jnp.choose(jnp.array([3, -1, 0]), c, mode='clip'))",
    ),
    ("choose_raise", "out = jnp.choose(jnp.array([0, 5]), [jnp.array([1, 2]), jnp.array([3, 4])])"),
    (
        "extract_trim",
        "out = (jnp.extract(jnp.array([[True, False], [False, True]]), jnp.array([[1, 2], [3, 4]])), jnp.extract(jnp.array([True, False, True]), jnp.arange(3), size=3, fill_value=-1), jnp.trim_zeros(jnp.array([0, 0, 1, 0, 2, 0])), jnp.trim_zeros(jnp.array([0, 1, 0]), 'f'), jnp.trim_zeros(jnp.array([0, 0])))",
    ),
    (
        "apply_over_axes",
        "a = jnp.arange(24.).reshape(2, 3, 4)\nout = (jnp.apply_over_axes(jnp.sum, a, [0, 2]), jnp.apply_over_axes(jnp.max, a, (1,)))",
    ),
    (
        "packbits",
        "a = jnp.array([[1, 0, 1], [0, 1, 1]])\nout = (jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 0, 1])), jnp.packbits(a, axis=1), jnp.packbits(a, axis=0, bitorder='little'), jnp.packbits(jnp.array([True, False])))",
    ),
    (
        "unpackbits",
        "b = jnp.array([[176, 3], [255, 0]], dtype=jnp.uint8)\nout = (jnp.unpackbits(b), jnp.unpackbits(b, axis=1), jnp.unpackbits(b, axis=0, count=3), jnp.unpackbits(b, axis=1, count=20, bitorder='little'))",
    ),
    (
        "unwrap",
        "p = jnp.array([0., 3., 6.5, 0.2, 7.])\nout = (jnp.unwrap(p), jnp.unwrap(p, discont=4.), jnp.unwrap(jnp.array([0, 5, 9, 1]), period=8), jnp.unwrap(jnp.stack([p, -p]), axis=1))",
    ),
    (
        "gradient",
        "f = jnp.array([1., 2., 4., 7., 11.])\ng = jnp.outer(f, jnp.arange(3.))\nout = (jnp.gradient(f), jnp.gradient(f, 2.), jnp.gradient(f, jnp.array([0., 1., 3., 4., 7.])), jnp.gradient(g), jnp.gradient(g, axis=0), jnp.gradient(g, 1., 2.))",
    ),
    ("gradient_grad", "out = jax.grad(lambda f: jnp.gradient(f)[2])(jnp.array([1., 2., 4., 7., 11.]))"),
    (
        "lexsort",
        "out = (jnp.lexsort([jnp.array([1, 0, 1, 0]), jnp.array([0, 1, 0, 1]), jnp.array([2, 2, 1, 1])]), jnp.lexsort((jnp.array([[3, 1], [2, 2]]),), axis=0))",
    ),
    (
        "sort_complex",
        "out = (jnp.sort_complex(jnp.array([3., 1., 2.])), jnp.sort_complex(jnp.array([3, 1])), jnp.sort_complex(jnp.array([1 + 2j, 1 - 1j, 0j])))",
    ),
    (
        "mgrid_ogrid",
        "out = (jnp.mgrid[0:2, 0:3], jnp.mgrid[0:1:3j], jnp.mgrid[0:2, 0:1:3j], jnp.ogrid[0:2, 0:3], jnp.ogrid[-1:1:0.5])",
    ),
    (
        "r_c_",
        "a = jnp.arange(6).reshape(2, 3)\nout = (jnp.r_[-1:5:1, 0, 0, jnp.array([1, 2, 3])], jnp.r_[-1:1:6j, 0], jnp.r_['0,2', [1, 2, 3], [4, 5, 6]], jnp.r_['0,2,0', [1, 2, 3], [4, 5, 6]], jnp.r_['r', [1, 2, 3], [4, 5, 6]], jnp.r_['c', [1, 2, 3]], jnp.c_[a, a], jnp.c_['0,2,-1', [1, 2, 3], [4, 5, 6]], jnp.c_[jnp.array([1, 2]), jnp.array([3, 4])])",
    ),
    ("s_index_exp", "x = jnp.arange(10)\nout = (x[jnp.s_[2:5]], x[jnp.index_exp[::3]], len(jnp.r_))"),
    (
        "numpy_names",
        "out = (jnp.array_str(jnp.arange(3.)), jnp.iterable([1]), jnp.iterable(1), jnp.cdouble is jnp.complex128, jnp.csingle is jnp.complex64, jnp.fromstring('1 2 3', dtype=int, sep=' '), jnp.mask_indices(3, jnp.triu, 1))",
    ),
    (
        "printoptions",
        "with jnp.printoptions(precision=2):\n    p = jnp.get_printoptions()['precision']\nout = (p, jnp.get_printoptions()['precision'])",
    ),
    ("fromiter_refused", "out = jnp.fromiter(range(3), dtype=float)"),
    (
        "matvec_vecmat",
        "m = jnp.arange(6.).reshape(2, 3)\nout = (jnp.matvec(m, jnp.arange(3.)), jnp.vecmat(jnp.arange(2.), m), jnp.matvec(jnp.stack([m, 2 * m]), jnp.ones(3)), jnp.vecmat(jnp.array([1j, 1.]), m.astype(jnp.complex64)))",
    ),
]
