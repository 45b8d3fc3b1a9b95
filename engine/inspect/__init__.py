"""The run report: run user code and record what the transformations did.

``run_request`` is what the server's sandboxed child calls; ``python -m engine run --report`` uses
the same machinery. ``schema`` holds the pydantic contract.

  >>> from engine.inspect import run_request, RunRequest
  >>> report = run_request(RunRequest(code="import jax\\nprint(jax.grad(jax.numpy.tanh)(0.0))"))
  >>> report.ok, report.stdout, report.calls[0].label
  (True, '1.0\\n', 'grad(tanh)')
"""

from .schema import RunReport, RunRequest, TransformSpec  # noqa: F401
from .run import run_code, run_request  # noqa: F401
from .trace_export import chrome_trace  # noqa: F401
