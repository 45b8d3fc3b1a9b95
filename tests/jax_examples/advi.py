"""JAX's examples/advi.py without the plots: fit a diagonal Gaussian to a funnel density by
differentiating a Monte Carlo ELBO (vmap over samples, optimizers.momentum, jit with static args)."""

from functools import partial

from jax import jit, grad, vmap
from jax import random
from jax.example_libraries import optimizers
import jax.numpy as jnp
import jax.scipy.stats.norm as norm


def diag_gaussian_sample(rng, mean, log_std):
    return mean + jnp.exp(log_std) * random.normal(rng, mean.shape)


def diag_gaussian_logpdf(x, mean, log_std):
    return jnp.sum(vmap(norm.logpdf)(x, mean, jnp.exp(log_std)))


def elbo(logprob, rng, mean, log_std):
    sample = diag_gaussian_sample(rng, mean, log_std)
    return logprob(sample) - diag_gaussian_logpdf(sample, mean, log_std)


def batch_elbo(logprob, rng, params, num_samples):
    rngs = random.split(rng, num_samples)
    vectorized_elbo = vmap(partial(elbo, logprob), in_axes=(0, None, None))
    return jnp.mean(vectorized_elbo(rngs, *params))


@jit(static_argnums=(0, 1, 2, 4))
def _mesh_eval(func, x_limits, y_limits, params, num_ticks):
    x = jnp.linspace(*x_limits, num=num_ticks)
    y = jnp.linspace(*y_limits, num=num_ticks)
    X, Y = jnp.meshgrid(x, y)
    xy_vec = jnp.stack([X.ravel(), Y.ravel()]).T
    zs = vmap(func, in_axes=(0, None))(xy_vec, params)
    return X, Y, zs.reshape(X.shape)


def funnel_log_density(params):
    return norm.logpdf(params[0], 0, jnp.exp(params[1])) + norm.logpdf(params[1], 0, 1.35)


if __name__ == "__main__":
    num_samples = 40

    @jit
    def objective(params, t):
        rng = random.key(t)
        return -batch_elbo(funnel_log_density, rng, params, num_samples)

    init_params = (jnp.zeros(2), jnp.zeros(2))
    opt_init, opt_update, get_params = optimizers.momentum(step_size=0.1, mass=0.9)
    opt_state = opt_init(init_params)

    @jit
    def update(i, opt_state):
        params = get_params(opt_state)
        return opt_update(i, grad(objective)(params, i), opt_state)

    for t in range(30):
        opt_state = update(t, opt_state)
        params = get_params(opt_state)
        if t % 10 == 9:
            print(f"Iteration {t} lower bound {objective(params, t)}")
    X, Y, Z = _mesh_eval(
        lambda x, params: jnp.exp(diag_gaussian_logpdf(x, *params)), (-2, 2), (-4, 2), params, 21
    )
    print(f"Approximate density mass on the grid {jnp.sum(Z) * (4 / 20) * (6 / 20)}")
    print(f"Fitted mean {params[0]} log std {params[1]}")
