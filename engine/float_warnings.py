"""numpy's floating-point warnings (``0 * inf``, ``log(0)``, overflow) raised inside the engine are
not the user's: XLA computes the same IEEE values silently, so JAX prints none. The filter matches
warnings attributed to the engine's own modules, so the user's own numpy calls still warn."""

import warnings

warnings.filterwarnings(
    "ignore",
    r"(invalid value|divide by zero|overflow|underflow) encountered",
    RuntimeWarning,
    r"engine(\.|$)",
)
