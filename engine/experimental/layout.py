"""``jax.experimental.layout``: how an array's elements are ordered in memory (``Layout``) and,
with its sharding, where it lives (``Format``).

The engine computes on numpy arrays in row-major order, the layout XLA's CPU backend picks by
default (``major_to_minor=(0, 1, ...)``), and ``Layout.AUTO`` resolves to it, as on JAX's CPU. An
array put with another layout (``device_put(x, Format(Layout((1, 0)), sharding))``) keeps that
layout as its ``.format`` says, and a compiled function refuses it, as JAX's does, when it was
compiled for another; the values themselves are the same either way.

    >>> import engine as jax, engine.numpy as jnp
    >>> jnp.ones((2, 3)).format.layout
    Layout(major_to_minor=(0, 1), tiling=(), sub_byte_element_size_in_bits=0)
"""

from __future__ import annotations

import weakref
from typing import Any, Sequence

from .. import core
from ..sharding import Sharding, SingleDeviceSharding


class _AutoLayout:
    """``Layout.AUTO``: let the compiler choose (on a CPU: the default, row-major)."""

    def __repr__(self) -> str:
        return "AUTO"


AUTO = _AutoLayout()


class Layout:
    """The order of an array's dimensions in memory, outermost first (``major_to_minor``)."""

    AUTO = AUTO

    def __init__(
        self, major_to_minor: Sequence[int], tiling: Any = None, sub_byte_element_size_in_bits: int = 0
    ):
        self.major_to_minor = tuple(major_to_minor)
        self.tiling = None if tiling is None else tuple(tuple(t) for t in tiling)
        self.sub_byte_element_size_in_bits = sub_byte_element_size_in_bits

    def __repr__(self) -> str:
        return (
            f"Layout(major_to_minor={self.major_to_minor}, tiling={self.tiling}, "
            f"sub_byte_element_size_in_bits={self.sub_byte_element_size_in_bits})"
        )

    def _key(self) -> tuple:
        return (self.major_to_minor, self.tiling or (), self.sub_byte_element_size_in_bits)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def default_layout(ndim: int) -> Layout:
    """Row-major: what the engine (and XLA on a CPU) uses unless told otherwise."""
    return Layout(tuple(range(ndim)), tiling=())


class Format:
    """A ``Layout`` (or ``Layout.AUTO``, or None: the default) and a sharding."""

    def __init__(self, layout: Layout | _AutoLayout | None = None, sharding: Sharding | None = None):
        if isinstance(layout, Layout) and not isinstance(sharding, Sharding):
            raise ValueError(
                f"Sharding has to be concrete when layout is of type {Layout}. Please pass a "
                "`jax.sharding.NamedSharding` or `jax.sharding.SingleDeviceSharding` to the sharding "
                f"argument. Got sharding {sharding}"
            )
        self.layout, self.sharding = layout, sharding

    def __repr__(self) -> str:
        return f"Format(layout={self.layout}, sharding={self.sharding})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Format) and (self.layout, self.sharding) == (other.layout, other.sharding)

    def __hash__(self) -> int:
        return hash((self.layout, self.sharding))


def with_layout_constraint(x: Any, layout: Layout) -> Any:
    """Inside ``jit``: ask for ``x`` in ``layout`` at this point (the values are unchanged; the
    engine's intermediates are row-major numpy arrays, so it is the identity here)."""
    if not isinstance(layout, (Layout, _AutoLayout)):
        raise TypeError(f"with_layout_constraint expects a Layout, got {layout!r}")
    return x


# Arrays put with a layout other than the default: id -> layout (arrays are unhashable; the
# entry goes when the array does).
_put_layouts: dict[int, Layout] = {}


def array_format(x: Any) -> Format:
    layout = _put_layouts.get(id(x)) or default_layout(x.ndim)
    return Format(layout, x.sharding)


def put_with_format(x: Any, fmt: Format) -> Any:
    """``device_put(x, Format(...))``: placed by the format's sharding, keeping its layout."""
    from ..parallel import device_put

    out = device_put(x, fmt.sharding) if fmt.sharding is not None else device_put(x)
    layout = fmt.layout
    if isinstance(layout, Layout):
        if sorted(layout.major_to_minor) != list(range(out.ndim)):
            raise ValueError(f"Layout {layout} does not fit an array of rank {out.ndim}")
        if layout != default_layout(out.ndim):
            _put_layouts[id(out)] = layout
            weakref.finalize(out, _put_layouts.pop, id(out), None)
    return out


def strip_formats(shardings: Any) -> Any:
    """``in_shardings``/``out_shardings`` with each ``Format`` replaced by its sharding (None if all
    become None): the engine lays values out by shardings, layouts are the default."""
    from ..tree_util import tree_map

    if shardings is None:
        return None
    stripped = tree_map(lambda s: s.sharding if isinstance(s, Format) else s, shardings, is_leaf=_is_format)
    leaves = [s for s in (stripped if isinstance(stripped, (tuple, list)) else [stripped])]
    return None if all(s is None for s in leaves) else stripped


def _is_format(x: Any) -> bool:
    return isinstance(x, Format) or x is None


def compiled_formats(avals: Sequence[core.ShapedArray]) -> list[Format]:
    """The formats a single-device compiled program takes or gives: row-major, on device 0."""
    from ..parallel import devices

    device = SingleDeviceSharding(devices()[0])
    return [Format(default_layout(len(a.shape)), device) for a in avals]


def check_argument_layouts(args: Sequence[Any], names: Sequence[str]) -> None:
    """JAX's error for committed arguments whose layout is not the compiled (default) one."""
    if not _put_layouts:
        return
    wrong = [(n, a) for n, a in zip(names, args) if id(a) in _put_layouts]
    if not wrong:
        return
    lines = [
        "Computation was compiled for input layouts that disagree with the layouts of arguments passed "
        f"to it. Here are the {len(wrong)} mismatches:"
    ]
    for name, a in wrong:
        passed = _put_layouts[id(a)]
        lines += [
            f"Argument {name} with shape {a.dtype.name}[{','.join(map(str, a.shape))}]:",
            f"  Passed layout: {Layout(passed.major_to_minor, ())}",
            f"  Required layout: {default_layout(a.ndim)}",
        ]
    raise ValueError("\n".join(lines))


def _install_array_format() -> None:
    core.Array.format = property(array_format)  # type: ignore[attr-defined]  # JAX's Array.format


_install_array_format()
