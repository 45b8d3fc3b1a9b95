"""jax.experimental.pallas on a CPU: interpret mode runs kernels over a grid of blocks (checked
against numpy); without interpret=True a call is refused when it runs, as JAX 0.10.2 refuses it."""

import functools

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.experimental import pallas as pl
from engine.experimental.pallas import tpu as pltpu


def _matmul(x, y, bm, bn, interpret=True):
    def kernel(x_ref, y_ref, z_ref):
        z_ref[...] = x_ref[...] @ y_ref[...]

    m, n = x.shape[0], y.shape[1]
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
        grid=(m // bm, n // bn),
        in_specs=[
            pl.BlockSpec((bm, x.shape[1]), lambda i, j: (i, 0)),
            pl.BlockSpec((y.shape[0], bn), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
        interpret=interpret,
    )(x, y)


def test_blocked_matmul_matches_numpy_eagerly_and_under_jit():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 8)).astype(np.float32)
    y = rng.standard_normal((8, 12)).astype(np.float32)
    want = x @ y
    np.testing.assert_allclose(_matmul(jnp.asarray(x), jnp.asarray(y), 8, 4), want, rtol=1e-5, atol=1e-5)
    jitted = jax.jit(lambda a, b: _matmul(a, b, 4, 6))(x, y)
    np.testing.assert_allclose(jitted, want, rtol=1e-5, atol=1e-5)


def test_grad_through_an_interpreted_kernel():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    y = rng.standard_normal((3, 6)).astype(np.float32)
    g = jax.grad(lambda a: jnp.sum(_matmul(a, jnp.asarray(y), 2, 3)))(jnp.asarray(x))
    # d/dx sum(x @ y) = ones @ y.T
    np.testing.assert_allclose(g, np.ones((4, 6), np.float32) @ y.T, rtol=1e-5)


def test_program_ids_and_squeezed_block_dims_accumulate_a_reduction():
    def sum_kernel(x_ref, o_ref):
        @pl.when(pl.program_id(2) == 0)
        def _():
            o_ref[...] = jnp.zeros_like(o_ref)

        o_ref[...] += x_ref[...]

    x = np.arange(3 * 4 * 6, dtype=np.float32).reshape(3, 4, 6)
    out = pl.pallas_call(
        sum_kernel,
        grid=(2, 3, 3),
        in_specs=[pl.BlockSpec((None, 2, 2), lambda i, j, k: (k, i, j))],
        out_specs=pl.BlockSpec((2, 2), lambda i, j, k: (i, j)),
        out_shape=jax.ShapeDtypeStruct((4, 6), jnp.float32),
        interpret=True,
    )(x)
    np.testing.assert_array_equal(out, x.sum(0))


def test_iota_writes_one_element_per_program():
    def iota_kernel(o_ref):
        i = pl.program_id(0)
        o_ref[i] = i * pl.num_programs(0)

    out = pl.pallas_call(
        iota_kernel, out_shape=jax.ShapeDtypeStruct((5,), jnp.int32), grid=(5,), interpret=True
    )()
    np.testing.assert_array_equal(out, np.arange(5) * 5)


def test_outputs_start_uninitialized_and_ragged_blocks_are_cut():
    def first_only(x_ref, o_ref):
        @pl.when(pl.program_id(0) == 0)
        def _():
            o_ref[...] = x_ref[...]

    x = np.arange(5, dtype=np.float32)
    spec = pl.BlockSpec((2,), lambda i: (i,))
    out = pl.pallas_call(
        first_only,
        out_shape=jax.ShapeDtypeStruct((5,), jnp.float32),
        grid=(3,),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)
    np.testing.assert_array_equal(out[:2], [0.0, 1.0])
    assert np.isnan(np.asarray(out[2:])).all()  # never written: JAX's interpret mode leaves NaN


def test_compiled_kernels_are_refused_on_cpu_when_they_run():
    x = jnp.ones((4, 4))
    with pytest.raises(ValueError, match="Only interpret mode is supported on CPU backend"):
        _matmul(x, x, 2, 2, interpret=False)
    with pytest.raises(ValueError, match="Only interpret mode"):
        jax.jit(lambda a: _matmul(a, a, 2, 2, interpret=False))(x)
    with pytest.raises(ValueError, match="Only interpret mode"):
        jax.vmap(lambda a: _matmul(a, a, 2, 2, interpret=False))(jnp.ones((3, 4, 4)))
    # staging alone is fine (JAX refuses at lowering)
    text = str(jax.make_jaxpr(lambda a: _matmul(a, a, 2, 2, interpret=False))(x))
    assert "pallas_call" in text


def test_pl_program_id_outside_a_kernel_is_an_error():
    with pytest.raises(ValueError, match="inside a kernel"):
        pl.program_id(0)


def test_element_blocks_are_indexed_by_element_offset_into_the_padded_array():
    def ids_kernel(o_ref):
        o_ref[...] = jnp.full(o_ref.shape, pl.program_id(0))

    out = pl.pallas_call(
        ids_kernel,
        out_shape=jax.ShapeDtypeStruct((5,), jnp.int32),
        grid=(3,),
        out_specs=pl.BlockSpec((pl.Element(2, (1, 0)),), lambda i: (2 * i,)),
        interpret=True,
    )()
    # padded by one in front: program i covers padded [2i, 2i+2) = original [2i-1, 2i+1)
    np.testing.assert_array_equal(out, [0, 1, 1, 2, 2])


def test_scalar_prefetch_picks_blocks_and_scratch_persists_across_the_grid():
    from engine.experimental.pallas import tpu as pltpu

    def gather_kernel(idx_ref, x_ref, o_ref, count_ref):
        @pl.when(pl.program_id(0) == 0)
        def _():
            count_ref[...] = jnp.zeros_like(count_ref)

        count_ref[...] += 1.0
        o_ref[...] = x_ref[...] + 100 * count_ref[0]

    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(2,),
        in_specs=[pl.BlockSpec((2, 4), lambda i, idx: (idx[i], 0))],
        out_specs=pl.BlockSpec((2, 4), lambda i, idx: (i, 0)),
        scratch_shapes=[pltpu.VMEM((1,), jnp.float32)],
    )
    out = pl.pallas_call(
        gather_kernel, grid_spec=spec, out_shape=jax.ShapeDtypeStruct((4, 4), jnp.float32), interpret=True
    )(jnp.array([3, 1], jnp.int32), x)
    np.testing.assert_array_equal(out, np.concatenate([x[6:8] + 100, x[2:4] + 200]))


def _tpu_kernel(x_hbm, o_hbm, scratch, sem, count):
    i = pl.program_id(0)
    copy = pltpu.make_async_copy(x_hbm.at[pl.ds(2 * i, 2)], scratch, sem)  # a traced start: a view
    copy.start()
    copy.wait()
    pltpu.sync_copy(scratch, o_hbm.at[pl.ds(2 * i, 2)])
    pl.semaphore_signal(count, 2)
    pl.semaphore_wait(count, 2)

    @functools.partial(pl.run_scoped, tmp=pltpu.VMEM((2, 4), jnp.float32))
    def _(tmp):
        tmp[...] = scratch[...]


def _tpu_call(interpret):
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    return pl.pallas_call(
        _tpu_kernel,
        out_shape=jax.ShapeDtypeStruct((8, 4), jnp.float32),
        grid=(4,),
        in_specs=[any_spec],
        out_specs=any_spec,
        scratch_shapes=[
            pltpu.VMEM((2, 4), jnp.float32),
            pltpu.SemaphoreType.DMA,
            pltpu.SemaphoreType.REGULAR,
        ],
        interpret=interpret,
    )


def test_tpu_copies_and_semaphores_stage_into_the_traced_kernel_then_the_cpu_refuses(monkeypatch):
    """JAX traces a kernel before it refuses to compile it on a CPU: the TPU operations stage their
    equations (a kernel's own errors come first), and the refusal is the last word."""
    x = jnp.arange(32.0).reshape(8, 4)
    traced = []
    trace = pl.trace_kernel
    monkeypatch.setattr(pl, "trace_kernel", lambda *a: traced.append(str(trace(*a))))
    with pytest.raises(ValueError, match="Only interpret mode"):
        _tpu_call(False)(x)
    for eqn in ("program_id[", "dma_start[", "dma_wait[", "semaphore_signal[", "semaphore_wait[", "new_ref"):
        assert eqn in traced[0], (eqn, traced[0])

    def broken(x_ref, o_ref):
        o_ref[...] = pl.load(x_ref, ())  # (pl.load is gone in JAX 0.10.2)

    call = pl.pallas_call(broken, out_shape=jax.ShapeDtypeStruct((4,), jnp.float32))
    with pytest.raises(AttributeError, match="load"):
        call(jnp.ones(4))


def test_tpu_copies_and_semaphores_run_in_interpret_mode_on_one_device():
    def kernel(x_ref, o_ref, scratch, sem, count):
        pltpu.async_copy(x_ref, scratch, sem).wait()
        pl.semaphore_signal(count, 3)
        pl.semaphore_wait(count, 2)
        pltpu.sync_copy(scratch, o_ref)
        o_ref[0] = jnp.full(4, count[...].astype(jnp.float32))  # 3 signalled, 2 taken

    call = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((2, 4), jnp.float32),
        scratch_shapes=[
            pltpu.VMEM((2, 4), jnp.float32),
            pltpu.SemaphoreType.DMA,
            pltpu.SemaphoreType.REGULAR,
        ],
        interpret=True,
    )
    x = jnp.arange(8.0).reshape(2, 4)
    for out in (call(x), jax.jit(call)(x)):  # (under jit: on the interpreter, which hands them the refs)
        np.testing.assert_array_equal(out, [[1, 1, 1, 1], [4, 5, 6, 7]])


def test_a_semaphore_wait_nothing_signals_raises_in_interpret_mode():
    def kernel(o_ref, sem):
        pl.semaphore_wait(sem, 1)
        o_ref[...] = jnp.zeros(2)

    call = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((2,), jnp.float32),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR],
        interpret=True,
    )
    with pytest.raises(RuntimeError, match="wait forever"):
        call()


def test_emit_pipeline_needs_the_tpus_tiles():
    def kernel(x_hbm, o_hbm):
        pltpu.emit_pipeline(lambda a, b: None, grid=(2,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))])(
            x_hbm
        )

    call = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
    )
    with pytest.raises(ValueError, match="Unsupported TPU device kind: cpu"):  # (JAX's, on a CPU)
        call(jnp.ones(8))
