"""``jax.scipy.spatial``: rotations (``transform``)."""

from . import transform  # noqa: F401
