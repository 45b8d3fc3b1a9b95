"""``jax._src.shard_map``: where eager ``shard_map``'s tracer claims to live (``core.jax_class_path``)."""

from ..parallel.shard_map_eager import ShardMapTracer  # noqa: F401
