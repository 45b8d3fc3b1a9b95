"""Snippets for ``jax.experimental.hijax`` (primitives whose rules are methods of a
``VJPHiPrimitive`` subclass): values under grad/jvp/vmap/jit, the jaxprs that stage
``call_hi_primitive``, and the errors for missing rules. Registered in snippets.py."""

H = """
from jax.experimental.hijax import VJPHiPrimitive, Zero, instantiate_zeros
class SinTimesY(VJPHiPrimitive):
  def __init__(self, x_aval, y_aval):
    self.in_avals, self.out_aval, self.params = (x_aval, y_aval), x_aval, {}
    super().__init__()
  def expand(self, x, y):
    return jnp.sin(x) * y
  def vjp_fwd(self, nzs_in, x, y):
    return self(x, y), (jnp.cos(x), jnp.sin(x), y)
  def vjp_bwd_retval(self, res, g):
    cos_x, sin_x, y = res
    return (cos_x * g * y, sin_x * g)
  def jvp(self, primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    return self(x, y), jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
  def batch_dim_rule(self, axis_data, in_dims):
    x_dim, y_dim = in_dims
    return y_dim if x_dim is None else x_dim
def f(x, y):
  return SinTimesY(jax.typeof(x), jax.typeof(y))(x, y)
class Clip(VJPHiPrimitive):
  def __init__(self, lo_aval, hi_aval, x_aval):
    self.in_avals, self.out_aval, self.params = (lo_aval, hi_aval, x_aval), x_aval, {}
    super().__init__()
  def expand(self, lo, hi, x):
    return x
  def vjp_fwd(self, nzs_in, lo, hi, x):
    return self(lo, hi, x), (lo, hi)
  def vjp_bwd_retval(self, res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))
def clip_gradient(lo, hi, x):
  return Clip(jax.typeof(lo), jax.typeof(hi), jax.typeof(x))(lo, hi, x)
class OnlyExpand(VJPHiPrimitive):
  def __init__(self, x_aval):
    self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
    super().__init__()
  def expand(self, x):
    return x * x
def only_expand(x):
  return OnlyExpand(jax.typeof(x))(x)
"""

HIJAX = [
    ("values", H + "out = (f(2., 3.), jax.jvp(f, (2., 3.), (1., 0.)), jax.grad(f, (0, 1))(2., 3.))"),
    ("jit", H + "out = (jax.jit(f)(2., 3.), jax.jit(jax.grad(f))(2., 3.))"),
    (
        "vmap",
        H + "x = jnp.arange(3.)\n"
        "out = (jax.vmap(f)(x, x + 1.), jax.vmap(f, (0, None))(x, 2.), jax.vmap(jax.grad(f))(x, x + 1.))",
    ),
    (
        "scan",
        H
        + "out = jax.grad(lambda xs: jax.lax.scan(lambda c, x: (c + f(x, c), None), 1., xs)[0])(jnp.arange(3.))",
    ),
    (
        "grad_of_vmap",  # (the rules hold under vmap: the vmapped primitive's are the primitive's)
        H + "xs = jnp.array([1., 50., 100.])\n"
        "out = (jax.grad(lambda x, y: jax.vmap(f, (0, None))(x, y).sum(), (0, 1))(xs, 2.), "
        "jax.jit(jax.grad(lambda x: jax.vmap(lambda r: jax.vmap(f)(r, r).sum())(x).sum()))(jnp.ones((2, 3))), "
        "jax.jvp(jax.vmap(f), (xs, xs), (xs, xs)))",
    ),
    ("clip", H + "out = jax.grad(lambda x: jnp.sum(clip_gradient(-0.5, 0.5, 3. * x)))(jnp.arange(3.))"),
    ("jaxpr", H + "out = str(jax.make_jaxpr(f)(2., 3.))"),
    ("grad_jaxpr", H + "out = str(jax.make_jaxpr(jax.grad(f))(2., 3.))"),
    ("jvp_jaxpr", H + "out = str(jax.make_jaxpr(lambda x, y: jax.jvp(f, (x, y), (1., 0.)))(2., 3.))"),
    ("trace_jaxpr", H + "out = str(jax.jit(jax.grad(f)).trace(2., 3.).jaxpr)"),
    ("expand_only", H + "out = (only_expand(3.), jax.jit(only_expand)(3.))"),
    ("err_grad_without_vjp", H + "out = jax.grad(only_expand)(3.)"),
    ("err_jvp_without_jvp", H + "out = jax.jvp(clip_gradient, (0., 1., 2.), (0., 0., 1.))"),
    ("err_vmap_without_rule", H + "out = jax.vmap(only_expand)(jnp.arange(3.))"),
    (
        "err_init_without_params",
        "from jax.experimental.hijax import VJPHiPrimitive\n"
        "class P(VJPHiPrimitive):\n  def __init__(self, a):\n    self.in_avals, self.out_aval = (a,), a\n"
        "    super().__init__()\nout = P(jax.typeof(1.))",
    ),
]
