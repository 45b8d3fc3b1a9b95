"""``jax.debug.visualize_array_sharding``: which device holds which block, drawn as a text grid."""

from __future__ import annotations

import sys


def sharding_diagram(shape, sharding) -> str:
    """A box per distinct block of a 1-D or 2-D array, labelled with the devices holding it."""
    if len(shape) not in (1, 2):
        raise ValueError(
            f"visualize_sharding only works for shapes with 1 or 2 dimensions. Got shape={shape}"
        )
    imap = sharding.devices_indices_map(tuple(shape))
    rows: dict = {}
    cols: dict = {}
    owners: dict = {}
    for dev, index in imap.items():
        r = (index[0].start or 0) if len(shape) == 2 else 0
        c = (index[-1].start or 0) if len(shape) >= 1 else 0
        rows.setdefault(r, None)
        cols.setdefault(c, None)
        owners.setdefault((r, c), []).append(dev.id)
    rs, cs = sorted(rows), sorted(cols)
    labels = {k: f"CPU {','.join(map(str, sorted(v)))}" for k, v in owners.items()}
    width = max(len(s) for s in labels.values()) + 2

    def rule(left, mid, right):
        return left + mid.join("─" * width for _ in cs) + right

    lines = [rule("┌", "┬", "┐")]
    for i, r in enumerate(rs):
        lines.append("│" + "│".join(labels[(r, c)].center(width) for c in cs) + "│")
        lines.append(rule("├", "┼", "┤") if i < len(rs) - 1 else rule("└", "┴", "┘"))
    return "\n".join(lines)


def visualize_array_sharding(arr, **_) -> None:
    """Print the layout of ``arr`` over devices (1-D and 2-D arrays).

    >>> from engine.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = jax.make_mesh((2,), ("b",))
    >>> jax.debug.visualize_array_sharding(jax.device_put(jnp.ones((4, 2)), NamedSharding(mesh, P("b"))))
    ┌───────┐
    │ CPU 0 │
    ├───────┤
    │ CPU 1 │
    └───────┘
    """
    sys.stdout.write(sharding_diagram(arr.shape, arr.sharding) + "\n")
