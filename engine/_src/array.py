"""``jax._src.array``: where an array's shards claim to live (``core.jax_class_path``)."""

from ..parallel.sharded import Shard  # noqa: F401
