"""A JAX-like transformation engine on numpy."""
