"""Snippets for lax, jnp.linalg and jnp.fft functions added for the API surface (issue 13).
Registered in snippets.py."""

A = "a = jnp.array([[2., 1., 0.5], [0.3, 3., 1.], [1., -1., 4.]])\n"

LAX_MORE = [
    (
        "clz",
        "out = (lax.clz(jnp.array([1, 255, 0, -1, 1 << 20])), lax.clz(jnp.array([1, 0, 128], jnp.uint8)), lax.clz(jnp.array([3], jnp.int16)))",
    ),
    (
        "mulhi",
        "out = (lax.mulhi(jnp.array([-5, 7, 1 << 30]), jnp.array([1 << 30, -(1 << 31), 1 << 30])), lax.mulhi(jnp.uint32(0x80000000), jnp.uint32(6)), lax.mulhi(jnp.array([200], jnp.uint8), jnp.array([200], jnp.uint8)))",
    ),
    ("mulhi_jaxpr", "out = str(jax.make_jaxpr(lax.mulhi)(1, 2))"),
    (
        "cumlogsumexp",
        "x = jnp.array([0.1, -2., 3., 1.])\nout = (lax.cumlogsumexp(x), lax.cumlogsumexp(x, reverse=True), lax.cumlogsumexp(jnp.array([-jnp.inf, -jnp.inf, 1.])), lax.cumlogsumexp(jnp.arange(6.).reshape(2, 3), axis=1))",
    ),
    (
        "cumlogsumexp_grad_jit",
        "x = jnp.array([0.1, -2., 3., 1.])\nout = (jax.grad(lambda x: lax.cumlogsumexp(x)[2])(x), jax.jit(lax.cumlogsumexp)(x), jax.vmap(lax.cumlogsumexp)(jnp.stack([x, -x])), str(jax.make_jaxpr(lax.cumlogsumexp)(x)))",
    ),
    (
        "optimization_barrier",
        "x = jnp.array([0.1, -2., 3.])\nout = (lax.optimization_barrier((x, 2.)), jax.grad(lambda x: lax.optimization_barrier(x * x).sum())(x), jax.vmap(lax.optimization_barrier)(x), jax.jit(lambda x: lax.optimization_barrier(x)[0] * 2)(x), str(jax.make_jaxpr(lambda x: lax.optimization_barrier((x, x + 1)))(1.)))",
    ),
    (
        "reduce_monoids",
        "x = jnp.arange(24.).reshape(2, 3, 4)\nout = (lax.reduce(x, 0., lax.add, (1,)), lax.reduce(x, -jnp.inf, lax.max, (0, 2)), lax.reduce(jnp.arange(6), 1, lax.mul, (0,)), lax.reduce(jnp.arange(6), 0, lax.bitwise_or, (0,)), lax.reduce(2., 0., lax.add, ()), str(jax.make_jaxpr(lambda x: lax.reduce(x, 0., lax.add, (1,)))(x)))",
    ),
    (
        "reduce_general",
        "x = jnp.arange(24.).reshape(2, 3, 4)\nout = (lax.reduce(x, 0., lambda a, b: a + 2 * b, (2,)), lax.reduce(x, 1., lax.add, (0,)), lax.reduce((jnp.array([3.0, 1.0, 2.0, 0.5, 7.]), jnp.arange(5)), (jnp.inf, 0), lambda a, b: (lax.min(a[0], b[0]), lax.select(a[0] <= b[0], a[1], b[1])), (0,)))",
    ),
    (
        "reduce_grad",
        "out = (jax.grad(lambda x: lax.reduce(x, 1., lax.mul, (0,)))(jnp.array([1., 2., 3.])), jax.grad(lambda x: lax.reduce(x, 1., lambda a, b: a * b, (0,)))(jnp.array([1., 2., 3.])))",
    ),
    ("reduce_tree_mismatch", "out = lax.reduce((jnp.ones(2), jnp.ones(2)), 0., lax.add, (0,))"),
    (
        "broadcast_shapes",
        "out = (lax.broadcast_shapes((2, 1), (3,)), lax.broadcast_shapes((5,)), lax.broadcast_shapes((1, 4), (3, 1), ()))",
    ),
    ("broadcast_shapes_bad", "out = lax.broadcast_shapes((2,), (3,))"),
    (
        "batch_matmul",
        "r = np.random.RandomState(0)\nl = jnp.asarray(r.randn(2, 3, 4), jnp.float32); m = jnp.asarray(r.randn(2, 4, 5), jnp.float32)\nout = (lax.batch_matmul(l, m), str(jax.make_jaxpr(lax.batch_matmul)(l, m)))",
    ),
    ("batch_matmul_bad", "out = lax.batch_matmul(jnp.ones((2, 3, 4)), jnp.ones((4, 5)))"),
    (
        "index_take",
        "src = jnp.arange(24).reshape(2, 3, 4)\nout = (lax.index_take(jnp.arange(12).reshape(3, 4), (jnp.array([0, 2, -1]), jnp.array([1, 5, 2])), (0, 1)), lax.index_take(src, (jnp.array([1, 0]),), (1,)), lax.index_take(src, (jnp.array([1]), jnp.array([3])), (0, 2)))",
    ),
    (
        "approx_k",
        "x = jnp.array([[1.0, 5.0, 3.0], [4., 2., 9.]])\nout = (lax.approx_max_k(x, 2), lax.approx_min_k(x, 1, reduction_dimension=0), lax.approx_max_k(x, 1, recall_target=0.5))",
    ),
    (  # not aggregated to k: XLA's candidate count (all of a tile; past it, shrunk by a power of two)
        "approx_k_unaggregated",
        "x = jnp.sin(jnp.arange(300.0)).reshape(300, 1)\nout = (lax.approx_max_k(x, 5, reduction_dimension=0, aggregate_to_topk=False, recall_target=0.9), lax.approx_min_k(x[:6, 0], 2, aggregate_to_topk=False), lax.approx_max_k(x[:130], 1, reduction_dimension=0, aggregate_to_topk=False))",
    ),
    # jnp.linalg
    (
        "linalg_cond",
        A
        + "out = (jnp.linalg.cond(a), jnp.linalg.cond(a, 1), jnp.linalg.cond(a, -2), jnp.linalg.cond(a, 'fro'), jnp.linalg.cond(a, jnp.inf), jnp.linalg.cond(jnp.array([[1., 2.], [2., 4.]]), 1), jnp.linalg.cond(jnp.stack([a, 2 * a])))",
        1e-4,
    ),
    ("linalg_cond_grad", A + "out = jax.grad(jnp.linalg.cond)(a)", 1e-3),
    (
        "linalg_cross",
        "out = (jnp.linalg.cross(jnp.array([1., 0, 0]), jnp.array([0, 1., 0])), jnp.linalg.cross(jnp.arange(6.).reshape(2, 3), jnp.ones(3)))",
    ),
    ("linalg_cross_bad", "out = jnp.linalg.cross(jnp.ones(2), jnp.ones(2))"),
    (
        "linalg_multi_dot",
        "r = np.random.RandomState(1)\nms = [jnp.asarray(r.randn(*s), jnp.float32) for s in ((4, 2), (2, 6), (6, 3), (3, 1))]\nout = (jnp.linalg.multi_dot(ms), jnp.linalg.multi_dot([jnp.ones(4)] + ms[:2]), jnp.linalg.multi_dot([ms[0], jnp.ones(2)]))",
        1e-4,
    ),
    ("linalg_multi_dot_bad", "out = jnp.linalg.multi_dot([jnp.ones((2, 3)), jnp.ones((2, 3))])"),
    (
        "linalg_tensorinv",
        "r = np.random.RandomState(2)\nt = jnp.asarray(r.randn(4, 2, 2), jnp.float32) + jnp.eye(4).reshape(4, 2, 2)\nti = jnp.linalg.tensorinv(t, ind=1)\nout = (ti, jnp.tensordot(ti, t, 1))",
        1e-4,
    ),
    (
        "linalg_tensorsolve",
        "r = np.random.RandomState(3)\na = jnp.asarray(r.randn(2, 3, 6), jnp.float32)\nb = jnp.asarray(r.randn(2, 3), jnp.float32)\nout = (jnp.linalg.tensorsolve(a, b), jnp.linalg.tensorsolve(jnp.moveaxis(a, 2, 0), b, axes=(0,)))",
        1e-4,
    ),
    # jnp.fft
    (
        "fft_real_nd",
        "x = jnp.arange(24.).reshape(2, 3, 4) ** 1.5\nout = (jnp.fft.rfftn(x), jnp.fft.rfft2(x), jnp.fft.rfftn(x, s=(2, 6), axes=(0, 2)), jnp.fft.rfftn(x, axes=(1,)))",
        1e-4,
    ),
    (
        "fft_irfft_nd",
        "x = jnp.arange(24.).reshape(2, 3, 4) ** 1.5\nX = jnp.fft.rfftn(x)\nout = (jnp.fft.irfftn(X, x.shape), jnp.fft.irfftn(X), jnp.fft.irfft2(jnp.fft.rfft2(x)), jnp.fft.irfftn(X, s=(2, 3, 5), norm='ortho'))",
        1e-4,
    ),
    (
        "fft_hermitian",
        "out = (jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0])), jnp.fft.hfft(jnp.array([1.0, 2j, 3.0]), n=5), jnp.fft.ihfft(jnp.arange(4.)), jnp.fft.ihfft(jnp.arange(5.), n=4, norm='ortho'), jnp.fft.hfft(jnp.arange(6.).reshape(2, 3), axis=0), jnp.fft.hfft(jnp.arange(4.), norm='ortho'), jnp.fft.ihfft(jnp.arange(4.), norm='forward'), jnp.fft.hfft(jnp.arange(4.), norm='forward'))",
        1e-5,
    ),
    (
        "fft_rfftn_grad",
        "out = jax.grad(lambda x: jnp.abs(jnp.fft.rfft2(x)).sum())(jnp.arange(12.).reshape(3, 4) ** 1.5)",
        1e-4,
    ),
    (
        "custom_root",
        "def newton(f, x0):\n    return lax.fori_loop(0, 20, lambda i, x: x - f(x) / jax.grad(f)(x), x0)\n"
        "def sqrt_cubed(x):\n    return lax.custom_root(lambda y: y ** 2 - x ** 3, 1.0, newton, lambda g, y: y / g(1.0))\n"
        "def vec_root(a):\n    f = lambda x: x * x - a\n"
        "    return lax.custom_root(f, jnp.ones_like(a), lambda f, x0: lax.fori_loop(0, 30, lambda i, x: x - f(x) / (2 * x), x0), "
        "lambda g, y: y / g(jnp.ones_like(y)))\n"
        "out = (sqrt_cubed(2.), jax.grad(sqrt_cubed)(2.), jax.jit(jax.grad(sqrt_cubed))(3.), "
        "jax.vmap(sqrt_cubed)(jnp.array([1., 4.])), jax.jacobian(vec_root)(jnp.array([4., 9.])))",
    ),
    # A weakly typed initial carry (a Python scalar) the body returns with another dtype takes the
    # promoted dtype, strongly typed: 0 next to float32, 0. next to float32 (float64 with x64 on).
    (
        "loop_weak_init_promotes",
        "x = jnp.float32(1.5)\n"
        "out = (lax.while_loop(lambda c: c < 3, lambda c: c + x, 0.), lax.fori_loop(0, 3, lambda i, c: c + x, 0), "
        "lax.scan(lambda c, y: (c + y, c), 0., jnp.arange(3, dtype=jnp.float32)), "
        "lax.fori_loop(0, 3, lambda i, c: c + i, 0.), lax.fori_loop(jnp.int32(0), 3, lambda i, c: c + i, 0), "
        "str(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + x, 0.))(x)))",
    ),
    # broadcast_in_dim whose broadcast_dimensions do not increase: a transpose (and broadcast), eager,
    # under jit, vmap and jvp; its jaxpr and StableHLO texts; grad refused by JAX's transpose rule
    # (and wrong-but-recorded where the shapes coincide); JAX's shape errors for invalid dimensions
    (
        "broadcast_in_dim_unordered",
        "x = jnp.arange(6.).reshape(2, 3)\nf = lambda x: lax.broadcast_in_dim(x, (3, 2), (1, 0))\n"
        "g = lambda x: lax.broadcast_in_dim(x, (3, 4, 2), (2, 0))\n"
        "out = (f(x), g(x), jax.jit(f)(x), jax.jit(g)(x), jax.vmap(g)(jnp.stack([x, x + 1])), "
        "jax.jvp(g, (x,), (x * 2,)), lax.broadcast_in_dim(jnp.arange(3), (3, 1, 2), (0,)), "
        "str(jax.make_jaxpr(f)(x)), str(jax.make_jaxpr(g)(x)), jax.jit(f).lower(x).as_text(), "
        "jax.jit(g).lower(x).as_text(), str(jax.make_jaxpr(jax.vmap(g))(jnp.stack([x, x]))))",
    ),
    (
        "broadcast_in_dim_unordered_grad_square",
        "m = jnp.arange(9.).reshape(3, 3)\n"
        "out = jax.grad(lambda x: (lax.broadcast_in_dim(x, (3, 3), (1, 0)) * m).sum())(jnp.ones((3, 3)))",
    ),
    (
        "err_broadcast_in_dim_unordered_grad",
        "out = jax.grad(lambda x: lax.broadcast_in_dim(x, (3, 2), (1, 0)).sum())(jnp.ones((2, 3)))",
    ),
    ("err_broadcast_in_dim_sizes", "out = lax.broadcast_in_dim(jnp.ones((2, 3)), (3, 2, 4), (0, 1))"),
    (
        "err_broadcast_in_dim_sizes_jit",
        "out = jax.jit(lambda x: lax.broadcast_in_dim(x, (3, 2, 4), (0, 1)))(jnp.ones((2, 3)))",
    ),
    ("err_broadcast_in_dim_duplicates", "out = lax.broadcast_in_dim(jnp.ones((3, 3)), (3, 3), (0, 0))"),
    (
        "err_broadcast_in_dim_duplicates_vmap",
        "out = jax.vmap(lambda x: lax.broadcast_in_dim(x, (3, 3), (0, 0)))(jnp.ones((2, 3, 3)))",
    ),
    ("err_broadcast_in_dim_rank", "out = lax.broadcast_in_dim(jnp.ones((2, 3)), (6,), (0, 0))"),
    ("err_broadcast_in_dim_out_of_range", "out = lax.broadcast_in_dim(jnp.ones((2, 3)), (2, 3), (0, 2))"),
    ("err_broadcast_in_dim_length", "out = lax.broadcast_in_dim(jnp.ones((2, 3)), (2, 3, 4), (0,))"),
]
