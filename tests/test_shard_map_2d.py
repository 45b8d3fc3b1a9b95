"""shard_map on multi-axis meshes: collectives over one axis or a tuple of axes on the device
processes, eager per-device bodies (print shows each device's block), the varying-axes check,
and grad/vmap of shard_map. Expected values are computed with numpy from the blocks' definition."""

import contextlib
import io

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.sharding import Mesh, PartitionSpec as P


pytestmark = pytest.mark.usefixtures("test_kernel_cache")


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()[:8]).reshape(4, 2), ("i", "j"))


def _blocks(x, rows, cols):
    """Device (r, c)'s block of a 2-D array split rows x cols ways, in mesh order."""
    return [b for row in np.split(x, rows, 0) for b in np.split(row, cols, 1)]


def test_matmul_with_psum_over_one_axis_of_a_2d_mesh(mesh):
    a = np.arange(8 * 16.0, dtype=np.float32).reshape(8, 16)
    b = np.arange(16 * 4.0, dtype=np.float32).reshape(16, 4) / 10

    def body(a_block, b_block):
        assert a_block.shape == (2, 8) and b_block.shape == (8, 4)
        return lax.psum(jnp.dot(a_block, b_block), "j")

    f = jax.shard_map(body, mesh=mesh, in_specs=(P("i", "j"), P("j", None)), out_specs=P("i", None))
    np.testing.assert_allclose(np.asarray(f(a, b)), a @ b, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jax.jit(f)(a, b)), a @ b, rtol=1e-6)


@pytest.mark.parametrize(
    "axes,out_spec",
    [("j", P("i", None)), ("i", P(None, "j")), (("i", "j"), P(None, None))],
)
def test_psum_over_axes_of_a_2d_mesh(mesh, axes, out_spec):
    x = np.arange(8 * 4, dtype=np.int32).reshape(8, 4)
    f = jax.shard_map(lambda b: lax.psum(b, axes), mesh=mesh, in_specs=P("i", "j"), out_specs=out_spec)
    blocks = np.array(_blocks(x, 4, 2)).reshape(4, 2, 2, 2)  # (i, j, rows, cols)
    summed = blocks.sum(axis=tuple({"i": 0, "j": 1}[a] for a in ((axes,) if isinstance(axes, str) else axes)))
    if axes == "j":
        expected = np.concatenate(list(summed), 0)  # one block per i
    elif axes == "i":
        expected = np.concatenate(list(summed), 1)  # one block per j
    else:
        expected = summed
    np.testing.assert_array_equal(np.asarray(f(x)), expected)


def test_collectives_over_a_tuple_of_axes_run_on_the_devices(mesh):
    x = np.arange(8.0, dtype=np.float32)  # one element per device, in mesh order (i major)

    def body(b):
        gathered = lax.all_gather(b, ("i", "j"), tiled=True)  # every device: all 8 in (i, j) order
        index = lax.axis_index(("i", "j"))
        shifted = lax.ppermute(b, "i", [(k, (k + 1) % 4) for k in range(4)])
        scattered = lax.psum_scatter(jnp.tile(b, 2), "j", tiled=True)
        return gathered[None], index[None], shifted, scattered

    f = jax.shard_map(
        body, mesh=mesh, in_specs=P(("i", "j")), out_specs=(P(("i", "j")),) * 4, check_vma=False
    )
    gathered, index, shifted, scattered = (np.asarray(o) for o in f(x))
    np.testing.assert_array_equal(gathered, np.tile(x, (8, 1)))
    np.testing.assert_array_equal(index, np.arange(8))
    by_ij = x.reshape(4, 2)
    np.testing.assert_array_equal(shifted, np.roll(by_ij, 1, axis=0).reshape(-1))
    # psum_scatter over j of [b, b]: device (i, j) gets the sum over j of element j of [b, b]
    np.testing.assert_array_equal(scattered, np.repeat(by_ij.sum(1), 2))


def test_all_to_all_over_the_second_axis(mesh):
    x = np.arange(4 * 4, dtype=np.float32).reshape(4, 4)
    f = jax.shard_map(
        lambda b: lax.all_to_all(b, "j", 1, 1, tiled=True),
        mesh=mesh,
        in_specs=P("i", "j"),
        out_specs=P("i", "j"),
    )
    out = np.asarray(f(x))
    # device (i, j) holds columns 2j:2j+2 of row i; after the exchange it holds column j of
    # each of the two devices' blocks
    expected = np.zeros_like(x)
    for i in range(4):
        for j in range(2):
            parts = [x[i, 2 * src : 2 * src + 2][j : j + 1] for src in range(2)]
            expected[i, 2 * j : 2 * j + 2] = np.concatenate(parts)
    np.testing.assert_array_equal(out, expected)


def test_eager_body_prints_each_devices_block():
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("i", "j"))
    x = np.arange(16, dtype=np.int32).reshape(4, 4)

    @jax.shard_map(mesh=mesh, in_specs=P("i", "j"), out_specs=P(None, "j"))
    def f(block):
        print(block)
        return lax.psum(block, "i")

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        y = f(x)
    expected = ""
    for pos, block in enumerate(_blocks(x, 2, 2)):
        expected += f"On cpu:{pos} at mesh coordinates (i, j,) = {divmod(pos, 2)}:\n{block}\n\n"
    assert out.getvalue() == expected
    np.testing.assert_array_equal(np.asarray(y), x[:2] + x[2:])


def test_typeof_shows_varying_axes_and_the_replication_check(mesh):
    seen = []

    @jax.shard_map(mesh=mesh, in_specs=P("i", "j"), out_specs=P("i"))
    def f(b):
        seen.append(str(jax.typeof(b)))
        y = lax.psum(b, "j")
        seen.append(str(jax.typeof(y)))
        assert jax.typeof(y).manual_axis_type.varying == {"i"}
        return y

    f(np.ones((8, 4), np.float32))
    assert seen == ["float32[2,2]{V:(i,j)}", "float32[2,2]{V:i}"]
    with pytest.raises(ValueError, match="replicated across mesh axis 'j', but could not infer"):
        jax.shard_map(lambda b: b, mesh=mesh, in_specs=P("i", "j"), out_specs=P("i"))(np.ones((8, 4)))
    with pytest.raises(ValueError, match=r"only varying across mesh axes \{\} and not \{i\}"):
        jax.make_jaxpr(jax.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("i"), out_specs=P()))(np.ones(8))


def test_pcast_makes_a_replicated_value_varying():
    mesh = jax.make_mesh((2,), ("i",))

    @jax.shard_map(mesh=mesh, in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
        y = lax.pcast(y, "i", to="varying")
        (x_, y_), _ = lax.scan(lambda c, _: ((c[1], c[0]), ()), (x, y), (), length=2)
        return x_, y_

    x, y = np.arange(6.0, dtype=np.float32), np.arange(3.0, dtype=np.float32)
    x_, y_ = f(jax.device_put(x, jax.sharding.NamedSharding(mesh, P("i"))), y)
    np.testing.assert_array_equal(np.asarray(x_), x)
    np.testing.assert_array_equal(np.asarray(y_), np.tile(y, 2))


def _loss_parts(mesh):
    """sum over devices of sum(tanh(x_block @ w)) with w replicated: a shard_map and numpy."""

    def body(w, xb):
        return lax.psum(jnp.sum(jnp.tanh(xb @ w)), ("i", "j"))

    f = jax.shard_map(body, mesh=mesh, in_specs=(P(), P(("i", "j"))), out_specs=P())

    def grads(w, x):
        t = np.tanh(x @ w)
        return x.T @ (1 - t**2), (1 - t**2) @ w.T

    return f, grads


@pytest.mark.parametrize("jitted", [False, True])
def test_grad_of_shard_map_over_a_2d_mesh(mesh, jitted):
    f, grads = _loss_parts(mesh)
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 2)).astype(np.float32)
    x = rng.normal(size=(16, 3)).astype(np.float32)
    g = jax.grad(f, argnums=(0, 1))
    g = jax.jit(g) if jitted else g
    gw, gx = g(w, x)
    ew, ex = grads(w.astype(np.float64), x.astype(np.float64))
    np.testing.assert_allclose(np.asarray(gw), ew, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gx), ex, rtol=1e-5, atol=1e-5)


def test_grad_through_a_replicated_output_and_a_replicated_input():
    mesh = jax.make_mesh((4,), ("b",))
    # each device doubles the replicated x; the output assembles 4 copies: d sum / dx = 4 * 2
    f = jax.shard_map(lambda v: v * 2.0, mesh=mesh, in_specs=P(), out_specs=P("b"))
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: f(v).sum())(np.ones(3, np.float32))), 8.0)
    # a psum of replicated copies is replicated: out = 4 * v, d sum / dv = 4
    g = jax.shard_map(lambda v: lax.psum(v, "b"), mesh=mesh, in_specs=P(), out_specs=P())
    np.testing.assert_allclose(np.asarray(jax.grad(lambda v: g(v).sum())(np.ones(3, np.float32))), 4.0)
    np.testing.assert_allclose(
        np.asarray(jax.jit(jax.grad(lambda v: g(v).sum()))(np.ones(3, np.float32))), 4.0
    )


def test_jvp_and_vmap_of_shard_map(mesh):
    f = jax.shard_map(
        lambda b: jnp.sin(b) * lax.psum(b, "j"), mesh=mesh, in_specs=P("i", "j"), out_specs=P("i", "j")
    )
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 4)).astype(np.float32)
    t = rng.normal(size=(8, 4)).astype(np.float32)

    def reference(x, t):
        # the psum over j adds device (i, 0)'s block (columns 0:2) and device (i, 1)'s (2:4)
        sums = np.concatenate([x[:, :2] + x[:, 2:]] * 2, 1)
        ts = np.concatenate([t[:, :2] + t[:, 2:]] * 2, 1)
        return np.sin(x) * sums, np.cos(x) * t * sums + np.sin(x) * ts

    y, ty = jax.jvp(f, (x,), (t,))
    ey, ety = reference(x, t)
    np.testing.assert_allclose(np.asarray(y), ey, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(ty), ety, rtol=1e-5, atol=1e-5)
    xs = rng.normal(size=(3, 8, 4)).astype(np.float32)
    ys = jax.vmap(f)(xs)
    for k in range(3):
        np.testing.assert_allclose(np.asarray(ys[k]), reference(xs[k], xs[k])[0], rtol=1e-5, atol=1e-6)


def test_nested_in_specs_apply_to_each_subtree():
    mesh = Mesh(np.array(jax.devices()[:2]), ("s",))  # (Auto axes: plain arrays are resharded)

    @jax.shard_map(mesh=mesh, in_specs=((P(), P("s")), P("s")), out_specs=P("s"))
    def f(pair, x):
        scale, offsets = pair
        return x * scale + offsets

    x = np.arange(4.0, dtype=np.float32)
    out = f((np.float32(3.0), np.ones(4, np.float32) * 10), x)
    np.testing.assert_array_equal(np.asarray(out), x * 3 + 10)


def test_checked_bodies_are_staged_with_varying_types_as_jax_does():
    mesh = Mesh(np.array(jax.devices()[:4]), ("i",))

    def body(x, y):
        return lax.psum((x * y, y), "i")

    f = jax.shard_map(body, mesh=mesh, in_specs=(P("i"), P()), out_specs=P())
    x, y = np.arange(8.0, dtype=np.float32), np.arange(2.0, dtype=np.float32)
    text = str(jax.make_jaxpr(f)(x, y))
    # y is replicated: it is pvary'd before meeting the varying block, and psum'd one operand at a time
    assert "e:f32[2]{V:i} f:f32[2]. let" in text
    assert "g:f32[2]{V:i} = pvary[axes=('i',)] f" in text and "h:f32[2]{V:i} = mul e g" in text
    assert text.count("psum_invariant[axes=('i',)]") == 2 and "psum[" not in text
    a, b = f(x, y)
    np.testing.assert_allclose(np.asarray(a), (x.reshape(4, 2) * y).sum(0))
    np.testing.assert_allclose(np.asarray(b), 4 * y)
    # the staged psum_invariant differentiates as psum does: d/dx sum(psum(x * y)) = y per block
    g = jax.grad(lambda x: f(x, y)[0].sum())(x)
    np.testing.assert_allclose(np.asarray(g), np.tile(y, 4))
    np.testing.assert_allclose(
        np.asarray(jax.vmap(lambda v: f(v, y)[0])(np.stack([x, 2 * x]))[1]), 2 * np.asarray(a)
    )


def test_jit_of_shard_map_infers_in_specs_from_the_arguments_shardings():
    mesh = jax.make_mesh((4,), ("b",))
    w = jax.device_put(
        np.arange(8.0, dtype=np.float32).reshape(8, 1), jax.sharding.NamedSharding(mesh, P("b"))
    )
    x = np.ones((3, 8), np.float32)

    @jax.shard_map(mesh=mesh, out_specs=P())
    def f(w_block, x):
        # each device gathers the whole w; the mean of the (equal) sums is replicated
        return lax.pmean(jnp.sum(x @ lax.all_gather(w_block, "b", tiled=True)), "b")

    expected = np.sum(x @ np.arange(8.0).reshape(8, 1))
    np.testing.assert_allclose(np.asarray(jax.jit(f)(w, x)), expected)
    g = jax.jit(jax.grad(f))(w, x)  # d/dw sum(x @ w) = column sums of x
    np.testing.assert_allclose(np.asarray(g), x.sum(0).reshape(8, 1))
