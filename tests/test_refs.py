"""Mutable array references (``jax.new_ref``, ``jax.Ref``, ``jax.ref``): eager reads and writes,
under ``jit`` (arguments, closed over, made inside), ``grad``, ``vmap`` and control flow, and
JAX's errors. Expected values are computed here with numpy or by hand; the jaxpr texts are in the
fidelity corpus (``tests/fidelity/programs.py``, ``refs_*``)."""

from __future__ import annotations

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import jit_runtime, lax


def test_eager_indexing_reads_and_writes_as_numpy_does():
    ref = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
    want = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    ref[1] = ref[0]
    want[1] = want[0]
    ref[2, 3] = ref[1, 2]
    want[2, 3] = want[1, 2]
    ref[0, :3] = ref[:, 1]
    want[0, :3] = want[:, 1]
    vals = ref[jnp.array([0, 0, 1]), jnp.array([1, 2, 3])]
    np.testing.assert_array_equal(vals, want[[0, 0, 1], [1, 2, 3]])
    ref[jnp.array([1, 2, 1]), jnp.array([0, 0, 1])] = vals
    want[[1, 2, 1], [0, 0, 1]] = want[[0, 0, 1], [1, 2, 3]]
    np.testing.assert_array_equal(ref[...], want)
    np.testing.assert_array_equal(ref[::2, 1:], want[::2, 1:])
    np.testing.assert_array_equal(ref[-1], want[-1])
    np.testing.assert_array_equal(ref[jnp.array([2, 0]), 1:3], want[[2, 0], 1:3])


def test_ref_api_swap_set_addupdate_freeze():
    ref = jax.new_ref(jnp.arange(5))
    old = jax.ref.swap(ref, 3, 10)
    assert int(old) == 3
    jax.ref.set(ref, slice(0, 2), jnp.array([7, 8], jnp.int32))
    jax.ref.addupdate(ref, jnp.array([4, 4, 0]), jnp.array([1, 2, 3], jnp.int32))  # repeats accumulate
    np.testing.assert_array_equal(jax.ref.get(ref, ...), [10, 8, 2, 10, 7])
    np.testing.assert_array_equal(jax.freeze(ref), [10, 8, 2, 10, 7])


def test_repr_and_type_follow_jax():
    r = jax.new_ref(0.0)
    assert repr(r) == "Ref(0., dtype=float32, weak_type=True)"
    assert repr(r[...]) == "Array(0., dtype=float32, weak_type=True)"
    r[...] = 5.0
    assert repr(r) == "Ref(5., dtype=float32)"  # a write makes the buffer strongly typed
    m = jax.new_ref(jnp.ones((2, 2), jnp.int32))
    assert repr(m) == "Ref([[1, 1],\n       [1, 1]], dtype=int32)"
    assert str(jax.typeof(m)) == "Ref{int32[2,2]}"
    assert isinstance(m, jax.Ref) and not isinstance(m, jax.Array)
    assert (m.shape, m.ndim, m.dtype, len(m)) == ((2, 2), 2, np.dtype("int32"), 2)


def test_refs_are_not_arrays_and_writes_are_checked():
    r = jax.new_ref(jnp.zeros(4))
    with pytest.raises(TypeError, match="sin requires ndarray or scalar arguments"):
        jnp.sin(r)
    with pytest.raises(TypeError, match="unsupported operand"):
        r + 1
    with pytest.raises(ValueError, match="Invalid shape for `swap`.*Value shape: \\(3,\\)"):
        r[...] = jnp.ones(3)
    with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32. Value dtype: int32"):
        r[...] = jnp.ones(4, jnp.int32)
    with pytest.raises(ValueError, match="Out of bound indexer: idx=5, dim=4"):
        r[5] = 1.0
    with pytest.raises(ValueError, match="no higher-order refs"):
        jax.new_ref(r)
    with pytest.raises(ValueError, match="Invalid dtype"):
        r[0] = 3  # JAX converts weak floats into float refs, not integers
    r[0] = 3.0
    assert float(r[0]) == 3.0


def test_jit_updates_a_closed_over_ref_each_call():
    x_ref = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f():
        x_ref[1] += 1.0

    f()
    f()
    np.testing.assert_array_equal(x_ref[...], [0.0, 2.0, 0.0])


def test_jit_with_ref_arguments_runs_discharged_and_in_place():
    @jax.jit
    def sin_inplace(x_ref):
        x_ref[...] = jnp.sin(x_ref[...])

    r = jax.new_ref(jnp.arange(3.0))
    pointer = r.unsafe_buffer_pointer()
    sin_inplace(r)
    jit_runtime.wait_for_compiles()
    sin_inplace(r)
    np.testing.assert_allclose(r[...], np.sin(np.sin(np.arange(3.0))), rtol=1e-6)
    assert r.unsafe_buffer_pointer() == pointer
    # The program with a ref runs as its pure form (the ref's value in, its final value out),
    # which the backend compiles like any other.
    ((closed, _, _),) = sin_inplace._cache.values()
    assert jit_runtime.interpreted_only(closed)
    pure, is_ref = jit_runtime._discharged[closed]
    assert is_ref == [True] and not jit_runtime.interpreted_only(pure)
    assert jit_runtime._executables.get(pure) is not None
    read = jax.jit(lambda q: q[...])(r)  # an output never aliases the ref's buffer
    r[...] = jnp.zeros(3)
    np.testing.assert_allclose(read, np.sin(np.sin(np.arange(3.0))), rtol=1e-6)

    @jax.jit
    def two(a, b, x):
        a[...] += x
        b[1] = a[0] * 2
        return a[...] + b[...]

    a, b = jax.new_ref(jnp.ones(2)), jax.new_ref(jnp.zeros(2))
    np.testing.assert_array_equal(two(a, b, 3.0), [4.0, 4.0 + 8.0])  # a = [4, 4], b = [0, 8]
    np.testing.assert_array_equal(two(a, b, 1.0), [5.0, 5.0 + 10.0])
    np.testing.assert_array_equal(b[...], [0.0, 10.0])


def test_refs_made_inside_jit_are_pure():
    @jax.jit
    def pure(x):
        ref = jax.new_ref(x)
        ref[...] = ref[...] + ref[...]
        return ref[...]

    assert float(pure(3.0)) == 6.0
    assert float(jax.grad(pure)(3.0)) == 2.0


def _g(x):
    q = jax.new_ref(jnp.zeros(3))
    q[1] = x * 2
    q[...] += jnp.sin(x)
    jax.ref.addupdate(q, 0, x**2)
    return jnp.sum(q[...] * jnp.arange(1.0, 4.0))  # = x**2 + 4 x + 6 sin x


@pytest.mark.parametrize(
    "transform",
    [jax.grad, lambda f: jax.jit(jax.grad(f)), lambda f: jax.grad(jax.jit(f))],
    ids=["grad", "jit_grad", "grad_jit"],
)
def test_grad_through_refs_made_inside(transform):
    x = 1.5
    np.testing.assert_allclose(transform(_g)(x), 2 * x + 4 + 6 * np.cos(x), rtol=1e-6)


def test_vmap_of_grad_and_jacfwd_through_refs():
    xs = np.array([1.5, 0.5, -2.0], np.float32)
    np.testing.assert_allclose(jax.vmap(jax.grad(_g))(xs), 2 * xs + 4 + 6 * np.cos(xs), rtol=1e-5)
    # jacfwd is a vmap of jvp over the basis: the ref made inside is batched (JAX's vmap batches
    # every new_ref), so the primal output is too, and JAX 0.10.2 refuses out_axes=None for it
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        jax.jacfwd(_g)(0.5)


def test_grad_refuses_a_differentiated_write_into_an_outside_ref():
    plumbing = jax.new_ref(0.0)

    def err(x, ref):
        y = x + x
        ref[...] += y
        return y

    with pytest.raises(Exception, match="differentiated value on a non-differentiated array reference"):
        jax.grad(err)(1.0, plumbing)
    with pytest.raises(Exception, match="differentiated value on a non-differentiated array reference"):
        jax.grad(jax.jit(err))(1.0, plumbing)

    def fine(x, ref):
        y = x + x
        ref[...] += lax.stop_gradient(y)
        return y

    before = float(plumbing[...])
    assert float(jax.grad(fine)(1.0, plumbing)) == 2.0
    assert float(plumbing[...]) == before + 2.0


def test_custom_vjp_plumbs_cotangents_into_a_ref():
    @jax.custom_vjp
    def stash(ref, x):
        return x

    def stash_bwd(ref, g):
        ref[...] = g
        return None, g

    stash.defvjp(lambda ref, x: (x, ref), stash_bwd)

    def f(x, ref):
        return stash(ref, jnp.sin(x)) * 3.0

    ref = jax.new_ref(0.0)
    f(1.0, ref)
    assert float(ref[...]) == 0.0  # the forward pass alone writes nothing
    np.testing.assert_allclose(jax.grad(f)(1.0, ref), 3 * np.cos(1.0), rtol=1e-6)
    assert float(ref[...]) == 3.0


def test_custom_vjp_none_cotangent_is_zero_for_its_argument():
    @jax.custom_vjp
    def f(a, b):
        return a * b

    f.defvjp(lambda a, b: (a * b, (a, b)), lambda res, g: (None, g * res[0]))
    ga, gb = jax.grad(lambda a, b: f(a, b), argnums=(0, 1))(2.0, 5.0)
    assert (float(ga), float(gb)) == (0.0, 2.0)


def test_vmap_over_ref_arguments():
    def dist(x, y, out_ref):
        assert x.ndim == y.ndim == 1 and out_ref.ndim == 0
        out_ref[...] = jnp.sum((x - y) ** 2)

    vecs = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    out = jax.new_ref(jnp.zeros((3, 3)))
    jax.vmap(jax.vmap(dist, (0, None, 0)), (None, 0, 0))(vecs, vecs, out)
    want = ((vecs[None, :, :] - vecs[:, None, :]) ** 2).sum(-1)
    np.testing.assert_array_equal(out[...], want)

    rows = jax.new_ref(jnp.zeros((3, 4)))

    def write(x, o):
        o[1] = x.sum()
        o[2:] = x[:2]

    jax.vmap(write)(vecs, rows)
    want = np.zeros((3, 4), np.float32)
    want[:, 1] = vecs.sum(1)
    want[:, 2:] = vecs[:, :2]
    np.testing.assert_array_equal(rows[...], want)

    acc = jax.new_ref(jnp.ones(3))
    jax.vmap(lambda x, a: jax.ref.addupdate(a, ..., x))(jnp.arange(3.0), acc)
    np.testing.assert_array_equal(acc[...], [1.0, 2.0, 3.0])
    jax.vmap(lambda i, o: o.__setitem__(i, 7.0))(jnp.array([0, 2, 1]), rows)
    np.testing.assert_array_equal(rows[...][[0, 1, 2], [0, 2, 1]], [7.0, 7.0, 7.0])


def test_vmap_reads_an_outside_ref_but_refuses_to_write_it():
    src = jax.new_ref(jnp.arange(10.0))
    np.testing.assert_array_equal(jax.vmap(lambda i: src[i])(jnp.array([3, 1, 2])), [3.0, 1.0, 2.0])
    x_ref = jax.new_ref(0.0)
    msg = "with vmapped value on an unbatched array reference of type Ref\\{float32\\[\\]\\}"
    with pytest.raises(Exception, match="set/swap operation " + msg):
        jax.vmap(lambda x: x_ref.__setitem__(..., x))(jnp.arange(3.0))
    with pytest.raises(Exception, match="addupdate operation " + msg):
        jax.vmap(lambda x: jax.ref.addupdate(x_ref, ..., x))(jnp.arange(3.0))
    made_inside = jax.vmap(lambda x: (lambda q: (q.__setitem__(0, x), q[...])[1])(jax.new_ref(jnp.zeros(2))))
    np.testing.assert_array_equal(made_inside(jnp.arange(3.0)), [[0, 0], [1, 0], [2, 0]])


@pytest.mark.parametrize("jit", [False, True])
def test_control_flow_bodies_write_closed_over_refs(jit):
    wrap = jax.jit if jit else (lambda f: f)
    total = jax.new_ref(0)

    def body(c, x):
        total[...] += x
        return c + 1, x * 2

    (n, ys) = wrap(lambda xs: lax.scan(body, 0, xs))(jnp.arange(10))
    assert int(total[...]) == 45 and int(n) == 10
    np.testing.assert_array_equal(ys, np.arange(10) * 2)

    s = jax.new_ref(0.0)
    wrap(lambda: lax.fori_loop(0, 4, lambda i, c: (s.__setitem__(..., s[...] + i), c)[1], 0))()
    assert float(s[...]) == 6.0  # nothing reads the loop's output: its effect is kept all the same

    buf = jax.new_ref(jnp.zeros(5))

    def wbody(i):
        buf[i] = i * 2.0
        return i + 1

    wrap(lambda: lax.while_loop(lambda i: i < 5, wbody, 0))()
    np.testing.assert_array_equal(buf[...], np.arange(5) * 2.0)

    flag = jax.new_ref(0.0)
    branch = wrap(
        lambda p: lax.cond(p, lambda: flag.__setitem__(..., 1.0), lambda: flag.__setitem__(..., 2.0))
    )
    branch(True)
    assert float(flag[...]) == 1.0
    branch(False)
    assert float(flag[...]) == 2.0


def test_jit_rejects_aliased_and_returned_refs_as_jax_does():
    x_ref = jax.new_ref(0.0)

    def err1(x_ref):
        x_ref[...] = 5.0
        return x_ref

    with pytest.raises(
        ValueError, match="returned a mutable array reference of type Ref\\{float32\\[\\]\\}.*"
    ):
        jax.jit(err1)(x_ref)
    with pytest.raises(ValueError, match="passed in as the argument x_ref"):
        jax.jit(err1)(x_ref)
    with pytest.raises(ValueError, match="appeared at both x_ref and y_ref"):
        jax.jit(lambda x_ref, y_ref: None)(x_ref, x_ref)
    with pytest.raises(ValueError, match="both closed over and passed as the argument y_ref"):
        jax.jit(lambda y_ref: y_ref.__setitem__(..., x_ref[...]))(x_ref)
    with pytest.raises(ValueError, match="was created on line .*test_refs.py"):
        jax.jit(lambda x: jax.new_ref(x))(1.0)


def test_tracers_of_arrays_are_immutable():
    with pytest.raises(TypeError, match="JAX arrays are immutable"):
        jax.jit(lambda x: x.__setitem__(0, 1.0))(jnp.zeros(2))


def _scan_sum(x):
    """sum over y in 0..3 of y * x, accumulated in a ref the scan body closes over (= 6 x)."""
    r = jax.new_ref(0.0)

    def body(c, y):
        r[...] += y * x
        return c, None

    lax.scan(body, None, jnp.arange(4.0))
    return r[...]


def _while_cube(x):
    """x ** 3 by a while loop multiplying a ref three times."""
    r = jax.new_ref(1.0)

    def body(i):
        r[...] = r[...] * x
        return i + 1

    lax.while_loop(lambda i: i < 3, body, 0)
    return r[...]


def _cond_write(x):
    r = jax.new_ref(0.0)
    lax.cond(x > 0, lambda: r.__setitem__(..., jnp.sin(x)), lambda: r.__setitem__(..., x * x))
    return r[...]


def _jit_write(x):
    r = jax.new_ref(jnp.zeros(2))
    jax.jit(lambda q, v: q.__setitem__(1, v * 3.0))(r, x)
    return r[1]


@pytest.mark.parametrize(
    "f, df",
    [
        (_scan_sum, lambda x: 6.0),
        (_while_cube, lambda x: 3 * x**2),
        (_cond_write, lambda x: np.cos(x) if x > 0 else 2 * x),
        (_jit_write, lambda x: 3.0),
    ],
    ids=["scan", "while", "cond", "jit"],
)
def test_bodies_using_refs_made_inside_grad_and_vmap(f, df):
    # The body closes over (or is passed) a ref made inside the transformation: it is discharged
    # into a carry / extra output, so grad, jvp, linearize and vmap see pure programs.
    # (reverse mode through a while loop is refused, as JAX refuses it: forward mode there, by jvp;
    # jacfwd, a vmap of jvp, batches the ref and JAX then refuses its unbatched primal output)
    diff = (lambda g: lambda x: jax.jvp(g, (x,), (1.0,))[1]) if f is _while_cube else jax.grad
    for x in (1.5, -0.5):
        np.testing.assert_allclose(diff(f)(x), df(x), rtol=1e-6)
        np.testing.assert_allclose(jax.jvp(f, (x,), (1.0,))[1], df(x), rtol=1e-6)
    xs = np.array([1.5, -0.5, 2.0], np.float32)
    if f is _cond_write:  # (JAX 0.10.2 refuses a vmapped cond with ref effects, as is or differentiated)
        for g in (f, diff(f)):
            with pytest.raises(NotImplementedError, match="State effect not supported in vmap-of-cond"):
                jax.vmap(g)(xs)
        return
    np.testing.assert_allclose(jax.vmap(f)(xs), [f(float(x)) for x in xs], rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(diff(f))(xs), [df(x) for x in xs], rtol=1e-5)


def test_vmap_of_a_jit_taking_a_batched_ref():
    out = jax.new_ref(jnp.zeros(3))
    jax.vmap(jax.jit(lambda x, o: o.__setitem__(..., x * 2)))(jnp.arange(3.0), out)
    np.testing.assert_array_equal(out[...], [0.0, 2.0, 4.0])
    inner = jax.vmap(jax.jit(_scan_sum))(jnp.arange(3.0))
    np.testing.assert_array_equal(inner, [0.0, 6.0, 12.0])


def test_grad_with_respect_to_a_ref_and_tracer_repr():
    with pytest.raises(ValueError, match=r"Expected cotangent type Ref\{float32\[\]\} but got float32\[\]"):
        jax.grad(lambda r: r[...])(jax.new_ref(1.0))
    seen = []
    jax.jit(lambda r: seen.append(repr(r)))(jax.new_ref(jnp.zeros(2)))
    assert seen == ["JitTracer(Ref{float32[2]})"]


def test_jit_interprets_what_it_cannot_discharge():
    # A custom_jvp body writing a ref it closes over stays stateful: that program is interpreted,
    # with the same effects.
    r = jax.new_ref(jnp.zeros(2))

    @jax.custom_jvp
    def double_and_log(x):
        r[0] = x
        return x * 2

    double_and_log.defjvp(lambda p, t: (double_and_log(p[0]), t[0] * 2))
    g = jax.jit(lambda x: double_and_log(x) + 1)
    assert float(g(5.0)) == 11.0
    np.testing.assert_array_equal(r[...], [5.0, 0.0])
    ((closed, _, _),) = g._cache.values()
    assert jit_runtime._discharged[closed] is None


def test_ref_addupdate_method_eagerly_and_under_jit():
    r = jax.new_ref(jnp.arange(3.0))
    r.addupdate(jnp.ones(3))
    r.addupdate(10.0, 1)
    np.testing.assert_array_equal(r[...], [1.0, 12.0, 3.0])
    jax.jit(lambda q: q.addupdate(jnp.full(3, 2.0)))(r)
    np.testing.assert_array_equal(r[...], [3.0, 14.0, 5.0])
    with pytest.raises(AttributeError):
        jax.jit(lambda x: x.addupdate(1.0))(jnp.zeros(2))


def test_with_refs_accumulates_returns_or_skips_each_cotangent():
    """``vjp(...).with_refs``: a ref adds its input's cotangent in (``GradRef()``), ``GradValue()``
    returns it, ``DontWant()`` drops it, and the backward pass then skips the work that only led
    there (one dot instead of two, as JAX's jaxpr shows)."""
    w = jnp.arange(12.0).reshape(4, 3) / 10
    x = jnp.arange(3.0)

    def predict(w, x):
        return jnp.tanh(w @ x)

    _, f_vjp = jax.vjp(predict, w, x)
    dw, dx = f_vjp(jnp.ones(4))
    acc = jax.new_ref(jnp.ones_like(w))
    got = f_vjp.with_refs(acc, jax.ad.GradValue())(jnp.ones(4))
    assert isinstance(got[0], jax.ad.GradRef)
    np.testing.assert_allclose(np.asarray(acc[...]), 1 + np.asarray(dw), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got[1]), np.asarray(dx), rtol=1e-6)
    only_w = f_vjp.with_refs(jax.ad.GradValue(), jax.ad.DontWant())
    got_w, skipped = only_w(jnp.ones(4))
    assert isinstance(skipped, jax.ad.DidntWant)
    np.testing.assert_allclose(np.asarray(got_w), np.asarray(dw), rtol=1e-6)
    assert str(jax.make_jaxpr(lambda: f_vjp(jnp.ones(4)))()).count("dot_general") == 2
    assert str(jax.make_jaxpr(lambda: only_w(jnp.ones(4)))()).count("dot_general") == 1


def test_with_refs_adds_a_slices_cotangent_into_its_window_of_the_ref():
    """A ref given to ``with_refs`` takes its input's cotangent where it arises: a slice's (static or
    dynamic, inside a jit too, which is passed the ref) is added into the slice's window of the ref
    (``b[c:c+1] += j``, as JAX's jaxpr shows), never a whole zero-padded array; any other operation's
    cotangent is added in whole. The ref ends up holding what the dense gradient adds to it."""
    x = jnp.arange(10.0) / 4

    def f(x, i):
        return jnp.sin(x[2:5]).sum() * x[i] + jax.jit(lambda x, i: x[i] ** 2)(x, i)

    _, f_vjp = jax.vjp(f, x, 3)
    dense = np.asarray(f_vjp(1.0)[0])
    acc = jax.new_ref(jnp.ones(10))
    got, di = f_vjp.with_refs(acc, jax.ad.GradValue())(1.0)
    assert isinstance(got, jax.ad.GradRef) and di.dtype == jax.dtypes.float0
    np.testing.assert_allclose(np.asarray(acc[...]), 1 + dense, rtol=1e-6)
    text = str(jax.make_jaxpr(lambda: f_vjp.with_refs(acc, jax.ad.GradValue())(1.0))())
    assert "pad" not in text and "dynamic_update_slice" not in text, text
    assert "b[2:5] +=" in text or "[2:5] +=" in text, text
    assert "Ref{f32[10]}" in text.split("name=<lambda>")[-1], text  # (the transposed jit takes the ref)


def test_refs_take_slices_with_traced_starts():
    """``ref[jax.ds(i, n)]`` with a traced ``i`` (JAX's dynamic slices of refs): read, written and
    added to under jit and grad, printed as JAX prints it (``a[b:b+2]``), clamped into the ref as
    ``dynamic_slice`` clamps; a start that differs per vmap member is refused in JAX's words."""
    from engine.experimental import pallas as pl

    def run(i, j):
        ref = jax.new_ref(jnp.arange(24.0).reshape(4, 6))
        a = ref[pl.ds(i, 2), pl.ds(j, 3)]
        ref[pl.ds(i, 2), :] = jnp.zeros((2, 6))
        ref[1, pl.ds(j, 2)] += jnp.ones(2)
        return a, ref[...]

    def want(i, j):
        x = np.arange(24.0, dtype=np.float32).reshape(4, 6)
        a = x[min(i, 2) : min(i, 2) + 2, min(j, 3) : min(j, 3) + 3].copy()
        x[min(i, 2) : min(i, 2) + 2] = 0
        x[1, min(j, 4) : min(j, 4) + 2] += 1
        return a, x

    for f, i, j in ((run, 1, 2), (jax.jit(run), 1, 2), (jax.jit(run), 3, 5)):  # (3, 5): clamped starts
        got, w = f(i, j), want(i, j)
        np.testing.assert_array_equal(np.asarray(got[0]), w[0])
        np.testing.assert_array_equal(np.asarray(got[1]), w[1])
    text = str(jax.make_jaxpr(lambda i, j: jax.new_ref(jnp.ones((4, 6)))[pl.ds(i, 2), pl.ds(j, 3)])(1, 2))
    assert "e:f32[2,3] <- d[a:a+2,b:b+3]" in text

    def g(x, i):
        ref = jax.new_ref(x)
        ref[pl.ds(i, 2)] *= 3.0
        return jnp.sum(jnp.sin(ref[...]))

    x = np.arange(5.0, dtype=np.float32)
    scale = np.array([1, 3, 3, 1, 1], np.float32)
    np.testing.assert_allclose(np.asarray(jax.jit(jax.grad(g))(x, 1)), np.cos(x * scale) * scale, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="No support for vmapping over nontrivial slices"):
        jax.vmap(run)(jnp.array([0, 1]), jnp.array([2, 3]))
