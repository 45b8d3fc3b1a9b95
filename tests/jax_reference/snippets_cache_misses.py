"""Programs whose jitted functions trace again, for ``jax_explain_cache_misses``: each runs as a file
of its own (its name is the file's) with the flag on. ``record_cache_misses.py`` records what JAX
0.10.2 logs for them into ``cache_misses.json``; ``tests/test_cache_misses.py`` runs them on the
engine and compares the messages."""

import textwrap

CASES = {
    "input_types": """
        import jax, jax.numpy as jnp
        def f(x, y):
            return x * y
        jf = jax.jit(f)
        jf(jnp.ones(3), 2.0)
        jf(jnp.ones(3), 3.0)
        jf(jnp.ones(4), 2.0)
        jf(jnp.ones(4, jnp.int32), 2.0)
        jf(jnp.ones(4, jnp.int32), jnp.float32(2.0))
        jf(jnp.ones(5), jnp.ones(5, jnp.int32))
        jax.jit(f)(jnp.ones(5), jnp.ones(5, jnp.int32))
        """,
    "ranks_and_scalars": """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return x * 2
        f(jnp.ones(3))
        f(jnp.ones((3, 2)))
        f(2)
        f(2.0)
        f(True)
        """,
    "closest_key": """
        import jax, jax.numpy as jnp
        def c(x, y):
            return x.sum() + y.sum()
        jc = jax.jit(c)
        jc(jnp.ones(3), jnp.ones(3))
        jc(jnp.ones(4), jnp.ones(4))
        jc(jnp.ones(4), jnp.ones(3))
        jc(jnp.ones(3), jnp.ones(4))
        """,
    "static_args": """
        import jax, jax.numpy as jnp
        def g(x, k):
            return x * k
        jg = jax.jit(g, static_argnums=1)
        jg(jnp.ones(3), 2)
        jg(jnp.ones(3), 3)
        jg(jnp.ones(3), k=3)
        def h(x, *, n):
            return x * n
        jh = jax.jit(h, static_argnames='n')
        jh(jnp.ones(3), n=2)
        jh(jnp.ones(3), n=5)
        """,
    "pytrees": """
        import jax, jax.numpy as jnp
        def h(d):
            return d['a'].sum()
        jh = jax.jit(h)
        jh({'a': jnp.ones(3)})
        jh({'a': jnp.ones(4)})
        jh({'a': jnp.ones(3), 'b': jnp.ones(2)})
        def s(t):
            return t[0].sum()
        js = jax.jit(s)
        js(jnp.ones(3))
        js((jnp.ones(3), jnp.ones(3)))
        js((jnp.ones(3), jnp.ones(3), jnp.ones(3)))
        js([jnp.ones(3), jnp.ones(3)])
        def v(*args):
            return args[0]
        jv = jax.jit(v)
        jv(jnp.ones(3), jnp.ones(2))
        jv(jnp.ones(3), jnp.ones(5))
        def k(x, y):
            return x.sum()
        jk = jax.jit(k)
        jk(jnp.ones(3), 2.0)
        jk(x=jnp.ones(3), y={'w': jnp.ones(2)})
        jk(x=jnp.ones(3), y={'w': jnp.ones(7)})
        """,
    "context": """
        import jax, jax.numpy as jnp
        def f(x):
            return x + 1
        jf = jax.jit(f)
        jf(jnp.ones(3))
        with jax.enable_x64(True):
            jf(jnp.ones(3, jnp.float32))
        jax.config.update('jax_threefry_partitionable', False)
        jf(jnp.ones(3))
        jax.config.update('jax_threefry_partitionable', True)
        jf(jnp.ones(3))
        """,
    "redefined": """
        import functools
        import jax, jax.numpy as jnp
        for i in range(3):
            jax.jit(lambda x: x + 1)(jnp.ones(3))
        def f(x, y):
            return x * y
        for i in range(2):
            jax.jit(functools.partial(f, y=2.0))(jnp.ones(3))
        def call(g, x):
            return jax.jit(g)(x)
        call(lambda x: x - 1, jnp.ones(2))
        call(lambda x: x * 3, jnp.ones(2))
        """,
    "lower_and_trace": """
        import jax, jax.numpy as jnp
        f = jax.jit(lambda x: x)
        f(jnp.ones(3))
        f.lower(jnp.ones(4))
        f(jnp.ones(4))
        f.trace(jnp.ones(5))
        f(jnp.ones(5))
        f.lower(jnp.ones(5)).compile()(jnp.ones(5))
        """,
    "shardings": """
        import numpy as np
        import jax
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((2,), ('i',))
        f = jax.jit(lambda x: x * 2)
        f(jax.device_put(np.ones(8, np.float32), NamedSharding(mesh, P('i'))))
        f(jax.device_put(np.ones(8, np.float32), NamedSharding(mesh, P())))
        f(np.ones(8, np.float32))
        f(jax.device_put(np.ones(16, np.float32), NamedSharding(mesh, P('i'))))
        """,
}


def source(name: str) -> str:
    return textwrap.dedent(CASES[name]).lstrip("\n")
