import numpy as np

from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def slow_f(x):
    # Element-wise ops: jit fuses them into one loop instead of three array passes.
    return x * x + x * 2.0

fast_f = jax.jit(slow_f)
x = jnp.ones((1000, 1000))
assert jnp.allclose(slow_f(x), fast_f(x))

# The constraint: under jit, values are abstract, so Python cannot branch on them.
def relu_if(x):
    if x > 0:
        return x
    return 0.0

try:
    jax.jit(relu_if)(1.0)
except Exception as e:
    print("jit refused:", type(e).__name__)

# Fixes: branch with jnp.where (or lax.cond), or mark the argument static.
print(jax.jit(lambda x: jnp.where(x > 0, x, 0.0))(1.0))
print(jax.jit(relu_if, static_argnums=0)(1.0))
"""

_x = np.arange(6.0).reshape(2, 3)

EXAMPLE = Example(
    id="jit-fusion",
    title="jit: fusion and its constraints",
    topic="jit",
    description="jit traces a function once per input shape and compiles the traced program; "
    "Python branches on traced values need jnp.where, lax.cond or static_argnums.",
    code=CODE,
    function="slow_f",
    stack=[t("jit")],
    args=["jnp.arange(6.0).reshape(2, 3)"],
    expected=[leaf(_x * _x + _x * 2.0)],
)
