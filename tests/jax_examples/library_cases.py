"""Values of ``jax.example_libraries`` and ``jax.nn.initializers`` on fixed inputs.

The same code runs under JAX 0.10.2 (``record.py`` stores its results in ``recorded.json``) and
under the engine (``tests/test_example_libraries.py`` compares), so both see identical calls.
"""

import numpy as np


def _tolist(tree, jax):
    return jax.tree.map(lambda x: np.asarray(x, np.float64).tolist(), tree)


def optimizer_cases(jax):
    from jax.example_libraries import optimizers
    import jax.numpy as jnp

    params = {
        "a": jnp.linspace(-1.0, 1.0, 6).reshape(2, 3),
        "b": [jnp.array([0.5, -0.25, 2.0, 1.0]), jnp.array(0.3)],
    }

    def objective(p):
        return sum(jnp.sum(jnp.sin(3.0 * x) * x + 0.1 * x**4) for x in jax.tree.leaves(p))

    makers = {
        "sgd": lambda: optimizers.sgd(0.1),
        "momentum": lambda: optimizers.momentum(0.1, mass=0.9),
        "nesterov": lambda: optimizers.nesterov(0.1, 0.8),
        "adagrad": lambda: optimizers.adagrad(0.2),
        "rmsprop": lambda: optimizers.rmsprop(0.05),
        "rmsprop_momentum": lambda: optimizers.rmsprop_momentum(0.05),
        "adam": lambda: optimizers.adam(0.05),
        "adamax": lambda: optimizers.adamax(0.05),
        "sm3": lambda: optimizers.sm3(0.1),
        "sgd_exponential_decay": lambda: optimizers.sgd(optimizers.exponential_decay(0.2, 2, 0.5)),
        "adam_piecewise": lambda: optimizers.adam(optimizers.piecewise_constant([2, 4], [0.1, 0.05, 0.01])),
    }
    out = {}
    for name, make in makers.items():
        opt_init, opt_update, get_params = make()
        state = opt_init(params)

        def step(i, state):
            return opt_update(i, jax.grad(objective)(get_params(state)), state)

        if name != "sm3":  # sm3 keeps the parameter shape (ints) in its state: not jittable in JAX
            step = jax.jit(step)

        for i in range(5):
            state = step(i, state)
        out[name] = _tolist(get_params(state), jax)
    return out


def schedule_cases(jax):
    from jax.example_libraries import optimizers

    schedules = {
        "exponential_decay": optimizers.exponential_decay(0.5, 3, 0.7),
        "inverse_time_decay": optimizers.inverse_time_decay(0.5, 3, 0.7),
        "inverse_time_decay_staircase": optimizers.inverse_time_decay(0.5, 3, 0.7, staircase=True),
        "polynomial_decay": optimizers.polynomial_decay(0.5, 5, 0.1, power=2.0),
        "piecewise_constant": optimizers.piecewise_constant([2, 6], [1.0, 0.5, 0.1]),
    }
    return {name: [float(s(i)) for i in (0, 1, 4, 7, 12)] for name, s in schedules.items()}


def utility_cases(jax):
    from jax.example_libraries import optimizers
    import jax.numpy as jnp

    tree = {"x": jnp.arange(4.0), "y": (jnp.ones((2, 2)), jnp.array(-3.0))}
    opt_init, _, get_params = optimizers.momentum(0.1, 0.9)
    state = opt_init(tree)
    packed = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    return {
        "l2_norm": float(optimizers.l2_norm(tree)),
        "clip_grads_small": _tolist(optimizers.clip_grads(tree, 2.0), jax),
        "clip_grads_large": _tolist(optimizers.clip_grads(tree, 100.0), jax),
        "roundtrip": _tolist(get_params(packed), jax),
        "state_leaves": len(jax.tree.leaves(state)),
    }


def stax_cases(jax):
    from jax.example_libraries import stax
    import jax.numpy as jnp

    key = jax.random.key(0)
    x = jnp.sin(jnp.arange(24.0).reshape(4, 6))
    nets = {
        "mlp": stax.serial(stax.Dense(5), stax.Tanh, stax.Dense(3), stax.LogSoftmax),
        "activations": stax.serial(
            stax.Dense(8),
            stax.Gelu,
            stax.Dense(8),
            stax.Elu,
            stax.Dense(8),
            stax.LeakyRelu,
            stax.Dense(8),
            stax.Selu,
            stax.Dense(8),
            stax.Sigmoid,
            stax.Dense(8),
            stax.Softplus,
            stax.Dense(4),
            stax.Exp,
            stax.Softmax,
        ),  # fmt: skip
        "batchnorm": stax.serial(stax.Dense(5), stax.BatchNorm(axis=(0,)), stax.Relu),
        "fan_sum": stax.serial(
            stax.FanOut(2), stax.parallel(stax.Dense(3), stax.serial(stax.Dense(3), stax.Relu)), stax.FanInSum
        ),
        "fan_concat": stax.serial(
            stax.FanOut(3), stax.parallel(stax.Dense(2), stax.Identity, stax.Dense(1)), stax.FanInConcat()
        ),
        "flatten": stax.serial(stax.Flatten, stax.Dense(2)),
        "shape_dependent": stax.shape_dependent(lambda shape: stax.Dense(shape[-1])),
    }
    out = {}
    for name, (init, apply) in nets.items():
        inputs = x.reshape(2, 3, 4) if name == "flatten" else x
        out_shape, params = init(key, (-1,) + inputs.shape[1:])
        out[name] = {
            "out_shape": list(out_shape),
            "params": _tolist(params, jax),
            "apply": _tolist(apply(params, inputs), jax),
        }
    init, apply = stax.serial(stax.Dense(6), stax.Dropout(0.7))
    _, params = init(key, (-1, 6))
    out["dropout"] = _tolist(apply(params, x, rng=jax.random.key(3)), jax)
    return out


def conv_stax_cases(jax):
    from jax.example_libraries import stax
    import jax.numpy as jnp

    key = jax.random.key(1)
    x = jnp.cos(jnp.arange(2 * 9 * 8 * 3.0)).reshape(2, 9, 8, 3)
    nets = {
        "conv_pool": stax.serial(
            stax.Conv(4, (3, 3), padding="SAME", strides=(2, 2)), stax.Relu, stax.MaxPool((2, 2), (1, 1))
        ),
        "avg_sum_pool": stax.serial(
            stax.Conv(2, (2, 3)), stax.AvgPool((2, 2), padding="SAME"), stax.SumPool((2, 1), (2, 1))
        ),
        "nchw": stax.serial(
            stax.GeneralConv(("NCHW", "OIHW", "NCHW"), 3, (2, 2)), stax.Flatten, stax.Dense(2)
        ),
    }
    out = {}
    for name, (init, apply) in nets.items():
        inputs = jnp.transpose(x, (0, 3, 1, 2)) if name == "nchw" else x
        out_shape, params = init(key, inputs.shape)
        grads = jax.grad(lambda p: jnp.sum(jnp.sin(apply(p, inputs))))(params)
        out[name] = {
            "out_shape": [int(n) for n in out_shape],
            "apply": _tolist(apply(params, inputs), jax),
            "grads": _tolist(grads, jax),
        }
    return out


def lax_window_cases(jax):
    from jax import lax
    import jax.numpy as jnp

    rng = np.random.RandomState(0)
    x = rng.randn(2, 7, 6, 3).astype(np.float32)
    w = rng.randn(3, 2, 3, 4).astype(np.float32)
    dn = ("NHWC", "HWIO", "NHWC")
    out = {}
    convs = {
        "same_s2": dict(window_strides=(2, 2), padding="SAME"),
        "valid": dict(window_strides=(1, 1), padding="VALID"),
        "explicit_dilated": dict(
            window_strides=(1, 2), padding=[(1, 2), (0, 1)], lhs_dilation=(2, 1), rhs_dilation=(1, 2)
        ),
    }
    for name, kw in convs.items():

        def f(x, w, kw=kw):
            return lax.conv_general_dilated(x, w, dimension_numbers=dn, **kw)

        gx, gw = jax.grad(lambda x, w: jnp.sum(jnp.sin(f(x, w))), (0, 1))(x, w)
        out[name] = {
            "value": _tolist(f(x, w), jax),
            "grads": _tolist((gx, gw), jax),
            "vmap": _tolist(jax.vmap(lambda xi: f(xi[None], w)[0])(x), jax),
        }
    out["conv_general_shape_tuple"] = [
        int(n) for n in lax.conv_general_shape_tuple(x.shape, w.shape, (2, 2), "SAME", dn)
    ]
    xn, wn = rng.randn(2, 3, 5, 4).astype(np.float32), rng.randn(4, 3, 2, 2).astype(np.float32)
    out["conv_nchw"] = _tolist(lax.conv(xn, wn, (1, 1), "SAME"), jax)
    windows = {"max": (lax.max, -jnp.inf, "SAME"), "add": (lax.add, 0.0, "VALID")}
    for name, (comp, init, pad) in windows.items():

        def g(x, comp=comp, init=init, pad=pad):
            return lax.reduce_window(x, init, comp, (1, 2, 3, 1), (1, 2, 1, 1), pad)

        out["reduce_window_" + name] = {
            "value": _tolist(g(x), jax),
            "grad": _tolist(jax.grad(lambda x: jnp.sum(g(x) ** 2))(x), jax),
        }
    out["reduce_window_init"] = _tolist(
        lax.reduce_window(x, 0.5, lax.max, (1, 2, 3, 1), (1, 2, 1, 1), "VALID"), jax
    )
    out["padtype_to_pads"] = [
        [int(n) for n in p] for p in lax.padtype_to_pads((7, 6), (3, 2), (2, 2), "SAME")
    ]
    return out


def initializer_cases(jax):
    init = jax.nn.initializers
    key = jax.random.key(42)
    makers = {
        "zeros": lambda: init.zeros,
        "ones": lambda: init.ones,
        "constant": lambda: init.constant(-7.0),
        "uniform": lambda: init.uniform(2.0),
        "normal": lambda: init.normal(0.5),
        "truncated_normal": lambda: init.truncated_normal(0.5),
        "glorot_normal": lambda: init.glorot_normal(),
        "glorot_uniform": lambda: init.glorot_uniform(),
        "lecun_normal": lambda: init.lecun_normal(),
        "lecun_uniform": lambda: init.lecun_uniform(),
        "he_normal": lambda: init.he_normal(),
        "he_uniform": lambda: init.he_uniform(),
        "variance_scaling_conv": lambda: init.variance_scaling(0.5, "fan_geo_avg", "normal", 2, 3),
    }
    return {name: _tolist(make()(key, (3, 4, 2, 5)), jax) for name, make in makers.items()}


def all_cases(jax):
    return {
        "optimizers": optimizer_cases(jax),
        "schedules": schedule_cases(jax),
        "utilities": utility_cases(jax),
        "stax": stax_cases(jax),
        "initializers": initializer_cases(jax),
        "conv_stax": conv_stax_cases(jax),
        "lax_windows": lax_window_cases(jax),
    }
