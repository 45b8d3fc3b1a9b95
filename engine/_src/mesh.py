"""``jax._src.mesh``: where the engine's meshes claim to live (``core.jax_class_path``)."""

from ..sharding import AbstractMesh, Mesh  # noqa: F401
