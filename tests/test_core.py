"""The transformations on the core primitives: composition, pytrees, caching, errors, source lines."""

import math

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax, errors
from engine.core import Array


def arr(x, dtype=np.float32):
    return Array(np.asarray(x, dtype=dtype))


def tanh_by_exp(x):
    y = lax.exp(lax.mul(-2.0, x))
    return lax.div(lax.sub(1.0, y), lax.add(1.0, y))


def test_grad_and_higher_order_match_closed_forms():
    t = math.tanh(1.0)
    assert float(jax.grad(tanh_by_exp)(1.0)) == pytest.approx(1 - t * t, rel=1e-6)
    # d^3/dx^3 tanh = -2 (1 - t^2)(1 - 3 t^2)
    assert float(jax.grad(jax.grad(jax.grad(tanh_by_exp)))(1.0)) == pytest.approx(
        -2 * (1 - t * t) * (1 - 3 * t * t), rel=1e-5
    )


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x
    f = lambda x: lax.mul(x, jax.grad(lambda y: lax.mul(x, y))(1.0))
    assert float(jax.grad(f)(3.0)) == pytest.approx(6.0)


def test_python_control_flow_under_grad():
    def abs_val(x):
        return x if lax.gt(x, 0.0) else lax.neg(x)

    assert float(jax.grad(abs_val)(1.0)) == 1.0
    assert float(jax.grad(abs_val)(-1.0)) == -1.0


def test_jvp_vjp_linearize_agree():
    f = lambda x, y: lax.mul(lax.sin(x), y)
    xn, yn, txn, tyn = (np.array(v, np.float32) for v in ([0.1, 0.7], [2.0, -1.0], [1.0, 0.5], [0.3, 0.2]))
    x, y, tx, ty = map(arr, (xn, yn, txn, tyn))
    out, tan = jax.jvp(f, (x, y), (tx, ty))
    expect = np.cos(xn) * txn * yn + np.sin(xn) * tyn
    np.testing.assert_allclose(tan, expect, rtol=1e-6)
    _, f_jvp = jax.linearize(f, x, y)
    np.testing.assert_allclose(f_jvp(tx, ty), expect, rtol=1e-6)
    _, f_vjp = jax.vjp(f, x, y)
    ctn = np.array([1.0, 2.0], np.float32)
    gx, gy = f_vjp(arr(ctn))
    np.testing.assert_allclose(gx, np.cos(xn) * yn * ctn, rtol=1e-6)
    np.testing.assert_allclose(gy, np.sin(xn) * ctn, rtol=1e-6)


def test_linear_transpose_is_the_vjp_of_a_linear_function():
    W = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    f_t = jax.linear_transpose(
        lambda x, b: (W @ x + 2.0 * jax.numpy.sum(b), -x), np.zeros(3, np.float32), 1.0
    )
    ct = (np.array([1.0, -2.0], np.float32), np.array([0.5, 0.0, 1.0], np.float32))
    gx, gb = f_t(ct)
    np.testing.assert_allclose(gx, W.T @ ct[0] - ct[1])
    np.testing.assert_allclose(gb, 2.0 * ct[0].sum())
    with pytest.raises(TypeError, match="cotangent tree does not match"):
        f_t(ct[0])
    with pytest.raises(TypeError, match=r"\[float or complex\]"):
        jax.linear_transpose(lambda x: x.astype(np.int32), np.zeros(2, np.float32))


def test_grad_argnums_and_has_aux():
    f = lambda x, y: (lax.mul(x, lax.mul(y, y)), {"aux": y})
    (gx, gy), aux = jax.grad(f, argnums=(0, 1), has_aux=True)(2.0, 3.0)
    assert float(gx) == 9.0 and float(gy) == 12.0
    assert float(aux["aux"]) == 3.0
    (val, aux2), g = jax.value_and_grad(f, has_aux=True)(2.0, 3.0)
    assert float(val) == 18.0 and float(g) == 9.0


def test_grad_pytree_input():
    params = {"w": arr([1.0, 2.0]), "b": (arr(0.5),)}
    loss = lambda p: lax.reduce_sum(
        lax.mul(p["w"], lax.add(p["w"], lax.broadcast_in_dim(p["b"][0], (2,), ()))), (0,)
    )
    g = jax.grad(loss)(params)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"], 2 * np.array([1.0, 2.0]) + 0.5)
    np.testing.assert_allclose(g["b"][0], 3.0)


def test_grad_errors_are_jax_like():
    with pytest.raises(TypeError, match="real- or complex-valued inputs"):
        jax.grad(lambda x: lax.mul(x, x))(3)
    with pytest.raises(TypeError, match="scalar-output"):
        jax.grad(lambda x: lax.sin(x))(arr([1.0, 2.0]))


def test_jacobians_and_hessian():
    x = arr([0.5, 1.0, 2.0])
    f = lambda v: lax.reduce_sum(lax.mul(lax.sin(v), lax.mul(v, v)), (0,))
    h = np.asarray(jax.hessian(f)(x))
    xs = np.array([0.5, 1.0, 2.0])
    expect = np.diag(-np.sin(xs) * xs**2 + 4 * xs * np.cos(xs) + 2 * np.sin(xs))
    np.testing.assert_allclose(h, expect, rtol=1e-5, atol=1e-6)
    g = lambda v: lax.mul(lax.sin(v), lax.reduce_sum(v, (0,)))
    jf, jr = np.asarray(jax.jacfwd(g)(x)), np.asarray(jax.jacrev(g)(x))
    np.testing.assert_allclose(jf, jr, rtol=1e-6)
    expect = np.diag(np.cos(xs) * xs.sum()) + np.sin(xs)[:, None]
    np.testing.assert_allclose(jf, expect, rtol=1e-6)


def test_jacobian_pytree_layout():
    f = lambda a, b: {"u": lax.mul(a, b), "v": lax.reduce_sum(a, (0,))}
    a, b = arr([1.0, 2.0]), arr(3.0)
    j = jax.jacrev(f, argnums=(0, 1))(a, b)
    jf = jax.jacfwd(f, argnums=(0, 1))(a, b)
    for jj in (j, jf):
        assert np.asarray(jj["u"][0]).shape == (2, 2)
        assert np.asarray(jj["u"][1]).shape == (2,)
        assert np.asarray(jj["v"][0]).shape == (2,)
        np.testing.assert_allclose(jj["u"][1], [1.0, 2.0])


def test_vmap_axes_and_nesting():
    x = arr(np.arange(6.0).reshape(2, 3))
    s = lambda r: lax.reduce_sum(lax.sin(r), (0,))
    np.testing.assert_allclose(jax.vmap(s)(x), np.sin(np.arange(6.0).reshape(2, 3)).sum(1), rtol=1e-6)
    np.testing.assert_allclose(
        jax.vmap(s, in_axes=1)(x), np.sin(np.arange(6.0).reshape(2, 3)).sum(0), rtol=1e-6
    )
    np.testing.assert_allclose(
        jax.vmap(s, in_axes=-1)(x), np.sin(np.arange(6.0).reshape(2, 3)).sum(0), rtol=1e-6
    )
    add = lambda a, b: lax.add(a, b)
    out = jax.vmap(add, in_axes=(1, 0), out_axes=1)(
        arr([[1, 2, 3]], np.int32), arr([[4], [5], [6]], np.int32)
    )
    np.testing.assert_array_equal(out, [[5, 7, 9]])
    grid = jax.vmap(jax.vmap(lambda a, b: lax.mul(lax.sin(a), b), in_axes=(None, 0)), in_axes=(0, None))
    xs, ys = np.linspace(-1, 1, 4, dtype=np.float32), np.linspace(-2, 2, 3, dtype=np.float32)
    np.testing.assert_allclose(grid(arr(xs), arr(ys)), np.sin(xs)[:, None] * ys[None, :], rtol=1e-6)


def test_vmap_of_dot_general_every_side():
    a = np.random.RandomState(0).randn(4, 3, 5).astype(np.float32)
    b = np.random.RandomState(1).randn(4, 5).astype(np.float32)
    mv = lambda m, v: lax.dot(m, v)
    np.testing.assert_allclose(jax.vmap(mv)(arr(a), arr(b)), np.einsum("bij,bj->bi", a, b), rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(mv, in_axes=(0, None))(arr(a), arr(b[0])), a @ b[0], rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(mv, in_axes=(None, 0))(arr(a[0]), arr(b)), b @ a[0].T, rtol=1e-5)


def test_vmap_errors():
    with pytest.raises(ValueError, match="inconsistent sizes"):
        jax.vmap(lax.add)(arr([1.0, 2.0]), arr([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="in_axes=\\(0, None\\)"):
        jax.vmap(lax.mul)(arr([1.0, 2.0]), 2.0)


def test_per_example_gradients():
    w = arr([[0.5, -1.0], [2.0, 0.1]])
    xn = np.random.RandomState(0).randn(5, 2).astype(np.float32)
    xs = arr(xn)
    loss = lambda w, x: lax.reduce_sum(lax.tanh(lax.dot(w, x)), (0,))
    g = jax.vmap(jax.grad(loss), in_axes=(None, 0))(w, xs)
    for i in range(5):
        np.testing.assert_allclose(np.asarray(g)[i], jax.grad(loss)(w, arr(xn[i])), rtol=1e-5)


def test_jit_caches_by_signature_and_static_args():
    calls = []

    def f(x, n):
        calls.append(1)
        y = x
        for _ in range(n):
            y = lax.mul(y, 2.0)
        return y

    jf = jax.jit(f, static_argnums=1)
    assert float(jf(arr(1.0), 3)) == 8.0
    assert float(jf(arr(2.0), 3)) == 16.0
    assert len(calls) == 1
    jf(arr(2.0), 2)
    assert len(calls) == 2
    jf(arr([1.0, 2.0]), 2)
    assert len(calls) == 3


def test_jit_bool_conversion_error():
    def f(x):
        return x if lax.gt(x, 0.0) else lax.neg(x)

    with pytest.raises(errors.TracerBoolConversionError) as e:
        jax.jit(f)(1.0)
    assert isinstance(e.value, errors.ConcretizationTypeError)
    assert str(e.value).splitlines()[-1].endswith("#jax.errors.TracerBoolConversionError")  # (JAX's page)


def test_jit_composes_with_grad_and_vmap():
    g = jax.jit(lambda v: lax.reduce_sum(lax.mul(lax.sin(v), v), (0,)))
    x = np.array([0.5, 1.0, 2.0], np.float32)
    np.testing.assert_allclose(jax.grad(g)(arr(x)), np.cos(x) * x + np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(jax.grad(g))(arr(x)), np.cos(x) * x + np.sin(x), rtol=1e-6)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(jax.vmap(g)(arr(xs)), (np.sin(xs) * xs).sum(1), rtol=1e-6)
    text = str(jax.make_jaxpr(jax.grad(g))(arr(x)))
    assert text.count("jit[") == 2  # the forward and the transposed call both stay staged


def test_batched_jit_keeps_batch_axes_where_its_body_puts_them():
    """JAX's pjit batching: a jit's outputs keep the batch axis where its batched body leaves it (no
    transpose to the front inside the jit; the sweep checks the texts): values as without the jit,
    derivatives through it as finite differences."""
    import engine.numpy as jnp
    from engine.test_util import check_grads

    f = lambda x: jnp.sin(x) * 2.0 + jnp.sum(x, 0)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 9
    for in_axes, out_axes in [(1, 0), (2, 0), (1, 1), (2, -1), (0, 1)]:
        want = jax.vmap(f, in_axes=in_axes, out_axes=out_axes)(x)
        got = jax.vmap(jax.jit(f), in_axes=in_axes, out_axes=out_axes)(x)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    text = str(jax.make_jaxpr(jax.vmap(jax.jit(jnp.sin), in_axes=1))(x[0]))
    assert text.count("transpose") == 1 and text.index("transpose") > text.index("jit[")
    g = lambda x, w: jnp.sum(jnp.tanh(x @ w) ** 2)
    w = np.arange(8, dtype=np.float32).reshape(4, 2) / 5 - 0.5
    np.testing.assert_allclose(
        jax.hessian(jax.jit(g))(x[0], w), jax.hessian(g)(x[0], w), rtol=1e-5, atol=1e-6
    )
    check_grads(lambda x: jax.jacfwd(jax.jit(g))(x, w), (x[0],), order=1, modes=("fwd",))
    check_grads(lambda x: jax.vmap(jax.jit(f), in_axes=2, out_axes=1)(x), (x,), order=2)


def test_make_jaxpr_prints_like_jax():
    text = str(jax.make_jaxpr(tanh_by_exp)(1.0))
    assert text.startswith("{ lambda ; a:f32[]. let")
    assert "b:f32[] = mul -2.0:f32[] a" in text
    assert "exp b" in text and text.rstrip().endswith("}")


def test_grad_jaxpr_is_lean():
    text = str(jax.make_jaxpr(jax.grad(tanh_by_exp))(1.0))
    # Forward: 7 equations; backward: no zero-filled broadcasts, no dead work.
    assert "broadcast_in_dim" not in text
    assert text.count(" = ") < 20


def test_equations_record_user_source_lines():
    import inspect

    closed = jax.make_jaxpr(tanh_by_exp)(1.0)
    first_line = inspect.getsourcelines(tanh_by_exp)[1]
    lines = [e.source_info.line for e in closed.jaxpr.eqns]
    assert lines[0] == first_line + 1
    assert all(first_line < ln <= first_line + 2 for ln in lines)
    assert all(e.source_info.file == __file__ for e in closed.jaxpr.eqns)
    # Transposed equations keep the line of the forward equation they came from.
    g = jax.make_jaxpr(jax.grad(tanh_by_exp))(1.0)
    assert all(
        e.source_info is not None and first_line < e.source_info.line <= first_line + 2 for e in g.jaxpr.eqns
    )


def test_leaked_tracer_is_reported():
    leaked = []

    def f(x):
        leaked.append(x)
        return x

    jax.grad(f)(1.0)
    with pytest.raises(errors.UnexpectedTracerError):
        jax.jit(lambda y: lax.add(y, leaked[0]))(1.0)


def test_weak_types():
    out = jax.jit(lambda x: lax.mul(x, 2.0))(arr([1.0]))
    assert out.dtype == np.float32 and not out.weak_type
    assert jax.grad(lambda x: lax.mul(x, x))(1.0).weak_type


def test_lower_and_compile_stages():
    lowered = jax.jit(tanh_by_exp).lower(1.0)
    assert "exp" in lowered.as_text()
    compiled = lowered.compile()
    assert float(compiled(1.0)) == pytest.approx(math.tanh(1.0), rel=1e-6)


def _typecheck_all(closed):
    from engine.ir import typecheck_jaxpr, subjaxprs

    stack = [closed.jaxpr]
    while stack:
        j = stack.pop()
        typecheck_jaxpr(j)
        for e in j.eqns:
            stack.extend(subjaxprs(e))


@pytest.mark.parametrize(
    "name,make",
    [
        ("grad", lambda f: jax.grad(f)),
        ("grad_grad", lambda f: jax.grad(jax.grad(f))),
        ("jit_grad", lambda f: jax.jit(jax.grad(f))),
        ("grad_jit", lambda f: jax.grad(jax.jit(f))),
        ("vmap_grad", lambda f: lambda x: jax.vmap(jax.grad(f))(lax.broadcast_in_dim(x, (3,), ()))),
        ("hessian", lambda f: jax.hessian(f)),
        ("jacfwd_jit", lambda f: jax.jacfwd(jax.jit(f))),
    ],
)
def test_transformed_jaxprs_typecheck(name, make):
    closed = jax.make_jaxpr(make(tanh_by_exp))(0.3)
    _typecheck_all(closed)


def test_check_jaxpr_raises_the_errors_jaxpr_type_error():
    """jax.extend.core.check_jaxpr passes a traced jaxpr and raises jax.errors.JaxprTypeError (a
    TypeError, as in JAX) once a binder's type is not what its primitive's rule gives."""
    from engine import core
    from engine.extend import core as extend_core

    closed = jax.make_jaxpr(lambda x: lax.add(lax.sin(x), 1.0))(np.ones(3, np.float32))
    assert extend_core.check_jaxpr(closed.jaxpr) is None
    closed.jaxpr.eqns[0].out_binders[0].aval = core.ShapedArray((4,), np.float32, False)
    with pytest.raises(errors.JaxprTypeError, match=r"sin: binder float32\[4\] but rule says float32\[3\]"):
        extend_core.check_jaxpr(closed.jaxpr)
    assert issubclass(errors.JaxprTypeError, TypeError)


def test_linearize_replays_a_user_primitives_tangent_equations_as_jax_does():
    # JAX 0.10.2 linearizes a jax.extend primitive by tracing its JVP rule into a jaxpr and
    # evaluating that into the tangent trace, whose abstract evaluation is cached: the first grad
    # calls the abstract rule 4 times (2 in the rule, 2 replayed), the same grad again 2 times.
    from engine.extend import core as extend_core
    from engine.interpreters import ad

    p = extend_core.Primitive("multiply_add_replayed")
    p.def_impl(lambda x, y, z: x * y + z)
    calls = []

    def abstract_eval(x, y, z):
        calls.append((x.weak_type, y.weak_type, z.weak_type))
        return jax.core.ShapedArray(x.shape, x.dtype)

    p.def_abstract_eval(abstract_eval)

    def jvp(primals, tangents):
        x, y, z = primals
        xt, yt, zt = tangents
        inner = p.bind(x, yt, 0.0 if type(zt) is ad.Zero else zt)
        return p.bind(x, y, z), p.bind(xt, y, inner)

    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = lambda ct, x, y, z: (
        (p.bind(ct, y, 0.0), None, ct) if ad.is_undefined_primal(x) else (None, p.bind(x, ct, 0.0), ct)
    )
    f = lambda a, b: p.bind(a, a, b)  # noqa: E731
    assert float(jax.grad(f)(2.0, 10.0)) == 4.0
    assert calls == [(True, True, True), (True, True, False)] * 2
    calls.clear()
    assert float(jax.grad(f)(2.0, 10.0)) == 4.0
    assert calls == [(True, True, True), (True, True, False)]


def test_literals_repr_as_jax_keeps_them():
    # JAX 0.10.2: a weakly typed int / complex literal is a TypedInt / TypedComplex (its str is its
    # repr), a weak float a TypedFloat printing as a float, a strongly typed one a numpy scalar
    def literals(f, *args):
        eqns = jax.make_jaxpr(f)(*args).jaxpr.eqns
        return [repr(v) for e in eqns for v in e.invars if type(v).__name__ == "Literal"]

    assert literals(lambda x: x + 1, 2) == ["Literal(TypedInt(1, dtype=int32))"]
    assert literals(lambda x: x * 2j, 1j) == ["Literal(TypedComplex(2j, dtype=complex64))"]
    assert literals(lambda x: x + 1.5, 2.0) == ["Literal(1.5)"]
    assert literals(lambda x: x + 1, np.int32(2)) == ["Literal(1)"]


def test_an_array_prints_as_jax_lays_its_repr_out():
    # (recorded from JAX 0.10.2: where numpy's last line leaves no room for the dtype, JAX puts
    # the prefix's width of spaces before it, on the same line)
    assert repr(jnp.linspace(0, 1, 9)) == (
        "Array([0.   , 0.125, 0.25 , 0.375, 0.5  , 0.625, 0.75 , 0.875, 1.   ],      dtype=float32)"
    )
    assert repr(2.0 * jnp.arange(10)) == (
        "Array([ 0.,  2.,  4.,  6.,  8., 10., 12., 14., 16., 18.],      dtype=float32, weak_type=True)"
    )
    assert (
        repr(jnp.arange(8.0) * 1.5)
        == "Array([ 0. ,  1.5,  3. ,  4.5,  6. ,  7.5,  9. , 10.5], dtype=float32)"
    )
    assert repr(jnp.zeros((0, 3))) == "Array([], shape=(0, 3), dtype=float32)"
    assert repr(jnp.float32(3.0)) == "Array(3., dtype=float32)"
