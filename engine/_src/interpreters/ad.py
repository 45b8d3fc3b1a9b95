"""``jax._src.interpreters.ad``: where the engine's forward-mode tracers claim to live
(``core.jax_class_path``). The eager tape's tracer (``engine.tape.TapeTracer``) also presents itself
as a ``LinearizeTracer``, the part JAX's plays under ``grad``; the name here is linearize's own."""

from ...ad import JVPTracer, LinearizeTracer  # noqa: F401
