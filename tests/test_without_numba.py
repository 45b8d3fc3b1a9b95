"""The engine imports and works where numba does not exist (Pyodide): jit falls back to the
interpreter. Checked in a subprocess whose import system refuses numba."""

import subprocess
import sys
import textwrap

from conftest import ROOT

SCRIPT = textwrap.dedent("""
    import sys, importlib

    class RefuseNumba:
        def find_spec(self, name, path=None, target=None):
            if name == 'numba' or name.startswith('numba.'):
                raise ImportError('numba is not available here')

    sys.meta_path.insert(0, RefuseNumba())
    import numpy as np
    import engine as jax, engine.numpy as jnp
    from engine import lax
    jit_module = importlib.import_module('engine.jit')
    assert jit_module.get_backend().name == 'interpreter', jit_module.get_backend()
    assert 'numba' not in sys.modules
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(jax.jit(lambda x: x * x + x * 2.0)(x), np.asarray(x) ** 2 + 2 * np.asarray(x))
    np.testing.assert_allclose(jax.grad(jax.jit(jnp.tanh))(1.0), 1 - np.tanh(1.0) ** 2, rtol=1e-6)
    f = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))
    np.testing.assert_allclose(f(x), 8 * np.asarray(x))
    print(jax.jit(lambda x: x.sum()).lower(x).as_text().splitlines()[0])
    print('ok')
""")


def test_engine_works_without_numba():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("ok")
