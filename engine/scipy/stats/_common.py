"""What the distribution modules share: JAX's argument promotion."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact


def promote(name, *args):
    """Promote to one inexact dtype and broadcast, as jax.scipy.stats does."""
    from ... import numpy as jnp

    return jnp.broadcast_arrays(*promote_args_inexact(name, *args))
