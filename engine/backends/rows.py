"""The lowering table's rows and the table itself (``lowerings[p]``), apart from the rules.

Imports nothing but ``core``, so that the module defining a primitive also registers its row
(``engine.jit``, ``engine.random``, control flow, ...) without importing numba; most rows live in
``lowering``. The kinds are described there. A primitive without a row runs through the
interpreter's numpy rule inside compiled code; ``INTERPRETER_ONLY`` lists those on purpose
(tests/test_jit_lowering.py checks that every primitive is in one of the two).
"""

from __future__ import annotations

from typing import Callable

from .. import core


class Scalar:
    kind = "scalar"

    def __init__(self, fn: Callable, guard: Callable | None = None):
        self.fn = fn
        # guard(eqn, *in_exprs) -> an int32 expression, nonzero where ``fn``'s fast code is not
        # valid; the loop nest is then rerun with every ``rt.X(`` replaced by ``rt.X_libm(``.
        self.guard = guard


class Mapped:
    kind = "mapped"

    def __init__(self, fn: Callable):
        self.fn = fn


class Index:
    kind = "index"

    def __init__(self, fn: Callable):
        self.fn = fn


class Reduce:
    kind = "reduce"

    def __init__(self, op: str):
        self.op = op


class Host:
    kind = "host"

    def __init__(self, fn: Callable):
        self.fn = fn


class Physical:
    """Key primitives (``random_bits``, ...): ``engine.random_lowering`` rewrites them, and every
    operation on typed keys, to operations on the keys' uint32 data before code is generated."""

    kind = "physical"


class Special:
    kind = "special"

    def __init__(self, name: str):
        self.name = name


lowerings: dict[core.Primitive, Scalar | Mapped | Index | Reduce | Host | Physical | Special] = {}

# Primitives with a row that declines some equations on purpose (they run through the interpreter's
# numpy rule), and why: the run report gives this reason, not "no lowering rule".
DECLINED = {
    "reduce_sum": "a float32 sum in XLA's order (engine/lax/sum_order.py), or a dtype the kernels "
    "lack: its rule on the host",
    "reduce_prod": "a float32 product in XLA's tree order (engine/lax/sum_order.py): its rule on the host",
    "scatter": "x.at[i].apply's combiner (update_jaxpr): the interpreter runs it",
    "xla_pmap": "one program per device, run by the device processes (engine/parallel)",
}


def explained(fallbacks: list[str]) -> list[str]:
    """Each of an executable's fallbacks (``prim``, ``body: prim``, ``interpreter: reason``) with
    why it runs interpreted: the reason listed here, else "no lowering rule".

    Example:

      >>> explained(["nextafter", "interpreter: refs"])
      ["nextafter (rare bit-level op: numpy's rule is exact)", 'interpreter: refs']
    """
    out = []
    for f in fallbacks:
        if f.startswith("interpreter: "):
            out.append(f)
            continue
        prim = f.split(": ")[-1]
        out.append(f"{f} ({INTERPRETER_ONLY.get(prim) or DECLINED.get(prim) or 'no lowering rule'})")
    return out


# Primitive names that compiled code runs through the interpreter's numpy rule on purpose, and why.
INTERPRETER_ONLY = {
    "rng_uniform": "XLA's stateful RngUniform: numpy's global generator draws, reproducing nothing",
    "custom_lin": "linearization residue of custom_vjp: transposed away before any executable runs",
    "fused_multiply_add_sum": "a float32 sum in XLA's order (engine/lax/sum_order.py): its rule on the host",
    "reduce_sum_gathered": "a float32 sum of gathered values in XLA's order (engine/lax/sum_order.py): its rule on the host",
    "fused_multiply_add_chain_sum": "a float32 sum of fused multiply-add chains in XLA's order (engine/lax/sum_order.py): its rule on the host",
    "nextafter": "rare bit-level op: numpy's rule is exact",
    "population_count": "rare bit-level op: numpy's rule is exact",
    "reduce_window": "any computation: its jaxpr folded over numpy's sliding-window view",
    "reduce_window_sum": "pooling: numpy's sliding-window view is a strided library reduction, not a loop nest",
    "reduce_window_max": "pooling: numpy's sliding-window view is a strided library reduction, not a loop nest",
    "reduce_window_min": "pooling: numpy's sliding-window view is a strided library reduction, not a loop nest",
    "clz": "rare bit-level op: numpy's rule is exact",
    "mulhi": "rare bit-level op: numpy's rule is exact (128-bit products in Python integers for 64-bit)",
    "optimization_barrier": "an identity: nothing to compile (numpy's rule passes the buffers through)",
    "device_put": "an identity on the engine's one memory (numpy's rule passes the buffers through)",
    "reduce_precision": "rare bit-level op: numpy's rule is exact",
    "complex": "complex dtypes are not in the kernels' types: numpy's rule",
    "real": "complex dtypes are not in the kernels' types: numpy's rule",
    "imag": "complex dtypes are not in the kernels' types: numpy's rule",
    "conj": "complex dtypes are not in the kernels' types: numpy's rule",
    "sort": "numpy's sort (a library call, not a loop nest)",
    "random_gamma": "a map of rejection loops on keys (engine.random_gamma): its rule runs them",
    "top_k": "numpy's partition (a library call, not a loop nest)",
    "approx_top_k": "top_k's numpy rule (exact, as JAX's CPU fallback)",
    # Linear algebra and special functions: LAPACK / scipy-style numpy rules, not loop nests.
    "cholesky": "LAPACK through numpy",
    "eigh": "LAPACK through numpy",
    "eig": "LAPACK through numpy (complex results)",
    "schur": "LAPACK's QR iterations in numpy (engine/lax/householder_numpy.py)",
    "hessenberg": "LAPACK's Householder reduction in numpy",
    "householder_product": "LAPACK's Householder reflectors in numpy",
    "geqrf": "LAPACK's Householder QR in numpy",
    "ormqr": "LAPACK's Householder reflectors in numpy",
    "lu": "LAPACK through numpy",
    "lu_pivots_to_permutation": "a loop of row swaps in numpy, beside lu",
    "qr": "LAPACK through numpy",
    "svd": "LAPACK through numpy",
    "triangular_solve": "LAPACK through numpy",
    "tridiagonal": "LAPACK's Householder reduction (sytrd) in numpy",
    "tridiagonal_solve": "LAPACK's pivoted elimination (gtsv) in numpy",
    "symmetric_product": "a numpy product, beside the other linear algebra",
    "cholesky_update": "a loop of Givens rotations in numpy",
    "bessel_i0e": "special function: series in the numpy rule",
    "bessel_i1e": "special function: series in the numpy rule",
    "erfc": "special function: XLA's float32 kernel (lax/xla_f32.erfc), else math.erfc, in the numpy rule",
    "igamma": "special function: series in the numpy rule",
    "igamma_grad_a": "special function: series in the numpy rule",
    "igammac": "special function: series in the numpy rule",
    "polygamma": "special function: series in the numpy rule",
    "regularized_incomplete_beta": "special function: series in the numpy rule",
    "zeta": "special function: series in the numpy rule",
    # Mutable array refs: programs with them run on the interpreter (jit_runtime.interpreted_only).
    "new_ref": "mutable array refs: the interpreter passes Ref objects between equations",
    "get": "mutable array refs: read on the interpreter",
    "swap": "mutable array refs: written on the interpreter",
    "addupdate": "mutable array refs: written on the interpreter",
    "freeze": "mutable array refs: read on the interpreter",
    "empty_ref": "mutable array refs: made on the interpreter (discharged: a zeros value)",
    "free_ref": "mutable array refs: nothing to run",
    "psum": "collectives run between device processes (engine.parallel.collectives)",
    "pmax": "collectives run between device processes",
    "pmin": "collectives run between device processes",
    "all_gather": "collectives run between device processes",
    "all_gather_invariant": "collectives run between device processes (all_gather's)",
    "all_gather_reduced": "collectives run between device processes (all_gather's)",
    "unreduced_reduce_scatter": "collectives run between device processes (reduce_scatter's)",
    "all_to_all": "collectives run between device processes",
    "ppermute": "collectives run between device processes",
    "reduce_scatter": "collectives run between device processes",
    "axis_index": "collectives run between device processes",
    "psum_invariant": "collectives run between device processes (psum's rules)",
    "pvary": "a varying-axes cast of shard_map's types: the identity, no kernel of its own",
    "vary_unreduced_cast_p": "a cast of shard_map's types (varying to unreduced): the identity",
    "reduced_vary_cast_p": "a cast of shard_map's types (reduced to varying): the identity",
    "preduced": "a cast of shard_map's types (invarying to reduced): the identity",
    "rng_bit_generator": "XLA's CPU Philox in numpy (engine/prng_rbg.py): rbg keys run on the interpreter",
    "ffi_call": "a call into a registered foreign function (jax.ffi): the interpreter's rule",
    "fft": "numpy's FFT (a library call, not a loop nest)",
    # Sparse BCOO arrays (engine.experimental.sparse): scatters and gathers over the stored elements.
    "bcoo_todense": "sparse BCOO buffers: numpy's scatter over the stored elements",
    "bcoo_fromdense": "sparse BCOO buffers: numpy's nonzero and gather",
    "bcoo_extract": "sparse BCOO buffers: numpy's gather at the stored elements",
    "bcoo_transpose": "sparse BCOO buffers: a permutation of the buffers (numpy)",
    "bcoo_dot_general": "sparse BCOO contraction: numpy over the stored elements",
    "bcoo_dot_general_sampled": "a dense contraction read at BCOO indices (numpy)",
    "bcoo_spdot_general": "sparse x sparse BCOO contraction: numpy over pairs of stored elements",
    "spsolve": "a CSR system solved by numpy's LU (JAX calls scipy on a CPU, a host callback)",
    "bcoo_sort_indices": "sparse BCOO buffers: numpy's lexsort",
    "bcoo_sum_duplicates": "sparse BCOO buffers: numpy's unique and scatter-add",
    "bcsr_todense": "sparse BCSR buffers: numpy, through BCOO coordinates",
    "bcsr_fromdense": "sparse BCSR buffers: numpy, through BCOO coordinates",
    "bcsr_extract": "sparse BCSR buffers: numpy, through BCOO coordinates",
    "bcsr_dot_general": "sparse BCSR contraction: numpy over the stored elements",
    **{
        f"{fmt}_{op}": "sparse COO/CSR matrices: numpy's scatter and gather over the stored elements"
        for fmt in ("coo", "csr")
        for op in ("todense", "fromdense", "matvec", "matmat")
    },
    "scaled_dot": "not lowered yet: numpy's rule (bfloat16 rounding, then one matmul)",
    "ragged_dot_general": "not lowered yet: numpy's rule (groups masked, then one matmul)",
    "conv_general_dilated": "not lowered yet: numpy's rule (windows and a matmul)",
    "reshard": "sharding is the partitioner's (engine.parallel.partition), not a kernel's",
    "sharding_constraint": "sharding is the partitioner's (engine.parallel.partition), not a kernel's",
    "shard_map": "sharding is the partitioner's (engine.parallel.spmd), not a kernel's",
    "xla_pmap": "pmap runs its body on the device processes, each compiled there",
    "pallas_call": "a compiled Pallas kernel, which a CPU refuses (ir.lowering_refusals; interpret mode is traced)",
}
