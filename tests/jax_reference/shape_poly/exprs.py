"""Symbolic dimension arithmetic and comparisons: the texts and outcomes JAX 0.10.2 gives.

Recorded with ``/work/main/.jax-venv/bin/python tests/jax_reference/shape_poly/exprs.py jax >
tests/jax_reference/shape_poly/exprs.json``; ``results(symbolic_shape, core)`` replays them on the
engine (tests/test_shape_poly.py).
"""

import json
import sys

CASES = [
    ("a, b", [], "a + b"),
    ("a, b", [], "b + a"),
    ("a, b", [], "2*b + b"),
    ("a, b", [], "a*b*b"),
    ("a, b", [], "(a + b) * 2"),
    ("a, b", [], "a - b"),
    ("a, b", [], "b - a + 3"),
    ("a, b", [], "-a"),
    ("a, b", [], "(a*b + 1) * (a - 2)"),
    ("a, b", [], "a // 2"),
    ("a, b", [], "(4*a + 6) // 2"),
    ("a, b", [], "(2*a + 5) % 2"),
    ("a, b", [], "a % b"),
    ("a, b", [], "(a*b) // b"),
    ("a, b", [], "(a*b + a) // b"),
    ("a, b", [], "(a + 1) // 3 * 3 + (a+1) % 3"),
    ("a, b", [], "core.max_dim(a, b)"),
    ("a, b", [], "core.min_dim(a, 4)"),
    ("a, b", [], "core.max_dim(a, 0)"),
    ("a, b", [], "core.min_dim(a, 0)"),
    ("a, b", [], "core.max_dim(a + 2, a)"),
    ("a, b", [], "a ** 3 + b ** 2"),
    ("a, b", [], "3 * a * b - a * 2"),
    ("a, b, c, d", ["a * b == c + d"], "2 * b * a"),
    ("a, b, c, d", ["a * b == c + d"], "a * b * b"),
    ("a, b", ["a == 2*b"], "a + b"),
    ("a, b", [], "b*a + a*a + b*b"),
    ("a, b", [], "core.max_dim(a, b) + core.min_dim(a, b)"),
    ("a, b", [], "(a // 2) * 2 + a"),
    ("b", [], "b * 3 // 3"),
    ("b", [], "(b + 2) * (b - 2)"),
]
COMPARISONS = [
    ("a, b", [], "a >= 1"),
    ("a, b", [], "a >= 2"),
    ("a, b", [], "a >= b"),
    ("a, b", [], "a + 1 >= b"),
    ("a, b", [], "2*a + b >= 3"),
    ("a, b", [], "a // 4 >= 0"),
    ("a, b", [], "a ** 2 >= 1"),
    ("a, b", [], "a * b >= 1"),
    ("a, b", [], "a - b >= 0"),
    ("a, b", [], "a % 3 <= 2"),
    ("a, b", [], "a % 3 < 3"),
    ("a, b", [], "a >= a % 3"),
    ("a, b", [], "a == 1"),
    ("a, b", [], "a != b"),
    ("a, b", [], "a + 1 > a"),
    ("a, b", [], "0 < a"),
    ("a, b", [], "a < 0"),
    ("a, b", ["a >= b", "b >= 16"], "a >= b"),
    ("a, b", ["a >= b", "b >= 16"], "b >= 16"),
    ("a, b", ["a >= b", "b >= 16"], "a + 2*b >= 48"),
    ("a, b", ["a >= 16", "b >= 8"], "a + 2*b >= 32"),
    ("a, b", ["a >= b + 8"], "a - b >= 8"),
    ("a, b", ["a <= 10"], "a <= 10"),
    ("a, b", ["a <= 10"], "a < 11"),
    ("a, b", ["a <= 10"], "20 >= a"),
    ("a, b", [], "core.max_dim(a, b) >= a"),
    ("a, b", [], "core.min_dim(a, b) <= b"),
    ("a, b", [], "core.max_dim(a, b) >= 1"),
    ("a, b", [], "a // b >= 0"),
    ("b", ["b >= mod(b, 3)"], "b >= b % 3"),
    ("b", [], "b + 15 >= 16"),
    ("a, b", [], "a*b >= a"),
    ("a, b", [], "(a+1) // 2 >= 1"),
]


def results(symbolic_shape, core) -> dict:
    out = {}
    for spec, cons, text in CASES + COMPARISONS:
        names = symbolic_shape(spec, constraints=cons)
        env = dict(zip([n.strip() for n in spec.split(",")], names), core=core)
        try:
            r = eval(text, env)
            out[f"{spec} | {cons} | {text}"] = ["ok", str(r)]
        except Exception as e:
            out[f"{spec} | {cons} | {text}"] = [type(e).__name__, str(e).split("\n")[0]]
    return out


if __name__ == "__main__" and sys.argv[1:] == ["jax"]:
    from jax._src import core as jax_core
    from jax.export import symbolic_shape as jax_symbolic_shape

    print(json.dumps(results(jax_symbolic_shape, jax_core), indent=1))
