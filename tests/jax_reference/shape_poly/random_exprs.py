"""Random dimension expressions (a fixed seed) over ``a, b, c`` with random constraints: their
normalized text and comparisons, as JAX 0.10.2 gives them.

Recorded with ``/work/main/.jax-venv/bin/python tests/jax_reference/shape_poly/random_exprs.py >
tests/jax_reference/shape_poly/random_exprs.json``; tests/test_shape_poly.py replays them.
"""

import json
import random

SEED, COUNT = 3, 120
CONSTRAINTS = ([], ["a >= b"], ["c >= 4"], ["a >= b + 2", "b >= 3"], ["a == 2*c"])


def _expr(rnd: random.Random, depth: int) -> str:
    if depth == 0 or rnd.random() < 0.25:
        return rnd.choice(["a", "b", "c", str(rnd.randint(-3, 5))])
    op = rnd.choice(["+", "-", "*", "//", "%", "max", "min", "+", "*", "-"])
    x, y = _expr(rnd, depth - 1), _expr(rnd, depth - 1)
    if op in ("//", "%"):
        y = rnd.choice(["2", "3", "a", "b", "(a + 1)", "4"])
    if op in ("max", "min"):
        return f"core.{op}_dim({x}, {y})"
    return f"({x} {op} {y})"


def cases() -> list:
    rnd = random.Random(SEED)
    out = []
    for _ in range(COUNT):
        e1, e2 = _expr(rnd, 3), _expr(rnd, 2)
        out.append((rnd.choice(CONSTRAINTS), e1, e2))
    return out


def results(symbolic_shape, core) -> dict:
    out = {}
    for cons, e1, e2 in cases():
        a, b, c = symbolic_shape("a, b, c", constraints=cons)
        env = dict(a=a, b=b, c=c, core=core)
        res = []
        for text in (e1, f"{e1} >= {e2}", f"{e1} == {e2}", f"{e1} < {e2}"):
            try:
                res.append(str(eval(text, env)))
            except Exception as ex:
                res.append(type(ex).__name__)
        out[f"{cons} {e1} ; {e2}"] = res
    return out


if __name__ == "__main__":
    from jax._src import core as jax_core
    from jax.export import symbolic_shape

    print(json.dumps(results(symbolic_shape, jax_core), indent=1))
