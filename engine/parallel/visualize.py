"""``jax.debug.visualize_sharding``: which device holds which block of a 1-D or 2-D array, drawn as
JAX draws it, with the package rich (a table of blocks sized in proportion to the array's shape;
without a colour terminal, as under the playground, the blocks are boxes labelled with their
devices). Like JAX, it needs rich installed and says so when it is not."""

from __future__ import annotations

import importlib.util

import numpy as np


def _block_index(size: int, index) -> tuple[int, int]:
    """(which block along this dimension, its length) of one device's slice of it."""
    if isinstance(index, int):
        index = slice(index, index + 1)
    if index.start is None and index.stop is None:
        return 0, size
    length = index.stop - index.start
    return index.start // length, length


def _colors(color_map, rows: int, cols: int):
    """JAX's order of colours: a stride of about half the map, so neighbouring blocks differ."""
    n = rows * cols
    values, i = np.linspace(0, 1, n), 0
    for _ in range(n):
        r, g, b = (int(v * 255) for v in color_map(values[i])[:3])
        yield f"#{r:02X}{g:02X}{b:02X}"
        i = (i + n // 2 + (n % 2 == 0)) % n


def _text_color(bg: str) -> str:
    r, g, b = (int(bg[k : k + 2], 16) for k in (1, 3, 5))
    return "#000000" if r * 0.299 + g * 0.587 + b * 0.114 > 186 else "#ffffff"


def visualize_sharding(
    shape,
    sharding,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map=None,
) -> None:
    """Print the blocks of an array of ``shape`` laid out by ``sharding`` (1-D or 2-D).

    >>> from engine.sharding import NamedSharding, PartitionSpec as P
    >>> mesh = jax.make_mesh((2,), ("b",))
    >>> jax.debug.visualize_sharding((4, 2), NamedSharding(mesh, P("b")), scale=0.2)
    ┌───────┐
    │ CPU 0 │
    ├───────┤
    │ CPU 1 │
    └───────┘
    """
    if importlib.util.find_spec("rich") is None:
        raise ValueError("`visualize_sharding` requires `rich` to be installed.")
    import rich.align
    import rich.box
    import rich.console
    import rich.padding
    import rich.style
    import rich.table

    shape = tuple(shape)
    if len(shape) not in (1, 2):
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    console = rich.console.Console(width=max_width)
    use_color = use_color and console.color_system is not None
    if use_color and color_map is None:
        try:
            import matplotlib as mpl

            color_map = mpl.colormaps["tab20b"]
        except ModuleNotFoundError:
            use_color = False

    base_height = int(10 * scale)
    base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
    kind = next(iter(sharding.device_set)).platform.upper()
    owners: dict[tuple[int, int], set[int]] = {}
    fraction: dict[tuple[int, int], tuple[float | None, float]] = {}  # (height, width) of the array
    for device, index in sharding.devices_indices_map(shape).items():
        blocks = [_block_index(size, i) for size, i in zip(shape, index)]
        if len(shape) == 2:
            (r, h), (c, w) = blocks
            fraction[r, c] = (h / shape[0], w / shape[1])
        else:  # (a 1-D array is one row of blocks, one line high)
            ((c, w),) = blocks
            r = 0
            fraction[r, c] = (None, w / shape[0])
        owners.setdefault((r, c), set()).add(device.id)
    rows = max(r for r, _ in owners) + 1
    cols = max(c for _, c in owners) + 1

    colors = _colors(color_map, rows, cols) if use_color else None
    table = rich.table.Table(
        show_header=False,
        show_lines=not use_color,
        padding=0,
        highlight=not use_color,
        pad_edge=False,
        box=None if use_color else rich.box.SQUARE,
    )
    for r in range(rows):
        cells = []
        for c in range(cols):
            label = f"{kind} " + ",".join(map(str, sorted(owners[r, c])))
            h, w = fraction[r, c]
            width = min(
                max(int(w * base_width * 2.5), min_width), max_width
            )  # (characters are ~2.5x as tall as wide)
            height = 1 if h is None else int(h * base_height)
            left, odd = divmod(width - len(label) - 2, 2)
            right = left + odd
            top, odd = divmod(height - 2, 2)
            bottom = top + odd
            bg = text = None
            if colors is not None:
                bg = next(colors)
                text = _text_color(bg)
                top, right, bottom, left = top + 1, right + 1, bottom + 1, left + 1
            pad = tuple(max(p, 0) for p in (top, right, bottom, left))
            cells.append(
                rich.padding.Padding(
                    rich.align.Align(label, "center", vertical="middle"),
                    pad,
                    style=rich.style.Style(bgcolor=bg, color=text),
                )
            )
        table.add_row(*cells)
    console.print(table, end="\n\n")


def visualize_array_sharding(arr, **kwargs) -> None:
    """Print the layout of ``arr`` over devices (1-D and 2-D arrays), as
    :func:`visualize_sharding` draws its shape and sharding."""
    visualize_sharding(arr.shape, arr.sharding, **kwargs)
