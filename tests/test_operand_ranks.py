"""Which of two summed products XLA's CPU compiler fuses into one multiply-add
(``engine/backends/operand_ranks.py``): the one LLVM's Reassociate pass ranks first, in a program's
one-loop kernels as in its loop nests (in a loop's body by their depth alone). Values are JAX
0.10.2's on a CPU, as float32 bytes in hex, in the interpreted and the compiled tier alike."""

import hashlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from test_unrolled_loops import ROWS_ARGS, rows_body

X = np.linspace(-2.0, 3.0, 17, dtype=np.float32)
W = np.linspace(1.5, -0.5, 17, dtype=np.float32)
ONE_LOOP = {  # length -> jit(cos(x) * w + x * 0.37): x * 0.37 ranks first, so it is the fused one
    3: "c59eaebf96d348bf2ff887be",
    8: "c59eaebf96d348bf2ff887be441b1e3e718be83e5776213f76a9323faaf42e3f",
    17: "c59eaebf96d348bf2ff887be441b1e3e718be83e5776213f76a9323faaf42e3fc9b01f3f52fa0e3fc227063fb1"
    "690c3f90c2253fd677523f6787873f686aaa3f8470cd3f",
}
NEST = (  # the same on a (2, 17) array: two loops
    ONE_LOOP[17]
    + "1b532dc041ad18c0d8b4ddbf1d466ebf0d9338be83cdbc3ea48d273fe921363f67fd243f70eb143fc1b41f3fe1"
    "f34e3f61e58c3f0201b53fbf35d33f3b3fdf3f6e58d93f"
)


@pytest.mark.parametrize("n", ONE_LOOP)
def test_one_loop_kernels_fuse_the_product_ranked_first(n):
    f = jax.jit(lambda x, w: jnp.cos(x) * w + x * 0.37)
    for _ in range(2):  # (the interpreted tier, then the compiled one)
        assert np.asarray(f(X[:n], W[:n])).tobytes().hex() == ONE_LOOP[n]


def test_loop_nests_fuse_the_product_ranked_first():
    f = jax.jit(lambda x, w: jnp.cos(x) * w + x * 0.37)
    assert np.asarray(f(np.stack([X, 1.7 * X]), np.stack([W, W]))).tobytes().hex() == NEST


IN_A_LOOP = {  # length -> fori_loop of 5 steps x <- cos(x) * w + x * 0.37: ranked by depth there too
    2: "8fdcad3f01109e3f",
    8: "8fdcad3f01109e3f1f967f3f235f733f69546d3f9d73613f9cd2503f104e3c3f",
    17: "8fdcad3f01109e3f1f967f3f235f733f69546d3f9d73613f9cd2503f104e3c3f0d3f233f9673043f66debd3ef90f4c3e"
    "b1d2463c74ce33befb15b3be118b00bf807a21bf",
}


@pytest.mark.parametrize("n", IN_A_LOOP)
def test_a_loop_body_ranks_products_by_depth(n):
    def body(i, c):
        x, w = c
        return (jnp.cos(x) * w + x * 0.37, w)

    f = jax.jit(lambda x, w: lax.fori_loop(0, 5, body, (x, w))[0])
    for _ in range(2):  # (interpreted, then compiled)
        assert np.asarray(f(X[:n], W[:n])).tobytes().hex() == IN_A_LOOP[n]


SCAN = (  # JAX's carry a and ys: the two products' loads are ordered apart, of equal depth
    "60f2953e24968c3d743d9d3e301cb4bc6f5e903e4c7efc3d",
    "6990c63fa2bafabe8d43b03f1ae8293e3427553f34a40f3fe82c2c3f6fcb403f4fb5683f2ab3613f560ca83fc54faa3f"
    "1d49b23f3a61bd3f76b2c93f01bcd73f586be63fe9dff73f1c570540ca8e1240",
)


def test_a_loop_body_keeps_the_written_order_of_products_of_equal_depth():
    f = jax.jit(lambda a, n, xs: lax.scan(rows_body, (a, n), xs))
    for _ in range(2):  # (interpreted, then compiled)
        (a, _), ys = f(*ROWS_ARGS)
        assert (np.asarray(a).tobytes().hex(), np.asarray(ys).tobytes().hex()) == SCAN


def test_a_function_ranks_by_the_depth_of_its_expansion():
    # gelu's gradient adds a product through exp and one through erfc; JAX fuses the exp one
    # (erfc's expansion is the deeper): 21 of 96 elements were an ulp off when each function
    # ranked one above its operand
    x = np.linspace(-5, 5, 96, dtype=np.float32)
    g = jax.jit(jax.vmap(jax.grad(lambda v: jax.nn.gelu(v, approximate=False))))
    for _ in range(2):  # (interpreted, then compiled)
        assert hashlib.sha256(np.asarray(g(x)).tobytes()).hexdigest()[:24] == "462b07d746b54647800323d6"
