"""``jax._src.xla_bridge``: ``get_backend`` gives the engine's StableHLO client
(``jax._src.lib.xla_client.Client``)."""

from __future__ import annotations

from .lib.xla_client import Client, get_client


def get_backend(platform: object = None) -> Client:
    if platform not in (None, "cpu"):
        raise RuntimeError(f"Unknown backend {platform!r}: the engine has the 'cpu' backend only")
    return get_client()


def devices(backend: object = None) -> list:
    return get_backend(backend).devices()
