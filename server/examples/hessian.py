from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax
import jax.numpy as jnp

def f(x):
    return jnp.sum(x ** 3) + x[0] * x[1]

# Forward over reverse: jacrev gives the gradient function, jacfwd differentiates it again.
# This is how jax.hessian is built, and jit compiles the whole thing.
hessian = jax.jit(jax.jacfwd(jax.jacrev(f)))

x = jnp.array([1.0, 2.0])
print(hessian(x))           # [[6x0, 1], [1, 6x1]]
print(jax.hessian(f)(x))    # the library's own spelling
"""

EXAMPLE = Example(
    id="hessian",
    title="Hessian via jacfwd(jacrev(f))",
    topic="hessian",
    description="Forward-mode over reverse-mode gives a full Hessian matrix; jit on top compiles it.",
    code=CODE,
    function="f",
    stack=[t("jacrev"), t("jacfwd"), t("jit")],
    args=["jnp.array([1.0, 2.0])"],
    expected=[leaf([[6.0, 1.0], [1.0, 12.0]])],
)
