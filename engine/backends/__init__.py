"""Backends that compile closed jaxprs: ``numba_jit.NumbaBackend`` (generated numba kernels) with
its rule table in ``lowering``; ``engine.jit.Interpreter`` is the numpy fallback."""
