"""``device=`` and ``out_sharding=`` (``sharding=``) keywords as JAX 0.10.2 takes them: on jnp creation
functions, jnp.bincount/percentile/tensordot, lax.broadcast/broadcasted_iota/reduce/full_like, the
jax.random samplers and the jax.nn initializers. Each call gives the values it gives without the
keyword; ``device`` commits the result to that device, ``out_sharding`` lays it out over an 8-device
mesh, eagerly and under ``jit`` (where the traced program's result type shows the layout)."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.sharding import NamedSharding, PartitionSpec as P


pytestmark = pytest.mark.usefixtures("test_kernel_cache")

X = jnp.arange(24.0).reshape(4, 6)
KEY = jax.random.key(0)

# name -> call taking the keyword(s); every result's first axis has 2 or 4 entries (P("x") splits it)
DEVICE_CALLS = {
    "arange": lambda **kw: jnp.arange(4, **kw),
    "arange_step": lambda **kw: jnp.arange(1.0, 3.0, 0.5, **kw),
    "array": lambda **kw: jnp.array([[1, 2], [3, 4]], **kw),
    "asarray": lambda **kw: jnp.asarray(np.ones((2, 3), np.float32), **kw),
    "eye": lambda **kw: jnp.eye(4, 3, 1, **kw),
    "linspace": lambda **kw: jnp.linspace(0.0, 1.0, 4, **kw),
    "zeros_like": lambda **kw: jnp.zeros_like(X, **kw),
    "ones_like": lambda **kw: jnp.ones_like(X, np.int32, **kw),
    "full_like": lambda **kw: jnp.full_like(X, 7.0, **kw),
    "full_like_array": lambda **kw: jnp.full_like(X, jnp.arange(6.0), **kw),
    "empty_like": lambda **kw: jnp.empty_like(X, **kw),
    "empty_like_prototype": lambda **kw: jnp.empty_like(prototype=X, shape=(2, 2), **kw),
    "astype": lambda **kw: jnp.astype(X, np.int32, **kw),
    "fftfreq": lambda **kw: jnp.fft.fftfreq(4, **kw),
    "rfftfreq": lambda **kw: jnp.fft.rfftfreq(6, **kw),
}

OUT_SHARDING_CALLS = {
    "arange": lambda **kw: jnp.arange(4, **kw),
    "array": lambda **kw: jnp.array([[1, 2], [3, 4]], **kw),
    "asarray": lambda **kw: jnp.asarray(X, **kw),
    "zeros_like": lambda **kw: jnp.zeros_like(X, **kw),
    "ones_like": lambda **kw: jnp.ones_like(X, **kw),
    "full_like": lambda **kw: jnp.full_like(X, 7.0, **kw),
    "full_like_array": lambda **kw: jnp.full_like(X, jnp.arange(6.0), **kw),
    "percentile": lambda **kw: jnp.percentile(X, 30.0, axis=1, **kw),
    "tensordot": lambda **kw: jnp.tensordot(X, X.T, 1, **kw),
    "linalg.tensordot": lambda **kw: jnp.linalg.tensordot(X, X.T, axes=1, **kw),
    "lax.broadcast": lambda **kw: lax.broadcast(X, (2,), **kw),
    "lax.broadcasted_iota": lambda **kw: lax.broadcasted_iota(np.int32, (4, 3), 1, **kw),
    "lax.reduce": lambda **kw: lax.reduce(X, 0.0, lax.add, (1,), **kw),
    "random.ball": lambda **kw: jax.random.ball(KEY, 3, shape=(4,), **kw),
    "random.bernoulli": lambda **kw: jax.random.bernoulli(KEY, 0.3, (4, 2), **kw),
    "random.beta": lambda **kw: jax.random.beta(KEY, 2.0, 3.0, (4, 2), **kw),
    "random.bits": lambda **kw: jax.random.bits(KEY, (4, 2), **kw),
    "random.categorical": lambda **kw: jax.random.categorical(KEY, X, **kw),
    "random.cauchy": lambda **kw: jax.random.cauchy(KEY, (4, 2), **kw),
    "random.chisquare": lambda **kw: jax.random.chisquare(KEY, 2.0, (4, 2), **kw),
    "random.dirichlet": lambda **kw: jax.random.dirichlet(KEY, jnp.ones(3), (4,), **kw),
    "random.exponential": lambda **kw: jax.random.exponential(KEY, (4, 2), **kw),
    "random.f": lambda **kw: jax.random.f(KEY, 2.0, 3.0, (4, 2), **kw),
    "random.gamma": lambda **kw: jax.random.gamma(KEY, 2.0, (4, 2), **kw),
    "random.generalized_normal": lambda **kw: jax.random.generalized_normal(KEY, 1.5, (4, 2), **kw),
    "random.geometric": lambda **kw: jax.random.geometric(KEY, 0.4, (4, 2), **kw),
    "random.gumbel": lambda **kw: jax.random.gumbel(KEY, (4, 2), **kw),
    "random.laplace": lambda **kw: jax.random.laplace(KEY, (4, 2), **kw),
    "random.loggamma": lambda **kw: jax.random.loggamma(KEY, 2.0, (4, 2), **kw),
    "random.logistic": lambda **kw: jax.random.logistic(KEY, (4, 2), **kw),
    "random.lognormal": lambda **kw: jax.random.lognormal(KEY, 0.5, (4, 2), **kw),
    "random.maxwell": lambda **kw: jax.random.maxwell(KEY, (4, 2), **kw),
    "random.multivariate_normal": lambda **kw: jax.random.multivariate_normal(
        KEY, jnp.zeros(2), jnp.eye(2), (4,), **kw
    ),
    "random.normal": lambda **kw: jax.random.normal(KEY, (4, 2), **kw),
    "random.orthogonal": lambda **kw: jax.random.orthogonal(KEY, 2, (4,), **kw),
    "random.pareto": lambda **kw: jax.random.pareto(KEY, 2.0, (4, 2), **kw),
    "random.permutation": lambda **kw: jax.random.permutation(KEY, 8, **kw),
    "random.poisson": lambda **kw: jax.random.poisson(KEY, 3.0, (4, 2), **kw),
    "random.rademacher": lambda **kw: jax.random.rademacher(KEY, (4, 2), **kw),
    "random.randint": lambda **kw: jax.random.randint(KEY, (4, 2), 0, 10, **kw),
    "random.rayleigh": lambda **kw: jax.random.rayleigh(KEY, 1.0, (4, 2), **kw),
    "random.t": lambda **kw: jax.random.t(KEY, 3.0, (4, 2), **kw),
    "random.triangular": lambda **kw: jax.random.triangular(KEY, 0.0, 0.3, 1.0, (4, 2), **kw),
    "random.truncated_normal": lambda **kw: jax.random.truncated_normal(KEY, -1.0, 1.0, (4, 2), **kw),
    "random.uniform": lambda **kw: jax.random.uniform(KEY, (4, 2), **kw),
    "random.wald": lambda **kw: jax.random.wald(KEY, 1.0, (4, 2), **kw),
    "nn.initializers.zeros": lambda **kw: jax.nn.initializers.zeros(KEY, (4, 2), **kw),
    "nn.initializers.ones": lambda **kw: jax.nn.initializers.ones(KEY, (4, 2), **kw),
    "nn.initializers.normal": lambda **kw: jax.nn.initializers.normal()(KEY, (4, 2), **kw),
    "nn.initializers.glorot_uniform": lambda **kw: jax.nn.initializers.glorot_uniform()(KEY, (4, 2), **kw),
    "nn.initializers.he_normal": lambda **kw: jax.nn.initializers.he_normal()(KEY, (4, 2), **kw),
}


@pytest.fixture(scope="module")
def mesh():
    return jax.make_mesh((2, 4), ("x", "y"))


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(DEVICE_CALLS))
def test_device_commits_the_result(name):
    call = DEVICE_CALLS[name]
    device = jax.devices()[1]
    out = call(device=device)
    assert out.devices() == {device}
    _same(out, call())
    # a sharding is taken where a device is
    two = jax.devices()[2]
    assert call(device=jax.sharding.SingleDeviceSharding(two)).devices() == {two}


def test_linspace_retstep_places_the_samples():
    device = jax.devices()[3]
    out, step = jnp.linspace(0.0, 1.0, 5, retstep=True, device=device)
    assert out.devices() == {device}
    _same(out, jnp.linspace(0.0, 1.0, 5))
    assert float(step) == 0.25


@pytest.mark.parametrize("name", sorted(OUT_SHARDING_CALLS))
def test_out_sharding_lays_the_result_out(mesh, name):
    call = OUT_SHARDING_CALLS[name]
    sharding = NamedSharding(mesh, P("x"))
    plain = call()
    types = []

    def traced_call():
        out = call(out_sharding=P("x"))
        types.append(str(jax.typeof(out)))  # (the traced value's type, as JAX shows it)
        return out

    with jax.set_mesh(mesh):
        eager = call(out_sharding=sharding)
        traced = jax.jit(traced_call)()
    spec = P("x", *[None] * (np.ndim(plain) - 1))
    for out in (eager, traced):
        assert isinstance(out.sharding, NamedSharding) and out.sharding.spec == spec
        assert out.sharding.mesh.shape_tuple == mesh.shape_tuple
        assert len(out.devices()) == 8
        _same(out, plain)
    dims = ",".join([f"{np.shape(plain)[0]}@x", *map(str, np.shape(plain)[1:])])
    assert types and types[0].endswith(f"[{dims}]"), types


def test_like_functions_stage_a_laid_out_broadcast(mesh):
    # as JAX's lax.full_like: one broadcast whose type carries the layout (no reshard after)
    with jax.set_mesh(mesh):
        text = str(jax.make_jaxpr(lambda: jnp.zeros_like(X, out_sharding=P("x")))())
        assert text == "{ lambda ; . let a:f32[4@x,6] = broadcast_in_dim 0.0:f32[] in (a,) }"
        text = str(jax.make_jaxpr(lambda: lax.full_like(X, 2.0, sharding=NamedSharding(mesh, P("x"))))())
        assert text == "{ lambda ; . let a:f32[4@x,6] = broadcast_in_dim 2.0:f32[] in (a,) }"
        out = lax.full_like(X, 2.0, sharding=NamedSharding(mesh, P(None, "x")))
    assert out.sharding.spec == P(None, "x")
    _same(out, jnp.full((4, 6), 2.0))


def test_tensordot_and_broadcast_carry_the_layout(mesh):
    with jax.set_mesh(mesh):
        text = str(jax.make_jaxpr(lambda a: jnp.tensordot(a, a.T, 1, out_sharding=P("x")))(X))
        assert "c:f32[4@x,4] = dot_general[" in text and "reshard" not in text
        text = str(jax.make_jaxpr(lambda a: lax.broadcast(a, (2,), out_sharding=P(None, "x")))(X))
        assert "b:f32[2,4@x,6] = broadcast_in_dim[" in text and "reshard" not in text


def test_device_and_out_sharding_together_are_refused(mesh):
    with jax.set_mesh(mesh):
        for call in (
            lambda **kw: jnp.arange(4, **kw),
            lambda **kw: jnp.array([1, 2], **kw),
            lambda **kw: jnp.zeros_like(X, **kw),
            lambda **kw: jnp.full((2,), 1.0, **kw),
        ):
            with pytest.raises(ValueError, match="Only one of `device` or `out_sharding` can be set"):
                call(device=jax.devices()[1], out_sharding=P("x"))


def test_bincount_takes_only_a_replicated_layout(mesh):
    x = jnp.array([0, 1, 1, 3])
    with jax.set_mesh(mesh):
        out = jnp.bincount(x, length=4, out_sharding=P())
        assert out.sharding.spec == P(None) and len(out.devices()) == 8
        _same(out, jnp.bincount(x, length=4))
        traced = jax.jit(lambda v: jnp.bincount(v, length=4, out_sharding=P()))(x)
        _same(traced, out)
        from engine.parallel.partition import ShardingTypeError

        for spec in (P("x"), P(None)):  # (JAX refuses P(None) too: it has an entry)
            with pytest.raises(ShardingTypeError, match="can only be fully replicated"):
                jnp.bincount(x, length=4, out_sharding=spec)


def test_reduce_out_sharding_as_jax():
    m = jax.make_mesh((2, 4), ("x", "y"))
    with jax.set_mesh(m):
        # only a sum is laid out; the other reduce_* refuse it, the generic reduce does not use it
        with pytest.raises(NotImplementedError):
            lax.reduce(X, -np.inf, lax.max, (1,), out_sharding=P("x"))
        out = lax.reduce(X, 1.0, lambda a, b: a * b + 0.0, (1,), out_sharding=P("x"))
        assert all(p is None for p in getattr(out.sharding, "spec", P()))
        _same(out, np.prod(np.asarray(X), axis=1))


def test_signatures_name_the_keywords():
    import inspect

    for fn, names in [
        (jnp.arange, ("device", "out_sharding")),
        (jnp.array, ("device", "out_sharding")),
        (jnp.asarray, ("device", "out_sharding")),
        (jnp.eye, ("device",)),
        (jnp.linspace, ("device",)),
        (jnp.zeros_like, ("device", "out_sharding")),
        (jnp.ones_like, ("device", "out_sharding")),
        (jnp.full_like, ("device", "out_sharding")),
        (jnp.empty_like, ("prototype", "device")),
        (jnp.bincount, ("out_sharding",)),
        (jnp.percentile, ("out_sharding",)),
        (jnp.tensordot, ("out_sharding",)),
        (lax.broadcast, ("out_sharding",)),
        (lax.broadcasted_iota, ("out_sharding",)),
        (lax.reduce, ("out_sharding",)),
        (lax.full_like, ("sharding",)),
    ]:
        params = inspect.signature(fn).parameters
        assert all(n in params for n in names), (fn, list(params))
