"""``jax._src.api``: the transformations, under the private path JAX's primitives tutorial uses.

>>> from engine._src import api
>>> api.grad(lambda x: x * x)(3.0)
Array(6., dtype=float32, weak_type=True)
"""

from ..api import grad, hessian, jacfwd, jacrev, jit, jvp, linearize, make_jaxpr, value_and_grad, vjp, vmap  # noqa: F401
